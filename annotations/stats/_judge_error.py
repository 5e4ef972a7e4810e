"""Where the judge errs: TPR/TNR per model under test, and a regression of the judge's verdict on covariates.

Pure arithmetic on arrays (numpy/scipy): the reports gather the counted pairs and their covariates and call these.

- TPR/TNR per model under test, each with a Wilson score interval: a rate pooled over the models hides a judge that
  is harsher on one of them (issue 15: TNR 0.62 for one model, 0.79 for the other, 0.70 pooled).
- Judge-error regression: for each covariate x on its own, the logistic model
  logit P(judge says pass) = b0 + b1 · [human says pass] + b2 · x, fitted by IRLS (Newton on the log-likelihood)
  and b2 = 0 tested by the likelihood ratio (chi-square, 1 df). Conditioning on the human label is the point: the
  judge's error rates are P(pass | human fail) and P(fail | human pass), so b2 ≠ 0 says the judge's errors depend on
  x. An unconditioned regression of (judge − human) on x, as truescore's `judge_error_regression` runs, also flags
  a judge whose errors do NOT depend on x whenever the true pass rate does (longer answers really are better more
  often): its signed error is −FNR on passes and +FPR on fails, so it moves with the pass share. The covariates tried
  form one family: Holm's step-down correction (Holm 1979) keeps the chance of flagging any of them on a clean judge
  at or below alpha.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from judgecal.annotations.stats._common import Z_95
from judgecal.annotations.stats._two_rater import _wilson
from judgecal.annotations.stats._lazy import chi2_sf, expit, norm_sf

#: Pairs with a covariate value below which no regression is fitted: a logistic fit on a handful of verdicts gives
#: p-values the chi-square approximation does not support.
MIN_REGRESSION_N = 20
#: Family-wise error rate of the covariate tests (Holm).
ALPHA = 0.05
#: A fitted log-odds coefficient beyond this (odds ratio e^30 per unit) is separation, however Newton ended.
MAX_COEF = 30.0


@dataclass(frozen=True)
class ErrorRate:
    """`hits` of `n` with a 95% Wilson score interval; NaN when n = 0."""

    hits: int
    n: int
    rate: float
    low: float
    high: float


def wilson_rate(hits: int, n: int) -> ErrorRate:
    """A share with its 95% Wilson score interval (never zero width, within [0, 1])."""
    if n < 0 or hits < 0 or hits > n:
        raise ValueError(f"need 0 <= hits <= n, got hits={hits}, n={n}")
    if n == 0:
        return ErrorRate(0, 0, math.nan, math.nan, math.nan)
    lo, hi = _wilson(hits / n, n)
    return ErrorRate(hits, n, hits / n, max(0.0, lo), min(1.0, hi))


@dataclass(frozen=True)
class ModelErrorRates:
    """The judge against the humans on one model under test's counted pass/fail pairs. Fail is the positive class:
    `tpr` = human-fail pairs the judge calls fail, `tnr` = human-pass pairs the judge calls pass. A judge abstention
    (tie, no valid repeat) is neither: it counts against both rates, as in the agreement table."""

    model: str
    n: int
    tpr: ErrorRate
    tnr: ErrorRate
    abstain: int


def error_rates_by_model(models: Sequence[str], judge: Sequence[str], human: Sequence[str]
                         ) -> tuple[ModelErrorRates, ...]:
    """TPR/TNR with Wilson intervals per model under test, in model order. `judge` labels are "pass", "fail" or
    anything else (an abstention); `human` labels must be "pass" or "fail"."""
    if not len(models) == len(judge) == len(human):
        raise ValueError("models, judge and human need one entry per pair")
    bad = sorted({h for h in human if h not in ("pass", "fail")})
    if bad:
        raise ValueError(f"human labels must be pass or fail, got {bad[:3]}")
    out = []
    for m in sorted(set(models)):
        idx = [i for i, x in enumerate(models) if x == m]
        fails = [i for i in idx if human[i] == "fail"]
        passes = [i for i in idx if human[i] == "pass"]
        out.append(ModelErrorRates(
            m, len(idx), wilson_rate(sum(judge[i] == "fail" for i in fails), len(fails)),
            wilson_rate(sum(judge[i] == "pass" for i in passes), len(passes)),
            sum(judge[i] not in ("pass", "fail") for i in idx)))
    return tuple(out)


class LogitFit(NamedTuple):
    """Maximum-likelihood logistic regression: coefficients, their Wald standard errors (inverse observed
    information), the maximised log-likelihood and whether Newton converged (it does not under separation, where
    the log-likelihood approaches its supremum and the coefficients diverge)."""

    coef: np.ndarray
    se: np.ndarray
    loglik: float
    converged: bool


def _loglik(X: np.ndarray, y: np.ndarray, beta: np.ndarray) -> float:
    eta = X @ beta
    # log(1 + e^eta) without overflow
    return float(np.sum(y * eta - np.logaddexp(0.0, eta)))


def logistic_fit(X: np.ndarray, y: np.ndarray, *, max_iter: int = 100, tol: float = 1e-10) -> LogitFit:
    """Fit logit P(y = 1) = X beta by Newton-Raphson (IRLS) with step halving. X includes the intercept column.

    Raises ValueError for mismatched shapes, non-binary y or a rank-deficient X (a covariate that is constant or a
    copy of another has no identifiable effect)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be n × k and y length n, got {X.shape} and {y.shape}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must be 0/1")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite")
    if np.linalg.matrix_rank(X) < X.shape[1]:
        raise ValueError("the design is rank deficient (a constant or collinear covariate)")
    beta = np.zeros(X.shape[1])
    ll = _loglik(X, y, beta)
    converged = False
    for _ in range(max_iter):
        p = expit(X @ beta)
        w = p * (1.0 - p)
        info = X.T @ (X * w[:, None])
        try:
            step = np.linalg.solve(info, X.T @ (y - p))
        except np.linalg.LinAlgError:
            break  # information singular: fitted probabilities at 0/1 (separation)
        t = 1.0
        while True:
            new = beta + t * step
            new_ll = _loglik(X, y, new)
            if new_ll >= ll - 1e-12 or t < 1e-8:
                break
            t /= 2
        beta, gain = new, new_ll - ll
        ll = new_ll
        if abs(gain) < tol and np.max(np.abs(t * step)) < 1e-6:
            converged = True
            break
    p = expit(X @ beta)
    info = X.T @ (X * (p * (1.0 - p))[:, None])
    try:
        diag = np.diag(np.linalg.inv(info))
        # a near-singular information (fitted probabilities at 0/1) can give negative variances: no SE, not a warning
        se = np.sqrt(np.where(diag > 0, diag, math.nan))
    except np.linalg.LinAlgError:
        se = np.full(X.shape[1], math.nan)
    if not converged or not np.all(np.isfinite(se)):
        converged = False
    return LogitFit(beta, se, ll, converged)


