"""Drift (issue 15.6): a frozen anchor set re-judged, flip rate with CI, kappa change, exit codes for CI, resume.

Real parts: SQLite files in tmp_path, the real `openai` SDK over HTTP against tests/openai_stub.py (the judge that
made the baseline and the one that re-judges are stub responders), the CLI through `main` and, for the kill, as a
subprocess.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal import jobs
from judgecal.annotations import store as av
from judgecal.cli import main
from judgecal.judge import OpenAIBackend, shipped_rubric
from judgecal.annotations.stats import paired_kappa_change, pooled_kappa_change
from openai_stub import Reply, StubServer, error_body, verdicts
from test_judge_fixtures import make_project

REPO = Path(__file__).resolve().parents[1]
N_ITEMS = 15  # x 2 semantic constraints = 30 pairs
MODEL = "judge-x"


def _n(key: str) -> int:
    """Item number of a request's verdict key (`run-N-0|constraint|repeat`)."""
    return int(key.split("|")[0].split("-")[1])


def baseline_judge(req) -> str:
    """Fails the `grounded` constraint of every third item, passes everything else."""
    return "fail" if _n(req.key) % 3 == 0 and "|grounded|" in req.key else "pass"


def human(pair: tuple[str, str]) -> str:
    """The humans agree with the baseline judge except on item 1's `polite` (they say fail)."""
    n = int(pair[0].split("-")[1])
    if (n, pair[1]) == (1, "polite"):
        return "fail"
    return "fail" if n % 3 == 0 and pair[1] == "grounded" else "pass"


FLIP_ITEMS = {2, 5, 8}  # the drifted judge answers the opposite of the baseline on these items' pairs (6 pairs)


def drifted_judge(req) -> str:
    label = baseline_judge(req)
    if _n(req.key) in FLIP_ITEMS:
        return "pass" if label == "fail" else "fail"
    return label


def _backend(url: str, model: str = MODEL) -> OpenAIBackend:
    return OpenAIBackend(model=model, base_url=url, api_key="sk-test", max_retries=0, concurrency=8)


def _labelled_project(path: Path, *, repeats: int = 1, label_all: bool = True) -> Path:
    """A project judged by `baseline_judge` (through the stub), every pair sampled and labelled blind by alice."""
    make_project(path, n_items=N_ITEMS, label_sets=False)
    with StubServer(verdicts(baseline_judge)) as server:
        backend = _backend(server.url)
        try:
            jobs.judge_pairs(path, backend, repeats=repeats, progress=False)
        finally:
            backend.close()
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=1.0, overlap=0.0)
        if label_all:
            for rid, cid in sorted(ann.counted_pairs(db).order[("grounded", "agent-a")] +
                                   ann.counted_pairs(db).order[("polite", "agent-a")]):
                ann.record_label(db, "alice", (rid, cid), human((rid, cid)))
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return _labelled_project(tmp_path_factory.mktemp("drift") / "template.db")


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "p.db"
    src = sqlite3.connect(template)
    out = sqlite3.connect(dst)
    src.backup(out)
    src.close()
    out.close()
    return dst


def _cli(db: Path, *args: str) -> int:
    return main(["--db", str(db), *args])


def _drift(db: Path, url: str, *args: str) -> int:
    return _cli(db, "drift", "--model", MODEL, "--base-url", url, "--max-retries", "0", "--quiet", *args)


def _json_out(capsys) -> dict:
    out = capsys.readouterr().out
    return json.loads(out)


# --------------------------------------------------------------------------- the anchor


