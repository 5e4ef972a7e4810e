"""Read-only views behind the app's Eval set and Runs screens: paged item lists, a run's check results, judge batches.

Every query here is bounded (a page of ids, one item's runs, one run's results) or reads a small table (batches),
so a page rerun never reads whole tables.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import sqlite_utils

from judgecal.annotations.store import has_verdict_pairs, table_marks


class BatchRow(NamedTuple):
    """A judge (or runner) batch with the totals its summary recorded."""

    id: str
    kind: str
    status: str
    started_at: str
    finished_at: str | None
    planned: int | None
    sent: int | None
    verdicts: int | None
    errors: int | None
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    settings: dict[str, Any]


def item_ids(db: sqlite_utils.Database, *, search: str = "", limit: int = 200, offset: int = 0) -> list[str]:
    """Eval item ids in import order, optionally those containing `search`, one page at a time."""
    where, params = "", []
    if search:
        where, params = "WHERE instr(lower(id), lower(?)) > 0", [search]
    return [r[0] for r in db.execute(f"SELECT id FROM eval_items {where} ORDER BY seq LIMIT ? OFFSET ?",
                                     [*params, limit, offset])]


def project_counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Sizes shown on the Eval set screen (counts use the tables' indexes)."""
    def one(sql: str) -> int:
        return db.execute(sql).fetchone()[0]

    return {
        "items": one("SELECT count(*) FROM eval_items"),
        "semantic constraints": one("SELECT count(*) FROM constraints WHERE check_json IS NULL"),
        "checked constraints": one("SELECT count(*) FROM constraints WHERE check_json IS NOT NULL"),
        "run records": one("SELECT count(*) FROM run_records"),
        "check results": one("SELECT count(*) FROM check_results"),
    }


def data_version(db: sqlite_utils.Database) -> tuple[int, int, str | None, int]:
    """Changes when run records or check results change: a cache key for derived tables such as metrics.

    A re-run of the checks replaces every result with as many new ones (same count) that may differ (a newer checker
    or plugin), so the key also holds the newest `checked_at` and the newest rowid (`INSERT OR REPLACE` gives the
    replacing row a new one, so two re-runs within one millisecond differ too)."""
    runs = db.execute("SELECT coalesce(max(rowid), 0) FROM run_records").fetchone()[0]
    n, last_checked, last_rowid = db.execute(
        "SELECT count(*), max(checked_at), coalesce(max(rowid), 0) FROM check_results").fetchone()
    return (runs, n, last_checked, last_rowid)


def run_ids_of_item(db: sqlite_utils.Database, item_id: str) -> list[tuple[str, str]]:
    """(run record id, model) of an item's run records, in import order."""
    return [tuple(r) for r in db.execute("SELECT id, model FROM run_records WHERE item_id = ? ORDER BY seq", [item_id])]


def check_results_of_run(db: sqlite_utils.Database, run_record_id: str) -> list[dict[str, Any]]:
    return [
        {"constraint": r["constraint_id"], "checker": r["checker"], "passed": bool(r["passed"]), "detail": r["detail"],
         "bad steps": r["bad_steps"]}
        for r in db.query("SELECT * FROM check_results WHERE run_record_id = ? ORDER BY constraint_id",
                          [run_record_id])
    ]


def batches(db: sqlite_utils.Database, *, limit: int = 200) -> list[BatchRow]:
    """The latest batches, newest first, with the totals from their JSON summary (None while still running)."""
    out = []
    for r in db.query("SELECT * FROM batches ORDER BY started_at DESC LIMIT ?", [limit]):
        s = json.loads(r["summary"]) if r["summary"] else {}
        errors = s.get("errors")
        out.append(BatchRow(
            r["id"], r["kind"], r["status"], r["started_at"], r["finished_at"], s.get("planned"), s.get("sent"),
            s.get("verdicts"), sum(errors.values()) if isinstance(errors, dict) else errors,
            s.get("input_tokens"), s.get("output_tokens"), s.get("cost"), json.loads(r["settings"] or "{}"),
        ))
    return out


