"""Every screen through Streamlit's AppTest on a seeded project database (JUDGECAL_DB): no exception, widgets by key,
a label saved by pressing its button, the judge's verdict hidden before and shown after, user data rendered inert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from conftest import HOSTILE_OUTPUT, RUBRIC_SHA, import_c1_run, label_drawn_c1

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _app(db: Path, monkeypatch, reviewer: str | None = "ann") -> AppTest:
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    if reviewer:
        at.session_state["reviewer"] = reviewer
    return at.run()


def _sample_only(db_path: Path, *pairs: tuple[str, str]) -> None:
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.conn.executemany(
            "INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at) VALUES (?,?,?,?,?,?)",
            [(rid, cid, "random", f"{cid}|test", 0, ann.now_iso()) for rid, cid in pairs])


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text] + [c.value for c in at.code]


def _rendered_markup(at: AppTest) -> str:
    """Everything Streamlit renders as markdown or HTML (including captions, headers and button labels)."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [h.value for h in at.get("html")]
    parts += [b.label for b in at.button] + [p.proto.text for p in at.get("progress")]
    parts += [e.proto.label for e in at.get("expandable")]
    return "\n".join(parts)


def test_review_without_name_asks_for_one(project_db, monkeypatch):
    at = _app(project_db, monkeypatch, reviewer=None)
    assert not at.exception
    assert "reviewer name" in at.info[0].value
    # issue 12.1: the name is typed into a form and takes effect when it is submitted (the form then goes away)
    at.sidebar.text_input(key="reviewer_entry").input("ann")
    at.sidebar.button[0].click().run()
    assert not at.exception and not at.sidebar.text_input
    assert "Nothing is sampled for review yet" in at.info[0].value  # no samples in this project yet


def test_review_labels_by_button_blind_then_revealed(project_db, monkeypatch):
    _sample_only(project_db, ("run-a-2", "grounded"), ("run-a-4", "grounded"))
    at = _app(project_db, monkeypatch)
    assert not at.exception
    before = "\n".join(_texts(at)) + _rendered_markup(at)
    assert "judge says" not in before and "Judge:" not in before  # blind: no verdict, no reason
    assert "Every fact in the answer comes from the input." in _texts(at)
    assert at.button(key="label_1").label == "pass" and at.button(key="label_2").label == "fail"
    at.button(key="label_2").click().run()
    assert not at.exception
    with ann.unit_of_work(project_db) as db:
        rows = list(db.query("SELECT * FROM human_labels"))
    assert len(rows) == 1
    saved = rows[0]
    assert (saved["reviewer"], saved["event"], saved["label"], saved["blind"]) == ("ann", "label", "fail", 1)
    assert saved["rubric_version_seen"] == RUBRIC_SHA and saved["seconds_spent"] >= 0
    after = "\n".join(_texts(at))
    assert "Judge: pass" in after and "Reason (×3): judge says pass" in after  # issue 12.9: identical repeats once
    # the next pair is served, still blind
    assert at.button(key="label_1") is not None
    # change the revealed label: a second event, history kept
    at.button(key="change_1").click().run()
    with ann.unit_of_work(project_db) as db:
        events = [tuple(r) for r in db.execute("SELECT event, label, blind FROM human_labels ORDER BY id")]
    assert events == [("label", "fail", 1), ("change", "pass", 0)]


def test_review_undo_reopens_the_pair(project_db, monkeypatch):
    _sample_only(project_db, ("run-a-2", "grounded"), ("run-a-4", "grounded"))
    at = _app(project_db, monkeypatch)
    first = at.text[0].value, _texts(at)
    at.button(key="label_1").click().run()
    at.button(key="undo").click().run()
    assert not at.exception
    with ann.unit_of_work(project_db) as db:
        assert [r[0] for r in db.execute("SELECT event FROM human_labels ORDER BY id")] == ["label", "undo"]
    assert _texts(at) == first[1]  # the undone pair is shown again
    assert "Your last label" not in _rendered_markup(at)


def test_review_progress_moves(sampled_db, monkeypatch):
    at = _app(sampled_db, monkeypatch)
    bar = at.get("progress")[0]
    assert "Quota: 0 of 16" in bar.proto.text
    at.button(key="label_1").click().run()
    assert "Quota: 1 of 16" in at.get("progress")[0].proto.text


def test_hostile_output_is_inert_text(project_db, monkeypatch):
    _sample_only(project_db, ("run-a-1", "polite"))
    at = _app(project_db, monkeypatch)
    assert not at.exception
    assert HOSTILE_OUTPUT in _texts(at)  # shown verbatim as plain text
    markup = _rendered_markup(at)
    for fragment in ("<script", "<img", "evil.example", "](http"):
        assert fragment not in markup, fragment
    assert not at.get("html")


