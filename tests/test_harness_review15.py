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


# --------------------------------------------------------------------------- 2. a re-serialised file lands once

LMEVAL = FIXTURES / "lmeval" / "stub-org__capital-model" / "samples_capitals_gen_2026-11-30T19-00-00.000000.jsonl"


def counts(db: Path) -> tuple[int, ...]:
    return tuple(rows(db, f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("eval_items", "run_records", "verdicts"))


def test_promptfoo_results_are_keyed_on_their_own_id_when_the_file_has_no_eval_id(tmp_path, capsys) -> None:
    results = promptfoo_doc()["results"]["results"]
    compact, spaced = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    compact.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in results), encoding="utf-8")
    spaced.write_text("".join(json.dumps(r, indent=None) + "\n" for r in results), encoding="utf-8")
    no_eval_id = write(tmp_path / "c.json", {"results": {"results": results}})
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "promptfoo", str(compact)]) == 0
    assert counts(db) == (3, 3, 6)
    for copy in (spaced, no_eval_id):  # the same results, re-serialised: a no-op, not three more run records
        assert main(["--db", str(db), "import", "promptfoo", str(copy)]) == 0
        assert "0 run records, 0 verdicts imported (12 already present)" in capsys.readouterr().out
    assert {r for (r,) in rows(db, "SELECT id FROM run_records")} == {f"promptfoo:{r['id']}" for r in results}
    # the JSON output with its evalId keeps its ids (promptfoo:<evalId>:<id>) and is refused here: its results are in
    # the project already, keyed on their own ids
    assert main(["--db", str(db), "import", "promptfoo", str(FIXTURES / "promptfoo_capitals.json")]) == 2
    err = capsys.readouterr().err
    assert f"promptfoo_capitals.json:1: results.results[0].response.output: this result (id '{results[0]['id']}') " \
           f"is in the project already as run record 'promptfoo:{results[0]['id']}'" in err
    assert counts(db) == (3, 3, 6)
    # and the other way round
    db2 = tmp_path / "q.db"
    assert main(["--db", str(db2), "import", "promptfoo", str(FIXTURES / "promptfoo_capitals.json")]) == 0
    assert main(["--db", str(db2), "import", "promptfoo", str(compact)]) == 2
    assert "a.jsonl:1: (row).response.output: this result" in capsys.readouterr().err
    assert counts(db2) == (3, 3, 6)


def test_promptfoo_results_without_ids_or_eval_id_are_refused_when_a_copy_is_stored(tmp_path, capsys) -> None:
    results = [{k: v for k, v in r.items() if k != "id"} for r in promptfoo_doc()["results"]["results"]]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    b.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in results), encoding="utf-8")
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "promptfoo", str(a)]) == 0
    assert main(["--db", str(db), "import", "promptfoo", str(a)]) == 0  # the same bytes: a no-op, as before
    assert main(["--db", str(db), "import", "promptfoo", str(b)]) == 2
    err = capsys.readouterr().err
    assert "b.jsonl:1: (row).response.output: run record 'promptfoo:file-" in err
    assert "has this item, model and output already: the file has no run id of its own" in err
    assert counts(db) == (3, 3, 6)


def test_deepeval_run_without_identifier_is_refused_when_a_copy_is_stored(tmp_path, capsys) -> None:
    doc = json.loads((FIXTURES / "deepeval_capitals.json").read_text(encoding="utf-8"))
    (doc.get("testRunData") or doc).pop("identifier", None)
    a = write(tmp_path / "a.json", doc)
    b = tmp_path / "b.json"
    b.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "deepeval", str(a)]) == 0
    before = counts(db)
    assert main(["--db", str(db), "import", "deepeval", str(b)]) == 2
    err = capsys.readouterr().err
    assert "b.json:1: testCases[0].actualOutput: run record 'deepeval:file-" in err
    assert "(the test run's identifier)" in err and "nothing was imported" in err
    assert counts(db) == before
    # with an identifier the file vouches for its run: a second run with the same outputs is a run of its own
    (doc.get("testRunData") or doc)["identifier"] = "run-2"
    assert main(["--db", str(db), "import", "deepeval", str(write(tmp_path / "c.json", doc))]) == 0
    assert counts(db)[1] == before[1] + 3


