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
- A value and the marks it is stored under are read in one snapshot (`read_snapshot`): a row another process
  commits between the marks and the computation would otherwise be in the value but not in its marks, and the next
  reader's "rows appended since" update would add it a second time (a review found a reviewer counted twice).
- No pickle: `meta` is JSON and `data` little-endian integer arrays, so a project file from elsewhere cannot run code.
- The hand edits `table_marks` does not see (docs/decisions.md) would leave a stored value stale until the next
  change judgecal makes to those tables; deleting the rows is the remedy.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import itertools
import json
import operator
import sqlite3
import types
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NamedTuple, Sequence, TypeVar

import sqlite_utils

from judgecal.annotations.store._schema import now_iso, table_marks

T = TypeVar("T")

_WRITE_WAIT_MS = 200

# The connection of the read snapshot this thread opened (`read_snapshot`) and the stores asked for on it, written
# when it ends; None outside one (then a store inside a transaction is left unwritten, as `_store` says, and so is a
# store on another connection that is inside a transaction of its own).
_DEFERRED: contextvars.ContextVar[tuple[Any, list[Callable[[], None]]] | None] = contextvars.ContextVar(
    "judgecal_deferred_stores", default=None)


@contextmanager
def read_snapshot(db: sqlite_utils.Database) -> Iterator[None]:
    """Every statement inside reads the project as of one moment: a deferred transaction, whose WAL snapshot is taken
    by its first read and held to its end, while other connections go on writing. So a value computed inside and the
    `table_marks` read inside describe the same rows: without it, a label another process commits between the marks
    and the computation is in the value but not in its marks, and an update by "the rows appended since those marks"
    reads it a second time (issue 16.3, found by a review: a reviewer counted twice on one pair, a counted label
    lost). Inside a transaction already open on the connection (a writing command's, or an outer snapshot) it joins
    that one. The stores asked for inside (`stored_value`, `write_persisted`) are written after it ends, each under
    the marks it was computed at. Nothing inside may write to the main database: `write()` would join the deferred
    transaction and fail with SQLITE_BUSY_SNAPSHOT once another connection has committed."""
    conn = db.conn
    if conn.in_transaction:
        yield
        return
    pending: list[Callable[[], None]] = []
    conn.execute("BEGIN")
    token = _DEFERRED.set((conn, pending))
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        _DEFERRED.reset(token)
    if conn.in_transaction:
        conn.execute("COMMIT")  # a read transaction: this only ends it
    for store in pending:
        store()


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
    with read_snapshot(db):
        return _stored_value(db, name, args, tables, code, compute, encode, decode, write)


def _stored_value(db: sqlite_utils.Database, name: str, args: Any, tables: Sequence[str], code: str,
                  compute: Callable[[], T], encode: Callable[[T], tuple[Any, bytes]],
                  decode: Callable[[Any, bytes], T], write: bool) -> T:
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


class Persisted(NamedTuple):
    """How a value `kept_for_tables` keeps in the process is also kept in `stored_aggregates` across processes:
    `code`, the digest of the code that computes, updates and encodes it (`modules_digest`); `encode(value)` gives
    (JSON-able meta, bytes), `decode(meta, data)` rebuilds it and raises for data it cannot trust."""

    code: str
    encode: Callable[[Any], tuple[Any, bytes]]
    decode: Callable[[Any, bytes], Any]


def _version_parts(db: sqlite_utils.Database, code: str, tables: Sequence[str]) -> list[Any]:
    migrations = db.execute("SELECT group_concat(name, ',') FROM (SELECT name FROM _migrations ORDER BY rowid)"
                            ).fetchone()[0]
    return [code, migrations, list(tables)]


def _persisted_row(db: sqlite_utils.Database, name: str, args: Any, tables: Sequence[str], code: str
                   ) -> tuple[list, bytes, bytes] | None:
    """(version, meta, data) of the row under (name, args) when it was stored by code `code` over `tables` under
    this schema's migrations, else None (no such row, another code or schema, a version that is not one)."""
    if not _has_table(db):
        return None
    row = db.execute("SELECT CAST(version AS BLOB), CAST(meta AS BLOB), CAST(data AS BLOB) FROM stored_aggregates"
                     " WHERE name = ? AND args = ?", [name, json.dumps(args, sort_keys=True)]).fetchone()
    if row is None:
        return None
    try:
        version = json.loads(row[0].decode())
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the limit: damaged or foreign
        return None
    if (not isinstance(version, list) or len(version) != 5 or version[:3] != _version_parts(db, code, tables)
            or not isinstance(version[3], list)):
        return None
    return version, row[1], row[2]


