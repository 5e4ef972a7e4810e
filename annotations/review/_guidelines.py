"""The review guidelines a reviewer reads beside the label buttons (each label's meaning next to its button comes
from evalsets.label_definitions, the table the judge's rubric quotes too).

Guidelines have two scopes: the project default (shown with every pair) and one per constraint id (shown with that
constraint's pairs). An edit is a new row with the next version of its scope; rows are never updated, so the text a
label was given under can always be read back. A label stores the versions its reviewer had on screen
(`GuidelineSet.version`, e.g. "project v2 + grounded v1"), in human_labels.guideline_version.
"""

from __future__ import annotations

from typing import NamedTuple

import sqlite_utils

from judgecal.annotations.store import DEFAULT_GUIDELINES, GUIDELINES_SETTING, now_iso, write  # noqa: F401 (re-exported)

MAX_GUIDELINE_CHARS = 20_000

class GuidelineError(ValueError):
    """A guideline edit that cannot be saved: not an admin, empty or oversized text."""


class Guideline(NamedTuple):
    constraint_id: str | None  # None: the project default
    version: int
    text: str
    author: str
    created_at: str


class GuidelineSet(NamedTuple):
    """The guidelines shown with one pair: the project default and, if any, its constraint's own."""

    project: Guideline | None
    constraint: Guideline | None

    @property
    def version(self) -> str | None:
        """What a label stores as the guideline version its reviewer saw."""
        parts = ([f"project v{self.project.version}"] if self.project else []) + (
            [f"{self.constraint.constraint_id} v{self.constraint.version}"] if self.constraint else [])
        return " + ".join(parts) or None


def _row(row: tuple) -> Guideline:
    return Guideline(*row)


def current_guideline(db: sqlite_utils.Database, constraint_id: str | None) -> Guideline | None:
    """The standing guideline of a scope (highest version), None when the scope has none."""
    row = db.execute(
        "SELECT constraint_id, version, text, author, created_at FROM guidelines"
        " WHERE coalesce(constraint_id, '') = ? ORDER BY version DESC LIMIT 1", [constraint_id or ""]).fetchone()
    return _row(row) if row else None


def guidelines_for(db: sqlite_utils.Database, constraint_id: str) -> GuidelineSet:
    return GuidelineSet(current_guideline(db, None), current_guideline(db, constraint_id))


def guideline_history(db: sqlite_utils.Database, constraint_id: str | None) -> list[Guideline]:
    """Every version of a scope, newest first."""
    return [_row(r) for r in db.execute(
        "SELECT constraint_id, version, text, author, created_at FROM guidelines"
        " WHERE coalesce(constraint_id, '') = ? ORDER BY version DESC", [constraint_id or ""])]


def is_admin(name: str | None, admins: frozenset[str]) -> bool:
    return bool(name) and name in admins


def parse_admins(value: str | None) -> frozenset[str]:
    """`$JUDGECAL_ADMINS`: reviewer names separated by commas."""
    return frozenset(n.strip() for n in (value or "").split(",") if n.strip())


def save_guideline(db: sqlite_utils.Database, constraint_id: str | None, text: str, *, author: str,
                   admins: frozenset[str]) -> Guideline:
    """Store `text` as the next version of a scope (a new row; earlier versions stay). Only an admin may; text that
    equals the standing version is not a new version (returned unchanged)."""
    if not is_admin(author, admins):
        raise GuidelineError(f"only an admin may edit guidelines ({author!r} is not in $JUDGECAL_ADMINS)")
    text = (text or "").strip()
    if not text:
        raise GuidelineError("guidelines cannot be empty")
    if len(text) > MAX_GUIDELINE_CHARS:
        raise GuidelineError(f"guidelines are limited to {MAX_GUIDELINE_CHARS} characters")
    with write(db):  # read the standing version and insert the next one under one lock: two editors cannot collide
        current = current_guideline(db, constraint_id)
        if current is not None and current.text == text:
            return current
        g = Guideline(constraint_id or None, (current.version if current else 0) + 1, text, author, now_iso())
        db.conn.execute("INSERT INTO guidelines (constraint_id, version, text, author, created_at) VALUES (?,?,?,?,?)",
                        tuple(g))
    return g
