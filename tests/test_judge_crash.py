"""A judge batch killed with SIGKILL midway resumes with nothing lost and nothing duplicated.

The CLI runs as a subprocess against the stub server in its own process (50 ms per request); the server logs the
verdict key of every request it receives, so the test can show that no verdict committed before the kill was asked
for again.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from test_judge_fixtures import make_project

REPO = Path(__file__).resolve().parents[1]
N_ITEMS = 200  # x 2 semantic constraints x 3 repeats = 1,200 verdicts


def _keys(db: Path) -> list[tuple[str, str, int]]:
    conn = sqlite3.connect(db)
    try:
        return [(r, c, k) for r, c, k in conn.execute(
            "SELECT run_record_id, constraint_id, repeat FROM verdicts WHERE error IS NULL")]
    finally:
        conn.close()


def _log_keys(lines: list[str]) -> list[tuple[str, str, int]]:
    out = []
    for line in lines:
        rid, cid, rep = line.strip().split("|")
        out.append((rid, cid, int(rep)))
    return out


def test_sigkill_midway_then_resume(tmp_path: Path) -> None:
    db = make_project(tmp_path / "crash.db", n_items=N_ITEMS, label_sets=False)
    log = tmp_path / "requests.log"
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENAI_API_KEY="sk-test")
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", "0.05",
                               "--log", str(log)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        url = server.stdout.readline().strip()
        cmd = [sys.executable, "-m", "judgecal", "--db", str(db), "judge", "--model", "judge-x", "--base-url", url,
               "--concurrency", "16", "--max-retries", "0", "--quiet"]
        first = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if db.exists() and len(_keys(db)) >= 300:
                break
        assert first.poll() is None, "the batch finished before it could be killed"
        first.send_signal(signal.SIGKILL)
        first.wait()
        time.sleep(0.3)  # let requests already on the wire reach the server log
        committed = set(_keys(db))
        seen_before_kill = len(log.read_text().splitlines())
        assert 300 <= len(committed) < 1200

        rerun = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()

    final = _keys(db)
    every = {(f"run-{n}-0", c, k) for n in range(N_ITEMS) for c in ("grounded", "polite") for k in range(3)}
    assert len(final) == len(set(final)) == 1200 and set(final) == every  # none lost, none duplicated
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 1200
    statuses = [r[0] for r in conn.execute("SELECT status FROM batches ORDER BY started_at")]
    conn.close()
    # The killed batch never got to say so; the next batch found its process gone and marked it dead (issue 11.7).
    assert statuses == ["dead", "done"]

    first_run = _log_keys(log.read_text().splitlines()[:seen_before_kill])
    second_run = _log_keys(log.read_text().splitlines()[seen_before_kill:])
    resent = set(first_run) & set(second_run)  # in flight or queued when the kill came: asked again
    # Exactly the answers the kill caught uncommitted are asked again (in flight, or queued in the writer's 20 ms
    # group window), and nothing else. How many that is depends on timing: 12-18 measured on an idle machine
    # (bench/fault_model.py prints it), 22-25 seen on a loaded one; the bound below is a sanity check, not a timing.
    assert resent == set(first_run) - committed
    assert len(resent) <= 16 + 32, f"{len(resent)} requests sent again after the kill"
    assert not committed & set(second_run), "a verdict committed before the kill was requested again"
    assert set(second_run) == every - committed
    assert max(Counter(second_run).values()) == 1
    assert f"planned 1200 verdicts: {len(committed)} already stored (no request), {1200 - len(committed)} requested" in rerun.stdout
