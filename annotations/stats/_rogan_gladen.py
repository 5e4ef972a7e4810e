"""The Rogan–Gladen corrected pass rate: a cross-check of the PPI estimate (issue 15).

Rogan & Gladen (1978, "Estimating prevalence from the results of a screening test", Am J Epidemiol 107:71–76):
with the pass class as positive, sensitivity Se = P(judge pass | human pass) and specificity Sp = P(judge fail |
human fail), the judge's pass rate is p = θ Se + (1 − θ)(1 − Sp), so θ̂ = (p̂ + Sp − 1) / (Se + Sp − 1), clipped to
[0, 1]. In this project's naming (fail is the positive class, as in the agreement table and `judge_error`) Se is
the TNR and Sp the TPR; the denominator is Youden's J = TPR + TNR − 1 either way.

The interval is judgy's (0.1.0, `judgy.estimate_success_rate`): a percentile bootstrap that resamples the labelled
pairs and keeps the judge's pass rate over all pairs fixed, dropping resamples without both human labels or with
J ≤ 0. Ours draws from a seeded `numpy.random.RandomState`, the generator behind judgy's `np.random.choice`, so on
unweighted, unclustered input with the same seed it reproduces judgy's numbers exactly
(tests/test_rogan_gladen.py). Two additions, both off by default in that comparison: design weights (the review
quota over-samples small strata) and resampling whole clusters (an item's pairs share one output).

Where judgy raises only at J ≤ 0, we call the correction undefined when J ≤ MIN_YOUDEN, or when more than half the
interval's tail (α/2) of the resamples put J at or below it: near J = 0 the correction divides by noise, and a
percentile interval over the resamples that happened to land on J > 0 looks confident when it is not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

#: Youden's J (TPR + TNR − 1) at or below which the judge counts as no better than chance: the correction is undefined.
MIN_YOUDEN = 0.05
#: Bootstrap resamples of the report's cross-check (judgy's default is 20,000; the percentiles of 2,000 move by
#: well under a point, and a report computes one per model under test).
RG_ITERATIONS = 2000
RG_SEED = 0
#: Fewest resampled units (items when clustered, else pairs) the bootstrap interval is made from: one item gives one
#: possible resample and a zero-width "95% interval", two give three (a review, wave 14); below this the correction
#: is undefined rather than certain-looking.
MIN_BOOTSTRAP_UNITS = 10
#: Resampled units drawn per chunk: bounds memory at any number of labelled pairs.
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class RoganGladen:
    """The Rogan–Gladen corrected pass rate of one model under test. `tpr` = P(judge fail | human fail), `tnr` =
    P(judge pass | human pass) (fail positive, as `judge_error`; an abstention counts as half a pass, the PPI
    prediction), `youden` = tpr + tnr − 1. `estimate` and its percentile-bootstrap interval are NaN with a `reason`
    when the correction is undefined. `resamples_used` of `iterations` entered the percentiles; `method` says
    how the interval was made."""

    model: str
    n_judged: int
    judge_pass_rate: float
    n_labelled: int
    tpr: float
    tnr: float
    youden: float
    estimate: float
    ci_low: float
    ci_high: float
    iterations: int
    seed: int
    resamples_used: int
    method: str
    reason: str | None = None


def rogan_gladen(model: str, judge_all: Sequence[float], judge_lab: Sequence[float], human_lab: Sequence[int], *,
                 weights: Sequence[float] | None = None, clusters: Sequence[Any] | None = None,
                 iterations: int = RG_ITERATIONS, seed: int = RG_SEED, confidence: float = 0.95,
                 margin: float = MIN_YOUDEN) -> RoganGladen:
    """Rogan–Gladen corrected pass rate with a seeded percentile bootstrap (module docstring).

    `judge_all`: the judge's prediction of pass (0, 1, or 0.5 for an abstention: `ppi_prediction`) on every judged
    pair, labelled ones included; `judge_lab` / `human_lab`: prediction and human label (1 = pass) on the labelled
    pairs. `weights` (one per labelled pair, e.g. N_s / n_s) weight the TPR/TNR; `clusters` (one key per labelled
    pair, e.g. the item) make the bootstrap resample whole clusters. Bad shapes or values raise ValueError."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if iterations <= 0:
        raise ValueError(f"iterations must be positive, got {iterations}")
    f_all = np.asarray(judge_all, dtype=float)
    f = np.asarray(judge_lab, dtype=float)
    h = np.asarray(human_lab, dtype=float)
    n_all, n = len(f_all), len(f)
    if len(h) != n:
        raise ValueError(f"{len(h)} human labels for {n} labelled predictions")
    if not (np.all((f_all >= 0) & (f_all <= 1)) and np.all((f >= 0) & (f <= 1))):
        raise ValueError("judge predictions must lie in [0, 1]")
    if not np.all((h == 0) | (h == 1)):
        raise ValueError("human labels must be 0 (fail) or 1 (pass)")
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if len(w) != n or not np.all(np.isfinite(w) & (w > 0)):
        raise ValueError("weights must be positive and finite, one per labelled pair")
    if clusters is not None and len(clusters) != n:
        raise ValueError(f"{len(clusters)} cluster keys for {n} labelled pairs")
    method = (f"Rogan–Gladen, {confidence:.0%} percentile bootstrap of the labelled "
              f"{'items (clustered)' if clusters is not None else 'pairs'}, {iterations} resamples, seed {seed}, "
              "judge pass rate held fixed")
    raw = float(f_all.mean()) if n_all else math.nan
    nan = math.nan

    def undefined(tpr: float, tnr: float, reason: str, used: int = 0) -> RoganGladen:
        return RoganGladen(model, n_all, raw, n, tpr, tnr, tpr + tnr - 1, nan, nan, nan, iterations, seed, used,
                           method, reason)

    if n_all == 0:
        return undefined(nan, nan, "no judged pairs")
    if not (h == 1).any() or not (h == 0).any():
        return undefined(nan, nan, "the labelled pairs need both a human pass and a human fail to measure TPR and TNR")
    # per-cluster sums, so a resample of clusters is a sum of rows (each pair its own cluster without `clusters`)
    if clusters is None:
        codes = np.arange(n)
    else:
        index: dict = {}
        codes = np.fromiter((index.setdefault(c, len(index)) for c in clusters), dtype=np.intp, count=n)
    g = int(codes.max()) + 1
    cols = np.column_stack([w * h, w * f * h, w * (1 - h), w * f * (1 - h), h, 1 - h])
    sums = np.zeros((g, cols.shape[1]))
    np.add.at(sums, codes, cols)
    tnr, fpr = _rates(sums.sum(axis=0, keepdims=True))
    tnr, fpr = float(tnr[0]), float(fpr[0])
    tpr = 1.0 - fpr
    youden = tnr - fpr
    if youden <= margin:
        return undefined(tpr, tnr, f"TPR + TNR − 1 = {youden:.3f}, at or below {margin}: a judge no better than "
                                   "chance cannot be corrected")
    if g < MIN_BOOTSTRAP_UNITS:
        unit = "items" if clusters is not None else "labelled pairs"
        return undefined(tpr, tnr, f"{g} {unit} to resample, {MIN_BOOTSTRAP_UNITS} needed: a bootstrap over so few "
                                   "has a handful of possible resamples, and its interval would look certain")
    estimate = min(1.0, max(0.0, (raw - fpr) / youden))
    rng = np.random.RandomState(seed)
    thetas, low_j = [], 0
    chunk = max(1, _CHUNK_CELLS // g)
    for start in range(0, iterations, chunk):
        # the same stream as judgy's successive np.random.choice(indices, size=n) calls
        idx = rng.randint(0, g, size=(min(chunk, iterations - start), g))
        rep = sums[idx].sum(axis=1)
        ok = (rep[:, 4] > 0) & (rep[:, 5] > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t, fp = _rates(rep)
        j = t - fp
        low_j += int(np.sum(~ok | (j <= margin)))
        keep = ok & (j > 0)  # judgy's rule for which resamples enter the percentiles
        thetas.append(np.clip((raw - fp[keep]) / j[keep], 0.0, 1.0))
    theta = np.concatenate(thetas)
    alpha = 1.0 - confidence
    if low_j > alpha / 2 * iterations:
        return undefined(tpr, tnr, f"{low_j} of {iterations} bootstrap resamples put TPR + TNR − 1 at or below "
                                   f"{margin} (or lack a human pass or fail): within the {confidence:.0%} interval "
                                   "the judge may be no better than chance, so the correction is unbounded",
                         len(theta))
    low, high = np.percentile(theta, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    if high <= low:
        # every resample the same correction: each labelled pair agrees with the judge (TPR = TNR = 1 in all of
        # them), or the correction is clipped at 0% or 100% in all of them: a "95% interval" of one point is no
        # interval (a review, wave 14)
        why = ("each labelled pair agrees with the judge: every resample is the same correction, no interval"
               if tpr == 1 and tnr == 1 else
               f"the correction is clipped at {low:.0%} in every resample: no interval")
        return undefined(tpr, tnr, why, len(theta))
    return RoganGladen(model, n_all, raw, n, tpr, tnr, youden, estimate, float(low), float(high), iterations, seed,
                       len(theta), method)


def _rates(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(judge pass | human pass), P(judge pass | human fail)) from summed columns w·h, w·f·h, w·(1−h), w·f·(1−h)."""
    return rows[:, 1] / rows[:, 0], rows[:, 3] / rows[:, 2]
