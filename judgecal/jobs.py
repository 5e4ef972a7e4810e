"""Use cases that need both the judge and the project store: judge pairs, run the eval set, each as one batch.

The judge and annotations packages do not import each other; this module wires them, and the CLI and the app call
it (the app can start a re-judge with `judge_pairs`). It never imports the CLI and prints nothing: progress and the
Ctrl+C acknowledgement come back through callbacks.

One batch life cycle for both kinds (`batch`): the batch row is started (after marking dead the batches whose process
is gone), a heartbeat keeps it and its leases alive, and it is finished with one status whatever happens —
`done`, `failed` (requests went out and none was answered), `interrupted` (Ctrl+C, or stopped by a fatal error).
A fatal error (bad key, unknown model, a failed writer) becomes `BatchStopped`; what was committed is kept.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from judgecal import annotations as ann
from judgecal.evalsets import render_evidence
from judgecal.annotations import store as av
from judgecal.annotations.reports import require_run
from judgecal.annotations.store import WriterError
from judgecal.evalsets import EvalItem, RunRecord
from judgecal.judge import (
    CLAIM_CHUNK,
    DEFAULT_CONCURRENCY,
    DEFAULT_REPEATS,
    SHIPPED,
    BatchSummary,
    FatalBackendError,
    Progress,
    Rubric,
    run_batch,
    shipped_rubric,
)
from judgecal.runner import RunSettings, RunSummary, record_id, run_models

__all__ = [
    "Batch", "BatchStopped", "JobError", "JudgeResult", "PairwiseResult", "RunResult", "batch", "judge_pairs",
    "judge_pairwise", "resolve_rubric",
    "run_evalset",
    "BatchPoll", "ImportedResults", "OtherJob", "RemoteJudgeResult", "WrittenRequests", "import_batch_results",
    "judge_pairs_batch_api", "write_batch_requests",
]


from judgecal.annotations.reports import PAIR_RUN_PREFIX as PAIRWISE_RUN_PREFIX, PAIR_SOURCE as PAIRWISE_SOURCE  # noqa: E402


class JobError(ValueError):
    """A use case cannot start: bad rubric, nothing to run, ... (the CLI prints it and exits 2; nothing changed)."""


class BatchStopped(RuntimeError):
    """A batch stopped before its end on an error every request would hit (bad key, unknown model) or a failed
    writer (disk full). The batch is recorded as `interrupted`; what it committed is kept, a re-run resumes."""

    def __init__(self, batch_id: str, reason: str, summary: BatchSummary | RunSummary | None):
        super().__init__(reason)
        self.batch_id = batch_id
        self.reason = reason
        self.summary = summary


@dataclass
class Batch:
    """A started batch. The body of `batch(...)` sets `summary` when its work returns."""

    id: str
    db_path: Path
    kind: str
    summary: BatchSummary | RunSummary | None = None

    @property
    def status(self) -> str:
        s = self.summary
        if s is None or s.interrupted:
            return "interrupted"
        return "failed" if s.nothing_answered else "done"


class _Heartbeat:
    """Refreshes the batch's heartbeat and leases every HEARTBEAT_S, in its own thread with its own connection."""

    def __init__(self, db_path: Path, batch_id: str, every_s: float = av.HEARTBEAT_S):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(db_path, batch_id, every_s), name="heartbeat",
                                        daemon=True)
        self._thread.start()

    def _run(self, db_path: Path, batch_id: str, every_s: float) -> None:
        while not self._stop.wait(every_s):
            try:
                with ann.unit_of_work(db_path) as db:
                    av.heartbeat(db, batch_id)
            except sqlite3.Error:
                pass  # a busy or failing store: the next beat tries again; leases outlive one missed beat

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


@contextmanager
def batch(db_path: str | Path, settings: dict[str, Any], *, kind: str) -> Iterator[Batch]:
    """Start a batch, keep it alive while the body runs, finish it with its status whatever happens. FatalBackendError
    and WriterError out of the body become BatchStopped."""
    db_path = Path(db_path)
    with ann.unit_of_work(db_path) as db:
        handle = Batch(av.start_batch(db, settings, kind=kind), db_path, kind)
    beat = _Heartbeat(db_path, handle.id)
    status = "interrupted"
    try:
        try:
            yield handle
        except FatalBackendError as exc:
            handle.summary = getattr(exc, "summary", handle.summary)
            raise BatchStopped(handle.id, str(exc), handle.summary) from None
        except WriterError as exc:
            raise BatchStopped(handle.id, f"{exc} (what was committed before it is kept; re-run to resume)",
                               handle.summary) from None
        status = handle.status
    finally:
        beat.stop()
        summary = handle.summary.as_dict() if handle.summary is not None else {}
        with ann.unit_of_work(db_path) as db:
            av.finish_batch(db, handle.id, status, summary)


# --------------------------------------------------------------------------- judge pairs


def resolve_rubric(db, name_or_file: str) -> Rubric:
    """A rubric file (name = stem), a shipped rubric name, or the latest stored version of a name / a sha256."""
    path = Path(name_or_file)
    if path.suffix or os.sep in name_or_file or path.is_file():
        if not path.is_file():
            raise JobError(f"rubric file not found: {path}")
        try:
            return Rubric.from_file(path)
        except (ValueError, UnicodeDecodeError) as exc:
            raise JobError(f"{path}: {exc}") from None
    if name_or_file in SHIPPED:
        return shipped_rubric(name_or_file)
    row = av.get_rubric(db, name_or_file)
    if row is None:
        raise JobError(f"unknown rubric {name_or_file!r}: give a file, a shipped name ({', '.join(SHIPPED)}) "
                       "or a rubric stored in the project")
    if not row.template:
        raise JobError(f"rubric {row.name} v{row.version} was imported with verdicts; its template is not known")
    rubric = Rubric.from_text(row.name, row.template, row.note)
    if rubric.sha256 != row.sha256:
        raise JobError(f"rubric {row.name} v{row.version}: stored template does not hash to its sha256")
    return rubric


def _stored_version(db, chosen: Rubric, judges: bool) -> int | None:
    """The project's version number of `chosen`, stored now when this run `judges` a pair with it; else its stored
    version, or None when it has none. A run that selects nothing (`judge --limit 0`, `--only-labelled` before any
    label) stored a version while judging nothing: a version registered before the labels existed, gated later as
    "a first version: no labels could tune it" (a review, wave 17). The Rubrics page does not register rubrics."""
    if judges:
        return av.store_rubric(db, chosen.name, chosen.template, chosen.sha256, chosen.note).version
    row = db.execute("SELECT version FROM rubrics WHERE sha256 = ?", [chosen.sha256]).fetchone()
    return row[0] if row else None


