"""Rubric versions in the project store: immutable, versioned by name, keyed by the template's sha256."""

from __future__ import annotations

from typing import NamedTuple

import sqlite_utils

from judgecal.annotations.store._schema import now_iso, write


class RubricRow(NamedTuple):
    sha256: str
    name: str
    version: int
    template: str
    parent_sha256: str | None
    note: str | None
    created_at: str


def store_rubric(db: sqlite_utils.Database, name: str, template: str, sha256: str,
                 note: str | None = None, *, created_at: str | None = None) -> RubricRow:
    """The stored version of a rubric, creating it on first use: version = next for `name`, parent = the latest
    version of that name. A rubric is immutable: the same sha256 always returns the stored row. `created_at`: when
    it was created, if before now (`import verdicts`: its earliest verdict's time)."""
    with write(db):
        row = db.execute("SELECT * FROM rubrics WHERE sha256 = ?", [sha256]).fetchone()
        if row is None:
            parent = db.execute(
                "SELECT sha256, version FROM rubrics WHERE name = ? ORDER BY version DESC LIMIT 1", [name]
            ).fetchone()
            version = parent[1] + 1 if parent else 1
            db.execute("INSERT INTO rubrics VALUES (?,?,?,?,?,?,?)",
                       [sha256, name, version, template, parent[0] if parent else None, note, created_at or now_iso()])
            row = db.execute("SELECT * FROM rubrics WHERE sha256 = ?", [sha256]).fetchone()
    return RubricRow(*row)


def get_rubric(db: sqlite_utils.Database, name_or_sha: str) -> RubricRow | None:
    """A stored rubric by sha256 (or a unique prefix of 8+ characters), else the latest version of that name."""
    row = db.execute("SELECT * FROM rubrics WHERE sha256 = ?", [name_or_sha]).fetchone()
    if row is None and len(name_or_sha) >= 8:
        rows = db.execute("SELECT * FROM rubrics WHERE sha256 LIKE ?", [name_or_sha + "%"]).fetchall()
        row = rows[0] if len(rows) == 1 else None
    if row is None:
        row = db.execute("SELECT * FROM rubrics WHERE name = ? ORDER BY version DESC LIMIT 1", [name_or_sha]).fetchone()
    return RubricRow(*row) if row else None


def list_rubrics(db: sqlite_utils.Database) -> list[RubricRow]:
    return [RubricRow(*r) for r in db.execute("SELECT * FROM rubrics ORDER BY name, version")]
