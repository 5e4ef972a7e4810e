"""The page-rerun fast path of the counted pairs and quotas (memoised derived tables, annotations.review._sampling._memo)
equals the slow definition: the draw order recomputed from scratch (a sha256 rank per random pair under the
population's committed seed, docs/decisions.md "counted pairs"), and the quotas recomputed from every verdict."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.review import _sampling  # house: private (patched: the memo is read where it lives)
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


def _slow_counted(db) -> dict[tuple[str, str], list]:
    """The rule written out again, nothing memoised: per constraint × model, the random pairs sorted by draw rank,
    cut before the first pair without a blind first label."""
    seeds = _sampling.committed_seeds(db)
    model = dict(db.execute("SELECT id, model FROM run_records").fetchall())
    pops = defaultdict(list)
    for rid, cid in db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random'"):
        pops[(cid, model[rid])].append(ann.Pair(rid, cid))
    blind = {(r["run_record_id"], r["constraint_id"]) for r in ann.blind_first_labels(db)}
    out = {}
    for pop, pairs in pops.items():
        order = sorted(pairs, key=lambda p: _sampling.draw_rank(seeds[pop], pop[0], pop[1], p))
        k = 0
        while k < len(order) and order[k] in blind:
            k += 1
        out[pop] = order[:k]
    return out


def _demo(tmp_path: Path, *, labels: bool = True) -> Path:
    db_path = tmp_path / "demo.db"
    assert main(["--db", str(db_path), "demo"]) == 0
    if labels:
        assert main(["--db", str(db_path), "import", "labels", str(REPO / "data" / "demo_labels.jsonl")]) == 0
    return db_path


def _assert_fast_equals_slow(db) -> None:
    slow = _slow_counted(db)
    fast = ann.counted_pairs(db)
    assert fast.pairs == frozenset(p for ps in slow.values() for p in ps)
    assert {k: v for k, v in fast.prefix.items()} == {k: len(v) for k, v in slow.items()}
    # Until verdicts arrive after the draw, the stored quotas with today's labels equal the exact coverage.
    assert not ann.sample_is_stale(db)
    assert ann.quota_progress(db) == ann.coverage(db, ann.last_draw(db).rate, include_unjudged=True)


def test_fast_path_equals_the_slow_definition_on_the_demo(tmp_path):
    with ann.unit_of_work(_demo(tmp_path)) as db:
        assert ann.counted_pairs(db).pairs, "the demo's labels should make some pairs count"
        _assert_fast_equals_slow(db)
        _assert_fast_equals_slow(db)  # the second read is served from the memo


def test_memo_follows_a_redraw_into_the_same_row_ids(tmp_path, any_seed):
    """Attack on the memo: delete the sample and draw it again under another seed. The row ids and the row count
    come back the same; the counted pairs must follow the new order, not the memoised one."""
    with ann.unit_of_work(_demo(tmp_path)) as db:
        before = ann.counted_pairs(db).pairs
        last = ann.last_draw(db)
        for seed in (last.seed + 1, last.seed + 2, last.seed):
            with ann.write(db):
                db.conn.execute("DELETE FROM samples")
            ann.draw_sample(db, rate=last.rate, overlap=last.overlap, seed=seed,
                            include_unjudged=last.include_unjudged)
            _assert_fast_equals_slow(db)
        assert ann.counted_pairs(db).pairs == before


def test_memo_follows_new_labels_and_verdicts(tmp_path):
    with ann.unit_of_work(_demo(tmp_path, labels=False)) as db:
        _assert_fast_equals_slow(db)
        # A blind label on the first uncounted pair of a population: the memoised order stays, the prefix grows.
        counted = ann.counted_pairs(db)
        pop, order = next((k, o) for k, o in sorted(counted.order.items()) if counted.prefix[k] < len(o))
        pair = order[counted.prefix[pop]]
        ann.record_label(db, "new-reviewer", pair, ann.pair_label_sets(db)[pair][0], seconds_spent=1.0)
        assert ann.counted_pairs(db).prefix[pop] > counted.prefix[pop]
        _assert_fast_equals_slow(db)
        # A new rubric version judges every pair: the quotas' strata change with the verdicts.
        sha = "d" * 64
        with ann.write(db):
            db.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                       [sha, "memo", 1, "t", "2026-11-01T00:00:00Z"])
            db.conn.executemany(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                " created_at) VALUES (?,?,?,?,?,?,?)",
                [(p[0], p[1], sha, "j", 0, ann.pair_label_sets(db)[p][0], "2026-11-01T00:00:00Z")
                 for p in ann.population_pairs(db)])
        ann.top_up_sample(db)
        _assert_fast_equals_slow(db)
        assert any(r.rubric_sha256 == sha for r in ann.quota_progress(db))


def test_a_rerun_with_nothing_changed_recomputes_nothing(tmp_path, monkeypatch):
    with ann.unit_of_work(_demo(tmp_path)) as db:
        ann.quota_progress(db)
        calls = []
        for name in ("_draw_orders", "_random_pair_versions_uncached"):
            real = getattr(_sampling, name)
            monkeypatch.setattr(_sampling, name, lambda db, real=real, name=name: calls.append(name) or real(db))
        ann.quota_progress(db)
        ann.counted_pairs(db)
        assert calls == []
        with ann.write(db):
            db.conn.execute("DELETE FROM samples WHERE rowid = (SELECT max(rowid) FROM samples WHERE rule = 'random')")
        ann.counted_pairs(db)
        assert calls == ["_draw_orders"]
