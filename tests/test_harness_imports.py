"""Imports from other harnesses (issue 16.5): each small file in tests/fixtures/harnesses/ goes through the real CLI
(import -> sample -> label -> report) and the report shows the harness judge's agreement with the humans.

Every fixture asks three capital-city questions; the model answers "Sydney" for Australia, so the human truth is
"fail" for that answer and "pass" for the others. Each fixture's grader is wrong on purpose on some pairs: the
expected agreements below are counted by hand from the fixture files.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from judgecal.cli import main
from judgecal.evalsets import HARNESSES, InputError

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "harnesses"
needs_inspect = pytest.mark.skipif(
    __import__("importlib").util.find_spec("inspect_ai") is None,
    reason="inspect_ai is not installed (pip install 'judgecal-calibrate[inspect]'): the Inspect AI log is read "
           "through inspect_ai.log")


def human(output: str) -> str:
    return "fail" if "Sydney" in output else "pass"


def calibrate(tmp_path: Path, kind: str, file: Path, capsys) -> dict[str, tuple[int, int]]:
    """Import, sample every pair, label every pair as a human would, report: rubric name -> (agree, n)."""
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", kind, str(file)]) == 0
    assert main(["--db", str(db), "sample", "--rate", "1"]) == 0
    with sqlite3.connect(db) as conn:
        pairs = conn.execute("SELECT DISTINCT v.run_record_id, v.constraint_id, r.output FROM verdicts v "
                             "JOIN run_records r ON r.id = v.run_record_id").fetchall()
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"run_record_id": r, "constraint_id": c, "reviewer": "ann",
                                          "label": human(o)}) + "\n" for r, c, o in pairs), encoding="utf-8")
    assert main(["--db", str(db), "import", "labels", str(labels)]) == 0
    out = tmp_path / "report.json"
    assert main(["--db", str(db), "report", "--json", "--out", str(out)]) == 0
    capsys.readouterr()
    report = json.loads(out.read_text(encoding="utf-8"))
    return {g["rubric_name"]: (g["overall"]["majority"]["agree"], g["overall"]["majority"]["n"])
            for g in report["groups"]}


def counts(db: Path) -> tuple[int, ...]:
    if not db.exists():
        return (0, 0, 0)
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                     for t in ("eval_items", "run_records", "verdicts"))


# --------------------------------------------------------------------------- Inspect AI


@needs_inspect
def test_inspect_log_calibrates_its_model_graded_scorers(tmp_path, capsys) -> None:
    # inspect_capitals.eval: model_graded_qa grades all three right; model_graded_fact says I for "Tokyo." and C for
    # "Sydney." (both wrong), so it agrees with the humans on France only.
    assert calibrate(tmp_path, "inspect", FIXTURES / "inspect_capitals.eval", capsys) == {
        "inspect:model_graded_qa": (3, 3), "inspect:model_graded_fact": (1, 3)}


@needs_inspect
def test_inspect_rows_keep_model_grader_and_raw_grade(tmp_path) -> None:
    h = HARNESSES["inspect"].read(FIXTURES / "inspect_capitals.eval")
    assert {r.model for r in h.runs.rows} == {"mockllm/model"}
    assert {v.judge_model for v in h.verdicts.rows} == {"mockllm/grader"}
    au = [v for v in h.verdicts.rows if v.run_record_id.endswith(":au:1") and v.constraint_id == "model_graded_fact"]
    assert au[0].label == "pass" and au[0].reason.startswith('[inspect score "C"; ')
    assert {i.reference for i in h.items.rows} == {"Paris", "Tokyo", "Canberra"}


@needs_inspect
def test_inspect_reimport_is_a_no_op_and_a_broken_log_changes_nothing(tmp_path, capsys) -> None:
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "inspect", str(FIXTURES / "inspect_capitals.eval")]) == 0
    before = counts(db)
    assert before == (3, 3, 6)
    assert main(["--db", str(db), "import", "inspect", str(FIXTURES / "inspect_capitals.eval")]) == 0
    assert "0 eval items, 0 run records, 0 verdicts imported (12 already present)" in capsys.readouterr().out
    broken = tmp_path / "broken.eval"
    broken.write_bytes((FIXTURES / "inspect_capitals.eval").read_bytes()[:2000])
    assert main(["--db", str(db), "import", "inspect", str(broken)]) == 2
    assert "broken.eval" in capsys.readouterr().err
    assert counts(db) == before


def test_inspect_without_the_extra_says_which_extra_to_install(tmp_path, capsys, monkeypatch) -> None:
    # No extra needed for this test: the import of inspect_ai is made to fail as it does where it is not installed.
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "inspect", str(FIXTURES / "inspect_capitals.eval")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'judgecal-calibrate[inspect]'" in err
    assert not db.exists()  # the project the import created is gone again: nothing changed
