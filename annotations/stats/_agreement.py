"""Inter-rater agreement statistics for judge calibration.

Everything here is numpy/scipy only and vectorised: label arrays are
factorised once into integer codes, counted into a contingency table with
``np.bincount``, and every statistic (including each bootstrap resample) is
computed from tables, so the cost after factorisation does not depend on the
number of items.

Conventions (shared by every function in this module)
------------------------------------------------------
* Empty input, mismatched lengths, negative counts and malformed tables raise
  ``ValueError`` with a message saying what was wrong.
* A statistic that is mathematically undefined for the data (for example
  Cohen's kappa when both raters always answer ``"pass"``: the expected
  agreement is 1 and kappa is 0/0) is returned as ``nan`` together with a
  human-readable ``reason``. It is never silently reported as 0 or 1.
* Missing labels (``None`` or float NaN) in the two-rater functions drop the
  pair; ``n`` reports the pairs actually used.
* Category order is the ``labels`` argument when given, otherwise the sorted
  union of the observed labels. Weighted kappa spaces categories by their
  rank in that order (R ``irr::kappa2`` and SAS PROC FREQ convention).
* Confidence intervals are Wald intervals, estimate +/- 1.959964 * SE (they
  match statsmodels), except :func:`kappa_interval`, the interval to SHOW and
  to gate on: it stays within [-1, 1], never has zero width and names its
  method (see its docstring and docs/decisions.md).

References
----------
Cohen (1960); Cohen (1968) weighted kappa; Fleiss, Cohen & Everitt (1969)
large-sample standard errors of kappa and weighted kappa; Fleiss (1971);
Fleiss, Nee & Landis (1979); Landis & Koch (1977); Byrt, Bishop & Carlin
(1993) PABAK; Brennan & Prediger (1981); Randolph (2005) free-marginal
kappa; Gwet (2008) AC1 and its variance; Krippendorff (2011) "Computing
Krippendorff's Alpha-Reliability"; Efron (1987) BCa intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import binom

__all__ = [
    "Z_95",
    "KappaResult",
    "AgreementResult",
    "BootstrapCI",
    "cohen_kappa",
    "cohen_kappa_table",
    "fleiss_kappa",
    "randolph_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
    "pabak",
    "bootstrap_ci",
    "labels_needed",
    "labels_needed_for_interval",
    "KappaInterval",
    "kappa_interval",
    "MIN_N_INTERVAL",
    "interpret_kappa",
    "mcnemar_exact",
]

#: Two-sided 95% standard-normal quantile used for every Wald interval.
Z_95 = 1.959964

_WEIGHTS = (None, "linear", "quadratic")
_LEVELS = ("nominal", "ordinal", "interval", "ratio")
# Relative tolerance for "expected agreement is 1": p_e is a sum of products
# of proportions, so exact 1.0 can come out as 1 - 1e-16.
_PE_ONE_TOL = 1e-12


# ---------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------


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


@dataclass(frozen=True)
class AgreementResult:
    """A chance-corrected agreement coefficient.

    ``value`` is the coefficient, ``n`` the number of subjects/items/units
    actually used. ``se``/``ci_low``/``ci_high`` are filled where a published
    variance formula exists (NaN otherwise); ``se_h0``/``z``/``p_value`` where
    a published null-hypothesis test exists. ``reason`` explains a NaN
    ``value``.
    """

    value: float
    n: int
    se: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    reason: str | None = None
    method: str = ""
    p_observed: float = math.nan
    p_expected: float = math.nan
    se_h0: float = math.nan
    z: float = math.nan
    p_value: float = math.nan


@dataclass(frozen=True)
class BootstrapCI:
    """Bootstrap confidence interval.

    ``n_invalid`` counts resamples whose statistic was undefined (NaN); they
    are excluded from the quantiles. ``low``/``high`` are NaN when the point
    estimate itself is undefined.
    """

    low: float
    high: float
    method: str
    n_resamples: int
    confidence: float
    estimate: float
    n_invalid: int = 0


# ---------------------------------------------------------------------------
# Factorisation helpers
# ---------------------------------------------------------------------------


def _as_1d(x: Any, name: str, exact: bool = False) -> np.ndarray:
    # np.asarray(["a", 1]) silently gives the strings "a", "1". Lists are
    # first converted the fast way; _pair_codes re-does the conversion with
    # exact=True (object array, 1 and "1" distinct) if any resulting label
    # looks like a stringified number.
    if exact and isinstance(x, (list, tuple)):
        arr = np.asarray(x, dtype=object)
    else:
        arr = np.asarray(x)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be a sequence of labels, got a scalar")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def _missing_mask(arr: np.ndarray) -> np.ndarray | None:
    """Boolean mask of None/NaN entries, or None when the dtype cannot hold them."""
    kind = arr.dtype.kind
    if kind == "f":
        m = np.isnan(arr)
        return m if m.any() else None
    if kind == "O":
        # Elementwise comparisons run in C; `x != x` is the NaN test.
        m = np.asarray(arr == None, dtype=bool) | np.asarray(arr != arr, dtype=bool)  # noqa: E711
        return m if m.any() else None
    return None


def _native(arr: np.ndarray) -> np.ndarray:
    """Object array -> str/int/float array when that conversion is lossless.

    numpy sorts native dtypes in C but object arrays through Python
    comparisons (10-50x slower). The round-trip check keeps 1 and "1"
    distinct: a conversion is used only if every element survives it.
    """
    for dt in ("U", np.int64, np.float64):
        try:
            conv = arr.astype(dt)
        except (TypeError, ValueError, OverflowError):
            continue
        if bool(np.all(conv.astype(object) == arr)):
            return conv
    return arr


_HASH_MULT = np.uint64(0x100000001B3)  # FNV-1 64-bit prime
_MAX_HASH_WIDTH = 64  # characters; longer labels just use np.unique


def _factorize_uint64(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes for uint64 keys; O(n k) / O(n log k) when the key set is small."""
    # A sample finds the candidate keys of typical label data (a handful of
    # categories), so codes come without a full O(n log n) sort. Keys the
    # sample missed (rare categories, periodic data) are added from the
    # leftovers and the pass repeated; many distinct keys fall back to
    # np.unique.
    cand = np.unique(h[:: max(1, h.size // 4096)])
    for _ in range(8):
        if cand.size <= 16:
            # Counting "greater than" over a few candidates beats a branchy
            # binary search on unsorted keys.
            pos = np.zeros(h.size, dtype=np.intp)
            for c in cand[:-1]:  # loop over categories, not items
                pos += h > c
        elif cand.size <= 1024:
            pos = np.minimum(np.searchsorted(cand, h), cand.size - 1)
        else:
            break
        miss = cand[pos] != h
        if not miss.any():
            return cand, pos
        left = h[miss]
        cand = np.union1d(cand, left[:: max(1, left.size // 4096)])
    uniq, codes = np.unique(h, return_inverse=True)
    return uniq, codes.reshape(-1)


def _factorize_strings(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Sorted uniques and codes for a fixed-width str/bytes array, or None.

    Sorting strings is the slow part of np.unique, so hash each label's
    fixed-width code units column by column (vectorised over items), factorise
    the integer hashes, and verify the result against the strings themselves;
    on a hash collision return None and let the caller use np.unique.
    """
    arr = np.ascontiguousarray(arr)
    unit = np.uint32 if arr.dtype.kind == "U" else np.uint8
    width = arr.dtype.itemsize // np.dtype(unit).itemsize
    if width == 0 or width > _MAX_HASH_WIDTH:
        return None
    cols = arr.view(unit).reshape(arr.size, width)
    h = np.zeros(arr.size, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):  # loop over character positions, not items
            h *= _HASH_MULT
            h ^= cols[:, j]
    _, hcodes = _factorize_uint64(h)
    k = int(hcodes.max()) + 1
    rep = np.empty(k, dtype=np.intp)
    rep[hcodes] = np.arange(arr.size)  # any member of each hash class
    reps = arr[rep]
    if not np.array_equal(reps[hcodes], arr):
        return None  # collision: two different labels share a hash
    order = np.argsort(reps, kind="stable")
    rank = np.empty(k, dtype=np.intp)
    rank[order] = np.arange(k)
    return reps[order], rank[hcodes]


def _factorize(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Unique values, int codes and whether the uniques are sorted.

    Input must not contain missing values. Small-range integers are counted
    with bincount (O(n)); everything else goes through np.unique. Values of
    mutually incomparable types (e.g. 1 and "a") cannot be sorted; they fall
    back to first-appearance order via a dict (a per-item Python loop, only
    reached for such mixed-type data) and the flag is False.
    """
    if arr.size == 0:
        return arr[:0], np.zeros(0, dtype=np.intp), True
    if arr.dtype.kind == "O":
        arr = _native(arr)
    kind = arr.dtype.kind
    if kind in "US":
        fast = _factorize_strings(arr)
        if fast is not None:
            return fast[0], fast[1], True
    if kind in "biu":
        lo = int(arr.min())
        hi = int(arr.max())
        span = hi - lo + 1
        if span <= max(1 << 16, 4 * arr.size):
            shifted = (arr - lo).astype(np.intp, copy=False)
            present = np.bincount(shifted, minlength=span) > 0
            lut = np.cumsum(present) - 1
            uniques = (np.flatnonzero(present) + lo).astype(arr.dtype)
            return uniques, lut[shifted], True
    try:
        uniques, codes = np.unique(arr, return_inverse=True)
        return uniques, codes.reshape(-1).astype(np.intp, copy=False), True
    except TypeError:
        index: dict = {}
        codes = np.fromiter((index.setdefault(v, len(index)) for v in arr.tolist()),
                            dtype=np.intp, count=arr.size)
        uniques = np.empty(len(index), dtype=object)
        uniques[:] = list(index)
        return uniques, codes, False


def _numberlike(s: Any) -> bool:
    if not isinstance(s, str):
        return False
    if s in ("True", "False"):
        return True
    try:
        complex(s)
    except ValueError:
        return False
    return True


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


# ---------------------------------------------------------------------------
# Cohen's kappa
# ---------------------------------------------------------------------------


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


def _kappa_from_table(t: np.ndarray, weights: str | None, labels: tuple) -> KappaResult:
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
    return _kappa_from_table(t, weights, cats)


def cohen_kappa_table(table: Any, *, weights: str | None = None) -> KappaResult:
    """Cohen's kappa from a square contingency table (rows = rater A).

    Category order is the row/column order; ``labels`` in the result are the
    integer positions 0..k-1. Tables may hold non-integer (weighted) counts.
    Empty or non-square tables raise ``ValueError``.
    """
    t = _validate_table(table)
    return _kappa_from_table(t, weights, tuple(range(t.shape[0])))


# ---------------------------------------------------------------------------
# Two-rater coefficients robust to prevalence: Gwet's AC1 and PABAK
# ---------------------------------------------------------------------------


def _ac1_batch(tables: np.ndarray) -> np.ndarray:
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


def _sqrt_var(pos: float, neg: float, denom: float) -> float:
    """sqrt((pos - neg) / denom), treating cancellation noise as exactly 0.

    Both terms are O(1) sums; at perfect agreement they are equal in exact
    arithmetic, and a 1e-17 rounding residue would otherwise show up as a
    spurious 3e-9 standard error.
    """
    diff = pos - neg
    if diff <= 64.0 * np.finfo(float).eps * max(abs(pos), abs(neg), 1.0):
        return 0.0
    return math.sqrt(diff / denom)


def _wald(value: float, se: float) -> tuple[float, float]:
    return value - Z_95 * se, value + Z_95 * se


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


# ---------------------------------------------------------------------------
# Multi-rater: Fleiss' kappa and Randolph's free-marginal kappa
# ---------------------------------------------------------------------------


def _validate_counts(counts: Any) -> tuple[np.ndarray, int]:
    x = np.asarray(counts, dtype=float)
    if x.size == 0:
        raise ValueError("empty input: counts has no subjects or no categories")
    if x.ndim != 2:
        raise ValueError(f"counts must be a subjects x categories matrix, got shape {x.shape}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError("empty input: counts has no subjects or no categories")
    if not np.all(np.isfinite(x)) or (x < 0).any():
        raise ValueError("counts must be finite and non-negative")
    if not np.all(x == np.round(x)):
        raise ValueError("counts must be whole numbers of raters")
    m = x.sum(1)
    if not np.all(m == m[0]):
        raise ValueError(
            "every subject must be rated by the same number of raters; "
            f"row totals range from {int(m.min())} to {int(m.max())} "
            "(use krippendorff_alpha for missing ratings)")
    if m[0] < 2:
        raise ValueError(f"need at least 2 raters per subject, got {int(m[0])}")
    return x, int(m[0])


def fleiss_kappa(counts: Any) -> AgreementResult:
    """Fleiss' (1971) kappa from a subjects x categories count matrix.

    ``counts[i, j]`` is how many raters put subject i in category j; every
    row must sum to the same number of raters m >= 2 (``ValueError``
    otherwise). ``se`` is Gwet's (2008) variance of the generalised pi
    (valid without assuming independent raters) and gives the CI;
    ``se_h0``/``z``/``p_value`` are the Fleiss, Nee & Landis (1979) test of
    kappa = 0 (the ``z`` R ``irr::kappam.fleiss`` prints).

    Edge cases: if all ratings fall in one category the chance agreement is 1
    and the value is NaN with a reason.
    """
    x, m = _validate_counts(counts)
    N = x.shape[0]
    pj = x.sum(0) / (N * m)
    Pi = ((x * x).sum(1) - m) / (m * (m - 1))
    pbar = float(Pi.mean())
    pe = float((pj * pj).sum())
    if abs(1.0 - pe) <= _PE_ONE_TOL:
        return AgreementResult(
            value=math.nan, n=N, method="fleiss_kappa", p_observed=pbar, p_expected=pe,
            reason="Fleiss' kappa is undefined: every rating is in the same "
                   "category, so chance agreement is 1")
    kap = (pbar - pe) / (1.0 - pe)
    # Gwet (2008): per-subject linearisation; the second term accounts for
    # the estimated chance agreement, so no independence assumption is needed.
    k_i = (Pi - pe) / (1.0 - pe)
    pe_i = (x @ pj) / m
    k_ix = k_i - 2.0 * (1.0 - kap) * (pe_i - pe) / (1.0 - pe)
    se = math.sqrt(float(((k_ix - kap) ** 2).sum()) / (N * (N - 1))) if N > 1 else math.nan
    lo, hi = _wald(kap, se)
    qj = 1.0 - pj
    s = float((pj * qj).sum())
    var0 = 2.0 / (s * s * N * m * (m - 1)) * (s * s - float((pj * qj * (qj - pj)).sum()))
    se0 = math.sqrt(max(var0, 0.0))
    z = kap / se0 if se0 > 0 else math.nan
    pval = float(2.0 * ndtr(-abs(z))) if se0 > 0 else math.nan
    return AgreementResult(value=float(kap), n=N, se=se, ci_low=lo, ci_high=hi,
                           method="fleiss_kappa", p_observed=pbar, p_expected=pe,
                           se_h0=se0, z=float(z), p_value=pval)


def randolph_kappa(counts: Any) -> AgreementResult:
    """Randolph's (2005) free-marginal multirater kappa.

    kappa_free = (P_o - 1/q) / (1 - 1/q) where P_o is Fleiss' mean pairwise
    agreement and q is the number of columns of ``counts`` (the categories
    raters could choose, used or not). It equals the multi-rater
    Brennan-Prediger coefficient, so ``se`` is Gwet's variance for that
    coefficient (per-subject agreement variance). Same input rules as
    :func:`fleiss_kappa`.

    Edge cases: with a single category (q = 1) the value is NaN with a reason.
    """
    x, m = _validate_counts(counts)
    N, q = x.shape
    Pi = ((x * x).sum(1) - m) / (m * (m - 1))
    po = float(Pi.mean())
    if q < 2:
        return AgreementResult(
            value=math.nan, n=N, method="randolph_kappa", p_observed=po,
            reason="free-marginal kappa is undefined with a single category")
    pe = 1.0 / q
    val = (po - pe) / (1.0 - pe)
    k_i = (Pi - pe) / (1.0 - pe)
    se = math.sqrt(float(((k_i - val) ** 2).sum()) / (N * (N - 1))) if N > 1 else math.nan
    lo, hi = _wald(val, se)
    return AgreementResult(value=float(val), n=N, se=se, ci_low=lo, ci_high=hi,
                           method="randolph_kappa", p_observed=po, p_expected=pe)


# ---------------------------------------------------------------------------
# Krippendorff's alpha
# ---------------------------------------------------------------------------


def krippendorff_alpha(data: Any, *, level: str = "nominal") -> AgreementResult:
    """Krippendorff's alpha for a raters x units matrix with missing values.

    ``data[r, u]`` is rater r's value for unit u; ``None`` or NaN marks a
    missing rating. Units with fewer than two values are not pairable and are
    dropped (``n`` counts the units kept). ``level`` is ``"nominal"`` (any
    hashable, comparable labels), ``"ordinal"`` (values ranked by sort
    order; distances from the coincidence marginals, Krippendorff 2011),
    ``"interval"`` or ``"ratio"`` (numeric values). Computed through the
    coincidence matrix, vectorised over units.

    No analytic SE is given (Krippendorff recommends bootstrapping), so
    ``se``/CI fields are NaN. Edge cases: an empty or all-missing matrix
    raises ``ValueError``; no pairable unit, or no variation among pairable
    values (expected disagreement 0), gives NaN with a reason.
    """
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")
    arr = np.asarray(data, dtype=object if not isinstance(data, np.ndarray) else None)
    if arr.ndim != 2:
        raise ValueError(f"data must be a raters x units matrix, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("empty input: data has no raters or no units")
    n_units = arr.shape[1]
    flat = arr.T.reshape(-1)  # unit-major so unit index = position // raters
    miss = _missing_mask(flat)
    present = np.ones(flat.shape[0], dtype=bool) if miss is None else ~miss
    if not present.any():
        raise ValueError("empty input: every rating is missing")
    vals = flat[present]
    unit_idx = np.flatnonzero(present) // arr.shape[0]
    if level in ("interval", "ratio"):
        try:
            vals = vals.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"level={level!r} needs numeric values") from exc
    uniques, codes, is_sorted = _factorize(vals)
    if level == "ordinal" and not is_sorted:
        raise ValueError("level='ordinal' needs values that can be sorted")
    V = len(uniques)
    counts = np.bincount(unit_idx * V + codes, minlength=n_units * V).reshape(n_units, V)
    m_u = counts.sum(1)
    pairable = m_u >= 2
    n_used = int(pairable.sum())
    if n_used == 0:
        return AgreementResult(value=math.nan, n=0, method=f"krippendorff_alpha[{level}]",
                               reason="alpha is undefined: no unit has two or more values")
    cu = counts[pairable].astype(float)
    wu = cu / (m_u[pairable] - 1.0)[:, None]
    # Coincidence matrix o_ck = sum_u n_uc (n_uk - [c == k]) / (m_u - 1).
    o = cu.T @ wu
    o[np.diag_indices(V)] -= wu.sum(0)
    n_c = o.sum(1)
    n_tot = float(n_c.sum())
    if level == "nominal":
        delta = 1.0 - np.eye(V)
    elif level == "ordinal":
        # delta_ck = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 over ranks c <= k.
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        i = np.arange(V)
        lo_, hi_ = np.minimum.outer(i, i), np.maximum.outer(i, i)
        span = cum[hi_ + 1] - cum[lo_]
        delta = (span - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    else:
        v = uniques.astype(float)
        diff = np.subtract.outer(v, v)
        if level == "interval":
            delta = diff * diff
        else:
            if (v < 0).any():
                raise ValueError("level='ratio' needs non-negative values")
            s = np.add.outer(v, v)
            with np.errstate(divide="ignore", invalid="ignore"):
                delta = np.where(s > 0, (diff / s) ** 2, 0.0)
    d_o = float((o * delta).sum())
    d_e = float(n_c @ delta @ n_c)
    if d_e <= 0:
        return AgreementResult(
            value=math.nan, n=n_used, method=f"krippendorff_alpha[{level}]",
            reason="alpha is undefined: pairable values show no variation "
                   "(expected disagreement is 0)")
    alpha = 1.0 - (n_tot - 1.0) * d_o / d_e
    # Agreement proportions only make sense for the 0/1 nominal distance.
    nominal = level == "nominal"
    return AgreementResult(
        value=float(alpha), n=n_used, method=f"krippendorff_alpha[{level}]",
        p_observed=1.0 - d_o / n_tot if nominal else math.nan,
        p_expected=1.0 - d_e / (n_tot * (n_tot - 1.0)) if nominal else math.nan)


# ---------------------------------------------------------------------------
# Bootstrap, sample size, helpers
# ---------------------------------------------------------------------------


def _batch_statistic(statistic: str | Callable, weights: str | None) -> Callable[[np.ndarray], np.ndarray]:
    if callable(statistic):
        def run(tables: np.ndarray) -> np.ndarray:
            # User callables get one table at a time: O(n_resamples) Python
            # calls, but never O(items).
            return np.array([float(statistic(t)) for t in tables])
        return run
    if statistic == "kappa":
        def run_kappa(tables: np.ndarray) -> np.ndarray:
            return _kappa_batch(tables, _agreement_weights(tables.shape[1], weights))
        return run_kappa
    if weights is not None:
        raise ValueError("weights only apply to statistic='kappa'")
    if statistic == "gwet_ac1":
        return _ac1_batch
    if statistic == "pabak":
        return _pabak_batch
    raise ValueError(
        "statistic must be 'kappa', 'gwet_ac1', 'pabak' or a callable taking a "
        f"k x k count table, got {statistic!r}")


def bootstrap_ci(
    a: Sequence, b: Sequence, statistic: str | Callable = "kappa", n_resamples: int = 1000,
    confidence: float = 0.95, seed: int | np.random.Generator | None = None,
    method: str = "percentile", *, labels: Sequence | None = None,
    weights: str | None = None,
) -> BootstrapCI:
    """Nonparametric bootstrap CI for a two-rater agreement statistic.

    Resampling n items with replacement is the same as drawing the
    confusion table from Multinomial(n, observed cell proportions), so each
    resample costs O(k^2), not O(n): 1,000 resamples over 100k pairs take
    milliseconds. ``statistic`` is ``"kappa"`` (honours ``weights``),
    ``"gwet_ac1"``, ``"pabak"``, or a callable mapping a k x k count table
    (rows = rater A, ``labels`` order) to a float. ``method`` is
    ``"percentile"`` or ``"bca"`` (bias-corrected and accelerated; the
    acceleration uses the exact jackknife, which only has k^2 distinct
    leave-one-out tables). The same ``seed`` gives the same interval.

    Edge cases: resamples whose statistic is undefined are dropped and
    counted in ``n_invalid``; if the point estimate is undefined the bounds
    are NaN. Empty or mismatched input raises ``ValueError``.
    """
    if method not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    n_resamples = int(n_resamples)
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    fn = _batch_statistic(statistic, weights)
    t, cats = _two_rater_table(a, b, labels)
    k = t.shape[0]
    if not callable(statistic) and statistic in ("gwet_ac1", "pabak") and k < 2:
        theta = math.nan
    else:
        theta = float(fn(t[None])[0])
    if not math.isfinite(theta):
        return BootstrapCI(math.nan, math.nan, method, n_resamples, confidence, theta, n_resamples)
    n = int(round(t.sum()))
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, (t / t.sum()).ravel(), size=n_resamples)
    boot = fn(draws.reshape(n_resamples, k, k).astype(float))
    ok = np.isfinite(boot)
    n_invalid = int((~ok).sum())
    boot = boot[ok]
    if boot.size == 0:
        return BootstrapCI(math.nan, math.nan, method, n_resamples, confidence, theta, n_invalid)
    alpha = 1.0 - confidence
    q_lo, q_hi = alpha / 2.0, 1.0 - alpha / 2.0
    if method == "bca":
        # Bias correction: ties count half so a degenerate bootstrap
        # distribution (all equal to theta) gives z0 = 0, not +/-inf.
        prop = (np.count_nonzero(boot < theta) + 0.5 * np.count_nonzero(boot == theta)) / boot.size
        z0 = float(ndtri(np.clip(prop, 1.0 / (2 * boot.size), 1.0 - 1.0 / (2 * boot.size))))
        # Jackknife: removing one item from cell (i, j) yields the same table
        # for every item in that cell, weighted by the cell count.
        cells = np.flatnonzero(t.ravel() > 0)
        jack_tables = np.repeat(t[None], cells.size, axis=0).reshape(cells.size, -1)
        jack_tables[np.arange(cells.size), cells] -= 1.0
        wts = t.ravel()[cells]
        jack = fn(jack_tables.reshape(-1, k, k))
        good = np.isfinite(jack)
        acc = 0.0
        if good.any():
            jw, jv = wts[good], jack[good]
            mean = float((jw * jv).sum() / jw.sum())
            d = mean - jv
            den = float((jw * d * d).sum())
            if den > 0:
                acc = float((jw * d ** 3).sum()) / (6.0 * den ** 1.5)
        za, zb = ndtri(q_lo), ndtri(q_hi)
        q_lo = float(ndtr(z0 + (z0 + za) / (1.0 - acc * (z0 + za))))
        q_hi = float(ndtr(z0 + (z0 + zb) / (1.0 - acc * (z0 + zb))))
    lo, hi = np.quantile(boot, [q_lo, q_hi])
    return BootstrapCI(float(lo), float(hi), method, n_resamples, confidence, theta, n_invalid)


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


def interpret_kappa(k: float) -> str:
    """Landis & Koch (1977) plain-words reading of a kappa-type coefficient.

    < 0 "poor", 0-0.20 "slight", 0.21-0.40 "fair", 0.41-0.60 "moderate",
    0.61-0.80 "substantial", 0.81-1 "almost perfect" (upper bounds
    inclusive). NaN gives "undefined".
    """
    if k is None or not math.isfinite(k):
        return "undefined"
    if k < 0:
        return "poor"
    if k <= 0.20:
        return "slight"
    if k <= 0.40:
        return "fair"
    if k <= 0.60:
        return "moderate"
    if k <= 0.80:
        return "substantial"
    return "almost perfect"


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
    return float(min(1.0, 2.0 * binom.cdf(min(b, c), n, 0.5)))


# ---------------------------------------------------------------------------
# The interval to show: bounded, never zero width, method named
# ---------------------------------------------------------------------------

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


def kappa_interval(table: Any, *, weights: str | None = None, labels: Sequence | None = None) -> KappaInterval:
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

    NaN bounds with ``reason`` when kappa is undefined (expected agreement 1) and when one rater used a single
    category (kappa is then 0 whatever the other rater says: the data carry no information on kappa). Empty or
    malformed tables raise ``ValueError``. ``labels`` only name the categories in ``reason``.
    """
    t = _validate_table(table)
    res = _kappa_from_table(t, weights, tuple(labels) if labels is not None else tuple(range(t.shape[0])))
    n = float(t.sum())
    approximate = n < MIN_N_INTERVAL
    if not math.isfinite(res.kappa) or not math.isfinite(res.se):
        return KappaInterval(math.nan, math.nan, KAPPA_INTERVAL_METHOD, approximate, n, res.reason)
    pe = res.p_expected
    lo_po, hi_po = _wilson(min(max(res.p_observed, 0.0), 1.0), n)
    low, high = (lo_po - pe) / (1.0 - pe), (hi_po - pe) / (1.0 - pe)
    if res.se > 0:
        low, high = min(low, res.kappa - Z_95 * res.se), max(high, res.kappa + Z_95 * res.se)
    return KappaInterval(max(-1.0, low), min(1.0, high), KAPPA_INTERVAL_METHOD, approximate, n)


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
