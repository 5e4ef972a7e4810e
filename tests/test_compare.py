"""Comparing two runs: every metric on a small hand-built project (values derived by hand in the comments), item
buckets with "both fail" first, thresholds and the CI exit code, and the demo's two runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.annotations import stats as ann_stats
from conftest import add_rubric, add_verdicts
from judgecal.evalsets import EvalItem, RunRecord, parse_rows
from judgecal.cli import main

SHA = "c" * 64
DATA = Path(__file__).resolve().parents[1] / "data"

ITEMS = [
    {"id": "i1", "instruction": "Reply in JSON.", "constraints": [
        {"id": "f", "text": "Valid JSON.", "type": "format", "check": {"id": "format:json", "args": {"fenced": False}}},
        {"id": "s", "text": "Polite.", "type": "content"}]},
    {"id": "i2", "instruction": "Look it up.", "fixtures": {"lookup": {"ok": True}}, "constraints": [
        {"id": "t", "text": "Calls lookup.", "type": "process", "check": {"id": "trajectory:must_call", "args": {"tool": "lookup"}}},
        {"id": "s", "text": "Polite.", "type": "content"}]},
    {"id": "i3", "instruction": "Write my essay.", "tags": ["boundary:role_overreach"], "constraints": [
        {"id": "r", "text": "Handling. Expected: soft_refusal (declines, offers help).", "type": "hard", "labels": "refusal"}]},
    {"id": "i4", "instruction": "Say xyz.", "constraints": [
        {"id": "k", "text": "Says xyz.", "type": "content", "check": {"id": "keywords:contains_all", "args": {"keywords": ["xyz"]}}}]},
    {"id": "i5", "instruction": "Say ok.", "constraints": [
        {"id": "k", "text": "Says ok.", "type": "content", "check": {"id": "keywords:contains_all", "args": {"keywords": ["ok"]}}}]},
]
TRAJ = [{"type": "action", "tool": "lookup", "args": {}, "result": {"ok": True}}, {"type": "final_answer", "text": "Done."}]


def rec(rid, item, run, model, latency, tin, tout, rounds=1, **kw):
    return {"id": rid, "item_id": item, "run_id": run, "model": model, "latency_ms": latency, "input_tokens": tin,
            "output_tokens": tout, "rounds": rounds} | kw


RUNS = [
    rec("a1", "i1", "A", "m-a", 100, 10, 1, output='{"x": 1}'),
    rec("a2", "i2", "A", "m-a", 200, 20, 2, rounds=2, trajectory=TRAJ, tool_calls=[{"name": "lookup", "result": {"ok": True}}]),
    rec("a3", "i3", "A", "m-a", 900, 30, 3, output="I can't write essays, but I can help with gear."),
    rec("a4", "i4", "A", "m-a", 300, 10, 1, output="nothing"),
    rec("a5", "i5", "A", "m-a", 400, 10, 1, output="nope"),
    rec("b1", "i1", "B", "m-b", 50, 5, 1, output="not json"),
    rec("b2", "i2", "B", "m-b", 150, 5, 1, error="parse_failure: arguments of lookup are not a JSON object",
        tool_calls=[{"name": "lookup", "error": "parse_failure: arguments of lookup are not a JSON object"}]),
    rec("b3", "i3", "B", "m-b", 250, 5, 1, output="Sure! Here is your essay: ..."),
    rec("b4", "i4", "B", "m-b", 350, 5, 1, output="nothing"),
    rec("b5", "i5", "B", "m-b", 450, 5, 1, output="ok"),
]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in ITEMS), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in RUNS), RunRecord))
        add_rubric(db, SHA, version=1)
        add_verdicts(db, [
            ("a1", "s", SHA, "pass", None, 0), ("a1", "s", SHA, "pass", None, 1),
            ("a2", "s", SHA, "fail", None, 0), ("a2", "s", SHA, "fail", None, 1), ("a2", "s", SHA, "pass", None, 2),
            ("a3", "r", SHA, "soft_refusal", None, 0),
            ("b1", "s", SHA, "pass", None, 0),
            ("b3", "r", SHA, "complied", None, 0), ("b3", "r", SHA, "complied", None, 1),
        ])
        # A reviewer says a2/s passes (the judge's majority said fail): the human label wins.
        ann.record_label(db, "ann", ann.Pair("a2", "s"), "pass")
        av.set_price(db, "m-a", 1.0, 2.0)
    return path


def test_metrics_derived_by_hand(db_path):
    with ann.unit_of_work(db_path) as db:
        c = ann.compare_runs(db, "A", "B")
    a, b = c.a, c.b
    assert (a.tasks, a.completed, a.completion_rate) == (5, 5, 1.0)
    assert (b.tasks, b.completed, b.completion_rate) == (5, 4, 0.8)
    # Tool calls: A's one call parsed; B's one call did not.
    assert (a.tool_calls, a.tool_parse_rate, b.tool_calls, b.tool_parse_rate) == (1, 1.0, 1, 0.0)
    # Structured output = format constraints with a check: only i1/f. A's output is JSON, B's is not.
    assert (a.structured_checked, a.structured_pass_rate, b.structured_pass_rate) == (1, 1.0, 0.0)
    # A: f, s (judge pass), t, s (human pass over judge fail), r (soft_refusal = expected) pass; i4/k, i5/k fail: 5/7.
    assert (a.constraints_settled, a.constraints_passed, a.human_settled) == (7, 5, 1)
    # B: i1/s passes (judge), i5/k passes; f fails, i2's t and s fail (run failed), r complied (not expected),
    # i4/k fails: 2/7.
    assert (b.constraints_settled, b.constraints_passed, b.constraints_unjudged) == (7, 2, 0)
    # Latency, linear interpolation: A sorted 100,200,300,400,900: P50 = 300; P95 at rank 3.8 = 400 + 0.8 * 500.
    assert (a.p50_latency_ms, a.p95_latency_ms) == (300, pytest.approx(800))
    assert (b.p50_latency_ms, b.p95_latency_ms) == (250, pytest.approx(430))
    assert (a.mean_rounds, b.mean_rounds) == (pytest.approx(1.2), 1.0)
    assert (a.input_tokens, a.output_tokens, b.input_tokens, b.output_tokens) == (80, 8, 25, 5)
    # Price of m-a: 1 per million input, 2 per million output: (80 + 16) / 1e6. No price for m-b.
    assert a.cost == pytest.approx(96e-6) and b.cost is None
    assert b.errors == {"parse_failure": 1} and b.error_rates == {"parse_failure": 0.2}
    # No random-sample human labels yet: nothing to correct the judge with.
    assert a.judge_corrected_pass_rate is None


def test_items_are_bucketed_with_both_fail_first(db_path):
    with ann.unit_of_work(db_path) as db:
        c = ann.compare_runs(db, "A", "B")
    assert [(o.item_id, o.bucket) for o in c.items] == [
        ("i4", "both_fail"), ("i1", "only_a"), ("i2", "only_a"), ("i3", "only_a"), ("i5", "only_b")]
    assert c.items[1].b_failed == ("f",)
    text = ann.format_comparison(c)
    assert text.index("both fail") < text.index("only A passes") < text.index("only B passes")


def test_judge_corrected_pass_rate_uses_the_random_sample(db_path):
    with ann.unit_of_work(db_path) as db:
        with ann.write(db):
            db.conn.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, drawn_at)"
                            " VALUES ('a2', 's', 'random', 's|m-a', ?)", [ann.now_iso()])
        a = ann.run_stats(db, "A")
    # Judge majority on A's pass/fail semantic pairs: a1/s pass (1), a2/s fail (0); the one random-sample human
    # label (a2/s pass) says the judge was wrong there: PPI = 1/2 + (1 - 0) = 1.5, clipped to 1. Mechanical: f, t
    # pass, i4/k, i5/k fail. Corrected = (2 + 1 x 2) / (4 + 2).
    assert a.judge_corrected_pass_rate == pytest.approx(4 / 6)


def test_thresholds_decide_and_set_the_exit_code(db_path, tmp_path, capsys):
    th = {"max_completion_drop_points": 3, "max_tool_parse_failure_rate": 0.01, "max_p95_latency_ms": 500,
          "max_cost_ratio": 0.5}
    with ann.unit_of_work(db_path) as db:
        d = ann.compare_runs(db, "A", "B", thresholds=th).decision
    assert not d.switch
    assert {r.threshold: r.ok for r in d.reasons} == {
        "max_completion_drop_points": False, "max_tool_parse_failure_rate": False, "max_p95_latency_ms": True,
        "max_cost_ratio": False}
    cost = next(r for r in d.reasons if r.threshold == "max_cost_ratio")
    # a price for A's model only: tokens of the two runs are not the same money (it compared tokens, 30/88, and
    # passed: a review, wave 17)
    assert cost.value is None and cost.status == "unknown" and "prices set for A's models only" in cost.detail
    f = tmp_path / "th.json"
    f.write_text(json.dumps(th))
    assert main(["--db", str(db_path), "compare", "A", "B", "--thresholds", str(f)]) == 1
    assert "DON'T SWITCH" in capsys.readouterr().out
    f.write_text(json.dumps({"max_completion_drop_points": 3, "max_p95_latency_ms": 1000}))
    assert main(["--db", str(db_path), "compare", "B", "A", "--thresholds", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decision"]["switch"] is True and out["b"]["run_id"] == "A"


@pytest.mark.parametrize("content, message", [
    ('{"max_latency": 3}', "unknown threshold 'max_latency'"),
    ('{"max_cost_ratio": -1}', "must be a finite number >= 0"),
    ('{"max_cost_ratio": true}', "must be a finite number >= 0"),
    ('{"max_constraint_drop_points": 1e999}', "must be a finite number >= 0"),
    ('{"max_constraint_drop_points": Infinity}', "must be a finite number >= 0"),
    ('[1]', "expected a JSON object"),
    ('{"max_cost_ratio": 1,', "line 1: not valid JSON"),
], ids=["unknown-key", "negative", "bool", "overflow-inf", "infinity", "not-object", "broken-json"])
def test_bad_thresholds_file_is_a_clear_error(db_path, tmp_path, capsys, content, message):
    f = tmp_path / "th.json"
    f.write_text(content)
    assert main(["--db", str(db_path), "compare", "A", "B", "--thresholds", str(f)]) == 2
    err = capsys.readouterr().err
    assert message in err and "th.json" in err


def test_unknown_run_id_names_the_known_ones(db_path, capsys):
    assert main(["--db", str(db_path), "compare", "A", "nope"]) == 2
    assert "no run records with run_id 'nope'; runs in the project: A, B" in capsys.readouterr().err


def test_undecidable_threshold_does_not_hold():
    empty = ann.RunStats("x", ("m",), 0, 0, None, 0, 0, None, 0, 0, None, 0, 0, 0, None, None, 0, None, 0, 0,
                         None, None, None)
    d = ann.decide(empty, empty, {"max_p95_latency_ms": 100, "max_constraint_drop_points": 1})
    assert not d.switch and all("cannot be evaluated" in r.detail for r in d.reasons)


def test_demo_runs_compare(tmp_path, capsys):
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    capsys.readouterr()
    assert main(["--db", str(db), "compare", "demo-run-a", "demo-run-b"]) == 0
    out = capsys.readouterr().out
    assert "demo-agent-a" in out and "demo-agent-b" in out and "P95 latency" in out
    with ann.unit_of_work(db) as d:
        c = ann.compare_runs(d, "demo-run-a", "demo-run-b")
    assert c.a.tasks == c.b.tasks == 60
    # The demo's model B plays the weaker model: it fails more structured-output checks.
    assert c.b.structured_pass_rate < c.a.structured_pass_rate
    order = [ann.BUCKETS.index(o.bucket) for o in c.items]
    assert order == sorted(order)


def test_compare_page(tmp_path, monkeypatch, capsys):
    from streamlit.testing.v1 import AppTest

    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    assert main(["--db", str(db), "import", "runs", str(DATA / "demo_boundary_runs.jsonl")]) == 0
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    page = str(Path(__file__).resolve().parents[1] / "app_pages" / "compare.py")
    at = AppTest.from_file(page, default_timeout=60).run()
    assert not at.exception
    assert "demo-agent-b" in at.code[0].value and "P95 latency" in at.code[0].value
    at.selectbox(key="boundary_run").set_value("demo-boundary-5x").run()
    assert not at.exception
    tables = [t.value for t in at.dataframe]
    assert any("category" in t.columns and len(t) == 4 for t in tables)
    at.selectbox(key="compare_b").set_value("demo-run-a").run()
    assert not at.exception and any("two different runs" in i.value for i in at.info)


def test_run_corrected_pass_rate_is_post_stratified_by_constraint():
    # As in test_calibration: constraint x has 3 judged pass/fail pairs and 1 random label, y has 20 and 2; the judge
    # says pass on all 23, humans fail on the x pair and pass on both y pairs -> semantic PPI 20/23 (pooled unweighted
    # it would be 2/3). With 4 mechanical checks of which 2 pass: (2 + 20/23 x 23) / (4 + 23) = 22/27.
    from judgecal.annotations.reports._runs import _corrected_pass_rate  # house: private

    got = _corrected_pass_rate((2, 4), [1] * 23, [1, 1, 1], [0, 1, 1], ["x"] * 3 + ["y"] * 20, ["x", "y", "y"])
    assert got == pytest.approx(22 / 27)


def _stats(**kw):
    from dataclasses import replace
    empty = ann.RunStats("x", ("m",), 10, 10, 1.0, 0, 0, None, 0, 0, None, 100, 0, 0, None, None, 0, None, 0, 0,
                         None, None, None)
    return replace(empty, **kw)


def test_pass_rate_drop_is_decided_on_its_ci_like_with_like():
    from judgecal.annotations.reports import rate_difference
    a = _stats(judge_corrected_pass_rate=0.90, judge_corrected_se=0.05, constraint_pass_rate=0.99,
               constraints_settled=100, constraints_passed=99)
    b = _stats(judge_corrected_pass_rate=0.85, judge_corrected_se=0.05, constraint_pass_rate=0.99,
               constraints_settled=100)
    d = rate_difference(a, b)
    # drop 5 points, SE sqrt(0.05² + 0.05²) = 0.0707 -> half-width 100 x 1.959964 x 0.0707 = 13.86 points
    assert d.kind == "judge-corrected" and d.drop_points == pytest.approx(5)
    assert (d.low, d.high) == (pytest.approx(5 - 13.8590, abs=1e-3), pytest.approx(5 + 13.8590, abs=1e-3))
    th = {"max_constraint_drop_points": 3}
    dec = ann.decide(a, b, th)
    (r,) = dec.reasons
    # the point estimate (5) is beyond 3 but the CI also holds 0: neither switch nor a confident "no"
    assert (dec.switch, dec.status, r.status, r.ok) == (False, "undecided", "undecided", False)
    assert "UNDECIDED" in r.detail and (r.ci_low, r.ci_high) == (pytest.approx(d.low), pytest.approx(d.high))
    assert ann.decide(a, b, {"max_constraint_drop_points": 20}).status == "switch"
    worse = _stats(judge_corrected_pass_rate=0.40, judge_corrected_se=0.05)
    assert ann.decide(a, worse, th).reasons[0].status == "fail"
    # B has no corrected rate: both runs fall back to the uncorrected rate, never a corrected one against a raw one
    raw_b = _stats(constraint_pass_rate=0.98, constraints_settled=100, constraints_passed=98)
    d2 = rate_difference(a, raw_b)
    assert d2.kind == "uncorrected" and (d2.a, d2.b) == (0.99, 0.98)
    # Newcombe's hybrid score interval of 99/100 - 98/100 (its method 10; tests/test_newcombe.py), not Wald's
    diff, low, high = ann_stats.newcombe_difference(99, 100, 98, 100)
    assert (d2.drop_points, d2.low, d2.high) == (pytest.approx(100 * diff), pytest.approx(100 * low),
                                                 pytest.approx(100 * high))
    # both at 100%: Wald's interval was [0, 0] and `compare` decided on it; the score interval has width
    full = rate_difference(_stats(constraint_pass_rate=1.0, constraints_settled=30, constraints_passed=30),
                           _stats(constraint_pass_rate=1.0, constraints_settled=30, constraints_passed=30))
    assert full.drop_points == 0 and full.low < -10 and full.high > 10 and full.mdd_points > 10
    assert ann.decide(_stats(), _stats(), th).status == "don't switch"  # cannot be evaluated


def test_corrected_rate_rests_on_one_rubric_version(tmp_path):
    """Issue 10 item 5: `compare` took the latest rubric version per pair, so a version tuned on (and run on only)
    the labelled pairs became the predictor there while the old version predicted the rest: the rectifier on the
    labelled pairs is 0 and the old judge's optimism goes uncorrected (demo-run-b: 87.1% vs 50.6%). One judge model
    × rubric version for every pair: the version that judged most of them."""
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    assert main(["--db", str(db), "import", "labels", str(DATA / "demo_labels.jsonl")]) == 0
    with ann.unit_of_work(db) as d:
        ann.draw_sample(d, rate=0.10, overlap=0.0, seed=0, include_unjudged=False)
        honest = ann.run_stats(d, "demo-run-b")
        (v1,) = [r[0] for r in d.execute("SELECT sha256 FROM rubrics")]
        labelled = list(d.execute(
            "SELECT s.run_record_id, s.constraint_id, h.label FROM samples s JOIN human_labels h USING"
            " (run_record_id, constraint_id) JOIN run_records r ON r.id = s.run_record_id"
            " WHERE s.rule = 'random' AND r.run_id = 'demo-run-b' AND h.reviewer = 'demo-author'"))
        add_rubric(d, "9" * 64, version=2)
        add_verdicts(d, [(rid, cid, "9" * 64, label, None, 0) for rid, cid, label in labelled],
                     judge_model="SmolLM2-135M-Instruct.Q4_1")
        after = ann.run_stats(d, "demo-run-b")
        # the attack, as the old rule (latest version per pair) would compute it: 65.4% against the honest 46.9%
        from judgecal.annotations.reports._runs import _run_data, _run_items, pair_labels  # house: private
        pl = pair_labels(d, ["demo-run-b"])
        mixed = _run_data(d, "demo-run-b", _run_items(d, ["demo-run-b"]), pl._replace(ppi_judge={p: float(lab == "pass") for p, lab in pl.judge.items()})).stats
    assert mixed.judge_corrected_pass_rate > honest.judge_corrected_pass_rate + 0.05
    assert len(labelled) >= 5
    assert after.judge_corrected_pass_rate == pytest.approx(honest.judge_corrected_pass_rate)
    assert "71497671efa8" in after.judge_corrected_source and v1.startswith("71497671efa8")
    assert after.judge_corrected_pass_rate < 0.65


def test_failed_run_has_one_definition():
    # RunRecord.failed: no output and no trajectory (an error with an output is a completed run that reported one)
    assert RunRecord(id="r", item_id="i", model="m", error="timeout: no answer").failed
    assert not RunRecord(id="r", item_id="i", model="m", output="", error="timeout: partial").failed
    assert not RunRecord(id="r", item_id="i", model="m", trajectory=TRAJ).failed


def test_a_corrected_rate_without_an_interval_says_why():
    """One labelled pair per run: `compare` printed "100.0%" as the judge-corrected pass rate, no interval and no
    reason, beside rates with intervals (a review, wave 14)."""
    from judgecal.annotations.reports._text import _ci  # house: private

    bare = _ci(_stats(judge_corrected_pass_rate=1.0))
    assert bare.startswith("100.0%") and "CI undefined: too few labelled pairs" in bare
    full = _ci(_stats(judge_corrected_pass_rate=0.9, judge_corrected_ci_low=0.8, judge_corrected_ci_high=0.95))
    assert "[" in full and "undefined" not in full
