"""Peak memory of the streaming imports (issue 16.1): `judgecal import runs` and `import verdicts` of N and 4N rows,
each in a fresh process (ru_maxrss is a per-process high-water mark). Memory bounded by the chunk means the 4N peak
is about the N peak; an import that collects the file grows with it.

    python bench/import_memory.py [--n 100000]

Prints the peak RSS of each import and the growth ratio peak(4N) / peak(N) (target: about 1.0).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHA = "b" * 64

CHILD = """
import resource, sys
from judgecal.cli import main
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = main(["--db", sys.argv[1], "import", sys.argv[2], sys.argv[3]])
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, code)
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


def peak(db: Path, kind: str, file: Path) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(db), kind, str(file)], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[-1] == "0", out
    return int(out[-3]) // 1024, int(out[-2]) // 1024  # MiB (ru_maxrss is KiB on Linux)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        results = {}
        for n in (args.n, 4 * args.n):
            files = write_files(folder, n)
            db = folder / f"p-{n}.db"
            peak(db, "evalset", files["evalset"])
            results[n] = {kind: peak(db, kind, files[kind]) for kind in ("runs", "verdicts")}
            for kind, (start, top) in results[n].items():
                rows = n if kind == "runs" else n // 6 * 6
                print(f"import {kind:8} {rows:>9,} rows: peak RSS {top:>5} MiB (interpreter + libraries {start} MiB)")
        for kind in ("runs", "verdicts"):
            print(f"{kind}: peak({4 * args.n:,}) / peak({args.n:,}) = "
                  f"{results[4 * args.n][kind][1] / results[args.n][kind][1]:.2f}  (bounded by the chunk: about 1.0)")


if __name__ == "__main__":
    main()
