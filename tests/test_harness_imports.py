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


# --------------------------------------------------------------------------- promptfoo, lm-eval, Langfuse

LMEVAL = FIXTURES / "lmeval" / "stub-org__capital-model" / "samples_capitals_gen_2026-11-30T19-00-00.000000.jsonl"


def test_promptfoo_result_calibrates_llm_rubric_and_g_eval(tmp_path, capsys) -> None:
    # promptfoo_capitals.json (real promptfoo 0.120.0, make_promptfoo.py): the llm-rubric grader fails "Tokyo." and
    # passes "Sydney." (both wrong); g-eval scores 0.9, 0.9, 0.3 against its threshold 0.7 (all right).
    assert calibrate(tmp_path, "promptfoo", FIXTURES / "promptfoo_capitals.json", capsys) == {
        "promptfoo:llm-rubric": (1, 3), "promptfoo:g-eval": (3, 3)}


def test_promptfoo_keeps_the_raw_score_and_the_threshold(tmp_path) -> None:
    h = HARNESSES["promptfoo"].read(FIXTURES / "promptfoo_capitals.json")
    geval = sorted(v.reason for v in h.verdicts.rows if v.constraint_id == "g-eval")
    assert geval[0].startswith("[promptfoo score 0.3; label from the file's pass field (threshold 0.7)]")
    assert {v.judge_model for v in h.verdicts.rows} == {"openai:chat:stub-grader"}
    assert {r.model for r in h.runs.rows} == {"openai:chat:stub-model"}


def test_lmeval_samples_calibrate_exact_match_and_skip_bleu(tmp_path, capsys) -> None:
    # exact_match is 0 for " The capital of France is Paris." (a human passes it), 1 for Tokyo, 0 for Sydney: 2 of 3.
    # bleu is a score without a pass mark: not a constraint, not a verdict.
    assert calibrate(tmp_path, "lmeval", LMEVAL, capsys) == {"lmeval:capitals_gen:exact_match": (2, 3)}
    h = HARNESSES["lmeval"].read(LMEVAL)
    assert {c.id for i in h.items.rows for c in i.constraints} == {"exact_match"}
    assert {r.model for r in h.runs.rows} == {"stub-org/capital-model"}  # from lm-eval's output folder name


def test_langfuse_export_calibrates_evaluator_scores_not_human_ones(tmp_path, capsys) -> None:
    # correctness (BOOLEAN, EVAL) passes Sydney: 2 of 3; verdict (CATEGORICAL correct/incorrect) is right on all 3.
    # helpfulness (NUMERIC 0.7) has no pass mark and ANNOTATION scores are humans': neither becomes a verdict.
    assert calibrate(tmp_path, "langfuse", FIXTURES / "langfuse_capitals.jsonl", capsys) == {
        "langfuse:correctness": (2, 3), "langfuse:verdict": (3, 3)}
    h = HARNESSES["langfuse"].read(FIXTURES / "langfuse_capitals.jsonl")
    assert h.skipped == {"human annotation scores (source ANNOTATION or an authorUserId: import them as labels)": 3,
                         "scores of helpfulness (not pass/fail throughout the file)": 3}


def test_a_numeric_score_that_is_once_1_is_not_a_pass(tmp_path) -> None:
    # The attack: helpfulness 1.0 on one trace would read as "pass" if each score were mapped alone.
    rows = [json.loads(line) for line in (FIXTURES / "langfuse_capitals.jsonl").read_text().splitlines()]
    for r in rows:
        if r.get("id") == "score-fr-3":
            r["value"] = 1
    f = tmp_path / "lf.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    h = HARNESSES["langfuse"].read(f)
    assert "helpfulness" not in {v.constraint_id for v in h.verdicts.rows}


