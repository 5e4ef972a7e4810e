"""Inspect AI eval logs (.eval or .json) as items, run records and verdicts, read through `inspect_ai.log`.

inspect_ai is an optional extra (`pip install 'judgecal-calibrate[inspect]'`): its log format is versioned and
zipped, so we read it with the library that writes it rather than a copy of its schema: the header with
`read_eval_log(header_only=True)`, every sample validated by its `EvalSample` model. The samples are streamed, one at
a time (docs/importers.md, "Memory"): a .eval log's zip is opened once and its sample entries read in the order
`read_eval_log` gives them; a .json log's `samples` array is read with ijson. Field-by-field mapping:
docs/importers.md.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

import ijson
from pydantic import ValidationError

from judgecal.evalsets._harness import (  # the one-document stream's reader and messages: same package
    _BLOCK,
    GRADER_ERROR,
    GraderSpec,
    HarnessBuilder,
    HarnessImport,
    HarnessVerdict,
    MissingExtra,
    _DocumentBytes,
    _json_problem,
    _lone_surrogate,
    guarded,
    pass_fail,
    scored_reason,
    text_of,
)
from judgecal.evalsets._io import InputError, Problem, ProblemLog

KIND = "inspect"
EXTRA = "pip install 'judgecal-calibrate[inspect]'"
# Inspect's own value_to_float: correct, partial, incorrect, no answer.
_GRADE_VALUES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
# What inspect_ai's model-graded scorers (model_graded_qa, model_graded_fact: inspect_ai/scorer/_model.py, 0.3.x,
# read 2026-11-30) write as the explanation when the grader's answer has no grade in it; the value is then a default
# (INCORRECT), not the grader's verdict.
GRADE_NOT_FOUND = "Grade not found in model output"
# A .eval log's sample entries: samples/<id>_epoch_<n>.json (inspect_ai/log/_recorders/eval.py, 0.3.285).
_SAMPLES_DIR = "samples/"
# The sample fields the first pass validates: EvalSample's required ones and the scores (`score` is their name in
# old logs, which EvalSample migrates). The transcript (events, messages, attachments, store) waits for the second.
_FIRST_PASS_FIELDS = ("id", "epoch", "input", "target", "scores", "score")
# The scorer name inspect_ai gives an old log's single `score` until the log's first scorer names it
# (inspect_ai/log/_log.py: SCORER_PLACEHOLDER, EvalLog.populate_scorer_name_for_samples, 0.3.285).
_SCORER_PLACEHOLDER = "88F74D2C"


class _Inspect(NamedTuple):
    """What the reader uses of inspect_ai (an optional extra), imported when a log is read."""

    read_eval_log: Callable[..., Any]
    sample_model: Any  # inspect_ai.log.EvalSample
    context: Callable[[], dict[str, Any]]  # the validation context of inspect_ai's own reader


def _inspect_ai() -> _Inspect:
    try:
        from inspect_ai.log import EvalSample, read_eval_log
        if sys.version_info < (3, 14):
            # inspect_ai writes .eval entries zstd-compressed; before Python 3.14 zipfile reads zstd only once
            # zipfile_zstd (a dependency of inspect_ai there) has registered it, as inspect_ai does itself.
            import zipfile_zstd  # noqa: F401
    except ImportError:
        raise MissingExtra(f"reading Inspect AI logs needs the inspect_ai package: {EXTRA}") from None
    try:
        # read_eval_log validates with this context: messages and events keep the ids the log has (none made up)
        # and a sample's repeated messages are one object.
        from inspect_ai._util.constants import get_deserializing_context
    except ImportError:  # moved in another inspect_ai: the fields we read do not depend on it
        def get_deserializing_context() -> dict[str, Any]:
            return {"deserializing": True}
    return _Inspect(read_eval_log, EvalSample, get_deserializing_context)


def _not_a_log(path: Path, exc: Exception) -> InputError:
    first = str(exc).splitlines()[0][:300] if str(exc) else ""
    return InputError([Problem(str(path), 0, "", f"not an Inspect AI eval log: {type(exc).__name__}: {first}")])


def _read_log(path: Path, ins: _Inspect, *, header_only: bool) -> Any:
    """read_eval_log's log: with header_only, without its samples (a .eval log's header.json; a .json log's fields
    up to `samples`)."""
    if not path.is_file():
        raise InputError([Problem(str(path), 0, "", "file not found" if not path.exists() else "is not a file")])
    try:
        return ins.read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # inspect_ai raises zip, JSON and pydantic errors alike: all mean "not a log"
        raise _not_a_log(path, exc) from None


class _Sample(NamedTuple):
    """One sample of the log in its place: `where` names it in problems (its position, and its zip entry)."""

    where: str
    sample: Any  # an EvalSample, or a list of Problems when the entry is broken


def _validated(ins: _Inspect, file: str, line: int, where: str, data: Any, *, first_pass: bool) -> Any:
    """`data` (a sample's JSON) as inspect_ai's EvalSample, or the Problems that say why it is not one."""
    if first_pass and isinstance(data, dict):
        data = {k: data[k] for k in _FIRST_PASS_FIELDS if k in data}
    try:
        return ins.sample_model.model_validate(data, context=ins.context())
    except ValidationError as exc:
        return [Problem(file, line, where + (f" -> {'.'.join(str(p) for p in e['loc'])}" if e["loc"] else ""),
                        f"not an Inspect AI sample: {e['msg']}") for e in exc.errors(include_url=False)[:20]]
    except (TypeError, ValueError) as exc:  # EvalSample's own validators (migrating an old log) raise these too
        return [Problem(file, line, where, f"not an Inspect AI sample: {type(exc).__name__}: {str(exc)[:300]}")]


class _Entry(NamedTuple):
    """A .eval sample entry with the key of read_eval_log's order (sort_samples in inspect_ai/log/_log.py,
    0.3.285: by epoch, then by id, an int id zero-filled so that 2 comes before 10)."""

    epoch: int
    id_key: str
    member: str


class _EvalZip:
    """A .eval log's samples, from its zip opened once: a first pass reads every sample entry for its id, epoch and
    scores (and so the order read_eval_log gives); the second reads them again, whole, in that order. In memory:
    one sample, and a few bytes per entry (zipfile keeps the zip's directory anyway)."""

    def __init__(self, path: Path, ins: _Inspect):
        self.path, self.ins = path, ins
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise _not_a_log(path, exc) from None
        # A re-logged sample appends a second entry under the same name: zipfile, as inspect_ai, reads the last.
        self.members = [name for name in dict.fromkeys(self.zip.namelist())
                        if name.startswith(_SAMPLES_DIR) and name.endswith(".json")]
        self.count = len(self.members)
        self.order: list[_Entry] = []

    def _data(self, member: str) -> Any:
        """The entry's JSON, or the Problem that says why it cannot be read."""
        try:
            raw = self.zip.read(member)
        except Exception as exc:  # a bad CRC, a truncated or undecodable entry: zipfile and zstd raise many kinds
            return Problem(str(self.path), 0, member, f"cannot read this sample entry: {type(exc).__name__}: "
                                                      f"{str(exc)[:300]}")
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            at = f" (line {exc.lineno} of the entry)" if isinstance(exc, json.JSONDecodeError) else ""
            return Problem(str(self.path), 0, member, f"invalid JSON{at}: {getattr(exc, 'msg', None) or exc}")

    def scan(self) -> Iterator[_Sample]:
        for member in self.members:
            data = self._data(member)
            sample = [data] if isinstance(data, Problem) else _validated(
                self.ins, str(self.path), 0, member, data, first_pass=True)
            if not isinstance(sample, list):
                key = sample.id if isinstance(sample.id, str) else str(sample.id).zfill(20)
                self.order.append(_Entry(sample.epoch, key, member))
            yield _Sample(member, sample)
        # A stable sort, as inspect_ai's: entries with the same epoch and id (none in a valid log) keep their order.
        self.order.sort(key=lambda e: (e.epoch, e.id_key))

    def samples(self) -> Iterator[_Sample]:
        for n, entry in enumerate(self.order, start=1):
            where = f"samples[{n - 1}] ({entry.member})"
            data = self._data(entry.member)
            yield _Sample(where, [data] if isinstance(data, Problem) else _validated(
                self.ins, str(self.path), n, where, data, first_pass=False))

    def close(self) -> None:
        self.zip.close()


class _JsonLog:
    """A .json log's samples, streamed with ijson in the file's order (read_eval_log keeps it). The first pass is
    also the check of the whole document (JSON syntax to its end, lone surrogate escapes: what document_head checks
    for promptfoo and DeepEval, without a pass of its own); a document ijson refuses and inspect_ai reads (NaN) is
    then read whole (_WholeLog)."""

    def __init__(self, path: Path, ins: _Inspect, header: Any):
        self.path, self.ins = path, ins
        scores = header.results.scores if header.results is not None else None
        self.first_scorer = scores[0].name if scores else None
        self.whole: _WholeLog | None = None

    def _named(self, sample: Any) -> Any:
        """An old log's single score under its scorer's name, as EvalLog names it when it validates a whole log."""
        if self.first_scorer and not isinstance(sample, list) and sample.scores \
                and _SCORER_PLACEHOLDER in sample.scores:
            sample.scores[self.first_scorer] = sample.scores.pop(_SCORER_PLACEHOLDER)
        return sample

    def _pass(self, first_pass: bool) -> Iterator[_Sample]:
        reader = _DocumentBytes(self.path)
        try:
            items = ijson.items(reader, "samples.item", buf_size=_BLOCK, use_float=True)
            for i, data in enumerate(items):
                where = f"samples[{i}]"
                yield _Sample(where, self._named(_validated(self.ins, str(self.path), i + 1, where, data,
                                                            first_pass=first_pass)))
        except (ijson.JSONError, UnicodeDecodeError) as exc:
            raise _json_problem(self.path, exc, reader) from None
        finally:
            reader.close()
        if reader.lone_surrogate is not None:  # ijson read to the document's end: the scan saw every byte
            raise _lone_surrogate(self.path, reader.lone_surrogate)

    def scan(self) -> Iterator[_Sample]:
        try:
            yield from self._pass(first_pass=True)
        except InputError as invalid:
            try:
                log = self.ins.read_eval_log(str(self.path))
            except Exception:
                raise invalid from None  # no log for inspect_ai either: the problem with its line
            # The samples scanned so far come again: what the caller keeps of them (which scorers are judges) is
            # the same for a sample seen twice.
            self.whole = _WholeLog(log)
            yield from self.whole.scan()

    def samples(self) -> Iterator[_Sample]:
        return self.whole.samples() if self.whole is not None else self._pass(first_pass=False)

    def close(self) -> None:
        pass


class _WholeLog:
    """A log read whole by read_eval_log: a .json log that ijson cannot parse and inspect_ai can (`NaN` and
    `Infinity`, which Python's and inspect_ai's JSON writers write for a float that is not finite; an integer beyond
    64 bits), or a .eval log with no sample entry where we look for them. Memory then grows with the log, as before
    streaming."""

    def __init__(self, log: Any):
        self.log = log

    def scan(self) -> Iterator[_Sample]:
        return (_Sample(f"samples[{i}]", s) for i, s in enumerate(self.log.samples or ()))

    def samples(self) -> Iterator[_Sample]:
        return self.scan()

    def close(self) -> None:
        pass


def _open_log(path: Path) -> tuple[Any, _EvalZip | _JsonLog | _WholeLog]:
    """The log's header (an EvalLog without samples) and its samples, to be read in two passes."""
    ins = _inspect_ai()
    header = _read_log(path, ins, header_only=True)
    if path.suffix != ".json":  # read_eval_log read the header: the file is a .eval log
        zipped = _EvalZip(path, ins)
        if zipped.count:
            return header, zipped
        # No entry where inspect_ai 0.3.285 writes samples: a log without samples, or a layout of another
        # inspect_ai. read_eval_log knows which (it finds the samples, or the import says the log holds none).
        zipped.close()
        return header, _WholeLog(_read_log(path, ins, header_only=False))
    return header, _JsonLog(path, ins, header)


def grade_label(value: Any) -> tuple[str | None, str]:
    """Our label for an Inspect score value and the rule that made it (the rule is stored with the raw value)."""
    if isinstance(value, str) and value in _GRADE_VALUES:
        return ("pass" if _GRADE_VALUES[value] == 1.0 else "fail"), "C = pass; P, I, N = fail (full credit only)"
    # Only values that are pass/fail by nature: a continuous 0.8 has no pass mark in the log, and inventing one
    # (below 1 = fail) would be our threshold, not the harness's.
    if isinstance(value, (bool, int, float)):
        label = pass_fail(value)
        if label is not None:
            return label, "1/true = pass, 0/false = fail"
    return None, ""


def _input(value: Any) -> Any:
    """A sample's input: text, or chat messages as {role, content} dicts (pydantic objects would be stored as their
    repr)."""
    if isinstance(value, list):
        return [{"role": getattr(m, "role", None), "content": getattr(m, "text", None) or str(getattr(m, "content", ""))}
                for m in value]
    return value


def _grader_model(score: Any, scorer_models: dict[str, str], name: str) -> str:
    grading = (score.metadata or {}).get("grading") if isinstance(score.metadata, dict) else None
    if isinstance(grading, list):
        for message in reversed(grading):
            if isinstance(message, dict) and message.get("role") == "assistant" and message.get("model"):
                return str(message["model"])
    return scorer_models.get(name) or f"inspect-scorer:{name}"


@guarded(KIND)
def stream_inspect(path: str | Path) -> Iterator[HarnessImport]:
    """Two passes over the samples: the first validates each sample's id, epoch and scores (a scorer is a judge only
    if every value it gave in the log is pass/fail), the second reads each sample whole and makes its rows."""
    path = Path(path)
    log, source = _open_log(path)
    try:
        yield from _rows(path, log, source)
    finally:
        source.close()


def _rows(path: Path, log: Any, source: _EvalZip | _JsonLog | _WholeLog) -> Iterator[HarnessImport]:
    scorer_models: dict[str, str] = {}
    for scorer in getattr(log.eval, "scorers", None) or ():
        model = (scorer.options or {}).get("model")
        model = model.get("model") if isinstance(model, dict) else model
        if isinstance(model, str):
            scorer_models[scorer.name] = model
    run = log.eval.run_id
    # A scorer is a pass/fail judge only if every value it gave in the log maps to pass/fail; otherwise its results
    # are counted as not imported, and it is no constraint (a constraint nobody judged would sit unjudged).
    judges: dict[str, bool] = {}
    broken = ProblemLog()
    any_sample = False
    for _, sample in source.scan():
        any_sample = True
        if isinstance(sample, list):
            broken.extend(sample)
            continue
        for name, score in (sample.scores or {}).items():
            judges[name] = judges.get(name, True) and grade_label(score.value)[0] is not None
    if not any_sample:
        raise InputError([Problem(str(path), 0, "samples", "the log holds no samples (status: "
                                                           f"{log.status}); was it written with --no-log-samples?")])
    broken.raise_if_any()  # a broken sample entry: nothing read, nothing imported
    b = HarnessBuilder(KIND, path)
    for n, (_, sample) in enumerate(source.samples(), start=1):
        yield from b.chunk_if_full()
        # A .eval log has no lines: the n-th sample is "line" n, named in every problem as samples[n-1].
        where = f"samples[{n - 1}]"
        b.at(n, where)
        if isinstance(sample, list):
            b.problems.extend(sample)
            continue
        scores = {name: score for name, score in (sample.scores or {}).items() if judges.get(name)}
        for name in set(sample.scores or {}) - set(scores):
            b.skip(f"scores of {name} (not pass/fail throughout the log)")
        # A sample whose scoring raised (a grader's 429) has its error and no scores: its run record is stored with
        # the error, and each of the log's judges gets an error row when the model answered (a review, wave 15: it
        # was dropped as a sample without scores).
        unscored = sample.error is not None and not sample.scores
        named = [name for name, judge in judges.items() if judge] if unscored else list(scores)
        graders = [GraderSpec(name, f"Inspect AI scorer {name}: the answer meets the target") for name in named]
        if not graders:
            b.skip("samples without scores")
            continue
        item_id = b.item(n, f"{log.eval.task}:{sample.id}", _input(sample.input), graders, reference=sample.target,
                         where=f"{where}.input")
        if item_id is None:
            continue
        usage = sample.output.usage if sample.output is not None else None
        run_id = b.run(n, f"{KIND}:{log.eval.eval_id}:{sample.id}:{sample.epoch}", item_id, model=log.eval.model,
                       output=sample.output.completion if sample.output is not None else None,
                       error=sample.error.message if sample.error is not None else None, run=run,
                       input_tokens=usage.input_tokens if usage else None,
                       output_tokens=usage.output_tokens if usage else None,
                       latency_ms=(sample.total_time * 1000 if sample.total_time is not None else None),
                       where=f"{where}.output")
        if run_id is not None and unscored and sample.output is not None and sample.output.completion:
            for name in named:
                b.verdict(n, HarnessVerdict(run_id, name, f"inspect:{name}", scorer_models.get(name)
                                            or f"inspect-scorer:{name}", 0, None, None, GRADER_ERROR,
                                            sample.error.message[:2000]))
        if run_id is None or sample.error is not None:
            continue
        for name, score in scores.items():
            if isinstance(score.explanation, str) and score.explanation.startswith(GRADE_NOT_FOUND):
                b.verdict(n, HarnessVerdict(run_id, name, f"inspect:{name}", _grader_model(score, scorer_models, name),
                                            0, None, None, GRADER_ERROR, score.explanation[:2000]))
                continue
            label, rule = grade_label(score.value)
            b.verdict(n, HarnessVerdict(run_id, name, f"inspect:{name}", _grader_model(score, scorer_models, name),
                                        0, label, scored_reason(KIND, score.value, rule, text_of(score.explanation))))
    yield b.last_chunk()
