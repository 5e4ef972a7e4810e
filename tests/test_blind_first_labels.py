"""`blind_first_labels` (each reviewer's first event on a pair, when it is a blind label) read in one scan equals its
SQL definition (`BLIND_FIRST_SQL`), row for row and in order, on the attacks it exists for: a blind row after the same
reviewer's non-blind label, a change, an undo, a label given again, rows stored under explicit ids below older ones,
`blind` stored as 0, 2, 1.0 and text (issue 16.2)."""

from __future__ import annotations

from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.store import _labels  # house: private (the SQL definition lives there)
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_one_scan_equals_the_sql_definition(tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    assert main(["--db", str(path), "demo"]) == 0
    assert main(["--db", str(path), "import", "labels", str(REPO / "data" / "demo_labels.jsonl")]) == 0
    with ann.unit_of_work(path) as db:
        assert ann.blind_first_labels(db) == list(db.query(_labels.BLIND_FIRST_SQL))
        pairs = [tuple(r) for r in db.execute("SELECT run_record_id, constraint_id FROM samples LIMIT 8")]
        top = db.execute("SELECT max(id) FROM human_labels").fetchone()[0]
        rows = [
            # (pair, reviewer, event, label, blind, explicit id)
            (pairs[0], "r1", "label", "pass", 0, None), (pairs[0], "r1", "label", "fail", 1, None),  # not blind first
            (pairs[1], "r1", "label", "pass", 1, None), (pairs[1], "r1", "change", "fail", 0, None),
            (pairs[1], "r1", "undo", None, 0, None), (pairs[1], "r1", "label", "pass", 1, None),
            (pairs[2], "r2", "change", "pass", 1, None), (pairs[2], "r2", "label", "pass", 1, None),
            (pairs[3], "r3", "label", "fail", 2, None), (pairs[4], "r3", "label", "fail", 1.0, None),
            (pairs[5], "r3", "label", "fail", "1", None), (pairs[5], "r4", "label", "pass", "yes", None),
            # a later row for r5 first, then one stored under an id below it: the smaller id is the first event
            (pairs[6], "r5", "label", "pass", 1, top + 1000), (pairs[6], "r5", "label", "fail", 0, top + 500),
            (pairs[7], "r6", "label", "pass", 0, top + 2000), (pairs[7], "r6", "label", "fail", 1, top + 1500),
        ]
        with ann.write(db):
            for (rid, cid), reviewer, event, label, blind, vid in rows:
                db.execute("INSERT INTO human_labels (id, run_record_id, constraint_id, reviewer, event, label, blind,"
                           " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'x')", [vid, rid, cid, reviewer, event, label,
                                                                             blind])
        got = ann.blind_first_labels(db)
        assert got == list(db.query(_labels.BLIND_FIRST_SQL))
        mine = {(r["reviewer"], (r["run_record_id"], r["constraint_id"])): r["label"] for r in got if r["reviewer"].startswith("r")}
        assert (("r1", pairs[0]) not in mine and mine[("r1", pairs[1])] == "pass"
                and ("r2", pairs[2]) not in mine and ("r3", pairs[3]) not in mine
                and mine[("r3", pairs[4])] == "fail" and ("r5", pairs[6]) not in mine
                and mine[("r6", pairs[7])] == "fail")
