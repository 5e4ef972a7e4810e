"""Reading eval sets, run records and other row files from JSONL and CSV.

`read_*` functions read a file; `parse_rows` is pure (tests call it with strings). Every problem is reported with
the file, the line and the field, and nothing is returned when any row is bad: a file is taken whole or not at all.
"""

from __future__ import annotations

import codecs
import csv
import gc
import io
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Iterable, Iterator, NamedTuple, TypeVar

from judgecal.evalsets._text import storable

# pydantic and the models load with the first file parsed, not with this module: `gc_paused`, the problem types and
# `chunks` are used by commands that parse nothing (`judgecal gate`; issue 16.2, start-up).
if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from judgecal.evalsets._models import EvalItem, RunRecord

M = TypeVar("M", bound="BaseModel")

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

    def __init__(self, problems: list[Problem], *, total: int | None = None):
        self.problems = problems
        total = max(total or 0, len(problems))
        shown = "\n".join(f"  {p}" for p in problems[:MAX_PROBLEMS])
        more = f"\n  … and {total - MAX_PROBLEMS} more" if total > MAX_PROBLEMS else ""
        super().__init__(f"{total} problem(s) in input; nothing was imported:\n{shown}{more}")


class ProblemLog:
    """The problems of one streamed import. Memory is bounded: the first KEPT are kept (sorted by line when raised),
    the rest only counted, so a file where every one of a million rows is bad cannot exhaust memory."""

    KEPT = 1000

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.total = 0

    def extend(self, problems: Iterable[Problem]) -> None:
        for p in problems:
            self.total += 1
            if len(self.kept) < self.KEPT:
                self.kept.append(p)

    def raise_if_any(self) -> None:
        if self.total:
            raise InputError(sorted(self.kept, key=lambda p: p.line), total=self.total)


@dataclass
class Parsed(Generic[M]):
    """Rows of one file with the line each came from."""

    file: str
    rows: list[M] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    header: dict[str, Any] | None = None
    # A streamed chunk's bad lines: the importer adds them to its own problems and refuses the file at the end.
    problems: list[Problem] = field(default_factory=list)

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
    """Python's cycle collector paused, and given back as it was found (also after an error). Building 100k small
    objects triggers the cyclic GC over and over (each pass walks every surviving object): pausing it halves the
    cost of a large import, and of a report or comparison at a million run records. Only for code that builds no
    reference cycles: reference counting still frees everything meanwhile."""
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
    source: Iterable[str] = jsonl_lines(text) if fmt == "jsonl" else io.StringIO(text)
    return _collect(_chunks(source, model, file=file, fmt=fmt, id_field=id_field, batch=BATCH_ROWS))


def _collect(chunks: Iterable[Parsed[M]]) -> Parsed[M]:
    problems = ProblemLog()
    parsed: Parsed[M] | None = None
    for chunk in chunks:
        problems.extend(chunk.problems)
        if parsed is None:
            parsed = Parsed(chunk.file, chunk.rows, chunk.lines, chunk.header)
        else:
            parsed.rows.extend(chunk.rows)
            parsed.lines.extend(chunk.lines)
    problems.raise_if_any()
    assert parsed is not None  # _chunks always yields at least one chunk
    return parsed


# Rows per streamed chunk: an import's memory is bounded by this, not by the file (issue 16.1). 5,000 rows keep
# executemany's per-call overhead negligible; more buys no speed and costs memory.
BATCH_ROWS = 5000


class SeenKeys:
    """The keys of one file's rows and the line each was first on, for the no-duplicates rules (an id; a verdict's
    pair, rubric, model and repeat). Kept in a private temporary SQLite database (on disk, a small page cache): a
    million keys cost no Python memory."""

    def __init__(self) -> None:
        import sqlite3

        self._db = sqlite3.connect("")  # "": a private temporary database, deleted when closed
        # `row`: the key's row in the order rows were offered, which tells "this row itself" from "an earlier row";
        # the line cannot, since every row of a one-document JSON file is on line 1
        self._db.execute("CREATE TABLE seen (id TEXT PRIMARY KEY, line INTEGER, row INTEGER) WITHOUT ROWID")
        self._rows = 0

    def first_lines(self, keys: list[str], lines: list[int]) -> list[int | None]:
        """For each key (in order), the line it was first seen on when that is an earlier row, else None; every
        key not seen before is recorded with its line."""
        start_row = self._rows
        self._rows += len(keys)
        before = self._db.total_changes
        self._db.executemany("INSERT OR IGNORE INTO seen VALUES (?, ?, ?)",
                             zip(keys, lines, range(start_row, self._rows)))
        if self._db.total_changes - before == len(keys):
            return [None] * len(keys)  # the usual case: no key came before, one statement per chunk
        first: dict[str, tuple[int, int]] = {}
        for start in range(0, len(keys), 900):  # SQLite caps bound parameters
            part = sorted(set(keys[start:start + 900]))
            marks = ",".join("?" * len(part))
            first.update((key, (line, row)) for key, line, row in
                         self._db.execute(f"SELECT id, line, row FROM seen WHERE id IN ({marks})", part))
        return [None if first[key][1] == row else first[key][0]
                for key, row in zip(keys, range(start_row, self._rows))]

    def duplicates(self, file: str, id_field: str, chunk: Parsed[Any]) -> list[Problem]:
        """Problems for rows of `chunk` whose id came earlier (in this chunk or before)."""
        firsts = self.first_lines([str(getattr(row, id_field)) for row in chunk.rows], chunk.lines)
        return [Problem(file, line, id_field, f"duplicate id {getattr(row, id_field)!r} (first on line {first})")
                for row, line, first in zip(chunk.rows, chunk.lines, firsts) if first is not None]

    def close(self) -> None:
        self._db.close()


