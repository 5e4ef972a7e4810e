"""Drift: freeze an anchor set, and report how a re-judging of it moved against the verdicts it was frozen with.

Rules (docs/decisions.md "Drift (issue 15.6)"):

- An anchor is a seeded random subset of the counted pairs (`counted_pairs`: random sample, blind first labels, the
  labelled prefix of the committed draw order; `judge --pairwise` pair records left out, they are judged in both
  orders by their own batch): a pair's rank is sha256(seed | run record | constraint), a function
  of nothing a user controls but the seed. Without `size` the anchor is every counted pair (no choice at all). The
  seed is recorded, and whether it was given or drawn at random.
- The human label of an anchor pair is the blind first label of the reviewer who labelled it first (as in the
  calibration report), frozen with the anchor: the kappa change measures the judge, never a relabelling.
- Judge label of a pair = the strict majority over its repeats; a tie or no valid repeat is `abstain` (the
  calibration report's rule). A pair FLIPS when the re-judge's label differs from the frozen one, and also whenever
  the re-judge has no valid answer at all (every repeat an error row, or not asked): an error is never a label, and
  an unanswered pair cannot show the judge is stable. Those are counted apart as `unanswered` as well; the flip rate
  among answered pairs is shown beside the headline.
- Anchor pairs the baseline (judge model × rubric version) had not judged at freeze time are counted
  (`no_baseline`) and left out of the flip rate and both kappas: there is nothing they could flip from.
- Limits decide on the conservative bound: the flip rate passes only when its exact (Clopper–Pearson) upper bound is
  within `max_flip_rate`, the kappa drop only when the upper bound of the drop's paired bootstrap interval is within
  `max_kappa_drop`; `on="point"` compares the point estimates instead. An undefined number fails its limit.
- A run can be repeated until one passes, so the flip-rate limit must also pass on the flips pooled over the run and
  every earlier finished run of the same anchor × judge model × rubric version (`drift_pool`, `max_flip_rate_pooled`).
  A new judge model or rubric version is a new key with its own pool.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Sequence

import sqlite_utils

from judgecal.annotations.reports._calibration import ABSTAIN, human_labels_by_pair
from judgecal.annotations.reports._pairwise import PAIR_RUN_PREFIX, Proportion, clopper_pearson
from judgecal.annotations.review import counted_pairs
from judgecal.annotations.stats import KappaChange, paired_kappa_change, pooled_kappa_change
from judgecal.annotations.store import (AnchorPair, AnchorRow, anchor_pairs, anchor_verdicts, drift_verdicts,
                                        get_anchor, get_drift_run, insert_anchor, list_anchors, list_drift_runs,
                                        list_rubrics, majority_label)

UNANSWERED = "(no answer)"  # the re-judge's label of a pair whose repeats all failed or were not asked


def anchor_rank(seed: int, run_record_id: str, constraint_id: str) -> str:
    """A pair's place in an anchor draw: depends on the seed and the pair's ids only (never on labels or verdicts)."""
    return hashlib.sha256(f"{seed}|{run_record_id}|{constraint_id}".encode()).hexdigest()


def freeze_anchor(db: sqlite_utils.Database, name: str | None = None, *, size: int | None = None,
                  seed: int | None = None) -> AnchorRow:
    """Freeze a new anchor: `size` counted pairs drawn by `seed` (all counted pairs when `size` is None; a random
    seed when `seed` is None), with their human labels and every judge verdict row they have now.
    ValueError (nothing written) when there are no counted pairs, `size` exceeds them, the name is taken, blank or
    padded with whitespace, or the seed is not an integer SQLite can store."""
    if name is not None and (not name.strip() or name != name.strip()):
        raise ValueError(f"--name {name!r}: an anchor name must not be blank or begin or end with whitespace")
    if seed is not None and not 0 <= seed <= 2 ** 63 - 1:
        raise ValueError(f"--seed {seed}: an anchor's seed is an integer from 0 to {2 ** 63 - 1} (SQLite's)")
    # `judge --pairwise` pair records are judged in both orders by their own batch (repeat 2r shown A first, 2r+1 B
    # first); a plain re-judge would ask one order only, so they are not anchor material.
    pairwise = {r for (r,) in db.execute("SELECT id FROM run_records WHERE run_id LIKE ?", [PAIR_RUN_PREFIX + "%"])}
    counted = sorted(p for p in counted_pairs(db).pairs if p[0] not in pairwise)
    if not counted:
        raise ValueError("no counted pairs to freeze: an anchor is drawn from the random review sample's pairs with "
                         "a blind first label (judgecal sample, then label them in the app); none are labelled yet")
    if size is not None and size < 1:
        raise ValueError("--size must be at least 1")
    if size is not None and size > len(counted):
        raise ValueError(f"--size {size}: there are only {len(counted)} counted pairs to draw from")
    seed_given = seed is not None
    seed = seed if seed is not None else secrets.randbelow(2 ** 31)
    humans = human_labels_by_pair(db)
    chosen = sorted(counted, key=lambda p: anchor_rank(seed, p[0], p[1]))[:size or len(counted)]
    pairs = [AnchorPair(p[0], p[1], humans[(p[0], p[1])][0]["label"], humans[(p[0], p[1])][0]["reviewer"])
             for p in chosen]
    if name is None:
        taken = {a.name for a in list_anchors(db)}
        name = next(f"anchor-{i}" for i in range(1, len(taken) + 2) if f"anchor-{i}" not in taken)
    return insert_anchor(db, name, seed=seed, seed_given=seed_given, counted=len(counted), pairs=pairs)


@dataclass(frozen=True)
class Baseline:
    """One judge model × rubric version frozen with an anchor: how many anchor pairs it had judged, with how many
    repeats at most."""

    judge_model: str
    rubric_sha256: str
    pairs: int
    repeats: int


def anchor_baselines(db: sqlite_utils.Database, anchor_id: int) -> list[Baseline]:
    """The judge model × rubric versions whose verdicts were frozen with the anchor, most anchor pairs first."""
    pairs: dict[tuple[str, str], set] = defaultdict(set)
    repeats: Counter = Counter()
    for v in anchor_verdicts(db, anchor_id):
        pairs[(v.judge_model, v.rubric_sha256)].add((v.run_record_id, v.constraint_id))
        repeats[(v.judge_model, v.rubric_sha256)] = max(repeats[(v.judge_model, v.rubric_sha256)], v.repeat + 1)
    out = [Baseline(m, s, len(ps), repeats[(m, s)]) for (m, s), ps in pairs.items()]
    return sorted(out, key=lambda b: (-b.pairs, b.judge_model, b.rubric_sha256))


def _judge_label(labels: Sequence[str]) -> str:
    return majority_label(labels) or ABSTAIN


def _drop(kappa: KappaChange | None) -> tuple[float, float, float]:
    if kappa is None:
        return (math.nan, math.nan, math.nan)
    return (0.0 - kappa.change, 0.0 - kappa.high, 0.0 - kappa.low)  # 0.0 - x: never a printed -0.000


@dataclass(frozen=True)
class FlippedPair:
    run_record_id: str
    constraint_id: str
    human: str
    before: str
    after: str


@dataclass(frozen=True)
class DriftReport:
    anchor: str
    drift_run: str
    judge_model: str
    rubric_sha256: str
    rubric: str  # name vN
    baseline_model: str
    baseline_sha256: str
    baseline_rubric: str
    repeats: int
    anchor_pairs: int
    compared: int  # anchor pairs with a frozen baseline verdict row
    no_baseline: int  # anchor pairs the baseline had not judged at freeze: not in the flip rate or the kappas
    flips: Proportion  # of compared; unanswered pairs count as flips
    label_flips: Proportion  # of answered pairs: the label changed
    unanswered: int  # compared pairs without a valid re-judge answer (every repeat an error row, or not asked)
    transitions: dict[str, int]  # "before -> after": pairs
    flipped: tuple[FlippedPair, ...]
    kappa: KappaChange | None  # None when nothing was compared
    finished: bool
    # each compared pair's (human label, judge label at freeze, judge label now or ABSTAIN, answered now), in anchor
    # order: what a pool of runs reads for its kappa (`drift_pool`)
    labels: tuple[tuple[str, str, str, bool], ...] = field(default=(), repr=False, compare=False)

    @property
    def kappa_drop(self) -> tuple[float, float, float]:
        """Kappa at freeze minus kappa now, with the drop's interval (the change's interval, negated)."""
        return _drop(self.kappa)

    def as_dict(self) -> dict[str, Any]:
        def prop(p: Proportion) -> dict[str, Any]:
            return {"k": p.k, "n": p.n, "rate": p.rate, "ci_low": p.low, "ci_high": p.high,
                    "method": "exact (Clopper-Pearson) 95%"}

        def num(x: float) -> float | None:
            return None if x is None or not math.isfinite(x) else round(x, 6)

        def kp(p: Any) -> dict[str, Any]:
            return {"kappa": num(p.kappa), "ci_low": num(p.low), "ci_high": num(p.high), "n": p.n,
                    "reason": p.reason, "method": p.method}

        k = self.kappa
        drop = self.kappa_drop
        return {
            "anchor": self.anchor, "drift_run": self.drift_run, "judge_model": self.judge_model,
            "rubric_sha256": self.rubric_sha256, "rubric": self.rubric, "baseline_model": self.baseline_model,
            "baseline_sha256": self.baseline_sha256, "baseline_rubric": self.baseline_rubric, "repeats": self.repeats,
            "anchor_pairs": self.anchor_pairs, "compared": self.compared, "no_baseline": self.no_baseline,
            "flip_rate": prop(self.flips), "label_flip_rate": prop(self.label_flips), "unanswered": self.unanswered,
            "unanswered_rule": "counted as flips (an error is never a label)",
            "transitions": self.transitions,
            "flipped": [{"run_record_id": f.run_record_id, "constraint_id": f.constraint_id, "human": f.human,
                         "before": f.before, "after": f.after} for f in self.flipped],
            "kappa_at_freeze": kp(k.before) if k else None, "kappa_now": kp(k.after) if k else None,
            "kappa_change": ({"change": num(k.change), "ci_low": num(k.low), "ci_high": num(k.high),
                              "method": k.method, "n_resamples": k.n_resamples} if k else None),
            "kappa_drop": _drop_dict(drop),
            "finished": self.finished,
        }

    def format(self) -> str:
        def kp(p: Any) -> str:
            if not math.isfinite(p.kappa):
                return f"undefined ({p.reason})"
            if math.isfinite(p.low) and math.isfinite(p.high):
                return f"{p.kappa:.3f} [{p.low:.2f}, {p.high:.2f}]"
            bound = [format(x, ".2f") if math.isfinite(x) else "-" for x in (p.low, p.high)]  # as `drift --history`
            return f"{p.kappa:.3f} [{bound[0]}, {bound[1]}]" + (f" ({p.reason})" if p.reason else "")

        lines = [
            f"drift of anchor {self.anchor} ({self.anchor_pairs} pairs), run {self.drift_run}"
            + ("" if self.finished else " — NOT FINISHED (re-run to resume)"),
            f"judge now:   {self.judge_model}, rubric {self.rubric} ({self.rubric_sha256[:12]}), {self.repeats} repeats",
            f"anchor with: {self.baseline_model}, rubric {self.baseline_rubric} ({self.baseline_sha256[:12]}) at freeze",
            f"compared: {self.compared} pairs"
            + (f"; {self.no_baseline} anchor pairs had no frozen verdict of that judge and rubric (left out)"
               if self.no_baseline else ""),
            f"flip rate:   {self.flips.format()}" + (f" — includes {self.unanswered} unanswered (every repeat an "
                                                     "error row), counted as flips" if self.unanswered else ""),
            f"  label changed among answered pairs: {self.label_flips.format()}",
        ]
        if self.transitions:
            lines.append("  " + ", ".join(f"{k}: {v}" for k, v in sorted(self.transitions.items())))
        k = self.kappa
        if k is not None:
            lines += [
                f"kappa vs humans at freeze: {kp(k.before)}",
                f"kappa vs humans now:       {kp(k.after)}",
                (f"kappa change: {k.change:+.3f} [{k.low:+.2f}, {k.high:+.2f}] ({k.method}, {k.n_resamples} resamples)"
                 if math.isfinite(k.low) else "kappa change: undefined"),
            ]
        for f in self.flipped[:20]:
            lines.append(f"  flipped {f.run_record_id} · {f.constraint_id}: {f.before} -> {f.after} (human: {f.human})")
        if len(self.flipped) > 20:
            lines.append(f"  ... and {len(self.flipped) - 20} more (--json lists all)")
        return "\n".join(lines)


def _rubric_names(db: sqlite_utils.Database) -> dict[str, str]:
    return {r.sha256: f"{r.name} v{r.version}" for r in list_rubrics(db)}


def drift_report(db: sqlite_utils.Database, drift_run_id: str, *, kappa: bool = True) -> DriftReport:
    """The drift of one drift run against its anchor's frozen baseline (see the module docstring). ValueError for an
    unknown run id. `kappa=False`: without the kappa change (None), whose bootstrap is most of a report's time: what
    `drift_pool` reads of each earlier run is its labels (~0.3 s a run saved, a year of nightly runs ~2 min: a
    review, wave 18)."""
    run = get_drift_run(db, drift_run_id)
    if run is None:
        raise ValueError(f"no drift run {drift_run_id!r}")
    anchor = next(a for a in list_anchors(db) if a.id == run.anchor_id)
    pairs = anchor_pairs(db, anchor.id)
    before: dict[tuple[str, str], list[str]] = defaultdict(list)
    has_base: set[tuple[str, str]] = set()
    for v in anchor_verdicts(db, anchor.id, judge_model=run.baseline_model, rubric_sha256=run.baseline_sha256):
        has_base.add((v.run_record_id, v.constraint_id))
        if v.label is not None:
            before[(v.run_record_id, v.constraint_id)].append(v.label)
    after: dict[tuple[str, str], list[str]] = defaultdict(list)
    for v in drift_verdicts(db, run.id):
        if v.label is not None:
            after[(v.run_record_id, v.constraint_id)].append(v.label)
    humans, old, new = [], [], []
    answers: list[bool] = []
    transitions: Counter = Counter()
    flipped: list[FlippedPair] = []
    flips = label_flips = unanswered = 0
    for p in pairs:
        key = (p.run_record_id, p.constraint_id)
        if key not in has_base:
            continue
        b = _judge_label(before[key])
        answered = bool(after[key])
        a = _judge_label(after[key]) if answered else UNANSWERED
        humans.append(p.human_label)
        old.append(b)
        new.append(a if answered else ABSTAIN)  # for kappa, a pair without an answer is the judge's abstain
        answers.append(answered)
        if not answered:
            unanswered += 1
        elif a != b:
            label_flips += 1
        if a != b:
            flips += 1
            transitions[f"{b} -> {a}"] += 1
            flipped.append(FlippedPair(p.run_record_id, p.constraint_id, p.human_label, b, a))
    compared = len(humans)
    names = _rubric_names(db)
    return DriftReport(
        anchor=anchor.name, drift_run=run.id, judge_model=run.judge_model, rubric_sha256=run.rubric_sha256,
        rubric=names.get(run.rubric_sha256, run.rubric_sha256[:12]), baseline_model=run.baseline_model,
        baseline_sha256=run.baseline_sha256, baseline_rubric=names.get(run.baseline_sha256, run.baseline_sha256[:12]),
        repeats=run.repeats, anchor_pairs=len(pairs), compared=compared, no_baseline=len(pairs) - compared,
        flips=clopper_pearson(flips, compared), label_flips=clopper_pearson(label_flips, compared - unanswered),
        unanswered=unanswered, transitions=dict(transitions), flipped=tuple(flipped),
        kappa=paired_kappa_change(humans, old, new) if compared and kappa else None,
        finished=run.finished_at is not None,
        labels=tuple(zip(humans, old, new, answers)))


# --------------------------------------------------------------------------- limits (the CI exit code)


@dataclass(frozen=True)
class PooledRun:
    drift_run: str
    finished_at: str | None  # None: not finished (the run being checked, or an earlier one killed before the end)
    flips: int
    compared: int


@dataclass(frozen=True)
class DriftPool:
    """A drift run with the earlier runs of the same anchor × judge model × rubric version × baseline (`drift_pool`):
    a limit decided on one run alone passed as soon as a re-run happened to pass, and said nothing of the runs that
    failed before it (found by a review, wave 17). A new judge model or rubric version is a new key, with a pool of
    its own."""

    anchor: str
    judge_model: str
    rubric: str  # name vN
    runs: tuple[PooledRun, ...]  # the earlier runs oldest first (finished, or killed: `drift_pool`), this one last
    # the kappa change pooled over the runs (`pooled_kappa_change`: each run's cells averaged, one anchor's interval);
    # None when no run compared a pair
    kappa: KappaChange | None = None

    @property
    def kappa_drop(self) -> tuple[float, float, float]:
        """The pooled kappa at freeze minus pooled kappa now, with the drop's interval."""
        return _drop(self.kappa)

    @property
    def flips(self) -> Proportion:
        """The flips and compared pairs of every pooled run added up, with the single run's interval (exact)."""
        return clopper_pearson(sum(r.flips for r in self.runs), sum(r.compared for r in self.runs))

    def as_dict(self) -> dict[str, Any]:
        f = self.flips
        return {"runs": len(self.runs), "anchor": self.anchor, "judge_model": self.judge_model, "rubric": self.rubric,
                "flip_rate": {"k": f.k, "n": f.n, "rate": f.rate, "ci_low": f.low, "ci_high": f.high,
                              "method": "exact (Clopper-Pearson) 95%"},
                "earlier": [{"drift_run": r.drift_run, "finished_at": r.finished_at, "flips": r.flips,
                             "compared": r.compared} for r in self.runs[:-1]],
                "kappa_drop": {**_drop_dict(self.kappa_drop),
                               "method": "paired Bayesian bootstrap of the runs' averaged cells"}}

    def format(self) -> str:
        key = f"anchor {self.anchor} × {self.judge_model} × rubric {self.rubric}"
        if len(self.runs) == 1:
            return f"pooled over 1 run: no earlier finished drift run of {key}"
        lines = [f"pooled over {len(self.runs)} runs of {key} (this one and {len(self.runs) - 1} earlier): "
                 f"flip rate {self.flips.format()}, kappa drop {_drop_text(self.kappa_drop)}"]
        earlier = self.runs[:-1]
        for r in earlier[-20:]:
            when = f"finished {r.finished_at}" if r.finished_at else "not finished (its answered pairs)"
            lines.append(f"  earlier run {r.drift_run} {when}: {r.flips}/{r.compared} flipped")
        if len(earlier) > 20:
            lines.append(f"  ... and {len(earlier) - 20} older (--json lists all)")
        return "\n".join(lines)


