"""Judge batch throughput against a local server with fixed latency, next to a bare loop of openai SDK calls.

    PYTHONPATH=. python bench/judge_throughput.py [--verdicts 2000]

Two measurements, each against the stub server (tests/openai_stub.py) in its own process:
  (a) 300 ms per request, concurrency 32: ideal = 32 / 0.3 s = 106.7 verdicts/s. Target: ours >= 0.90 of ideal,
      or of the bare SDK loop where the SDK itself cannot reach the ideal.
  (b) 50 ms per request, concurrency 16: ideal = 320/s. Target: ours / bare SDK >= 0.90 (prompt building, parsing
      and storing add at most 10% to the SDK's own cost).
"Ours" is the whole batch: planning and rendering prompts, the cache lookup, the requests, parsing and validating
each answer, and committing every verdict to a SQLite project file. The bare loop sends the same number of requests
(same prompt size, same response_format) from the same number of threads with one shared client, and does nothing
with the answers. Ratios come from one run on one machine, side by side (absolute numbers are noisy).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from judgecal import annotations as ann  # noqa: E402
from judgecal.annotations import store as av  # noqa: E402
from judgecal.judge import OpenAIBackend, run_batch, shipped_rubric  # noqa: E402
from judgecal.judge._verdict import response_format_json_schema  # noqa: E402  # house: private
from test_judge_fixtures import make_project  # noqa: E402


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", str(latency)],
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def bare_loop(url: str, n: int, concurrency: int, prompt: str) -> float:
    """n chat-completion calls from `concurrency` threads sharing one client; returns seconds."""
    import httpx2
    import openai

    limits = httpx2.Limits(max_connections=concurrency * 2, max_keepalive_connections=concurrency * 2)
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
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    client.close()
    return wall


def ours(url: str, db: Path, concurrency: int) -> tuple[float, int]:
    """The whole judge batch over every pair of the project (1 repeat); returns (seconds, verdicts stored)."""
    rubric = shipped_rubric()
    with ann.unit_of_work(db) as conn:
        av.store_rubric(conn, rubric.name, rubric.template, rubric.sha256)
        pairs = list(ann.semantic_pairs(conn))
    backend = OpenAIBackend(model="bench-judge", base_url=url, api_key="sk-bench", max_retries=0, timeout_s=30,
                            concurrency=concurrency)
    start = time.perf_counter()
    with av.SqliteVerdictSink(db, "bench") as sink:
        summary = run_batch(pairs, rubric, backend, sink, repeats=1, concurrency=concurrency)
    wall = time.perf_counter() - start
    backend.close()
    assert summary.verdicts == len(pairs), summary.format()
    with ann.unit_of_work(db) as conn:
        stored = conn.execute("SELECT count(*) FROM verdicts WHERE label IS NOT NULL").fetchone()[0]
    return wall, stored


def measure(name: str, latency: float, concurrency: int, n: int, workdir: Path) -> dict[str, float]:
    proc, url = start_server(latency)
    try:
        db = make_project(workdir / f"{name}.db", n_items=n // 2, label_sets=False)
        with ann.unit_of_work(db) as conn:
            record, item, constraint = next(ann.semantic_pairs(conn))
        prompt = shipped_rubric().render(record, item, constraint)
        bare_loop(url, concurrency * 2, concurrency, prompt)  # warm-up: connections, imports
        bare_s = bare_loop(url, n, concurrency, prompt)
        ours_s, stored = ours(url, db, concurrency)
    finally:
        proc.terminate()
        proc.wait()
    ideal = concurrency / latency
    r = {"ideal": ideal, "bare": n / bare_s, "ours": stored / ours_s}
    print(f"({name}) {n} verdicts, latency {latency * 1000:.0f} ms, concurrency {concurrency}: ideal {ideal:.1f}/s")
    print(f"    bare SDK loop: {r['bare']:7.1f}/s = {r['bare'] / ideal:.3f} of ideal")
    print(f"    judgecal:      {r['ours']:7.1f}/s = {r['ours'] / ideal:.3f} of ideal, "
          f"{r['ours'] / r['bare']:.3f} of the bare SDK loop  ({stored} verdicts committed)")
    return r


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--verdicts", type=int, default=2000)
    args = p.parse_args()
    print(f"cpus: {os.cpu_count()}  python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        a = measure("a", 0.300, 32, args.verdicts, Path(tmp))
        b = measure("b", 0.050, 16, args.verdicts, Path(tmp))
    ok_a = a["ours"] / a["ideal"] >= 0.90 or a["ours"] / a["bare"] >= 0.90
    ok_b = b["ours"] / b["bare"] >= 0.90
    print(f"targets: (a) ours >= 0.90 of ideal or of bare: {'met' if ok_a else 'NOT met'}; "
          f"(b) ours / bare >= 0.90: {'met' if ok_b else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
