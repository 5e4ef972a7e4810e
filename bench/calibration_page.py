"""Server-side time of the Calibration page on a project with 100,000 run records (issue 12 item 6: under 2 s).

    PYTHONPATH=. python bench/calibration_page.py [--runs 100000] [--labels 2000] [--reps 5]
    PYTHONPATH=. python bench/calibration_page.py --project COPY.db [--reps 2] [--profile FILE]

`--project` times the page on an existing project instead of building one (e.g. a copy of bench/scale.py's 1M
project: it WRITES to it: migrations on open and one label per rep by the reviewer `bench-other`, so pass a copy).
The page's reviewer is then the project's first reviewer; no labels are added before the first load.
`--profile FILE` adds one more label and writes a cProfile (pstats) of the page's data calls after it.

The project is bench/review_page.py's (items with two semantic constraints and one check, two models, three judge
repeats on every semantic pair with 5% flipping, the sample drawn at 10% with 20% overlap: 600,000 verdicts and ~20,000
sampled pairs at 100k), plus `labels` blind labels given in queue order by one reviewer (a tenth of them disagreeing
with the judge), so the report, the coverage table and the disagreement list all have rows.

Timed with streamlit's AppTest (the script run, no browser): the first load of the page (it computes
`annotations.page_report`, the calibration report less the two parts the page never shows, and the disagreement
list: what every change of verdicts, labels, samples or decisions costs again) and the median of `reps` reruns with
the data unchanged (the page's cache keyed on `annotations.calibration_version`), and of `reps` reruns each after
one new label (the report recomputed from the verdicts the report keeps under `verdicts_version`).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from judgecal import annotations as ann  # noqa: E402  (after the sys.path insert)
from review_page import build, timed  # noqa: E402
from scale import without_statistics  # noqa: E402


def add_labels(path: Path, n: int) -> None:
    add_labels_as(path, "bench-labeller", n)


def add_labels_as(path: Path, reviewer: str, n: int) -> None:
    with ann.unit_of_work(path) as db:
        queue = ann.open_queue(db, reviewer)
        for k in range(n):
            pair = ann.next_pair(db, queue)
            if pair is None:
                break
            judged = db.execute("SELECT label FROM verdicts WHERE run_record_id = ? AND constraint_id = ? AND"
                                " repeat = 0", [pair.run_record_id, pair.constraint_id]).fetchone()
            label = judged[0] if judged else "pass"
            if k % 10 == 0:
                label = "fail" if label == "pass" else "pass"
            # an existing project (--project) has label sets beyond pass/fail, and error rows (label NULL)
            allowed = json.loads(db.execute(
                "SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.id = ?"
                " WHERE r.id = ?", [pair.constraint_id, pair.run_record_id]).fetchone()[0])
            if label not in allowed:
                label = allowed[k % len(allowed)]
            ann.record_label(db, reviewer, pair, label, seconds_spent=3.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--labels", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--project", type=Path, default=None,
                        help="time this existing project (a copy: the bench writes to it) instead of building one")
    parser.add_argument("--profile", type=Path, default=None,
                        help="write a cProfile of the page's data calls after one more label to this file")
    args = parser.parse_args()
    reviewer = "bench-labeller"
    if args.project is not None:
        path = args.project
        if not path.is_file():
            sys.exit(f"--project {path}: no such file")
        without_statistics(path)  # a copy of a project an older bench ran ANALYZE on: measured as a user's
        t0 = time.perf_counter()
        with ann.unit_of_work(path) as db:  # migrations, if any, run here
            counts = ann.table_counts(db)
            first_reviewer = db.execute("SELECT reviewer FROM human_labels ORDER BY id LIMIT 1").fetchone()
        t_open = time.perf_counter() - t0
        reviewer = first_reviewer[0] if first_reviewer else reviewer
        print(f"project {path.name}: {counts['run_records']} run records, {counts['verdicts']} verdicts, "
              f"{counts['samples']} sample rows, {counts['human_labels']} labels; opened (migrations) in {t_open:.1f}s")
    else:
        path = Path(tempfile.mkdtemp(prefix="judgecal-bench-")) / "calibration.db"
        t = timed(lambda: build(path, args.runs))
        t_labels = timed(lambda: add_labels(path, args.labels))
        with ann.unit_of_work(path) as db:
            counts = ann.table_counts(db)
        print(f"built: {counts['run_records']} run records, {counts['verdicts']} verdicts, {counts['samples']} sample "
              f"rows in {t:.1f}s; {counts['human_labels']} labels in {t_labels:.1f}s")

    from streamlit.testing.v1 import AppTest
    os.environ["JUDGECAL_DB"] = str(path)
    os.environ.pop("JUDGECAL_REVIEWER", None)
    # a first load at 1M run records takes minutes on a loaded 2-core machine
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=300 if args.project is None else 1800)
    at.session_state["reviewer"] = reviewer
    at.run()
    assert not at.exception, at.exception
    first, first_cpu = timed_cpu(lambda: at.switch_page("app_pages/calibration.py").run())
    assert not at.exception, at.exception
    print(f"  first load {first:.1f} s wall, {first_cpu:.1f} s CPU; load average {os.getloadavg()[0]:.1f}", flush=True)
    reruns = [timed_cpu(at.run) for _ in range(args.reps)]
    assert not at.exception, at.exception
    print(f"  reruns (wall, CPU s): {[(round(w, 2), round(c, 2)) for w, c in reruns]}", flush=True)
    # one more label (another reviewer's, so the page's reviewer is not served it): the report is recomputed, the
    # verdicts it loaded are kept (`verdicts_version` unchanged)
    after_label = []
    for _ in range(args.reps):
        add_labels_as(path, "bench-other", 1)
        after_label.append(timed_cpu(at.run))
        print(f"  after a new label (wall, CPU s): {after_label[-1][0]:.2f}, {after_label[-1][1]:.2f}", flush=True)
        assert not at.exception, at.exception
    if args.profile:
        profile_after_label(path, reviewer, args.profile)
    def ms(runs: list[tuple[float, float]], k: int) -> float:
        return statistics.median(r[k] for r in runs) * 1000

    print(f"Calibration page: first load {first * 1000:.0f} ms, rerun median {ms(reruns, 0):.0f} ms"
          f" (of {args.reps}, data unchanged; target < 2000 ms), after a new label median "
          f"{ms(after_label, 0):.0f} ms (of {args.reps})")
    # CPU seconds of this process (the script runs in it): steadier than wall time on a shared machine
    print(f"  CPU: first load {first_cpu * 1000:.0f} ms, rerun median {ms(reruns, 1):.0f} ms, after a new label "
          f"median {ms(after_label, 1):.0f} ms; load average {os.getloadavg()[0]:.1f}")
    # ru_maxrss is KiB on Linux: the peak of the whole process (build, app and every cached report)
    print(f"  peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def profile_after_label(path: Path, reviewer: str, out: Path) -> None:
    """A cProfile of what the page computes after one more label, called directly: AppTest runs the script in
    another thread, which a profiler enabled here does not see. The parts the report keeps per verdicts version are
    warm (the page ran in this process); the page's st.cache_data would miss for the report and disagreement list."""
    from judgecal.annotations.reports import (DisagreementFilter, disagreement_page, page_report,
                                              failing_page, filter_options, shown_disagreements)
    add_labels_as(path, "bench-other", 1)
    profiler = cProfile.Profile()
    times = {}
    with ann.unit_of_work(path) as db:
        # what the page calls, in its order (its st.cache_data would miss for the report)
        listed = []
        for name, fn in (("calibration_version", lambda: ann.calibration_version(db)),
                         ("report_version", lambda: ann.report_version(db)),
                         ("filter_options", lambda: filter_options(db)),
                         ("page_report", lambda: page_report(db)),
                         ("awaiting_blind_label", lambda: ann.awaiting_blind_label(db, reviewer)),
                         ("disagreement_page", lambda: listed.append(disagreement_page(db, reviewer))),
                         ("shown_disagreements", lambda: shown_disagreements(
                             db, listed[0], DisagreementFilter(), limit=50, key=(reviewer, None, None, None))),
                         ("failing_page", lambda: failing_page(db, reviewer, limit=50))):
            profiler.enable()
            times[name] = timed_cpu(fn)
            profiler.disable()
    profiler.dump_stats(str(out))
    print("  profiled after a new label (wall, CPU s): "
          + ", ".join(f"{k} {w:.2f}/{c:.2f}" for k, (w, c) in times.items()) + f"; profile in {out}")


def timed_cpu(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of fn()."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


if __name__ == "__main__":
    main()
