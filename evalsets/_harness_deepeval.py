"""DeepEval test-run results (`.deepeval/.latest_test_run.json`, or a saved TestRun): each metric on a test case is a
verdict. Field-by-field mapping: docs/importers.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from judgecal.evalsets._harness import (
    GRADER_ERROR,
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    file_sha8,
    guarded,
    read_json_or_jsonl,
    scored_reason,
)
from judgecal.evalsets._io import InputError, Problem

KIND = "deepeval"
# DeepEval's own word for a metric that failed to run; stored as the error of an error row, never as a label.
ERROR = GRADER_ERROR


def _test_run(path: Path) -> tuple[str, dict[str, Any]]:
    text, docs = read_json_or_jsonl(path)
    doc = docs[0][1] if len(docs) == 1 else None
    if isinstance(doc, dict) and isinstance(doc.get("testRunData"), dict):
        doc = doc["testRunData"]  # .latest_test_run.json wraps the run with its link
    if not isinstance(doc, dict) or not isinstance(doc.get("testCases"), list):
        raise InputError([Problem(str(path), 1, "testCases", "expected a DeepEval test run: an object with "
                                                             "'testCases' (or 'testRunData.testCases')")])
    return text, doc


@guarded(KIND)
def stream_deepeval(path: str | Path) -> Iterator[HarnessImport]:
    """A DeepEval test run is one JSON document, read whole (streaming it would need an incremental JSON parser);
    its rows are handed on in chunks."""
    path = Path(path)
    text, run = _test_run(path)
    b = HarnessBuilder(KIND, path)
    run_key = run.get("identifier") or f"file-{file_sha8(text)}"
    hyper = run.get("hyperparameters") if isinstance(run.get("hyperparameters"), dict) else {}
    model = str(hyper.get("model") or hyper.get("Model") or "unknown")
    for _ in run.get("conversationalTestCases") or ():
        b.skip("conversational test cases (not imported yet)")
    for i, case in enumerate(run["testCases"]):
        yield from b.chunk_if_full()
        where = f"testCases[{i}]"
        b.at(1, where)
        if not isinstance(case, dict):
            b.problem(1, where, "expected a JSON object (a DeepEval test case)")
            continue
        metrics = [m for m in case.get("metricsData") or [] if isinstance(m, dict)]
        if not metrics:
            b.skip("test cases without metrics")
            continue
        names = [m.get("name") for m in metrics]
        if not all(isinstance(n, str) and n for n in names):
            b.problem(1, f"{where}.metricsData.name", "every metric needs a name")
            continue
        graders = [GraderSpec(n, f"DeepEval metric {n}") for n in names]
        context = {k: case[k] for k in ("context", "retrievalContext") if case.get(k)}
        if not isinstance(case.get("input"), str):
            b.problem(1, f"{where}.input", "missing: the test case's input text")
            continue
        item_id = b.item(1, str(case.get("name") or i), case["input"], graders, input=context or None,
                         reference=case.get("expectedOutput"), where=f"{where}.input")
        if item_id is None:
            continue
        order = case.get("order") if case.get("order") is not None else i
        run_id = b.run(1, f"{KIND}:{run_key}:{order}", item_id, model=model, output=case.get("actualOutput"),
                       run=run_key, input_tokens=case.get("inputTokenCount"),
                       output_tokens=case.get("outputTokenCount"), where=f"{where}.actualOutput")
        if run_id is None:
            continue
        for m in metrics:
            name, judge = m["name"], str(m.get("evaluationModel") or f"deepeval:{m['name']}")
            if m.get("error"):
                b.verdict(1, HarnessVerdict(run_id, name, f"deepeval:{name}", judge, 0, None, None, ERROR,
                                            str(m["error"])))
                continue
            if not isinstance(m.get("success"), bool):
                b.problem(1, f"{where}.metricsData.success", f"{name}: expected true or false")
                continue
            rule = (f"label from the file's success field (threshold {m.get('threshold')}"
                    f"{', strict mode' if m.get('strictMode') else ''})")
            b.verdict(1, HarnessVerdict(run_id, name, f"deepeval:{name}", judge, 0,
                                        "pass" if m["success"] else "fail",
                                        scored_reason(KIND, m.get("score"), rule, m.get("reason"))))
    yield b.last_chunk()
