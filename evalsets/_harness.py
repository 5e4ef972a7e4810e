"""What every harness import shares: a harness's file becomes eval items, run records and verdicts.

Each harness module (`_harness_inspect`, `_harness_promptfoo`, ...) reads its file with a `HarnessBuilder` and returns
a `HarnessImport`; the CLI hands the three parts to the store's ordinary importers in one transaction, so the rows are
the same rows `import evalset`/`runs`/`verdicts` make. No store here: evalsets imports nothing of ours.

Ids are made, not taken: an item's id ends in a hash of its content (two files that asked the same question with the
same graders share the item; a changed question is a new item, as items are immutable by id), a run record's id is
the harness's run id (or the file's hash where the harness has none) and the sample's id, so re-importing a file is
a no-op.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from contextvars import ContextVar
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import ijson
from pydantic import ValidationError

from judgecal.evalsets._io import (BATCH_ROWS, MAX_JSON_DEPTH, InputError, Parsed, Problem, ProblemLog, SeenKeys,
                                   _open_text, load_json, read_text_file)
from judgecal.evalsets._models import EvalItem, RunRecord, canonical_json


class HarnessVerdict(NamedTuple):
    """One grader result in the field names of `import verdicts` (annotations.store.VerdictImportRow)."""

    run_record_id: str
    constraint_id: str
    rubric: str
    judge_model: str
    repeat: int
    label: str | None
    reason: str | None
    error: str | None = None
    error_detail: str | None = None

    def as_row(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}


class GraderSpec(NamedTuple):
    """A harness grader seen as one of our semantic constraints: `id` is the constraint id, `text` what it asks."""

    id: str
    text: str


@dataclass
class HarnessImport:
    """A harness file as our rows (or one streamed chunk of them). `skipped` counts results that are not verdicts,
    by why (said in the message). A chunk carries the `problems` of its rows: the importer refuses the file at the
    end, inside its transaction."""

    kind: str
    file: str
    items: Parsed[EvalItem]
    runs: Parsed[RunRecord]
    verdicts: Parsed[Any]
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    # The run records that may be in the project already under another id (wave 15): run record id -> (the
    # result's own id, or None when the record's id is made of the file's hash: the harness wrote no run id; the
    # field the output is in). The importer refuses one whose item, model and output a stored run record of
    # another run has too (None), or a stored run record whose id is made of the same own id: a copy of a file
    # already imported, re-serialised or in another output format, would otherwise land a second time.
    copies: dict[str, tuple[str | None, str]] = field(default_factory=dict)


def collect(chunks: Iterable[HarnessImport]) -> HarnessImport:
    """A streamed harness file as one HarnessImport, in memory (tests, `doctor`); InputError if any chunk has
    problems. The import itself consumes the chunks one at a time."""
    whole: HarnessImport | None = None
    problems = ProblemLog()
    for chunk in chunks:
        problems.extend(chunk.problems)
        if whole is None:
            whole = chunk
            continue
        for mine, theirs in ((whole.items, chunk.items), (whole.runs, chunk.runs), (whole.verdicts, chunk.verdicts)):
            mine.rows.extend(theirs.rows)
            mine.lines.extend(theirs.lines)
        whole.skipped.update(chunk.skipped)
        whole.copies.update(chunk.copies)
    problems.raise_if_any()
    assert whole is not None  # a stream ends with its last chunk
    whole.problems = []
    return whole


class MissingExtra(RuntimeError):
    """The file needs an optional package that is not installed; the message names the pip extra."""


# The error of an error row made from a grader that failed to run (DeepEval's metric `error`, a promptfoo grader
# failure): never a label.
GRADER_ERROR = "harness_error"

# Scores a harness writes for "the grader said yes / no". Anything else is a score, mapped by a threshold.
_PASS = {"pass", "passed", "true", "yes", "correct", "1"}
_FAIL = {"fail", "failed", "false", "no", "incorrect", "0"}


def pass_fail(value: Any) -> str | None:
    """'pass' / 'fail' for a grader's yes/no value (a bool, 0/1, or a word such as "correct"), else None."""
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if isinstance(value, int) and not isinstance(value, bool):
        return {1: "pass", 0: "fail"}.get(value)  # an int beyond float range is no 0/1, not an OverflowError
    if isinstance(value, float):
        return {1: "pass", 0: "fail"}.get(value) if math.isfinite(value) else None
    if isinstance(value, str):
        v = value.strip().lower()
        return "pass" if v in _PASS else "fail" if v in _FAIL else None
    return None