def drift_pool(db: sqlite_utils.Database, report: DriftReport) -> DriftPool:
    """The report's run with every other drift run of its anchor × judge model × rubric version against the same
    baseline: a finished one read from the report stored when it finished (as the history), one killed before it
    finished with the label changes among its answered pairs. A run against another baseline (`--baseline-model`: two
    judges compared) measures something else: pooled, its flips failed every clean self-drift after it (a review of
    the fix)."""
    anchor = get_anchor(db, report.anchor)
    if anchor is None:
        raise ValueError(f"no anchor named {report.anchor!r}")
    earlier = []
    answered: list[list[tuple[str, str, str]]] = []  # each pooled run's (human, before, after), this one last
    for run in list_drift_runs(db, anchor_id=anchor.id, finished_only=False):
        if (run.judge_model, run.rubric_sha256, run.baseline_model, run.baseline_sha256) != (
                report.judge_model, report.rubric_sha256, report.baseline_model, report.baseline_sha256):
            continue
        if run.id == report.drift_run:
            continue
        if run.finished_at is None:
            # a run killed before it finished (and never resumed: a new one was started, say with other --repeats):
            # its answered pairs count, label changes among them (killing every failing run before it finished and
            # starting another re-ran until one passed: a review of the fix)
            old = drift_report(db, run.id, kappa=False)
            lf = old.label_flips
            if lf.n:
                earlier.append(PooledRun(run.id, None, lf.k, lf.n))
                answered.append([t[:3] for t in old.labels if t[3]])
            continue
        fr = (run.result or {}).get("flip_rate") or {}
        earlier.append(PooledRun(run.id, run.finished_at, fr.get("k", 0), fr.get("n", 0)))
        # the kappa's per-pair labels are not in the stored report: from the run's verdicts (an anchor's few hundred
        # pairs; the verdicts of a finished run never change)
        answered.append([t[:3] for t in drift_report(db, run.id, kappa=False).labels])
    own = get_drift_run(db, report.drift_run)
    this = PooledRun(report.drift_run, own.finished_at if own else None, report.flips.k, report.flips.n)
    answered.append([t[:3] for t in report.labels])
    runs = [tuple(map(list, zip(*labels))) for labels in answered if labels]
    kappa = pooled_kappa_change(runs) if runs else None  # type: ignore[arg-type]
    return DriftPool(report.anchor, report.judge_model, report.rubric, (*earlier, this), kappa)


