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
from dataclasses import dataclass
from typing import Any

import numpy as np


#: Two-sided 95% standard-normal quantile used for every Wald interval.
Z_95 = 1.959964


# Relative tolerance for "expected agreement is 1": p_e is a sum of products
# of proportions, so exact 1.0 can come out as 1 - 1e-16.
_PE_ONE_TOL = 1e-12


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
