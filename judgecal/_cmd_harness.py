"""Imports from other harnesses (Inspect AI, promptfoo, DeepEval, lm-evaluation-harness, Langfuse) and `doctor`.

The harness files are parsed in evalsets (no store); here each parsed file goes to the store's ordinary importers,
items then run records then verdicts, in one transaction: a bad row anywhere and nothing is imported.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple

import sqlite_utils

from pydantic import ValidationError

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.evalsets import Parsed
from judgecal.evalsets import HARNESSES, HarnessImport, MissingExtra, diagnose
from judgecal._args import CommandError, say
from judgecal._batch_cli import keep_report_aggregates


def _verdict_rows(h: HarnessImport) -> Parsed[av.VerdictImportRow]:
    """One chunk's verdicts in the form of `import verdicts`; a verdict that does not fit is a problem of the chunk."""
    out: Parsed[av.VerdictImportRow] = Parsed(h.file, problems=list(h.problems))
    for index, row in enumerate(h.verdicts.rows):
        try:
            out.rows.append(av.VerdictImportRow.model_validate(row.as_row()))
            out.lines.append(h.verdicts.lines[index])
        except ValidationError as exc:
            for e in exc.errors(include_url=False):
                out.problems.append(h.verdicts.problem(index, ".".join(map(str, e["loc"])) or "(verdict)", e["msg"]))
    return out


# How a file of each kind gets a run id of its own, for the refusal of a run record the file cannot vouch for.
_RUN_ID_HOW = {
    "promptfoo": "the JSON output's evalId, or each result's own id",
    "deepeval": "the test run's identifier",
    "lmeval": "the date in lm-eval's file name, samples_<task>_<date>.jsonl",
}


def _already_stored(db: sqlite_utils.Database, h: HarnessImport) -> list:
    """Problems for the chunk's run records that are in the project already under another run record id
    (HarnessImport.copies): one whose id is made of the file's hash, when a stored run record of another run has the
    same item, model and output; one made of the result's own id (promptfoo's uuid), when a stored run record with
    the same item, model and output is made of that id too (`promptfoo:<evalId>:<uuid>` against `promptfoo:<uuid>`).
    A copy of a file already imported, re-serialised (its hash changed) or in the other output format, would
    otherwise land twice (a review, wave 15). A second run of a deterministic model in a file without a run id is
    refused too, since nothing in the file tells it from a copy: the message says how to give the file one."""
    problems = []
    for index, record in enumerate(h.runs.rows):
        if record.id not in h.copies:
            continue
        own, where = h.copies[record.id]
        for (stored,) in db.conn.execute(
                "SELECT id FROM run_records WHERE item_id = ? AND model = ? AND output IS ? AND id != ?"
                " AND run_id IS NOT ?", [record.item_id, record.model, record.output, record.id, record.run_id]):
            if own is None:
                how = _RUN_ID_HOW.get(h.kind, "a run id")
                problems.append(h.runs.problem(index, where, (
                    f"run record {stored!r} in the project has this item, model and output already: the file has "
                    f"no run id of its own ({how}), so it cannot be told from a copy of a file already imported")))
                break
            if stored.endswith(f":{own}"):
                problems.append(h.runs.problem(index, where, (
                    f"this result (id {own!r}) is in the project already as run record {stored!r}, imported from "
                    f"another file")))
                break
    return problems


class HarnessCounts(NamedTuple):
    items: Counter[str]
    runs: Counter[str]
    verdicts: dict[str, int]
    skipped: Counter[str]


def import_harness_chunks(db: sqlite_utils.Database, chunks: Iterable[HarnessImport]) -> HarnessCounts:
    """Import a harness file's chunks in one write transaction: each chunk's items, then its run records, then its
    verdicts, so memory follows the chunk. The verdict import drives the stream (one call: its duplicate and
    rubric rules see the whole file); once any chunk has a problem nothing more is written and the file is refused
    at its end (the transaction rolls back everything written before)."""
    items: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    skipped: Counter[str] = Counter()

    def verdict_chunks() -> Iterator[Parsed[av.VerdictImportRow]]:
        bad = False
        for chunk in chunks:
            skipped.update(chunk.skipped)
            verdicts = _verdict_rows(chunk)
            if not bad and not verdicts.problems:
                verdicts.problems.extend(_already_stored(db, chunk))
            bad = bad or bool(verdicts.problems)
            if bad:  # read on only to report every problem
                yield Parsed(chunk.file, problems=verdicts.problems)
                continue
            items.update(ann.import_items(db, chunk.items))
            runs.update(ann.import_runs(db, chunk.runs))
            yield verdicts

    with ann.write(db):
        judged = av.import_verdicts(db, verdict_chunks())
    return HarnessCounts(items, runs, judged, skipped)


def harness_importer(kind: str) -> Callable[[Path, Path], str]:
    stream, label = HARNESSES[kind].stream, HARNESSES[kind].name

    def run(db_path: Path, file: Path) -> str:
        try:
            with ann.unit_of_work(db_path) as db:
                c = import_harness_chunks(db, stream(file))
                keep_report_aggregates(db)  # after the import's commit: the next report reads them back
        except MissingExtra as exc:
            raise CommandError(str(exc)) from None
        skipped = "".join(f"; not imported: {n} {why}" for why, n in sorted(c.skipped.items()))
        present = c.items["unchanged"] + c.runs["unchanged"] + c.verdicts["unchanged"]
        return (f"{label}: {c.items['inserted']} eval items, {c.runs['inserted']} run records, "
                f"{c.verdicts['inserted']} verdicts imported ({present} already present){skipped} ({file})")

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
