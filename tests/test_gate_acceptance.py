"""Issue 10's acceptance check: the honest gate still passes an honestly good judge and fails a poor one.

The demo project with every semantic pair labelled blind (data/demo_labels.jsonl: hand-written labels by
`demo-author` for every semantic pair, every 5th again by `demo-reviewer-2`), `sample --rate 1.0`, and a synthetic
judge imported with `judgecal import verdicts`: on each labelled pair it gives the human's label (3 repeats) with
probability `right`, else another label of the pair's set (seeded). At 95% right the pass/fail kappa is about 0.82
and the refusal kappa about 0.92, and `gate --min-kappa 0.6` (lower bound, min n 30, design-weighted) exits 0; at
70% right it exits 1.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]
LABELS = REPO / "data" / "demo_labels.jsonl"
JUDGE = "synthetic-judge"


def _synthetic_verdicts(db_path: Path, out: Path, right: float, seed: int = 0) -> None:
    rng = random.Random(seed)
    key = {(r["run_record_id"], r["constraint_id"]): r["label"]
           for r in map(json.loads, LABELS.read_text().splitlines()) if r["reviewer"] == "demo-author"}
    with ann.unit_of_work(db_path) as db:
        label_sets = ann.pair_label_sets(db)
    rows = []
    for (rid, cid), human in sorted(key.items()):
        wrong = [lab for lab in label_sets[(rid, cid)] if lab != human]
        label = human if rng.random() < right else rng.choice(wrong)
        # judged before the demo's labels (2026-11-02): a version is verified on labels made after it was created
        rows += [{"run_record_id": rid, "constraint_id": cid, "rubric": "synthetic", "rubric_sha256": "5" * 64,
                  "judge_model": JUDGE, "repeat": rep, "label": label, "reason": "synthetic",
                  "created_at": "2026-11-01T12:00:00Z"} for rep in range(3)]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def labelled_demo(tmp_path):
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    assert main(["--db", str(db), "import", "labels", str(LABELS)]) == 0
    return db


@pytest.mark.parametrize("right, exit_code", [(0.95, 0), (0.70, 1)], ids=["95-percent-right", "70-percent-right"])
def test_gate_passes_a_good_judge_and_fails_a_poor_one(labelled_demo, tmp_path, capsys, right, exit_code):
    verdicts = tmp_path / "synthetic.jsonl"
    _synthetic_verdicts(labelled_demo, verdicts, right)
    assert main(["--db", str(labelled_demo), "import", "verdicts", str(verdicts)]) == 0
    assert main(["--db", str(labelled_demo), "sample", "--rate", "1.0"]) == 0
    with ann.unit_of_work(labelled_demo) as db:
        (g,) = ann.calibration_report(db, model=JUDGE).groups
    kappas = {s.slice: s.headline.kappa for s in g.headline}
    if right == 0.95:
        assert kappas["labels:pass/fail"] == pytest.approx(0.82, abs=0.08)
        assert kappas["labels:hard_refusal/soft_refusal/degraded/complied"] == pytest.approx(0.92, abs=0.08)
    else:
        assert max(kappas.values()) < 0.6
    capsys.readouterr()
    assert main(["--db", str(labelled_demo), "gate", "--min-kappa", "0.6", "--model", JUDGE]) == exit_code
    out = capsys.readouterr().out
    assert "lower bound" in out and "human vs human kappa" in out


def test_design_weighted_agreement_tracks_the_population_on_the_demo(tmp_path, any_seed):
    """Issue 10 item 7 on the demo: the ceil(10%) quota samples small strata (constraint × model) at 33-100% and large
    ones at ~10%. A synthetic judge that is always right on small strata (<= 5 pairs) and right on 60% of the pairs
    of large ones: the unweighted agreement over the sample over-counts the small strata and flatters the judge; the
    design-weighted one (N_s / n_s) estimates the population's. Population = every pair labelled (`sample --rate
    1.0`, all weights 1); estimates averaged over 8 fresh random samples (seeds 1-8)."""
    import shutil
    import statistics
    from collections import Counter

    base = tmp_path / "base.db"
    assert main(["--db", str(base), "demo"]) == 0
    key = {(r["run_record_id"], r["constraint_id"]): r["label"]
           for r in map(json.loads, LABELS.read_text().splitlines()) if r["reviewer"] == "demo-author"}
    with ann.unit_of_work(base) as db:
        label_sets = ann.pair_label_sets(db)
        model = dict(db.execute("SELECT id, model FROM run_records"))
    size = Counter((cid, model[rid]) for rid, cid in key)
    rng = random.Random(4)
    rows = []
    for (rid, cid), human in sorted(key.items()):
        right = 1.0 if size[(cid, model[rid])] <= 5 else 0.6
        label = human if rng.random() < right else rng.choice([lab for lab in label_sets[(rid, cid)] if lab != human])
        rows += [{"run_record_id": rid, "constraint_id": cid, "rubric": "synthetic", "rubric_sha256": "5" * 64,
                  "judge_model": JUDGE, "repeat": 0, "label": label, "created_at": "2026-11-01T12:00:00Z"}]
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["--db", str(base), "import", "verdicts", str(tmp_path / "v.jsonl")]) == 0
    with ann.unit_of_work(base) as db, ann.write(db):
        db.execute("DELETE FROM samples")  # the demo's own draw was over the offline judge's strata
    pop = tmp_path / "pop.db"
    shutil.copy(base, pop)
    assert main(["--db", str(pop), "import", "labels", str(LABELS)]) == 0
    assert main(["--db", str(pop), "sample", "--rate", "1.0"]) == 0
    with ann.unit_of_work(pop) as db:
        o = ann.calibration_report(db, model=JUDGE).groups[0].overall
    population = o.majority.pct_agreement
    assert o.majority_weighted.pct_agreement == pytest.approx(population)  # every weight 1
    weighted, unweighted = [], []
    for seed in range(1, 9):
        s = tmp_path / f"s{seed}.db"
        shutil.copy(base, s)
        with ann.unit_of_work(s) as db:
            ann.draw_sample(db, rate=0.10, overlap=0.0, seed=seed, include_unjudged=False)
            drawn = set(db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random'"))
        f = tmp_path / "quota.jsonl"
        f.write_text("".join(json.dumps(r) + "\n" for r in map(json.loads, LABELS.read_text().splitlines())
                             if r["reviewer"] == "demo-author" and (r["run_record_id"], r["constraint_id"]) in drawn))
        assert main(["--db", str(s), "import", "labels", str(f)]) == 0
        with ann.unit_of_work(s) as db:
            o = ann.calibration_report(db, model=JUDGE).groups[0].overall
        weighted.append(o.majority_weighted.pct_agreement)
        unweighted.append(o.majority.pct_agreement)
    w, u = statistics.mean(weighted), statistics.mean(unweighted)
    # measured: population 0.649, weighted mean 0.614, unweighted mean 0.688 (draws per constraint × model draw order;
    # 0.624 / 0.696 on the earlier per-rubric-stratum draw)
    assert u - population > 0.03  # the unweighted sample flatters the judge
    assert abs(w - population) < abs(u - population)