def test_freeze_takes_every_counted_pair_with_its_verdicts_and_labels(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze", "--json") == 0
    frozen = _json_out(capsys)
    assert frozen["name"] == "anchor-1" and frozen["pairs"] == 30 and frozen["counted_at_freeze"] == 30
    assert frozen["seed_given"] is False
    with ann.unit_of_work(project) as db:
        anchor = ann.get_anchor(db, "anchor-1")
        pairs = ann.anchor_pairs(db, anchor.id)
        assert {p.human_label for p in pairs if (p.run_record_id, p.constraint_id) == ("run-1-0", "polite")} == {"fail"}
        assert all(p.reviewer == "alice" for p in pairs)
        [base] = ann.anchor_baselines(db, anchor.id)
        assert (base.judge_model, base.pairs, base.repeats) == (MODEL, 30, 1)
        assert len(ann.anchor_verdicts(db, anchor.id)) == 30


def test_anchor_is_a_seeded_draw_that_no_label_or_verdict_can_steer(project: Path, tmp_path: Path) -> None:
    # The attack: pick pairs where the judge is stable or right. A pair's rank depends on the seed and its ids only,
    # so the same seed draws the same pairs whatever the verdicts and labels say; another seed draws others.
    with ann.unit_of_work(project) as db:
        a = ann.freeze_anchor(db, "a", size=10, seed=7)
        b = ann.freeze_anchor(db, "b", size=10, seed=8)
        pa = {(p.run_record_id, p.constraint_id) for p in ann.anchor_pairs(db, a.id)}
        pb = {(p.run_record_id, p.constraint_id) for p in ann.anchor_pairs(db, b.id)}
        db.execute("UPDATE verdicts SET label = CASE label WHEN 'pass' THEN 'fail' ELSE 'pass' END")
        c = ann.freeze_anchor(db, "c", size=10, seed=7)
        pc = {(p.run_record_id, p.constraint_id) for p in ann.anchor_pairs(db, c.id)}
        assert len(pa) == len(pb) == 10 and pa != pb
        assert pc == pa
        expected = sorted(ann.counted_pairs(db).pairs, key=lambda p: ann.anchor_rank(7, p[0], p[1]))[:10]
        assert pa == {tuple(p) for p in expected}


def test_pairs_that_do_not_count_never_enter_an_anchor(project: Path) -> None:
    # A label given after the reveal (not blind) on an unsampled pair, or a blind label beyond the counted prefix,
    # must not make a pair anchor material: only counted pairs (random sample, blind, labelled prefix) are drawn.
    with ann.unit_of_work(project) as db:
        counted = ann.counted_pairs(db).pairs
        anchor = ann.freeze_anchor(db, "all")
        assert {(p.run_record_id, p.constraint_id) for p in ann.anchor_pairs(db, anchor.id)} == set(counted)


def test_pairwise_pair_records_are_not_anchor_material(project: Path) -> None:
    # `judge --pairwise` records are judged in both orders by their own batch; a plain re-judge would ask one order.
    with ann.unit_of_work(project) as db:
        with ann.write(db):
            db.execute("UPDATE run_records SET run_id = 'pairwise:r1' WHERE id = 'run-1-0'")
        anchor = ann.freeze_anchor(db, "no-pairwise")
        ids = {p.run_record_id for p in ann.anchor_pairs(db, anchor.id)}
    assert "run-1-0" not in ids and len(ids) == N_ITEMS - 1


def test_freeze_without_labels_exits_2_and_writes_nothing(tmp_path: Path, capsys) -> None:
    db = _labelled_project(tmp_path / "nolabels.db", label_all=False)
    with ann.unit_of_work(db) as conn:
        before = ann.table_counts(conn)
    assert _cli(db, "anchor", "freeze") == 2
    err = capsys.readouterr().err
    assert "no counted pairs to freeze" in err and "blind first label" in err
    with ann.unit_of_work(db) as conn:
        assert ann.table_counts(conn) == before


@pytest.mark.parametrize("args,message", [
    (["anchor", "freeze", "--size", "31"], "only 30 counted pairs"),
    (["anchor", "list", "--size", "3"], "are for `anchor freeze`"),
], ids=["size-too-big", "list-with-size"])
def test_bad_freeze_input_exits_2(project: Path, capsys, args, message) -> None:
    assert _cli(project, *args) == 2
    assert message in capsys.readouterr().err


def test_an_anchor_name_is_frozen_once(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze", "--name", "weekly") == 0
    assert _cli(project, "anchor", "freeze", "--name", "weekly") == 2
    assert "already frozen" in capsys.readouterr().err
    assert _cli(project, "anchor", "list") == 0
    assert "weekly: 30 of 30 counted pairs" in capsys.readouterr().out


@pytest.mark.parametrize("args,flag", [
    (["anchor", "freeze", "--seed", str(2 ** 63)], "--seed"),
    (["anchor", "freeze", "--seed", str(2 ** 64)], "--seed"),
    (["anchor", "freeze", "--name", ""], "--name"),
    (["anchor", "freeze", "--name", "  "], "--name"),
    (["anchor", "freeze", "--name", " weekly"], "--name"),
    (["anchor", "freeze", "--name", "weekly\t"], "--name"),
    (["drift", "--anchor", "", "--model", MODEL, "--base-url", "http://127.0.0.1:9/v1"], "--anchor"),
    (["drift", "--history", "--anchor", " "], "--anchor"),
], ids=["seed-2^63", "seed-2^64", "name-empty", "name-blank", "name-leading-space", "name-trailing-tab",
        "drift-anchor-empty", "history-anchor-blank"])
def test_a_seed_sqlite_cannot_store_or_a_blank_name_exits_2_naming_the_flag(project: Path, capsys, args,
                                                                            flag) -> None:
    # Found by a review (wave 17): `--seed 2**63` stopped `anchor freeze` with an OverflowError traceback, and
    # `--name ""` / `--name "  "` froze anchors that `drift --anchor ""` then picked.
    with ann.unit_of_work(project) as db:
        before = ann.table_counts(db)
    with pytest.raises(SystemExit) as exc:
        _cli(project, *args)
    assert exc.value.code == 2 and f"argument {flag}:" in capsys.readouterr().err
    with ann.unit_of_work(project) as db:
        assert ann.table_counts(db) == before


def test_the_library_refuses_what_the_flags_refuse(project: Path) -> None:
    with ann.unit_of_work(project) as db:
        for name, seed in (("", None), ("  ", None), ("a ", None), ("a", 2 ** 63), ("a", -1)):
            with pytest.raises(ValueError, match="--name" if seed is None else "--seed"):
                ann.freeze_anchor(db, name, seed=seed)
        assert ann.list_anchors(db) == []
        assert ann.freeze_anchor(db, "a", seed=2 ** 63 - 1).seed == 2 ** 63 - 1


# --------------------------------------------------------------------------- drift


def test_unchanged_judge_is_asked_again_and_shows_no_drift(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze") == 0
    capsys.readouterr()
    with ann.unit_of_work(project) as db:
        verdicts_before = db.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    with StubServer(verdicts(baseline_judge)) as server:
        rc = _drift(project, server.url, "--max-flip-rate", "0.2", "--max-kappa-drop", "0.2", "--json")
        asked = server.count
    assert rc == 0
    out = _json_out(capsys)
    assert asked == 30  # the verdicts cache did not answer: every anchor pair went to the judge again
    d = out["drift"]
    assert d["flip_rate"]["k"] == 0 and d["flip_rate"]["n"] == 30 and d["unanswered"] == 0
    # Exact 95% upper bound for 0/30: 1 - 0.025^(1/30) = 0.1157 (Clopper-Pearson).
    assert d["flip_rate"]["ci_high"] == pytest.approx(1 - 0.025 ** (1 / 30), abs=1e-9)
    assert d["kappa_change"]["change"] == 0 and d["finished"] is True and out["passed"] is True
    # No flip on 30 pairs does not prove no drift: the drop's upper bound stays above 0 (0.157 here).
    assert 0.05 < d["kappa_drop"]["ci_high"] < 0.2
    with ann.unit_of_work(project) as db:  # drift answers never enter the calibration report's verdicts
        assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] == verdicts_before


def test_drifted_judge_is_caught_with_the_right_flip_count(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze") == 0
    capsys.readouterr()
    with StubServer(verdicts(drifted_judge)) as server:
        rc = _drift(project, server.url, "--max-flip-rate", "0.1", "--json")
    assert rc == 1
    out = _json_out(capsys)
    d = out["drift"]
    assert d["flip_rate"]["k"] == 6 and d["flip_rate"]["n"] == 30
    assert {(f["run_record_id"], f["constraint_id"]) for f in d["flipped"]} == {
        (f"run-{n}-0", c) for n in FLIP_ITEMS for c in ("grounded", "polite")}
    # items 2, 5, 8 are not multiples of 3: every pair of theirs was pass at freeze
    assert d["transitions"] == {"pass -> fail": 6}
    # Hand-derived kappas. Humans: 6 fail (items 3, 6, 9, 12, 15 grounded (5) + item 1 polite), 24 pass.
    # At freeze the judge fails 5 (the grounded ones): agree 29/30, p_e = (5*6 + 25*24)/900 = 0.7, kappa = (29/30 -
    # 0.7) / 0.3 = 0.8889. Now the judge also fails the 6 pairs of items 2, 5, 8 (humans: pass): judge fail 11,
    # agree 23/30, p_e = (11*6 + 19*24)/900 = 0.58, kappa = (23/30 - 0.58) / 0.42 = 0.4444.
    assert d["kappa_at_freeze"]["kappa"] == pytest.approx(0.888889, abs=1e-6)
    assert d["kappa_now"]["kappa"] == pytest.approx(0.444444, abs=1e-6)
    assert d["kappa_drop"]["drop"] == pytest.approx(0.444444, abs=1e-6)
    assert d["kappa_change"]["ci_low"] < -0.444 < d["kappa_change"]["ci_high"] < 0
    [check] = out["checks"]
    assert check["name"] == "max_flip_rate" and check["ok"] is False


@pytest.mark.parametrize("limit,on,rc", [("0.1", "bound", 1), ("0.5", "bound", 1), ("0.8", "bound", 0),
                                         ("0.5", "point", 0)], ids=["tight", "bound-above", "loose", "point"])
def test_kappa_drop_limit_is_decided_on_the_upper_bound(project: Path, capsys, limit, on, rc) -> None:
    # Point drop 0.444 [0.17, 0.74] (paired bootstrap, n = 30): a limit of 0.5 passes only on the point estimate.
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url, "--max-kappa-drop", limit, "--on", on) == rc
    out = capsys.readouterr().out
    assert ("FAIL max_kappa_drop" in out) == (rc == 1)


def test_pairs_the_judge_cannot_answer_count_as_flips_and_are_reported_apart(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze") == 0
    capsys.readouterr()

    def some_fail(req):
        if _n(req.key) in (4, 7):
            return Reply(500, error_body(500, "overloaded"))
        return baseline_judge(req)

    with StubServer(verdicts(some_fail)) as server:
        rc = _drift(project, server.url, "--json")
    out = _json_out(capsys)
    assert rc == 0  # a partial failure: warned about, not a limit (none given)
    d = out["drift"]
    assert d["unanswered"] == 4 and d["flip_rate"]["k"] == 4 and d["label_flip_rate"]["k"] == 0
    assert d["label_flip_rate"]["n"] == 26
    assert d["transitions"] == {"pass -> (no answer)": 4}
    assert d["kappa_now"]["kappa"] < d["kappa_at_freeze"]["kappa"]  # unanswered = the judge's abstain


def test_an_undefined_kappa_bound_is_shown_as_a_dash_never_nan(project: Path, capsys) -> None:
    # Found by a review (wave 17): a judge that now passes everything has kappa 0 with no interval, printed
    # `0.000 [nan, nan]`; the history prints an undefined number as `-`, and so does the report now.
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(lambda req: "pass")) as server:
        assert _drift(project, server.url) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower()
    [line] = [line for line in out.splitlines() if line.startswith("kappa vs humans now:")]
    assert line.startswith("kappa vs humans now:       0.000 [-, -] (") and "single category" in line


def test_each_scheduled_run_asks_again_and_the_history_keeps_them(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url) == 0
        assert _drift(project, server.url) == 0
        assert server.count == 60
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url) == 0
    capsys.readouterr()
    assert _cli(project, "drift", "--history", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["flips"] for r in rows] == [0, 0, 6] and len({r["drift_run"] for r in rows}) == 3
    with ann.unit_of_work(project) as db:
        assert db.execute("SELECT count(DISTINCT drift_run_id), count(*) FROM drift_verdicts").fetchone() == (3, 90)
        assert db.execute("SELECT count(*) FROM batches WHERE kind = 'drift' AND status = 'done'").fetchone()[0] == 3


@pytest.mark.parametrize("args", [
    ["--max-flip-rate", "0.01", "--max-kappa-drop", "0"],
    ["--max-flip-rate", "0.01"],
    ["--on", "bound"],  # its default value, given: refused all the same
    ["--model", MODEL, "--base-url", "http://127.0.0.1:9/v1"],
    ["--concurrency", "8"],
    ["--repeats", "1"],
], ids=["both-limits", "flip-limit", "on", "endpoint", "concurrency", "repeats"])
def test_history_refuses_the_limits_and_the_judging_flags(project: Path, capsys, args) -> None:
    # Found by a review (wave 17): `drift --history --max-flip-rate 0.01 --max-kappa-drop 0` exited 0, checking
    # nothing; a CI step written that way passed whatever the history held.
    assert _cli(project, "anchor", "freeze", "--name", "weekly") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url) == 0
    capsys.readouterr()
    assert _cli(project, "drift", "--history", *args) == 2
    err = capsys.readouterr().err
    assert "not with --history" in err and all(a in err for a in args if a.startswith("--"))
    assert _cli(project, "drift", "--history", "--anchor", "weekly", "--json") == 0
    assert [r["flips"] for r in json.loads(capsys.readouterr().out)] == [6]
    assert _cli(project, "drift", "--history", "--quiet") == 0  # it only silences progress: scripts pass it