def errors_by_cause(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Judge errors stored in the verdicts, per batch and cause (an error is never a label)."""
    sql = """SELECT coalesce(batch_id, '(no batch)') AS batch, error AS cause, count(*) AS n
             FROM verdicts WHERE error IS NOT NULL GROUP BY batch_id, error ORDER BY batch_id, n DESC"""
    return list(db.query(sql))


def imported_verdicts(db: sqlite_utils.Database) -> int:
    """Verdict rows stored by no recorded batch (imported: `judgecal import verdicts`, the demo)."""
    return db.execute("SELECT count(*) FROM verdicts WHERE batch_id IS NULL OR batch_id NOT IN"
                      " (SELECT id FROM batches)").fetchone()[0]


def runs_with_boundary_cases(db: sqlite_utils.Database) -> list[str]:
    """Run ids with at least one record of a boundary item (tagged `boundary:*`; see annotations.reports._boundary): the runs
    the Boundary report can be opened on. The run with the most boundary records comes first (a run made for the
    report with the runner's `--repeats N` has N per case; an ordinary run over the whole eval set has one, so its
    every case reads "incomplete"), then import order."""
    from judgecal.annotations.reports._boundary import BOUNDARY_TAG

    boundary = [i for i, tags in db.execute("SELECT id, tags FROM eval_items WHERE instr(tags, ?) > 0",
                                            [BOUNDARY_TAG])
                if any(str(t).startswith(BOUNDARY_TAG) for t in json.loads(tags))]
    if not boundary:
        return []
    marks = ",".join("?" * len(boundary))
    return [r[0] for r in db.execute(
        f"SELECT run_id, count(*) AS n, min(seq) AS first FROM run_records"
        f" WHERE run_id IS NOT NULL AND item_id IN ({marks}) GROUP BY run_id ORDER BY n DESC, first", boundary)]


class PairSource(NamedTuple):
    """What the judge reads for one (run record, constraint) pair: the record, its item and the constraint."""

    record: Any  # evalsets.RunRecord
    item: Any  # evalsets.EvalItem
    constraint: Any  # evalsets.Constraint


def labelled_pair_ids(db: sqlite_utils.Database, *, limit: int = 500) -> list[tuple[str, str]]:
    """(run record id, constraint id) of pairs with a human label, first labelled first: the pairs a rubric is tuned
    on, offered for a prompt preview."""
    return [(r[0], r[1]) for r in db.execute(
        "SELECT run_record_id, constraint_id, min(id) AS first FROM human_labels GROUP BY 1, 2 ORDER BY first"
        " LIMIT ?", [limit])]


def pair_source(db: sqlite_utils.Database, run_record_id: str, constraint_id: str) -> PairSource:
    """One pair as the judge sees it. Raises ValueError for an unknown run record or constraint."""
    from judgecal.annotations.store import iter_runs, load_items

    record = next(iter_runs(db, where="id = ?", params=[run_record_id]), None)
    if record is None:
        raise ValueError(f"no run record {run_record_id!r}")
    item = load_items(db, [record.item_id])[record.item_id]
    constraint = next((c for c in item.constraints if c.id == constraint_id), None)
    if constraint is None:
        raise ValueError(f"no constraint {constraint_id!r} on run record {run_record_id!r}")
    return PairSource(record, item, constraint)


CALIBRATION_TABLES = ("verdicts", "human_labels", "samples", "rubrics", "run_records", "constraints", "adjudications",
                      "evalset_feedback")


def calibration_version(db: sqlite_utils.Database) -> tuple:
    """Changes whenever anything the calibration report or the disagreement list reads changes (verdicts, labels,
    samples, rubrics, constraints, adjudications, eval-set feedback): a cache key for them.

    With migrations 015, 016 and 020 each table's part is its largest rowid and its rewrite counter (`table_marks`:
    an insert moves the one, a delete or an update bumps the other), so the key costs a few index look-ups at any
    size. A project opened read-only before those migrations falls back to the old key: per table the row count, the
    max rowid and the last rows themselves (index-only reads): SQLite reuses the rowids of deleted rows, so a verdict
    deleted or replaced at the top and stored again keeps max and count, but not its content (a new `created_at`).
    File stamps cannot serve: every connection's close resets the WAL file. The last draw's strata join it
    (`_strata_stamp`): a draw after the population grew may add no sample row and only rewrite them, and the
    report's coverage reads them."""
    return (*tables_version(db, CALIBRATION_TABLES), _strata_stamp(db))


REPORT_TABLES = ("verdicts", "human_labels", "samples", "rubrics", "run_records", "constraints")