def _chunks(source: Iterable[Any], model: type[M], *, file: str, fmt: str, id_field: str | None,
            batch: int) -> Iterator[Parsed[M]]:
    """Validated rows in chunks of at most `batch`, each with the problems of its lines (duplicate ids included).
    The one parser behind `parse_rows` (text) and `stream_rows` (a file read as it goes). JSONL `source` is lines
    without their ends, CSV `source` lines with them. Always yields at least one chunk."""
    seen = SeenKeys() if id_field else None
    try:
        with gc_paused():
            parts = _jsonl_chunks(source, model, file, batch) if fmt == "jsonl" else _csv_chunks(source, model, file, batch)
            for chunk in parts:
                if seen is not None:
                    chunk.problems.extend(seen.duplicates(file, id_field, chunk))
                yield chunk
    finally:
        if seen is not None:
            seen.close()


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


def _jsonl_chunks(lines: Iterable[str], model: type[M], file: str, batch: int) -> Iterator[Parsed[M]]:
    from pydantic import ValidationError  # noqa: PLC0415 (see the module's imports)
    # The hot path of every import, one plain loop: pydantic parses and validates each line in one pass
    # (json.loads + model_validate costs twice as much; a generator per row costs ~10% more on 100k rows).
    validate = model.__pydantic_validator__.validate_json
    chunk: Parsed[M] = Parsed(file)
    rows, numbers, problems = chunk.rows, chunk.lines, chunk.problems
    first = True
    for number, line in enumerate(lines, start=1):
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
                    chunk.header = head[EXPORT_HEADER_KEY]
                    continue
        try:
            rows.append(validate(line))
            numbers.append(number)
        except ValidationError as exc:
            problems.extend(_problems(file, number, exc))
        if len(rows) + len(problems) >= batch:
            yield chunk
            chunk = Parsed(file, header=chunk.header)
            rows, numbers, problems = chunk.rows, chunk.lines, chunk.problems
    yield chunk


def _csv_chunks(lines: Iterable[str], model: type[M], file: str, batch: int) -> Iterator[Parsed[M]]:
    chunk: Parsed[M] = Parsed(file)
    for item in _csv_rows(lines, file, model):
        if isinstance(item, Problem):
            chunk.problems.append(item)
        else:
            chunk.lines.append(item[0])
            chunk.rows.append(item[1])
        if len(chunk.rows) + len(chunk.problems) >= batch:
            yield chunk
            chunk = Parsed(file)
    yield chunk


def _csv_rows(lines: Iterable[str], file: str, model: type[M]) -> Iterator[Any]:
    """CSV: one row per record; empty cells are absent; cells of list/object fields hold JSON. Yields (line, row)
    or a Problem."""
    from pydantic import ValidationError  # noqa: PLC0415 (see the module's imports)
    # Set, not restored: every CSV read sets the same value, so concurrent imports agree (the limit is per process).
    csv.field_size_limit(CSV_CELL_LIMIT)
    reader = csv.DictReader(lines)
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
            yield Problem(file, reader.line_num + 1, "(csv)", f"malformed CSV: {message}")
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
            yield Problem(file, line, exc.field, exc.message)
        except ValidationError as exc:
            yield from _problems(file, line, exc)


class _CellError(Exception):
    def __init__(self, field: str, message: str):
        self.field, self.message = field, message


def _is_structured(annotation: Any) -> bool:
    text = repr(annotation)
    return any(t in text for t in ("tuple", "dict", "list", "Check", "Constraint", "Step", "ToolCall"))


def _admits_str(annotation: Any) -> bool:
    return annotation is str or str in getattr(annotation, "__args__", ())


def read_rows(path: str | Path, model: type[M], *, id_field: str | None = "id") -> Parsed[M]:
    """Read a .jsonl or .csv file (by extension) into validated rows, all in memory: for files that are small by
    nature (labels, samples). Large files are imported through `stream_rows`."""
    return _collect(stream_rows(path, model, id_field=id_field))