def test_re_running_drift_until_one_run_passes_does_not_pass(project: Path, capsys) -> None:
    # Found by a review (wave 17): drift re-run until one run passed exited 0, and that run did not mention the runs
    # that failed before it (CI sees only the last exit code). With a limit, the earlier finished runs of the same
    # anchor × judge model × rubric version are reported and their flips pooled with this run's: 6 + 6 + 0 flips of
    # 90 pairs have an exact upper bound of 22.1% > 20%, though the last run alone (0/30: 11.6%) passes.
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url, "--max-flip-rate", "0.2") == 1
        assert _drift(project, server.url, "--max-flip-rate", "0.2") == 1
    capsys.readouterr()
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url, "--max-flip-rate", "0.2", "--json") == 1
    out = _json_out(capsys)
    assert out["drift"]["flip_rate"]["k"] == 0 and out["passed"] is False
    pooled = out["pooled"]
    assert pooled["runs"] == 3 and [r["flips"] for r in pooled["earlier"]] == [6, 6]
    assert (pooled["flip_rate"]["k"], pooled["flip_rate"]["n"]) == (12, 90)
    assert pooled["flip_rate"]["ci_high"] == pytest.approx(0.2213, abs=1e-4)
    assert {c["name"]: c["ok"] for c in out["checks"]} == {"max_flip_rate": True, "max_flip_rate_pooled": False}
    with StubServer(verdicts(drifted_judge)) as server:  # the text output names the pooled runs
        assert _drift(project, server.url, "--max-flip-rate", "0.2") == 1
    text = capsys.readouterr().out
    assert "pooled over 4 runs of anchor anchor-1 × judge-x × rubric strict v1 (this one and 3 earlier)" in text
    assert text.count("earlier run drift-") == 3
    assert "FAIL max_flip_rate_pooled 0.2: flip rate pooled over 4 runs 15.0% [" in text


