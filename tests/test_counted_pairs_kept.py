"""`counted_pairs` without a caller's blind rows reads `kept_blind_first` (kept in the process under the labels'
version, stored across processes) instead of scanning every label (issue 16.2, wave 12: ~0.9 s of the coverage
`sample` prints at a million run records). The counted pairs must be those of a fresh scan whatever happened to the
labels in between: labels added in the app, a change and an undo, and hand SQL that rewrites, deletes or back-fills a
label row (which an in-process memo keyed by row counts alone would miss)."""

from __future__ import annotations

import json

from judgecal import annotations as ann
from judgecal.annotations.review import counted_pairs, draw_orders
from judgecal.annotations.store import blind_first_labels, write

from test_sampling_members import KW
from test_sampling_scale import _project


def _label(db, pair, k: int = 0) -> str:
    """The k-th label of the pair's constraint's label set."""
    row = db.execute("SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.id = ?"
                     " WHERE r.id = ?", [pair[1], pair[0]]).fetchone()
    return json.loads(row[0])[k]


def _same(db) -> frozenset:
    kept = counted_pairs(db)
    fresh = counted_pairs(db, blind=blind_first_labels(db))
    assert kept.prefix == fresh.prefix
    assert kept.pairs == fresh.pairs
    return kept.pairs


def test_counted_pairs_follow_every_change_to_the_labels(tmp_path, any_seed):
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, **KW)
        firsts = [order[:4] for order in draw_orders(db).values() if len(order) >= 4]
        assert firsts
        assert _same(db) == frozenset()
        for order in firsts:  # each population's first three, in draw order: counted
            for pair in order[:3]:
                ann.record_label(db, "ann", pair, _label(db, pair))
        counted = _same(db)
        assert counted == {p for order in firsts for p in order[:3]}
        pair = firsts[0][0]
        ann.record_label(db, "ann", pair, _label(db, pair, 1))  # a change: the blind first label stands
        assert _same(db) == counted
        # hand SQL: the first label made not blind (an update), so its population's prefix ends before it
        with write(db):
            db.execute("UPDATE human_labels SET blind = 0 WHERE id = (SELECT min(id) FROM human_labels)")
        assert pair not in _same(db)
        # a deleted row, then a row written back under a lower id than the largest (a gap a delete left)
        with write(db):
            gone = db.execute("SELECT id FROM human_labels WHERE run_record_id = ? AND constraint_id = ?",
                              list(firsts[-1][1])).fetchone()[0]  # below the largest id: a gap once deleted
            row = db.execute("SELECT * FROM human_labels WHERE id = ?", [gone]).fetchone()
            db.execute("DELETE FROM human_labels WHERE id = ?", [gone])
        assert len(_same(db)) < len(counted)
        ann.record_label(db, "bob", firsts[-1][3], _label(db, firsts[-1][3]))
        with write(db):
            db.conn.execute(f"INSERT INTO human_labels VALUES ({', '.join('?' * len(row))})", tuple(row))
        _same(db)
    with ann.unit_of_work(path) as db:  # a new process: the stored value, or a scan, never a stale one
        _same(db)
