"""Imports from other harnesses (Inspect AI, promptfoo, DeepEval, lm-evaluation-harness, Langfuse) and `doctor`.

The harness files are parsed in evalsets (no store); here each parsed file goes to the store's ordinary importers,
items then run records then verdicts, in one transaction: a bad row anywhere and nothing is imported.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.evalsets import InputError, Parsed, Problem
from judgecal.evalsets import HARNESSES, HarnessImport, MissingExtra, diagnose
from judgecal._args import CommandError, say


def _verdict_rows(h: HarnessImport) -> Parsed[av.VerdictImportRow]:
    out: Parsed[av.VerdictImportRow] = Parsed(h.file)
    problems: list[Problem] = []
    for index, row in enumerate(h.verdicts.rows):
        try:
            out.rows.append(av.VerdictImportRow.model_validate(row.as_row()))
            out.lines.append(h.verdicts.lines[index])
        except ValidationError as exc:
            for e in exc.errors(include_url=False):
                problems.append(h.verdicts.problem(index, ".".join(map(str, e["loc"])) or "(verdict)", e["msg"]))
    if problems:
        raise InputError(problems)
    return out


def harness_importer(kind: str) -> Callable[[Path, Path], str]:
    read, label = HARNESSES[kind].read, HARNESSES[kind].name

    def run(db_path: Path, file: Path) -> str:
        try:
            h = read(file)  # the whole file is parsed before the project is touched
        except MissingExtra as exc:
            raise CommandError(str(exc)) from None
        verdicts = _verdict_rows(h)
        with ann.unit_of_work(db_path) as db, ann.write(db):
            items = ann.import_items(db, h.items)
            runs = ann.import_runs(db, h.runs)
            judged = av.import_verdicts(db, verdicts) if verdicts.rows else {"inserted": 0, "unchanged": 0}
        skipped = "".join(f"; not imported: {n} {why}" for why, n in sorted(h.skipped.items()))
        return (f"{label}: {items['inserted']} eval items, {runs['inserted']} run records, {judged['inserted']} "
                f"verdicts imported ({items['unchanged'] + runs['unchanged'] + judged['unchanged']} already "
                f"present){skipped} ({file})")

    return run


def cmd_doctor(args: argparse.Namespace) -> int:
    d = diagnose(args.file)
    for line in d.lines:
        say(line)
    if d.command is None:
        say("no import fits this file" + (f": {d.missing}" if d.missing else ""), err=True)
        return 2
    say(f"import with: judgecal import {d.command} {args.file}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor")
    p.add_argument("file", type=Path)
    p.set_defaults(func=cmd_doctor)
