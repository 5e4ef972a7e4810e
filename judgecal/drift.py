"""Use case: re-judge a frozen anchor set and report the drift (issue 15.6). Needs both the judge and the project
store, so it lives beside `judgecal.jobs` and uses its one batch life cycle (`jobs.batch`) and the judge's one batch
runner (`run_batch`); only the sink differs: `SqliteDriftSink` keys every verdict by the drift run's nonce, so the
judge is really asked again (the project's verdicts cache would answer from the stored verdicts) and the answers
never enter the calibration report. A killed or interrupted drift run is resumed by the next call with the same
anchor, judge, rubric, repeats and baseline; a finished one is history and the next call starts a new run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NamedTuple

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.jobs import JobError, batch, resolve_rubric
from judgecal.judge import DEFAULT_CONCURRENCY, BatchSummary, Progress, Rubric, run_batch

__all__ = ["DriftResult", "run_drift"]


class DriftResult(NamedTuple):
    batch_id: str
    status: str  # done | failed | interrupted (see jobs.batch)
    summary: BatchSummary
    drift_run: str
    resumed: bool  # an unfinished drift run was picked up
    finished: bool  # the run is complete and stored in the history
    report: Any  # annotations DriftReport


def _baseline(db, anchor: av.AnchorRow, model: str, chosen: Rubric | None, baseline_model: str | None,
              baseline_rubric: str | None) -> ann.Baseline:
    """The frozen judge model × rubric version the re-judge is compared with: the one named by the baseline flags,
    else the one of the same model (and rubric, when given) as now, else the only one frozen. Ambiguity is an
    error that lists the choices, never a silent pick."""
    baselines = ann.anchor_baselines(db, anchor.id)
    if not baselines:
        raise JobError(f"anchor {anchor.name} was frozen without judge verdicts on its pairs: judge them "
                       "(judgecal judge), then freeze a new anchor")
    base_sha = None
    if baseline_rubric is not None:
        row = av.get_rubric(db, baseline_rubric)
        if row is None:
            raise JobError(f"unknown --baseline-rubric {baseline_rubric!r}")
        base_sha = row.sha256
    names = {r.sha256: f"{r.name} v{r.version}" for r in av.list_rubrics(db)}

    def show(bs: list[ann.Baseline]) -> str:
        return "; ".join(f"{b.judge_model} with rubric {names.get(b.rubric_sha256, b.rubric_sha256[:12])} "
                         f"({b.pairs} pairs)" for b in bs)

    candidates = [b for b in baselines if (baseline_model is None or b.judge_model == baseline_model)
                  and (base_sha is None or b.rubric_sha256 == base_sha)]
    if not candidates:
        raise JobError(f"anchor {anchor.name} has no frozen verdicts of that baseline; it has: {show(baselines)}")
    same = [b for b in candidates if b.judge_model == model and (chosen is None or b.rubric_sha256 == chosen.sha256)]
    pick = same or candidates
    if len(pick) > 1:
        raise JobError(f"anchor {anchor.name} holds verdicts of several judges or rubric versions: {show(pick)}; "
                       "give --baseline-model and/or --baseline-rubric")
    return pick[0]


def run_drift(db_path: str | Path, backend: Any, *, anchor: str | None = None, rubric: str | Rubric | None = None,
              baseline_model: str | None = None, baseline_rubric: str | None = None, repeats: int | None = None,
              concurrency: int = DEFAULT_CONCURRENCY, progress: Progress | bool | None = None,
              grace_s: float | None = None,
              on_start: Callable[[str, str, int, bool], None] | None = None,
              on_stop: Callable[[int], None] | None = None) -> DriftResult:
    """Re-judge the anchor (`anchor` by name; the latest frozen one when None) with `backend` and `rubric` (default:
    the baseline's rubric version) `repeats` times per pair (default: as many as the baseline had), as one batch,
    and report the drift against the baseline's frozen verdicts.

    `on_start(batch_id, drift_run_id, pairs, resumed)` once the batch is recorded. Raises JobError before anything
    is stored (unknown anchor, no frozen verdicts, ambiguous baseline, bad rubric), BatchStopped on a fatal error."""
    if concurrency < 1 or (repeats is not None and repeats < 1):
        raise JobError("repeats and concurrency must be at least 1")
    db_path = Path(db_path)
    with ann.unit_of_work(db_path) as db:
        found = av.get_anchor(db, anchor)
        if found is None:
            known = [a.name for a in av.list_anchors(db)]
            raise JobError(f"no anchor named {anchor!r}; frozen anchors: {', '.join(known)}" if anchor and known else
                           f"no anchor named {anchor!r}: none is frozen yet (judgecal anchor freeze)" if anchor else
                           "no anchor frozen yet: freeze one from the labelled review sample (judgecal anchor freeze)")
        pairs_of = av.anchor_pairs(db, found.id)
        if not pairs_of:
            raise JobError(f"anchor {found.name} has no labelled pairs")
        chosen = None
        if rubric is not None:
            chosen = rubric if isinstance(rubric, Rubric) else resolve_rubric(db, rubric)
        base = _baseline(db, found, backend.model, chosen, baseline_model, baseline_rubric)
        if chosen is None:
            try:
                chosen = resolve_rubric(db, base.rubric_sha256)
            except JobError as exc:
                raise JobError(f"{exc}: give --rubric (the baseline's rubric cannot be sent again)") from None
        stored = av.store_rubric(db, chosen.name, chosen.template, chosen.sha256, chosen.note)
        repeats = repeats or base.repeats
        wanted = {(p.run_record_id, p.constraint_id) for p in pairs_of}
        pairs = [p for p in ann.semantic_pairs(db) if (p[0].id, p[2].id) in wanted]
        opened = av.open_drift_run(db, found.id, judge_model=backend.model, rubric_sha256=chosen.sha256,
                                   repeats=repeats, baseline_model=base.judge_model,
                                   baseline_sha256=base.rubric_sha256)
        price = av.get_price(db, backend.model)
    run = opened.run
    settings = backend.settings() | {
        "rubric": chosen.name, "rubric_version": stored.version, "rubric_sha256": chosen.sha256, "repeats": repeats,
        "concurrency": concurrency, "anchor": found.name, "drift_run": run.id, "pairs": len(pairs),
        "baseline_model": base.judge_model, "baseline_sha256": base.rubric_sha256,
    }
    with batch(db_path, settings, kind="drift") as b:
        if on_start is not None:
            on_start(b.id, run.id, len(pairs), opened.resumed)
        with av.SqliteDriftSink(db_path, run.id, b.id) as sink:
            b.summary = run_batch(pairs, chosen, backend, sink, repeats=repeats, concurrency=concurrency,
                                  price=tuple(price) if price else None, progress=progress, grace_s=grace_s,
                                  on_stop=on_stop)
        for verdict, _ in sink.replaced:
            b.summary.unstored(verdict)
    # Finished only when this batch asked everything itself: keys left to another live batch on the same run are
    # still coming, and a history row must not be cut short by it.
    finish = b.status == "done" and not b.summary.elsewhere
    with ann.unit_of_work(db_path) as db:
        report = ann.drift_report(db, run.id)
        if finish:
            av.finish_drift_run(db, run.id, report.as_dict() | {"finished": True})
            report = ann.drift_report(db, run.id)
    return DriftResult(b.id, b.status, b.summary, run.id, opened.resumed, report.finished, report)
