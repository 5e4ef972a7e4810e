"""Calibration report on a constructed project (tests/test_calibration_project.py) with every number derived by hand."""

from __future__ import annotations

import json
import math

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import (
    agreement,
    calibration_report,
    judge_corrected_pass_rate,
    majority_label,
    ppi_pass_rate,
)
from test_calibration_project import JUDGE, R1, R2, add_rubric, add_verdicts, build


@pytest.fixture
def cal_db(tmp_path):
    return build(tmp_path / "cal.db")


def report(path, **kw):
    with ann.unit_of_work(path) as db:
        return calibration_report(db, **kw)


def test_majority_over_repeats_and_exclusions(cal_db):
    # Random labelled pairs: runs 1-8 (alice labels each). Run 8's repeats are P, error, F: a 1-1 tie. Issue 10
    # changed the rule: the tie is no longer dropped but counted as the judge label "abstain", a disagreement.
    o = report(cal_db).groups[0].overall
    assert (o.pairs_judged, o.random_labelled, o.excluded_tie, o.excluded_no_valid) == (10, 8, 1, 0)
    m = o.majority
    # judge  vs alice on runs 1-8: P/P P/P P/P F/F F/F P/F F/P abstain/P
    # confusion rows = judge [pass, fail, abstain], columns = human: [[3, 1, 0], [1, 2, 0], [1, 0, 0]]
    assert m.labels == ("pass", "fail", "abstain") and m.abstain == 1
    assert m.confusion == ((3, 1, 0), (1, 2, 0), (1, 0, 0))
    assert (m.n, m.agree) == (8, 5)
    # p_o = 5/8; judge margins pass 4/8, fail 3/8, abstain 1/8; human pass 5/8, fail 3/8, abstain 0
    # -> p_e = (4·5 + 3·3 + 1·0)/64 = 29/64; kappa = (40/64 - 29/64) / (35/64) = 11/35
    assert m.kappa == pytest.approx(11 / 35)
    # the tie dropped (the old rule) would have given 5/12 on 7 pairs: abstaining must not lift kappa
    assert m.kappa < 5 / 12
    assert -1 <= m.kappa_ci_low < m.kappa < m.kappa_ci_high <= 1
    assert m.kappa_ci_method == "wilson-mapped+wald" and m.kappa_ci_approximate  # 8 < 30 pairs
    assert m.kappa_wald_low < m.kappa < m.kappa_wald_high
    assert m.interpretation == "fair"
    # fail is positive: human fail = runs 4, 5, 6, judge says fail on 4, 5 -> TPR 2/3;
    # human pass = runs 1, 2, 3, 7, 8, judge says pass on 1, 2, 3 (abstains on 8) -> TNR 3/5
    assert (m.tpr, m.tnr) == (pytest.approx(2 / 3), pytest.approx(3 / 5))
    # pooled labels: pass 9 of 16 -> not dominated
    assert m.dominant_label == "pass" and m.prevalence == pytest.approx(9 / 16) and not m.prevalence_dominant
    # PABAK over the two labels = 2 p_o - 1 = 1/4
    assert m.pabak == pytest.approx(1 / 4)
    # one stratum (constraint × model), 10 judged, 8 labelled: every weight is 10/8, the same numbers
    w = o.majority_weighted
    assert w.design_weighted and w.kappa == pytest.approx(m.kappa) and w.n_effective == pytest.approx(8)
    assert o.headline is w
    # 10 pairs × 3 repeats, one error row (run 8, repeat 1)
    assert (o.verdict_rows, o.verdict_errors) == (30, 1)


def test_each_repeat_against_humans(cal_db):
    o = report(cal_db).groups[0].overall
    by_rep = {r.repeat: r.vs_human for r in o.per_repeat}
    # humans on runs 1-8:        P P P F F F P P
    # repeat 0:                  P P P F F P F P -> 6 of 8 agree
    # repeat 1 (run 8 is error): P P P F F P F - -> 5 of 8 (the error is the repeat's abstention)
    # repeat 2:                  P P F F P P F F -> 3 of 8
    assert [(by_rep[r].n, by_rep[r].agree) for r in (0, 1, 2)] == [(8, 6), (8, 5), (8, 3)]
    assert [by_rep[r].abstain for r in (0, 1, 2)] == [0, 1, 0]
    # every repeat labelled and equal to the human: runs 1, 2, 4
    assert o.all_repeats_correct == 3


