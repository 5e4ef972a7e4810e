"""The harness table (kind -> reader) and `doctor`: which import fits an unknown file.

A signature is the set of fields a format always writes (`required`, alternatives joined by "|") plus fields that
only it writes (`hints`). A format fits when every required field is present; among those that fit, the one with
the most recognised fields wins. The file is only read, never imported.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from judgecal.evalsets._harness import HarnessImport, collect
from judgecal.evalsets._harness_deepeval import stream_deepeval
from judgecal.evalsets._harness_inspect import stream_inspect
from judgecal.evalsets._harness_langfuse import stream_langfuse
from judgecal.evalsets._harness_lmeval import stream_lmeval
from judgecal.evalsets._harness_promptfoo import stream_promptfoo
from judgecal.evalsets._io import InputError, Problem, load_json, read_text_file
from judgecal.evalsets._models import EvalItem, RunRecord


class Harness(NamedTuple):
    name: str
    # The file as chunks of rows (memory follows the chunk where the format allows: docs/importers.md).
    stream: Callable[[str | Path], Iterator[HarnessImport]]

    def read(self, path: str | Path) -> HarnessImport:
        """The whole file in memory (InputError if any row is bad): for tests and small files."""
        return collect(self.stream(path))


HARNESSES: dict[str, Harness] = {
    "inspect": Harness("Inspect AI", stream_inspect),
    "promptfoo": Harness("promptfoo", stream_promptfoo),
    "deepeval": Harness("DeepEval", stream_deepeval),
    "lmeval": Harness("lm-evaluation-harness", stream_lmeval),
    "langfuse": Harness("Langfuse", stream_langfuse),
}


class Signature(NamedTuple):
    kind: str  # the `judgecal import` kind
    name: str
    required: tuple[str, ...]  # each "a" or "a|b" (either)
    hints: tuple[str, ...] = ()
    # Every field the import takes, for a format whose import refuses any other (judgecal's own: its models forbid
    # extra fields); None: the import reads the fields it knows and leaves the rest (the harnesses, IFEval, LLMBar).
    allowed: frozenset[str] | None = None


def _taken(fields: Any) -> frozenset[str]:
    # an export's first line (`{"judgecal_export": {...}}`) is read past by every import of ours
    return frozenset(fields) | {"judgecal_export"}


# The import rows of the label, verdict and sample files live in annotations (evalsets imports none of ours):
# tests/test_harness_imports.py holds these equal to HumanLabelRow's, VerdictImportRow's and SampleRow's fields.
LABEL_FIELDS = frozenset({"run_record_id", "constraint_id", "reviewer", "label", "event", "note", "failure_mode",
                          "seconds_spent", "rubric_version_seen", "blind", "created_at", "guideline_version",
                          "item_sha256", "output_sha256"})
VERDICT_FIELDS = frozenset({"run_record_id", "constraint_id", "rubric", "rubric_sha256", "rubric_version",
                            "judge_model", "repeat", "label", "reason", "error", "error_detail", "raw", "input_tokens",
                            "output_tokens", "latency_ms", "created_at", "item_sha256",
                            "output_sha256"})
SAMPLE_FIELDS = frozenset({"run_record_id", "constraint_id", "rule", "stratum", "reason", "seed", "drawn_at"})


# Ours first (README "File formats"), then each harness's. Paths with a dot look inside a single JSON document.
SIGNATURES: tuple[Signature, ...] = (
    Signature("evalset", "judgecal eval items", ("id", "instruction", "constraints"),
              ("input", "reference", "source", "split", "tags", "fixtures", "turns"), _taken(EvalItem.model_fields)),
    Signature("runs", "judgecal run records", ("id", "item_id", "model", "output|trajectory|error|messages"),
              ("prompt_version", "run_id", "tool_calls", "input_tokens", "output_tokens", "latency_ms"),
              _taken(RunRecord.model_fields)),
    Signature("labels", "judgecal human labels", ("run_record_id", "constraint_id", "reviewer", "label"),
              ("event", "note", "failure_mode", "seconds_spent", "blind"), _taken(LABEL_FIELDS)),
    Signature("verdicts", "judgecal judge verdicts",
              ("run_record_id", "constraint_id", "judge_model", "rubric|rubric_sha256", "label|error"),
              ("repeat", "reason", "error_detail", "rubric_version"), _taken(VERDICT_FIELDS)),
    Signature("samples", "judgecal review sample", ("run_record_id", "constraint_id", "rule"),
              ("stratum", "seed", "drawn_at"), _taken(SAMPLE_FIELDS)),
    Signature("ifeval", "IFEval", ("key", "prompt", "instruction_id_list", "kwargs", "response"),
              ("response_model",)),
    Signature("llmbar", "LLMBar", ("instruction", "output_1", "output_2", "human_label"), ("item_id", "dataset")),
    Signature("inspect", "Inspect AI eval log", ("eval", "samples|results"), ("version", "status", "plan", "stats")),
    Signature("promptfoo", "promptfoo results", ("prompt|results.results", "gradingResult|results.results"),
              ("evalId", "testCase", "testIdx", "promptIdx", "provider", "response", "success", "score", "vars")),
    Signature("deepeval", "DeepEval test run", ("testCases|testRunData",),
              ("testFile", "conversationalTestCases", "metricsScores", "hyperparameters", "testRunLink")),
    Signature("lmeval", "lm-evaluation-harness samples", ("doc_id", "resps|filtered_resps", "arguments"),
              ("doc", "target", "filter", "metrics", "doc_hash", "prompt_hash", "target_hash")),
    Signature("langfuse", "Langfuse traces and scores", ("id|traceId", "input|output|name"),
              ("traceId", "sessionId", "userId", "observations", "scores", "dataType", "stringValue", "source",
               "comment", "timestamp", "htmlPath")),
)
# A field every signature above could name is no evidence: only distinctive ones make a harness "recognised".
_WEAK = frozenset({"id", "name", "input", "output", "model", "label", "version", "score", "source", "timestamp",
                   "error", "metadata"})
SAMPLE_ROWS = 50


class Diagnosis(NamedTuple):
    lines: tuple[str, ...]  # what doctor prints
    command: str | None  # the import kind that fits, None when none does
    missing: str | None  # for the closest format that does not fit: what it lacks


def _fields(path: Path) -> tuple[str, set[str]]:
    """(what the file is, the field names of its first rows: top-level keys, plus `a.b` for a single document's
    nested objects)."""
    import zipfile  # here, not at the top: only doctor needs it, and `judgecal --help` should not pay for it

    if path.suffix.lower() == ".eval" or (path.is_file() and zipfile.is_zipfile(path)):
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
        except (OSError, zipfile.BadZipFile) as exc:
            raise InputError([Problem(str(path), 0, "", f"cannot read the zip archive: {exc}")]) from None
        # Inspect's .eval is a zip with header.json (or _journal/start.json while running) and samples/*.json.
        fields = {"eval"} if {"header.json", "_journal/start.json"} & names else set()
        fields |= {"samples"} if any(n.startswith("samples/") for n in names) else set()
        return "a zip archive", fields | {"version"} if fields else set()
    text = read_text_file(path)
    if path.suffix.lower() == ".csv":
        header = next(csv.reader(io.StringIO(text)), [])
        return "CSV", {h.strip() for h in header if h.strip()}
    stripped = text.strip()
    try:
        doc = load_json(stripped) if stripped else None
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict):
        fields = set(doc)
        for k, v in doc.items():
            if isinstance(v, dict):
                fields |= {f"{k}.{kk}" for kk in v}
        if isinstance(doc.get("data"), list):  # an API page: look at its rows
            fields |= _row_fields(doc["data"])
        return "one JSON document", fields
    if isinstance(doc, list):
        return "a JSON list", _row_fields(doc)
    rows: list[Any] = []
    for line in text.split("\n"):
        if line.strip():
            try:
                rows.append(load_json(line))
            except json.JSONDecodeError:
                continue
            if len(rows) >= SAMPLE_ROWS:
                break
    return ("JSONL" if rows else "not JSON, JSONL or CSV"), _row_fields(rows)


def _row_fields(rows: list[Any]) -> set[str]:
    out: set[str] = set()
    for r in rows[:SAMPLE_ROWS]:
        if isinstance(r, dict):
            out |= set(r)
    return out


def _check(sig: Signature, fields: set[str]) -> tuple[list[str], list[str]]:
    """(recognised fields, missing requirements) of one signature."""
    found, missing = [], []
    for req in sig.required:
        hit = [a for a in req.split("|") if a in fields]
        if not hit:
            missing.append(req.replace("|", " or "))
        found += [a for a in hit if a not in found]
    found += [h for h in sig.hints if h in fields and h not in found]
    return found, missing


def _refused(sig: Signature, what: str, fields: set[str], path: Path) -> str | None:
    """Why the import that fits by its fields would still refuse the file (a review, wave 13: doctor said "import
    with" for a runs file whose extra column `import runs` refuses, and for an Inspect log named .zip), else None."""
    if sig.allowed is not None and what in ("JSONL", "a JSON list", "one JSON document", "CSV"):  # (one line of JSONL)
        # top-level fields only: a document's nested objects add `a.b` names
        unknown = sorted(f for f in fields if f not in sig.allowed and "." not in f)
        if unknown:
            return f"it takes no field {', '.join(unknown)}"
    if sig.kind == "inspect" and path.suffix.lower() not in (".eval", ".json"):
        return f"Inspect AI reads a log by its name's suffix (.eval or .json), not {path.suffix or 'none'}: rename it"
    return None


def diagnose(path: str | Path) -> Diagnosis:
    """Which import kind fits the file, from its field names. Raises InputError when it cannot be read."""
    path = Path(path)
    what, fields = _fields(path)
    lines = [f"{path}: {what}; fields: {', '.join(sorted(fields)) if fields else '(none found)'}"]
    fitting: list[tuple[int, Signature, list[str]]] = []
    close: list[tuple[int, Signature, list[str]]] = []
    for sig in SIGNATURES:
        found, missing = _check(sig, fields)
        strong = [f for f in found if f.split(".")[0] not in _WEAK]
        if not missing and strong:
            fitting.append((len(found), sig, found))
        elif strong:
            close.append((len(strong), sig, missing))
    for _, sig, found in sorted(fitting, key=lambda t: -t[0]):
        lines.append(f"recognised: {sig.name} (`import {sig.kind}`): {', '.join(found)}")
    if fitting:
        best = max(fitting, key=lambda t: t[0])[1]
        refused = _refused(best, what, fields, path)
        if refused is None:
            return Diagnosis(tuple(lines), best.kind, None)
        lines.append(f"but `import {best.kind}` would refuse it: {refused}")
        return Diagnosis(tuple(lines), None, f"{best.name} (`import {best.kind}`) would refuse it: {refused}")
    missing = None
    if close:
        _, sig, lack = max(close, key=lambda t: t[0])
        missing = f"closest is {sig.name} (`import {sig.kind}`), which needs {', '.join(lack)}"
        lines.append(f"partly recognised: {missing}")
    return Diagnosis(tuple(lines), None, missing)
