"""Issue 16.2: the whole draw at a million run records — three scans joined in Python, heaps that do not know their
population's size yet, and targeted pairs found from migration 015's patterns.

Each draw is compared with main's per-pair draw (`_reference_draw` in test_sampling_scale: every sample row in row id
order, every stored quota) on twin projects, and the targeted pairs with `targeted_pairs` (one GROUP BY over every
verdict, the definition) in order and reason.
"""

from __future__ import annotations

import json

import pytest

from judgecal import annotations as ann
from judgecal.annotations.review import _sampling  # house: private
from judgecal.annotations.review._sampling import (  # house: private
    _judged_pairs, _may_be_targeted, _new_targeted, targeted_pairs)
from judgecal.annotations.store import write

from test_sampling_scale import STAMP, V1, V2, Twins, _new_records, _project, _verdicts

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")

KW = {"rate": 0.2, "overlap": 0.3, "seed": 7}


class Reads:
    """How often the whole draw read its members, and whether it had to read them again with the sizes known."""

    def __init__(self, monkeypatch):
        self.passes: list[bool] = []  # per pass: whether it was the second (sizes known)
        real = _sampling._draw_pass
        monkeypatch.setattr(_sampling, "_SQL_PASS", False)  # the three scans, not the one join (`_draw_members`)

        def spy(db, judged, rate, seed, seeds, random_set, fixed=None):
            self.passes.append(fixed is not None)
            return real(db, judged, rate, seed, seeds, random_set, fixed)

        monkeypatch.setattr(_sampling, "_draw_pass", spy)


def _grow(twins) -> None:
    """New run records of a new model and an old one, a second rubric version on part of them: every kind of
    population and stratum the pass counts."""
    twins.change(lambda db: _new_records(db, "demo-agent-c", 40))
    twins.change(lambda db: _verdicts(db, [(rid, cid, V2, "judge-new", 0, "fail", None, STAMP) for rid, cid in
                                           sorted(ann.population_pairs(db))[::3]]))


def test_heaps_kept_as_the_population_grows_draw_the_reference(tmp_path, monkeypatch):
    """A heap keeps `_capacity` of the members read so far; with no slack at all it lets members go that the
    final front may need, and then either the cut shows the front is still exact or the pass runs again. Either
    way the rows are the reference's."""
    monkeypatch.setattr(_sampling, "_capacity", lambda rate, n: min(n, _sampling._front_size(_sampling.quota(rate, n))))
    monkeypatch.setattr(_sampling, "_SPARE", 2)
    reads = Reads(monkeypatch)
    twins = Twins(tmp_path)
    twins.draw(**KW)
    _grow(twins)
    twins.draw(**{**KW, "rate": 0.35})
    assert reads.passes and all(not second for second in reads.passes[::2])


def test_a_heap_that_let_a_front_member_go_reads_again(tmp_path, monkeypatch):
    """Heaps of one member: every population's front is lost, the cut says so, and the second pass (each heap
    bounded by its final front, sizes counted in SQL) draws the reference rows. Without the cut check the first
    pass's heaps would be taken as fronts (one pair per population: fewer rows than the reference)."""
    monkeypatch.setattr(_sampling, "_capacity", lambda rate, n: 1)
    reads = Reads(monkeypatch)
    twins = Twins(tmp_path)
    twins.draw(**KW)
    assert reads.passes == [False, True]
    _grow(twins)
    twins.draw(**{**KW, "rate": 0.5, "seed": 3})
    assert reads.passes[-2:] == [False, True]


def test_without_verdict_pairs_the_draw_reads_the_verdicts(tmp_path):
    """A project without migration 015's table (read from the verdicts' unique index, every group for the targeted
    pairs) draws the same rows."""
    twins = Twins(tmp_path)
    twins.draw(**KW)
    _grow(twins)

    def drop(db):
        with write(db):
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE"
                                      " '%verdict_pairs%'").fetchall():
                db.execute(f"DROP TRIGGER {name}")
            db.execute("DROP TABLE verdict_pairs")

    with ann.unit_of_work(twins.fast) as db:
        drop(db)
        assert _judged_pairs(db).candidates is None
    twins.draw(**{**KW, "rate": 0.4})


