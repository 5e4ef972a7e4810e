"""`compare`'s judge-corrected rates, the A − B difference (unpaired and paired) and the label planning clustered by
item (issue 15.5): a real SQLite project in tmp_path whose items carry several constraints that move together, the
reduction to today's numbers with one pair per item, and the attack (copies of one constraint buying a narrower CI
and a decision the data cannot support)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report
from judgecal.annotations.stats import (Z_95, VarianceParts, clustered_difference, clustered_pass_rate,
                                        corrected_rate, plan_labels, ppi_design_effect, ppi_difference,
                                        ppi_pass_rate, rate_plan)
from conftest import add_rubric, add_verdicts
from judgecal.cli import main
from judgecal.evalsets import EvalItem, RunRecord, parse_rows

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")

SHA = "e" * 64
N_ITEMS = 80
M = 4  # constraints per item, all judged and true alike: the extreme of within-item correlation


def _truth(seed: int = 11) -> list[tuple[bool, bool, bool, bool]]:
    """Per item: true pass of A and B and the judge's verdicts (lenient on A's failures)."""
    rng = random.Random(seed)
    out = []
    for _ in range(N_ITEMS):
        ya, yb = rng.random() < 0.75, rng.random() < 0.6
        fa = ya if rng.random() < 0.9 else not ya
        fa = True if not ya and rng.random() < 0.5 else fa
        fb = yb if rng.random() < 0.9 else not yb
        out.append((ya, yb, fa, fb))
    return out


def _build(path: Path, m: int = M) -> Path:
    items = [{"id": f"i{i}", "instruction": f"Task {i}.", "constraints": [
        {"id": f"s{k}", "text": f"Answers part {k}.", "type": "content"} for k in range(m)]} for i in range(N_ITEMS)]
    runs = [{"id": f"{run.lower()}{i}", "item_id": f"i{i}", "run_id": run, "model": f"m-{run.lower()}",
             "output": f"answer {run} {i}"} for run in ("A", "B") for i in range(N_ITEMS)]
    truth = _truth()
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
        add_rubric(db, SHA, version=1)
        add_verdicts(db, [(f"{run}{i}", f"s{k}", SHA, "pass" if t[2 if run == "a" else 3] else "fail", None, 0)
                          for i, t in enumerate(truth) for run in ("a", "b") for k in range(m)])
    return path


def _label(db, pairs) -> None:
    truth = _truth()
    for pair in pairs:
        rid = pair.run_record_id
        ann.record_label(db, "ann", pair, "pass" if truth[int(rid[1:])][0 if rid[0] == "a" else 1] else "fail")


@pytest.fixture
def unpaired_db(tmp_path: Path) -> Path:
    path = _build(tmp_path / "clustered.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.4, overlap=0, seed=1)
        _label(db, list(ann.reviewer_order(db, "ann")))
    return path


@pytest.fixture
def paired_db(tmp_path: Path) -> Path:
    path = _build(tmp_path / "paired.db")
    with ann.unit_of_work(path) as db:
        ann.draw_paired(db, "A", "B", rate=0.4, seed=1)
        _label(db, list(ann.paired_order(db)))
    return path


# --------------------------------------------------------------------------- the stats rule


def test_ppi_design_effect_by_hand():
    # Cameron & Miller 2015 (eq. 11, the CR1 sandwich of a mean): V = G/(G-1) Σ_g (Σ_{i∈g} u_i)², u_i each unit's
    # contribution to the estimate. 4 judged units in 2 items, λ = 1, units 0 and 2 labelled, weights 1:
    # f = (1, 1, 0, 0), mean 1/2: judge contributions ±1/8; r = y - f = (0, 1) on units 0, 2 (items a, b), mean 1/2:
    # rectifier contributions ∓1/4. Item a: 1/8 + 1/8 - 1/4 = 0; item b: -1/8 - 1/8 + 1/4 = 0: V_cl = 0 < V_iid, and
    # the clip's floor keeps deff 1 (a chance negative correlation never narrows the interval).
    d = ppi_design_effect(1.0, [1, 1, 0, 0], ["a", "a", "b", "b"], [1, 0], [1, 1], [1, 1], ["a", "b"])
    assert (d.value, d.clusters, d.n) == (1.0, 2, 4)
    # f = (1, 1, 0, 0, 1, 0), items a a b b c c; labelled units 0, 2, 4 with y = (1, 1, 0): r = (0, 1, -1), mean 0
    f, items = [1, 1, 0, 0, 1, 0], ["a", "a", "b", "b", "c", "c"]
    d = ppi_design_effect(1.0, f, items, [1, 0, 1], [1, 1, 0], [1, 1, 1], ["a", "b", "c"])
    judge = [(x - 0.5) / 6 for x in f]
    rect = {"a": 0.0, "b": 1 / 3, "c": -1 / 3}
    per_item = {g: sum(judge[i] for i in range(6) if items[i] == g) + rect[g] for g in "abc"}
    v_cl = 3 / 2 * sum(x * x for x in per_item.values())
    v_iid = (sum((x - 0.5) ** 2 for x in f) / 5) / 6 + (2 / 2) / 3
    assert d.value == pytest.approx(min(max(1.0, v_cl / v_iid), 2.0))
    with pytest.raises(ValueError, match="one cluster key"):
        ppi_design_effect(1.0, [1, 0], ["a"], [1], [1], [1], ["a"])


def test_one_unit_per_item_leaves_every_number_as_it_was():
    rng = random.Random(3)
    f = [float(rng.random() < 0.6) for _ in range(200)]
    lab = list(range(0, 200, 4))
    y = [int(f[i] if rng.random() < 0.8 else 1 - f[i]) for i in lab]
    strata = [f"c{i % 3}" for i in range(200)]
    plain = corrected_rate((5, 20), f, [f[i] for i in lab], y, strata, [strata[i] for i in lab])
    clus = corrected_rate((5, 20), f, [f[i] for i in lab], y, strata, [strata[i] for i in lab],
                          clusters_all=list(range(200)), clusters_lab=lab)
    assert clus.design_effect.value == 1.0 and clus.se_unclustered == plain.se
    assert (clus.estimate, clus.se, clus.low, clus.high, clus.method, clus.parts) == \
        (plain.estimate, plain.se, plain.low, plain.high, plain.method, plain.parts)
    g = [float(rng.random() < 0.5) for _ in range(200)]
    yb = [int(g[i] if rng.random() < 0.8 else 1 - g[i]) for i in lab]
    args = (f, g, [f[i] for i in lab], [g[i] for i in lab], [float(v) for v in y], [float(v) for v in yb])
    diff = ppi_difference(*args, strata_all=strata, strata_lab=[strata[i] for i in lab])
    d = [a - b for a, b in zip(f, g)]
    same = clustered_difference(diff, d, list(range(200)), [d[i] for i in lab], [y[k] - yb[k] for k in range(50)],
                                lab, strata_all=strata, strata_lab=[strata[i] for i in lab])
    assert (same.estimate, same.se, same.low, same.high, same.p_value, same.method) == \
        (diff.estimate, diff.se, diff.low, diff.high, diff.p_value, diff.method)
    assert (same.design_effect, same.clusters, same.ci_clustered_by, same.se_unclustered) == (1.0, 200, "item",
                                                                                               diff.se)


def test_copies_of_a_constraint_do_not_narrow_the_run_rate():
    # attack: copy every constraint of an item 4 times (same output, same verdict, same label): 4× the pairs. The
    # unclustered SE falls by about 2; clustered by item it stays at the one-copy SE.
    rng = random.Random(5)
    f1 = [float(rng.random() < 0.6) for _ in range(150)]
    lab1 = list(range(0, 150, 3))
    y1 = [int(f1[i] if rng.random() < 0.8 else 1 - f1[i]) for i in lab1]
    one = corrected_rate((0, 0), f1, [f1[i] for i in lab1], y1, ["s"] * 150, ["s"] * len(lab1))
    f4 = [x for x in f1 for _ in range(4)]
    lab4 = [4 * i + k for i in lab1 for k in range(4)]
    y4 = [v for v in y1 for _ in range(4)]
    args = ((0, 0), f4, [f4[i] for i in lab4], y4, [f"s{i % 4}" for i in range(600)], [f"s{i % 4}" for i in lab4])
    naive = corrected_rate(*args)
    clus = corrected_rate(*args, clusters_all=[i // 4 for i in range(600)], clusters_lab=[i // 4 for i in lab4])
    assert naive.se == pytest.approx(one.se / 2, rel=0.05)
    assert clus.se == pytest.approx(one.se, rel=0.05) and clus.design_effect.value == pytest.approx(4, rel=0.05)
    assert "CI clustered by item, 150 clusters" in clus.method and clus.se_unclustered == naive.se
    # the label plan sees the same design effect: reaching a half-width needs about 4× the labels
    assert clus.parts.deff == clus.design_effect.value
    assert Z_95 * math.sqrt(clus.parts.variance()) == pytest.approx(Z_95 * clus.se)


def test_plan_labels_grow_with_the_design_effect():
    p1 = VarianceParts(0.24, 0.2, 100_000, 1.0, 100)
    p3 = p1._replace(deff=3.0)
    a, b = plan_labels([p1], 0.03), plan_labels([p3], 0.03)
    assert b.half_width == pytest.approx(a.half_width * math.sqrt(3))
    # the rectifier term dominates (var_pred / N is small): the labels in all grow by about the design effect
    assert (b.more + 100) == pytest.approx(3 * (a.more + 100), rel=0.05)
    # where the judge's own term times the design effect already exceeds the target, no number of labels reaches it
    assert plan_labels([p1._replace(var_pred=0.25, n_all=400, deff=4.0)], 0.03).more is None
    pr = ppi_pass_rate("m", [1.0, 0.0] * 100, [1.0, 0.0] * 20, [1, 0, 0, 1] * 10)
    assert rate_plan(pr, 0.05, design_effect=2.0).half_width == pytest.approx(
        math.sqrt(2) * rate_plan(pr, 0.05).half_width)
    with pytest.raises(ValueError, match="design_effect"):
        rate_plan(pr, 0.05, design_effect=0.5)


# --------------------------------------------------------------------------- compare on a real project


def _z_points(se_a: float, se_b: float) -> float:
    return 100 * Z_95 * math.hypot(se_a, se_b)


def test_unpaired_compare_is_clustered_and_an_ok_it_owed_to_independence_is_undecided(unpaired_db, capsys):
    with ann.unit_of_work(unpaired_db) as db:
        c = ann.compare_runs(db, "A", "B")
    a, b, d = c.a, c.b, c.difference
    for s in (a, b):
        assert s.judge_corrected_clusters == N_ITEMS and s.judge_corrected_ci_clustered_by == "item"
        # four copies of each item's outcome judged, but each constraint's 40% sample drawn on its own (an item's
        # labelled pairs are fewer than 4): deff well above 1, at most the clip's ceiling N / G = 4
        assert 1.5 < s.judge_corrected_design_effect <= 4.0
        assert s.judge_corrected_se == pytest.approx(s.judge_corrected_se_unclustered
                                                     * math.sqrt(s.judge_corrected_design_effect))
        assert "CI clustered by item, 80 clusters" in s.judge_corrected_method
    assert d.kind == "judge-corrected" and d.ci_clustered_by == "item" and d.clusters == N_ITEMS
    assert d.se_points == pytest.approx(100 * math.hypot(a.judge_corrected_se, b.judge_corrected_se))
    naive_high = d.drop_points + _z_points(a.judge_corrected_se_unclustered, b.judge_corrected_se_unclustered)
    assert d.high > naive_high + 2  # points
    # attack: a limit the unclustered CI clears (the decision would have been "ok") but the clustered one straddles
    limit = (naive_high + d.high) / 2
    with ann.unit_of_work(unpaired_db) as db:
        c = ann.compare_runs(db, "A", "B", thresholds={"max_constraint_drop_points": limit})
        with_deff = c.decision.reasons[0]
    assert with_deff.status == "undecided" and c.decision.status == "undecided" and not c.decision.switch
    # the labels asked for grow with the design effect: more than the unclustered projection asks
    more = int(with_deff.detail.split("about ")[1].split(" ")[0])
    with ann.unit_of_work(unpaired_db) as db:
        da = ann.compare_runs(db, "A", "B")
    js = c.as_dict()
    assert js["difference"]["design_effect"] == pytest.approx(d.design_effect) and js["difference"]["clusters"] == 80
    assert js["a"]["judge_corrected_design_effect"] == pytest.approx(a.judge_corrected_design_effect)
    assert js["a"]["judge_corrected_ci_clustered_by"] == "item"
    unclustered_parts = [VarianceParts(p.var_pred, p.var_rect, p.n_all, p.lam, p.n_lab, p.var_y, p.cov_yf,
                                       p.var_f_lab) for p in _parts(unpaired_db)]
    naive_more = plan_labels(unclustered_parts, abs(d.drop_points - limit) / 100).more
    assert naive_more is not None and more > naive_more
    assert da.difference == d
    assert main(["--db", str(unpaired_db), "compare", "A", "B"]) == 0
    out = capsys.readouterr().out
    assert "CI clustered by item" in out and "80 items, deff" in out and "clustered by item (deff" in out


def _parts(path: Path):
    """The two runs' whole-run variance parts as compare gathers them (the clustered ones)."""
    from judgecal.annotations.reports._runs import _run_data, _run_items, pair_labels  # house: private (a test peek)
    with ann.unit_of_work(path) as db:
        items = _run_items(db, ["A", "B"])
        labels = pair_labels(db, ["A", "B"])
        return [_run_data(db, r, items, labels).corrected.parts for r in ("A", "B")]


