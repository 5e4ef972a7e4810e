"""Property-based tests (hypothesis) for annotations.stats."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judgecal.annotations.stats import (
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_table,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    pabak,
    randolph_kappa,
)

WEIGHTS = st.sampled_from([None, "linear", "quadratic"])


@st.composite
def label_pairs(draw, max_k=5, min_n=1, max_n=60):
    """Two equal-length int label lists over up to max_k categories."""
    k = draw(st.integers(1, max_k))
    n = draw(st.integers(min_n, max_n))
    a = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    return a, b


def same(x, y, tol=1e-9):
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= tol


@settings(max_examples=200, deadline=None)
@given(label_pairs(), WEIGHTS)
def test_kappa_symmetric(pair, weights):
    a, b = pair
    r1 = cohen_kappa(a, b, weights=weights)
    r2 = cohen_kappa(b, a, weights=weights)
    for f in ("kappa", "se", "se_h0", "z", "p_value", "p_observed", "p_expected"):
        assert same(getattr(r1, f), getattr(r2, f)), f
    np.testing.assert_array_equal(r1.confusion, r2.confusion.T)


@settings(max_examples=200, deadline=None)
@given(label_pairs(), st.randoms(use_true_random=False))
def test_relabelling_leaves_unweighted_kappa_unchanged(pair, rnd):
    a, b = pair
    cats = sorted(set(a) | set(b))
    names = [f"cat{i:03d}" for i in range(len(cats))]
    rnd.shuffle(names)  # new names sort in a different order
    m = dict(zip(cats, names))
    r1 = cohen_kappa(a, b)
    r2 = cohen_kappa([m[x] for x in a], [m[x] for x in b])
    for f in ("kappa", "se", "se_h0", "p_observed", "p_expected"):
        assert same(getattr(r1, f), getattr(r2, f), tol=1e-7), f
    assert same(gwet_ac1(a, b).value, gwet_ac1([m[x] for x in a], [m[x] for x in b]).value)
    assert same(pabak(a, b).value, pabak([m[x] for x in a], [m[x] for x in b]).value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), WEIGHTS)
def test_perfect_agreement_is_one_wherever_defined(a, weights):
    r = cohen_kappa(a, a, weights=weights)
    if len(set(a)) < 2:
        assert math.isnan(r.kappa) and r.reason
    else:
        assert r.kappa == pytest.approx(1.0)
        assert r.ci_low == pytest.approx(1.0) and r.ci_high == pytest.approx(1.0)
        assert gwet_ac1(a, a).value == pytest.approx(1.0)
        assert pabak(a, a).value == pytest.approx(1.0)
        for level in ("nominal", "ordinal", "interval", "ratio"):
            assert krippendorff_alpha([a, a, a], level=level).value == pytest.approx(1.0)
        counts = np.zeros((len(a), 5), dtype=int)
        counts[np.arange(len(a)), a] = 3
        assert fleiss_kappa(counts).value == pytest.approx(1.0)
        assert randolph_kappa(counts).value == pytest.approx(1.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=4, max_size=4), st.sampled_from(["linear", "quadratic"]))
def test_two_category_weighted_equals_unweighted(cells, weights):
    t = np.array(cells).reshape(2, 2)
    assume(t.sum() > 0)
    u = cohen_kappa_table(t)
    w = cohen_kappa_table(t, weights=weights)
    for f in ("kappa", "se", "se_h0", "z", "p_value", "ci_low", "ci_high"):
        assert same(getattr(u, f), getattr(w, f)), f


@settings(max_examples=200, deadline=None)
@given(label_pairs(), WEIGHTS)
def test_arrays_and_table_agree_and_bounds(pair, weights):
    a, b = pair
    r = cohen_kappa(a, b, weights=weights)
    t = cohen_kappa_table(r.confusion, weights=weights)
    assert same(r.kappa, t.kappa) and same(r.se, t.se)
    assert r.n == len(a) == int(r.confusion.sum())
    if math.isnan(r.kappa):
        assert r.reason and r.p_expected == pytest.approx(1.0)
    else:
        assert -1.0 - 1e-9 <= r.kappa <= 1.0 + 1e-9
        if math.isnan(r.se):
            # one rater constant: kappa is exactly 0, its CI undefined with a reason
            assert r.kappa == 0.0 and math.isnan(r.ci_low) and "single category" in r.reason
            return
        assert r.se >= 0 and r.ci_low <= r.kappa <= r.ci_high
        if math.isnan(r.p_value):
            assert r.reason and "H0" in r.reason  # NaN always comes with a reason
        else:
            assert r.reason is None
            assert 0.0 <= r.p_value <= 1.0


@settings(max_examples=100, deadline=None)
@given(label_pairs(min_n=2, max_n=40), st.integers(0, 2**31 - 1))
def test_bootstrap_reproducible(pair, seed):
    a, b = pair
    r1 = bootstrap_ci(a, b, n_resamples=50, seed=seed)
    r2 = bootstrap_ci(a, b, n_resamples=50, seed=seed)
    assert same(r1.low, r2.low) and same(r1.high, r2.high)
    if not math.isnan(r1.low):
        assert r1.low <= r1.high


@st.composite
def reliability_data(draw):
    raters = draw(st.integers(2, 4))
    units = draw(st.integers(2, 12))
    cells = draw(st.lists(st.one_of(st.none(), st.integers(1, 5)),
                          min_size=raters * units, max_size=raters * units))
    assume(any(c is not None for c in cells))
    return [cells[r * units:(r + 1) * units] for r in range(raters)]


@settings(max_examples=200, deadline=None)
@given(reliability_data(), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
       st.randoms(use_true_random=False))
def test_krippendorff_invariant_to_rater_and_unit_order(data, level, rnd):
    base = krippendorff_alpha(data, level=level)
    rows = list(data)
    rnd.shuffle(rows)
    perm = list(range(len(data[0])))
    rnd.shuffle(perm)
    shuffled = [[row[j] for j in perm] for row in rows]
    other = krippendorff_alpha(shuffled, level=level)
    assert same(base.value, other.value) and base.n == other.n


@settings(max_examples=200, deadline=None)
@given(reliability_data(), st.floats(0.1, 10), st.floats(-100, 100))
def test_krippendorff_interval_affine_invariant(data, scale, shift):
    f = [[None if v is None else v * scale + shift for v in row] for row in data]
    assert same(krippendorff_alpha(data, level="interval").value,
                krippendorff_alpha(f, level="interval").value, tol=1e-7)


@settings(max_examples=200, deadline=None)
@given(reliability_data())
def test_krippendorff_nominal_invariant_to_renaming(data):
    # Nominal alpha only uses whether two values are equal, so any bijective
    # renaming (here ints -> reversed-order strings) leaves it unchanged.
    renamed = [[None if v is None else f"v{6 - v}" for v in row] for row in data]
    assert same(krippendorff_alpha(data).value, krippendorff_alpha(renamed).value)
