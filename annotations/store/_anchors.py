"""Frozen anchor sets and drift runs in the project store (migration 012; the rules: docs/decisions.md "Drift").

An anchor is written once, in one transaction, with the human labels and every judge verdict row its pairs had at
that moment; nothing updates or deletes it afterwards. A drift run's id is its nonce: the drift sink keys its
verdicts by (run id, pair, repeat), so re-judging an anchor asks the judge again instead of finding the verdicts
cache, and a killed drift run resumes from what it committed (error rows are asked again, as in `verdicts`).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, Iterable, NamedTuple

import sqlite_utils

from judgecal.evalsets import VerdictRow
from judgecal.annotations.store._batches import claim_leases
from judgecal.annotations.store._schema import connect, now_iso, write
from judgecal.annotations.store._verdicts import storable_verdict_row, unstorable_verdict
from judgecal.annotations.store._writer import QueuedWriter


class AnchorRow(NamedTuple):
    id: int
    name: str
    seed: int
    seed_given: bool  # the seed came from --seed (else drawn at random at freeze time)
    size: int
    counted: int  # counted pairs the anchor was drawn from
    created_at: str


class AnchorPair(NamedTuple):
    run_record_id: str
    constraint_id: str
    human_label: str  # the first reviewer's blind first label, as it counted at freeze time
    reviewer: str


class FrozenVerdict(NamedTuple):
    run_record_id: str
    constraint_id: str
    rubric_sha256: str
    judge_model: str
    repeat: int
    label: str | None
    error: str | None


class DriftRunRow(NamedTuple):
    id: str
    anchor_id: int
    judge_model: str
    rubric_sha256: str
    repeats: int
    baseline_model: str
    baseline_sha256: str
    started_at: str
    finished_at: str | None
    result: dict[str, Any] | None


class DriftVerdict(NamedTuple):
    run_record_id: str
    constraint_id: str
    repeat: int
    label: str | None
    error: str | None


def _anchor(row: Any) -> AnchorRow:
    return AnchorRow(row["id"], row["name"], row["seed"], bool(row["seed_given"]), row["size"], row["counted"],
                     row["created_at"])


def insert_anchor(db: sqlite_utils.Database, name: str, *, seed: int, seed_given: bool, counted: int,
                  pairs: Iterable[AnchorPair]) -> AnchorRow:
    """Write an anchor with its pairs and a copy of every verdict row (any judge model, rubric version, repeat;
    error rows too) those pairs have now, in one transaction. ValueError for a name already used or no pairs."""
    pairs = list(pairs)
    if not pairs:
        raise ValueError("an anchor needs at least one pair")
    with write(db):
        if db.execute("SELECT 1 FROM anchors WHERE name = ?", [name]).fetchone():
            raise ValueError(f"an anchor named {name!r} is already frozen (anchors are never changed: pick a new name)")
        cur = db.execute("INSERT INTO anchors (name, seed, seed_given, size, counted, created_at) VALUES (?,?,?,?,?,?)",
                         [name, seed, int(seed_given), len(pairs), counted, now_iso()])
        anchor_id = cur.lastrowid
        db.conn.executemany(
            "INSERT INTO anchor_pairs (anchor_id, run_record_id, constraint_id, human_label, reviewer) VALUES (?,?,?,?,?)",
            [(anchor_id, *p) for p in pairs])
        db.execute(
            "INSERT INTO anchor_verdicts (anchor_id, run_record_id, constraint_id, rubric_sha256, judge_model, repeat,"
            " label, error) SELECT ?, v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model, v.repeat,"
            " v.label, v.error FROM verdicts v JOIN anchor_pairs a ON a.anchor_id = ? AND"
            " a.run_record_id = v.run_record_id AND a.constraint_id = v.constraint_id", [anchor_id, anchor_id])
        return _anchor(next(db.query("SELECT * FROM anchors WHERE id = ?", [anchor_id])))


def list_anchors(db: sqlite_utils.Database) -> list[AnchorRow]:
    """Every frozen anchor, oldest first."""
    return [_anchor(r) for r in db.query("SELECT * FROM anchors ORDER BY id")]


def get_anchor(db: sqlite_utils.Database, name: str | None = None) -> AnchorRow | None:
    """The anchor of that name, or the latest frozen one when `name` is None; None when there is none."""
    sql, params = (("SELECT * FROM anchors WHERE name = ?", [name]) if name is not None
                   else ("SELECT * FROM anchors ORDER BY id DESC LIMIT 1", []))
    row = next(db.query(sql, params), None)
    return _anchor(row) if row is not None else None


def anchor_pairs(db: sqlite_utils.Database, anchor_id: int) -> list[AnchorPair]:
    return [AnchorPair(*r) for r in db.execute(
        "SELECT run_record_id, constraint_id, human_label, reviewer FROM anchor_pairs WHERE anchor_id = ?"
        " ORDER BY rowid", [anchor_id])]


def anchor_verdicts(db: sqlite_utils.Database, anchor_id: int, *, judge_model: str | None = None,
                    rubric_sha256: str | None = None) -> list[FrozenVerdict]:
    sql = ("SELECT run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error FROM anchor_verdicts"
           " WHERE anchor_id = ?")
    params: list[Any] = [anchor_id]
    if judge_model is not None:
        sql += " AND judge_model = ?"
        params.append(judge_model)
    if rubric_sha256 is not None:
        sql += " AND rubric_sha256 = ?"
        params.append(rubric_sha256)
    return [FrozenVerdict(*r) for r in db.execute(sql + " ORDER BY run_record_id, constraint_id, repeat", params)]


# --------------------------------------------------------------------------- drift runs


def _drift_run(row: Any) -> DriftRunRow:
    return DriftRunRow(row["id"], row["anchor_id"], row["judge_model"], row["rubric_sha256"], row["repeats"],
                       row["baseline_model"], row["baseline_sha256"], row["started_at"], row["finished_at"],
                       json.loads(row["result"]) if row["result"] else None)


class OpenedDriftRun(NamedTuple):
    run: DriftRunRow
    resumed: bool  # an unfinished run with the same anchor, judge, rubric, repeats and baseline was picked up


def open_drift_run(db: sqlite_utils.Database, anchor_id: int, *, judge_model: str, rubric_sha256: str, repeats: int,
                   baseline_model: str, baseline_sha256: str) -> OpenedDriftRun:
    """The unfinished drift run of these settings (a killed or interrupted one: resumed), else a new one with a new
    nonce. Read and written in one transaction, so two processes starting at once share one run."""
    with write(db):
        row = next(db.query(
            "SELECT * FROM drift_runs WHERE anchor_id = ? AND judge_model = ? AND rubric_sha256 = ? AND repeats = ?"
            " AND baseline_model = ? AND baseline_sha256 = ? AND finished_at IS NULL ORDER BY started_at DESC LIMIT 1",
            [anchor_id, judge_model, rubric_sha256, repeats, baseline_model, baseline_sha256]), None)
        if row is not None:
            return OpenedDriftRun(_drift_run(row), True)
        run_id = f"drift-{uuid.uuid4().hex[:12]}"
        db.execute("INSERT INTO drift_runs (id, anchor_id, judge_model, rubric_sha256, repeats, baseline_model,"
                   " baseline_sha256, started_at) VALUES (?,?,?,?,?,?,?,?)",
                   [run_id, anchor_id, judge_model, rubric_sha256, repeats, baseline_model, baseline_sha256, now_iso()])
        return OpenedDriftRun(_drift_run(next(db.query("SELECT * FROM drift_runs WHERE id = ?", [run_id]))), False)


def finish_drift_run(db: sqlite_utils.Database, run_id: str, result: dict[str, Any]) -> None:
    """Record a drift run as finished with its report (the history row); a finished run is never resumed."""
    with write(db):
        db.execute("UPDATE drift_runs SET finished_at = ?, result = ? WHERE id = ? AND finished_at IS NULL",
                   [now_iso(), json.dumps(result, sort_keys=True), run_id])


def get_drift_run(db: sqlite_utils.Database, run_id: str) -> DriftRunRow | None:
    row = next(db.query("SELECT * FROM drift_runs WHERE id = ?", [run_id]), None)
    return _drift_run(row) if row is not None else None


def list_drift_runs(db: sqlite_utils.Database, *, anchor_id: int | None = None,
                    finished_only: bool = True) -> list[DriftRunRow]:
    """Drift runs oldest first (only finished ones by default: the history)."""
    where, params = [], []
    if anchor_id is not None:
        where.append("anchor_id = ?")
        params.append(anchor_id)
    if finished_only:
        where.append("finished_at IS NOT NULL")
    sql = "SELECT * FROM drift_runs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY started_at, id"
    return [_drift_run(r) for r in db.query(sql, params)]


def drift_verdicts(db: sqlite_utils.Database, run_id: str) -> list[DriftVerdict]:
    return [DriftVerdict(*r) for r in db.execute(
        "SELECT run_record_id, constraint_id, repeat, label, error FROM drift_verdicts WHERE drift_run_id = ?"
        " ORDER BY run_record_id, constraint_id, repeat", [run_id])]


# --------------------------------------------------------------------------- the drift sink

_FIELDS = ("label", "reason", "error", "error_detail", "raw", "input_tokens", "output_tokens", "latency_ms")
_KEY = ("run_record_id", "constraint_id", "rubric_sha256", "judge_model", "repeat")
_UPSERT = f"""
    INSERT INTO drift_verdicts (drift_run_id, run_record_id, constraint_id, repeat, {', '.join(_FIELDS)}, batch_id,
                                created_at)
    VALUES ({', '.join('?' * (len(_FIELDS) + 6))})
    ON CONFLICT (drift_run_id, run_record_id, constraint_id, repeat) DO UPDATE SET
        label = excluded.label, reason = excluded.reason, error = excluded.error, error_detail = excluded.error_detail,
        raw = excluded.raw, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
        latency_ms = excluded.latency_ms, batch_id = excluded.batch_id, created_at = excluded.created_at
    WHERE drift_verdicts.error IS NOT NULL
