"""Server-side time of a Review page rerun with 200 and with 100,000 (or `--large`) run records; prints the ratio.

    PYTHONPATH=. python bench/review_page.py [--large 1000000] [--reps 15] [--sessions 3] [--cache DIR]

Both projects have the same shape: items with two semantic constraints (ids `grounded`, `polite`) and one mechanical
check, two models, three judge repeats on every semantic pair (5% of them disagreeing), the sample drawn at 10% with
20% overlap, and 15 labels already given by another reviewer. The small one has 200 run records (1,200 verdicts: the
demo's size), the large one 100,000 (600,000 verdicts, ~34,000 sample rows) or, with `--large 1000000`, 1M (6M
verdicts, 340,000 sample rows). Projects are written in SQL (INSERT ... SELECT) and cached in DIR (default: the temp dir) as
`judgecal-review-v<BUILD_VERSION>-<N>.db`, so only the first run pays the build (about 3 minutes at 1M, most of it
the first sample draw); each run removes the bench reviewer's labels of the run before.

Timed with streamlit's AppTest (the script run, no browser): the median of `reps` reruns of each kind, measured
alternately on the two projects so machine noise hits both alike:
- "rerun": the page reruns with nothing changed (a widget interaction elsewhere);
- "label": the reviewer presses the first label button: one label saved, the next pair served;
- "session": a new session's first load in the same process (its queue opened), `sessions` times.
The first load in a fresh process (the memoised draw orders and strata computed) is printed too. Target: large /
small <= 1.5 for rerun and label.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judgecal import annotations as ann  # noqa: E402  (after the sys.path insert)
from scale import without_statistics  # noqa: E402  (this folder is on the path when a bench runs)

RUBRIC = "f" * 64
REVIEWER = "bench-reviewer"
BUILD_VERSION = 2  # bump when `build` changes what it writes: cached projects of another version are not reused
ITEMS_PER_100 = 10  # 100 run records per 10 items (2 models × 5 runs), the same ratio in both projects


def build(path: Path, n_runs: int, seed: int = 0) -> None:
    """Write the project in SQL (INSERT ... SELECT over a numbers table; about 2 minutes at 1M run records, most
    of it the first sample draw), then draw the sample and give the other reviewer's labels through the library."""
    n_items = max(1, n_runs * ITEMS_PER_100 // 100)
    runs_per_item = max(1, n_runs // n_items)
    stamp = ann.now_iso()
    ann.connect(path).close()
    with ann.unit_of_work(path) as db, ann.write(db):
        c = db.conn
        c.execute("CREATE TEMP TABLE n (i INTEGER PRIMARY KEY)")
        c.execute("WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?)"
                  " INSERT INTO n SELECT i FROM k", [max(n_items, runs_per_item)])
        c.execute("""INSERT INTO eval_items (id, instruction, input, tags, content_sha256, seq)
                     SELECT 'item-' || i, 'Answer question ' || i || ' from the input.',
                            json_object('q', 'question ' || i), '[]', printf('%064x', i), i
                     FROM n WHERE i < ?""", [n_items])
        c.execute("""INSERT INTO constraints (item_id, id, seq, text, type, severity, check_json, labels)
                     SELECT 'item-' || n.i, x.id, x.seq, x.text, x.type, 'must', x.check_json, '["pass","fail"]'
                     FROM n, (SELECT 'grounded' AS id, 0 AS seq, 'Every fact comes from the input.' AS text,
                                     'content' AS type, NULL AS check_json
                              UNION ALL SELECT 'polite', 1, 'The answer is polite.', 'content', NULL
                              UNION ALL SELECT 'short', 2, 'At most 80 words.', 'format',
                                     '{"id":"length:max_words","args":{"n":80},"loose":false}') x
                     WHERE n.i < ? ORDER BY n.i, x.seq""", [n_items])
        c.execute("""INSERT INTO run_records (id, item_id, model, run_id, output, seq)
                     SELECT 'run-' || i.i || '-' || k.i, 'item-' || i.i,
                            CASE k.i % 2 WHEN 0 THEN 'model-a' ELSE 'model-b' END, 'r1',
                            replace(printf('%3s', ''), ' ', 'Answer ' || i.i || '/' || k.i
                                    || ': the order ships tomorrow. '),
                            i.i * ? + k.i + 1
                     FROM n i, n k WHERE i.i < ? AND k.i < ? ORDER BY i.i, k.i""",
                  [runs_per_item, n_items, runs_per_item])
        c.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                  (RUBRIC, "strict", 1, "template", stamp))
        # Each (run, constraint) pair's three repeats agree on a label drawn from a hash of its ids and the seed;
        # 5% of the pairs have their third repeat flipped (targeted "repeats disagree" pairs).
        c.execute("""INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,
                                           reason, created_at)
                     SELECT rid, cid, ?, 'judge-1', rep,
                            CASE WHEN (h % 2 = 0) <> (rep = 2 AND h / 2 % 100 < 5) THEN 'pass' ELSE 'fail' END,
                            'reason ' || rep, ?
                     FROM (SELECT r.id AS rid, x.id AS cid, rep.i AS rep,
                                  (r.seq * 2 + x.c + ? * 7919) * 2654435761 % 4294967291 AS h
                           FROM run_records r,
                                (SELECT 'grounded' AS id, 0 AS c UNION ALL SELECT 'polite', 1) x,
                                (SELECT i FROM n WHERE i < 3) rep
                           ORDER BY r.rowid, x.c, rep.i)""", [RUBRIC, stamp, seed])
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.10, overlap=0.20, seed=seed)
        queue = ann.open_queue(db, "other-reviewer")
        for _ in range(15):
            pair = ann.next_pair(db, queue)
            ann.record_label(db, "other-reviewer", pair, "pass", seconds_spent=3.0)


