"""Judge verdicts in the project store: the SQLite verdict sink of the batch runner, import/export and
self-consistency (rubric versions: _rubrics; batch records and leases: _batches; model prices: _prices).

This module does not import `judge` (dependencies point one way); the sink accepts any object with the verdict
fields (judge.Verdict is one).
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

import sqlite_utils
from pydantic import BaseModel, ConfigDict, Field, model_validator

from judgecal.evalsets import (UNSTORABLE_NOTE, InputError, Parsed, Problem, ProblemLog, SeenKeys, VerdictRow, chunks,
                               storable)
from judgecal.evalsets._plain import SQLITE_INT_MAX  # house: private
from judgecal.annotations.stats import majority_label
from judgecal.annotations.store._batches import claim_leases
from judgecal.annotations.store._labels import (PAIRS_IN_JSON, output_hash_of, pair_label_sets,
                                               validate_label_rows)
from judgecal.annotations.store._rubrics import RubricRow, list_rubrics, store_rubric
from judgecal.annotations.store._schema import connect, iso_utc, now_iso, write
from judgecal.annotations.store._writer import QueuedWriter

# --------------------------------------------------------------------------- the verdict sink

_VERDICT_FIELDS = (
    "run_record_id", "constraint_id", "rubric_sha256", "judge_model", "repeat", "label", "reason", "error",
    "error_detail", "raw", "input_tokens", "output_tokens", "latency_ms",
)
_verdict_values = operator.attrgetter(*_VERDICT_FIELDS)  # a verdict's values in _VERDICT_FIELDS order, by name
_ROW_PARAMS = "(" + ", ".join("?" * (len(_VERDICT_FIELDS) + 2)) + ")"
_UPSERT_HEAD = f"INSERT INTO verdicts ({', '.join(_VERDICT_FIELDS)}, batch_id, created_at) VALUES "
_UPSERT_TAIL = """
    ON CONFLICT (run_record_id, constraint_id, rubric_sha256, judge_model, repeat) DO UPDATE SET
        label = excluded.label, reason = excluded.reason, error = excluded.error,
        error_detail = excluded.error_detail, raw = excluded.raw, input_tokens = excluded.input_tokens,
        output_tokens = excluded.output_tokens, latency_ms = excluded.latency_ms, batch_id = excluded.batch_id,
        created_at = excluded.created_at
    WHERE verdicts.error IS NOT NULL