def stream_rows(path: str | Path, model: type[M], *, id_field: str | None = "id",
                batch: int = BATCH_ROWS, fmt: str | None = None) -> Iterator[Parsed[M]]:
    """A .jsonl or .csv file read as it goes, in validated chunks of at most `batch` rows; each chunk carries the
    problems of its lines (an importer collects them and refuses the file at the end, inside its transaction, so
    nothing is imported). Duplicate ids are problems. An unreadable file, or one with no rows, raises InputError."""
    path = Path(path)
    suffix = path.suffix.lower()
    if fmt is None:  # by extension; a reader of one format (IFEval, LLMBar: JSONL) names it
        if suffix not in (".jsonl", ".csv", ".ndjson"):
            raise InputError([Problem(str(path), 0, "", "expected a .jsonl or .csv file")])
        fmt = "csv" if suffix == ".csv" else "jsonl"
    file = str(path)
    rows = 0
    header = None
    bad = False
    lines = _open_text(path)
    source = lines.jsonl_lines() if fmt == "jsonl" else lines.csv_lines()
    for chunk in _chunks(source, model, file=file, fmt=fmt, id_field=id_field, batch=batch):
        rows += len(chunk.rows)
        header = chunk.header
        bad = bad or bool(chunk.problems)
        yield chunk
    if not rows and header is None and not bad:
        # An empty file is a mistake more often than an intent (a truncated export, the wrong file); a judgecal
        # export of zero rows still carries its provenance header and imports as nothing.
        raise InputError([Problem(file, 0, "", f"no rows ({'only a header line' if fmt == 'csv' and lines.saw_text else 'empty file'})")])


class _open_text:
    """A file's lines as text, read as they are needed: UTF-8 (a leading BOM, Excel's "CSV UTF-8", dropped).
    Every failure to read is an InputError naming the file."""

    BLOCK = 1 << 22

    def __init__(self, path: Path):
        self.path = path
        self.saw_text = False

    def _error(self, message: str) -> InputError:
        return InputError([Problem(str(self.path), 0, "", message)])

    def _open(self, **kwargs: Any) -> Any:
        try:
            return open(self.path, **kwargs)
        except FileNotFoundError:
            raise self._error("file not found") from None
        except IsADirectoryError:
            raise self._error("is a directory, not a file") from None
        except OSError as exc:
            raise self._error(f"cannot read: {exc.strerror or exc}") from None

    def jsonl_lines(self) -> Iterator[str]:
        """JSONL: the lines without their ends, split as `jsonl_lines` splits text ("\n" only; a "\r" before it
        dropped), decoded a block at a time (a line per read would cost a third of the parse)."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        pending = ""
        offset = 0
        with self._open(mode="rb") as fh:
            while True:
                try:
                    block = fh.read(self.BLOCK)
                except OSError as exc:
                    raise self._error(f"cannot read: {exc.strerror or exc}") from None
                try:
                    text = decoder.decode(block, final=not block)
                except UnicodeDecodeError as exc:
                    raise self._error(f"not UTF-8 text ({exc.reason} at byte {offset + exc.start}); "
                                      "save the file as UTF-8") from None
                if offset == 0 and text.startswith("\ufeff"):
                    text = text[1:]
                offset += len(block)
                if not block:
                    break
                lines = jsonl_lines(pending + text)
                pending = lines.pop()
                if not self.saw_text and any(line.strip() for line in lines):
                    self.saw_text = True
                yield from lines
        if pending:
            self.saw_text = self.saw_text or bool(pending.strip())
            yield pending[:-1] if pending.endswith("\r") else pending

    def csv_lines(self) -> Iterator[str]:
        """CSV: the lines with their ends, for the csv module (which joins quoted cells across lines). Split at
        "\n" only, as text read whole used to be."""
        with self._open(mode="r", encoding="utf-8-sig", newline="\n") as fh:
            try:
                for line in fh:
                    if not self.saw_text and line.strip():
                        self.saw_text = True
                    yield line
            except UnicodeDecodeError as exc:
                raise self._error(f"not UTF-8 text ({exc.reason} at byte {exc.start}); save the file as UTF-8") from None
            except OSError as exc:
                raise self._error(f"cannot read: {exc.strerror or exc}") from None


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


def chunks(source: Parsed[M] | Iterable[Parsed[M]]) -> Iterator[Parsed[M]]:
    """An importer's input as chunks: a whole `Parsed` is one chunk, a `stream_rows` stream is its chunks."""
    if isinstance(source, Parsed):
        yield source
    else:
        yield from source


def read_evalset(path: str | Path) -> Parsed[EvalItem]:
    from judgecal.evalsets._models import EvalItem  # noqa: PLC0415

    return read_rows(path, EvalItem)


def read_runs(path: str | Path) -> Parsed[RunRecord]:
    from judgecal.evalsets._models import RunRecord  # noqa: PLC0415

    return read_rows(path, RunRecord)


def stream_evalset(path: str | Path) -> Iterator[Parsed[EvalItem]]:
    from judgecal.evalsets._models import EvalItem  # noqa: PLC0415

    return stream_rows(path, EvalItem)


def stream_runs(path: str | Path) -> Iterator[Parsed[RunRecord]]:
    from judgecal.evalsets._models import RunRecord  # noqa: PLC0415

    return stream_rows(path, RunRecord)


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
