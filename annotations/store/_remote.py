"""Batch API jobs submitted by `judge --batch` (migration 013): what was submitted where, which requests it
asked, and whether its results are stored yet. A re-run finds a pending job here and polls it instead of
submitting the same requests again."""

from __future__ import annotations

from typing import Iterable, NamedTuple

import sqlite_utils

from judgecal.annotations.store._schema import now_iso, write


class RemoteBatch(NamedTuple):
    id: str  # the endpoint's batch id
    batch_id: str  # the local judge batch (batches.id) that submitted or last resumed it
    endpoint: str
    judge_model: str
    rubric_sha256: str
    input_file_id: str
    requests: int
    status: str
    submitted_at: str
    landed_at: str | None


def record_remote_batch(db: sqlite_utils.Database, remote_id: str, batch_id: str, *, endpoint: str,
                        judge_model: str, rubric_sha256: str, input_file_id: str, status: str,
                        custom_ids: Iterable[str]) -> RemoteBatch:
    """Store a submitted job and the custom_ids it asked, in one transaction."""
    ids = list(custom_ids)
    row = RemoteBatch(remote_id, batch_id, endpoint, judge_model, rubric_sha256, input_file_id, len(ids), status,
                      now_iso(), None)
    with write(db):
        db.execute(f"INSERT INTO remote_batches ({', '.join(RemoteBatch._fields)}) VALUES "
                   f"({', '.join('?' * len(RemoteBatch._fields))})", list(row))
        db.conn.executemany("INSERT INTO remote_batch_requests (remote_id, custom_id) VALUES (?, ?)",
                            [(remote_id, c) for c in ids])
    return row


def pending_remote_batches(db: sqlite_utils.Database, *, endpoint: str | None = None, judge_model: str | None = None,
                           rubric_sha256: str | None = None) -> list[RemoteBatch]:
    """Jobs of this endpoint, model and rubric version whose results are not stored yet, oldest first; None for all
    three: every such job of the project."""
    if endpoint is None and judge_model is None and rubric_sha256 is None:
        return [RemoteBatch(*r) for r in db.execute(
            f"SELECT {', '.join(RemoteBatch._fields)} FROM remote_batches WHERE landed_at IS NULL"
            " ORDER BY submitted_at, id").fetchall()]
    return [RemoteBatch(*r) for r in db.execute(
        f"SELECT {', '.join(RemoteBatch._fields)} FROM remote_batches WHERE landed_at IS NULL AND endpoint = ?"
        " AND judge_model = ? AND rubric_sha256 = ? ORDER BY submitted_at, id",
        [endpoint, judge_model, rubric_sha256]).fetchall()]


def remote_batch_requests(db: sqlite_utils.Database, remote_id: str) -> list[str]:
    """The custom_ids a job asked."""
    return [r[0] for r in db.execute("SELECT custom_id FROM remote_batch_requests WHERE remote_id = ?", [remote_id])]


def update_remote_batch(db: sqlite_utils.Database, remote_id: str, *, status: str | None = None,
                        batch_id: str | None = None, landed: bool = False) -> None:
    """Record the endpoint's latest status, the judge batch now polling it, or that its results are stored."""
    with write(db):
        if status is not None:
            db.execute("UPDATE remote_batches SET status = ? WHERE id = ?", [status, remote_id])
        if batch_id is not None:
            db.execute("UPDATE remote_batches SET batch_id = ? WHERE id = ?", [batch_id, remote_id])
        if landed:
            db.execute("UPDATE remote_batches SET landed_at = ? WHERE id = ?", [now_iso(), remote_id])
