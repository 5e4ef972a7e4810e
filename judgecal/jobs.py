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

import os
import sqlite3
import threading
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
from judgecal.runner import RunSettings, RunSummary, run_models

__all__ = [
    "Batch", "BatchStopped", "JobError", "JudgeResult", "PairwiseResult", "RunResult", "batch", "judge_pairs",
    "judge_pairwise", "resolve_rubric",
    "run_evalset",
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


class JudgeResult(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted (see `batch`)
    summary: BatchSummary
    rubric: Rubric
    rubric_version: int
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
        in_run = None
        if run_id is not None:  # `run_id`: only that run's pairs; checked before anything is stored
            try:
                in_run = require_run(db, run_id)
            except ValueError as exc:
                raise JobError(str(exc)) from None
        chosen = rubric if isinstance(rubric, Rubric) else resolve_rubric(db, rubric)
        stored = av.store_rubric(db, chosen.name, chosen.template, chosen.sha256, chosen.note)
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
        price = av.get_price(db, backend.model)
    settings = backend.settings() | {
        "rubric": chosen.name, "rubric_version": stored.version, "rubric_sha256": chosen.sha256,
        "repeats": repeats, "concurrency": concurrency, "constraint": constraint,
        "only_labelled": only_labelled, "limit": limit, "pairs": len(pairs),
        **({"run_id": run_id} if run_id is not None else {}),
    }
    with batch(db_path, settings, kind="judge") as b:
        if on_start is not None:
            on_start(b.id, len(pairs), chosen, stored.version)
        if not pairs:
            b.summary = BatchSummary()
        else:
            with av.SqliteVerdictSink(db_path, b.id) as sink:
                b.summary = run_batch(pairs, chosen, backend, sink, repeats=repeats, concurrency=concurrency,
                                      price=tuple(price) if price else None, progress=progress, grace_s=grace_s,
                                      on_stop=on_stop)
            for verdict, _ in sink.replaced:  # complete once the sink is closed: report what was stored
                b.summary.unstored(verdict)
    with ann.unit_of_work(db_path) as db:
        flipped = sum(1 for r in av.judge_consistency(db, chosen.sha256, backend.model) if r.flipped)
    return JudgeResult(b.id, b.status, b.summary, chosen, stored.version, len(pairs), flipped)


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
    if not items:
        raise JobError("no eval items in the project: import an eval set first (judgecal import evalset FILE)")
    record = settings.as_dict() | backend.settings() | {"items": len(items)}
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
        stored = av.store_rubric(db, chosen.name, chosen.template, chosen.sha256, chosen.note)
        price = av.get_price(db, backend.model)
    tasks = plan_pairwise([PairwiseTask(p.record, p.item, p.item.constraints[0], p.output_a, p.output_b)
                           for p in stored_pairs], chosen, backend.model, repeats)
    settings = backend.settings() | {
        "rubric": chosen.name, "rubric_version": stored.version, "rubric_sha256": chosen.sha256,
        "repeats": repeats, "concurrency": concurrency, "pairwise": [run_a, run_b], "pairs": len(stored_pairs),
    }
    with batch(db_path, settings, kind="judge") as b:
        if on_start is not None:
            on_start(b.id, len(stored_pairs), chosen, stored.version)
        with av.SqliteVerdictSink(db_path, b.id) as sink:
            b.summary = run_batch([], chosen, backend, sink, concurrency=concurrency, tasks=tasks,
                                  price=tuple(price) if price else None, progress=progress, grace_s=grace_s,
                                  on_stop=on_stop)
    with ann.unit_of_work(db_path) as db:
        report = pairwise_report(db, run_a, run_b, chosen.sha256, backend.model)
    return PairwiseResult(b.id, b.status, b.summary, chosen, len(stored_pairs), report)


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
        price = av.get_price(db, backend.model)
    variants = probe_variants(kind, alternatives)
    try:
        tasks = plan_probe(kind, [ProbePair(*t) for t in targets], chosen, backend.model, paraphrases=alternatives)
    except ValueError as exc:
        raise JobError(str(exc)) from None
    settings = backend.settings() | {
        "probe": kind, "variants": list(variants), "rubric": chosen.name, "rubric_version": stored.version,
        "rubric_sha256": chosen.sha256, "concurrency": concurrency, "constraint": constraint, "sample": sample,
        "seed": seed, "pairs": len(targets),
        **({"paraphrases": [a.sha256 for a in alternatives]} if alternatives else {}),
    }
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
