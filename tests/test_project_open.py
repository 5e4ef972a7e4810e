"""Opening a project (issue 11, item 5): a mistyped --db is an error for commands that read, commands that create
say so, another application's SQLite file and a newer judgecal's project are refused untouched, and reading works
without write permission. Real SQLite files, the real CLI entry point."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pwd
import shutil
import sqlite3
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import RunRecord, parse_rows
from conftest import seed_project
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]
EVALSET = REPO / "data" / "demo_evalset.jsonl"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign_db(path: Path, *, wal: bool = False) -> Path:
    """Another application's database: its own tables, rollback journal (or WAL) mode, a few rows."""
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)")
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER)")
    conn.executemany("INSERT INTO users (email) VALUES (?)", [(f"u{i}@example.com",) for i in range(50)])
    conn.commit()
    conn.close()
    return path


def _journal_mode(path: Path) -> str:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


READ_COMMANDS = [
    ["report"], ["report", "--format", "json"], ["gate", "--min-kappa", "0"], ["compare", "r1", "r2"], ["price"],
]
UPDATE_COMMANDS = [["sample"], ["check"], ["judge", "--backend", "local"], ["run", "--model", "m"], ["app"],
                   ["price", "judge-1", "1", "2"]]


@pytest.mark.parametrize("cmd", READ_COMMANDS + UPDATE_COMMANDS, ids=lambda c: " ".join(c))
def test_a_missing_project_is_an_error_and_no_file_is_created(tmp_path: Path, capsys, cmd: list[str]) -> None:
    db = tmp_path / "typo" / "projcet.db"
    assert main(["--db", str(db), *cmd]) == 2
    err = capsys.readouterr().err
    assert f"no project at {db}" in err and "Traceback" not in err
    assert not db.exists() and not db.parent.exists()


@pytest.mark.parametrize("kind", ["evalset", "runs", "labels", "checks", "verdicts"])
def test_export_of_a_missing_project_is_an_error(tmp_path: Path, capsys, kind: str) -> None:
    db, out = tmp_path / "missing.db", tmp_path / "out.jsonl"
    assert main(["--db", str(db), "export", kind, "--out", str(out)]) == 2
    assert f"no project at {db}" in capsys.readouterr().err
    assert not db.exists() and not out.exists()


def test_an_empty_file_is_no_project_for_reading_commands(tmp_path: Path, capsys) -> None:
    db = tmp_path / "empty.db"
    db.touch()
    assert main(["--db", str(db), "report"]) == 2
    assert "no project at" in capsys.readouterr().err
    assert db.stat().st_size == 0


def test_commands_that_create_say_so_once(tmp_path: Path, capsys) -> None:
    db = tmp_path / "new" / "project.db"
    assert main(["--db", str(db), "import", "evalset", str(EVALSET)]) == 0
    assert f"created new project at {db}" in capsys.readouterr().err
    assert main(["--db", str(db), "import", "evalset", str(EVALSET)]) == 0
    assert "created new project" not in capsys.readouterr().err
    assert main(["--db", str(db), "report"]) == 0  # now it exists: reading works


def test_demo_says_it_created_the_project(tmp_path: Path, capsys) -> None:
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    assert f"created new project at {db}" in capsys.readouterr().err