def test_re_running_drift_until_the_kappa_drop_passes_does_not_pass(project: Path, capsys) -> None:
    # Left open by wave 17's review, closed in wave 18: `--max-kappa-drop` was decided on the run alone, so re-running
    # until one run passed exited 0. The drifted judge drops kappa 0.889 -> 0.444 (0.444 > 0.3: fails on the point);
    # after two such runs the baseline judge's run (drop 0) passes on its own. Pooled, the three runs' cells averaged:
    # judge fail & human fail 5, pass & fail 1, fail & pass 6 x 2/3 = 4, pass & pass 20; p_o = 25/30, p_e = (9 x 6 +
    # 21 x 24) / 900 = 0.62, kappa now = (0.8333 - 0.62) / 0.38 = 0.5614: a pooled drop of 0.3275 > 0.3.
    assert _cli(project, "anchor", "freeze") == 0
    limit = ("--max-kappa-drop", "0.3", "--on", "point")
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url, *limit) == 1
        assert _drift(project, server.url, *limit) == 1
    capsys.readouterr()
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url, *limit, "--json") == 1
    out = _json_out(capsys)
    assert out["drift"]["kappa_drop"]["drop"] == 0 and out["passed"] is False
    assert {c["name"]: c["ok"] for c in out["checks"]} == {"max_kappa_drop": True, "max_kappa_drop_pooled": False}
    pooled = out["pooled"]
    assert pooled["runs"] == 3
    assert pooled["kappa_drop"]["drop"] == pytest.approx(0.888889 - (25 / 30 - 0.62) / 0.38, abs=1e-6)
    assert pooled["kappa_drop"]["ci_low"] <= pooled["kappa_drop"]["drop"] <= pooled["kappa_drop"]["ci_high"]
    with StubServer(verdicts(drifted_judge)) as server:  # the text names the pooled drop (3 of 4 runs drifted)
        assert _drift(project, server.url, *limit) == 1
    text = capsys.readouterr().out
    assert "FAIL max_kappa_drop_pooled 0.3: kappa drop pooled over 4 runs +0.359 [" in text
    assert "FAIL max_kappa_drop 0.3: kappa drop +0.444" in text
    assert "pooled over 4 runs of anchor anchor-1 × judge-x × rubric strict v1 (this one and 3 earlier): " in text


