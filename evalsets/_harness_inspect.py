"""Inspect AI eval logs (.eval or .json) as items, run records and verdicts, read through `inspect_ai.log`.

inspect_ai is an optional extra (`pip install 'judgecal-calibrate[inspect]'`): its log format is versioned and
zipped, so we read it with the library that writes it rather than a copy of its schema. Field-by-field mapping:
docs/importers.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from judgecal.evalsets._harness import (
    GRADER_ERROR,
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    MissingExtra,
    guarded,
    pass_fail,
    scored_reason,
    text_of,
)
from judgecal.evalsets._io import InputError, Problem

KIND = "inspect"
EXTRA = "pip install 'judgecal-calibrate[inspect]'"
# Inspect's own value_to_float: correct, partial, incorrect, no answer.
_GRADE_VALUES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
# What inspect_ai's model-graded scorers (model_graded_qa, model_graded_fact: inspect_ai/scorer/_model.py, 0.3.x,
# read 2026-11-30) write as the explanation when the grader's answer has no grade in it; the value is then a default
# (INCORRECT), not the grader's verdict.
GRADE_NOT_FOUND = "Grade not found in model output"


def _read_log(path: Path) -> Any:
    """The whole log (read_eval_log). inspect_ai's sample-at-a-time reader, read_eval_log_samples, calls
    read_eval_log_sample once per sample, which opens the log again each time (a .eval zip's directory parsed
    again, a .json log parsed whole again): its cost grows faster than the log, so it is not used (docs/importers.md,
    "Memory")."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise MissingExtra(f"reading Inspect AI logs needs the inspect_ai package: {EXTRA}") from None
    if not path.is_file():
        raise InputError([Problem(str(path), 0, "", "file not found" if not path.exists() else "is not a file")])
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # inspect_ai raises zip, JSON and pydantic errors alike: all mean "not a log"
        raise InputError([Problem(str(path), 0, "", f"not an Inspect AI eval log: {type(exc).__name__}: "
                                                    f"{str(exc).splitlines()[0][:300] if str(exc) else ''}")]) from None


def grade_label(value: Any) -> tuple[str | None, str]:
    """Our label for an Inspect score value and the rule that made it (the rule is stored with the raw value)."""
    if isinstance(value, str) and value in _GRADE_VALUES:
        return ("pass" if _GRADE_VALUES[value] == 1.0 else "fail"), "C = pass; P, I, N = fail (full credit only)"
    # Only values that are pass/fail by nature: a continuous 0.8 has no pass mark in the log, and inventing one
    # (below 1 = fail) would be our threshold, not the harness's.
    if isinstance(value, (bool, int, float)):
        label = pass_fail(value)
        if label is not None:
            return label, "1/true = pass, 0/false = fail"
    return None, ""


def _input(value: Any) -> Any:
    """A sample's input: text, or chat messages as {role, content} dicts (pydantic objects would be stored as their
    repr)."""
    if isinstance(value, list):
        return [{"role": getattr(m, "role", None), "content": getattr(m, "text", None) or str(getattr(m, "content", ""))}
                for m in value]
    return value


def _grader_model(score: Any, scorer_models: dict[str, str], name: str) -> str:
    grading = (score.metadata or {}).get("grading") if isinstance(score.metadata, dict) else None
    if isinstance(grading, list):
        for message in reversed(grading):
            if isinstance(message, dict) and message.get("role") == "assistant" and message.get("model"):
                return str(message["model"])
    return scorer_models.get(name) or f"inspect-scorer:{name}"


@guarded(KIND)
def stream_inspect(path: str | Path) -> Iterator[HarnessImport]:
    path = Path(path)
    log = _read_log(path)
    b = HarnessBuilder(KIND, path)
    if not log.samples:
        raise InputError([Problem(str(path), 0, "samples", "the log holds no samples (status: "
                                                           f"{log.status}); was it written with --no-log-samples?")])
    scorer_models: dict[str, str] = {}
    for scorer in getattr(log.eval, "scorers", None) or ():
        model = (scorer.options or {}).get("model")
        model = model.get("model") if isinstance(model, dict) else model
        if isinstance(model, str):
            scorer_models[scorer.name] = model
    run = log.eval.run_id
    # A scorer is a pass/fail judge only if every value it gave in the log maps to pass/fail; otherwise its results
    # are counted as not imported, and it is no constraint (a constraint nobody judged would sit unjudged).
    judges: dict[str, bool] = {}
    for sample in log.samples:
        for name, score in (sample.scores or {}).items():
            judges[name] = judges.get(name, True) and grade_label(score.value)[0] is not None
    for n, sample in enumerate(log.samples, start=1):
        yield from b.chunk_if_full()
        # A .eval log has no lines: the n-th sample is "line" n, named in every problem as samples[n-1].
        where = f"samples[{n - 1}]"
        scores = {name: score for name, score in (sample.scores or {}).items() if judges[name]}
        for name in set(sample.scores or {}) - set(scores):
            b.skip(f"scores of {name} (not pass/fail throughout the log)")
        graders = [GraderSpec(name, f"Inspect AI scorer {name}: the answer meets the target") for name in scores]
        if not graders:
            b.skip("samples without scores")
            continue
        item_id = b.item(n, f"{log.eval.task}:{sample.id}", _input(sample.input), graders, reference=sample.target,
                         where=f"{where}.input")
        if item_id is None:
            continue
        usage = sample.output.usage if sample.output is not None else None
        run_id = b.run(n, f"{KIND}:{log.eval.eval_id}:{sample.id}:{sample.epoch}", item_id, model=log.eval.model,
                       output=sample.output.completion if sample.output is not None else None,
                       error=sample.error.message if sample.error is not None else None, run=run,
                       input_tokens=usage.input_tokens if usage else None,
                       output_tokens=usage.output_tokens if usage else None,
                       latency_ms=(sample.total_time * 1000 if sample.total_time is not None else None),
                       where=f"{where}.output")
        if run_id is None or sample.error is not None:
            continue
        for name, score in scores.items():
            if isinstance(score.explanation, str) and score.explanation.startswith(GRADE_NOT_FOUND):
                b.verdict(n, HarnessVerdict(run_id, name, f"inspect:{name}", _grader_model(score, scorer_models, name),
                                            0, None, None, GRADER_ERROR, score.explanation[:2000]))
                continue
            label, rule = grade_label(score.value)
            b.verdict(n, HarnessVerdict(run_id, name, f"inspect:{name}", _grader_model(score, scorer_models, name),
                                        0, label, scored_reason(KIND, score.value, rule, text_of(score.explanation))))
    yield b.last_chunk()
