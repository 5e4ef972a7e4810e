"""judgecal: LLM-as-judge annotation and calibration (the CLI lives in judgecal.cli; the packages in
judgecal.evalsets, judgecal.judge, judgecal.annotations)."""


def _import_sqlite_utils_without_pandas() -> None:
    # sqlite-utils imports pandas (about 0.4 s, a third of a small command's run time) only to map pandas.Timestamp
    # to TEXT when it creates columns from Python values; judgecal never stores pandas values through it. Hide
    # pandas while sqlite-utils loads, unless something already loaded it. tests/test_startup.py checks the effect.
    import sys

    if "pandas" in sys.modules or "sqlite_utils" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]  # `import pandas` now raises ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        del sys.modules["pandas"]


_import_sqlite_utils_without_pandas()
