"""Rate arithmetic of a run: percentiles, shares, and the judge-corrected pass rate of a whole run (PPI on the
semantic pairs, mechanical checks added back by count). Pure: the reports gather the numbers."""

from __future__ import annotations

import math
from typing import Hashable, NamedTuple, Sequence

from judgecal.annotations.stats._clusters import NO_CLUSTERING, DesignEffect, clustered_pass_rate
from judgecal.annotations.stats._common import Z_95
from judgecal.annotations.stats._two_rater import _wilson
from judgecal.annotations.stats._planning import VarianceParts
from judgecal.annotations.stats._ppi import _strata_weights, ppi_pass_rate


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between order statistics (numpy's default); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def newcombe_difference(x1: int, n1: int, x2: int, n2: int, z: float = Z_95) -> tuple[float, float, float]:
    """p1 - p2 of two independent proportions with its hybrid score interval (Newcombe 1998, method 10: each
    proportion's Wilson interval, combined as the square-root of summed squared distances). Never zero width, also at
    0/n or n/n, where the Wald interval is [d, d]; within [-1, 1]. ValueError unless 0 <= x <= n and n >= 1.

    Newcombe RG. Interval estimation for the difference between independent proportions: comparison of eleven
    methods. Statistics in Medicine 1998; 17:873-890 (Table II; tests/test_newcombe.py)."""
    for x, n in ((x1, n1), (x2, n2)):
        if n < 1 or not 0 <= x <= n:
            raise ValueError(f"need 0 <= x <= n and n >= 1, got x={x}, n={n}")
    p1, p2 = x1 / n1, x2 / n2
    (l1, u1), (l2, u2) = ((max(0.0, lo), min(1.0, hi)) for lo, hi in (_wilson(p1, n1, z), _wilson(p2, n2, z)))
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


class CorrectedRate(NamedTuple):
    """A run's judge-corrected pass rate over all its checked constraints, with its 95% CI (clipped to [0, 1]
    together with the estimate) and the prediction-powered estimate it rests on."""

    estimate: float
    se: float
    low: float
    high: float
    method: str
    # the variance parts of the whole-run rate (the semantic part's, scaled by S / total): label planning
    parts: VarianceParts | None = None
    # issue 15.5: the design effect of the clustering by item (NO_CLUSTERING without cluster keys) and the SE before
    design_effect: DesignEffect = NO_CLUSTERING
    se_unclustered: float = math.nan


def corrected_rate(mechanical: tuple[int, int], judge_all: list[int], judge_lab: list[int],
                    human_lab: list[int], strata_all: list[str], strata_lab: list[str], *,
                    clusters_all: Sequence[Hashable] | None = None,
                    clusters_lab: Sequence[Hashable] | None = None) -> CorrectedRate | None:
    """The calibration report's prediction-powered estimate (ppi_pass_rate, PPI++ from 30 labels) for a whole run.

    The semantic pass/fail pairs are corrected: PPI over the judge's majority on all judged pairs (`judge_all`) and
    judge vs human on the random-sample pairs humans labelled (`judge_lab`, `human_lab`, 1 = pass); mechanical
    checks need no correction and are added back by count: (mech passed + PPI x S) / (mech checked + S), S the
    semantic pairs, so the SE is the PPI SE x S / (mech checked + S). None without random-sample human labels.

    With `clusters_all` / `clusters_lab` (each pair's item) the PPI SE is clustered by item (`clustered_pass_rate`,
    the calibration report's rule): an item's constraints, and its repeated records, are judged on correlated
    outputs. One pair per item leaves every number as it was."""
    if not human_lab or not judge_all:
        return None
    pr = ppi_pass_rate("run", judge_all, judge_lab, human_lab, strata_all=strata_all, strata_lab=strata_lab)
    if math.isnan(pr.ppi_estimate):
        return None
    se_unclustered, deff = pr.ppi_se, NO_CLUSTERING
    if clusters_all is not None and clusters_lab is not None:
        weights = _strata_weights(strata_all, strata_lab, len(judge_all), len(judge_lab))
        assert not isinstance(weights, str)  # the estimate is defined, so every stratum is labelled
        pr, clustering = clustered_pass_rate(pr, judge_all, clusters_all, judge_lab, human_lab, weights, clusters_lab)
        deff = clustering.design_effect
    passed, checked = mechanical
    total, sem = checked + len(judge_all), len(judge_all)

    def whole(x: float) -> float:
        return (passed + x * sem) / total

    return CorrectedRate(whole(pr.ppi_estimate), pr.ppi_se * sem / total, whole(pr.ppi_ci_low),
                         whole(pr.ppi_ci_high), pr.method,
                         VarianceParts(pr.var_pred, pr.var_rect, pr.n_judged, pr.lam, pr.n_labelled, pr.var_y,
                                       pr.cov_yf, pr.var_f_lab, deff.value).scaled(sem / total),
                         deff, se_unclustered * sem / total)