def test_paired_compare_is_clustered_by_item(paired_db):
    with ann.unit_of_work(paired_db) as db:
        c = ann.compare_runs(db, "A", "B")
    p, d = c.paired, c.difference
    assert p.n_units == N_ITEMS * M and p.clusters == N_ITEMS and p.ci_clustered_by == "item"
    assert 1.5 < p.design_effect <= 4.0 and p.se == pytest.approx(p.se_unclustered * math.sqrt(p.design_effect))
    assert "CI clustered by item, 80 clusters" in p.method
    assert (p.low, p.high) == pytest.approx((p.estimate - Z_95 * p.se, p.estimate + Z_95 * p.se))
    assert p.p_value == pytest.approx(math.erfc(abs(p.estimate) / p.se / math.sqrt(2)))
    assert d.kind == "paired judge-corrected" and d.design_effect == p.design_effect and d.clusters == N_ITEMS
    assert d.se_points == pytest.approx(100 * p.se)
    # attack: the limit between the unclustered and the clustered upper bounds decided "ok" before; now undecided
    naive_high = d.drop_points + 100 * Z_95 * p.se_unclustered
    limit = (naive_high + d.high) / 2
    with ann.unit_of_work(paired_db) as db:
        c = ann.compare_runs(db, "A", "B", thresholds={"max_constraint_drop_points": limit})
    (r,) = c.decision.reasons
    assert r.status == "undecided" and "more items labelled in both runs" in r.detail
    js = c.as_dict()["paired_difference"]
    assert js["design_effect"] == pytest.approx(p.design_effect) and js["clusters"] == 80
    assert js["se_unclustered"] == pytest.approx(p.se_unclustered) and js["ci_clustered_by"] == "item"