def test_lmeval_file_without_a_date_is_refused_when_a_copy_is_stored(tmp_path, capsys) -> None:
    folder = tmp_path / "stub-org__capital-model"
    folder.mkdir()
    lines = LMEVAL.read_text(encoding="utf-8").splitlines()
    a = folder / "capitals.jsonl"  # the task is the file's name: a copy keeps it, re-serialised
    a.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "lmeval", str(a)]) == 0
    before = counts(db)
    a.write_text("\n".join(json.dumps(json.loads(line), separators=(",", ":")) for line in lines) + "\n",
                 encoding="utf-8")
    assert main(["--db", str(db), "import", "lmeval", str(a)]) == 2
    err = capsys.readouterr().err
    assert "capitals.jsonl:1: resps: run record 'lmeval:capitals:file-" in err
    assert "samples_<task>_<date>.jsonl" in err
    assert counts(db) == before
    # dated files are runs of their own, whatever their outputs
    dated = folder / "samples_capitals_2026-12-01T00-00-00.000000.jsonl"
    dated.write_text(a.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["--db", str(db), "import", "lmeval", str(dated)]) == 0
    later = dated.rename(folder / "samples_capitals_2026-12-02T00-00-00.000000.jsonl")
    assert main(["--db", str(db), "import", "lmeval", str(later)]) == 0
    assert counts(db)[1] == before[1] + 6


# --------------------------------------------------------------------------- 3. Langfuse repeats that are not


def _trace(i: int) -> dict:
    return {"id": f"t{i}", "name": "qa", "input": {"q": f"question {i}"}, "output": f"answer {i}",
            "metadata": {"model": "m1"}}


def _score(i: int, value: int, **extra) -> dict:
    return {"traceId": f"t{i}", "name": "correct", "value": value, "dataType": "BOOLEAN", "source": "EVAL",
            "comment": "c", "metadata": {"model": "judge-x"}, **extra}


def jsonl(path: Path, objs: list) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def test_langfuse_score_without_id_embedded_and_listed_is_one_answer(tmp_path) -> None:
    # The same scores, embedded in their traces and listed beside them, without ids: they were repeats 0 and 1 of
    # one judge, a self-consistent judge made of one answer each.
    objs = [dict(_trace(i), scores=[{k: v for k, v in _score(i, i % 2).items() if k != "traceId"}]) for i in range(4)]
    objs += [_score(i, i % 2) for i in range(4)]
    h = HARNESSES["langfuse"].read(jsonl(tmp_path / "lf.jsonl", objs))
    assert sorted((v.run_record_id, v.repeat, v.label) for v in h.verdicts.rows) == \
        [(f"langfuse:t{i}", 0, "pass" if i % 2 else "fail") for i in range(4)]
    assert h.skipped == {"scores without an id repeated field for field (counted once)": 4}
    # two scores without ids that differ (a second run of the evaluator) are still two repeats
    objs = [_trace(0), _score(0, 1, timestamp="2026-01-01T00:00:00Z"), _score(0, 1, timestamp="2026-01-02T00:00:00Z")]
    h = HARNESSES["langfuse"].read(jsonl(tmp_path / "lf2.jsonl", objs))
    assert [v.repeat for v in h.verdicts.rows] == [0, 1]


def test_langfuse_scores_of_an_observation_are_left_out_and_counted(tmp_path) -> None:
    # Two generations of one trace scored apart (observationId) were repeats of one verdict on the trace's output.
    objs = [_trace(0), _score(0, 1, id="s1", observationId="obs-retrieval"),
            _score(0, 0, id="s2", observationId="obs-generation"), _score(0, 1, id="s3"),
            dict(_trace(1), scores=[{"id": "s4", "name": "correct", "value": 0, "dataType": "BOOLEAN",
                                     "source": "EVAL", "observationId": "obs-1"}])]
    h = HARNESSES["langfuse"].read(jsonl(tmp_path / "lf.jsonl", objs))
    assert [(v.run_record_id, v.repeat, v.label) for v in h.verdicts.rows] == [("langfuse:t0", 0, "pass")]
    assert h.skipped == {"scores of an observation, not of the trace's output (observationId set)": 3,
                         "traces without an evaluator score": 1}


