"""The wheel is the product: what `pip install` gives a user installs one top-level name, `judgecal`, and carries
the app router, every page and the demo data, so `judgecal demo` and `judgecal app` run without a checkout.
(.ci/run goes further: it installs the wheel into a fresh venv and runs `demo` and a headless `app`.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from judgecal.annotations import default_db_path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("annotations", "judge", "evalsets", "app_pages")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    # Built from a copy: setuptools builds in the source tree (build/, *.egg-info), and a stale build/lib there
    # could hand a later wheel files that no longer exist.
    src = tmp_path_factory.mktemp("src")
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.db", "*.db-*")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for folder in ("judgecal", "data", *FOLDERS):
        shutil.copytree(ROOT / folder, src / folder, ignore=skip)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = out.glob("*.whl")
    with zipfile.ZipFile(path) as zf:
        yield zf


def _record(wheel: zipfile.ZipFile) -> list[str]:
    (record,) = [n for n in wheel.namelist() if n.endswith(".dist-info/RECORD")]
    return [line.split(",")[0] for line in wheel.read(record).decode().splitlines() if line]


def test_the_wheel_installs_only_the_judgecal_namespace(wheel) -> None:
    tops = {name.split("/")[0] for name in _record(wheel) if ".dist-info/" not in name}
    assert tops == {"judgecal"}
    (top_level,) = [n for n in wheel.namelist() if n.endswith(".dist-info/top_level.txt")]
    assert wheel.read(top_level).decode().split() == ["judgecal"]


def test_the_wheel_carries_the_app_the_pages_and_the_demo_data(wheel) -> None:
    names = set(_record(wheel))
    pages = {f"judgecal/app_pages/{p.name}" for p in (ROOT / "app_pages").glob("*.py")}
    demo = {f"judgecal/data/{p.name}" for p in (ROOT / "data").glob("*.jsonl")}
    assert {"judgecal/_app.py", "judgecal/cli.py", "judgecal/annotations/__init__.py"} <= names
    assert pages and pages <= names
    assert "judgecal/data/demo_evalset.jsonl" in demo and demo <= names
    # Every source module of every package folder is in the wheel (a folder missing from `packages` would drop it).
    for folder in ("judgecal", *FOLDERS):
        for p in (ROOT / folder).rglob("*.py"):
            if "__pycache__" not in p.parts:
                rel = p.relative_to(ROOT).as_posix()
                assert (rel if folder == "judgecal" else f"judgecal/{rel}") in names, p


def test_pyproject_lists_every_package_folder() -> None:
    """`packages` is explicit (package-dir renames need it): a new subpackage must be added there, or the wheel
    silently lacks it while the editable checkout still works."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    for folder in FOLDERS:
        assert config["package-dir"][f"judgecal.{folder}"] == folder
    for folder in ("judgecal", *FOLDERS):
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                parts = init.parent.relative_to(ROOT).parts
                assert ".".join(parts if folder == "judgecal" else ("judgecal", *parts)) in listed, init


def test_the_default_project_file_is_in_the_working_directory(monkeypatch) -> None:
    monkeypatch.delenv("JUDGECAL_DB", raising=False)
    assert default_db_path() == Path("judgecal.db")
    monkeypatch.setenv("JUDGECAL_DB", "/elsewhere/p.db")
    assert default_db_path() == Path("/elsewhere/p.db")


def test_the_cli_finds_the_demo_data_and_the_app_script() -> None:
    from judgecal import _cmd_project  # house: private

    assert (_cmd_project.DEMO_DIR / "demo_evalset.jsonl").is_file()
    assert _cmd_project.APP_SCRIPT.is_file()
