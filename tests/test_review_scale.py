"""The Review page's rerun path at scale (issue 16.3): its memoised tables are keyed by `review_version`, an O(1)
version of the sample (largest row id + a delete/update counter kept by migration 016's triggers), and what it shows
equals the slow definitions: `review_quota` == `quota_progress`, `overlap_progress` == a count over the sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.review import _sampling  # house: private (patched: the memo key is read where it lives)


def _assert_page_equals_slow(db) -> None:
    assert ann.review_quota(db) == ann.quota_progress(db)
    overlap = {tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'overlap'")}
    assert ann.overlap_pairs(db) == overlap
    assert ann.overlap_progress(db).target == len(overlap)


def test_review_quota_follows_labels_redraws_and_updates(demo: Path, any_seed: None) -> None:
    with ann.unit_of_work(demo) as db:
        assert any(r.labelled for r in ann.review_quota(db)), "the demo's labels should count somewhere"
        _assert_page_equals_slow(db)
        _assert_page_equals_slow(db)  # served from the memo
        # A new blind label: only the prefixes move, recomputed on every call.
        queue = ann.open_queue(db, "new-reviewer")
        pair = ann.next_pair(db, queue)
        ann.record_label(db, "new-reviewer", pair, ann.pair_label_sets(db)[pair][0], seconds_spent=1.0)
        _assert_page_equals_slow(db)
        # Attack on the memo key: delete the sample and draw it again under other seeds and overlap shares. The rows
        # come back under the same row ids (the largest one included); the counter of deletes must move the key.
        last = ann.last_draw(db)
        for seed, overlap in ((last.seed + 1, 0.5), (last.seed + 2, 0.1), (last.seed, last.overlap)):
            before = ann.review_version(db)
            with ann.write(db):
                db.conn.execute("DELETE FROM samples")
            ann.draw_sample(db, rate=last.rate, overlap=overlap, seed=seed, include_unjudged=last.include_unjudged)
            assert ann.review_version(db) != before
            _assert_page_equals_slow(db)
        # An update in place (a repair reseeding a population's first row) changes its whole draw order.
        order = ann.counted_pairs(db).order
        with ann.write(db):
            db.conn.execute("UPDATE samples SET seed = seed + 7 WHERE rule = 'random'")
        assert ann.counted_pairs(db, ann.review_version(db)).order != order
        _assert_page_equals_slow(db)


def test_review_version_moves_with_the_sample_and_not_with_labels(demo: Path) -> None:
    with ann.unit_of_work(demo) as db:
        v0 = ann.review_version(db)
        assert v0[0] == "rewrites", "migration 016 is applied to every project"
        pair = ann.Pair(*db.execute("SELECT run_record_id, constraint_id FROM samples LIMIT 1").fetchone())
        ann.record_label(db, "someone-new", pair, ann.pair_label_sets(db)[pair][0])
        assert ann.review_version(db) == v0
        with ann.write(db):
            row = db.execute("SELECT rowid, * FROM samples ORDER BY rowid DESC LIMIT 1").fetchone()
            db.conn.execute("DELETE FROM samples WHERE rowid = ?", [row[0]])
        v1 = ann.review_version(db)
        assert v1 != v0
        with ann.write(db):  # the same row back: same largest row id, same content, but the key moved on
            db.conn.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                            " VALUES (?,?,?,?,?,?,?)", row[1:])
        v2 = ann.review_version(db)
        assert v2 != v1 and v2[1] == v0[1]
        with ann.write(db):
            db.conn.execute("UPDATE samples SET reason = reason WHERE rowid = ?", [row[0]])
        assert ann.review_version(db) != v2


def test_a_page_rerun_never_aggregates_the_sample(demo: Path, monkeypatch) -> None:
    """What the Review page calls on each rerun keys its memo by `review_version`, never by `_data_version` (an
    aggregate over every sample row: ~150 ms of each rerun at 1M run records)."""
    with ann.unit_of_work(demo) as db:
        queue = ann.open_queue(db, "rerun-reviewer")
        calls = []
        real = _sampling._data_version
        monkeypatch.setattr(_sampling, "_data_version", lambda db: calls.append(1) or real(db))
        pair = ann.next_pair(db, queue)
        rows = ann.review_quota(db)
        ann.review_progress(db, rows)
        ann.overlap_progress(db)
        ann.reviewer_progress(db, "rerun-reviewer")
        ann.review_card(db, pair)
        assert calls == []


def test_an_unmigrated_read_only_copy_falls_back_to_the_full_aggregate(demo: Path) -> None:
    with ann.unit_of_work(demo) as db:
        with ann.write(db):
            db.conn.execute("DROP TABLE table_rewrites")
        assert ann.review_version(db) == _sampling._data_version(db)
        assert ann.review_quota(db) == ann.quota_progress(db)


def _slow_order(db, reviewer: str) -> list:
    """`reviewer_order` as it was written before the queue built it lazily (issue 16.3): the whole sample read,
    hashed and sorted at once. The reference the lazy walk must equal pair for pair."""
    import hashlib

    unstable, targeted = [], []
    for rid, cid, rule, reason in db.execute("SELECT run_record_id, constraint_id, rule, reason FROM samples"):
        if rule == "targeted":
            (unstable if "repeats disagree" in (reason or "") else targeted).append(ann.Pair(rid, cid))

    def mine(text: str) -> bytes:
        return hashlib.sha256(f"{reviewer}\x1f{text}".encode()).digest()

    random_order = [pair for _pos, _pop, pair in sorted(
        (pos, mine(_sampling.population_key(*pop)), pair)
        for pop, order in ann.draw_orders(db).items() for pos, pair in enumerate(order))]
    out: dict = {}
    for group in (random_order, ann.paired_order(db), sorted(unstable, key=lambda p: mine(f"{p[0]}\x1f{p[1]}")),
                  sorted(targeted, key=lambda p: mine(f"{p[0]}\x1f{p[1]}"))):
        for pair in group:
            out.setdefault(pair, None)
    return list(out)


@pytest.mark.parametrize("chunk", [1, 3, 256])
def test_the_lazy_order_equals_the_whole_sample_sorted(demo: Path, monkeypatch, chunk: int) -> None:
    """Pair for pair, for several reviewers, with the paired sample of the demo's two runs added (it overlaps the
    random sample: those pairs are served once, in the random part) and chunk sizes that cut the interleave
    anywhere."""
    from judgecal.annotations.review import _queue  # house: private (the chunk size)

    monkeypatch.setattr(_queue, "_CHUNK", chunk)
    with ann.unit_of_work(demo) as db:
        ann.draw_paired(db, "demo-run-a", "demo-run-b", rate=0.5)
        rules = ann.sample_rules(db)
        assert any({"paired", "random"} <= r for r in rules.values()), "the attack needs a pair in both parts"
        assert any("targeted" in r and "random" not in r for r in rules.values())
        for reviewer in ("ann", "bob", "demo-author", "x" * 40):
            slow = _slow_order(db, reviewer)
            assert ann.reviewer_order(db, reviewer) == slow
            assert len(slow) == len(set(slow)) == len(rules)
            # walking a queue serves the open pairs of the same order, and it starts with a part of it only
            queue = ann.open_queue(db, reviewer)
            assert ann.next_pair(db, queue) == next((p for p in slow if ann.is_open(db, reviewer, p)), None)
            if chunk == 1 and reviewer == "ann":
                assert len(queue.order) < len(slow)


def test_a_queue_starts_again_when_the_sample_is_redrawn(unlabelled_demo: Path, any_seed: None) -> None:
    """A redraw into the same row ids (delete + draw under another seed) must restart the walk: its order is another.
    (On the unlabelled demo: on the labelled one every pair of a redraw is closed for a new reviewer, since a pair one
    reviewer labelled is never drawn as an overlap pair, wave 15.)"""
    with ann.unit_of_work(unlabelled_demo) as db:
        queue = ann.open_queue(db, "ann")
        first = ann.next_pair(db, queue)
        last = ann.last_draw(db)
        with ann.write(db):
            db.conn.execute("DELETE FROM samples")
        ann.draw_sample(db, rate=last.rate, overlap=last.overlap, seed=last.seed + 5,
                        include_unjudged=last.include_unjudged)
        slow = _slow_order(db, "ann")
        assert ann.next_pair(db, queue) == next(p for p in slow if ann.is_open(db, "ann", p))
        assert queue.order[:len(queue.order)] == slow[:len(queue.order)]
        assert first is not None