def test_one_constraint_per_item_compare_is_unchanged(tmp_path):
    # the control: one pair per item in each run: deff exactly 1, the numbers the unclustered formulas give
    path = _build(tmp_path / "one.db", m=1)
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.4, overlap=0, seed=1)
        _label(db, list(ann.reviewer_order(db, "ann")))
        c = ann.compare_runs(db, "A", "B")
    for s in (c.a, c.b):
        assert s.judge_corrected_design_effect == 1.0 and s.judge_corrected_se == s.judge_corrected_se_unclustered
        assert "clustered" not in s.judge_corrected_method
    assert c.difference.design_effect == 1.0


def test_calibration_plans_use_the_clustered_interval(unpaired_db):
    # the report's plan starts from the half-width the report shows (the clustered CI), not the independent one
    with ann.unit_of_work(unpaired_db) as db:
        (g,) = calibration_report(db).groups
    assert g.pass_rates and len(g.plans) == len(g.pass_rates)
    for rate, plan, clus in zip(g.pass_rates, g.plans, g.pass_rate_clustering):
        assert clus.design_effect.value > 1.5
        assert plan.half_width == pytest.approx(Z_95 * rate.ppi_se)
        assert plan.half_width == pytest.approx(Z_95 * clus.se_unclustered * math.sqrt(clus.design_effect.value))
