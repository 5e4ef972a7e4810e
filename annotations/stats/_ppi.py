"""Prediction-powered inference (PPI / PPI++) of a pass rate, and the design weights of a stratified sample.

Pure arithmetic on judge predictions and human labels: the reports gather the pairs from the store and call these."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

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
    # what label planning projects from (`PPIMean`): var of the judge's predictions over all N, of the rectifier
    var_pred: float = math.nan
    var_rect: float = math.nan
    var_y: float = math.nan
    cov_yf: float = math.nan
    var_f_lab: float = math.nan

    @property
    def estimate(self) -> float | None:
        """The corrected pass rate, None when undefined."""
        return None if math.isnan(self.ppi_estimate) else self.ppi_estimate

    @property
    def judge_abstained(self) -> bool:
        """Every judged pair's prediction is the abstention's (`ppi_prediction` 0.5, `label_prediction` 1/k: each
        pair's repeats all error rows, or tied): a verdict predicts 0 or 1, so predictions all equal to one value
        strictly between are abstentions. The judge's own rate is then no reading of the judge, and is shown as
        undefined (a review, wave 14: an all-error judge's line read "judge pass rate 50.0%"; wave 15: its label
        shares read 25.0% each)."""
        return (self.n_judged > 0 and 0 < self.judge_pass_rate < 1
                and (self.n_judged == 1 or self.var_pred == 0))


class AllSummary(NamedTuple):
    """What `ppi_pass_rate` reads of the predictions and strata on all N judged pairs, none of it label-dependent
    (`summarise_all`): a caller that keeps those lists (the report, after a new label) computes it once and passes it
    again, instead of a sum and two counts over every judged pair per rate (issue 16 item 3)."""

    n: int
    total: float  # sum(judge_all), in order
    variance: float  # variance_of(judge_all); NaN below two
    sizes: Counter | None  # Counter(strata_all); None without strata


def summarise_all(judge_all: Sequence[float], strata_all: Sequence[Any] | None = None, *,
                  counts: Mapping[float, int] | None = None, sizes: Mapping[Any, int] | None = None) -> AllSummary:
    """The `AllSummary` of these predictions and strata on all N judged pairs.

    `counts` (how many of `judge_all` hold each value) and `sizes` (`Counter(strata_all)`), when the caller has them
    (the report's bases count pairs per verdict pattern: 1.7M predictions at a million run records take a handful of
    values): the same summary, number for number and bit for bit, without a pass over the lists. The variance is
    exact from the counts (`variance_of`); so is the sum when no partial sum can round (`_exact_sum`: predictions
    of 0, 0.5 and 1), else it is summed over `judge_all` in order. Counts that do not add up to the lists raise
    ValueError."""
    n = len(judge_all)
    total: float | None = None
    variance: float | None = None
    if counts is not None:
        if sum(counts.values()) != n:
            raise ValueError(f"counts of {sum(counts.values())} predictions for {n}")
        total = _exact_sum(counts)
        variance = _variance_of_counts(counts) if n >= 2 else math.nan
    if sizes is not None and (strata_all is None or sum(sizes.values()) != len(strata_all)):
        raise ValueError("sizes need strata_all, and must count its every stratum key")
    return AllSummary(n, sum(judge_all) if total is None else total,
                      (variance_of(judge_all) if n >= 2 else math.nan) if variance is None else variance,
                      None if strata_all is None else Counter(strata_all if sizes is None else sizes))


def ppi_pass_rate(model: str, judge_all: Sequence[float], judge_lab: Sequence[float], human_lab: Sequence[int], *,
                  strata_all: Sequence[Any] | None = None, strata_lab: Sequence[Any] | None = None,
                  summary: AllSummary | None = None) -> PassRate:
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
    no labelled one cannot be corrected: the estimate is then undefined, with the reason.

    `summary`: `summarise_all(judge_all, strata_all)` when the caller keeps it (the same numbers, not read again)."""
    n_all, n_lab = len(judge_all), len(judge_lab)
    if summary is not None and (summary.n != n_all or (summary.sizes is None) != (strata_all is None)):
        raise ValueError("summary is not summarise_all(judge_all, strata_all)")
    raw = (sum(judge_all) if summary is None else summary.total) / n_all if n_all else math.nan
    human = sum(human_lab) / n_lab if n_lab else math.nan
    reason = None
    if n_all == 0:
        return PassRate(model, 0, math.nan, n_lab, human, math.nan, math.nan, math.nan, math.nan,
                        "no judged pairs")
    # A rate that cannot be corrected still carries its predictions' variance: it tells a judge that abstained on
    # every pair (`judge_abstained`: variance 0 strictly between 0 and 1) from one whose verdicts split evenly. Planning reads it only
    # with two labels or more.
    if n_lab == 0:
        return PassRate(model, n_all, raw, 0, math.nan, math.nan, math.nan, math.nan, math.nan,
                        "no human labels on the random sample: the judge's pass rate cannot be corrected",
                        var_pred=_var_pred(judge_all, summary))
    weight = _strata_weights(strata_all, strata_lab, n_all, n_lab, None if summary is None else summary.sizes)
    if isinstance(weight, str):
        return PassRate(model, n_all, raw, n_lab, human, math.nan, math.nan, math.nan, math.nan, weight,
                        var_pred=_var_pred(judge_all, summary))
    core = ppi_mean(judge_all, judge_lab, human_lab, weight, summary=summary)
    estimate, se, lam, method = core.estimate, core.se, core.lam, core.method
    if math.isnan(se):
        reason = "at least two judged and two labelled pairs are needed for a CI"
    # A pass rate lives in [0, 1]: the estimate and its interval are clipped there together (the normal interval can
    # poke out near the ends, and so can the estimate on few labels). An undefined SE leaves both bounds NaN.
    low, high = (math.nan, math.nan) if math.isnan(se) else (_clip01(estimate - Z_95 * se),
                                                              _clip01(estimate + Z_95 * se))
    return PassRate(model, n_all, raw, n_lab, human, _clip01(estimate), se, low, high, reason, lam, method,
                    core.var_pred, core.var_rect, core.var_y, core.cov_yf, core.var_f_lab)


def _var_pred(pred_all: Sequence[float], summary: AllSummary | None) -> float:
    """The sample variance of the predictions over all N (NaN below two), as `ppi_mean` reads it."""
    if len(pred_all) < 2:
        return math.nan
    return variance_of(pred_all) if summary is None else summary.variance


class PPIMean(NamedTuple):
    """The prediction-powered mean behind every corrected number (a pass rate, a label's share, the paired difference
    of two runs), unclipped: `var_pred` (var of the predictions over all N) and `var_rect` (var of the weighted
    rectifier y - λ f on the n labelled, floored) are what the label planning projects from
    (`stats._planning.ppi_labels_needed`). `se` is NaN below two judged or two labelled."""

    estimate: float
    se: float
    lam: float
    method: str
    var_pred: float
    var_rect: float
    n_all: int
    n_lab: int
    # the sample moments of the weighted labels and predictions on the labelled units, so planning can project what
    # the λ rule will pick with more labels: var(wy), cov(wy, wf), var(wf)
    var_y: float = math.nan
    cov_yf: float = math.nan
    var_f_lab: float = math.nan


def ppi_mean(pred_all: Sequence[float], pred_lab: Sequence[float], y_lab: Sequence[float],
             weight: Sequence[float] | None = None, *, tune_min_n: int = PPI_TUNE_MIN_N,
             summary: AllSummary | None = None) -> PPIMean:
    """PPI / PPI++ estimate of the mean of y over all N units from predictions on all N (`pred_all`, labelled units
    included, as in Angelopoulos et al. 2023) and predictions and labels on the n labelled units, each rectifier
    weighted by `weight` (post-stratification, see `ppi_pass_rate`; 1 by default). The one λ rule of the project:
    λ = 1 below PPI_TUNE_MIN_N labels, else λ̂ minimising the estimated variance, clipped to [0, 1]. Needs n >= 1
    and N >= 1 (callers say why when not). `tune_min_n` exists for the coverage benchmark (bench/ppi_coverage.py
    compares the rule with tuning from 2 labels and with λ = 1 always, a huge value); callers leave it alone.
    `summary`: `summarise_all(pred_all)` (its sum and variance) when the caller keeps it."""
    n_all, n_lab = len(pred_all), len(pred_lab)
    if n_all == 0 or n_lab == 0 or len(y_lab) != n_lab:
        raise ValueError("ppi_mean needs predictions on at least one unit and one label per labelled prediction")
    weight = [1.0] * n_lab if weight is None else list(weight)
    # PPI++ (Angelopoulos, Duchi & Zrnic 2023): theta = λ mean(f on all N) + mean(w (y - λ f) on the n labelled),
    # variance λ² var(f)/N + var(w (y - λ f))/n; the λ minimising it is cov(wy, wf)/n / (var(f)/N + var(wf)/n)
    # (for w = 1: cov(y, f) / ((1 + n/N) var(f)), the paper's mean-estimation λ̂), clipped to [0, 1] so the result is
    # never worse than the human labels alone (λ = 0) nor than plain PPI (λ = 1).
    wy = [w * h for w, h in zip(weight, y_lab)]
    wf = [w * j for w, j in zip(weight, pred_lab)]
    lam, method = 1.0, "PPI (λ = 1)"
    var_pred = _var_pred(pred_all, summary)
    total = sum(pred_all) if summary is None else summary.total
    # var(wf) and cov(wy, wf) are each computed once: the λ rule and the moments read the same numbers (each a pass
    # over the labelled units: 176k at a million run records)
    var_wf = cov_yf = None
    if n_lab >= tune_min_n and n_all >= 2:
        var_wf = variance_of(wf)
        denom = var_pred / n_all + var_wf / n_lab
        if denom > 0:
            cov_yf = statistics.covariance(wy, wf)
            lam = min(1.0, max(0.0, cov_yf / n_lab / denom))
            method = f"PPI++ (λ = {lam:.2f})"
    else:
        method = f"PPI (λ = 1: fewer than {tune_min_n} labels to tune λ)"
    rect = [y - lam * f for y, f in zip(wy, wf)]
    estimate = lam * total / n_all + sum(rect) / n_lab
    if n_lab < 2 or n_all < 2:
        return PPIMean(estimate, math.nan, lam, method, var_pred, math.nan, n_all, n_lab)
    # variance_of: statistics.variance bit for bit, from the counts of the few distinct weighted values
    moments = (variance_of(wy), statistics.covariance(wy, wf) if cov_yf is None else cov_yf,
               variance_of(wf) if var_wf is None else var_wf)
    var_rect = variance_of(rect)
    if var_rect == 0:
        # every labelled unit agrees with the prediction (or all differ alike): the plug-in variance is 0 and the CI
        # would claim certainty; floor it at the variance of one disagreement in n + 1 units (the weights average
        # 1), as the kappa interval never has zero width either. Below one disagreement's variance (1/n), so the
        # lower bound falls as disagreements are added; narrower than a Wilson interval on the labels alone
        # (docs/decisions.md, wave 14: a Wilson-sized floor at 0 only broke that order, applied below it widened
        # every small-sample interval)
        var_rect = n_lab / (n_lab + 1) ** 2
    se = math.sqrt(lam * lam * var_pred / n_all + var_rect / n_lab)
    return PPIMean(estimate, se, lam, method, var_pred, var_rect, n_all, n_lab, *moments)


def variance_of(data: Sequence[float]) -> float:
    """`statistics.variance(data)`, bit for bit, computed from the count of each distinct value when there are few
    (the judge's predictions over every judged pair take a handful of values: 0, 0.5, 1): statistics.variance is the
    exact sample variance rounded once, so the same exact sum over (value, count) rounds to the same float, at C speed
    per element instead of a Fraction per element (0.09 s per 200k values, paid again after every new label)."""
    found = _variance_of_counts(Counter(data))
    return statistics.variance(data) if found is None else found  # (below two values: its error)


def _variance_of_counts(counts: Mapping[float, int]) -> float | None:
    """`statistics.variance` of the values `counts` counts (value -> how many), exactly; None when they are not a few
    finite floats, or fewer than two."""
    if len(counts) > 64 or not all(type(x) is float and math.isfinite(x) for x in counts):
        return None
    n = sum(counts.values())
    if n < 2:
        return None
    sx = sum(c * Fraction(x) for x, c in counts.items())
    sxx = sum(c * Fraction(x) ** 2 for x, c in counts.items())
    return float((n * sxx - sx * sx) / n / (n - 1))


def _exact_sum(counts: Mapping[float, int]) -> float | None:
    """`sum()` of the values `counts` counts, in whatever order they come, when no partial sum can round: finite
    floats are multiples of 1/2^k, so every partial sum is a multiple of 1/K (K: the largest such denominator) no
    larger than the sum of the absolute values, and exact while that is below 2^53 / K. None otherwise (or for no
    values: `sum([])` is the int 0)."""
    if not counts or not all(type(x) is float and math.isfinite(x) for x in counts):
        return None
    exact = {x: Fraction(x) for x in counts}
    k = max(f.denominator for f in exact.values())
    if sum(c * abs(f) for f, c in zip(exact.values(), counts.values())) * k >= 2 ** 53:
        return None
    return float(sum(c * f for f, c in zip(exact.values(), counts.values())))


def _strata_weights(strata_all: Sequence[Any] | None, strata_lab: Sequence[Any] | None, n_all: int,
                    n_lab: int, sizes: Counter | None = None) -> list[float] | str:
    """Each labelled unit's post-stratification weight n (N_s / n_s) / N (see `ppi_pass_rate`), 1 without strata;
    a reason (str) when a judged stratum has no labelled unit or a labelled one lies outside the judged strata."""
    if strata_all is None and strata_lab is None:
        return [1.0] * n_lab
    if strata_all is None or strata_lab is None or len(strata_all) != n_all or len(strata_lab) != n_lab:
        raise ValueError("strata_all and strata_lab must both be given, one stratum per judged / labelled pair")
    size, got = (Counter(strata_all) if sizes is None else sizes), Counter(strata_lab)  # sizes: Counter(strata_all)
    missing = sorted((str(k) for k in size if k not in got))
    if missing or set(got) - set(size):
        return (f"no human label in the random sample on {', '.join(map(repr, missing))}: the judge's pass rate "
                "there cannot be corrected" if missing else "labelled pairs outside the judged strata")
    weight = {k: n_lab * size[k] / got[k] / n_all for k in got}  # one per stratum, the same float for each of its
    return list(map(weight.__getitem__, strata_lab))                # pairs (mapped in C: 176k at 1M run records)


def _clip01(x: float) -> float:
    return min(1.0, max(0.0, x))


def design_weights(sampled: Sequence[Pair], population: Iterable[Pair], stratum: Any,
                   sizes: Mapping[Any, int] | None = None) -> list[float]:
    """N_s / n_s for each sampled pair: the population pairs of its stratum over the sampled pairs of it, so the
    weighted confusion table estimates the population's under a stratified design whose sampling fraction differs by
    stratum (ceil(rate × N_s) over-samples small strata). `stratum` maps a pair to its stratum key. A sampled pair
    whose stratum has no population pair raises ValueError. `sizes`: the population's count per stratum, when the
    caller has it (then `population` is not read)."""
    size = Counter(map(stratum, population)) if sizes is None else Counter(sizes)
    strata = list(map(stratum, sampled))  # once per pair (170k labelled pairs at a million run records)
    got = Counter(strata)
    bad = {s for s in got if not size[s]}
    if bad:
        p = next(p for s, p in zip(strata, sampled) if s in bad)
        raise ValueError(f"sampled pair {p} lies outside the population's strata")
    weight = {s: size[s] / got[s] for s in got}  # one division per stratum: the same float for each of its pairs
    return list(map(weight.__getitem__, strata))


def ppi_prediction(labels: Iterable[str | None]) -> float:
    """The judge's prediction of "pass" for a pass/fail pair, from its repeats' labels (None = error row): 1 or 0 by
    the majority, 0.5 when the repeats tie or none is valid. PPI is unbiased for any predictor applied alike to
    labelled and unlabelled pairs, so an abstaining judge's pairs stay in the estimate (dropping them estimated the
    pass rate of the pairs the judge could decide, not of all pairs); the rectifier corrects the 0.5."""
    m = majority_label([l for l in labels if l is not None])
    return 0.5 if m is None else float(m == "pass")
