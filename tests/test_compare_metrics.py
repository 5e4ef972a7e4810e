"""What a switch decision needs beyond the pooled rates (issue 13 item 6): per-task mean, pass rate per constraint type
and per settling source, per scenario, reviewers' failure modes, mean latency, tokens and cost per task with outliers,
spread over repeats with flipping items, and the like-with-like checks of `compare`. Values derived by hand on
tests/test_compare.py's project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import RunRecord, parse_rows
from judgecal.cli import main
from test_compare import db_path, rec  # noqa: F401  (the fixture)


def add_runs(db, rows) -> None:
    ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in rows), RunRecord))


def test_new_metrics_by_hand(db_path):  # noqa: F811
    with ann.unit_of_work(db_path) as db:
        ann.record_label(db, "ann", ann.Pair("b1", "s"), "fail", failure_mode="hallucination")
        c = ann.compare_runs(db, "A", "B")
    a, b = c.a, c.b
    # A's records: a1 [f, s] 2/2, a2 [t, s] 2/2, a3 [r] 1/1, a4 [k] 0/1, a5 [k] 0/1 -> per-task (1+1+1+0+0)/5 = 0.6
    # beside the pooled 5/7.
    assert a.per_task_pass_rate == pytest.approx(0.6) and a.constraint_pass_rate == pytest.approx(5 / 7)
    # by type: format f 1/1; content a1/s, a2/s pass, a4/k, a5/k fail 2/4; process t 1/1; hard r 1/1
    assert a.by_type == {"content": (2, 4), "format": (1, 1), "hard": (1, 1), "process": (1, 1)}
    # settled by: mechanical f, t pass, k, k fail 2/4; the judge a1/s, a3/r 2/2; a human a2/s 1/1
    assert a.by_source == {"human": (1, 1), "judge": (2, 2), "mechanical": (2, 4)}
    assert a.by_scenario == {"(none)": (5, 7)}
    # B: b1/s now a human fail tagged hallucination (it was the judge's pass)
    assert b.failure_modes == {"hallucination": 1} and a.failure_modes == {}
    assert b.by_source["human"] == (0, 1)
    # latency (100 + 200 + 900 + 300 + 400) / 5 = 380; tokens 11 + 22 + 33 + 11 + 11 = 88 -> 17.6 per task;
    # cost 96e-6 / 5 tasks; B has no price
    assert a.mean_latency_ms == pytest.approx(380) and a.mean_tokens_per_task == pytest.approx(17.6)
    assert a.cost_per_task == pytest.approx(96e-6 / 5) and b.cost_per_task is None
    # Tukey on A's tokens 11 11 11 22 33: Q1 11, Q3 22, fence 22 + 1.5 × 11 = 38.5: no outlier
    assert a.token_outliers == () and a.repeats == 1 and a.repeat_spread == {} and a.flipping_items == ()
    text = ann.format_comparison(c)
    assert "  per-task mean" in text and "pass rate by type: content" in text and "hallucination 0 -> 1" in text


def test_token_outliers_and_spread_over_repeats(db_path):  # noqa: F811
    # Run R: three repeats of i4 ("Says xyz") and i5 ("Says ok"). i4 passes, fails, passes: it flips.
    # Per repeat the constraint pass rate is 2/2, 1/2, 2/2 -> mean 5/6, SD sqrt(((1/6)² + (1/3)² + (1/6)²) / 2)
    # = sqrt(1/12) = 0.288675. Tokens: five records at 10, one at 1000: Q1 = Q3 = 10, fence 10 -> r-i5-2 flagged.
    outputs = {("i4", 0): "xyz", ("i4", 1): "nothing", ("i4", 2): "xyz", ("i5", 0): "ok", ("i5", 1): "ok", ("i5", 2): "ok"}
    rows = [rec(f"r-{item}-{k}", item, "R", "m-r", 100, 1000 if (item, k) == ("i5", 2) else 9, 1, output=out)
            for (item, k), out in outputs.items()]
    with ann.unit_of_work(db_path) as db:
        add_runs(db, rows)
        s = ann.run_stats(db, "R")
    assert s.repeats == 3 and s.flipping_items == ("i4",)
    mean, sd = s.repeat_spread["constraint_pass_rate"]
    assert mean == pytest.approx(5 / 6) and sd == pytest.approx(0.288675, abs=1e-6)
    assert s.repeat_spread["task_pass_rate"] == pytest.approx((5 / 6, 0.288675), abs=1e-6)
    assert s.repeat_spread["completion_rate"] == (1.0, 0.0)
    assert s.token_outliers == ("r-i5-2",)


def test_two_repeats_give_no_spread(db_path):  # noqa: F811
    rows = [rec(f"q-{k}", "i5", "Q", "m-q", 100, 1, 1, output="ok" if k else "no") for k in range(2)]
    with ann.unit_of_work(db_path) as db:
        add_runs(db, rows)
        s = ann.run_stats(db, "Q")
    # fewer than 3 repeats: no spread to read, but the flip is still flagged
    assert s.repeats == 2 and s.repeat_spread == {} and s.flipping_items == ("i5",)


def _two_runs(db, *, sha_a="e" * 64, sha_b="e" * 64, prompt_a="v1", prompt_b="v1") -> None:
    add_runs(db, [rec("x1", "i5", "X", "m-x", 100, 1, 1, output="ok", evalset_sha256=sha_a, prompt_version=prompt_a),
                  rec("y1", "i5", "Y", "m-y", 100, 1, 1, output="ok", evalset_sha256=sha_b, prompt_version=prompt_b)])


@pytest.mark.parametrize("kw, refused, text", [
    ({}, False, None),
    ({"sha_b": "f" * 64}, True, "different eval sets"),
    ({"prompt_b": "v2"}, True, "differ in prompt version"),
], ids=["like-with-like", "evalset-differs", "prompt-differs"])
def test_compare_refuses_unlike_runs_under_thresholds(db_path, tmp_path, capsys, kw, refused, text):  # noqa: F811
    with ann.unit_of_work(db_path) as db:
        _two_runs(db, **kw)
    thresholds = tmp_path / "t.json"
    thresholds.write_text(json.dumps({"max_completion_drop_points": 5}))
    capsys.readouterr()
    assert main(["--db", str(db_path), "compare", "X", "Y"]) == 0  # without thresholds: a warning only
    out = capsys.readouterr().out
    assert (f"warning: the runs" in out) == refused
    code = main(["--db", str(db_path), "compare", "X", "Y", "--thresholds", str(thresholds)])
    out = capsys.readouterr().out
    assert code == (1 if refused else 0)
    if refused:
        assert f"[FAIL] REFUSED: the runs" in out and text in out and "DON'T SWITCH" in out


def test_a_prompt_ab_may_allow_the_prompt_change(db_path, tmp_path, capsys):  # noqa: F811
    with ann.unit_of_work(db_path) as db:
        _two_runs(db, prompt_b="v2")
    thresholds = tmp_path / "t.json"
    thresholds.write_text(json.dumps({"max_completion_drop_points": 5}))
    assert main(["--db", str(db_path), "compare", "X", "Y", "--thresholds", str(thresholds),
                 "--allow-prompt-change", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decision"]["switch"] is True
    assert [w["kind"] for w in data["warnings"]] == ["prompt_version"] and data["warnings"][0]["refuses"] is False


def test_records_without_an_evalset_hash_only_warn(db_path, capsys):  # noqa: F811
    # Imported records carry no hash: "unknown" is said, never read as "differs".
    with ann.unit_of_work(db_path) as db:
        c = ann.compare_runs(db, "A", "B", thresholds={"max_completion_drop_points": 50})
    assert [w.kind for w in c.warnings] == ["evalset_unknown"] and c.decision.switch
