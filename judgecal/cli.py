"""`judgecal` command line: parses arguments and calls one library function per command.

Each command module registers its subcommands through `register(subparsers)`; the `import` and `export` kinds are
the explicit tables IMPORTERS / EXPORTERS (judgecal/_transfer.py), so every package's rows come in and go out the
same way. Command modules import shared helpers from judgecal/_args.py, never from this module.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path
from typing import Callable

from judgecal.evalsets import InputError
# Re-exported: the argument types and CommandError are part of `judgecal.cli`'s public surface.
from judgecal._args import (  # noqa: F401
    EXIT_NOTHING_ANSWERED,
    CommandError,
    fraction,
    kappa_threshold,
    non_negative_float,
    non_negative_int,
    port,
    positive_float,
    positive_fraction,
    positive_int,
    say,
)
from judgecal._transfer import EXPORTERS, IMPORTERS


# How each command opens the project (README "Opening a project" lists the same). READ: the project must exist and
# is opened read-only (works without write permission; never changes the file). UPDATE: must exist; a mistyped
# --db is an error, not a new empty project. CREATE: a missing project is created, and stderr says so.
# Commands not listed (ifeval) do not open the project.
READ, UPDATE, CREATE = "read", "update", "create"
PROJECT_ACCESS: dict[str, str | Callable[[argparse.Namespace], str]] = {
    "report": READ, "gate": READ, "export": READ, "compare": READ,
    "price": lambda a: READ if a.model is None else UPDATE,
    "assign": lambda a: READ if a.reviewers is None else UPDATE,
    "check": UPDATE, "sample": UPDATE, "judge": UPDATE, "probe": UPDATE, "run": UPDATE, "app": UPDATE, "feedback": UPDATE,
    "demo": CREATE, "import": CREATE,
    "anchor": lambda a: UPDATE if a.action == "freeze" else READ,
    "drift": lambda a: READ if a.history else UPDATE,
    "doctor": None,  # reads a file, never a project
}


def project_access(args: argparse.Namespace) -> str | None:
    access = PROJECT_ACCESS.get(args.command)
    return access(args) if callable(access) else access


def _open_project(args: argparse.Namespace, access: str | None) -> None:
    """Refuse, before the command does any work, a missing project (READ, UPDATE), another application's database
    or one of a newer judgecal (all), or one this user cannot write (UPDATE, and CREATE on an existing file)."""
    from judgecal import annotations as ann

    if access is None or (access == CREATE and not Path(args.db).exists()):
        return
    ann.connect(args.db, create=access == CREATE, readonly=access == READ).close()


def _command_modules() -> list:
    from judgecal import _cmd_project

    modules = [_cmd_project]
    # Commands of packages that are present; each module registers what it owns.
    for name in ("_cmd_judge", "_cmd_review", "_cmd_calibration", "_cmd_runner", "_cmd_feedback", "_cmd_drift",
                 "_cmd_probe", "_cmd_harness"):
        try:
            modules.append(__import__(f"judgecal.{name}", fromlist=["register"]))
        except ModuleNotFoundError as exc:
            if exc.name != f"judgecal.{name}":
                raise
    return modules


def build_parser() -> argparse.ArgumentParser:
    from judgecal.annotations import default_db_path

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
    from judgecal.annotations import default_db_path

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.db is None:
        args.db = default_db_path()
    access = project_access(args)
    existed = Path(args.db).exists()
    rc = _run(args, access)
    if access == CREATE and not existed and Path(args.db).exists():
        from judgecal import annotations as ann

        if rc != 0 and ann.discard_if_empty(args.db):
            pass  # the command failed before storing anything: the new project is gone again, nothing changed
        else:
            say(f"created new project at {args.db}", err=True)
    return rc


def _run(args: argparse.Namespace, access: str | None) -> int:
    from judgecal.annotations import ProjectError

    try:
        _open_project(args, access)
        result = args.func(args)
        if isinstance(result, int):
            return result
        if result:
            say(result)
        return 0
    except (InputError, CommandError, ProjectError) as exc:
        say(f"error: {exc}", err=True)
        return 2
    except KeyboardInterrupt:
        say("interrupted; everything committed so far is kept", err=True)
        return 130
    except BrokenPipeError:
        # `judgecal report | head`: the reader left; say nothing more (Python would print a traceback at exit).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        # A path the user gave that cannot be read or written (--out into a missing folder, a directory, ...).
        say(f"error: {str(exc.filename) + ': ' if exc.filename else ''}{exc.strerror or exc}", err=True)
        return 2
    except sqlite3.DatabaseError as exc:
        # --db names a directory, a file that is not SQLite, or a database another process holds too long.
        say(f"error: project database {args.db}: {exc}", err=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
