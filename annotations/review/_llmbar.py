"""LLMBar-style pairwise files (Zeng et al. 2023, arXiv 2310.07641) as a calibration project.

Each row becomes:
- an eval item (id = the row's `item_id`) with the row's `instruction`, input {"output_1": …, "output_2": …} and one
  semantic constraint `preferred` with the pairwise label set (`output_1` / `output_2`);
- one run record `<item_id>#pair` of model `llmbar-pair` whose output shows both candidates as text;
- the `human_label` (1 or 2) as a human label `output_<n>` by reviewer `llmbar-human`, in the RANDOM sample (the file
  is a sample of human judgements, so every pair counts as randomly drawn);
- each judge strategy `judge_<strategy>_order_original|swapped` as verdicts of judge model
  `gpt-4 (recorded by LLMBar)` under a rubric version named `<strategy>` (its template is a note that LLMBar's prompt
  is not stored here; sha256 of that note): `original` is repeat 0, `swapped` repeat 1 (LLMBar already maps the
  swapped answer back to the original numbering); `null` is an error row (`unparsable`), never a label.

All in one transaction: a bad row changes nothing. Re-importing the same file adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

import sqlite_utils

from judgecal.evalsets import BATCH_ROWS, EvalItem, InputError, Parsed, Problem, ProblemLog, RunRecord, SeenKeys
from judgecal.evalsets import jsonl_lines, load_json
from judgecal.evalsets._io import _open_text  # house: private
from judgecal.annotations.store import LLMBAR_BATCH_PREFIX, import_items, import_runs
from judgecal.annotations.review._sampling import stratum_key
from judgecal.annotations.store import now_iso, write

JUDGE_MODEL = "gpt-4 (recorded by LLMBar)"
RUN_MODEL = "llmbar-pair"
REVIEWER = "llmbar-human"
CONSTRAINT_ID = "preferred"
CONSTRAINT_TEXT = ("The chosen output follows the instruction better (LLMBar: which of the two outputs a careful "
                   "evaluator prefers).")
_JUDGE_FIELD = re.compile(r"^judge_(?P<strategy>.+)_order_(?P<order>original|swapped)$")
_REPEAT = {"original": 0, "swapped": 1}
_REQUIRED = ("item_id", "instruction", "output_1", "output_2", "human_label")


def rubric_note(strategy: str) -> str:
    """The stand-in template of an LLMBar strategy (its sha256 identifies the rubric version)."""
    return (f"LLMBar judge strategy {strategy!r}. The prompt is LLMBar's (princeton-nlp/LLMBar) and is not stored in "
            "judgecal; these verdicts were recorded by LLMBar, not produced here.")


def rubric_sha(strategy: str) -> str:
    return hashlib.sha256(rubric_note(strategy).encode("utf-8")).hexdigest()


def run_output(output_1: str, output_2: str) -> str:
    return f"[Output 1]\n{output_1}\n\n[Output 2]\n{output_2}"


class LLMBarRow(NamedTuple):
    line: int
    item_id: str
    dataset: str | None
    instruction: str
    output_1: str
    output_2: str
    human_label: int
    judges: dict[tuple[str, int], int | None]  # (strategy, repeat) -> 1 | 2 | None


class LLMBarChunk(NamedTuple):
    rows: list[LLMBarRow]
    problems: list[Problem]


def parse_llmbar(text: str, file: str = "<string>") -> list[LLMBarRow]:
    """Rows of an LLMBar JSONL file. Raises InputError naming file, line and field of every problem."""
    rows: list[LLMBarRow] = []
    problems = ProblemLog()
    for chunk in _chunks(jsonl_lines(text), file, BATCH_ROWS):
        rows += chunk.rows
        problems.extend(chunk.problems)
    problems.raise_if_any()
    if not rows:
        raise InputError([Problem(file, 0, "", "no rows")])
    return rows


def stream_llmbar(path: str | Path, *, batch: int = BATCH_ROWS) -> Iterator[LLMBarChunk]:
    """An LLMBar JSONL file read as it goes, in chunks of at most `batch` rows with the problems of their lines."""
    yield from _chunks(_open_text(Path(path)).jsonl_lines(), str(path), batch)


def _chunks(lines: Iterable[str], file: str, batch: int) -> Iterator[LLMBarChunk]:
    """Every line checked (parse_llmbar's rules); duplicate item ids found across chunks in a private temporary
    database (SeenKeys), so memory follows the chunk."""
    seen = SeenKeys()
    chunk = LLMBarChunk([], [])
    try:
        for line, raw in enumerate(lines, start=1):
            if len(chunk.rows) + len(chunk.problems) >= batch:
                yield chunk
                chunk = LLMBarChunk([], [])
            if not raw.strip():
                continue
            row = _row(raw, file, line, chunk.problems)
            if row is None:
                continue
            first = seen.first_lines([row.item_id], [line])[0]
            if first is not None:
                chunk.problems.append(Problem(file, line, "item_id", f"duplicate id {row.item_id!r} (first on line "
                                                                     f"{first})"))
                continue
            chunk.rows.append(row)
        yield chunk
    finally:
        seen.close()


def _row(raw: str, file: str, line: int, problems: list[Problem]) -> LLMBarRow | None:
    """One line as a row, or None with its problems added."""
    try:
        data = load_json(raw)
    except json.JSONDecodeError as exc:
        problems.append(Problem(file, line, "(json)", f"invalid JSON: {exc.msg}"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(file, line, "(row)", "expected a JSON object"))
        return None
    bad = False
    for key in _REQUIRED:
        if key not in data:
            problems.append(Problem(file, line, key, "missing field"))
            bad = True
    for key in ("item_id", "instruction", "output_1", "output_2"):
        if key in data and not isinstance(data[key], str):
            problems.append(Problem(file, line, key, "expected a string"))
            bad = True
    if "human_label" in data and data["human_label"] not in (1, 2) or isinstance(data.get("human_label"), bool):
        problems.append(Problem(file, line, "human_label", f"expected 1 or 2, got {data.get('human_label')!r}"))
        bad = True
    judges: dict[tuple[str, int], int | None] = {}
    for key, value in data.items():
        m = _JUDGE_FIELD.match(key)
        if m:
            if value not in (1, 2, None) or isinstance(value, bool):
                problems.append(Problem(file, line, key, f"expected 1, 2 or null, got {value!r}"))
                bad = True
            judges[(m["strategy"], _REPEAT[m["order"]])] = value
        elif key not in _REQUIRED and key != "dataset":
            problems.append(Problem(file, line, key, "unknown field"))
            bad = True
    if bad:
        return None
    return LLMBarRow(line, data["item_id"], data.get("dataset"), data["instruction"], data["output_1"],
                     data["output_2"], data["human_label"], judges)


class LLMBarImport(NamedTuple):
    items: int
    runs: int
    labels: int
    verdicts: int
    errors: int
    rubrics: tuple[str, ...]


def import_llmbar(db: sqlite_utils.Database, path: str | Path) -> LLMBarImport:
    """Import an LLMBar file (see the module docstring). One transaction; idempotent. The file is read, checked and
    written a chunk at a time inside that transaction (memory follows the chunk); a bad row anywhere rolls back
    every chunk written before it."""
    path = Path(path)
    file = str(path)
    stamp = now_iso()
    n_items = n_runs = n_labels = n_verdicts = n_errors = 0
    strategies: set[str] = set()
    problems = ProblemLog()
    any_rows = False
    with write(db):
        # The sample's stratum names the first strategy in sorted order, known only at the end: rows get a marker
        # now and the stratum once the whole file is read (only rows this import adds carry the marker).
        marker = f"llmbar-import-{stamp}"
        for chunk in stream_llmbar(path):
            problems.extend(chunk.problems)
            any_rows = any_rows or bool(chunk.rows)
            if problems.total:
                continue  # the file is refused: read on only to report every problem
            for r in chunk.rows:
                for s in {s for s, _ in r.judges} - strategies:
                    strategies.add(s)
                    _store_rubric(db, s, stamp)
            n = _import_rows(db, path, chunk.rows, marker, stamp, problems)
            n_items += n.items
            n_runs += n.runs
            n_labels += n.labels
            n_verdicts += n.verdicts
            n_errors += n.errors
        problems.raise_if_any()
        if not any_rows:
            raise InputError([Problem(file, 0, "", "no rows")])
        first_sha = rubric_sha(min(strategies)) if strategies else None
        db.execute("UPDATE samples SET stratum = ? WHERE stratum = ?",
                   [stratum_key(CONSTRAINT_ID, RUN_MODEL, first_sha), marker])
    return LLMBarImport(n_items, n_runs, n_labels, n_verdicts, n_errors, tuple(sorted(strategies)))


def _store_rubric(db: sqlite_utils.Database, strategy: str, stamp: str) -> None:
    sha = rubric_sha(strategy)
    if db.execute("SELECT 1 FROM rubrics WHERE sha256 = ?", [sha]).fetchone() is None:
        version = db.execute("SELECT coalesce(max(version), 0) + 1 FROM rubrics WHERE name = ?", [strategy]).fetchone()[0]
        db.execute("INSERT INTO rubrics (sha256, name, version, template, note, created_at) VALUES (?,?,?,?,?,?)",
                   [sha, strategy, version, rubric_note(strategy), "imported from LLMBar", stamp])


def _import_rows(db: sqlite_utils.Database, path: Path, rows: list[LLMBarRow], marker: str, stamp: str,
                 problems: ProblemLog) -> LLMBarImport:
    """One chunk's items, run records, human labels, sample rows and recorded verdicts (inside the caller's
    transaction); a row that contradicts the project is added to `problems`."""
    file = str(path)
    lines = [r.line for r in rows]
    items, runs = [], []
    for r in rows:
        tags = ["llmbar", "pairwise"] + ([f"dataset:{r.dataset}"] if r.dataset else [])
        items.append(EvalItem.model_validate({
            "id": r.item_id, "instruction": r.instruction, "input": {"output_1": r.output_1, "output_2": r.output_2},
            "constraints": [{"id": CONSTRAINT_ID, "text": CONSTRAINT_TEXT, "type": "content", "labels": "pairwise"}],
            "source": f"LLMBar ({r.dataset})" if r.dataset else "LLMBar", "tags": tags,
        }))
        runs.append(RunRecord.model_validate({
            "id": f"{r.item_id}#pair", "item_id": r.item_id, "model": RUN_MODEL,
            "output": run_output(r.output_1, r.output_2),
        }))
    n_labels = n_verdicts = n_errors = 0
    n_items = import_items(db, Parsed(file, items, lines))["inserted"]
    n_runs = import_runs(db, Parsed(file, runs, lines))["inserted"]
    found: list[Problem] = []
    for r in rows:
        rid = f"{r.item_id}#pair"
        label = f"output_{r.human_label}"
        standing = db.execute(
            "SELECT label FROM human_labels WHERE run_record_id = ? AND constraint_id = ? AND reviewer = ?"
            " ORDER BY id DESC LIMIT 1", [rid, CONSTRAINT_ID, REVIEWER]).fetchone()
        if standing is None:
            db.execute("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label,"
                       " rubric_version_seen, blind, created_at) VALUES (?,?,?,'label',?,NULL,1,?)",
                       [rid, CONSTRAINT_ID, REVIEWER, label, stamp])
            n_labels += 1
        elif standing[0] != label:
            found.append(Problem(file, r.line, "human_label", f"differs from the stored label {standing[0]!r}"))
        db.execute("INSERT OR IGNORE INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed,"
                   " drawn_at) VALUES (?,?,'random',?,?,NULL,?)",
                   [rid, CONSTRAINT_ID, marker, "LLMBar human label (the file is the human sample)", stamp])
        for (s, repeat), answer in sorted(r.judges.items()):
            sha = rubric_sha(s)
            label_v = None if answer is None else f"output_{answer}"
            error = "unparsable" if answer is None else None
            order = "original" if repeat == 0 else "swapped"
            stored = db.execute(
                "SELECT label, error FROM verdicts WHERE run_record_id = ? AND constraint_id = ? AND rubric_sha256"
                " = ? AND judge_model = ? AND repeat = ?", [rid, CONSTRAINT_ID, sha, JUDGE_MODEL, repeat]).fetchone()
            if stored is not None:
                if tuple(stored) != (label_v, error):
                    found.append(Problem(file, r.line, f"judge_{s}_order_{order}", "differs from the stored verdict"))
                continue
            db.execute(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                " reason, error, error_detail, batch_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [rid, CONSTRAINT_ID, sha, JUDGE_MODEL, repeat, label_v,
                 f"recorded by LLMBar ({s}, outputs in {order} order)" if label_v else None, error,
                 "LLMBar could not parse the judge's answer" if error else None, f"{LLMBAR_BATCH_PREFIX}{path.name}",
                 stamp])
            n_verdicts += 1
            n_errors += error is not None
    problems.extend(found)
    return LLMBarImport(n_items, n_runs, n_labels, n_verdicts, n_errors, ())


__all__ = ["JUDGE_MODEL", "LLMBarImport", "REVIEWER", "RUN_MODEL", "import_llmbar", "parse_llmbar", "rubric_sha",
           "stream_llmbar"]