def read_persisted(db: sqlite_utils.Database, name: str, args: Any, tables: Sequence[str], how: Persisted
                   ) -> tuple[Any, tuple] | None:
    """(the value stored under (name, args) by code `how.code` over `tables`, the `table_marks` it was stored at), or
    None: nothing stored, another code, migrations or tables, or a row that does not decode. The caller decides
    whether those marks are current enough (`kept_for_tables`)."""
    row = _persisted_row(db, name, args, tables, how.code)
    if row is None:
        return None
    version, meta, data = row
    try:
        return how.decode(json.loads(meta.decode()), data), tuple(version[3])
    except Exception:  # noqa: BLE001 - damaged or foreign, whatever it raises: computed again (see stored_value)
        return None


def persisted_marks(db: sqlite_utils.Database, name: str, args: Any, tables: Sequence[str], code: str
                    ) -> tuple | None:
    """The marks the row under (name, args) was stored at by code `code`, when its meta and data are still those it
    was written with (their checksum; not decoded: a writer's check, milliseconds); else None, and the writer
    replaces the row."""
    row = _persisted_row(db, name, args, tables, code)
    if row is None or row[0][4] != _checksum(row[1], row[2]):
        return None
    return tuple(row[0][3])


def _checksum(meta: bytes, data: bytes) -> str:
    return hashlib.blake2b(meta + b"\0" + data, digest_size=16).hexdigest()


def write_persisted(db: sqlite_utils.Database, name: str, args: Any, tables: Sequence[str], how: Persisted,
                    marks: tuple, value: Any) -> None:
    """Store `value`, computed at `marks`, under (name, args) (best effort, as `stored_value` stores)."""
    if not _has_table(db) or db.execute("PRAGMA query_only").fetchone()[0]:
        return
    meta, data = how.encode(value)
    meta_text = json.dumps(meta)
    version = json.dumps([*_version_parts(db, how.code, tables), list(marks),
                          _checksum(meta_text.encode(), data)])
    _store(db, name, json.dumps(args, sort_keys=True), version, meta_text, data)


def modules_digest(*functions: Callable) -> str:
    """A digest of everything defined in the modules `functions` come from: every function and method (also behind
    a cache or a static/class method), the fields of their named tuples and their module-level constants (texts,
    numbers, and tuples or frozensets of them: SQL fragments, limits). For a value whose computation reaches through
    many helpers, a digest no helper can be left out of: any change to those modules stores the value afresh.
    Mutable module state (caches) is left out; a constant holding anything else (a function) is too."""
    import sys  # noqa: PLC0415

    code: list[Callable] = []
    other: list[str] = []

    def function(obj: Any) -> Any:
        obj = getattr(obj, "__wrapped__", obj)
        obj = getattr(obj, "__func__", obj)
        return obj if isinstance(obj, types.FunctionType) else None

    for module_name in sorted({fn.__module__ for fn in functions}):
        module = sys.modules[module_name]
        for key, obj in sorted(vars(module).items()):
            if key.startswith("__"):  # the module's name, file and the like: where it is, not what it computes
                continue
            fn = function(obj)
            if fn is not None:
                if fn.__module__ == module_name:
                    code.append(fn)
            elif isinstance(obj, type):
                if obj.__module__ != module_name:
                    continue
                other.append(f"{key}{getattr(obj, '_fields', ())}")
                for _, member in sorted(vars(obj).items()):
                    fn = function(member.fget if isinstance(member, property) else member)
                    if fn is not None and fn.__module__ == module_name:
                        code.append(fn)
            else:
                text = _constant_text(obj)
                if text is not None:
                    other.append(f"{key}={text}")
    return code_digest(*code) + hashlib.blake2b(repr(other).encode("utf-8", "backslashreplace"),
                                                digest_size=6).hexdigest()


def _constant_text(value: Any) -> str | None:
    """A module-level constant's text, the same in every process (a frozenset sorted), or None for anything else."""
    if value is None or isinstance(value, (str, bytes, int, float)):
        return repr(value)
    if isinstance(value, (tuple, frozenset)):
        parts = [_constant_text(v) for v in value]
        if any(p is None for p in parts):
            return None
        return f"{type(value).__name__}({sorted(parts) if isinstance(value, frozenset) else parts})"
    return None