@pytest.mark.parametrize("kind,edit,where", [
    # (kind, how the fixture is broken, what the error must name)
    ("promptfoo", lambda d: d["results"]["results"][1]["prompt"].pop("raw"), ":1: results.results[1].prompt.raw"),
    ("promptfoo", lambda d: d["results"]["results"][2]["gradingResult"]["componentResults"][0].__setitem__("pass", "yes"),
     "results.results[2].gradingResult.componentResults.pass"),
])
def test_bad_promptfoo_file_names_file_line_and_field_and_changes_nothing(tmp_path, capsys, kind, edit, where) -> None:
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "lmeval", str(LMEVAL)]) == 0
    before = counts(db)
    doc = json.loads((FIXTURES / "promptfoo_capitals.json").read_text(encoding="utf-8"))
    edit(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    capsys.readouterr()
    assert main(["--db", str(db), "import", kind, str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and where in err and "nothing was imported" in err
    assert counts(db) == before


def test_bad_line_in_jsonl_is_named_by_its_line(tmp_path, capsys) -> None:
    lines = LMEVAL.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["arguments"] = {"gen_args_0": {}}
    folder = tmp_path / "org__m"
    folder.mkdir()
    bad = folder / LMEVAL.name
    bad.write_text("\n".join(lines[:2] + [json.dumps(row)]) + "\n", encoding="utf-8")
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "lmeval", str(bad)]) == 2
    assert f"{bad}:3: arguments: no prompt found" in capsys.readouterr().err
    assert not db.exists()
    (folder / "x.jsonl").write_text('{"doc_id": 0}\n{not json\n', encoding="utf-8")
    assert main(["--db", str(db), "import", "lmeval", str(folder / "x.jsonl")]) == 2
    assert "x.jsonl:2: (json): invalid JSON" in capsys.readouterr().err


def test_a_harness_import_is_one_transaction(tmp_path, capsys) -> None:
    # The second file adds a new trace (item, run record, verdicts: all valid) and changes the stored verdict of an
    # old one; the store refuses the change only after the new item and run record are written in the transaction.
    # All of it must roll back: the new trace must not stay behind.
    rows = [json.loads(line) for line in (FIXTURES / "langfuse_capitals.jsonl").read_text().splitlines()]
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "langfuse", str(FIXTURES / "langfuse_capitals.jsonl")]) == 0
    before = counts(db)
    new_trace = dict(rows[0], id="trace-de", input={"question": "What is the capital of Germany?"}, output="Berlin.")
    new_score = dict(rows[3], id="score-de-1", traceId="trace-de")
    for r in rows:
        if r.get("id") == "score-fr-1":
            r["comment"] = "a different reason"
    f = tmp_path / "lf.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in [new_trace, new_score, *rows]), encoding="utf-8")
    assert main(["--db", str(db), "import", "langfuse", str(f)]) == 2
    assert "a different verdict for this pair" in capsys.readouterr().err
    assert counts(db) == before
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM run_records WHERE id = 'langfuse:trace-de'").fetchone()[0] == 0


# --------------------------------------------------------------------------- DeepEval


def test_deepeval_run_calibrates_its_metrics_and_a_metric_error_is_an_error_row(tmp_path, capsys) -> None:
    # deepeval_capitals.json (real deepeval 4.3.1, make_deepeval.py): Correctness [GEval] scores Tokyo 0.3 and Sydney
    # 0.9 against threshold 0.5 (both wrong): 1 of 3. Directness fails Tokyo (wrong) and errored on Sydney: the error
    # is an error row, never a label, so that pair has no valid repeat and counts as a disagreement: 1 of 3.
    assert calibrate(tmp_path, "deepeval", FIXTURES / "deepeval_capitals.json", capsys) == {
        "deepeval:Correctness [GEval]": (1, 3), "deepeval:Directness [GEval]": (1, 3)}
    with sqlite3.connect(tmp_path / "p.db") as conn:
        rows = conn.execute("SELECT label, error, error_detail, judge_model FROM verdicts WHERE error IS NOT NULL"
                            ).fetchall()
    assert rows == [(None, "harness_error", "the judge endpoint timed out", "stub-judge-2")]


# --------------------------------------------------------------------------- doctor


@pytest.mark.parametrize("file,kind", [
    ("inspect_capitals.eval", "inspect"), ("promptfoo_capitals.json", "promptfoo"),
    ("deepeval_capitals.json", "deepeval"), ("langfuse_capitals.jsonl", "langfuse"), (str(LMEVAL), "lmeval"),
    ("../../../data/demo_evalset.jsonl", "evalset"), ("../../../data/demo_runs.jsonl", "runs"),
    ("../../../data/demo_labels.jsonl", "labels"), ("../../../data/demo_verdicts.jsonl", "verdicts"),
])
def test_doctor_names_the_import_that_fits(capsys, file, kind) -> None:
    path = FIXTURES / file
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"import with: judgecal import {kind} {path}" in out
    from judgecal.cli import IMPORTERS
    assert kind in IMPORTERS


