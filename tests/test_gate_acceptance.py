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

import annotations as ann
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
        rows += [{"run_record_id": rid, "constraint_id": cid, "rubric": "synthetic", "rubric_sha256": "5" * 64,
                  "judge_model": JUDGE, "repeat": rep, "label": label, "reason": "synthetic"} for rep in range(3)]
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
