"""`judgecal` command line: parses arguments and calls one library function per command.

COMMANDS names each command, the module that implements it and its line in `judgecal --help`. A command module
registers its commands' flags and handlers through `register(subparsers)`, and parsing imports only the module of the
command that runs: the others' imports (pydantic models, the store, scipy, the judge's SDK) are what made
`judgecal --help` and a small `gate` slow (issue 16.2). The `import` and `export` kinds are the explicit tables
IMPORTERS / EXPORTERS (judgecal/_transfer.py), so every package's rows come in and go out the same way. Command
modules import shared helpers from judgecal/_args.py, never from this module.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Callable, NamedTuple

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


class Command(NamedTuple):
    module: str  # judgecal.<module>.register() adds the command's flags and handler
    help: str  # its line in `judgecal --help`


# In the order `judgecal --help` lists them.
COMMANDS: dict[str, Command] = {
    "demo": Command("_cmd_project", "create or refresh the demo project database"),
    "check": Command("_cmd_project", "run the mechanical checks on all run records; print metrics"),
    "ifeval": Command("_cmd_project", "score an IFEval-format file with the official IFEval semantics"),
    "checkers": Command("_cmd_project", "list the mechanical checkers: built-in and from installed plugins"),
    "app": Command("_cmd_project", "open the review app (Streamlit) on the project"),
    "judge": Command("_cmd_judge", "judge every (run record, semantic constraint) pair k times; resumable, cached"),
    "price": Command("_cmd_judge", "set or list judge model prices (for batch cost totals)"),
    "sample": Command("_cmd_review", "draw or top up the review sample: ≥rate of every stratum (constraint × model × "
                      "rubric), targeted pairs (judge repeats disagree, judge errors) and an overlap share for a "
                      "second reviewer"),
    "assign": Command("_cmd_review", "hand the review sample's pairs to reviewers (round-robin or by constraint; an "
                      "overlap pair's second label always to a different reviewer) and print each reviewer's "
                      "progress; without --reviewers only the progress"),
    "report": Command("_cmd_calibration", "calibration report: judge vs human (kappa, CI, confusion, per repeat), "
                      "human vs human, coverage, corrected pass rates"),
    "gate": Command("_cmd_calibration", "CI gate: exit 0 when review coverage, kappa (and pass rate) meet the "
                    "thresholds, 1 otherwise; a stratum below the quota always fails. With --run: the run gate (did "
                    "this run regress?), which needs no new labels"),
    "run": Command("_cmd_runner", "run the eval set against a model (single-turn and tool-calling agent tasks); "
                   "resumable"),
    "compare": Command("_cmd_runner", "compare two runs (RUN_A current, RUN_B candidate); --thresholds gives a "
                       "switch verdict"),
    "feedback": Command("_cmd_feedback", "add a derived eval item from a run record and constraint (a failing or "
                        "disputed pair): instruction, input, fixtures, reference and the constraint copied; prints "
                        "its id"),
    "anchor": Command("_cmd_drift", "freeze a drift anchor (a seeded random subset of the counted pairs) or list "
                      "the anchors"),
    "drift": Command("_cmd_drift", "re-judge a frozen anchor and report the flip rate and kappa change (exit 1 past "
                     "a limit)"),
    "probe": Command("_cmd_probe", "bias probes: re-judge the labelled pairs perturbed (position, verbosity, "
                     "injection, consistency); cached, resumable"),
    "doctor": Command("_cmd_harness", "read an unknown JSONL/JSON/CSV/.eval file, name the fields it recognises and "
                      "print the import command that fits (exit 2 when none does)"),
    "import": Command("_transfer", "import rows from a JSONL/CSV file (one transaction; all or nothing)"),
    "export": Command("_transfer", "export rows as JSONL (first line: provenance header)"),
}


def __getattr__(name: str) -> Any:
    # `judgecal.cli.IMPORTERS` / `EXPORTERS` as before, without loading every package's import code at start-up.
    if name in ("IMPORTERS", "EXPORTERS"):
        from judgecal import _transfer

        return getattr(_transfer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# How each command opens the project (README "Opening a project" lists the same). READ: the project must exist and
# is opened read-only (works without write permission; never changes the file). UPDATE: must exist; a mistyped
# --db is an error, not a new empty project. CREATE: a missing project is created, and stderr says so.
# Commands not listed (ifeval) do not open the project.
READ, UPDATE, CREATE = "read", "update", "create"
DEFAULT_DB_NAME = "judgecal.db"  # what judgecal.annotations.default_db_path() falls back to, for `--help`
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


class _Commands(argparse._SubParsersAction):
    """The subcommands. Each is declared with its help line (enough for `judgecal --help` and for parsing the
    command name); its module fills in its parser when the command is parsed, or for all at once with
    build_parser(lazy=False)."""

    _DECLARED = None  # what a command maps to until its module registers it: no parser built for nothing

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, command in COMMANDS.items():
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), command.help))
            self._name_parser_map[name] = self._DECLARED

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:  # type: ignore[override]
        # What a module's register() calls: its parser replaces the declaration. The help line lives only in
        # COMMANDS, so `judgecal --help` needs no module.
        if name not in COMMANDS or "help" in kwargs:
            raise ValueError(f"command {name!r}: declare it, with its help line, in judgecal.cli.COMMANDS")
        if self._name_parser_map.get(name) is not self._DECLARED:
            raise ValueError(f"command {name!r} registered twice")
        del self._name_parser_map[name]
        return super().add_parser(name, **kwargs)

    def load(self, module: str) -> None:
        names = [n for n, c in COMMANDS.items() if c.module == module]
        if self._name_parser_map[names[0]] is not self._DECLARED:
            return  # loaded already
        importlib.import_module(f"judgecal.{module}").register(self)
        missing = [n for n in names if self._name_parser_map[n] is self._DECLARED]
        if missing:
            raise ValueError(f"judgecal.{module} does not register {', '.join(missing)} (judgecal.cli.COMMANDS)")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if values and values[0] in COMMANDS:
            self.load(COMMANDS[values[0]].module)
        super().__call__(parser, namespace, values, option_string)


def build_parser(*, lazy: bool = False) -> argparse.ArgumentParser:
    """The whole parser; lazy=True leaves each command's flags to be added when it is parsed (what main() uses)."""
    parser = argparse.ArgumentParser(
        prog="judgecal", description="LLM-as-judge annotation and calibration. Docs: README.md"
    )
    # Not default_db_path(): that would load the store for `--help`. test_startup.py pins the two together.
    parser.add_argument("--db", type=Path, default=None,
                        help=f"project database (default: $JUDGECAL_DB, else {DEFAULT_DB_NAME})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=_Commands)
    if not lazy:
        for module in dict.fromkeys(c.module for c in COMMANDS.values()):
            sub.load(module)
    return parser


def main(argv: list[str] | None = None, *, process: bool | None = None) -> int:
    """Run one command. `process`: this call is the whole process, which exits after it (default: when `argv` is
    None, as from the console script and `python -m judgecal`; tests and other in-process callers pass `argv`)."""
    args = build_parser(lazy=True).parse_args(argv)
    if args.db is None:
        from judgecal.annotations import default_db_path

        args.db = default_db_path()
    access = project_access(args)
    alone = access == READ and (argv is None if process is None else process)
    if alone:
        # A reading command as its own process builds its tables once and exits: the cycle collector, which walks
        # every live object again each time it runs (after `gc_paused` hands it back, a full pass over the report's
        # millions of objects), is left off until exit (issue 16.2: 2-3 s CPU of a gate or a compare at a million
        # run records). They create no reference cycles in bulk (compare's peak memory at 1M is the same with it
        # off), and the memory goes back at exit. Writing commands (the judge, the app) keep it.
        gc.disable()
    existed = Path(args.db).exists()
    rc = _run(args, access)
    if alone:
        _exit_now(rc)
    if access == CREATE and not existed and Path(args.db).exists():
        from judgecal import annotations as ann

        if rc != 0 and ann.discard_if_empty(args.db):
            pass  # the command failed before storing anything: the new project is gone again, nothing changed
        else:
            say(f"created new project at {args.db}", err=True)
    return rc


def _exit_now(rc: int) -> None:
    """End a reading command's process without tearing its objects down one by one: at a million run records the
    interpreter's exit freed the kept tables' millions of objects for ~1.4 s CPU after the report was printed
    (issue 16.2). Safe only for a reading command: its project connections are closed (`unit_of_work`), its files
    written and closed, and it starts no thread; what is buffered for stdout and stderr is flushed first."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # `judgecal report | head`: the reader left, as `_run` handles it mid-command
        rc = rc or 1
    except OSError:
        rc = rc or 2
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(rc)


def _run(args: argparse.Namespace, access: str | None) -> int:
    from judgecal.annotations import ProjectError
    from judgecal.evalsets import InputError

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
