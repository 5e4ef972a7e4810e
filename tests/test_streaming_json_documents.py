"""The one-document harness files stream (issue 16.1, third round): promptfoo's `-o out.json` and DeepEval's test run
are read with ijson a block at a time, a first pass checking the whole document and finding the run's own fields,
a second handing the rows on one at a time. As for the line-oriented imports: a bad row after the first chunk leaves
every table as it was (one transaction), and errors name the file, the line (the document's line 1 with the JSON path
and item index for a bad row; the exact line for invalid JSON) and the field."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from judgecal import evalsets
from judgecal.cli import main
from judgecal.evalsets import _harness  # house: private
from judgecal.evalsets._harness import document_head, document_items  # house: private
from judgecal.evalsets._io import InputError  # house: private

N = evalsets.BATCH_ROWS + 40  # more than one chunk: the bad row comes after the first chunk was written
TABLES = ("eval_items", "constraints", "run_records", "verdicts", "rubrics", "human_labels", "samples")


def _snapshot(db: Path) -> dict[str, list]:
    with sqlite3.connect(db) as conn:
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}"))) for t in TABLES}


def _refused_unchanged(db: Path, kind: str, file: Path, capsys, expect: str) -> None:
    before = _snapshot(db)
    assert main(["--db", str(db), "import", kind, str(file)]) == 2
    err = capsys.readouterr().err
    assert expect in err and "nothing was imported" in err, err
    assert _snapshot(db) == before


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    seed = tmp_path / "seed.jsonl"
    seed.write_text(json.dumps({"id": "seed", "instruction": "x",
                                "constraints": [{"id": "c", "text": "t", "type": "content"}]}) + "\n")
    assert main(["--db", str(path), "import", "evalset", str(seed)]) == 0
    return path


def _promptfoo(n: int) -> list[dict]:
    return [{"id": f"res{k}", "testIdx": k, "promptIdx": 0, "prompt": {"raw": f"Q{k}?"},
             "provider": {"id": "openai:gpt-x"}, "response": {"output": f"A{k} \u00e9 \U0001F600"}, "vars": {"q": k},
             "gradingResult": {"componentResults": [{"pass": k % 2 == 0, "score": 0.5, "reason": "ok",
                                                     "assertion": {"type": "llm-rubric", "value": "is right"}}]}}
            for k in range(n)]


def _promptfoo_doc(rows: list[dict], eval_id: str | None = "eval-1", *, id_last: bool = False) -> dict:
    doc: dict = {"results": {"version": 3, "results": rows}, "config": {}}
    if eval_id is not None:
        doc = {**doc, "evalId": eval_id} if id_last else {"evalId": eval_id, **doc}
    return doc


def _deepeval(n: int) -> list[dict]:
    return [{"name": f"c{k}", "input": f"Q{k}", "actualOutput": f"A{k}", "order": k,
             "metricsData": [{"name": "Correctness", "success": k % 2 == 0, "score": 1.0, "threshold": 0.5}]}
            for k in range(n)]


def _write(path: Path, doc, *, indent: int | None = 2, ensure_ascii: bool = True) -> Path:
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=ensure_ascii), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ promptfoo .json

def test_promptfoo_json_bad_row_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    rows = _promptfoo(N)
    rows[-1]["gradingResult"]["componentResults"][0]["pass"] = "maybe"
    f = _write(tmp_path / "out.json", _promptfoo_doc(rows))
    _refused_unchanged(db, "promptfoo", f, capsys,
                       f"{f}:1: results.results[{N - 1}].gradingResult.componentResults.pass: llm-rubric: expected "
                       "true or false")
    good = _write(tmp_path / "good.json", _promptfoo_doc(_promptfoo(N)))
    assert main(["--db", str(db), "import", "promptfoo", str(good)]) == 0
    assert f"{N} run records, {N} verdicts imported" in capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        # the text as json.loads reads it: escapes (an emoji as a surrogate pair) decoded, floats as floats
        assert conn.execute("SELECT output FROM run_records WHERE id = 'promptfoo:eval-1:res7'").fetchone()[0] \
            == "A7 \u00e9 \U0001F600"
    assert main(["--db", str(db), "import", "promptfoo", str(good)]) == 0  # idempotent
    assert "0 run records, 0 verdicts imported" in capsys.readouterr().out


def test_promptfoo_json_imports_the_same_rows_as_jsonl_and_finds_a_late_eval_id(tmp_path: Path):
    rows = _promptfoo(30)
    late = evalsets.HARNESSES["promptfoo"].read(_write(tmp_path / "late.json", _promptfoo_doc(rows, id_last=True)))
    one_line = evalsets.HARNESSES["promptfoo"].read(_write(tmp_path / "one.json", _promptfoo_doc(rows), indent=None))
    assert [r.id for r in late.runs.rows] == [r.id for r in one_line.runs.rows] == \
        [f"promptfoo:eval-1:res{k}" for k in range(30)]
    assert late.verdicts.rows == one_line.verdicts.rows and len(late.verdicts.rows) == 30
    # results as a bare list (older promptfoo) still reads
    bare = evalsets.HARNESSES["promptfoo"].read(_write(tmp_path / "bare.json", {"evalId": "e", "results": rows}))
    assert len(bare.runs.rows) == 30
    # no evalId: each result keyed on its own id (a review, wave 15: a re-serialised copy made new run records)...
    nameless = _write(tmp_path / "nameless.json", _promptfoo_doc(rows, eval_id=None))
    h = evalsets.HARNESSES["promptfoo"].read(nameless)
    assert (h.runs.rows[0].id, h.runs.rows[0].run_id) == ("promptfoo:res0", None)
    # ...and a result without one on the file's hash, the same as when the file was read whole
    nameless = _write(tmp_path / "nameless.json",
                      _promptfoo_doc([{k: v for k, v in r.items() if k != "id"} for r in rows], eval_id=None))
    h = evalsets.HARNESSES["promptfoo"].read(nameless)
    assert h.runs.rows[0].run_id == f"file-{_harness.file_sha8(nameless.read_text(encoding='utf-8'))}"


def test_promptfoo_json_without_a_list_of_results_is_refused(db: Path, tmp_path: Path, capsys):
    f = _write(tmp_path / "out.json", {"evalId": "e", "results": {"results": {"0": _promptfoo(1)[0]}}})
    _refused_unchanged(db, "promptfoo", f, capsys, f"{f}:1: results.results: expected the list of test results")


# ------------------------------------------------------------------------------------------------ DeepEval

def test_deepeval_bad_case_after_the_first_chunk_changes_nothing_pretty_printed(db: Path, tmp_path: Path, capsys):
    cases = _deepeval(N)
    cases[-1]["input"] = 7
    f = _write(tmp_path / "run.json", {"testRunData": {"testCases": cases, "identifier": "run-1"}})
    _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: testCases[{N - 1}].input: missing")


def test_deepeval_reads_the_runs_fields_written_after_the_cases(tmp_path: Path):
    # DeepEval's TestRun model writes testCases first, identifier and hyperparameters after: a reader that only
    # went forward would make run ids and models without them.
    doc = {"testFile": "t.py", "testCases": _deepeval(3), "conversationalTestCases": [{"name": "x"}, {"name": "y"}],
           "metricsScores": [], "identifier": "run-late", "hyperparameters": {"model": "gpt-late", "k": [1, {"a": 2}]}}
    for name, wrapped in (("plain.json", doc), ("wrapped.json", {"testRunData": doc, "link": None})):
        h = evalsets.HARNESSES["deepeval"].read(_write(tmp_path / name, wrapped))
        assert [r.id for r in h.runs.rows] == ["deepeval:run-late:0", "deepeval:run-late:1", "deepeval:run-late:2"]
        assert {r.model for r in h.runs.rows} == {"gpt-late"}
        assert h.skipped["conversational test cases (not imported yet)"] == 2


def test_deepeval_conversational_cases_that_are_not_a_list_are_refused(db: Path, tmp_path: Path, capsys):
    f = _write(tmp_path / "run.json", {"testCases": _deepeval(2), "conversationalTestCases": {"a": 1}})
    _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: conversationalTestCases: expected the list")


@pytest.mark.parametrize("field,value,expect", [
    ("name", ["France"], "testCases[1].name: expected a string"),
    ("order", [1], "testCases[1].order: expected an integer"),
    ("order", True, "testCases[1].order: expected an integer"),
    ("evaluationModel", ["x"], "testCases[1].metricsData[0].evaluationModel: expected a string"),
    ("score", ["x"], "testCases[1].metricsData[0].score: expected a number"),
])
def test_deepeval_fields_ids_are_made_of_must_have_their_type(db: Path, tmp_path: Path, capsys, field, value, expect):
    """A list where a string or a number goes was stored as its Python text in ids, judge names and reasons (a
    review, wave 13: `order: [1]` made the run record id "deepeval:...:[1]")."""
    cases = _deepeval(2)
    if field in ("name", "order"):
        cases[1][field] = value
    else:
        cases[1]["metricsData"][0][field] = value
    f = _write(tmp_path / "run.json", {"testCases": cases, "identifier": "run-1"})
    _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: {expect}")


def test_deepeval_names_a_metric_by_its_place_in_the_file(db: Path, tmp_path: Path, capsys):
    cases = _deepeval(1)
    cases[0]["metricsData"] = [None, dict(cases[0]["metricsData"][0], score="0.9")]
    f = _write(tmp_path / "run.json", {"testCases": cases, "identifier": "run-1"})
    _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: testCases[0].metricsData[1].score: expected a number")


def test_deepeval_run_fields_must_be_text(db: Path, tmp_path: Path, capsys):
    f = _write(tmp_path / "run.json", {"testCases": _deepeval(1), "hyperparameters": {"model": ["m"]}})
    _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: hyperparameters.model: expected a string")


def test_deepeval_without_test_cases_is_refused(db: Path, tmp_path: Path, capsys):
    for i, doc in enumerate(({"testCases": {"0": 1}}, [1, 2], {"testRunData": {"identifier": "x"}})):
        f = _write(tmp_path / f"run{i}.json", doc)
        _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: testCases: expected a DeepEval test run")


# ------------------------------------------------------------------------------------------------ invalid JSON

@pytest.mark.parametrize("kind, make", [("promptfoo", lambda n: _promptfoo_doc(_promptfoo(n))),
                                        ("deepeval", lambda n: {"testCases": _deepeval(n), "identifier": "r"})])
def test_invalid_json_deep_in_a_document_names_its_line_and_changes_nothing(db: Path, tmp_path: Path, capsys,
                                                                           kind: str, make):
    text = json.dumps(make(N), indent=2)
    lines = text.split("\n")
    bad = len(lines) - 40
    lines[bad] = lines[bad].replace(":", ": NaN,", 1) if ":" in lines[bad] else lines[bad] + " x"
    f = tmp_path / "broken.json"
    f.write_text("\n".join(lines), encoding="utf-8")
    _refused_unchanged(db, kind, f, capsys, f"{f}:{bad + 1}: (json): invalid JSON: lexical error")
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[:-10], encoding="utf-8")
    _refused_unchanged(db, kind, truncated, capsys,
                       f"{truncated}:{text[:-10].count(chr(10)) + 1}: (json): invalid JSON: parse error: premature EOF")


@pytest.mark.parametrize("kind, make", [("promptfoo", lambda n: _promptfoo_doc(_promptfoo(n))),
                                        ("deepeval", lambda n: {"testCases": _deepeval(n), "identifier": "r"})])
def test_a_lone_surrogate_escape_is_refused_not_turned_into_a_question_mark(db: Path, tmp_path: Path, capsys,
                                                                           kind: str, make):
    # yajl writes "?" for a lone high surrogate escape (and fails on a lone low one); load_json refuses both.
    for escape in ("\\ud800", "\\udc00"):
        text = json.dumps(make(30), indent=2).replace('"A29', f'"A29 {escape}')
        f = tmp_path / "lone.json"
        f.write_text(text, encoding="utf-8")
        line = text[:text.index(escape)].count("\n") + 1
        _refused_unchanged(db, kind, f, capsys, f"{f}:{line}: (json): invalid JSON: a lone surrogate escape")


def test_document_head_checks_what_load_json_checks(tmp_path: Path):
    cases = {
        "deep.json": ('{"a": ' + "[" * 250 + "]" * 250 + "}", 1, "nested more than 200 levels deep"),
        "empty.json": ("  \n\n", 0, "no rows (empty file)"),
        "trailing.json": ('{"a": 1}\n{"a": 2}\n', 2, "trailing garbage"),
        "bad-utf8.json": (b'{"a":\n\n "\xff"}', 3, "invalid JSON"),
        "huge-int.json": ('{"a":\n' + "9" * 30 + "}", 2, "integer overflow"),
    }
    for name, (text, line, message) in cases.items():
        f = tmp_path / name
        f.write_bytes(text if isinstance(text, bytes) else text.encode())
        with pytest.raises(InputError) as exc:
            document_head(f)
        [problem] = exc.value.problems
        assert (problem.file, problem.line) == (str(f), line) and message in problem.message, problem
    # what it accepts: a BOM, an escaped backslash before "u" (text, not an escape), pairs across a block boundary
    for pad in range(_harness._BLOCK - 20, _harness._BLOCK + 4):
        f = tmp_path / "ok.json"
        f.write_bytes(b"\xef\xbb\xbf" + json.dumps({"x": "a" * pad + "\U0001F600 \\ud800", "y": [1.5, 2]}).encode())
        head = document_head(f, values=["y"], kinds=["x"])
        assert head.values == {"y": [1.5, 2]} and head.kinds == {"x": "string"}
        assert json.loads(f.read_text(encoding="utf-8-sig"))["x"].endswith("\U0001F600 \\ud800")
    assert list(document_items(f, "y")) == [1.5, 2]


def test_a_document_is_never_read_whole(db: Path, tmp_path: Path, monkeypatch):
    # Bounded by the block and the row: nothing reads the file's text whole, no json.loads of more than one row,
    # no read of more than one block.
    f = _write(tmp_path / "out.json", _promptfoo_doc(_promptfoo(N)))
    d = _write(tmp_path / "run.json", {"testCases": _deepeval(N), "identifier": "r"})
    assert f.stat().st_size > 8 * _harness._BLOCK and d.stat().st_size > 8 * _harness._BLOCK
    real_loads, real_read = json.loads, _harness._DocumentBytes.read
    reads: list[int] = []

    def small_loads(text, *a, **k):
        assert len(text) < 10_000, "json.loads of a whole document"
        return real_loads(text, *a, **k)

    def counted_read(self, size=_harness._BLOCK):
        block = real_read(self, size)
        reads.append(len(block))
        return block

    monkeypatch.setattr(json, "loads", small_loads)
    monkeypatch.setattr(_harness._DocumentBytes, "read", counted_read)
    monkeypatch.setattr(_harness, "read_text_file", lambda *a: pytest.fail("read whole"))
    monkeypatch.setattr(Path, "read_text", lambda *a, **k: pytest.fail("read whole"))
    assert main(["--db", str(db), "import", "promptfoo", str(f)]) == 0
    assert main(["--db", str(db), "import", "deepeval", str(d)]) == 0
    assert max(reads) <= _harness._BLOCK and len(reads) > 16


# ------------------------------------------------------------------------------------------------ duplicate ids

def test_a_repeated_sample_id_in_a_one_document_file_is_refused_by_name(db: Path, tmp_path: Path, capsys):
    """Every row of a one-document file is on line 1, so "the same line" cannot tell a row from an earlier one
    (SeenKeys numbers the rows): a repeated DeepEval `order` or promptfoo result id is a clear error naming the
    field, not the database's UNIQUE failure, and nothing is written."""
    cases = _deepeval(N)
    cases[-1]["order"] = 3  # after the first chunk
    f = _write(tmp_path / "run.json", {"testRunData": {"testCases": cases, "identifier": "run-1"}})
    _refused_unchanged(db, "deepeval", f, capsys, "a second sample with id 'deepeval:run-1:3' (first on line 1)")
    rows = _promptfoo(40)
    rows[20]["id"] = "res2"
    f = _write(tmp_path / "out.json", _promptfoo_doc(rows))
    _refused_unchanged(db, "promptfoo", f, capsys, "a second sample with id 'promptfoo:eval-1:res2' (first on line 1)")
