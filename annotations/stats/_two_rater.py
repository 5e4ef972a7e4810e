"""Two raters: Cohen's kappa (unweighted and weighted), Gwet's AC1, PABAK, McNemar's exact test.

Conventions: judgecal.annotations.stats._common."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from judgecal.annotations.stats._lazy import binom_cdf, ndtr

from judgecal.annotations.stats._common import (
    AgreementResult, Z_95, _PE_ONE_TOL, _as_1d, _factorize, _missing_mask, _numberlike, _sqrt_var, _wald,
    interpret_kappa,
)


_WEIGHTS = (None, "linear", "quadratic")


@dataclass(frozen=True, eq=False)
class KappaResult:
    """Cohen's (optionally weighted) kappa with its large-sample inference.

    ``se`` is the Fleiss-Cohen-Everitt (1969) non-null asymptotic standard
    error (SAS "ASE"), used for ``ci_low``/``ci_high``. ``se_h0`` is the
    standard error under H0: kappa = 0, used for ``z`` and the two-sided
    ``p_value``. ``confusion`` is the count table, rows = rater A, columns =
    rater B, in ``labels`` order (read-only). When kappa is undefined every
    derived field is NaN and ``reason`` says why; ``reason`` is also set when
    only ``z``/``p_value`` are NaN (zero SE under H0), and is None when every
    field is defined. When one rater used a single category and the other
    did not, kappa is exactly 0 (p_o = p_e whatever the other rater says) and
    the asymptotic SEs are 0 by construction, so ``se``, ``se_h0``, ``z``,
    ``p_value`` and the CI are NaN with a reason rather than a false-certain
    [0, 0]. With perfect agreement the
    asymptotic ``se`` is exactly 0 (a degenerate, over-confident interval
    [1, 1]); use :func:`bootstrap_ci` if that matters.
    """

    kappa: float
    n: int
    p_observed: float
    p_expected: float
    se: float
    se_h0: float
    z: float
    p_value: float
    ci_low: float
    ci_high: float
    labels: tuple
    confusion: np.ndarray = field(repr=False)
    weights: str | None = None
    reason: str | None = None

    @property
    def interpretation(self) -> str:
        """Landis & Koch (1977) reading of ``kappa``."""
        return interpret_kappa(self.kappa)


def _pair_codes(
    a: Any, b: Any, labels: Sequence | None, exact: bool = False
) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Joint integer codes for two label sequences plus the category tuple."""
    aa = _as_1d(a, "a", exact)
    bb = _as_1d(b, "b", exact)
    from_list = not exact and (
        (isinstance(a, (list, tuple)) and aa.dtype.kind == "U")
        or (isinstance(b, (list, tuple)) and bb.dtype.kind == "U"))
    if aa.shape[0] != bb.shape[0]:
        raise ValueError(
            f"a and b must have the same length, got {aa.shape[0]} and {bb.shape[0]}"
        )
    if aa.shape[0] == 0:
        raise ValueError("empty input: a and b contain no labels")
    ma, mb = _missing_mask(aa), _missing_mask(bb)
    if ma is not None or mb is not None:
        keep = ~((ma if ma is not None else False) | (mb if mb is not None else False))
        aa, bb = aa[keep], bb[keep]
        if aa.shape[0] == 0:
            raise ValueError("empty input: every pair has a missing (None/NaN) label")
    n_a = aa.shape[0]
    if aa.dtype != bb.dtype:
        both = np.concatenate([aa.astype(object), bb.astype(object)])
    else:
        both = np.concatenate([aa, bb])
    uniques, codes, is_sorted = _factorize(both)
    if from_list and any(_numberlike(u) for u in uniques.tolist()):
        # A list may have mixed numbers and strings that numpy stringified;
        # redo the conversion exactly (slower, object dtype).
        return _pair_codes(a, b, labels, exact=True)
    if labels is None:
        if not is_sorted:
            raise ValueError(
                "labels are not mutually comparable (mixed types such as 1 and "
                "'a'), so there is no sorted order; pass labels= explicitly")
        cats = tuple(uniques.tolist())
    else:
        cats = tuple(np.asarray(labels).tolist()) if not isinstance(labels, (list, tuple)) else tuple(labels)
        if len(cats) == 0:
            raise ValueError("labels must not be empty")
        index = {lab: i for i, lab in enumerate(cats)}
        if len(index) != len(cats):
            raise ValueError("labels contains duplicates")
        # Loop over the (few) distinct observed values only, not over items.
        lut = np.array([index.get(u, -1) for u in uniques.tolist()], dtype=np.intp)
        codes = lut[codes]
    ca, cb = codes[:n_a], codes[n_a:]
    if labels is not None:
        keep = (ca >= 0) & (cb >= 0)
        if not keep.all():
            ca, cb = ca[keep], cb[keep]
        if ca.shape[0] == 0:
            raise ValueError("empty input: no pair has both labels inside `labels`")
    return ca, cb, cats


