"""Running the mechanical checks over the project's run records and reading their results back."""

from __future__ import annotations

from typing import Any, Iterator

import sqlite_utils

from judgecal.evalsets import check_record, has_loose_mode
from judgecal.annotations.store._project import iter_runs, load_items
from judgecal.annotations.store._schema import now_iso, write

# A failed mechanical check of these constraint types has an obvious failure mode; others stay unclassified
# until a reviewer says what went wrong.
_FAILURE_MODE_BY_TYPE = {"format": "format", "process": "process"}


def run_checks(db: sqlite_utils.Database) -> int:
    """Run every mechanical check on every run record and store the results (replacing earlier ones).
    Returns the number of results written. One transaction."""
    items = load_items(db)
    stamp = now_iso()
    rows: list[tuple[Any, ...]] = []
    for record in iter_runs(db):
        item = items[record.item_id]
        n_steps = len(record.steps)  # the steps the trajectory checks read, so bad_steps / n_steps stays a share
        for c in item.constraints:
            if c.check is None:
                continue
            if record.failed:
                result_passed, detail, bad = False, f"run failed: {record.error}", 0
            else:
                result = check_record(c.check, record)
                result_passed, detail, bad = result.passed, result.detail, len(result.bad_steps)
            rows.append((record.id, c.id, c.check.id, int(c.check.loose), int(result_passed), detail, bad, n_steps, stamp))
    with write(db):
        db.conn.executemany("INSERT OR REPLACE INTO check_results VALUES (?,?,?,?,?,?,?,?,?)", rows)
        db.conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                        (CHECKS_SETTING, CHECKS_SEMANTICS))
    return len(rows)


# The version of what the built-in checks mean, stored by every `judgecal check` (`run_checks`): results stored by
# a judgecal whose checks passed what wave 17's fail (a record without an answer, a transcript's tool calls, loose
# mode, Unicode, strict JSON) must not settle a comparison after an upgrade (a review of the fixes found `compare`
# saying SWITCH on them while `gate --run`, which checks live, failed). Change it when a checker's verdicts change.
CHECKS_SETTING = "checks_semantics"
CHECKS_SEMANTICS = "2026-12 wave 17"


def stale_check_results(db: sqlite_utils.Database) -> str | None:
    """Why the stored check results cannot be read as current, or None: stored, but not by a `judgecal check` of
    these checks' meaning (`CHECKS_SEMANTICS`)."""
    if db.execute("SELECT 1 FROM check_results LIMIT 1").fetchone() is None:
        return None
    row = db.execute("SELECT value FROM settings WHERE key = ?", [CHECKS_SETTING]).fetchone()
    if row is not None and row[0] == CHECKS_SEMANTICS:
        return None
    return ("the stored check results were made by an older judgecal, whose checks passed what these fail (a record "
            "without an answer, a transcript's tool calls, loose mode off IFEval, Unicode tricks, loose JSON): run "
            "`judgecal check` to store them again")


def loose_ignored(db: sqlite_utils.Database) -> list[tuple[str, str, str]]:
    """(item id, constraint id, checker id) of stored checks that ask for `loose` on a checker that has no loose mode
    (not IFEval's). Such a check is refused on import now; one stored before runs strictly (`run_check` ignores the
    flag there), and `judgecal check` names it."""
    sql = ("SELECT item_id, id, json_extract(check_json, '$.id') FROM constraints WHERE check_json IS NOT NULL"
           " AND coalesce(json_extract(check_json, '$.loose'), 0) != 0 ORDER BY item_id, seq")
    return [(item, constraint, checker) for item, constraint, checker in db.execute(sql)
            if not has_loose_mode(checker)]


def check_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    """Check results joined with what metrics need (model, item, constraint type/severity), in import order."""
    sql = """
        SELECT cr.run_record_id, r.item_id, r.model, r.run_id, cr.constraint_id, c.type AS constraint_type,
               c.severity, cr.checker, cr.loose, cr.passed, cr.detail, cr.bad_steps, cr.n_steps
        FROM check_results cr
        JOIN run_records r ON r.id = cr.run_record_id
        JOIN constraints c ON c.item_id = r.item_id AND c.id = cr.constraint_id
        ORDER BY r.seq, c.seq
    """
    for row in db.query(sql):
        row["passed"] = bool(row["passed"])
        row["loose"] = bool(row["loose"])
        row["failure_mode"] = None if row["passed"] else _FAILURE_MODE_BY_TYPE.get(row["constraint_type"])
        yield row


def check_export_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    keep = ("run_record_id", "constraint_id", "checker", "loose", "passed", "detail", "bad_steps", "n_steps")
    for row in check_rows(db):
        yield {k: row[k] for k in keep}
