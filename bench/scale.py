"""Report, gate, sample and compare on the demo replicated to N run records (issue 16 item 2).

    PYTHONPATH=. python bench/scale.py [--runs 10000 100000] [--reps 3] [--cache DIR]

The project is the demo (`judgecal demo`: 210 run records, 1,111 verdicts of a real judge run) with its hand-written
labels, copied N / 210 times under suffixed ids, written
with INSERT ... SELECT in SQLite (not through the importers: this bench is about reading), then the review sample
drawn at 10% with 20% overlap and every random and overlap pair labelled by the demo's two reviewers. About 6
verdicts per run record, like the issue's measurements. Built projects are cached under the temp dir
(`judgecal-scale-<N>.db`), so a second run times only the commands. No ANALYZE: judgecal never runs it, so a user's
project has no `sqlite_stat1`, and neither does the bench's (one cached by an older bench has its statistics
dropped first).

Each command runs in a fresh process (peak memory is that process's max RSS), in-process through `judgecal.cli.main`
after the imports (`process=True`: as the console script runs it, a reading command with the cycle collector off), beside a baseline in the same process: one raw SQL pass over the verdicts
(`SELECT judge_model, rubric_sha256, constraint_id, label, count(*) FROM verdicts GROUP BY ...`). Printed: the median
of `reps` wall seconds, the command's CPU seconds (steadier than wall time on a shared machine), the ratio of wall
time to the baseline, and the peak RSS. `report` and `gate` are timed twice: `(nothing stored)` with no stored
aggregate in the project (hand SQL or an older judgecal wrote last), then, after `store the pass` (what `judge`,
`import verdicts` and the harness imports do after their writes, migration 023; timed once), with the pass over
every judged pair stored, as after any of those commands. `sample` is a top-up of the drawn sample (what a CI
job re-running `judgecal sample` pays); the first draw's time is printed when a project is built.

`sample` writes (it tops the sample up and stores the quotas), so it never runs on the cached project: each size gets
a copy in the temp dir, drawn once untimed (printed as `sample (full draw)`: on a project whose last draw did not
record what it read, such as one cached by an older judgecal, that is a whole draw), then the timed reps are a top-up
with nothing new since (which writes nothing). `sample (another rate)`: `--rate 0.12`, then `--rate 0.1` again, each
timed (a changed rate starts from the last draw when the data only grew). `sample (whole draw)`: each rep first deletes the last draw's settings
row, so the draw cannot start from it (as after a changed rate, overlap or seed, a delete or an edit) and reads the
whole project; it adds nothing. `sample (first draw)`: each rep first deletes the sample, its quotas and stored
fronts, so the draw writes every row again. Then `sample (after N new run records)`: each rep first adds about 1%
of the project as further copies of the demo (run records, their items, constraints and verdicts, `add_copies`),
then times the draw that follows, which starts from what the last draw stored (issue 16.2). The copy is removed
afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = {
    "report": ["report", "--json"],
    "gate": ["gate", "--min-kappa", "0.6"],
    "sample": ["sample"],
    "compare": ["compare", "demo-run-a", "demo-run-b", "--json"],
}
WRITES = {"sample"}  # commands that change the project: run on a copy
STORE = "store the pass"
BASELINE = "SELECT judge_model, rubric_sha256, constraint_id, label, count(*) FROM verdicts GROUP BY 1, 2, 3, 4"


def _template(tmp: Path) -> Path:
    """The demo with labels and a stand-in judge, no sample yet."""
    from judgecal import annotations as ann
    from judgecal.cli import main

    path = tmp / "template.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
        assert main(["--db", str(path), "import", "labels", str(REPO / "data" / "demo_labels.jsonl")]) == 0
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("DELETE FROM samples")
        db.execute("DELETE FROM sample_strata")
    return path


def _columns(conn, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def _renamed(suffix: str, k: str) -> dict[str, dict[str, str]]:
    """The columns a copy of the demo changes, per table: ids get `suffix`, import order moves on by `k`."""
    return {"eval_items": {"id": f"id || {suffix}", "seq": f"seq + {k} * 100000"},
            "constraints": {"item_id": f"item_id || {suffix}"},
            "run_records": {"id": f"id || {suffix}", "item_id": f"item_id || {suffix}", "seq": f"seq + {k} * 100000"},
            "check_results": {"run_record_id": f"run_record_id || {suffix}"},
            "verdicts": {"run_record_id": f"run_record_id || {suffix}", "id": "NULL"}}


# Copy 0's rows (the demo's own ids, no '~' suffix) in each table: what `add_copies` copies again.
_DEMO_ROWS = {"eval_items": "instr(id, '~') = 0", "constraints": "instr(item_id, '~') = 0",
              "run_records": "instr(id, '~') = 0", "check_results": "instr(run_record_id, '~') = 0",
              "verdicts": "instr(run_record_id, '~') = 0"}


def add_copies(path: Path, tag: str, share: float = 0.01) -> int:
    """New data, the common case of a draw after new data (a new run judged): about `share` of the project's run
    records added as further copies of the demo, with their items, constraints and verdicts, under suffixes
    `~<tag>-<k>`, written the way `build` writes copies. Returns the run records added."""
    from judgecal import annotations as ann

    with ann.unit_of_work(path) as db, ann.write(db):
        c = db.conn
        per_copy = c.execute(f"SELECT count(*) FROM run_records WHERE {_DEMO_ROWS['run_records']}").fetchone()[0]
        total = c.execute("SELECT count(*) FROM run_records").fetchone()[0]
        copies = max(1, round(share * total / per_copy))
        c.execute("CREATE TEMP TABLE IF NOT EXISTS more (k INTEGER PRIMARY KEY)")
        c.execute("DELETE FROM more")
        c.executemany("INSERT INTO more VALUES (?)", [(k,) for k in range(copies)])
        for table, exprs in _renamed(f"'~{tag}-' || k", "(k + 5000)").items():
            cols = _columns(c, table)
            select = ", ".join(exprs.get(col, col) for col in cols)
            c.execute(f"INSERT INTO main.{table} ({', '.join(cols)}) SELECT {select} FROM main.{table}, more"
                      f" WHERE {_DEMO_ROWS[table]} ORDER BY k")
    return copies * per_copy


def build(path: Path, n_runs: int) -> None:
    """The template copied to about `n_runs` run records, sampled and labelled (see the module docstring)."""
    from judgecal import annotations as ann

    tmp = Path(tempfile.mkdtemp(prefix="judgecal-scale-template-"))
    template = _template(tmp)
    with ann.unit_of_work(template) as db:
        per_copy = db.execute("SELECT count(*) FROM run_records").fetchone()[0]
    copies = max(1, round(n_runs / per_copy))
    ann.connect(path).close()
    with ann.unit_of_work(path) as db, ann.write(db):
        c = db.conn
        c.execute("ATTACH DATABASE ? AS t", [str(template)])
        c.execute("CREATE TEMP TABLE copies (k INTEGER PRIMARY KEY)")
        c.executemany("INSERT INTO copies VALUES (?)", [(k,) for k in range(copies)])
        # ids get a suffix per copy (copy 0 keeps the demo's ids, so `compare demo-run-a demo-run-b` spans them all)
        suffix = "CASE WHEN k = 0 THEN '' ELSE '~' || k END"
        c.execute("INSERT INTO main.rubrics SELECT * FROM t.rubrics")
        # the demo's check results are copied below: made by this judgecal's `judgecal check`, so they are current
        c.execute("INSERT OR REPLACE INTO main.settings SELECT * FROM t.settings WHERE key = 'checks_semantics'")
        for table, exprs in _renamed(suffix, "k").items():
            cols = _columns(c, table)
            select = ", ".join(exprs.get(col, col) for col in cols)
            c.execute(f"INSERT INTO main.{table} ({', '.join(cols)}) SELECT {select} FROM t.{table}, copies"
                      " ORDER BY k")
    with ann.unit_of_work(path) as db:
        t0 = time.perf_counter()
        ann.draw_sample(db, rate=0.10, overlap=0.20, seed=0)
        first_draw = time.perf_counter() - t0
        # the two demo reviewers label what the sample asks of them (blind, in row order): every random pair by
        # demo-author, every overlap pair by demo-reviewer-2 as well
        with ann.write(db):
            c = db.conn
            c.execute("ATTACH DATABASE ? AS t", [str(template)])
            c.execute("""
                INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind, created_at)
                SELECT s.run_record_id, s.constraint_id, h.reviewer, 'label', h.label, 1, h.created_at
                FROM samples s JOIN t.human_labels h
                  ON h.run_record_id = CASE WHEN instr(s.run_record_id, '~') THEN
                                       substr(s.run_record_id, 1, instr(s.run_record_id, '~') - 1)
                                       ELSE s.run_record_id END
                 AND h.constraint_id = s.constraint_id
                 AND h.reviewer = CASE s.rule WHEN 'overlap' THEN h.reviewer ELSE 'demo-author' END
                WHERE s.rule IN ('random', 'overlap')
                GROUP BY s.run_record_id, s.constraint_id, h.reviewer ORDER BY min(s.rowid), h.reviewer
            """)
    shutil.rmtree(tmp, ignore_errors=True)
    with ann.unit_of_work(path) as db:
        n = ann.table_counts(db)
    print(f"built {path.name}: {n['run_records']} run records, {n['verdicts']} verdicts, {n['samples']} sample rows, "
          f"{n['human_labels']} labels; first sample draw {first_draw:.1f} s", flush=True)


def one(path: Path, command: str, extra: list[str] = ()) -> dict:
    """Run one command in this (fresh) process: baseline first, then the command; seconds and peak RSS."""
    from judgecal import annotations as ann
    from judgecal.cli import main

    # the packages load their modules on first use (judgecal.lazy_exports): load them all here, so the timing is the
    # command's work after the imports, as it was before the exports became lazy (start-up is bench/startup.py's)
    for name in ann.__all__:
        getattr(ann, name)
    with ann.unit_of_work(path, readonly=True) as db:
        t0 = time.perf_counter()
        db.execute(BASELINE).fetchall()
        baseline = time.perf_counter() - t0
    out = io.StringIO()
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = before.ru_utime + before.ru_stime
    t0 = time.perf_counter()
    if command == STORE:  # what `judge` and `import verdicts` add after their writes
        with ann.unit_of_work(path) as db:
            ann.store_report_pass(db)
        rc = 0
    else:
        # this process is the command's, as the console script's is; its exit (`os._exit` for a reading command, not
        # freeing its objects) is taken here, after the timing, instead of inside `main`
        from judgecal import cli

        cli._exit_now = lambda rc: None
        with contextlib.redirect_stdout(out):
            rc = main(["--db", str(path), *COMMANDS[command], *extra], process=True)
    seconds = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"baseline": baseline, "seconds": seconds, "rc": rc, "cpu": usage.ru_utime + usage.ru_stime - cpu0,
            "max_rss_mb": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--one", nargs=3, metavar=("DB", "COMMAND", "EXTRA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(Path(args.one[0]), args.one[1], json.loads(args.one[2]))), flush=True)
        os._exit(0)  # as the reading command would have: its kept tables are not freed one by one
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    print(f"{'runs':>9} {'command':<24} {'seconds':>8} {'cpu s':>7} {'baseline':>9} {'ratio':>7} {'peak MB':>8}   "
          f"(median of {args.reps}; baseline: {BASELINE})")
    for n in args.runs:
        path = args.cache / f"judgecal-scale-{n}.db"
        if not path.exists():
            build(path, n)
        without_statistics(path)
        for command in args.commands:
            with contextlib.ExitStack() as stack:
                target = path
                if command in WRITES:
                    scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="judgecal-scale-")))
                    target = scratch / path.name
                    for suffix in ("", "-wal"):  # a write-ahead log not yet checkpointed holds part of the data
                        if Path(f"{path}{suffix}").exists():
                            shutil.copyfile(f"{path}{suffix}", f"{target}{suffix}")
                    _row(n, f"{command} (full draw)", [_one(env, target, command)])
                if command in ("report", "gate"):  # each with the pass stored and with nothing stored
                    _forget_stored(target)
                    _row(n, f"{command} (nothing stored)", [_one(env, target, command) for _ in range(args.reps)])
                    _row(n, STORE, [_one(env, target, STORE)])  # the first stores it; the rest find it stored
                _row(n, command, [_one(env, target, command) for _ in range(args.reps)])
                if command == "sample":  # another rate (from the last draw), then the whole draw and a first draw
                    results = []
                    for rate in ["0.12", "0.1"] * args.reps:  # each rep a change of rate, and back
                        results.append(_one(env, target, command, "--rate", rate))
                    _row(n, f"{command} (another rate)", results)
                    for case, reset in (("whole draw", _forget_last_draw), ("first draw", _empty_sample)):
                        results = []
                        for _ in range(args.reps):
                            reset(target)
                            results.append(_one(env, target, command))
                        _row(n, f"{command} ({case})", results)
                if command == "sample":  # each rep after its own new data (~1% of the project)
                    results = []
                    for rep in range(args.reps):
                        added = add_copies(target, f"new{rep}")
                        results.append(_one(env, target, command))
                    _row(n, f"{command} (after {added} new run records)", results)


def _forget_stored(path: Path) -> None:
    """No stored aggregate (migration 023): what a project whose last write was not judgecal's verdict write holds
    (hand SQL, a project from an older judgecal); `report` and `gate` then compute the pass themselves."""
    import sqlite3

    from judgecal import annotations as ann

    ann.connect(path).close()  # a project cached by an older judgecal gets the table
    with contextlib.closing(sqlite3.connect(path)) as c, c:
        c.execute("DELETE FROM stored_aggregates")


def without_statistics(path: Path) -> None:
    """Drop `sqlite_stat1` from a project built by an older bench (which ran ANALYZE after building it): judgecal
    never runs ANALYZE, so no user's project has statistics, and SQLite plans some joins differently with them
    (docs/decisions.md, wave 12). Measured without them, the figures are what a user's project gets."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as c, c:
        if c.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
            c.execute("DROP TABLE sqlite_stat1")
            print(f"dropped the ANALYZE statistics an older bench left in {path.name}", flush=True)


