"""Issue 16.2: `compare` reads the stored mechanical check results (`judgecal check`) instead of running every check
again, and runs a check only where no current result is stored (none, or one made with another checker or loose
flag). The comparison must be the one the checks themselves give."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


def _compare(db_path: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(db_path), "compare", "demo-run-a", "demo-run-b", "--json"]) == 0
    return out.getvalue()


def test_compare_reads_current_stored_checks_and_runs_the_rest(tmp_path):
    db_path = tmp_path / "demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(db_path), "demo"]) == 0
        assert main(["--db", str(db_path), "check"]) == 0
    with ann.unit_of_work(db_path) as db:
        stored = db.execute("SELECT count(*) FROM check_results").fetchone()[0]
        assert stored
    with_stored = _compare(db_path)
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.execute("DELETE FROM check_results")
    assert _compare(db_path) == with_stored  # nothing stored: every check run, the same comparison
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(db_path), "check"]) == 0
    # a stored result is what `compare` reads: flip every stored outcome of run B's (not failed) records ...
    flip = ("UPDATE check_results SET passed = 1 - passed WHERE run_record_id IN"
            " (SELECT id FROM run_records WHERE run_id = 'demo-run-b' AND error IS NULL)")
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.execute(flip)
    assert _compare(db_path) != with_stored
    # ... but only when it was made with the constraint's checker and loose flag: another checker's is not current
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.execute("UPDATE check_results SET checker = checker || '-old'")
    assert _compare(db_path) == with_stored
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.execute("UPDATE check_results SET checker = substr(checker, 1, length(checker) - 4), loose = 1 - loose")
    assert _compare(db_path) == with_stored