def test_trajectory_steps_and_tool_calls(project_db, monkeypatch):
    _sample_only(project_db, ("run-b-2", "polite"))
    at = _app(project_db, monkeypatch)
    assert not at.exception
    # The card shows the judge's evidence text (issue 13 item 1): the tool call with its result, the output marked.
    evidence = [t for t in _texts(at) if "lookup_order" in t]
    assert evidence and '{"status":"shipped"}' in evidence[0]
    assert "4. final answer: Your order 1002 has shipped." in evidence[0]


def test_reviewer_fixed_by_deployment(project_db, monkeypatch):
    _sample_only(project_db, ("run-a-2", "grounded"))
    monkeypatch.setenv("JUDGECAL_DB", str(project_db))
    monkeypatch.setenv("JUDGECAL_REVIEWER", "deployed-reviewer")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception and not at.sidebar.text_input
    at.button(key="label_1").click().run()
    with ann.unit_of_work(project_db) as db:
        assert db.execute("SELECT reviewer FROM human_labels").fetchone()[0] == "deployed-reviewer"


@pytest.mark.parametrize("page", ["app_pages/calibration.py", "app_pages/evalset.py", "app_pages/runs.py"])
def test_other_pages_render(project_db, monkeypatch, page):
    with ann.unit_of_work(project_db) as db:
        ann.run_checks(db)
        with ann.write(db):
            db.conn.execute(
                "INSERT INTO batches (id, kind, settings, status, started_at, summary) VALUES (?,?,?,?,?,?)",
                ("judge-1", "judge", json.dumps({"model": "judge-1"}), "done", ann.now_iso(),
                 json.dumps({"planned": 24, "sent": 24, "verdicts": 23, "errors": {"timeout": 1},
                             "input_tokens": 1000, "output_tokens": 100, "cost": 0.0123})))
            db.conn.execute("UPDATE verdicts SET batch_id = 'judge-1'")
    at = _app(project_db, monkeypatch)
    at.switch_page(page).run()
    assert not at.exception
    if page.endswith("runs.py"):
        batches, errors = at.dataframe
        # issue 12 item 6 (changes the raw numbers pinned before): one number format, "–" where undefined
        assert batches.value.iloc[0]["errors"] == "1" and batches.value.iloc[0]["cost"] == "$0.0123"
        assert errors.value.to_dict("records") == [{"batch or import": "judge-1", "cause": "timeout",
                                                    "verdict rows": "1"}]
        assert not at.info  # every verdict came from a recorded batch
    if page.endswith("evalset.py"):
        assert any("pass rate" in c.value.lower() for c in at.code)
        at.selectbox(key="evalset_item").select("item-1").run()
        at.selectbox(key="evalset_run").select("run-a-1").run()
        assert not at.exception
        assert HOSTILE_OUTPUT in _texts(at) and "evil.example" not in _rendered_markup(at)


HOSTILE_NAME = "![x](http://evil.example/p.png)"


def test_reviewer_name_and_run_ids_in_messages_are_inert(project_db, monkeypatch):
    """Messages (st.success / st.info) render markdown: a reviewer name or a run id from the project must not
    become an image or a link there."""
    _sample_only(project_db, ("run-a-2", "grounded"))
    at = _app(project_db, monkeypatch, reviewer=HOSTILE_NAME)
    at.button(key="label_1").click().run()  # the only pair: the queue is now empty
    assert not at.exception and at.success
    assert "](http" not in at.success[0].value, at.success[0].value
    with ann.unit_of_work(project_db) as db, ann.write(db):
        db.conn.execute("UPDATE run_records SET run_id = ?", [HOSTILE_NAME])  # one run, without boundary cases
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    shown = "\n".join(m.value for m in at.info)
    assert "has no boundary cases" in shown and "](http" not in shown, shown


def test_demo_quality_judge_is_named_as_such_on_the_calibration_page(tmp_path, monkeypatch):
    """Verdicts of the bundled offline model (the demo's) come with the demo-quality warning in the app."""
    from judgecal import judge
    from judgecal.cli import main
    from streamlit.testing.v1 import AppTest

    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "zoe"
    at.run()
    at.switch_page("app_pages/calibration.py").run()
    assert not at.exception
    assert any(judge.DEMO_QUALITY_WARNING in w.value for w in at.warning)
    assert judge.is_demo_quality("SmolLM2-135M-Instruct.Q4_1") and not judge.is_demo_quality("some-real-judge")


def test_demo_runs_and_boundary_pages_do_not_contradict_themselves(tmp_path, monkeypatch):
    """Issue 12 item 6: the demo's verdicts are imported, so the Runs page says so instead of "No judge batches yet"
    above a table of their errors; the Boundary tab opens on the run made for it (the most runs per case)."""
    from judgecal.cli import main

    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    at = _app(db, monkeypatch)
    at.switch_page("app_pages/runs.py").run()
    assert not at.exception
    shown = " ".join(i.value for i in at.info)
    assert "No judge batches yet" not in shown and "verdict rows were imported" in shown
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    with ann.unit_of_work(db) as conn:
        boundary = ann.runs_with_boundary_cases(conn)
        first = ann.list_runs(conn)[0]["run_id"]
    # the default used to be the first run (one record per case: every case "incomplete"); the 5x run comes first
    assert boundary[0] == "demo-boundary-5x" and first != boundary[0] and set(boundary) >= {first}
    assert at.selectbox(key="boundary_run").value == boundary[0]
    assert not any("has no boundary cases" in i.value for i in at.info)