def _judged_pairs(db, rubric: str | Rubric, constraint: str | None, only_labelled: bool, limit: int | None,
                  run_id: str | None) -> tuple[Rubric, int | None, list]:
    """The rubric, its version in the project (stored by a run that selects a pair; None when it selects none and
    the rubric was never stored) and the pairs a plain judge batch asks: the one selection of `judge_pairs`,
    `judge_pairs_batch_api` and `write_batch_requests`."""
    in_run = None
    if run_id is not None:  # `run_id`: only that run's pairs; checked before anything is stored
        try:
            in_run = require_run(db, run_id)
        except ValueError as exc:
            raise JobError(str(exc)) from None
    chosen = rubric if isinstance(rubric, Rubric) else resolve_rubric(db, rubric)
    # Pairwise records are judged by judge_pairwise only: its repeats mean orders (2r original, 2r+1 swapped),
    # which a plain batch would fill with original-order answers.
    pairs = [p for p in ann.semantic_pairs(db, constraint_id=constraint)
             if not (p[0].run_id or "").startswith(PAIRWISE_RUN_PREFIX)]
    if in_run is not None:
        pairs = [p for p in pairs if p[0].id in in_run]
    if only_labelled:
        labelled = {(r["run_record_id"], r["constraint_id"]) for r in ann.current_labels(db)}
        pairs = [p for p in pairs if (p[0].id, p[2].id) in labelled]
    if limit is not None:
        pairs = pairs[:limit]
    return chosen, _stored_version(db, chosen, bool(pairs)), pairs


# The sampling settings that make two runs of one judge model different judges (recorded in each batch's settings).
SAMPLING_SETTINGS = ("temperature", "seed")


def _refuse_other_settings(db, rubric: Rubric, version: int, model: str, settings: dict[str, Any], *,
                           pairwise: bool = False) -> None:
    """JobError when a judge batch of this judge model under this rubric version stored labels (or has a Batch API
    job still to land, or a `--batch-requests` file still to come back) under other sampling settings: the verdict
    cache key is (pair, rubric, judge model, repeat), so the stored verdicts would be reused, or mixed with the new
    ones into one majority, and every report would show the two as one judge (found by a review, wave 14: `judge
    --temperature 1.0` after a run at 0 asked nothing and credited the temperature-0 answers to it).

    Read from the batches (a few rows), not the verdicts: a batch whose summary counts no label does not bind (a
    killed one, without a summary, does). `pairwise`: the A-vs-B batches (`judge --pairwise`), whose pair records a
    plain batch never asks, and the other way round. Verdicts imported from a file carry no settings: not compared."""
    wanted = {k: settings.get(k) for k in SAMPLING_SETTINGS}
    binding = _binding_batches(db, rubric.sha256, model, pairwise)
    _refuse_other_settings_of(binding, wanted, lambda batch_id, had, asked: (
        f"the verdicts of {model} under {rubric.name} v{version} were asked with {had} ({batch_id}); this run "
        f"asks {asked}. One judge model and rubric version is one judge in every report, and its stored verdicts "
        "would be reused or mixed into one majority: judge with the stored settings, or under another model name "
        "the endpoint serves (e.g. a vLLM --served-model-name alias)"))
    # A probe stands in for this judge at the gate: probed at temperature 0 and then judged at 1.0, the gate read
    # the probe for the judge at 1.0 (the other order of a review's finding, wave 17; `_refuse_other_probe_settings`).
    # Only probes that recorded the judge's settings (wave 17 on) bind it: a project whose judge and probes already
    # disagreed before could otherwise never judge again (no command forgets probes; a review of the fix); the gate
    # names those probes' settings.
    probes = _probe_settings(db, rubric.sha256, model, recorded=True)
    _refuse_other_settings_of(probes, wanted, lambda batch_id, had, asked: (
        f"the probes of {model} under {rubric.name} v{version} were asked with {had} ({batch_id}); this run "
        f"asks {asked}. A probe stands in for the judge at the gate, so the judge is asked as its probes were: "
        "judge with the probes' settings, or under another model name the endpoint serves"))


def _binding_batches(db, rubric_sha256: str, model: str, pairwise: bool = False) -> list[tuple[str, str]]:
    """(batch id, settings JSON) of the judge batches that bind this judge model under this rubric version to their
    sampling settings (`_refuse_other_settings`), oldest first, and a `--batch-requests` file still to come back."""
    rows = db.execute(
        "SELECT id, settings FROM batches WHERE kind = 'judge' AND json_extract(settings, '$.rubric_sha256') = ?"
        " AND json_extract(settings, '$.model') = ? AND (json_extract(settings, '$.pairwise') IS NOT NULL) = ?"
        " AND (coalesce(json_extract(summary, '$.verdicts'), 1) > 0 OR id IN (SELECT batch_id FROM remote_batches"
        " WHERE rubric_sha256 = ? AND judge_model = ? AND landed_at IS NULL)) ORDER BY started_at",
        [rubric_sha256, model, pairwise, rubric_sha256, model]).fetchall()
    if not pairwise:
        written = _requests_written(db, rubric_sha256, model)
        if written is not None:
            rows.append(("a --batch-requests file", written))
    return rows


def stored_sampling_settings(db, rubric_sha256: str, model: str) -> dict[str, Any]:
    """The sampling settings (`SAMPLING_SETTINGS`) this judge model's verdicts under this rubric version were asked
    with, from the first batch that binds them, else from its probes (they bind it too, wave 17); {} when none does
    (a first run takes any). What a caller that only wants more verdicts of the same judge passes to its backend (the
    Rubrics page's re-judge: it asked at the defaults, and was refused on a version judged otherwise, a review in
    wave 14)."""
    for _batch_id, text in _binding_batches(db, rubric_sha256, model) + _probe_settings(db, rubric_sha256, model):
        try:
            stored = json.loads(text)
        except ValueError:
            continue
        if isinstance(stored, dict):
            return {k: stored[k] for k in SAMPLING_SETTINGS if k in stored}
    return {}


def _other_settings(rows: Sequence[tuple[str, str]], wanted: dict[str, Any]) -> tuple[str, str, str] | None:
    """The first of `rows` (batch id, its settings JSON) whose settings give one of `wanted`'s keys another value:
    (batch id, its values, the wanted ones), each as "key value, ..." over the keys it records; None when none does.
    Settings that do not read as JSON are passed over (another version wrote them)."""
    for batch_id, text in rows:
        try:
            stored = json.loads(text)
        except ValueError:
            continue
        keys = [k for k in wanted if k in stored]
        if any(stored[k] != wanted[k] for k in keys):
            return (batch_id, ", ".join(f"{k} {stored[k]}" for k in keys),
                    ", ".join(f"{k} {wanted[k]}" for k in keys))
    return None


def _refuse_other_settings_of(rows: Sequence[tuple[str, str]], wanted: dict[str, Any],
                              says: Callable[[str, str, str], str]) -> None:
    """JobError(says(batch id, its values, the wanted ones)) when one of `rows` was asked with other settings than
    `wanted` (`_other_settings`)."""
    other = _other_settings(rows, wanted)
    if other is not None:
        raise JobError(says(*other))


# + json [rubric sha256, judge model]: the sampling settings `write_batch_requests` wrote a request file with, which
# `import_batch_results` records on the batch its results land in
BATCH_REQUESTS_SETTING = "batch_requests:"


def _requests_key(rubric_sha256: str, model: str) -> str:
    return BATCH_REQUESTS_SETTING + json.dumps([rubric_sha256, model])


