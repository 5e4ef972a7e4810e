"""Probe throughput: a probe run is a judge batch, so it must keep the judge's pace — >= 0.90 of a bare loop of
openai SDK calls against the same local server (tests/openai_stub.py, its own process, fixed latency).

    PYTHONPATH=. python bench/probe_throughput.py [--pairs 1000]

Two settings, as bench/judge_throughput.py: (a) 300 ms per request, concurrency 32; (b) 50 ms, concurrency 16.

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


def measure(name: str, latency: float, concurrency: int, pairs: int, workdir: Path) -> tuple[float, float, float]:
    """(bare SDK loop, whole probe run, its batch alone) in requests per second."""
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", str(latency),
                             "--answer", "fail"], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    try:
        db = pass_fail_project(workdir / name, n_items=pairs)
        with ann.unit_of_work(db) as conn:
            record, item, constraint = next(ann.semantic_pairs(conn))
        padded = plan_probe("verbosity", [ProbePair(record, item, constraint)], shipped_rubric(), "m")[1].prompt
        n = 2 * pairs
        bare_loop(url, concurrency * 2, concurrency, padded)  # warm-up: connections, imports
        bare_s = bare_loop(url, n, concurrency, padded)
        backend = OpenAIBackend(model="bench-judge", base_url=url, api_key="sk-bench", max_retries=0,
                                timeout_s=30, concurrency=concurrency)
        start = time.perf_counter()
        result = jobs.run_probe(db, backend, "verbosity", concurrency=concurrency)
        ours_s = time.perf_counter() - start
        backend.close()
        assert result.summary.verdicts == n and result.result.rate.n == pairs, result.summary.format()
    finally:
        proc.terminate()
        proc.wait()
    ideal = concurrency / latency
    bare, ours, batch = n / bare_s, n / ours_s, n / result.summary.wall_s
    print(f"({name}) {n} requests ({pairs} pairs x baseline + padded), latency {latency * 1000:.0f} ms, "
          f"concurrency {concurrency}: ideal {ideal:.1f}/s")
    print(f"    bare SDK loop:          {bare:7.1f}/s = {bare / ideal:.3f} of ideal")
    print(f"    judgecal probe (whole): {ours:7.1f}/s = {ours / ideal:.3f} of ideal, {ours / bare:.3f} of the bare loop"
          "  (choosing pairs, rubric, batch record, result read back)")
    print(f"    judgecal probe (batch): {batch:7.1f}/s = {batch / ideal:.3f} of ideal, {batch / bare:.3f} of the bare "
          "loop  (run_batch alone, what bench/judge_throughput.py times)")
    return bare, ours, batch


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairs", type=int, default=1000)
    args = p.parse_args()
    print(f"cpus: {os.cpu_count()}  python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        a = measure("a", 0.300, 32, args.pairs, Path(tmp))
        b = measure("b", 0.050, 16, args.pairs, Path(tmp))
    for name, (bare, ours, batch) in (("a", a), ("b", b)):
        print(f"target ({name}) whole probe / bare >= 0.90: {'met' if ours / bare >= 0.90 else 'NOT met'} "
              f"({ours / bare:.3f}); batch / bare {batch / bare:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
