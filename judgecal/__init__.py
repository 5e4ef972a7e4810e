"""judgecal: LLM-as-judge annotation and calibration (the CLI lives in judgecal.cli; the packages in
judgecal.evalsets, judgecal.judge, judgecal.annotations)."""

import sys
from importlib.machinery import PathFinder


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
