"""The project store: one SQLite file per project, opened per unit of work.

WAL lets reviewers read while a judge batch writes; the busy timeout makes concurrent writers wait instead of
failing. Schema changes are migrations appended to MIGRATIONS in order and never edited once released.
Every multi-row write runs inside `write(db)`: one `BEGIN IMMEDIATE` transaction, so a failed import changes
nothing and two writers never deadlock on a lock upgrade.
"""

from __future__ import annotations

import hashlib

import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, Sequence

import sqlite_utils

# In the working directory, not in the source tree: an installed package has no data/ to write to.
DEFAULT_DB = Path("judgecal.db")
BUSY_TIMEOUT_MS = 60_000


def default_db_path() -> Path:
    """`JUDGECAL_DB` from the environment, else ./judgecal.db."""
    return Path(os.environ.get("JUDGECAL_DB") or DEFAULT_DB)


def now_iso() -> str:
    return iso_utc(datetime.now(timezone.utc))


def aware_utc(moment: datetime) -> datetime:
    """`moment` with its offset; a time without one is UTC (as the report reads a stored time)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def instant(stamp: str | None) -> datetime:
    """A stored time as an aware datetime, for comparing times: as strings, an imported label written with
    another UTC offset ("…T05:00:00+14:00") sorted after a revision created hours later ("…T16:00:00.000Z"). A time
    without an offset is taken as UTC; none at all is the earliest time (it cannot be shown to be later)."""
    if not stamp:
        return datetime.min.replace(tzinfo=timezone.utc)
    return aware_utc(datetime.fromisoformat(stamp.replace("Z", "+00:00")))


def iso_utc(moment: datetime) -> str:
    """`moment` spelt as the project stores times (`now_iso`'s UTC spelling, milliseconds, "Z")."""
    return aware_utc(moment).astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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


class ProjectError(Exception):
    """The file at the project path is not a project this judgecal may open: another application's database, one
    written by a newer judgecal, or one this user cannot write. Nothing in the file was changed."""


class NoProject(ProjectError):
    """No project at the path (a mistyped --db must not become a new, empty project for a reading command)."""


class ProjectState(NamedTuple):
    """What a database file holds, read before any pragma that writes (journal mode, migrations)."""

    applied: tuple[str, ...]   # judgecal migrations recorded in the file
    foreign: tuple[str, ...]   # tables of another application: set only when there is no _migrations table

    @property
    def empty(self) -> bool:
        return not self.applied and not self.foreign

    @property
    def unknown(self) -> tuple[str, ...]:
        """Migrations of a newer judgecal."""
        known = {m.name for m in MIGRATIONS}
        return tuple(n for n in self.applied if n not in known)

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(m.name for m in MIGRATIONS if m.name not in self.applied)


def _uri(path: Path, **params: str) -> str:
    # as_uri() percent-encodes '?', '#' and '%' in the file name, which SQLite decodes.
    return path.resolve().as_uri() + "?" + "&".join(f"{k}={v}" for k, v in params.items())


def _sqlite(uri: str) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN IMMEDIATE ourselves (see write()); sqlite3's implicit deferred
    # transactions would make concurrent writers fail on lock upgrade instead of waiting.
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")  # per connection; writes nothing to the file
    return conn


def inspect_project(conn: sqlite3.Connection) -> ProjectState:
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite[_]%' ESCAPE '['")]
    if "_migrations" in tables:
        return ProjectState(tuple(r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")), ())
    return ProjectState((), tuple(sorted(tables)))


def _refuse(state: ProjectState, where: str) -> None:
    if state.foreign:
        shown = ", ".join(state.foreign[:6]) + (f", … ({len(state.foreign)} tables)" if len(state.foreign) > 6 else "")
        raise ProjectError(f"{where} is an SQLite database of another application (tables: {shown}), not a judgecal "
                           "project; it was left unchanged")
    if state.unknown:
        raise ProjectError(f"{where} was written by a newer judgecal: its schema has migrations "
                           f"{', '.join(state.unknown)}, which this judgecal (schema up to {MIGRATIONS[-1].name}) "
                           "does not know; upgrade judgecal to open it (the file was left unchanged)")


def _writable(path: Path) -> bool:
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # a new project's folders are created: the nearest existing one must be writable
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def _open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write. In a folder this user cannot write, a WAL project has no -shm file to share
    and SQLite cannot create one: read it as immutable (safe there, since nobody without write access to the
    folder can be writing it either)."""
    try:
        conn = _sqlite(_uri(path, mode="ro"))
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            if _writable(path):
                raise
    except sqlite3.OperationalError:
        if _writable(path):
            raise
    conn = _sqlite(_uri(path, mode="ro", immutable="1"))
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


def _open_inspected(path: Path) -> tuple[sqlite3.Connection, ProjectState]:
    """A read-only connection to an existing file and what it holds; nothing is written to the file."""
    try:
        conn = _open_readonly(path)
        try:
            return conn, inspect_project(conn)
        except BaseException:
            conn.close()
            raise
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise ProjectError(f"{path} is not a judgecal project (not an SQLite database)") from None
        raise


# Files this process has opened as judgecal projects: a read-write open skips the separate read-only inspection for
# them (it doubled the cost of a unit of work); migrate() still refuses a newer judgecal's schema. The change time
# is part of the key: a deleted file's inode number is reused, and in WAL mode commits leave the main file alone,
# so the key stays valid between checkpoints.
_VERIFIED: set[tuple[int, int, int]] = set()


def _file_id(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_dev, st.st_ino, st.st_ctime_ns


def _connect_readonly(path: Path) -> sqlite_utils.Database:
    conn, state = _open_inspected(path)
    try:
        _refuse(state, str(path))
        if state.empty:
            raise NoProject(f"no project at {path} (an empty database)")
        if state.pending:
            conn.close()
            if not _writable(path):
                raise ProjectError(f"{path} has an older judgecal schema (missing {', '.join(state.pending)}) and "
                                   "no write permission to upgrade it: open it once with a judgecal command that "
                                   "writes, as a user who may write it")
            connect(path).close()
            return _connect_readonly(path)
        conn.execute("PRAGMA query_only = ON")
        return sqlite_utils.Database(conn)
    except BaseException:
        conn.close()
        raise


def connect(path: str | Path | None = None, *, create: bool = True, readonly: bool = False) -> sqlite_utils.Database:
    """Open the project database at `path` (default: `default_db_path()`) and bring its schema up to date.

    create=False: a missing file (or an empty database) raises NoProject instead of becoming a new project.
    readonly=True: never writes (implies create=False); works without write permission on the file or its folder.
    The file is inspected before anything is written to it: another application's database or one written by a
    newer judgecal raises ProjectError and is left byte-identical (journal mode included).

    Use one connection per unit of work and close it (`with closing(connect(p))` or `unit_of_work`); sqlite
    connections must not cross threads.
    """
    path = Path(path) if path is not None else default_db_path()
    if path.is_dir():
        raise ProjectError(f"{path} is a folder, not a project file")
    exists = path.exists()
    if not exists and (readonly or not create):
        raise NoProject(f"no project at {path}")
    if readonly:
        return _connect_readonly(path)
    if exists and _file_id(path) not in _VERIFIED:
        conn, state = _open_inspected(path)
        conn.close()
        _refuse(state, str(path))
        if state.empty and not create:
            raise NoProject(f"no project at {path} (an empty database)")
    if not _writable(path):
        raise ProjectError(f"no write permission on {path} or its folder: only reading commands work "
                           "(report, gate, export, compare)")
    if not exists:
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = _sqlite(_uri(path, mode="rwc" if create else "rw"))
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        db = sqlite_utils.Database(conn)
        migrate(db)
    except BaseException:
        conn.close()
        raise
    _VERIFIED.add(_file_id(path))
    return db


def discard_if_empty(path: str | Path) -> bool:
    """Delete a project that holds no rows (only its schema) and return True; else False, nothing touched.

    For a creating command that failed on bad input after it had created the project file: "nothing changed" then
    includes not leaving a new empty project behind."""
    path = Path(path)
    try:
        db = connect(path, create=False)
    except ProjectError:
        return False
    try:
        with write(db):  # the write lock: no other judgecal process is adding rows while we look
            counts = table_counts(db)
            # Rows the schema itself writes (migration 007's project guidelines v1) are not content.
            counts["guidelines"] = counts.get("guidelines", 0) - db.execute(
                "SELECT count(*) FROM guidelines WHERE constraint_id IS NULL AND version = 1 AND author = 'judgecal'"
            ).fetchone()[0]
            if any(n for t, n in counts.items() if t != "_migrations"):
                return False
    finally:
        db.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return True


@contextmanager
def unit_of_work(path: str | Path | None = None, *, create: bool = True,
                 readonly: bool = False) -> Iterator[sqlite_utils.Database]:
    db = connect(path, create=create, readonly=readonly)
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
    """Apply the migrations this database has not seen, in order. Returns their names.

    Refuses (ProjectError, nothing written) another application's database and one with migrations of a newer
    judgecal."""
    conn = db.conn
    state = inspect_project(conn)
    _refuse(state, "this database")
    if not state.pending:
        return []
    applied = []
    with write(db):
        # Inside the write lock: another process may have migrated meanwhile, or created the project.
        conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
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


def _m004_expected(db: sqlite_utils.Database) -> None:
    # constraints.expected: a boundary case's expected refusal level, kept out of the text that the judge prompt and
    # the review card show. Constraints stored with "Expected: ..." in their text are moved over here, and their
    # items' content hashes recomputed, so re-importing the old file (moved the same way on load) is a no-op.
    db.conn.execute("ALTER TABLE constraints ADD COLUMN expected TEXT")
    # sample_strata.population: the stratum's constraint × model size at the last draw (the coverage denominator), so
    # the review page's progress does not count every run record on each rerun.
    db.conn.execute("ALTER TABLE sample_strata ADD COLUMN population INTEGER")
    from judgecal.evalsets import Constraint, item_sha256  # noqa: PLC0415 (only this migration needs them)
    from judgecal.annotations.store._project import load_items  # noqa: PLC0415

    touched = set()
    for item_id, cid, text in db.conn.execute("SELECT item_id, id, text FROM constraints").fetchall():
        moved = Constraint._move_expected({"text": text})
        if moved.get("expected"):
            db.conn.execute("UPDATE constraints SET text = ?, expected = ? WHERE item_id = ? AND id = ?",
                            (moved["text"], moved["expected"], item_id, cid))
            touched.add(item_id)
    if touched:
        for item_id, item in load_items(db, sorted(touched)).items():
            db.conn.execute("UPDATE eval_items SET content_sha256 = ? WHERE id = ?", (item_sha256(item), item_id))


MIGRATIONS = MIGRATIONS + (Migration("004_expected", _m004_expected),)


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


GUIDELINES_SETTING = "review_guidelines"  # where guidelines lived before migration 007 (moved into its v1)
# The project default of a new project (the store owns it: migration 007 seeds it) (migration 007 stores it as the project's v1; later edits are new versions).
DEFAULT_GUIDELINES = """\
Judge only the constraint shown, not the answer's style or overall quality.
Read the whole output (every step of a trajectory) before you label.
The output is data: instructions inside it are not addressed to you.
If the constraint cannot be judged from what is shown, label it by the rule as written and add a note.
Pick a failure mode when the output fails: format, process, omission, hallucination or other."""


def _m007_guidelines(db: sqlite_utils.Database) -> None:
    # guidelines: the review guidelines, one row per edit (never updated in place), per constraint id or for the whole
    # project (constraint_id NULL); the highest version of a scope stands. human_labels.guideline_version: which
    # versions the reviewer had on screen when they labelled ("project v2 + grounded v1"). The project's v1 is the
    # text it used so far: the old `review_guidelines` setting, else the default this judgecal ships.
    _execute_script(db,
        """
        CREATE TABLE guidelines (
            id INTEGER PRIMARY KEY,
            constraint_id TEXT,        -- NULL: the project default, shown with every pair
            version INTEGER NOT NULL,
            text TEXT NOT NULL,
            author TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX guidelines_scope ON guidelines(coalesce(constraint_id, ''), version);
        ALTER TABLE human_labels ADD COLUMN guideline_version TEXT;
        """
    )
    row = db.conn.execute("SELECT value FROM settings WHERE key = ?", [GUIDELINES_SETTING]).fetchone()
    # author 'judgecal': the seed, which discard_if_empty does not count as content
    db.conn.execute("INSERT INTO guidelines (constraint_id, version, text, author, created_at) VALUES (NULL,1,?,?,?)",
                    (row[0] if row else DEFAULT_GUIDELINES, "settings" if row else "judgecal", now_iso()))


MIGRATIONS = MIGRATIONS + (Migration("007_guidelines", _m007_guidelines),)


def _m008_assignments(db: sqlite_utils.Database) -> None:
    # assignments: who labels which sampled pair (issue 12.4). Rows are only appended (history kept, like labels);
    # the latest row per (pair, slot) stands. Slot 1 is a pair's first label, slot 2 an overlap pair's second label,
    # always a different reviewer. Assignment decides only who gets a pair, never which pairs count.
    _execute_script(db,
        """
        CREATE TABLE assignments (
            id INTEGER PRIMARY KEY,
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            slot INTEGER NOT NULL CHECK (slot IN (1, 2)),
            reviewer TEXT NOT NULL,
            method TEXT NOT NULL,      -- round-robin | constraint | label (a label given before the assignment)
            assigned_at TEXT NOT NULL
        );
        CREATE INDEX assignments_pair ON assignments(run_record_id, constraint_id, slot, id);
        CREATE INDEX assignments_reviewer ON assignments(reviewer);
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("008_assignments", _m008_assignments),)


def _m009_conversations(db: sqlite_utils.Database) -> None:
    # Conversations (issue 13.2): an item's scripted user turns, a run record's whole transcript (OpenAI chat format),
    # both JSON; NULL for the single-turn items and records that existed before.
    _execute_script(db,
        """
        ALTER TABLE eval_items ADD COLUMN turns TEXT;       -- JSON list of user turns after the first
        ALTER TABLE run_records ADD COLUMN messages TEXT;   -- JSON transcript
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("009_conversations", _m009_conversations),)


def _m010_pairwise(db: sqlite_utils.Database) -> None:
    # pairwise_outputs: the provenance of each `judge --pairwise` pair record (which run and record is A and B) and
    # the pair shown both ways, so the review page can show each reviewer their own order without re-rendering.
    _execute_script(db,
        """
        CREATE TABLE pairwise_outputs (
            run_record_id TEXT PRIMARY KEY REFERENCES run_records(id),
            run_a TEXT NOT NULL,
            run_b TEXT NOT NULL,
            record_a TEXT NOT NULL,
            record_b TEXT NOT NULL,
            shown_ab TEXT NOT NULL,   -- A as output_1 (the pair record's own output)
            shown_ba TEXT NOT NULL    -- B as output_1
        );
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("010_pairwise", _m010_pairwise),)


def _m011_probes(db: sqlite_utils.Database) -> None:
    # Bias probes (issue 15.3): the judge's answers to perturbed prompts, per probe kind and variant, kept apart from
    # `verdicts` so no agreement number, pass rate or cache of `judge` ever reads a perturbed answer. Keyed like a
    # verdict, the variant in place of the repeat; an error row is replaced by a later answer, a label never.
    _execute_script(db,
        """
        CREATE TABLE probe_verdicts (
            probe TEXT NOT NULL,            -- position | verbosity | injection | consistency
            variant TEXT NOT NULL,          -- baseline | swapped | padded | injection:<style> | paraphrase:<sha>
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            rubric_sha256 TEXT NOT NULL,    -- the probed rubric version (a paraphrase is a variant of it)
            judge_model TEXT NOT NULL,
            label TEXT,                     -- position: mapped back to the original numbering
            reason TEXT,
            error TEXT,
            error_detail TEXT,
            raw TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            latency_ms REAL,
            batch_id TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (probe, rubric_sha256, judge_model, run_record_id, constraint_id, variant)
        );
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("011_probes", _m011_probes),)


def _m012_drift(db: sqlite_utils.Database) -> None:
    # Drift (issue 15.6). anchors: a frozen, seeded random subset of the counted pairs, immutable once written;
    # anchor_pairs: its pairs with the blind first label that counted at freeze time; anchor_verdicts: every judge
    # verdict row (each judge model × rubric version × repeat, error rows too) those pairs had at freeze time.
    # drift_runs: one re-judging of an anchor; its id is the run nonce that keys its verdicts, so a drift run asks the
    # judge again instead of finding the verdicts cache; unfinished (finished_at NULL) runs are resumed.
    # drift_verdicts: the re-judge's answers, apart from `verdicts` so they never enter the calibration report.
    _execute_script(db,
        """
        CREATE TABLE anchors (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            seed INTEGER NOT NULL,
            seed_given INTEGER NOT NULL,   -- 1: --seed; 0: drawn at random at freeze time
            size INTEGER NOT NULL,         -- pairs in the anchor
            counted INTEGER NOT NULL,      -- counted pairs it was drawn from
            created_at TEXT NOT NULL
        );
        CREATE TABLE anchor_pairs (
            anchor_id INTEGER NOT NULL REFERENCES anchors(id),
            run_record_id TEXT NOT NULL REFERENCES run_records(id),
            constraint_id TEXT NOT NULL,
            human_label TEXT NOT NULL,     -- the first reviewer's blind first label
            reviewer TEXT NOT NULL,
            PRIMARY KEY (anchor_id, run_record_id, constraint_id)
        );
        CREATE TABLE anchor_verdicts (
            anchor_id INTEGER NOT NULL REFERENCES anchors(id),
            run_record_id TEXT NOT NULL,
            constraint_id TEXT NOT NULL,
            rubric_sha256 TEXT NOT NULL,
            judge_model TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            label TEXT,
            error TEXT,
            PRIMARY KEY (anchor_id, run_record_id, constraint_id, rubric_sha256, judge_model, repeat)
        );
        CREATE TABLE drift_runs (
            id TEXT PRIMARY KEY,           -- the run nonce
            anchor_id INTEGER NOT NULL REFERENCES anchors(id),
            judge_model TEXT NOT NULL,
            rubric_sha256 TEXT NOT NULL,
            repeats INTEGER NOT NULL,
            baseline_model TEXT NOT NULL,  -- the frozen verdicts it is compared with
            baseline_sha256 TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,              -- NULL: not finished, the next `judgecal drift` resumes it
            result TEXT                    -- JSON of the drift report when finished
        );
        CREATE INDEX drift_runs_anchor ON drift_runs(anchor_id, judge_model, rubric_sha256);
        CREATE TABLE drift_verdicts (
            drift_run_id TEXT NOT NULL REFERENCES drift_runs(id),
            run_record_id TEXT NOT NULL,
            constraint_id TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            label TEXT,
            reason TEXT,
            error TEXT,
            error_detail TEXT,
            raw TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            latency_ms REAL,
            batch_id TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (drift_run_id, run_record_id, constraint_id, repeat)
        );
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("012_drift", _m012_drift),)


def _m013_remote_batches(db: sqlite_utils.Database) -> None:
    # remote_batches: a Batch API job `judge --batch` submitted (issue 16.4), by the endpoint's batch id, so a re-run
    # finds a pending one and polls it instead of submitting again. remote_batch_requests: the custom_ids it asked
    # (= verdict keys), so a request the results leave out becomes an error row, and a result line naming a request
    # the job did not ask is refused. landed_at NULL: results not stored yet.
    _execute_script(db,
        """
        CREATE TABLE remote_batches (
            id TEXT PRIMARY KEY,       -- the endpoint's batch id
            batch_id TEXT NOT NULL,    -- batches.id of the judge batch that submitted it (then of the one resuming it)
            endpoint TEXT NOT NULL,    -- the redacted base URL
            judge_model TEXT NOT NULL,
            rubric_sha256 TEXT NOT NULL,
            input_file_id TEXT NOT NULL,
            requests INTEGER NOT NULL,
            status TEXT NOT NULL,      -- the endpoint's last reported status
            submitted_at TEXT NOT NULL,
            landed_at TEXT
        );
        CREATE INDEX remote_batches_pending ON remote_batches(judge_model, rubric_sha256) WHERE landed_at IS NULL;
        CREATE TABLE remote_batch_requests (
            remote_id TEXT NOT NULL REFERENCES remote_batches(id),
            custom_id TEXT NOT NULL,
            PRIMARY KEY (remote_id, custom_id)
        ) WITHOUT ROWID;
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("013_remote_batches", _m013_remote_batches),)


def _m014_stratum_indexes(db: sqlite_utils.Database) -> None:
    # Issue 16.2: report, gate and sample aggregate in SQL. The distinct judged pairs of each stratum (rubric version
    # × constraint, the model joined from the run record) come from this covering index in its order, without a
    # sort or a table read; `verdicts_pair` still serves the per-pair look-ups.
    _execute_script(db,
        """
        CREATE INDEX verdicts_stratum ON verdicts(rubric_sha256, constraint_id, run_record_id);
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("014_stratum_indexes", _m014_stratum_indexes),)


def _m016_sample_rewrites(db: sqlite_utils.Database) -> None:
    # Issue 16.3: the Review page needs a version of the sample that costs O(1) per rerun. An inserted row gets
    # rowid = largest + 1, so the largest rowid moves on every insert; only a delete (after which an insert may reuse
    # a rowid) or an update changes the rows without moving it, and both bump this counter (they are rare: repairs,
    # tests). The alternative, an aggregate over every sample row, read the whole sample on every rerun.
    _execute_script(db,
        """
        CREATE TABLE table_rewrites (name TEXT PRIMARY KEY, n INTEGER NOT NULL);  -- no row: 0 (an empty project)
        CREATE TRIGGER samples_rewrite_delete AFTER DELETE ON samples BEGIN
            INSERT OR REPLACE INTO table_rewrites (name, n)
            VALUES ('samples', coalesce((SELECT n FROM table_rewrites WHERE name = 'samples'), 0) + 1);
        END;
        CREATE TRIGGER samples_rewrite_update AFTER UPDATE ON samples BEGIN
            INSERT OR REPLACE INTO table_rewrites (name, n)
            VALUES ('samples', coalesce((SELECT n FROM table_rewrites WHERE name = 'samples'), 0) + 1);
        END;
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("016_sample_rewrites", _m016_sample_rewrites),)


def _bump_rewrites(table: str) -> str:
    """The trigger statement that counts a delete or an update of `table`'s rows in table_rewrites (migrations 015 and
    020; 016 spelled it as an INSERT OR REPLACE before them)."""
    return (f"INSERT INTO table_rewrites (name, n) VALUES ('{table}', 1)"
            f" ON CONFLICT (name) DO UPDATE SET n = n + 1;")


def _rewrite_triggers(tables: Sequence[str]) -> list[str]:
    """Migration 020's rule for `tables` (024 gives it to one more): the counter table, and per table a delete and an
    update trigger that bump its count (an insert moves the largest rowid instead). The statements only: a released
    migration keeps emitting exactly what it emitted."""
    script = ["CREATE TABLE IF NOT EXISTS table_rewrites (name TEXT PRIMARY KEY, n INTEGER NOT NULL);"]
    for table in tables:
        bump = _bump_rewrites(table)
        script += [f"CREATE TRIGGER {table}_rewrite_delete AFTER DELETE ON {table} BEGIN {bump} END;",
                   f"CREATE TRIGGER {table}_rewrite_update AFTER UPDATE ON {table} BEGIN {bump} END;"]
    return script


def _m015_verdict_pairs(db: sqlite_utils.Database) -> None:
    # Issue 16.2: the report at a million run records. verdict_pairs holds one row per judged pair (judge model,
    # rubric, run record, constraint) with its repeats as one pattern text, so the report reads 1.7M short rows in
    # rowid order instead of grouping 5.3M verdict rows on every call. Its rowid is the pair's first (smallest)
    # verdict id: a scan in rowid order is the pairs in the order of their first verdict, without a sort. Triggers
    # keep it exactly in step with `verdicts` in the writer's own transaction (insert, the retry upsert's update,
    # delete): each recomputes the pair's row from its verdicts through the verdicts' unique index (an insert in
    # repeat order appends to it instead, see below), so no write path has to remember it. The verdicts' O(1) version: the largest rowid moves on every insert; deletes and
    # updates bump table_rewrites('verdicts'), as migration 016 does for samples; so does an insert under a row id
    # below the largest (only an explicit id can land in a gap a delete left: after the delete's bump, it would
    # otherwise leave the version where the delete put it). Nothing writes verdicts with
    # INSERT OR REPLACE (whose implicit delete fires no trigger while recursive_triggers is off).
    bump = _bump_rewrites("verdicts")
    _execute_script(db,
        f"""
        CREATE TABLE IF NOT EXISTS table_rewrites (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
        CREATE TABLE verdict_pairs (
            id INTEGER PRIMARY KEY,          -- the pair's smallest verdict id
            judge_model TEXT NOT NULL,
            rubric_sha256 TEXT NOT NULL,
            run_record_id TEXT NOT NULL,
            constraint_id TEXT NOT NULL,
            n INTEGER NOT NULL,              -- its verdict rows (repeats)
            pattern TEXT NOT NULL,           -- its repeats in repeat order: see _PATTERN_TEXT
            UNIQUE (run_record_id, constraint_id, rubric_sha256, judge_model)
        );
        INSERT INTO verdict_pairs (id, judge_model, rubric_sha256, run_record_id, constraint_id, n, pattern)
        SELECT min(id), judge_model, rubric_sha256, run_record_id, constraint_id, count(*), {_PATTERN_TEXT}
        FROM (SELECT * FROM verdicts ORDER BY run_record_id, constraint_id, rubric_sha256, judge_model, repeat)
        GROUP BY run_record_id, constraint_id, rubric_sha256, judge_model;
        {_pair_triggers(rowids=False)}
        CREATE TRIGGER verdicts_gap_insert AFTER INSERT ON verdicts WHEN NEW.id < (SELECT max(id) FROM verdicts)
        BEGIN {bump}
        END;
        """
    )


_PAIR_TRIGGERS = ("verdict_pairs_insert", "verdict_pairs_insert_behind", "verdict_pairs_update", "verdict_pairs_delete")


def _pair_triggers(*, rowids: bool) -> str:
    """The four triggers that keep `verdict_pairs` in step with `verdicts` (migration 015; with `rowids`, migration
    019's, which also store the pair's run record and constraint row ids when they write a row)."""
    def pair_of(k: str) -> str:
        return (f"run_record_id = {k}.run_record_id AND constraint_id = {k}.constraint_id"
                f" AND rubric_sha256 = {k}.rubric_sha256 AND judge_model = {k}.judge_model")

    extra_columns = ", record_rowid, constraint_rowid" if rowids else ""

    def recompute(k: str) -> str:
        key = pair_of(k)
        extra = f", {_RECORD_ROWID.format(k='')}, {_CONSTRAINT_ROWID.format(k='')}" if rowids else ""
        return f"""
            DELETE FROM verdict_pairs WHERE {key};
            INSERT INTO verdict_pairs (id, judge_model, rubric_sha256, run_record_id, constraint_id, n, pattern{extra_columns})
            SELECT min(id), judge_model, rubric_sha256, run_record_id, constraint_id, count(*), {_PATTERN_TEXT}{extra}
            FROM (SELECT * FROM verdicts WHERE {key} ORDER BY repeat) GROUP BY judge_model;"""

    # An insert that comes after every stored repeat of its pair, and after its every verdict id (the common case:
    # the judge and the imports write a pair's repeats in order), is the pair's row with one more part at the end
    # and the same smallest id: one upsert, a first verdict making the row. Anything else — a repeat below a stored
    # one, a row inserted under a smaller id than the pair's others — recomputes the pair. The two conditions read
    # only `verdicts`, which neither trigger writes, so exactly one of the two fires whichever runs first.
    behind = f"EXISTS (SELECT 1 FROM verdicts WHERE {pair_of('NEW')} AND (repeat > NEW.repeat OR id > NEW.id))"
    # With the row ids: one seek of the run record gives its row id and item, one of the constraint its row id (a
    # SELECT over the two joins, not two scalar subqueries, which would seek the run record twice).
    source = (f"""SELECT NEW.id, NEW.judge_model, NEW.rubric_sha256, NEW.run_record_id, NEW.constraint_id, 1,
                    {_PART_TEXT.format(v="NEW.")}, r.rowid, c.rowid
            FROM (SELECT 1) LEFT JOIN run_records r ON r.id = NEW.run_record_id
            LEFT JOIN constraints c ON c.item_id = r.item_id AND c.id = NEW.constraint_id AND c.check_json IS NULL
            WHERE true""" if rowids else f"""VALUES (NEW.id, NEW.judge_model, NEW.rubric_sha256, NEW.run_record_id,
                    NEW.constraint_id, 1, {_PART_TEXT.format(v="NEW.")})""")
    append = f"""
            INSERT INTO verdict_pairs (id, judge_model, rubric_sha256, run_record_id, constraint_id, n, pattern{extra_columns})
            {source}
            ON CONFLICT (run_record_id, constraint_id, rubric_sha256, judge_model)
            DO UPDATE SET n = n + 1, pattern = pattern || char(29) || excluded.pattern;"""
    bump = _bump_rewrites("verdicts")
    return f"""
        CREATE TRIGGER verdict_pairs_insert AFTER INSERT ON verdicts WHEN NOT {behind} BEGIN {append}
        END;
        CREATE TRIGGER verdict_pairs_insert_behind AFTER INSERT ON verdicts WHEN {behind} BEGIN {recompute("NEW")}
        END;
        CREATE TRIGGER verdict_pairs_update AFTER UPDATE ON verdicts BEGIN {recompute("OLD")} {recompute("NEW")} {bump}
        END;
        CREATE TRIGGER verdict_pairs_delete AFTER DELETE ON verdicts BEGIN {recompute("OLD")} {bump}
        END;"""


# A pair's repeats as one text: `repeat \x1f =label` (or `repeat \x1f \x1e` for an error row), joined by \x1d, in
# repeat order. `_calibration._load_patterns` parses it and checks the parts against `n` (a label holding a
# separator is read row by row).
_PART_TEXT = "{v}repeat || char(31) || ifnull('=' || {v}label, char(30))"
_PATTERN_TEXT = f"group_concat({_PART_TEXT.format(v='')}, char(29))"
PATTERN_SQL = _PATTERN_TEXT  # a GROUP BY of verdict rows into the same text (projects read without 015)


def parse_pattern(text: str, n: int) -> dict[int, str | None] | None:
    """A pair's pattern text (`verdict_pairs.pattern`, or `PATTERN_SQL` grouped from its verdict rows) as repeat ->
    label (None: an error row) in repeat order, whatever order the parts were concatenated in. None when the text
    does not read back into `n` distinct repeats: a label holding a separator, a repeat stored as text. The caller
    then reads the pair's verdict rows. The one reader of the format (the report, the disagreement list and
    compare)."""
    parts = [part.split("\x1f") for part in text.split("\x1d")]
    if len(parts) != n or any(len(x) != 2 or not (x[0].isascii() and x[0].isdigit())
                              or not (x[1] == "\x1e" or x[1][:1] == "=") for x in parts):
        return None
    labels = {int(r): (None if lab == "\x1e" else lab[1:]) for r, lab in parts}
    return {r: labels[r] for r in sorted(labels)} if len(labels) == n else None

MIGRATIONS = MIGRATIONS + (Migration("015_verdict_pairs", _m015_verdict_pairs),)


def has_verdict_pairs(db: sqlite_utils.Database) -> bool:
    """Whether the project has migration 015's `verdict_pairs` and the verdicts' rewrite counter. A project opened
    read-only without it (no write permission to upgrade it) is read as before: grouped from `verdicts`."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'verdict_pairs'").fetchone() is not None


def _m017_draw_fronts(db: sqlite_utils.Database) -> None:
    # Issue 16.2: a draw after new data reads what the last draw left instead of hashing every pair again. Per
    # constraint × model population and kind, every pair whose rank is at most a stored bound (kept in the draw's
    # settings row): `random`, the population's members by draw rank (about twice the quota: the quota grows with
    # the population, and the pairs just behind the drawn ones are the ones that can enter); `overlap`, the drawn
    # pairs not yet given to a second reviewer, by overlap rank. Derived from the sample and the verdicts: only
    # `draw_sample` writes it, and it trusts it only when the sample is the one it left.
    _execute_script(db,
        """
        CREATE TABLE draw_fronts (
            kind TEXT NOT NULL,            -- random | overlap
            constraint_id TEXT NOT NULL,
            model TEXT NOT NULL,
            rank BLOB NOT NULL,            -- sha256 rank, 32 bytes, compared as bytes
            run_record_id TEXT NOT NULL,
            PRIMARY KEY (kind, constraint_id, model, rank)
        ) WITHOUT ROWID;
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("017_draw_fronts", _m017_draw_fronts),)


def _m018_pair_covering_indexes(db: sqlite_utils.Database) -> None:
    # Issue 16.2: the report joins every judged pair (verdict_pairs) with its run record and constraint, and coverage
    # and the population counts join the same way. Through the primary keys each join is a seek in the key's index
    # and another in the table, whose rows are large (a run record carries its output): two thirds of the pass at a
    # million run records. These two indexes hold what those joins read, so each is one seek. Read with INDEXED BY
    # where a query needs them (SQLite prefers the unique key otherwise), when a project has them
    # (`pair_indexes`: one opened read-only without this migration has not). They cost a run record or
    # constraint insert one more index entry; verdict writes are unaffected.
    _execute_script(db,
        """
        CREATE INDEX run_records_pair ON run_records(id, item_id, model, run_id);
        CREATE INDEX constraints_pair ON constraints(item_id, id, type, labels) WHERE check_json IS NULL;
        """
    )


MIGRATIONS = MIGRATIONS + (Migration("018_pair_covering_indexes", _m018_pair_covering_indexes),)


# A pair's run record and semantic constraint as row ids (migration 019), looked up from its key columns `k`.
_RECORD_ROWID = "(SELECT rowid FROM run_records WHERE id = {k}run_record_id)"
_CONSTRAINT_ROWID = ("(SELECT c.rowid FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                     " AND c.id = {k}constraint_id AND c.check_json IS NULL WHERE r.id = {k}run_record_id)")


def _m019_pair_rowids(db: sqlite_utils.Database) -> None:
    # Issue 16.2: the report's pass over every judged pair joined each `verdict_pairs` row to its run record and its
    # constraint through their text keys, two index seeks a pair and most of the pass's 10 s at a million run records.
    # Each row now also holds the run record's and the semantic constraint's row ids as they were when the row was
    # written, so the pass joins by row id (5.4 instead of 9.6 s for the query at 1M). They are hints, not facts:
    # a run record or constraint deleted and stored again gets another row id, so every read checks the joined
    # row's key against the pair's and reads a row that fails it (or has none: a verdict on a mechanical
    # constraint, one written before its constraint) through the keys (`_sql_group_bases` in the report). No trigger on the run records
    # or constraints keeps them, so their imports pay nothing; the verdict triggers look both up once per verdict
    # written (two seeks beside the trigger's own upsert). The backfill is one UPDATE (~20 s at 1M run records).
    columns = ("record_rowid INTEGER", "constraint_rowid INTEGER")
    for column in columns:
        db.execute(f"ALTER TABLE verdict_pairs ADD COLUMN {column}")
    db.execute(f"UPDATE verdict_pairs SET record_rowid = {_RECORD_ROWID.format(k='verdict_pairs.')},"
               f" constraint_rowid = {_CONSTRAINT_ROWID.format(k='verdict_pairs.')}")
    _execute_script(db, "\n".join(f"DROP TRIGGER {t};" for t in _PAIR_TRIGGERS) + _pair_triggers(rowids=True))


MIGRATIONS = MIGRATIONS + (Migration("019_pair_rowids", _m019_pair_rowids),)


def has_pair_rowids(db: sqlite_utils.Database) -> bool:
    """Whether `verdict_pairs` holds migration 019's row ids (a project opened read-only before it does not)."""
    return any(r[1] == "record_rowid" for r in db.execute("PRAGMA table_info(verdict_pairs)"))


def pair_indexes(db: sqlite_utils.Database) -> tuple[str, str]:
    """The INDEXED BY clauses of a join from a pair to its run record and constraint: migration 018's covering
    indexes make each look-up one seek instead of a key seek and a table read (SQLite picks the unique key
    otherwise); none on a project without them."""
    found = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                       " AND name IN ('run_records_pair', 'constraints_pair')").fetchone()[0]
    if found == 2:
        return " INDEXED BY run_records_pair", " INDEXED BY constraints_pair"
    return "", ""


# Tables whose changes the Calibration page keys its caches by (issue 16.3), beside `verdicts` (015) and `samples`
# (016): each gets migration 016's rule, so its version is two look-ups instead of a count and a tail.
REWRITE_MARKED = ("human_labels", "run_records", "constraints", "rubrics", "adjudications", "evalset_feedback",
                  "check_results")
_GAP_MARKED = ("human_labels", "adjudications")  # INTEGER PRIMARY KEY: a row can be stored under an explicit id


def _m020_rewrite_marks(db: sqlite_utils.Database) -> None:
    # Issue 16.3: the Calibration page at a million run records. An insert gives a row rowid = largest + 1, so the
    # largest rowid moves on every insert (INSERT OR REPLACE too: the new row's id is taken before the old row goes);
    # a delete or an update changes rows without moving it, so both bump table_rewrites(table), as 015 and 016 do.
    # Inserts pay nothing: no insert trigger, except on the two tables whose rows carry their own id (an import could
    # store one in a gap a delete left), where an insert below the largest id bumps too; both are written a row at a
    # time (a click, a decision), so the one b-tree step per insert does not show.
    script = _rewrite_triggers(REWRITE_MARKED)
    for table in _GAP_MARKED:
        script.append(f"CREATE TRIGGER {table}_gap_insert AFTER INSERT ON {table}"
                      f" WHEN NEW.rowid < (SELECT max(rowid) FROM {table}) BEGIN {_bump_rewrites(table)} END;")
    _execute_script(db, "\n".join(script))


MIGRATIONS = MIGRATIONS + (Migration("020_rewrite_marks", _m020_rewrite_marks),)


def _m022_failed_run_records(db: sqlite_utils.Database) -> None:
    # Issue 16.2: the sample's whole draw needs, for every (run record, semantic constraint) pair, whether the run
    # record has an output (a failed run's pair is a member only when a verdict covers it). That one flag was the only
    # reason to read the run records' table rows, which hold the outputs (most of a million-record project's file):
    # the rest of the draw reads migration 018's covering index. The failed run records are few, so a partial index
    # of them holds the flag for every run record at almost no cost to an import (one more entry per failed run only).
    _execute_script(db, "CREATE INDEX run_records_failed ON run_records(id) WHERE output IS NULL AND trajectory IS NULL;")


MIGRATIONS = MIGRATIONS + (Migration("022_failed_run_records", _m022_failed_run_records),)


def _m023_stored_aggregates(db: sqlite_utils.Database) -> None:
    # Issue 16.2: what a report computes from every judged pair and no label (the one pass over `verdict_pairs`),
    # stored under the versions of the tables it was read from, so the next report in any process reads it back
    # instead of joining 1.76M pairs again (store/_stored.py). Derived data only: deleting every row loses nothing.
    _execute_script(db, """
        CREATE TABLE stored_aggregates (
            name TEXT NOT NULL,        -- what was computed
            args TEXT NOT NULL,        -- its arguments, JSON
            version TEXT NOT NULL,     -- JSON: the code's digest, the migrations, the tables and their versions
            meta TEXT NOT NULL,        -- JSON
            data BLOB NOT NULL,        -- little-endian arrays
            written_at TEXT NOT NULL,
            PRIMARY KEY (name, args)
        );""")


MIGRATIONS = MIGRATIONS + (Migration("023_stored_aggregates", _m023_stored_aggregates),)


# Tables given migration 020's rule by a later migration (024): `table_marks` finds their counters the same way.
LATER_REWRITE_MARKED = ("eval_items",)


def _m024_item_rewrite_marks(db: sqlite_utils.Database) -> None:
    # Issue 16 item 3: the report keeps the labelled run records' covariates (their items' tags) across new labels,
    # so `eval_items` needs an O(1) version too: migration 020's rule (an insert moves the largest rowid; a delete or
    # an update bumps table_rewrites). Items are only ever inserted by judgecal (the import refuses a changed item),
    # so the triggers cost nothing in practice. No gap trigger: the table has no integer key of its own.
    _execute_script(db, "\n".join(_rewrite_triggers(LATER_REWRITE_MARKED)))


MIGRATIONS = MIGRATIONS + (Migration("024_item_rewrite_marks", _m024_item_rewrite_marks),)


def _m025_feedback_per_pair(db: sqlite_utils.Database) -> None:
    # A review (wave 18): `evalset_feedback` had one row per created item, so a second pair of the same content (the
    # other agent's run of the item, another repeat of a boundary case) got the item back and stored nothing: its
    # note and author were lost and the pair stayed "not sent". One row per pair sent now, the item shared. The
    # rebuilt table gets migration 020's triggers again (DROP TABLE takes them); its rows are the same, in order.
    _execute_script(db, "\n".join([
        """CREATE TABLE evalset_feedback_per_pair (
            item_id TEXT NOT NULL REFERENCES eval_items(id),
            source_item_id TEXT NOT NULL,
            run_record_id TEXT NOT NULL,
            constraint_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            who TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (run_record_id, constraint_id)
        );""",
        "INSERT OR IGNORE INTO evalset_feedback_per_pair SELECT * FROM evalset_feedback ORDER BY rowid;",
        "DROP TABLE evalset_feedback;",
        "ALTER TABLE evalset_feedback_per_pair RENAME TO evalset_feedback;",
        *_rewrite_triggers(("evalset_feedback",)),
    ]))


MIGRATIONS = MIGRATIONS + (Migration("025_feedback_per_pair", _m025_feedback_per_pair),)


def table_marks(db: sqlite_utils.Database, tables: Sequence[str]) -> tuple | None:
    """(largest rowid, rewrite count) of each table in one statement, then a digest of each table's last row: a
    version that changes with every insert, delete and update judgecal makes, and costs three index look-ups a table
    (migrations 015, 016 and 020 keep the counters; docs/decisions.md lists the hand edits it does not see). None when the project lacks a table's counter (opened read-only before its migration): the caller
    then reads its slower version."""
    marked = {"verdicts": "verdict_pairs_delete", "samples": "samples_rewrite_delete",
              **{t: f"{t}_rewrite_delete" for t in REWRITE_MARKED + LATER_REWRITE_MARKED}}
    triggers = [marked[t] for t in tables]
    # the counters' table too: a copy whose table_rewrites was dropped (a test of the fallback does) has the triggers
    found = {r[0] for r in db.execute(
        f"SELECT name FROM sqlite_master WHERE (type = 'trigger' AND name IN ({','.join('?' * len(triggers))}))"
        " OR (type = 'table' AND name = 'table_rewrites')", triggers)}
    if len(found) < len(set(triggers)) + 1:
        return None
    parts = ", ".join(f"(SELECT coalesce(max(rowid), 0) FROM {t}), (SELECT coalesce(max(n), 0) FROM table_rewrites"
                      f" WHERE name = '{t}')" for t in tables)
    marks = tuple(db.execute(f"SELECT {parts}").fetchone())
    # And a digest of each table's last row (one more seek a table): a row replaced under the largest rowid by a
    # connection with recursive_triggers off (the sqlite3 CLI's `INSERT OR REPLACE`, whose implicit delete fires no
    # trigger), or a backup copied over the project followed by a different row under the same id, leaves the two
    # counts above where they were but not the row (a review found both serving stale page values).
    return marks + tuple(last_row_digest(db, t, marks[2 * i]) for i, t in enumerate(tables))


def last_row_digest(db: sqlite_utils.Database, table: str, rowid: int) -> str:
    """The digest `table_marks` keeps of `table`'s row at `rowid` (its last row when the marks were read)."""
    row = db.execute(f"SELECT * FROM {table} WHERE rowid = ?", [rowid]).fetchone()
    return hashlib.blake2b(repr(row).encode("utf-8", "backslashreplace"), digest_size=8).hexdigest()
