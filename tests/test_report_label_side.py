"""Issue 16 item 3: what the report reads from the labels is kept in the process and, after labels were only added,
updated from the new rows: the blind first labels (`kept_blind_first`), the counted pairs with their rules
(`_kept_label_side`), the labels by pair (`_kept_labels_by_pair`) and the labelled records' covariates
(`kept_record_covariates`, under migration 024's version of `eval_items`). A kept value that outlives a change would
show stale numbers, so after each kind of change (a new label that lengthens a counted prefix, one beyond it, a
non-blind label, a change, an undo, a second reviewer, an edit in place, a delete, a label stored in a gap, a new and
an edited eval item, a new run record's label) each kept value equals the same value computed with nothing kept, and
so does the whole report, under filters; the incremental path is checked to run after appended labels only."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (the kept values against fresh ones)
from judgecal.annotations.reports import _judge_error  # house: private (the kept covariates)
from judgecal.annotations.reports._calibration import calibration_report, counted_rules, human_labels_by_pair  # house: private
from judgecal.annotations.review import counted_pairs, sample_rules
from judgecal.annotations.store import _memo  # house: private (cleared to compute afresh)
from judgecal.annotations.store import blind_first_labels, kept_blind_first, table_marks
from test_report_aggregates import _hostile

FILTERS = [{}, {"rubric_seen": "strict"}, {"run_id": "demo-run-b"}]


def _clear() -> None:
    _memo._KEPT.clear()
    _calibration._KEPT.clear()


def _kept_values(db) -> dict:
    raw = _calibration.kept_sample_rules(db)
    side = {run: _calibration._kept_label_side(db, run, raw) for run in (None, "demo-run-b")}
    return {"blind": kept_blind_first(db), "side": side, "by_pair": _calibration._kept_labels_by_pair(db),
            "covariates": _judge_error.kept_record_covariates(db), "maps": _maps(_calibration._kept_label_maps(db)),
            "reports": [calibration_report(db, **kw).to_json() for kw in FILTERS]}


def _maps(maps) -> tuple:
    """A `_LabelMaps` with its dicts' order (dict equality ignores it)."""
    by_pair = [(p, [(r["reviewer"], r["label"], r["created_at"]) for r in rows])
               for p, rows in maps.labels_by_pair.items()]
    return (list(maps.info.items()), by_pair, list(maps.humans.items()),
            list(maps.stratum_of.items()), maps.post_reveal, maps.later)


def _check(db) -> None:
    kept = _kept_values(db)
    # against the plain definitions, nothing kept
    _clear()
    rows = blind_first_labels(db)
    blind = kept["blind"]
    assert [tuple(r[k] for k in ("run_record_id", "constraint_id", "reviewer", "label", "rubric_version_seen",
                                 "created_at", "id")) for r in rows] == [tuple(r) for r in blind.rows]
    raw = sample_rules(db)
    for run, side in kept["side"].items():
        found = counted_pairs(db, run_id=run, blind=rows)
        assert (side.order, side.prefix, side.counted_of_run) == (found.order, found.prefix, found.pairs)
        assert side.rules == counted_rules(db, run, raw, found.pairs)
        assert side.counted == frozenset(p for p in found.pairs if "random" in raw.get(p, ()))
    fresh_by_pair = human_labels_by_pair(db, rows=rows)
    assert list(kept["by_pair"]) == list(fresh_by_pair)
    assert {p: [tuple(r[k] for k in ("reviewer", "label", "created_at")) for r in rs]
            for p, rs in kept["by_pair"].items()} == {
        p: [(r["reviewer"], r["label"], r["created_at"]) for r in rs] for p, rs in fresh_by_pair.items()}
    assert kept["covariates"] == _judge_error.record_covariates(db)
    later = _calibration.later_events(db)
    assert kept["maps"] == _maps(_calibration._label_maps(_calibration.pair_info_of(db, None, labelled=True),
                                                          fresh_by_pair, later))
    assert kept["maps"][4], "a post-reveal change among the labelled pairs"
    # against the same values computed afresh
    _clear()
    assert kept == _kept_values(db)


