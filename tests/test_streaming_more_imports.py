"""Streaming for the imports that read the whole file before issue 16.1's second pass: `import samples`, `ifeval`,
`llmbar` and the harness imports (lmeval, langfuse, promptfoo JSONL, deepeval, inspect). Each is read, checked and
written a chunk at a time inside ONE write transaction: a bad row after the first chunk leaves the project exactly as
it was (SQLite's atomicity, not an in-memory list), and the error still names file, line and field."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal._cmd_harness import import_harness_chunks  # house: private
from judgecal.cli import main

N = evalsets.BATCH_ROWS + 40  # more than one chunk: the bad row comes after the first chunk was written
TABLES = ("eval_items", "constraints", "run_records", "verdicts", "rubrics", "human_labels", "samples")


def _snapshot(db: Path) -> dict[str, list]:
    """Every row of every table an import writes: 'unchanged' means unchanged, not only the same counts."""
    with sqlite3.connect(db) as conn:
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}"))) for t in TABLES}


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def _refused_unchanged(db: Path, kind: str, file: Path, capsys, expect: str) -> None:
    before = _snapshot(db)
    assert main(["--db", str(db), "import", kind, str(file)]) == 2
    assert expect in capsys.readouterr().err
    assert _snapshot(db) == before


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    item = {"id": "seed", "instruction": "x", "constraints": [{"id": "c", "text": "t", "type": "content"}]}
    assert main(["--db", str(path), "import", "evalset", str(_jsonl(tmp_path / "seed.jsonl", [item]))]) == 0
    return path


# ------------------------------------------------------------------------------------------------------- IFEval

def _ifeval(n: int) -> list[dict]:
    return [{"key": k, "prompt": f"Write {k}.", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}],
             "response": f"answer {k}"} for k in range(n)]


def test_ifeval_bad_row_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    rows = _ifeval(N)
    rows[-1] = {**rows[-1], "instruction_id_list": ["no:such"]}
    f = _jsonl(tmp_path / "if.jsonl", rows)
    _refused_unchanged(db, "ifeval", f, capsys, f"{f}:{N}: instruction_id_list.0: unknown IFEval instruction")
    dup = _jsonl(tmp_path / "dup.jsonl", _ifeval(N) + [_ifeval(3)[2]])  # a key first seen in the first chunk
    _refused_unchanged(db, "ifeval", dup, capsys, f"{dup}:{N + 1}: key: duplicate id 2 (first on line 3)")
    good = _jsonl(tmp_path / "good.jsonl", _ifeval(N))
    assert main(["--db", str(db), "import", "ifeval", str(good)]) == 0
    assert f"IFEval: {N} eval items and {N} run records imported" in capsys.readouterr().out
    assert main(["--db", str(db), "import", "ifeval", str(good)]) == 0  # idempotent
    assert "IFEval: 0 eval items and 0 run records imported" in capsys.readouterr().out


def test_ifeval_rows_are_written_chunk_by_chunk(db: Path, tmp_path: Path):
    f = _jsonl(tmp_path / "if.jsonl", _ifeval(10))
    seen = []
    with ann.unit_of_work(db) as conn:
        def watched():
            for chunk in evalsets.stream_ifeval(f, batch=4):
                seen.append(conn.execute("SELECT count(*) FROM run_records").fetchone()[0])
                items, runs = evalsets.ifeval_to_evalset(chunk.rows)  # a good file: no chunk has problems
                yield evalsets.HarnessImport("ifeval", chunk.file, evalsets.Parsed(chunk.file, items, chunk.lines),
                                             evalsets.Parsed(chunk.file, runs, chunk.lines),
                                             evalsets.Parsed(chunk.file), problems=chunk.problems)
        import_harness_chunks(conn, watched())
    assert seen == [0, 4, 8]  # each chunk is in the (open) transaction before the next is read


# ------------------------------------------------------------------------------------------------------- LLMBar

def _llmbar(n: int) -> list[dict]:
    return [{"item_id": f"b{k}", "instruction": "Pick.", "output_1": "a", "output_2": "b", "human_label": 1 + k % 2,
             "judge_base_order_original": 1, "judge_base_order_swapped": None} for k in range(n)]


def test_llmbar_bad_row_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    rows = _llmbar(N)
    rows[-1] = {**rows[-1], "human_label": 3}
    f = _jsonl(tmp_path / "bar.jsonl", rows)
    _refused_unchanged(db, "llmbar", f, capsys, f"{f}:{N}: human_label: expected 1 or 2, got 3")
    dup = _jsonl(tmp_path / "dup.jsonl", _llmbar(N) + [_llmbar(1)[0]])
    _refused_unchanged(db, "llmbar", dup, capsys, f"{dup}:{N + 1}: item_id: duplicate id 'b0' (first on line 1)")
    good = _jsonl(tmp_path / "good.jsonl", _llmbar(N))
    assert main(["--db", str(db), "import", "llmbar", str(good)]) == 0
    with sqlite3.connect(db) as conn:
        strata = conn.execute("SELECT DISTINCT stratum FROM samples").fetchall()
        assert conn.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 2 * N
    # the stratum names the file's first strategy (known only at its end), never the import's placeholder
    assert strata == [(ann.stratum_key("preferred", "llmbar-pair", ann.rubric_sha("base")),)]
    changed = _llmbar(N)
    changed[-1] = {**changed[-1], "human_label": 2 - (N - 1) % 2}  # a label the project already holds differently
    _refused_unchanged(db, "llmbar", _jsonl(tmp_path / "changed.jsonl", changed), capsys,
                       f":{N}: human_label: differs from the stored label")


# ------------------------------------------------------------------------------------------------------ samples

@pytest.fixture
def sampled(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a project with N runs and no sample, the same project with a drawn sample, its exported sample file)."""
    src = tmp_path / "src.db"
    item = {"id": "i", "instruction": "x", "constraints": [{"id": "c", "text": "t", "type": "content"}]}
    assert main(["--db", str(src), "import", "evalset", str(_jsonl(tmp_path / "items.jsonl", [item]))]) == 0
    runs = [{"id": f"r{k}", "item_id": "i", "model": "m", "output": f"o{k}"} for k in range(2 * N)]
    assert main(["--db", str(src), "import", "runs", str(_jsonl(tmp_path / "runs.jsonl", runs))]) == 0
    empty = tmp_path / "empty.db"
    shutil.copy(src, empty)
    assert main(["--db", str(src), "sample", "--rate", "0.5", "--overlap", "0"]) == 0
    out = tmp_path / "samples.jsonl"
    assert main(["--db", str(src), "export", "samples", "--out", str(out)]) == 0
    return empty, src, out


