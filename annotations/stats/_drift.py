"""Drift of a judge on a frozen anchor set: the kappa against the same human labels before and after, and the
paired bootstrap interval of its change.

Conventions: judgecal.annotations.stats._common. Pure: no sqlite, no project."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from judgecal.annotations.stats._two_rater import KAPPA_INTERVAL_METHOD, _agreement_weights, _kappa_batch, kappa_from_table, kappa_interval

DRIFT_BOOTSTRAP_RESAMPLES = 2000
DRIFT_BOOTSTRAP_SEED = 0  # fixed: the same anchor and verdicts give the same interval in the CLI and the app


@dataclass(frozen=True)
class KappaPoint:
    """One kappa with the interval the report shows (`kappa_interval`: within [-1, 1], never zero width)."""

    kappa: float
    low: float
    high: float
    n: int
    reason: str | None = None
    method: str = KAPPA_INTERVAL_METHOD


@dataclass(frozen=True)
class KappaChange:
    """Kappa of judge `before` and judge `after` against the same human labels on the same pairs, and the change
    after − before with a paired percentile bootstrap interval (pairs resampled together, so the shared human labels
    and pairs cancel out of the change's uncertainty; never zero width). `low`/`high` are NaN when either kappa is
    undefined."""

    before: KappaPoint
    after: KappaPoint
    change: float
    low: float
    high: float
    n_resamples: int
    n_invalid: int
    method: str = "paired Bayesian bootstrap (Dirichlet, one pseudo-pair)"


def _point(table: np.ndarray, labels: tuple[str, ...]) -> KappaPoint:
    res = kappa_from_table(table, None, labels)
    iv = kappa_interval(table, labels=labels)
    return KappaPoint(res.kappa, iv.low, iv.high, int(round(table.sum())), iv.reason or res.reason)


def paired_kappa_change(human: Sequence[str], before: Sequence[str], after: Sequence[str], *,
                        n_resamples: int = DRIFT_BOOTSTRAP_RESAMPLES,
                        seed: int = DRIFT_BOOTSTRAP_SEED) -> KappaChange:
    """Unweighted (nominal) Cohen's kappa of `before` vs `human` and of `after` vs `human`, pair by pair (the three
    sequences are aligned), with the change's paired interval.

    The interval is a Bayesian bootstrap (Rubin 1981) of the human × before × after cell shares: each resample draws
    the shares from Dirichlet(cell counts + 1/k³), one pseudo-pair spread over all k³ cells, and computes both kappas
    on them; the 2.5% and 97.5% quantiles of after − before, widened to contain the point estimate. The pseudo-pair
    is what keeps the interval honest where few pairs flipped: the plain percentile bootstrap gives [0, 0] whenever
    no pair of the anchor flipped, which on 30 pairs from a judge flipping 5% of pairs (true change −0.087) happened
    in a fifth of anchors and covered 0.71; this interval covers 0.93–0.97 at n = 30–300 and flip shares 0–15%
    (bench/drift_kappa_change_coverage.py). A resample where either kappa is undefined is dropped and counted in
    `n_invalid`. Empty or misaligned input raises ValueError."""
    if not (len(human) == len(before) == len(after)):
        raise ValueError("human, before and after must be aligned (same length)")
    if not human:
        raise ValueError("no pairs to compare")
    labels = tuple(sorted(set(human) | set(before) | set(after)))
    return _kappa_change_of(_cube(human, before, after, labels), labels, n_resamples, seed)


def pooled_kappa_change(runs: Sequence[tuple[Sequence[str], Sequence[str], Sequence[str]]], *,
                        n_resamples: int = DRIFT_BOOTSTRAP_RESAMPLES,
                        seed: int = DRIFT_BOOTSTRAP_SEED) -> KappaChange:
    """The kappa change of several drift runs on one anchor, each given as `paired_kappa_change`'s (human, before,
    after): each run's human × before × after cell counts, averaged over the runs, then `paired_kappa_change`'s point
    and interval on the averaged cells. Averaged, not added: the runs re-judge the same anchor pairs against the same
    human labels and baseline, so the pool is one anchor's worth of evidence; added cells would claim R anchors and
    an interval about sqrt(R) times narrower. One run gives `paired_kappa_change`'s numbers exactly, and so do R
    copies of one run. ValueError when a run is misaligned or no run has a pair."""
    for human, before, after in runs:
        if not (len(human) == len(before) == len(after)):
            raise ValueError("human, before and after must be aligned (same length)")
    runs = [r for r in runs if r[0]]  # (a run with no compared pair adds nothing)
    if not runs:
        raise ValueError("no pairs to compare")
    labels = tuple(sorted({x for run in runs for column in run for x in column}))
    cube = sum(_cube(*run, labels) for run in runs) / len(runs)
    return _kappa_change_of(cube, labels, n_resamples, seed)


def _cube(human: Sequence[str], before: Sequence[str], after: Sequence[str], labels: tuple[str, ...]) -> np.ndarray:
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    cube = np.zeros((k, k, k))
    for h, b, a in zip(human, before, after):
        cube[index[h], index[b], index[a]] += 1
    return cube


def _kappa_change_of(cube: np.ndarray, labels: tuple[str, ...], n_resamples: int, seed: int) -> KappaChange:
    k = len(labels)
    # Tables have rows = judge, columns = human (the calibration report's convention).
    t_before = cube.sum(axis=2).T
    t_after = cube.sum(axis=1).T
    p_before, p_after = _point(t_before, labels), _point(t_after, labels)
    change = p_after.kappa - p_before.kappa
    if not math.isfinite(change):
        return KappaChange(p_before, p_after, math.nan, math.nan, math.nan, n_resamples, n_resamples)
    rng = np.random.default_rng(seed)
    draws = rng.dirichlet(cube.ravel() + 1.0 / cube.size, size=n_resamples).reshape(n_resamples, k, k, k)
    w = _agreement_weights(k, None)
    kb = _kappa_batch(np.swapaxes(draws.sum(axis=3), 1, 2), w)
    ka = _kappa_batch(np.swapaxes(draws.sum(axis=2), 1, 2), w)
    diff = ka - kb
    ok = np.isfinite(diff)
    if not ok.any():
        return KappaChange(p_before, p_after, change, math.nan, math.nan, n_resamples, n_resamples)
    low, high = np.quantile(diff[ok], [0.025, 0.975])
    # The posterior quantiles can miss the observed change (the pseudo-pair pulls toward no change); keep it inside.
    return KappaChange(p_before, p_after, change, float(min(low, change)), float(max(high, change)), n_resamples,
                       int((~ok).sum()))