def _insert(db, pair, reviewer, label, *, event="label", blind=1, row_id=None):
    with ann.write(db):
        db.execute("INSERT INTO human_labels (id, run_record_id, constraint_id, reviewer, event, label,"
                   " rubric_version_seen, blind, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                   [row_id, pair[0], pair[1], reviewer, event, label, None, blind, "2026-12-01T10:00:00Z"])


def _sql(db, sql, params=()):
    with ann.write(db):
        db.execute(sql, list(params))


def _next_uncounted(db, k: int = 0):
    """The first pair after a population's counted prefix (the `k`-th such population): labelling it blind
    lengthens that prefix."""
    found = counted_pairs(db)
    open_ = [(key, order[found.prefix[key]]) for key, order in sorted(found.order.items())
             if found.prefix[key] < len(order)]
    return open_[k][1]


@pytest.fixture
def hostile(tmp_path) -> Path:
    return _hostile(tmp_path)


def test_kept_label_side_equals_fresh_after_every_change(hostile, monkeypatch):
    computed = []  # which kept values were computed in full
    for module, name in ((_calibration, "counted_pairs"), (_judge_error, "record_covariates"),
                         (_calibration, "human_labels_by_pair")):
        real = getattr(module, name)

        def spy(*a, _real=real, _name=name, **kw):
            # not a read of a few new labelled records, nor the labels by pair under a `rubric_seen` filter (not kept)
            if (_name != "record_covariates" or len(a) < 2) and kw.get("rubric_seen") is None:
                computed.append(_name)
            return _real(*a, **kw)

        monkeypatch.setattr(module, name, spy)
    with ann.unit_of_work(hostile) as db:
        labelled = sorted({tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM human_labels")})
        sampled = [tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples ORDER BY rowid")]
        unlabelled = [p for p in dict.fromkeys(sampled) if p not in set(labelled)]
        overlap = [tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples"
                                                " WHERE rule = 'overlap' ORDER BY rowid")]
        assert len(unlabelled) >= 6 and overlap
        appended = {
            "a label lengthening a counted prefix": lambda: _insert(db, _next_uncounted(db), "rev-new", "pass"),
            "two more, in two populations": lambda: [_insert(db, _next_uncounted(db, k), "rev-2", "fail")
                                                     for k in (0, 1)],
            "a label beyond the prefixes": lambda: _insert(db, unlabelled[-1], "rev-new", "pass"),
            "a non-blind first label": lambda: _insert(db, unlabelled[-2], "rev-new", "fail", blind=0),
            "a change": lambda: _insert(db, unlabelled[-1], "rev-new", "fail", event="change", blind=0),
            "an undo": lambda: _insert(db, unlabelled[-1], "rev-new", None, event="undo", blind=0),
            "a second reviewer on an overlap pair": lambda: _insert(db, overlap[0], "rev-second", "pass"),
            "a second reviewer on a labelled pair": lambda: _insert(db, labelled[3], "rev-second", "fail"),
            "a blind label after the reviewer's non-blind one": lambda: _insert(db, unlabelled[-2], "rev-new",
                                                                                  "pass"),
        }
        rewritten = {
            "a label edited in place": lambda: _sql(db, "UPDATE human_labels SET label = 'fail'"
                                                        " WHERE id = (SELECT min(id) FROM human_labels)"),
            "a label deleted": lambda: _sql(db, "DELETE FROM human_labels WHERE id = (SELECT min(id) + 1"
                                                " FROM human_labels)"),
            "a label stored in the gap": lambda: _insert(db, unlabelled[0], "rev-gap", "pass", row_id=db.execute(
                "SELECT min(id) + 1 FROM human_labels").fetchone()[0]),
            "an item's tags edited": lambda: _sql(db, "UPDATE eval_items SET tags = '[\"edited\", \"more\"]'"
                                                      " WHERE id = (SELECT item_id FROM run_records WHERE id = ?)",
                                                  [labelled[0][0]]),
            "a new eval item": lambda: _sql(db, "INSERT INTO eval_items (id, instruction, tags, content_sha256, seq)"
                                                " VALUES ('new-item', 'x', '[\"t\"]', 'sha', 999999)"),
            "a run record's output edited": lambda: _sql(db, "UPDATE run_records SET output = 'longer output text'"
                                                             " WHERE id = ?", [labelled[1][0]]),
        }
        _check(db)
        for name, change in [*appended.items(), *rewritten.items()]:
            change()  # every value is kept at the version before it (`_check` ends computing them afresh)
            computed.clear()
            _kept_values(db)
            # the first read after appended labels updates every kept value; after a rewrite it reads them in full
            # (the covariates only when a table they are read from was rewritten)
            if name in appended:
                assert computed == [], (name, computed)
            else:
                assert "counted_pairs" in computed or "record_covariates" in computed, (name, computed)
            try:
                _check(db)
            except AssertionError as e:
                raise AssertionError(f"after {name}: {e}") from e


def test_the_first_read_after_a_label_is_incremental(hostile, monkeypatch):
    """After appended labels the kept values are updated, never read in full; after an edit, read in full."""
    full = []
    real_cp, real_cov = _calibration.counted_pairs, _judge_error.record_covariates
    monkeypatch.setattr(_calibration, "counted_pairs", lambda *a, **kw: (full.append("counted"), real_cp(*a, **kw))[1])
    monkeypatch.setattr(_judge_error, "record_covariates",
                        lambda db, ids=None: (full.append("covariates" if ids is None else "some"),
                                              real_cov(db, ids))[1])
    with ann.unit_of_work(hostile) as db:
        calibration_report(db)
        full.clear()
        _insert(db, _next_uncounted(db), "rev-new", "pass")
        calibration_report(db)
        assert "counted" not in full and "covariates" not in full
        full.clear()
        _sql(db, "UPDATE human_labels SET note = 'edited' WHERE id = (SELECT max(id) FROM human_labels)")
        calibration_report(db)
        assert "counted" in full and "covariates" in full


def test_migration_024_counts_item_rewrites(hostile):
    with ann.unit_of_work(hostile) as db:
        before = table_marks(db, ("eval_items",))
        assert before is not None
        _sql(db, "UPDATE eval_items SET tags = tags WHERE rowid = (SELECT min(rowid) FROM eval_items)")
        after = table_marks(db, ("eval_items",))
        assert after[0] == before[0] and after[1] == before[1] + 1
        db.execute("PRAGMA foreign_keys = OFF")
        _sql(db, "DELETE FROM eval_items WHERE rowid = (SELECT min(rowid) FROM eval_items)")
        assert table_marks(db, ("eval_items",))[1] == before[1] + 2


def test_blind_label_rows_read_by_name(hostile):
    with ann.unit_of_work(hostile) as db:
        row = kept_blind_first(db).rows[0]
        assert row["label"] == row.label and row["reviewer"] == row.reviewer
        with pytest.raises(AttributeError):
            row["note"]  # only the columns the report reads
