"""Issue 16.2: `compare` reads a pair's judge repeats from migration 015's `verdict_pairs` (one row per pair and
judge version, its repeats as a pattern text) instead of grouping every verdict row. The stored row keeps no verdict
id, so wherever the rule needs one (a pair judged by two versions, two versions reaching as many pairs) and where a
label holding a separator makes the text ambiguous, the grouped read of the verdict rows decides. The attack: every
one of those cases, ties, error-only pairs, errors beside labels, labels outside pass/fail, the version filters;
each must give exactly what the grouped read of the verdict rows gives (the rule `test_compare_aggregated.py` checks
against the row-by-row reference)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _runs  # house: private (the two reads compared directly)
from judgecal.cli import main

RUNS = ["demo-run-a", "demo-run-b"]
FIELDS = "run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error, created_at"


def _where(run_ids, rubric_sha256=None, judge_model=None):
    marks = ",".join("?" * len(run_ids))
    where, params = f"v.run_record_id IN (SELECT r.id FROM run_records r WHERE r.run_id IN ({marks}))", list(run_ids)
    if rubric_sha256 is not None:
        where, params = where + " AND v.rubric_sha256 = ?", params + [rubric_sha256]
    if judge_model is not None:
        where, params = where + " AND v.judge_model = ?", params + [judge_model]
    return where, params


def _stored(db, rubric_sha256=None, judge_model=None):
    runs = {r[0] for r in db.execute(f"SELECT id FROM run_records WHERE run_id IN ({','.join('?' * len(RUNS))})",
                                     RUNS)}
    filters, params = "", []
    if rubric_sha256 is not None:
        filters, params = filters + " AND v.rubric_sha256 = ?", params + [rubric_sha256]
    if judge_model is not None:
        filters, params = filters + " AND v.judge_model = ?", params + [judge_model]
    return _runs._stored_votes(db, RUNS, runs, filters, params)


def _votes(v):
    """(judge, ppi_judge, source, each judge label's version): the two reads note the versions differently (the
    stored one a default and the exceptions, the grouped one per pair)."""
    return None if v is None else (v.judge, v.ppi_judge, v.source,
                                   {p: v.other_versions.get(p, v.version) for p in v.judge})


def _both(db, **filters):
    where, params = _where(RUNS, **filters)
    return _votes(_stored(db, **filters)), _votes(_runs._grouped_votes(db, where, list(params)))


@pytest.fixture()
def project(unlabelled_demo: Path) -> Path:
    return unlabelled_demo


def _semantic_pairs(c, run="demo-run-b"):
    return c.execute("SELECT DISTINCT v.run_record_id, v.constraint_id FROM verdicts v JOIN run_records r"
                     " ON r.id = v.run_record_id WHERE r.run_id = ? ORDER BY 1, 2", [run]).fetchall()


def _rewrite(c, pair, sha, model, labels):
    """Replace the pair's repeats of (sha, model) by `labels` (None: an error row), in repeat order."""
    c.execute("DELETE FROM verdicts WHERE run_record_id = ? AND constraint_id = ? AND rubric_sha256 = ?"
              " AND judge_model = ?", [*pair, sha, model])
    for repeat, label in enumerate(labels):
        c.execute(f"INSERT INTO verdicts ({FIELDS}) VALUES (?,?,?,?,?,?,?, '2026-01-01T00:00:00Z')",
                  [*pair, sha, model, repeat, label, None if label is not None else "timeout"])