def _app(path: Path):
    from streamlit.testing.v1 import AppTest

    os.environ["JUDGECAL_DB"] = str(path)
    # AppTest runs the script outside a server: Streamlit warns about the missing ScriptRunContext on every call
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.session_state["reviewer"] = REVIEWER
    return at


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def cached(cache: Path, n_runs: int) -> Path:
    """The project of `n_runs` run records, built once into `cache` (keyed by size and build version) and reused;
    the bench reviewer's labels of an earlier run are removed, so every run starts from the same queue."""
    path = cache / f"judgecal-review-v{BUILD_VERSION}-{n_runs}.db"
    if not path.exists():
        part = path.with_suffix(".part")
        for stale in cache.glob(part.name + "*"):
            stale.unlink()
        t = timed(lambda: build(part, n_runs))
        with ann.unit_of_work(part) as db:
            db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        part.rename(path)
        print(f"built {path.name} in {t:.1f}s", flush=True)
    without_statistics(path)  # no ANALYZE (an older bench ran it): what a user's project has
    with ann.unit_of_work(path) as db, ann.write(db):
        db.conn.execute("DELETE FROM human_labels WHERE reviewer = ?", [REVIEWER])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # the demo's size (`judgecal demo`: 210 run records): the target is "<= 1.5x the demo"; with 100 the
    # bench reviewer's queue ran dry before 15 labels
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--sessions", type=int, default=3, help="new sessions timed per project (first loads)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    sizes = {"small": args.small, "large": args.large}
    paths = {}
    for name, n in sizes.items():
        paths[name] = cached(args.cache, n)
        with ann.unit_of_work(paths[name]) as db:
            counts = ann.table_counts(db)
        print(f"{name}: {counts['run_records']} run records, {counts['verdicts']} verdicts, "
              f"{counts['samples']} sample rows ({paths[name].name})", flush=True)

    apps, cold = {}, {}
    for name, path in paths.items():
        apps[name] = _app(path)
        cold[name] = timed(apps[name].run)
        assert not apps[name].exception, apps[name].exception
    times: dict[tuple[str, str], list[float]] = {(n, k): [] for n in paths for k in ("rerun", "label", "session")}
    for rep in range(args.reps):
        for name, path in paths.items():
            os.environ["JUDGECAL_DB"] = str(path)
            at = apps[name]
            times[(name, "rerun")].append(timed(at.run))
            times[(name, "label")].append(timed(at.button(key="label_1").click().run))
            assert not at.exception, at.exception
            if rep < args.sessions:
                fresh = _app(path)
                times[(name, "session")].append(timed(fresh.run))
                assert not fresh.exception, fresh.exception

    print(f"\nfirst load in a fresh process (nothing memoised yet): small {cold['small'] * 1000:.1f} ms, "
          f"large {cold['large'] * 1000:.1f} ms")
    print(f"{'kind':<8}{'small ms':>10}{'large ms':>10}{'ratio':>8}   (median; rerun and label of {args.reps}, "
          f"session: a new session's first load, of {min(args.sessions, args.reps)})")
    for kind in ("rerun", "label", "session"):
        s = statistics.median(times[("small", kind)]) * 1000
        l = statistics.median(times[("large", kind)]) * 1000
        print(f"{kind:<8}{s:>10.1f}{l:>10.1f}{l / s:>8.2f}")


if __name__ == "__main__":
    main()
