"""Judge error and clustered intervals in the calibration report (issue 15 items 2 and 5), on a real SQLite project
built through the CLI's importers: a planted length bias is named in `report` (text and JSON), a clean judge is not;
the kappa and pass-rate intervals say they are clustered by item and over how many clusters."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import agreement, format_report
from judgecal.annotations.stats import clustered_pass_rate, design_effect, kappa_interval, ppi_pass_rate
from judgecal.cli import main
from conftest import add_rubric, add_verdicts

SHA = "e" * 64


def build(tmp_path, *, slope: float, seed: int = 1, items: int = 150, tokens: bool = True):
    """`items` items with two pass/fail constraints each, run by models a and b (b writes longer outputs): 4 pairs per
    item. The judge says pass on 95% of human passes and, on human fails, on 40% at the median length, rising by
    `slope` log-odds per doubling. Every pair is in the random sample (rate 1.0) and labelled blind."""
    rng = np.random.default_rng(seed)
    its = [{"id": f"i{n}", "instruction": "x", "tags": ["long-context"] if n % 3 == 0 else [],
            "constraints": [{"id": "c1", "text": "grounded", "type": "content"},
                            {"id": "c2", "text": "concise", "type": "content"}]} for n in range(items)]
    runs, lengths = [], {}
    for n in range(items):
        for model, mu in (("a", 7.0), ("b", 8.0)):
            rid = f"r{n}{model}"
            loglen = rng.normal(mu, 1.0)
            lengths[rid] = loglen
            run = {"id": rid, "item_id": f"i{n}", "model": model, "output": "w " * int(2 ** loglen / 4 + 1)}
            if tokens:
                run["output_tokens"] = int(round(2 ** loglen))
            runs.append(run)
    (tmp_path / "i.jsonl").write_text("\n".join(json.dumps(i) for i in its))
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(r) for r in runs))
    db_path = tmp_path / "p.db"
    assert main(["--db", str(db_path), "import", "evalset", str(tmp_path / "i.jsonl")]) == 0
    assert main(["--db", str(db_path), "import", "runs", str(tmp_path / "r.jsonl")]) == 0
    verdicts, labels = [], []
    for rid, loglen in lengths.items():
        for cid in ("c1", "c2"):
            human = "pass" if rng.random() < 0.6 else "fail"
            p = 0.95 if human == "pass" else 1 / (1 + math.exp(-(math.log(0.4 / 0.6) + slope * (loglen - 7.5))))
            verdicts.append((rid, cid, SHA, "pass" if rng.random() < p else "fail", None, 0))
            labels.append((rid, cid, human))
    with ann.unit_of_work(db_path) as db:
        add_rubric(db, SHA, version=1)
        add_verdicts(db, verdicts)
        ann.draw_sample(db, rate=1.0, overlap=0.0)
        with ann.write(db):
            db.conn.executemany(
                "INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind, created_at)"
                " VALUES (?, ?, 'ann', 'label', ?, 1, ?)", [(r, c, h, ann.now_iso()) for r, c, h in labels])
    return db_path


def report(db_path):
    with ann.unit_of_work(db_path) as db:
        return ann.calibration_report(db)


def test_planted_length_bias_is_named_in_text_and_json(tmp_path, capsys):
    db_path = build(tmp_path, slope=1.0)
    (g,) = report(db_path).groups
    je = g.judge_error
    assert je.length_source == "output_tokens"
    names = [e.covariate for e in je.regression.effects]
    assert names[0] == "output length (output tokens)" and "tag:long-context" in names
    assert "input_tokens" in names and "rounds" in names
    length = je.regression.effects[0]
    assert length.significant and length.odds_ratio > 1 and length.clusters == 150  # clustered by item
    assert [e.covariate for e in je.regression.flagged] == ["output length (output tokens)"]
    # untested fields say why and are not in the family (rounds: no run record has them)
    rounds = je.regression.effects[names.index("rounds")]
    assert rounds.reason.startswith("0 pairs with a value") and rounds.p_holm is None or math.isnan(rounds.p_holm)
    # per model under test: b writes longer outputs, so its fails slip through more often
    a, b = je.by_model
    assert (a.model, b.model) == ("a", "b") and a.n == b.n == 300
    assert a.tpr.rate > b.tpr.rate and a.tpr.low <= a.tpr.rate <= a.tpr.high
    assert main(["--db", str(db_path), "report"]) == 0
    text = capsys.readouterr().out
    assert "WARNING: judge error depends on output length (output tokens)" in text
    assert "TPR (fail caught) [95% Wilson]" in text
    assert main(["--db", str(db_path), "report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (jg,) = data["groups"]
    assert jg["judge_error"]["regression"]["effects"][0]["significant"] is True
    assert jg["judge_error"]["by_model"][0]["tpr"]["n"] > 0
    for key in ("pass_rates", "overall", "by_constraint"):  # existing fields stay
        assert key in jg


def test_clean_judge_is_not_flagged_but_still_reported_in_json(tmp_path, capsys):
    db_path = build(tmp_path, slope=0.0, seed=2, tokens=False)
    (g,) = report(db_path).groups
    assert g.judge_error.length_source == "characters"  # no output_tokens: the fallback, named
    assert not g.judge_error.regression.flagged
    assert main(["--db", str(db_path), "report"]) == 0
    assert "WARNING: judge error depends" not in capsys.readouterr().out
    assert main(["--db", str(db_path), "report", "--json"]) == 0
    effects = json.loads(capsys.readouterr().out)["groups"][0]["judge_error"]["regression"]["effects"]
    assert effects[0]["covariate"] == "output length (characters)" and effects[0]["p_value"] > 0.05


def test_intervals_say_they_are_clustered_by_item(tmp_path, capsys):
    db_path = build(tmp_path, slope=1.0, items=60)
    (g,) = report(db_path).groups
    a = g.overall.headline
    assert a.ci_clustered_by == "item" and a.clusters == 60 and a.n == 240 and a.design_effect >= 1
    assert a.n_effective == pytest.approx(240 / a.design_effect)
    for pr, cl in zip(g.pass_rates, g.pass_rate_clustering):
        assert pr.model == cl.model and "CI clustered by item, 60 clusters" in pr.method
        assert cl.design_effect.clusters == 60 and cl.design_effect.value >= 1
        assert pr.ppi_se >= cl.se_unclustered
    assert main(["--db", str(db_path), "report"]) == 0
    assert "CI clustered by item, 60 clusters over 240 pairs" in capsys.readouterr().out


# --------------------------------------------------------------------------- the clustered kappa interval


def test_one_pair_per_item_is_the_existing_interval():
    rng = np.random.default_rng(3)
    human = rng.choice(["pass", "fail"], 80).tolist()
    judge = [h if rng.random() < 0.8 else ("pass" if h == "fail" else "fail") for h in human]
    plain = agreement(judge, human, ("pass", "fail"))
    one_each = agreement(judge, human, ("pass", "fail"), clusters=[f"i{k}" for k in range(80)])
    assert one_each.design_effect == 1.0 and one_each.clusters == 80
    assert (one_each.kappa_ci_low, one_each.kappa_ci_high) == (plain.kappa_ci_low, plain.kappa_ci_high)
    assert one_each.labels_needed == plain.labels_needed
    t = np.array(plain.confusion, dtype=float)
    iv = kappa_interval(t)
    assert (plain.kappa_ci_low, plain.kappa_ci_high) == (iv.low, iv.high)
    # weighted too: the design effect multiplies into Kish's n_eff and is exactly 1 here
    w = rng.uniform(1, 5, 80).tolist()
    assert agreement(judge, human, ("pass", "fail"), weights=w, clusters=list(range(80))).kappa_ci_low == \
        agreement(judge, human, ("pass", "fail"), weights=w).kappa_ci_low


def test_pairs_that_copy_each_other_widen_the_interval():
    # The attack: label each item's four constraints where the judge reads the item alike. Four copies of 20
    # independent pairs are 20 pairs' worth of evidence, not 80: the design effect is 4 (the clip at n/G) and the
    # interval is the one of 20 pairs, not the narrower one of 80.
    rng = np.random.default_rng(4)
    human = rng.choice(["pass", "fail"], 20).tolist()
    judge = [h if rng.random() < 0.8 else ("pass" if h == "fail" else "fail") for h in human]
    copied_j, copied_h = judge * 4, human * 4
    items = [f"i{k}" for k in range(20)] * 4
    naive = agreement(copied_j, copied_h, ("pass", "fail"))
    clustered = agreement(copied_j, copied_h, ("pass", "fail"), clusters=items)
    single = agreement(judge, human, ("pass", "fail"))
    assert clustered.design_effect == pytest.approx(4.0) and clustered.n_effective == pytest.approx(20)
    assert clustered.kappa_ci_low == pytest.approx(single.kappa_ci_low)
    assert naive.kappa_ci_high - naive.kappa_ci_low < 0.6 * (clustered.kappa_ci_high - clustered.kappa_ci_low)
    assert clustered.labels_needed > naive.labels_needed


def test_design_effect_by_hand():
    # v = 1,1,0,0 | 1,1,0,0 in items of two equal pairs: r = ±1/2; V_iid = 8/7 · 8 · 1/4 = 16/7; cluster sums ±1,
    # V_cl = 4/3 · 4 = 16/3; deff = (16/3)/(16/7) = 7/3, above n/G = 2 (the small-sample factors differ), so 2: four
    # items are worth at least four pairs. Items of three with one differing pair: v = 1,1,0 | 0,0,1 | 1,1,1 | 0,0,0,
    # mean 1/2, r = ±1/2; V_iid = 12/11 · 3 = 36/11; cluster sums 1/2, -1/2, 3/2, -3/2: V_cl = 4/3 · 5 = 20/3;
    # deff = (20/3)/(36/11) = 55/27.
    d = design_effect([1, 1, 0, 0, 1, 1, 0, 0], ["a", "a", "b", "b", "c", "c", "d", "d"])
    assert d.value == 2.0 and (d.clusters, d.n) == (4, 8)
    d3 = design_effect([1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0], [k // 3 for k in range(12)])
    assert d3.value == pytest.approx(55 / 27)
    # alternating within items (negative correlation) would narrow the interval: clipped at 1
    assert design_effect([1, 0, 1, 0, 1, 0], ["a", "a", "b", "b", "c", "c"]).value == 1.0
    assert design_effect([1, 1, 1], ["a", "a", "b"]).value == 1.0  # constant: nothing to estimate
    # one cluster of several pairs: nothing says they are independent: the ceiling n/G, an effective sample of one
    # (it was 1.0, and 48 constraints of one output passed the gate as 48 pairs: a review, wave 14)
    assert design_effect([1, 0], ["a", "a"]).value == 2.0 and design_effect([1, 0], ["a", "a"]).clusters == 1
    assert design_effect([1] * 45 + [0] * 3, ["i0"] * 48).value == 48.0
    with pytest.raises(ValueError, match="one cluster key per value"):
        design_effect([1, 0], ["a"])
    with pytest.raises(ValueError, match="finite"):
        design_effect([1, math.nan], ["a", "b"])


def test_report_reads_the_same_intervals_from_format_report(tmp_path):
    db_path = build(tmp_path, slope=0.0, seed=5, items=30)
    text = format_report(report(db_path))
    assert "CI clustered by item, 30 clusters" in text


def test_clustered_pass_rate_reduces_to_ppi_with_one_pair_per_item_and_widens_with_copies():
    rng = np.random.default_rng(6)
    f = (rng.random(200) < 0.6).astype(float)
    lab = rng.random(200) < 0.5
    y = np.where(rng.random(200) < 0.85, f, 1 - f)[lab].astype(int)
    pr = ppi_pass_rate("m", f.tolist(), f[lab].tolist(), y.tolist())
    same, info = clustered_pass_rate(pr, f.tolist(), list(range(200)), f[lab].tolist(), y.tolist(),
                                     [1.0] * int(lab.sum()), np.flatnonzero(lab).tolist())
    assert same == pr and info.design_effect.value == 1.0 and info.design_effect.clusters == 200
    # the same 200 pairs four times over (each item's four constraints read alike): about 4x the variance
    f4, lab4, y4 = np.tile(f, 4), np.tile(lab, 4), np.tile(y, 4)
    items = np.tile(np.arange(200), 4)
    pr4 = ppi_pass_rate("m", f4.tolist(), f4[lab4].tolist(), y4.tolist())
    wide, info4 = clustered_pass_rate(pr4, f4.tolist(), items.tolist(), f4[lab4].tolist(), y4.tolist(),
                                      [1.0] * int(lab4.sum()), items[lab4].tolist())
    assert info4.design_effect.value == pytest.approx(4.0, rel=0.02)
    assert wide.ppi_se == pytest.approx(pr.ppi_se, rel=0.02) and "CI clustered by item, 200 clusters" in wide.method
    with pytest.raises(ValueError, match="one cluster key"):
        clustered_pass_rate(pr, f.tolist(), [1], [], [], [], [])


def test_clustered_intervals_cover_where_the_unclustered_ones_do_not():
    # bench/cluster_coverage.py's cell G = 60 items × m = 4 pairs (300 draws here, 1,000 in the bench): items differ
    # in pass and judge-error probability, so their pairs move together.
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from cluster_coverage import cell

    r = cell(60, 4, 2.0, 300, seed=1)
    assert r["kappa"] < 0.91 and r["kappa clustered"] >= 0.93, r
    assert r["PPI"] < 0.91 and r["PPI clustered"] >= 0.92, r
    control = cell(240, 1, 2.0, 100, seed=2)  # one pair per item: the two are the same interval
    assert control["kappa"] == control["kappa clustered"] and control["PPI"] == control["PPI clustered"]


def test_clustered_pass_rate_reads_design_weights_on_any_scale():
    # Design weights N_s / n_s and the same weights averaging 1 are one design: the clustered SE must not depend on
    # the scale (on N_s / n_s the rectifiers' share of the variance was inflated by N / n against the judge's).
    rng = np.random.default_rng(8)
    items = np.repeat(np.arange(50), 4)
    f = (rng.random(200) < 0.6).astype(float)
    lab = rng.random(200) < 0.3
    y = np.where(rng.random(200) < 0.85, f, 1 - f)[lab].astype(int)
    pr = ppi_pass_rate("m", f.tolist(), f[lab].tolist(), y.tolist())
    args = (f.tolist(), items.tolist(), f[lab].tolist(), y.tolist())
    one, _ = clustered_pass_rate(pr, *args, [1.0] * int(lab.sum()), items[lab].tolist())
    big, _ = clustered_pass_rate(pr, *args, [200 / lab.sum()] * int(lab.sum()), items[lab].tolist())
    assert big.ppi_se == pytest.approx(one.ppi_se, rel=1e-12)


def test_one_cluster_takes_the_ceiling_in_the_ppi_rates_too():
    """The one-cluster ceiling reached kappa only: a pass rate of one output judged on 48 constraints was still
    clustered with deff 1 and passed `--min-pass-rate` as 48 independent pairs (a review of wave 14's fix)."""
    from judgecal.annotations.stats import ppi_design_effect

    judge = [1.0] * 45 + [0.0] * 3
    human = [1] * 45 + [0] * 3
    d = ppi_design_effect(1.0, judge, ["i0"] * 48, judge, human, [1.0] * 48, ["i0"] * 48)
    assert (d.value, d.clusters) == (48.0, 1)
    rate = ppi_pass_rate("m", judge, judge, human)
    clustered, how = clustered_pass_rate(rate, judge, ["i0"] * 48, judge, human, [1.0] * 48, ["i0"] * 48)
    assert how.design_effect.value == 48.0
    assert clustered.ppi_se == pytest.approx(rate.ppi_se * math.sqrt(48))
    assert clustered.ppi_ci_low < rate.ppi_ci_low - 0.2


def test_the_prevalence_flag_reads_the_weighted_table_when_kappa_does():
    """A design-weighted kappa with its prevalence read from the unweighted labels: a stratum of 300 pass pairs
    sampled at 10% beside 30 one-pair fail strata gave prevalence 0.53, no flag, beside a weighted table 85% pass
    (a review, wave 14). The flag now reads the table the kappa, AC1 and PABAK read."""
    a = ["pass"] * 30 + ["fail"] * 30
    b = ["pass"] * 27 + ["fail"] * 3 + ["fail"] * 30
    plain = agreement(a, b, ("pass", "fail"))
    assert not plain.prevalence_dominant and plain.prevalence == pytest.approx(63 / 120)  # fail: 30 + 33
    weighted = agreement(a, b, ("pass", "fail"), weights=[10.0] * 30 + [1.0] * 30)
    assert weighted.design_weighted
    # weighted marginals: pass 300 (human) + 270 (judge) of 2 × 330
    assert weighted.dominant_label == "pass" and weighted.prevalence == pytest.approx(570 / 660)
    assert weighted.prevalence_dominant