def test_repeat_vs_repeat_and_flip_rate(cal_db):
    o = report(cal_db).groups[0].overall
    rvr = {(r.repeat_a, r.repeat_b): r for r in o.repeat_vs_repeat}
    # over all 10 judged pairs; run 8's repeat 1 is an error
    # r0 P P P F F P F P P F  |  r1 P P P F F P F E P F  |  r2 P P F F P P F F P F
    assert (rvr[0, 1].both_labelled, rvr[0, 1].agree, rvr[0, 1].one_error) == (9, 9, 1)
    assert (rvr[0, 2].both_labelled, rvr[0, 2].agree, rvr[0, 2].one_error) == (10, 7, 0)
    assert (rvr[1, 2].both_labelled, rvr[1, 2].agree, rvr[1, 2].one_error) == (9, 7, 1)
    # r0 vs r1 agree on every pair but both always 'pass'/'fail' mixed: kappa = 1
    assert rvr[0, 1].agreement.kappa == pytest.approx(1.0)
    c = o.consistency
    # every pair has >= 2 labelled repeats; runs 3, 5, 8 flip -> 3/10.
    # minority shares: run 3 1/3, run 5 1/3, run 8 1/2 -> mean over 10 pairs = (7/6)/10
    assert (c.pairs, c.flipped) == (10, 3)
    assert c.flip_rate == pytest.approx(0.3)
    assert c.mean_minority_share == pytest.approx(7 / 60)


def test_targeted_pairs_are_kept_apart(cal_db):
    o = report(cal_db).groups[0].overall
    # run 9 is targeted only: judge P, alice F -> 0 of 1, and it is not in the random statistics
    assert o.targeted_labelled == 1
    assert (o.targeted.n, o.targeted.agree) == (1, 0)
    assert o.majority.n == 8


def test_human_human_on_overlap_pairs(cal_db):
    hh = {h.slice: h for h in report(cal_db).human_human}
    a = hh["overall"].agreement
    # alice (first) vs bob on runs 1, 2, 6: P/P, P/F, F/F -> confusion [[1, 1], [0, 1]]
    # p_o = 2/3; alice pass 2/3 fail 1/3, bob pass 1/3 fail 2/3 -> p_e = 2/9 + 2/9 = 4/9; kappa = (2/9)/(5/9) = 2/5
    assert a.confusion == ((1, 1), (0, 1))
    assert a.kappa == pytest.approx(0.4)
    assert hh["overall"].overlap_pairs == 3
    assert "constraint:grounded" in hh


def test_ppi_pass_rate(cal_db):
    (pr,) = report(cal_db).groups[0].pass_rates
    # Judge prediction per pair (ppi_prediction): the majority, 0.5 where the repeats tie (run 8: P, error, F):
    # runs 1-10 -> 1 1 1 0 0 1 0 0.5 1 0, mean 5.5/10 = 0.55 (issue 10: the tie pair stays in, it was dropped).
    # Random labelled runs 1-8: judge 1 1 1 0 0 1 0 0.5, human 1 1 1 0 0 0 1 1 -> rectifiers 0 0 0 0 0 -1 1 0.5,
    # mean 0.0625 -> estimate 0.6125 (8 labels < 30: λ = 1).
    # var(judge, ddof 1) = (5 · 0.45² + 4 · 0.55² + 0.05²)/9 = 2.225/9;
    # var(rect) = (5 · 0.0625² + 1.0625² + 0.9375² + 0.4375²)/7 = 2.21875/7; se = sqrt(2.225/90 + 2.21875/56)
    assert (pr.model, pr.n_judged, pr.n_labelled) == ("m", 10, 8)
    assert pr.judge_pass_rate == pytest.approx(0.55)
    assert pr.human_pass_rate == pytest.approx(5 / 8)
    assert pr.ppi_estimate == pytest.approx(0.6125) and pr.lam == 1.0
    se = math.sqrt(2.225 / 90 + 2.21875 / 56)
    assert pr.ppi_se == pytest.approx(se)
    # 0.6125 + 1.96 se = 1.11: a pass rate cannot exceed 1, so the interval is clipped there
    assert (pr.ppi_ci_low, pr.ppi_ci_high) == (pytest.approx(0.6125 - 1.959964 * se), 1.0)


