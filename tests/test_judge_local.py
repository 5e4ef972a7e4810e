"""The offline backend end to end: SmolLM2-135M in-process through llama-cpp-python, via the CLI.

Skips when the `local` extra or the model file is missing (install: see judge/_local.py INSTALL_HINT)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.judge import DEMO_QUALITY_WARNING, local_backend_available
from judgecal.cli import main
from test_judge_fixtures import make_project

available, why = local_backend_available()
pytestmark = pytest.mark.skipif(not available, reason=f"offline judge not installed: {why}")


def test_local_backend_judges_and_stores(tmp_path: Path, capsys) -> None:
    db = make_project(tmp_path / "local.db", n_items=2, label_sets=False)
    assert main(["--db", str(db), "judge", "--backend", "local", "--constraint", "polite", "--repeats", "2",
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    assert DEMO_QUALITY_WARNING in captured.err and DEMO_QUALITY_WARNING in captured.out
    with ann.unit_of_work(db) as conn:
        rows = list(conn.query("SELECT * FROM verdicts"))
        batch = conn.execute("SELECT status, settings FROM batches").fetchone()
    assert len(rows) == 4
    assert {r["judge_model"] for r in rows} == {"SmolLM2-135M-Instruct.Q4_1"}
    # The grammar built from the verdict schema makes every answer parse with a label from the set.
    assert all(r["label"] in ("pass", "fail") and r["error"] is None and r["reason"] for r in rows)
    assert batch[0] == "done" and '"backend": "local"' in batch[1]
    # Deterministic at temperature 0: the two repeats agree.
    assert main(["--db", str(db), "judge", "--backend", "local", "--constraint", "polite", "--repeats", "2",
                 "--quiet"]) == 0
    assert "4 already stored (no request), 0 requested" in capsys.readouterr().out
