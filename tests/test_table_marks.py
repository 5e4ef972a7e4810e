"""`table_marks`, the O(1) version the Calibration page keys its kept values by (issue 16.3): besides each table's
largest rowid and rewrite counter it digests the table's last row, so writes that leave both counts where they were
still move it. Both attacks below served stale page values before (a review of migration 020's caches)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main

TABLES = ("human_labels", "samples", "verdicts")


def _project(tmp_path: Path) -> str:
    db = str(tmp_path / "demo.db")
    assert main(["--db", db, "demo"]) == 0
    return db


def _marks(path: str) -> tuple:
    with ann.unit_of_work(path, readonly=True) as db:
        return ann.table_marks(db, TABLES)


def _pair(path: str) -> tuple[str, str, str, str]:
    """A sampled pair and two different labels from its label set."""
    with ann.unit_of_work(path, readonly=True) as db:
        rid, cid = db.execute("SELECT run_record_id, constraint_id FROM samples ORDER BY rowid LIMIT 1").fetchone()
        labels = ann.pair_label_sets(db, [(rid, cid)])[(rid, cid)]
    return rid, cid, labels[0], labels[1]


def _label(path: str, rid: str, cid: str, label: str, *, row_id: int | None = None, replace: bool = False) -> None:
    # A plain sqlite3 connection, as the sqlite3 CLI or a user's script opens it: recursive_triggers is off there, so
    # the implicit delete of INSERT OR REPLACE fires no trigger.
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(f"INSERT {'OR REPLACE ' if replace else ''}INTO human_labels (id, run_record_id, constraint_id,"
                     " reviewer, event, label, blind, created_at) VALUES (?, ?, ?, 'alice', 'label', ?, 1,"
                     " '2026-12-01T00:00:00+00:00')", [row_id, rid, cid, label])
    conn.close()


def test_the_marks_are_stable_when_nothing_changes(tmp_path: Path):
    db = _project(tmp_path)
    assert _marks(db) == _marks(db)


def test_a_label_replaced_under_the_largest_id_moves_the_marks(tmp_path: Path):
    db = _project(tmp_path)
    rid, cid, first, second = _pair(db)
    _label(db, rid, cid, first)
    with ann.unit_of_work(db, readonly=True) as conn:
        top = conn.execute("SELECT max(id) FROM human_labels").fetchone()[0]
    before = _marks(db)
    _label(db, rid, cid, second, row_id=top, replace=True)
    after = _marks(db)
    assert after[:2] == before[:2]  # largest id and counter did not move: only the digest tells
    assert after != before


def test_a_backup_restored_and_labelled_again_moves_the_marks(tmp_path: Path):
    db = _project(tmp_path)
    backup = str(tmp_path / "backup.db")
    shutil.copyfile(db, backup)
    rid, cid, first, second = _pair(db)
    _label(db, rid, cid, first)
    labelled_first = _marks(db)
    shutil.copyfile(backup, db)  # the backup back in place, then a different label under the same id
    _label(db, rid, cid, second)
    assert _marks(db)[:2] == labelled_first[:2]
    assert _marks(db) != labelled_first
