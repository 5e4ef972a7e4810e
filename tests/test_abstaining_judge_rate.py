"""A judge that answered no pair has no pass rate of its own (a review, wave 14).

Every pair's repeats error rows (or tied) make every prediction 0.5 (`ppi_prediction`: an abstention is half a pass,
so PPI stays unbiased), and the report, the gate and the Calibration page printed "judge pass rate 50.0%" as if the
judge had said so. They now say it gave no verdict; the corrected rate, which rests on the labels, is unchanged. A
judge whose own verdicts split evenly still shows 50.0%."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.stats import ppi_pass_rate
from judgecal.cli import main

from conftest import label_drawn_c1

NONE = "– (no verdict: every pair errored or tied)"


def _project(folder: Path, said) -> str:
    """40 items with one pass/fail constraint c1, a run record r<k> of model m each, judge J's verdict on each from
    `said(k)` (a label, or None for an error row); the truth is pass on odd k."""
    db = str(folder / "p.db")
    stamp = {"created_at": "2026-01-01T00:00:00Z"}
    rows: dict[str, list[dict]] = {"evalset": [], "runs": [], "verdicts": []}
    for k in range(40):
        rows["evalset"].append({"id": f"i{k}", "instruction": "Answer.", "input": "q", "constraints": [
            {"id": "c1", "text": "The answer is good.", "type": "content"}], **stamp})
        rows["runs"].append({"id": f"r{k}", "item_id": f"i{k}", "model": "m", "run_id": "run1", "output": f"a {k}",
                             **stamp})
        label = said(k)
        rows["verdicts"].append({"run_record_id": f"r{k}", "constraint_id": "c1", "rubric": "myrubric",
                                 "judge_model": "J", **stamp,
                                 **({"label": label} if label else {"error": "timeout"})})
    for kind, data in rows.items():
        path = folder / f"{kind}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        assert main(["--db", db, "import", kind, str(path)]) == 0
    return db


def _judge_cell(out: str) -> str:
    """The "judge pass rate" cell of model m's row in the report's pass-rate table."""
    lines = out.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("model under test  judged  judge pass rate"))
    start, end = lines[at].index("judge pass rate"), lines[at].index("  labelled")
    return lines[at + 1][start:end].strip()


@pytest.mark.parametrize("labelled", [False, True])
def test_an_all_error_judge_shows_no_rate_of_its_own(tmp_path, capsys, labelled):
    db = _project(tmp_path, lambda k: None)
    assert main(["--db", db, "sample", "--rate", "0.5"]) == 0
    if labelled:
        label_drawn_c1(db)
    capsys.readouterr()
    assert main(["--db", db, "report"]) == 0
    assert _judge_cell(capsys.readouterr().out) == NONE
    if labelled:
        assert main(["--db", db, "gate", "--min-kappa", "0", "--min-pass-rate", "0.1"]) in (0, 1)
        out = capsys.readouterr().out
        assert "judge alone: none, every judged pair errored or tied" in out, out
        assert "judge alone: 0.500" not in out


def test_a_judge_that_splits_evenly_keeps_its_rate(tmp_path, capsys):
    db = _project(tmp_path, lambda k: "pass" if k % 2 else "fail")
    assert main(["--db", db, "sample", "--rate", "0.5"]) == 0
    label_drawn_c1(db)
    capsys.readouterr()
    assert main(["--db", db, "report"]) == 0
    assert _judge_cell(capsys.readouterr().out) == "50.0%"


def test_the_rule_on_the_rate_itself():
    assert ppi_pass_rate("m", [0.5] * 10, [0.5] * 4, [1, 0, 1, 1]).judge_abstained
    assert ppi_pass_rate("m", [0.5] * 10, [], []).judge_abstained  # no labels yet: still read
    assert ppi_pass_rate("m", [0.5], [], []).judge_abstained
    assert not ppi_pass_rate("m", [0.0, 1.0] * 5, [0.0, 1.0], [0, 1]).judge_abstained  # an even split
    assert not ppi_pass_rate("m", [0.5] * 9 + [1.0], [0.5], [1]).judge_abstained  # one verdict
    assert not ppi_pass_rate("m", [0.5] * 9 + [1.0], [], []).judge_abstained
    assert not ppi_pass_rate("m", [], [], []).judge_abstained  # nothing judged: its own reason


def test_a_label_share_of_a_judge_that_answered_nothing_is_none():
    """A label share's prediction of an abstention is 1/k (`label_prediction`), not 0.5: four labels, 0.25 (a review
    of wave 15's fix: the all-error judge's refusal shares read 25.0% each)."""
    assert ppi_pass_rate("m", [0.25] * 10, [0.25] * 4, [1, 0, 0, 0]).judge_abstained
    assert ppi_pass_rate("m", [1 / 3] * 10, [], []).judge_abstained
    assert not ppi_pass_rate("m", [0.0] * 10, [0.0] * 2, [0, 1]).judge_abstained  # a judge that never says it
    assert not ppi_pass_rate("m", [1.0] * 10, [1.0] * 2, [0, 1]).judge_abstained
