"""Wave 11's faster paths of the report (issue 16.2) give the same numbers, bit for bit, as the paths they replace:

- `summarise_all` from counts of each prediction value and stratum (the report's bases count pairs per verdict class)
  equals the one over the lists, including where a sequential sum rounds (then the list is summed in order);
- `standardised` (the judge-error covariates, now converted and scaled in C) equals the per-value Python version;
- `_first_appearance` (label codes and item numbers by `minimum.at`) equals the `np.unique` numbering;
- a covariate given as an array is tested exactly as the same values given as a list (None as NaN).

The end-to-end equality (every report on the demo projects, per pair against columns, byte-identical JSON at scale)
is tests/test_report_columns.py's and tests/test_scale_golden.py's."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from judgecal.annotations.reports._calibration import _first_appearance  # house: private
from judgecal.annotations.stats import Covariate, judge_error_regression, standardised, summarise_all


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


@pytest.mark.parametrize("values", [(0.0, 0.5, 1.0), (0.0, 1 / 3, 0.5, 1.0), (0.1, 0.7, 1e16), (0.25, 0.75)])
def test_summary_from_counts_is_the_summary_of_the_lists(values):
    rng = random.Random(7)
    for n in (0, 1, 2, 3, 50, 2000):
        judge = [rng.choice(values) for _ in range(n)]
        strata = [rng.choice("abc") for _ in range(n)]
        plain = summarise_all(judge, strata)
        counted = summarise_all(judge, strata, counts=Counter(judge), sizes=Counter(strata))
        assert counted.n == plain.n and counted.sizes == plain.sizes
        assert _same(counted.total, plain.total) and type(counted.total) is type(plain.total)
        assert _same(counted.variance, plain.variance)


def test_a_sum_that_rounds_is_summed_in_order():
    # 1e16 + 0.7 rounds: the order of the additions decides the float, so the counts cannot stand in for the list
    judge = [1e16] + [0.7] * 9
    assert sum(judge) != sum(sorted(judge))
    assert summarise_all(judge, counts=Counter(judge)).total == sum(judge)
    assert summarise_all(judge[::-1], counts=Counter(judge)).total == sum(judge[::-1])


def test_counts_that_do_not_match_the_lists_raise():
    with pytest.raises(ValueError, match="counts"):
        summarise_all([1.0, 0.0], counts={1.0: 1})
    with pytest.raises(ValueError, match="sizes"):
        summarise_all([1.0, 0.0], ["a", "b"], counts={1.0: 1, 0.0: 1}, sizes={"a": 1})
    with pytest.raises(ValueError, match="sizes"):
        summarise_all([1.0, 0.0], counts={1.0: 1, 0.0: 1}, sizes={"a": 2})


def _standardised_per_value(values):
    known = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if len(known) < 2:
        return list(values), math.nan
    mean = sum(known) / len(known)
    sd = math.sqrt(sum((v - mean) ** 2 for v in known) / (len(known) - 1))
    if sd == 0:
        return list(values), 0.0
    return [None if v is None or not math.isfinite(float(v)) else (float(v) - mean) / sd for v in values], sd


def test_standardised_equals_the_per_value_version():
    rng = random.Random(3)
    pool = [None, math.inf, -math.inf, math.nan, 3, True, 0, 10 ** 6]
    for _ in range(400):
        values = [rng.choice(pool) if rng.random() < 0.3 else rng.uniform(-1e3, 1e5) for _ in range(rng.randint(0, 40))]
        got, sd = standardised(values)
        want, want_sd = _standardised_per_value(values)
        assert _same(sd, want_sd)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert (g is None and w is None) or (type(g) is type(w) and _same(float(g), float(w)))
    for bad in ([1.0, None, "x"], [2.0, "3.5x"]):  # not numbers: the same error as before
        with pytest.raises(ValueError):
            _standardised_per_value(bad)
        with pytest.raises(ValueError):
            standardised(bad)


def _first_appearance_by_sorting(codes):
    if not len(codes):
        return codes, codes
    uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(uniq), dtype=np.intp)
    rank[order] = np.arange(len(uniq), dtype=np.intp)
    return uniq[order], rank[inverse.reshape(-1)]


def test_first_appearance_equals_the_sorting_numbering():
    rng = np.random.default_rng(11)
    for _ in range(1500):
        n = int(rng.integers(0, 200))
        high = int(rng.choice([1, 2, 5, 25, 64, 1000, 10 ** 6]))
        codes = rng.integers(0, high, size=n).astype(rng.choice([np.intp, np.int32, np.int64]))
        got, want = _first_appearance(codes), _first_appearance_by_sorting(codes)
        assert got[0].dtype == want[0].dtype and got[1].dtype == want[1].dtype
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    labels = np.array(["b", "a", "b", "c"], dtype=object)  # not numbers: the sorting path
    assert _first_appearance(labels)[0].tolist() == ["b", "a", "c"]


def test_a_covariate_as_an_array_is_tested_as_the_same_list():
    rng = random.Random(5)
    n = 400
    human = [rng.choice(["pass", "fail"]) for _ in range(n)]
    judge = [h if rng.random() < 0.8 else rng.choice(["pass", "fail", "tie"]) for h in human]
    values = [None if rng.random() < 0.1 else float(rng.randint(0, 1)) for _ in range(n)]
    as_list = judge_error_regression(judge, human, [Covariate("tag:x", values, "tag present vs absent")])
    as_array = judge_error_regression(judge, human, [Covariate("tag:x", np.array(values, dtype=float),
                                                               "tag present vs absent")])
    assert repr(as_list) == repr(as_array)
