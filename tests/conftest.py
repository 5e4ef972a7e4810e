"""Shared fixtures: a small seeded project database in tmp_path.

`project_db` holds 4 eval items (2 semantic constraints each, `grounded` and `polite`, plus one mechanical check),
2 models × 4 items = 8 run records (one a trajectory, one carrying hostile markup), one rubric, and 3 judge repeats
on every semantic pair of model-a: on (run-a-2, grounded) the repeats disagree, on (run-a-3, polite) one repeat is an
error. Model-b's pairs are unjudged. Nothing is sampled or labelled yet. Everything goes in through the real import
functions; the verdict rows are written directly (the judge's own tests cover how they are produced).
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import sys
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import EvalItem, RunRecord, parse_rows

HOSTILE_OUTPUT = (
    "Here is your answer <script>document.title='pwned'</script> "
    "<img src=http://evil.example/x.png> and [click me](http://evil.example/phish) ![pic](http://evil.example/p.png)"
)
T = TypeVar("T")
RUBRIC_SHA = "a" * 64
RUBRIC_SHA_2 = "b" * 64


def _item(n: int) -> dict:
    return {
        "id": f"item-{n}",
        "instruction": f"Answer the customer's question number {n}.",
        "input": {"question": f"Where is order {1000 + n}?"} if n % 2 else f"Where is order {1000 + n}?",
        "constraints": [
            {"id": "grounded", "text": "Every fact in the answer comes from the input.", "type": "content"},
            {"id": "polite", "text": "The answer is polite.", "type": "content"},
            {"id": "short", "text": "At most 80 words.", "type": "format",
             "check": {"id": "length:max_words", "args": {"n": 80}}},
        ],
    }


def _run(n: int, model: str) -> dict:
    rid = f"run-{model[-1]}-{n}"
    run: dict = {"id": rid, "item_id": f"item-{n}", "model": model, "run_id": "r1"}
    if model == "model-a" and n == 1:
        run["output"] = HOSTILE_OUTPUT
    elif model == "model-b" and n == 2:
        run["trajectory"] = [
            {"type": "thought", "text": "Look the order up."},
            {"type": "action", "tool": "lookup_order", "args": {"order": 1002}, "result": {"status": "shipped"}},
            {"type": "observation", "text": "Order 1002 shipped."},
            {"type": "final_answer", "text": "Your order 1002 has shipped."},
        ]
    else:
        run["output"] = f"Order {1000 + n} is on its way, thank you for waiting."
    return run


def seed_project(path: Path) -> Path:
    items = parse_rows("\n".join(json.dumps(_item(n)) for n in range(1, 5)), EvalItem)
    runs = parse_rows("\n".join(json.dumps(_run(n, m)) for m in ("model-a", "model-b") for n in range(1, 5)),
                      RunRecord)
    with ann.unit_of_work(path) as db:
        ann.import_items(db, items)
        ann.import_runs(db, runs)
        add_rubric(db, RUBRIC_SHA, version=1)
        rows = []
        for n in range(1, 5):
            for cid in ("grounded", "polite"):
                for repeat in range(3):
                    label, error = "pass", None
                    if (n, cid) == (2, "grounded") and repeat == 2:
                        label = "fail"
                    if (n, cid) == (3, "polite") and repeat == 1:
                        label, error = None, "timeout"
                    rows.append((f"run-a-{n}", cid, RUBRIC_SHA, label, error, repeat))
        add_verdicts(db, rows)
    return path


def add_rubric(db, sha: str, *, version: int, name: str = "strict") -> None:
    with ann.write(db):
        db.conn.execute(
            "INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
            (sha, name, version, f"template v{version}", ann.now_iso()))


def add_verdicts(db, rows, *, judge_model: str = "judge-1") -> None:
    """rows: (run_record_id, constraint_id, rubric_sha256, label, error, repeat)."""
    with ann.write(db):
        db.conn.executemany(
            "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason,"
            " error, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            [(rid, cid, sha, judge_model, rep, label, f"judge says {label}" if label else None, error, ann.now_iso())
             for rid, cid, sha, label, error, rep in rows])


@pytest.fixture
def project_db(tmp_path: Path) -> Path:
    return seed_project(tmp_path / "project.db")


def forget_kept() -> None:
    """Forget what this process keeps between commands (the report's kept parts, the kept tables, the sample's
    memo): the next command reads the project as a new process would."""
    from judgecal.annotations.reports import _calibration  # house: private (its kept parts)
    from judgecal.annotations.review import _sampling  # house: private (its memo)
    from judgecal.annotations.store import _memo  # house: private (the kept tables)

    for kept in (_calibration._KEPT, _memo._KEPT, _sampling._MEMO):
        kept.clear()


def run_alone(path: Path, *argv: str) -> tuple[int, str]:
    """`judgecal --db PATH ARGV` as a new process would run it (nothing this one keeps is reused): (status, stdout)."""
    from judgecal.cli import main

    forget_kept()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["--db", str(path), *argv])
    return rc, out.getvalue()


def nothing_stored(path: Path, read: Callable[[Path], T]) -> T:
    """`read` of a copy of the project with its stored aggregates deleted (the project itself is left as it is):
    what a command gives when nothing was stored."""
    copy = path.with_name("fresh-" + path.name)
    with sqlite3.connect(path) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    try:
        return read(copy)
    finally:
        copy.unlink()


def outputs_under_hash_seeds(script: str) -> set[str]:
    """What `python -c script` prints from the checkout under four string-hash seeds: one output when what it prints
    does not follow the hashes a process draws (a stored value's code digest, read back by another process)."""
    import os
    import subprocess

    root = Path(__file__).resolve().parents[1]
    return {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=root,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3", "4")}


def _demo(path: Path, *, labels: bool) -> Path:
    """`judgecal demo` into `path` (its output kept off the test's capture), with the demo's labels when asked."""
    from judgecal.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
        if labels:
            labelled = Path(__file__).resolve().parents[1] / "data" / "demo_labels.jsonl"
            assert main(["--db", str(path), "import", "labels", str(labelled)]) == 0
    return path


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo project with the demo's labels (a module may override it, building on it)."""
    return _demo(tmp_path / "demo.db", labels=True)


@pytest.fixture
def unlabelled_demo(tmp_path: Path) -> Path:
    """The demo project as `judgecal demo` leaves it."""
    return _demo(tmp_path / "demo.db", labels=False)


@pytest.fixture
def sampled_db(project_db: Path) -> Path:
    """`project_db` with every pair sampled (rate 1.0, overlap 0.5)."""
    with ann.unit_of_work(project_db) as db:
        ann.draw_sample(db, rate=1.0, overlap=0.5)
    return project_db


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every test in a test_e2e_* module drives a real Streamlit server and Chromium (tens of seconds each): marked
    # `browser`, so `-m "not browser"` is the fast loop. The default run (and CI) still runs them.
    for item in items:
        if item.path.name.startswith("test_e2e_"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _endpoints_forgotten():
    """The judge remembers, per process, which endpoints refused `seed` or `json_schema` (`judge.ENDPOINTS`), keyed
    by URL. Every local stub serves on 127.0.0.1 with a port the OS hands out again, so a later test's stub on a
    reused port inherited an earlier stub's refusal and the judge left `seed` out of its requests (a CI run, wave 16:
    `test_batch_request_bodies_are_exactly_what_the_synchronous_judge_sends`). Each test starts with none."""
    from judgecal.judge import ENDPOINTS

    ENDPOINTS.forget()
    yield


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest runs a page script as `__main__` and leaves it in sys.modules; a later test that starts
    processes with the `spawn` method would then re-run that page script in every child (which fails outside a
    Streamlit runtime). Put the real `__main__` back after each test."""
    import sys

    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@pytest.fixture(autouse=True)
def _no_process_exit(monkeypatch: pytest.MonkeyPatch):
    """A reading command called with `process=True` ends its process with `os._exit` (judgecal.cli._exit_now): in a
    test that would end pytest itself, with the command's status (0: a green run that stopped part-way). It fails
    the test instead; a test of the exit replaces it again."""
    from judgecal import cli

    def refuse(rc: int) -> None:
        raise AssertionError(f"a test called a reading command as its own process (os._exit({rc}) would end pytest)")

    monkeypatch.setattr(cli, "_exit_now", refuse)


def import_c1_run(db: str | Path, folder: Path, start: int, n: int, *, judge_right: bool = True,
                  run_id: str = "run1") -> None:
    """`n` items i<start>.. with one pass/fail constraint `c1`, a run record r<k> of model `m` each in `run_id`, and a
    judge `J` (rubric `myrubric`) right on every pair or wrong on every pair (the truth: pass on odd k), imported
    through the CLI from files in `folder`."""
    from judgecal.cli import main

    stamp = {"created_at": "2026-01-01T00:00:00Z"}
    rows: dict[str, list[dict]] = {"evalset": [], "runs": [], "verdicts": []}
    for k in range(start, start + n):
        truth = "pass" if k % 2 else "fail"
        said = truth if judge_right else ("fail" if truth == "pass" else "pass")
        rows["evalset"].append({"id": f"i{k}", "instruction": "Answer.", "input": "q", "constraints": [
            {"id": "c1", "text": "The answer is good.", "type": "content"}], **stamp})
        rows["runs"].append({"id": f"r{k}", "item_id": f"i{k}", "model": "m", "run_id": run_id, "output": f"a {k}",
                             **stamp})
        rows["verdicts"].append({"run_record_id": f"r{k}", "constraint_id": "c1", "rubric": "myrubric",
                                 "judge_model": "J", "label": said, **stamp})
    for kind, data in rows.items():
        path = Path(folder) / f"{run_id}-{start}-{kind}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        assert main(["--db", str(db), "import", kind, str(path)]) == 0


def label_drawn_c1(db: str | Path, reviewer: str = "ann") -> None:
    """Every random-sample pair of an `import_c1_run` project labelled with its truth, as the Review page saves."""
    with ann.unit_of_work(db) as conn:
        drawn = [r[0] for r in conn.execute("SELECT run_record_id FROM samples WHERE rule = 'random'")]
        for rid in drawn:
            ann.record_label(conn, reviewer, ann.Pair(rid, "c1"), "pass" if int(rid[1:]) % 2 else "fail")


@contextlib.contextmanager
def seed_rule_off() -> Iterator[None]:
    """Draws use any named seed, judged populations or not, inside the block: for building a project whose sample was
    drawn under a named seed (the state a draw before judging, or an import of it, leaves) after writing its
    verdicts. The rule that sets a named seed aside once a population is judged (`seed_for_draw`) has its own tests,
    tests/test_seed_after_verdicts.py."""
    from unittest import mock

    from judgecal.annotations.review import _sampling  # house: private

    with mock.patch.object(_sampling, "seed_for_draw", lambda db, seed, **kwargs: (seed, ())):
        yield


@pytest.fixture
def any_seed() -> Iterator[None]:
    """`seed_rule_off` for a whole test: tests of the draw's mechanics (twins against a reference draw, top-ups,
    memo attacks), which vary the seed on purpose."""
    with seed_rule_off():
        yield