def test_compare_hides_the_items_of_pairs_waiting_for_the_viewers_blind_label(demo, monkeypatch):
    """A review (wave 13) read a colleague's `fail` on the Compare page: an item's failed constraints are settled by
    the human labels and the judge's verdicts, so an item with a pair still waiting for this reviewer's blind label is
    left out of the lists (and the page says how many), as the Calibration page hides such pairs."""
    with ann.unit_of_work(demo) as db:
        waiting = ann.awaiting_blind_label(db, "zoe")
        items = {rid: item for rid, item in db.execute(
            "SELECT id, item_id FROM run_records WHERE run_id IN ('demo-run-a', 'demo-run-b')")}
    hidden = {items[rid] for rid, _cid in waiting if rid in items}
    assert hidden  # the demo's labelled overlap pairs wait for a second reviewer
    at = _app(demo, monkeypatch, reviewer="zoe")
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    listed = set(at.dataframe[0].value["item"])
    assert listed and not listed & hidden
    code = "\n".join(c.value for c in at.code)
    assert not any(f"  {item}  A failed:" in code for item in hidden)
    assert f"{len(hidden)} items are hidden until you have labelled their sampled pairs blind" in _rendered_markup(at)


def test_rubrics_compare_hides_flipped_pairs_waiting_for_the_viewers_blind_label(demo, monkeypatch, tmp_path):
    """The Rubrics page's comparison lists each flipped labelled pair with its human label and both versions'
    verdicts: a reviewer who still owed a blind label on an overlap pair read the first reviewer's label there
    (a review, wave 14). Such pairs are left out of the list, as on the Compare and Calibration pages."""
    from judgecal.cli import main

    exported = tmp_path / "v.jsonl"
    assert main(["--db", str(demo), "export", "verdicts", "--out", str(exported)]) == 0
    flipped = []
    for line in exported.read_text().splitlines():
        row = json.loads(line)
        if "judgecal_export" in row:
            continue
        row = {k: v for k, v in row.items() if k != "created_at"}
        row |= {"rubric_sha256": "d" * 64, "rubric_version": row["rubric_version"] + 1}
        if "label" in row:
            row["label"] = {"pass": "fail", "fail": "pass"}.get(row["label"], row["label"])
        flipped.append(row)
    v2 = tmp_path / "v2.jsonl"
    v2.write_text("".join(json.dumps(r) + "\n" for r in flipped))
    assert main(["--db", str(demo), "import", "verdicts", str(v2)]) == 0
    with ann.unit_of_work(demo) as db:
        waiting = ann.awaiting_blind_label(db, "zoe")
    assert waiting  # the demo's labelled overlap pairs wait for a second reviewer
    at = _app(demo, monkeypatch, reviewer="zoe")
    at.switch_page("app_pages/rubrics.py").run()
    assert not at.exception
    code = "\n".join(c.value for c in at.code)
    assert "broken" in code or "fixed" in code  # flips are listed
    listed = [f"{rid} / {cid} " for rid, cid in waiting if f"{rid} / {cid} " in code]
    assert not listed, listed
    assert "flipped pairs are hidden until you have labelled them blind" in _rendered_markup(at)


def test_calibration_page_follows_a_draw_that_only_rewrites_the_strata(tmp_path, monkeypatch):
    """A population grown by three pairs is not ok until `sample` draws again (wave 14); that draw added no sample
    row (the quota stayed 11) and only rewrote `sample_strata`, which the page's cache key did not read: the page
    kept saying the strata grew (a review of wave 14's fix)."""
    from judgecal.cli import main

    db = str(tmp_path / "grown.db")
    import_c1_run(db, tmp_path, 0, 101)
    assert main(["--db", db, "sample", "--rate", "0.1", "--overlap", "0"]) == 0
    label_drawn_c1(db)
    import_c1_run(db, tmp_path, 1010, 3)
    at = _app(db, monkeypatch, reviewer=None)  # (a reviewer's Review page would top the draw up itself)
    at.switch_page("app_pages/calibration.py").run()
    assert not at.exception
    assert any("grew since the sample was drawn" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.success  # not "every stratum meets the quota" beside it (a review of wave 14's fix)
    with ann.unit_of_work(db) as d:
        rows_before = d.execute("SELECT count(*) FROM samples").fetchone()[0]
    assert main(["--db", db, "sample", "--rate", "0.1", "--overlap", "0"]) == 0
    with ann.unit_of_work(db) as d:
        assert d.execute("SELECT count(*) FROM samples").fetchone()[0] == rows_before  # no sample row added
    at.run()
    assert not at.exception
    assert not any("grew since the sample was drawn" in e.value for e in at.error)
