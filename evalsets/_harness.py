"""What every harness import shares: a harness's file becomes eval items, run records and verdicts.

Each harness module (`_harness_inspect`, `_harness_promptfoo`, ...) reads its file with a `HarnessBuilder` and returns
a `HarnessImport`; the CLI hands the three parts to the store's ordinary importers in one transaction, so the rows are
the same rows `import evalset`/`runs`/`verdicts` make. No store here: evalsets imports nothing of ours.

Ids are made, not taken: an item's id ends in a hash of its content (two files that asked the same question with the
same graders share the item; a changed question is a new item, as items are immutable by id), a run record's id is
the harness's run id (or the file's hash where the harness has none) and the sample's id, so re-importing a file is
a no-op.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from judgecal.evalsets._io import InputError, Parsed, Problem, load_json, read_text_file
from judgecal.evalsets._models import EvalItem, RunRecord, canonical_json


class HarnessVerdict(NamedTuple):
    """One grader result in the field names of `import verdicts` (annotations.store.VerdictImportRow)."""

    run_record_id: str
    constraint_id: str
    rubric: str
    judge_model: str
    repeat: int
    label: str | None
    reason: str | None
    error: str | None = None
    error_detail: str | None = None

    def as_row(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}


class GraderSpec(NamedTuple):
    """A harness grader seen as one of our semantic constraints: `id` is the constraint id, `text` what it asks."""

    id: str
    text: str


@dataclass
class HarnessImport:
    """A harness file as our rows. `skipped` counts results that are not verdicts, by why (said in the message)."""

    kind: str
    file: str
    items: Parsed[EvalItem]
    runs: Parsed[RunRecord]
    verdicts: Parsed[Any]
    skipped: Counter[str] = field(default_factory=Counter)


class MissingExtra(RuntimeError):
    """The file needs an optional package that is not installed; the message names the pip extra."""


# Scores a harness writes for "the grader said yes / no". Anything else is a score, mapped by a threshold.
_PASS = {"pass", "passed", "true", "yes", "correct", "1"}
_FAIL = {"fail", "failed", "false", "no", "incorrect", "0"}


def pass_fail(value: Any) -> str | None:
    """'pass' / 'fail' for a grader's yes/no value (a bool, 0/1, or a word such as "correct"), else None."""
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {1: "pass", 0: "fail"}.get(value) if math.isfinite(value) else None
    if isinstance(value, str):
        v = value.strip().lower()
        return "pass" if v in _PASS else "fail" if v in _FAIL else None
    return None


def scored_reason(kind: str, score: Any, rule: str, reason: Any) -> str:
    """The reason as stored: the harness's raw score and the rule that made it a label come first, so the number the
    harness gave is never lost behind our pass/fail."""
    head = f"[{kind} score {json.dumps(score, ensure_ascii=False)}; {rule}]"
    text = reason if isinstance(reason, str) else None if reason is None else json.dumps(reason, ensure_ascii=False)
    return f"{head} {text}" if text else head


def text_of(value: Any) -> str | None:
    """A harness field as text: strings as they are, structures (chat messages, dicts) as canonical JSON."""
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def file_sha8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def read_json_or_jsonl(path: str | Path) -> tuple[str, list[tuple[int, Any]]]:
    """The file's text and its values with their line numbers: one JSON document (line 1), or JSONL (one per line).
    Invalid JSON is an InputError naming the file and line."""
    text = read_text_file(path)
    file = str(path)
    stripped = text.strip()
    if not stripped:
        raise InputError([Problem(file, 0, "", "no rows (empty file)")])
    try:
        return text, [(1, load_json(stripped))]
    except json.JSONDecodeError:
        pass
    out: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, load_json(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(file, number, "(json)", f"invalid JSON: {exc.msg}"))
    if problems:
        raise InputError(problems)
    return text, out


class HarnessBuilder:
    """Collects one file's rows; every problem names the file, line and field. `result()` raises InputError if any."""

    def __init__(self, kind: str, file: str | Path):
        self.kind = kind
        self.file = str(file)
        self.items: Parsed[EvalItem] = Parsed(self.file)
        self.runs: Parsed[RunRecord] = Parsed(self.file)
        self.verdicts: Parsed[Any] = Parsed(self.file)
        self.problems: list[Problem] = []
        self.skipped: Counter[str] = Counter()
        self._item_ids: set[str] = set()
        self._run_ids: dict[str, int] = {}

    def problem(self, line: int, field_name: str, message: str) -> None:
        self.problems.append(Problem(self.file, line, field_name, message))

    def _validated(self, model: type, data: dict[str, Any], line: int, where: str) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            for e in exc.errors(include_url=False):
                loc = ".".join(str(p) for p in e["loc"])
                self.problem(line, where + (f" -> {loc}" if loc else ""), e["msg"])
            return None

    def item(self, line: int, local_id: str, instruction: Any, graders: list[GraderSpec], *, input: Any = None,
             reference: Any = None, where: str = "input") -> str | None:
        """The item for one harness sample (added once); returns its id, None when it is invalid (a problem)."""
        # Graders in a fixed order: the same question graded by the same graders is one item whatever the file order.
        constraints = [{"id": g.id, "text": g.text, "type": "content"} for g in sorted(set(graders))]
        body = {"instruction": text_of(instruction) or "", "input": input, "reference": text_of(reference),
                "constraints": constraints, "source": self.kind}
        item_id = f"{self.kind}:{local_id}:{hashlib.sha256(canonical_json(body).encode()).hexdigest()[:8]}"
        if item_id in self._item_ids:
            return item_id
        parsed = self._validated(EvalItem, {"id": item_id, **body}, line, where)
        if parsed is None:
            return None
        self._item_ids.add(item_id)
        self.items.rows.append(parsed)
        self.items.lines.append(line)
        return item_id

    def run(self, line: int, run_id: str, item_id: str, *, model: str, output: Any, error: Any = None,
            run: str | None = None, input_tokens: Any = None, output_tokens: Any = None, latency_ms: Any = None,
            where: str = "output") -> str | None:
        if run_id in self._run_ids:
            self.problem(line, where, f"a second sample with id {run_id!r} (first on line {self._run_ids[run_id]})")
            return None
        data = {"id": run_id, "item_id": item_id, "model": model or "unknown", "run_id": run,
                "output": text_of(output), "error": text_of(error) if error else None,
                "input_tokens": input_tokens, "output_tokens": output_tokens, "latency_ms": latency_ms}
        if data["output"] is None and data["error"] is None:
            data["output"] = ""  # a model that answered nothing answered "": that is still an output to grade
        parsed = self._validated(RunRecord, {k: v for k, v in data.items() if v is not None}, line, where)
        if parsed is None:
            return None
        self._run_ids[run_id] = line
        self.runs.rows.append(parsed)
        self.runs.lines.append(line)
        return run_id

    def verdict(self, line: int, verdict: HarnessVerdict) -> None:
        self.verdicts.rows.append(verdict)
        self.verdicts.lines.append(line)

    def skip(self, why: str) -> None:
        self.skipped[why] += 1

    def result(self) -> HarnessImport:
        if self.problems:
            raise InputError(sorted(self.problems, key=lambda p: p.line))
        if not self.runs.rows:
            raise InputError([Problem(self.file, 0, "", f"no {self.kind} samples with an output in this file")])
        return HarnessImport(self.kind, self.file, self.items, self.runs, self.verdicts, self.skipped)
