"""`judgecal gate --run`: the run gate (did this run regress the agent?), apart from the judge gate (is the judge
verified?). It reads the run's mechanical checks and its judge-corrected pass rate, the judge's errors measured on
the judge version's verification pairs: it never needs labels on the run itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import run_pass_gate, transferred_pass_rate
from judgecal.evalsets import RunRecord, parse_rows
from judgecal.cli import main
from test_calibration_project import R1, R2, add_rubric, add_verdicts, build

NEW = {n: "PPP" if n <= 106 else "FFF" for n in range(101, 111)}  # the PR's run: the judge passes 6 of 10


def add_run(db, run_id: str, ns=range(101, 111), **extra) -> None:
    rows = [{"id": f"run-{n}", "item_id": f"item-{(n - 1) % 10 + 1}", "model": "m", "run_id": run_id, "output": f"new {n}"}
            | extra for n in ns]
    ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in rows), RunRecord))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = build(tmp_path / "run-gate.db")  # R1 verified on the counted random pairs runs 1-8 (alice's blind labels)
    with ann.unit_of_work(path) as db:
        add_run(db, "pr-1")
    return path


def test_corrected_rate_rests_on_the_verification_not_on_new_labels(db_path):
    # Verification pairs (counted random, blind first label): runs 1-8. Judge prediction (majority; the tie of run 8
    # is 0.5): 1 1 1 0 0 1 0 0.5; alice: 1 1 1 0 0 0 1 1; rectifier human - judge: 0 0 0 0 0 -1 1 0.5, mean 0.0625.
    # The new run: the judge passes 6 of 10 -> 0.6. PPI (n = 8 < 30: λ = 1): 0.6 + 0.0625 = 0.6625.
    # var = var(judge)/N + var(rect)/n = (2.4/9)/10 + (2.21875/7)/8 = 0.026667 + 0.039621 = 0.066287, SE 0.257463;
    # low = 0.6625 - 1.959964 × 0.257463 = 0.157882; high clipped to 1.
    with ann.unit_of_work(db_path) as db:
        add_verdicts(db, R1, NEW)
        assert db.execute("SELECT count(*) FROM human_labels WHERE run_record_id LIKE 'run-1__'").fetchone()[0] == 0
        rate, why = transferred_pass_rate(db, "pr-1")
    assert why == "" and rate is not None
    assert rate.estimate == pytest.approx(0.6625)
    assert rate.low == pytest.approx(0.157882, abs=1e-5)
    assert rate.high == pytest.approx(1.0)
    assert (rate.n_semantic, rate.n_judged, rate.n_verification) == (10, 10, 8)
    assert rate.rubric_sha256 == R1 and rate.judge_model == "j"


def test_cli_passes_and_fails_on_the_lower_bound_and_names_the_verification(db_path, capsys):
    with ann.unit_of_work(db_path) as db:
        add_verdicts(db, R1, NEW)
    capsys.readouterr()
    assert main(["--db", str(db_path), "gate", "--run", "pr-1", "--min-pass-rate", "0.15"]) == 0
    out = capsys.readouterr().out
    assert "ok    pass_rate  run pr-1: pass rate 0.662 [0.158, 1.000]" in out
    assert "corrected with j · strict v1" in out and "8 labelled pairs of its latest verification" in out
    assert main(["--db", str(db_path), "gate", "--run", "pr-1", "--min-pass-rate", "0.2"]) == 1
    assert main(["--db", str(db_path), "gate", "--run", "pr-1", "--min-pass-rate", "0.6", "--on", "point"]) == 0


def test_json_output(db_path, capsys):
    with ann.unit_of_work(db_path) as db:
        add_verdicts(db, R1, NEW)
    capsys.readouterr()
    assert main(["--db", str(db_path), "gate", "--run", "pr-1", "--min-pass-rate", "0.6", "--on", "point",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True and data["checks"][0]["check"] == "pass_rate"
    assert data["checks"][0]["value"] == pytest.approx(0.6625)


def test_judging_only_the_passing_pairs_does_not_pass(db_path, capsys):
    # The attack: judge the pairs that look good and leave the rest out. The rate is over the whole run or nothing.
    with ann.unit_of_work(db_path) as db:
        add_verdicts(db, R1, {n: "PPP" for n in range(101, 107)})
        result = run_pass_gate(db, "pr-1", min_pass_rate=0.0, on="point")
    assert not result.passed
    assert "judged 6 of the run's 10 semantic pairs" in result.checks[0].reason


def test_an_unjudged_run_fails(db_path):
    with ann.unit_of_work(db_path) as db:
        result = run_pass_gate(db, "pr-1", min_pass_rate=0.0)
    assert not result.passed and "none of the run's 10 semantic pairs has been judged" in result.checks[0].reason


def test_an_unverified_rubric_version_cannot_gate_a_run(db_path):
    # A new rubric version judged the run, but no counted pair was labelled after it was created: its errors are
    # unknown, so its rate cannot be corrected (it never borrows R1's verification).
    with ann.unit_of_work(db_path) as db:
        add_rubric(db, R2, 2)
        with ann.write(db):
            db.execute("UPDATE rubrics SET parent_sha256 = ? WHERE sha256 = ?", [R1, R2])
        add_verdicts(db, R2, NEW)
        rate, why = transferred_pass_rate(db, "pr-1")
        result = run_pass_gate(db, "pr-1", min_pass_rate=0.0)
    assert rate is None and "strict v2" in why
    assert not result.passed


def test_failed_records_fail_their_constraints_without_a_judge(db_path):
    # Two records of the run failed (no output): they fail every constraint and count as errors.
    with ann.unit_of_work(db_path) as db:
        add_run(db, "pr-2", ns=range(111, 113), output=None, error="timeout: no answer")
        add_verdicts(db, R1, {111: "PPP"})  # a stray verdict on a failed record counts as a fail anyway
        rate, why = transferred_pass_rate(db, "pr-2")
        result = run_pass_gate(db, "pr-2", min_pass_rate=0.0, max_error_rate=0.5, on="point")
    assert rate is not None and rate.estimate == pytest.approx(0.0625)  # judge 0 on both + the rectifier 0.0625
    errors = next(c for c in result.checks if c.check == "errors")
    assert not errors.ok and errors.value == 1.0


def test_flags_are_validated(db_path, capsys):
    db = str(db_path)
    assert main(["--db", db, "gate", "--run", "pr-1"]) == 2  # no limit
    assert "needs a limit" in capsys.readouterr().err
    assert main(["--db", db, "gate", "--run", "nope", "--min-pass-rate", "0.5"]) == 2
    assert "runs in the project: pr-1" in capsys.readouterr().err
    assert main(["--db", db, "gate", "--run", "pr-1", "--min-pass-rate", "0.5", "--min-kappa", "0.4"]) == 2
    assert main(["--db", db, "gate"]) == 2  # the judge gate still needs --min-kappa
    assert "--min-kappa is required" in capsys.readouterr().err
    assert main(["--db", db, "gate", "--min-kappa", "0.4", "--max-error-rate", "0.1"]) == 2
    with pytest.raises(SystemExit) as exc:  # argparse's own error: exit 2 as well
        main(["--db", db, "gate", "--run", "pr-1", "--max-error-rate", "1.5"])
    assert exc.value.code == 2


def test_mechanical_checks_gate(tmp_path):
    path = tmp_path / "mech.db"
    items = [{"id": "i1", "instruction": "Say ok.", "constraints": [
        {"id": "k", "text": "Says ok.", "type": "content",
         "check": {"id": "keywords:contains_all", "args": {"keywords": ["ok"]}}}]}]
    runs = [{"id": f"r{n}", "item_id": "i1", "model": "m", "run_id": "R", "output": "ok" if n < 3 else "no"}
            for n in range(4)]
    from judgecal.evalsets import EvalItem
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
        ok = run_pass_gate(db, "R", min_check_pass_rate=0.75)
        bad = run_pass_gate(db, "R", min_check_pass_rate=0.8, min_pass_rate=0.8)
    assert ok.passed and ok.checks[0].reason.startswith("3 of 4 mechanical checks passed")
    # without semantic constraints the pass rate is the mechanical one, exactly
    assert not bad.passed and [c.value for c in bad.checks] == [0.75, 0.75, 1.0]  # (1.0: every item answered)


def test_a_run_over_part_of_the_eval_set_or_uneven_records_fails(db_path):
    """The run gate's rates are the eval set's only when the run answered every item, each as many times (a review
    of `compare`, wave 17, found runs made with `--limit` or resumed on some items gated on the items they hold)."""
    with ann.unit_of_work(db_path) as db:
        add_verdicts(db, R1, NEW)
        whole = run_pass_gate(db, "pr-1", min_pass_rate=0.0, on="point")
        assert whole.passed and whole.checks[-1].check == "items" and whole.checks[-1].reason == (
            "10 of the eval set's 10 items answered, 1 record each")
        add_run(db, "pr-half", ns=range(201, 206))  # items 1-5 only (`judgecal run --limit 5`)
        add_verdicts(db, R1, {n: "PPP" for n in range(201, 206)})
        half = run_pass_gate(db, "pr-half", min_pass_rate=0.0, on="point")
        assert not half.passed and [c.check for c in half.failures] == ["items"]
        assert half.failures[0].value == 0.5 and "answered 5 of the eval set's 10 items (first missing: item-6)" in (
            half.failures[0].reason)
        add_run(db, "pr-uneven", ns=[*range(301, 311), 311, 312])  # items 1 and 2 twice (a resume of some items)
        add_verdicts(db, R1, {n: "PPP" for n in range(301, 313)})
        uneven = run_pass_gate(db, "pr-uneven", max_error_rate=1.0)
        assert not uneven.passed and "holds 1 to 2 records per item" in uneven.failures[0].reason
    assert main(["--db", str(db_path), "gate", "--run", "pr-half", "--min-pass-rate", "0.0", "--on", "point"]) == 1


def test_the_items_a_run_is_over_leave_out_pairwise_items_and_follow_its_tag_selection(db_path):
    """A review of the fixes (wave 17): the `items` check counted `judge --pairwise`'s A-vs-B items, which no run
    answers (every run's gate failed after a pairwise judge run), and failed runs made over a tag by design. A run is
    over what its `judgecal run` batches selected by `--tag` / `--item`; `--limit` is no scope."""
    with ann.unit_of_work(db_path) as db:
        add_verdicts(db, R1, NEW)
        from judgecal.evalsets import EvalItem
        pair = {"id": "pair-1", "instruction": "Which is better?", "source": "judgecal pairwise", "constraints": [
            {"id": "preferred", "text": "The better output.", "type": "content", "labels": ["output_1", "output_2"]}]}
        ann.import_items(db, parse_rows(json.dumps(pair), EvalItem))
        assert run_pass_gate(db, "pr-1", max_error_rate=1.0).passed  # the A-vs-B item is no item of a run
        with ann.write(db):
            db.execute("UPDATE eval_items SET tags = '[\"easy\"]' WHERE id IN ('item-1', 'item-2', 'item-3')")
        add_run(db, "pr-easy", ns=range(401, 404))  # items 1-3
        add_verdicts(db, R1, {n: "PPP" for n in range(401, 404)})
        imported = run_pass_gate(db, "pr-easy", max_error_rate=1.0)
        assert not imported.passed and "answered 3 of the eval set's 10 items" in imported.failures[0].reason

        def batch(n: int, select: dict) -> None:
            with ann.write(db):
                db.execute("INSERT INTO batches (id, kind, settings, status, started_at) VALUES (?, 'run', ?, 'done',"
                           " 'x')", [f"b{n}", json.dumps({"run_id": "pr-easy", "select": select})])

        batch(1, {"tags": ["easy"], "item_ids": None, "limit": None})  # `judgecal run --tag easy`
        tagged = run_pass_gate(db, "pr-easy", max_error_rate=1.0)
        assert tagged.passed and tagged.checks[-1].reason == (
            "3 of the 3 items tagged easy (the run's selection) answered, 1 record each")
        batch(2, {"tags": ["easy"], "item_ids": None, "limit": 2})  # a resume with --limit: no scope
        assert not run_pass_gate(db, "pr-easy", max_error_rate=1.0).passed
