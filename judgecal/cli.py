"""`judgecal` command line: parses arguments and calls one library function per command.

Each command module registers its subcommands through `register(subparsers)`; `import` and `export` kinds are
registered in IMPORTERS / EXPORTERS so every package's rows come in and go out the same way.
"""

from __future__ import annotations

import argparse
import math
import os
import sqlite3
import sys
from pathlib import Path
from typing import Callable

from evalsets import InputError

# kind -> (help, function(db_path, file) -> message)
IMPORTERS: dict[str, tuple[str, Callable[[Path, Path], str]]] = {}
# kind -> (help, function(db_path, out) -> message)
EXPORTERS: dict[str, tuple[str, Callable[[Path, Path], str]]] = {}


# Exit codes (README, CLI reference): 0 ok, 1 a gate/threshold failed, 2 bad input or configuration,
# EXIT_NOTHING_ANSWERED a judge/run batch sent requests and got not one answer, 130 interrupted.
EXIT_NOTHING_ANSWERED = 3


class CommandError(Exception):
    """A user-facing failure: printed without a traceback, exit code 2."""


def _number(kind: type, text: str, *, low: float, low_ok: bool, high: float | None = None) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a{'n integer' if kind is int else ' number'}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text}")
    if not (value >= low if low_ok else value > low) or (high is not None and not value <= high):
        bound = f"at least {low:g}" if low_ok else f"greater than {low:g}"
        raise argparse.ArgumentTypeError(f"expected a value {bound}{f' and at most {high:g}' if high else ''}, "
                                         f"got {text}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (bad values exit 2 with the flag named)."""
    return int(_number(int, text, low=1, low_ok=True))


def non_negative_int(text: str) -> int:
    return int(_number(int, text, low=0, low_ok=True))


def positive_float(text: str) -> float:
    """A finite number > 0 (NaN and inf are refused)."""
    return _number(float, text, low=0, low_ok=False)


def non_negative_float(text: str) -> float:
    return _number(float, text, low=0, low_ok=True)


def fraction(text: str) -> float:
    """A share in [0, 1]."""
    return _number(float, text, low=0, low_ok=True, high=1)


def positive_fraction(text: str) -> float:
    """A share in (0, 1]: a rate of 0 would review nothing."""
    return _number(float, text, low=0, low_ok=False, high=1)


def kappa_threshold(text: str) -> float:
    """A kappa in [-1, 1]."""
    return _number(float, text, low=-1, low_ok=True, high=1)


def port(text: str) -> int:
    return int(_number(int, text, low=1, low_ok=True, high=65535))


def _command_modules() -> list:
    from judgecal import _cmd_project

    modules = [_cmd_project]
    # Commands of packages that are present; each module registers what it owns.
    for name in ("_cmd_judge", "_cmd_review", "_cmd_calibration", "_cmd_runner"):
        try:
            modules.append(__import__(f"judgecal.{name}", fromlist=["register"]))
        except ModuleNotFoundError as exc:
            if exc.name != f"judgecal.{name}":
                raise
    return modules


def build_parser() -> argparse.ArgumentParser:
    from annotations import default_db_path

    parser = argparse.ArgumentParser(
        prog="judgecal", description="LLM-as-judge annotation and calibration. Docs: README.md"
    )
    parser.add_argument(
        "--db", type=Path, default=None,
        help=f"project database (default: $JUDGECAL_DB, else {default_db_path()})",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in _command_modules():
        module.register(sub)

    imp = sub.add_parser("import", help="import rows from a JSONL/CSV file (one transaction; all or nothing)")
    imp.add_argument("kind", choices=sorted(IMPORTERS), help="; ".join(f"{k}: {h}" for k, (h, _) in sorted(IMPORTERS.items())))
    imp.add_argument("file", type=Path)
    imp.set_defaults(func=lambda a: IMPORTERS[a.kind][1](a.db, a.file))

    exp = sub.add_parser("export", help="export rows as JSONL (first line: provenance header)")
    exp.add_argument("kind", choices=sorted(EXPORTERS), help="; ".join(f"{k}: {h}" for k, (h, _) in sorted(EXPORTERS.items())))
    exp.add_argument("--out", type=Path, required=True)
    exp.set_defaults(func=lambda a: EXPORTERS[a.kind][1](a.db, a.out))
    return parser


def main(argv: list[str] | None = None) -> int:
    from annotations import default_db_path

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.db is None:
        args.db = default_db_path()
    try:
        result = args.func(args)
        if isinstance(result, int):
            return result
        if result:
            print(result)
        return 0
    except (InputError, CommandError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; everything committed so far is kept", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `judgecal report | head`: the reader left; say nothing more (Python would print a traceback at exit).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        # A path the user gave that cannot be read or written (--out into a missing folder, a directory, ...).
        print(f"error: {exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:
        # --db names a directory, a file that is not SQLite, or a database another process holds too long.
        print(f"error: project database {args.db}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