def _sample_rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()[1:]]  # line 1: the export header


def test_samples_bad_row_after_the_first_chunk_changes_nothing(sampled, tmp_path: Path, capsys):
    empty, _, out = sampled
    rows = _sample_rows(out)
    assert len(rows) == N  # ceil(0.5 × 2N): more than one chunk
    bad = _jsonl(tmp_path / "bad.jsonl", rows[:-1] + [{**rows[-1], "constraint_id": "nope"}])
    _refused_unchanged(empty, "samples", bad, capsys, f"{bad}:{N}: constraint_id: no semantic pair")
    assert main(["--db", str(empty), "import", "samples", str(out)]) == 0
    assert f"sample rows: {N} imported, 0 already present" in capsys.readouterr().out
    assert main(["--db", str(empty), "import", "samples", str(out)]) == 0  # the same file again: a no-op
    assert f"sample rows: 0 imported, {N} already present" in capsys.readouterr().out


def test_samples_a_chosen_set_spanning_chunks_is_still_refused(sampled, tmp_path: Path, capsys):
    """The attack: drop the first-drawn pair and add one the draw never reached. The whole-population check runs
    after every chunk is written, and refuses the file: nothing stays."""
    empty, src, out = sampled
    rows = _sample_rows(out)
    with sqlite3.connect(src) as conn:
        drawn = {r[0] for r in conn.execute("SELECT run_record_id FROM samples")}
    outsider = next(f"r{k}" for k in range(2 * N) if f"r{k}" not in drawn)
    chosen = _jsonl(tmp_path / "chosen.jsonl", rows[1:] + [{**rows[0], "run_record_id": outsider}])
    _refused_unchanged(empty, "samples", chosen, capsys, "is not the first")
    within = _jsonl(tmp_path / "twice.jsonl", rows + [{**rows[0], "stratum": "other"}])  # the same pair twice
    _refused_unchanged(empty, "samples", within, capsys,
                       f"{within}:{N + 1}: rule: this pair is already in the sample under this rule")


# ----------------------------------------------------------------------------------------------------- harnesses

def _lmeval(n: int) -> list[dict]:
    return [{"doc_id": k, "arguments": {"gen_args_0": {"arg_0": f"Q{k}?", "arg_1": {}}}, "resps": [[f"A{k}"]],
             "filtered_resps": [f"A{k}"], "target": f"A{k}", "exact_match": k % 2, "filter": "none",
             "metrics": ["exact_match"]} for k in range(n)]


