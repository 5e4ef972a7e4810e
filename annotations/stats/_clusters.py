"""Clustered uncertainty: pairs that share an item are not independent.

An item's constraints are judged on the same output, and the same item is run by every model under test: when the
judge misreads an item it tends to misread all its pairs. An interval that counts those pairs as independent is too
narrow (Miller 2024, "Adding Error Bars to Evals": cluster the standard errors by the unit that was sampled). We
measure the design effect of the clustering from the data and fold it into the effective sample size the intervals
already use:

    deff = V_cluster / V_iid,   V_cluster = G/(G−1) Σ_g (Σ_{i∈g} r_i)²,   V_iid = n/(n−1) Σ_i r_i²,

r_i = v_i − mean(v) (v the per-pair quantity whose mean the interval is about: agreement indicators for kappa, the
rectifiers and judge predictions for PPI), G clusters, n pairs. Both carry the same small-sample factor, so with one
pair per cluster deff is exactly 1 and every interval is the unclustered one. deff is clipped to [1, n/G]: a
negative within-item correlation estimated on a few items must not narrow an interval (a hostile grouping could
otherwise buy width), and no item is worth less than one independent pair (n_eff ≥ G). A constant v (every pair
agrees) has no residual to estimate the correlation from: deff = 1, as the unclustered interval, which already
never has zero width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Hashable, NamedTuple, Sequence

import numpy as np

from judgecal.annotations.stats._common import Z_95
from judgecal.annotations.stats._corrected import PairedDifference
from judgecal.annotations.stats._ppi import PassRate, _strata_weights


@dataclass(frozen=True)
class DesignEffect:
    """The variance inflation of a mean from clustering (>= 1), the clusters and pairs it was measured on, and the
    unit of clustering (`by`)."""

    value: float
    clusters: int
    n: int
    by: str = "item"

    def effective(self, n: float) -> float:
        """An effective sample size n (e.g. Kish's, for design weights) deflated by this design effect."""
        return n / self.value

    @property
    def note(self) -> str:
        return f"CI clustered by {self.by}, {self.clusters} clusters"


NO_CLUSTERING = DesignEffect(1.0, 0, 0)


class ClusterCodes(NamedTuple):
    """Cluster keys numbered in order of first appearance (`cluster_codes`), as `design_effect` numbers them: passed
    instead of the keys when several means share one clustering (a slice's agreement per repeat and by majority,
    weighted and not), so the keys are numbered once."""

    codes: np.ndarray
    groups: int

    def __len__(self) -> int:
        return len(self.codes)


def cluster_codes(clusters: Sequence[Hashable]) -> ClusterCodes:
    index: dict[Hashable, int] = {}
    codes = np.fromiter(map(lambda c: index.setdefault(c, len(index)), clusters), dtype=np.intp,
                        count=len(clusters))
    return ClusterCodes(codes, len(index))


def design_effect(values: Sequence[float], clusters: Sequence[Hashable] | ClusterCodes, *,
                  by: str = "item") -> DesignEffect:
    """The design effect of the clustering for the mean of `values` (module docstring). One cluster key per value
    (or their `cluster_codes`). Fewer than two pairs, one pair per cluster or a constant `values` give deff 1 (nothing
    to estimate it from) with the counts. One cluster of several pairs gives the ceiling n/G = n (an effective sample
    of one): nothing says its pairs are independent, and deff 1 there let 48 constraints of one output pass the gate
    as 48 independent pairs (a review, wave 14). Mismatched lengths raise ValueError."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or len(clusters) != v.size:
        raise ValueError(f"one cluster key per value: {len(clusters)} keys for {v.size} values")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite")
    n = int(v.size)
    codes, g = clusters if isinstance(clusters, ClusterCodes) else cluster_codes(clusters)
    if n < 2 or g == n:
        return DesignEffect(1.0, g, n, by)  # g == n: V_cluster is V_iid term by term
    if g < 2:
        return DesignEffect(float(n), g, n, by)  # one cluster: the ceiling
    r = v - v.mean()
    v_iid = n / (n - 1) * float(np.sum(r * r))
    if v_iid <= 1e-15 * n:
        return DesignEffect(1.0, g, n, by)
    sums = np.bincount(codes, weights=r, minlength=g)
    v_cl = g / (g - 1) * float(np.sum(sums * sums))
    return DesignEffect(min(max(1.0, v_cl / v_iid), n / g), g, n, by)


@dataclass(frozen=True)
class PassRateClustering:
    """How a model's corrected pass rate was clustered: the design effect of the PPI estimate by item (its value,
    the clusters of the judged pairs) and the SE before clustering."""

    model: str
    design_effect: DesignEffect
    se_unclustered: float


class JudgedUnits(NamedTuple):
    """The judged units' side of `ppi_design_effect`, prepared once (`judged_units`): it reads every judged pair (a
    project may hold millions) and depends on no label, so a report recomputed after a new label reuses it."""

    f: np.ndarray  # the predictions, as floats
    codes: np.ndarray  # each unit's cluster number, numbered in order of first appearance
    index: dict[Hashable, int]  # cluster key -> its number (never mutated after `judged_units`)


def judged_units(pred_all: Sequence[float], clusters_all: Sequence[Hashable]) -> JudgedUnits:
    if len(pred_all) != len(clusters_all):
        raise ValueError("one cluster key per judged unit and one label, weight and key per labelled unit")
    # numbered in order of first appearance: the distinct keys in that order (`dict.fromkeys`), then every key's
    # number looked up, both in C (a million run records' corrected rates number ~700k units)
    index: dict[Hashable, int] = {c: k for k, c in enumerate(dict.fromkeys(clusters_all))}
    codes = np.fromiter(map(index.__getitem__, clusters_all), dtype=np.intp, count=len(clusters_all))
    return JudgedUnits(np.asarray(pred_all, dtype=float), codes, index)


def ppi_design_effect(lam: float, pred_all: Sequence[float], clusters_all: Sequence[Hashable],
                      pred_lab: Sequence[float], y_lab: Sequence[float], weights_lab: Sequence[float],
                      clusters_lab: Sequence[Hashable], *, by: str = "item",
                      judged: JudgedUnits | None = None) -> DesignEffect:
    """The design effect by cluster of a prediction-powered mean λ mean(f on all N) + mean(w (y − λ f) on the n
    labelled) (`ppi_mean`): the one rule behind every clustered PPI interval (a pass rate, a run's corrected rate, the
    paired difference of two runs). Each unit contributes λ (f_i − mean f)/N and, when labelled,
    (r_i − mean r)/n, r = w (y − λ f), `weights_lab` the post-stratification weights on any common scale (rescaled
    to average 1, as `ppi_mean` uses them). V_cl = G/(G−1) Σ_g (Σ_{i∈g} contributions)² over the G clusters of judged
    and labelled units together, so an item's judged and labelled units (which move together) count once; deff is V_cl
    over the unclustered λ² var(f)/N + var(r)/n, clipped to [1, N/G_judged] as in `design_effect`. Exactly 1 when no
    cluster holds two judged units, or below two judged or two labelled units, or with zero unclustered variance; the
    ceiling N when every judged unit is in one cluster (nothing to estimate it from, and no sign of independence).
    `judged`: `judged_units(pred_all, clusters_all)` when the caller keeps it (the same numbers, bit for bit)."""
    if not len(pred_all) == len(clusters_all) or not len(pred_lab) == len(y_lab) == len(weights_lab) \
            == len(clusters_lab):
        raise ValueError("one cluster key per judged unit and one label, weight and key per labelled unit")
    if judged is None:
        judged = judged_units(pred_all, clusters_all)
    n_all, n_lab = len(pred_all), len(pred_lab)
    groups = len(judged.index)
    if n_all < 2 or n_lab < 2 or groups == n_all:
        return DesignEffect(1.0, groups, n_all, by)
    if groups < 2:
        return DesignEffect(float(n_all), groups, n_all, by)  # one cluster: the ceiling, as `design_effect`'s
    f, ca = judged.f, judged.codes
    wts = np.asarray(weights_lab, dtype=float)
    wts = wts * n_lab / wts.sum()
    r = wts * (np.asarray(y_lab, dtype=float) - lam * np.asarray(pred_lab, dtype=float))
    index = judged.index
    if all(map(index.__contains__, clusters_lab)):  # (the usual case: every look-up in C)
        cl = np.fromiter(map(index.__getitem__, clusters_lab), dtype=np.intp, count=n_lab)
    else:
        index = dict(index)  # a labelled unit outside the judged clusters: numbered after them, on a copy
        cl = np.fromiter((index.setdefault(c, len(index)) for c in clusters_lab), dtype=np.intp, count=n_lab)
    k = len(index)
    contrib = (np.bincount(ca, weights=lam * (f - f.mean()) / n_all, minlength=k)
               + np.bincount(cl, weights=(r - r.mean()) / n_lab, minlength=k))
    v_cl = k / (k - 1) * float(np.sum(contrib * contrib))
    v_iid = lam ** 2 * float(np.var(f, ddof=1)) / n_all + float(np.var(r, ddof=1)) / n_lab
    deff = 1.0 if v_iid <= 0 else min(max(1.0, v_cl / v_iid), n_all / groups)
    return DesignEffect(deff, groups, n_all, by)


def clustered_pass_rate(rate: PassRate, judge_all: Sequence[float], clusters_all: Sequence[Hashable],
                        judge_lab: Sequence[float], human_lab: Sequence[int], weights_lab: Sequence[float],
                        clusters_lab: Sequence[Hashable], *, by: str = "item",
                        judged: JudgedUnits | None = None) -> tuple[PassRate, PassRateClustering]:
    """`rate` (from `ppi_pass_rate` on the same arrays) with its variance multiplied by the design effect of the
    clustering (`ppi_design_effect`, the PPI estimate's per-cluster contributions: the judge on all N pairs and the
    rectifiers on the n labelled, `weights_lab` e.g. `design_weights`' N_s / n_s), and the CI rebuilt around the
    estimate, clipped to [0, 1]. With no cluster holding two judged pairs the design effect is exactly 1 and the rate
    comes back unchanged. So does a rate without an SE. The method says it was clustered and over how many
    clusters. `judged`: `judged_units(judge_all, clusters_all)`, when the caller keeps it."""
    d = ppi_design_effect(rate.lam, judge_all, clusters_all, judge_lab, human_lab, weights_lab, clusters_lab, by=by,
                          judged=judged)
    if not math.isfinite(rate.ppi_se) or d.n < 2 or len(judge_lab) < 2 or d.clusters == d.n:
        return rate, PassRateClustering(rate.model, d, rate.ppi_se)
    se = rate.ppi_se * math.sqrt(d.value)
    est = rate.ppi_estimate
    return replace(rate, ppi_se=se, ppi_ci_low=min(1.0, max(0.0, est - Z_95 * se)),
                   ppi_ci_high=min(1.0, max(0.0, est + Z_95 * se)),
                   method=f"{rate.method}; {d.note}"), PassRateClustering(rate.model, d, rate.ppi_se)


def clustered_difference(diff: PairedDifference, d_all: Sequence[float], clusters_all: Sequence[Hashable],
                         d_lab: Sequence[float], y_lab: Sequence[float], clusters_lab: Sequence[Hashable], *,
                         strata_all: Sequence[Hashable] | None = None, strata_lab: Sequence[Hashable] | None = None,
                         by: str = "item") -> PairedDifference:
    """`diff` (from `ppi_difference` on the per-unit differences D = f_A − f_B on all units and D, Y = y_A − y_B on
    the labelled ones, with the same strata) with its variance multiplied by the design effect of the clustering
    (`ppi_design_effect`: the same rule as a pass rate's): an item's constraints are units of one output in each run.
    CI and p-value rebuilt from the clustered SE; the unclustered SE, the design effect and the clusters recorded.
    With one unit per cluster it comes back with deff 1 and the same numbers. An undefined difference is returned
    as is."""
    if not diff.defined:
        return diff
    weights = _strata_weights(strata_all, strata_lab, len(d_all), len(d_lab))
    if isinstance(weights, str):
        return diff
    d = ppi_design_effect(diff.lam, d_all, clusters_all, d_lab, y_lab, weights, clusters_lab, by=by)
    out = replace(diff, design_effect=d.value, clusters=d.clusters, ci_clustered_by=by, se_unclustered=diff.se)
    if d.n < 2 or len(d_lab) < 2 or d.clusters == d.n:
        return out  # one unit per cluster: today's interval, untouched
    if d.value == 1.0:
        return replace(out, method=f"{diff.method}; {d.note}")
    se = diff.se * math.sqrt(d.value)
    est = diff.estimate
    z = abs(est) / se if se > 0 else math.inf
    return replace(out, se=se, low=max(-1.0, est - Z_95 * se), high=min(1.0, est + Z_95 * se),
                   p_value=math.erfc(z / math.sqrt(2)), method=f"{diff.method}; {d.note}")
