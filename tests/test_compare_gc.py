"""Issue 16.2: `compare_runs` pauses Python's cycle collector while it builds a comparison (millions of small
acyclic objects at a million run records) and must give it back as it found it: on, off, and after an error."""

from __future__ import annotations

import contextlib
import gc
import io

import pytest

from judgecal import annotations as ann
from judgecal.cli import main


def test_compare_restores_the_cycle_collector(tmp_path, monkeypatch):
    path = tmp_path / "demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
    from judgecal.annotations.reports import _runs  # house: private (a test peek)

    seen = []
    real = _runs._run_data

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(_runs, "_run_data", spy)
    was = gc.isenabled()
    try:
        with ann.unit_of_work(path) as db:
            gc.enable()
            ann.compare_runs(db, "demo-run-a", "demo-run-b")
            assert gc.isenabled() and seen == [False, False]  # paused while settling, back on afterwards
            gc.disable()
            ann.compare_runs(db, "demo-run-a", "demo-run-b")
            assert not gc.isenabled()  # a caller that had it off keeps it off
            gc.enable()
            with pytest.raises(ValueError, match="no run records"):
                ann.compare_runs(db, "demo-run-a", "no-such-run")
            assert gc.isenabled()  # an error gives it back too
    finally:
        (gc.enable if was else gc.disable)()
