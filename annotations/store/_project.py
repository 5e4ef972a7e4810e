"""Eval items and run records in the project store: import (one transaction each), load, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

import sqlite_utils

from judgecal.evalsets import (
    Check,
    ProblemLog,
    chunks,
    Constraint,
    EvalItem,
    InputError,
    Parsed,
    Problem,
    RunRecord,
    STORED,
    evalset_sha256,
    item_sha256,
    storable,
    storable_record,
)
from judgecal.evalsets import gc_paused
from judgecal.annotations.store._schema import unit_of_work, write
from judgecal.annotations.store._batches import claim_leases
from judgecal.annotations.store._writer import QueuedWriter


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _loads(value: str | None) -> Any:
    return None if value is None else json.loads(value)


class ImportSummary(dict):
    """Counts per outcome: {'inserted': n, 'unchanged': n}."""


def import_items(db: sqlite_utils.Database, source: Parsed[EvalItem] | Iterable[Parsed[EvalItem]]) -> ImportSummary:
    """Insert eval items with their constraints: a whole `Parsed` or a `stream_rows` stream of chunks, in one write
    transaction (a bad row anywhere and nothing is imported; memory is bounded by the chunk, not the file).
    Re-importing an identical item is a no-op; an existing id with different content is an error (items are
    versioned by content: give a changed item a new id).

    What is already stored is read inside the write transaction: two processes importing the same new file then
    queue on the write lock and the second finds every row present (not a UNIQUE constraint error)."""
    conn = db.conn
    problems = ProblemLog()
    inserted = unchanged = 0
    with write(db):
        seq = conn.execute("SELECT coalesce(max(seq), 0) FROM eval_items").fetchone()[0]
        for parsed in chunks(source):
            problems.extend(parsed.problems)
            existing = dict(_stored(conn, "SELECT id, content_sha256 FROM eval_items", [r.id for r in parsed.rows]))
            new: list[tuple[EvalItem, str]] = []
            for index, item in enumerate(parsed.rows):
                sha = item_sha256(item)
                if item.id in existing:
                    if existing[item.id] != sha:
                        problems.extend([parsed.problem(index, "id", f"item {item.id!r} already exists with different content")])
                    else:
                        unchanged += 1
                    continue
                new.append((item, sha))
            if problems.total:
                continue  # the file is refused: read on only to report every problem
            conn.executemany(
                "INSERT INTO eval_items (id, instruction, input, reference, source, scenario, created_at, derived_from,"
                " tags, split, fixtures, content_sha256, seq, turns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        item.id, item.instruction, _dumps(item.input), item.reference, item.source, item.scenario,
                        item.created_at.isoformat() if item.created_at else None, item.derived_from,
                        _dumps(list(item.tags)), item.split, _dumps(item.fixtures), sha, seq + n,
                        _dumps(list(item.turns)) if item.turns is not None else None,
                    )
                    for n, (item, sha) in enumerate(new, start=1)
                ],
            )
            seq += len(new)
            inserted += len(new)
            conn.executemany(
                "INSERT INTO constraints (item_id, id, seq, text, type, severity, check_json, labels, expected)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    (
                        item.id, c.id, k, c.text, c.type, c.severity,
                        _dumps(c.check.model_dump(mode="json")) if c.check else None, _dumps(list(c.labels)), c.expected,
                    )
                    for item, _ in new
                    for k, c in enumerate(item.constraints)
                ],
            )
        problems.raise_if_any()  # inside the transaction: raising rolls back every chunk already written
    return ImportSummary(inserted=inserted, unchanged=unchanged)


def _stored(conn: Any, select: str, ids: list[str]) -> Iterator[tuple[Any, ...]]:
    """Rows of `select` (which reads `... FROM table`) whose id is in `ids`, looked up in chunks (SQLite caps the
    number of bound parameters). Only the ids of one chunk are ever asked, so memory follows the chunk."""
    for start in range(0, len(ids), 900):
        part = ids[start:start + 900]
        yield from conn.execute(f"{select} WHERE id IN ({','.join('?' * len(part))})", part)


_RUN_COLUMNS = (
    "id", "item_id", "model", "prompt_version", "run_id", "output", "trajectory", "tool_calls", "input_tokens",
    "output_tokens", "latency_ms", "rounds", "error", "evalset_sha256", "created_at", "messages",
)


def _run_tuple(r: RunRecord, seq: int) -> tuple[Any, ...]:
    return (
        r.id, r.item_id, r.model, r.prompt_version, r.run_id, r.output,
        _dumps([s.model_dump(mode="json", exclude_none=True) for s in r.trajectory]) if r.trajectory is not None else None,
        _dumps([t.model_dump(mode="json", exclude_none=True) for t in r.tool_calls]) if r.tool_calls else None,
        r.input_tokens, r.output_tokens, r.latency_ms, r.rounds, r.error, r.evalset_sha256,
        r.created_at.isoformat() if r.created_at else None,
        _dumps(list(r.messages)) if r.messages is not None else None, seq,
    )


def import_runs(db: sqlite_utils.Database, source: Parsed[RunRecord] | Iterable[Parsed[RunRecord]]) -> ImportSummary:
    """Insert run records (a whole `Parsed` or a stream of chunks, one write transaction, as `import_items`). Each
    must name an existing eval item; ids must be new (an identical re-import is a no-op, a changed record under an
    old id is an error); a conversation's output must be its transcript's final assistant text
    (`RunRecord.transcript_mismatch`)."""
    conn = db.conn
    problems = ProblemLog()
    inserted = unchanged = 0
    with write(db):
        seq = conn.execute("SELECT coalesce(max(seq), 0) FROM run_records").fetchone()[0]
        has_runs = conn.execute("SELECT 1 FROM run_records LIMIT 1").fetchone() is not None
        for parsed in chunks(source):
            problems.extend(parsed.problems)
            item_ids = {row[0] for row in _stored(conn, "SELECT id FROM eval_items",
                                                  sorted({r.item_id for r in parsed.rows}))}
            existing: dict[str, tuple[Any, ...]] = {}
            if has_runs:
                existing = {row[0]: tuple(row) for row in _stored(
                    conn, f"SELECT {','.join(_RUN_COLUMNS)} FROM run_records", [r.id for r in parsed.rows])}
            new: list[RunRecord] = []
            for index, record in enumerate(parsed.rows):
                mismatch = record.transcript_mismatch()
                if mismatch is not None:
                    problems.extend([parsed.problem(index, *mismatch)])
                    continue
                if record.item_id not in item_ids:
                    problems.extend([parsed.problem(index, "item_id", f"no eval item {record.item_id!r} in the project")])
                    continue
                if record.id in existing:
                    if existing[record.id] != _run_tuple(record, 0)[:-1]:
                        problems.extend([parsed.problem(index, "id", f"run record {record.id!r} already exists with different content")])
                    else:
                        unchanged += 1
                    continue
                new.append(record)
            if problems.total:
                continue  # the file is refused: read on only to report every problem
            with gc_paused():
                rows = [_run_tuple(r, seq + n) for n, r in enumerate(new, start=1)]
            conn.executemany(
                f"INSERT INTO run_records ({','.join(_RUN_COLUMNS)}, seq) VALUES ({','.join('?' * (len(_RUN_COLUMNS) + 1))})",
                rows,
            )
            seq += len(new)
            inserted += len(new)
        problems.raise_if_any()  # inside the transaction: raising rolls back every chunk already written
    return ImportSummary(inserted=inserted, unchanged=unchanged)


def _item_from_row(row: dict[str, Any], constraints: list[dict[str, Any]]) -> EvalItem:
    return EvalItem.model_validate(
        {
            "id": row["id"], "instruction": row["instruction"], "input": _loads(row["input"]),
            "reference": row["reference"], "source": row["source"], "scenario": row["scenario"],
            "created_at": row["created_at"], "derived_from": row["derived_from"], "tags": _loads(row["tags"]),
            "split": row["split"], "fixtures": _loads(row["fixtures"]),
            **({"turns": _loads(row["turns"])} if row.get("turns") is not None else {}),
            "constraints": [
                {
                    "id": c["id"], "text": c["text"], "type": c["type"], "severity": c["severity"],
                    "check": _loads(c["check_json"]), "labels": _loads(c["labels"]),
                } | ({"expected": c["expected"]} if c.get("expected") is not None else {})
                for c in constraints
            ],
        },
        context=STORED,  # an item stored before a newer input rule still loads (evalsets.STORED)
    )


def load_items(db: sqlite_utils.Database, ids: Iterable[str] | None = None) -> dict[str, EvalItem]:
    """Eval items by id, in import order."""
    where, params = "", []
    if ids is not None:
        params = list(ids)
        where = f"WHERE id IN ({','.join('?' * len(params))})" if params else "WHERE 0"
    rows = list(db.query(f"SELECT * FROM eval_items {where} ORDER BY seq", params))
    by_item: dict[str, list[dict[str, Any]]] = {r["id"]: [] for r in rows}
    cwhere = f"WHERE item_id IN ({','.join('?' * len(params))})" if ids is not None and params else ""
    for c in db.query(f"SELECT * FROM constraints {cwhere} ORDER BY item_id, seq", params if cwhere else []):
        if c["item_id"] in by_item:
            by_item[c["item_id"]].append(c)
    return {r["id"]: _item_from_row(r, by_item[r["id"]]) for r in rows}


def _run_from_row(row: dict[str, Any]) -> RunRecord:
    data = {k: row[k] for k in _RUN_COLUMNS if row[k] is not None}
    for key in ("trajectory", "tool_calls", "messages"):
        if key in data:
            data[key] = json.loads(data[key])
    return RunRecord.model_validate(data)


def iter_runs(db: sqlite_utils.Database, *, where: str = "", params: Iterable[Any] = ()) -> Iterator[RunRecord]:
    """Run records in import order, optionally filtered by a SQL condition on run_records."""
    clause = f"WHERE {where}" if where else ""
    for row in db.query(f"SELECT * FROM run_records {clause} ORDER BY seq", list(params)):
        yield _run_from_row(row)


def load_run(db: sqlite_utils.Database, run_record_id: str) -> RunRecord | None:
    return next(iter_runs(db, where="id = ?", params=[run_record_id]), None)


def models_in_run(db: sqlite_utils.Database, run_id: str) -> list[str]:
    """Models with run records under `run_id` (a run id belongs to one model)."""
    return [r[0] for r in db.execute("SELECT DISTINCT model FROM run_records WHERE run_id = ? ORDER BY model", [run_id])]


class SqliteRunSink(QueuedWriter[RunRecord]):
    """The model runner's sink: each finished task becomes a run record through `import_runs`, committed by one
    writer thread within ~20 ms. A re-run with the same run id skips what is stored (`done`)."""

    NAME = "run-writer"

    def __init__(self, db_path: str | Path, run_id: str, batch_id: str | None = None):
        self.run_id = run_id
        self.batch_id = batch_id
        self.claimed_elsewhere = 0
        super().__init__(db_path)

    def claim(self, record_ids: Iterable[str]) -> set[str]:
        """Lease the tasks no live batch holds and that are not stored yet (see `claim_leases`): two `run`
        processes on one run id split the tasks instead of both running them."""
        if self.batch_id is None:
            return set(record_ids)
        with unit_of_work(self.db_path) as db:
            claim = claim_leases(db, self.batch_id, [json.dumps(["run", r], ensure_ascii=False) for r in record_ids],
                                 _run_done)
        self.claimed_elsewhere += claim.elsewhere
        return {json.loads(k)[1] for k in claim.keys}

    def done(self, record_ids: Iterable[str]) -> set[str]:
        with unit_of_work(self.db_path) as db:
            stored = {r[0] for r in db.execute("SELECT id FROM run_records WHERE run_id = ?", [self.run_id])}
        return {r for r in record_ids if r in stored}

    def commit(self, db: sqlite_utils.Database, rows: list[RunRecord]) -> None:
        # The runner already made its records storable; a record from another producer is made so here.
        rows = [storable_record(r) for r in rows]
        import_runs(db, Parsed("runner", rows, list(range(1, len(rows) + 1))))

    def fallback(self, record: RunRecord, exc: BaseException) -> RunRecord:
        """A record that could not be stored becomes a failed record with the cause (`unstorable`); a resume
        does not ask it again, as for any failed task."""
        return RunRecord(id=record.id, item_id=record.item_id, model=record.model,
                         prompt_version=record.prompt_version, run_id=record.run_id,
                         input_tokens=record.input_tokens, output_tokens=record.output_tokens,
                         latency_ms=record.latency_ms, rounds=record.rounds, evalset_sha256=record.evalset_sha256,
                         error=storable(f"unstorable: the record could not be stored: {type(exc).__name__}: {exc}")[:2000])


def _run_done(db: sqlite_utils.Database, lease_key: str) -> bool:
    return db.execute("SELECT 1 FROM run_records WHERE id = ?", [json.loads(lease_key)[1]]).fetchone() is not None


def project_evalset_sha256(db: sqlite_utils.Database) -> str:
    return evalset_sha256(list(load_items(db).values()))


def export_header(db: sqlite_utils.Database, kind: str) -> dict[str, Any]:
    """Provenance carried by every export: what it is, the eval-set version and the rubric versions."""
    rubrics = [
        {"name": r["name"], "version": r["version"], "sha256": r["sha256"]}
        for r in db.query("SELECT name, version, sha256 FROM rubrics ORDER BY name, version")
    ]
    return {"kind": kind, "evalset_sha256": project_evalset_sha256(db), "rubrics": rubrics}


def item_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    for item in load_items(db).values():
        yield item.model_dump(mode="json", exclude_none=True)


def run_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    for record in iter_runs(db):
        yield record.model_dump(mode="json", exclude_none=True, exclude_defaults=True) | {
            "id": record.id, "item_id": record.item_id, "model": record.model
        }


def semantic_pairs(db: sqlite_utils.Database, *, constraint_id: str | None = None) -> Iterator[tuple[RunRecord, EvalItem, Constraint]]:
    """Every (run record, semantic constraint) pair: what the judge and the reviewers score."""
    items = load_items(db)
    for record in iter_runs(db):
        if record.failed:
            continue  # a failed run has no output to judge
        item = items[record.item_id]
        for c in item.constraints:
            if c.check is None and (constraint_id is None or c.id == constraint_id):
                yield record, item, c


__all__ = [
    "Check", "ImportSummary", "export_header", "import_items", "import_runs", "item_rows", "iter_runs",
    "load_items", "load_run", "models_in_run", "project_evalset_sha256", "SqliteRunSink", "run_rows", "semantic_pairs",
]
