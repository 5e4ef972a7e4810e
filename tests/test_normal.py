"""ndtr / ndtri without scipy (issue 16.2): judgecal.annotations.stats._normal must return exactly the doubles
scipy.special returns, or a p-value's last digit, and the golden report bytes with it, would move. Reference: scipy
itself (>= 1.15 evaluates both through the Cephes routines of github.com/scipy/xsf that _normal ports), compared
bit for bit (sign of zero and nan included) on over a million points per function."""

from __future__ import annotations

import math

import numpy as np
import pytest

scipy_special = pytest.importorskip("scipy.special")

from judgecal.annotations.stats import _normal, ndtr, ndtri  # noqa: E402  # house: private


def _neighbours(points, k: int = 40) -> np.ndarray:
    """Each point and the k doubles on either side: where a branch (|x| < 1, x < 8, y > exp(-2), ...) flips."""
    out = []
    for p in points:
        v = float(p)
        lo = hi = v
        out.append(v)
        for _ in range(k):
            lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
            out += [lo, hi]
    return np.array(out)


def _assert_identical(ours: np.ndarray, ref: np.ndarray, xs: np.ndarray) -> None:
    same = (ours == ref) & (np.signbit(ours) == np.signbit(ref)) | (np.isnan(ours) & np.isnan(ref))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, (f"{bad.size} of {xs.size} differ, e.g. x={xs[bad[:3]].tolist()}: "
                           f"ours {ours[bad[:3]].tolist()} vs scipy {ref[bad[:3]].tolist()}")


def test_ndtr_is_scipys_bit_for_bit() -> None:
    rng = np.random.default_rng(20261130)
    r2 = math.sqrt(2.0)
    xs = np.concatenate([
        rng.normal(0, 1, 300_000), rng.normal(0, 4, 300_000), rng.normal(0, 10, 300_000),
        rng.uniform(-40, 40, 100_000),  # both tails down to where erfc underflows (|x| ~ 38.5)
        rng.uniform(-r2, r2, 50_000),  # the erf branch (|x / sqrt 2| < 1)
        np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-300, -1e-300, 1e300, -1e300]),
        _neighbours([s * b for b in (r2, 8 * r2, 1.0, 8.0, 37.519379347, 38.4674, 26.55) for s in (1, -1)]),
    ])
    assert xs.size >= 1_000_000
    ours = np.array([_normal.ndtr(float(x)) for x in xs])
    _assert_identical(ours, scipy_special.ndtr(xs), xs)


def test_ndtri_is_scipys_bit_for_bit() -> None:
    rng = np.random.default_rng(20261201)
    ps = np.concatenate([
        rng.uniform(0, 1, 400_000),
        10 ** rng.uniform(-323, 0, 200_000),  # the lower tail, subnormals included (z = sqrt(-2 log y) past 8)
        1 - 10 ** rng.uniform(-17, 0, 200_000),  # the upper tail, mirrored through 1 - y
        scipy_special.ndtr(rng.normal(0, 4, 200_000)),
        np.array([0.0, -0.0, 1.0, 0.5, math.nan, math.inf, -math.inf, -1e-300, 1.0000000000000002, 2.0, 5e-324,
                  math.nextafter(1.0, 0.0)]),
        _neighbours([math.exp(-2), 1 - math.exp(-2), math.exp(-32), 0.5]),
    ])
    assert ps.size >= 1_000_000
    ours = np.array([_normal.ndtri(float(p)) for p in ps])
    _assert_identical(ours, scipy_special.ndtri(ps), ps)


def test_the_room_functions_keep_scipys_types() -> None:
    # A float gives numpy's float64 as scipy's ufunc did (so 1.0 / (z - z) stays inf, not ZeroDivisionError);
    # an array still goes to scipy.
    assert type(ndtr(0.3)) is np.float64 and ndtr(0.3) == scipy_special.ndtr(0.3)
    assert type(ndtri(np.float64(0.3))) is np.float64 and ndtri(0.3) == scipy_special.ndtri(0.3)
    arr = np.array([-1.0, 0.0, 2.5])
    assert np.array_equal(ndtr(arr), scipy_special.ndtr(arr))
    assert np.array_equal(ndtri(np.array([0.1, 0.9])), scipy_special.ndtri(np.array([0.1, 0.9])))


def test_a_wrong_coefficient_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison must be able to fail: one coefficient off by one unit in the last place moves some results.
    p = list(_normal._P)
    p[3] = math.nextafter(p[3], math.inf)
    monkeypatch.setattr(_normal, "_P", tuple(p))
    xs = np.linspace(1.5, 11, 20_001)
    ours = np.array([_normal.ndtr(float(x)) for x in xs])
    with pytest.raises(AssertionError, match="differ"):
        _assert_identical(ours, scipy_special.ndtr(xs), xs)
