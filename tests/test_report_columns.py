"""Issue 16.3: the report's label-dependent numbers from the labelled pairs' columns (`_labelled_columns`: a slice is
an index array over them, its confusion tables counted with np.bincount) equal the per-pair computation
(`_slice_stats` and the rest, `_COLUMNS = False`), number for number and bit for bit: on the hostile project of
tests/test_report_aggregates.py (ties, error rows, a pair whose every repeat failed, extra repeats on labelled pairs
only, repeats stored out of order, labels outside the label set, several label sets and judge models, post-reveal
changes, targeted-only and unsampled labels, items shared by several pairs, a revision verified on fresh labels)
under every filter combination there, on both label-free paths; and `_agreement_codes` against `agreement` on random
label lists with ties for the dominant label, weights of several values (their pair-order sums) and clusters."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (the two paths compared)
from judgecal.annotations.reports._calibration import ABSTAIN, agreement, calibration_report  # house: private
from judgecal.annotations.stats import cluster_codes
from test_report_aggregates import CALLS, _hostile
from test_scale_golden import STAMP, V2


def _both(db_path: Path, monkeypatch: pytest.MonkeyPatch, in_sql: bool, **kwargs) -> tuple[str, str]:
    out = []
    monkeypatch.setattr(_calibration, "_AGGREGATE_IN_SQL", in_sql)
    for columns in (True, False):
        monkeypatch.setattr(_calibration, "_COLUMNS", columns)
        _calibration._KEPT.clear()
        with ann.unit_of_work(db_path) as db:
            out.append(calibration_report(db, **kwargs).to_json())
    _calibration._KEPT.clear()
    return out[0], out[1]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    db_path = _hostile(tmp_path_factory.mktemp("columns"))
    rng = random.Random(163)
    with ann.unit_of_work(db_path) as db:
        # more post-reveal changes and a label outside the pair's label set, on random labelled pairs
        rows = list(db.query("SELECT * FROM human_labels ORDER BY id LIMIT 40"))
        with ann.write(db):
            for k, row in enumerate(rows):
                new = {c: v for c, v in row.items() if c != "id"}
                new.update(blind=0, label="not-in-the-set" if k % 3 == 0 else rng.choice(["pass", "fail"]))
                db.table("human_labels").insert(new)
            # blind first labels outside the pair's label set, and empty judge labels (an abstention per repeat,
            # a label of its own in a majority), on labelled pairs
            db.execute("UPDATE human_labels SET label = 'not-in-the-set' WHERE event = 'label' AND blind = 1"
                       " AND id % 9 = 4")
            db.execute("UPDATE verdicts SET label = '' WHERE label IS NOT NULL AND id % 11 = 3 AND EXISTS (SELECT 1"
                       " FROM human_labels h WHERE h.run_record_id = verdicts.run_record_id"
                       " AND h.constraint_id = verdicts.constraint_id)")
    return db_path


@pytest.mark.parametrize("in_sql", [True, False], ids=["sql", "per-pair"])
@pytest.mark.parametrize("kwargs", CALLS, ids=[str(c) for c in CALLS])
def test_columns_equal_the_per_pair_computation(hostile, monkeypatch, kwargs, in_sql):
    columns, per_pair = _both(hostile, monkeypatch, in_sql, **kwargs)
    assert columns == per_pair


def test_the_hostile_project_has_what_the_columns_must_reproduce(hostile, monkeypatch):
    monkeypatch.setattr(_calibration, "_COLUMNS", True)
    _calibration._KEPT.clear()
    with ann.unit_of_work(hostile) as db:
        report = calibration_report(db)
    _calibration._KEPT.clear()
    slices = [s for g in report.groups for s in (g.overall, *g.by_constraint, *g.by_type, *g.by_label_set)]
    assert any(s.excluded_tie for s in slices) and any(s.excluded_no_valid for s in slices)
    assert any(s.changed_after_reveal for s in slices)
    assert any(s.targeted is not None for s in slices)
    assert any(s.majority is not None and s.majority.design_effect > 1 for s in slices)  # items shared by pairs
    weighted = {w for s in slices if s.majority_weighted is not None for row in s.majority_weighted.confusion
                for w in row}
    assert any(w != int(w) for w in weighted)  # design weights that are not whole numbers
    assert any(g.verification for g in report.groups)
    assert any(r.estimate is not None for g in report.groups for r in g.pass_rates)
    assert any(s.rate.estimate is not None for g in report.groups for s in g.label_rates)
    assert any(not (r.estimate != r.estimate) for g in report.groups for r in g.rogan_gladen)
    assert any(g.judge_error is not None for g in report.groups)
    assert any(g.non_random is not None and g.non_random.majority is not None for g in report.groups)


@pytest.mark.parametrize("seed", range(40))
def test_agreement_from_codes_equals_agreement(seed):
    rng = random.Random(seed)
    vocab = [ABSTAIN, "pass", "fail", "maybe", "zzz", ""]
    n = rng.choice([1, 2, 3, 7, 50, 400, 3000])
    k = rng.randint(1, len(vocab))
    a = [rng.randrange(k) for _ in range(n)]
    b = [rng.randrange(1, k) if k > 1 else 0 for _ in range(n)]
    if seed % 4 == 0:  # a tie for the dominant label, broken by first occurrence
        b = list(reversed(a))
    strata = [rng.randrange(5) for _ in range(n)]
    weight_of = [rng.choice([1.0, 10 / 3, 7 / 3, 2.1, 0.3]) for _ in range(5)]
    weights = [weight_of[s] for s in strata]
    items = [f"item-{rng.randrange(max(1, n // 3))}" for _ in range(n)]
    order = ("pass", "fail") if seed % 2 else ("fail", "maybe", "pass")
    la, lb = [vocab[x] for x in a], [vocab[y] for y in b]
    codes = cluster_codes(items)
    abstain = vocab.index(ABSTAIN)
    ca, cb = np.array(a, dtype=np.intp), np.array(b, dtype=np.intp)
    assert _calibration._agreement_codes(ca, cb, vocab, abstain, order) == agreement(la, lb, order)
    assert (_calibration._agreement_codes(ca, cb, vocab, abstain, order, clusters=codes)
            == agreement(la, lb, order, clusters=items))
    got = _calibration._agreement_codes(ca, cb, vocab, abstain, order, weights=np.array(weights), clusters=codes)
    want = agreement(la, lb, order, weights=weights, clusters=items)
    assert repr(got) == repr(want)  # bit for bit (NaN compares unequal, repr does not)


def test_later_events_is_every_reviewer_with_a_second_event(hostile):
    with ann.unit_of_work(hostile) as db:
        old = {tuple(r) for r in db.execute(
            "SELECT h.run_record_id, h.constraint_id, h.reviewer FROM human_labels h JOIN (SELECT run_record_id,"
            " constraint_id, reviewer, min(id) AS first FROM human_labels GROUP BY 1, 2, 3) f ON f.run_record_id ="
            " h.run_record_id AND f.constraint_id = h.constraint_id AND f.reviewer = h.reviewer WHERE h.id > f.first"
            " GROUP BY 1, 2, 3")}
        assert old and _calibration.later_events(db) == old


def test_kept_labelled_reads_equal_a_fresh_report_after_each_change(tmp_path, monkeypatch):
    """The labelled pairs' info and verdict rows are kept under the labels', verdicts', run records' and
    constraints' versions and merged per pair when labels were only added: after new labels (on pairs never labelled,
    some judged by one group only, and on labelled ones), a change, a label edited in place and new verdicts, the
    report equals one computed with nothing kept."""
    from judgecal.annotations.store import _memo  # house: private (cleared to compute afresh)

    db_path = _hostile(tmp_path)
    merged = []  # the pairs read by the incremental path
    rows_of, info_of = _calibration._verdict_rows, _calibration.pair_info_of
    monkeypatch.setattr(_calibration, "_verdict_rows",
                        lambda db, pairs: (merged.append(("rows", pairs)) if pairs is not None else None,
                                           rows_of(db, pairs))[1])
    monkeypatch.setattr(_calibration, "pair_info_of",
                        lambda db, pairs, **kw: (merged.append(("info", pairs)) if pairs is not None else None,
                                                 info_of(db, pairs, **kw))[1])

    def fresh(db) -> str:
        _memo._KEPT.clear()
        _calibration._KEPT.clear()
        return calibration_report(db).to_json()

    def insert(db, pair, reviewer, label, event="label", blind=1):
        with ann.write(db):
            db.execute("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label,"
                       " rubric_version_seen, blind, created_at) VALUES (?,?,?,?,?,?,?,?)",
                       [pair[0], pair[1], reviewer, event, label, None, blind, "2026-12-01T10:00:00Z"])

    with ann.unit_of_work(db_path) as db:
        labelled = {tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM human_labels")}
        sampled = [tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples ORDER BY rowid")]
        unlabelled = [p for p in dict.fromkeys(sampled) if p not in labelled]
        assert len(unlabelled) >= 6
        fresh(db)
        steps = [
            lambda: insert(db, unlabelled[0], "rev-new", "pass"),
            lambda: [insert(db, p, "rev-new", "fail") for p in unlabelled[1:4]],
            lambda: insert(db, sorted(labelled)[0], "rev-new", "fail"),  # another reviewer on a labelled pair
            lambda: insert(db, unlabelled[0], "rev-new", "fail", event="change", blind=0),
            lambda: db.execute("UPDATE human_labels SET label = 'fail' WHERE id = (SELECT max(id) FROM human_labels)"),
            lambda: insert(db, unlabelled[4], "rev-new", "pass"),
            lambda: db.conn.execute(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                " created_at) VALUES (?,?,?,?,?,?,?)", [*unlabelled[5], V2, "judge-late", 0, "pass", STAMP]),
            lambda: insert(db, unlabelled[5], "rev-new", "pass"),
        ]
        for step in steps:
            calibration_report(db)  # keeps the labelled reads under the current versions
            with ann.write(db):
                step()
            kept = calibration_report(db).to_json()
            assert kept == fresh(db)
        # the appended labels were merged per pair (not after the edit in place or the new verdicts)
        read = [(kind, frozenset(pairs)) for kind, pairs in merged]
        for pairs in ([unlabelled[0]], unlabelled[1:4], [unlabelled[4]]):
            assert ("rows", frozenset(pairs)) in read and ("info", frozenset(pairs)) in read
