"""The Review screen when what a reviewer acts on is older than the database (a review of the app, wave 18): a key
press that reaches the server before the next card is drawn, and a card another reviewer closed while it was read.
Through Streamlit's AppTest: a button's callback keeps the arguments of the run that drew it until the next run, as
in the browser, where a second key press 20-60 ms after the first named the pair just labelled."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from test_app_pages import _app, _sample_only  # house: private


def _shown(at: AppTest) -> ann.Pair:
    """The pair on the card: its caption names the run record, its constraint caption the constraint."""
    caps = [c.value.replace("\\", "") for c in at.caption]
    rid = next(re.search(r"run record (\S+) ·", c).group(1) for c in caps if c.startswith("Item "))
    cid = next(c.split(" · ")[1] for c in caps if c.startswith("Constraint · "))
    return ann.Pair(rid, cid)


def _events(db: Path) -> list[tuple]:
    with ann.unit_of_work(db) as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT run_record_id, constraint_id, reviewer, event, label, blind FROM human_labels ORDER BY id")]


def test_a_second_key_press_on_the_pair_just_labelled_changes_nothing(project_db: Path, monkeypatch):
    """Pressing 1 twice fast stored a `change` (blind=0) on the pair labelled by the first press, and 1 then 2 changed
    that pair's label to the second key's: the buttons of a card only ever make a first label."""
    pairs = [ann.Pair("run-a-2", "grounded"), ann.Pair("run-a-4", "grounded")]
    _sample_only(project_db, *pairs)
    at = _app(project_db, monkeypatch)
    pair = _shown(at)
    other = next(p for p in pairs if p != pair)
    # the first press reached the server and saved the label; the second arrives before the next card is drawn
    with ann.unit_of_work(project_db) as db:
        ann.record_label(db, "ann", pair, "pass")
    at.button(key="label_2").click().run()
    assert not at.exception
    assert _events(project_db) == [(*pair, "ann", "label", "pass", 1)]
    assert any("already labelled" in t.value.replace("\\", "") for t in at.toast)
    assert _shown(at) == other  # the next pair, still unlabelled: the next press labels it
    at.button(key="label_2").click().run()
    assert _events(project_db)[1:] == [(*other, "ann", "label", "fail", 1)]


def test_a_card_closed_by_another_reviewer_is_replaced_with_a_word_and_the_typed_note(project_db: Path, monkeypatch):
    """Two reviewers read the same random pair (it needs one label); bob labels it first. When ann's page next ran
    (she typed a note and left the field), her card was silently another pair and her note was gone."""
    pairs = [ann.Pair("run-a-2", "grounded"), ann.Pair("run-a-4", "grounded")]
    _sample_only(project_db, *pairs)
    at = _app(project_db, monkeypatch)
    pair = _shown(at)
    with ann.unit_of_work(project_db) as db:
        ann.record_label(db, "bob", pair, "fail")
    at.text_input(key=f"note:{pair[0]}:{pair[1]}").input("the date is invented").run()
    assert not at.exception
    assert _shown(at) != pair
    said = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert f"{pair[0]} · {pair[1]}" in said and "the date is invented" in said
    assert "bob" not in said and "fail" not in said  # still blind: nothing of bob's label
    assert _events(project_db) == [(*pair, "bob", "label", "fail", 1)]
    at.button(key="skip").click().run()  # the word is said once
    assert not at.warning


def test_the_card_says_its_keys_and_how_to_leave_the_note_field(project_db: Path, monkeypatch):
    """Keyboard-only labelling with a note (a review of the app, wave 18): after typing a note, 1/2 type into the
    field and Escape does not leave it; Tab twice reaches the buttons. The card says so, beside its keys."""
    _sample_only(project_db, ("run-a-2", "grounded"))
    at = _app(project_db, monkeypatch)
    keys = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Keys:")]
    assert keys and "1–2 label" in keys[0] and "S skip" in keys[0] and "U undo" in keys[0] and "Tab" in keys[0]


def test_undo_says_what_it_withdrew_or_that_there_was_nothing(project_db: Path, monkeypatch):
    """U is one key: pressed with nothing to undo it did nothing and said nothing, and pressed by accident after a
    reload it withdrew the reviewer's latest label (maybe from another session) without naming it."""
    _sample_only(project_db, ("run-a-2", "grounded"), ("run-a-4", "grounded"))
    at = _app(project_db, monkeypatch)
    at.button(key="undo").click().run()
    assert not at.exception and _events(project_db) == []
    assert [t.value.replace("\\", "") for t in at.toast] == ["Nothing to undo: you have no label standing."]
    pair = _shown(at)
    at.button(key="label_1").click().run()
    at.button(key="undo").click().run()
    said = [t.value.replace("\\", "") for t in at.toast]
    assert said == [f"Withdrew your label on {pair[0]} · {pair[1]}: label it again."], said
    assert _shown(at) == pair
