"""Start-up cost (issue 16.2): a command imports scipy, pandas, openai and streamlit only where it uses them, so
`judgecal --help` and `judgecal gate` on a small project do not pay ~1 s of imports first. Timings live in
bench/startup.py; this test pins the cause (which modules a command loads), which is deterministic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("scipy", "pandas", "openai", "streamlit", "altair", "httpx")


def _loaded_after(code: str, cwd: Path) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_library(tmp_path: Path):
    assert _loaded_after("import judgecal.cli", tmp_path) == set()


def test_help_loads_no_heavy_library(tmp_path: Path):
    code = ("import contextlib, io\nfrom judgecal.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    assert _loaded_after(code, tmp_path) == set()


def test_gate_on_a_small_project_loads_neither_pandas_nor_openai(tmp_path: Path):
    from judgecal.cli import main

    assert main(["--db", str(tmp_path / "demo.db"), "demo"]) == 0
    code = ("import contextlib, io\nfrom judgecal.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['--db', {str(tmp_path / 'demo.db')!r}, 'gate', '--min-kappa', '0.4'])")
    assert _loaded_after(code, tmp_path).isdisjoint({"pandas", "openai", "streamlit", "altair", "httpx"})


def test_sqlite_utils_still_works_when_pandas_is_loaded_later(tmp_path: Path):
    code = ("import judgecal.cli, pandas, sqlite_utils\n"
            f"db = sqlite_utils.Database({str(tmp_path / 'x.db')!r})\n"
            "db['t'].insert({'a': 1, 'b': 'x'})\nassert db['t'].count == 1")
    assert "pandas" in _loaded_after(code, tmp_path)


@pytest.mark.parametrize("module", ["judgecal.annotations", "judgecal.evalsets", "judgecal.judge", "judgecal.jobs"])
def test_library_packages_import_without_scipy_or_pandas(module: str, tmp_path: Path):
    assert _loaded_after(f"import {module}", tmp_path).isdisjoint({"scipy", "pandas", "streamlit", "altair"})