# Labels are free text: the patterns' separators may occur in them.
ODD = ["pass", "fail", "", "=", "pa\x1fss", "pa\x1dss", "x\x1d1\x1f=pass", "\x1e", "pass\x1d", "pass=", "=pass"]


def _odd_verdicts(db) -> None:
    """Groups of every shape on the demo's pairs: uniform, disagreeing, errors, one repeat, repeats stored out of
    order, two judge models under one version, labels that hold the separators."""
    pairs = sorted(ann.population_pairs(db))
    rows = []
    stamp = iter(f"2026-11-{d:02d}T00:00:{s:02d}Z" for d in range(1, 29) for s in range(60))
    for k, (rid, cid) in enumerate(pairs[:160]):
        a, b = ODD[k % len(ODD)], ODD[(k // len(ODD)) % len(ODD)]
        shape = k % 8
        reps = {0: [a, a, a], 1: [a, b, a], 2: [a], 3: [a, None], 4: [a, a], 5: [b, a, a, a], 6: [None], 7: [a, a]}
        t = next(stamp) if k % 3 else STAMP  # ties on the latest stamp too
        order = [2, 0, 1, 3] if shape == 5 else range(len(reps[shape]))
        for rep in order:
            label = reps[shape][rep]
            rows.append((rid, cid, V1, "judge-x", rep, label, None if label is not None else "timeout", t))
        if shape == 7:  # the same version by another judge model, disagreeing with the first
            rows.append((rid, cid, V1, "judge-y", 0, b if b != a else a + "!", None, t))
    # labels whose parts, split at \x1d, all read the same although the labels differ
    for (rid, cid), labels in zip(pairs[160:], [["pass\x1d0\x1f=pass", "pass"], ["pass", "pass\x1d1\x1f=pass"],
                                                 ["a\x1d0\x1f=a", "a", "a"]]):
        rows += [(rid, cid, V1, "judge-x", rep, label, None, STAMP) for rep, label in enumerate(labels)]
    with write(db):
        db.execute("DELETE FROM verdicts")
        db.conn.executemany("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat,"
                            " label, error, created_at) VALUES (?,?,?,?,?,?,?,?)", rows)


def test_targeted_candidates_from_the_patterns_miss_no_group(tmp_path):
    """The pairs a whole draw reads the verdicts of are found from the pattern texts: every targeted pair, in the
    definition's order with its reason, with labels that hold the separators; uniform groups are not read."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        _odd_verdicts(db)
        want = list(targeted_pairs(db).items())
        judged = _judged_pairs(db)
        assert want and judged.candidates is not None
        assert list(_new_targeted(db, set(), judged.candidates).items()) == want
        assert {p for p, _ in want} <= judged.candidates
        labels: dict = {}
        for rid, cid, label in db.execute("SELECT run_record_id, constraint_id, label FROM verdicts"):
            labels.setdefault((rid, cid), []).append(label)
        uniform = {p for p, ls in labels.items() if len(set(ls)) == 1 and ls[0] is not None
                   and "\x1d" not in ls[0] and "\x1e" not in ls[0]}
        assert uniform and not uniform & judged.candidates
        # a pair already targeted is left out, and nothing else moves
        skip = {p for p, _ in want[::2]}
        assert list(_new_targeted(db, skip, judged.candidates).items()) == [kv for kv in want if kv[0] not in skip]


@pytest.mark.parametrize("pattern, n, expected", [
    ("0\x1f=pass\x1d1\x1f=pass\x1d2\x1f=pass", 3, False),
    ("0\x1f=pass\x1d1\x1f=fail", 2, True),
    ("0\x1f=pass\x1d1\x1f\x1e", 2, True),
    ("0\x1f\x1e", 1, True),
    ("0\x1f=pass", 1, False),
    ("0\x1f=pass\x1d1\x1f=passx", 2, True),  # a label that starts with the other
    ("0\x1f=\x1d1\x1f=", 2, False),  # the empty label, twice
    ("0\x1f=a\x1dz\x1d1\x1f=a", 2, True),  # a label holding \x1d: more parts than repeats, read as a candidate
    ("0\x1f=a\x1fb\x1d1\x1f=a\x1fb", 2, False),  # \x1f inside a label: the part after the first \x1f compared
    ("0\x1f=a\x1fb\x1d1\x1f=a\x1fc", 2, True),
    ("0\x1f=pass\x1d2\x1f=pass", 2, False),  # a gap in the repeats
    ("0\x1f=pass\x1d0\x1f=pass\x1d1\x1f=pass", 2, True),  # labels 'pass\x1d0\x1f=pass' and 'pass'
])
def test_may_be_targeted(pattern, n, expected):
    assert _may_be_targeted(pattern, n) is expected


def test_a_draw_reads_the_tables_it_does_not_write_once(tmp_path):
    """The state stored after a draw reuses the verdicts', run records' and constraints' parts read before it (the
    draw writes none of them; they were read twice): what it stores is what a fresh read gives, after a whole draw
    and after an incremental one."""
    path = _project(tmp_path / "p.db")
    for change in (None, lambda db: _new_records(db, "demo-agent-c", 12), None):
        with ann.unit_of_work(path) as db:
            if change is not None:
                change(db)
            seen: list[str] = []
            db.conn.set_trace_callback(seen.append)
            ann.draw_sample(db, **KW)
            db.conn.set_trace_callback(None)
            value = db.execute("SELECT value FROM settings WHERE key = ?", [_sampling.DRAW_SETTING]).fetchone()[0]
            assert json.loads(value)["state"] == _sampling._draw_state(db)
            for table in ("verdicts", "run_records", "constraints"):
                assert sum(q.strip() == f"SELECT count(*) FROM {table}" for q in seen) == 1


def test_coverage_printed_after_a_draw_counts_each_labelled_pair_once_per_stratum(tmp_path):
    """The table `judgecal sample` prints (`quota_progress`) reads each random pair's strata from verdict_pairs
    (one row per judge model, told apart without a DISTINCT): with two judge models under one version and pairs
    judged by two versions, it equals `coverage` (every verdict read) right after the draw."""
    twins = Twins(tmp_path)
    _grow(twins)
    with ann.unit_of_work(twins.fast) as db:
        _verdicts(db, [(rid, cid, V2, "judge-z", 0, "pass", None, STAMP) for rid, cid in
                       sorted(ann.population_pairs(db))[::3]])  # V2 by a second judge model on the same pairs
        ann.draw_sample(db, **KW)
        drawn = db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random'"
                           " ORDER BY rowid").fetchall()
        for rid, cid, labels in db.execute("SELECT s.run_record_id, s.constraint_id, c.labels FROM samples s"
                                           " JOIN run_records r ON r.id = s.run_record_id JOIN constraints c"
                                           " ON c.item_id = r.item_id AND c.id = s.constraint_id"
                                           " WHERE s.rule = 'random' ORDER BY s.rowid").fetchall():
            ann.record_label(db, "ann", ann.Pair(rid, cid), json.loads(labels)[0])
        two = db.execute("SELECT count(*) FROM verdict_pairs v JOIN samples s USING (run_record_id, constraint_id)"
                         " WHERE s.rule = 'random' GROUP BY v.run_record_id, v.constraint_id, v.rubric_sha256"
                         " HAVING count(*) > 1").fetchall()
        assert two  # sampled pairs one version judged twice
        rows = ann.quota_progress(db)
        assert rows == ann.coverage(db, rate=KW["rate"], include_unjudged=True)
        assert sum(r.labelled for r in rows) > len(drawn)  # pairs in two strata count in both