"""
# ^ as `verdicts`: an error row is replaced by the retry's answer; a stored label is never overwritten.


def _lease_key(run_id: str, key: tuple) -> str:
    return json.dumps(["drift", run_id, *key], ensure_ascii=False)


def _done_keys(db: sqlite_utils.Database, run_id: str) -> set[tuple[str, str, int]]:
    return {(r, c, k) for r, c, k in db.execute(
        "SELECT run_record_id, constraint_id, repeat FROM drift_verdicts WHERE drift_run_id = ? AND error IS NULL",
        [run_id])}


class SqliteDriftSink(QueuedWriter[Any]):
    """The judge runner's sink for one drift run: verdict keys (run record, constraint, rubric, model, repeat) are
    stored under the run's nonce in `drift_verdicts`; `done` and `claim` look only there, so the project's verdicts
    cache never answers for a drift run. Leases as SqliteVerdictSink's, keyed by the nonce too."""

    NAME = "drift-writer"

    def __init__(self, db_path: str | Path, drift_run_id: str, batch_id: str | None = None):
        self.drift_run_id = drift_run_id
        self.batch_id = batch_id
        super().__init__(db_path)

    def done(self, keys: Iterable[tuple]) -> set[tuple]:
        db = connect(self.db_path)
        try:
            stored = _done_keys(db, self.drift_run_id)
        finally:
            db.close()
        return {tuple(k) for k in keys if (k[0], k[1], k[4]) in stored}

    def claim(self, keys: Iterable[tuple]) -> set[tuple]:
        keys = [tuple(k) for k in keys]
        if self.batch_id is None:
            return set(keys)
        run_id = self.drift_run_id

        def is_done(db: sqlite_utils.Database, lease_key: str) -> bool:
            _, _, rid, cid, _sha, _model, rep = json.loads(lease_key)
            return db.execute("SELECT 1 FROM drift_verdicts WHERE drift_run_id = ? AND run_record_id = ? AND"
                              " constraint_id = ? AND repeat = ? AND error IS NULL", [run_id, rid, cid, rep]).fetchone() is not None

        db = connect(self.db_path)
        try:
            claim = claim_leases(db, self.batch_id, [_lease_key(run_id, k) for k in keys], is_done)
        finally:
            db.close()
        return {tuple(json.loads(k)[2:]) for k in claim.keys}

    def _row(self, v: Any, stamp: str) -> tuple[Any, ...]:
        if (v.label is None) == (v.error is None):
            raise ValueError(f"a verdict needs exactly one of label and error: {v!r}")
        values = storable_verdict_row(tuple(getattr(v, f) for f in (*_KEY, *_FIELDS)))
        key = dict(zip(_KEY, values[:5]))
        return (self.drift_run_id, key["run_record_id"], key["constraint_id"], key["repeat"], *values[5:],
                self.batch_id, stamp)

    def fallback(self, v: Any, exc: BaseException) -> VerdictRow:
        return unstorable_verdict(v, exc)

    def commit(self, db: sqlite_utils.Database, rows: list[Any]) -> None:
        stamp = now_iso()
        with write(db):
            db.conn.executemany(_UPSERT, [self._row(v, stamp) for v in rows])


__all__ = [
    "AnchorPair", "AnchorRow", "DriftRunRow", "DriftVerdict", "FrozenVerdict", "OpenedDriftRun", "SqliteDriftSink",
    "anchor_pairs", "anchor_verdicts", "drift_verdicts", "finish_drift_run", "get_anchor", "get_drift_run",
    "insert_anchor", "list_anchors", "list_drift_runs", "open_drift_run",
]
