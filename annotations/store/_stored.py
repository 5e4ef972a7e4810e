"""Values computed from every judged pair and no label, stored in the project under the versions they were read at
(issue 16.2, migration 023).

A report at a million run records spends ~10 s CPU on one pass over `verdict_pairs` joined with each pair's run
record and constraint, and the result depends only on those tables: it is the same until a verdict, run record,
constraint or rubric changes. The process keeps it (`_kept`), but a CLI report is a new process each time. So the
pass's result is also written to `stored_aggregates` under `table_marks` of the tables it reads (their largest rowid,
rewrite counter and last row's digest: every insert, delete and update judgecal makes moves it) and a digest of the
code that computed it, and the next report in any process reads it back when both are unchanged.

Rules:
- Derived data only. A row that does not decode (damaged, written by other code) is computed again and replaced;
  `DELETE FROM stored_aggregates` loses nothing.
- Writing is best effort and never waits long: a read-only project, a connection inside a transaction, or a lock
  held by another writer for more than `_WRITE_WAIT_MS` leave the row unwritten, and the value is returned anyway.
- No pickle: `meta` is JSON and `data` little-endian integer arrays, so a project file from elsewhere cannot run code.
- The hand edits `table_marks` does not see (docs/decisions.md) would leave a stored value stale until the next
  change judgecal makes to those tables; deleting the rows is the remedy.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import types
from typing import Any, Callable, Sequence, TypeVar

import sqlite_utils

from judgecal.annotations.store._schema import now_iso, table_marks

T = TypeVar("T")

_WRITE_WAIT_MS = 200


def code_digest(*functions: Callable) -> str:
    """A digest of the functions' compiled code (instructions, constants, names, nested functions): part of a
    stored value's version, so a judgecal whose computation differs never reads a value the old code stored."""
    h = hashlib.blake2b(digest_size=12)

    def text(const: Any) -> str:
        # the same in every process: a set literal compiles to a frozenset, whose repr's order follows string
        # hashes, which differ between processes (PYTHONHASHSEED)
        if isinstance(const, types.CodeType):
            feed(const)
            return "<code>"
        if isinstance(const, frozenset):
            return "frozenset(" + repr(sorted(map(text, const))) + ")"
        if isinstance(const, tuple):
            return "(" + ",".join(map(text, const)) + ")"
        return repr(const)

    def feed(code: types.CodeType) -> None:
        h.update(code.co_code)
        h.update(repr(code.co_names).encode())
        for const in code.co_consts:
            h.update(text(const).encode("utf-8", "backslashreplace"))

    for fn in functions:
        feed(fn.__code__)
    return h.hexdigest()


def _has_table(db: sqlite_utils.Database) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stored_aggregates'"
                      ).fetchone() is not None


def stored_value(db: sqlite_utils.Database, name: str, args: Any, tables: Sequence[str], code: str,
                 compute: Callable[[], T], encode: Callable[[T], tuple[Any, bytes]],
                 decode: Callable[[Any, bytes], T], *, write: bool = True) -> T:
    """`compute()`, or the value stored under (name, args) when it was stored at the current `table_marks(tables)`
    and by code with digest `code`. `tables` must be every table `compute` reads. `encode(value)` gives (JSON-able
    meta, bytes); `decode(meta, data)` rebuilds the value and raises for data it cannot trust (whatever it raises,
    the value is then computed again and replaced). Nothing is stored or read for a project without the table
    or the counters (opened read-only before its migrations), and nothing is stored on a read-only connection or
    with `write` False (a value only its writing commands store: a reader that computes it leaves the file alone)."""
    marks = table_marks(db, tables)
    if marks is None or not _has_table(db):
        return compute()
    args_text = json.dumps(args, sort_keys=True)
    # the schema's migrations too: one that rewrote a table's stored text without moving its version (say the
    # pattern format of `verdict_pairs`) must not be read through with values of the old format
    migrations = db.execute("SELECT group_concat(name, ',') FROM (SELECT name FROM _migrations ORDER BY rowid)"
                            ).fetchone()[0]
    version = json.dumps([code, migrations, list(tables), list(marks)])
    # read as bytes whatever is stored (a text that is not UTF-8 would fail in sqlite3, before any check of ours)
    row = db.execute("SELECT CAST(version AS BLOB), CAST(meta AS BLOB), CAST(data AS BLOB) FROM stored_aggregates"
                     " WHERE name = ? AND args = ?", [name, args_text]).fetchone()
    if row is not None and row[0] == version.encode():
        try:
            return decode(json.loads(row[1].decode()), row[2])
        except Exception:  # noqa: BLE001 - damaged or foreign, whatever it raises (an infinite count's
            pass  # OverflowError, a nesting's RecursionError, not UTF-8, not JSON): computed again and replaced
    value = compute()
    if write and not db.execute("PRAGMA query_only").fetchone()[0]:  # a reading command's connection never writes
        meta, data = encode(value)
        _store(db, name, args_text, version, json.dumps(meta), data)
    return value


def _store(db: sqlite_utils.Database, name: str, args: str, version: str, meta: str, data: bytes) -> None:
    """Write one row, or nothing (see the module docstring): never inside the caller's transaction, never waiting
    more than `_WRITE_WAIT_MS` for the lock."""
    conn = db.conn
    if conn.in_transaction:
        return
    wait = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout = {_WRITE_WAIT_MS}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT OR REPLACE INTO stored_aggregates (name, args, version, meta, data, written_at)"
                         " VALUES (?, ?, ?, ?, ?, ?)", [name, args, version, meta, data, now_iso()])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.Error:
        pass  # read-only, locked or full: the value is returned unstored
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(wait)}")
