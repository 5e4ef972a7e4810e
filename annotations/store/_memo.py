"""Values the app recomputes from a few tables, kept in the process under those tables' version (issue 16.3).

A page rerun asks again for what it showed before (the filter options, the pairs hidden from a reviewer, the
disagreement list); at a million run records each took seconds. `kept_for_tables` returns the value computed the
last time, as long as `table_marks` of exactly the tables it was computed from is unchanged: that version moves on
every insert, delete and update judgecal makes to those rows (migrations 015, 016, 020; the hand edits it does not
see are listed in docs/decisions.md), and reading it is three index look-ups a table, so a hit costs a few hundred
microseconds. Values are shared, not copied:
callers must not mutate them.
"""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar

import sqlite_utils

from judgecal.annotations.store._schema import last_row_digest, table_marks
from judgecal.annotations.store._stored import (Persisted, persisted_marks, read_persisted, read_snapshot,
                                              write_persisted)

T = TypeVar("T")

_KEPT: OrderedDict[tuple, Any] = OrderedDict()
_SIZE = 64  # names × filters × reviewers; the large values (the disagreement rows) are one per report filter, the
# many small ones (a shown page of cards per filter clicked) must not push them out: recomputing those costs seconds
_LOCK = threading.Lock()  # the app serves sessions from threads


def _db_file(db: sqlite_utils.Database) -> str:
    return next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "") or ""


_STORING: contextvars.ContextVar[bool] = contextvars.ContextVar("judgecal_storing_kept", default=False)


# What `kept_for_tables` returns inside `storing_kept` for a persisted value whose stored row is current and which this
# process does not keep: decoding it only to find it current cost a writer ~1.5 s at a million run records.
STORED = object()


@contextmanager
def storing_kept() -> Iterator[None]:
    """Within it, a value `kept_for_tables` keeps with `persisted` is also written to `stored_aggregates` unless the
    stored row is current: what the writing commands do at their end (`store_label_side`), never a reading one.
    Call kept values inside it for their effect only: one whose stored row is current comes back as `STORED`."""
    token = _STORING.set(True)
    try:
        yield
    finally:
        _STORING.reset(token)


def kept_for_tables(db: sqlite_utils.Database, name: str, args: tuple, tables: Sequence[str],
                    compute: Callable[[], T], *, appended: tuple[str, Callable[[T, int], T | None]] | None = None,
                    persisted: Persisted | None = None) -> T:
    """`compute()` kept under (database file, name, args, `table_marks(db, tables)`): `tables` must be every table
    `compute` reads. Not kept for an in-memory database, nor for a project without the counters (opened read-only
    before its migrations), where the version would cost what the value does.

    `appended` = (table, update): when the only change since the kept value is rows added to `table` (its largest
    rowid grew, its rewrite counter and every other table's mark did not move), `update(kept value, the old largest
    rowid)` gives the new value from the old one and the new rows, or None to have it computed afresh (e.g. too many
    new rows). So a new label updates what a label changes for its own pair instead of reading every label again.

    `persisted`: the value is also kept across processes, in `stored_aggregates` (issue 16.2). A process that does
    not keep it yet reads the stored one back when it was stored at the current marks, or, when rows were only
    appended to `appended`'s table since (and the stored last row of that table is still there as it was), updates
    it as above. Only writing commands store it (`storing_kept`): a report reads, never writes.

    The marks, the value and what it is updated from are read in one snapshot (`read_snapshot`): a row another
    process commits meanwhile is in neither, so the next update reads it once."""
    with read_snapshot(db):
        return _kept_for_tables(db, name, args, tables, compute, appended, persisted)


def _kept_for_tables(db: sqlite_utils.Database, name: str, args: tuple, tables: Sequence[str],
                     compute: Callable[[], T], appended: tuple[str, Callable[[T, int], T | None]] | None,
                     persisted: Persisted | None) -> T:
    marks = table_marks(db, tables)
    path = _db_file(db) if marks is not None else ""
    if not path:
        return compute()
    key = (path, name, args, marks)
    with _LOCK:
        found = key in _KEPT
        if found:
            _KEPT.move_to_end(key)
            value = _KEPT[key]
        older = next(((k, v) for k, v in _KEPT.items() if k[:3] == key[:3]), None)
    storing = persisted is not None and _STORING.get()
    current = storing and persisted_marks(db, name, list(args), tables, persisted.code) == marks
    if found:
        if storing and not current:
            write_persisted(db, name, list(args), tables, persisted, marks, value)
        return value
    if current:
        return STORED  # type: ignore[return-value]  # see storing_kept
    value = None
    if appended is not None and older is not None:
        since = _appended_since(tables, appended[0], older[0][3], marks)
        if since is not None:
            value = appended[1](older[1], since)
    stored_at = None
    if value is None and persisted is not None:
        read = read_persisted(db, name, list(args), tables, persisted)
        if read is not None:
            stored_at = read[1]
            if stored_at == marks:
                value = read[0]
            elif appended is not None:
                since = _appended_since(tables, appended[0], stored_at, marks)
                if since is not None and _last_row_kept(db, tables, appended[0], stored_at):
                    value = appended[1](read[0], since)
    if value is None:
        value = compute()
    if storing:
        write_persisted(db, name, list(args), tables, persisted, marks, value)
    with _LOCK:
        for old in [k for k in _KEPT if k[:3] == key[:3]]:  # an older version is never asked for again
            del _KEPT[old]
        _KEPT[key] = value
        while len(_KEPT) > _SIZE:
            _KEPT.popitem(last=False)
    return value


def _last_row_kept(db: sqlite_utils.Database, tables: Sequence[str], table: str, old: tuple) -> bool:
    """Whether `table`'s row at the old largest rowid is the one digested in `old` (marks): rows appended after a
    stored value are merged into it only when the rows it was computed from still end as they ended then."""
    i, n = list(tables).index(table), len(tables)
    return last_row_digest(db, table, old[2 * i]) == old[2 * n + i]


def merged(old: dict, fresh: list | None, read: Callable[[list], dict]) -> dict | None:
    """An `appended` update of a kept dict: None (compute afresh) when `fresh` is None, `old` itself when nothing is
    fresh, else a new dict of `old` and `read(fresh)` (the kept one is never mutated)."""
    if fresh is None:
        return None
    if not fresh:
        return old
    out = dict(old)
    out.update(read(fresh))
    return out


def _appended_since(tables: Sequence[str], table: str, old: tuple, new: tuple) -> int | None:
    """The old largest rowid of `table` when `new` differs from `old` only by a larger one (marks are (largest
    rowid, rewrites) per table, in `tables` order, then each table's last-row digest: `table`'s own digest moves
    with its appended rows), else None."""
    i, n = list(tables).index(table), len(tables)
    at, digest = 2 * i, 2 * n + i
    same_elsewhere = (old[:at] == new[:at] and old[at + 1:digest] == new[at + 1:digest]
                      and old[digest + 1:] == new[digest + 1:])
    return old[at] if same_elsewhere and new[at] > old[at] else None
