"""`judgecal sample --paired A B` and `compare`'s paired corrected difference (issue 15.1): a real SQLite project in
tmp_path, the real CLI, the counted-pairs rule carried over to items (and the attacks on it)."""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.stats import ppi_difference, ppi_prediction
from conftest import add_rubric, add_verdicts
from judgecal.cli import main
from judgecal.evalsets import EvalItem, RunRecord, parse_rows

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")

SHA = "d" * 64
N_ITEMS = 120


def _truth(seed: int = 7):
    """Per item: true pass of A and B (correlated) and a judge lenient on A's failures."""
    rng = random.Random(seed)
    out = []
    for i in range(N_ITEMS):
        u = rng.random()
        ya = u < 0.70
        yb = (u if rng.random() < 0.7 else rng.random()) < 0.55
        fa = ya if rng.random() < 0.9 else not ya
        fa = True if not ya and rng.random() < 0.5 else fa  # lenient on A's failures
        fb = yb if rng.random() < 0.9 else not yb
        out.append((ya, yb, fa, fb))
    return out


@pytest.fixture
def paired_db(tmp_path: Path) -> Path:
    path = tmp_path / "paired.db"
    items = [{"id": f"i{i}", "instruction": f"Task {i}.", "constraints": [
        {"id": "s", "text": "Answers the question.", "type": "content"}]} for i in range(N_ITEMS)]
    runs = [{"id": f"{run.lower()}{i}", "item_id": f"i{i}", "run_id": run, "model": f"m-{run.lower()}",
             "output": f"answer {run} {i}"} for run in ("A", "B") for i in range(N_ITEMS)]
    truth = _truth()
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
        add_rubric(db, SHA, version=1)
        add_verdicts(db, [(f"{run}{i}", "s", SHA, "pass" if t[2 if run == "a" else 3] else "fail", None, 0)
                          for i, t in enumerate(truth) for run in ("a", "b")])
    return path


def _label_paired(path: Path, *, skip: set[str] = frozenset(), only_a: set[str] = frozenset()) -> list[str]:
    """Label the paired sample's pairs with the truth, in the queue's order; returns the items labelled."""
    truth = _truth()
    done = []
    with ann.unit_of_work(path) as db:
        for pair in ann.paired_order(db):
            rid = pair.run_record_id
            i = int(rid[1:])
            if rid[1:] in skip or (rid[0] == "b" and rid[1:] in only_a):
                continue
            ann.record_label(db, "ann", pair, "pass" if truth[i][0 if rid[0] == "a" else 1] else "fail")
            done.append(rid)
    return done


