"""Judge batch throughput against a local server with fixed latency, next to a bare loop of openai SDK calls.

    PYTHONPATH=. python bench/judge_throughput.py [--verdicts 2000] [--cases a,b,c] [--verdicts-c 4000]

Three measurements, each against the stub server (tests/openai_stub.py) in its own process:
  (a) 300 ms per request, concurrency 32: ideal = 32 / 0.3 s = 106.7 verdicts/s. Target: ours >= 0.90 of ideal,
      or of the bare SDK loop where the SDK itself cannot reach the ideal.
  (b) 50 ms per request, concurrency 16: ideal = 320/s. Target: ours / bare SDK >= 0.90 (prompt building, parsing
      and storing add at most 10% to the SDK's own cost).
  (c) 50 ms per request, concurrency 256 (issue 16.6: a cluster of replicas behind one URL): ideal = 5,120/s, far
      above what one Python process reaches; target: ours / bare SDK >= 0.90.
  (d) `judge --batch` against the fake files and batches endpoints (tests/openai_batch_stub.py): CPU per landed
      verdict (request file, upload, polls, download, reading and storing every result) vs the bare loop's CPU per
      call against the same server. Target <= 1.5.
Beside each throughput ratio, CPU per judge call (issue 16.4): this process's CPU time (time.process_time: every
thread, user + system; the stub server is another process) divided by the calls, ours / bare. Target <= 1.5.
"Ours" is the whole batch: planning and rendering prompts, the cache lookup, the requests, parsing and validating
each answer, and committing every verdict to a SQLite project file. The bare loop sends the same number of requests
(same prompt size, same response_format) from the same number of threads with one shared client, and does nothing
with the answers. Ratios come from one run on one machine, side by side (absolute numbers are noisy).
"""

from __future__ import annotations

import argparse
import statistics
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from judgecal import annotations as ann  # noqa: E402
from judgecal.annotations import store as av  # noqa: E402
from judgecal.judge import OpenAIBackend, run_batch, shipped_rubric  # noqa: E402
from judgecal.judge._verdict import response_format_json_schema  # noqa: E402  # house: private
from test_judge_fixtures import make_project  # noqa: E402


def start_server(latency: float, *extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", str(latency),
                             *extra], stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


class Timed(NamedTuple):
    wall_s: float
    cpu_s: float  # this process's CPU time over the same span


def bare_loop(url: str, n: int, concurrency: int, prompt: str) -> Timed:
    """n chat-completion calls from `concurrency` threads sharing one client."""
    import httpx2
    import openai

    # The client judgecal's Endpoint builds for the same concurrency: pool max(2 x concurrency, 16) connections, all
    # kept alive, the same timeout, no retries (the judge's backend below gets max_retries=0, timeout_s=30). A
    # baseline with a bigger pool than ours would flatter it; one with a smaller pool would handicap it.
    limits = httpx2.Limits(max_connections=max(concurrency * 2, 16), max_keepalive_connections=max(concurrency * 2, 16))
    client = openai.OpenAI(api_key="sk-bench", base_url=url, max_retries=0, timeout=30,
                           http_client=openai.DefaultHttpxClient(limits=limits, timeout=30))
    rf = response_format_json_schema(("pass", "fail"))
    lock = threading.Lock()
    left = [n]

    def worker() -> None:
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}],
                                           temperature=0, seed=0, response_format=rf)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    start, cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    timed = Timed(time.perf_counter() - start, time.process_time() - cpu)
    client.close()
    return timed


def ours(url: str, db: Path, concurrency: int) -> tuple[Timed, int]:
    """The whole judge batch over every pair of the project (1 repeat); returns (time, verdicts stored)."""
    rubric = shipped_rubric()
    with ann.unit_of_work(db) as conn:
        av.store_rubric(conn, rubric.name, rubric.template, rubric.sha256)
        pairs = list(ann.semantic_pairs(conn))
    backend = OpenAIBackend(model="bench-judge", base_url=url, api_key="sk-bench", max_retries=0, timeout_s=30,
                            concurrency=concurrency)
    start, cpu = time.perf_counter(), time.process_time()
    with av.SqliteVerdictSink(db, "bench") as sink:
        summary = run_batch(pairs, rubric, backend, sink, repeats=1, concurrency=concurrency)
    timed = Timed(time.perf_counter() - start, time.process_time() - cpu)
    backend.close()
    assert summary.verdicts == len(pairs), summary.format()
    with ann.unit_of_work(db) as conn:
        stored = conn.execute("SELECT count(*) FROM verdicts WHERE label IS NOT NULL").fetchone()[0]
    return timed, stored


