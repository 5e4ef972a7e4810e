"""`summarise_all` (issue 16 item 3): the label-free part of a corrected rate (the sum, the variance and the strata
counts of the predictions on all N judged pairs), computed once and passed again, gives the same numbers, bit for bit,
as `ppi_pass_rate` and `label_shares` computing it themselves."""

from __future__ import annotations

import random

import pytest

from judgecal.annotations.stats import label_predictions, label_shares, ppi_pass_rate, summarise_all


@pytest.mark.parametrize("seed", range(12))
def test_a_summary_gives_the_same_rate(seed):
    rng = random.Random(seed)
    n_all, n_lab = rng.choice([1, 2, 50, 400]), rng.choice([0, 1, 2, 3, 40, 120])
    judge_all = [rng.choice([0.0, 0.5, 1.0, 1 / 3]) for _ in range(n_all)]
    strata_all = [rng.choice("abc") for _ in range(n_all)]
    judge_lab = [rng.choice([0.0, 0.5, 1.0]) for _ in range(n_lab)]
    human_lab = [rng.choice([0, 1]) for _ in range(n_lab)]
    strata_lab = [rng.choice("abc") for _ in range(n_lab)]
    for strata in ((strata_all, strata_lab), (None, None)):
        plain = ppi_pass_rate("m", judge_all, judge_lab, human_lab, strata_all=strata[0], strata_lab=strata[1])
        summed = ppi_pass_rate("m", judge_all, judge_lab, human_lab, strata_all=strata[0], strata_lab=strata[1],
                               summary=summarise_all(judge_all, strata[0]))
        assert repr(plain) == repr(summed)


def test_a_summary_gives_the_same_shares():
    rng = random.Random(7)
    label_set = ("good", "ok", "bad")
    judge_all = [[rng.choice([*label_set, None]) for _ in range(3)] for _ in range(300)]
    strata_all = [rng.choice("xy") for _ in range(300)]
    judge_lab = judge_all[:60]
    human_lab = [rng.choice(label_set) for _ in range(60)]
    f_all = label_predictions(label_set, judge_all)
    plain = label_shares("m", label_set, judge_all, judge_lab, human_lab, strata_all=strata_all,
                         strata_lab=strata_all[:60], f_all_by_label=f_all)
    summed = label_shares("m", label_set, judge_all, judge_lab, human_lab, strata_all=strata_all,
                          strata_lab=strata_all[:60], f_all_by_label=f_all,
                          summaries={label: summarise_all(f_all[label], strata_all) for label in label_set})
    assert repr(plain) == repr(summed)


def test_a_summary_of_other_pairs_is_refused():
    with pytest.raises(ValueError):
        ppi_pass_rate("m", [1.0, 0.0], [1.0], [1], summary=summarise_all([1.0, 0.0, 1.0]))
    with pytest.raises(ValueError):
        ppi_pass_rate("m", [1.0, 0.0], [1.0], [1], strata_all=["a", "a"], strata_lab=["a"],
                      summary=summarise_all([1.0, 0.0]))
