"""Prediction-powered inference (PPI / PPI++) of a pass rate, and the design weights of a stratified sample.

Pure arithmetic on judge predictions and human labels: the reports gather the pairs from the store and call these."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from judgecal.annotations.stats._common import Z_95
from judgecal.annotations.stats._majority import majority_label

#: Labelled pairs from which the PPI++ weight λ is estimated; below it λ = 1 (plain PPI). Issue 15 measured PPI++
#: covering only 0.43-0.88 at n <= 20, where λ = 1 covered 0.97+: an estimated λ is noisy on few labels.
PPI_TUNE_MIN_N = 30

Pair = tuple[str, str]


@dataclass(frozen=True)
class PassRate:
    """Pass rate of a model under test: raw judge rate and the prediction-powered estimate (Angelopoulos et al.
    2023): theta = mean(judge on all N) + mean(human - judge on the n random labelled pairs), variance
    var(judge)/N + var(human - judge)/n (sample variances, ddof=1), 95% normal CI. In the report the rectifiers are
    post-stratified by constraint id (see `ppi_pass_rate`): the per-stratum quota over-samples small strata."""

    model: str
    n_judged: int
    judge_pass_rate: float
    n_labelled: int
    human_pass_rate: float
    ppi_estimate: float
    ppi_se: float
    ppi_ci_low: float
    ppi_ci_high: float
    reason: str | None
    lam: float = 1.0  # the PPI++ power-tuning weight λ used (1 = plain PPI)
    method: str = "PPI"

    @property
    def estimate(self) -> float | None:
        """The corrected pass rate, None when undefined."""
        return None if math.isnan(self.ppi_estimate) else self.ppi_estimate


def ppi_pass_rate(model: str, judge_all: Sequence[float], judge_lab: Sequence[float], human_lab: Sequence[int], *,
                  strata_all: Sequence[Any] | None = None, strata_lab: Sequence[Any] | None = None) -> PassRate:
    """Prediction-powered estimate of a pass rate (1 = pass): judge predictions (0, 1, or 0.5 for an abstention: see
    `ppi_prediction`) on all N pairs, judge predictions and human labels on
    the n random labelled pairs. Power-tuned (PPI++) with λ̂ clipped to [0, 1] from PPI_TUNE_MIN_N labels on, plain
    PPI (λ = 1) below: `lam` and `method` say which. Estimate and CI are clipped to [0, 1] together. With n < 2 the
    variance of the correction is unknown: NaN bounds with a reason (never a [0, 1] made up by clipping NaN).

    `strata_all` / `strata_lab` (the stratum of each judged / labelled pair) post-stratify the correction: the review
    quota is ceil(rate × stratum size), so small strata are over-sampled and an unweighted mean of the rectifiers
    would over-count them. Each labelled pair's rectifier is weighted by N_s / n_s (its stratum's judged / labelled
    count): with λ = 1, theta = mean(judge) + mean(z), z_i = n (N_s / n_s) (human_i - judge_i) / N, variance
    var(judge)/N + var(z)/n (the with-replacement variance of the weighted mean, which ignores the gain from
    stratifying:
    conservative). With equal sampling fractions every z_i is the plain rectifier. A stratum with judged pairs but
    no labelled one cannot be corrected: the estimate is then undefined, with the reason."""
    n_all, n_lab = len(judge_all), len(judge_lab)
    raw = sum(judge_all) / n_all if n_all else math.nan
    human = sum(human_lab) / n_lab if n_lab else math.nan
    reason = None
    if n_all == 0:
        return PassRate(model, 0, math.nan, n_lab, human, math.nan, math.nan, math.nan, math.nan,
                        "no judged pairs")
    if n_lab == 0:
        return PassRate(model, n_all, raw, 0, math.nan, math.nan, math.nan, math.nan, math.nan,
                        "no human labels on the random sample: the judge's pass rate cannot be corrected")
    weight = [1.0] * n_lab
    if strata_all is not None or strata_lab is not None:
        if strata_all is None or strata_lab is None or len(strata_all) != n_all or len(strata_lab) != n_lab:
            raise ValueError("strata_all and strata_lab must both be given, one stratum per judged / labelled pair")
        size, got = Counter(strata_all), Counter(strata_lab)
        missing = sorted((str(k) for k in size if k not in got))
        if missing or set(got) - set(size):
            why = (f"no human label in the random sample on {', '.join(map(repr, missing))}: the judge's pass rate "
                   "there cannot be corrected" if missing else "labelled pairs outside the judged strata")
            return PassRate(model, n_all, raw, n_lab, human, math.nan, math.nan, math.nan, math.nan, why)
        weight = [n_lab * size[k] / got[k] / n_all for k in strata_lab]
    # PPI++ (Angelopoulos, Duchi & Zrnic 2023): theta = λ mean(f on all N) + mean(w (y - λ f) on the n labelled),
    # variance λ² var(f)/N + var(w (y - λ f))/n; the λ minimising it is cov(wy, wf)/n / (var(f)/N + var(wf)/n)
    # (for w = 1: cov(y, f) / ((1 + n/N) var(f)), the paper's mean-estimation λ̂), clipped to [0, 1] so the result is
    # never worse than the human labels alone (λ = 0) nor than plain PPI (λ = 1).
    wy = [w * h for w, h in zip(weight, human_lab)]
    wf = [w * j for w, j in zip(weight, judge_lab)]
    lam, method = 1.0, "PPI (λ = 1)"
    if n_lab >= PPI_TUNE_MIN_N and n_all >= 2:
        denom = statistics.variance(judge_all) / n_all + statistics.variance(wf) / n_lab
        if denom > 0:
            lam = min(1.0, max(0.0, statistics.covariance(wy, wf) / n_lab / denom))
            method = f"PPI++ (λ = {lam:.2f})"
    else:
        method = f"PPI (λ = 1: fewer than {PPI_TUNE_MIN_N} labels to tune λ)"
    rect = [y - lam * f for y, f in zip(wy, wf)]
    estimate = lam * raw + sum(rect) / n_lab
    if n_lab < 2 or n_all < 2:
        se = math.nan
        reason = "at least two judged and two labelled pairs are needed for a CI"
    else:
        var_rect = statistics.variance(rect)
        if var_rect == 0:
            # every labelled pair agrees with the judge (or all differ alike): the plug-in variance is 0 and the CI
            # would claim certainty; floor it at the variance of one disagreement in n + 1 pairs (the weights average
            # 1), as the kappa interval never has zero width either
            var_rect = n_lab / (n_lab + 1) ** 2
        se = math.sqrt(lam * lam * statistics.variance(judge_all) / n_all + var_rect / n_lab)
    # A pass rate lives in [0, 1]: the estimate and its interval are clipped there together (the normal interval can
    # poke out near the ends, and so can the estimate on few labels). An undefined SE leaves both bounds NaN.
    low, high = (math.nan, math.nan) if math.isnan(se) else (_clip01(estimate - Z_95 * se),
                                                              _clip01(estimate + Z_95 * se))
    return PassRate(model, n_all, raw, n_lab, human, _clip01(estimate), se, low, high, reason, lam, method)


def _clip01(x: float) -> float:
    return min(1.0, max(0.0, x))


def design_weights(sampled: Sequence[Pair], population: Iterable[Pair], stratum: Any) -> list[float]:
    """N_s / n_s for each sampled pair: the population pairs of its stratum over the sampled pairs of it, so the
    weighted confusion table estimates the population's under a stratified design whose sampling fraction differs by
    stratum (ceil(rate × N_s) over-samples small strata). `stratum` maps a pair to its stratum key. A sampled pair
    whose stratum has no population pair raises ValueError."""
    size = Counter(stratum(p) for p in population)
    got = Counter(stratum(p) for p in sampled)
    out = []
    for p in sampled:
        s = stratum(p)
        if not size[s]:
            raise ValueError(f"sampled pair {p} lies outside the population's strata")
        out.append(size[s] / got[s])
    return out


def ppi_prediction(labels: Iterable[str | None]) -> float:
    """The judge's prediction of "pass" for a pass/fail pair, from its repeats' labels (None = error row): 1 or 0 by
    the majority, 0.5 when the repeats tie or none is valid. PPI is unbiased for any predictor applied alike to
    labelled and unlabelled pairs, so an abstaining judge's pairs stay in the estimate (dropping them estimated the
    pass rate of the pairs the judge could decide, not of all pairs); the rectifier corrects the 0.5."""
    m = majority_label([l for l in labels if l is not None])
    return 0.5 if m is None else float(m == "pass")