def test_a_killed_run_pools_its_answered_pairs_into_the_kappa(project: Path) -> None:
    # A run stopped before it finished counts with its answered pairs only: its unasked pairs are not the judge's
    # abstentions (it was stopped, not refused), so they neither flip nor move the pooled kappa.
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url) == 0
    with ann.unit_of_work(project) as db, ann.write(db):
        [run] = av.list_drift_runs(db, finished_only=False)
        db.execute("UPDATE drift_runs SET finished_at = NULL, result = NULL WHERE id = ?", [run.id])  # killed
        db.execute("DELETE FROM drift_verdicts WHERE drift_run_id = ? AND run_record_id NOT IN ('run-2-0',"
                   " 'run-5-0', 'run-8-0')", [run.id])  # after answering only the drifted items' 6 pairs
    with StubServer(verdicts(baseline_judge)) as server:  # (other --repeats: a new run, not a resume)
        assert _drift(project, server.url, "--repeats", "2", "--max-kappa-drop", "1") == 0
    with ann.unit_of_work(project, readonly=True) as db:
        runs = av.list_drift_runs(db, finished_only=False)
        report = ann.drift_report(db, runs[-1].id)
        pool = ann.drift_pool(db, report)
        killed = ann.drift_report(db, run.id)
    assert killed.unanswered == 24 and len(pool.runs) == 2
    answered = [t[:3] for t in killed.labels if t[3]]
    assert len(answered) == 6
    expected = pooled_kappa_change([tuple(map(list, zip(*answered))), tuple(map(list, zip(*[t[:3] for t in
                                                                                             report.labels])))])
    assert pool.kappa == expected


def test_a_fixed_judge_under_a_new_model_name_starts_its_own_pool(project: Path, capsys) -> None:
    # What a user who fixed the judge does: a new judge model (or rubric version) is a new key, so the failures of
    # the old one are not held against it; its first run pools 1 run and decides as before.
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url, "--max-flip-rate", "0.2") == 1
    capsys.readouterr()
    with StubServer(verdicts(baseline_judge)) as server:
        assert _cli(project, "drift", "--model", "judge-fixed", "--base-url", server.url, "--quiet",
                    "--max-flip-rate", "0.2", "--json") == 0
    out = _json_out(capsys)
    assert out["pooled"]["runs"] == 1 and out["pooled"]["earlier"] == [] and out["passed"] is True
    assert [c["name"] for c in out["checks"]] == ["max_flip_rate"]
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url, "--json") == 0  # no limit: nothing pooled
    assert _json_out(capsys)["pooled"] is None


def test_pooling_never_passes_a_run_that_fails_on_its_own(project: Path, capsys) -> None:
    # The pooled runs re-judge the same 30 pairs: a judge that flips the same 2 pairs every run (2/30: upper bound
    # 22.1%) would pass a limit of 20% on the pooled 8/120 (12.7%) after four runs, on an interval narrower than
    # 30 pairs support. The run's own check stays, so re-running never turns a failure into a pass.
    assert _cli(project, "anchor", "freeze") == 0
    capsys.readouterr()

    def two_flips(req):
        label = baseline_judge(req)
        return ("pass" if label == "fail" else "fail") if _n(req.key) == 2 else label

    with StubServer(verdicts(two_flips)) as server:
        for _ in range(4):
            assert _drift(project, server.url, "--max-flip-rate", "0.2", "--json") == 1
            out = _json_out(capsys)
    assert {c["name"]: c["ok"] for c in out["checks"]} == {"max_flip_rate": False, "max_flip_rate_pooled": True}


