"""Label planning and corrected label shares in the calibration report (issue 15 items 1 and 4): text and JSON, on
the hand-built project of test_calibration and on LLMBar's real labels."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from judgecal.annotations.stats import Z_95, rate_plan
from judgecal.cli import main
from test_calibration import cal_db, report  # noqa: F401  (the fixture)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "llmbar"


def test_report_plans_every_corrected_rate(cal_db):  # noqa: F811
    (g,) = report(cal_db).groups
    (pr,) = g.pass_rates
    (plan,) = g.plans
    assert plan == rate_plan(pr, 0.03) and plan.label is None and plan.n_labelled == 8
    assert plan.half_width == pytest.approx(Z_95 * pr.ppi_se)
    # two runs labelled alike, unpaired: SE × sqrt 2; (1.96 + 0.84) × that
    assert plan.mdd == pytest.approx(2.801585 * math.sqrt(2) * pr.ppi_se, rel=1e-6)
    # 10 judged pairs, 8 labelled: ±3 points needs more labels than there are pairs (the honest answer the kappa
    # planning never gave): label the last 2
    assert plan.more_labels == 2 and "every one of them" in plan.reason
    loose = report(cal_db, target_half_width=0.5).groups[0].plans[0]
    assert loose.more_labels == 0 and loose.more_labels_difference is not None


def test_report_json_and_text_show_the_plans(cal_db, capsys):  # noqa: F811
    assert main(["--db", str(cal_db), "report", "--json", "--target-half-width", "0.4"]) == 0
    (g,) = json.loads(capsys.readouterr().out)["groups"]
    assert g["pass_rates"] and g["label_rates"] == []  # the fields already there keep their names
    (plan,) = g["plans"]
    assert plan["target_half_width"] == 0.4 and plan["more_labels"] is not None and plan["mdd"] > 0
    assert main(["--db", str(cal_db), "report"]) == 0
    out = capsys.readouterr().out
    assert "label planning" in out and "more labels for ±3 points" in out and "smallest detectable difference" in out
    with pytest.raises(SystemExit) as exc:  # argparse: a bad value is a usage error, exit 2
        main(["--db", str(cal_db), "report", "--target-half-width", "0"])
    assert exc.value.code == 2 and "--target-half-width" in capsys.readouterr().err


@pytest.mark.skipif(not (DATA / "faireval.jsonl").exists(), reason="LLMBar data not found beside the repository")
def test_llmbar_pairwise_label_set_gets_corrected_shares(tmp_path, capsys):
    db = tmp_path / "llmbar.db"
    assert main(["--db", str(db), "import", "llmbar", str(DATA / "faireval.jsonl")]) == 0
    capsys.readouterr()
    assert main(["--db", str(db), "report", "--json", "--rubric", "gpt4_vanilla_norules"]) == 0
    (g,) = json.loads(capsys.readouterr().out)["groups"]
    assert g["pass_rates"] == []  # no pass/fail pair: still none
    shares = {x["label"]: x["rate"] for x in g["label_rates"]}
    assert set(shares) == {"output_1", "output_2"}
    for r in shares.values():
        assert r["n_judged"] == r["n_labelled"] == 66
        # every pair is labelled: PPI gives back the humans' share exactly, whatever the judge said
        assert r["ppi_estimate"] == pytest.approx(r["human_pass_rate"])
        assert r["ppi_ci_low"] < r["ppi_estimate"] < r["ppi_ci_high"]
    assert shares["output_1"]["human_pass_rate"] + shares["output_2"]["human_pass_rate"] == pytest.approx(1.0)
    assert [p["label"] for p in g["plans"]] == ["output_1/output_2: output_1", "output_1/output_2: output_2"]
