"""Server-side time of a Review page rerun with 100 and with 100,000 run records in the project; prints the ratio.

    PYTHONPATH=. python bench/review_page.py [--large 100000] [--reps 15]

Both projects have the same shape: items with two semantic constraints (ids `grounded`, `polite`) and one mechanical
check, two models, three judge repeats on every semantic pair (5% of them disagreeing), the sample drawn at 10% with
20% overlap, and 15 labels already given by another reviewer. The small one has 100 run records (600 verdicts), the
large one 100,000 (600,000 verdicts, ~20,000 sampled pairs).

Timed with streamlit's AppTest (the script run, no browser): the median of `reps` reruns of each kind, measured
alternately on the two projects so machine noise hits both alike:
- "rerun": the page reruns with nothing changed (a widget interaction elsewhere);
- "label": the reviewer presses the first label button: one label saved, the next pair served.
The first load of a session (which builds the reviewer's order over the whole sample) is printed too; it is not
part of the target. Target: large / small <= 1.5 for both kinds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judgecal import annotations as ann  # noqa: E402  (after the sys.path insert)

RUBRIC = "f" * 64
ITEMS_PER_100 = 10  # 100 run records per 10 items (2 models × 5 runs), the same ratio in both projects


def build(path: Path, n_runs: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    n_items = max(1, n_runs * ITEMS_PER_100 // 100)
    runs_per_item = n_runs // n_items
    stamp = ann.now_iso()
    with ann.unit_of_work(path) as db, ann.write(db):
        c = db.conn
        c.executemany(
            "INSERT INTO eval_items (id, instruction, input, tags, content_sha256, seq) VALUES (?,?,?,?,?,?)",
            [(f"item-{i}", f"Answer question {i} from the input.", json.dumps({"q": f"question {i}"}), "[]",
              f"{i:064x}", i) for i in range(n_items)])
        cons = []
        for i in range(n_items):
            cons.append((f"item-{i}", "grounded", 0, "Every fact comes from the input.", "content", "must", None,
                         '["pass","fail"]'))
            cons.append((f"item-{i}", "polite", 1, "The answer is polite.", "content", "must", None,
                         '["pass","fail"]'))
            cons.append((f"item-{i}", "short", 2, "At most 80 words.", "format", "must",
                         '{"id":"length:max_words","args":{"n":80},"loose":false}', '["pass","fail"]'))
        c.executemany("INSERT INTO constraints (item_id, id, seq, text, type, severity, check_json, labels)"
                      " VALUES (?,?,?,?,?,?,?,?)", cons)
        runs, verdicts = [], []
        seq = 0
        for i in range(n_items):
            for k in range(runs_per_item):
                seq += 1
                rid = f"run-{i}-{k}"
                model = ("model-a", "model-b")[k % 2]
                runs.append((rid, f"item-{i}", model, "r1", f"Answer {i}/{k}: the order ships tomorrow. " * 3, seq))
                for cid in ("grounded", "polite"):
                    base = rng.choice(("pass", "fail"))
                    flip = rng.random() < 0.05
                    for rep in range(3):
                        label = ("fail" if base == "pass" else "pass") if flip and rep == 2 else base
                        verdicts.append((rid, cid, RUBRIC, "judge-1", rep, label, f"reason {rep}", stamp))
        c.executemany("INSERT INTO run_records (id, item_id, model, run_id, output, seq) VALUES (?,?,?,?,?,?)", runs)
        c.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                  (RUBRIC, "strict", 1, "template", stamp))
        c.executemany(
            "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason,"
            " created_at) VALUES (?,?,?,?,?,?,?,?)", verdicts)
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.10, overlap=0.20, seed=seed)
        queue = ann.open_queue(db, "other-reviewer")
        for _ in range(15):
            pair = ann.next_pair(db, queue)
            ann.record_label(db, "other-reviewer", pair, "pass", seconds_spent=3.0)
        db.conn.execute("ANALYZE")


def _app(path: Path):
    from streamlit.testing.v1 import AppTest

    os.environ["JUDGECAL_DB"] = str(path)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.session_state["reviewer"] = "bench-reviewer"
    return at


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="judgecal-bench-"))
    sizes = {"small": args.small, "large": args.large}
    paths = {}
    for name, n in sizes.items():
        paths[name] = tmp / f"{name}.db"
        t = timed(lambda path=paths[name], n=n: build(path, n))
        with ann.unit_of_work(paths[name]) as db:
            counts = ann.table_counts(db)
        print(f"built {name}: {counts['run_records']} run records, {counts['verdicts']} verdicts, "
              f"{counts['samples']} sample rows in {t:.1f}s")

    apps, first = {}, {}
    for name, path in paths.items():
        os.environ["JUDGECAL_DB"] = str(path)
        apps[name] = _app(path)
        first[name] = timed(apps[name].run)
        assert not apps[name].exception, apps[name].exception
    times: dict[tuple[str, str], list[float]] = {(n, k): [] for n in paths for k in ("rerun", "label")}
    for _ in range(args.reps):
        for name, path in paths.items():
            os.environ["JUDGECAL_DB"] = str(path)
            at = apps[name]
            times[(name, "rerun")].append(timed(at.run))
            times[(name, "label")].append(timed(at.button(key="label_1").click().run))
            assert not at.exception, at.exception

    print(f"\nfirst load of a session (builds the reviewer's order): small {first['small'] * 1000:.1f} ms, "
          f"large {first['large'] * 1000:.1f} ms")
    print(f"{'kind':<8}{'small ms':>10}{'large ms':>10}{'ratio':>8}   (median of {args.reps})")
    for kind in ("rerun", "label"):
        s = statistics.median(times[("small", kind)]) * 1000
        l = statistics.median(times[("large", kind)]) * 1000
        print(f"{kind:<8}{s:>10.1f}{l:>10.1f}{l / s:>8.2f}")


if __name__ == "__main__":
    main()
