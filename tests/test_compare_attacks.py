"""A hostile review of `compare`'s switch decision (wave 17): each test builds two runs whose truth does not support
switching to B, applies one manipulation to B (or to the project) that normal use can make, and checks that the
decision is not SWITCH and says why. Before the fixes every one of these said SWITCH (exit 0). Projects are built
through the importers (`import evalset`, `import runs`, `import verdicts`, `import labels`), as a user would."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main

N = 100
T = "2026-01-0{}T00:00:00Z"


def _item(k: int) -> dict:
    return {"id": f"i{k:03d}", "instruction": "Answer well.", "input": {"user": f"question {k}"}, "scenario": "s",
            "constraints": [{"id": "sem0", "text": "The answer is good.", "type": "content", "severity": "must"}],
            "created_at": T.format(1)}


def _record(rid: str, k: int, run: str, **fields) -> dict:
    out = {"id": rid, "item_id": f"i{k:03d}", "model": f"m{run}", "prompt_version": "v1", "run_id": run,
           "output": "an answer", "input_tokens": 100, "output_tokens": 50, "latency_ms": 1000.0,
           "created_at": T.format(2)}
    out.update(fields)
    return {k: v for k, v in out.items() if v is not None or k == "output"}


def _verdict(rid: str, label: str | None, *, rubric: str = "strict", repeat: int = 0, day: int = 3) -> dict:
    out = {"run_record_id": rid, "constraint_id": "sem0", "rubric": rubric, "judge_model": "J1", "repeat": repeat,
           "created_at": T.format(day)}
    out.update({"label": label} if label is not None else {"error": "content_filter: refused"})
    return out


def _label(rid: str, label: str) -> dict:
    return {"run_record_id": rid, "constraint_id": "sem0", "reviewer": "h1", "label": label, "blind": True,
            "event": "label", "created_at": T.format(4)}


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(list(args))
    return rc, out.getvalue()


def _import(db: Path, kind: str, rows: list[dict]) -> None:
    path = db.with_name(f"{db.stem}-{kind}.jsonl")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rc, out = _cli("--db", str(db), "import", kind, str(path))
    assert rc == 0, out


def _project(tmp_path: Path, records, verdicts=(), labels=(), sample: float | None = None) -> Path:
    db = tmp_path / "p.db"
    _import(db, "evalset", [_item(k) for k in range(N)])
    _import(db, "runs", list(records))
    if verdicts:
        _import(db, "verdicts", list(verdicts))
    if sample is not None:
        assert _cli("--db", str(db), "sample", "--rate", str(sample))[0] == 0
    if labels:
        _import(db, "labels", list(labels))
    return db


def _decide(tmp_path: Path, db: Path, thresholds: dict | None = None, *extra: str) -> tuple[int, dict]:
    path = tmp_path / "thresholds.json"
    path.write_text(json.dumps(thresholds or {"max_constraint_drop_points": 3}), encoding="utf-8")
    rc, out = _cli("--db", str(db), "compare", "A", "B", "--thresholds", str(path), "--json", *extra)
    return rc, json.loads(out)


def _judged_pass(passing: dict[str, int], labelled: tuple[str, ...]) -> tuple[list, list, list]:
    """Runs whose items below `passing[run]` truly pass, every pair judged pass; the runs in `labelled` carry a human
    label with the truth on every pair: (records, verdicts, labels)."""
    recs, vs, labs = [], [], []
    for k in range(N):
        for run, below in passing.items():
            rid = f"{run}-{k:03d}"
            recs.append(_record(rid, k, run))
            vs.append(_verdict(rid, "pass"))
            if run in labelled:
                labs.append(_label(rid, "pass" if k < below else "fail"))
    return recs, vs, labs


def _reasons(result: dict) -> str:
    return " | ".join(r["detail"] for r in result["decision"]["reasons"])


def test_b_on_a_subset_of_the_items_is_refused(tmp_path):
    """B answered only the easy half (as `judgecal run --limit 50` leaves it); on the items both answered the runs
    are identical, yet the pooled rates gave B +30 points."""
    truth = lambda k: "pass" if k < 70 else "fail"  # noqa: E731
    recs, vs, labs = [], [], []
    for k in range(N):
        for run in ("A", "B") if k < 50 else ("A",):
            rid = f"{run}-{k:03d}"
            recs.append(_record(rid, k, run))
            vs.append(_verdict(rid, truth(k)))
            labs.append(_label(rid, truth(k)))
    rc, result = _decide(tmp_path, _project(tmp_path, recs, vs, labs, sample=1.0))
    assert rc == 1 and result["decision"]["status"] == "don't switch"
    assert "REFUSED: the runs answered different items (A 100, B 50, both 50)" in _reasons(result)
    assert [w["kind"] for w in result["warnings"] if w["refuses"]] == ["items"]


def test_failed_records_count_as_fails_in_the_corrected_rate(tmp_path):
    """B timed out on 40 items (no output): the corrected rate used to leave their pairs out and gave B 100%."""
    recs, vs, labs = [], [], []
    for k in range(N):
        rid = f"A-{k:03d}"
        recs.append(_record(rid, k, "A"))
        vs.append(_verdict(rid, "pass" if k < 80 else "fail"))
        labs.append(_label(rid, "pass" if k < 80 else "fail"))
        rid = f"B-{k:03d}"
        if k < 60:
            recs.append(_record(rid, k, "B"))
            vs.append(_verdict(rid, "pass"))
            labs.append(_label(rid, "pass"))
        else:
            recs.append(_record(rid, k, "B", output=None, error="timeout: no answer within 5 s"))
    db = _project(tmp_path, recs, vs, labs, sample=1.0)
    rc, result = _decide(tmp_path, db, {"max_constraint_drop_points": 3, "max_completion_drop_points": 50})
    assert rc == 1 and result["decision"]["status"] == "don't switch"
    b = result["b"]
    assert b["judge_corrected_pass_rate"] == pytest.approx(0.6)  # 60 passes of 100 pairs, 40 of them failed runs
    assert b["judge_corrected_pass_rate"] == b["constraint_pass_rate"]
    with ann.unit_of_work(db) as conn:  # the run's own statistics (`gate --run` reads them) agree
        assert ann.run_stats(conn, "B").judge_corrected_pass_rate == pytest.approx(0.6)


def test_a_run_rejudged_alone_by_another_rubric_version_cannot_be_decided_uncorrected(tmp_path):
    """Both runs judged by J1 (right: 70% each); then only B re-judged with a lenient rubric. Each pair is settled by
    its latest version, so B's uncorrected rate rose to 100%."""
    recs, vs, lenient = [], [], []
    for k in range(N):
        for run in ("A", "B"):
            rid = f"{run}-{k:03d}"
            recs.append(_record(rid, k, run))
            vs.append(_verdict(rid, "pass" if k < 70 else "fail"))
            if run == "B":
                lenient.append(_verdict(rid, "pass", rubric="lenient", day=5))
    db = _project(tmp_path, recs, vs)
    rc, before = _decide(tmp_path, db)
    assert before["decision"]["status"] == "undecided" and before["difference"]["drop_points"] == 0
    _import(db, "verdicts", lenient)
    rc, result = _decide(tmp_path, db)
    assert rc == 1 and result["decision"]["status"] == "undecided" and not result["decision"]["switch"]
    assert "settled by 2 judge versions" in _reasons(result) and "--rubric-sha256" in _reasons(result)
    (a_version,), (b_version,) = result["a"]["judge_versions"], result["b"]["judge_versions"]
    assert a_version != b_version and a_version.endswith(" · J1") and b_version.endswith(" · J1")
    with ann.unit_of_work(db) as conn:  # one version named: both runs settled by it, the drop is 0 again
        sha = conn.execute("SELECT sha256 FROM rubrics WHERE name = 'strict'").fetchone()[0]
    rc, pinned = _decide(tmp_path, db, None, "--rubric-sha256", sha)
    assert pinned["difference"]["drop_points"] == 0 and pinned["b"]["judge_versions"] == pinned["a"]["judge_versions"]