def test_ppi_corrects_a_biased_judge():
    # The judge says pass on all 10 pairs; humans on 4 labelled ones say pass, fail, fail, pass.
    # estimate = 1 + mean(0, -1, -1, 0) = 0.5
    pr = ppi_pass_rate("m", [1] * 10, [1, 1, 1, 1], [1, 0, 0, 1])
    assert pr.judge_pass_rate == 1.0 and pr.ppi_estimate == pytest.approx(0.5)
    # var(judge) = 0; var(rect) = (4 * 0.25) / 3 = 1/3 -> se = sqrt(1/12)
    assert pr.ppi_se == pytest.approx(math.sqrt(1 / 12))
    one = ppi_pass_rate("m", [1, 0], [1], [0])
    assert math.isnan(one.ppi_se) and "two" in one.reason


def test_coverage_and_sample_size_advice(cal_db):
    r = report(cal_db)
    (cov,) = r.coverage
    # 10 judged pairs, quota ceil(0.1 * 10) = 1, 8 random pairs labelled
    assert (cov.judged, cov.needed, cov.labelled, cov.ok) == (10, 1, 8, True)
    assert report(cal_db, rate=0.9).coverage[0].ok is False  # quota 9 > 8
    m = r.groups[0].overall.majority
    # projected from the shown interval (annotations.stats.labels_needed_for_interval), not the Wald SE
    from judgecal.annotations.stats import kappa_interval, labels_needed_for_interval
    iv = kappa_interval([[3, 1, 0], [1, 2, 0], [1, 0, 0]])
    assert m.labels_needed == labels_needed_for_interval(iv, 0.1) > 0


def test_rubric_versions_and_filters(cal_db):
    with ann.unit_of_work(cal_db) as db:
        add_rubric(db, R2, 2)
        # v2 agrees with alice on every random pair
        add_verdicts(db, R2, {1: "PPP", 2: "PPP", 3: "PPP", 4: "FFF", 5: "FFF", 6: "FFF", 7: "PPP", 8: "PPP"})
        both = calibration_report(db)
        only2 = calibration_report(db, rubric="strict@2")
        by_name = calibration_report(db, rubric="strict")
        prefix = calibration_report(db, rubric=R2[:10])
        seen2 = calibration_report(db, rubric_seen=R2)
        other_judge = calibration_report(db, model="nobody")
        with pytest.raises(ValueError, match="no rubric matches"):
            calibration_report(db, rubric="nope")
    assert [(g.rubric_version, g.judge_model) for g in both.groups] == [(1, JUDGE), (2, JUDGE)]
    assert both.groups[1].overall.majority.kappa == pytest.approx(1.0)
    assert [g.rubric_version for g in only2.groups] == [2] == [g.rubric_version for g in prefix.groups]
    assert len(by_name.groups) == 2
    # labels were made while R1 was shown: none were made under R2
    assert seen2.groups[0].overall.random_labelled == 0 and seen2.groups[0].overall.majority is None
    assert other_judge.groups == ()


def test_json_is_strict_and_complete(cal_db):
    r = report(cal_db)
    data = json.loads(r.to_json())  # allow_nan=False: NaN must have become null
    o = data["groups"][0]["overall"]
    assert o["majority"]["kappa"] == pytest.approx(11 / 35)
    assert o["majority_weighted"]["kappa"] == pytest.approx(11 / 35) and o["verdict_errors"] == 1
    assert [p["vs_human"]["agree"] for p in o["per_repeat"]] == [6, 5, 3]
    assert o["repeat_vs_repeat"][0]["agree"] == 9
    assert data["majority_rule"].startswith("judge label = strict majority")
    # an undefined TPR (no human fail) is null, not NaN
    a = agreement(["pass", "pass"], ["pass", "pass"], ("pass", "fail"))
    d = json.loads(json.dumps(ann_clean(a), allow_nan=False))
    assert d["kappa"] is None and d["kappa_reason"] and d["tpr"] is None