"""
# ^ an error row is replaced by the retry's answer; a stored label is never overwritten.
# Rows per multi-row upsert: 60 x 15 parameters stays under 999, the host-parameter limit of SQLite before 3.32.
_UPSERT_ROWS = 60

# The batch id of the verdicts `import llmbar` stores (+ the file's name): rows LLMBar recorded in both orders
# (repeat 0 original, 1 swapped), which the position figures read as such. `import verdicts` files its rows under
# "import:" + the path as typed, so a file named "llmbar:v.jsonl" took this prefix and passed a plain `judge
# --repeats 2` (the original order twice) as both orders (a review, wave 17): `import_batch_id` never gives it.
LLMBAR_BATCH_PREFIX = "import:llmbar:"


def import_batch_id(file: str) -> str:
    """The batch id of the verdicts `import verdicts` reads from `file` (the path as typed): "import:" + the path,
    with "./" before a path that would spell `LLMBAR_BATCH_PREFIX` in any case (the same file, named otherwise)."""
    name = f"import:{file}"
    return f"import:./{file}" if name.casefold().startswith(LLMBAR_BATCH_PREFIX) else name


def _upsert_many(conn: Any, rows: list[tuple[Any, ...]], *, tail: str = _UPSERT_TAIL) -> None:
    """The upsert of `rows` as multi-row statements, not `executemany`: the sqlite3 module lets go of the GIL around
    every statement step, and with hundreds of worker threads each hand-back is a fight for it (issue 16.6). The
    rows are applied in order, as executemany would. `tail=""` is a plain insert (the import's): on `verdicts`,
    whose triggers give every statement a statement journal, one statement a row paid that once a row."""
    for start in range(0, len(rows), _UPSERT_ROWS):
        part = rows[start:start + _UPSERT_ROWS]
        conn.execute(_UPSERT_HEAD + ", ".join([_ROW_PARAMS] * len(part)) + tail,
                     [value for row in part for value in row])


def done_verdict_keys(db: sqlite_utils.Database, keys: Iterable[tuple[str, str, str, str, int]], *,
                      retry_errors: bool = True) -> set[tuple[str, str, str, str, int]]:
    """The keys among `keys` that have a label stored (error rows do not count: they are asked again), or, with
    `retry_errors` False, any row stored (`judge --only-labelled`: see `SqliteVerdictSink`)."""
    wanted = {tuple(k) for k in keys}
    groups = {(k[2], k[3]) for k in wanted}
    out: set[tuple[str, str, str, str, int]] = set()
    for sha, model in groups:
        for rid, cid, rep in db.execute(
            "SELECT run_record_id, constraint_id, repeat FROM verdicts"
            " WHERE rubric_sha256 = ? AND judge_model = ?" + (" AND error IS NULL" if retry_errors else ""),
                [sha, model]):
            key = (rid, cid, sha, model, rep)
            if key in wanted:
                out.add(key)
    return out


# What json.dumps(..., ensure_ascii=False) builds on every call, built once (the lease keys of a whole batch).
_LEASE_JSON = json.JSONEncoder(ensure_ascii=False)


def verdict_lease_key(key: tuple[str, str, str, str, int]) -> str:
    """The lease key of one verdict: JSON, so no id can make two keys collide."""
    return _LEASE_JSON.encode(["verdict", *key])


def _verdicts_done(db: sqlite_utils.Database, lease_keys: list[str],
                   key_of: dict[str, tuple[str, str, str, str, int]], retry_errors: bool = True) -> set[str]:
    """The lease keys among `lease_keys` whose verdict (`key_of[lease key]`) has a label stored (any row, with
    `retry_errors` False): one look-up per (rubric, model) and 900 run records, not one per key."""
    by_group: dict[tuple[str, str], dict[tuple[str, str, int], str]] = {}
    for lease_key in lease_keys:
        rid, cid, sha, model, rep = key_of[lease_key]
        by_group.setdefault((sha, model), {})[(rid, cid, rep)] = lease_key
    out: set[str] = set()
    for (sha, model), wanted in by_group.items():
        rids = sorted({k[0] for k in wanted})
        for start in range(0, len(rids), 900):
            part = rids[start:start + 900]
            # `+rubric_sha256`, `+judge_model`: looked up by run record (verdicts_pair), not by rubric. SQLite
            # otherwise picks verdicts_stratum and walks every verdict of the rubric on each claim (inside the pool's
            # lock, every worker waiting), a cost that grew with the project instead of with the chunk.
            for rid, cid, rep in db.execute(
                    "SELECT run_record_id, constraint_id, repeat FROM verdicts WHERE +rubric_sha256 = ? AND +judge_model = ?"
                    + (" AND error IS NULL" if retry_errors else "")
                    + f" AND run_record_id IN ({','.join('?' * len(part))})", [sha, model, *part]):
                if (hit := wanted.get((rid, cid, rep))) is not None:
                    out.add(hit)
    return out


# The verdict fields the sink stores, the same type judge.Verdict extends; the sink builds one for an error row.
StoredVerdict = VerdictRow


def storable_verdict_row(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """Verdict field values (in _VERDICT_FIELDS order) with text that UTF-8 cannot hold escaped (`storable`), and
    error_detail saying which fields were escaped. The label is kept: it was checked against the label set."""
    out, changed = [], []
    for name, value in zip(_VERDICT_FIELDS, values):
        if isinstance(value, str) and not value.isascii():  # ASCII text holds no surrogate (isascii is O(1))
            new = storable(value)
            if new is not value:
                changed.append(name)
            value = new
        out.append(value)
    if changed:
        detail = _VERDICT_FIELDS.index("error_detail")
        note = f"the answer {UNSTORABLE_NOTE} in {', '.join(changed)}"
        out[detail] = f"{out[detail]}; {note}" if out[detail] else note
    return tuple(out)


def unstorable_verdict(v: Any, exc: BaseException) -> VerdictRow:
    """What every verdict sink stores for an answer it could not store (its writer's fallback): an error row
    `unstorable` under the same key, with the tokens spent on it, asked again on resume."""
    return VerdictRow(**{f: getattr(v, f) for f in _VERDICT_FIELDS[:5]}, label=None, reason=None, error="unstorable",
                      error_detail=storable(f"the answer could not be stored: {type(exc).__name__}: {exc}")[:2000],
                      raw=None, input_tokens=getattr(v, "input_tokens", None),
                      output_tokens=getattr(v, "output_tokens", None), latency_ms=getattr(v, "latency_ms", None))


class SqliteVerdictSink(QueuedWriter[Any]):
    """Stores verdicts from many worker threads through one writer thread (see QueuedWriter). The upsert never
    turns a stored label into a duplicate or overwrites it; an error row is replaced by a later answer.

    `retry_errors` False (`judge --only-labelled`): a stored error row counts as done, so it is not asked again. A
    retry on the labelled pairs alone gave them a judge the population does not have: a review's endpoint failed on
    30% of pairs, `--only-labelled` then retried the labelled ones until none failed, and the gate passed (kappa
    0.557 → 0.717) on a sample with no judge errors from a population with 28%. Errors are retried by a batch over
    the population (`judge` without it), on labelled and unlabelled pairs alike."""

    NAME = "verdict-writer"

    def __init__(self, db_path: str | Path, batch_id: str | None = None, *, retry_errors: bool = True):
        self.batch_id = batch_id
        self.retry_errors = retry_errors
        super().__init__(db_path)

    def done(self, keys: Iterable[tuple[str, str, str, str, int]]) -> set[tuple[str, str, str, str, int]]:
        db = connect(self.db_path)
        try:
            return done_verdict_keys(db, keys, retry_errors=self.retry_errors)
        finally:
            db.close()

    def claim(self, keys: Iterable[tuple[str, str, str, str, int]]) -> set[tuple[str, str, str, str, int]]:
        """Lease the keys no live batch holds and that have no label yet; the others are left to their batch.
        Counts of keys found done or held elsewhere accumulate in `claimed_done` / `claimed_elsewhere`."""
        if self.batch_id is None:
            return {tuple(k) for k in keys}
        db = connect(self.db_path)
        try:
            by_lease = {verdict_lease_key(k): tuple(k) for k in keys}
            claim = claim_leases(db, self.batch_id, list(by_lease),
                                 done_of=lambda d, lease_keys: _verdicts_done(d, lease_keys, by_lease,
                                                                               self.retry_errors))
        finally:
            db.close()
        self.claimed_done += claim.done
        self.claimed_elsewhere += claim.elsewhere
        return {by_lease[k] for k in claim.keys}

    claimed_done = 0
    claimed_elsewhere = 0

    def _row(self, v: Any, stamp: str) -> tuple[Any, ...]:
        if (v.label is None) == (v.error is None):
            raise ValueError(f"a verdict needs exactly one of label and error: {v!r}")
        return storable_verdict_row(_verdict_values(v)) + (self.batch_id, stamp)

    def fallback(self, v: Any, exc: BaseException) -> StoredVerdict:
        return unstorable_verdict(v, exc)

    def commit(self, db: sqlite_utils.Database, rows: list[Any]) -> None:
        stamp = now_iso()
        values = [self._row(v, stamp) for v in rows]
        if len(values) <= _UPSERT_ROWS and not db.conn.in_transaction:
            # One statement outside a transaction is its own transaction, all or nothing, and takes the write lock
            # (waiting on busy_timeout) as BEGIN IMMEDIATE would: the group commits in one statement instead of three.
            # At --concurrency 256 a group is ~10 rows and each statement gives the GIL back to hundreds of workers
            # and waits to take it again (issue 16.6).
            _upsert_many(db.conn, values)
            return
        with write(db):
            _upsert_many(db.conn, values)


# --------------------------------------------------------------------------- import / export


class VerdictImportRow(BaseModel):
    """A verdict as exported and imported (`judgecal import verdicts` / `export verdicts`), so a team can bring in
    the verdicts of a judge it runs elsewhere. Give `rubric` (name) and/or `rubric_sha256`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_record_id: str = Field(min_length=1)
    constraint_id: str = Field(min_length=1)
    rubric: str | None = Field(default=None, min_length=1)
    rubric_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    # The rubric's version in the exporting project: rubrics new to the project are created in this order, so a
    # revision stays a revision of its parent (without it, the order the shas first appear in the file decided).
    rubric_version: int | None = Field(default=None, ge=1, le=SQLITE_INT_MAX)
    judge_model: str = Field(min_length=1)
    repeat: int = Field(default=0, ge=0, le=SQLITE_INT_MAX)
    label: str | None = None
    reason: str | None = None
    error: str | None = None
    error_detail: str | None = None
    # The judge's answer as it came (`export verdicts` writes it; a round trip kept every field but this one, a
    # review in wave 18). Not compared with a stored verdict's: an export without it re-imports as before.
    raw: str | None = None
    input_tokens: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    output_tokens: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    latency_ms: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    # When the judge gave it (exported; default: the import's time). A rubric version the import creates is created
    # at its earliest verdict's time: a version is verified only on labels made after it was created (the gate), so
    # a judge run that predates the labels keeps them all when its verdicts move to another project.
    created_at: datetime | None = None
    # The content hash of the run record's eval item in the exporting project (`export verdicts` writes it), checked
    # as a label row's is: a verdict given on another text of the item is refused.
    item_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    # And of the run record's answer (`output_sha256`), checked as a label row's is.
    output_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _shape(self) -> VerdictImportRow:
        if self.rubric is None and self.rubric_sha256 is None:
            raise ValueError("give 'rubric' (name) and/or 'rubric_sha256'")
        if (self.label is None) == (self.error is None):
            raise ValueError("give exactly one of 'label' and 'error' (an error is never a label)")
        return self


def unknown_rubric_sha256(name: str) -> str:
    """Stand-in version id of a rubric known only by name (its template was not imported)."""
    return hashlib.sha256(f"judgecal:unknown-template:{name}".encode()).hexdigest()


def import_verdicts(db: sqlite_utils.Database,
                    source: Parsed[VerdictImportRow] | Iterable[Parsed[VerdictImportRow]], *,
                    templates: Iterable[Any] = ()) -> dict[str, int]:
    """Insert imported verdicts (a whole `Parsed` or a `stream_rows` stream of chunks) in one write transaction: all
    or nothing, memory bounded by the chunk. A row identical to a stored verdict is skipped; one that differs from it
    is an error. Rubrics unknown to the project are created: with their template when `templates` (rubric versions
    with name, template, sha256, note; oldest first) has it, else as "template not known". Stored rows are read
    inside the write transaction, so two concurrent imports of one file cannot collide."""
    conn = db.conn
    problems = ProblemLog()
    seen = SeenKeys()
    known = {r.sha256: r for r in list_rubrics(db)}
    templates = list(templates)
    names = {t.sha256: t.name for t in templates} | {sha: r.name for sha, r in known.items()}
    by_name: dict[str, dict[int, RubricRow]] = {}  # name -> version -> the stored rubric
    for r in known.values():
        by_name.setdefault(r.name, {})[r.version] = r
    to_create: dict[str, str] = {}  # sha -> name
    version_of: dict[str, int] = {}  # sha -> the lowest rubric_version the file gives it
    born: dict[str, str] = {}  # sha -> the earliest stamp of its rows in the file (each given or the import's)
    inserted = unchanged = 0
    begun: set[tuple[Any, ...]] = set()  # the groups this import's rows began (none of their verdicts stored before)
    stamp = now_iso()
    try:
        with write(db):
            # New rubrics are created at the end, in version order, once the whole file has named them; their
            # verdicts go in first, so the foreign key is checked at COMMIT.
            conn.execute("PRAGMA defer_foreign_keys = ON")
            for parsed in chunks(source):
                problems.extend(parsed.problems)
                label_sets = pair_label_sets(db, [(r.run_record_id, r.constraint_id) for r in parsed.rows])
                problems.extend(validate_label_rows(parsed, label_sets, allow_missing_label=True, db=db))
                shas = [_rubric_of(parsed, index, row, known, names, by_name, to_create, version_of, problems)
                        for index, row in enumerate(parsed.rows)]
                keys = [(row.run_record_id, row.constraint_id, sha, row.judge_model, row.repeat)
                        for row, sha in zip(parsed.rows, shas)]
                firsts = seen.first_lines([json.dumps(k) for k in keys], parsed.lines)
                problems.extend(parsed.problem(index, "repeat", "duplicate verdict (same pair, rubric, model and "
                                                                f"repeat as line {first})")
                                for index, first in enumerate(firsts) if first is not None)
                stored = _stored_verdicts(conn, sorted({k[0] for k in keys}))
                # (pair, rubric version, judge model) groups with verdicts stored before this import (a group this
                # file began in an earlier chunk takes its own later repeats: a review, wave 15)
                judged = {k[:4] for k in stored} - begun
                labelled = _carrying_labels(conn, {k[:2] for k in keys if k not in stored and k[:4] in judged})
                fresh = []
                for index, (row, key) in enumerate(zip(parsed.rows, keys)):
                    if firsts[index] is not None:
                        continue
                    values = (row.label, row.reason, row.error, row.error_detail, row.input_tokens,
                              row.output_tokens, row.latency_ms)
                    if key in stored:
                        if stored[key] == values:
                            unchanged += 1
                        else:
                            problems.extend([parsed.problem(index, "label", "a different verdict for this pair, "
                                                                            "rubric, model and repeat is already stored")])
                        continue
                    if key[:4] in judged and key[:2] in labelled:
                        # More repeats of a judge on a pair humans have labelled: the majority would follow whatever
                        # answered them, and a judge re-run after reading the labels passed as the judge that was
                        # labelled against (a review, wave 15: a re-exported Langfuse file took kappa 0.600 to 1.000)
                        problems.extend([parsed.problem(index, "repeat", (
                            f"run record {key[0]!r} × {key[1]!r} already carries human labels and verdicts of "
                            f"{key[3]} under this rubric version: repeats added after the labels could have been "
                            "made after reading them; import them as another rubric version (another `rubric` name "
                            "or `rubric_sha256`), or judge them with `judgecal judge`"))])
                        continue
                    at = stamp if row.created_at is None else iso_utc(row.created_at)
                    # (one spelling, UTC to the millisecond: the texts order as the moments do)
                    if key[2] in to_create and (key[2] not in born or at < born[key[2]]):
                        born[key[2]] = at
                    fresh.append((*key, row.label, row.reason, row.error, row.error_detail, row.raw,
                                  row.input_tokens, row.output_tokens, row.latency_ms, import_batch_id(parsed.file), at))
                begun.update(row[:4] for row in fresh if row[:4] not in judged)
                if problems.total:
                    continue  # the file is refused: read on only to report every problem
                _upsert_many(conn, fresh, tail="")
                inserted += len(fresh)
            problems.raise_if_any()  # inside the transaction: raising rolls back every chunk already written
            # Rubrics the file brings: shipped templates first (in their own order), then the rest in the exporting
            # project's version order (file order where no version is given).
            shipped = [t for t in templates if t.sha256 in to_create]
            for t in shipped:
                store_rubric(db, t.name, t.template, t.sha256, t.note, created_at=born.get(t.sha256))
            order = {sha: i for i, sha in enumerate(to_create)}
            rest = {sha: name for sha, name in to_create.items() if sha not in {t.sha256 for t in shipped}}
            for sha, name in sorted(rest.items(), key=lambda kv: (version_of.get(kv[0], math.inf), order[kv[0]])):
                store_rubric(db, name, "", sha, note="imported: the template of this rubric is not known to the project",
                             created_at=born.get(sha))
    finally:
        seen.close()
    return {"inserted": inserted, "unchanged": unchanged}


def _rubric_of(parsed: Parsed[VerdictImportRow], index: int, row: VerdictImportRow, known: dict[str, RubricRow],
               names: dict[str, str], by_name: dict[str, dict[int, RubricRow]], to_create: dict[str, str],
               version_of: dict[str, int], problems: ProblemLog) -> str:
    """The rubric version a row names: its sha256; else, by name, the project's version of that name: the one
    `rubric_version` numbers (this project's numbering: a row without a sha256 is written by hand), or the only one.
    A name with several stored versions and no `rubric_version`, or a `rubric_version` the name does not have here,
    is a problem: the row's verdict would be credited to a rubric text it may not have been given under (the latest
    was taken before). Records rubrics new to the project in `to_create` / `version_of` and the rows that contradict
    them in `problems`."""
    sha = row.rubric_sha256
    if sha is None:
        stored = by_name.get(row.rubric, {})  # (the model requires a name where the sha256 is missing)
        if not stored:
            sha = unknown_rubric_sha256(row.rubric)
        elif row.rubric_version is not None:
            if row.rubric_version not in stored:
                problems.extend([parsed.problem(index, "rubric_version", (
                    f"rubric {row.rubric!r} has no version {row.rubric_version} in the project (versions "
                    f"{', '.join(map(str, sorted(stored)))}): give its rubric_sha256"))])
                return unknown_rubric_sha256(row.rubric)
            sha = stored[row.rubric_version].sha256
        elif len(stored) > 1:
            problems.extend([parsed.problem(index, "rubric", (
                f"rubric {row.rubric!r} has versions {', '.join(map(str, sorted(stored)))} in the project: give "
                "rubric_version or rubric_sha256 (the verdict is not credited to the latest by guess)"))])
            return unknown_rubric_sha256(row.rubric)
        else:
            sha = next(iter(stored.values())).sha256
    if sha in names and row.rubric is not None and names[sha] != row.rubric:
        problems.extend([parsed.problem(index, "rubric", f"rubric {sha[:12]} is named {names[sha]!r} in the project, not {row.rubric!r}")])
    if sha not in known:
        name = row.rubric or names.get(sha) or f"imported-{sha[:8]}"
        if to_create.setdefault(sha, name) != name:
            problems.extend([parsed.problem(index, "rubric", f"rubric {sha[:12]} is given two names: {to_create[sha]!r} and {name!r}")])
        if row.rubric_version is not None:
            if version_of.setdefault(sha, row.rubric_version) != row.rubric_version:
                problems.extend([parsed.problem(index, "rubric_version", f"rubric {sha[:12]} is given two versions: "
                                                f"{version_of[sha]} and {row.rubric_version}")])
    return sha


def _carrying_labels(conn: Any, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs among `pairs` that carry a human label event (the pair index serves it)."""
    if not pairs:
        return set()
    return {tuple(row) for row in conn.execute(
        f"SELECT DISTINCT run_record_id, constraint_id FROM human_labels WHERE {PAIRS_IN_JSON}",
        [json.dumps(sorted(pairs))])}


def _stored_verdicts(conn: Any, run_record_ids: list[str]) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """The stored verdicts of these run records by key (pair, rubric, model, repeat) -> the values an import row
    must match. Asked per chunk, so memory follows the chunk."""
    out: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for start in range(0, len(run_record_ids), 900):
        part = run_record_ids[start:start + 900]
        for row in conn.execute(
                "SELECT run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason, error,"
                " error_detail, input_tokens, output_tokens, latency_ms FROM verdicts"
                f" WHERE run_record_id IN ({','.join('?' * len(part))})", part):
            out[tuple(row[:5])] = tuple(row[5:])
    return out


EXPORT_FIELDS = (
    "run_record_id", "constraint_id", "rubric", "rubric_sha256", "rubric_version", "judge_model", "repeat", "label", "reason", "error",
    "error_detail", "raw", "input_tokens", "output_tokens", "latency_ms", "created_at", "item_sha256", "output_sha256",
)



def verdict_export_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    """Every verdict (and error row) in the import format, in a stable order."""
    sql = """
        SELECT v.*, r.name AS rubric, r.version AS rubric_version, ei.content_sha256 AS item_sha256
        FROM verdicts v JOIN rubrics r ON r.sha256 = v.rubric_sha256
        LEFT JOIN run_records rr ON rr.id = v.run_record_id LEFT JOIN eval_items ei ON ei.id = rr.item_id
        ORDER BY rr.seq, v.constraint_id, r.name, r.version, v.judge_model, v.repeat
    """
    answer = output_hash_of(db)  # the rows come record by record (`seq` order): each record's answer hashed once
    for row in db.query(sql):
        row["output_sha256"] = answer(row["run_record_id"])
        yield {k: row[k] for k in EXPORT_FIELDS if row[k] is not None}


# --------------------------------------------------------------------------- self-consistency


class ConsistencyRow(NamedTuple):
    """Self-consistency of one pair under one rubric version and judge model.

    `majority` is None when no label is strictly the most frequent (a tie) or when every repeat failed. `flip_rate` = share of labelled repeats that disagree with the modal label.
    """

    run_record_id: str
    constraint_id: str
    rubric_sha256: str
    judge_model: str
    majority: str | None
    n_repeats: int
    n_errors: int
    flipped: bool
    tie: bool
    flip_rate: float
    labels: tuple[str, ...]


def judge_consistency(db: sqlite_utils.Database, rubric_sha256: str | None = None,
                      judge_model: str | None = None) -> list[ConsistencyRow]:
    """One row per (pair, rubric version, judge model): the majority label over the repeats (a tie gives no
    majority and is flagged), error count, and whether the repeats disagree (`flipped`: review these first)."""
    where, params = [], []
    if rubric_sha256 is not None:
        where.append("rubric_sha256 = ?")
        params.append(rubric_sha256)
    if judge_model is not None:
        where.append("judge_model = ?")
        params.append(judge_model)
    sql = ("SELECT run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error FROM verdicts"
           + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY run_record_id, constraint_id, rubric_sha256, judge_model, repeat")
    groups: dict[tuple[str, str, str, str], list[tuple[str | None, str | None]]] = {}
    for rid, cid, sha, model, _rep, label, error in db.execute(sql, params):
        groups.setdefault((rid, cid, sha, model), []).append((label, error))
    rows = []
    for (rid, cid, sha, model), answers in groups.items():
        labels = tuple(a[0] for a in answers if a[0] is not None)
        n_errors = sum(1 for a in answers if a[0] is None)
        counts = Counter(labels).most_common()
        majority = majority_label(labels)
        tie = majority is None and len(counts) > 1
        flip_rate = 1 - counts[0][1] / len(labels) if labels else 0.0
        rows.append(ConsistencyRow(rid, cid, sha, model, majority, len(labels), n_errors, len(counts) > 1, tie,
                                   flip_rate, labels))
    return rows


class ConstraintFlipRate(NamedTuple):
    constraint_id: str
    pairs: int
    flipped: int
    flip_rate: float  # share of pairs whose repeats disagree


def flip_rates(rows: Iterable[ConsistencyRow]) -> list[ConstraintFlipRate]:
    """Per constraint id: how many pairs (with at least two labelled repeats) flipped between repeats."""
    acc: dict[str, list[int]] = {}
    for r in rows:
        if r.n_repeats < 2:
            continue
        a = acc.setdefault(r.constraint_id, [0, 0])
        a[0] += 1
        a[1] += int(r.flipped)
    return [ConstraintFlipRate(cid, n, f, f / n) for cid, (n, f) in sorted(acc.items())]


__all__ = [
    "LLMBAR_BATCH_PREFIX", "import_batch_id", "verdict_lease_key",
    "ConsistencyRow", "ConstraintFlipRate", "EXPORT_FIELDS", "SqliteVerdictSink",
    "VerdictImportRow", "done_verdict_keys", "flip_rates",
    "import_verdicts", "judge_consistency",
    "unknown_rubric_sha256", "verdict_export_rows",
]
