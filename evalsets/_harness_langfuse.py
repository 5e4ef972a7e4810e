"""Langfuse exports (traces and their scores): a trace is a run record, an evaluator's score on it a verdict.

Accepted shapes, JSON or JSONL: trace objects with their `scores` embedded (GET /api/public/traces/{id}), or trace
and score objects side by side (the public API's `data` pages, the UI's exports); a score names its trace by
`traceId`. Field-by-field mapping: docs/importers.md.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

from judgecal.evalsets._harness import (
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    guarded,
    pass_fail,
    read_json_or_jsonl,
    scored_reason,
    text_of,
)

KIND = "langfuse"
# The fields of a score that make its answer (a copy of a score may carry fewer of the others).
_ANSWER = ("name", "value", "stringValue", "dataType", "source", "comment")


def _objects(path: Path) -> list[tuple[int, str, Any]]:
    _, docs = read_json_or_jsonl(path)
    out: list[tuple[int, str, Any]] = []
    for line, doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            out += [(line, f"data[{i}]", x) for i, x in enumerate(doc["data"])]
        elif isinstance(doc, list):
            out += [(line, f"[{i}]", x) for i, x in enumerate(doc)]
        else:
            out.append((line, "(row)", doc))
    return out


def is_score(obj: Any) -> bool:
    return isinstance(obj, dict) and "traceId" in obj and "name" in obj


def score_label(score: dict[str, Any]) -> tuple[str | None, Any, str]:
    """(label, raw value, rule) of a score; label None when it is no pass/fail (a NUMERIC score other than 0/1: a
    Langfuse export carries no pass mark)."""
    dtype = score.get("dataType")
    if dtype == "CATEGORICAL" or (dtype is None and score.get("stringValue") is not None):
        raw = score.get("stringValue")
        return pass_fail(raw), raw, "category pass/true/yes/correct = pass, fail/false/no/incorrect = fail"
    raw = score.get("value")
    rule = "BOOLEAN 1 = pass, 0 = fail" if dtype == "BOOLEAN" else "NUMERIC 1 = pass, 0 = fail (other values: no label)"
    return (pass_fail(raw) if isinstance(raw, (int, float)) else None), raw, rule


@guarded(KIND)
def stream_langfuse(path: str | Path) -> Iterator[HarnessImport]:
    """Read whole: a score may name a trace anywhere in the file, and which score names are pass/fail judges is
    known only at its end (docs/importers.md: streaming a Langfuse export is not done yet). Rows go on in chunks."""
    path = Path(path)
    b = HarnessBuilder(KIND, path)
    traces: list[tuple[int, str, dict[str, Any]]] = []
    scores: dict[str, list[tuple[int, str, dict[str, Any]]]] = defaultdict(list)
    for line, where, obj in _objects(path):
        b.at(line, where)
        if is_score(obj):
            scores[str(obj["traceId"])].append((line, where, obj))
        elif isinstance(obj, dict) and isinstance(obj.get("id"), str) and ("input" in obj or "output" in obj):
            traces.append((line, where, obj))
            for k, s in enumerate(obj.get("scores") or []):
                if isinstance(s, dict):  # the trace list returns score ids only; a trace fetched alone, objects
                    scores[obj["id"]].append((line, f"{where}.scores[{k}]", {"traceId": obj["id"], **s}))
        else:
            b.problem(line, where, "neither a Langfuse trace (id with input/output) nor a score (traceId, name)")
    # One score id is one answer: a trace fetched with its scores embedded, beside the same scores listed on their
    # own, must not make one answer two repeats of the judge (a self-consistent judge out of nothing). The same id
    # with other content is the file contradicting itself.
    for trace_id, found in list(scores.items()):
        first: dict[str, tuple[int, dict[str, Any]]] = {}
        kept = []
        for line, where, s in found:
            sid = s.get("id")
            if not isinstance(sid, str):
                kept.append((line, where, s))
            elif sid not in first:
                first[sid] = (line, s)
                kept.append((line, where, s))
            elif [s.get(k) for k in _ANSWER] != [first[sid][1].get(k) for k in _ANSWER]:
                b.problem(line, f"{where}.id", f"score {sid!r} again with another answer than on line "
                                               f"{first[sid][0]} ({', '.join(_ANSWER)})")
        scores[trace_id] = kept
    # A score name is a pass/fail judge only if every evaluator score of that name in the file maps to pass/fail:
    # a NUMERIC helpfulness that happens to be 1 once is still a score, never a "pass" verdict.
    judges: dict[str, bool] = {}
    for found in scores.values():
        for line, where, s in found:
            b.at(line, where)
            if s.get("source") != "ANNOTATION":
                judges[str(s["name"])] = judges.get(str(s["name"]), True) and score_label(s)[0] is not None
    known = {t["id"] for _, _, t in traces}
    for trace_id, found in scores.items():
        if trace_id not in known:
            line, where, _ = found[0]
            b.problem(line, f"{where}.traceId", f"score of trace {trace_id!r}, which is not in the file")
    for line, where, trace in traces:
        yield from b.chunk_if_full()
        b.at(line, where)
        mine = [(ln, w, s) for ln, w, s in scores.get(trace["id"], []) if s.get("source") != "ANNOTATION"]
        humans = len(scores.get(trace["id"], [])) - len(mine)
        if humans:
            b.skip("human annotation scores (source ANNOTATION: import them as labels)")
        for _, _, s in mine:
            if not judges[str(s["name"])]:
                b.skip(f"scores of {s['name']} (not pass/fail throughout the file)")
        mine = [(ln, w, s) for ln, w, s in mine if judges[str(s["name"])]]
        names = sorted({str(s["name"]) for _, _, s in mine})
        if not names:
            b.skip("traces without an evaluator score")
            continue
        graders = [GraderSpec(n, f"Langfuse score {n}") for n in names]
        item_id = b.item(line, str(trace.get("name") or "trace"), trace.get("input"), graders,
                         where=f"{where}.input")
        if item_id is None:
            continue
        meta = trace.get("metadata") if isinstance(trace.get("metadata"), dict) else {}
        latency = trace.get("latency")
        run_id = b.run(line, f"{KIND}:{trace['id']}", item_id, model=str(meta.get("model") or "unknown"),
                       output=trace.get("output"), run=trace.get("sessionId"),
                       latency_ms=latency * 1000 if isinstance(latency, (int, float)) else None,
                       where=f"{where}.output")
        if run_id is None:
            continue
        repeats: dict[str, int] = defaultdict(int)
        for ln, w, s in mine:
            label, raw, rule = score_label(s)
            smeta = s.get("metadata") if isinstance(s.get("metadata"), dict) else {}
            judge = str(smeta.get("model") or f"langfuse:{s.get('source') or 'API'}:{s['name']}")
            # Two scores of one name on one trace are two repeats of that judge, in file order.
            b.verdict(ln, HarnessVerdict(run_id, str(s["name"]), f"langfuse:{s['name']}", judge,
                                         repeats[s["name"]], label, scored_reason(KIND, raw, rule, s.get("comment"))))
            repeats[s["name"]] += 1
    yield b.last_chunk()
