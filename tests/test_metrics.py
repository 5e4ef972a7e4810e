"""Check metrics: values derived by hand from a small fixed table of check results."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from judgecal.evalsets import Step, run_check
from judgecal.evalsets._metrics import ALL, UNLABELLED, CheckRow, Rate, compute_metrics, format_metrics  # house: private

# Two models. Trajectory records r1 (4 steps) and r2 (6 steps), text records r3 and r4 (0 steps).
#   r1 m-a: c1 format must pass | c2 process must FAIL (2 bad steps, process) | c3 content nice pass
#   r2 m-a: c1 format must pass | c2 process must pass
#   r3 m-b: c1 format must FAIL (format)      | c3 content nice FAIL (no mode)
#   r4 m-b: c1 format must pass | c3 content nice pass
#   r2's c4 is a hard constraint with bad steps: not a process constraint, so not in the step deviation rate.
ROWS = [
    CheckRow("r1", "i1", "m-a", "c1", "format", "must", True, 0, 4),
    CheckRow("r1", "i1", "m-a", "c2", "process", "must", False, 2, 4, "process"),
    CheckRow("r1", "i1", "m-a", "c3", "content", "nice", True, 0, 4),
    CheckRow("r2", "i2", "m-a", "c1", "format", "must", True, 0, 6),
    CheckRow("r2", "i2", "m-a", "c2", "process", "must", True, 0, 6),
    CheckRow("r2", "i2", "m-a", "c4", "hard", "must", True, 0, 6),
    CheckRow("r3", "i1", "m-b", "c1", "format", "must", False, 0, 0, "format"),
    CheckRow("r3", "i1", "m-b", "c3", "content", "nice", False, 0, 0),
    CheckRow("r4", "i2", "m-b", "c1", "format", "must", True, 0, 0),
    CheckRow("r4", "i2", "m-b", "c3", "content", "nice", True, 0, 0),
]


def test_overall_metrics_by_hand():
    m = compute_metrics(ROWS)[ALL]
    # 10 checks, 3 failed (r1/c2, r3/c1, r3/c3) -> 7/10.
    assert (m.n_checks, m.n_passed, m.pass_rate) == (10, 7, 0.7)
    # r2 and r4 pass everything; r1 and r3 do not -> 2/4.
    assert (m.n_records, m.n_records_all_pass, m.all_pass_rate) == (4, 2, 0.5)
    assert m.n_items == 2
    # format: r1 r2 r3 r4 c1 -> 3/4; process: 1/2; content: r1 r3 r4 c3 -> 2/3; hard: 1/1.
    assert m.by_type == {"content": Rate(2, 3), "format": Rate(3, 4), "hard": Rate(1, 1), "process": Rate(1, 2)}
    # must: c1 x4, c2 x2, c4 -> 7 checks, 2 failed; nice: c3 x3, 1 failed.
    assert m.by_severity == {"must": Rate(5, 7), "nice": Rate(2, 3)}
    assert m.failure_modes == {"format": 1, "process": 1, UNLABELLED: 1}
    assert m.failure_mode_shares == pytest.approx({"format": 1 / 3, "process": 1 / 3, UNLABELLED: 1 / 3})
    # 2 bad process steps over 4 + 6 trajectory steps (each record once, text records add 0).
    assert (m.n_bad_steps, m.n_steps, m.step_deviation_rate) == (2, 10, 0.2)


def test_per_model_metrics_by_hand():
    metrics = compute_metrics(ROWS)
    assert list(metrics) == ["m-a", "m-b", ALL]
    a, b = metrics["m-a"], metrics["m-b"]
    assert (a.n_checks, a.n_passed, a.n_records, a.n_records_all_pass) == (6, 5, 2, 1)
    assert a.step_deviation_rate == pytest.approx(2 / 10)
    assert a.failure_modes == {"process": 1}
    assert (b.n_checks, b.n_passed, b.n_records_all_pass, b.all_pass_rate) == (4, 2, 1, 0.5)
    assert b.by_type == {"content": Rate(1, 2), "format": Rate(1, 2)}
    # m-b has text outputs only: no steps, so the deviation rate is undefined, not 0.
    assert b.n_steps == 0 and math.isnan(b.step_deviation_rate)


def test_dataframe_and_dict_records_give_the_same_metrics():
    frame = pd.DataFrame([r._asdict() for r in ROWS])
    assert compute_metrics(frame) == compute_metrics(ROWS)
    assert compute_metrics([r._asdict() for r in ROWS]) == compute_metrics(ROWS)


def test_failure_mode_column_is_optional():
    frame = pd.DataFrame([r._asdict() for r in ROWS]).drop(columns="failure_mode")
    assert compute_metrics(frame)[ALL].failure_modes == {UNLABELLED: 3}


def test_float_counts_from_csv_are_accepted():
    frame = pd.DataFrame([r._asdict() for r in ROWS])
    frame["n_steps"] = frame["n_steps"].astype(float)
    assert compute_metrics(frame)[ALL].n_steps == 10


def test_all_pass_counts_only_checked_constraints():
    # r9 has one checked constraint, which passed: it is an all-pass record, whatever else its item asks.
    rows = [CheckRow("r9", "i9", "m", "c1", "format", "must", True, 0, 0)]
    assert compute_metrics(rows)["m"].all_pass_rate == 1.0


def _replace(i: int, **changes) -> list:
    rows = [r._asdict() for r in ROWS]
    rows[i] = {**rows[i], **changes}
    return rows


@pytest.mark.parametrize("rows,message", [
    ([], "no check results"),
    ([{k: v for k, v in ROWS[0]._asdict().items() if k != "n_steps"}], "lack column.*n_steps"),
    (_replace(2, passed="yes"), "row 2: 'passed' must be a bool"),
    (_replace(3, passed=None), "row 3: 'passed' must be a bool"),
    (_replace(0, passed=1), "'passed' must be a bool"),
    (_replace(1, bad_steps=-1), "'bad_steps' must not be negative"),
    (_replace(1, bad_steps=1.5), "'bad_steps' must be a whole number"),
    (_replace(1, bad_steps=(2, 3)), "'bad_steps' must be a whole number"),
    (_replace(0, n_steps=5), "different 'model' or 'n_steps'"),
    (_replace(0, model="m-b"), "different 'model' or 'n_steps'"),
    (_replace(1, constraint_id="c1"), "duplicate"),
    ([{**ROWS[0]._asdict(), "model": "all"}], "reserved"),
], ids=["empty", "missing-column", "passed-string", "passed-none", "passed-int", "negative-bad-steps",
        "fractional-bad-steps", "bad-steps-indices", "inconsistent-n-steps", "inconsistent-model", "duplicate",
        "model-named-all"])
def test_bad_input_is_an_error(rows, message):
    with pytest.raises(ValueError, match=message):
        compute_metrics(rows)


def test_rows_from_real_checker_results():
    # The rows a caller builds from run_check results: bad_steps is the length of CheckResult.bad_steps.
    traj = (Step(type="action", tool="pay", args={}), Step(type="final_answer", text="paid"))
    order = run_check("trajectory:tool_order", {"before": "confirm", "after": "pay"}, text="", trajectory=traj)
    final = run_check("trajectory:final_after_observation", {}, text="", trajectory=traj)
    rows = [
        CheckRow("r", "i", "m", "order", "process", "must", order.passed, len(order.bad_steps), len(traj)),
        CheckRow("r", "i", "m", "final", "process", "must", final.passed, len(final.bad_steps), len(traj)),
    ]
    m = compute_metrics(rows)["m"]
    # Step 0 breaks the order and step 1 answers without an observation: 2 bad steps of 2.
    assert (m.pass_rate, m.step_deviation_rate) == (0.0, 1.0)


def test_format_metrics_table():
    text = format_metrics(compute_metrics(ROWS))
    lines = text.splitlines()
    assert lines[0] == "Checks"
    header = lines[1].split()
    assert header[:3] == ["model", "records", "checks"]
    row_all = next(line for line in lines if line.startswith("all "))
    assert "70.0% (7/10)" in row_all and "50.0% (2/4)" in row_all and "20.0% (2/10)" in row_all
    row_b = next(line for line in lines if line.startswith("m-b "))
    assert row_b.rstrip().endswith("n/a")
    assert "Pass rate by constraint type" in text and "66.7% (2/3)" in text
    assert "Pass rate by severity" in text and "71.4% (5/7)" in text
    assert "Failure modes (failed checks)" in text and UNLABELLED in text


def test_format_metrics_without_failures():
    rows = [CheckRow("r", "i", "m", "c", "format", "must", True, 0, 0)]
    assert "no failed checks" in format_metrics(compute_metrics(rows))


def test_a_failed_nice_constraint_never_fails_a_record():
    # r: must pass, nice FAIL -> the record passes (all-pass 1/1); the nice failure still counts as a failed check.
    rows = [CheckRow("r", "i", "m", "a", "format", "must", True, 0, 0),
            CheckRow("r", "i", "m", "b", "content", "nice", False, 0, 0)]
    m = compute_metrics(rows)["m"]
    assert (m.n_records_all_pass, m.all_pass_rate, m.pass_rate) == (1, 1.0, 0.5)
    assert m.by_severity == {"must": Rate(1, 1), "nice": Rate(0, 1)}
    # a must failure still fails it
    rows[0] = rows[0]._replace(passed=False)
    assert compute_metrics(rows)["m"].all_pass_rate == 0.0


def test_per_task_mean_beside_the_pooled_rate():
    # r1: 1 of 4 checks pass, r2: 1 of 1. Pooled 2/5 = 0.4 (r1 weighs four times r2); per-task (0.25 + 1) / 2 = 0.625.
    rows = [CheckRow("r1", "i1", "m", f"c{k}", "format", "must", k == 0, 0, 0) for k in range(4)]
    rows.append(CheckRow("r2", "i2", "m", "c0", "format", "must", True, 0, 0))
    m = compute_metrics(rows)[ALL]
    assert m.pass_rate == pytest.approx(0.4) and m.per_task_pass_rate == pytest.approx(0.625)
    assert "per-task mean" in format_metrics(compute_metrics(rows)) and "62.5%" in format_metrics(compute_metrics(rows))