def test_a_new_judge_model_is_compared_with_the_frozen_one(project: Path, capsys) -> None:
    assert _cli(project, "anchor", "freeze") == 0
    capsys.readouterr()
    with StubServer(verdicts(drifted_judge)) as server:
        rc = _cli(project, "drift", "--model", "judge-new", "--base-url", server.url, "--quiet", "--json")
    assert rc == 0
    d = _json_out(capsys)["drift"]
    assert (d["judge_model"], d["baseline_model"]) == ("judge-new", MODEL) and d["flip_rate"]["k"] == 6


def test_unknown_anchor_and_missing_anchor_exit_2(project: Path, capsys) -> None:
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url) == 2
        assert "no anchor frozen yet" in capsys.readouterr().err
        assert _cli(project, "anchor", "freeze", "--name", "weekly") == 0
        assert _drift(project, server.url, "--anchor", "nightly") == 2
        assert "no anchor named 'nightly'; frozen anchors: weekly" in capsys.readouterr().err
        assert _drift(project, server.url, "--baseline-model", "other") == 2
        assert "no frozen verdicts of that baseline" in capsys.readouterr().err
        assert server.count == 0
    with ann.unit_of_work(project) as db:
        assert db.execute("SELECT count(*) FROM drift_runs").fetchone()[0] == 0


def test_anchor_frozen_before_any_verdict_exits_2(tmp_path: Path, capsys) -> None:
    db = _labelled_project(tmp_path / "p.db")
    with ann.unit_of_work(db) as conn, ann.write(conn):
        conn.execute("DELETE FROM verdicts")
    assert _cli(db, "anchor", "freeze") == 0
    assert "no judge verdicts on these pairs yet" in capsys.readouterr().err
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(db, server.url) == 2
    assert "frozen without judge verdicts" in capsys.readouterr().err


def test_endpoint_down_is_not_a_drift_result(project: Path, capsys) -> None:
    from openai_stub import always

    assert _cli(project, "anchor", "freeze") == 0
    capsys.readouterr()
    with StubServer(always(500)) as server:
        assert _drift(project, server.url, "--max-flip-rate", "0.5", "--json") == 3
    out = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    assert out["passed"] is False and out["drift"]["finished"] is False
    assert {c["name"]: c["ok"] for c in out["checks"]} == {"max_flip_rate": False, "finished": False}
    with ann.unit_of_work(project) as db:  # not finished: the next call resumes the same run
        assert db.execute("SELECT count(*) FROM drift_runs WHERE finished_at IS NULL").fetchone()[0] == 1
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url) == 0
    with ann.unit_of_work(project) as db:
        assert db.execute("SELECT count(*), count(finished_at) FROM drift_runs").fetchone() == (1, 1)


# --------------------------------------------------------------------------- a killed drift run resumes


def test_killed_drift_run_resumes_without_asking_twice(tmp_path: Path) -> None:
    n_items = 150  # x 2 constraints = 300 anchor pairs, 50 ms per request at concurrency 4
    db = make_project(tmp_path / "kill.db", n_items=n_items, label_sets=False)
    strict = shipped_rubric()
    with ann.unit_of_work(db) as conn:
        av.store_rubric(conn, strict.name, strict.template, strict.sha256, strict.note)
        with ann.write(conn):
            conn.conn.executemany(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                " created_at) VALUES (?,?,?,?,0,'pass',?)",
                [(f"run-{n}-0", c, strict.sha256, MODEL, ann.now_iso()) for n in range(n_items)
                 for c in ("grounded", "polite")])
        ann.draw_sample(conn, rate=1.0, overlap=0.0)
        for pair in sorted(ann.counted_pairs(conn).order[("grounded", "agent-a")] +
                           ann.counted_pairs(conn).order[("polite", "agent-a")]):
            ann.record_label(conn, "alice", pair, "pass")
        ann.freeze_anchor(conn, "a")
    log = tmp_path / "requests.log"
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENAI_API_KEY="sk-test")
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", "0.05",
                               "--log", str(log), "--answer", "fail"], stdout=subprocess.PIPE, text=True, env=env)

    def stored() -> set[tuple[str, str]]:
        conn = sqlite3.connect(db)
        try:
            return {(r, c) for r, c in conn.execute(
                "SELECT run_record_id, constraint_id FROM drift_verdicts WHERE error IS NULL")}
        finally:
            conn.close()

    try:
        url = server.stdout.readline().strip()
        cmd = [sys.executable, "-m", "judgecal", "--db", str(db), "drift", "--model", MODEL, "--base-url", url,
               "--concurrency", "4", "--max-retries", "0", "--quiet", "--json"]
        first = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(stored()) < 40:
            time.sleep(0.05)
        assert first.poll() is None, "the drift run finished before it could be killed"
        first.send_signal(signal.SIGKILL)
        first.wait()
        time.sleep(0.3)
        committed = stored()
        seen_before_kill = len(log.read_text().splitlines())
        assert 40 <= len(committed) < 300
        rerun = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    assert "resuming drift run" in rerun.stderr
    out = json.loads(rerun.stdout)
    assert out["resumed"] is True and out["batch"]["cached"] == len(committed)
    assert out["drift"]["flip_rate"]["k"] == 300 and out["drift"]["finished"] is True  # pass -> fail everywhere
    second = [tuple(line.split("|")[:2]) for line in log.read_text().splitlines()[seen_before_kill:]]
    assert not committed & set(second), "a drift verdict committed before the kill was asked again"
    assert len(second) == len(set(second)) == 300 - len(committed)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*), count(DISTINCT drift_run_id) FROM drift_verdicts").fetchone() == (300, 1)
        assert conn.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 300  # the project's own: untouched
    finally:
        conn.close()