def ann_clean(a):
    from judgecal.annotations.reports._calibration import _clean  # house: private
    return _clean(a)


@pytest.mark.parametrize("labels, expected", [
    (["pass", "pass", "fail"], "pass"),
    (["pass", "fail"], None),
    ([], None),
    (["1", "2", "2", "3", "3"], None),
    (["output_2"], "output_2"),
], ids=["two-to-one", "tie", "empty", "three-way-tie", "single"])
def test_majority_label(labels, expected):
    assert majority_label(labels) == expected


def test_empty_project_report(tmp_path):
    r = report(tmp_path / "empty.db")
    assert r.groups == () and r.coverage == () and r.human_human == ()
    json.loads(r.to_json())


def test_judge_corrected_pass_rate_of_a_run(cal_db):
    with ann.unit_of_work(cal_db) as db:
        db.execute("UPDATE run_records SET run_id = 'r1'")
        pr = judge_corrected_pass_rate(db, run_id="r1")
        assert judge_corrected_pass_rate(db, run_id="nope") is None
    # the same pairs as the report's model `m` (see test_ppi_pass_rate)
    assert pr.estimate == pytest.approx(0.6125) and (pr.n_judged, pr.n_labelled) == (10, 8)


def test_mixed_label_sets_get_their_own_slices_and_the_gate_reads_them(tmp_path):
    """A judge that always answers the first label of each set: pooled over pass/fail and refusal pairs its kappa
    looks moderate, within each label set it is 0 (it never varies). Constructed by hand:
    pass/fail pairs: human pass, pass, fail, fail; judge pass ×4 -> kappa 0 (p_o = 1/2 = p_e).
    refusal pairs: human hard, soft, soft, complied; judge hard ×4 -> kappa 0.
    Pooled: judge 4×pass + 4×hard_refusal vs human 2 pass, 2 fail, 1 hard, 2 soft, 1 complied -> p_o = 3/8,
    p_e = (4·2 + 4·1)/64 = 12/64 -> kappa = (3/8 - 3/16)/(1 - 3/16) = 3/13 > 0."""
    from judgecal import annotations as ann
    from judgecal.cli import main
    from conftest import add_rubric, add_verdicts

    items = [
        {"id": f"i{n}", "instruction": "x", "constraints": [
            {"id": "ok", "text": "fine", "type": "content"},
            {"id": "refusal", "text": "Expected: hard_refusal", "type": "hard", "labels": "refusal"}]}
        for n in range(4)
    ]
    runs = [{"id": f"r{n}", "item_id": f"i{n}", "model": "m", "output": "o"} for n in range(4)]
    (tmp_path / "i.jsonl").write_text("\n".join(json.dumps(i) for i in items))
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(r) for r in runs))
    db_path = tmp_path / "p.db"
    assert main(["--db", str(db_path), "import", "evalset", str(tmp_path / "i.jsonl")]) == 0
    assert main(["--db", str(db_path), "import", "runs", str(tmp_path / "r.jsonl")]) == 0
    human_ok = ["pass", "pass", "fail", "fail"]
    human_ref = ["hard_refusal", "soft_refusal", "soft_refusal", "complied"]
    with ann.unit_of_work(db_path) as db:
        add_rubric(db, "s" * 64, version=1)
        add_verdicts(db, [(f"r{n}", "ok", "s" * 64, "pass", None, 0) for n in range(4)]
                     + [(f"r{n}", "refusal", "s" * 64, "hard_refusal", None, 0) for n in range(4)])
        ann.draw_sample(db, rate=1.0, overlap=0.0)
        with ann.write(db):
            db.conn.executemany(
                "INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind, created_at)"
                " VALUES (?, ?, 'ann', 'label', ?, 1, ?)",
                [(f"r{n}", "ok", human_ok[n], ann.now_iso()) for n in range(4)]
                + [(f"r{n}", "refusal", human_ref[n], ann.now_iso()) for n in range(4)])
        (g,) = ann.calibration_report(db).groups
    assert g.overall.majority.kappa == pytest.approx(3 / 13)
    assert [s.slice for s in g.by_label_set] == [
        "labels:hard_refusal/soft_refusal/degraded/complied", "labels:pass/fail"]
    assert [s.majority.kappa for s in g.by_label_set] == [pytest.approx(0.0), pytest.approx(0.0)]
    assert g.headline == g.by_label_set
    assert main(["--db", str(db_path), "gate", "--min-kappa", "0.2"]) == 1


