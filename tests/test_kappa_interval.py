"""The kappa interval the report, the app and the gate show (annotations.stats.kappa_interval).

The library's Wald CI stays as statsmodels computes it (tests/test_agreement.py); this interval is the honest one:
within [-1, 1], never zero width, method named, approximate below MIN_N_INTERVAL.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgecal.annotations.stats import (
    MIN_N_INTERVAL, Z_95, cohen_kappa_table, kappa_interval, labels_needed, labels_needed_for_interval,
)


def test_perfect_agreement_on_13_pairs_is_not_certain():
    # The attack: 13 pairs, all agreeing. Wald: SE 0, CI [1, 1], "0 labels needed".
    t = [[10, 0], [0, 3]]
    wald = cohen_kappa_table(t)
    assert (wald.ci_low, wald.ci_high) == (1.0, 1.0)
    iv = kappa_interval(t)
    # By hand: p_o = 1, Wilson lower bound at x = n is n / (n + z^2) = 13 / (13 + 1.959964^2) = 0.771898;
    # p_e = (10/13)^2 + (3/13)^2 = 109/169; kappa_low = (0.771898 - 109/169) / (1 - 109/169) = 0.35753.
    lo_po = 13 / (13 + Z_95 ** 2)
    pe = 109 / 169
    assert iv.low == pytest.approx((lo_po - pe) / (1 - pe), abs=1e-12) == pytest.approx(0.35753, abs=1e-5)
    assert iv.high == 1.0 and iv.low < iv.high
    assert iv.approximate and iv.method == "wilson-mapped+wald"
    assert labels_needed([0] * 10 + [1] * 3, [0] * 10 + [1] * 3, 0.1) == 0  # the library's Wald projection
    assert labels_needed_for_interval(iv, 0.1) > 0  # the honest one asks for more


def test_readme_human_human_case_stays_inside_minus_one_one():
    # 17 overlap pairs, 16 agreeing, kappa 0.891 with Wald [0.70, 1.09] in the README before this change.
    t = [[11, 1], [0, 5]]
    wald = cohen_kappa_table(t)
    assert wald.ci_high > 1
    iv = kappa_interval(t)
    assert -1 <= iv.low < wald.kappa < iv.high <= 1
    assert iv.approximate  # 17 < MIN_N_INTERVAL


def test_large_imperfect_table_contains_the_wald_interval():
    t = np.array([[80, 10], [12, 98]], dtype=float)
    wald, iv = cohen_kappa_table(t), kappa_interval(t)
    assert iv.low <= wald.ci_low and iv.high >= wald.ci_high and not iv.approximate
    assert iv.n == 200 >= MIN_N_INTERVAL


def test_undefined_cases_are_nan_with_reason():
    iv = kappa_interval([[5, 0], [0, 0]])  # both raters constant: kappa undefined
    assert math.isnan(iv.low) and math.isnan(iv.high) and "expected agreement is 1" in iv.reason
    iv = kappa_interval([[4, 3], [0, 0]])  # rater A constant: kappa 0 whatever B says
    assert math.isnan(iv.low) and "single category" in iv.reason
    with pytest.raises(ValueError, match="cannot project"):
        labels_needed_for_interval(iv, 0.1)
    with pytest.raises(ValueError):
        kappa_interval([])


def test_weighted_counts_use_their_total_as_n():
    t = np.array([[8.5, 0.5], [1.0, 4.0]])
    iv = kappa_interval(t)
    assert iv.n == pytest.approx(14.0) and -1 <= iv.low < iv.high <= 1


@pytest.mark.parametrize("cells, n", [
    ([[0.475, 0.025], [0.025, 0.475]], 20),  # high agreement
    ([[0.92, 0.02], [0.02, 0.04]], 20),  # one label dominates
], ids=["2x2-high-n20", "2x2-skewed-n20"])
def test_coverage_where_wald_fails(cells, n):
    # The attack the interval exists for: small, skewed or near-perfect slices. A short version of
    # bench/kappa_interval_coverage.py (the full table is in docs/decisions.md).
    p = np.asarray(cells)
    k0 = (np.trace(p) - p.sum(1) @ p.sum(0)) / (1 - p.sum(1) @ p.sum(0))
    rng = np.random.default_rng(7)
    wald = ours = valid = 0
    for _ in range(600):
        t = rng.multinomial(n, p.ravel()).reshape(2, 2)
        r = cohen_kappa_table(t)
        if not math.isfinite(r.kappa):
            continue
        valid += 1
        wald += math.isfinite(r.se) and r.ci_low <= k0 <= r.ci_high
        iv = kappa_interval(t)
        assert not (iv.high <= iv.low)  # never zero width
        ours += (iv.low <= k0 <= iv.high) if math.isfinite(iv.low) else 1
    assert wald / valid < 0.80
    assert ours / valid >= 0.93
