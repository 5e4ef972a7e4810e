"""A kept or stored value and the table marks it is kept under are read in one snapshot (issue 16.3; found by a
review of the kept label side): another process that saves a label between the marks and the computation must not
end up in the value without being in its marks. Before, the label was in the kept blind first labels under the
marks from before it, and the next "rows appended since" update read it again: the reviewer counted twice on one
pair (a phantom human-human overlap in every later `report` and `gate`), and in a long-lived process (the
Calibration page) the pair's counted random label lost.

The other process is forced in at the worst moment: right after `kept_for_tables` read the labels' marks, a second
connection (another reviewer in the app) saves a label and commits."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report
from judgecal.annotations.store import _memo  # house: private (the marks read it hooks)
from judgecal.annotations.store import _stored  # house: private (the deferred stores)
from judgecal.annotations.store import blind_first_labels, kept_blind_first, read_snapshot

from conftest import forget_kept, nothing_stored, run_alone


def _random_pairs(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' ORDER BY rowid"
                         ).fetchall()


def _label_file(path: Path, pairs, reviewer: str, label: str) -> Path:
    path.write_text("".join(json.dumps({"run_record_id": rid, "constraint_id": cid, "reviewer": reviewer,
                                        "label": label}) + "\n" for rid, cid in pairs))
    return path


@pytest.fixture
def interleaved(monkeypatch):
    """`arm(path, pair, when)`: the next time `kept_for_tables` reads the labels' marks and `when(db)` holds, another
    connection saves bob's `fail` on `pair` before the reader goes on. Returns the list the firing is noted in."""
    real = _memo.table_marks
    state: dict = {}

    def hooked(db, tables):
        marks = real(db, tables)
        if "pair" in state and tuple(tables) == ("human_labels",) and state["when"](db):
            pair = state.pop("pair")
            with ann.unit_of_work(state["path"]) as other:  # another reviewer, another connection
                ann.record_label(other, "bob", pair, "fail")
            state["fired"].append(pair)
        return marks

    monkeypatch.setattr(_memo, "table_marks", hooked)

    def arm(path: Path, pair, when=lambda db: True) -> list:
        state.update(path=path, pair=ann.Pair(*pair), when=when, fired=[])
        return state["fired"]

    return arm


def _report_json(path: Path, *argv: str) -> str:
    rc, out = run_alone(path, *argv)
    assert rc in (0, 1), out
    return out


def test_a_label_saved_while_a_writer_stores_the_label_side_is_counted_once(unlabelled_demo, tmp_path, interleaved):
    path = unlabelled_demo
    pairs = _random_pairs(path)
    assert run_alone(path, "import", "labels", str(_label_file(tmp_path / "l1.jsonl", pairs[:3], "ann", "pass")))[0] == 0
    # the second import stores the label side; bob saves his label on a pair nobody labelled while it does
    fired = interleaved(path, pairs[5], when=lambda db: db.execute("SELECT count(*) FROM human_labels").fetchone()[0] == 5)
    assert run_alone(path, "import", "labels", str(_label_file(tmp_path / "l2.jsonl", pairs[3:5], "ann", "fail")))[0] == 0
    assert fired, "the other reviewer's label was not saved in the window"
    forget_kept()
    with ann.unit_of_work(path) as db:
        kept = kept_blind_first(db).rows
        fresh = blind_first_labels(db)
    assert [(r.run_record_id, r.constraint_id, r.reviewer) for r in kept] == \
        [(r["run_record_id"], r["constraint_id"], r["reviewer"]) for r in fresh]
    assert sum(r.reviewer == "bob" for r in kept) == 1
    for argv in (("report", "--json"), ("gate", "--min-kappa", "0.3", "--json")):
        stored = _report_json(path, *argv)
        assert stored == nothing_stored(path, lambda p: _report_json(p, *argv)), argv
    assert json.loads(_report_json(path, "report", "--json"))["human_human"] == []  # no phantom overlap


def test_a_long_lived_reader_keeps_no_label_it_has_not_counted(unlabelled_demo, interleaved):
    path = unlabelled_demo
    pairs = _random_pairs(path)
    with ann.unit_of_work(path) as db:
        for p in pairs[:3]:
            ann.record_label(db, "ann", ann.Pair(*p), "pass")
    forget_kept()
    fired = interleaved(path, pairs[5])
    with ann.unit_of_work(path) as db:  # the Calibration page's process: the report while bob saves his label
        calibration_report(db)
    assert fired
    with ann.unit_of_work(path) as db:  # the page's next rerun, in the same process
        again = calibration_report(db).to_dict()
        kept = kept_blind_first(db).rows
        assert len(kept) == len(blind_first_labels(db)) == 4

    def fresh(copy: Path) -> dict:
        forget_kept()
        with ann.unit_of_work(copy) as db:
            return calibration_report(db).to_dict()

    assert again == nothing_stored(path, fresh)


def _store(db) -> None:
    _stored._store(db, "snapshot-test", "[]", "v", "{}", b"")


def _stored_rows(db) -> int:
    return db.execute("SELECT count(*) FROM stored_aggregates WHERE name = 'snapshot-test'").fetchone()[0]


def test_read_snapshot_sees_one_moment_and_writes_its_stores_after(project_db):
    with ann.unit_of_work(project_db) as db, ann.unit_of_work(project_db) as other:
        with read_snapshot(db):
            before = db.execute("SELECT count(*) FROM settings").fetchone()[0]
            with ann.write(other):
                other.execute("INSERT INTO settings (key, value) VALUES ('snapshot-test', '1')")
            assert db.execute("SELECT count(*) FROM settings").fetchone()[0] == before  # not seen inside
            calls = []
            with read_snapshot(db):  # nested: joins the outer one
                _store(db)
                calls.append(db.conn.in_transaction)
            assert calls == [True]
            assert _stored_rows(db) == 0  # deferred, not written inside
        assert not db.conn.in_transaction
        assert db.execute("SELECT count(*) FROM settings").fetchone()[0] == before + 1
        assert _stored_rows(db) == 1


def test_read_snapshot_inside_a_write_joins_it_and_stores_nothing(project_db):
    with ann.unit_of_work(project_db) as db:
        with ann.write(db):
            with read_snapshot(db):
                _store(db)
            assert db.conn.in_transaction  # still the caller's transaction
        assert _stored_rows(db) == 0


def test_read_snapshot_ends_on_an_error_and_stores_nothing(project_db):
    with ann.unit_of_work(project_db) as db:
        with pytest.raises(RuntimeError):
            with read_snapshot(db):
                _store(db)
                raise RuntimeError("boom")
        assert not db.conn.in_transaction
        assert _stored_rows(db) == 0


def test_a_store_on_another_connection_is_not_deferred_to_this_snapshot(project_db):
    """The deferred stores belong to the snapshot's connection: a store asked for on another connection inside its
    own transaction is left unwritten there (as before), not written later through a connection that may be closed."""
    with ann.unit_of_work(project_db) as db:
        with read_snapshot(db):
            db.execute("SELECT 1").fetchone()
            other = ann.connect(project_db)
            with ann.write(other):
                _store(other)
            other.close()
        assert _stored_rows(db) == 0