def encode_texts(values: Sequence[str | None]) -> dict[str, list[Any]]:
    """A column of texts (or None) for a stored value's meta: as a vocabulary and an index per row when values
    repeat (a reviewer, a label, a constraint id), else as the list. Texts only: a vocabulary of numbers would fold
    1 and 1.0 into one (numbers go as `{"t": list}`)."""
    vocab = list(dict.fromkeys(values))
    if 2 * len(vocab) > len(values):
        return {"t": list(values)}
    position = {v: i for i, v in enumerate(vocab)}
    return {"v": vocab, "i": list(map(position.__getitem__, values))}


def encode_json_texts(values: Sequence[Any]) -> dict[str, list[Any]]:
    """`encode_texts` of each value's JSON text (`decode_json_column`'s input), each distinct object dumped once:
    the values a column repeats are shared objects (a label set, a tag tuple, a pattern)."""
    dumped: dict[int, str] = {}
    for v in values:
        if id(v) not in dumped:
            dumped[id(v)] = json.dumps(v if not isinstance(v, (tuple, dict)) else
                                       list(v.items()) if isinstance(v, dict) else list(v))
    return encode_texts([dumped[id(v)] for v in values])


def stored_columns(meta: Any, data: bytes, width: int, what: str) -> tuple[int, list[Any]]:
    """(n, columns) of a value stored as `width` columns of n values (`{"n": n, "columns": [...]}`, no data), the
    shape every column codec writes; ValueError naming `what` for anything else."""
    n, columns = meta["n"], meta["columns"]
    if data or type(n) is not int or not isinstance(columns, list) or len(columns) != width:
        raise ValueError(f"not stored {what}")
    return n, columns


def decode_column(column: Any, n: int, kinds: tuple[type, ...]) -> list[Any]:
    """`encode_texts`' inverse (or a plain list of values): `n` values, each of one of `kinds` exactly (bool is not
    int); ValueError for anything else. The types are checked as a set (`map(type, ...)` runs in C: a per-value
    check in Python was 0.5 s of a report at a million run records)."""
    if not isinstance(column, dict):
        raise ValueError("a stored column is not an object")
    if "t" in column:
        values = column["t"]
        if not isinstance(values, list) or len(values) != n:
            raise ValueError("a stored column has the wrong length")
        if not set(map(type, values)) <= set(kinds):
            raise ValueError("a stored column holds a value of the wrong type")
        return values
    vocab, index = column["v"], column["i"]
    if not isinstance(vocab, list) or not isinstance(index, list) or len(index) != n:
        raise ValueError("a stored column has the wrong length")
    if not set(map(type, vocab)) <= set(kinds):
        raise ValueError("a stored column holds a value of the wrong type")
    if index and (not set(map(type, index)) <= {int} or min(index) < 0 or max(index) >= len(vocab)):
        raise ValueError("a stored column's index is out of its vocabulary")
    return list(map(vocab.__getitem__, index))


def decode_json_column(column: Any, n: int, read: Callable[[Any], Any]) -> list[Any]:
    """A stored column of JSON texts (`encode_texts` of `json.dumps` of each value), each distinct text parsed once
    and given to `read`, which raises for a value that could not have been stored: equal values share one object,
    as when they were computed."""
    texts = decode_column(column, n, (str,))
    parsed = {t: read(json.loads(t)) for t in set(texts)}
    return list(map(parsed.__getitem__, texts))


def ascending(values: Sequence[Any]) -> bool:
    """Whether `values` strictly increase (a decoder's check of ids in event or pair order), compared in C."""
    return all(map(operator.lt, values, itertools.islice(values, 1, None)))


def named_rows(cls: type[T], *columns: Sequence[Any]) -> Iterator[T]:
    """`cls` (a named tuple) rows of the decoded columns, each made by `tuple.__new__` in C: no Python call per row
    (183k blind first labels at a million run records)."""
    return map(functools.partial(tuple.__new__, cls), zip(*columns))


def text_tuple(value: Any) -> tuple[str, ...]:
    """A stored JSON list of texts as a tuple (`decode_json_column`'s `read` for label sets and tags)."""
    if not isinstance(value, list) or not set(map(type, value)) <= {str}:
        raise ValueError("a stored list of texts is not one")
    return tuple(value)


def _store(db: sqlite_utils.Database, name: str, args: str, version: str, meta: str, data: bytes) -> None:
    """Write one row, or nothing (see the module docstring): never inside the caller's transaction (inside
    `read_snapshot`'s, after it), never waiting more than `_WRITE_WAIT_MS` for the lock."""
    conn = db.conn
    if conn.in_transaction:
        deferred = _DEFERRED.get()
        if deferred is not None and deferred[0] is conn:  # inside this connection's `read_snapshot`: written after
            deferred[1].append(functools.partial(_store, db, name, args, version, meta, data))
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