def test_uneven_records_per_item_are_refused(tmp_path):
    """B holds 3 records of each item it passes and 1 of each it fails (resumed repeats): the pooled rate rose from
    70% to 87.5% with the same items passing."""
    recs, vs, labs = [], [], []
    for k in range(N):
        t = "pass" if k < 70 else "fail"
        for run, reps in (("A", 1), ("B", 3 if k < 70 else 1)):
            for r in range(reps):
                rid = f"{run}-{k:03d}-{r}"
                recs.append(_record(rid, k, run))
                vs.append(_verdict(rid, t))
                labs.append(_label(rid, t))
    rc, result = _decide(tmp_path, _project(tmp_path, recs, vs, labs, sample=1.0))
    assert rc == 1 and result["decision"]["status"] == "don't switch"
    assert "run B (B) holds 1 to 3 records per item" in _reasons(result)
    assert (result["b"]["repeats"], result["b"]["max_records_per_item"]) == (1, 3)


def test_pairs_the_judge_left_unsettled_go_either_way(tmp_path):
    """The judge errored on B's 30 failing outputs (a content filter): they left B's uncorrected rate (100% of 70)."""
    recs, vs = [], []
    for k in range(N):
        t = "pass" if k < 70 else "fail"
        for run in ("A", "B"):
            rid = f"{run}-{k:03d}"
            recs.append(_record(rid, k, run))
            vs += [_verdict(rid, None if run == "B" and t == "fail" else t, repeat=r) for r in range(3)]
    rc, result = _decide(tmp_path, _project(tmp_path, recs, vs))
    assert rc == 1 and result["decision"]["status"] == "undecided"
    drop = result["difference"]
    assert drop["kind"] == "uncorrected" and drop["unsure_pairs"] == 30 and drop["drop_points"] == pytest.approx(-30)
    assert drop["high"] > 3  # the interval reaches B failing all 30: no switch on them