def test_stored_patterns_give_the_grouped_votes_for_one_version(project):
    """One judge version, every pattern the rule distinguishes: the stored read answers (no fallback) and agrees."""
    with ann.unit_of_work(project) as db, ann.write(db):
        c = db.conn
        sha, model = c.execute("SELECT rubric_sha256, judge_model FROM verdicts LIMIT 1").fetchone()
        pairs = _semantic_pairs(c)
        assert len(pairs) >= 10
        for pair, labels in zip(pairs, [
                ["pass", "fail"],  # a tie: unjudged, prediction 0.5
                [None, None, None],  # every repeat an error row: no label, prediction 0.5, still reached
                [None, "fail", None],  # errors beside one label: the label settles it
                ["pass", None, "fail"],  # errors beside a tie
                ["fail", "fail", "pass"],  # a majority against the first repeat
                ["complied", "pass", "complied"],  # a label outside pass/fail wins the majority
                ["pass", "fail", "complied"],  # three labels, one each: a tie
                ["pass"] * 5,  # more repeats than the demo's
                ["fail", "pass", "fail", "pass", "fail"]]):
            _rewrite(c, pair, sha, model, labels)
        # repeats stored out of order (a repeat below a stored one: the recompute trigger): same pattern, same rule
        pair = pairs[9]
        c.execute("DELETE FROM verdicts WHERE run_record_id = ? AND constraint_id = ?", pair)
        for repeat, label in ((2, "fail"), (0, "fail"), (1, "pass")):
            c.execute(f"INSERT INTO verdicts ({FIELDS}) VALUES (?,?,?,?,?,?,NULL, '2026-01-01T00:00:00Z')",
                      [*pair, sha, model, repeat, label])
    with ann.unit_of_work(project) as db:
        stored, grouped = _both(db)
        assert stored is not None  # answered from the stored rows, not by falling back
        assert stored == grouped  # (dicts: the same pairs and values; every reader looks a pair up)
        judge, ppi_judge = stored[:2]
        assert sum(1 for p in ppi_judge.values() if p == 0.5) >= 4  # the attack took
        assert judge[tuple(pairs[5])] == "complied" and tuple(pairs[0]) not in judge
        # filtered to the one version, and to a version that judged nothing
        assert _both(db, rubric_sha256=sha, judge_model=model)[0] == grouped
        empty = _both(db, judge_model="nobody")
        assert empty[0] == empty[1] == ({}, {}, None, {})


@pytest.mark.parametrize("other", [("judge_model", "other-judge"), ("judge_model", "")])
def test_versions_that_split_the_pairs_are_read_from_the_stored_rows(project, other):
    """Two judge versions, never on the same pair, one reaching more pairs: no verdict id is needed. The other
    version's rows are spread through the runs' pairs (every third), and its name may be empty."""
    column, value = other
    with ann.unit_of_work(project) as db, ann.write(db):
        c = db.conn
        sha, model = c.execute("SELECT rubric_sha256, judge_model FROM verdicts LIMIT 1").fetchone()
        for pair in _semantic_pairs(c)[::3][:8]:
            c.execute(f"UPDATE verdicts SET {column} = ?, label = CASE label WHEN 'pass' THEN 'fail'"
                      " ELSE 'pass' END WHERE run_record_id = ? AND constraint_id = ? AND label IS NOT NULL",
                      [value, *pair])
    with ann.unit_of_work(project) as db:
        stored, grouped = _both(db)
        assert stored is not None and stored == grouped and stored[2] == (sha, model)
        assert ann.pair_labels(db, RUNS).ppi_source == (sha, model)


@pytest.mark.parametrize("case", ["retry", "reach_tie", "separator_label", "unit_separator_label", "text_repeat"])
def test_what_the_stored_rows_cannot_decide_falls_back_to_the_verdict_rows(project, case):
    with ann.unit_of_work(project) as db, ann.write(db):
        c = db.conn
        sha, model = c.execute("SELECT rubric_sha256, judge_model FROM verdicts LIMIT 1").fetchone()
        pairs = _semantic_pairs(c)
        if case == "retry":  # a later version on a pair: the latest labelled verdict id chooses it
            _rewrite(c, pairs[0], sha, "retry-judge", ["fail" if c.execute(
                "SELECT label FROM verdicts WHERE run_record_id = ? AND constraint_id = ? AND label IS NOT NULL",
                pairs[0]).fetchone()[0] == "pass" else "pass"])
        elif case == "reach_tie":  # two versions reaching as many pairs: the latest verdict id chooses
            every = c.execute("SELECT DISTINCT v.run_record_id, v.constraint_id FROM verdicts v JOIN run_records r"
                              " ON r.id = v.run_record_id WHERE r.run_id IN ('demo-run-a', 'demo-run-b')"
                              " ORDER BY 1, 2").fetchall()
            for pair in every[len(every) // 2:]:
                c.execute("UPDATE verdicts SET judge_model = 'twin-judge' WHERE run_record_id = ?"
                          " AND constraint_id = ?", pair)
            if len(every) % 2:
                _rewrite(c, every[0], sha, model, [])
        elif case == "text_repeat":  # a repeat stored as text that is a digit to str.isdigit, not to int()
            c.execute(f"INSERT INTO verdicts ({FIELDS}) VALUES (?,?,?,?,'\u00b2','fail',NULL, '2026-01-01T00:00:00Z')",
                      [*pairs[2], sha, model])
        else:  # a label holding the pattern's separators (an import does not refuse it): ambiguous text
            # (the parts it makes look like repeats 7 and 8: well formed, only more of them than the pair's repeats)
            odd = ["pass\x1d7\x1f=fail", "pass\x1d8\x1f=fail"] if case == "separator_label" else ["fail\x1f=pass"] * 2
            _rewrite(c, pairs[1], sha, model, [*odd, "pass"])
    with ann.unit_of_work(project) as db:
        stored, grouped = _both(db)
        assert stored is None
        labels = ann.pair_labels(db, RUNS)
        assert (labels.judge, labels.ppi_judge, labels.ppi_source) == grouped[:3]
        if case == "retry":
            assert labels.judge[tuple(pairs[0])] != _both(db, judge_model=model)[1][0].get(tuple(pairs[0]))
            # the retried pair is settled by the retry's version, every other by the first one
            assert labels.judge_other_versions[tuple(pairs[0])] == (sha, "retry-judge") == grouped[3][tuple(pairs[0])]
        if case == "separator_label":  # three labels, one each: a tie (split apart, "pass" would win 3 to 2)
            assert tuple(pairs[1]) not in labels.judge
        if case == "unit_separator_label":
            assert labels.judge[tuple(pairs[1])] == "fail\x1f=pass"


def _compare_json(path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(path), "compare", *RUNS, "--json"]) == 0
    return out.getvalue()


