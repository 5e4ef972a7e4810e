"""Peak memory of the streaming imports (issue 16.1): each `judgecal import KIND` of N and 4N rows in a fresh process
(ru_maxrss is a per-process high-water mark). Memory bounded by the chunk means the 4N peak is about the N peak; an
import that collects the file grows with it.

    python bench/import_memory.py [--n 100000] [--kinds runs,verdicts,samples,ifeval,llmbar,lmeval,langfuse,promptfoo,promptfoo-json,deepeval,inspect] [--python OTHER]

Prints the peak RSS of each import and the growth ratio peak(4N) / peak(N) (target: about 1.0). `promptfoo` is
promptfoo's JSONL output, `promptfoo-json` its one-document `-o out.json`; `deepeval` is a test run written with
`identifier` and `hyperparameters` after the test cases, as DeepEval writes them. Both one-document kinds stream
through ijson since issue 16.1's third round. `inspect` (a .eval log, streamed a sample at a time since wave 6:
docs/importers.md "Memory") needs the [inspect] extra; its log is written with inspect_ai from the fixture's
samples, replicated (slow: use a small --n, e.g. 400). `--python` runs the imports with another interpreter (a
virtual environment of the code before a change), for a before/after on the same files. Each line also gives the
CPU seconds (user + system) of the import itself.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
SHA = "b" * 64

CHILD = """
import resource, sys
from judgecal.cli import main
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
before, started = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, cpu()
code = main(["--db", sys.argv[1], "import", sys.argv[2], sys.argv[3]])
print(cpu() - started, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, code)
"""


def write_files(folder: Path, n: int) -> dict[str, Path]:
    items = [{"id": f"item-{i}", "instruction": f"Answer question {i}.", "constraints": [
        {"id": "c1", "text": "Mentions the order number", "type": "content"},
        {"id": "c2", "text": "Stays polite", "type": "content"}]} for i in range(1000)]
    paths = {k: folder / f"{k}-{n}.jsonl" for k in ("evalset", "runs", "verdicts")}
    with open(paths["evalset"], "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in items)
    with open(paths["runs"], "w") as fh:
        fh.writelines(json.dumps({"id": f"run-{i}", "item_id": f"item-{i % 1000}", "model": "bench-model",
                                  "run_id": "bench", "output": f"Your order A-{i} ships tomorrow. " * 3,
                                  "output_tokens": 40 + i % 30}) + "\n" for i in range(n))
    with open(paths["verdicts"], "w") as fh:
        for i in range(n // 6):  # ~6 verdicts per run record: 2 semantic constraints x 3 repeats
            for c in ("c1", "c2"):
                for rep in range(3):
                    fh.write(json.dumps({"run_record_id": f"run-{i}", "constraint_id": c, "rubric": "bench",
                                         "rubric_sha256": SHA, "judge_model": "judge", "repeat": rep,
                                         "label": "pass" if (i + rep) % 4 else "fail", "reason": "ok"}) + "\n")
    return paths


def _jsonl(path: Path, rows) -> Path:
    with open(path, "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    return path


def _samples(folder: Path, n: int) -> tuple[list[tuple[str, Path]], Path]:
    """A project of n run records (one semantic constraint each) and its whole random sample, exported."""
    base = write_files(folder, n)
    src = folder / f"sampled-{n}.db"
    for kind in ("evalset", "runs"):
        _cli(src, ["import", kind, str(base[kind])])
    _cli(src, ["sample", "--rate", "0.5", "--overlap", "0"])
    out = folder / f"samples-{n}.jsonl"
    _cli(src, ["export", "samples", "--out", str(out)])
    return [("evalset", base["evalset"]), ("runs", base["runs"])], out


def _ifeval(folder: Path, n: int):
    return [], _jsonl(folder / f"ifeval-{n}.jsonl", (
        {"key": k, "prompt": f"Write about topic {k} without commas.", "instruction_id_list": ["punctuation:no_comma"],
         "kwargs": [{}], "response": f"Topic {k} is fine. " * 5} for k in range(n)))


def _llmbar(folder: Path, n: int):
    return [], _jsonl(folder / f"llmbar-{n}.jsonl", (
        {"item_id": f"b{k}", "instruction": f"Pick the better answer to {k}.", "output_1": f"answer one {k}",
         "output_2": f"answer two {k}", "human_label": 1 + k % 2, "judge_base_order_original": 1 + k % 2,
         "judge_base_order_swapped": 1} for k in range(n)))


def _lmeval(folder: Path, n: int):
    sub = folder / "org__model"
    sub.mkdir(exist_ok=True)
    return [], _jsonl(sub / f"samples_qa{n}_2026-11-30T10-00-00.000000.jsonl", (
        {"doc_id": k, "arguments": {"gen_args_0": {"arg_0": f"Question {k}?", "arg_1": {}}},
         "resps": [[f"Answer {k}. " * 3]], "filtered_resps": [f"Answer {k}."], "target": f"Answer {k}.",
         "exact_match": k % 2, "filter": "none", "metrics": ["exact_match"]} for k in range(n)))


def _langfuse(folder: Path, n: int):
    def rows():
        for k in range(n):
            yield {"id": f"t{k}", "name": "qa", "input": f"Question {k}?", "output": f"Answer {k}. " * 3}
            yield {"id": f"s{k}", "traceId": f"t{k}", "name": "correct", "value": k % 2, "dataType": "BOOLEAN",
                   "source": "EVAL"}
    return [], _jsonl(folder / f"langfuse-{n}.jsonl", rows())


def _promptfoo_result(k: int) -> dict:
    return {"id": f"res{k}", "testIdx": k, "promptIdx": 0, "prompt": {"raw": f"Question {k}?"},
            "provider": {"id": "openai:gpt-x"}, "response": {"output": f"Answer {k}. " * 3}, "vars": {"q": k},
            "gradingResult": {"componentResults": [{"pass": k % 2 == 0, "score": 1.0, "reason": "ok",
                                                    "assertion": {"type": "llm-rubric", "value": "is right"}}]}}


def _promptfoo(folder: Path, n: int):
    return [], _jsonl(folder / f"promptfoo-{n}.jsonl", (_promptfoo_result(k) for k in range(n)))


def _document(path: Path, head: str, rows, tail: str) -> Path:
    """A pretty-printed one-document file written a row at a time (this process stays small too)."""
    with open(path, "w") as fh:
        fh.write(head)
        for k, row in enumerate(rows):
            fh.write((",\n" if k else "\n") + json.dumps(row, indent=2))
        fh.write(tail)
    return path


def _promptfoo_json(folder: Path, n: int):
    return [], _document(folder / f"promptfoo-{n}.json", '{\n"evalId": "eval-bench",\n"results": {"version": 3, '
                         '"results": [', (_promptfoo_result(k) for k in range(n)), '\n]},\n"config": {}\n}\n')


def _deepeval(folder: Path, n: int):
    cases = ({"name": f"c{k}", "input": f"Question {k}?", "actualOutput": f"Answer {k}. " * 3, "order": k,
              "metricsData": [{"name": "Correctness", "success": k % 2 == 0, "score": 1.0, "threshold": 0.5}]}
             for k in range(n))
    return [], _document(folder / f"deepeval-{n}.json", '{"testFile": "test_bench.py", "testCases": [', cases,
                         f'],\n"conversationalTestCases": [],\n"identifier": "run-{n}",\n'
                         '"hyperparameters": {"model": "bench-model"}\n}\n')


def _inspect(folder: Path, n: int):
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(REPO / "tests" / "fixtures" / "harnesses" / "inspect_capitals.eval"))
    template = log.samples
    log.samples = [template[k % len(template)].model_copy(update={"id": f"s{k}", "epoch": 1}) for k in range(n)]
    log.eval.dataset.sample_ids = [f"s{k}" for k in range(n)]
    log.eval.dataset.samples = n
    path = folder / f"inspect-{n}.eval"
    write_eval_log(log, str(path))
    return [], path


KINDS = {"samples": _samples, "ifeval": _ifeval, "llmbar": _llmbar, "lmeval": _lmeval, "langfuse": _langfuse,
         "promptfoo": _promptfoo, "promptfoo-json": _promptfoo_json, "deepeval": _deepeval, "inspect": _inspect}


def _write_apart(kind: str, folder: Path, n: int) -> tuple[list[tuple[str, Path]], Path]:
    """Write a kind's files in a process of its own: a child's ru_maxrss starts from its parent's size, so this
    process must stay small (the deepeval document and inspect_ai would otherwise show up in every later peak)."""
    out = subprocess.run([sys.executable, __file__, "--write", kind, "--n", str(n), "--folder", str(folder)],
                         cwd=REPO, check=True, capture_output=True, text=True).stdout
    setup, file = json.loads(out.splitlines()[-1])
    return [(step, Path(path)) for step, path in setup], Path(file)


PYTHON = [sys.executable]  # the interpreter of the imports (--python)


def _cli(db: Path, argv: list[str]) -> None:
    # Run beside the project, not in the repository: with --python, the other interpreter's judgecal is imported.
    subprocess.run([PYTHON[0], "-m", "judgecal", "--db", str(db), *argv], cwd=db.parent, check=True,
                   capture_output=True)


class Peak(NamedTuple):
    start: int  # MiB before the import: the interpreter and libraries
    top: int  # MiB, the process's peak
    cpu: float  # CPU seconds (user + system) of the import itself


def peak(db: Path, kind: str, file: Path) -> Peak:
    kind = {"promptfoo-json": "promptfoo"}.get(kind, kind)  # the bench's name -> the import kind
    out = subprocess.run([PYTHON[0], "-c", CHILD, str(db), kind, str(file)], cwd=db.parent, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[-1] == "0", out
    return Peak(int(out[-3]) // 1024, int(out[-2]) // 1024, float(out[-4]))  # MiB (ru_maxrss is KiB on Linux)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--kinds", default="runs,verdicts",
                        help="comma-separated: runs, verdicts, " + ", ".join(KINDS))
    parser.add_argument("--python", help="the interpreter whose judgecal runs the imports (default: this one)")
    parser.add_argument("--write", help=argparse.SUPPRESS)  # internal: write one kind's files (_write_apart)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        setup, file = KINDS[args.write](args.folder, args.n)
        print(json.dumps([[(step, str(path)) for step, path in setup], str(file)]))
        return
    if args.python:
        PYTHON[0] = args.python
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = set(kinds) - {"runs", "verdicts"} - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        results: dict[int, dict[str, Peak]] = {}
        for n in (args.n, 4 * args.n):
            results[n] = {}
            base = None
            if {"runs", "verdicts"} & set(kinds):
                base = write_files(folder, n)
                db = folder / f"p-{n}.db"
                peak(db, "evalset", base["evalset"])
                for kind in ("runs", "verdicts"):
                    if kind in kinds or (kind == "runs" and "verdicts" in kinds):
                        results[n][kind] = peak(db, kind, base[kind])
            for kind in kinds:
                if kind in ("runs", "verdicts"):
                    continue
                sub = folder / f"{kind}-{n}"
                sub.mkdir()
                setup, file = _write_apart(kind, sub, n)
                db = sub / "p.db"
                for step, path in setup:
                    _cli(db, ["import", step, str(path)])
                results[n][kind] = peak(db, kind, file)
            for kind, (start, top, seconds) in results[n].items():
                rows = n // 6 * 6 if kind == "verdicts" else n
                print(f"import {kind:9} {rows:>9,} rows: peak RSS {top:>5} MiB (interpreter + libraries {start} MiB), "
                      f"{seconds:.2f} s CPU", flush=True)
        for kind in results[args.n]:
            print(f"{kind}: peak({4 * args.n:,}) / peak({args.n:,}) = "
                  f"{results[4 * args.n][kind].top / results[args.n][kind].top:.2f}  (bounded by the chunk: about 1.0)")


if __name__ == "__main__":
    main()
