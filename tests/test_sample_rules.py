"""`sample_rules` (the rules each sampled pair was drawn under) equals the plain definition, a set of rules per pair
in the order the table is read (the same query), when pairs carry several rules and rows are stored out of order
(issue 16.2: it shares one frozenset per rule set instead of building a set and a frozenset per pair)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main


def _plain(db) -> dict:
    out: dict = defaultdict(set)
    for rid, cid, rule in db.execute("SELECT run_record_id, constraint_id, rule FROM samples"):
        out[(rid, cid)].add(rule)
    return {p: frozenset(r) for p, r in out.items()}


def test_sample_rules_equal_the_plain_definition(tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    assert main(["--db", str(path), "demo"]) == 0
    with ann.unit_of_work(path) as db:
        rules = ann.sample_rules(db)
        assert rules == _plain(db) and list(rules) == list(_plain(db))
        assert any(len(r) > 1 for r in rules.values()), "the demo's sample should give some pair two rules"
        # a pair given a third rule by a row stored last, and a pair sampled by a rule no other pair has
        rid, cid = next(p for p, r in rules.items() if len(r) > 1)
        other = next(p for p, r in rules.items() if len(r) == 1)
        with ann.write(db):
            for pair, rule in (((rid, cid), "paired:x"), (other, "zz-rule")):
                db.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                           " SELECT run_record_id, constraint_id, ?, stratum, reason, seed, drawn_at FROM samples"
                           " WHERE run_record_id = ? AND constraint_id = ? LIMIT 1", [rule, *pair])
        again = ann.sample_rules(db)
        assert again == _plain(db) and list(again) == list(_plain(db))
        assert again[(rid, cid)] == rules[(rid, cid)] | {"paired:x"}
        assert again[other] == rules[other] | {"zz-rule"}
        assert all(type(p).__name__ == "Pair" and p.run_record_id == p[0] for p in again)
        # pairs with the same rules share one set; one pair's rules
        assert len({id(r) for r in again.values()}) == len(set(again.values()))
        assert ann.sample_rules(db, ann.Pair(rid, cid)) == {(rid, cid): again[(rid, cid)]}
