"""Probe throughput: a probe run is a judge batch, so it must keep the judge's pace — >= 0.90 of a bare loop of
openai SDK calls against the same local server (tests/openai_stub.py, its own process, fixed latency).

    PYTHONPATH=. python bench/probe_throughput.py [--pairs 1000] [--latency 0.05] [--concurrency 16]

"Ours" is the whole `jobs.run_probe(..., "verbosity")`: choosing the counted pairs, rendering the baseline and the
padded prompt of each, the cache lookup and leases, the requests, parsing each answer, committing every answer to the
project's probe_verdicts, and reading the probe's result back. The bare loop sends the same number of requests (the
padded prompt, the same response_format) from the same number of threads with one shared client and does nothing
with the answers. One run on one machine, side by side; the ratio is printed, not asserted (tests/test_probes.py
checks correctness, not speed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "bench")]

from judgecal import annotations as ann  # noqa: E402
from judgecal import jobs  # noqa: E402
from judgecal.judge import OpenAIBackend, plan_probe, ProbePair, shipped_rubric  # noqa: E402
from judge_throughput import bare_loop  # noqa: E402
from test_probes import pass_fail_project  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairs", type=int, default=1000)
    p.add_argument("--latency", type=float, default=0.05)
    p.add_argument("--concurrency", type=int, default=16)
    args = p.parse_args()
    print(f"cpus: {os.cpu_count()}  python {sys.version.split()[0]}")
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", str(args.latency),
                             "--answer", "fail"], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = pass_fail_project(Path(tmp), n_items=args.pairs)
            with ann.unit_of_work(db) as conn:
                record, item, constraint = next(ann.semantic_pairs(conn))
            padded = plan_probe("verbosity", [ProbePair(record, item, constraint)], shipped_rubric(), "m")[1].prompt
            n = 2 * args.pairs
            bare_loop(url, args.concurrency * 2, args.concurrency, padded)  # warm-up: connections, imports
            bare_s = bare_loop(url, n, args.concurrency, padded)
            backend = OpenAIBackend(model="bench-judge", base_url=url, api_key="sk-bench", max_retries=0,
                                    timeout_s=30, concurrency=args.concurrency)
            start = time.perf_counter()
            result = jobs.run_probe(db, backend, "verbosity", concurrency=args.concurrency)
            ours_s = time.perf_counter() - start
            backend.close()
            assert result.summary.verdicts == n and result.result.rate.n == args.pairs, result.summary.format()
    finally:
        proc.terminate()
        proc.wait()
    ideal = args.concurrency / args.latency
    bare, ours = n / bare_s, n / ours_s
    print(f"{n} requests ({args.pairs} pairs x baseline + padded), latency {args.latency * 1000:.0f} ms, "
          f"concurrency {args.concurrency}: ideal {ideal:.1f}/s")
    print(f"    bare SDK loop:   {bare:7.1f}/s = {bare / ideal:.3f} of ideal")
    print(f"    judgecal probe:  {ours:7.1f}/s = {ours / ideal:.3f} of ideal, {ours / bare:.3f} of the bare SDK loop")
    print(f"target ours / bare >= 0.90: {'met' if ours / bare >= 0.90 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