def test_paired_sample_draws_the_same_items_for_both_runs(paired_db, capsys):
    assert main(["--db", str(paired_db), "sample", "--paired", "A", "B", "--rate", "0.25", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "30 of the 120 items × constraints" in out
    with ann.unit_of_work(paired_db) as db:
        rows = list(db.query("SELECT s.run_record_id, r.item_id, r.run_id, s.stratum FROM samples s"
                             " JOIN run_records r ON r.id = s.run_record_id WHERE s.rule = 'paired'"))
        assert len(rows) == 60
        by_run = {run: {r["item_id"] for r in rows if r["run_id"] == run} for run in ("A", "B")}
        assert by_run["A"] == by_run["B"] and len(by_run["A"]) == 30
        assert {r["stratum"] for r in rows} == {"paired|A|B|s"}
        # the order is committed: drawing again (another seed, the runs swapped) adds nothing
        again = ann.draw_paired(db, "B", "A", rate=0.25, seed=99)
        assert again.added_pairs == 0
        # a higher rate tops up with the next items of the same order
        more = ann.draw_paired(db, "A", "B", rate=0.5, seed=99)
        assert more.drawn == 60 and more.added_pairs == 60
        order = ann.paired_counted(db, "A", "B").order["s"]
        assert {u.item_id for u in order[:30]} == by_run["A"]
        # the paired pairs are served by the review queue
        assert set(ann.paired_order(db)) <= set(ann.reviewer_order(db, "ann"))


def test_paired_sample_bad_input(paired_db, capsys):
    assert main(["--db", str(paired_db), "sample", "--paired", "A", "A"]) == 2
    assert "two different runs" in capsys.readouterr().err
    assert main(["--db", str(paired_db), "sample", "--paired", "A", "nope"]) == 2
    assert "'nope'" in capsys.readouterr().err
    with ann.unit_of_work(paired_db) as db:
        assert not db.execute("SELECT 1 FROM samples").fetchone()


def test_compare_reports_the_paired_corrected_difference(paired_db, capsys):
    with ann.unit_of_work(paired_db) as db:
        ann.draw_paired(db, "A", "B", rate=0.4, seed=1)
    _label_paired(paired_db)
    with ann.unit_of_work(paired_db) as db:
        c = ann.compare_runs(db, "A", "B", thresholds={"max_constraint_drop_points": 0.0})
        sample = ann.paired_counted(db, "A", "B")
    p = c.paired
    assert p is not None and p.n_units == N_ITEMS and p.n_labelled == 48 == len(sample.counted)
    # the same numbers straight from the stats function on the arrays
    truth = _truth()
    lab = sorted(int(u.item_id[1:]) for u in sample.counted)
    f = [(float(t[2]), float(t[3])) for t in truth]
    ref = ppi_difference([x[0] for x in f], [x[1] for x in f], [f[i][0] for i in lab], [f[i][1] for i in lab],
                         [float(truth[i][0]) for i in lab], [float(truth[i][1]) for i in lab])
    assert (p.estimate, p.se, p.p_value) == pytest.approx((ref.estimate, ref.se, ref.p_value))
    assert p.method.startswith("paired PPI++")
    # no mechanical checks, one record per item: the whole-run drop is the paired difference
    d = c.difference
    assert d.kind == "paired judge-corrected" and d.drop_points == pytest.approx(100 * p.estimate)
    assert d.p_value == pytest.approx(p.p_value) and d.n_labelled == 48
    (reason,) = c.decision.reasons
    assert (reason.ci_low, reason.ci_high) == pytest.approx((d.low, d.high))
    js = c.as_dict()
    assert js["paired_difference"]["n_labelled"] == 48 and js["difference"]["kind"] == "paired judge-corrected"
    assert js["paired_difference"]["mdd"] == pytest.approx(2.801585 * p.se, rel=1e-5)
    assert main(["--db", str(paired_db), "compare", "A", "B"]) == 0
    out = capsys.readouterr().out
    assert "paired corrected difference A - B" in out and "48 of 120 items labelled in both runs" in out


def test_undecided_says_how_many_more_labels(paired_db):
    with ann.unit_of_work(paired_db) as db:
        ann.draw_paired(db, "A", "B", rate=0.4, seed=1)
    _label_paired(paired_db)
    with ann.unit_of_work(paired_db) as db:
        c = ann.compare_runs(db, "A", "B")
        d = c.difference
        half = d.high - d.drop_points
        near = ann.compare_runs(db, "A", "B", thresholds={"max_constraint_drop_points": d.drop_points + 0.9 * half})
        far = ann.compare_runs(db, "A", "B", thresholds={"max_constraint_drop_points": d.drop_points + 0.3 * half})
    (r,) = near.decision.reasons
    assert r.status == "undecided" and near.decision.status == "undecided"
    assert "more items labelled in both runs" in r.detail and "p = " in r.detail
    more = int(r.detail.split("about ")[1].split(" ")[0])
    # the half-width a + b/n shrinks slower than 1/sqrt(n) (the judge's part a is fixed): 0.9 of it needs more than
    # 48 / 0.81 labelled items in all, and fewer than the census
    assert 48 / 0.81 - 48 <= more < N_ITEMS - 48
    (r,) = far.decision.reasons
    # 0.3 of the half-width needs more items than the 120 both runs answered: label all 72 left
    assert "about 72 more items labelled in both runs" in r.detail and "every one of them" in r.detail


def test_counted_units_stop_at_a_skipped_item_or_a_one_sided_label(paired_db):
    # attack: label only the items where the judge looks right, or only run A's side: the prefix stops there
    with ann.unit_of_work(paired_db) as db:
        ann.draw_paired(db, "A", "B", rate=0.4, seed=1)
        order = ann.paired_counted(db, "A", "B").order["s"]
    third = order[2].item_id[1:]
    fifth = order[4].item_id[1:]
    _label_paired(paired_db, skip={third}, only_a={fifth})
    with ann.unit_of_work(paired_db) as db:
        s = ann.paired_counted(db, "A", "B")
        assert s.prefix["s"] == 2
        c = ann.compare_runs(db, "A", "B")
    assert c.paired.n_labelled == 2 and c.paired.lam == 1.0


def test_without_a_paired_sample_compare_is_unchanged(paired_db):
    with ann.unit_of_work(paired_db) as db:
        c = ann.compare_runs(db, "A", "B")
    assert c.paired is None and c.as_dict()["paired_difference"] is None


def test_a_chosen_paired_sample_cannot_be_imported(paired_db, tmp_path):
    with ann.unit_of_work(paired_db) as db:
        ann.draw_paired(db, "A", "B", rate=0.1)  # the default order: a file drawn after the verdicts must be in it
        rows = list(ann.sample_export_rows(db))
    assert {r["rule"] for r in rows} == {"paired"}
    good = tmp_path / "good.db"
    bad_rows = [dict(r) for r in rows]
    drawn = {r["run_record_id"][1:] for r in rows}
    swap = next(str(i) for i in range(N_ITEMS) if str(i) not in drawn)
    victim = bad_rows[0]["run_record_id"][1:]
    for r in bad_rows:
        if r["run_record_id"][1:] == victim:
            r["run_record_id"] = r["run_record_id"][0] + swap
    for target, data, ok in ((good, rows, True), (tmp_path / "bad.db", bad_rows, False)):
        shutil.copy(paired_db, target)
        with ann.unit_of_work(target) as db:
            with ann.write(db):
                db.conn.execute("DELETE FROM samples")
            parsed = parse_rows("\n".join(json.dumps(r) for r in data), ann.SampleRow, id_field=None)
            if ok:
                assert ann.import_samples(db, parsed) == len(rows)
            else:
                with pytest.raises(Exception, match="drawn, not chosen"):
                    ann.import_samples(db, parsed)


def test_judge_prediction_of_a_pair_is_the_corrected_rates(paired_db):
    # the paired estimate rests on the same predictor as the per-run corrected rate (ppi_prediction of one version)
    with ann.unit_of_work(paired_db) as db:
        labels = ann.pair_labels(db, ["A", "B"])
    assert labels.ppi_judge[("a0", "s")] == ppi_prediction([labels.judge[("a0", "s")]])


def test_paired_labels_are_not_reported_as_targeted(paired_db):
    # a paired-only labelled pair is a random draw of items for `compare`, not a targeted pick: the calibration
    # report keeps it out of its agreement (another draw order) and names it for what it is
    with ann.unit_of_work(paired_db) as db:
        ann.draw_paired(db, "A", "B", rate=0.1, seed=1)
    done = _label_paired(paired_db)
    with ann.unit_of_work(paired_db) as db:
        (g,) = ann.calibration_report(db).groups
    nr = g.non_random
    assert nr.paired == len(done) == nr.n and nr.targeted == 0
    assert g.overall.random_labelled == 0


def test_a_record_added_after_the_draw_stops_the_prefix_until_labelled(paired_db):
    # attack: add a second record of an awkward item to run B so that item drops out of the labelled units while the
    # prefix runs on past it
    with ann.unit_of_work(paired_db) as db:
        ann.draw_paired(db, "A", "B", rate=0.1, seed=1)
    _label_paired(paired_db)
    with ann.unit_of_work(paired_db) as db:
        s = ann.paired_counted(db, "A", "B")
        assert s.prefix["s"] == 12
        third = s.order["s"][2].item_id
        ann.import_runs(db, parse_rows(json.dumps({"id": "extra", "item_id": third, "run_id": "B", "model": "m-b",
                                                   "output": "again"}), RunRecord))
        assert ann.paired_counted(db, "A", "B").prefix["s"] == 2
        assert ann.draw_paired(db, "A", "B", rate=0.1, seed=1).added_pairs == 1
        assert ann.Pair("extra", "s") in ann.paired_order(db)
        ann.record_label(db, "ann", ann.Pair("extra", "s"), "pass")
        assert ann.paired_counted(db, "A", "B").prefix["s"] == 12


def test_whole_run_drop_adds_the_exact_mechanical_difference(tmp_path):
    # items with a mechanical check too: A's outputs say "ok" on every other item, B's never; the drop A - B over all
    # checked constraints is (mech_A - mech_B) / T + (S / T) × the paired semantic difference, with S / T = 1/2
    path = tmp_path / "mech.db"
    n = 40
    items = [{"id": f"i{i}", "instruction": f"Task {i}.", "constraints": [
        {"id": "s", "text": "Answers the question.", "type": "content"},
        {"id": "k", "text": "Says ok.", "type": "content",
         "check": {"id": "keywords:contains_all", "args": {"keywords": ["ok"]}}}]} for i in range(n)]
    runs = [{"id": f"{run.lower()}{i}", "item_id": f"i{i}", "run_id": run, "model": f"m-{run.lower()}",
             "output": "ok" if run == "A" and i % 2 == 0 else "no"} for run in ("A", "B") for i in range(n)]
    truth = _truth()[:n]
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
        add_rubric(db, SHA, version=1)
        add_verdicts(db, [(f"{run}{i}", "s", SHA, "pass" if t[2 if run == "a" else 3] else "fail", None, 0)
                          for i, t in enumerate(truth) for run in ("a", "b")])
        ann.draw_paired(db, "A", "B", rate=0.5, seed=2)
        for pair in ann.paired_order(db):
            i = int(pair.run_record_id[1:])
            ann.record_label(db, "ann", pair, "pass" if truth[i][0 if pair.run_record_id[0] == "a" else 1] else "fail")
        c = ann.compare_runs(db, "A", "B")
    p, d = c.paired, c.difference
    assert d.kind == "paired judge-corrected" and p.n_labelled == 20
    centre = (20 - 0) / 80 + 0.5 * p.estimate
    assert d.drop_points == pytest.approx(100 * centre)
    assert d.se_points == pytest.approx(100 * 0.5 * p.se)
    assert (d.low, d.high) == pytest.approx((d.drop_points - 1.959964 * d.se_points,
                                             d.drop_points + 1.959964 * d.se_points))
    # the drop's own test, not the semantic difference's: its centre carries the mechanical +25 points
    assert d.p_value == pytest.approx(math.erfc(abs(centre) / (0.5 * p.se) / math.sqrt(2)))
    assert d.p_value < p.p_value


def test_unpaired_undecided_says_labels_per_run(paired_db):
    # without a paired sample the drop adds the runs' variances; an undecided limit asks for labels per run
    truth = _truth()
    with ann.unit_of_work(paired_db) as db:
        ann.draw_sample(db, rate=0.4, overlap=0, seed=1)
        for pair in ann.reviewer_order(db, "ann"):
            i = int(pair.run_record_id[1:])
            ann.record_label(db, "ann", pair, "pass" if truth[i][0 if pair.run_record_id[0] == "a" else 1] else "fail")
        d = ann.compare_runs(db, "A", "B").difference
        assert d.kind == "judge-corrected" and d.mdd_points > 0
        c = ann.compare_runs(db, "A", "B", thresholds={
            "max_constraint_drop_points": d.drop_points + 0.9 * (d.high - d.drop_points)})
    (r,) = c.decision.reasons
    assert r.status == "undecided" and "more labels per run" in r.detail
    assert c.paired is None