def _requests_written(db, rubric_sha256: str, model: str) -> str | None:
    """The settings JSON a `--batch-requests` file of this judge model and rubric version was written with."""
    row = db.execute("SELECT value FROM settings WHERE key = ?", [_requests_key(rubric_sha256, model)]).fetchone()
    return None if row is None else row[0]


def _refuse_other_run_settings(db, settings: RunSettings, backend_settings: dict[str, Any]) -> None:
    """JobError when the run id already holds records asked under another prompt version (system prompt, template,
    tool specs) or other sampling settings: a resumed run was refused only for another model, so one run mixed two
    prompts, and `compare`, which checks prompt versions between runs, read it as one (a review, wave 14)."""
    # A record the runner does not plan (its id is not `record_id(run, item, repeat)`: an `import runs` under this run
    # id) was run again beside: its items got a second record, another harness's answers read as repeats of this
    # run's (a review, wave 18).
    foreign = next((rid for rid, item in db.execute(
        "SELECT id, item_id FROM run_records WHERE run_id = ? ORDER BY seq", [settings.run_id])
        if not _planned(rid, settings.run_id, item)), None)
    if foreign is not None:
        raise JobError(f"run id {settings.run_id!r} holds run record {foreign!r}, which `judgecal run` did not make "
                       "(imported): a run resumes only its own records: give another --run-id")
    versions = sorted({r[0] for r in db.execute(
        "SELECT DISTINCT prompt_version FROM run_records WHERE run_id = ?", [settings.run_id]) if r[0] is not None})
    if versions and versions != [settings.version]:
        raise JobError(f"run id {settings.run_id!r} holds records of prompt version {', '.join(versions)}; this run "
                       f"asks {settings.version}: a run is one prompt (compare runs, not prompts inside one): give "
                       "another --run-id, or the same --system and tools to resume it")
    # (the prompt's hash too: a reused --prompt-version label over another prompt)
    # (and the rules that stop a task, which decide its outcome: a run resumed at --max-rounds 5 after 1 mixed two;
    # a review, wave 18)
    wanted = {k: backend_settings.get(k) for k in SAMPLING_SETTINGS} | {
        "prompt_sha256": settings.prompt_sha256, "max_rounds": settings.max_rounds, "loop_limit": settings.loop_limit}
    # (a batch whose summary says it stored nothing does not bind the run; a killed one may have)
    other = _other_settings(db.execute(
        "SELECT id, settings FROM batches WHERE kind = 'run' AND json_extract(settings, '$.run_id') = ?"
        " AND coalesce(json_extract(summary, '$.done'), 1) > 0 ORDER BY started_at", [settings.run_id]).fetchall(),
        wanted)
    if other is not None:
        batch_id, had, asked = other
        raise JobError(f"run id {settings.run_id!r} was run with {had} (batch {batch_id}); this run asks {asked}: give "
                       "another --run-id, or the same settings to resume it")


def _planned(run_record_id: str, run_id: str, item_id: str) -> bool:
    """Whether a run record's id is one the runner plans for its run and item (`runner.record_id`)."""
    repeat = run_record_id.rpartition("/")[2]
    return repeat.isascii() and repeat.isdigit() and run_record_id == record_id(run_id, item_id, int(repeat))


