"""Probe verdicts in the project store (issue 15.3): the judge's answers to perturbed prompts, one row per (probe,
rubric version, judge model, pair, variant), in their own table so nothing that reads `verdicts` sees them.

The sink is the verdict sink's twin (same writer thread, same upsert rule: an error row is replaced by a later answer,
a stored label never; same leases): the batch runner hands it verdicts whose `repeat` is the variant's index.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, NamedTuple, Sequence

import sqlite_utils

from judgecal.annotations.store._batches import claim_leases
from judgecal.annotations.store._schema import connect, now_iso, write
from judgecal.annotations.store._verdicts import _VERDICT_FIELDS, StoredVerdict, storable_verdict_row, unstorable_verdict
from judgecal.annotations.store._writer import QueuedWriter

_ANSWER_FIELDS = _VERDICT_FIELDS[5:]  # label ... latency_ms
_PROBE_UPSERT = f"""
    INSERT INTO probe_verdicts (probe, variant, run_record_id, constraint_id, rubric_sha256, judge_model,
                                {', '.join(_ANSWER_FIELDS)}, batch_id, created_at)
    VALUES ({', '.join('?' * (6 + len(_ANSWER_FIELDS) + 2))})
    ON CONFLICT (probe, rubric_sha256, judge_model, run_record_id, constraint_id, variant) DO UPDATE SET
        label = excluded.label, reason = excluded.reason, error = excluded.error,
        error_detail = excluded.error_detail, raw = excluded.raw, input_tokens = excluded.input_tokens,
        output_tokens = excluded.output_tokens, latency_ms = excluded.latency_ms, batch_id = excluded.batch_id,
        created_at = excluded.created_at
    WHERE probe_verdicts.error IS NOT NULL
