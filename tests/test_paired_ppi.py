"""Paired corrected differences, corrected label shares and label planning (issue 15 items 1 and 4): the statistics.

Reference values: truescore 0.7.4 and ppi-python 0.2.3 (the PPI authors' reference code) on the data of
`make_data` below, printed by `python bench/ppi_reference.py` (which skips when the libraries are absent: they are
not dependencies). See that script's docstring for the conventions that make the formulas coincide."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgecal.annotations.stats import (Z_95, VarianceParts, label_prediction, label_shares,
                                        min_detectable_difference, plan_labels, ppi_difference, ppi_mean,
                                        ppi_pass_rate)


def make_data(seed: int = 2023, items: int = 1000):
    """Identical to bench/ppi_reference.py's make_data (numpy's PCG64 stream is stable across versions)."""
    rng = np.random.default_rng(seed)
    u = rng.random(items)
    y_a = (u < 0.70).astype(float)
    y_b = (np.where(rng.random(items) < 0.7, u, rng.random(items)) < 0.60).astype(float)
    v_a, v_b = rng.random(items), rng.random(items)
    f_a = np.where(y_a == 1, v_a < 0.95, v_a >= 0.60).astype(float)
    f_b = np.where(y_b == 1, v_b < 0.95, v_b >= 0.80).astype(float)
    return y_a, y_b, f_a, f_b


def _diff(n: int, **kw):
    y_a, y_b, f_a, f_b = make_data()
    return ppi_difference(f_a.tolist(), f_b.tolist(), f_a[:n].tolist(), f_b[:n].tolist(), y_a[:n].tolist(),
                          y_b[:n].tolist(), **kw)


def test_paired_difference_matches_truescore_at_lambda_one():
    # truescore 0.7.4 truescore.correct.ppi_estimate(lambda_=1.0) on D = f_A - f_B with every prediction as the
    # "unlabelled" set (judgecal's convention), bench/ppi_reference.py, n = 20 and n = 200
    d = _diff(20)
    assert d.lam == 1.0 and "fewer than 30" in d.method
    assert d.estimate == pytest.approx(0.08700000000000001, abs=1e-12)
    assert d.se == pytest.approx(0.08975344794636228, rel=1e-12)
    # truescore's z is scipy's exact 1.959963985; ours Z_95 = 1.959964: bounds agree to 1e-8
    assert (d.low, d.high) == pytest.approx((-0.08891352546316054, 0.26291352546316055), abs=1e-8)
    assert d.p_value == pytest.approx(0.33238450966077704, rel=1e-9)
    assert (d.judge_difference, d.human_difference) == pytest.approx((0.137, 0.1))


def test_paired_difference_ppi_plus_plus_close_to_truescore():
    # truescore 0.7.4, same data, n = 200: all-N convention λ̂ 0.4392, estimate 0.086486, SE 0.028156; its own
    # ppi_compare (unlabelled = the other 800) +0.0857 [0.0302, 0.1413], p = 0.0025. Our λ̂ puts var(f) of the
    # labelled pairs in the n-term (theirs: of all pairs, cov with ddof 0): an O(1/n) difference in λ, hence the
    # tolerances.
    d = _diff(200)
    assert d.method.startswith("paired PPI++")
    assert d.lam == pytest.approx(0.439224379382136, abs=0.05)
    assert d.estimate == pytest.approx(0.08648620496494291, abs=0.001)
    assert d.se == pytest.approx(0.02815590792997641, rel=0.01)
    assert (d.low, d.high) == pytest.approx((0.030150186535960175, 0.14126520471274379), abs=0.003)
    assert d.p_value == pytest.approx(0.002497818226577875, abs=0.001)


def test_pass_rate_matches_ppi_python():
    # ppi-python 0.2.3 ppi_mean_pointestimate / ppi_mean_ci(alpha=0.05) with Yhat_unlabeled = every prediction:
    # λ = 1 at n = 20: estimate 0.597 [0.41993, 0.77407] (ddof 0: narrower than ours by ~sqrt(19/20) in the
    # rectifier term); PPI++ at n = 200: 0.6790086 [0.62420, 0.73382]
    y_a, _, f_a, _ = make_data()
    small = ppi_pass_rate("a", f_a.tolist(), f_a[:20].tolist(), y_a[:20].astype(int).tolist())
    assert small.ppi_estimate == pytest.approx(0.597, abs=1e-12)
    assert small.ppi_ci_low < 0.41993169671109415 and small.ppi_ci_high > 0.7740683032889057
    assert (small.ppi_ci_high - small.ppi_ci_low) / (0.7740683032889057 - 0.41993169671109415) == pytest.approx(
        1.0, abs=0.03)
    big = ppi_pass_rate("a", f_a.tolist(), f_a[:200].tolist(), y_a[:200].astype(int).tolist())
    assert big.ppi_estimate == pytest.approx(0.6790086237845925, abs=5e-4)
    assert (big.ppi_ci_low, big.ppi_ci_high) == pytest.approx((0.6241992932881866, 0.7338179542809984), abs=2e-3)


def test_paired_is_narrower_than_adding_the_runs_variances():
    # the reason for the paired design: the runs' errors on shared items are correlated
    y_a, y_b, f_a, f_b = make_data()
    d = _diff(200)
    ses = [ppi_pass_rate("x", f.tolist(), f[:200].tolist(), y[:200].astype(int).tolist()).ppi_se
           for f, y in ((f_a, y_a), (f_b, y_b))]
    assert d.se < 0.85 * math.hypot(*ses)


def test_paired_difference_undefined_and_bad_input():
    assert math.isnan(_diff(0).se) and "sample --paired" in _diff(0).reason
    one = _diff(1)
    assert math.isnan(one.low) and "two labelled" in one.reason
    with pytest.raises(ValueError, match="one prediction"):
        ppi_difference([1, 0], [1], [1], [1], [1], [0])
    missing = ppi_difference([1, 0, 1, 1], [0, 0, 1, 0], [1, 0], [0, 0], [1, 0], [0, 0],
                             strata_all=["x", "x", "y", "y"], strata_lab=["x", "x"])
    assert math.isnan(missing.estimate) and "'y'" in missing.reason


def test_judge_agreeing_everywhere_never_claims_certainty():
    # attack: a judge that agrees with the humans on every labelled item would give a zero-width CI and p = 0
    d = ppi_difference([1.0] * 10 + [0.0] * 10, [0.0] * 20, [1.0] * 5, [0.0] * 5, [1.0] * 5, [0.0] * 5)
    assert d.high - d.low > 0.1 and d.p_value > 0


def test_judge_bias_towards_one_run_is_corrected():
    # the planted bias of issue 15: the judge passes A's failures far more often than B's; the judge-only difference
    # is biased, the paired PPI covers the truth
    y_a, y_b, f_a, f_b = make_data()
    truth = y_a.mean() - y_b.mean()
    d = _diff(200)
    assert abs(d.judge_difference - truth) > 0.02
    assert d.low <= truth <= d.high


def test_label_prediction_and_shares():
    s = ("A", "B", "tie")
    assert label_prediction(["A", "A", "B"], "A", s) == 1.0
    assert label_prediction(["A", "B"], "A", s) == 0.5 and label_prediction(["A", "B"], "tie", s) == 0.0
    assert label_prediction([None, None], "B", s) == pytest.approx(1 / 3)
    assert label_prediction(["pass", "fail"], "pass", ("pass", "fail")) == 0.5  # = ppi_prediction
    judge_all = [["A"]] * 6 + [["B"]] * 4
    shares = label_shares("m", s, judge_all, judge_all[:4] + judge_all[6:8], ["A", "A", "B", "A", "B", "B"])
    assert [x.label for x in shares] == ["A", "B", "tie"]
    a = shares[0].rate
    # judge share 0.6; rectifier on the 6 labelled: humans say A on 3 of them, the judge on 4
    assert a.judge_pass_rate == 0.6 and a.ppi_estimate == pytest.approx(0.6 + (3 - 4) / 6)
    assert shares[2].rate.ppi_estimate == 0.0 and shares[2].rate.ppi_ci_high > 0  # floored variance


def test_plan_labels_reaches_the_target_and_not_one_label_less():
    y_a, _, f_a, _ = make_data()
    pr = ppi_pass_rate("a", f_a.tolist(), f_a[:50].tolist(), y_a[:50].astype(int).tolist())
    parts = VarianceParts(pr.var_pred, pr.var_rect, pr.n_judged, pr.lam, pr.n_labelled)
    assert Z_95 * math.sqrt(parts.variance()) == pytest.approx(pr.ppi_se * Z_95)
    plan = plan_labels([parts], 0.05)
    assert plan.more and plan.more > 0 and plan.reason is None
    assert Z_95 * math.sqrt(parts.variance(plan.more)) <= 0.05 < Z_95 * math.sqrt(parts.variance(plan.more - 1))
    # closed form: var_rect / ((h / z)² - λ² var_pred / N) labels in all
    closed = parts.var_rect / ((0.05 / Z_95) ** 2 - parts.lam ** 2 * parts.var_pred / parts.n_all)
    assert plan.more == math.ceil(closed) - parts.n_lab
    assert plan_labels([parts], 0.5).more == 0
    # two runs labelled alike: each needs more than one run alone for the same half-width
    assert plan_labels([parts, parts], 0.05).more > plan.more


def test_plan_labels_refuses_what_labels_cannot_buy():
    tight = VarianceParts(0.25, 0.2, 100, 1.0, 10)
    infeasible = plan_labels([tight], 0.05)  # λ² var(f)/N alone gives a half-width of 0.098
    assert infeasible.more is None and "judge's own variance" in infeasible.reason
    census = plan_labels([VarianceParts(0.25, 0.2, 100, 0.1, 10)], 0.02)
    assert census.more == 90 and "every one" in census.reason
    assert plan_labels([VarianceParts(0.25, math.nan, 100, 1.0, 1)], 0.05).more is None
    with pytest.raises(ValueError):
        plan_labels([tight], 0)


def test_min_detectable_difference():
    # (z_0.975 + z_0.8) × SE = 2.8016 × SE, the usual 80%-power two-sided 5% detectable effect
    assert min_detectable_difference(0.01) == pytest.approx(0.028016, abs=1e-5)
    assert math.isnan(min_detectable_difference(math.nan))


def test_ppi_mean_lambda_rule():
    y_a, _, f_a, _ = make_data()
    below = ppi_mean(f_a.tolist(), f_a[:29].tolist(), y_a[:29].tolist())
    at = ppi_mean(f_a.tolist(), f_a[:30].tolist(), y_a[:30].tolist())
    assert below.lam == 1.0 and at.method.startswith("PPI++")


def test_plan_projects_the_lambda_rule():
    # 10 labels: λ = 1 now. A judge whose predictions carry var 0.25 over only 200 pairs: with λ = 1 its own term
    # 0.25/200 already exceeds (0.03/1.96)², so the current-λ projection says "cannot"; the rule tunes λ from 30
    # labels, and with the labelled moments the projection follows it (towards λ = 0 for a useless judge)
    useless = VarianceParts(0.25, 0.5, 200, 1.0, 10, var_y=0.25, cov_yf=0.0, var_f_lab=0.25)
    assert plan_labels([useless._replace(var_y=math.nan)], 0.03).more is None
    plan = plan_labels([useless], 0.03)
    assert plan.more is not None and plan.more + 10 >= 30
    # a useless judge's λ → 0: the variance at n is the humans' own var(y)/n
    assert useless.variance(90) == pytest.approx(0.25 / 100)
    # below 30 labels the projection keeps λ = 1
    assert useless.variance(5) == pytest.approx(0.25 / 200 + (0.25 + 0.25) / 15)
    everything = plan_labels([VarianceParts(0.25, 0.2, 100, 1.0, 100)], 0.01)
    assert everything.more is None and "every judged pair is labelled" in everything.reason


def test_lambda_rule_covers_where_tuning_from_few_labels_does_not():
    # issue 15's judge (TPR 0.95, TNR 0.60 on A, 0.79 on B), 10 labelled items of 1,000: λ̂ tuned from 10 labels
    # under-covers (bench/ppi_coverage.py: 0.74 for the rate); the rule's λ = 1 covers. 300 replications, seeded.
    rng = np.random.default_rng(15)
    hits = {"rule": 0, "tuned": 0, "paired": 0}
    reps = 300
    for _ in range(reps):
        u = rng.random(1000)
        y_a = (u < 0.68).astype(float)
        y_b = (np.where(rng.random(1000) < 0.7, u, rng.random(1000)) < 0.59).astype(float)
        v_a, v_b = rng.random(1000), rng.random(1000)
        f_a = np.where(y_a == 1, v_a < 0.95, v_a >= 0.60).astype(float)
        f_b = np.where(y_b == 1, v_b < 0.95, v_b >= 0.79).astype(float)
        lab = rng.permutation(1000)[:10]
        for name, tune in (("rule", 30), ("tuned", 2)):
            m = ppi_mean(f_a.tolist(), f_a[lab].tolist(), y_a[lab].tolist(), tune_min_n=tune)
            hits[name] += abs(m.estimate - y_a.mean()) <= Z_95 * m.se
        d = ppi_difference(f_a.tolist(), f_b.tolist(), f_a[lab].tolist(), f_b[lab].tolist(), y_a[lab].tolist(),
                           y_b[lab].tolist())
        hits["paired"] += d.low <= y_a.mean() - y_b.mean() <= d.high
    assert hits["rule"] / reps >= 0.90 and hits["paired"] / reps >= 0.90
    assert hits["tuned"] / reps <= 0.85
