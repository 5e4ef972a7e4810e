"""Review queue: who gets which pair, blind reveal, changes and undo, concurrent reviewers."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from judgecal import annotations as ann
from conftest import HOSTILE_OUTPUT, RUBRIC_SHA


def _drain(db, reviewer: str, label: str = "pass") -> list[ann.Pair]:
    queue = ann.open_queue(db, reviewer)
    done = []
    while (pair := ann.next_pair(db, queue)) is not None:
        assert pair not in done, "a reviewer never gets the same pair twice"
        ann.record_label(db, reviewer, pair, label, seconds_spent=1.0)
        done.append(pair)
    return done


def test_orders_differ_per_reviewer_and_are_stable(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        a1, a2, b = ann.reviewer_order(db, "ann"), ann.reviewer_order(db, "ann"), ann.reviewer_order(db, "bob")
    assert a1 == a2 and sorted(a1) == sorted(b) and a1 != b
    assert len(a1) == 16  # every semantic pair, rate 1.0


def test_random_pairs_come_in_draw_order_then_unstable_targeted_pairs(project_db):
    # issue 10 changes this test's rule (it was "unstable pairs first"): the queue serves each population's random
    # pairs in draw order, so labels fill the counted prefix; targeted-only pairs follow, unstable ones first.
    with ann.unit_of_work(project_db) as db:
        ann.draw_sample(db, rate=0.5, overlap=0)
        orders = ann.draw_orders(db)
        random_pairs = {p for o in orders.values() for p in o}
        unstable = {ann.Pair(*r) for r in db.execute(
            "SELECT run_record_id, constraint_id FROM samples WHERE rule = 'targeted'"
            " AND reason LIKE '%repeats disagree%'")} - random_pairs
        assert unstable, "the fixture's judge repeats disagree on some pairs outside the random sample"
        for reviewer in ("ann", "bob"):
            order = ann.reviewer_order(db, reviewer)
            assert set(order[:len(random_pairs)]) == random_pairs
            assert set(order[len(random_pairs):len(random_pairs) + len(unstable)]) == unstable
            for o in orders.values():  # each population in its own draw order
                assert [p for p in order if p in set(o)] == list(o)


def test_each_pair_once_overlap_pairs_twice_by_different_reviewers(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        overlap = {ann.Pair(*r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule='overlap'")}
        ann_pairs = _drain(db, "ann")
        bob_pairs = _drain(db, "bob")
        assert len(ann_pairs) == 16  # ann came first: every pair
        assert set(bob_pairs) == overlap  # bob gets only the overlap pairs, as their second reviewer
        assert _drain(db, "cat") == []  # nothing left: non-overlap pairs need one label, overlap pairs two


def test_card_is_blind_and_reveal_waits_for_the_label(sampled_db):
    pair = ann.Pair("run-a-2", "grounded")
    with ann.unit_of_work(sampled_db) as db:
        card = ann.review_card(db, pair)
        assert card.constraint.text == "Every fact in the answer comes from the input."
        assert card.constraint.labels == ("pass", "fail")
        assert "judge says" not in repr(card) and "judge-1" not in repr(card)  # no verdict, reason or judge model
        ann.record_label(db, "bob", pair, "fail")
        with pytest.raises(ann.ReviewError, match="blind"):
            ann.reveal(db, "ann", pair)
        saved = ann.record_label(db, "ann", pair, "pass", note="looks grounded", failure_mode=None,
                                 seconds_spent=4.2)
        assert (saved.event, saved.blind, saved.rubric_version_seen) == ("label", True, RUBRIC_SHA)
        shown = ann.reveal(db, "ann", pair)
        (judge,) = shown.judge
        assert judge.labels == ("pass", "pass", "fail") and judge.majority == "pass"
        assert judge.reasons[0] == "judge says pass"
        assert shown.others == ({"reviewer": "bob", "label": "fail", "note": None, "failure_mode": None},)
        # a change after the reveal is a new event, not blind; the first stays
        changed = ann.record_label(db, "ann", pair, "fail", failure_mode="hallucination", seconds_spent=9)
        assert (changed.event, changed.blind) == ("change", False)
        events = [tuple(r) for r in db.execute(
            "SELECT event, label, blind, seconds_spent FROM human_labels WHERE reviewer='ann' ORDER BY id")]
        assert events == [("label", "pass", 1, 4.2), ("change", "fail", 0, 9.0)]


def test_card_of_trajectory_and_hostile_output_is_data(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        traj = ann.review_card(db, ann.Pair("run-b-2", "polite"))
        hostile = ann.review_card(db, ann.Pair("run-a-1", "polite"))
    assert traj.output is None and [s.type for s in traj.trajectory] == ["thought", "action", "observation",
                                                                        "final_answer"]
    assert hostile.output == HOSTILE_OUTPUT  # kept verbatim: escaping is the renderer's job
    assert hostile.input_is_json and '"question"' in hostile.input_text


@pytest.mark.parametrize(("label", "kwargs", "message"), [
    ("maybe", {}, "not in the constraint's label set"),
    ("pass", {"failure_mode": "typo"}, "failure mode"),
], ids=["label-outside-set", "unknown-failure-mode"])
def test_bad_labels_change_nothing(sampled_db, label, kwargs, message):
    with ann.unit_of_work(sampled_db) as db:
        with pytest.raises(ann.ReviewError, match=message):
            ann.record_label(db, "ann", ann.Pair("run-a-1", "polite"), label, **kwargs)
        with pytest.raises(ann.ReviewError, match="reviewer name"):
            ann.record_label(db, "  ", ann.Pair("run-a-1", "polite"), "pass")
        assert ann.table_counts(db)["human_labels"] == 0


def test_undo_withdraws_latest_label_and_reopens_the_pair(sampled_db):
    with ann.unit_of_work(sampled_db) as db:
        queue = ann.open_queue(db, "ann")
        first = ann.next_pair(db, queue)
        ann.record_label(db, "ann", first, "pass")
        second = ann.next_pair(db, queue)
        ann.record_label(db, "ann", second, "fail")
        assert ann.undo_last(db, "ann") == second
        assert ann.is_open(db, "ann", second) and ann.my_label(db, "ann", second) is None
        assert ann.undo_last(db, "ann") == first
        assert ann.undo_last(db, "ann") is None
        assert [tuple(r) for r in db.execute("SELECT event, blind FROM human_labels ORDER BY id")] == [
            ("label", 1), ("label", 1), ("undo", 0), ("undo", 0)]
        # relabelling after an undo is a label again, but not blind: the verdict was shown after the first label
        again = ann.record_label(db, "ann", second, "pass")
        assert (again.event, again.blind) == ("label", False)
        assert db.execute("SELECT blind FROM human_labels WHERE id = ?", [again.id]).fetchone()[0] == 0


def test_queue_picks_up_new_samples(project_db):
    with ann.unit_of_work(project_db) as db:
        ann.draw_sample(db, rate=0.1, overlap=0)
        queue = ann.open_queue(db, "ann")
        n = len(_drain(db, "ann"))
        ann.draw_sample(db, rate=0.5, overlap=0)
        more = []
        while (p := ann.next_pair(db, queue)) is not None:
            ann.record_label(db, "ann", p, "pass")
            more.append(p)
        assert n + len(more) == len({ann.Pair(*r) for r in db.execute(
            "SELECT run_record_id, constraint_id FROM samples")})


def _label_all(path: str, reviewer: str, barrier) -> int:
    with ann.unit_of_work(path) as db:
        pairs = [ann.Pair(*r) for r in db.execute("SELECT DISTINCT run_record_id, constraint_id FROM samples")]
    barrier.wait()
    for p in pairs:  # a connection per unit of work, as the app does
        with ann.unit_of_work(path) as db:
            ann.record_label(db, reviewer, p, "pass", seconds_spent=0.1)
    return len(pairs)


def test_two_reviewers_in_two_processes_lose_nothing(sampled_db: Path):
    ctx = mp.get_context("spawn")
    barrier = ctx.Manager().Barrier(2)
    with ctx.Pool(2) as pool:
        counts = pool.starmap(_label_all, [(str(sampled_db), "ann", barrier), (str(sampled_db), "bob", barrier)])
    with ann.unit_of_work(sampled_db) as db:
        by_reviewer = dict(db.execute("SELECT reviewer, count(*) FROM human_labels GROUP BY reviewer").fetchall())
    assert by_reviewer == {"ann": counts[0], "bob": counts[1]} and counts[0] == 16