def _confusion(ca: np.ndarray, cb: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(ca * k + cb, minlength=k * k).reshape(k, k)


def _validate_table(table: Any) -> np.ndarray:
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"contingency table must be square, got shape {t.shape}")
    if t.shape[0] == 0:
        raise ValueError("empty input: contingency table has no categories")
    if not np.all(np.isfinite(t)):
        raise ValueError("contingency table contains NaN or infinite counts")
    if (t < 0).any():
        raise ValueError("contingency table contains negative counts")
    if t.sum() <= 0:
        raise ValueError("empty input: contingency table has no observations")
    return t


def _agreement_weights(k: int, weights: str | None) -> np.ndarray:
    """Agreement weights w_ij in [0, 1] with categories spaced by rank."""
    if weights not in _WEIGHTS:
        raise ValueError(f"weights must be one of {_WEIGHTS}, got {weights!r}")
    if weights is None or k == 1:
        return np.eye(k)
    d = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
    return 1.0 - d if weights == "linear" else 1.0 - d * d


def _kappa_batch(tables: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Kappa for a stack of (B, k, k) count tables; NaN where p_e == 1."""
    n = tables.sum(axis=(1, 2))
    p = tables / n[:, None, None]
    r, c = p.sum(2), p.sum(1)
    po = np.einsum("bij,ij->b", p, w)
    pe = np.einsum("bi,ij,bj->b", r, w, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        kap = (po - pe) / (1.0 - pe)
    kap[np.abs(1.0 - pe) <= _PE_ONE_TOL] = np.nan
    return kap


def kappa_from_table(t: np.ndarray, weights: str | None, labels: tuple) -> KappaResult:
    k = t.shape[0]
    w = _agreement_weights(k, weights)
    n = float(t.sum())
    p = t / n
    r, c = p.sum(1), p.sum(0)
    po = float((w * p).sum())
    pe = float(r @ w @ c)
    conf = t.copy()
    conf.setflags(write=False)
    common = dict(n=int(round(n)), p_observed=po, p_expected=pe, labels=labels,
                  confusion=conf, weights=weights)
    if abs(1.0 - pe) <= _PE_ONE_TOL:
        used = [labels[i] for i in np.flatnonzero((r > 0) | (c > 0))]
        reason = (
            "kappa is undefined: expected agreement is 1 because both raters "
            f"used only the single category {used[0]!r}" if len(used) == 1 else
            "kappa is undefined: expected (chance) agreement is 1"
        )
        nan = math.nan
        return KappaResult(kappa=nan, se=nan, se_h0=nan, z=nan, p_value=nan,
                           ci_low=nan, ci_high=nan, reason=reason, **common)
    kap = (po - pe) / (1.0 - pe)
    constant = [(who, m) for who, m in (("A", r), ("B", c)) if np.count_nonzero(m) == 1]
    if constant:
        # One rater used a single category while the other varied: p_o = p_e identically, so kappa is exactly 0
        # whatever the other rater says, and the asymptotic SE (and SE under H0) come out 0 because kappa cannot
        # move, not because it is known. A [0, 0] interval would be false certainty: kappa 0, the rest undefined.
        who, m = constant[0]
        nan = math.nan
        reason = (f"the CI is undefined: rater {who} used only the single category {labels[int(np.flatnonzero(m)[0])]!r}, "
                  "so kappa is 0 whatever the other rater says and its standard error is 0 by construction")
        return KappaResult(kappa=0.0, se=nan, se_h0=nan, z=nan, p_value=nan, ci_low=nan, ci_high=nan,
                           reason=reason, **common)
    # Fleiss, Cohen & Everitt (1969): weighted row/column means of the weights
    # give the influence of each cell; with w = I this is the familiar
    # unweighted formula (SAS PROC FREQ "ASE").
    wi = w @ c  # \bar w_{i.} = sum_j p_.j w_ij
    wj = r @ w  # \bar w_{.j} = sum_i p_i. w_ij
    dev = w - (wi[:, None] + wj[None, :]) * (1.0 - kap)
    denom = n * (1.0 - pe) ** 2
    se = _sqrt_var(float((p * dev * dev).sum()), (kap - pe * (1.0 - kap)) ** 2, denom)
    dev0 = w - (wi[:, None] + wj[None, :])
    se0 = _sqrt_var(float((np.outer(r, c) * dev0 * dev0).sum()), pe * pe, denom)
    reason = None
    if se0 > 0:
        z = kap / se0
        pval = float(2.0 * ndtr(-abs(z)))
    else:
        # Happens when the margins leave no room for chance variation (e.g.
        # a single pair); kappa itself is still defined.
        z = pval = math.nan
        reason = "z and p_value are undefined: the standard error under H0 is 0"
    return KappaResult(kappa=float(kap), se=se, se_h0=se0, z=float(z), p_value=pval,
                       ci_low=float(kap - Z_95 * se), ci_high=float(kap + Z_95 * se),
                       reason=reason, **common)


def cohen_kappa(
    a: Sequence, b: Sequence, *, labels: Sequence | None = None,
    weights: str | None = None,
) -> KappaResult:
    """Cohen's kappa between two raters' label sequences.

    Parameters
    ----------
    a, b:
        Equal-length label sequences (strings, ints, ...); ``a`` is rater A
        (the table rows). Pairs where either label is ``None``/NaN are dropped.
    labels:
        Fixes the category order (and so the weight spacing) and the table
        size; pairs with a label outside it are dropped. Default: sorted
        union of the observed labels.
    weights:
        ``None`` (unweighted), ``"linear"`` or ``"quadratic"``; categories
        are spaced by rank in the label order.

    Edge cases: empty input, unequal lengths, or nothing left after dropping
    raise ``ValueError``. If the expected agreement is 1 (e.g. both raters
    always say ``"pass"``), kappa and its statistics are NaN with ``reason``.
    If only one rater is constant, kappa is 0 and its SE/CI are NaN with
    ``reason`` (see :class:`KappaResult`).
    """
    ca, cb, cats = _pair_codes(a, b, labels)
    t = _confusion(ca, cb, len(cats)).astype(float)
    return kappa_from_table(t, weights, cats)


def cohen_kappa_table(table: Any, *, weights: str | None = None) -> KappaResult:
    """Cohen's kappa from a square contingency table (rows = rater A).

    Category order is the row/column order; ``labels`` in the result are the
    integer positions 0..k-1. Tables may hold non-integer (weighted) counts.
    Empty or non-square tables raise ``ValueError``.
    """
    t = _validate_table(table)
    return kappa_from_table(t, weights, tuple(range(t.shape[0])))


def ac1_batch(tables: np.ndarray) -> np.ndarray:
    q = tables.shape[1]
    n = tables.sum(axis=(1, 2))
    p = tables / n[:, None, None]
    pi = (p.sum(2) + p.sum(1)) / 2.0
    pe = (pi * (1.0 - pi)).sum(1) / (q - 1)
    pa = np.einsum("bii->b", p)
    return (pa - pe) / (1.0 - pe)


def _pabak_batch(tables: np.ndarray) -> np.ndarray:
    q = tables.shape[1]
    n = tables.sum(axis=(1, 2))
    pa = np.einsum("bii->b", tables) / n
    return (q * pa - 1.0) / (q - 1)


def _two_rater_table(a, b, labels) -> tuple[np.ndarray, tuple]:
    ca, cb, cats = _pair_codes(a, b, labels)
    return _confusion(ca, cb, len(cats)).astype(float), cats


def gwet_ac1(a: Sequence, b: Sequence, *, labels: Sequence | None = None) -> AgreementResult:
    """Gwet's (2008) AC1 for two raters, with Gwet's variance.

    AC1 = (p_a - p_e) / (1 - p_e) with p_e = sum_k pi_k (1 - pi_k) / (q - 1),
    pi_k the mean of the two raters' marginal proportions. Unlike kappa it
    stays high when one label dominates and the raters agree. ``q`` is the
    number of categories: ``len(labels)`` or the number observed, so pass
    ``labels`` to declare categories nobody used. The SE is Gwet (2008)
    eq. for two raters (infinite population), CI = AC1 +/- 1.959964 SE.

    Edge cases: with a single category (q = 1) AC1 is NaN with a reason.
    """
    t, cats = _two_rater_table(a, b, labels)
    q = len(cats)
    n = float(t.sum())
    p = t / n
    pa = float(np.trace(p))
    if q < 2:
        return AgreementResult(
            value=math.nan, n=int(n), method="gwet_ac1", p_observed=pa,
            reason=f"AC1 is undefined with a single category ({cats[0]!r}); "
                   "pass labels= listing every possible category")
    pi = (p.sum(1) + p.sum(0)) / 2.0
    pe = float((pi * (1.0 - pi)).sum() / (q - 1))
    ac1 = (pa - pe) / (1.0 - pe)
    # Gwet (2008), two-rater variance: each cell's linearised influence.
    term = np.eye(q) - 2.0 * (1.0 - ac1) * (1.0 - (pi[:, None] + pi[None, :]) / 2.0) / (q - 1)
    se = _sqrt_var(float((p * term * term).sum()), (pa - 2.0 * (1.0 - ac1) * pe) ** 2,
                   n * (1.0 - pe) ** 2)
    lo, hi = _wald(ac1, se)
    return AgreementResult(value=float(ac1), n=int(n), se=se, ci_low=lo, ci_high=hi,
                           method="gwet_ac1", p_observed=pa, p_expected=pe)


def pabak(a: Sequence, b: Sequence, *, labels: Sequence | None = None) -> AgreementResult:
    """Prevalence-adjusted bias-adjusted kappa (Byrt, Bishop & Carlin 1993).

    For two categories PABAK = 2 p_o - 1; for q categories the same
    free-marginal idea gives (q p_o - 1) / (q - 1) (Brennan & Prediger
    1981). The SE is the binomial SE of p_o scaled by q / (q - 1) (Gwet's
    Brennan-Prediger variance). ``q`` is ``len(labels)`` or the number of
    observed categories, so pass ``labels=["pass", "fail"]`` for a binary
    judge even if one label never occurs.

    Edge cases: with a single category PABAK is NaN with a reason.
    """
    t, cats = _two_rater_table(a, b, labels)
    q = len(cats)
    n = float(t.sum())
    pa = float(np.trace(t) / n)
    if q < 2:
        return AgreementResult(
            value=math.nan, n=int(n), method="pabak", p_observed=pa,
            reason=f"PABAK is undefined with a single category ({cats[0]!r}); "
                   "pass labels= listing every possible category")
    val = (q * pa - 1.0) / (q - 1)
    se = q / (q - 1) * math.sqrt(pa * (1.0 - pa) / n)
    lo, hi = _wald(val, se)
    return AgreementResult(value=float(val), n=int(n), se=se, ci_low=lo, ci_high=hi,
                           method="pabak", p_observed=pa, p_expected=1.0 / q)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b and c.

    Under H0 b ~ Binomial(b + c, 1/2); the two-sided p-value doubles the
    smaller tail and is capped at 1. ``b + c == 0`` (no discordant pairs)
    returns 1.0. Negative or non-integer counts raise ``ValueError``.
    """
    if int(b) != b or int(c) != c or b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative integers, got {b}, {c}")
    b, c = int(b), int(c)
    n = b + c
    if n == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom_cdf(min(b, c), n, 0.5)))