def measure(name: str, latency: float, concurrency: int, n: int, workdir: Path, rounds: int = 1) -> dict[str, float]:
    """`rounds` pairs of (bare loop, judgecal) against one server, the order alternating round by round; ratios are
    the median of the rounds' ratios (on a shared machine a neighbour's burst hits one side of one round)."""
    proc, url = start_server(latency)
    per_round: list[dict[str, float]] = []
    try:
        for k in range(rounds):
            db = make_project(workdir / f"{name}-{k}.db", n_items=n // 2, label_sets=False)
            with ann.unit_of_work(db) as conn:
                record, item, constraint = next(ann.semantic_pairs(conn))
            prompt = shipped_rubric().render(record, item, constraint)
            if k == 0:
                bare_loop(url, concurrency * 2, concurrency, prompt)  # warm-up: connections, imports
            if k % 2 == 0:
                bare = bare_loop(url, n, concurrency, prompt)
                mine, stored = ours(url, db, concurrency)
            else:
                mine, stored = ours(url, db, concurrency)
                bare = bare_loop(url, n, concurrency, prompt)
            r = {"bare": n / bare.wall_s, "ours": stored / mine.wall_s,
                 "cpu_bare_ms": bare.cpu_s / n * 1000, "cpu_ours_ms": mine.cpu_s / stored * 1000}
            r["ratio"] = r["ours"] / r["bare"]
            r["cpu_ratio"] = r["cpu_ours_ms"] / r["cpu_bare_ms"]
            per_round.append(r)
    finally:
        proc.terminate()
        proc.wait()
    ideal = concurrency / latency
    r = {k: statistics.median(x[k] for x in per_round) for k in per_round[0]} | {"ideal": ideal}
    print(f"({name}) {n} verdicts, latency {latency * 1000:.0f} ms, concurrency {concurrency}: ideal {ideal:.1f}/s"
          + (f"; median of {rounds} alternating rounds" if rounds > 1 else ""))
    print(f"    bare SDK loop: {r['bare']:7.1f}/s = {r['bare'] / ideal:.3f} of ideal; "
          f"CPU {r['cpu_bare_ms']:.2f} ms per call")
    print(f"    judgecal:      {r['ours']:7.1f}/s = {r['ours'] / ideal:.3f} of ideal, "
          f"{r['ratio']:.3f} of the bare SDK loop  ({stored} verdicts committed); "
          f"CPU {r['cpu_ours_ms']:.2f} ms per call = {r['cpu_ratio']:.2f}x the bare loop's")
    if rounds > 1:
        print("    rounds: throughput ratio " + ", ".join(f"{x['ratio']:.3f}" for x in per_round)
              + "; CPU ratio " + ", ".join(f"{x['cpu_ratio']:.2f}" for x in per_round))
    return r


def measure_batch_api(n: int, workdir: Path, concurrency: int = 16) -> dict[str, float]:
    """(d): CPU per verdict of a whole `judge --batch` run vs CPU per call of the bare loop, same server."""
    from judgecal import jobs  # noqa: PLC0415

    proc, url = start_server(0.0, "--batch-api")
    try:
        db = make_project(workdir / "d.db", n_items=n // 2, label_sets=False)
        with ann.unit_of_work(db) as conn:
            record, item, constraint = next(ann.semantic_pairs(conn))
        prompt = shipped_rubric().render(record, item, constraint)
        bare_loop(url, concurrency * 2, concurrency, prompt)
        bare = bare_loop(url, n, concurrency, prompt)
        backend = OpenAIBackend(model="bench-judge", base_url=url, api_key="sk-bench", max_retries=0, timeout_s=60)
        cpu = time.process_time()
        result = jobs.judge_pairs_batch_api(db, backend, repeats=1, poll_s=0.05)
        cpu_ours = time.process_time() - cpu
        backend.close()
    finally:
        proc.terminate()
        proc.wait()
    stored = result.summary.verdicts
    assert stored == n, result.summary.format()
    r = {"cpu_bare_ms": bare.cpu_s / n * 1000, "cpu_ours_ms": cpu_ours / stored * 1000}
    r["cpu_ratio"] = r["cpu_ours_ms"] / r["cpu_bare_ms"]
    print(f"(d) {n} verdicts through the Batch API (fake endpoint), vs {n} bare SDK calls at concurrency {concurrency}")
    print(f"    bare SDK loop: CPU {r['cpu_bare_ms']:.2f} ms per call")
    print(f"    judge --batch: CPU {r['cpu_ours_ms']:.2f} ms per landed verdict = {r['cpu_ratio']:.2f}x the bare "
          f"loop's  ({stored} verdicts committed)")
    return r


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--verdicts", type=int, default=2000)
    p.add_argument("--verdicts-c", type=int, default=3000, help="verdicts of case (c), concurrency 256")
    p.add_argument("--cases", default="a,b,c,d", help="which measurements, comma-separated (default a,b,c,d)")
    p.add_argument("--rounds", type=int, default=3, help="alternating (bare, ours) rounds per case; median ratio")
    args = p.parse_args()
    cases = set(args.cases.split(","))
    print(f"cpus: {os.cpu_count()}  python {sys.version.split()[0]}")
    verdicts: list[str] = []
    done: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        if "a" in cases:
            a = measure("a", 0.300, 32, args.verdicts, Path(tmp), args.rounds)
            done.append(a)
            ok = a["ours"] / a["ideal"] >= 0.90 or a["ratio"] >= 0.90
            verdicts.append(f"(a) ours >= 0.90 of ideal or of bare: {'met' if ok else 'NOT met'}")
        if "b" in cases:
            b = measure("b", 0.050, 16, args.verdicts, Path(tmp), args.rounds)
            done.append(b)
            verdicts.append(f"(b) ours / bare >= 0.90: {'met' if b['ratio'] >= 0.90 else 'NOT met'}")
        if "c" in cases:
            c = measure("c", 0.050, 256, args.verdicts_c, Path(tmp), args.rounds)
            done.append(c)
            verdicts.append(f"(c) ours / bare >= 0.90: {'met' if c['ratio'] >= 0.90 else 'NOT met'}")
        if "d" in cases:
            done.append(measure_batch_api(args.verdicts, Path(tmp)))
    worst = max(r["cpu_ratio"] for r in done)
    verdicts.append(f"CPU per call <= 1.5x the bare loop's: {'met' if worst <= 1.5 else 'NOT met'} (worst {worst:.2f}x)")
    print("targets: " + "; ".join(verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
