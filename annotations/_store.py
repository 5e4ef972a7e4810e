"""The project store: one SQLite file per project, opened per unit of work.

WAL lets reviewers read while a judge batch writes; the busy timeout makes concurrent writers wait instead of
failing. Schema changes are migrations appended to MIGRATIONS in order and never edited once released.
Every multi-row write runs inside `write(db)`: one `BEGIN IMMEDIATE` transaction, so a failed import changes
nothing and two writers never deadlock on a lock upgrade.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import sqlite_utils

DEFAULT_DB = Path("data") / "judgecal.db"
BUSY_TIMEOUT_MS = 60_000


def default_db_path() -> Path:
    """`JUDGECAL_DB` from the environment, else data/judgecal.db."""
    return Path(os.environ.get("JUDGECAL_DB") or DEFAULT_DB)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Migration(NamedTuple):
    name: str
    apply: Callable[[sqlite_utils.Database], None]


def _execute_script(db: sqlite_utils.Database, script: str) -> None:
    # Not conn.executescript(): it COMMITs any open transaction first, which would split a migration.
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            db.conn.execute(buffer)
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete SQL statement in migration: {buffer[:80]!r}")


def _m001_core(db: sqlite_utils.Database) -> None:
    _execute_script(db,
        """
        CREATE TABLE eval_items (
            id TEXT PRIMARY KEY,
            instruction TEXT NOT NULL,
            input TEXT,                -- JSON
            reference TEXT,
            source TEXT,
            scenario TEXT,
            created_at TEXT,
            derived_from TEXT,
            tags TEXT NOT NULL,        -- JSON array
            split TEXT,
            fixtures TEXT,             -- JSON
            content_sha256 TEXT NOT NULL,
            seq INTEGER NOT NULL       -- import order, so exports keep the file order
        );
        CREATE TABLE constraints (
            item_id TEXT NOT NULL REFERENCES eval_items(id),
            id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            text TEXT NOT NULL,
            type TEXT NOT NULL,
            severity TEXT NOT NULL,
            check_json TEXT,           -- NULL = semantic
            labels TEXT NOT NULL,      -- JSON array
            PRIMARY KEY (item_id, id)
        );
        CREATE INDEX constraints_semantic ON constraints(item_id) WHERE check_json IS NULL;
        CREATE TABLE run_records (
            id TEXT PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES eval_items(id),
            model TEXT NOT NULL,
            prompt_version TEXT,
            run_id TEXT,
            output TEXT,
            trajectory TEXT,           -- JSON
            tool_calls TEXT,           -- JSON
            input_tokens INTEGER,
            output_tokens INTEGER,
            latency_ms REAL,
            rounds INTEGER,
            error TEXT,
            evalset_sha256 TEXT,
            created_at TEXT,
            seq INTEGER NOT NULL
        );
        CREATE INDEX run_records_item ON run_records(item_id);
        CREATE INDEX run_records_model ON run_records(model, run_id);
        CREATE TABLE check_results (
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            checker TEXT NOT NULL,
            loose INTEGER NOT NULL,
            passed INTEGER NOT NULL,
            detail TEXT NOT NULL,
            bad_steps INTEGER NOT NULL,
            n_steps INTEGER NOT NULL,
            checked_at TEXT NOT NULL,
            PRIMARY KEY (run_record_id, constraint_id)
        );
        CREATE TABLE rubrics (
            sha256 TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            template TEXT NOT NULL,
            parent_sha256 TEXT,
            note TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (name, version)
        );
        CREATE TABLE verdicts (
            id INTEGER PRIMARY KEY,
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            rubric_sha256 TEXT NOT NULL REFERENCES rubrics(sha256),
            judge_model TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            label TEXT,                -- NULL when error is set: an error is never a label
            reason TEXT,
            error TEXT,                -- cause: timeout, rate_limit, server_error, unparsable, bad_label, refusal, ...
            error_detail TEXT,
            raw TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            latency_ms REAL,
            batch_id TEXT,
            created_at TEXT NOT NULL,
            CHECK ((label IS NULL) <> (error IS NULL)),
            UNIQUE (run_record_id, constraint_id, rubric_sha256, judge_model, repeat)
        );
        CREATE INDEX verdicts_pair ON verdicts(run_record_id, constraint_id);
        CREATE TABLE human_labels (
            id INTEGER PRIMARY KEY,
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            event TEXT NOT NULL,       -- label | change | undo  (corrections are new rows; history is kept)
            label TEXT,                -- NULL for undo
            note TEXT,
            failure_mode TEXT,
            seconds_spent REAL,
            rubric_version_seen TEXT,
            blind INTEGER NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX human_labels_pair ON human_labels(run_record_id, constraint_id, reviewer);
        CREATE INDEX human_labels_reviewer ON human_labels(reviewer, id);
        CREATE TABLE samples (
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            rule TEXT NOT NULL,        -- random | targeted | overlap
            stratum TEXT NOT NULL,
            reason TEXT,
            seed INTEGER,
            drawn_at TEXT NOT NULL,
            PRIMARY KEY (run_record_id, constraint_id, rule)
        );
        CREATE INDEX samples_stratum ON samples(stratum, rule);
        CREATE TABLE batches (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,        -- judge | run
            settings TEXT NOT NULL,    -- JSON, never the API key
            status TEXT NOT NULL,      -- running | done | interrupted
            started_at TEXT NOT NULL,
            finished_at TEXT,
            summary TEXT               -- JSON totals
        );
        CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """
    )


MIGRATIONS: tuple[Migration, ...] = (Migration("001_core", _m001_core),)


def connect(path: str | Path | None = None) -> sqlite_utils.Database:
    """Open (creating if needed) the project database at `path` and bring its schema up to date.

    Use one connection per unit of work and close it (`with closing(connect(p))` or `unit_of_work`); sqlite
    connections must not cross threads.
    """
    path = Path(path) if path is not None else default_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: we issue BEGIN IMMEDIATE ourselves (see write()); sqlite3's implicit deferred
    # transactions would make concurrent writers fail on lock upgrade instead of waiting.
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    db = sqlite_utils.Database(conn)
    migrate(db)
    return db


@contextmanager
def unit_of_work(path: str | Path | None = None) -> Iterator[sqlite_utils.Database]:
    db = connect(path)
    try:
        yield db
    finally:
        db.close()


@contextmanager
def write(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One IMMEDIATE transaction: all or nothing. Nested use joins the outer transaction."""
    conn = db.conn
    if conn.in_transaction:
        yield db
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Apply the migrations this database has not seen, in order. Returns their names."""
    conn = db.conn
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    if len(done) == len(MIGRATIONS):
        return []
    applied = []
    with write(db):
        # Re-read inside the write lock: another process may have migrated meanwhile.
        done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
        for migration in MIGRATIONS:
            if migration.name in done:
                continue
            migration.apply(db)
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (migration.name, now_iso()))
            applied.append(migration.name)
    return applied


def table_counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Row count of every table (tests use it to show a failed import changed nothing)."""
    return {t: db.execute(f"SELECT count(*) FROM [{t}]").fetchone()[0] for t in db.table_names()}


def _m002_review(db: sqlite_utils.Database) -> None:
    # sample_strata: the quota of each stratum as of the last draw, so the review page shows progress per stratum
    # without re-counting every verdict on each rerun. The partial index serves "judge errors by cause" (Runs page).
    _execute_script(db,
        """
        CREATE TABLE sample_strata (
            stratum TEXT PRIMARY KEY,  -- constraint_id|model|rubric_sha256[:12] (or |unjudged)
            constraint_id TEXT NOT NULL,
            model TEXT NOT NULL,
            rubric_sha256 TEXT,        -- NULL: pairs no rubric has judged yet
            judged INTEGER NOT NULL,
            sampled INTEGER NOT NULL,
            needed INTEGER NOT NULL,
            rate REAL NOT NULL,
            drawn_at TEXT NOT NULL
        );
        CREATE INDEX verdicts_errors ON verdicts(batch_id, error) WHERE error IS NOT NULL;
        CREATE INDEX batches_started ON batches(started_at);
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("002_review", _m002_review),)


def _m003_calibration(db: sqlite_utils.Database) -> None:
    # adjudications: a reviewer's decision on a judge-human disagreement (history kept; the latest row per pair
    # stands). evalset_feedback: provenance of eval items created from calibration (one row per created item).
    _execute_script(db,
        """
        CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY,
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            rubric_sha256 TEXT,
            judge_model TEXT,
            decision TEXT NOT NULL CHECK (decision IN
                ('judge_wrong', 'human_wrong', 'rubric_ambiguous', 'constraint_ambiguous')),
            note TEXT,
            who TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX adjudications_pair ON adjudications(run_record_id, constraint_id);
        CREATE TABLE evalset_feedback (
            item_id TEXT PRIMARY KEY REFERENCES eval_items(id),
            source_item_id TEXT NOT NULL,
            run_record_id TEXT NOT NULL,
            constraint_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            who TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("003_calibration", _m003_calibration),)


def _m005_batch_leases(db: sqlite_utils.Database) -> None:
    # pid/host/heartbeat_at: a batch SIGKILLed while `running` is recognised as dead by the next batch (its process is
    # gone on this host, or its heartbeat is stale). leases: which running batch is asking for which verdict (or run
    # task), so a second batch on the same pairs takes only what no live batch holds.
    _execute_script(db,
        """
        ALTER TABLE batches ADD COLUMN pid INTEGER;
        ALTER TABLE batches ADD COLUMN host TEXT;
        ALTER TABLE batches ADD COLUMN heartbeat_at REAL;    -- unix seconds, refreshed while the batch runs
        CREATE INDEX batches_status ON batches(status);
        CREATE TABLE leases (
            key TEXT PRIMARY KEY,      -- JSON of the claimed key: a verdict key, or a run record id
            batch_id TEXT NOT NULL,
            expires_at REAL NOT NULL   -- unix seconds; pushed forward by the batch's heartbeat
        );
        CREATE INDEX leases_batch ON leases(batch_id);
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("005_batch_leases", _m005_batch_leases),)
