"""A reading command run as its own process leaves Python's cycle collector off until exit (issue 16.2: the
collector walked the report's millions of objects again after `gc_paused` handed it back), and ends without
freeing its objects one by one (`os._exit` once its output is flushed: ~1.4 s CPU at a million run records); an
in-process call (tests, the app) and a writing command keep the collector as they found it and return."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgecal import cli
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture()
def collector(monkeypatch: pytest.MonkeyPatch):
    # `process=True` in this process: the reading command's exit (`os._exit`) is recorded instead of taken
    exits: list[int] = []
    monkeypatch.setattr(cli, "_exit_now", exits.append)
    was = gc.isenabled()
    gc.enable()
    yield exits
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("command", [["report", "--json"], ["gate", "--min-kappa", "0.1"],
                                     ["compare", "demo-run-a", "demo-run-b"]])
def test_a_reading_command_as_its_own_process_leaves_the_collector_off(unlabelled_demo: Path, collector,
                                                                         command) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        main(["--db", str(unlabelled_demo), *command])
    assert gc.isenabled()  # in-process: as it was
    with contextlib.redirect_stdout(io.StringIO()):
        main(["--db", str(unlabelled_demo), *command], process=True)
    assert not gc.isenabled()
    assert len(collector) == 1  # and it ends the process


def test_a_writing_command_keeps_the_collector(unlabelled_demo: Path, collector) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(unlabelled_demo), "sample"], process=True) == 0
        assert main(["--db", str(unlabelled_demo), "import", "labels", str(REPO / "data" / "demo_labels.jsonl")],
                    process=True) == 0
    assert gc.isenabled()
    assert collector == []  # a writing command returns: Python's own exit runs (threads joined, files flushed)


def _judgecal(*args: str, **kwargs) -> subprocess.CompletedProcess:
    # buffered as a user's pipe is (PYTHONUNBUFFERED, set on some machines, would hide an unflushed exit)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-m", "judgecal", *args], capture_output=True, cwd=REPO, env=env, **kwargs)


def test_a_reading_process_s_output_and_exit_status_are_whole(demo: Path) -> None:
    """Its buffered output is flushed before `os._exit`, and the status is the command's: the report printed
    in full (as in-process), the gate's failure as 1, an error as 2."""
    for argv, rc in ((["report", "--json"], 0), (["report"], 0), (["gate", "--min-kappa", "0.99"], 1)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["--db", str(demo), *argv]) == rc
        alone = _judgecal("--db", str(demo), *argv)
        # printed line by line (the text report, the gate) or at once (JSON): every byte reaches the pipe
        assert alone.returncode == rc and alone.stdout.decode() == out.getvalue() and out.getvalue(), argv
    missing = _judgecal("--db", str(demo.with_name("missing.db")), "report")
    assert missing.returncode == 2 and b"error" in missing.stderr


def test_a_reader_that_leaves_ends_the_report_quietly(demo: Path) -> None:
    """`judgecal report | head -1`: the pipe closes before the report is written (or flushed): no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "judgecal", "--db", str(demo), "report", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"})
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) in (0, 1) and b"Traceback" not in err and b"Exception ignored" not in err
