"""Assignment of the review sample to reviewers (issue 12.4): round-robin and by constraint, overlap pairs to a
second, different reviewer who is blind to the first label, per-reviewer progress, and the CLI."""

from __future__ import annotations

from collections import Counter

import pytest

from judgecal import annotations as ann
from judgecal.cli import main

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")


def _drain(db, reviewer: str, label: str = "pass") -> list[ann.Pair]:
    queue = ann.open_queue(db, reviewer)
    done = []
    while (pair := ann.next_pair(db, queue)) is not None:
        ann.record_label(db, reviewer, pair, label)
        done.append(pair)
    return done


def _overlap(db) -> set[ann.Pair]:
    return {ann.Pair(*r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule='overlap'")}


def test_round_robin_deals_each_population_in_draw_order(sampled_db):
    names = ("ann", "bob", "cat")
    with ann.unit_of_work(sampled_db) as db:
        s = ann.assign(db, names)
        slots = ann.standing_assignments(db)
        overlap = _overlap(db)
        assert s.assigned == 16 + len(overlap) and s.unassigned == 0
        load = Counter(r for v in slots.values() for r in v.values())
        assert max(load.values()) - min(load.values()) <= 1, load  # balanced over all slots
        # dealt in draw order (populations one after the other), one reviewer after the next
        rows = db.execute("SELECT run_record_id, constraint_id, slot, reviewer FROM assignments ORDER BY id").fetchall()
        assert [r[3] for r in rows] == [names[i % 3] for i in range(len(rows))]
        dealt = [ann.Pair(r[0], r[1]) for r in rows if r[2] == 1]
        orders = ann.draw_orders(db)
        assert dealt == [p for key in sorted(orders) for p in orders[key]]
        for pair in overlap:
            assert set(slots[pair]) == {1, 2} and slots[pair][1] != slots[pair][2]
        assert all(set(v) == {1} for p, v in slots.items() if p not in overlap)
        # each reviewer is served exactly their pairs, in their own order (the draw order, unchanged)
        for name in names:
            mine = {p for p, v in slots.items() if name in v.values()}
            served = _drain(db, name)
            assert set(served) == mine
            order = ann.reviewer_order(db, name)
            assert served == [p for p in order if p in mine]
        assert _drain(db, "dan") == []  # an outsider gets nothing: every slot is held


def test_by_constraint_gives_each_constraint_one_reviewer_and_overlap_to_the_other(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        ann.assign(db, ["ann", "bob"], by="constraint")
        slots = ann.standing_assignments(db)
        owner = {}
        for pair, v in slots.items():
            owner.setdefault(pair.constraint_id, v[1])
            assert v[1] == owner[pair.constraint_id]
            if 2 in v:
                assert v[2] != v[1]
        assert set(owner.values()) == {"ann", "bob"}  # 8 pairs each: one constraint each


def test_overlap_pair_goes_to_a_different_reviewer_even_after_an_early_label(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        pair = sorted(_overlap(db))[0]
        ann.record_label(db, "ann", pair, "fail")  # labelled before any assignment
        ann.assign(db, ["ann", "bob"])
        slots = ann.standing_assignments(db)[pair]
        assert sorted(slots.values()) == ["ann", "bob"]
        method = db.execute("SELECT method FROM assignments WHERE run_record_id=? AND constraint_id=? AND"
                            " reviewer='ann'", list(pair)).fetchone()[0]
        assert method == "label"
        assert pair not in _drain(db, "ann")  # never twice
        assert pair in _drain(db, "bob")


def test_second_reviewer_is_blind_to_the_first_label(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        ann.assign(db, ["ann", "bob"])
        slots = ann.standing_assignments(db)
        pair = next(p for p in sorted(_overlap(db)) if slots[p][1] == "ann")
        ann.record_label(db, "ann", pair, "fail", note="ANN-SECRET-NOTE", failure_mode="omission")
        queue = ann.open_queue(db, "bob")
        while (p := ann.next_pair(db, queue)) != pair:
            assert p is not None, "bob is served the overlap pair"
            ann.record_label(db, "bob", p, "pass")
        card = ann.review_card(db, pair)
        assert "ANN-SECRET-NOTE" not in repr(card) and "ann" not in repr(card.rules) and "'fail'" not in repr(
            card._replace(constraint=None))
        with pytest.raises(ann.ReviewError, match="blind"):
            ann.reveal(db, "bob", pair)
        assert pair in ann.awaiting_blind_label(db, "bob")  # the Calibration page hides it from bob too
        ann.record_label(db, "bob", pair, "pass")
        assert ann.reveal(db, "bob", pair).others[0]["label"] == "fail"
        assert ann.overlap_progress(db).done == 1


def test_assignment_never_changes_which_pairs_count(project_db):
    # Same labels given with and without an assignment: the counted pairs and draw orders are identical.
    results = []
    for assigned in (False, True):
        path = project_db.parent / f"copy{assigned}.db"
        path.write_bytes(project_db.read_bytes())
        with ann.unit_of_work(path) as db:
            ann.draw_sample(db, rate=0.5, overlap=0.5, seed=3)
            if assigned:
                ann.assign(db, ["ann", "bob"])
            before = ann.draw_orders(db)
            for name in ("ann", "bob"):
                _drain(db, name)
            results.append((before, ann.counted_pairs(db).pairs))
    assert results[0] == results[1]


def test_assign_is_idempotent_and_reassign_moves_only_open_slots(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        ann.assign(db, ["ann", "bob"])
        n = db.execute("SELECT count(*) FROM assignments").fetchone()[0]
        again = ann.assign(db, ["ann", "bob"])
        assert again.assigned == 0 and db.execute("SELECT count(*) FROM assignments").fetchone()[0] == n
        done = [ann.next_pair(db, ann.open_queue(db, "ann"))]
        ann.record_label(db, "ann", done[0], "pass")
        ann.assign(db, ["cat", "dan"], reassign=True)
        after = ann.standing_assignments(db)
        assert "ann" in after[done[0]].values()  # a labelled slot stays with its reviewer
        holders = {r for v in after.values() for r in v.values()}
        assert "bob" not in holders
        progress = {p.reviewer: p for p in ann.assignment_progress(db)}
        assert progress["ann"].assigned == 1 and progress["ann"].done == 1
        assert ann.reviewer_progress(db, "ann") == progress["ann"]
        assert ann.reviewer_progress(db, "cat") == progress["cat"] and progress["cat"].done == 0
        assert ann.reviewer_progress(db, "bob") is None


@pytest.mark.parametrize("reviewers,by,message", [
    (["ann"], "round-robin", "second, different reviewer"),
    (["ann", "ann"], "round-robin", "named twice"),
    (["ann", " "], "round-robin", "empty name"),
    (["ann", "bob"], "alphabetical", "unknown assignment method"),
], ids=["one-reviewer-with-overlap", "duplicate", "empty-name", "bad-method"])
def test_bad_assignments_change_nothing(sampled_db, reviewers, by, message):
    with ann.unit_of_work(sampled_db) as db:
        with pytest.raises(ann.AssignmentError, match=message):
            ann.assign(db, reviewers, by=by)
        assert db.execute("SELECT count(*) FROM assignments").fetchone()[0] == 0


def test_cli_assign_prints_progress_and_refuses_bad_input(sampled_db, capsys):
    assert main(["--db", str(sampled_db), "assign"]) == 0
    assert "no pairs are assigned yet" in capsys.readouterr().out
    assert main(["--db", str(sampled_db), "assign", "--reviewers", "ann"]) == 2
    assert "second, different reviewer" in capsys.readouterr().err
    assert main(["--db", str(sampled_db), "assign", "--reviewers", "ann,bob,cat", "--by", "constraint"]) == 0
    out = capsys.readouterr().out
    assert "constraint:" in out and "human–human overlap: 0 of" in out
    for name in ("ann", "bob", "cat"):
        assert f"\n{name} " in out


def test_cli_assign_reassign_needs_reviewers(sampled_db, capsys):
    assert main(["--db", str(sampled_db), "assign", "--reassign"]) == 2
    assert "need --reviewers" in capsys.readouterr().err


def test_cli_assign_needs_a_sample(project_db, capsys):
    assert main(["--db", str(project_db), "assign", "--reviewers", "ann,bob"]) == 2
    assert "judgecal sample" in capsys.readouterr().err


def test_review_page_shows_my_assignment_and_the_overlap_target(sampled_db, monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    with ann.unit_of_work(sampled_db) as db:
        ann.assign(db, ["ann", "bob"])
        mine = ann.reviewer_progress(db, "ann")
        target = ann.overlap_progress(db).target
    monkeypatch.setenv("JUDGECAL_DB", str(sampled_db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    assert f"Assigned to you: 0 of {mine.assigned} done" in " ".join(c.value for c in at.caption)
    assert f"human–human overlap: 0 of {target} pairs" in at.get("progress")[0].proto.text
    at.button(key="label_1").click().run()
    assert f"Assigned to you: 1 of {mine.assigned} done" in " ".join(c.value for c in at.caption)
    with ann.unit_of_work(sampled_db) as db:
        (row,) = db.execute("SELECT run_record_id, constraint_id FROM human_labels").fetchall()
        assert "ann" in ann.standing_assignments(db)[ann.Pair(*row)].values()  # served one of her own pairs
