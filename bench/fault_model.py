"""The fault model's figures, measured: concurrent writers, kill -9 of a judge batch, Ctrl+C of a judge batch.

    PYTHONPATH=. python bench/fault_model.py [--writers 8] [--labels 500] [--import-rows 100000] [--items 200] [--json]

(1) `--writers` processes each store `--labels` human labels, one transaction per label (a connection per unit of
    work, as the app does), while a judge batch stores its verdicts and `judgecal import runs` commits
    `--import-rows` run records into the same project: every label, verdict and record must be there.
(2) A judge batch of `--items` x 2 constraints x 3 repeats is SIGKILLed after a quarter of its verdicts, then re-run:
    none lost, none duplicated, and the requests sent again (in flight or queued at the kill) are counted.
(3) A judge batch gets SIGINT midway: exit 130, every verdict it reports is stored, the batch is `interrupted`.
Everything runs against tests/openai_stub.py in its own process, through the real CLI in subprocesses.
tests/test_batch_lifecycle.py runs this script at a small scale and checks its JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from judgecal import annotations as ann  # noqa: E402
from test_judge_fixtures import make_project  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(REPO), OPENAI_API_KEY="sk-bench")


def _stub(folder: Path, latency: float) -> tuple[subprocess.Popen, str, Path]:
    log = folder / f"requests-{time.monotonic_ns()}.log"
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", str(latency),
                             "--log", str(log)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
    return proc, proc.stdout.readline().strip(), log


def _judge_cmd(db: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "judgecal", "--db", str(db), "judge", "--model", "judge-x", "--base-url", url,
            "--concurrency", "16", "--max-retries", "0", "--quiet"]


def _labelled(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM verdicts WHERE error IS NULL").fetchone()[0]
    finally:
        conn.close()


def _label_writer(db: str, reviewer: str, pairs: list[tuple[str, str]]) -> int:
    for rid, cid in pairs:
        with ann.unit_of_work(db) as conn:
            ann.record_label(conn, reviewer, ann.Pair(rid, cid), "pass", seconds_spent=0.1)
    return len(pairs)


def concurrent_writers(folder: Path, writers: int, labels: int, import_rows: int) -> dict:
    db = make_project(folder / "writers.db", n_items=(labels + 1) // 2, label_sets=False)
    pairs = [(f"run-{n}-0", c) for n in range((labels + 1) // 2) for c in ("grounded", "polite")]
    n_pairs = len(pairs)
    pairs = pairs[:labels]
    runs = folder / "more_runs.jsonl"
    with runs.open("w", encoding="utf-8") as f:
        for n in range(import_rows):
            f.write(json.dumps({"id": f"imp-{n}", "item_id": "item-0", "model": "agent-b", "output": f"answer {n}"})
                    + "\n")
    server, url, _ = _stub(folder, 0.02)
    try:
        # --limit: only the project's own pairs, whether or not the import commits before the judge plans.
        judge = subprocess.Popen([*_judge_cmd(db, url), "--limit", str(n_pairs)], env=ENV, cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        importer = subprocess.Popen([sys.executable, "-m", "judgecal", "--db", str(db), "import", "runs", str(runs)],
                                    env=ENV, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ctx = mp.get_context("spawn")
        with ctx.Pool(writers) as pool:
            counts = pool.starmap(_label_writer, [(str(db), f"reviewer-{w}", pairs) for w in range(writers)])
        judge_out, judge_err = judge.communicate(timeout=600)
        import_out, import_err = importer.communicate(timeout=600)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    conn = sqlite3.connect(db)
    stored_labels = conn.execute("SELECT count(*) FROM human_labels").fetchone()[0]
    stored_runs = conn.execute("SELECT count(*) FROM run_records WHERE id LIKE 'imp-%'").fetchone()[0]
    conn.close()
    return {"writers": writers, "labels_sent": sum(counts), "labels_stored": stored_labels,
            "verdicts_expected": n_pairs * 3,
            "verdicts_stored": _labelled(db), "judge_exit": judge.returncode,
            "import_rows": import_rows, "import_stored": stored_runs, "import_exit": importer.returncode,
            "errors": (judge_err if judge.returncode else "") + (import_err if importer.returncode else "")}


def kill_nine(folder: Path, items: int) -> dict:
    db = make_project(folder / "kill.db", n_items=items, label_sets=False)
    total = items * 2 * 3
    server, url, log = _stub(folder, 0.05)
    try:
        first = subprocess.Popen(_judge_cmd(db, url), env=ENV, cwd=REPO, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        while first.poll() is None and (not db.exists() or _labelled(db) < total // 4):
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        time.sleep(0.3)  # requests already on the wire reach the server log
        committed = _labelled(db)
        before = log.read_text().splitlines()
        rerun = subprocess.run(_judge_cmd(db, url), env=ENV, cwd=REPO, capture_output=True, text=True, timeout=600)
        after = log.read_text().splitlines()[len(before):]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT count(*), count(DISTINCT run_record_id || '|' || constraint_id || '|' || repeat)"
                        " FROM verdicts WHERE error IS NULL").fetchone()
    statuses = [r[0] for r in conn.execute("SELECT status FROM batches ORDER BY started_at")]
    conn.close()
    return {"verdicts": total, "committed_at_kill": committed, "stored_after_resume": rows[0],
            "lost": total - rows[1], "duplicated": rows[0] - rows[1], "resent": len(set(before) & set(after)),
            "requested_twice_in_rerun": sum(1 for c in Counter(after).values() if c > 1), "statuses": statuses,
            "rerun_exit": rerun.returncode}


def ctrl_c(folder: Path, items: int) -> dict:
    db = make_project(folder / "sigint.db", n_items=items, label_sets=False)
    total = items * 2 * 3
    server, url, _ = _stub(folder, 0.05)
    try:
        judge = subprocess.Popen(_judge_cmd(db, url), env=ENV, cwd=REPO, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        while judge.poll() is None and (not db.exists() or _labelled(db) < total // 4):
            time.sleep(0.05)
        judge.send_signal(signal.SIGINT)
        out, err = judge.communicate(timeout=120)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    reported = re.search(r"^verdicts: (\d+)", out, re.M)
    conn = sqlite3.connect(db)
    status = conn.execute("SELECT status FROM batches").fetchone()[0]
    conn.close()
    return {"exit": judge.returncode, "reported": int(reported.group(1)) if reported else None,
            "stored": _labelled(db), "status": status, "acknowledged": "stopping: waiting for" in err}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--writers", type=int, default=8)
    p.add_argument("--labels", type=int, default=500, help="labels per writer")
    p.add_argument("--import-rows", type=int, default=100_000)
    p.add_argument("--items", type=int, default=200, help="items of the kill -9 and Ctrl+C projects")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result = {"writers": concurrent_writers(folder, args.writers, args.labels, args.import_rows),
                  "kill9": kill_nine(folder, args.items), "ctrl_c": ctrl_c(folder, args.items)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    w, k, c = result["writers"], result["kill9"], result["ctrl_c"]
    print(f"concurrent writers: {w['labels_stored']}/{w['labels_sent']} labels stored ({w['writers']} processes), "
          f"while a judge batch stored {w['verdicts_stored']}/{w['verdicts_expected']} verdicts (exit "
          f"{w['judge_exit']}) and an import committed {w['import_stored']}/{w['import_rows']} run records (exit "
          f"{w['import_exit']})")
    print(f"kill -9 of a judge batch: {k['stored_after_resume']}/{k['verdicts']} verdicts after the re-run "
          f"({k['committed_at_kill']} committed at the kill), {k['lost']} lost, {k['duplicated']} duplicated, "
          f"{k['resent']} requests sent again; batches {k['statuses']}")
    print(f"Ctrl+C of a judge batch: exit {c['exit']}, {c['reported']} verdicts reported, {c['stored']} stored, "
          f"batch {c['status']}, acknowledged at once: {c['acknowledged']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
