"""Migration 019: `verdict_pairs` rows carry their run record's and semantic constraint's row ids, and the report's
pass over every judged pair joins by them (issue 16.2). They are hints: the report must equal the one joined by the
text keys when they are stale (a run record or constraint stored again under another row id, an id pointing at
another pair's row, none stored), under every filter and per run; a project migrated from 018/020 is backfilled."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (the row-id switch is read there)
from judgecal.cli import main



@pytest.fixture()
def demo(demo: Path) -> Path:
    """The labelled demo (conftest), sampled again."""
    assert main(["--db", str(demo), "sample"]) == 0
    return demo


def _report(path: Path, *args: str) -> str:
    from io import StringIO
    from contextlib import redirect_stdout
    from judgecal.annotations.review import _sampling  # house: private (its memo)
    from judgecal.annotations.store import _memo  # house: private (its kept values)
    # nothing kept from the other side of a comparison (a review found the key join served the row-id join's
    # kept group bases: same file, same versions)
    for kept in (_calibration._KEPT, _memo._KEPT, _sampling._MEMO):
        kept.clear()
    # nor stored in the project (migration 023): the hints are edited below without moving any table's version
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    out = StringIO()
    with redirect_stdout(out):
        assert main(["--db", str(path), "report", "--json", *args]) == 0
    return out.getvalue()


def _by_key(path: Path, monkeypatch, *args: str) -> str:
    with monkeypatch.context() as m:
        m.setattr(_calibration, "has_pair_rowids", lambda db: False)
        return _report(path, *args)


def _mismatched(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT count(*) FROM verdict_pairs vp LEFT JOIN run_records r ON r.id = vp.run_record_id"
            " LEFT JOIN constraints c ON c.item_id = r.item_id AND c.id = vp.constraint_id AND c.check_json IS NULL"
            " WHERE vp.record_rowid IS NOT r.rowid OR vp.constraint_rowid IS NOT c.rowid").fetchone()[0]


FILTERS = [(), ("--run-id", "demo-run-a"), ("--run-id", "demo-run-b"), ("--constraint", "offers_next_step")]


def test_the_row_id_join_equals_the_key_join_with_stale_and_missing_ids(demo: Path, monkeypatch) -> None:
    assert _mismatched(demo) == 0
    with ann.unit_of_work(demo) as db:
        assert ann.has_pair_rowids(db)
        runs = [r[0] for r in db.execute("SELECT DISTINCT run_id FROM run_records")]
    assert {"demo-run-a", "demo-run-b"} <= set(runs)
    for args in FILTERS:
        assert _report(demo, *args) == _by_key(demo, monkeypatch, *args)
    # a run record and a constraint stored again (new row ids, as a re-import that deletes and inserts would),
    # ids pointing at other rows, ids missing
    with sqlite3.connect(demo) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        rid = conn.execute("SELECT run_record_id FROM verdict_pairs ORDER BY id LIMIT 1 OFFSET 3").fetchone()[0]
        cols = [r[1] for r in conn.execute("PRAGMA table_info(run_records)")]
        row = conn.execute("SELECT * FROM run_records WHERE id = ?", [rid]).fetchone()
        conn.execute("DELETE FROM run_records WHERE id = ?", [rid])
        conn.execute(f"INSERT INTO run_records ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", row)
        item, cid = conn.execute("SELECT c.item_id, c.id FROM verdict_pairs vp JOIN run_records r"
                                 " ON r.id = vp.run_record_id JOIN constraints c ON c.item_id = r.item_id"
                                 " AND c.id = vp.constraint_id ORDER BY vp.id LIMIT 1 OFFSET 11").fetchone()
        ccols = [r[1] for r in conn.execute("PRAGMA table_info(constraints)")]
        crow = conn.execute("SELECT * FROM constraints WHERE item_id = ? AND id = ?", [item, cid]).fetchone()
        conn.execute("DELETE FROM constraints WHERE item_id = ? AND id = ?", [item, cid])
        conn.execute(f"INSERT INTO constraints ({', '.join(ccols)}) VALUES ({', '.join('?' * len(ccols))})", crow)
        conn.execute("UPDATE verdict_pairs SET record_rowid = record_rowid + 1 WHERE id % 3 = 0")
        # another run record of the same item (another run, maybe another model): its constraint row matches too
        conn.execute("UPDATE verdict_pairs SET record_rowid = (SELECT o.rowid FROM run_records r JOIN run_records o"
                     " ON o.item_id = r.item_id AND o.id != r.id WHERE r.id = verdict_pairs.run_record_id"
                     " ORDER BY o.model != r.model DESC, o.rowid LIMIT 1) WHERE id % 4 = 1")
        conn.execute("UPDATE verdict_pairs SET constraint_rowid = constraint_rowid + 1 WHERE id % 5 = 0")
        conn.execute("UPDATE verdict_pairs SET constraint_rowid = NULL WHERE id % 7 = 0")
        conn.execute("UPDATE verdict_pairs SET record_rowid = NULL WHERE id % 11 = 0")
    assert _mismatched(demo) > 50
    for args in FILTERS:
        assert _report(demo, *args) == _by_key(demo, monkeypatch, *args)


def test_a_project_before_migration_019_is_backfilled(demo: Path, monkeypatch) -> None:
    expected = _report(demo)
    with sqlite3.connect(demo) as conn:
        conn.execute("UPDATE verdict_pairs SET record_rowid = NULL, constraint_rowid = NULL")
        conn.execute("ALTER TABLE verdict_pairs DROP COLUMN record_rowid")
        conn.execute("ALTER TABLE verdict_pairs DROP COLUMN constraint_rowid")
        conn.execute("DELETE FROM _migrations WHERE name = '019_pair_rowids'")
        # the triggers 019 replaced must go back to 015's for the project to be as before the migration
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                    " AND name LIKE 'verdict_pairs_%'").fetchall():
            conn.execute(f"DROP TRIGGER {name}")
        from judgecal.annotations.store import _schema  # house: private (015's trigger text)
        for statement in _schema._pair_triggers(rowids=False).split("END;"):
            if statement.strip():
                conn.execute(statement + "END;")
    with ann.unit_of_work(demo) as db:  # connect() migrates
        assert ann.has_pair_rowids(db)
    assert _mismatched(demo) == 0
    assert _report(demo) == expected
    # the re-made triggers fill the ids of a new pair's row
    with sqlite3.connect(demo) as conn:
        row = conn.execute("SELECT * FROM verdicts ORDER BY id LIMIT 1").fetchone()
        cols = [r[1] for r in conn.execute("PRAGMA table_info(verdicts)")]
        values = dict(zip(cols, row))
        values.pop("id")
        values["judge_model"] = "another-judge"
        conn.execute(f"INSERT INTO verdicts ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                     list(values.values()))
    assert _mismatched(demo) == 0
