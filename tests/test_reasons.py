"""Judge reasons (issue 12.9): identical repeat reasons shown once with a count, and a reason that contradicts its
verdict's label marked, by one rule (annotations.review._reasons) used by the Review reveal and the Calibration page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from conftest import RUBRIC_SHA_2, add_rubric

PF = ("pass", "fail")
REFUSAL = ("hard_refusal", "soft_refusal", "degraded", "complied")
APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.mark.parametrize("label,reason,labels,expected", [
    ("pass", "fail", PF, True),                                   # the demo's "Judge: pass … Reason: fail"
    ("hard_refusal", "complied", REFUSAL, True),                  # the demo's refusal case
    ("pass", "Fail.", PF, True),                                  # case and punctuation do not hide it
    ("pass", "**FAIL**", PF, True),
    ("pass", "The answer invents a date, so the verdict is: fail", PF, True),  # the conclusion at the end
    ("fail", "The answer invents a date, so the verdict is: fail", PF, False),
    ("pass", "pass", PF, False),
    ("pass", "pass: every fact is in the input, none fail", PF, False),  # the first word wins
    ("pass", "fail-safe wording is used throughout", PF, False),  # not a label: a word is letters, _ and -
    ("pass", "The answer is grounded in the input.", PF, False),  # names no label: never marked
    ("complied", "soft_refusal", REFUSAL, True),
    ("complied", "pass", REFUSAL, False),                         # a label of another set is not a conclusion
    (None, "fail", PF, False),                                    # an error row has no label to contradict
    ("pass", None, PF, False),
    ("pass", "", PF, False),
], ids=lambda v: repr(v)[:40])
def test_contradiction_rule(label, reason, labels, expected):
    assert ann.reason_contradicts(label, reason, labels) is expected


def test_identical_repeats_are_one_line_with_a_count():
    lines = ann.reason_lines([("pass", "fail"), ("pass", " fail "), ("pass", "fail"), ("fail", "fail"),
                              (None, None), ("pass", "grounded")], PF)
    assert lines == (ann.ReasonLine("fail", "pass", 3, True), ann.ReasonLine("fail", "fail", 1, False),
                     ann.ReasonLine("grounded", "pass", 1, False))


def test_label_set_for_finds_the_named_set():
    assert ann.label_set_for("hard_refusal", "soft_refusal") == REFUSAL
    assert ann.label_set_for("pass", None) == PF
    assert ann.label_set_for("good", "bad") == ("good", "bad")  # a custom set: only what is known


def _contradicting_verdicts(path: Path, pair: ann.Pair) -> None:
    with ann.unit_of_work(path) as db:
        add_rubric(db, RUBRIC_SHA_2, version=2)
        with ann.write(db):
            db.conn.executemany(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason,"
                " created_at) VALUES (?,?,?,?,?,?,?,?)",
                [(pair[0], pair[1], RUBRIC_SHA_2, "judge-1", rep, "pass", "fail", ann.now_iso()) for rep in range(3)])


def test_reveal_shows_repeats_once_and_marks_the_contradiction(sampled_db):
    pair = ann.Pair("run-a-1", "grounded")
    _contradicting_verdicts(sampled_db, pair)
    with ann.unit_of_work(sampled_db) as db:
        ann.record_label(db, "ann", pair, "fail")
        latest = ann.reveal(db, "ann", pair).judge[0]
    assert latest.reason_lines == (ann.ReasonLine("fail", "pass", 3, True),)


def test_review_page_reveal_prints_the_reason_once_with_its_mark(project_db, monkeypatch):
    pair = ann.Pair("run-a-1", "grounded")
    with ann.unit_of_work(project_db) as db, ann.write(db):
        db.conn.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at)"
                        " VALUES (?,?,?,?,?,?)", (*pair, "random", "grounded|test", 0, ann.now_iso()))
    _contradicting_verdicts(project_db, pair)
    monkeypatch.setenv("JUDGECAL_DB", str(project_db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    at.button(key="label_2").click().run()
    assert not at.exception
    texts = [t.value for t in at.text]
    assert "Reason (×3): fail   ⚠ contradicts the label pass" in texts
    assert sum(t.startswith("Reason") and "fail" in t and "×" not in t for t in texts) == 0


def test_calibration_disagreement_marks_the_contradiction(project_db, monkeypatch):
    pair = ann.Pair("run-a-1", "grounded")
    with ann.unit_of_work(project_db) as db, ann.write(db):
        db.conn.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at)"
                        " VALUES (?,?,?,?,?,?)", (*pair, "random", "grounded|test", 0, ann.now_iso()))
    _contradicting_verdicts(project_db, pair)
    with ann.unit_of_work(project_db) as db:
        ann.record_label(db, "ann", pair, "fail")
    monkeypatch.setenv("JUDGECAL_DB", str(project_db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    at.switch_page("app_pages/calibration.py").run()
    assert not at.exception
    texts = [t.value for t in at.text]
    assert "Reason: fail   ⚠ contradicts the label" in texts
    assert "Reason: judge says pass" in texts  # rubric v1's consistent reason is not marked
