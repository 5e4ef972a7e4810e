"""A reading command run as its own process leaves Python's cycle collector off until exit (issue 16.2: the
collector walked the report's millions of objects again after `gc_paused` handed it back); an in-process call
(tests, the app) and a writing command keep it as they found it."""

from __future__ import annotations

import contextlib
import gc
import io
from pathlib import Path

import pytest

from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture()
def collector():
    was = gc.isenabled()
    gc.enable()
    yield
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


def test_a_writing_command_keeps_the_collector(unlabelled_demo: Path, collector) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(unlabelled_demo), "sample"], process=True) == 0
        assert main(["--db", str(unlabelled_demo), "import", "labels", str(REPO / "data" / "demo_labels.jsonl")],
                    process=True) == 0
    assert gc.isenabled()