def scored_reason(kind: str, score: Any, rule: str, reason: Any) -> str:
    """The reason as stored: the harness's raw score and the rule that made it a label come first, so the number the
    harness gave is never lost behind our pass/fail."""
    head = f"[{kind} score {json.dumps(score, ensure_ascii=False)}; {rule}]"
    text = reason if isinstance(reason, str) else None if reason is None else json.dumps(reason, ensure_ascii=False)
    return f"{head} {text}" if text else head


def text_of(value: Any) -> str | None:
    """A harness field as text: strings as they are, structures (chat messages, dicts) as canonical JSON."""
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def file_sha8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def text_sha8(path: str | Path) -> str:
    """file_sha8 of the file's text as read_text_file reads it (UTF-8, BOM dropped, universal newlines), a block at
    a time: the id of a file without one of its own, the same as when the file was read whole."""
    h = hashlib.sha256()
    try:
        with open(path, encoding="utf-8-sig") as fh:
            while block := fh.read(1 << 20):
                h.update(block.encode())
    except (OSError, UnicodeDecodeError):
        read_text_file(path)  # raises the InputError that names the file and says why
        raise
    return h.hexdigest()[:8]


class JsonValues(NamedTuple):
    """A harness file's JSON values: `document` when the file is one JSON document (read whole; promptfoo and
    DeepEval stream theirs with document_head / document_items instead), else `lines`, the JSONL values with their
    line numbers, read as they are needed (an invalid line is a Problem in their place)."""

    document: Any
    lines: Iterator[tuple[int, Any]] | None


_NOTHING = object()


def json_values(path: str | Path) -> JsonValues:
    """One JSON document or JSONL, decided as read_json_or_jsonl decides it, without reading a JSONL file whole:
    a file whose first non-blank line is a JSON value on its own is JSONL (the whole file cannot then be one
    document, unless it is that one line); otherwise it is read whole as one document, or failing that reported as
    JSONL with the bad lines named. Every JSONL line after the first is read when the caller gets to it."""
    file = str(path)
    reader = _open_text(Path(path))
    lines = reader.jsonl_lines()
    first = _NOTHING
    number = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            first = load_json(line)
        except json.JSONDecodeError:
            lines.close()
            _, docs = read_json_or_jsonl(path)  # a pretty-printed document (or invalid JSON, reported by line)
            return JsonValues(docs[0][1], None)
        break
    if first is _NOTHING:
        raise InputError([Problem(file, 0, "", "no rows (empty file)")])

    def values() -> Iterator[tuple[int, Any]]:
        yield number, first
        for n, line in enumerate(lines, start=number + 1):
            if not line.strip():
                continue
            try:
                yield n, load_json(line)
            except json.JSONDecodeError as exc:
                yield n, Problem(file, n, "(json)", f"invalid JSON: {exc.msg}")

    return JsonValues(_NOTHING, values())


def read_json_or_jsonl(path: str | Path) -> tuple[str, list[tuple[int, Any]]]:
    """The file's text and its values with their line numbers: one JSON document (line 1), or JSONL (one per line).
    Invalid JSON is an InputError naming the file and line. Reads the file whole: for formats that are one JSON
    document (DeepEval's test run, promptfoo's -o .json); JSONL goes through json_values."""
    text = read_text_file(path)
    file = str(path)
    stripped = text.strip()
    if not stripped:
        raise InputError([Problem(file, 0, "", "no rows (empty file)")])
    try:
        return text, [(1, load_json(stripped))]
    except json.JSONDecodeError:
        pass
    out: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, load_json(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(file, number, "(json)", f"invalid JSON: {exc.msg}"))
    if problems:
        raise InputError(problems)
    return text, out