def test_lmeval_bad_row_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    folder = tmp_path / "org__model"
    folder.mkdir()
    name = "samples_qa_2026-11-30T10-00-00.000000.jsonl"
    rows = _lmeval(N)
    rows[-1] = {k: v for k, v in rows[-1].items() if k != "arguments"}
    f = _jsonl(folder / name, rows)
    _refused_unchanged(db, "lmeval", f, capsys, f"{f}:{N}: arguments: no prompt found")
    broken = _jsonl(folder / "broken.jsonl", _lmeval(N) + ["{not json"])
    _refused_unchanged(db, "lmeval", broken, capsys, f"{broken}:{N + 1}: (json): invalid JSON")
    dup = _jsonl(folder / name, _lmeval(N) + [_lmeval(1)[0]])
    _refused_unchanged(db, "lmeval", dup, capsys, f":{N + 1}: resps: a second sample with id")
    good = _jsonl(folder / name, _lmeval(N))
    assert main(["--db", str(db), "import", "lmeval", str(good)]) == 0
    assert f"{N} run records, {N} verdicts imported (0 already present)" in capsys.readouterr().out
    assert main(["--db", str(db), "import", "lmeval", str(good)]) == 0
    assert f"0 eval items, 0 run records, 0 verdicts imported ({3 * N} already present)" in capsys.readouterr().out


def test_lmeval_a_metric_that_is_not_0_1_late_in_the_file_is_no_judge_anywhere(db: Path, tmp_path: Path):
    """The first pass sees the whole file: a 0.5 on the last line makes the metric a score on every line, also on
    the chunks before it (a one-pass stream would have imported them as pass/fail verdicts)."""
    rows = [{**r, "acc": 1, "metrics": ["exact_match", "acc"]} for r in _lmeval(N)]
    rows[-1] = {**rows[-1], "exact_match": 0.5}
    h = evalsets.HARNESSES["lmeval"].read(_jsonl(tmp_path / "s.jsonl", rows))
    assert {v.constraint_id for v in h.verdicts.rows} == {"acc"} and len(h.verdicts.rows) == N
    assert h.skipped["values of exact_match (not 0/1 throughout the file: a score without a pass mark)"] == N


def test_harness_rows_are_written_as_the_file_is_read(db: Path, tmp_path: Path):
    f = _jsonl(tmp_path / "s.jsonl", _lmeval(N))
    seen = []
    with ann.unit_of_work(db) as conn:
        def watched():
            for chunk in evalsets.HARNESSES["lmeval"].stream(f):
                seen.append(conn.execute("SELECT count(*) FROM verdicts").fetchone()[0])
                yield chunk
        c = import_harness_chunks(conn, watched())
    assert len(seen) >= 2 and seen[0] == 0 and seen == sorted(seen) and seen[-1] > 0 and c.verdicts["inserted"] == N


def _promptfoo(n: int) -> list[dict]:
    return [{"id": f"res{k}", "testIdx": k, "promptIdx": 0, "prompt": {"raw": f"Q{k}?"},
             "provider": {"id": "openai:gpt-x"}, "response": {"output": f"A{k}"}, "vars": {"q": k},
             "gradingResult": {"componentResults": [{"pass": k % 2 == 0, "score": 1.0, "reason": "ok",
                                                     "assertion": {"type": "llm-rubric", "value": "is right"}}]}}
            for k in range(n)]


def test_promptfoo_jsonl_bad_row_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    rows = _promptfoo(N)
    rows[-1]["gradingResult"]["componentResults"][0]["pass"] = "maybe"
    f = _jsonl(tmp_path / "out.jsonl", rows)
    _refused_unchanged(db, "promptfoo", f, capsys, f"{f}:{N}: (row).gradingResult.componentResults.pass")
    good = _jsonl(tmp_path / "good.jsonl", _promptfoo(N))
    assert main(["--db", str(db), "import", "promptfoo", str(good)]) == 0
    assert f"{N} run records, {N} verdicts imported" in capsys.readouterr().out


def test_promptfoo_json_one_line_is_still_one_document(db: Path, tmp_path: Path):
    """promptfoo's -o .json written on one line is the document, not a JSONL of one result."""
    doc = {"evalId": "eval-1", "results": {"results": _promptfoo(3)}}
    h = evalsets.HARNESSES["promptfoo"].read(_jsonl(tmp_path / "out.json", [doc]))
    assert [r.run_id for r in h.runs.rows] == ["eval-1"] * 3


def _langfuse(n: int) -> list[dict]:
    rows: list[dict] = []
    for k in range(n):
        rows.append({"id": f"t{k}", "name": "qa", "input": f"Q{k}", "output": f"A{k}"})
        rows.append({"id": f"s{k}", "traceId": f"t{k}", "name": "correct", "value": k % 2, "dataType": "BOOLEAN",
                     "source": "EVAL"})
    return rows


