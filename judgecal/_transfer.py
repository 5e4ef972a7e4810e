"""The `import` and `export` kinds: two explicit tables, built here and nowhere else.

Each kind maps to a help text and a function (db_path, file) -> message. The project kinds are defined here; the
judge's and the calibration's come from their command modules. Adding a kind is adding a row.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable, NamedTuple

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal.evalsets import Parsed, write_jsonl
from judgecal import _cmd_calibration, _cmd_harness, _cmd_judge
from judgecal._batch_cli import keep_label_side


class Transfer(NamedTuple):
    help: str
    run: Callable[[Path, Path], str]


# The row imports stream: a file is read, validated and inserted in chunks inside one write transaction, so memory
# is bounded by the chunk and a bad row anywhere still leaves the project untouched (the transaction rolls back).
def import_evalset(db_path: Path, file: Path) -> str:
    with ann.unit_of_work(db_path) as db:
        s = ann.import_items(db, evalsets.stream_evalset(file))
    return f"eval items: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def import_runs(db_path: Path, file: Path) -> str:
    with ann.unit_of_work(db_path) as db:
        s = ann.import_runs(db, evalsets.stream_runs(file))
    return f"run records: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def import_react(db_path: Path, file: Path) -> str:
    # One malformed step anywhere and nothing is imported: the problems of each chunk's logs join the file's.
    with ann.unit_of_work(db_path) as db:
        s = ann.import_runs(db, map(evalsets.react_chunk, evalsets.stream_runs(file)))
    return f"run records from ReAct logs: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def import_labels(db_path: Path, file: Path) -> str:
    stream = _Counted(evalsets.stream_rows(file, ann.HumanLabelRow, id_field=None))
    with ann.unit_of_work(db_path) as db:
        n = ann.import_labels(db, stream)
        keep_label_side(db)
    return f"human labels: {n} imported, {stream.rows - n} already present ({file})"


class _Counted:
    """A stream of chunks that counts the rows it passed on."""

    def __init__(self, chunks):
        self._chunks, self.rows = chunks, 0

    def __iter__(self):
        for chunk in self._chunks:
            self.rows += len(chunk.rows)
            yield chunk


def import_samples(db_path: Path, file: Path) -> str:
    stream = _Counted(evalsets.stream_rows(file, ann.SampleRow, id_field=None))
    with ann.unit_of_work(db_path) as db:
        n = ann.import_samples(db, stream)
    return f"sample rows: {n} imported, {stream.rows - n} already present ({file})"


def import_ifeval(db_path: Path, file: Path) -> str:
    # Each chunk's items then its run records, in one transaction (the harness imports' path: an IFEval file is a
    # harness file without verdicts): a bad row anywhere and nothing is imported; memory follows the chunk.
    def chunks():
        for chunk in evalsets.stream_ifeval(file):
            # A chunk with a bad row is not written (the file is refused): its rows need not fit ifeval_to_evalset.
            items, runs = evalsets.ifeval_to_evalset([] if chunk.problems else chunk.rows)
            yield evalsets.HarnessImport("ifeval", chunk.file, Parsed(chunk.file, items, chunk.lines),
                                         Parsed(chunk.file, runs, chunk.lines), Parsed(chunk.file),
                                         problems=chunk.problems)

    with ann.unit_of_work(db_path) as db:
        c = _cmd_harness.import_harness_chunks(db, chunks())
    return f"IFEval: {c.items['inserted']} eval items and {c.runs['inserted']} run records imported ({file})"


def _exporter(kind: str, rows_fn) -> Callable[[Path, Path], str]:
    def export(db_path: Path, out: Path) -> str:
        with ann.unit_of_work(db_path, readonly=True) as db:
            n = write_jsonl(out, rows_fn(db), header=ann.export_header(db, kind))
        return f"{n} {kind} rows written to {out}"

    return export


IMPORTERS: dict[str, Transfer] = {
    "evalset": Transfer("eval items (JSONL/CSV)", import_evalset),
    "runs": Transfer("run records (JSONL/CSV)", import_runs),
    "labels": Transfer("human labels (JSONL/CSV; fields in README)", import_labels),
    "react": Transfer("run records whose output is a plain-text ReAct log, parsed into trajectories", import_react),
    "ifeval": Transfer("an IFEval-format file as eval items + run records", import_ifeval),
    "verdicts": Transfer("judge verdicts (JSONL/CSV; fields in docs/judge.md)", _cmd_judge._import_verdicts),
    "llmbar": Transfer("an LLMBar-style pairwise file: items, human labels, recorded judge verdicts",
                       _cmd_calibration._import_llmbar),
    "samples": Transfer("the review sample (rules, strata, seeds: the pre-committed draw order)", import_samples),
    # Other harnesses' files (docs/importers.md): their samples as items and run records, their graders' results
    # as verdicts, in one transaction.
    "inspect": Transfer("an Inspect AI eval log (.eval/.json; needs the [inspect] extra): samples, model-graded "
                        "scores as verdicts", _cmd_harness.harness_importer("inspect")),
    "promptfoo": Transfer("a promptfoo result file (-o .json/.jsonl): llm-rubric, g-eval and other model-graded "
                          "assertions as verdicts", _cmd_harness.harness_importer("promptfoo")),
    "deepeval": Transfer("a DeepEval test run (.deepeval/.latest_test_run.json): metrics as verdicts",
                         _cmd_harness.harness_importer("deepeval")),
    "lmeval": Transfer("lm-evaluation-harness --log_samples samples_<task>_<date>.jsonl: 0/1 metrics as verdicts",
                       _cmd_harness.harness_importer("lmeval")),
    "langfuse": Transfer("a Langfuse export (traces with their scores, JSON/JSONL): evaluator scores as verdicts",
                         _cmd_harness.harness_importer("langfuse")),
}

EXPORTERS: dict[str, Transfer] = {
    "evalset": Transfer("eval items", _exporter("evalset", ann.item_rows)),
    "runs": Transfer("run records", _exporter("runs", ann.run_rows)),
    "checks": Transfer("mechanical check results", _exporter("checks", ann.check_export_rows)),
    "labels": Transfer("every human label event", _exporter("labels", ann.label_export_rows)),
    "verdicts": Transfer("judge verdicts and error rows", _cmd_judge._export_verdicts),
    "samples": Transfer("the review sample (rules, strata, seeds)", _exporter("samples", ann.sample_export_rows)),
}


def register(sub: argparse._SubParsersAction) -> None:
    imp = sub.add_parser("import")
    imp.add_argument("kind", choices=sorted(IMPORTERS), help="; ".join(f"{k}: {h}" for k, (h, _) in sorted(IMPORTERS.items())))
    imp.add_argument("file", type=Path)
    imp.set_defaults(func=lambda a: IMPORTERS[a.kind][1](a.db, a.file))

    exp = sub.add_parser("export")
    exp.add_argument("kind", choices=sorted(EXPORTERS), help="; ".join(f"{k}: {h}" for k, (h, _) in sorted(EXPORTERS.items())))
    exp.add_argument("--out", type=Path, required=True)
    exp.set_defaults(func=lambda a: EXPORTERS[a.kind][1](a.db, a.out))
