"""Rubric comparison (tune/heldout, flips, McNemar, cost), disagreements, adjudication, feedback to the eval set,
and the shareable report formats. Project: tests/test_calibration_project.py."""

from __future__ import annotations

import json

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report
from judgecal.annotations.reports import format_report
from judgecal.annotations.reports import (NO_DECISION, KINDS, DisagreementFilter, adjudicate, disagreements,
                                   filter_disagreements, send_to_evalset)
from judgecal.annotations.reports import compare_rubrics, label_split
from judgecal.cli import main
from test_calibration_project import R1, R2, add_label, add_rubric, add_verdicts, build


@pytest.fixture
def two_versions(tmp_path):
    path = build(tmp_path / "tune.db")
    with ann.unit_of_work(path) as db:
        add_rubric(db, R2, 2)
        # v2 on the labelled pairs 1-9 (alice: P P P F F F P P F); items 1-7 are tune, 8-10 heldout.
        # v1 majority:       P P P F F P F tie P
        # v2:                P P P F F F P F  P   (fixes 6 and 7; 8 now has a majority, F, which is wrong)
        add_verdicts(db, R2, {1: "PPP", 2: "PPP", 3: "PPP", 4: "FFF", 5: "FFF", 6: "FFF", 7: "PPP", 8: "FFF",
                              9: "PPP"}, tokens=(200, 20))
    return path


def test_compare_versions_on_tune_and_heldout(two_versions):
    with ann.unit_of_work(two_versions) as db:
        c = compare_rubrics(db, "strict@1", "strict@2")
    by = {s.split: s for s in c.splits}
    # the counted random pairs 1-8 (wave 17: the targeted pair 9 only with random_only=False); pair 8 has no v1
    # majority: scored as the judge label 'abstain', as the report does, no longer left out
    assert (c.labelled, c.excluded) == (8, 1) and (c.majority_a.tie, c.majority_b.tie) == (1, 0)
    # tune = items 1-7 (their own split): v1 5/7 right (kappa 5/12, see test_calibration), v2 7/7 (kappa 1)
    assert by["tune"].n == 7 and by["tune"].a.kappa == pytest.approx(5 / 12) and by["tune"].b.kappa == pytest.approx(1)
    assert (by["tune"].fixed, by["tune"].broken) == (2, 0)
    # McNemar exact, b = 2, c = 0: 2 × P(X <= 0 | n = 2, 1/2) = 2 × 1/4 = 0.5
    assert by["tune"].mcnemar_p == pytest.approx(0.5)
    # heldout = item 8 only: v1 abstains (tie), v2 F, alice P -> wrong under both; kappa undefined on one pair
    assert by["heldout"].n == 1 and (by["heldout"].fixed, by["heldout"].broken) == (0, 0)
    assert {(f.run_record_id, f.kind) for f in c.flips} == {("run-6", "fixed"), ("run-7", "fixed")}
    # one heldout pair shows no overfitting either way (it read "not on heldout" before wave 17)
    assert c.warning and "cannot show overfitting either way" in c.warning
    with ann.unit_of_work(two_versions) as db:
        wide = compare_rubrics(db, "strict@1", "strict@2", random_only=False)
    assert wide.labelled == 9 and wide.compared_by_rule == {"random": 8, "targeted": 1}
    assert {s.split: s.n for s in wide.splits}["heldout"] == 2 and wide.random_only_all.n == 8
    # cost: tokens of the 8 compared pairs × 3 repeats; v1 at (100, 10) per verdict, v2 at (200, 20)
    assert (c.a.input_tokens, c.a.output_tokens, c.b.input_tokens, c.b.output_tokens) == (2400, 240, 4800, 480)
    assert c.a.cost_usd is None
    assert main(["--db", str(two_versions), "price", "j", "1.0", "10.0"]) == 0
    with ann.unit_of_work(two_versions) as db:
        c2 = compare_rubrics(db, "strict@1", "strict@2")
    # 4800 × 1 / 1e6 + 480 × 10 / 1e6 = 0.0096
    assert c2.b.cost_usd == pytest.approx(0.0096)
    # v2's verdicts landed from a Batch API job: billed at the batch price, half (they were costed at the full price
    # beside the batch summary's half: a review, wave 14)
    with ann.unit_of_work(two_versions) as db, ann.write(db):
        db.execute("INSERT INTO batches (id, kind, settings, status, started_at) VALUES ('b-api', 'judge', ?,"
                   " 'done', '2026-01-01T00:00:00Z')", [json.dumps({"batch_api": True})])
        db.execute("UPDATE verdicts SET batch_id = 'b-api' WHERE rubric_sha256 = ?", [R2])
    with ann.unit_of_work(two_versions) as db:
        c3 = compare_rubrics(db, "strict@1", "strict@2")
    assert c3.b.cost_usd == pytest.approx(0.0048) and c3.b.input_tokens == 4800


