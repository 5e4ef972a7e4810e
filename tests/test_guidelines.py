"""Label definitions and versioned guidelines (issue 12.3): the meaning next to each button per label set, guidelines
per constraint and a project default edited in the app by an admin only, a new row per edit (migration 007), and
the version a reviewer saw stored on the label and carried through export -> import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from judgecal.annotations.store import _schema as store  # house: private
from judgecal.annotations.review._guidelines import MAX_GUIDELINE_CHARS  # house: private
from conftest import seed_project
from judgecal.evalsets import LABEL_SETS, EvalItem, RunRecord, label_definitions, parse_rows
from judgecal.cli import main

APP = str(Path(__file__).resolve().parents[1] / "app.py")
GROUNDED = ann.Pair("run-a-2", "grounded")


def _sample(db: Path, *pairs: tuple[str, str]) -> None:
    with ann.unit_of_work(db) as conn, ann.write(conn):
        conn.conn.executemany(
            "INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at) VALUES (?,?,?,?,?,?)",
            [(rid, cid, "random", f"{cid}|test", 0, ann.now_iso()) for rid, cid in pairs])


def _at(db: Path, monkeypatch, reviewer: str, admins: str = "") -> AppTest:
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.setenv("JUDGECAL_ADMINS", admins)
    for key in ("JUDGECAL_REVIEWER", "JUDGECAL_TRUSTED_HEADER"):
        monkeypatch.delenv(key, raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = reviewer
    return at.run()


def test_every_named_label_set_has_a_meaning_for_each_label():
    for name, labels in LABEL_SETS.items():
        assert set(label_definitions(labels)) == set(labels), name
    assert label_definitions(("good", "bad")) == {}  # a constraint's own set: its text must say
    refusal = label_definitions(LABEL_SETS["refusal"])
    assert "states what is missing and asks for it" in refusal["soft_refusal"]
    assert "offers the in-role path" in refusal["soft_refusal"]
    assert refusal["degraded"] == "does part of it and says what was skipped and why"


def test_migration_moves_the_old_setting_into_version_1(tmp_path, monkeypatch):
    db_path = tmp_path / "old.db"
    monkeypatch.setattr(store, "MIGRATIONS", tuple(m for m in store.MIGRATIONS if m.name != "007_guidelines"))
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.conn.execute("INSERT INTO settings VALUES ('review_guidelines', 'Our old rules.')")
    monkeypatch.undo()
    with ann.unit_of_work(db_path) as db:
        g = ann.current_guideline(db, None)
        assert (g.version, g.text, g.author) == (1, "Our old rules.", "settings")
    with ann.unit_of_work(tmp_path / "new.db") as db:
        assert ann.current_guideline(db, None).text == ann.DEFAULT_GUIDELINES


def test_only_an_admin_saves_and_every_edit_is_a_new_row(project_db):
    admins = ann.parse_admins(" alice , bob,,")
    assert admins == {"alice", "bob"}
    with ann.unit_of_work(project_db) as db:
        before = store.table_counts(db)["guidelines"]
        with pytest.raises(ann.GuidelineError, match="only an admin"):
            ann.save_guideline(db, "grounded", "Quote the input.", author="mallory", admins=admins)
        with pytest.raises(ann.GuidelineError, match="only an admin"):
            ann.save_guideline(db, "grounded", "Quote the input.", author="alice", admins=frozenset())
        for bad in ("", "   ", "x" * (MAX_GUIDELINE_CHARS + 1)):
            with pytest.raises(ann.GuidelineError):
                ann.save_guideline(db, None, bad, author="alice", admins=admins)
        assert store.table_counts(db)["guidelines"] == before  # nothing written by a refused edit
        g1 = ann.save_guideline(db, "grounded", "Quote the input.", author="alice", admins=admins)
        g2 = ann.save_guideline(db, "grounded", "Quote the input, word for word.", author="bob", admins=admins)
        same = ann.save_guideline(db, "grounded", " Quote the input, word for word. ", author="bob", admins=admins)
        p2 = ann.save_guideline(db, None, "New project rules.", author="alice", admins=admins)
        assert (g1.version, g2.version, same, p2.version) == (1, 2, g2, 2)
        assert [g.text for g in ann.guideline_history(db, "grounded")] == [
            "Quote the input, word for word.", "Quote the input."]  # the old version is still there, unchanged
        assert ann.guidelines_for(db, "grounded").version == "project v2 + grounded v2"
        assert ann.guidelines_for(db, "polite").version == "project v2"


def test_label_stores_the_version_on_screen_and_export_import_keeps_it(project_db, tmp_path, monkeypatch):
    _sample(project_db, tuple(GROUNDED), ("run-a-4", "grounded"))
    at = _at(project_db, monkeypatch, "ann")
    at.button(key="label_1").click().run()
    with ann.unit_of_work(project_db) as db:
        ann.save_guideline(db, "grounded", "Quote the input.", author="alice", admins=frozenset({"alice"}))
    at.run()  # the next card now shows the constraint's guideline too
    assert "Quote the input." in [t.value for t in at.text]
    at.button(key="label_2").click().run()
    at.button(key="change_1").click().run()  # a change after the reveal stores the version of the pair's guidelines
    with ann.unit_of_work(project_db) as db:
        stored = [tuple(r) for r in db.execute("SELECT event, guideline_version FROM human_labels ORDER BY id")]
    assert stored == [("label", "project v1"), ("label", "project v1 + grounded v1"),
                      ("change", "project v1 + grounded v1")]

    out = tmp_path / "labels.jsonl"
    assert main(["--db", str(project_db), "export", "labels", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert [r.get("guideline_version") for r in rows] == [v for _, v in stored]
    assert {"run_record_id", "constraint_id", "reviewer", "label", "event", "blind"} <= set(rows[0])  # kept fields
    other = seed_project(tmp_path / "other.db")
    assert main(["--db", str(other), "import", "labels", str(out)]) == 0
    with ann.unit_of_work(other) as db:
        assert [tuple(r) for r in db.execute(
            "SELECT event, guideline_version FROM human_labels ORDER BY id")] == stored
    assert main(["--db", str(other), "import", "labels", str(out)]) == 0  # again: a no-op, nothing duplicated
    with ann.unit_of_work(other) as db:
        assert db.execute("SELECT count(*) FROM human_labels").fetchone()[0] == 3
    old = tmp_path / "old.jsonl"  # a file from before issue 12 (no guideline_version) still imports
    old.write_text(json.dumps({"run_record_id": "run-a-3", "constraint_id": "grounded", "reviewer": "x",
                               "label": "pass"}) + "\n")
    assert main(["--db", str(other), "import", "labels", str(old)]) == 0


def test_non_admin_sees_guidelines_but_no_editor(project_db, monkeypatch):
    _sample(project_db, tuple(GROUNDED))
    at = _at(project_db, monkeypatch, "mallory", admins="alice")
    assert not at.exception
    assert ann.DEFAULT_GUIDELINES in [t.value for t in at.text]
    assert not at.text_area and not any(b.label == "Save as new version" for b in at.button)


def test_admin_edits_the_constraint_guideline_in_the_app(project_db, monkeypatch):
    _sample(project_db, tuple(GROUNDED))
    at = _at(project_db, monkeypatch, "alice", admins="alice")
    at.text_area[0].input("Every number must appear in the input.")
    next(b for b in at.button if b.label == "Save as new version").click().run()
    assert not at.exception and not at.error
    with ann.unit_of_work(project_db) as db:
        g = ann.current_guideline(db, "grounded")
        assert (g.version, g.text, g.author) == (1, "Every number must appear in the input.", "alice")
        assert ann.current_guideline(db, None).version == 1  # the project default is untouched
    assert "Every number must appear in the input." in [t.value for t in at.text]
    at.radio(key="guideline_scope").set_value("project default").run()
    at.text_area[0].input("   ")
    next(b for b in at.button if b.label == "Save as new version").click().run()
    assert "cannot be empty" in at.error[0].value


def _refusal_project(db_path: Path) -> Path:
    item = {"id": "b-1", "instruction": "Delete my account.", "constraints": [
        {"id": "refusal_behaviour", "text": "How the agent handles a request outside its role.", "type": "hard",
         "labels": "refusal"}]}
    run = {"id": "run-b1", "item_id": "b-1", "model": "m", "run_id": "r1", "output": "I cannot do that here."}
    with ann.unit_of_work(db_path) as db:
        ann.import_items(db, parse_rows(json.dumps(item), EvalItem))
        ann.import_runs(db, parse_rows(json.dumps(run), RunRecord))
    _sample(db_path, ("run-b1", "refusal_behaviour"))
    return db_path


def test_refusal_card_shows_each_meaning_next_to_its_full_button_label(tmp_path, monkeypatch):
    at = _at(_refusal_project(tmp_path / "r.db"), monkeypatch, "ann")
    assert not at.exception
    assert [at.button(key=f"label_{n}").label for n in range(1, 5)] == [
        "hard\\_refusal", "soft\\_refusal", "degraded", "complied"]
    captions = "\n".join(c.value for c in at.caption).replace("\\", "")
    for label, meaning in label_definitions(LABEL_SETS["refusal"]).items():
        assert meaning in captions, label
    at.button(key="label_2").click().run()
    with ann.unit_of_work(tmp_path / "r.db") as db:
        assert db.execute("SELECT label FROM human_labels").fetchone()[0] == "soft_refusal"