def report_version(db: sqlite_utils.Database) -> tuple:
    """`calibration_version` without adjudications and eval-set feedback, which `calibration_report` does not read:
    the key the Calibration page keeps the report under, so a decision saved on a disagreement does not recompute
    it."""
    return (*tables_version(db, REPORT_TABLES), _strata_stamp(db))


def _strata_stamp(db: sqlite_utils.Database) -> tuple:
    """The last draw's `sample_strata` (a handful of rows, rewritten whole by every draw): when, how many, and their
    populations."""
    return tuple(db.execute("SELECT max(drawn_at), count(*), total(population), total(needed) FROM sample_strata")
                 .fetchone())


def tables_version(db: sqlite_utils.Database, tables: tuple[str, ...]) -> tuple:
    """A key of exactly `tables` (any of CALIBRATION_TABLES and `check_results`): what a cache of something computed
    from those tables alone is kept under, so a change elsewhere (a new label, for the filter options) keeps it."""
    marks = table_marks(db, tables)
    if marks is not None:
        return ("marks", *marks)
    return tuple(_TAILS[t](db) for t in tables)


_VERDICT_TAIL = "json_array(run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error, created_at)"


def _tail(db: sqlite_utils.Database, table: str, columns: str) -> tuple:
    return db.execute(
        f"SELECT count(*), coalesce(max(rowid), 0), (SELECT group_concat(x, char(31)) FROM (SELECT {columns} AS x"
        f" FROM {table} ORDER BY rowid DESC LIMIT 20)) FROM {table}").fetchone()


def verdicts_version(db: sqlite_utils.Database) -> tuple:
    """The part of `calibration_version` that the verdicts of each pair and the pairs' models, types and label sets
    are read from (verdicts, run records, constraints, rubrics): the key of the loaded verdicts that
    `calibration_report` keeps between calls, so a new label does not read every verdict again.

    With migration 015 the verdicts' part costs two look-ups, not a count: an insert always moves the largest rowid
    (a row gets largest + 1; only a delete lets a later insert reuse one), and every delete, update and insert under
    an explicit row id below the largest bumps table_rewrites('verdicts') in the writer's transaction. The pairs' table is in the key too, so a project that
    gains it is read afresh. With migration 020 the run records', constraints' and rubrics' parts are O(1) too."""
    marks = table_marks(db, ("verdicts", "run_records", "constraints", "rubrics"))
    if marks is not None:
        return ("marks", *marks)
    if has_verdict_pairs(db):
        verdicts = db.execute(
            "SELECT (SELECT coalesce(max(rowid), 0) FROM verdicts),"
            " (SELECT coalesce(max(n), 0) FROM table_rewrites WHERE name = 'verdicts'), 'verdict_pairs'").fetchone()
    else:
        verdicts = _tail(db, "verdicts", _VERDICT_TAIL)
    return (verdicts, _tail(db, "run_records", "id"),
            _tail(db, "constraints", "json_array(item_id, id, labels)"), _tail(db, "rubrics", "sha256"))


def samples_version(db: sqlite_utils.Database) -> tuple:
    """The part of `calibration_version` the sample rows are read from: the key, beside `verdicts_version`, of the
    sample rules `calibration_report` keeps. Two look-ups with migration 016 (`table_marks`)."""
    return tables_version(db, ("samples",))


def _samples_tail(db: sqlite_utils.Database) -> tuple:
    return _tail(db, "samples", "json_array(run_record_id, constraint_id, rule, drawn_at)")


_TAILS = {
    "verdicts": lambda db: _tail(db, "verdicts", _VERDICT_TAIL),
    "human_labels": lambda db: _tail(
        db, "human_labels", "json_array(run_record_id, constraint_id, reviewer, event, label, created_at)"),
    "samples": _samples_tail,
    "rubrics": lambda db: _tail(db, "rubrics", "sha256"),
    "run_records": lambda db: _tail(db, "run_records", "id"),
    "constraints": lambda db: _tail(db, "constraints", "json_array(item_id, id, labels)"),
    "adjudications": lambda db: _tail(db, "adjudications", "json_array(run_record_id, constraint_id, decision, created_at)"),
    "evalset_feedback": lambda db: _tail(db, "evalset_feedback",
                                         "json_array(item_id, run_record_id, constraint_id)"),
    "check_results": lambda db: data_version(db)[1:],
}
