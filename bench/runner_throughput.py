"""Model-runner throughput: single-turn tasks against a local server with fixed latency.

    PYTHONPATH=. python bench/runner_throughput.py [--tasks 640] [--concurrency 32] [--latency 0.3]

The stub server (tests/openai_stub.py) runs in its own process and sleeps `latency` seconds per request. Ideal
throughput = concurrency / latency (32 / 0.3 s = 106.7 tasks/s). Target: the runner reaches >= 0.90 of ideal.
"The runner" is the whole `judgecal run` path: planning, rendering the messages, the request through the endpoint
adapter (judge.Endpoint), building each run record, and committing every record to a SQLite project file through the
CLI's run-record sink (the project's mechanical checks afterwards are not timed). Prints the ratio of one run
(absolute numbers are noisy; the ratio is what to compare).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from judgecal import annotations as ann  # noqa: E402
from judgecal.evalsets import EvalItem, parse_rows  # noqa: E402
from judgecal.judge import Endpoint  # noqa: E402
from judgecal.runner import ModelClient, RunSettings, run_models  # noqa: E402
from judgecal.annotations import SqliteRunSink  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=640)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--latency", type=float, default=0.3)
    args = p.parse_args()

    items = [{"id": f"b-{n:04d}", "instruction": "Answer the customer's question in one sentence.",
              "input": {"user": f"Where is order AO-{100000 + n}?"},
              "constraints": [{"id": "c1", "text": "Is polite.", "type": "content"}]} for n in range(args.tasks)]
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", str(args.latency)],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "bench.db"
            with ann.unit_of_work(db) as d:
                ann.import_items(d, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
                loaded = list(ann.load_items(d).values())
                sha = ann.project_evalset_sha256(d)
            endpoint = Endpoint(base_url=url, api_key="sk-bench", max_retries=0, timeout_s=30,
                                concurrency=args.concurrency)
            backend = ModelClient(model="bench-model", endpoint=endpoint)
            settings = RunSettings(run_id="bench", concurrency=args.concurrency, evalset_sha256=sha)
            t0 = time.perf_counter()
            with SqliteRunSink(db, "bench") as sink:
                summary = run_models(loaded, backend, sink, settings)
            wall = time.perf_counter() - t0
            backend.close()
            with ann.unit_of_work(db) as d:
                stored = d.execute("SELECT count(*) FROM run_records WHERE run_id = 'bench'").fetchone()[0]
    finally:
        server.terminate()
        server.wait()
    ideal = args.concurrency / args.latency
    rate = summary.done / wall
    print(f"tasks: {summary.done} run, {summary.ok} completed, {stored} records stored")
    print(f"wall: {wall:.2f} s  throughput: {rate:.1f} tasks/s  ideal: {ideal:.1f} tasks/s "
          f"(concurrency {args.concurrency} / latency {args.latency:g} s)")
    ratio = rate / ideal
    print(f"ratio to ideal: {ratio:.3f}  (target >= 0.90: {'met' if ratio >= 0.90 else 'NOT met'})")
    return 0 if stored == args.tasks and summary.ok == args.tasks else 1


if __name__ == "__main__":
    sys.exit(main())
