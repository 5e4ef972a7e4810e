"""lm-evaluation-harness sample logs (`--log_samples`: samples_<task>_<date>.jsonl): per-sample metrics of generated
answers become verdicts. Field-by-field mapping: docs/importers.md."""

from __future__ import annotations

import json
import re
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
    text_of,
    text_sha8,
)
from judgecal.evalsets._io import Problem

KIND = "lmeval"
# The fields lm-eval writes for every sample; any other top-level number is a metric (older logs have no "metrics").
BOOKKEEPING = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                         "doc_hash", "prompt_hash", "target_hash"})
_SAMPLES_FILE = re.compile(r"^samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")


def _prompt(arguments: Any) -> Any:
    """The prompt of a generate_until request: [[prompt, gen_kwargs]] (lm-eval < 0.4.3) or
    {"gen_args_0": {"arg_0": prompt, "arg_1": gen_kwargs}}."""
    if isinstance(arguments, dict):
        first = arguments.get("gen_args_0")
        return first.get("arg_0") if isinstance(first, dict) else None
    if isinstance(arguments, list) and arguments and isinstance(arguments[0], list) and arguments[0]:
        return arguments[0][0]
    return None


def _output(row: dict[str, Any]) -> str | None:
    """The model's text: the first generation (`resps[0][0]`), what a reviewer should read; None for loglikelihood
    requests, whose responses are numbers."""
    resps = row.get("resps")
    if isinstance(resps, list) and resps:
        first = resps[0][0] if isinstance(resps[0], list) and resps[0] else resps[0]
        if isinstance(first, str):
            return first
    return None


def _metric_names(row: dict[str, Any]) -> list[str]:
    if isinstance(row.get("metrics"), list):
        return [str(n) for n in row["metrics"] if n in row]
    return [k for k, v in row.items() if k not in BOOKKEEPING and isinstance(v, (int, float, bool))]


def _rows(path: Path) -> Iterator[tuple[int, Any]]:
    """The file's samples with their line numbers, read as they are needed (JSONL), or the one document."""
    values = json_values(path)
    return iter([(1, values.document)]) if values.lines is None else values.lines


@guarded(KIND)
def stream_lmeval(path: str | Path) -> Iterator[HarnessImport]:
    """The file in chunks of run records (HarnessBuilder), read twice: a first pass finds which metrics are 0/1
    throughout the file (and the file's hash where its name carries no date), the second makes the rows."""
    path = Path(path)
    b = HarnessBuilder(KIND, path)
    m = _SAMPLES_FILE.match(path.name)
    task = m.group("task") if m else path.stem
    # lm-eval writes its samples under <output_path>/<model name, "/" as "__">/; the samples carry no model.
    model = path.parent.name.replace("__", "/") if m and path.parent.name else "unknown"
    # A metric is a pass/fail judge only if every value it has in the file is 0/1 (exact_match, acc); a bleu that
    # happens to be 0 on one sample is still a score, never a "fail" verdict.
    binary: dict[str, bool] = {}
    first_other: dict[str, tuple[int, Any]] = {}  # metric -> (line, value) of its first value that is not 0/1
    for line, row in _rows(path):
        b.at(line, "(row)")
        if isinstance(row, dict):
            for n in _metric_names(row):
                zero_one = pass_fail(row.get(n)) is not None and not isinstance(row.get(n), str)
                binary[n] = binary.get(n, True) and zero_one
                if not zero_one and n not in first_other:
                    first_other[n] = (line, row.get(n))
    run_key = f"{task}:{m.group('date') if m else 'file-' + text_sha8(path)}"
    for line, row in _rows(path):
        yield from b.chunk_if_full()
        b.at(line, "(row)")
        if isinstance(row, Problem):
            b.problems.append(row)
            continue
        if not isinstance(row, dict) or "doc_id" not in row:
            b.problem(line, "doc_id", "expected an lm-eval sample (an object with doc_id)")
            continue
        output = _output(row)
        if output is None:
            b.skip("samples whose responses are log-likelihoods, not generated text")
            continue
        resps = row.get("resps")
        if isinstance(resps[0], list) and len(resps[0]) > 1:
            # `repeats: k`: the metric judges the k generations together (maj@k, pass@k), not the first one shown.
            b.skip("samples with several generations per request (the metric judges them together, not one output)")
            continue
        names = [n for n in _metric_names(row) if binary.get(n)]
        for n in _metric_names(row):
            if not binary.get(n):
                b.skip(f"values of {n} (not 0/1 throughout the file: a score without a pass mark)")
        flt = row.get("filter")
        suffix = f",{flt}" if isinstance(flt, str) and flt != "none" else ""
        graders = [GraderSpec(f"{n}{suffix}", f"lm-evaluation-harness metric {n}{suffix} on {task}") for n in names]
        if not graders:
            b.skip("samples without a per-sample metric")
            continue
        prompt = _prompt(row.get("arguments"))
        if prompt is None:
            b.problem(line, "arguments", "no prompt found (expected [[prompt, kwargs]] or gen_args_0.arg_0)")
            continue
        item_id = b.item(line, f"{task}:{row['doc_id']}", prompt, graders, reference=text_of(row.get("target")),
                         where="arguments")
        if item_id is None:
            continue
        run_id = b.run(line, f"{KIND}:{run_key}:{row['doc_id']}{suffix}", item_id, model=model, output=output,
                       run=run_key, where="resps", file_keyed=m is None)
        if run_id is None:
            continue
        for n in names:
            value = row.get(n)
            label = pass_fail(value)
            b.verdict(line, HarnessVerdict(run_id, f"{n}{suffix}", f"lmeval:{task}:{n}{suffix}", f"lm-eval:{n}", 0,
                                           label, scored_reason(KIND, value, "1 = pass, 0 = fail",
                                                                text_of(row.get("filtered_resps")))))
    if not b.runs_total and not b.problems and not b.any_problem and first_other:
        # Every sample was left out because no metric is 0/1 throughout: say which value of which metric, where (a
        # review, wave 15: the error said "no samples with an output", though every sample had one).
        for n, (line, value) in first_other.items():
            b.problem(line, n, f"{n} is not 0/1 throughout the file (here: {json.dumps(value)}), so it is no "
                               "pass/fail verdict and no sample has a metric to import")
    yield b.last_chunk()
