"""Issue 16.2: `draw_sample` counted in SQL, every pair hashed once, and a re-run with nothing new that writes nothing.

The draw order is the statistical promise (seeded, reproducible, a top-up only appends), so the fast draw must write
exactly the rows the per-pair definition wrote, in the same order. `_reference_draw` below is that definition (main's
`draw_sample` before issue 16.2, commit e00aa51, minus the settings row): every test draws with both on copies of one
project and compares every sample row (row id order, stratum, reason, seed) and every stored quota.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sqlite3
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main
from judgecal.annotations.review import _sampling  # house: private
from judgecal.annotations.review._sampling import (  # house: private
    _pairs_with_rule, _rank, _run_scoped, committed_seeds, draw_rank, population_key, population_sizes, quota,
    strata_members, stratum_key, targeted_pairs)
from judgecal.annotations.store import now_iso, write

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")

DATA = Path(__file__).resolve().parents[1] / "data"
V1, V2, V3 = "a" * 64, "b" * 64, "0" * 64  # V3 sorts first: a pair judged by it is recorded in its stratum
STAMP = "2026-11-01T00:00:00Z"


def _reference_draw(db, *, rate, overlap, seed, include_unjudged=True):
    """main's draw (e00aa51): strata read pair by pair from `strata_members`, every pair ranked with `draw_rank`;
    since wave 15 no pair with a label event is drawn as an overlap pair."""
    stamp = now_iso()
    with write(db):
        members = strata_members(db, include_unjudged=include_unjudged)
        population = population_sizes(db)
        seeds = committed_seeds(db)
        scoped = _run_scoped(db)
        random_set = _pairs_with_rule(db, "random") - scoped
        promoted = []
        overlap_set = _pairs_with_rule(db, "overlap")
        targeted_set = _pairs_with_rule(db, "targeted")
        # a pair with a label event, unless two reviewers labelled it blind, is never an overlap pair (wave 15)
        raters = Counter((r["run_record_id"], r["constraint_id"]) for r in ann.blind_first_labels(db))
        labelled = {ann.Pair(*r) for r in db.execute("SELECT run_record_id, constraint_id FROM human_labels")
                    if raters[tuple(r)] < 2}
        new_rows, strata_rows, added = [], [], Counter()
        pops = {}
        for key in sorted(members, key=lambda k: (k.rubric_sha256 is None, k)):
            for p in members[key]:
                pops.setdefault((key.constraint_id, key.model), {}).setdefault(p, key.stratum)
        for cid, model, rid in db.execute(f"SELECT c.id, r.model, r.id {_sampling._SEMANTIC_PAIRS}"):
            if (cid, model) in pops:
                pops[(cid, model)].setdefault(ann.Pair(rid, cid), stratum_key(cid, model, None))
        for pop in sorted(pops):
            pairs = pops[pop]
            pop_seed = seeds.setdefault(pop, seed)
            size = max(len(pairs), population[pop])
            for p in sorted(pairs, key=lambda p: draw_rank(pop_seed, *pop, p))[:quota(rate, size)]:
                if p in scoped and p not in random_set:
                    random_set.add(p)
                    promoted.append(p)
                    new_rows.append((p[0], p[1], "random", pairs[p], None, pop_seed, stamp))
                elif p not in random_set:
                    random_set.add(p)
                    new_rows.append((p[0], p[1], "random", pairs[p], None, pop_seed, stamp))
                    added["random"] += 1
            drawn = [p for p in pairs if p in random_set]
            want_overlap = quota(overlap, len(drawn)) if overlap else 0
            have_overlap = sum(p in overlap_set for p in drawn)
            if have_overlap < want_overlap:
                salt = f"overlap\x1f{population_key(*pop)}"
                fresh = sorted((p for p in drawn if p not in overlap_set and p not in labelled),
                               key=lambda p: _rank(pop_seed, salt, p))
                for p in fresh[:want_overlap - have_overlap]:
                    overlap_set.add(p)
                    new_rows.append((p[0], p[1], "overlap", pairs[p], "second reviewer", pop_seed, stamp))
                    added["overlap"] += 1
        for key in sorted(members, key=lambda k: k.stratum):
            pairs = members[key]
            size = max(len(pairs), population[(key.constraint_id, key.model)])
            strata_rows.append((key.stratum, key.constraint_id, key.model, key.rubric_sha256, len(pairs),
                                sum(p in random_set for p in pairs), quota(rate, size), rate, stamp, size))
        for pair, (stratum, reason) in targeted_pairs(db).items():
            if pair not in targeted_set:
                targeted_set.add(pair)
                new_rows.append((pair[0], pair[1], "targeted", stratum, reason, seed, stamp))
                added["targeted"] += 1
        db.conn.executemany("DELETE FROM samples WHERE run_record_id = ? AND constraint_id = ? AND rule = 'random'",
                            promoted)
        db.conn.executemany("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                            " VALUES (?,?,?,?,?,?,?)", new_rows)
        db.conn.execute("DELETE FROM sample_strata")
        db.conn.executemany("INSERT INTO sample_strata (stratum, constraint_id, model, rubric_sha256, judged, sampled,"
                            " needed, rate, drawn_at, population) VALUES (?,?,?,?,?,?,?,?,?,?)", strata_rows)
    return ann.SampleSummary(len(members), added["random"], added["targeted"], added["overlap"],
                             len(random_set | scoped), len(targeted_set), len(overlap_set))


def _project(path: Path) -> Path:
    """The demo's items and runs (two models, three runs), judged by V1 on 80% of the pairs with ties and errors, by
    V2 on a third, by V3 (sorting first) on a few; one failed run record that a verdict covers anyway."""
    for kind, name in (("evalset", "demo_evalset.jsonl"), ("runs", "demo_runs.jsonl"),
                       ("runs", "demo_boundary_runs.jsonl")):
        assert _import(path, kind, name)
    rng = random.Random(162)
    with ann.unit_of_work(path) as db:
        with write(db):
            failed = next(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a'"))
            failed.update(id="failed-1", output=None, trajectory=None, seq=10_000)
            db["run_records"].insert(failed)
            for sha, version in ((V1, 1), (V2, 2), (V3, 3)):
                db.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                           [sha, "strict", version, f"v{version}", STAMP])
        pairs = sorted(ann.population_pairs(db))
        failed_pair = next((r, c) for c, r in db.execute(
            "SELECT c.id, r.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
            " AND c.check_json IS NULL WHERE r.id = 'failed-1'"))
        rows = []
        for k, pair in enumerate([*pairs, failed_pair]):
            for sha, share in ((V1, 0.8), (V2, 0.33), (V3, 0.05)):
                if rng.random() >= share and pair != failed_pair:
                    continue
                for rep in range(3):
                    label, error = rng.choice(["pass", "fail"]) if k % 9 == 0 else "pass", None
                    if k % 13 == 0 and rep == 1:
                        label, error = None, "timeout"
                    rows.append((*pair, sha, "judge-x", rep, label, error, STAMP))
        _verdicts(db, rows)
    return path


def _import(path: Path, kind: str, name: str) -> bool:
    with contextlib.redirect_stdout(io.StringIO()):
        return main(["--db", str(path), "import", kind, str(DATA / name)]) == 0


def _verdicts(db, rows) -> None:
    with write(db):
        db.conn.executemany("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat,"
                            " label, error, created_at) VALUES (?,?,?,?,?,?,?,?)", rows)


def _copy(src: Path, dst: Path) -> Path:
    with closing(sqlite3.connect(src)) as a, closing(sqlite3.connect(dst)) as b:
        a.backup(b)
    return dst


def _drawn(path: Path) -> tuple[list, list]:
    """Every sample row in row id order and every stored quota, without the clock."""
    with closing(sqlite3.connect(path)) as c:
        samples = c.execute("SELECT rowid, run_record_id, constraint_id, rule, stratum, reason, seed FROM samples"
                            " ORDER BY rowid").fetchall()
        strata = c.execute("SELECT stratum, constraint_id, model, rubric_sha256, judged, sampled, needed, rate,"
                           " population FROM sample_strata ORDER BY rowid").fetchall()
    return samples, strata


class Twins:
    """One project twice: `fast` drawn with `draw_sample`, `ref` with `_reference_draw`; every change goes to both."""

    def __init__(self, tmp_path: Path):
        self.fast = _project(tmp_path / "fast.db")
        self.ref = _copy(self.fast, tmp_path / "ref.db")

    def change(self, fn) -> None:
        for path in (self.fast, self.ref):
            with ann.unit_of_work(path) as db:
                fn(db)

    def draw(self, **kw) -> ann.SampleSummary:
        with ann.unit_of_work(self.fast) as db:
            got = ann.draw_sample(db, **kw)
        with ann.unit_of_work(self.ref) as db:
            want = _reference_draw(db, **kw)
        assert got == want
        assert _drawn(self.fast) == _drawn(self.ref)
        return got


def test_the_draw_writes_the_reference_rows_in_the_reference_order(tmp_path):
    twins = Twins(tmp_path)
    first = twins.draw(rate=0.3, overlap=0.2, seed=7)
    assert first.random_added and first.targeted_added and first.overlap_added
    samples, strata = _drawn(twins.fast)
    assert {s[0] for s in strata} >= {s[4] for s in samples if s[3] == "random"}
    assert any(s[3] is None for s in strata)  # pairs no rubric judged: unjudged strata
    assert any(s[4].endswith(V3[:12]) for s in samples)  # a pair V3 judged is recorded in V3's stratum
    # new run records (a new model, unjudged), a new rubric version judging part of them, then a higher rate
    twins.change(lambda db: _new_records(db, "demo-agent-c", 30))
    twins.draw(rate=0.3, overlap=0.2, seed=7)
    twins.change(lambda db: _verdicts(db, [(rid, cid, V2, "judge-new", 0, "fail", None, STAMP) for rid, cid in
                                           sorted(ann.population_pairs(db))[::4]]))
    twins.draw(rate=0.3, overlap=0.2, seed=9)  # new strata (V2 on the new model), the same draw
    assert twins.draw(rate=0.6, overlap=0.5, seed=9).random_added
    twins.draw(rate=0.2, overlap=0.0, seed=1)  # a lower rate removes nothing


def test_judged_only_and_a_run_drawn_first(tmp_path):
    """--judged-only limits which populations are drawn; a run's own draw is promoted when the population's
    front reaches its pairs."""
    twins = Twins(tmp_path)
    twins.change(lambda db: _new_records(db, "demo-agent-c", 20))  # a population no rubric has judged
    twins.change(lambda db: ann.draw_run_sample(db, "demo-run-b", rate=0.5, seed=3))
    got = twins.draw(rate=0.2, overlap=0.3, seed=3, include_unjudged=False)
    assert got.random_total > got.random_added
    with ann.unit_of_work(twins.fast) as db:
        assert not db.execute("SELECT 1 FROM samples WHERE stratum LIKE '%demo-agent-c%'").fetchall()
    twins.draw(rate=0.4, overlap=0.3, seed=3)  # now with the unjudged population, and promotions


def _new_records(db, model: str, n: int) -> None:
    rows = list(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a' ORDER BY seq LIMIT ?", [n]))
    with write(db):
        for k, row in enumerate(rows):
            row.update(id=f"{model}-{k}", model=model, run_id=f"run-{model}", seq=20_000 + k)
            db["run_records"].insert(row)


def _settings(path: Path) -> list:
    with closing(sqlite3.connect(path)) as c:
        return c.execute("SELECT * FROM settings ORDER BY key").fetchall()


def _writes(path: Path, **kw) -> tuple[ann.SampleSummary, int]:
    with ann.unit_of_work(path) as db:
        before = db.conn.total_changes
        summary = ann.draw_sample(db, **kw)
        return summary, db.conn.total_changes - before


def test_a_rerun_with_nothing_new_writes_nothing_and_says_what_a_full_draw_says(tmp_path):
    twins = Twins(tmp_path)
    kw = {"rate": 0.3, "overlap": 0.2, "seed": 7}
    twins.draw(**kw)
    drawn, settings = _drawn(twins.fast), _settings(twins.fast)
    summary, changes = _writes(twins.fast, **kw)
    assert changes == 0 and _drawn(twins.fast) == drawn and _settings(twins.fast) == settings
    with ann.unit_of_work(twins.ref) as db:
        assert summary == _reference_draw(db, **kw)  # what the full draw reports: nothing added, the same totals
    # other arguments are a new draw
    assert _writes(twins.fast, **{**kw, "rate": 0.5})[1] > 0


@pytest.mark.parametrize("attack", ["delete a random row", "delete and re-add at the top", "replace top verdict",
                                    "import verdicts", "a run's draw", "delete quotas"])
def test_no_change_since_the_draw_slips_past_the_skip(tmp_path, attack):
    """A hostile edit between two draws (a drawn pair removed so the next pair would take its place, a verdict
    swapped in at the top of the table so count and largest row id stay, new verdicts) is a change: the next draw
    is a full one, and it writes what the reference draw writes (the removed pair comes back)."""
    twins = Twins(tmp_path)
    kw = {"rate": 0.3, "overlap": 0.2, "seed": 7}
    twins.draw(**kw)
    with ann.unit_of_work(twins.fast) as db:
        victim = db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random'"
                            " ORDER BY rowid LIMIT 1 OFFSET 5").fetchone()
        top = db.execute("SELECT rowid, * FROM verdicts ORDER BY rowid DESC LIMIT 1").fetchone()
        other = db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' AND NOT EXISTS"
                           " (SELECT 1 FROM verdicts v WHERE v.run_record_id = samples.run_record_id AND"
                           " v.constraint_id = samples.constraint_id AND v.rubric_sha256 = ?) LIMIT 1",
                           [V3]).fetchone()

    def edit(db):
        with write(db):
            if attack == "delete a random row":
                db.execute("DELETE FROM samples WHERE run_record_id = ? AND constraint_id = ? AND rule = 'random'",
                           list(victim))
            elif attack == "delete and re-add at the top":  # count, largest row id and sums of the others stay
                row = db.execute("SELECT * FROM samples ORDER BY rowid DESC LIMIT 1").fetchone()
                db.execute("DELETE FROM samples WHERE rowid = (SELECT max(rowid) FROM samples)")
                db.execute("DELETE FROM samples WHERE run_record_id = ? AND constraint_id = ? AND rule = 'random'",
                           list(victim))
                db.execute("INSERT INTO samples VALUES (?,?,?,?,?,?,?)", list(row))
            elif attack == "replace top verdict":
                db.execute("DELETE FROM verdicts WHERE rowid = ?", [top[0]])
                db.execute("INSERT INTO verdicts (id, run_record_id, constraint_id, rubric_sha256, judge_model,"
                           " repeat, label, created_at) VALUES (?,?,?,?,?,?,?,?)",
                           [top[0], *other, V3, "judge-x", 0, "pass", STAMP])
            elif attack == "import verdicts":
                db.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat,"
                           " label, created_at) VALUES (?,?,?,?,?,?,?)", [*other, V3, "judge-z", 0, "pass", STAMP])
            elif attack == "delete quotas":
                db.execute("DELETE FROM sample_strata")
        if attack == "a run's draw":
            ann.draw_run_sample(db, "demo-boundary-5x", rate=0.9, seed=7)

    twins.change(edit)
    twins.draw(**kw)
    with ann.unit_of_work(twins.fast) as db:
        assert db.execute("SELECT 1 FROM samples WHERE run_record_id = ? AND constraint_id = ? AND rule = 'random'",
                          list(victim)).fetchone()
        assert db.execute("SELECT count(*) FROM sample_strata").fetchone()[0]
    assert _writes(twins.fast, **kw)[1] == 0  # and then it settles


def test_draw_state_is_json_stable(tmp_path):
    """The stored state is compared after a JSON round trip: it must come back equal (floats, NULLs, text)."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.3, seed=7)
        state = _sampling._draw_state(db)
        assert json.loads(json.dumps(state)) == state


def test_draw_orders_rank_each_pair_by_draw_rank(tmp_path):
    """The counted prefix reads each population's random pairs in draw order: `_in_draw_order` hashes from the
    shared prefix text, and must give `draw_rank`'s order exactly (a different order would move the prefix)."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.5, seed=11)
        seeds = committed_seeds(db)
        orders = _sampling._draw_orders(db, scope="*")
        assert any(len(o) > 5 for o in orders.values())
        for (cid, model), order in orders.items():
            assert list(order) == sorted(order, key=lambda p: draw_rank(seeds[(cid, model)], cid, model, p))
        versions = _sampling._random_pair_versions_uncached(db)
        assert versions and all(versions[ann.Pair(*p)] for p in versions)
