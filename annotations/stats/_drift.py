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
    and pairs cancel out of the change's uncertainty). `low`/`high` are NaN when either kappa is undefined."""

    before: KappaPoint
    after: KappaPoint
    change: float
    low: float
    high: float
    n_resamples: int
    n_invalid: int
    method: str = "paired percentile bootstrap over pairs"


def _point(table: np.ndarray, labels: tuple[str, ...]) -> KappaPoint:
    res = kappa_from_table(table, None, labels)
    iv = kappa_interval(table, labels=labels)
    return KappaPoint(res.kappa, iv.low, iv.high, int(round(table.sum())), iv.reason or res.reason)


def paired_kappa_change(human: Sequence[str], before: Sequence[str], after: Sequence[str], *,
                        n_resamples: int = DRIFT_BOOTSTRAP_RESAMPLES,
                        seed: int = DRIFT_BOOTSTRAP_SEED) -> KappaChange:
    """Unweighted (nominal) Cohen's kappa of `before` vs `human` and of `after` vs `human`, pair by pair (the three
    sequences are aligned), with the change's paired bootstrap CI.

    Resampling n pairs with replacement is drawing the human × before × after count cube from
    Multinomial(n, observed cell shares), so each resample costs O(k³), not O(n). A resample where either kappa is
    undefined is dropped and counted in `n_invalid`. When before and after agree on every pair the change is 0 in
    every resample and the interval is [0, 0]: on the anchor nothing moved (how far that generalises is the flip
    rate's interval, which is never zero width). Empty or misaligned input raises ValueError."""
    if not (len(human) == len(before) == len(after)):
        raise ValueError("human, before and after must be aligned (same length)")
    if not human:
        raise ValueError("no pairs to compare")
    labels = tuple(sorted(set(human) | set(before) | set(after)))
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    cube = np.zeros((k, k, k))
    for h, b, a in zip(human, before, after):
        cube[index[h], index[b], index[a]] += 1
    # Tables have rows = judge, columns = human (the calibration report's convention).
    t_before = cube.sum(axis=2).T
    t_after = cube.sum(axis=1).T
    p_before, p_after = _point(t_before, labels), _point(t_after, labels)
    change = p_after.kappa - p_before.kappa
    if not math.isfinite(change):
        return KappaChange(p_before, p_after, math.nan, math.nan, math.nan, n_resamples, n_resamples)
    n = len(human)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, (cube / n).ravel(), size=n_resamples).reshape(n_resamples, k, k, k).astype(float)
    w = _agreement_weights(k, None)
    kb = _kappa_batch(np.swapaxes(draws.sum(axis=3), 1, 2), w)
    ka = _kappa_batch(np.swapaxes(draws.sum(axis=2), 1, 2), w)
    diff = ka - kb
    ok = np.isfinite(diff)
    if not ok.any():
        return KappaChange(p_before, p_after, change, math.nan, math.nan, n_resamples, n_resamples)
    low, high = np.quantile(diff[ok], [0.025, 0.975])
    # The percentile interval can miss the point estimate when most resamples are degenerate; keep it inside.
    return KappaChange(p_before, p_after, change, float(min(low, change)), float(max(high, change)), n_resamples,
                       int((~ok).sum()))
