"""Import of 100k run records: `judgecal import runs` (parse + validate + one transaction) vs a raw
`sqlite3.executemany` of the same rows into the same schema, in the same process. Prints the ratio.

    python bench/import.py [--n 100000]

Target (issue 2): ratio at most 2.0. Timings are noisy on shared machines, so both sides are measured
alternately and the median of each is used.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal import annotations as ann  # noqa: E402
from judgecal import evalsets  # noqa: E402


def make_files(folder: Path, n: int) -> tuple[Path, Path]:
    items = [
        {"id": f"item-{i}", "instruction": f"Answer question {i}.",
         "constraints": [{"id": "c1", "text": "Mentions the order number", "type": "content"}]}
        for i in range(100)
    ]
    runs = [
        {"id": f"run-{i}", "item_id": f"item-{i % 100}", "model": "bench-model", "run_id": "bench",
         "prompt_version": "v1", "output": f"Your order A-{i} ships tomorrow. " * 3,
         "input_tokens": 120 + i % 50, "output_tokens": 40 + i % 30, "latency_ms": 800.0 + i % 400,
         "created_at": f"2026-11-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"}
        for i in range(n)
    ]
    items_path, runs_path = folder / "items.jsonl", folder / "runs.jsonl"
    evalsets.write_jsonl(items_path, items)
    evalsets.write_jsonl(runs_path, runs)
    return items_path, runs_path


def fresh_db(folder: Path, name: str, items_path: Path) -> Path:
    path = folder / f"{name}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with ann.unit_of_work(path) as db:
        ann.import_items(db, evalsets.read_evalset(items_path))
    return path


def ours(path: Path, runs_path: Path) -> float:
    start = time.perf_counter()
    parsed = evalsets.read_runs(runs_path)
    with ann.unit_of_work(path) as db:
        ann.import_runs(db, parsed)
    return time.perf_counter() - start


def baseline(path: Path, rows: list[tuple]) -> float:
    with ann.unit_of_work(path) as db:
        conn = db.conn
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO run_records (id, item_id, model, prompt_version, run_id, output, trajectory, tool_calls,"
            " input_tokens, output_tokens, latency_ms, rounds, error, evalset_sha256, created_at, seq)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        conn.execute("COMMIT")
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        items_path, runs_path = make_files(folder, args.n)
        rows = []
        for seq, line in enumerate(runs_path.read_text().splitlines(), start=1):
            r = json.loads(line)
            # The same row the import stores: every column, NULLs included, with the same values.
            rows.append((r["id"], r["item_id"], r["model"], r["prompt_version"], r["run_id"], r["output"], None, None,
                         r["input_tokens"], r["output_tokens"], r["latency_ms"], None, None, None,
                         r["created_at"].replace("Z", "+00:00"), seq))
        ours_t, base_t = [], []
        for _ in range(args.repeats):
            base_t.append(baseline(fresh_db(folder, "base", items_path), rows))
            ours_t.append(ours(fresh_db(folder, "ours", items_path), runs_path))
        o, b = statistics.median(ours_t), statistics.median(base_t)
        print(f"run records: {args.n}")
        print(f"raw executemany (rows prebuilt): {b:.3f} s")
        print(f"judgecal import runs (read + validate + insert): {o:.3f} s")
        print(f"ratio ours/raw = {o / b:.2f}  (target <= 2.0)")


if __name__ == "__main__":
    main()