def test_langfuse_bad_row_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    rows = _langfuse(N)
    rows.append({"id": "s-lost", "traceId": "nowhere", "name": "correct", "value": 1, "dataType": "BOOLEAN"})
    f = _jsonl(tmp_path / "lf.jsonl", rows)
    _refused_unchanged(db, "langfuse", f, capsys, f"{f}:{2 * N + 1}: (row).traceId: score of trace 'nowhere'")


def test_deepeval_bad_case_after_the_first_chunk_changes_nothing(db: Path, tmp_path: Path, capsys):
    cases = [{"name": f"c{k}", "input": f"Q{k}", "actualOutput": f"A{k}", "order": k,
              "metricsData": [{"name": "Correctness", "success": k % 2 == 0, "score": 1.0, "threshold": 0.5}]}
             for k in range(N)]
    cases[-1]["metricsData"][0]["success"] = "yes"
    f = tmp_path / "run.json"
    f.write_text(json.dumps({"testCases": cases, "identifier": "run-1"}), encoding="utf-8")
    _refused_unchanged(db, "deepeval", f, capsys, f"{f}:1: testCases[{N - 1}].metricsData.success")


@pytest.mark.skipif(__import__("importlib").util.find_spec("inspect_ai") is None,
                    reason="inspect_ai is not installed (pip install 'judgecal-calibrate[inspect]')")
def test_inspect_rows_go_to_the_store_in_chunks(db: Path, tmp_path: Path, monkeypatch, capsys):
    """Inspect logs are streamed a sample at a time (docs/importers.md, "Memory"); their rows go on in chunks."""
    from judgecal.evalsets import _harness  # house: private

    fixture = Path(__file__).resolve().parent / "fixtures" / "harnesses" / "inspect_capitals.eval"
    real = _harness.HarnessBuilder.__init__
    monkeypatch.setattr(_harness.HarnessBuilder, "__init__", lambda self, kind, file: real(self, kind, file, batch=2))
    chunks = list(evalsets.HARNESSES["inspect"].stream(fixture))
    assert len(chunks) == 3 and all(len(c.runs.rows) == 1 for c in chunks)
    assert main(["--db", str(db), "import", "inspect", str(fixture)]) == 0
    assert "3 run records, 6 verdicts imported" in capsys.readouterr().out


def test_sample_rows_are_written_as_the_file_is_read(sampled, tmp_path: Path):
    empty, _, out = sampled
    seen = []
    with ann.unit_of_work(empty) as conn:
        def watched():
            for chunk in evalsets.stream_rows(out, ann.SampleRow, id_field=None, batch=2000):
                seen.append(conn.execute("SELECT count(*) FROM samples").fetchone()[0])
                yield chunk
        assert ann.import_samples(conn, watched()) == N
    assert seen == [0, 2000, 4000]


def test_llmbar_rows_are_written_as_the_file_is_read(db: Path, tmp_path: Path, monkeypatch):
    from judgecal.annotations.review import _llmbar as module  # house: private

    f = _jsonl(tmp_path / "bar.jsonl", _llmbar(7))
    seen = []
    real = module.stream_llmbar

    with ann.unit_of_work(db) as conn:
        def watched(path):
            for chunk in real(path, batch=3):
                seen.append(conn.execute("SELECT count(*) FROM verdicts").fetchone()[0])
                yield chunk
        monkeypatch.setattr(module, "stream_llmbar", watched)
        assert module.import_llmbar(conn, f).verdicts == 14
    assert seen == [0, 6, 12]


def test_a_killed_harness_import_leaves_the_project_as_it_was(db: Path, tmp_path: Path):
    """kill -9 after a chunk's items, run records and verdicts were written (uncommitted): nothing stays."""
    import os
    import signal
    import subprocess
    import sys
    import time

    f = _jsonl(tmp_path / "s.jsonl", _lmeval(N))
    marker = tmp_path / "written"
    script = f"""
import time
from pathlib import Path
from judgecal import annotations as ann, evalsets
from judgecal._cmd_harness import import_harness_chunks
with ann.unit_of_work({str(db)!r}) as db:
    def slow():
        for k, chunk in enumerate(evalsets.HARNESSES["lmeval"].stream({str(f)!r})):
            if k == 1:
                Path({str(marker)!r}).write_text(str(db.execute("SELECT count(*) FROM verdicts").fetchone()[0]))
                time.sleep(600)
            yield chunk
    import_harness_chunks(db, slow())
"""
    before = _snapshot(db)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[1])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), "the importer never reached its second chunk"
        assert int(marker.read_text()) > 0  # the first chunk's verdicts are in the open transaction
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert _snapshot(db) == before
    assert main(["--db", str(db), "import", "lmeval", str(f)]) == 0  # and the write lock is free again
