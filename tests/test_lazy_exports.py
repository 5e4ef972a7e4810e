"""Re-exports loaded on first use (judgecal.lazy_exports, issue 16.2): the annotations facade, its four rooms and
evalsets hand out exactly the names they did when their `__init__` imported every module, the same objects, with the
modules' import-time work done; and the room tables keep the house rule the import checker (tests/test_house.py)
can no longer see in them."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from judgecal import lazy_exports

REPO = Path(__file__).resolve().parents[1]
ROOMS = ("stats", "store", "review", "reports")
PACKAGES = ("judgecal.annotations", *(f"judgecal.annotations.{r}" for r in ROOMS), "judgecal.evalsets")


def _fresh(code: str, tmp_path: Path) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves_and_all_is_exact(package: str, tmp_path: Path):
    # In a fresh process, so nothing is loaded yet: every name of __all__ resolves through the table, `import *`
    # binds exactly __all__, and dir() lists __all__ (plus what the package itself holds).
    code = (f"import {package} as p, sys\n"
            "names = list(p.__all__)\n"
            "missing = [n for n in names if not hasattr(p, n)]\n"
            "ns = {}\n"
            f"exec('from {package} import *', ns)\n"
            "ns.pop('__builtins__')\n"
            "assert set(ns) == set(names), set(ns) ^ set(names)\n"
            "assert set(names) <= set(dir(p))\n"
            "assert not [n for n in dir(p) if not n.startswith('_') and n not in names\n"
            "            and not isinstance(getattr(p, n), type(sys))], 'a public name outside __all__'\n"
            "print(missing)")
    assert _fresh(code, tmp_path).strip() == "[]"


def test_the_facade_hands_out_the_rooms_objects():
    from judgecal import annotations as ann

    for room in ROOMS:
        module = importlib.import_module(f"judgecal.annotations.{room}")
        for name in module.__all__:
            assert getattr(ann, name) is getattr(module, name), (room, name)
    # names exported by several rooms are one object (the rule lives in stats)
    assert ann.majority_label is ann.stats.majority_label is ann.store.majority_label is ann.reports.majority_label


def test_a_name_is_the_defining_modules_after_its_import_time_work(tmp_path: Path):
    # MIGRATIONS is built over the whole of _schema.py (blocks appended by later issues): the facade's value is the
    # module's final tuple, not a half-built one; evalsets' registry is filled when the registry module loads, before
    # any of its names is handed out (not when the package loads: `judgecal gate` runs no checker).
    code = ("from judgecal import annotations as ann\n"
            "from judgecal.annotations.store import _schema  # house: private\n"
            "assert ann.MIGRATIONS is _schema.MIGRATIONS and len(ann.MIGRATIONS) > 10\n"
            "import judgecal.evalsets as e, sys\n"
            "assert 'judgecal.evalsets._checks_text' not in sys.modules\n"
            "assert e.get_checker('text:exact_match').id == 'text:exact_match'\n"
            "assert 'judgecal.evalsets._checks_text' in sys.modules  # the built-in checkers, with the registry\n"
            "assert 'judgecal.evalsets._harness_doctor' not in sys.modules\n"
            "assert e.HARNESSES and 'judgecal.evalsets._harness_doctor' in sys.modules\n"
            "print('ok')")
    assert _fresh(code, tmp_path).strip() == "ok"


def test_an_unknown_name_is_an_attribute_error_that_names_the_package():
    from judgecal import annotations as ann

    with pytest.raises(AttributeError, match=r"module 'judgecal.annotations.store' has no attribute 'no_such'"):
        ann.store.no_such  # noqa: B018
    with pytest.raises(ImportError, match="no_such"):
        exec("from judgecal.annotations import no_such", {})
    assert not hasattr(ann, "no_such")


def test_a_name_listed_under_two_modules_is_refused():
    with pytest.raises(ValueError, match="'x' is listed under '._a' and '._b'"):
        lazy_exports("judgecal", {"._a": ("x",), "._b": ("x", "y")})


def test_a_broken_module_fails_when_its_name_is_used(tmp_path: Path):
    # A typo in the table does not hide: the look-up raises (here an ImportError of the missing module), it does
    # not answer None.
    pkg = tmp_path / "lazypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from judgecal import lazy_exports\n__all__ = ['a', 'b']\n"
                                     "__getattr__, __dir__ = lazy_exports(__name__, {'._a': ('a',), '._gone': ('b',)})\n")
    (pkg / "_a.py").write_text("a = 1\n")
    code = ("import lazypkg\nassert lazypkg.a == 1\ntry:\n    lazypkg.b\nexcept ModuleNotFoundError as e:\n"
            "    print(e.name)")
    assert _fresh(code, tmp_path).strip() == "lazypkg._gone"


@pytest.mark.parametrize("room", ROOMS)
def test_a_room_table_names_only_its_own_modules_or_earlier_rooms(room: str):
    # The house rule (a room imports only the rooms before it) for the modules the table will import.
    source = (REPO / "annotations" / room / "__init__.py").read_text(encoding="utf-8")
    namespace: dict = {}
    exec(compile(source.split("\n__all__")[0].replace("from judgecal import lazy_exports", ""), room, "exec"),
         namespace)
    earlier = {f"judgecal.annotations.{r}" for r in ROOMS[:ROOMS.index(room)]}
    for module in namespace["_OWNERS"]:
        assert module.startswith("._") or module in earlier, (room, module)
        if module.startswith("._"):
            assert (REPO / "annotations" / room / f"{module[1:]}.py").is_file(), (room, module)
