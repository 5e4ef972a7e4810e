"""The store behind a small interface (issue 16.6): SQLite implements `StoreDatabase`, and nothing outside the
SQLite module itself (annotations/store/_schema.py) uses a database operation the interface does not name — so a
Postgres backend that meets the interface is not surprised by a call nobody wrote down."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from judgecal.annotations import store as av
from judgecal.annotations.store import (
    STORE_CONNECTION_OPERATIONS,
    STORE_DATABASE_OPERATIONS,
    StoreConnection,
    StoreDatabase,
)

REPO = Path(__file__).resolve().parents[1]
# The SQLite backend itself: connecting, pragmas, migrations (raw sqlite3 there is the implementation).
BACKEND = {REPO / "annotations" / "store" / "_schema.py"}
CALLERS = [p for d in ("annotations", "judgecal", "app_pages") for p in sorted((REPO / d).rglob("*.py"))
           if p not in BACKEND]


def test_sqlite_implements_the_store_interface(tmp_path: Path) -> None:
    with av.unit_of_work(tmp_path / "p.db") as db:
        assert isinstance(db, StoreDatabase)
        assert isinstance(db.conn, StoreConnection)
        for name in STORE_DATABASE_OPERATIONS:
            assert hasattr(db, name), name
        for name in STORE_CONNECTION_OPERATIONS:
            assert hasattr(db.conn, name), name
        assert [dict(r) for r in db.query("SELECT 1 AS one")] == [{"one": 1}]
        with av.write(db):
            assert db.conn.in_transaction
        assert not db.conn.in_transaction


def test_an_object_missing_an_operation_is_not_a_store_database() -> None:
    class Partial:
        conn = None

        def execute(self, sql, params=None): ...

    assert not isinstance(Partial(), StoreDatabase)


def _uses(path: Path) -> list[tuple[int, str]]:
    """`db.X` and `db.conn.Y` attribute uses in a module (the store's name for a unit of work's database)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "db":
            found.append((node.lineno, "db[...]"))  # sqlite-utils' table access
            continue
        if not isinstance(node, ast.Attribute):
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id == "db":
            found.append((node.lineno, f"db.{node.attr}"))
        elif (isinstance(base, ast.Attribute) and base.attr == "conn" and isinstance(base.value, ast.Name)
              and base.value.id == "db"):
            found.append((node.lineno, f"db.conn.{node.attr}"))
    return found


@pytest.mark.parametrize("path", CALLERS, ids=lambda p: str(p.relative_to(REPO)))
def test_callers_use_only_the_operations_the_interface_names(path: Path) -> None:
    allowed = {f"db.{op}" for op in STORE_DATABASE_OPERATIONS} | {f"db.conn.{op}" for op in STORE_CONNECTION_OPERATIONS}
    beyond = [f"line {n}: {use}" for n, use in _uses(path) if use not in allowed]
    assert not beyond, f"{path.name} uses database operations the store interface does not name: {beyond}"


def test_the_scan_sees_a_use_beyond_the_interface(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f(db):\n    db.conn.executescript('x')\n    db['t'].insert({})\n    db.table('t')\n")
    assert sorted(u for _, u in _uses(module)) == ["db.conn", "db.conn.executescript", "db.table", "db[...]"]