def test_agreement_with_a_constant_judge_has_no_ci_and_no_sample_size_advice():
    # Judge (rows) says pass on all 4, humans pass, fail, pass, fail: p_o = 1/2 = p_e -> kappa 0 exactly, SE 0 by
    # construction. The CI and "labels needed" are undefined with the reason, not [0, 0] and 0 more labels.
    a = agreement(["pass"] * 4, ["pass", "fail", "pass", "fail"], ("pass", "fail"))
    assert a.kappa == 0.0 and math.isnan(a.kappa_ci_low) and math.isnan(a.kappa_ci_high)
    assert "rater A used only the single category 'pass'" in a.kappa_reason
    assert a.labels_needed is None and "single category 'pass'" in a.labels_needed_reason
    assert (a.tpr, a.tnr) == (0.0, 1.0)


def test_ppi_weights_each_constraint_by_its_share_of_the_judged_pairs():
    # The quota is ceil(10%) per stratum, so small strata are over-sampled: constraint x has 3 judged pairs and 1 random
    # label, y has 20 and 2. The judge says pass on all 23; humans say fail on the x pair, pass on both y pairs.
    # Pooling the 3 rectifiers unweighted gives 1 + (-1 + 0 + 0)/3 = 2/3, as if a third of all pairs failed.
    # Post-stratified: 1 + (3/23)(-1/1) + (20/23)(0/2) = 20/23.
    # SE: z_i = n (N_c/n_c) r_i / N = 3·3·(-1)/23, 0, 0 -> mean -3/23, var (ddof 1) = ((6² + 3² + 3²)/23²)/2 = 27/529;
    # var(judge) = 0 -> se = sqrt(27/529 / 3) = 3/23.
    pr = ppi_pass_rate("m", [1] * 23, [1, 1, 1], [0, 1, 1], strata_all=["x"] * 3 + ["y"] * 20,
                       strata_lab=["x", "y", "y"])
    assert pr.ppi_estimate == pytest.approx(20 / 23) and pr.ppi_se == pytest.approx(3 / 23)
    # equal sampling fractions: the weights are all N/n and the estimate is the plain PPI one
    plain = ppi_pass_rate("m", [1] * 10, [1, 1, 1, 1], [1, 0, 0, 1])
    same = ppi_pass_rate("m", [1] * 10, [1, 1, 1, 1], [1, 0, 0, 1], strata_all=["x"] * 5 + ["y"] * 5,
                         strata_lab=["x", "x", "y", "y"])
    assert (same.ppi_estimate, same.ppi_se) == (pytest.approx(plain.ppi_estimate), pytest.approx(plain.ppi_se))
    # a constraint with judged pairs but no random human label cannot be corrected: undefined, with the reason
    none = ppi_pass_rate("m", [1] * 6, [1, 1], [0, 1], strata_all=["x"] * 3 + ["y"] * 3, strata_lab=["x", "x"])
    assert math.isnan(none.ppi_estimate) and "'y'" in none.reason