@dataclass(frozen=True)
class DriftCheck:
    name: str  # max_flip_rate | max_flip_rate_pooled | max_kappa_drop | max_kappa_drop_pooled | finished
    limit: float
    value: float  # the point estimate
    bound: float  # the conservative bound (upper bound of the flip rate / of the kappa drop)
    ok: bool
    reason: str

    def format(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name} {self.limit:g}: {self.reason}"


def _flip_check(name: str, limit: float, f: Proportion, on: str, what: str) -> DriftCheck:
    if not f.n:
        return DriftCheck(name, limit, math.nan, math.nan, False, f"no anchor pair could be compared{what}")
    bound = f.high if on == "bound" else f.rate
    ok = bound <= limit
    return DriftCheck(name, limit, f.rate, f.high, ok,
                      f"flip rate{what} {f.format()}, {'upper bound' if on == 'bound' else 'point'} "
                      f"{bound:.1%} {'<=' if ok else '>'} {limit:.1%}")


def drift_checks(report: DriftReport, *, max_flip_rate: float | None = None, max_kappa_drop: float | None = None,
                 on: str = "bound", pool: DriftPool | None = None) -> list[DriftCheck]:
    """The limits a CI job sets on a drift run, each decided on the conservative bound (`on="bound"`, default) or
    the point estimate (`on="point"`). An undefined value fails (nothing shows the judge did not drift).

    With `pool` (`drift_pool`) holding earlier finished runs, the flip rate must also pass on the pooled flips
    (`max_flip_rate_pooled`) and the kappa drop on the pooled kappa (`max_kappa_drop_pooled`: the runs' cells
    averaged, `pooled_kappa_change`), so re-running until one run passes does not pass. The run's own check stays: the
    pooled runs re-judge the same anchor pairs, so their interval is narrower than the anchor supports, and a judge
    that flips the same pairs every time must not pass by being re-run."""
    if on not in ("bound", "point"):
        raise ValueError("on must be 'bound' or 'point'")
    checks = []
    if max_flip_rate is not None:
        checks.append(_flip_check("max_flip_rate", max_flip_rate, report.flips, on, ""))
        if pool is not None and len(pool.runs) > 1:
            checks.append(_flip_check("max_flip_rate_pooled", max_flip_rate, pool.flips, on,
                                      f" pooled over {len(pool.runs)} runs"))
    if max_kappa_drop is not None:
        checks.append(_kappa_check("max_kappa_drop", max_kappa_drop, report.kappa, on, ""))
        if pool is not None and len(pool.runs) > 1:
            checks.append(_kappa_check("max_kappa_drop_pooled", max_kappa_drop, pool.kappa, on,
                                       f" pooled over {len(pool.runs)} runs"))
    return checks


