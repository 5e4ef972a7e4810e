"""Reading eval sets, run records and other row files from JSONL and CSV.

`read_*` functions read a file; `parse_rows` is pure (tests call it with strings). Every problem is reported with
the file, the line and the field, and nothing is returned when any row is bad: a file is taken whole or not at all.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Iterable, TypeVar

from pydantic import BaseModel, ValidationError

from evalsets._models import EvalItem, RunRecord

M = TypeVar("M", bound=BaseModel)

# First line of judgecal's own exports: provenance (eval-set hash, rubric versions). Import skips it.
EXPORT_HEADER_KEY = "judgecal_export"
MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class InputError(ValueError):
    """Bad input. `problems` name file, line and field of each; the message lists them."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        shown = "\n".join(f"  {p}" for p in problems[:MAX_PROBLEMS])
        more = f"\n  … and {len(problems) - MAX_PROBLEMS} more" if len(problems) > MAX_PROBLEMS else ""
        super().__init__(f"{len(problems)} problem(s) in input; nothing was imported:\n{shown}{more}")


@dataclass
class Parsed(Generic[M]):
    """Rows of one file with the line each came from."""

    file: str
    rows: list[M] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    header: dict[str, Any] | None = None

    def problem(self, index: int, field_name: str, message: str) -> Problem:
        return Problem(self.file, self.lines[index], field_name, message)


def _loc(err: dict[str, Any]) -> str:
    return ".".join(str(p) for p in err["loc"]) or "(row)"


def _validation_problems(file: str, line: int, exc: ValidationError) -> list[Problem]:
    return [Problem(file, line, _loc(e), e["msg"]) for e in exc.errors(include_url=False)]


def parse_rows(text: str, model: type[M], *, file: str = "<string>", fmt: str = "jsonl",
               id_field: str | None = "id") -> Parsed[M]:
    """Parse JSONL or CSV text into `model` rows. Raises InputError listing every bad row; duplicate ids are bad."""
    raw_rows = _jsonl_rows(text, file) if fmt == "jsonl" else _csv_rows(text, file, model)
    parsed: Parsed[M] = Parsed(file)
    problems: list[Problem] = []
    seen: dict[Any, int] = {}
    for line, raw in raw_rows:
        if isinstance(raw, Problem):
            problems.append(raw)
            continue
        if not isinstance(raw, dict):
            problems.append(Problem(file, line, "(row)", "expected a JSON object"))
            continue
        if EXPORT_HEADER_KEY in raw and not parsed.rows and not problems and parsed.header is None:
            parsed.header = raw[EXPORT_HEADER_KEY]
            continue
        try:
            row = model.model_validate(raw)
        except ValidationError as exc:
            problems.extend(_validation_problems(file, line, exc))
            continue
        if id_field:
            key = getattr(row, id_field)
            if key in seen:
                problems.append(Problem(file, line, id_field, f"duplicate id {key!r} (first on line {seen[key]})"))
                continue
            seen[key] = line
        parsed.rows.append(row)
        parsed.lines.append(line)
    if problems:
        raise InputError(problems)
    return parsed


def _jsonl_rows(text: str, file: str) -> Iterable[tuple[int, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, Problem(file, number, "(json)", f"invalid JSON: {exc.msg} at column {exc.colno}")


def _csv_rows(text: str, file: str, model: type[BaseModel]) -> Iterable[tuple[int, Any]]:
    """CSV: one row per record; empty cells are absent; cells of list/object fields hold JSON."""
    reader = csv.DictReader(io.StringIO(text))
    json_fields = {name for name, f in model.model_fields.items() if _is_structured(f.annotation)}
    for raw in reader:
        line = reader.line_num
        row: dict[str, Any] = {}
        bad = False
        for key, value in raw.items():
            if key is None:
                yield line, Problem(file, line, "(row)", "more cells than header columns")
                bad = True
                break
            if value is None or value == "":
                continue
            if key in json_fields:
                try:
                    row[key] = json.loads(value)
                except json.JSONDecodeError as exc:
                    yield line, Problem(file, line, key, f"cell is not valid JSON: {exc.msg}")
                    bad = True
                    break
            else:
                row[key] = value
        if not bad:
            yield line, row


def _is_structured(annotation: Any) -> bool:
    text = repr(annotation)
    return any(t in text for t in ("tuple", "dict", "list", "Check", "Constraint", "Step", "ToolCall"))


def read_rows(path: str | Path, model: type[M], *, id_field: str | None = "id") -> Parsed[M]:
    """Read a .jsonl or .csv file (by extension) into validated rows."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv", ".ndjson"):
        raise InputError([Problem(str(path), 0, "", "expected a .jsonl or .csv file")])
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([Problem(str(path), 0, "", "file not found")]) from None
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), 0, "", f"not UTF-8 text ({exc.reason})")]) from None
    return parse_rows(text, model, file=str(path), fmt="csv" if suffix == ".csv" else "jsonl", id_field=id_field)


def read_evalset(path: str | Path) -> Parsed[EvalItem]:
    return read_rows(path, EvalItem)


def read_runs(path: str | Path) -> Parsed[RunRecord]:
    return read_rows(path, RunRecord)


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]], *, header: dict[str, Any] | None = None) -> int:
    """Write rows as JSONL (UTF-8, keys in model order). Returns the number of rows written (header excluded)."""
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        if header is not None:
            fh.write(json.dumps({EXPORT_HEADER_KEY: header}, ensure_ascii=False) + "\n")
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n
