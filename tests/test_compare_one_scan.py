"""Issue 16.2, `compare` at a million run records, fourth pass: both runs' records, stored check failures and tool
calls are read in one scan of `run_records` each (one scan per run before), and an item's constraints are kept in
storage order when that is `seq` order (sorted otherwise). Each must give what the per-run reads give: every run's
statistics in a comparison equal `run_stats` of that run alone (stored checks flipped, missing and made by another
checker, failed records, tool calls with parse failures, a third run), and the comparison is unchanged when an
item's constraints are stored out of `seq` order or apart."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _runs  # house: private (the one-scan reads checked against per-run ones)
from judgecal.cli import main


def _compare(path: Path, a: str = "demo-run-a", b: str = "demo-run-b") -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(path), "compare", a, b, "--json"]) == 0
    return out.getvalue()


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    path = tmp_path / "demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
        assert main(["--db", str(path), "check"]) == 0
    return path


def _hostile(path: Path) -> None:
    """Stored results that fail, are missing or were made by another checker, tool calls (some parse failures) on
    both runs, a failed record, and a third run's records answering the same items."""
    with ann.unit_of_work(path) as db, ann.write(db):
        c = db.conn
        b_ids = [r[0] for r in c.execute("SELECT id FROM run_records WHERE run_id = 'demo-run-b'"
                                         " AND error IS NULL ORDER BY seq")]
        a_ids = [r[0] for r in c.execute("SELECT id FROM run_records WHERE run_id = 'demo-run-a' ORDER BY seq")]
        c.execute("UPDATE check_results SET passed = 1 - passed WHERE run_record_id IN (SELECT value FROM"
                  " json_each(?))", [json.dumps(b_ids[::3])])
        c.execute("DELETE FROM check_results WHERE run_record_id IN (SELECT value FROM json_each(?))",
                  [json.dumps(a_ids[1::4])])
        c.execute("UPDATE check_results SET checker = 'another-checker' WHERE run_record_id IN"
                  " (SELECT value FROM json_each(?))", [json.dumps(b_ids[1::5])])
        calls = [{"name": "t", "args": {}}, {"name": "t", "error": "parse_failure: not an object"}]
        for k, rid in enumerate(a_ids[:7] + b_ids[:3]):
            c.execute("UPDATE run_records SET tool_calls = ? WHERE id = ?", [json.dumps(calls[: 1 + k % 2]), rid])
        c.execute("UPDATE run_records SET output = NULL, trajectory = NULL, error = 'timeout: none' WHERE id = ?",
                  [a_ids[2]])
        seq = c.execute("SELECT max(seq) FROM run_records").fetchone()[0]
        for k, rid in enumerate(a_ids[:20]):  # a third run between them in no particular order
            c.execute("INSERT INTO run_records (id, item_id, model, run_id, output, seq, tool_calls)"
                      " SELECT id || '-c', item_id, model, 'demo-run-c', output, ?, ? FROM run_records WHERE id = ?",
                      [seq + 1 + k, json.dumps(calls), rid])


def test_each_runs_statistics_in_a_comparison_are_its_own(project):
    _hostile(project)
    with ann.unit_of_work(project) as db:
        for a, b in (("demo-run-a", "demo-run-b"), ("demo-run-b", "demo-run-c"), ("demo-run-b", "demo-run-a")):
            comparison = ann.compare_runs(db, a, b)
            assert comparison.a == _runs.run_stats(db, a)
            assert comparison.b == _runs.run_stats(db, b)
        with pytest.raises(ValueError, match="two different runs, got 'demo-run-a' twice"):
            ann.compare_runs(db, "demo-run-a", "demo-run-a")  # a run compared with itself said SWITCH
        stats = _runs.run_stats(db, "demo-run-a")
        assert stats.tool_parse_failures >= 3 and _runs.run_stats(db, "demo-run-c").tool_parse_failures == 20
        both = _runs._runs_records(db, ["demo-run-a", "demo-run-b"])
        assert both == {run: _runs._run_records(db, run) for run in ("demo-run-a", "demo-run-b")}
        checks = _runs._runs_current_checks(db, ["demo-run-a", "demo-run-b", "demo-run-c"])
        for run, got in checks.items():
            assert got == _runs._current_checks(db, run)
        assert checks["demo-run-b"].failing and checks["demo-run-a"].live and checks["demo-run-b"].live
        with pytest.raises(ValueError, match="no run records with run_id 'nope'"):
            ann.compare_runs(db, "demo-run-a", "nope")


@pytest.mark.parametrize("how", ["reversed", "apart", "tied"])
def test_constraints_stored_out_of_item_order_give_the_same_comparison(project, how):
    before = _compare(project)
    with ann.unit_of_work(project) as db, ann.write(db):
        c = db.conn
        item = c.execute("SELECT item_id FROM constraints GROUP BY item_id HAVING count(*) >= 3"
                         " ORDER BY min(rowid) LIMIT 1").fetchone()[0]
        rows = c.execute("SELECT * FROM constraints WHERE item_id = ? ORDER BY seq", [item]).fetchall()
        columns = [d[0] for d in c.execute("SELECT * FROM constraints LIMIT 0").description]
        c.execute("DELETE FROM constraints WHERE item_id = ?", [item])
        if how == "reversed":  # written last to first: storage order is not seq order
            rows = rows[::-1]
        elif how == "apart":  # one written now, the rest after another item's
            other = c.execute("SELECT item_id FROM constraints ORDER BY rowid DESC LIMIT 1").fetchone()[0]
            head, rows = rows[:1], rows[1:]
            c.executemany(f"INSERT INTO constraints ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                          head)
            moved = c.execute("SELECT * FROM constraints WHERE item_id = ? ORDER BY seq", [other]).fetchall()
            c.execute("DELETE FROM constraints WHERE item_id = ?", [other])
            rows = moved + rows
        placeholders = ", ".join("?" * len(columns))
        c.executemany(f"INSERT INTO constraints ({', '.join(columns)}) VALUES ({placeholders})", rows)
        if how == "tied":  # two of its constraints under one seq: storage order decides, as a stable sort keeps it
            c.execute("UPDATE constraints SET seq = (SELECT min(seq) FROM constraints WHERE item_id = ?)"
                      " WHERE item_id = ?", [item, item])
    with ann.unit_of_work(project) as db:
        # every item's constraints in `seq` order (storage order among equal seqs, as the stable sort keeps it),
        # read whole and by id (a few items)
        want: dict[str, list[str]] = {}
        for item_id, cid in db.execute("SELECT item_id, id FROM constraints ORDER BY seq, rowid"):
            want.setdefault(item_id, []).append(cid)
        for runs in (["demo-run-a", "demo-run-b"], ["demo-run-a"]):
            got = _runs._run_items(db, runs)
            assert {i: [r.id for r in row.constraints] for i, row in got.items()} == {i: want[i] for i in got}
            assert item in got
        if how != "tied":  # (looked up by id, rows come in key order: ties fall in id order, as they always did)
            records = [r for r in _runs._run_records(db, "demo-run-a") if r.item_id == item]
            few = _runs._run_items(db, ["demo-run-a"], records)
            assert list(few) == [item] and [r.id for r in few[item].constraints] == want[item]
    if how != "tied":  # (a tie changed the item's order)
        assert _compare(project) == before
