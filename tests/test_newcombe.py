"""The difference of two independent proportions with Newcombe's hybrid score interval (his method 10), against
the published values: Newcombe RG, Interval estimation for the difference between independent proportions:
comparison of eleven methods, Statistics in Medicine 1998; 17:873-890, Table II (four decimals, z = 1.96)."""

from __future__ import annotations

import pytest

from judgecal.annotations.stats import newcombe_difference

# (x1, n1, x2, n2) -> (lower, upper), Table II, method 10
TABLE_II = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize("counts, published", TABLE_II)
def test_newcombe_method_10_matches_table_ii(counts, published):
    d, low, high = newcombe_difference(*counts, z=1.96)
    assert d == pytest.approx(counts[0] / counts[1] - counts[2] / counts[3], abs=1e-15)
    assert (low, high) == (pytest.approx(published[0], abs=6e-5), pytest.approx(published[1], abs=6e-5))


def test_never_zero_width_and_refuses_impossible_counts():
    for counts in ((0, 5, 0, 5), (5, 5, 5, 5), (0, 1, 1, 1)):
        d, low, high = newcombe_difference(*counts)
        assert low < d < high or (d in (-1.0, 1.0) and high - low > 0)
        assert -1 <= low and high <= 1
    for bad in ((3, 2, 0, 1), (0, 0, 0, 1), (-1, 3, 0, 1)):
        with pytest.raises(ValueError):
            newcombe_difference(*bad)
