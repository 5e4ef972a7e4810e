"""The Calibration screen through Streamlit's AppTest on the constructed project (tests/test_calibration_project.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from test_calibration_project import R1, add_verdicts, build

APP = str(Path(__file__).resolve().parents[1] / "app.py")
HOSTILE = "<script>document.title='pwned'</script> [click](http://evil.example/x) **bold**"


def _open(db: Path, monkeypatch) -> AppTest:
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "alice"
    at.run()
    at.switch_page("app_pages/calibration.py").run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def page_db(tmp_path):
    path = build(tmp_path / "page.db")
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("UPDATE run_records SET output = ? WHERE id = 'run-6'", [HOSTILE])
    return path


def test_page_shows_report_and_quota_ok(page_db, monkeypatch):
    at = _open(page_db, monkeypatch)
    assert not at.error and "Every stratum meets the 10% review quota" in at.success[0].value
    table = next(d.value for d in at.dataframe if "kappa [95% CI]" in d.value.columns and "slice" in d.value.columns)
    overall = table[table["slice"] == "overall"].iloc[0]
    assert overall["n"] == "8" and overall["kappa [95% CI]"].startswith("0.314")  # 11/35: the tie counts (issue 10)
    texts = [t.value for t in at.text] + [c.value for c in at.code]
    assert HOSTILE in texts  # the output as inert text
    markup = "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])
    assert "evil.example" not in markup and "<script>" not in markup


def test_page_red_when_a_stratum_is_below_quota(tmp_path, monkeypatch):
    path = build(tmp_path / "low.db", n_items=30)
    with ann.unit_of_work(path) as db:
        add_verdicts(db, R1, {n: "PPP" for n in range(11, 31)})
    # 30 judged -> quota 3, 8 labelled: ok; at 40 items it would not be. Make it fail: drop 6 random rows.
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("DELETE FROM samples WHERE rule = 'random' AND run_record_id NOT IN ('run-1', 'run-2')")
    at = _open(path, monkeypatch)
    assert at.error and "1 of 1 strata are below the 10% review quota" in at.error[0].value


def test_adjudicate_and_send_from_the_page(page_db, monkeypatch):
    at = _open(page_db, monkeypatch)
    first = at.text[0].value
    # issue 12 item 5 (changes the order pinned before): real disagreements first, the tie (run 8) after them
    assert first.startswith("run-2 · grounded")
    assert any(t.value.startswith("run-8 · grounded") for t in at.text)
    at.selectbox(key="cal_d0_decision").select("rubric_ambiguous").run()
    at.text_input(key="cal_d0_note").input("constraint unclear on partial facts").run()
    at.button(key="cal_d0_adjudicate").click().run()
    assert not at.exception
    at.button(key="cal_d0_send").click().run()
    assert not at.exception
    with ann.unit_of_work(page_db) as db:
        (adj,) = db.query("SELECT * FROM adjudications")
        (fb,) = db.query("SELECT * FROM evalset_feedback")
    assert (adj["decision"], adj["who"], adj["note"]) == ("rubric_ambiguous", "alice",
                                                          "constraint unclear on partial facts")
    assert fb["run_record_id"] == "run-2" and fb["reason"] == "constraint unclear on partial facts"
    assert any("Added eval item cal" in s.value for s in at.success)  # the id is markdown-escaped


def test_filters(page_db, monkeypatch):
    at = _open(page_db, monkeypatch)
    at.selectbox(key="cal_rubric").select("strict@1").run()
    at.selectbox(key="cal_constraint").select("grounded").run()
    assert not at.exception


def test_pairs_awaiting_the_viewers_blind_label_are_hidden(page_db, monkeypatch):
    """Issue 10 item 9: run 7 goes to the overlap sample; alice labelled it (pass, the judge says fail), a second
    reviewer has not. Alice sees the disagreement; dave, who may still be served run 7 blind, does not."""
    from test_calibration_project import add_sample
    with ann.unit_of_work(page_db) as db:
        add_sample(db, 7, "overlap")

    def shown(at) -> bool:
        return any(t.value.startswith("run-7 · grounded") for t in at.text)

    at = _open(page_db, monkeypatch)
    assert shown(at)
    at.session_state["reviewer"] = "dave"
    at.run()
    assert not at.exception and not shown(at)
    assert any("hidden until you have labelled them blind" in c.value for c in at.caption)


def test_headline_is_per_label_set_when_sets_are_mixed(tmp_path, monkeypatch):
    """Issue 10 item 8: with pass/fail and refusal pairs in one group the metric shows one kappa per label set."""
    import json as _json
    path = build(tmp_path / "mixed.db")
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("UPDATE constraints SET labels = ? WHERE item_id IN ('item-1', 'item-2', 'item-3', 'item-4')",
                   [_json.dumps(["pass", "fail", "other"])])
    at = _open(path, monkeypatch)
    labels = [m.label.replace("\\", "") for m in at.metric]  # names are markdown-escaped user data
    assert any("labels:pass/fail/other" in l for l in labels) and any("labels:pass/fail" == l.split(" · ")[-1]
                                                                      for l in labels)
    assert "kappa (majority)" not in labels  # the pooled number is not the headline


def test_any_failing_pair_can_be_sent(page_db, monkeypatch):
    # Issue 13.4: a pair a reviewer labelled fail that the judge agrees with is no disagreement, yet it can be sent.
    with ann.unit_of_work(page_db) as db:
        failing = ann.failing_pairs(db)
        disputed = {(d.run_record_id, d.constraint_id) for d in ann.disagreements(db)}
    agreed = [n for n, f in enumerate(failing) if (f.run_record_id, f.constraint_id) not in disputed]
    assert agreed, "the constructed project needs a failing pair that is not a disagreement"
    n = agreed[0] if agreed[0] < 50 else pytest.skip("beyond the shown rows")
    at = _open(page_db, monkeypatch)
    at.text_input(key=f"cal_f{n}_note").input("agreed failure, keep it").run()
    at.button(key=f"cal_f{n}_send").click().run()
    assert not at.exception
    with ann.unit_of_work(page_db) as db:
        (fb,) = db.query("SELECT * FROM evalset_feedback")
    assert (fb["run_record_id"], fb["constraint_id"]) == (failing[n].run_record_id, failing[n].constraint_id)
    assert (fb["who"], fb["reason"]) == ("alice", "agreed failure, keep it")


def test_judge_errors_have_their_own_tab_and_no_send_button(tmp_path, monkeypatch):
    """Issue 12 items 5-6: a labelled pair whose repeats all errored is listed under Judge errors with its cause, not
    as a disagreement card (no "Send to eval set" on it); strata read 'constraint · model · rubric vN'; no table
    cell shows a bare None."""
    from test_calibration_project import add_label, add_verdicts
    path = build(tmp_path / "err.db", n_items=11)
    with ann.unit_of_work(path) as db:
        add_verdicts(db, R1, {11: "EEE"})
        add_label(db, "alice", 11, "pass", seen=R1)
    at = _open(path, monkeypatch)
    assert not any(t.value.startswith("run-11 ·") for t in at.text)  # no card
    tabs = [t.label for t in at.tabs]
    assert "Judge errors (1)" in tabs and "Disagreements (6)" in tabs
    errors = next(d.value for d in at.dataframe if "causes" in d.value.columns)
    assert errors.iloc[0]["run record"] == "run-11" and errors.iloc[0]["causes"] == "timeout"
    coverage = next(d.value for d in at.dataframe if "stratum" in d.value.columns)
    assert list(coverage["stratum"]) == ["grounded · m · strict v1"]
    for d in at.dataframe:
        assert not d.value.isna().any().any() and "None" not in d.value.astype(str).values


def test_disagreement_filters_on_the_page(page_db, monkeypatch):
    at = _open(page_db, monkeypatch)
    at.selectbox(key="cal_f_decision").select("judge_wrong").run()
    assert not at.exception and not any(t.value.startswith("run-") for t in at.text)
    at.selectbox(key="cal_f_decision").select("(undecided)").run()
    assert any(t.value.startswith("run-6 · grounded") for t in at.text)


def test_cached_report_follows_new_labels_and_verdicts(page_db, monkeypatch):
    """The page caches the report per data version: a new label or verdict must show on the next rerun."""
    from test_calibration_project import add_label, add_verdicts
    at = _open(page_db, monkeypatch)
    assert not any(t.value.startswith("run-10 ·") for t in at.text)
    with ann.unit_of_work(page_db) as db:
        before = ann.calibration_version(db)
        add_label(db, "alice", 10, "pass", seen=R1)  # judge F F F: a new disagreement
        assert ann.calibration_version(db) != before
    at.run()
    assert any(t.value.startswith("run-10 · grounded") for t in at.text)
    with ann.unit_of_work(page_db) as db, ann.write(db):
        db.execute("DELETE FROM verdicts WHERE run_record_id = 'run-10'")
    with ann.unit_of_work(page_db) as db:
        add_verdicts(db, R1, {10: "PPP"})  # re-judged: now it agrees with alice
    at.run()
    assert not at.exception and not any(t.value.startswith("run-10 ·") for t in at.text)


def test_page_shows_label_planning_beside_the_quota(page_db, monkeypatch):
    # issue 15.4: labels for the target half-width and the smallest detectable difference, beside the quota
    at = _open(page_db, monkeypatch)
    assert any("Label planning" in m.value for m in at.markdown)
    table = next(d.value for d in at.dataframe if "smallest detectable difference" in d.value.columns)
    with ann.unit_of_work(page_db) as db:
        (g,) = ann.calibration_report(db).groups
    (plan,) = g.plans
    row = table.iloc[0]
    assert row["labelled"] == str(plan.n_labelled) and row["smallest detectable difference"] == (
        f"{100 * plan.mdd:.1f} pts")
