"""Reading eval sets, run records and other row files from JSONL and CSV.

`read_*` functions read a file; `parse_rows` is pure (tests call it with strings). Every problem is reported with
the file, the line and the field, and nothing is returned when any row is bad: a file is taken whole or not at all.
"""

from __future__ import annotations

import csv
import gc
import io
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Iterable, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from judgecal.evalsets._models import EvalItem, RunRecord
from judgecal.evalsets._text import storable

M = TypeVar("M", bound=BaseModel)

# Nesting deeper than this is refused (pydantic's JSON parser, which reads every JSONL row, stops at about the same
# depth): Python's json module would raise RecursionError near 1,000 levels, and deep values break hashing and export.
MAX_JSON_DEPTH = 200
# A CSV cell may hold a long model output; the csv module's default limit (131,072 characters) would refuse it.
CSV_CELL_LIMIT = 16 * 1024 * 1024

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


def load_json(text: str) -> Any:
    """json.loads for text from a user's file (a CSV cell, an LLMBar row, a --tools or --thresholds file). Every
    failure is a json.JSONDecodeError, which callers report with file, line and field: invalid JSON, nesting deeper
    than MAX_JSON_DEPTH (instead of a RecursionError), and a lone surrogate escape ("\\ud800": valid JSON, but not
    text that can be stored)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(f"nested more than {MAX_JSON_DEPTH} levels deep", text, 0) from None
    stack = [(value, 0)]
    while stack:  # iterative: the check itself must not recurse
        v, depth = stack.pop()
        if isinstance(v, str):
            if storable(v) is not v:
                raise json.JSONDecodeError(f"a lone surrogate escape in {v[:40]!r} is not valid Unicode text", text, 0)
        elif isinstance(v, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                raise json.JSONDecodeError(f"nested more than {MAX_JSON_DEPTH} levels deep", text, 0)
            if isinstance(v, dict):
                stack.extend((k, depth + 1) for k in v)
                stack.extend((x, depth + 1) for x in v.values())
            else:
                stack.extend((x, depth + 1) for x in v)
    return value


@contextmanager
def gc_paused():
    # Building 100k small objects triggers the cyclic GC over and over (each pass walks every surviving row):
    # pausing it halves the cost of a large import. Rows hold no reference cycles, so nothing leaks meanwhile.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_rows(text: str, model: type[M], *, file: str = "<string>", fmt: str = "jsonl",
               id_field: str | None = "id") -> Parsed[M]:
    """Parse JSONL or CSV text into `model` rows. Raises InputError listing every bad row; duplicate ids are bad.

    A first line carrying EXPORT_HEADER_KEY (judgecal's own exports) is provenance, kept in `header`."""
    parsed: Parsed[M] = Parsed(file)
    problems: list[Problem] = []
    with gc_paused():
        if fmt == "jsonl":
            _parse_jsonl(text, model, parsed, problems)
        else:
            for line, row in _csv_rows(text, file, model, problems):
                parsed.rows.append(row)
                parsed.lines.append(line)
        if id_field:
            seen: dict[Any, int] = {}
            for row, line in zip(parsed.rows, parsed.lines):
                key = getattr(row, id_field)
                if key in seen:
                    problems.append(Problem(file, line, id_field, f"duplicate id {key!r} (first on line {seen[key]})"))
                else:
                    seen[key] = line
    if problems:
        problems.sort(key=lambda p: p.line)
        raise InputError(problems)
    return parsed


def _problems(file: str, line: int, exc: ValidationError) -> list[Problem]:
    out = []
    for e in exc.errors(include_url=False):
        if e["type"] == "json_invalid":
            hint = " (a lone surrogate escape such as \\ud800 is not valid Unicode text)" if "hex escape" in e["msg"] else ""
            out.append(Problem(file, line, "(json)", f"invalid JSON: {e['msg']}{hint}"))
        elif e["type"] == "model_type" and not e["loc"]:
            out.append(Problem(file, line, "(row)", "expected a JSON object"))
        else:
            out.append(Problem(file, line, _loc(e), e["msg"]))
    return out


def jsonl_lines(text: str) -> list[str]:
    """The lines of JSONL text. Lines end at "\n" (a "\r" before it is dropped) and nowhere else: U+2028, U+2029,
    U+0085, \x0b, \x0c and \x1c-\x1e are characters inside strings (valid JSON, written raw by json.dumps with
    ensure_ascii=False), not line ends as `str.splitlines()` would have them. A list, not a generator: this is the
    hot path of every import."""
    lines = text.split("\n")
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return lines


def _parse_jsonl(text: str, model: type[M], parsed: Parsed[M], problems: list[Problem]) -> None:
    # The hot path of every import: pydantic parses and validates each line in one pass (json.loads +
    # model_validate costs twice as much), in a plain loop (a generator per row costs ~10% more on 100k rows).
    validate = model.__pydantic_validator__.validate_json
    rows, lines, file = parsed.rows, parsed.lines, parsed.file
    first = True
    for number, line in enumerate(jsonl_lines(text), start=1):
        if not line or line.isspace():
            continue
        if first:
            first = False
            if EXPORT_HEADER_KEY in line:
                try:
                    head = load_json(line)
                except json.JSONDecodeError:
                    head = None  # not a header: the row parser reports what is wrong with it
                if isinstance(head, dict) and set(head) == {EXPORT_HEADER_KEY}:
                    parsed.header = head[EXPORT_HEADER_KEY]
                    continue
        try:
            rows.append(validate(line))
            lines.append(number)
        except ValidationError as exc:
            problems.extend(_problems(file, number, exc))


def _csv_rows(text: str, file: str, model: type[M], problems: list[Problem]) -> Iterator[tuple[int, M]]:
    """CSV: one row per record; empty cells are absent; cells of list/object fields hold JSON."""
    # Set, not restored: every CSV read sets the same value, so concurrent imports agree (the limit is per process).
    csv.field_size_limit(CSV_CELL_LIMIT)
    reader = csv.DictReader(io.StringIO(text))
    json_fields = {name for name, f in model.model_fields.items() if _is_structured(f.annotation)}
    text_fields = {name for name in json_fields if _admits_str(model.model_fields[name].annotation)}
    while True:
        try:
            raw = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            # The reader cannot go on past a malformed line (a cell over CSV_CELL_LIMIT, a NUL byte): report it
            # and stop; the file is refused whole anyway.
            message = str(exc)
            if "field larger than field limit" in message:
                message = f"a cell is longer than {CSV_CELL_LIMIT:,} characters"
            # line_num counts the lines the reader finished; the error is on the next one.
            problems.append(Problem(file, reader.line_num + 1, "(csv)", f"malformed CSV: {message}"))
            return
        line = reader.line_num
        row: dict[str, Any] = {}
        try:
            for key, value in raw.items():
                if key is None:
                    raise _CellError("(row)", "more cells than header columns")
                if value is None or value == "":
                    continue
                if key in text_fields and value.lstrip()[:1] not in ("{", "["):
                    row[key] = value  # a text-or-JSON field (`input`): a cell that is no object or list is text
                elif key in json_fields:
                    try:
                        row[key] = load_json(value)
                    except json.JSONDecodeError as exc:
                        raise _CellError(key, f"cell is not valid JSON: {exc.msg}") from None
                else:
                    row[key] = value
            yield line, model.model_validate(row)
        except _CellError as exc:
            problems.append(Problem(file, line, exc.field, exc.message))
        except ValidationError as exc:
            problems.extend(_problems(file, line, exc))


class _CellError(Exception):
    def __init__(self, field: str, message: str):
        self.field, self.message = field, message


def _is_structured(annotation: Any) -> bool:
    text = repr(annotation)
    return any(t in text for t in ("tuple", "dict", "list", "Check", "Constraint", "Step", "ToolCall"))


def _admits_str(annotation: Any) -> bool:
    return annotation is str or str in getattr(annotation, "__args__", ())


def read_rows(path: str | Path, model: type[M], *, id_field: str | None = "id") -> Parsed[M]:
    """Read a .jsonl or .csv file (by extension) into validated rows."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv", ".ndjson"):
        raise InputError([Problem(str(path), 0, "", "expected a .jsonl or .csv file")])
    fmt = "csv" if suffix == ".csv" else "jsonl"
    text = read_text_file(path)
    parsed = parse_rows(text, model, file=str(path), fmt=fmt, id_field=id_field)
    if not parsed.rows and parsed.header is None:
        # An empty file is a mistake more often than an intent (a truncated export, the wrong file); a judgecal
        # export of zero rows still carries its provenance header and imports as nothing.
        why = "only a header line" if fmt == "csv" and text.strip() else "empty file"
        raise InputError([Problem(str(path), 0, "", f"no rows ({why})")])
    return parsed


def read_text_file(path: str | Path) -> str:
    """A whole input file as text: UTF-8, a leading BOM (Excel's "CSV UTF-8") dropped. Every failure to read it
    is an InputError naming the file."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError([Problem(str(path), 0, "", "file not found")]) from None
    except IsADirectoryError:
        raise InputError([Problem(str(path), 0, "", "is a directory, not a file")]) from None
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), 0, "", f"not UTF-8 text ({exc.reason} at byte {exc.start}); "
                                                    "save the file as UTF-8")]) from None
    except OSError as exc:
        raise InputError([Problem(str(path), 0, "", f"cannot read: {exc.strerror or exc}")]) from None


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