def cluster_robust_se(X: np.ndarray, y: np.ndarray, fit: LogitFit, clusters: Sequence) -> np.ndarray:
    """Cluster-robust (sandwich) standard errors of a logistic fit, with statsmodels' small-sample factor
    G/(G−1) · (n−1)/(n−k) (`cov_type="cluster"`): pairs of one item share its errors, so the model-based SE, which
    counts them as independent, is too small."""
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    p = expit(X @ fit.coef)
    bread = np.linalg.inv(X.T @ (X * (p * (1.0 - p))[:, None]))
    index: dict = {}
    codes = np.fromiter((index.setdefault(c, len(index)) for c in clusters), dtype=np.intp, count=n)
    g = len(index)
    scores = np.zeros((g, k))
    np.add.at(scores, codes, X * (np.asarray(y, dtype=float) - p)[:, None])
    cov = bread @ (scores.T @ scores) @ bread * (g / (g - 1)) * ((n - 1) / (n - k))
    diag = np.diag(cov)
    return np.sqrt(np.where(diag > 0, diag, math.nan))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm (1979) step-down adjusted p-values, in input order; NaN entries stay NaN and are not counted in the
    family."""
    idx = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    m = len(idx)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda j: p_values[j])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


class Covariate(NamedTuple):
    """A covariate of the counted pairs: one value per pair (None = unknown, the pair is left out of that test) and
    the unit one step of it means ("doubling of output tokens", "SD = 3.2 rounds", "tag present")."""

    name: str
    values: Sequence[float | None]
    unit: str


@dataclass(frozen=True)
class CovariateEffect:
    """One covariate's effect on the judge's verdict among pairs with the same human label.

    `odds_ratio` (with its 95% Wald interval) multiplies the odds that the judge says pass per `unit`: above 1 the
    judge favours pairs with more of it (more false passes on human fails, fewer false fails on human passes).
    `p_value` is the test the decision uses: the likelihood-ratio test (`p_lr`) when every pair is its own cluster,
    the cluster-robust Wald test (`p_cluster`, clustered by item) when pairs share items (the LR test counts them as
    independent); `p_wald` is the model-based Wald test, for reference. `p_holm` is p_value Holm-adjusted over the
    covariates tried; `significant` is p_holm < alpha. `reason` says why a covariate was not tested (NaN numbers).
    The interval of the odds ratio uses the SE of the test used."""

    covariate: str
    unit: str
    n: int
    odds_ratio: float
    ci_low: float
    ci_high: float
    coef: float
    se: float
    p_value: float
    p_wald: float
    p_holm: float
    significant: bool
    reason: str | None = None
    p_lr: float = math.nan
    p_cluster: float = math.nan
    clusters: int = 0


@dataclass(frozen=True)
class JudgeErrorRegression:
    """The covariate tests of one judge on its counted pass/fail pairs (see the module docstring)."""

    n: int  # pairs with a judge label (abstentions are left out: they are neither pass nor fail)
    abstain: int
    alpha: float
    method: str
    effects: tuple[CovariateEffect, ...]

    @property
    def flagged(self) -> tuple[CovariateEffect, ...]:
        return tuple(e for e in self.effects if e.significant)


REGRESSION_METHOD = ("logit P(judge pass) = b0 + b1·[human pass] (+ an intercept per constraint) + b2·x per covariate "
                     "x, IRLS; test of b2 = 0: "
                     "likelihood ratio, or cluster-robust Wald by item where pairs share items; Holm across the "
                     "covariates tried")


def _untested(c: Covariate, n: int, reason: str) -> CovariateEffect:
    nan = math.nan
    return CovariateEffect(c.name, c.unit, n, nan, nan, nan, nan, nan, nan, nan, nan, False, reason)


def _exp(v: float) -> float:
    """exp that saturates at inf (a huge cluster-robust SE) and passes NaN through."""
    return math.inf if v > 700 else math.exp(v) if math.isfinite(v) or v < 0 else math.nan


def _informative(use: np.ndarray, judge_pass: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """`use` without the pairs of strata where the judge gave one label: with a stratum's own intercept they carry no
    information on the covariate (as in conditional logistic regression) and would only diverge the fit."""
    out = use.copy()
    for s in set(strata[use].tolist()):
        rows = use & (strata == s)
        if judge_pass[rows].min() == judge_pass[rows].max():
            out &= ~rows
    return out


def _one_covariate(c: Covariate, judge_pass: np.ndarray, human_pass: np.ndarray, keep: np.ndarray,
                   clusters: np.ndarray | None, strata: np.ndarray | None) -> CovariateEffect:
    try:  # None is NaN: converted in C (28 covariates of 176k pairs at a million run records)
        vals = np.array(c.values, dtype=float)
    except (TypeError, ValueError):
        vals = np.array([math.nan if v is None else float(v) for v in c.values], dtype=float)
    use = keep & np.isfinite(vals)
    n = int(use.sum())
    if n < MIN_REGRESSION_N:
        return _untested(c, n, f"{n} pairs with a value and a judge label, {MIN_REGRESSION_N} needed")
    if np.ptp(vals[use]) == 0:
        return _untested(c, n, "the same value on every pair")
    if judge_pass[use].min() == judge_pass[use].max():
        return _untested(c, n, "the judge gave one label on every pair")
    if strata is not None:
        use = _informative(use, judge_pass, strata)
        n = int(use.sum())
        if n < MIN_REGRESSION_N:
            return _untested(c, n, f"{n} pairs in strata where the judge gave both labels, {MIN_REGRESSION_N} needed")
    x, y, h = vals[use], judge_pass[use], human_pass[use]
    if np.ptp(x) == 0:
        return _untested(c, n, "the same value on every pair")
    cols = [np.ones(n)] + ([h] if h.min() != h.max() else [])
    if strata is not None:
        levels = sorted(set(strata[use].tolist()))
        cols += [(strata[use] == lev).astype(float) for lev in levels[1:]]
    base = np.column_stack(cols)
    full = np.column_stack([base, x])
    try:
        f1, f0 = logistic_fit(full, y), logistic_fit(base, y)
    except ValueError as exc:
        return _untested(c, n, str(exc))
    lr = max(0.0, 2.0 * (f1.loglik - f0.loglik))
    p_lr = float(chi2_sf(lr, 1))
    b, se = float(f1.coef[-1]), float(f1.se[-1])
    groups = clusters[use] if clusters is not None else None
    g = len(set(groups.tolist())) if groups is not None else n
    p_cl = math.nan
    # |b| beyond MAX_COEF is quasi-separation that Newton reports as converged: treated as separation
    if f1.converged and math.isfinite(se) and se > 0 and abs(b) < MAX_COEF:
        p_wald = float(2 * norm_sf(abs(b) / se))
        if g < n and g >= 2:
            se = float(cluster_robust_se(full, y, f1, groups.tolist())[-1])
            p_cl = float(2 * norm_sf(abs(b) / se)) if se > 0 else math.nan
        lo, hi = _exp(b - Z_95 * se), _exp(b + Z_95 * se)
        odds = math.exp(b)
    else:
        # separation: the effect is unbounded; the likelihood-ratio test still stands, the Wald numbers do not
        p_wald, lo, hi, se = math.nan, math.nan, math.nan, math.nan
        odds = math.inf if b > 0 else 0.0
    p = p_cl if g < n and not math.isnan(p_cl) else p_lr
    return CovariateEffect(c.name, c.unit, n, odds, lo, hi, b, se, p, p_wald, math.nan, False, None, p_lr, p_cl, g)


def judge_error_regression(judge: Sequence[str], human: Sequence[str], covariates: Iterable[Covariate], *,
                           alpha: float = ALPHA, clusters: Sequence | None = None,
                           strata: Sequence | None = None) -> JudgeErrorRegression:
    """Test each covariate for an effect on the judge's verdict given the human label (module docstring).

    `judge` holds the judge's label per counted pair ("pass", "fail", or an abstention, left out), `human` the blind
    first human label ("pass"/"fail"). Each covariate has one value per pair. A covariate with fewer than
    MIN_REGRESSION_N usable pairs, a constant value or a judge that gave one label is reported untested with the
    reason and stays out of the Holm family. `clusters` (one key per pair, e.g. the item) makes the test
    cluster-robust where pairs share a cluster. `strata` (one key per pair, e.g. the constraint id) gives each stratum
    its own intercept, so a judge that is more lenient on one constraint whose outputs happen to be longer is not
    read as favouring length; pairs of strata where the judge gave one label are left out of that fit."""
    if len(judge) != len(human):
        raise ValueError("judge and human need one label per pair")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    bad = sorted({h for h in human if h not in ("pass", "fail")})
    if bad:
        raise ValueError(f"human labels must be pass or fail, got {bad[:3]}")
    if clusters is not None and len(clusters) != len(judge):
        raise ValueError(f"{len(clusters)} cluster keys for {len(judge)} pairs")
    groups = None if clusters is None else np.asarray([str(c) for c in clusters], dtype=object)
    if strata is not None and len(strata) != len(judge):
        raise ValueError(f"{len(strata)} strata keys for {len(judge)} pairs")
    levels = None if strata is None else np.asarray([str(s) for s in strata], dtype=object)
    keep = np.array([j in ("pass", "fail") for j in judge], dtype=bool)
    judge_pass = np.array([j == "pass" for j in judge], dtype=float)
    human_pass = np.array([h == "pass" for h in human], dtype=float)
    effects = []
    for c in covariates:
        if len(c.values) != len(judge):
            raise ValueError(f"covariate {c.name!r} has {len(c.values)} values for {len(judge)} pairs")
        effects.append(_one_covariate(c, judge_pass, human_pass, keep, groups, levels))
    adjusted = holm([e.p_value for e in effects])
    effects = [e if math.isnan(p) else _with_holm(e, p, alpha) for e, p in zip(effects, adjusted)]
    return JudgeErrorRegression(int(keep.sum()), int((~keep).sum()), alpha, REGRESSION_METHOD, tuple(effects))


def _with_holm(e: CovariateEffect, p_holm: float, alpha: float) -> CovariateEffect:
    return replace(e, p_holm=p_holm, significant=p_holm < alpha)


def log2_length(values: Sequence[float | None]) -> list[float | None]:
    """log2(1 + length): one step is a doubling, and a few very long outputs do not decide the fit alone."""
    return [None if v is None or v < 0 else math.log2(1.0 + float(v)) for v in values]


def standardised(values: Sequence[float | None]) -> tuple[list[float | None], float]:
    """(values in SD units around their mean, the SD); an SD of 0 or fewer than 2 values leave them as they are."""
    try:  # in C where the values convert (None is NaN): the same floats, the same IEEE operations
        array = np.array(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        array = None
    if array is None or array.ndim != 1:
        known = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    else:
        finite = np.isfinite(array)
        known = array[finite].tolist()
    if len(known) < 2:
        return list(values), math.nan
    mean = sum(known) / len(known)
    sd = math.sqrt(sum((v - mean) ** 2 for v in known) / (len(known) - 1))  # (`** 2`: pow, as ever, not v * v)
    if sd == 0:
        return list(values), 0.0
    if array is None or array.ndim != 1:
        return [None if v is None or not math.isfinite(float(v)) else (float(v) - mean) / sd for v in values], sd
    out: list[float | None] = ((array - mean) / sd).tolist()
    for k in np.flatnonzero(~finite).tolist():
        out[k] = None
    return out, sd
