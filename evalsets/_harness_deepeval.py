"""DeepEval test-run results (`.deepeval/.latest_test_run.json`, or a saved TestRun): each metric on a test case is a
verdict. Field-by-field mapping: docs/importers.md."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, NamedTuple

from judgecal.evalsets._harness import (
    GRADER_ERROR,
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    document_head,
    document_items,
    guarded,
    scored_reason,
    text_sha8,
)
from judgecal.evalsets._io import InputError, Problem

KIND = "deepeval"
# DeepEval's own word for a metric that failed to run; stored as the error of an error row, never as a label.
ERROR = GRADER_ERROR


class _TestRun(NamedTuple):
    cases: str  # the path of the testCases array inside the document
    run_key: str
    file_keyed: bool  # run_key is the file's hash: the test run has no identifier
    model: str
    conversational: int  # conversational test cases (not imported yet)


def _test_run(path: Path) -> _TestRun:
    """The test run's own fields, from a first pass over the document (DeepEval writes `identifier` and
    `hyperparameters` after the test cases, so they cannot be read on the way to the rows)."""
    fields = ("identifier", "hyperparameters")
    head = document_head(path, values=[f"{base}{f}" for base in ("", "testRunData.") for f in fields],
                         kinds=["testRunData", "testCases", "testRunData.testCases", "conversationalTestCases",
                                "testRunData.conversationalTestCases"])
    base = "testRunData." if head.kinds.get("testRunData") == "start_map" else ""  # .latest_test_run.json's wrapper
    if head.kinds.get(f"{base}testCases") != "start_array":
        raise InputError([Problem(str(path), 1, "testCases", "expected a DeepEval test run: an object with "
                                                             "'testCases' (or 'testRunData.testCases')")])
    if head.kinds.get(f"{base}conversationalTestCases", "null") not in ("start_array", "null"):
        raise InputError([Problem(str(path), 1, f"{base}conversationalTestCases",
                                  "expected the list of conversational test cases")])
    hyper = head.values.get(f"{base}hyperparameters")
    hyper = hyper if isinstance(hyper, dict) else {}
    for key in ("model", "Model"):
        if hyper.get(key) is not None and not isinstance(hyper[key], str):
            raise InputError([Problem(str(path), 1, f"{base}hyperparameters.{key}", "expected a string")])
    identifier = head.values.get(f"{base}identifier")
    if identifier is not None and not isinstance(identifier, str):
        raise InputError([Problem(str(path), 1, f"{base}identifier", "expected a string")])
    return _TestRun(f"{base}testCases", identifier or f"file-{text_sha8(path)}", not identifier,
                    str(hyper.get("model") or hyper.get("Model") or "unknown"),
                    head.counts.get(f"{base}conversationalTestCases", 0))


def _wrong_types(case: dict, where: str) -> list[tuple[str, str]]:
    """(field, what it should be) for each of the test case's fields that ids, judge names and reasons are made of
    and that has another type (absent or null is allowed: each has a default)."""
    out = []
    if case.get("name") is not None and not isinstance(case["name"], str):
        out.append((f"{where}.name", "a string"))
    order = case.get("order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
        out.append((f"{where}.order", "an integer"))
    for k, m in enumerate(case.get("metricsData") or []):  # numbered as in the file (`metrics` drops non-objects)
        if not isinstance(m, dict):
            continue
        if m.get("evaluationModel") is not None and not isinstance(m["evaluationModel"], str):
            out.append((f"{where}.metricsData[{k}].evaluationModel", "a string"))
        score = m.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            out.append((f"{where}.metricsData[{k}].score", "a number"))
    return out


@guarded(KIND)
def stream_deepeval(path: str | Path) -> Iterator[HarnessImport]:
    """A DeepEval test run is one JSON document, streamed: a first pass checks it and reads the run's own fields,
    a second reads the test cases one at a time; the rows are handed on in chunks."""
    path = Path(path)
    run = _test_run(path)
    b = HarnessBuilder(KIND, path)
    run_key, model = run.run_key, run.model
    for _ in range(run.conversational):
        b.skip("conversational test cases (not imported yet)")
    for i, case in enumerate(document_items(path, run.cases)):
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
        # ids and judge names are built from these: a list or an object would be stored as its Python text (a
        # review, wave 13: `order: [1]` made the run record id "deepeval:...:[1]")
        wrong = _wrong_types(case, where)
        if wrong:
            for field_name, expected in wrong:
                b.problem(1, field_name, f"expected {expected}")
            continue
        item_id = b.item(1, str(case.get("name") or i), case["input"], graders, input=context or None,
                         reference=case.get("expectedOutput"), where=f"{where}.input")
        if item_id is None:
            continue
        order = case.get("order") if case.get("order") is not None else i
        run_id = b.run(1, f"{KIND}:{run_key}:{order}", item_id, model=model, output=case.get("actualOutput"),
                       run=run_key, input_tokens=case.get("inputTokenCount"),
                       output_tokens=case.get("outputTokenCount"), where=f"{where}.actualOutput",
                       file_keyed=run.file_keyed)
        if run_id is None:
            continue
        for m in metrics:
            name, judge = m["name"], str(m.get("evaluationModel") or f"deepeval:{m['name']}")
            if m.get("error"):
                b.verdict(1, HarnessVerdict(run_id, name, f"deepeval:{name}", judge, 0, None, None, ERROR,
                                            str(m["error"])))
                continue
            if m.get("score") is None:
                # No score and no error: the metric did not run to a result (DeepEval then writes success false),
                # so its success is no verdict: an error row (a review, wave 15: it landed as "fail").
                b.verdict(1, HarnessVerdict(run_id, name, f"deepeval:{name}", judge, 0, None, None, ERROR,
                                            "DeepEval wrote no score for this metric (score null, no error)"))
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
