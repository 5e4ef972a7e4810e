"""`judgecal import llmbar` and the calibration report on LLMBar's real human and GPT-4 labels.

Published figures (LLMBar statistics.json, GPT-4 vanilla_norules), see ../shared/data/README.md:
FairEval — judge correct 51/66 (original order), 45/66 (swapped), 38 both, orders agree 46/66;
LLMEval2 — 152/200, 150/200, 139 both, orders agree 175/200.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report
from judgecal.annotations.review import JUDGE_MODEL, REVIEWER, import_llmbar, parse_llmbar, rubric_sha
from judgecal.evalsets import InputError
from judgecal.cli import main

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "llmbar"


def _needs(name: str) -> Path:
    path = DATA / name
    if not path.exists():
        pytest.skip(f"LLMBar reference data not present at {path} (read-only shared data, not in the repository)")
    return path


@pytest.mark.parametrize("name, original, swapped, both, agree, both_error, n", [
    ("faireval.jsonl", 51, 45, 38, 46, 0, 66),
    ("llmeval2.jsonl", 152, 150, 139, 175, 5, 200),
], ids=["faireval", "llmeval2"])
def test_report_reproduces_published_counts(tmp_path, name, original, swapped, both, agree, both_error, n):
    path = _needs(name)
    db_path = tmp_path / "llmbar.db"
    assert main(["--db", str(db_path), "import", "llmbar", str(path)]) == 0
    out = tmp_path / "report.json"
    assert main(["--db", str(db_path), "report", "--json", "--rubric", "gpt4_vanilla_norules", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    (group,) = data["groups"]
    assert group["judge_model"] == JUDGE_MODEL and group["rubric_name"] == "gpt4_vanilla_norules"
    o = group["overall"]
    assert o["random_labelled"] == n
    per = {r["repeat"]: r["vs_human"] for r in o["per_repeat"]}
    # "judge correct": an unparsable answer (null) is never correct, so counts over n equal agreements on the
    # labelled repeats
    assert (per[0]["agree"], per[1]["agree"]) == (original, swapped)
    # "both": both orders gave the human's label
    assert o["all_repeats_correct"] == both
    (rvr,) = o["repeat_vs_repeat"]
    # LLMBar counts two unparsable answers as the orders agreeing; judgecal reports them apart (both_error)
    assert rvr["agree"] + rvr["both_error"] == agree
    assert rvr["both_error"] == both_error
    # Majority over 2 repeats exists only where they agree (or one failed): FairEval 46 pairs, 38 right. Since
    # issue 10 the others stay in as the judge's abstentions (disagreements): every random pair is compared.
    maj = o["majority"]
    assert maj["n"] == n and maj["abstain"] == o["excluded_tie"] + o["excluded_no_valid"] > 0
    # Kappa with one encoding (output_1/output_2 for judge and human alike), plus the judge-only "abstain" row
    assert per[0]["labels"][:2] == ["output_1", "output_2"] == maj["labels"][:2]
    assert maj["labels"][2:] == ["abstain"]
    for stats in (per[0], per[1], maj, rvr["agreement"]):
        assert -1 <= stats["kappa_ci_low"] < stats["kappa"] < stats["kappa_ci_high"] <= 1


@pytest.mark.parametrize("name, kappa, per_repeat, ties, none, errors", [
    # FairEval (66 pairs): 46 where the orders agree (38 right), 20 ties. Confusion rows judge [o1, o2, abstain],
    # columns human: [[21, 3, 0], [5, 17, 0], [15, 5, 0]] -> p_o = 38/66, p_e = (24·41 + 22·25)/66² = 1534/4356,
    # kappa = (2508 - 1534)/(4356 - 1534) = 974/2822 = 0.34515. It was 0.650 on the 46 agreeing pairs only.
    ("faireval.jsonl", 974 / 2822, (0.5133, 0.3948), 20, 0, 0),
    # LLMEval² (200 pairs): 24 ties, 5 pairs where both orders are unparsable, 11 error rows; was 0.624 on 171.
    ("llmeval2.jsonl", 0.4656, (0.5303, 0.5124), 24, 5, 11),
], ids=["faireval", "llmeval2"])
def test_judge_ties_and_errors_stay_in_the_gated_kappa(tmp_path, capsys, name, kappa, per_repeat, ties, none, errors):
    """Issue 10's attack: dropping ties made a self-contradicting judge pass `gate --min-kappa 0.6` (FairEval 0.650,
    LLMEval² 0.624) while each order alone is below it. With ties and failures as disagreements neither passes, on
    the point estimate either."""
    path = _needs(name)
    db_path = tmp_path / "llmbar.db"
    assert main(["--db", str(db_path), "import", "llmbar", str(path)]) == 0
    with ann.unit_of_work(db_path) as db:
        o = calibration_report(db, rubric="gpt4_vanilla_norules").groups[0].overall
    assert o.majority.kappa == pytest.approx(kappa, abs=5e-5)
    assert o.headline.kappa == pytest.approx(kappa, abs=5e-5)  # one stratum: the design weights are all equal
    # the majority can never look better than the better single order
    assert o.majority.kappa < max(r.vs_human.kappa for r in o.per_repeat)
    assert tuple(round(r.vs_human.kappa, 4) for r in o.per_repeat) == per_repeat
    assert (o.excluded_tie, o.excluded_no_valid, o.verdict_errors) == (ties, none, errors)
    capsys.readouterr()
    for on in ("lower", "point"):
        assert main(["--db", str(db_path), "gate", "--min-kappa", "0.6", "--on", on]) == 1
    out = capsys.readouterr().out
    assert f"{ties} ties and {none} pairs without a valid repeat counted as disagreements" in out
    assert f"{errors} of {2 * o.pairs_judged} verdict rows were judge errors" in out


def test_faireval_kappas_by_hand(tmp_path):
    path = _needs("faireval.jsonl")
    with ann.unit_of_work(tmp_path / "f.db") as db:
        import_llmbar(db, path)
        r = calibration_report(db, rubric="gpt4_vanilla_norules")
    rows = [json.loads(l) for l in path.read_text().splitlines()]
    o = r.groups[0].overall
    # Recompute repeat 0's kappa from the file directly: rows = judge (original order), columns = human.
    t = [[0, 0], [0, 0]]
    for row in rows:
        t[row["judge_gpt4_vanilla_norules_order_original"] - 1][row["human_label"] - 1] += 1
    nn = sum(map(sum, t))
    po = (t[0][0] + t[1][1]) / nn
    pe = sum((t[i][0] + t[i][1]) * (t[0][i] + t[1][i]) for i in range(2)) / nn ** 2
    assert o.per_repeat[0].vs_human.kappa == pytest.approx((po - pe) / (1 - pe))
    assert o.per_repeat[0].vs_human.confusion == tuple(map(tuple, t))


def test_import_is_one_transaction_and_idempotent(tmp_path):
    good = {"item_id": "x/0", "dataset": "X", "instruction": "Say hi", "output_1": "hi", "output_2": "<b>yo</b>",
            "human_label": 2, "judge_s_order_original": 2, "judge_s_order_swapped": None}
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(good) + "\n")
    with ann.unit_of_work(tmp_path / "p.db") as db:
        first = import_llmbar(db, f)
        again = import_llmbar(db, f)
        assert (first.items, first.runs, first.labels, first.verdicts, first.errors) == (1, 1, 1, 2, 1)
        assert (again.items, again.labels, again.verdicts) == (0, 0, 0)
        v = {r["repeat"]: r for r in db.query("SELECT * FROM verdicts ORDER BY repeat")}
        assert v[0]["label"] == "output_2" and v[0]["rubric_sha256"] == rubric_sha("s")
        assert v[1]["label"] is None and v[1]["error"] == "unparsable"
        (lab,) = db.query("SELECT * FROM human_labels")
        assert (lab["reviewer"], lab["label"]) == (REVIEWER, "output_2")
        assert [r["rule"] for r in db.query("SELECT rule FROM samples")] == ["random"]
        item = ann.load_items(db)["x/0"]
        assert item.input == {"output_1": "hi", "output_2": "<b>yo</b>"}
        assert item.constraints[0].labels == ("output_1", "output_2")
        before = ann.table_counts(db)
        bad = dict(good, item_id="x/1", human_label=3)
        f.write_text(json.dumps(dict(good, item_id="x/2")) + "\n" + json.dumps(bad) + "\n")
        with pytest.raises(InputError, match=r"a.jsonl:2: human_label"):
            import_llmbar(db, f)
        assert ann.table_counts(db) == before


@pytest.mark.parametrize("line, field", [
    ("{not json", "(json)"),
    ('{"item_id": "a", "instruction": "i", "output_1": "x", "output_2": "y"}', "human_label"),
    ('{"item_id": "a", "instruction": "i", "output_1": "x", "output_2": "y", "human_label": 1, "colour": 1}', "colour"),
    ('{"item_id": "a", "instruction": "i", "output_1": "x", "output_2": "y", "human_label": 1,'
     ' "judge_s_order_original": "1"}', "judge_s_order_original"),
], ids=["bad-json", "missing-label", "unknown-field", "bad-verdict"])
def test_bad_rows_name_line_and_field(line, field):
    with pytest.raises(InputError) as exc:
        parse_llmbar(line, "f.jsonl")
    assert exc.value.problems[0].field == field and exc.value.problems[0].line == 1