def _forget_last_draw(path: Path) -> None:
    """The draw's settings row deleted: the next draw cannot start from the last one and is whole, as after a
    changed rate, overlap or seed, a deleted row or an edit. The sample stays, so it adds nothing and stores the
    same rows (a re-draw of the same project)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as c, c:
        c.execute("DELETE FROM settings WHERE key = 'last_sample_draw'")


def _empty_sample(path: Path) -> None:
    """No sample at all (its rows, quotas, stored fronts and settings row deleted): the next draw is a first draw,
    which also writes every sample row and reads every targeted pair's verdicts."""
    import sqlite3

    _forget_last_draw(path)
    with contextlib.closing(sqlite3.connect(path)) as c, c:
        for table in ("samples", "sample_strata", "draw_fronts"):
            c.execute(f"DELETE FROM {table}")


def _one(env: dict, path: Path, command: str, *extra: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--one", str(path), command, json.dumps(extra)], env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"{command} on {path} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _row(n: int, command: str, results: list[dict]) -> None:
    sec = statistics.median(r["seconds"] for r in results)
    base = statistics.median(r["baseline"] for r in results)
    cpu = statistics.median(r["cpu"] for r in results)
    rss = max(r["max_rss_mb"] for r in results)
    print(f"{n:>9} {command:<24} {sec:>8.2f} {cpu:>7.2f} {base:>9.3f} {sec / base:>7.1f} {rss:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