def test_split_is_the_items_own_else_a_seeded_hash():
    assert label_split("x", "heldout") == "heldout"
    draws = [label_split(f"item-{n}", None, seed=3) for n in range(2000)]
    assert draws == [label_split(f"item-{n}", None, seed=3) for n in range(2000)]  # deterministic
    assert 0.66 < draws.count("tune") / 2000 < 0.74  # ~70/30
    assert draws != [label_split(f"item-{n}", None, seed=4) for n in range(2000)]


def test_report_compare_cli_json(two_versions, tmp_path):
    out = tmp_path / "r.json"
    assert main(["--db", str(two_versions), "report", "--json", "--compare", "strict@1", "strict@2",
                 "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["comparison"]["splits"][1]["split"] == "tune" and data["comparison"]["splits"][1]["fixed"] == 2
    assert main(["--db", str(two_versions), "report", "--compare", "strict@1", "nope"]) == 2


def test_disagreements_sorted_by_flips(tmp_path):
    path = build(tmp_path / "d.db")
    with ann.unit_of_work(path) as db:
        rows = disagreements(db)
    # v1 vs alice: run 6 (P vs F), run 7 (F vs P), run 8 (tie), run 9 (targeted, P vs F);
    # bob (F on runs 2 and 6, judge P) disagrees twice; carol's label on run 5 was undone, so it does not count
    got = [(d.run_record_id, d.reviewer) for d in rows]
    assert set(got) == {("run-6", "alice"), ("run-7", "alice"), ("run-8", "alice"), ("run-9", "alice"),
                        ("run-2", "bob"), ("run-6", "bob")}
    # Issue 12 item 5 (changes the order pinned before): real disagreements first, the tie after them
    assert [d.kind for d in rows] == ["disagreement"] * 5 + ["tie"]
    tie = rows[-1]
    assert tie.judge_label is None and tie.repeat_labels == ("pass", None, "fail") and tie.flip_share == 0.5
    r6 = next(d for d in rows if d.run_record_id == "run-6")
    assert (r6.judge_label, r6.judge_reason, r6.human_label, r6.rules) == ("pass", "because pass", "fail",
                                                                           ("overlap", "random"))


def test_judge_errors_are_listed_apart_with_their_causes(tmp_path):
    """Issue 12 item 5: a pair whose repeats all errored is a judge failure, not a disagreement about the output:
    it sorts after every real disagreement (even though it 'flips' 100%) and carries the error of each repeat."""
    path = build(tmp_path / "e.db", n_items=12)
    with ann.unit_of_work(path) as db:
        add_verdicts(db, R1, {11: "EEE", 12: "PPP"})
        add_label(db, "alice", 11, "pass", seen=R1)
        add_label(db, "alice", 12, "fail", seen=R1, note="made up")
        with ann.write(db):
            db.execute("UPDATE human_labels SET failure_mode = 'hallucination' WHERE run_record_id = 'run-12'")
        rows = disagreements(db)
    kinds = [d.kind for d in rows]
    assert kinds == sorted(kinds, key=KINDS.index) and kinds[-1] == "judge_error" and kinds.count("judge_error") == 1
    err = rows[-1]
    assert err.run_record_id == "run-11" and err.flip_share == 1.0
    assert err.error_causes == ("timeout", "timeout", "timeout") and err.judge_label is None
    assert next(d for d in rows if d.run_record_id == "run-8").error_causes == ("timeout",)  # the tie's error repeat
    # filters: constraint, model under test, failure mode, decision
    assert [d.run_record_id for d in filter_disagreements(rows, DisagreementFilter(failure_mode="hallucination"))] \
        == ["run-12"]
    assert filter_disagreements(rows, DisagreementFilter(model="other")) == []
    assert filter_disagreements(rows, DisagreementFilter(constraint="grounded", model="m")) == rows
    with ann.unit_of_work(path) as db:
        adjudicate(db, "run-6", "grounded", "judge_wrong", who="alice")
        rows = disagreements(db)
    decided = filter_disagreements(rows, DisagreementFilter(decision="judge_wrong"))
    assert {d.run_record_id for d in decided} == {"run-6"}
    assert "run-6" not in {d.run_record_id for d in filter_disagreements(rows, DisagreementFilter(decision=NO_DECISION))}


def test_adjudicate_and_send_to_evalset_once(tmp_path):
    path = build(tmp_path / "f.db")
    with ann.unit_of_work(path) as db:
        adjudicate(db, "run-6", "grounded", "judge_wrong", who="alice", note="invented a date", rubric_sha256=R1,
                   judge_model="j")
        with pytest.raises(ValueError, match="decision must be one of"):
            adjudicate(db, "run-6", "grounded", "nobody_knows", who="alice")
        with pytest.raises(ValueError, match="no run record"):
            send_to_evalset(db, "run-404", "grounded", who="alice", reason="x")
        first = send_to_evalset(db, "run-6", "grounded", who="alice", reason="judge missed an invented date")
        again = send_to_evalset(db, "run-6", "grounded", who="bob", reason="same")
        assert first.added and not again.added and first.item_id == again.item_id
        item = ann.load_items(db)[first.item_id]
        assert item.derived_from == "item-6/run-6/grounded" and item.split == "tune"  # issue 13.4: names R and C
        assert "from-calibration" in item.tags and "adjudicated:judge_wrong" in item.tags
        assert [c.id for c in item.constraints] == ["grounded"] and item.instruction == "Task 6"
        (fb,) = db.query("SELECT * FROM evalset_feedback")
        assert (fb["source_item_id"], fb["who"], fb["reason"]) == ("item-6", "alice", "judge missed an invented date")
        d = next(d for d in disagreements(db) if d.run_record_id == "run-6")
        assert (d.decision, d.sent_item_id) == ("judge_wrong", first.item_id)


def test_markdown_and_html_exports_escape_user_text(tmp_path):
    path = build(tmp_path / "x.db")
    hostile = "<script>alert(1)</script>|*x*"
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("UPDATE rubrics SET name = ?", [hostile])
    html_out, md_out = tmp_path / "r.html", tmp_path / "r.md"
    assert main(["--db", str(path), "report", "--format", "html", "--out", str(html_out)]) == 0
    assert main(["--db", str(path), "report", "--format", "md", "--out", str(md_out)]) == 0
    h, m = html_out.read_text(), md_out.read_text()
    assert "<script>" not in h and "&lt;script&gt;alert(1)&lt;/script&gt;" in h
    assert "<script>" not in m and "\\<script\\>" in m and "\\|\\*x\\*" in m
    assert "0.314" in h and "0.314" in m  # the kappa of test_calibration (11/35, the tie as a disagreement)


def test_text_report_shows_quota_warning(tmp_path):
    path = build(tmp_path / "x.db")
    with ann.unit_of_work(path) as db:
        text = format_report(calibration_report(db, rate=0.9))
    assert "WARNING: 1 stratum(s) below the review quota" in text and "BELOW QUOTA" in text
