"""Many raters: Fleiss' kappa, Randolph's free-marginal kappa, Krippendorff's alpha.

Conventions: judgecal.annotations.stats._common."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from judgecal.annotations.stats._lazy import ndtr

from judgecal.annotations.stats._common import AgreementResult, _PE_ONE_TOL, _factorize, _missing_mask, _wald


_LEVELS = ("nominal", "ordinal", "interval", "ratio")


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
