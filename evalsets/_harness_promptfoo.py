"""promptfoo result files (`promptfoo eval -o out.json` or `out.jsonl`): model-graded assertions become verdicts.

Field-by-field mapping: docs/importers.md. Only model-graded assertion types are verdicts (a `contains` or
`javascript` assertion is a mechanical check, not a judge to calibrate); each becomes one semantic constraint whose
text is the assertion's rubric (`value`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from judgecal.evalsets._harness import (
    GRADER_ERROR,
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    document_head,
    document_items,
    guarded,
    json_values,
    scored_reason,
    starts_as_document,
    text_of,
    text_sha8,
)
from judgecal.evalsets._io import InputError, Problem

KIND = "promptfoo"
# promptfoo's model-graded assertion types (its docs, "Model-graded metrics").
MODEL_GRADED = frozenset({
    "llm-rubric", "g-eval", "model-graded-closedqa", "model-graded-factuality", "factuality", "answer-relevance",
    "context-faithfulness", "context-recall", "context-relevance", "conversation-relevance", "search-rubric",
    "pi", "classifier",
})

# A promptfoo grader that fails to run (its provider errors, or its answer has no JSON) is written as pass false,
# score 0 and the failure as the reason (src/matchers.ts `fail(...)` in matchesLlmRubric / matchesGEval and the
# other model-graded matchers, promptfoo 0.120, read 2026-11-30); newer versions also set metadata.graderError. These
# are the messages it writes; a grader failure must be an error row, never a "fail" verdict.
GRADER_FAILURES = ("Could not extract JSON", "No output", "llm-rubric produced malformed response",
                   "LLM-proposed evaluation", "API error", "API call error")


def grader_failed(component: dict[str, Any]) -> bool:
    meta = component.get("metadata") if isinstance(component.get("metadata"), dict) else {}
    reason = component.get("reason") if isinstance(component.get("reason"), str) else ""
    # metadata.graderError is the grader's own word that it failed: an error row whatever `pass` says (a review,
    # wave 15: graderError with pass true landed as "pass"). The messages alone count only on a failing component.
    return meta.get("graderError") is True or (component.get("pass") is False
                                               and reason.strip().startswith(GRADER_FAILURES))


def _results(path: Path) -> tuple[str | None, Iterator[tuple[int, str, Any]]]:
    """(eval id, (line, where, result) ...) from the JSON output (one document, streamed: document_head checks it and
    finds the eval id, wherever the document writes it, then its results are read one at a time) or the JSONL output
    (one result per line, read as the caller gets to it; an invalid line is a Problem in its place). The eval id is
    None when the file writes none (the JSONL output never does)."""
    if starts_as_document(path, "results"):
        head = document_head(path, values=["evalId"], kinds=["results", "results.results"])
        rows = {"start_map": "results.results", "start_array": "results"}.get(head.kinds.get("results", ""))
        if rows is None or head.kinds.get(rows) != "start_array":
            raise InputError([Problem(str(path), 1, "results.results", "expected the list of test results")])
        eval_id = head.values.get("evalId")
        return (str(eval_id) if eval_id else None), ((1, f"{rows}[{i}]", r)
                                                     for i, r in enumerate(document_items(path, rows)))
    values = json_values(path)
    if values.lines is None:  # a document without results (or not JSON at all): one row, refused as such
        return None, iter([(1, "(row)", values.document)])
    return None, ((line, "(row)", r) for line, r in values.lines)


def _graded(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(constraint id, component result) for each model-graded assertion result, ids unique within the test."""
    grading = result.get("gradingResult") or {}
    components = grading.get("componentResults") or []
    if not components and isinstance(grading.get("assertion"), dict):
        components = [grading]
    return _numbered([c for c in components if isinstance(c, dict) and isinstance(c.get("assertion"), dict)
                      and c["assertion"].get("type") in MODEL_GRADED])