# --------------------------------------------------------------------------- 4. promptfoo graderError, pass true


def test_promptfoo_grader_error_is_an_error_row_even_with_pass_true(tmp_path) -> None:
    doc = promptfoo_doc()
    c = doc["results"]["results"][0]["gradingResult"]["componentResults"][0]
    c.update({"pass": True, "score": 1, "reason": "Could not extract JSON from llm-rubric response",
              "metadata": {"graderError": True}})
    h = HARNESSES["promptfoo"].read(write(tmp_path / "pf.json", doc))
    [v] = [v for v in h.verdicts.rows if v.run_record_id.endswith(doc["results"]["results"][0]["id"])
           and v.constraint_id == c["assertion"]["type"]]
    assert (v.label, v.error, v.error_detail) == (None, "harness_error", c["reason"])


# --------------------------------------------------------------------------- 5. DeepEval score null


@pytest.mark.parametrize("extra", [{"success": False}, {"success": True, "error": ""}])
def test_deepeval_metric_without_a_score_is_an_error_row(tmp_path, extra) -> None:
    doc = json.loads((FIXTURES / "deepeval_capitals.json").read_text(encoding="utf-8"))
    cases = (doc.get("testRunData") or doc)["testCases"]
    m = cases[0]["metricsData"][0]
    m.update({"score": None, "reason": None, "error": None, **extra})
    h = HARNESSES["deepeval"].read(write(tmp_path / "de.json", doc))
    [v] = [v for v in h.verdicts.rows if v.run_record_id.endswith(f":{cases[0].get('order', 0)}")
           and v.constraint_id == m["name"]]
    assert (v.label, v.error) == (None, "harness_error") and "score null" in v.error_detail


# --------------------------------------------------------------------------- 6. Langfuse human scores


@pytest.mark.parametrize("human", [{"source": "annotation"}, {"source": "Annotation "},
                                   {"source": "API", "authorUserId": "user-ann"}])
def test_a_langfuse_human_score_is_never_a_judge_verdict(tmp_path, human) -> None:
    objs = [_trace(0), _trace(1), _score(0, 1, id="s1", **human), _score(1, 1, id="s2")]
    h = HARNESSES["langfuse"].read(jsonl(tmp_path / "lf.jsonl", objs))
    assert [v.run_record_id for v in h.verdicts.rows] == ["langfuse:t1"]
    assert h.skipped["human annotation scores (source ANNOTATION or an authorUserId: import them as labels)"] == 1


# --------------------------------------------------------------------------- 7. doctor on a CSV


def test_doctor_on_a_csv_checks_the_header_against_what_the_import_takes(tmp_path, capsys) -> None:
    f = tmp_path / "v.csv"
    f.write_text("run_record_id,constraint_id,judge_model,rubric,label,reviewer\nr1,c1,j,r,pass,alice\n",
                 encoding="utf-8")
    assert main(["doctor", str(f)]) == 2
    captured = capsys.readouterr()
    assert "but `import verdicts` would refuse it: it takes no field reviewer" in captured.out
    assert "import with" not in captured.out and "no import fits this file" in captured.err
    f.write_text("run_record_id,constraint_id,judge_model,rubric,label\nr1,c1,j,r,pass\n", encoding="utf-8")
    assert main(["doctor", str(f)]) == 0
    assert f"import with: judgecal import verdicts {f}" in capsys.readouterr().out


# --------------------------------------------------------------------------- 8. lm-eval: no metric 0/1 throughout


def test_lmeval_file_whose_every_metric_is_left_out_names_the_metric_line_and_value(tmp_path, capsys) -> None:
    folder = tmp_path / "org__model"
    folder.mkdir()
    rows = [json.loads(line) for line in LMEVAL.read_text(encoding="utf-8").splitlines()]
    for k, r in enumerate(rows):
        r["metrics"] = ["exact_match"]
        r["exact_match"] = [1, None, 0][k]
    f = jsonl(folder / LMEVAL.name, rows)
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "lmeval", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2: exact_match: exact_match is not 0/1 throughout the file (here: null)" in err
    assert "no lmeval samples with an output" not in err
    assert not db.exists()
