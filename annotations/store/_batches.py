"""Batch records of the judge and model runners: status, heartbeat, dead-batch detection and the pair leases that
keep two batches from asking for the same verdict."""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from typing import Any, Callable, Iterable, NamedTuple

import sqlite_utils

from judgecal.annotations.store._schema import now_iso, write


BATCH_STATUSES = ("running", "done", "failed", "interrupted", "dead")
# A running batch refreshes its heartbeat (and its leases) every HEARTBEAT_S; a lease or a heartbeat older than
# LEASE_TTL_S belongs to a batch that is gone (killed, or its machine lost), so its pairs are free again.
HEARTBEAT_S = 10.0
LEASE_TTL_S = 60.0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process holds that pid: alive, as far as we can tell
        return True
    return True


def mark_dead_batches(db: sqlite_utils.Database, now: float | None = None) -> list[str]:
    """Mark `dead` every `running` batch whose process is gone (same host, pid not alive) or whose heartbeat is older
    than LEASE_TTL_S, and free its leases. Batches from before heartbeats existed (no pid) are left alone."""
    now = time.time() if now is None else now
    host = socket.gethostname()
    dead = []
    with write(db):
        for batch_id, pid, bhost, beat in db.execute(
                "SELECT id, pid, host, heartbeat_at FROM batches WHERE status = 'running' AND pid IS NOT NULL").fetchall():
            if (bhost == host and not _pid_alive(pid)) or (beat is not None and now - beat > LEASE_TTL_S):
                dead.append(batch_id)
        for batch_id in dead:
            db.execute("UPDATE batches SET status = 'dead', finished_at = ? WHERE id = ?", [now_iso(), batch_id])
            db.execute("DELETE FROM leases WHERE batch_id = ?", [batch_id])
    return dead


def start_batch(db: sqlite_utils.Database, settings: dict[str, Any], kind: str = "judge") -> str:
    """Record a batch as running (with this process's pid and host, for `mark_dead_batches`), after marking dead the
    batches whose process is gone. `settings` must not contain secrets (it is stored as given, minus any key-like
    entries, which are dropped as a second line of defence)."""
    clean = {k: v for k, v in settings.items() if "key" not in k.lower() and "secret" not in k.lower()}
    batch_id = f"{kind}-{now_iso()}-{uuid.uuid4().hex[:6]}"
    with write(db):
        mark_dead_batches(db)
        db.execute("INSERT INTO batches (id, kind, settings, status, started_at, pid, host, heartbeat_at)"
                   " VALUES (?,?,?,?,?,?,?,?)",
                   [batch_id, kind, json.dumps(clean, sort_keys=True), "running", now_iso(), os.getpid(),
                    socket.gethostname(), time.time()])
    return batch_id


def heartbeat(db: sqlite_utils.Database, batch_id: str) -> None:
    """The batch is alive: refresh its heartbeat and push its leases' expiry forward."""
    now = time.time()
    with write(db):
        db.execute("UPDATE batches SET heartbeat_at = ? WHERE id = ?", [now, batch_id])
        db.execute("UPDATE leases SET expires_at = ? WHERE batch_id = ?", [now + LEASE_TTL_S, batch_id])


def finish_batch(db: sqlite_utils.Database, batch_id: str, status: str, summary: dict[str, Any]) -> None:
    """Record how a batch ended and free its leases."""
    if status not in BATCH_STATUSES or status == "running":
        raise ValueError(f"unknown batch status {status!r}")
    with write(db):
        db.execute("UPDATE batches SET status = ?, finished_at = ?, summary = ? WHERE id = ?",
                   [status, now_iso(), json.dumps(summary, sort_keys=True), batch_id])
        db.execute("DELETE FROM leases WHERE batch_id = ?", [batch_id])


# Lease rows per multi-row insert: 300 x 3 parameters stays under 999, the host-parameter limit of SQLite before 3.32.
_LEASE_ROWS = 300


def claim_leases(db: sqlite_utils.Database, batch_id: str, keys: Iterable[str],
                 is_done: Callable[[sqlite_utils.Database, str], bool] | None = None, *,
                 done_of: Callable[[sqlite_utils.Database, list[str]], set[str]] | None = None) -> "Claim":
    """Take a lease on each key that is not done and that no live batch holds, in one IMMEDIATE transaction (so two
    batches never both get a key). A lease of a batch that is no longer running, or that expired, is taken over.
    What is done is asked inside the transaction, so a key another batch finished meanwhile is not sent again: key by
    key (`is_done(db, key)`), or for all the keys in one look-up (`done_of(db, keys)` -> the done ones)."""
    if (is_done is None) == (done_of is None):
        raise ValueError("give exactly one of is_done and done_of")
    now = time.time()
    keys = list(dict.fromkeys(keys))
    mine: list[str] = []
    elsewhere = 0
    live: dict[str, bool] = {}
    with write(db):
        done = done_of(db, keys) if done_of is not None else {k for k in keys if is_done(db, k)}  # type: ignore[misc]
        wanted = [k for k in keys if k not in done]
        held: dict[str, tuple[str, float]] = {}
        # One look-up per 900 keys (SQLite's default limit of host parameters is 999), not one per key.
        for start in range(0, len(wanted), 900):
            part = wanted[start:start + 900]
            held.update((k, (b, exp)) for k, b, exp in db.execute(
                f"SELECT key, batch_id, expires_at FROM leases WHERE key IN ({','.join('?' * len(part))})", part))
        for key in wanted:
            row = held.get(key)
            if row is not None and row[0] != batch_id and row[1] > now:
                if row[0] not in live:
                    status = db.execute("SELECT status FROM batches WHERE id = ?", [row[0]]).fetchone()
                    live[row[0]] = status is not None and status[0] == "running"
                if live[row[0]]:
                    elsewhere += 1
                    continue
            mine.append(key)
        # Multi-row statements, not executemany: the sqlite3 module gives the GIL back around every row's step, and
        # with hundreds of judge workers waiting on the claim each hand-back is a wait of its own (issue 16.6).
        expires = now + LEASE_TTL_S
        for start in range(0, len(mine), _LEASE_ROWS):
            part = mine[start:start + _LEASE_ROWS]
            db.execute("INSERT INTO leases (key, batch_id, expires_at) VALUES " + ", ".join(["(?,?,?)"] * len(part))
                       + " ON CONFLICT (key) DO UPDATE SET batch_id = excluded.batch_id, expires_at = excluded.expires_at",
                       [value for key in part for value in (key, batch_id, expires)])
    return Claim(mine, len(keys) - len(wanted), elsewhere)


class Claim(NamedTuple):
    """What a batch got from `claim_leases`: the keys it may ask for, and how many were done or held elsewhere."""

    keys: list[str]
    done: int
    elsewhere: int