def _asked(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(constraint id, {"assertion": ...}) for each model-graded assertion the test asked for (`testCase.assert`),
    numbered as _graded numbers their results: the graders of a result whose grading failed before it wrote any."""
    test = result.get("testCase") if isinstance(result.get("testCase"), dict) else {}
    asserts = test.get("assert") if isinstance(test.get("assert"), list) else []
    return _numbered([{"assertion": a} for a in asserts if isinstance(a, dict) and a.get("type") in MODEL_GRADED])


def _numbered(graded: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    counts = Counter(c["assertion"]["type"] for c in graded)
    seen: Counter[str] = Counter()
    out = []
    for c in graded:
        t = c["assertion"]["type"]
        seen[t] += 1
        out.append((t if counts[t] == 1 else f"{t}-{seen[t]}", c))
    return out


def _grader(assertion: dict[str, Any], result: dict[str, Any], default: str | None) -> str:
    for source in (assertion.get("provider"), (result.get("testCase") or {}).get("options", {}).get("provider"),
                   default):
        if isinstance(source, str) and source:
            return source
        if isinstance(source, dict) and isinstance(source.get("id"), str):
            return source["id"]
    return "promptfoo-default-grader"


@guarded(KIND)
def stream_promptfoo(path: str | Path) -> Iterator[HarnessImport]:
    path = Path(path)
    eval_id, results = _results(path)
    file_id: str | None = None  # the file's hash: the run of results without an eval id (read only when needed)
    b = HarnessBuilder(KIND, path)
    occurrences: Counter[str] = Counter()
    for line, where, r in results:
        yield from b.chunk_if_full()
        b.at(line, where)
        if isinstance(r, Problem):
            b.problems.append(r)
            continue
        if not isinstance(r, dict):
            b.problem(line, where, "expected a JSON object (a promptfoo test result)")
            continue
        provider = r.get("provider") or {}
        model = provider.get("label") or provider.get("id") if isinstance(provider, dict) else str(provider)
        prompt = r.get("prompt") or {}
        if not isinstance(prompt, dict) or not isinstance(prompt.get("raw"), str):
            b.problem(line, f"{where}.prompt.raw", "missing: the prompt promptfoo sent (is this a promptfoo result?)")
            continue
        response = r.get("response") if isinstance(r.get("response"), dict) else {}
        graded = _graded(r)
        # The model answered (an output, no provider error) and promptfoo stopped with an error (failureReason 2)
        # before writing any grading result: the grader failed (a 429 from the grading provider). Each model-graded
        # assertion the test asked for is an error row, never a skipped result (a review, wave 15).
        grading_failed = (not graded and r.get("failureReason") == 2 and response.get("output") is not None
                          and not response.get("error"))
        if grading_failed:
            graded = _asked(r)
        if not graded:
            failed = r.get("failureReason") == 2 or response.get("output") is None
            b.skip("results whose provider failed before grading" if failed
                   else "results without a model-graded assertion")
            continue
        test = r.get("testCase") if isinstance(r.get("testCase"), dict) else {}
        graders = [GraderSpec(cid, text_of(c["assertion"].get("value")) or c["assertion"]["type"]) for cid, c in graded]
        local = f"{r.get('testIdx', '')}:{test.get('description') or ''}".rstrip(":")
        item_id = b.item(line, local, prompt["raw"], graders, input=r.get("vars") or None,
                         where=f"{where}.prompt.raw")
        if item_id is None:
            continue
        key = f"{r.get('testIdx')}:{r.get('promptIdx')}:{model}"
        occurrences[key] += 1
        # A repeated test (--repeat) has the same indices: its n-th occurrence is its n-th run record.
        own = r.get("id") if isinstance(r.get("id"), str) and r.get("id") else None
        sample = own or (key if occurrences[key] == 1 else f"{key}:{occurrences[key]}")
        failed = not grading_failed and (r.get("failureReason") == 2 or response.get("output") is None)
        error = r.get("error") if failed else None
        usage = response.get("tokenUsage") or {}
        if eval_id is not None:
            record_id, run = f"{KIND}:{eval_id}:{sample}", eval_id
        elif own is not None:
            # No eval id (the JSONL output, a JSON output without evalId): the result's own id (a uuid) alone, so a
            # re-serialised copy of the file makes the same run record (a review, wave 15: it made new ones, keyed
            # on the file's hash).
            record_id, run = f"{KIND}:{own}", None
        else:
            file_id = file_id or f"file-{text_sha8(path)}"
            record_id, run = f"{KIND}:{file_id}:{sample}", file_id
        run_id = b.run(line, record_id, item_id, model=str(model or "unknown"),
                       output=response.get("output"), error=error or None, run=run,
                       input_tokens=usage.get("prompt"), output_tokens=usage.get("completion"),
                       latency_ms=r.get("latencyMs"), where=f"{where}.response.output",
                       file_keyed=eval_id is None and own is None, own_id=own)
        if run_id is None or error:
            continue
        for cid, c in graded:
            a = c["assertion"]
            if grading_failed:
                b.verdict(line, HarnessVerdict(run_id, cid, f"promptfoo:{a['type']}", _grader(a, r, None), 0, None,
                                               None, GRADER_ERROR, str(r.get("error") or "grading failed")[:2000]))
                continue
            if grader_failed(c):
                b.verdict(line, HarnessVerdict(run_id, cid, f"promptfoo:{a['type']}", _grader(a, r, None), 0, None,
                                               None, GRADER_ERROR, str(c.get("reason") or "graderError")[:2000]))
                continue
            if not isinstance(c.get("pass"), bool):
                b.problem(line, f"{where}.gradingResult.componentResults.pass", f"{cid}: expected true or false")
                continue
            threshold = a.get("threshold")
            rule = "label from the file's pass field" + (f" (threshold {threshold})" if threshold is not None else "")
            b.verdict(line, HarnessVerdict(run_id, cid, f"promptfoo:{a['type']}", _grader(a, r, None), 0,
                                           "pass" if c["pass"] else "fail",
                                           scored_reason(KIND, c.get("score"), rule, c.get("reason"))))
    yield b.last_chunk()
