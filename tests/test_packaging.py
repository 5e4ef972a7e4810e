"""pyproject.toml says what the code needs: every third-party module our packages import is a declared dependency,
and every package-data pattern matches a file."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SOURCES = ["evalsets", "judge", "annotations", "app_pages", "judgecal", "app.py"]
OURS = {"evalsets", "judge", "annotations", "app_pages", "judgecal", "app"}
# Modules of optional extras that need not be installed here: module -> distribution.
NOT_INSTALLED = {"llama_cpp": "llama-cpp-python"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(req: str) -> str:
    return _norm(re.match(r"[A-Za-z0-9_.-]+", req).group(0))


def imported_top_level_modules() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    files = [p for s in SOURCES for p in ((ROOT / s).rglob("*.py") if (ROOT / s).is_dir() else [ROOT / s])]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in OURS:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_imported_third_party_module_is_declared() -> None:
    declared = {_requirement_name(r) for r in PROJECT["project"]["dependencies"]}
    optional = {_requirement_name(r) for reqs in PROJECT["project"]["optional-dependencies"].values() for r in reqs}
    providers = importlib.metadata.packages_distributions()
    undeclared = []
    for module, files in sorted(imported_top_level_modules().items()):
        dists = {_norm(d) for d in providers.get(module, [])} or {NOT_INSTALLED.get(module, module)}
        if not dists & (declared | optional):
            undeclared.append(f"{module} ({', '.join(sorted(dists))}; imported in {', '.join(sorted(files))})")
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_scan_sees_the_direct_imports() -> None:
    # Guard against a scan that finds nothing: these are imported directly, not only through another package.
    found = imported_top_level_modules()
    assert {"altair", "httpx2", "openai", "streamlit", "langdetect"} <= set(found)


def test_package_data_patterns_match_files() -> None:
    setuptools = PROJECT.get("tool", {}).get("setuptools", {})
    folders = setuptools.get("package-dir", {})  # a package installed from another folder (package-dir mapping)
    empty = [f"{package}: {pattern}" for package, patterns in setuptools.get("package-data", {}).items()
             for pattern in patterns
             if package != "*" and not list((ROOT / folders.get(package, package.replace(".", "/"))).glob(pattern))]
    assert not empty, f"package-data patterns that match no file: {empty}"