def test_a_project_without_verdict_pairs_compares_alike(project, tmp_path):
    """A read-only project that predates migration 015 groups the verdict rows: the same comparison."""
    before = _compare_json(project)
    with ann.unit_of_work(project) as db, ann.write(db):
        assert _runs.has_verdict_pairs(db)
        db.execute("DROP TABLE verdict_pairs")
        assert not _runs.has_verdict_pairs(db)
        labels = _runs.pair_labels(db, RUNS)
        where, params = _where(RUNS)
        assert (labels.judge, labels.ppi_judge, labels.ppi_source) == tuple(_runs._grouped_votes(db, where, params))[:3]
        assert ann.compare_runs(db, *RUNS).to_json() + "\n" == before


def test_one_read_of_the_standing_labels_gives_each_runs_humans_and_failure_modes(project):
    """`pair_labels` reads the standing labels once for the human majorities and the failure-mode tags of both runs
    (kept to the runs' records in Python). The attack: reviewers tagging one pair differently (the first one's tag
    counts), a fail changed to pass, an undone fail, a tie between two reviewers, tags counted equally often (the
    first seen first), a label on a third run's record. Each run's tags and the human majorities must be what the
    per-run SQL read (`_failure_modes` without the shared rows) and `current_labels` give."""
    with ann.unit_of_work(project) as db:
        c = db.conn
        pass_fail = ("SELECT r.id, k.id FROM run_records r JOIN constraints k ON k.item_id = r.item_id"
                     " AND k.check_json IS NULL AND k.labels = '[\"pass\",\"fail\"]' WHERE r.run_id {} ORDER BY 1, 2")
        b = c.execute(pass_fail.format("= 'demo-run-b'")).fetchall()
        a = c.execute(pass_fail.format("= 'demo-run-a'")).fetchall()
        other = c.execute(pass_fail.format("NOT IN ('demo-run-a', 'demo-run-b')")).fetchone()
        assert len(a) >= 3 and len(b) >= 5
        lab = ann.record_label
        lab(db, "r1", ann.Pair(*b[0]), "fail", failure_mode="hallucination")
        lab(db, "r2", ann.Pair(*b[0]), "fail", failure_mode="format")  # a second tag: the first reviewer's counts
        lab(db, "r1", ann.Pair(*b[1]), "fail", failure_mode="format")
        lab(db, "r1", ann.Pair(*b[2]), "fail")  # untagged
        lab(db, "r1", ann.Pair(*b[3]), "fail", failure_mode="process")
        lab(db, "r1", ann.Pair(*b[3]), "pass")  # changed: no longer a fail
        lab(db, "r1", ann.Pair(*b[4]), "pass")
        lab(db, "r2", ann.Pair(*b[4]), "fail", failure_mode="omission")  # a tie: no human majority, still a tag
        lab(db, "r3", ann.Pair(*a[0]), "fail", failure_mode="format")
        lab(db, "r3", ann.Pair(*a[1]), "fail", failure_mode="hallucination")
        lab(db, "r3", ann.Pair(*a[2]), "fail", failure_mode="other")
        ann.undo_last(db, "r3")
        if other is not None:
            lab(db, "r3", ann.Pair(*other), "fail", failure_mode="process")
        labels = ann.pair_labels(db, RUNS)
        comparison = ann.compare_runs(db, *RUNS)
        for run, stats in zip(RUNS, (comparison.a, comparison.b)):
            assert stats.failure_modes == _runs._failure_modes(db, run)  # the per-run SQL read
        assert comparison.b.failure_modes == {"hallucination": 1, "format": 1, "untagged": 1, "omission": 1}
        assert list(comparison.b.failure_modes) == ["hallucination", "format", "untagged", "omission"]
        assert comparison.a.failure_modes == {"format": 1, "hallucination": 1}
        runs = {r[0] for r in c.execute("SELECT id FROM run_records WHERE run_id IN (?, ?)", RUNS)}
        humans: dict = {}
        for row in ann.current_labels(db):
            if row["run_record_id"] in runs:
                humans.setdefault((row["run_record_id"], row["constraint_id"]), []).append(row["label"])
        assert labels.human == {p: m for p, v in humans.items() if (m := ann.majority_label(v)) is not None}
        assert tuple(b[4]) not in labels.human and labels.human[tuple(b[3])] == "pass"