"""


class ProbeVerdict(NamedTuple):
    """One stored probe answer: a label or an error (never both)."""

    probe: str
    variant: str
    run_record_id: str
    constraint_id: str
    rubric_sha256: str
    judge_model: str
    label: str | None
    error: str | None


class SqliteProbeSink(QueuedWriter[Any]):
    """Stores the answers of one probe batch. `variants[i]` names the variant a verdict key with `repeat == i` asked."""

    NAME = "probe-writer"

    def __init__(self, db_path: str | Path, batch_id: str | None, probe: str, variants: Sequence[str]):
        self.batch_id = batch_id
        self.probe = probe
        self.variants = tuple(variants)
        super().__init__(db_path)

    def _where(self, key: Sequence[Any]) -> list[Any]:
        rid, cid, sha, model, index = key
        return [self.probe, self.variants[index], rid, cid, sha, model]

    def _is_done(self, db: sqlite_utils.Database, key: Sequence[Any]) -> bool:
        return db.execute(
            "SELECT 1 FROM probe_verdicts WHERE probe = ? AND variant = ? AND run_record_id = ? AND constraint_id = ?"
            " AND rubric_sha256 = ? AND judge_model = ? AND error IS NULL", self._where(key)).fetchone() is not None

    def done(self, keys: Iterable[tuple[str, str, str, str, int]]) -> set[tuple[str, str, str, str, int]]:
        """The keys among `keys` with an answer stored (error rows do not count: they are asked again); one query
        per rubric version × judge model, as the verdict sink."""
        wanted = {tuple(k) for k in keys}
        index = {v: i for i, v in enumerate(self.variants)}
        db = connect(self.db_path)
        try:
            found = set()
            for sha, model in {(k[2], k[3]) for k in wanted}:
                for rid, cid, variant in db.execute(
                        "SELECT run_record_id, constraint_id, variant FROM probe_verdicts WHERE probe = ? AND"
                        " rubric_sha256 = ? AND judge_model = ? AND error IS NULL", [self.probe, sha, model]):
                    if variant in index:
                        found.add((rid, cid, sha, model, index[variant]))
            return found & wanted
        finally:
            db.close()

    def _lease_key(self, key: Sequence[Any]) -> str:
        return json.dumps(["probe", *self._where(key)], ensure_ascii=False)

    def claim(self, keys: Iterable[tuple[str, str, str, str, int]]) -> set[tuple[str, str, str, str, int]]:
        """Lease the keys no live batch holds and that have no answer yet (as the verdict sink)."""
        keys = [tuple(k) for k in keys]
        if self.batch_id is None:
            return set(keys)
        by_lease = {self._lease_key(k): k for k in keys}
        db = connect(self.db_path)
        try:
            got = claim_leases(db, self.batch_id, list(by_lease),
                               lambda d, lease: self._is_done(d, by_lease[lease]))
        finally:
            db.close()
        return {by_lease[k] for k in got.keys}

    def _row(self, v: Any, stamp: str) -> tuple[Any, ...]:
        if (v.label is None) == (v.error is None):
            raise ValueError(f"a verdict needs exactly one of label and error: {v!r}")
        values = storable_verdict_row(tuple(getattr(v, f) for f in _VERDICT_FIELDS))
        return (self.probe, self.variants[v.repeat], v.run_record_id, v.constraint_id, v.rubric_sha256,
                v.judge_model, *values[5:], self.batch_id, stamp)

    def fallback(self, v: Any, exc: BaseException) -> StoredVerdict:
        return unstorable_verdict(v, exc)

    def commit(self, db: sqlite_utils.Database, rows: list[Any]) -> None:
        stamp = now_iso()
        with write(db):
            db.conn.executemany(_PROBE_UPSERT, [self._row(v, stamp) for v in rows])


def probe_verdicts(db: sqlite_utils.Database, probe: str | None = None) -> list[ProbeVerdict]:
    """Every stored probe answer (of one probe kind), in a stable order."""
    sql = ("SELECT probe, variant, run_record_id, constraint_id, rubric_sha256, judge_model, label, error"
           " FROM probe_verdicts" + (" WHERE probe = ?" if probe else "")
           + " ORDER BY probe, rubric_sha256, judge_model, run_record_id, constraint_id, variant")
    return [ProbeVerdict(*row) for row in db.execute(sql, [probe] if probe else [])]


# The sampling settings a probe batch records of its judge (`jobs.run_probe`): under "sampling", since the batch's
# top-level "seed" is the seed of the `--sample` draw. Batches written before wave 17 have no "sampling": their
# top-level "temperature" is the judge's, their judge seed was not recorded.
PROBE_SAMPLING = "sampling"


def probe_sampling(settings: str | None) -> dict[str, Any]:
    """The judge's sampling settings a probe batch's settings JSON records ({} when it records none or does not read
    as JSON): its "sampling" object, else (a batch written before wave 17) its top-level temperature."""
    try:
        stored = json.loads(settings) if settings else None
    except ValueError:
        return {}
    if not isinstance(stored, dict):
        return {}
    if isinstance(stored.get(PROBE_SAMPLING), dict):
        return dict(stored[PROBE_SAMPLING])
    return {"temperature": stored["temperature"]} if "temperature" in stored else {}


def probe_batch_settings(db: sqlite_utils.Database, rubric_sha256: str | None = None,
                         model: str | None = None) -> dict[tuple[str, str, str], list[tuple[str | None, str | None]]]:
    """(probe, rubric sha256, judge model) -> [(batch id, its settings JSON or None)] of the batches that asked its
    stored answers (error rows, which a later probe asks again, left out), oldest first; filtered to one rubric
    version and judge model when given. A probe answer keeps the batch that asked it (a resumed probe replaces error
    rows only), so these are the settings the stored answers were asked with."""
    where = ["p.error IS NULL"]
    args: list[Any] = []
    if rubric_sha256 is not None:
        where.append("p.rubric_sha256 = ?")
        args.append(rubric_sha256)
    if model is not None:
        where.append("p.judge_model = ?")
        args.append(model)
    out: dict[tuple[str, str, str], list[tuple[str | None, str | None]]] = {}
    for probe, sha, judge, batch_id, settings in db.execute(
            "SELECT g.probe, g.rubric_sha256, g.judge_model, g.batch_id, b.settings FROM (SELECT DISTINCT p.probe,"
            " p.rubric_sha256, p.judge_model, p.batch_id FROM probe_verdicts p WHERE " + " AND ".join(where) + ") g"
            " LEFT JOIN batches b ON b.id = g.batch_id ORDER BY 1, 2, 3, b.started_at, 4", args):
        out.setdefault((probe, sha, judge), []).append((batch_id, settings))
    return out


__all__ = ["PROBE_SAMPLING", "ProbeVerdict", "SqliteProbeSink", "probe_batch_settings", "probe_sampling",
           "probe_verdicts"]