def _kappa_check(name: str, limit: float, kappa: KappaChange | None, on: str, what: str) -> DriftCheck:
    dropped = _drop(kappa)
    drop, _low, high = dropped
    if not (math.isfinite(drop) and math.isfinite(high)):
        why = ("no anchor pair could be compared" if kappa is None else
               f"kappa undefined ({kappa.before.reason or kappa.after.reason or 'no interval'})")
        return DriftCheck(name, limit, drop, high, False, why + what)
    bound = high if on == "bound" else drop
    ok = bound <= limit
    return DriftCheck(name, limit, drop, high, ok,
                      f"kappa drop{what} {_drop_text(dropped)}, "
                      f"{'upper bound' if on == 'bound' else 'point'} {bound:+.3f} {'<=' if ok else '>'} {limit:g}")


def _drop_dict(drop: tuple[float, float, float]) -> dict[str, float | None]:
    """A kappa drop `_drop` as JSON (a run's report and a pool's): rounded to 6 places, None where undefined."""
    def num(x: float) -> float | None:
        return round(x, 6) if math.isfinite(x) else None

    return {"drop": num(drop[0]), "ci_low": num(drop[1]), "ci_high": num(drop[2])}


def _drop_text(drop: tuple[float, float, float]) -> str:
    if not math.isfinite(drop[0]):
        return "undefined"
    bounds = ", ".join("-" if not math.isfinite(x) else f"{x:+.2f}" for x in drop[1:])
    return f"{drop[0]:+.3f} [{bounds}]"