def test_report_pass_rate_is_post_stratified_by_constraint(tmp_path):
    # Items 0-19 each have constraint y; items 0-2 also x. One run each of model m, judge pass on every pair.
    # Random sample: x on run 0 (human fail), y on runs 0 and 1 (human pass) -> corrected 20/23 (see above).
    from judgecal import annotations as ann
    from judgecal.cli import main
    from conftest import add_rubric, add_verdicts

    items = [{"id": f"i{n}", "instruction": "x", "constraints": [{"id": "y", "text": "fine", "type": "content"}]
              + ([{"id": "x", "text": "grounded", "type": "content"}] if n < 3 else [])} for n in range(20)]
    runs = [{"id": f"r{n}", "item_id": f"i{n}", "model": "m", "output": "o"} for n in range(20)]
    (tmp_path / "i.jsonl").write_text("\n".join(json.dumps(i) for i in items))
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(r) for r in runs))
    db_path = tmp_path / "p.db"
    assert main(["--db", str(db_path), "import", "evalset", str(tmp_path / "i.jsonl")]) == 0
    assert main(["--db", str(db_path), "import", "runs", str(tmp_path / "r.jsonl")]) == 0
    with ann.unit_of_work(db_path) as db:
        add_rubric(db, "s" * 64, version=1)
        add_verdicts(db, [(f"r{n}", c, "s" * 64, "pass", None, 0) for n in range(20) for c in ("y", "x")[:1 + (n < 3)]])
        with ann.write(db):
            for rid, cid, label in (("r0", "x", "fail"), ("r0", "y", "pass"), ("r1", "y", "pass")):
                db.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, drawn_at)"
                           " VALUES (?,?,'random','s',?)", [rid, cid, ann.now_iso()])
                db.execute("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind,"
                           " created_at) VALUES (?,?,'alice','label',?,1,?)", [rid, cid, label, ann.now_iso()])
        (pr,) = ann.calibration_report(db).groups[0].pass_rates
    assert (pr.n_judged, pr.n_labelled) == (23, 3)
    assert pr.ppi_estimate == pytest.approx(20 / 23) and pr.ppi_se == pytest.approx(3 / 23)


def test_post_reveal_changes_are_counted_beside_the_agreement(cal_db):
    # The report uses each reviewer's standing label, a change made after the reveal (blind=0) included: alice
    # labelled run 3 fail blind, saw the judge's pass and changed to pass. Such changes lean toward the judge, so the
    # slice says how many of its compared pairs rest on one: run 3 only (random, judge majority pass) -> 1.
    r = report(cal_db)
    assert r.groups[0].overall.changed_after_reveal == 1
    assert r.to_dict()["groups"][0]["overall"]["changed_after_reveal"] == 1
    assert "1 of the 8 compared labels were changed after the judge's verdict was shown" in ann.format_report(r)


def test_perfect_agreement_on_few_pairs_is_not_certain():
    # 13 pairs, all agreeing: the Wald SE is 0 (CI [1, 1], "0 labels needed"); the shown interval is not.
    a = agreement(["pass"] * 10 + ["fail"] * 3, ["pass"] * 10 + ["fail"] * 3, ("pass", "fail"))
    assert a.kappa == 1.0 and (a.kappa_wald_low, a.kappa_wald_high) == (1.0, 1.0)
    assert a.kappa_ci_low < 1.0 == a.kappa_ci_high and a.kappa_ci_approximate
    assert a.labels_needed > 0