@pytest.mark.parametrize("hint", ["none", "another record of the runs", "a record of another run", "no such row",
                                  "the pairs' records swapped across runs"])
def test_stale_row_id_hints_give_the_same_votes(project, hint):
    """Migration 019's row ids are hints (a run record deleted and stored again gets another): the stored read joins
    by them and checks each joined record's id, so a hint that names no record, another record of the runs, or a
    record of another run reads the pair through its key: the same votes and the same comparison."""
    before = _compare_json(project)
    with ann.unit_of_work(project) as db:
        assert _runs.has_pair_rowids(db)
        want = _both(db)[1]
    with ann.unit_of_work(project) as db, ann.write(db):
        c = db.conn
        in_runs = "SELECT rowid FROM run_records WHERE run_id = ? ORDER BY rowid"
        a, b = (c.execute(in_runs, [run]).fetchall() for run in RUNS)
        elsewhere = c.execute("SELECT rowid FROM run_records WHERE run_id NOT IN (?, ?) ORDER BY rowid",
                              RUNS).fetchall()
        if hint == "none":
            c.execute("UPDATE verdict_pairs SET record_rowid = NULL WHERE id % 3 = 0")
        elif hint == "another record of the runs":
            c.execute(f"UPDATE verdict_pairs SET record_rowid = {a[0][0]} WHERE id % 2 = 0")
        elif hint == "a record of another run":
            assert elsewhere
            c.execute(f"UPDATE verdict_pairs SET record_rowid = {elsewhere[0][0]}")
        elif hint == "no such row":
            c.execute("UPDATE verdict_pairs SET record_rowid = record_rowid + 10000000")
        else:  # each pair of run A's records hints at a record of run B and the other way round
            c.execute(f"UPDATE verdict_pairs SET record_rowid = CASE WHEN record_rowid IN ({','.join(str(r) for r, in a)})"
                      f" THEN {b[0][0]} ELSE {a[0][0]} END")
    with ann.unit_of_work(project) as db:
        stored, grouped = _both(db)
        assert stored is not None and stored == grouped == want
    assert _compare_json(project) == before


def test_a_project_without_row_id_hints_reads_the_stored_rows_by_key(project):
    """A project read without migration 019's columns (opened read-only before it) joins the pairs by their keys."""
    with ann.unit_of_work(project) as db:
        want = _both(db)[1]
    with ann.unit_of_work(project) as db, ann.write(db):
        for trigger in ("verdict_pairs_insert", "verdict_pairs_insert_behind", "verdict_pairs_update",
                        "verdict_pairs_delete"):
            db.execute(f"DROP TRIGGER {trigger}")
        db.execute("ALTER TABLE verdict_pairs DROP COLUMN record_rowid")
        db.execute("ALTER TABLE verdict_pairs DROP COLUMN constraint_rowid")
    with ann.unit_of_work(project) as db:
        assert not _runs.has_pair_rowids(db)
        stored, grouped = _both(db)
        assert stored is not None and stored == grouped == want