# --------------------------------------------------------------------------- the statistics


def test_paired_kappa_change_matches_hand_derivation() -> None:
    # human p p f f; before = human (kappa 1); after p f f f: p_o = 3/4, judge margins (1/4, 3/4), human (1/2, 1/2),
    # p_e = 1/4*1/2 + 3/4*1/2 = 1/2, kappa = (3/4 - 1/2) / (1/2) = 0.5; change -0.5.
    h, b, a = ["pass", "pass", "fail", "fail"], ["pass", "pass", "fail", "fail"], ["pass", "fail", "fail", "fail"]
    k = paired_kappa_change(h, b, a)
    assert k.before.kappa == pytest.approx(1.0) and k.after.kappa == pytest.approx(0.5)
    assert k.change == pytest.approx(-0.5) and k.low <= -0.5 <= k.high
    assert k.before.low < 1.0  # the shown kappa interval never claims certainty
    assert paired_kappa_change(h, b, a) == k  # seeded: the CLI and the app show the same interval


def test_paired_change_is_tighter_than_two_independent_intervals() -> None:
    # The attack on "both intervals overlap, so nothing changed": 8 flips in 200 pairs are a real drop that the two
    # separate kappa intervals hide (they overlap); the paired interval of the change excludes 0.
    h = ["pass"] * 100 + ["fail"] * 100
    b = ["pass"] * 90 + ["fail"] * 10 + ["fail"] * 90 + ["pass"] * 10
    a = list(b)
    for i in range(8):  # the judge now gets 8 more human-pass pairs wrong
        a[i] = "fail"
    k = paired_kappa_change(h, b, a)
    assert k.after.high > k.before.low  # the two intervals overlap
    assert k.high < 0  # the paired change does not


def test_no_flip_on_a_small_anchor_is_not_proof_of_no_drift() -> None:
    # The attack: a small anchor on which no pair happened to flip. A percentile bootstrap says the change is
    # [0, 0] and any --max-kappa-drop passes; the interval here keeps room for the flips 30 pairs cannot rule out.
    h = ["pass"] * 21 + ["fail"] * 9
    k = paired_kappa_change(h, h, h)
    assert k.change == 0 and k.low < -0.05 and k.high > 0


def test_pooled_kappa_change_of_one_run_or_copies_of_it_is_that_runs() -> None:
    # Averaged cells: a pool of R copies of one run is that run's evidence, not R anchors' (the interval does not
    # narrow), and one run is `paired_kappa_change` exactly.
    h = ["pass"] * 21 + ["fail"] * 9
    b = ["pass"] * 20 + ["fail"] * 10
    a = ["fail"] * 4 + ["pass"] * 17 + ["fail"] * 9
    one = paired_kappa_change(h, b, a)
    assert pooled_kappa_change([(h, b, a)]) == one
    assert pooled_kappa_change([(h, b, a)] * 5) == one


def test_pooled_kappa_change_averages_the_runs_cells() -> None:
    # Two runs on four pairs: now = before on one, two flips on the other. The averaged table (rows judge, columns
    # human) is [[1.5, 0.5], [0.5, 1.5]] with human pass p p f f: p_o = 3/4, p_e = 1/2, kappa now 0.5.
    h = ["pass", "pass", "fail", "fail"]
    b = list(h)
    k = pooled_kappa_change([(h, b, list(h)), (h, b, ["pass", "fail", "pass", "fail"])])
    assert k.before.kappa == pytest.approx(1.0) and k.after.kappa == pytest.approx(0.5)
    assert k.change == pytest.approx(-0.5) and k.low <= -0.5 <= k.high
    # a run over other labels joins on the union of the labels
    k3 = pooled_kappa_change([(h, b, list(h)), (["pass"], ["pass"], ["unsure"])])
    assert math.isfinite(k3.change)


def test_pooled_kappa_change_refuses_misaligned_or_empty_input() -> None:
    with pytest.raises(ValueError):
        pooled_kappa_change([(["pass"], ["pass", "fail"], ["pass"])])
    with pytest.raises(ValueError):
        pooled_kappa_change([])
    with pytest.raises(ValueError):
        pooled_kappa_change([([], [], [])])
    with pytest.raises(ValueError):  # an empty human column does not hide a misaligned run
        pooled_kappa_change([(["pass"], ["pass"], ["pass"]), ([], ["pass"], [])])


def test_paired_kappa_change_refuses_misaligned_or_empty_input() -> None:
    with pytest.raises(ValueError):
        paired_kappa_change(["pass"], ["pass", "fail"], ["pass"])
    with pytest.raises(ValueError):
        paired_kappa_change([], [], [])


# --------------------------------------------------------------------------- the app's Drift screen