def test_design_weights_by_hand():
    # Two strata: x has N=3 judged pairs, 3 labelled (quota ceil(10%) = 1, but small strata end up fully sampled);
    # y has N=40, 4 labelled. Weights N_s/n_s: x pairs 1, y pairs 10.
    # x: judge and human agree on all 3 (pass/pass ×2, fail/fail). y: judge pass ×4, human pass, pass, fail, fail.
    # Unweighted table (rows judge): pass/pass 2 + 2 = 4, pass/fail 2, fail/fail 1 -> [[4, 2], [0, 1]]
    #   p_o = 5/7; judge margins pass 6/7 fail 1/7; human pass 4/7 fail 3/7 -> p_e = (24 + 3)/49 = 27/49
    #   kappa = (35/49 - 27/49)/(22/49) = 8/22 = 4/11.
    # Weighted (population) table: pass/pass 2·1 + 2·10 = 22, pass/fail 2·10 = 20, fail/fail 1 -> N = 43
    #   p_o = 23/43; judge pass 42/43 fail 1/43; human pass 22/43 fail 21/43 -> p_e = (42·22 + 21)/43² = 945/1849
    #   kappa = (23·43 - 945)/(1849 - 945) = 44/904 = 11/226: the big stratum, where the judge is useless, dominates.
    #   TPR (fail positive) = 1/21, TNR = 22/22.
    from judgecal.annotations.reports import design_weights
    pairs_x = [("x", i) for i in range(3)]
    pairs_y = [("y", i) for i in range(40)]
    sampled = pairs_x + pairs_y[:4]
    w = design_weights(sampled, pairs_x + pairs_y, lambda p: p[0])
    assert w == [1.0] * 3 + [10.0] * 4
    judge = ["pass", "pass", "fail", "pass", "pass", "pass", "pass"]
    human = ["pass", "pass", "fail", "pass", "pass", "fail", "fail"]
    u = agreement(judge, human, ("pass", "fail"))
    d = agreement(judge, human, ("pass", "fail"), weights=w)
    assert u.kappa == pytest.approx(4 / 11) and d.kappa == pytest.approx(11 / 226)
    assert d.confusion == ((22.0, 20.0), (0.0, 1.0)) and d.pct_agreement == pytest.approx(23 / 43)
    assert (d.tpr, d.tnr) == (pytest.approx(1 / 21), pytest.approx(1.0))
    # Kish: (3 + 40)^2 / (3 + 400) = 1849/403 effective pairs: far fewer than 7, so a wider interval
    assert d.n_effective == pytest.approx(1849 / 403)
    assert d.kappa_ci_high - d.kappa_ci_low > u.kappa_ci_high - u.kappa_ci_low
    with pytest.raises(ValueError):
        agreement(judge, human, ("pass", "fail"), weights=[1.0] * 6)
    with pytest.raises(ValueError, match="outside"):
        design_weights([("z", 0)], pairs_x, lambda p: p[0])


def _ppi_plus_plus_reference(f_all, f_lab, y_lab, lam=None):
    """PPI++ mean estimation written from Angelopoulos, Duchi & Zrnic (2023), "PPI++: Efficient Prediction-Powered
    Inference", Example 6.1 / Eq. (4): theta_λ = mean(y) + λ (mean(f over N) - mean(f over n)),
    λ̂ = Cov(y, f) / ((1 + n/N) Var(f)), Var = Var(y - λ f)/n + λ² Var(f)/N (sample moments); λ = 1 is the original
    PPI (Angelopoulos et al. 2023, Science). numpy only, independent of judgecal's code."""
    import numpy as np
    f_all, f_lab, y_lab = (np.asarray(x, float) for x in (f_all, f_lab, y_lab))
    n, big_n = len(y_lab), len(f_all)
    if lam is None:
        lam = np.cov(y_lab, f_lab, ddof=1)[0, 1] / ((1 + n / big_n) * f_all.var(ddof=1))
        lam = min(1.0, max(0.0, lam))
    theta = y_lab.mean() + lam * (f_all.mean() - f_lab.mean())
    se = math.sqrt((y_lab - lam * f_lab).var(ddof=1) / n + lam ** 2 * f_all.var(ddof=1) / big_n)
    return theta, se, lam


