"""Start-up of small commands (issue 16.2): `judgecal --help` and `judgecal gate` on the demo project, against a bare
`python -c pass` and against the same command with scipy.stats and pandas imported up front (what every command
paid before they were imported on first use). Median of --repeats, measured alternately in the same run: wall time,
and the CPU seconds (user + system) of the process, which a loaded machine disturbs less.

Bytecode: an installed package runs from compiled bytecode (pip compiles it; a checkout writes __pycache__ on its
first run), so the main rows run with every module's bytecode cached (in a temporary PYTHONPYCACHEPREFIX, warmed by
one run; the source tree is not written). The "judgecal uncompiled" rows keep the libraries' bytecode but compile
judgecal's own sources on every run: a fresh checkout's first run, or any run under PYTHONDONTWRITEBYTECODE=1.

    python bench/startup.py [--repeats 9] [--against OTHER_PYTHON]

--against runs the two `gate` rows also with another interpreter (say, a virtual environment holding the code before
a change), alternated with ours in the same loop, so a before/after ratio sees the same machine load.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path



def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run."""
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - cpu


def _without_cache(prefix: Path, sources: list[str]) -> None:
    """Drop the bytecode of these source folders from a PYTHONPYCACHEPREFIX tree (it mirrors absolute paths)."""
    for src in sources:
        shutil.rmtree(prefix / Path(src).resolve().relative_to("/"), ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--against", metavar="PYTHON", help="another interpreter (with its own judgecal) to compare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        warm["PYTHONPYCACHEPREFIX"] = str(cwd / "pyc")
        uncompiled = {**warm, "PYTHONPYCACHEPREFIX": str(cwd / "pyc-without-judgecal"), "PYTHONDONTWRITEBYTECODE": "1"}
        db = str(cwd / "demo.db")
        subprocess.run([sys.executable, "-m", "judgecal", "--db", db, "demo"], cwd=cwd, env=warm, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        eager = "import scipy.stats, pandas, runpy, sys; sys.argv = ['judgecal'] + sys.argv[1:]; runpy.run_module('judgecal', run_name='__main__')"
        gate = ["--db", db, "gate", "--min-kappa", "0.4"]
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], warm),
            "judgecal --help": ([sys.executable, "-m", "judgecal", "--help"], warm),
            "judgecal --help, scipy+pandas eager": ([sys.executable, "-c", eager, "--help"], warm),
            "judgecal gate (demo)": ([sys.executable, "-m", "judgecal", *gate], warm),
            "judgecal gate (demo), scipy+pandas eager": ([sys.executable, "-c", eager, *gate], warm),
            "judgecal --help, judgecal uncompiled": ([sys.executable, "-m", "judgecal", "--help"], uncompiled),
            "judgecal gate (demo), judgecal uncompiled": ([sys.executable, "-m", "judgecal", *gate], uncompiled),
        }
        pythons = [sys.executable]
        if args.against:
            pythons.append(args.against)
            commands["judgecal gate (demo), --against"] = ([args.against, "-m", "judgecal", *gate], warm)
            commands["judgecal gate (demo), judgecal uncompiled, --against"] = (
                [args.against, "-m", "judgecal", *gate], uncompiled)
        for cmd, env in commands.values():  # warm the bytecode cache (and the file cache) once
            if env is warm:
                timed(cmd, cwd, env)
        shutil.copytree(cwd / "pyc", cwd / "pyc-without-judgecal")
        # judgecal's own package folders (not the repository: a virtual environment may live inside it)
        find = ("import importlib.util as u\nfor n in ('judgecal', 'judgecal.annotations', 'judgecal.evalsets', "
                "'judgecal.judge', 'judgecal.app_pages'):\n    print(u.find_spec(n).submodule_search_locations[0])")
        folders = [folder for python in pythons for folder in subprocess.run(
            [python, "-c", find], cwd=cwd, env=warm, capture_output=True, text=True, check=True).stdout.split()]
        _without_cache(cwd / "pyc-without-judgecal", folders)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, (cmd, env) in commands.items():
                times[name].append(timed(cmd, cwd, env))
        base = statistics.median(wall for wall, _ in times["python -c pass"])
        for name, ts in times.items():
            m = statistics.median(wall for wall, _ in ts)
            cpu = statistics.median(c for _, c in ts)
            print(f"{name:42} {m:6.3f} s wall  {cpu:6.3f} s CPU  {m / base:5.2f}x python -c pass   "
                  f"(median of {args.repeats})")
        print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
