"""Query plans that do not depend on `sqlite_stat1` (issue 16.2, wave 12).

judgecal never runs ANALYZE, so no project it makes has `sqlite_stat1`; `bench/scale.py` used to run ANALYZE on the
projects it builds, so every figure it printed at a million run records was measured under plans that no user's
project gets. Without statistics SQLite picks a table's unique key for `id = ?` over migration 018's covering index
of the same column, and reads the run record's row (its output: most of the file) or the constraint's (its text)
for a model or an id the covering index holds.

Each statement the draw, the report and the disagreement list run is traced and its plan read (EXPLAIN QUERY PLAN)
on the same connection, in three states: no statistics (every judgecal project), ANALYZE run on this small project,
and the statistics ANALYZE wrote for `bench/scale.py`'s million-record project (copied below: row counts and average
rows per key, no data), so that the planner decides as it would there.
"""

from __future__ import annotations

import re

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports._disagreements import _disagreement_keys  # house: private
from judgecal.annotations.store import write

from test_sampling_members import KW as _MEMBERS_KW
from test_sampling_scale import _project

KW = {k: v for k, v in _MEMBERS_KW.items() if k != "seed"}  # the default order: a judged project sets a seed aside

# sqlite_stat1 of bench/scale.py's 1M project (1,000,020 run records, 5.29M verdicts), as ANALYZE wrote it
MILLION = (
    ("verdict_pairs", "sqlite_autoindex_verdict_pairs_1", "1761940 2 1 1 1"),
    ("draw_fronts", "draw_fronts", "427024 213512 13345 6673 1"),
    ("samples", "samples_stratum", "497184 15537 6457"),
    ("samples", "sqlite_autoindex_samples_1", "497184 2 2 1"),
    ("sample_strata", "sqlite_autoindex_sample_strata_1", "32 1"),
    ("eval_items", "sqlite_autoindex_eval_items_1", "285720 1"),
    ("constraints", "constraints_pair", "452390 2 1 1 1"),
    ("constraints", "constraints_semantic", "452390 2"),
    ("constraints", "sqlite_autoindex_constraints_1", "890494 4 1"),
    ("run_records", "run_records_pair", "1000020 1 1 1 1"),
    ("run_records", "run_records_model", "1000020 500010 333340"),
    ("run_records", "run_records_item", "1000020 4"),
    ("run_records", "sqlite_autoindex_run_records_1", "1000020 1"),
    ("check_results", "sqlite_autoindex_check_results_1", "1376218 2 1"),
    ("rubrics", "sqlite_autoindex_rubrics_2", "1 1 1"),
    ("rubrics", "sqlite_autoindex_rubrics_1", "1 1"),
    ("verdicts", "verdicts_stratum", "5285820 5285820 330364 3"),
    ("verdicts", "verdicts_errors", "819064 819064 819064"),
    ("verdicts", "verdicts_pair", "5285820 6 3"),
    ("verdicts", "sqlite_autoindex_verdicts_1", "5285820 6 3 3 3 1"),
    ("human_labels", "human_labels_reviewer", "183273 91637 1"),
    ("human_labels", "human_labels_pair", "183273 1 1 1"),
)
STATES = ("none", "analyzed", "million")
# a run record or a semantic constraint read through its unique key (or the constraints' id-less partial index):
# each look-up reads the table row for a column the covering index holds
ROW_READ = re.compile(r"\bUSING INDEX (sqlite_autoindex_run_records_1|sqlite_autoindex_constraints_1"
                      r"|constraints_semantic)\b")


def _in_state(db, state: str) -> None:
    if state != "none":
        with write(db):
            db.execute("ANALYZE")
            if state == "million":
                db.execute("DELETE FROM sqlite_stat1")
                db.conn.executemany("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)", MILLION)
            db.execute("ANALYZE sqlite_schema")  # (re)load the statistics into this connection's planner
    has = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone()[0]
    assert bool(has) == (state != "none")


def _plans(db, fn) -> dict[str, list[str]]:
    """Every SELECT `fn` runs on `db`, with its plan read after it (the temp tables it made still exist)."""
    got: list[str] = []
    db.conn.set_trace_callback(got.append)
    try:
        fn()
    finally:
        db.conn.set_trace_callback(None)
    out = {}
    for sql in dict.fromkeys(got):
        if re.match(r"\s*(SELECT|WITH)\b", sql):
            out[" ".join(sql.split())] = [row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + sql)]
    assert out, "nothing traced"
    return out


def _row_reads(plans: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(sql[:160], step) for sql, plan in plans.items() for step in plan if ROW_READ.search(step)]


def _whole_draw(db) -> None:
    with write(db):
        db.execute("DELETE FROM settings WHERE key = 'last_sample_draw'")
    ann.draw_sample(db, **KW)


@pytest.mark.parametrize("state", STATES)
def test_the_draw_reads_pairs_through_the_covering_indexes(tmp_path, state):
    """A first draw and a whole draw: every run record and semantic constraint of a pair is read from migration
    018's covering indexes, with or without statistics. The members' join was the one that read each constraint's
    row without them (and the random rows' join, the targeted groups and the committed seeds likewise)."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        _in_state(db, state)
        first = _plans(db, lambda: ann.draw_sample(db, **KW))
        whole = _plans(db, lambda: _whole_draw(db))
    assert any("CAST(p.prefix || r.id" in sql for sql in whole), "the members' join was not traced"
    assert _row_reads(first) == []
    assert _row_reads(whole) == []


@pytest.mark.parametrize("state", STATES)
def test_the_report_reads_pairs_through_the_covering_indexes(tmp_path, state):
    """The report (its pass not stored, so it joins the pairs itself) reads no run record's or constraint's row for
    a column the covering index holds: the draw orders' join of the random rows to their run records did."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, **KW)
        _in_state(db, state)
        plans = _plans(db, lambda: ann.calibration_report(db))
    assert any("s.reason, r.run_id FROM samples s" in sql for sql in plans), "the draw orders were not traced"
    assert _row_reads(plans) == []


@pytest.mark.parametrize("state", STATES)
def test_the_disagreement_list_reads_the_model_from_the_covering_index(tmp_path, state):
    """The Calibration page's disagreement list joins every standing label to its run record for the model under
    test: through the covering index, not the run record's row (its output): 183k rows read at a million run
    records."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        _in_state(db, state)
        plans = _plans(db, lambda: _disagreement_keys(db, rubric=None, model=None, constraint=None))
    assert any("h.failure_mode, r.model" in sql for sql in plans), "the disagreement keys were not traced"
    assert _row_reads(plans) == []
