"""judgecal: LLM-as-judge annotation and calibration (the CLI lives in judgecal.cli; the packages in
judgecal.evalsets, judgecal.judge, judgecal.annotations)."""

import importlib
import sys
from importlib.machinery import PathFinder
from typing import Any, Callable, Mapping, Sequence


# Plain classes, not importlib.abc's: that module costs ~10 ms to import, and the import system only calls these
# methods.
class _WithoutPandas:
    """sqlite-utils' own loader, run with `import pandas` failing unless something already loaded pandas."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        hide = "pandas" not in sys.modules
        if hide:
            sys.modules["pandas"] = None  # type: ignore[assignment]  # `import pandas` now raises ImportError
        try:
            self._loader.exec_module(module)
        finally:
            if hide:
                del sys.modules["pandas"]

    def __getattr__(self, name: str):
        if name == "_loader":
            raise AttributeError(name)
        return getattr(self._loader, name)  # resources, get_source, ... as the real loader answers them


class _SqliteUtilsWithoutPandas:
    # sqlite-utils imports pandas (about 0.4 s, a third of a small command's run time) only to map pandas.Timestamp
    # to TEXT when it creates columns from Python values; judgecal never stores pandas values through it. Hide
    # pandas while sqlite-utils loads. This used to import sqlite-utils here, with the package: then every
    # `judgecal` command, `--help` included, paid sqlite-utils' own ~0.1 s; now it is hidden on the first import,
    # whoever makes it (issue 16.2). tests/test_startup.py checks both effects.
    def find_spec(self, name, path=None, target=None):
        if name != "sqlite_utils":
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _WithoutPandas(spec.loader)
        return spec


if "sqlite_utils" not in sys.modules and not any(isinstance(f, _SqliteUtilsWithoutPandas) for f in sys.meta_path):
    sys.meta_path.insert(0, _SqliteUtilsWithoutPandas())


# Re-exports loaded on first use (issue 16.2), for the annotations facade, its four rooms and evalsets. A room's
# `__init__` used to import every one of its modules, and the facade every room, so `judgecal gate` loaded the review
# queue, the drift and boundary reports, the harness readers and the anchors store it never calls. Such a package
# now keeps a table, module -> the public names it defines, and this turns it into the package's `__getattr__` and
# `__dir__` (PEP 562): the module is imported when one of its names is first asked for, and the value is then stored
# in the package, so later look-ups are plain attribute reads. `__all__` stays the exact list of names, so
# `from ... import *`, `dir()` and `ann.<name>` see what they saw before. A module's import-time work (the migrations
# list, a registry) runs before any of its names is handed out, because the name is read from the imported module.
# It lives here, in the namespace's root, because every package of ours runs this file first anyway.
def lazy_exports(package: str, owners: Mapping[str, Sequence[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public names live in other modules.

    `owners` maps a module (relative to `package`, like "._schema", or absolute) to the names taken from it. A name
    listed under two modules is refused: the package would hand out whichever loaded first."""
    owner_of: dict[str, str] = {}
    for module, names in owners.items():
        for name in names:
            if owner_of.setdefault(name, module) != module:
                raise ValueError(f"{package}: {name!r} is listed under {owner_of[name]!r} and {module!r}")
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = owner_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *owner_of})

    return __getattr__, __dir__
