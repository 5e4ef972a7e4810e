"""The map of the house (top of docs/decisions.md), enforced: who may import whom.

Rules checked on every .py file of the checkout:
- nothing imports the old top-level names (`annotations`, `judge`, `evalsets`, `app_pages`): one namespace, judgecal;
- nobody imports another package's private module or name unless the import is marked `# house: private`
  (today's marked ones are debts: tests of internals, the CLI reaching into judge; a new one needs a reason);
- annotations.stats is pure (no sqlite, no project, no other room); rooms import only the rooms before them
  (stats <- store <- review <- reports) and never the annotations facade;
- judge and annotations do not import each other; evalsets imports none of ours; no library imports app_pages or the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("annotations", "judge", "evalsets", "app_pages")  # installed as judgecal.<folder>
ROOMS = ("stats", "store", "review", "reports")  # dependency order
MARK = "house: private"


class Import(NamedTuple):
    line: int
    module: str  # the imported module, absolute ("judgecal.annotations.store._schema")
    names: tuple[str, ...]  # names taken from it (empty for `import x`)
    marked: bool


def owner(rel: Path) -> str | None:
    """The package a file belongs to; None for tests, bench, data scripts and app.py."""
    top, folders = rel.parts[0], rel.parts[:-1]
    if top == "judgecal":
        return ".".join(folders)  # judgecal/ is the package judgecal; judgecal/runner/ is judgecal.runner
    if top in FOLDERS:
        return ".".join(("judgecal", *folders))
    return None


def imports(source: str) -> list[Import]:
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        text = "\n".join(lines[node.lineno - 1:node.end_lineno]) if hasattr(node, "lineno") else ""
        if isinstance(node, ast.Import):
            out += [Import(node.lineno, a.name, (), MARK in text) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module != "__future__":
            out.append(Import(node.lineno, node.module, tuple(a.name for a in node.names), MARK in text))
    return out


def private_target(imp: Import) -> str | None:
    """The package whose private part `imp` reaches into, or None for a public import."""
    parts = imp.module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and i > 0:
            return ".".join(parts[:i])
    if any(n.startswith("_") for n in imp.names):
        return imp.module
    return None


def violations(rel: Path, source: str) -> list[str]:
    me = owner(rel)
    out = []
    for imp in imports(source):
        where = f"{rel}:{imp.line}: {imp.module}"
        top = imp.module.split(".")[0]
        if top in FOLDERS:
            out.append(f"{where}: old top-level name; import judgecal.{imp.module}")
            continue
        if top != "judgecal":
            if me == "judgecal.annotations.stats" and top in ("sqlite3", "sqlite_utils", "streamlit"):
                out.append(f"{where}: annotations.stats is pure statistics")
            continue
        target = private_target(imp)
        if target and target != me and not imp.marked:
            out.append(f"{where}: private part of {target} (make it public there, or mark `# {MARK}`)")
        out += layer_violations(me, imp, where)
    return out


def layer_violations(me: str | None, imp: Import, where: str) -> list[str]:
    mod = imp.module
    if me is None:
        return []
    me_top = ".".join(me.split(".")[:2])  # judgecal.annotations.store -> judgecal.annotations
    package = lambda name: mod == name or mod.startswith(name + ".")  # noqa: E731
    out = []
    if me_top in ("judgecal.evalsets", "judgecal.judge", "judgecal.annotations") \
            and (mod == "judgecal.cli" or mod.startswith("judgecal._cmd") or package("judgecal.app_pages")):
        out.append(f"{where}: libraries do not import the CLI or the pages")
    if me_top == "judgecal.evalsets" and (package("judgecal.judge") or package("judgecal.annotations")):
        out.append(f"{where}: evalsets depends on nothing of ours")
    if me_top == "judgecal.judge" and package("judgecal.annotations"):
        out.append(f"{where}: judge does not import annotations (it writes through a sink)")
    if me.startswith("judgecal.annotations") and package("judgecal.judge"):
        out.append(f"{where}: annotations does not import judge")
    if me.startswith("judgecal.annotations."):
        mine = ROOMS.index(me.split(".")[2])
        if mod == "judgecal.annotations" and not set(imp.names) <= set(ROOMS):
            out.append(f"{where}: a room imports from the room that owns a name, not from the facade")
        rooms = [r for r in ROOMS if package(f"judgecal.annotations.{r}")]
        if mod == "judgecal.annotations":
            rooms = [n for n in imp.names if n in ROOMS]
        for r in rooms:
            if ROOMS.index(r) > mine:
                out.append(f"{where}: annotations.{ROOMS[mine]} may import only {', '.join(ROOMS[:mine]) or 'nothing of annotations'}")
    return out


def sources() -> list[Path]:
    skip = {".venv", ".git", "build", "dist", "node_modules"}
    return sorted(p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)
                  and not any(part.endswith(".egg-info") for part in p.relative_to(ROOT).parts))


def test_the_house_rules_hold_for_every_module() -> None:
    found = [v for p in sources() for v in violations(p.relative_to(ROOT), p.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(("path", "source", "expected"), [
    ("tests/test_x.py", "import annotations as ann\n", "old top-level name"),
    ("tests/test_x.py", "from judgecal.annotations.store._schema import write\n", "private part of judgecal.annotations.store"),
    ("tests/test_x.py", "from judgecal.judge import _verdict\n", "private part of judgecal.judge"),
    ("annotations/reports/_x.py", "from judgecal.annotations.store._verdicts import get_price\n", "private part"),
    ("annotations/stats/_x.py", "import sqlite3\n", "pure statistics"),
    ("annotations/stats/_x.py", "from judgecal.annotations.store import write\n", "may import only"),
    ("annotations/store/_x.py", "from judgecal.annotations import reports\n", "may import only"),
    ("annotations/review/_x.py", "from judgecal.annotations import default_db_path\n", "not from the facade"),
    ("annotations/store/_x.py", "from judgecal.judge import Verdict\n", "annotations does not import judge"),
    ("judge/_x.py", "from judgecal.annotations import write\n", "judge does not import annotations"),
    ("evalsets/_x.py", "from judgecal.judge import Verdict\n", "evalsets depends on nothing"),
    ("annotations/store/_x.py", "from judgecal.app_pages import db_path\n", "do not import the CLI or the pages"),
], ids=["old-name", "private-module", "private-module-by-name", "private-across-rooms", "stats-sqlite",
        "stats-imports-store", "store-imports-reports", "room-uses-facade", "annotations-judge", "judge-annotations",
        "evalsets-judge", "library-pages"])
def test_each_rule_catches_its_breach(path: str, source: str, expected: str) -> None:
    assert any(expected in v for v in violations(Path(path), source)), violations(Path(path), source)


@pytest.mark.parametrize(("path", "source"), [
    ("tests/test_x.py", "from __future__ import annotations\n"),
    ("tests/test_x.py", "from judgecal.annotations.store._schema import write  # house: private\n"),
    ("tests/test_x.py", "from judgecal import annotations as ann\n"),
    ("annotations/store/_x.py", "from judgecal.annotations.store._schema import write\n"),
    ("annotations/reports/_x.py", "from judgecal.annotations import stats as agr\n"),
    ("annotations/reports/_x.py", "from judgecal.annotations.store import get_price\n"),
], ids=["future", "marked", "facade-outside", "own-room-private", "room-module-before", "public-room"])
def test_allowed_imports_pass(path: str, source: str) -> None:
    assert violations(Path(path), source) == []


def test_the_checkout_imports_its_own_folders_under_the_namespace() -> None:
    """Setting (a): an editable install run from the repository root. The repository's judgecal/ is first on
    sys.path and is a regular package without the other folders in it; setuptools' editable finder must still map
    judgecal.annotations to ./annotations (docs/decisions.md, "Packaging and the judgecal namespace")."""
    import judgecal
    from judgecal import annotations, app_pages, evalsets, judge

    if Path(judgecal.__file__).resolve().parent != ROOT / "judgecal":
        pytest.skip("judgecal is installed from a wheel here, not from this checkout")
    for module, folder in ((annotations, "annotations"), (judge, "judge"), (evalsets, "evalsets"),
                           (app_pages, "app_pages")):
        assert Path(module.__file__).resolve() == ROOT / folder / "__init__.py"