# --------------------------------------------------------------------------- history (the app)


@dataclass(frozen=True)
class DriftHistoryRow:
    anchor: str
    drift_run: str
    judge_model: str
    rubric: str
    rubric_sha256: str
    baseline_model: str
    baseline_rubric: str
    finished_at: str
    compared: int
    flips: int
    flip_rate: float | None
    flip_ci_low: float | None
    flip_ci_high: float | None
    unanswered: int
    kappa_at_freeze: float | None
    kappa_now: float | None
    kappa_change: float | None
    kappa_change_low: float | None
    kappa_change_high: float | None


def drift_history(db: sqlite_utils.Database, anchor: str | None = None) -> list[DriftHistoryRow]:
    """Every finished drift run (of one anchor, or all), oldest first, from the report stored when it finished:
    reading the history re-computes nothing."""
    anchors = {a.id: a.name for a in list_anchors(db)}
    anchor_id = None
    if anchor is not None:
        found = get_anchor(db, anchor)
        if found is None:
            raise ValueError(f"no anchor named {anchor!r}")
        anchor_id = found.id
    names = _rubric_names(db)
    rows = []
    for run in list_drift_runs(db, anchor_id=anchor_id):
        r = run.result or {}
        fr = r.get("flip_rate") or {}
        kf, kn, kc = r.get("kappa_at_freeze") or {}, r.get("kappa_now") or {}, r.get("kappa_change") or {}
        rows.append(DriftHistoryRow(
            anchor=anchors.get(run.anchor_id, str(run.anchor_id)), drift_run=run.id, judge_model=run.judge_model,
            rubric=names.get(run.rubric_sha256, run.rubric_sha256[:12]), rubric_sha256=run.rubric_sha256,
            baseline_model=run.baseline_model, baseline_rubric=names.get(run.baseline_sha256, run.baseline_sha256[:12]),
            finished_at=run.finished_at or "", compared=r.get("compared", 0), flips=fr.get("k", 0),
            flip_rate=fr.get("rate"), flip_ci_low=fr.get("ci_low"), flip_ci_high=fr.get("ci_high"),
            unanswered=r.get("unanswered", 0), kappa_at_freeze=kf.get("kappa"), kappa_now=kn.get("kappa"),
            kappa_change=kc.get("change"), kappa_change_low=kc.get("ci_low"), kappa_change_high=kc.get("ci_high")))
    return rows


__all__ = [
    "Baseline", "DriftCheck", "DriftHistoryRow", "DriftPool", "DriftReport", "FlippedPair", "PooledRun", "UNANSWERED",
    "anchor_baselines", "anchor_rank", "drift_checks", "drift_history", "drift_pool", "drift_report", "freeze_anchor",
]