class JudgeResult(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted (see `batch`)
    summary: BatchSummary
    rubric: Rubric
    rubric_version: int | None  # None: the run selected no pair and the rubric was never stored
    pairs: int
    flipped: int  # pairs whose repeats disagree, under this rubric version and model (targeted for review)


def judge_pairs(db_path: str | Path, backend: Any, *, rubric: str | Rubric = "strict",
                repeats: int = DEFAULT_REPEATS, concurrency: int = DEFAULT_CONCURRENCY,
                constraint: str | None = None, only_labelled: bool = False, limit: int | None = None,
                progress: Progress | bool | None = None, grace_s: float | None = None,
                on_start: Callable[[str, int, Rubric, int], None] | None = None,
                on_stop: Callable[[int], None] | None = None, run_id: str | None = None) -> JudgeResult:
    """Judge every (run record, semantic constraint) pair of the project `repeats` times as one batch; verdicts
    already stored are not asked again, pairs another running batch holds are left to it.

    `on_start(batch_id, pairs, rubric, version)` is called once the batch is recorded; `on_stop(in_flight)` on the
    first Ctrl+C, after which the workers get `grace_s` (the request timeout) to finish. Raises JobError before
    anything is stored, BatchStopped on a fatal error; KeyboardInterrupt outside the request loop passes through
    with the batch recorded as interrupted."""
    if repeats < 1 or concurrency < 1:
        raise JobError("repeats and concurrency must be at least 1")
    db_path = Path(db_path)
    with ann.unit_of_work(db_path) as db:
        chosen, version, pairs = _judged_pairs(db, rubric, constraint, only_labelled, limit, run_id)
        price = av.get_price(db, backend.model)
        _refuse_other_settings(db, chosen, version, backend.model, backend.settings())
    settings = backend.settings() | {
        "rubric": chosen.name, "rubric_version": version, "rubric_sha256": chosen.sha256,
        "repeats": repeats, "concurrency": concurrency, "constraint": constraint,
        "only_labelled": only_labelled, "limit": limit, "pairs": len(pairs),
        **({"run_id": run_id} if run_id is not None else {}),
    }
    with batch(db_path, settings, kind="judge") as b:
        if on_start is not None:
            on_start(b.id, len(pairs), chosen, version)
        if not pairs:
            b.summary = BatchSummary()
        else:
            with av.SqliteVerdictSink(db_path, b.id, retry_errors=not only_labelled) as sink:
                b.summary = run_batch(pairs, chosen, backend, sink, repeats=repeats, concurrency=concurrency,
                                      price=tuple(price) if price else None, progress=progress, grace_s=grace_s,
                                      on_stop=on_stop)
            for verdict, _ in sink.replaced:  # complete once the sink is closed: report what was stored
                b.summary.unstored(verdict)
    with ann.unit_of_work(db_path) as db:
        flipped = sum(1 for r in av.judge_consistency(db, chosen.sha256, backend.model) if r.flipped)
    return JudgeResult(b.id, b.status, b.summary, chosen, version, len(pairs), flipped)


# --------------------------------------------------------------------------- run the eval set


class RunResult(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted
    summary: RunSummary
    run_id: str
    items: int


def run_evalset(db_path: str | Path, backend: Any, settings: RunSettings, *, item_ids: Sequence[str] | None = None,
                limit: int | None = None, on_start: Callable[[str, int], None] | None = None,
                on_record: Callable[[RunRecord, RunSummary], None] | None = None, grace_s: float | None = None,
                on_stop: Callable[[int], None] | None = None, tags: Sequence[str] | None = None) -> RunResult:
    """Put the project's eval items (or `item_ids`, or those carrying any of `tags`, e.g. one boundary category
    `boundary:tool_overreach`; or the first `limit`) to the model as one batch under
    `settings.run_id`; stored tasks are skipped (resume). Mechanical checks run on the new records at the end.
    Errors and callbacks as `judge_pairs`."""
    db_path = Path(db_path)
    model = backend.model
    with ann.unit_of_work(db_path) as db:
        items: list[EvalItem] = list(ann.load_items(db, item_ids).values() if item_ids else ann.load_items(db).values())
        # The A-vs-B items of `judge --pairwise` compare two runs' outputs; they are nothing to put to a model.
        items = [i for i in items if i.source != PAIRWISE_SOURCE]
        if item_ids and len(items) != len(set(item_ids)):
            missing = sorted(set(item_ids) - {i.id for i in items})
            raise JobError(f"no eval item(s) {', '.join(missing)} in the project")
        if tags:
            known = sorted({t for i in items for t in i.tags})
            items = [i for i in items if set(i.tags) & set(tags)]
            if not items:
                raise JobError(f"no eval item tagged {' or '.join(tags)}; tags in the project: "
                               f"{', '.join(known) or 'none'}")
        if limit is not None:
            items = items[:limit]
        other = [m for m in ann.models_in_run(db, settings.run_id) if m != model]
        if other:
            raise JobError(f"run id {settings.run_id!r} already holds records of model {other[0]!r}: give another "
                           "--run-id")
        _refuse_other_run_settings(db, settings, backend.settings())
    if not items:
        raise JobError("no eval items in the project: import an eval set first (judgecal import evalset FILE)")
    # the selection, so the run gate knows which items the run is over (`gate --run`'s `items` check)
    record = settings.as_dict() | backend.settings() | {"items": len(items), "select": {
        "tags": sorted(tags) if tags else None, "item_ids": sorted(item_ids) if item_ids else None, "limit": limit}}
    record.pop("json_schema", None)  # a judge setting; the runner does not ask for structured output
    try:
        with batch(db_path, record, kind="run") as b:
            if on_start is not None:
                on_start(b.id, len(items))
            with ann.SqliteRunSink(db_path, settings.run_id, b.id) as sink:
                b.summary = run_models(items, backend, sink, settings, on_record=on_record, grace_s=grace_s,
                                       on_stop=on_stop)
    finally:
        with ann.unit_of_work(db_path) as db:
            ann.run_checks(db)
    return RunResult(b.id, b.status, b.summary, settings.run_id, len(items))


# --------------------------------------------------------------------------- pairwise A vs B


class PairwiseResult(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted (see `batch`)
    summary: BatchSummary
    rubric: Rubric
    pairs: int
    report: Any  # annotations PairwiseReport


def judge_pairwise(db_path: str | Path, backend: Any, run_a: str, run_b: str, *, rubric: str | Rubric = "strict",
                   repeats: int = 1, concurrency: int = DEFAULT_CONCURRENCY, progress: Progress | bool | None = None,
                   grace_s: float | None = None, on_start: Callable[[str, int, Rubric, int], None] | None = None,
                   on_stop: Callable[[int], None] | None = None) -> PairwiseResult:
    """Judge run A against run B on their common items, each pair in both orders `repeats` times, as one batch (the
    same cache, leases and error rows as `judge_pairs`); returns the position-bias and preference report."""
    from judgecal.annotations.reports import pairwise_report, store_pairs  # noqa: PLC0415
    from judgecal.judge import PairwiseTask, pair_output, plan_pairwise  # noqa: PLC0415

    if repeats < 1 or concurrency < 1:
        raise JobError("repeats and concurrency must be at least 1")
    db_path = Path(db_path)
    with ann.unit_of_work(db_path) as db:
        chosen = rubric if isinstance(rubric, Rubric) else resolve_rubric(db, rubric)
        try:
            stored_pairs = store_pairs(db, run_a, run_b, render_evidence, pair_output)
        except ValueError as exc:
            raise JobError(str(exc)) from None
        version = _stored_version(db, chosen, bool(stored_pairs))
        price = av.get_price(db, backend.model)
        _refuse_other_settings(db, chosen, version, backend.model, backend.settings(), pairwise=True)
    tasks = plan_pairwise([PairwiseTask(p.record, p.item, p.item.constraints[0], p.output_a, p.output_b)
                           for p in stored_pairs], chosen, backend.model, repeats)
    settings = backend.settings() | {
        "rubric": chosen.name, "rubric_version": version, "rubric_sha256": chosen.sha256,
        "repeats": repeats, "concurrency": concurrency, "pairwise": [run_a, run_b], "pairs": len(stored_pairs),
    }
    with batch(db_path, settings, kind="judge") as b:
        if on_start is not None:
            on_start(b.id, len(stored_pairs), chosen, version)
        with av.SqliteVerdictSink(db_path, b.id) as sink:
            b.summary = run_batch([], chosen, backend, sink, concurrency=concurrency, tasks=tasks,
                                  price=tuple(price) if price else None, progress=progress, grace_s=grace_s,
                                  on_stop=on_stop)
    with ann.unit_of_work(db_path) as db:
        report = pairwise_report(db, run_a, run_b, chosen.sha256, backend.model)
    return PairwiseResult(b.id, b.status, b.summary, chosen, len(stored_pairs), report)


# --------------------------------------------------------------------------- judge through the Batch API (issue 16.4)


class BatchPoll(NamedTuple):
    """One look at a Batch API job: what the endpoint reports (status `unreachable` when the poll itself failed)."""

    remote_id: str
    status: str
    completed: int
    failed: int
    total: int


class OtherJob(NamedTuple):
    """A Batch API job whose results are not stored, which this run does not resume: it was submitted for another
    rubric version (the rubric file was edited since), judge model or endpoint, and resumes with those."""

    remote_id: str
    rubric: str  # name@version (the rubric's sha256 when the project does not hold it)
    rubric_sha256: str
    judge_model: str
    endpoint: str  # redacted


class RemoteJudgeResult(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted (see `batch`)
    summary: BatchSummary
    rubric: Rubric
    rubric_version: int | None  # None: the run selected no pair and the rubric was never stored
    pairs: int
    remote_ids: tuple[str, ...]  # every Batch API job this run submitted or resumed
    pending: tuple[str, ...]  # jobs still running at the endpoint (stopped polling, Ctrl+C): a re-run resumes them
    resumed: bool  # True: pending jobs were found and polled, nothing was submitted
    unreadable: int  # result lines naming no request of the job (their requests are error rows `batch_missing`)
    conflicting: int = 0  # requests answered twice, differently: error rows `batch_conflict`, asked again by a re-run
    others: tuple[OtherJob, ...] = ()  # jobs of this project for another rubric version, model or endpoint, not landed


_UNANSWERED_CAUSE = {"expired": "batch_expired", "cancelled": "batch_cancelled", "failed": "batch_failed"}


def _chunks(lines: list[str]) -> Iterator[list[str]]:
    """Request lines in groups within the Batch API's limits (requests and bytes per input file)."""
    from judgecal.judge import MAX_FILE_BYTES, MAX_REQUESTS_PER_BATCH  # noqa: PLC0415

    group: list[str] = []
    size = 0
    for line in lines:
        n = len(line.encode()) + 1
        if group and (len(group) >= MAX_REQUESTS_PER_BATCH or size + n > MAX_FILE_BYTES):
            yield group
            group, size = [], 0
        group.append(line)
        size += n
    if group:
        yield group


def _pair_labels(db) -> dict[tuple[str, str], tuple[str, ...]]:
    return {(r.id, c.id): c.labels for r, _, c in ann.semantic_pairs(db)}


def _other_job(db, r: av.RemoteBatch) -> OtherJob:
    row = db.execute("SELECT name, version FROM rubrics WHERE sha256 = ?", [r.rubric_sha256]).fetchone()
    return OtherJob(r.id, f"{row[0]}@{row[1]}" if row else r.rubric_sha256, r.rubric_sha256, r.judge_model,
                    r.endpoint)


def judge_pairs_batch_api(db_path: str | Path, backend: Any, *, rubric: str | Rubric = "strict",
                          repeats: int = DEFAULT_REPEATS, constraint: str | None = None, only_labelled: bool = False,
                          limit: int | None = None, run_id: str | None = None, poll_s: float = 30.0,
                          on_start: Callable[[str, int, Rubric, int, tuple[str, ...]], None] | None = None,
                          on_submit: Callable[[str, int], None] | None = None,
                          on_poll: Callable[[BatchPoll], None] | None = None,
                          on_stop: Callable[[tuple[str, ...]], None] | None = None,
                          sleep: Callable[[float], None] = time.sleep) -> RemoteJudgeResult:
    """`judge_pairs` through the OpenAI Batch API: every request the synchronous judge would send goes into a JSONL
    file (custom_id = the verdict cache key), uploaded and run as Batch API jobs; the results land as ordinary
    verdict rows through the synchronous judge's own reading of an answer, costed at the batch price.

    If this project holds jobs of the same endpoint, model and rubric version whose results are not stored, they are
    polled instead (nothing is submitted): that is how a killed or interrupted run resumes. Polls every `poll_s`
    seconds (`on_poll` for each look). Ctrl+C stops polling, not the jobs: `on_stop(pending ids)` is called, the
    batch is recorded `interrupted`, and a re-run picks them up. A request the results leave out is an error row
    (`batch_expired`, `batch_cancelled`, `batch_failed`, else `batch_missing`), asked again by the next run."""
    from judgecal.judge import (  # noqa: PLC0415
        BATCH_TERMINAL, Answer, BadLine, EndpointError, GoneError, Verdict, plan, read_results, request_line)
    from judgecal.judge import custom_id as custom_id_of, key_of  # noqa: PLC0415

    if repeats < 1:
        raise JobError("repeats must be at least 1")
    if poll_s <= 0:
        raise JobError("the poll interval must be positive")
    endpoint = backend.endpoint
    db_path = Path(db_path)
    with ann.unit_of_work(db_path) as db:
        chosen, version, pairs = _judged_pairs(db, rubric, constraint, only_labelled, limit, run_id)
        price = av.get_price(db, backend.model)
        _refuse_other_settings(db, chosen, version, backend.model, backend.settings())
        pending = av.pending_remote_batches(db, endpoint=endpoint.url, judge_model=backend.model,
                                            rubric_sha256=chosen.sha256)
        # Said, not resumed: a rubric edited between submit and collect left its paid job unmentioned (a review,
        # wave 18). A job of another judge lands under its own key, so only its own flags resume it.
        others = tuple(_other_job(db, r) for r in av.pending_remote_batches(db) if r.id not in {p.id for p in pending})
    settings = backend.settings() | {
        "rubric": chosen.name, "rubric_version": version, "rubric_sha256": chosen.sha256,
        "repeats": repeats, "constraint": constraint, "only_labelled": only_labelled, "limit": limit,
        "pairs": len(pairs), "batch_api": True, "poll_s": poll_s, "resumed": [r.id for r in pending],
        **({"run_id": run_id} if run_id is not None else {}),
    }
    start = time.monotonic()
    resumed = bool(pending)
    unreadable, conflicting = [0], [0]
    left: dict[str, av.RemoteBatch] = {}
    landed: list[str] = []
    with batch(db_path, settings, kind="judge") as b:
        summary = b.summary = BatchSummary()
        if on_start is not None:
            on_start(b.id, len(pairs), chosen, version, tuple(r.id for r in pending))
        # A resumed job lands what it was sent to ask, whatever flags the resuming command has: its requests were
        # chosen when it was submitted (`--only-labelled` left the error rows out then).
        with av.SqliteVerdictSink(db_path, b.id, retry_errors=resumed or not only_labelled) as sink:
            if not resumed:
                tasks = plan(pairs, chosen, backend.model, repeats)
                summary.planned = len(tasks)
                done = sink.done(t.key for t in tasks)
                todo = [t for t in tasks if tuple(t.key) not in done]
                summary.cached = len(tasks) - len(todo)
                mine = []
                for at in range(0, len(todo), CLAIM_CHUNK):  # leased like a synchronous batch's requests
                    chunk = todo[at:at + CLAIM_CHUNK]
                    got = sink.claim([t.key for t in chunk])
                    mine += [t for t in chunk if tuple(t.key) in got]
                    summary.elsewhere += len(chunk) - sum(1 for t in chunk if tuple(t.key) in got)
                lines = [request_line(t.key, backend.request(t.prompt, t.labels)) for t in mine]
                ids = [custom_id_of(t.key) for t in mine]
                at = 0
                for n, group in enumerate(_chunks(lines)):
                    try:
                        file_id = endpoint.upload_batch_file(f"judgecal-{b.id}-{n}.jsonl",
                                                             ("\n".join(group) + "\n").encode())
                        remote = endpoint.create_batch(file_id, metadata={"judgecal_batch": b.id})
                    except EndpointError as exc:  # after the SDK's retries: nothing more can be submitted now
                        raise FatalBackendError(f"submitting the Batch API job failed ({exc.cause}): {exc.detail}"
                                                + (f"; {len(pending)} job(s) submitted before it are kept and "
                                                   "resumed by a re-run" if pending else "")) from None
                    with ann.unit_of_work(db_path) as db:
                        row = av.record_remote_batch(
                            db, remote.id, b.id, endpoint=endpoint.url, judge_model=backend.model,
                            rubric_sha256=chosen.sha256, input_file_id=file_id, status=remote.status,
                            custom_ids=ids[at:at + len(group)])
                    pending.append(row)
                    at += len(group)
                    if on_submit is not None:
                        on_submit(remote.id, len(group))
            else:
                with ann.unit_of_work(db_path) as db:
                    for r in pending:
                        av.update_remote_batch(db, r.id, batch_id=b.id)
                    summary.planned = sum(r.requests for r in pending)
                    asked = [key_of(c) for r in pending for c in av.remote_batch_requests(db, r.id)]
                # Leased while polled, as the submitting batch leases them: a synchronous judge meanwhile asked every
                # pair of a resumed job again (a review, wave 18). Keys another live batch holds stay its own.
                for at in range(0, len(asked), CLAIM_CHUNK):
                    sink.claim(asked[at:at + CLAIM_CHUNK])
            left = {r.id: r for r in pending}
            pair_labels: dict[tuple[str, str], tuple[str, ...]] | None = None

            def land(row: av.RemoteBatch, remote: Any, gone: str | None = None) -> None:
                """Store what the job answered and an error row for each request it did not. `remote` None with
                `gone`: the endpoint no longer has the job (HTTP 404 on its poll)."""
                nonlocal pair_labels
                with ann.unit_of_work(db_path) as db:
                    asked = [key_of(c) for c in av.remote_batch_requests(db, row.id)]
                    if pair_labels is None:
                        pair_labels = _pair_labels(db)
                labels_of = {k: pair_labels[(k.run_record_id, k.constraint_id)] for k in asked
                             if (k.run_record_id, k.constraint_id) in pair_labels}
                texts = []
                for fid in (remote.output_file_id, remote.error_file_id) if remote is not None else ():
                    if not fid:
                        continue
                    try:
                        texts.append(endpoint.download_file(fid).decode("utf-8", "replace"))
                    except GoneError as exc:  # deleted, or past the endpoint's retention: it will never come back
                        gone = str(exc)
                    except EndpointError as exc:  # the job stays pending: a re-run downloads again
                        raise FatalBackendError(f"downloading the results of {row.id} failed ({exc.cause}): "
                                                f"{exc.detail}; re-run to resume") from None
                already = sink.done(labels_of)  # labelled meanwhile (another batch): kept, not overwritten
                # Every result line first, then the verdicts: a request answered twice (an endpoint's retry, a
                # provider's bug) with two different answers is an error row, not whichever line came first.
                answers: dict = {}
                billed = [0, 0]  # the tokens of every answer the job returned: the endpoint bills them, stored or not
                for text in texts:
                    for r in read_results(text, labels_of, endpoint.redact):
                        if isinstance(r, BadLine):
                            unreadable[0] += 1
                            continue
                        billed[0] += r.answer.input_tokens or 0
                        billed[1] += r.answer.output_tokens or 0
                        first = answers.setdefault(r.key, r.answer)
                        if first is not r.answer and (first.label, first.error) != (r.answer.label, r.answer.error):
                            if first.error != "batch_conflict":
                                conflicting[0] += 1
                            # both lines' tokens were billed: the error row carries their sum (cost counts them)
                            tokens = [sum(t or 0 for t in pair) if any(t is not None for t in pair) else None
                                      for pair in ((first.input_tokens, r.answer.input_tokens),
                                                   (first.output_tokens, r.answer.output_tokens))]
                            what = (first.error_detail if first.error == "batch_conflict" else
                                    f"batch {row.id} returned two different answers for this request (first "
                                    f"{first.label or first.error!r}, then {r.answer.label or r.answer.error!r})")
                            answers[r.key] = Answer(None, None, "batch_conflict", what, None, *tokens, None)
                seen = set(answers)
                for key, answer in answers.items():
                    if tuple(key) in already:
                        summary.cached += 1
                        continue
                    sink.save(Verdict.of(key, answer))
                    summary.add(answer)
                    billed[0] -= answer.input_tokens or 0
                    billed[1] -= answer.output_tokens or 0
                # What no stored row counts was billed all the same: answers stored meanwhile (a synchronous judge
                # after a Ctrl+C, a killed landing), a line repeated with the same answer. Left out, a job whose pairs
                # were labelled meanwhile cost nothing in any summary (a review, wave 18).
                summary.input_tokens += billed[0]
                summary.output_tokens += billed[1]
                if gone is not None:
                    # A job or results file the endpoint no longer has stopped every later run at its poll or
                    # download (a review, wave 18): its requests are error rows, which a re-run asks again.
                    cause, what = "batch_gone", (f"the endpoint no longer has batch {row.id} or its results "
                                                 f"({gone}): asked again by a re-run")
                else:
                    cause = _UNANSWERED_CAUSE.get(remote.status, "batch_missing")
                    why = ""
                    if remote.status == "failed" and getattr(remote, "errors", None) and remote.errors.data:
                        why = endpoint.redact(f": {remote.errors.data[0].message}") or ""
                    what = f"batch {row.id} ended {remote.status}{why} without an answer for this request"
                for k in labels_of:
                    if k in seen or tuple(k) in already:
                        continue
                    answer = Answer(None, None, cause, what, None, None, None, None)
                    sink.save(Verdict.of(k, answer))
                    summary.add(answer)
                landed.append(row.id)

            try:
                while left:
                    for rid in list(left):
                        try:
                            remote = endpoint.get_batch(rid)
                        except GoneError as exc:  # the endpoint does not know the job (any more): nothing to wait for
                            # ... if it still knows the job's input file: a 404 for both is also what another
                            # project's or organisation's key gets (ids are scoped to it), and landing it forgot a paid
                            # job, then asked its pairs again (a review of the fix, wave 18)
                            try:
                                endpoint.get_file(left[rid].input_file_id)
                            except GoneError as also:
                                raise FatalBackendError(_not_landed(left[rid], exc, also)) from None
                            except EndpointError as look:  # cannot say now: look again next time
                                if on_poll is not None:
                                    on_poll(BatchPoll(rid, f"unreachable ({look.cause})", 0, 0, left[rid].requests))
                                continue
                            if on_poll is not None:
                                on_poll(BatchPoll(rid, "gone (HTTP 404)", 0, 0, left[rid].requests))
                            land(left.pop(rid), None, str(exc))
                            continue
                        except EndpointError as exc:  # a poll that failed after retries: look again next time
                            if on_poll is not None:
                                on_poll(BatchPoll(rid, f"unreachable ({exc.cause})", 0, 0, left[rid].requests))
                            continue
                        counts = remote.request_counts
                        if on_poll is not None:
                            on_poll(BatchPoll(rid, remote.status, getattr(counts, "completed", 0) or 0,
                                              getattr(counts, "failed", 0) or 0,
                                              getattr(counts, "total", 0) or left[rid].requests))
                        if remote.status != left[rid].status:
                            with ann.unit_of_work(db_path) as db:
                                av.update_remote_batch(db, rid, status=remote.status)
                            left[rid] = left[rid]._replace(status=remote.status)
                        if remote.status in BATCH_TERMINAL:
                            land(left.pop(rid), remote)
                    if left:
                        sleep(poll_s)
            except KeyboardInterrupt:
                summary.interrupted = True
                if on_stop is not None:
                    on_stop(tuple(left))
        # Marked landed once the sink has committed every verdict: a crash before this re-lands (idempotent).
        with ann.unit_of_work(db_path) as db:
            for rid in landed:
                av.update_remote_batch(db, rid, landed=True)
        for verdict, _ in sink.replaced:
            summary.unstored(verdict)
        summary.wall_s = time.monotonic() - start
        if price is not None:
            summary.cost = price.batch_api().cost(summary.input_tokens, summary.output_tokens)
    return RemoteJudgeResult(b.id, b.status, summary, chosen, version, len(pairs),
                             tuple(r.id for r in pending), tuple(left), resumed, unreadable[0], conflicting[0], others)


def _not_landed(row: av.RemoteBatch, gone: Exception, also: Exception) -> str:
    """Why a job the endpoint answers 404 for is kept pending: it does not know the job's input file either."""
    return (f"{gone}; nor does it know the job's input file {row.input_file_id} ({also}): is this the API key "
            f"(project, organisation) and endpoint the job was submitted with? Job {row.id} is kept pending: re-run "
            "with those to land it")


class WrittenRequests(NamedTuple):
    path: Path
    requests: int
    cached: int  # verdicts already stored: not written
    rubric: Rubric
    rubric_version: int | None  # None: the run selected no pair and the rubric was never stored


def write_batch_requests(db_path: str | Path, out: str | Path, *, model: str, rubric: str | Rubric = "strict",
                         repeats: int = DEFAULT_REPEATS, constraint: str | None = None, only_labelled: bool = False,
                         limit: int | None = None, run_id: str | None = None, temperature: float = 0.0,
                         seed: int | None = 0) -> WrittenRequests:
    """The request file `judge --batch` would upload, written to `out` and submitted nowhere: for a self-hosted
    judge (`python -m vllm.entrypoints.openai.run_batch -i FILE -o RESULTS --model MODEL`). Verdicts already
    stored are left out; the rubric is stored as a version of the project, so `import_batch_results` knows it."""
    from judgecal.judge import RequestTask, plan, request_lines  # noqa: PLC0415

    if repeats < 1:
        raise JobError("repeats must be at least 1")
    with ann.unit_of_work(db_path) as db:
        chosen, version, pairs = _judged_pairs(db, rubric, constraint, only_labelled, limit, run_id)
        _refuse_other_settings(db, chosen, version, model, {"temperature": temperature, "seed": seed})
        tasks = plan(pairs, chosen, model, repeats)
        done = av.done_verdict_keys(db, (t.key for t in tasks), retry_errors=not only_labelled)
        todo = [RequestTask(t.key, t.prompt, t.labels) for t in tasks if tuple(t.key) not in done]
        if todo:  # an empty file asks nothing, so it binds no settings (it bound them: a review of the fixes)
            with ann.write(db):
                db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                           [_requests_key(chosen.sha256, model),
                            json.dumps({"temperature": temperature, "seed": seed})])
    out = Path(out)
    with open(out, "w", encoding="utf-8") as f:
        for line in request_lines(todo, model=model, temperature=temperature, seed=seed):
            f.write(line + "\n")
    return WrittenRequests(out, len(todo), len(tasks) - len(todo), chosen, version)


class ImportedResults(NamedTuple):
    batch_id: str
    status: str
    summary: BatchSummary
    lines: int


def import_batch_results(db_path: str | Path, file: str | Path) -> ImportedResults:
    """Store a Batch API results file (OpenAI's output or error file, or vLLM run_batch's `-o` file) as verdict
    rows, read exactly as `judge --batch` reads its downloads. Every line must name a request judgecal could have
    written for this project (custom_id = a verdict key of a stored rubric and a semantic pair), else InputError
    naming file, line and field, and nothing is stored. A failed or unreadable answer is an error row; a verdict
    already stored is kept. Costed at the judge model's stored price (not the Batch API's half: a vLLM run's file
    had no discount, and judgecal cannot tell the two apart)."""
    from judgecal.evalsets import InputError, Problem  # noqa: PLC0415
    from judgecal.judge import BadLine, Verdict, key_of, read_results  # noqa: PLC0415

    path = Path(file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([Problem(str(path), 0, "", f"cannot read: {exc}")]) from None
    import json  # noqa: PLC0415

    problems: list[Problem] = []
    keys = []
    with ann.unit_of_work(db_path) as db:
        pair_labels = _pair_labels(db)
        rubrics = {r.sha256 for r in av.list_rubrics(db)}
        models: set[str] = set()
        for n, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                key = key_of(json.loads(raw).get("custom_id"))
            except (ValueError, AttributeError):
                continue  # read_results below names the problem
            if (key.run_record_id, key.constraint_id) not in pair_labels:
                problems.append(Problem(str(path), n, "custom_id", f"no semantic pair ({key.run_record_id}, "
                                        f"{key.constraint_id}) in the project"))
            elif key.rubric_sha256 not in rubrics:
                problems.append(Problem(str(path), n, "custom_id", f"rubric {key.rubric_sha256[:12]} is not stored in "
                                        "the project (write the requests with judge --batch-requests)"))
            else:
                keys.append(key)
                models.add(key.judge_model)
        prices = {m: av.get_price(db, m) for m in models}
        # the sampling settings the request file was written with (`write_batch_requests`), recorded on this batch so
        # a later judge run at other settings is refused (`_refuse_other_settings`): one judge model and rubric only
        groups = {(k.rubric_sha256, k.judge_model) for k in keys}
        written = None
        if len(groups) == 1:
            (sha, model), = groups
            asked = _requests_written(db, sha, model)
            written = {"model": model, "rubric_sha256": sha, **(json.loads(asked) if asked else {})}
    labels_of = {k: pair_labels[(k.run_record_id, k.constraint_id)] for k in keys}
    results = list(read_results(text, labels_of)) if not problems else []
    seen: set = set()
    for r in results:
        if isinstance(r, BadLine):
            problems.append(Problem(str(path), r.line, r.field, r.message))
        elif r.key in seen:
            problems.append(Problem(str(path), r.line, "custom_id", "a second result for the same request"))
        else:
            seen.add(r.key)
    if problems or not text.strip():
        raise InputError(problems or [Problem(str(path), 0, "", "empty file")])
    settings = {"batch_results": path.name, "judge_models": sorted(models), "lines": len(results), **(written or {})}
    start = time.monotonic()
    with batch(db_path, settings, kind="judge") as b:
        summary = b.summary = BatchSummary(planned=len(results))
        with av.SqliteVerdictSink(db_path, b.id) as sink:
            already = sink.done(labels_of)
            for r in results:
                if tuple(r.key) in already:
                    summary.cached += 1
                    continue
                sink.save(Verdict.of(r.key, r.answer))
                summary.add(r.answer)
        for verdict, _ in sink.replaced:
            summary.unstored(verdict)
        summary.wall_s = time.monotonic() - start
        # At the stored price, as `report --compare` costs these rows: nothing tells a file the Batch API billed at
        # half from a self-hosted run's, which had no discount (it was costed at half: a review, wave 18).
        if len(models) == 1 and (price := prices[next(iter(models))]) is not None:
            summary.cost = price.cost(summary.input_tokens, summary.output_tokens)
    return ImportedResults(b.id, b.status, summary, len(results))


# --------------------------------------------------------------------------- bias probes (issue 15.3)

__all__ += ["ProbeRun", "run_probe"]


class ProbeRun(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted (see `batch`)
    summary: BatchSummary
    rubric: Rubric
    rubric_version: int
    kind: str
    pairs: int
    result: Any  # annotations ProbeResult of this rubric version × judge model (None: nothing answered yet)


def _probe_settings(db, rubric_sha256: str, model: str, *, recorded: bool = False) -> list[tuple[str, str]]:
    """(batch id, the judge's sampling settings as JSON) of the probe batches whose answers of this judge model under
    this rubric version are stored (any probe kind); `recorded`: only batches that recorded the judge's settings
    (`PROBE_SAMPLING`, wave 17 on)."""
    return [(batch_id or "a probe batch", json.dumps(av.probe_sampling(settings)))
            for rows in av.probe_batch_settings(db, rubric_sha256, model).values() for batch_id, settings in rows
            if not recorded or f'"{av.PROBE_SAMPLING}"' in (settings or "")]


def _wording(text: str) -> str:
    """A rubric text in NFKC with format characters (zero-width spaces, joiners, soft hyphens: category Cf) removed,
    runs of whitespace collapsed, stripped and case-folded: two texts equal here say the same words, so one is no
    paraphrase of the other (a copy with one zero-width space passed: a review of the fix)."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")
    return " ".join(text.split()).casefold()


def _refuse_other_probe_settings(db, rubric: Rubric, version: int, model: str, kind: str,
                                 sampling: dict[str, Any]) -> None:
    """JobError when this probe would ask this judge model under this rubric version with other sampling settings
    than (1) the judge batches that bind it (`_binding_batches`: a probe stands in for those verdicts at the gate, so
    a probe at temperature 0 passed `--max-injection-flip` for a judge asked at 1.0, a review in wave 17; position
    probes pairwise pairs of both kinds, so both kinds of judge batch bind it), or (2) the stored answers of this
    judge model's probes under this version (the probe cache is keyed without settings: a probe at 1.0 after one at
    0 asked nothing and kept the answers at 0). Probe batches written before wave 17 recorded the judge's
    temperature but not its seed: only the temperature is compared with them."""
    what = f"{model} under {rubric.name} v{version}"
    binding = _binding_batches(db, rubric.sha256, model) + (
        _binding_batches(db, rubric.sha256, model, pairwise=True) if kind == "position" else [])
    _refuse_other_settings_of(binding, sampling, lambda batch_id, had, asked: (
        f"the verdicts of {what} were asked with {had} ({batch_id}); this probe asks {asked}. A probe stands in "
        "for those verdicts at the gate, so it must ask the judge as they were asked: probe with the stored "
        "settings (--temperature, --judge-seed or --no-seed)"))
    _refuse_other_settings_of(_probe_settings(db, rubric.sha256, model), sampling, lambda batch_id, had, asked: (
        f"the stored probe answers of {what} were asked with {had} ({batch_id}); this probe asks {asked}. The "
        "probe's stored answers are not asked again, so it would report them as answers at these settings: "
        "probe with the stored settings, or under another model name the endpoint serves"))


def run_probe(db_path: str | Path, backend: Any, kind: str, *, rubric: str | Rubric = "strict",
              sample: int | None = None, seed: int = 0, constraint: str | None = None,
              paraphrases: Sequence[str | Rubric] = (), concurrency: int = DEFAULT_CONCURRENCY,
              progress: Progress | bool | None = None, grace_s: float | None = None,
              on_start: Callable[[str, int, Rubric, int], None] | None = None,
              on_stop: Callable[[int], None] | None = None) -> ProbeRun:
    """Probe the judge by controlled perturbation (`kind` in judge.PROBE_KINDS) on the counted pairs the probe
    applies to (or `sample` of them, drawn with `seed`), as one judge batch: the judge itself answers each pair's
    baseline and perturbed prompts; answers already stored are not asked again, error rows are, a killed batch
    resumes. Stored per rubric version in `probe_verdicts`; returns the probe's result. `paraphrases`
    (consistency): rubric files or Rubrics; default: the shipped paraphrases of a shipped rubric. Errors and
    callbacks as `judge_pairs`."""
    from judgecal.annotations.reports import probe_results, probe_targets  # noqa: PLC0415
    from judgecal.judge import PROBE_KINDS, ProbePair, paraphrases_of, plan_probe, probe_variants  # noqa: PLC0415

    if kind not in PROBE_KINDS:
        raise JobError(f"unknown probe {kind!r}: one of {', '.join(PROBE_KINDS)}")
    if concurrency < 1:
        raise JobError("concurrency must be at least 1")
    if sample is not None and sample < 1:
        raise JobError("--sample must be at least 1")
    if paraphrases and kind != "consistency":
        raise JobError("paraphrases belong to the consistency probe")
    db_path = Path(db_path)
    with ann.unit_of_work(db_path) as db:
        chosen = rubric if isinstance(rubric, Rubric) else resolve_rubric(db, rubric)
        alternatives: list[Rubric] = []
        for p in paraphrases:
            alt = p if isinstance(p, Rubric) else resolve_rubric(db, p)
            if alt.sha256 == chosen.sha256:
                raise JobError(f"paraphrase {alt.name!r} is the probed rubric itself, not a paraphrase")
            if _wording(alt.template) == _wording(chosen.template):
                # the rubric plus two newlines passed as a "paraphrase" and showed a wording-sensitive judge as
                # consistent (a review, wave 17); nearer copies are not judged here: the gate names each one's hash
                raise JobError(f"paraphrase {p if isinstance(p, str) else alt.name!r} has the probed rubric's text "
                               f"(the same words once whitespace and case are ignored): a paraphrase rewords it")
            alternatives.append(alt)
        if kind == "consistency" and not alternatives:
            alternatives = paraphrases_of(chosen)
            if not alternatives:
                raise JobError(f"rubric {chosen.name!r} has no shipped paraphrases: give --paraphrase FILE (a "
                               "rewording of the rubric with the same placeholders), once per paraphrase")
        try:
            targets = probe_targets(db, kind, sample=sample, seed=seed, constraint=constraint)
        except ValueError as exc:
            raise JobError(str(exc)) from None
        stored = av.store_rubric(db, chosen.name, chosen.template, chosen.sha256, chosen.note)
        sampling = {k: backend.settings().get(k) for k in SAMPLING_SETTINGS}
        _refuse_other_probe_settings(db, chosen, stored.version, backend.model, kind, sampling)
        price = av.get_price(db, backend.model)
    variants = probe_variants(kind, alternatives)
    try:
        tasks = plan_probe(kind, [ProbePair(*t) for t in targets], chosen, backend.model, paraphrases=alternatives)
    except ValueError as exc:
        raise JobError(str(exc)) from None
    settings = backend.settings() | {
        "probe": kind, "variants": list(variants), "rubric": chosen.name, "rubric_version": stored.version,
        "rubric_sha256": chosen.sha256, "concurrency": concurrency, "constraint": constraint, "sample": sample,
        "seed": seed, "pairs": len(targets), av.PROBE_SAMPLING: sampling,
        **({"paraphrases": [a.sha256 for a in alternatives]} if alternatives else {}),
    }  # "seed" is the --sample draw's: the judge's seed is under "sampling"
    with batch(db_path, settings, kind="probe") as b:
        if on_start is not None:
            on_start(b.id, len(targets), chosen, stored.version)
        with ann.SqliteProbeSink(db_path, b.id, kind, variants) as sink:
            b.summary = run_batch([], chosen, backend, sink, concurrency=concurrency, tasks=tasks,
                                  price=tuple(price) if price else None, progress=progress, grace_s=grace_s,
                                  on_stop=on_stop)
        for verdict, _ in sink.replaced:
            b.summary.unstored(verdict)
    with ann.unit_of_work(db_path) as db:
        found = [r for r in probe_results(db, rubric=chosen.sha256, model=backend.model) if r.probe == kind]
    return ProbeRun(b.id, b.status, b.summary, chosen, stored.version, kind, len(targets),
                    found[0] if found else None)