def test_doctor_says_what_the_closest_format_lacks_and_exits_2(tmp_path, capsys) -> None:
    f = tmp_path / "half.jsonl"
    f.write_text('{"run_record_id": "r1", "constraint_id": "c1", "rule": "random"}\n'
                 '{"doc_id": 0, "target": "x"}\n', encoding="utf-8")
    # the sample rows fit `import samples` by their fields, but the import would refuse the other row's fields
    # (doctor said "import with" before; a review, wave 13)
    assert main(["doctor", str(f)]) == 2
    captured = capsys.readouterr()
    assert "recognised: judgecal review sample (`import samples`)" in captured.out
    assert "but `import samples` would refuse it: it takes no field doc_id, target" in captured.out
    f.write_text('{"run_record_id": "r1", "constraint_id": "c1", "rule": "random"}\n', encoding="utf-8")
    assert main(["doctor", str(f)]) == 0
    assert "import with: judgecal import samples" in capsys.readouterr().out
    f.write_text('{"doc_id": 0, "target": "Paris"}\n', encoding="utf-8")
    assert main(["doctor", str(f)]) == 2
    captured = capsys.readouterr()
    assert "lm-evaluation-harness" in captured.out and "needs resps or filtered_resps, arguments" in captured.out
    assert "no import fits this file" in captured.err
    csv = tmp_path / "x.csv"
    csv.write_text("question,answer\nq,a\n", encoding="utf-8")
    assert main(["doctor", str(csv)]) == 2
    assert not (tmp_path / "judgecal.db").exists()


def test_doctor_does_not_call_a_fit_what_the_import_refuses(tmp_path, capsys) -> None:
    """A review (wave 13) found doctor saying "import with" for files the import then refused."""
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"id": "x-1", "item_id": "demo-001", "model": "m", "output": "hi", "bogus": 1}\n'
                    '{"id": "x-2", "item_id": "demo-001", "model": "m", "output": "hi"}\n', encoding="utf-8")
    assert main(["doctor", str(runs)]) == 2
    captured = capsys.readouterr()
    assert "but `import runs` would refuse it: it takes no field bogus" in captured.out
    assert "no import fits this file" in captured.err
    log = tmp_path / "log.zip"
    shutil.copy(FIXTURES / "inspect_capitals.eval", log)
    assert main(["doctor", str(log)]) == 2
    assert "reads a log by its name's suffix (.eval or .json), not .zip" in capsys.readouterr().out