def test_labels_on_one_runs_judge_failures_go_either_way(tmp_path):
    """Truth 90% in both runs; the judge is too strict in both (70%). A reviewer relabels only B's judge-failed pairs
    (not a random sample): B's uncorrected rate rose to 90% and A's stayed at 70%."""
    recs, vs, labs = [], [], []
    for k in range(N):
        t, j = ("pass" if k < 90 else "fail"), ("pass" if k < 70 else "fail")
        for run in ("A", "B"):
            rid = f"{run}-{k:03d}"
            recs.append(_record(rid, k, run))
            vs.append(_verdict(rid, j))
            if run == "B" and j == "fail":
                labs.append(_label(rid, t))
    rc, result = _decide(tmp_path, _project(tmp_path, recs, vs, labs))
    assert rc == 1 and result["decision"]["status"] == "undecided"
    assert result["b"]["human_overrides"] == 20 and result["b"]["human_overrides_passed"] == 20
    assert result["difference"]["unsure_pairs"] == 20 and result["difference"]["high"] > 3


def test_labels_that_agree_with_the_judge_leave_the_interval_alone(tmp_path):
    """The widening is for corrections of the judge only: runs labelled where the judge was right give the Newcombe
    interval of the settled counts."""
    from judgecal.annotations.stats import newcombe_difference
    recs, vs, labs = [], [], []
    for k in range(N):
        for run, passing in (("A", 60), ("B", 90)):
            rid = f"{run}-{k:03d}"
            recs.append(_record(rid, k, run))
            vs.append(_verdict(rid, "pass" if k < passing else "fail"))
            if k % 4 == 0:  # a reviewer agrees with the judge on a quarter of the pairs
                labs.append(_label(rid, "pass" if k < passing else "fail"))
    rc, result = _decide(tmp_path, _project(tmp_path, recs, vs, labs))
    diff, low, high = newcombe_difference(60, 100, 90, 100)
    assert result["difference"]["unsure_pairs"] == 0
    assert (result["difference"]["low"], result["difference"]["high"]) == (100 * low, 100 * high)


def test_missing_token_counts_make_the_cost_unknown(tmp_path):
    """B's records carry no token counts: its cost summed to 0 and `max_cost_ratio` passed."""
    recs = [_record(f"{run}-{k:03d}", k, run, **({"input_tokens": None, "output_tokens": None} if run == "B" else {}))
            for k in range(N) for run in ("A", "B")]
    rc, result = _decide(tmp_path, _project(tmp_path, recs), {"max_cost_ratio": 1.5})
    assert rc == 1 and result["decision"]["status"] == "don't switch"
    (reason,) = result["decision"]["reasons"]
    assert reason["status"] == "unknown" and "token counts missing on 0 of A's and 100 of B's" in reason["detail"]
    assert result["b"]["records_without_tokens"] == 100


