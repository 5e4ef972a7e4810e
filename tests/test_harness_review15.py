"""Harness imports: the findings of a hostile review (wave 15, docs/decisions.md). Each test builds the reviewer's
case from a fixture in tests/fixtures/harnesses/ and fails without its fix."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from judgecal.cli import main
from judgecal.evalsets import HARNESSES

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "harnesses"
needs_inspect = pytest.mark.skipif(
    __import__("importlib").util.find_spec("inspect_ai") is None,
    reason="inspect_ai is not installed (pip install 'judgecal-calibrate[inspect]')")


def promptfoo_doc() -> dict:
    return json.loads((FIXTURES / "promptfoo_capitals.json").read_text(encoding="utf-8"))


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


# --------------------------------------------------------------------------- 1. grader failures are error rows


def test_promptfoo_grading_provider_error_is_an_error_row_per_model_graded_assertion(tmp_path, capsys) -> None:
    # The model answered ("Sydney."); the grading provider then answered 429: promptfoo writes failureReason 2, the
    # error, and no gradingResult. That used to be skipped as "results whose provider failed before grading".
    doc = promptfoo_doc()
    r = doc["results"]["results"][2]
    r.pop("gradingResult")
    r.update(failureReason=2, success=False, error="Error: grading provider openai:chat:stub-grader: 429 Too Many")
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "promptfoo", str(write(tmp_path / "pf.json", doc))]) == 0
    assert "not imported" not in capsys.readouterr().out
    assert rows(db, "SELECT output, error FROM run_records WHERE output = 'Sydney.'") == [("Sydney.", None)]
    got = rows(db, "SELECT v.constraint_id, v.label, v.error, v.error_detail, v.judge_model FROM verdicts v "
                   "JOIN run_records r ON r.id = v.run_record_id WHERE r.output = 'Sydney.' ORDER BY 1")
    assert got == [(c, None, "harness_error", r["error"], "openai:chat:stub-grader") for c in ("g-eval", "llm-rubric")]
    # the item is the one the graded results make: same constraints, same id
    assert len(rows(db, "SELECT id FROM eval_items")) == 3


@needs_inspect
def test_inspect_sample_whose_scoring_raised_keeps_its_run_record_and_has_error_rows(tmp_path) -> None:
    # Scoring raised (the grader's 429): inspect_ai writes the sample's error and no scores. It was dropped as a
    # "sample without scores"; now its run record is stored with the error, and each of the log's judges has an
    # error row on it because the model answered.
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log
    from inspect_ai.model import ModelOutput

    log = read_eval_log(str(FIXTURES / "inspect_capitals.eval"))
    jp = next(s for s in log.samples if s.id == "jp")
    jp.scores = None
    jp.error = EvalError(message="RuntimeError: grader model_graded_qa: 429 Too Many Requests",
                         traceback="Traceback", traceback_ansi="")
    out = tmp_path / "scorer_error.eval"
    write_eval_log(log, str(out))
    h = HARNESSES["inspect"].read(out)
    [run] = [r for r in h.runs.rows if r.id.endswith(":jp:1")]
    assert (run.output, run.error) == ("Tokyo.", jp.error.message)
    errors = sorted((v.constraint_id, v.label, v.error, v.error_detail) for v in h.verdicts.rows
                    if v.run_record_id == run.id)
    assert errors == [(c, None, "harness_error", jp.error.message) for c in ("model_graded_fact", "model_graded_qa")]
    assert "samples without scores" not in h.skipped
    # the same question with the same judges: the item the scored log makes
    scored = HARNESSES["inspect"].read(FIXTURES / "inspect_capitals.eval")
    assert {i.id for i in h.items.rows} == {i.id for i in scored.items.rows}
    # no output (the solver never answered): the failed run record is kept, with no verdict
    jp.output = ModelOutput(model="mockllm/model")
    write_eval_log(log, str(out))
    h = HARNESSES["inspect"].read(out)
    [run] = [r for r in h.runs.rows if r.id.endswith(":jp:1")]
    assert run.error == jp.error.message and not run.output
    assert not [v for v in h.verdicts.rows if v.run_record_id == run.id]
