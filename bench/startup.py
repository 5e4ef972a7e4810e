"""Start-up of small commands (issue 16.2): `judgecal --help` and `judgecal gate` on the demo project, against a bare
`python -c pass` and against the same command with scipy.stats and pandas imported up front (what every command
paid before they were imported on first use). Median of --repeats, measured alternately in the same run.

    python bench/startup.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        db = str(cwd / "demo.db")
        subprocess.run([sys.executable, "-m", "judgecal", "--db", db, "demo"], cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL)
        eager = "import scipy.stats, pandas, runpy, sys; sys.argv = ['judgecal'] + sys.argv[1:]; runpy.run_module('judgecal', run_name='__main__')"
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "judgecal --help": [sys.executable, "-m", "judgecal", "--help"],
            "judgecal --help, scipy+pandas eager": [sys.executable, "-c", eager, "--help"],
            "judgecal gate (demo)": [sys.executable, "-m", "judgecal", "--db", db, "gate", "--min-kappa", "0.4"],
            "judgecal gate (demo), scipy+pandas eager": [sys.executable, "-c", eager, "--db", db, "gate",
                                                         "--min-kappa", "0.4"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, cwd))
        base = statistics.median(times["python -c pass"])
        for name, ts in times.items():
            m = statistics.median(ts)
            print(f"{name:42} {m:6.3f} s   {m / base:5.2f}x python -c pass   (median of {args.repeats})")


if __name__ == "__main__":
    main()