def test_doctor_fits_every_export_of_ours(tmp_path, capsys) -> None:
    """An export's header line (`judgecal_export`) and every field the export writes are taken by its import."""
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    labels = tmp_path / "labels.jsonl"
    labels.write_text((FIXTURES / "../../../data/demo_labels.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["--db", str(db), "import", "labels", str(labels)]) == 0
    for kind in ("labels", "verdicts", "samples"):
        out = tmp_path / f"{kind}.jsonl"
        assert main(["--db", str(db), "export", kind, "--out", str(out)]) == 0
        capsys.readouterr()
        assert main(["doctor", str(out)]) == 0, kind
        assert f"import with: judgecal import {kind} {out}" in capsys.readouterr().out


def test_doctor_field_lists_are_the_import_models():
    from judgecal.annotations.review._sample_rows import SampleRow  # house: private (the row model)
    from judgecal.annotations.store import VerdictImportRow
    from judgecal.annotations.store._label_rows import HumanLabelRow  # house: private (the row model)
    from judgecal.evalsets._harness_doctor import LABEL_FIELDS, SAMPLE_FIELDS, VERDICT_FIELDS  # house: private

    assert LABEL_FIELDS == set(HumanLabelRow.model_fields)
    assert VERDICT_FIELDS == set(VerdictImportRow.model_fields)
    assert SAMPLE_FIELDS == set(SampleRow.model_fields)


def test_promptfoo_jsonl_output_imports_the_same_rows(tmp_path) -> None:
    # `promptfoo eval -o out.jsonl` writes one result per line; the same results give the same verdicts.
    doc = json.loads((FIXTURES / "promptfoo_capitals.json").read_text(encoding="utf-8"))
    f = tmp_path / "out.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in doc["results"]["results"]), encoding="utf-8")
    a, b = HARNESSES["promptfoo"].read(FIXTURES / "promptfoo_capitals.json"), HARNESSES["promptfoo"].read(f)
    assert [i.id for i in a.items.rows] == [i.id for i in b.items.rows]
    assert [(v.constraint_id, v.label, v.reason) for v in a.verdicts.rows] == \
        [(v.constraint_id, v.label, v.reason) for v in b.verdicts.rows]
    assert b.verdicts.lines == [1, 1, 2, 2, 3, 3]


def test_the_review_app_serves_and_reveals_harness_rows(tmp_path, capsys, monkeypatch) -> None:
    # The app needs nothing new for harness rows: the review card shows the harness's prompt and output, a label is
    # stored against the harness's run record, and the reveal shows the harness judge's label with its raw score.
    from streamlit.testing.v1 import AppTest

    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "promptfoo", str(FIXTURES / "promptfoo_capitals.json")]) == 0
    assert main(["--db", str(db), "sample", "--rate", "1"]) == 0
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    assert not at.exception
    shown = "\n".join([t.value for t in at.text] + [c.value for c in at.code] + [m.value for m in at.markdown])
    assert "What is the capital of" in shown
    at.button(key="label_1").click().run()
    assert not at.exception
    with sqlite3.connect(db) as conn:
        [(rid, label)] = conn.execute("SELECT run_record_id, label FROM human_labels").fetchall()
    assert rid.startswith("promptfoo:") and label == "pass"
    revealed = "\n".join([t.value for t in at.text] + [m.value for m in at.markdown])
    assert "Judge:" in revealed and "[promptfoo score" in revealed


@needs_inspect
def test_an_inspect_scorer_with_a_continuous_value_is_not_a_judge(tmp_path) -> None:
    # The attack: one 0.8 among C/I grades. Reading 0.8 as "fail" would be a threshold we invented; the scorer is
    # left out whole (no constraint, no verdicts) and the message counts its results.
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(FIXTURES / "inspect_capitals.eval"))
    log.samples[0].scores["model_graded_fact"].value = 0.8
    out = tmp_path / "edited.eval"
    write_eval_log(log, str(out))
    h = HARNESSES["inspect"].read(out)
    assert {c.id for i in h.items.rows for c in i.constraints} == {"model_graded_qa"}
    assert {v.constraint_id for v in h.verdicts.rows} == {"model_graded_qa"}
    assert h.skipped == {"scores of model_graded_fact (not pass/fail throughout the log)": 3}


@needs_inspect
def test_an_inspect_json_log_imports_the_same_rows_as_the_eval_log(tmp_path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    out = tmp_path / "capitals.json"
    write_eval_log(read_eval_log(str(FIXTURES / "inspect_capitals.eval")), str(out))
    a, b = HARNESSES["inspect"].read(FIXTURES / "inspect_capitals.eval"), HARNESSES["inspect"].read(out)
    assert [r.id for r in a.runs.rows] == [r.id for r in b.runs.rows]
    assert a.verdicts.rows == b.verdicts.rows


@needs_inspect
def test_an_inspect_chat_input_is_stored_as_role_and_content(tmp_path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    log = read_eval_log(str(FIXTURES / "inspect_capitals.eval"))
    log.samples[0].input = [ChatMessageSystem(content="Answer briefly."), ChatMessageUser(content="Capital of Peru?")]
    out = tmp_path / "chat.eval"
    write_eval_log(log, str(out))
    h = HARNESSES["inspect"].read(out)
    chat = [i for i in h.items.rows if "Peru" in i.instruction]
    assert json.loads(chat[0].instruction) == [{"role": "system", "content": "Answer briefly."},
                                              {"role": "user", "content": "Capital of Peru?"}]
