"""`judgecal import llmbar` and the calibration report on LLMBar's real human and GPT-4 labels.

Published figures (LLMBar statistics.json, GPT-4 vanilla_norules), see ../shared/data/README.md:
FairEval — judge correct 51/66 (original order), 45/66 (swapped), 38 both, orders agree 46/66;
LLMEval2 — 152/200, 150/200, 139 both, orders agree 175/200.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import annotations as ann
from annotations._calibration import calibration_report
from annotations._llmbar import JUDGE_MODEL, REVIEWER, import_llmbar, parse_llmbar, rubric_sha
from evalsets import InputError
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
    # Majority over 2 repeats exists only where they agree (or one failed): FairEval 46 pairs, 38 right.
    maj = o["majority"]
    assert o["excluded_tie"] + o["excluded_no_valid"] + maj["n"] == n
    # Kappa with one encoding (output_1/output_2 for judge and human alike)
    assert per[0]["labels"] == ["output_1", "output_2"] == maj["labels"]
    for stats in (per[0], per[1], maj, rvr["agreement"]):
        assert -1 <= stats["kappa"] <= 1 and stats["kappa_ci_low"] < stats["kappa"] < stats["kappa_ci_high"]


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
