"""Planning: how many labels a kappa interval or a corrected rate (one run, or the difference of two) of a given
width needs, and the smallest difference the labels at hand can detect.

Conventions: judgecal.annotations.stats._common."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from judgecal.annotations.stats._common import Z_95
from judgecal.annotations.stats._ppi import PPI_TUNE_MIN_N, PassRate
from judgecal.annotations.stats._two_rater import KappaInterval, cohen_kappa


def labels_needed(
    a: Sequence, b: Sequence, target_half_width: float, *,
    labels: Sequence | None = None, weights: str | None = None,
) -> int:
    """How many more random labels bring the 95% kappa CI half-width under target.

    Assumes the current agreement and prevalence hold for new items, so the
    asymptotic SE scales as 1/sqrt(n): n_total = ceil(n * (hw / target)^2),
    and the answer is n_total - n (0 when already at or under the target).

    Edge cases: ``target_half_width`` <= 0 raises ``ValueError``; an
    undefined kappa (NaN, e.g. both raters constant) or an undefined SE (one
    rater constant: kappa 0 with an SE of 0 by construction) raises
    ``ValueError`` with the reason, because no sample size can be projected
    from it. With
    perfect observed agreement the asymptotic SE is 0 and the answer is 0:
    the projection is then over-optimistic, so collect a bootstrap CI or a
    minimum sample instead.
    """
    if not (target_half_width > 0 and math.isfinite(target_half_width)):
        raise ValueError(f"target_half_width must be a positive number, got {target_half_width}")
    res = cohen_kappa(a, b, labels=labels, weights=weights)
    if not (math.isfinite(res.kappa) and math.isfinite(res.se)):
        raise ValueError(f"cannot project a sample size: {res.reason}")
    hw = Z_95 * res.se
    if hw <= target_half_width:
        return 0
    total = math.ceil(res.n * (hw / target_half_width) ** 2 - 1e-9)
    return max(int(total) - res.n, 0)


def labels_needed_for_interval(interval: KappaInterval, target_half_width: float) -> int:
    """More random labels for the half-width of `interval` to fall to `target_half_width`, projecting that the
    width shrinks as 1/sqrt(n). Unlike :func:`labels_needed` this never answers 0 from a zero Wald SE: the interval
    always has positive width, so perfect agreement on 13 pairs still asks for more. NaN bounds or a bad target
    raise ``ValueError``."""
    if not (target_half_width > 0 and math.isfinite(target_half_width)):
        raise ValueError(f"target_half_width must be a positive number, got {target_half_width}")
    if not (math.isfinite(interval.low) and math.isfinite(interval.high)):
        raise ValueError(f"cannot project a sample size: {interval.reason}")
    hw = (interval.high - interval.low) / 2.0
    if hw <= target_half_width:
        return 0
    return max(math.ceil(interval.n * (hw / target_half_width) ** 2 - 1e-9) - math.ceil(interval.n - 1e-9), 1)


# --------------------------------------------------------------------------- planning a corrected rate (issue 15.4)

#: Φ⁻¹(0.8): the power of the minimum detectable difference (80%, two-sided 5% test), the usual convention.
Z_POWER_80 = 0.841621


class VarianceParts(NamedTuple):
    """What a prediction-powered variance is made of (`stats.PPIMean`): λ² var_pred / n_all + var_rect / n_lab.

    Projected forward as the λ rule will behave: below PPI_TUNE_MIN_N labels λ = 1; from there, when the labelled
    moments are known (`var_y`, `cov_yf`, `var_f_lab`), the λ the rule will pick at that n, with var(y - λf) =
    var_y - 2 λ cov_yf + λ² var_f_lab; otherwise the current λ and rectifier variance. Only n_lab grows."""

    var_pred: float
    var_rect: float
    n_all: int
    lam: float
    n_lab: int
    var_y: float = math.nan
    cov_yf: float = math.nan
    var_f_lab: float = math.nan
    # the design effect of the clustering by item (`stats.ppi_design_effect`, 1 = unclustered): the projected
    # variance is multiplied by it, assuming the within-item correlation holds for new labels, so the labels needed
    # grow with it (issue 15.5)
    deff: float = 1.0

    def scaled(self, factor: float) -> "VarianceParts":
        """The parts of `factor` × the estimate (variances and covariances × factor²)."""
        f2 = factor * factor
        return self._replace(var_pred=self.var_pred * f2, var_rect=self.var_rect * f2, var_y=self.var_y * f2,
                             cov_yf=self.cov_yf * f2, var_f_lab=self.var_f_lab * f2)

    def variance(self, more: int = 0) -> float:
        return self.deff * self._variance(more)

    def _variance(self, more: int) -> float:
        n = self.n_lab + more
        if more == 0 or n < PPI_TUNE_MIN_N or not all(map(math.isfinite, (self.var_y, self.cov_yf,
                                                                          self.var_f_lab))):
            lam = self.lam if n >= PPI_TUNE_MIN_N or more == 0 else 1.0
            rect = self.var_rect if lam == self.lam else self._rect(lam)
            return lam ** 2 * self.var_pred / self.n_all + rect / n
        denom = self.var_pred / self.n_all + self.var_f_lab / n
        lam = min(1.0, max(0.0, self.cov_yf / n / denom)) if denom > 0 else 1.0
        return lam ** 2 * self.var_pred / self.n_all + self._rect(lam) / n

    def _rect(self, lam: float) -> float:
        if not all(map(math.isfinite, (self.var_y, self.cov_yf, self.var_f_lab))):
            return self.var_rect
        # the same floor as `ppi_mean`: never project certainty
        return max(self.var_y - 2 * lam * self.cov_yf + lam * lam * self.var_f_lab, self.n_lab / (self.n_lab + 1) ** 2)

    @property
    def defined(self) -> bool:
        return (self.n_all >= 2 and self.n_lab >= 2 and math.isfinite(self.var_pred)
                and math.isfinite(self.var_rect))


class LabelPlan(NamedTuple):
    """Labels for a 95% CI half-width: `more` labels (per part: per run for two runs, labelled items for a paired
    difference) on top of what each part has. `more` is None with `reason` when no number of labels reaches the
    target (the judge-only term λ² var(f)/N already exceeds it) or nothing can be projected (fewer than two labels);
    when the projection exceeds the judged pairs, `more` is all of the unlabelled ones, with the reason."""

    target_half_width: float
    half_width: float  # now
    more: int | None
    reason: str | None = None


def _check_target(target: float) -> None:
    if not (target > 0 and math.isfinite(target)):
        raise ValueError(f"target half-width must be a positive number, got {target}")


def plan_labels(parts: Sequence[VarianceParts], target_half_width: float) -> LabelPlan:
    """More labels (the same number added to every part) for the half-width Z_95 × sqrt(Σ variance) to fall to the
    target. One part: a corrected pass rate; two: the unpaired difference of two runs (variances add); the paired
    difference is one part whose labelled units are items labelled in both runs. Assumes the current λ, var(f) and
    rectifier variance hold for new labels (the rectifier variance is floored: `ppi_mean`)."""
    _check_target(target_half_width)
    if not parts or not all(p.defined for p in parts):
        return LabelPlan(target_half_width, math.nan, None, "at least two judged and two labelled pairs are needed "
                                                              "to project")
    half = Z_95 * math.sqrt(sum(p.variance() for p in parts))
    if half <= target_half_width + 1e-12:
        return LabelPlan(target_half_width, half, 0)
    if max(p.n_all - p.n_lab for p in parts) <= 0:
        return LabelPlan(target_half_width, half, None, "every judged pair is labelled already")
    tunable = all(math.isfinite(p.var_y) and math.isfinite(p.cov_yf) and math.isfinite(p.var_f_lab) for p in parts)
    budget = (target_half_width / Z_95) ** 2 - sum(p.deff * p.lam ** 2 * p.var_pred / p.n_all for p in parts)
    if budget <= 0 and not tunable:
        return LabelPlan(target_half_width, half, None, "the judge's own variance over the judged pairs already "
                                                         "exceeds the target: more labels cannot reach it")
    cap = max(p.n_all - p.n_lab for p in parts)

    def fits(m: int) -> bool:
        return Z_95 * math.sqrt(sum(p.variance(m) for p in parts)) <= target_half_width + 1e-12

    census = LabelPlan(target_half_width, half, cap, "the projection needs more labels than there are judged "
                                                     "pairs: label every one of them (then nothing is left to "
                                                     "estimate)")
    lo, hi = 0, 1
    while not fits(hi):
        if hi > cap:
            return census
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    if hi > cap:
        return census
    return LabelPlan(target_half_width, half, hi)


def min_detectable_difference(se: float, *, z_power: float = Z_POWER_80) -> float:
    """The smallest true difference a two-sided 5% test detects with 80% power given the difference's SE:
    (Z_95 + Φ⁻¹(0.8)) × SE (NaN for an undefined SE)."""
    return (Z_95 + z_power) * se if math.isfinite(se) else math.nan


#: The default target 95% half-width of a corrected rate and of a difference between two runs: ±3 points.
PLAN_HALF_WIDTH = 0.03


@dataclass(frozen=True)
class RatePlan:
    """Label planning for one corrected rate (issue 15.4), shown beside the review quota. `more_labels`: more
    random-sample labels for its 95% CI half-width to reach `target_half_width`; `more_labels_difference`: more
    labels per run for the difference between two runs like this one, labelled alike and unpaired (a paired sample,
    `sample --paired`, needs fewer when the runs' errors are correlated), to reach the same half-width;
    `mdd`: the smallest difference between two such runs the labels at hand detect (80% power, two-sided 5%).
    None with the reason where nothing can be projected. Assumes the current λ, judge variance and rectifier
    variance hold for new labels."""

    model: str
    label: str | None  # None for the pass rate; the label for a label share
    n_labelled: int
    half_width: float | None
    target_half_width: float
    more_labels: int | None
    reason: str | None
    more_labels_difference: int | None
    difference_reason: str | None
    mdd: float | None


def rate_plan(rate: PassRate, target_half_width: float = PLAN_HALF_WIDTH, *, label: str | None = None,
              design_effect: float = 1.0) -> RatePlan:
    """The `RatePlan` of a corrected pass rate or label share (a `PassRate` from `ppi_pass_rate`). `design_effect`:
    the rate's clustering by item (`clustered_pass_rate`), by which every projected variance grows (1 for none)."""
    _check_target(target_half_width)
    if not (design_effect >= 1 and math.isfinite(design_effect)):
        raise ValueError(f"design_effect must be a number >= 1, got {design_effect}")
    parts = VarianceParts(rate.var_pred, rate.var_rect, rate.n_judged, rate.lam, rate.n_labelled, rate.var_y,
                          rate.cov_yf, rate.var_f_lab, design_effect)
    one = plan_labels([parts], target_half_width)
    two = plan_labels([parts, parts], target_half_width)
    se = math.sqrt(2 * parts.variance()) if parts.defined else math.nan
    mdd = min_detectable_difference(se)
    return RatePlan(rate.model, label, rate.n_labelled, None if math.isnan(one.half_width) else one.half_width,
                    target_half_width, one.more, one.reason, two.more, two.reason, None if math.isnan(mdd) else mdd)