def test_a_run_compared_with_itself_an_empty_or_repeated_threshold_and_an_unknown_judge_are_refused(tmp_path):
    db = _project(tmp_path, [_record(f"{run}-{k:03d}", k, run) for k in range(N) for run in ("A", "B")],
                  [_verdict(f"{run}-{k:03d}", "pass") for k in range(N) for run in ("A", "B")])
    th = tmp_path / "th.json"
    th.write_text('{"max_constraint_drop_points": 3}', encoding="utf-8")
    before = db.read_bytes()
    for args, message in (
            (("A", "A", "--thresholds", str(th)), "two different runs, got 'A' twice"),
            (("A", "B", "--judge-model", "J2"), "--judge-model 'J2': no verdict by that judge model"),
            (("A", "B", "--rubric-sha256", "abc"), "--rubric-sha256 'abc': no verdict under that rubric version")):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert _cli("--db", str(db), "compare", *args)[0] == 2
        assert message in err.getvalue()
    for text, message in (("{}", "no thresholds: give at least one of"),
                          ('{"max_constraint_drop_points": 3, "max_constraint_drop_points": 99}',
                           "threshold 'max_constraint_drop_points' is given twice")):
        th.write_text(text, encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert _cli("--db", str(db), "compare", "A", "B", "--thresholds", str(th))[0] == 2
        assert message in err.getvalue() and str(th) in err.getvalue()
    assert db.read_bytes() == before  # nothing written


def test_one_runs_labelled_random_sample_beside_a_run_judged_only_goes_either_way(tmp_path):
    """A review of the fixes (wave 17): truth A 90%, B 80%; the judge passes everything. A's random sample is labelled
    (all of it), B is only judged, so A has a corrected rate and B none: the decision fell back to uncorrected rates,
    A's settled by humans and B's by the lenient judge, and said SWITCH (90% -> 100%)."""
    recs, vs, labs = _judged_pass({"A": 90, "B": 80}, labelled=("A",))
    db = tmp_path / "p.db"
    _import(db, "evalset", [_item(k) for k in range(N)])
    _import(db, "runs", recs)
    _import(db, "verdicts", vs)
    assert _cli("--db", str(db), "sample", "--rate", "1.0", "--run-id", "A")[0] == 0
    _import(db, "labels", labs)
    rc, result = _decide(tmp_path, db)
    assert rc == 1 and result["decision"]["status"] != "switch"
    assert result["difference"]["kind"] == "uncorrected" and result["a"]["human_overrides"] == 10
    assert result["difference"]["unsure_pairs"] == 10 and result["difference"]["high"] > 3


def test_a_complete_labelling_of_both_runs_is_decided_without_widening(tmp_path):
    """Every semantic pair of both runs human-labelled (outside any sample): the overrides are the truth in both runs,
    nothing is mixed, so the drop keeps the Newcombe interval of the settled counts and is decided (FAIL), not left
    undecided with advice to label pairs that are all labelled."""
    from judgecal.annotations.stats import newcombe_difference
    recs, vs, labs = _judged_pass({"A": 90, "B": 60}, labelled=("A", "B"))
    rc, result = _decide(tmp_path, _project(tmp_path, recs, vs, labs))
    assert rc == 1 and result["decision"]["status"] == "don't switch"
    assert result["a"]["semantic_unlabelled"] == result["b"]["semantic_unlabelled"] == 0
    _d, low, high = newcombe_difference(90, 100, 60, 100)
    assert result["difference"]["unsure_pairs"] == 0
    assert (result["difference"]["low"], result["difference"]["high"]) == (100 * low, 100 * high)


def test_check_results_stored_by_an_older_judgecal_are_not_read_as_current(tmp_path):
    """A review of the fixes (wave 17): results an older `judgecal check` stored (its checks passed what this one
    fails) settled `compare` after an upgrade, which said SWITCH while `gate --run`, checking live, failed. `compare`
    now refuses (exit 2, saying to run `judgecal check`) until the results are stored again."""
    db = tmp_path / "d.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(db), "demo"]) == 0  # `demo` runs the checks: current
    assert _cli("--db", str(db), "compare", "demo-run-a", "demo-run-b")[0] in (0, 1)
    with ann.unit_of_work(db) as conn, ann.write(conn):  # as a project checked by an older judgecal has it
        conn.execute("DELETE FROM settings WHERE key = 'checks_semantics'")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert _cli("--db", str(db), "compare", "demo-run-a", "demo-run-b")[0] == 2
    assert "made by an older judgecal" in err.getvalue() and "`judgecal check`" in err.getvalue()
    assert _cli("--db", str(db), "check")[0] == 0
    assert _cli("--db", str(db), "compare", "demo-run-a", "demo-run-b")[0] in (0, 1)


def test_a_price_for_one_runs_model_only_makes_the_cost_unknown(tmp_path):
    """A review of the fixes (wave 17): with a price set for A's model only, `max_cost_ratio` compared raw tokens
    ("no prices set for both") although B's tokens may cost far more."""
    db = _project(tmp_path, [_record(f"{run}-{k:03d}", k, run) for k in range(N) for run in ("A", "B")])
    assert _cli("--db", str(db), "price", "mA", "0.1", "0.4")[0] == 0
    rc, result = _decide(tmp_path, db, {"max_cost_ratio": 1.5})
    (reason,) = result["decision"]["reasons"]
    assert rc == 1 and reason["status"] == "unknown" and "prices set for A's models only" in reason["detail"]
    assert _cli("--db", str(db), "price", "mB", "0.1", "0.4")[0] == 0
    rc, result = _decide(tmp_path, db, {"max_cost_ratio": 1.5})
    assert rc == 0 and result["decision"]["reasons"][0]["status"] == "ok"