def test_ppi_plus_plus_matches_a_reference_from_the_paper():
    import random
    from judgecal.annotations.reports import PPI_TUNE_MIN_N
    rng = random.Random(3)
    # a judge right on 80% of pairs, 400 judged, 60 labelled (>= PPI_TUNE_MIN_N: λ is tuned)
    truth = [int(rng.random() < 0.6) for _ in range(400)]
    judge = [t if rng.random() < 0.8 else 1 - t for t in truth]
    lab = rng.sample(range(400), 60)
    f_lab, y_lab = [judge[i] for i in lab], [truth[i] for i in lab]
    assert len(lab) >= PPI_TUNE_MIN_N
    pr = ppi_pass_rate("m", judge, f_lab, y_lab)
    theta, se, lam = _ppi_plus_plus_reference(judge, f_lab, y_lab)
    # The reference's λ̂ uses Var(f) over N for both terms; judgecal's uses var(f over N)/N + var(f over n)/n,
    # the exact minimiser of its variance estimate: equal λ when the two variances agree, close otherwise.
    assert pr.lam == pytest.approx(lam, abs=0.05) and 0 < pr.lam < 1 and pr.method.startswith("PPI++")
    ref_theta, ref_se, _ = _ppi_plus_plus_reference(judge, f_lab, y_lab, lam=pr.lam)
    assert pr.ppi_estimate == pytest.approx(ref_theta, abs=1e-12) and pr.ppi_se == pytest.approx(ref_se, rel=1e-12)
    # never worse than plain PPI on its own variance estimate
    plain_theta, plain_se, _ = _ppi_plus_plus_reference(judge, f_lab, y_lab, lam=1.0)
    assert pr.ppi_se <= plain_se + 1e-12
    # fewer labels than PPI_TUNE_MIN_N: λ = 1, the plain PPI numbers
    small = ppi_pass_rate("m", judge, f_lab[:20], y_lab[:20])
    t1, s1, _ = _ppi_plus_plus_reference(judge, f_lab[:20], y_lab[:20], lam=1.0)
    assert small.lam == 1.0 and small.ppi_estimate == pytest.approx(min(1, max(0, t1)))
    assert small.ppi_se == pytest.approx(s1)


def test_ppi_with_one_label_has_nan_bounds_and_a_clipped_estimate():
    # judge pass on both pairs, the one labelled pair is a human fail: 1 + (0 - 1) = 0... with judge 0/1 mixed:
    # judge [1, 0], labelled judge 1 / human 0 -> 0.5 - 1 = -0.5: clipped to 0, bounds NaN (not [0, 1]).
    one = ppi_pass_rate("m", [1, 0], [1], [0])
    assert one.ppi_estimate == 0.0 and math.isnan(one.ppi_ci_low) and math.isnan(one.ppi_ci_high)
    assert "two" in one.reason


def test_ppi_interval_covers_by_simulation():
    # A poor judge (right on 70%, biased toward pass), 300 judged pairs, 40 labelled: the tuned interval must cover
    # the true pass rate about 95% of the time, and it clips estimate and CI to [0, 1] together.
    import random
    rng = random.Random(11)
    hits = runs = 0
    for _ in range(400):
        truth = [int(rng.random() < 0.5) for _ in range(300)]
        judge = [1 if rng.random() < 0.3 else t for t in truth]
        lab = rng.sample(range(300), 40)
        pr = ppi_pass_rate("m", judge, [judge[i] for i in lab], [truth[i] for i in lab])
        assert 0 <= pr.ppi_ci_low <= pr.ppi_estimate <= pr.ppi_ci_high <= 1
        hits += pr.ppi_ci_low <= sum(truth) / 300 <= pr.ppi_ci_high
        runs += 1
    assert hits / runs >= 0.92


def test_ppi_interval_is_never_zero_width():
    # the judge and the 20 labelled humans agree everywhere (all pass): plug-in variances 0, CI [1, 1] before.
    # Floor: one disagreement in n + 1 = 21 pairs -> var 20/441, se = sqrt(20/441 / 20) = 1/21.
    pr = ppi_pass_rate("m", [1] * 100, [1] * 20, [1] * 20)
    assert pr.ppi_estimate == 1.0 and pr.ppi_se == pytest.approx(1 / 21)
    assert pr.ppi_ci_low == pytest.approx(1 - 1.959964 / 21) and pr.ppi_ci_high == 1.0


def test_ppi_lower_bound_falls_as_disagreements_are_added():
    """The floor at no disagreement stays below one disagreement's variance (1/n), so a perfect model's lower bound is
    never below a worse one's (a Wilson-sized floor at 0 only gave 0.886 against 0.901 at n = 30; a review, wave 14;
    docs/decisions.md says what is left)."""
    for n in (10, 30, 60, 200):
        lows = [ppi_pass_rate("m", [1.0] * 1000, [1.0] * n, [1] * (n - k) + [0] * k).ppi_ci_low for k in range(6)]
        assert lows == sorted(lows, reverse=True) and len(set(lows)) == len(lows), (n, lows)
