"""Langfuse exports (traces and their scores): a trace is a run record, an evaluator's score on it a verdict.

Accepted shapes, JSON or JSONL: trace objects with their `scores` embedded (GET /api/public/traces/{id}), or trace
and score objects side by side (the public API's `data` pages, the UI's exports); a score names its trace by
`traceId`. Field-by-field mapping: docs/importers.md.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

from judgecal.evalsets._harness import (
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    guarded,
    json_values,
    pass_fail,
    scored_reason,
)
from judgecal.evalsets._io import Problem

KIND = "langfuse"
# The fields of a score that make its answer (a copy of a score may carry fewer of the others).
_ANSWER = ("name", "value", "stringValue", "dataType", "source", "comment")


def _objects(path: Path) -> Iterator[tuple[int, str, Any]]:
    """(line, where, object) for every trace or score in the file, read as they are needed (JSONL: a line at a
    time; one JSON document is read whole). An invalid JSONL line is a Problem in place of its object."""
    values = json_values(path)
    docs = iter([(1, values.document)]) if values.lines is None else values.lines
    for line, doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            for i, x in enumerate(doc["data"]):
                yield line, f"data[{i}]", x
        elif isinstance(doc, list):
            for i, x in enumerate(doc):
                yield line, f"[{i}]", x
        else:
            yield line, "(row)", doc


def _is_trace(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("id"), str) and ("input" in obj or "output" in obj)


class _Scores:
    """The file's scores by trace, in file order, in a private temporary SQLite database: a score may name a trace
    anywhere in the file, so they are gathered in a first pass without holding the file in memory."""

    def __init__(self) -> None:
        self.db = sqlite3.connect("")  # "": a private temporary database, deleted when closed
        self.db.executescript("""
            CREATE TABLE scores (seq INTEGER PRIMARY KEY, trace TEXT NOT NULL, line INTEGER NOT NULL,
                                 at TEXT NOT NULL, score TEXT NOT NULL);
            CREATE INDEX scores_trace ON scores(trace, seq);
            CREATE TABLE first_ids (trace TEXT NOT NULL, id TEXT NOT NULL, line INTEGER NOT NULL,
                                    answer TEXT NOT NULL, PRIMARY KEY (trace, id)) WITHOUT ROWID;
            CREATE TABLE idless (trace TEXT NOT NULL, content TEXT NOT NULL,
                                 PRIMARY KEY (trace, content)) WITHOUT ROWID;
            CREATE TABLE traces (id TEXT PRIMARY KEY) WITHOUT ROWID;
        """)

    def add(self, b: HarnessBuilder, trace_id: str, line: int, where: str, score: dict[str, Any]) -> None:
        # One score id is one answer: a trace fetched with its scores embedded, beside the same scores listed on their
        # own, must not make one answer two repeats of the judge (a self-consistent judge out of nothing). The same
        # id with other content is the file contradicting itself.
        sid = score.get("id")
        if isinstance(sid, str):
            answer = [score.get(k) for k in _ANSWER]
            first = self.db.execute("SELECT line, answer FROM first_ids WHERE trace = ? AND id = ?",
                                    [trace_id, sid]).fetchone()
            if first is not None:
                if answer != json.loads(first[1]):
                    b.problem(line, f"{where}.id", f"score {sid!r} again with another answer than on line "
                                                   f"{first[0]} ({', '.join(_ANSWER)})")
                return
            self.db.execute("INSERT INTO first_ids VALUES (?, ?, ?, ?)", [trace_id, sid, line, json.dumps(answer)])
        else:
            # Without an id, a score that repeats another of its trace field for field (traceId aside: the embedded
            # copy has none) is that score again, embedded and listed: one answer, not two repeats of the judge (a
            # review, wave 15). Real repeats differ at least in their timestamps.
            content = json.dumps({k: v for k, v in score.items() if k != "traceId"}, sort_keys=True)
            if self.db.execute("INSERT OR IGNORE INTO idless VALUES (?, ?)", [trace_id, content]).rowcount == 0:
                b.skip("scores without an id repeated field for field (counted once)")
                return
        self.db.execute("INSERT INTO scores (trace, line, at, score) VALUES (?, ?, ?, ?)",
                        [trace_id, line, where, json.dumps(score)])

    def of(self, trace_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        return [(line, at, json.loads(score)) for line, at, score in self.db.execute(
            "SELECT line, at, score FROM scores WHERE trace = ? ORDER BY seq", [trace_id])]

    def all(self) -> Iterator[tuple[int, str, dict[str, Any]]]:
        for line, at, score in self.db.execute("SELECT line, at, score FROM scores ORDER BY seq"):
            yield line, at, json.loads(score)

    def orphans(self) -> Iterator[tuple[str, int, str]]:
        """(trace id, line, where) of the first score of each trace that is not in the file."""
        yield from self.db.execute(
            "SELECT s.trace, s.line, s.at FROM scores s JOIN (SELECT trace, min(seq) AS seq FROM scores"
            " WHERE trace NOT IN (SELECT id FROM traces) GROUP BY trace) f ON f.seq = s.seq ORDER BY s.seq")


def _of_observation(b: HarnessBuilder, score: dict[str, Any]) -> bool:
    """Whether the score judges one observation of the trace (a retrieval, one generation: `observationId` set),
    not the trace's output that the run record holds; such a score is left out and counted (a review, wave 15: two
    of them were repeats of one verdict on the final output)."""
    if score.get("observationId") is None:
        return False
    b.skip("scores of an observation, not of the trace's output (observationId set)")
    return True


def is_human(score: dict[str, Any]) -> bool:
    """A person's score, never a judge verdict: `source` ANNOTATION in any case ("annotation"), or an
    `authorUserId` (a review, wave 15: both landed as verdicts)."""
    source = score.get("source")
    return (isinstance(source, str) and source.strip().upper() == "ANNOTATION") or bool(score.get("authorUserId"))


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
    """Two passes over the file: the first files every score under its trace (a temporary database, not memory)
    and finds which score names are pass/fail judges; the second reads the traces again and makes the rows, in
    chunks."""
    path = Path(path)
    b = HarnessBuilder(KIND, path)
    scores = _Scores()
    try:
        for line, where, obj in _objects(path):
            b.at(line, where)
            if isinstance(obj, Problem):
                b.problems.append(obj)
            elif is_score(obj):
                if not _of_observation(b, obj):
                    scores.add(b, str(obj["traceId"]), line, where, obj)
            elif _is_trace(obj):
                scores.db.execute("INSERT OR IGNORE INTO traces VALUES (?)", [obj["id"]])
                for k, s in enumerate(obj.get("scores") or []):
                    # the trace list returns score ids only; a trace fetched alone, objects
                    if isinstance(s, dict) and not _of_observation(b, s):
                        scores.add(b, obj["id"], line, f"{where}.scores[{k}]", {"traceId": obj["id"], **s})
            else:
                b.problem(line, where, "neither a Langfuse trace (id with input/output) nor a score (traceId, name)")
        # A score name is a pass/fail judge only if every evaluator score of that name in the file maps to
        # pass/fail: a NUMERIC helpfulness that happens to be 1 once is still a score, never a "pass" verdict.
        judges: dict[str, bool] = {}
        for line, where, s in scores.all():
            b.at(line, where)
            if not is_human(s):
                judges[str(s["name"])] = judges.get(str(s["name"]), True) and score_label(s)[0] is not None
        for trace_id, line, where in scores.orphans():
            b.problem(line, f"{where}.traceId", f"score of trace {trace_id!r}, which is not in the file")
        for line, where, trace in _objects(path):
            if isinstance(trace, Problem) or is_score(trace) or not _is_trace(trace):
                continue  # reported in the first pass
            yield from b.chunk_if_full()
            b.at(line, where)
            found = scores.of(trace["id"])
            mine = [(ln, w, s) for ln, w, s in found if not is_human(s)]
            if len(found) - len(mine):
                b.skip("human annotation scores (source ANNOTATION or an authorUserId: import them as labels)")
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
    finally:
        scores.db.close()