#: Below this many pairs a kappa interval is labelled approximate: the simulated coverage of every method we tried
#: (bench/kappa_interval_coverage.py) still varies by table shape there.
MIN_N_INTERVAL = 30


KAPPA_INTERVAL_METHOD = "wilson-mapped+wald"


@dataclass(frozen=True)
class KappaInterval:
    """A 95% interval for kappa that never claims certainty it does not have.

    ``low``/``high`` lie within [-1, 1] and ``low < high`` whenever they are
    defined; ``method`` names how they were computed; ``approximate`` is True
    below :data:`MIN_N_INTERVAL` pairs. NaN bounds come with ``reason``."""

    low: float
    high: float
    method: str
    approximate: bool
    n: float
    reason: str | None = None


def _wilson(po: float, n: float, z: float = Z_95) -> tuple[float, float]:
    d = 1.0 + z * z / n
    centre = (po + z * z / (2.0 * n)) / d
    half = z * math.sqrt(max(po * (1.0 - po), 0.0) / n + z * z / (4.0 * n * n)) / d
    return centre - half, centre + half


def kappa_interval(table: Any, *, weights: str | None = None, labels: Sequence | None = None,
                   z: float = Z_95) -> KappaInterval:
    """The interval the report, the app and the gate show for Cohen's kappa of a count table (rows = rater A).

    Method ``"wilson-mapped+wald"``: the Wilson score interval of the observed agreement p_o (n pairs) mapped
    through kappa = (p_o - p_e) / (1 - p_e) at the observed p_e, joined (the hull) with the Wald interval
    kappa +/- 1.96 SE when that SE is defined and positive, then clipped to [-1, 1]. The Wilson bound has positive
    width at every n, also at perfect agreement (where the Wald SE is 0 and Wald claims [1, 1]); the hull keeps the
    Wald width where p_e is itself uncertain (skewed tables at larger n). Chosen by simulated coverage, see
    docs/decisions.md and bench/kappa_interval_coverage.py: >= 0.96 on skewed and high-agreement 2x2 and 4x4 tables
    at n = 20, 50, 200, where Wald gets 0.56-0.94 and BCa 0.39-0.97. Tables may hold non-integer (design-weighted)
    counts: their total is the n used (pass a table scaled to an effective sample size). For weighted kappa p_o is
    the weighted agreement, still a mean in [0, 1].

    ``z`` is the normal quantile of both parts (default 1.96: 95%); a larger one gives the wider interval a
    multiplicity-adjusted gate reads (`run_gate`: Bonferroni over the rubric versions `--rubric` chose among).

    NaN bounds with ``reason`` when kappa is undefined (expected agreement 1) and when one rater used a single
    category (kappa is then 0 whatever the other rater says: the data carry no information on kappa). Empty or
    malformed tables raise ``ValueError``. ``labels`` only name the categories in ``reason``.
    """
    t = _validate_table(table)
    res = kappa_from_table(t, weights, tuple(labels) if labels is not None else tuple(range(t.shape[0])))
    n = float(t.sum())
    approximate = n < MIN_N_INTERVAL
    if not math.isfinite(res.kappa) or not math.isfinite(res.se):
        return KappaInterval(math.nan, math.nan, KAPPA_INTERVAL_METHOD, approximate, n, res.reason)
    pe = res.p_expected
    lo_po, hi_po = _wilson(min(max(res.p_observed, 0.0), 1.0), n, z)
    low, high = (lo_po - pe) / (1.0 - pe), (hi_po - pe) / (1.0 - pe)
    if res.se > 0:
        low, high = min(low, res.kappa - z * res.se), max(high, res.kappa + z * res.se)
    return KappaInterval(max(-1.0, low), min(1.0, high), KAPPA_INTERVAL_METHOD, approximate, n)