# One JSON document, streamed (issue 16.1): promptfoo's `-o out.json` and DeepEval's test run are each one document
# whose rows are the items of one array. ijson (yajl's C parser) reads it a block at a time: a first pass,
# `document_head`, checks the whole document (JSON syntax, nesting depth, lone surrogate escapes: what load_json
# refuses) and picks out the few small values the rows need (a run id, the model), which a document may write after
# its rows; a second pass, `document_items`, hands the rows on one at a time. Memory follows the block and the row,
# not the file. The standard library has no incremental JSON parser (docs/decisions.md).
_BLOCK = 1 << 16
_BOM = b"\xef\xbb\xbf"
# An escaped backslash first (so a backslash's parity is right), then a surrogate escape with or without its pair.
_SURROGATE_ESCAPE = re.compile(rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
                               rb"|\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_PAIR = 12  # bytes of a surrogate pair's two escapes: a match starting closer to a block's end waits for the next


class _DocumentBytes:
    """A file's bytes for ijson, a block at a time (a leading UTF-8 BOM dropped), noting where each block starts
    and the first lone surrogate escape: yajl would turn "\\ud800" into "?" (or fail on a lone low one), where
    load_json refuses it as text that cannot be stored."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0  # bytes handed out so far (after the BOM)
        self.block_start = 0
        self.lone_surrogate: int | None = None  # its byte offset
        self._pending = b""  # the unscanned tail of the last block
        self._pending_at = 0
        try:
            self._fh = open(path, "rb")
        except FileNotFoundError:
            raise InputError([Problem(str(path), 0, "", "file not found")]) from None
        except IsADirectoryError:
            raise InputError([Problem(str(path), 0, "", "is a directory, not a file")]) from None
        except OSError as exc:
            raise InputError([Problem(str(path), 0, "", f"cannot read: {exc.strerror or exc}")]) from None
        self._first = True
        self.saw_text = False

    def read(self, size: int = _BLOCK) -> bytes:
        try:
            block = self._fh.read(size)
        except OSError as exc:
            raise InputError([Problem(str(self.path), 0, "", f"cannot read: {exc.strerror or exc}")]) from None
        if self._first and block:  # not on ijson's read(0), which asks whether the source gives bytes or text
            self._first = False
            block = block[len(_BOM):] if block.startswith(_BOM) else block
        self.block_start = self.offset
        self.offset += len(block)
        self.saw_text = self.saw_text or bool(block.strip())
        if self.lone_surrogate is None and (block or self._pending):
            self._scan(block)
        return block

    def scan_to_end(self) -> None:
        while self.lone_surrogate is None and self.read(_BLOCK):
            pass

    def _scan(self, block: bytes) -> None:
        text, at = self._pending + block, self._pending_at
        limit = len(text) - _PAIR if block else len(text)  # a match from here on may continue in the next block
        resume = None
        done = 0
        for m in _SURROGATE_ESCAPE.finditer(text):
            if m.start() >= limit:
                resume = m.start()
                break
            if len(m.group()) == 6:  # a surrogate escape alone (an escaped backslash is 2 bytes, a pair 12)
                self.lone_surrogate = at + m.start()
                return
            done = m.end()
        if resume is None:
            resume = max(limit, done, 0)
        self._pending, self._pending_at = text[resume:], at + resume

    def close(self) -> None:
        self._fh.close()


def _line_at(path: Path, offset: int) -> int:
    """The line (from 1) of a byte offset of the file (after its BOM), counted a block at a time."""
    line, done = 1, 0
    with open(path, "rb") as fh:
        first = fh.read(len(_BOM))
        if first != _BOM:
            fh.seek(0)
        while done < offset and (block := fh.read(min(1 << 20, offset - done))):
            line += block.count(b"\n")
            done += len(block)
    return line


def _syntax_error_offset(path: Path) -> int:
    """Where yajl stops on a syntax error, to the byte: find the block it fails in, then parse again up to that
    block and on from there a byte at a time (cheap: at most one block of single bytes)."""
    def failing_read(bytewise_from: int | None) -> int:
        """The offset of the read that makes the parser fail (the file's end for a premature end)."""
        reader = _DocumentBytes(path)
        coro = ijson.basic_parse_coro(ijson.sendable_list())
        try:
            while True:
                at = reader.offset
                if bytewise_from is None:
                    size = _BLOCK
                else:
                    size = 1 if at >= bytewise_from else min(_BLOCK, bytewise_from - at)
                block = reader.read(size)
                try:
                    if not block:
                        coro.close()
                        return at
                    coro.send(block)
                except (ijson.JSONError, UnicodeDecodeError):
                    return at
        finally:
            reader.close()

    return failing_read(failing_read(None))


def _json_problem(path: Path, exc: Exception, reader: _DocumentBytes) -> InputError:
    reader.scan_to_end()
    if reader.lone_surrogate is not None:  # yajl fails on a lone low surrogate with a UnicodeDecodeError
        return _lone_surrogate(path, reader.lone_surrogate)
    if not reader.saw_text:
        return InputError([Problem(str(path), 0, "", "no rows (empty file)")])
    raw = exc.args[0] if exc.args else ""
    raw = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)  # yajl's messages may be bytes
    message = raw.strip().split("\n")[0] or type(exc).__name__
    offset = _syntax_error_offset(path)
    return InputError([Problem(str(path), _line_at(path, offset), "(json)", f"invalid JSON: {message}")])


def _lone_surrogate(path: Path, offset: int) -> InputError:
    return InputError([Problem(str(path), _line_at(path, offset), "(json)", "invalid JSON: a lone surrogate escape "
                               "(\\ud800-\\udfff without its pair) is not valid Unicode text")])


class DocumentHead(NamedTuple):
    """What the first pass over a JSON document found: `values`, the value at each asked path (ijson prefixes,
    "testRunData.identifier") the document has; `kinds`, ijson's event for the value at each asked path
    ("start_map", "start_array", "string", "number", ...); `counts`, the items of the arrays at the asked paths."""

    values: dict[str, Any]
    kinds: dict[str, str]
    counts: dict[str, int]


_SCALARS = frozenset({"null", "boolean", "integer", "double", "number", "string"})


def document_head(path: str | Path, values: Iterable[str] = (), kinds: Iterable[str] = ()) -> DocumentHead:
    """Check the whole JSON document at `path` (an InputError names the file and line of invalid JSON, a lone
    surrogate escape, or nesting deeper than MAX_JSON_DEPTH) and return the values and kinds asked for. Every other
    value is parsed and dropped, so memory follows the largest value asked for, not the file."""
    path = Path(path)
    want, want_kinds = set(values), set(kinds)
    found: dict[str, Any] = {}
    found_kinds: dict[str, str] = {}
    counts: Counter[str] = Counter()
    items = {f"{k}.item": k for k in want_kinds}
    building: tuple[str, Any, int] | None = None  # (prefix, builder, depth at its start)
    depth = 0
    reader = _DocumentBytes(path)
    try:
        for prefix, event, value in ijson.parse(reader, buf_size=_BLOCK, use_float=True):
            if event in ("start_map", "start_array"):
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    where = prefix if len(prefix) < 80 else f"{prefix[:80]}…"
                    raise InputError([Problem(str(path), _line_at(path, reader.block_start), where or "(json)",
                                              f"invalid JSON: nested more than {MAX_JSON_DEPTH} levels deep")])
            elif event in ("end_map", "end_array"):
                depth -= 1
            if building is not None:
                building[1].event(event, value)
                if depth == building[2] and event not in ("map_key",) and (event in _SCALARS or
                                                                          event in ("end_map", "end_array")):
                    found[building[0]] = building[1].value
                    building = None
                continue
            if event in ("end_map", "end_array", "map_key"):
                continue
            if prefix in want_kinds:
                found_kinds[prefix] = event
            if prefix in items:
                counts[items[prefix]] += 1
            if prefix in want:
                builder = ijson.ObjectBuilder()
                builder.event(event, value)
                if event in _SCALARS:
                    found[prefix] = builder.value
                else:
                    building = (prefix, builder, depth - 1)
    except (ijson.JSONError, UnicodeDecodeError) as exc:
        raise _json_problem(path, exc, reader) from None
    finally:
        reader.close()
    if reader.lone_surrogate is not None:
        raise _lone_surrogate(path, reader.lone_surrogate)
    return DocumentHead(found, found_kinds, dict(counts))


def starts_as_document(path: str | Path, key: str) -> bool:
    """Whether the file's first JSON value is an object with `key` at its top: a format's one-document output (in
    one line or pretty-printed), not a JSONL of rows. Reads only as far as it takes to know; invalid JSON there is
    left for the JSONL reader, which names the line."""
    reader = _DocumentBytes(Path(path))
    try:
        for prefix, event, value in ijson.parse(reader, buf_size=_BLOCK, multiple_values=True):
            if prefix == "" and event == "map_key":
                if value == key:
                    return True
            elif prefix == "" and event != "start_map":  # the first value ended, or is not an object
                return False
    except (ijson.JSONError, UnicodeDecodeError):
        return False
    finally:
        reader.close()
    return False


def document_items(path: str | Path, array: str) -> Iterator[Any]:
    """The items of the array at `array` (an ijson prefix, "" for a top-level array), one at a time, as json.loads
    would give them (floats, not Decimals). Call document_head first: it is what checks the document."""
    path = Path(path)
    reader = _DocumentBytes(path)
    try:
        yield from ijson.items(reader, f"{array}.item" if array else "item", buf_size=_BLOCK, use_float=True)
    except (ijson.JSONError, UnicodeDecodeError) as exc:  # the file changed since document_head read it
        raise _json_problem(path, exc, reader) from None
    finally:
        reader.close()


# Where a reader is in its file (file, line, path inside the document): what `guarded` names when a field of the
# wrong JSON type (a list where an object belongs, a huge number) breaks the reader midway.
_AT: ContextVar[tuple[str, int, str]] = ContextVar("harness_at", default=("", 0, ""))


def guarded(kind: str) -> Callable[[Callable[[Any], Iterator[HarnessImport]]], Callable[[Any], Iterator[HarnessImport]]]:
    """A harness reader (a generator of chunks) whose every surprise about the file's JSON types is an InputError
    naming the file, the row being read and its path (exit 2, nothing imported), never a traceback."""

    def wrap(read: Callable[[Any], Iterator[HarnessImport]]) -> Callable[[Any], Iterator[HarnessImport]]:
        @functools.wraps(read)
        def reader(path: Any) -> Iterator[HarnessImport]:
            # Set, not reset: a generator runs in its consumer's context, and every reader sets it first.
            _AT.set((str(path), 0, ""))
            try:
                yield from read(path)
            except (TypeError, AttributeError, KeyError, IndexError, OverflowError) as exc:
                file, line, where = _AT.get()
                raise InputError([Problem(file, line, where or "(file)",
                                          f"a field has a JSON type or value a {kind} file does not have "
                                          f"({type(exc).__name__}: {str(exc)[:200]})")]) from None

        return reader

    return wrap


class HarnessBuilder:
    """Collects one file's rows, a chunk at a time: a reader yields `chunk_if_full()` after each sample and
    `last_chunk()` at the end, so memory follows BATCH_ROWS, not the file. The ids already made (items, run
    records) are kept in private temporary SQLite databases, not in Python memory. Every problem names the file,
    line and field; the importer refuses the file when any chunk has one."""

    def __init__(self, kind: str, file: str | Path, *, batch: int = BATCH_ROWS):
        self.kind = kind
        self.file = str(file)
        self.batch = batch
        self.problems: list[Problem] = []
        self.runs_total = 0
        self.any_problem = False
        self._item_ids_seen = SeenKeys()
        self._run_ids_seen = SeenKeys()
        self._new_chunk()

    def _new_chunk(self) -> None:
        self.items: Parsed[EvalItem] = Parsed(self.file)
        self.runs: Parsed[RunRecord] = Parsed(self.file)
        self.verdicts: Parsed[Any] = Parsed(self.file)
        self.skipped: Counter[str] = Counter()
        self.copies: dict[str, tuple[str | None, str]] = {}
        self._item_ids: set[str] = set()  # this chunk's: a repeated item is added once per file

    def _take(self) -> HarnessImport:
        chunk = HarnessImport(self.kind, self.file, self.items, self.runs, self.verdicts, self.skipped,
                              sorted(self.problems, key=lambda p: p.line), self.copies)
        self.any_problem = self.any_problem or bool(self.problems)
        self.problems = []
        self._new_chunk()
        return chunk

    def chunk_if_full(self) -> Iterator[HarnessImport]:
        if len(self.runs.rows) + len(self.verdicts.rows) + len(self.problems) >= self.batch:
            yield self._take()

    def last_chunk(self) -> HarnessImport:
        """The rest; with the file's last problem when it held no sample with an output at all."""
        if not self.runs_total and not self.problems and not self.any_problem:
            self.problem(0, "", f"no {self.kind} samples with an output in this file")
        self._item_ids_seen.close()
        self._run_ids_seen.close()
        return self._take()

    def at(self, line: int, where: str) -> None:
        """The row being read now (named by `guarded` if the row's JSON types break the reader)."""
        _AT.set((self.file, line, where))

    def problem(self, line: int, field_name: str, message: str) -> None:
        self.problems.append(Problem(self.file, line, field_name, message))

    def _validated(self, model: type, data: dict[str, Any], line: int, where: str) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            for e in exc.errors(include_url=False):
                loc = ".".join(str(p) for p in e["loc"])
                self.problem(line, where + (f" -> {loc}" if loc else ""), e["msg"])
            return None

    def item(self, line: int, local_id: str, instruction: Any, graders: list[GraderSpec], *, input: Any = None,
             reference: Any = None, where: str = "input") -> str | None:
        """The item for one harness sample (added once); returns its id, None when it is invalid (a problem)."""
        # Graders in a fixed order: the same question graded by the same graders is one item whatever the file order.
        constraints = [{"id": g.id, "text": g.text, "type": "content"} for g in sorted(set(graders))]
        body = {"instruction": text_of(instruction) or "", "input": input, "reference": text_of(reference),
                "constraints": constraints, "source": self.kind}
        item_id = f"{self.kind}:{local_id}:{hashlib.sha256(canonical_json(body).encode()).hexdigest()[:8]}"
        if item_id in self._item_ids:
            return item_id
        parsed = self._validated(EvalItem, {"id": item_id, **body}, line, where)
        if parsed is None:
            return None
        self._item_ids.add(item_id)
        if self._item_ids_seen.first_lines([item_id], [line])[0] is not None:
            return item_id  # made in an earlier chunk: its content is in the id, so it is the same item
        self.items.rows.append(parsed)
        self.items.lines.append(line)
        return item_id

    def run(self, line: int, run_id: str, item_id: str, *, model: str, output: Any, error: Any = None,
            run: str | None = None, input_tokens: Any = None, output_tokens: Any = None, latency_ms: Any = None,
            where: str = "output", file_keyed: bool = False, own_id: str | None = None) -> str | None:
        """The run record of one sample (None when it is invalid: a problem). `file_keyed`: its id is made of the
        file's hash (the harness wrote no run id); `own_id`: the result's own id, which its id is made of
        (HarnessImport.copies says what the importer checks of each)."""
        first = self._run_ids_seen.first_lines([run_id], [line])[0]
        if first is not None:
            self.problem(line, where, f"a second sample with id {run_id!r} (first on line {first})")
            return None
        data = {"id": run_id, "item_id": item_id, "model": model or "unknown", "run_id": run,
                "output": text_of(output), "error": text_of(error) if error else None,
                "input_tokens": input_tokens, "output_tokens": output_tokens, "latency_ms": latency_ms}
        if data["output"] is None and data["error"] is None:
            data["output"] = ""  # a model that answered nothing answered "": that is still an output to grade
        parsed = self._validated(RunRecord, {k: v for k, v in data.items() if v is not None}, line, where)
        if parsed is None:
            return None
        self.runs_total += 1
        if file_keyed or own_id is not None:
            self.copies[run_id] = (own_id, where)
        self.runs.rows.append(parsed)
        self.runs.lines.append(line)
        return run_id

    def verdict(self, line: int, verdict: HarnessVerdict) -> None:
        self.verdicts.rows.append(verdict)
        self.verdicts.lines.append(line)

    def skip(self, why: str) -> None:
        self.skipped[why] += 1
