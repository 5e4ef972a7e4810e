"""One writer thread for results produced by many worker threads (judge verdicts, runner records).

Workers only append to a list. The writer, with its own connection, commits what arrives within a short window of a
group's first row in one transaction, then starts the next group: a row is committed at most ~20 ms (plus one commit)
after it arrives. The writer wakes once per group, not once per row (the first row of a group, and a group reaching
MAX_GROUP, wake it): with hundreds of worker threads each wake-up is a fight for the GIL that every worker pays for. A SIGKILL loses only what was queued and not yet committed — work that a re-run simply asks again.
One connection per thread would make the workers contend on SQLite's write lock; one writer avoids that.

One bad row never stops the batch nor rolls back the others: when a group's commit fails, its rows are committed
one by one, and a row that still fails is replaced by the error row `fallback` makes of it (the cause named). Only a
failure that also refuses that error row (disk full, I/O error) stops the writer.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Generic, TypeVar

import sqlite_utils

from judgecal.annotations.store._schema import connect

T = TypeVar("T")


class WriterError(RuntimeError):
    """The writer thread failed (disk full, I/O error, a constraint): raised by the next save() and by close()."""


class QueuedWriter(Generic[T]):
    """Subclasses implement `commit(db, rows)`, called in the writer thread for each group. Use as a context
    manager (or call `close`), which drains the queue and re-raises a writer failure."""

    MAX_GROUP = 500
    # A group collects what arrives within this window after its first row, then commits: at hundreds of rows a
    # second that is a few rows per transaction instead of one, for at most 20 ms more at risk.
    GROUP_WINDOW_S = 0.02
    NAME = "writer"

    def __init__(self, db_path: str | Path):
        self.db_path = Path(db_path)
        # Rows saved and not yet taken by the writer; `_closing` guards it. `_arrived` is set by the row that makes it
        # non-empty (and by close), `_full` by the row that fills a group (and by close): the writer's two waits.
        self._pending: list[T] = []
        self._arrived = threading.Event()
        self._full = threading.Event()
        self._error: BaseException | None = None
        # save() and close() under one lock: no row can be queued behind the close() marker, where it would never be
        # committed (a worker the batch gave up on, answering late).
        self._closing = threading.Lock()
        self._closed = False
        self.committed = 0
        # Rows stored as error rows instead (their own commit failed): (row, the exception).
        self.replaced: list[tuple[T, BaseException]] = []
        self._thread = threading.Thread(target=self._run, name=self.NAME, daemon=True)
        self._thread.start()

    def commit(self, db: sqlite_utils.Database, rows: list[T]) -> None:
        raise NotImplementedError

    def fallback(self, row: T, exc: BaseException) -> T:
        """The error row stored in place of `row`, whose commit raised `exc`. Without one, the writer stops."""
        raise exc

    def _commit_group(self, db: sqlite_utils.Database, rows: list[T]) -> None:
        try:
            self.commit(db, rows)
            return
        except Exception as exc:  # noqa: BLE001 — the commit rolled back; find the row at fault
            failure = exc
        if len(rows) > 1:
            for row in rows:
                self._commit_group(db, [row])
            return
        replacement = self.fallback(rows[0], failure)
        self.commit(db, [replacement])  # a failure here is not the row's own (disk full): it stops the writer
        self.replaced.append((rows[0], failure))

    def save(self, row: T) -> None:
        if self._error is not None:
            raise WriterError(f"{self.NAME} failed: {self._error}") from self._error
        with self._closing:
            if self._closed:
                raise WriterError(f"{self.NAME} is closed: a row saved after close() would never be committed")
            self._pending.append(row)
            n = len(self._pending)
            if n == 1:
                self._arrived.set()
            if n == self.MAX_GROUP:
                self._full.set()

    def _take(self) -> tuple[list[T], bool]:
        """Up to MAX_GROUP pending rows, and whether the writer may stop after committing them (closed, none left)."""
        with self._closing:
            rows, self._pending = self._pending[:self.MAX_GROUP], self._pending[self.MAX_GROUP:]
            if not self._pending:
                self._arrived.clear()
            if len(self._pending) < self.MAX_GROUP:
                self._full.clear()
            return rows, self._closed and not self._pending

    def _run(self) -> None:
        db = connect(self.db_path)
        try:
            while True:
                self._arrived.wait()
                if not self._closed:
                    # The window of this group's first row: one timed wait, cut short by a full group or close().
                    self._full.wait(self.GROUP_WINDOW_S)
                rows, last = self._take()
                if rows:
                    self._commit_group(db, rows)
                    self.committed += len(rows)
                if last:
                    return
        except BaseException as exc:  # noqa: BLE001 — reported by the next save() and by close()
            self._error = exc
        finally:
            db.close()

    def close(self) -> None:
        with self._closing:
            if not self._closed:
                self._closed = True
                self._arrived.set()
                self._full.set()
        self._thread.join()
        if self._error is not None:
            raise WriterError(f"{self.NAME} failed: {self._error}") from self._error

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