def _open_page(db: Path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("JUDGECAL_DB", str(db))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "alice"
    at.run()
    at.switch_page("app_pages/drift.py").run()
    assert not at.exception, at.exception
    return at


def test_drift_screen_shows_the_history_per_judge_and_rubric(project: Path, monkeypatch) -> None:
    at = _open_page(project, monkeypatch)
    assert "No anchor frozen yet" in at.info[0].value and "anchor freeze" in at.code[0].value
    assert main(["--db", str(project), "anchor", "freeze", "--name", "weekly"]) == 0
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url) == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url) == 0
        assert _cli(project, "drift", "--model", "judge-new", "--base-url", server.url, "--quiet") == 0
    at = _open_page(project, monkeypatch)
    [group] = at.selectbox
    assert group.options == ["judge-new · strict v1", "judge-x · strict v1"]
    group.set_value("judge-x · strict v1").run()
    assert not at.exception
    anchors, runs = at.dataframe
    assert list(anchors.value["anchor"]) == ["weekly"]
    table = runs.value
    assert list(table["flips"]) == ["6", "0"]  # newest first
    assert list(table["flip rate"]) == ["20.0%", "0.0%"]
    assert list(table["kappa now"]) == ["0.444", "0.889"]
    assert at.metric[0].value == "20.0%"


def test_drift_screen_is_fast_on_a_long_history(project: Path, monkeypatch) -> None:
    # The page reads the stored results only: 500 history rows must not make it recompute anything.
    assert main(["--db", str(project), "anchor", "freeze", "--name", "weekly"]) == 0
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url) == 0
    with ann.unit_of_work(project) as db, ann.write(db):
        row = db.execute("SELECT * FROM drift_runs").fetchone()
        for i in range(500):
            db.execute("INSERT INTO drift_runs VALUES (?,?,?,?,?,?,?,?,?,?)", [f"drift-copy-{i}", *row[1:]])
        db.execute("DELETE FROM drift_verdicts")  # a recomputation would now show 30 unanswered flips
    start = time.monotonic()
    at = _open_page(project, monkeypatch)
    assert time.monotonic() - start < 20
    assert len(at.dataframe[1].value) == 501 and set(at.dataframe[1].value["flips"]) == {"0"}


def test_a_run_against_another_baseline_is_not_pooled(project: Path, capsys) -> None:
    # A review of the fix (wave 17): `drift --baseline-model OTHER` compares two judges (the flag exists for it);
    # pooled with the self-drift runs, its flips failed every clean self-drift after it. The pool is per anchor ×
    # judge model × rubric version × baseline.
    with StubServer(verdicts(drifted_judge)) as server:  # a second judge model with verdicts at freeze time
        backend = _backend(server.url, "judge-other")
        try:
            jobs.judge_pairs(project, backend, repeats=1, progress=False)
        finally:
            backend.close()
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url, "--baseline-model", "judge-other") == 0  # judge-x against judge-other
        capsys.readouterr()
        assert _drift(project, server.url, "--max-flip-rate", "0.2", "--json") == 0  # judge-x against itself
    out = _json_out(capsys)
    assert out["pooled"]["runs"] == 1 and out["passed"] is True


def test_a_run_killed_before_it_finished_is_pooled_on_its_answered_pairs(project: Path, capsys) -> None:
    # A review of the fix (wave 17): only finished runs were pooled, so killing each failing run before it finished
    # and starting a new one (other --repeats, so not a resume) re-ran until one passed. A run never finished counts
    # with the label changes among its answered pairs.
    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        assert _drift(project, server.url) == 0
    with ann.unit_of_work(project) as db, ann.write(db):  # as a run killed after answering every pair
        db.execute("UPDATE drift_runs SET finished_at = NULL, result = NULL")
    capsys.readouterr()
    with StubServer(verdicts(baseline_judge)) as server:
        assert _drift(project, server.url, "--repeats", "2", "--max-flip-rate", "0.2", "--json") == 1
    out = _json_out(capsys)
    assert out["pooled"]["runs"] == 2 and [c["name"] for c in out["checks"] if not c["ok"]] == ["max_flip_rate_pooled"]


def test_the_pool_reads_earlier_runs_labels_without_their_bootstrap(project: Path, monkeypatch) -> None:
    # A review of the pooled kappa (wave 18): each earlier run's full report, bootstrap included (~0.3 s), was
    # rebuilt on every limited drift run only to read its labels. The pool computes one kappa change: the pooled one.
    from judgecal.annotations.reports import _drift as drift_module  # house: private

    assert _cli(project, "anchor", "freeze") == 0
    with StubServer(verdicts(drifted_judge)) as server:
        for _ in range(3):
            assert _drift(project, server.url) == 0
    with ann.unit_of_work(project, readonly=True) as db:
        runs = av.list_drift_runs(db, finished_only=False)
        report = ann.drift_report(db, runs[-1].id)
        calls = []
        real = drift_module.paired_kappa_change
        monkeypatch.setattr(drift_module, "paired_kappa_change", lambda *a, **k: calls.append(1) or real(*a, **k))
        pool = ann.drift_pool(db, report)
    assert len(pool.runs) == 3 and calls == [] and pool.kappa is not None