def test_a_bad_import_into_a_missing_project_creates_nothing(tmp_path: Path, capsys) -> None:
    db, bad = tmp_path / "project.db", tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    assert main(["--db", str(db), "import", "evalset", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "created new project" not in err and not db.exists()
    # Rejected only after the project was opened (a label of a run record that does not exist): the new, still
    # empty project is removed again.
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"run_record_id": "r1", "constraint_id": "c", "reviewer": "a", "label": "pass"}\n')
    assert main(["--db", str(db), "import", "labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert "no constraint" in err and "created new project" not in err
    assert not list(tmp_path.glob("project.db*"))


def test_a_failed_import_into_an_existing_empty_project_keeps_it(tmp_path: Path, capsys) -> None:
    db = tmp_path / "project.db"
    ann.connect(db).close()
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"run_record_id": "r1", "constraint_id": "c", "reviewer": "a", "label": "pass"}\n')
    assert main(["--db", str(db), "import", "labels", str(labels)]) == 2
    assert db.exists()  # it was there before the command: not the command's to remove


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
@pytest.mark.parametrize("cmd", [["report"], ["sample"], ["import", "evalset", str(EVALSET)], ["demo"],
                                 ["export", "evalset", "--out", "OUT"]], ids=lambda c: c[0])
def test_another_applications_database_is_refused_untouched(tmp_path: Path, capsys, cmd: list[str],
                                                            wal: bool) -> None:
    db = _foreign_db(tmp_path / "other-app.sqlite", wal=wal)
    before, mode = _sha(db), _journal_mode(db)
    cmd = [str(tmp_path / "out.jsonl") if c == "OUT" else c for c in cmd]
    assert main(["--db", str(db), *cmd]) == 2
    err = capsys.readouterr().err
    assert "another application" in err and "users" in err and "Traceback" not in err
    assert _sha(db) == before and _journal_mode(db) == mode
    with sqlite3.connect(db) as conn:
        assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")} == {"users", "orders"}


def test_connect_refuses_a_foreign_database_in_every_mode(tmp_path: Path) -> None:
    db = _foreign_db(tmp_path / "other.db")
    before = _sha(db)
    for kwargs in ({}, {"create": False}, {"readonly": True}):
        with pytest.raises(ann.ProjectError, match="another application"):
            ann.connect(db, **kwargs)
    assert _sha(db) == before and _journal_mode(db) == "delete"


def test_a_project_replaced_by_another_applications_file_is_inspected_again(tmp_path: Path) -> None:
    """connect() skips the read-only inspection for a file it has opened before; a file put in its place (the
    inode number may well be reused) must be inspected again."""
    db = tmp_path / "project.db"
    for _ in range(3):
        ann.connect(db).close()
        for side in tmp_path.glob("project.db*"):
            side.unlink()
        _foreign_db(db)
        before = _sha(db)
        with pytest.raises(ann.ProjectError, match="another application"):
            ann.connect(db)
        assert _sha(db) == before and _journal_mode(db) == "delete"
        db.unlink()


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path, capsys) -> None:
    db = tmp_path / "notes.db"
    db.write_text("not a database\n" * 200)
    before = _sha(db)
    for cmd in (["report"], ["import", "evalset", str(EVALSET)]):
        assert main(["--db", str(db), *cmd]) == 2
        assert "not a judgecal project" in capsys.readouterr().err
    assert _sha(db) == before


def test_a_project_of_a_newer_judgecal_is_refused_with_the_versions_named(tmp_path: Path, capsys) -> None:
    db = tmp_path / "project.db"
    ann.connect(db).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO _migrations VALUES ('007_future_reviews', '2030-01-01T00:00:00Z')")
    conn.commit()
    conn.close()
    before = _sha(db)
    for cmd in (["report"], ["sample"], ["import", "evalset", str(EVALSET)], ["demo"]):
        assert main(["--db", str(db), *cmd]) == 2
        err = capsys.readouterr().err
        assert "newer judgecal" in err and "007_future_reviews" in err and ann.MIGRATIONS[-1].name in err
    assert _sha(db) == before
    with pytest.raises(ann.ProjectError, match="007_future_reviews"):
        ann.connect(db, readonly=True)


def test_a_readonly_connection_cannot_write(project_db: Path) -> None:
    before = _sha(project_db)
    with ann.unit_of_work(project_db, readonly=True) as db:
        assert db.execute("SELECT count(*) FROM eval_items").fetchone()[0] == 4
        with pytest.raises(sqlite3.OperationalError):
            db.execute("DELETE FROM eval_items")
    assert _sha(project_db) == before


# --- without write permission --------------------------------------------------------------------------------------
# Tests run as root in CI containers, where chmod does not stop writes. So the command runs in a forked child that
# first drops to the `nobody` user (os.setuid), after the parent has imported everything the command needs (the
# interpreter itself may live where nobody cannot read). Run as a normal user, the fork keeps the user and the
# chmod alone takes write permission away.

class ChildResult(NamedTuple):
    rc: int
    out: str
    err: str


def _unprivileged(fn: Callable[[], int]) -> ChildResult:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        rc = 99
        out, err = io.StringIO(), io.StringIO()
        try:
            os.close(read_fd)
            if os.geteuid() == 0:
                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            err.write(f"child raised {exc!r}")
        finally:
            os.write(write_fd, json.dumps({"rc": rc, "out": out.getvalue(), "err": err.getvalue()}).encode())
            os._exit(0)
    os.close(write_fd)
    chunks = []
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    data = json.loads(b"".join(chunks))
    return ChildResult(data["rc"], data["out"], data["err"])


@pytest.fixture
def readonly_project() -> Iterator[Path]:
    """A seeded WAL project (cleanly closed: no -shm file) in a folder and file nobody may write; an output folder
    anyone may write. Outside pytest's tmp_path, whose parents only root may enter."""
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    base = Path(tempfile.mkdtemp(prefix="judgecal-ro-"))
    try:
        base.chmod(0o755)
        folder, out = base / "project", base / "out"
        folder.mkdir()
        out.mkdir()
        out.chmod(0o777)
        db = seed_project(folder / "project.db")
        with ann.unit_of_work(db) as conn:
            ann.draw_sample(conn, rate=1.0)
            # a second run, so `compare` reads two (a run compared with itself is refused)
            again = [r.model_dump(mode="json", exclude_none=True) | {"id": f"{r.id}-again", "run_id": "r2"}
                     for r in ann.iter_runs(conn)]
            ann.import_runs(conn, parse_rows("\n".join(json.dumps(r) for r in again), RunRecord))
        conn = sqlite3.connect(db)  # a read-write connection: the last one to close removes -wal and -shm
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()
        assert sorted(p.name for p in folder.iterdir()) == ["project.db"], "expected a cleanly closed project"
        db.chmod(0o444)
        folder.chmod(0o555)
        yield db
    finally:
        for p in (base / "project",):
            if p.exists():
                p.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_reading_commands_work_without_write_permission(readonly_project: Path) -> None:
    db = readonly_project
    out = db.parent.parent / "out"
    before = _sha(db)
    # Warm up in the parent on a writable copy, so every module the commands import is loaded before the fork.
    warm = out / "warm.db"
    shutil.copy(db, warm)
    for cmd in (["report"], ["gate", "--min-kappa", "0"], ["export", "labels", "--out", str(out / "w.jsonl")],
                ["compare", "r1", "r2"], ["price"]):
        with contextlib.redirect_stdout(io.StringIO()):
            main(["--db", str(warm), *cmd])

    r = _unprivileged(lambda: main(["--db", str(db), "report", "--format", "json"]))
    assert r.rc == 0, r.err
    assert json.loads(r.out)  # a real report came back
    r = _unprivileged(lambda: main(["--db", str(db), "export", "evalset", "--out", str(out / "items.jsonl")]))
    assert r.rc == 0, r.err
    assert len((out / "items.jsonl").read_text().splitlines()) == 1 + 4  # header + 4 items
    for cmd in (["gate", "--min-kappa", "0"], ["compare", "r1", "r2"], ["price"]):
        r = _unprivileged(lambda: main(["--db", str(db), *cmd]))
        assert r.rc in (0, 1) and "error" not in r.err, (cmd, r)
    assert _sha(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["project.db"]


def test_writing_commands_say_the_project_is_read_only(readonly_project: Path) -> None:
    db = readonly_project
    before = _sha(db)
    r = _unprivileged(lambda: main(["--db", str(db), "sample"]))
    assert r.rc == 2 and "no write permission" in r.err, r
    r = _unprivileged(lambda: main(["--db", str(db), "import", "evalset", str(EVALSET)]))
    assert r.rc == 2 and "no write permission" in r.err, r
    assert _sha(db) == before


def test_the_child_really_cannot_write(readonly_project: Path) -> None:
    """The check above would pass vacuously if the child could still write (root ignores chmod)."""
    target = readonly_project.parent / "probe"

    def try_write() -> int:
        try:
            target.write_text("x")
        except PermissionError:
            return 13
        return 0

    assert _unprivileged(try_write).rc == 13
    assert not target.exists()
    assert not readonly_project.stat().st_mode & stat.S_IWUSR
