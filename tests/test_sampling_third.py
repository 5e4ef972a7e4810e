"""Issue 16 item 2, the whole and first draw at a million run records, third pass: the members' rank texts hashed in
slices by C-level maps (`_members_of`, a slice holding a pair's second `verdict_pairs` row read row by row), the
drawn random pairs read from the random rows (`_drawn_of`) instead of a samples seek per member, each drawn pair's
overlap rank hashed once, and `draw_fronts` left alone when the sorted fronts are what it holds.

Compared with the three-scan pass (`_draw_pass`) population by population and with main's per-pair draw
(`_reference_draw`: every sample row in row id order, every stored quota) on twin projects: slices of one, two and
three rows (so that a pair's rows fall on both sides of a slice's end), random rows that are not members (a failed
run record no verdict covers, a constraint made mechanical, a run record deleted by hand, a run's own draw), a
rubric version the rubrics table lacks on a pair's first row with its second row in the next slice; and the
targeted groups (unchanged code) with verdicts written apart and hand-edited repeat counts.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from judgecal import annotations as ann
from judgecal.annotations.review import _sampling  # house: private
from judgecal.annotations.review._sampling import _draw_members, _store_fronts  # house: private
from judgecal.annotations.store import write

from test_sampling_members import KW, _hostile, _same_states
from test_sampling_scale import STAMP, V1, V2, V3, Twins, _new_records, _project, _verdicts

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")


def _multi(db) -> None:
    """Pairs judged by two versions and by two judge models under one version, next to each other in key order."""
    pairs = sorted(ann.population_pairs(db))
    _verdicts(db, [(rid, cid, V2, "judge-m1", 0, "pass", None, STAMP) for rid, cid in pairs[:40]]
              + [(rid, cid, V1, "judge-m2", 0, "fail", None, STAMP) for rid, cid in pairs[:40:2]]
              + [(rid, cid, V3, "judge-m3", 0, "pass", None, STAMP) for rid, cid in pairs[1:40:3]])


@pytest.mark.parametrize("size", [1, 2, 3, 5, 1 << 16])
def test_members_in_slices_are_the_three_scans(tmp_path, monkeypatch, size):
    """Every population's counts, drawn pairs and front with slices of `size` rows: a pair judged by several
    versions or judge models has its rows on both sides of a slice's end."""
    monkeypatch.setattr(_sampling, "_SLICE", size)
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        _multi(db)
        _same_states(db)
        ann.draw_sample(db, **KW)
        _hostile(db)
        st = _same_states(db, rate=0.45, seed=11)
        assert any("," in (rubrics or "") for s in st.values() for rubrics in s.rubrics)
        assert any(s.drawn for s in st.values())


@pytest.mark.parametrize("size", [1, 2, 3])
def test_slices_draw_the_reference(tmp_path, monkeypatch, size):
    monkeypatch.setattr(_sampling, "_SLICE", size)
    twins = Twins(tmp_path)
    twins.change(_multi)
    twins.draw(**KW)
    twins.change(_hostile)
    for kw in ({**KW, "rate": 0.5, "seed": 3}, {**KW, "include_unjudged": False}):
        for path in (twins.fast, twins.ref):
            with closing(sqlite3.connect(path)) as c, c:
                c.execute("DELETE FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
        twins.draw(**kw)


@pytest.mark.parametrize("size", [1, 2, 1 << 16])
def test_a_stray_version_first_with_its_pair_in_the_next_slice(tmp_path, monkeypatch, size):
    """A version the rubrics table lacks, sorting before the pair's known version: its row is read first, in one
    slice, and the known version's row may come in the next. The join cannot name it, so it reads three scans (merged
    into the last name, the pair would be credited to a rubric that never judged it) and draws the reference rows."""
    monkeypatch.setattr(_sampling, "_SLICE", size)
    stray = "00" + "1" * 62
    twins = Twins(tmp_path)

    def hand(db):
        pairs = [tuple(db.execute("SELECT run_record_id, constraint_id FROM verdict_pairs"
                                  " WHERE rubric_sha256 > ? ORDER BY id LIMIT 1", [stray]).fetchone())]
        db.execute("PRAGMA foreign_keys = OFF")
        _verdicts(db, [(rid, cid, stray, "judge-x", 0, "pass", None, STAMP) for rid, cid in pairs])
        db.execute("PRAGMA foreign_keys = ON")

    twins.change(hand)
    with ann.unit_of_work(twins.fast) as db, write(db):
        assert _draw_members(db, 0.2, 7, {}, set()) is None
    twins.draw(**KW)


def _strangers(db) -> None:
    """Random rows on pairs that are not members of the population draw: a failed run record no verdict covers,
    a pair whose constraint was made mechanical, a run record deleted by hand; and a run's own draw."""
    with write(db):
        row = next(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a'"))
        row.update(id="failed-stranger", output=None, trajectory=None, seq=50_000)
        db["run_records"].insert(row)
        cid = db.execute("SELECT id FROM constraints WHERE item_id = ? AND check_json IS NULL LIMIT 1",
                         [row["item_id"]]).fetchone()[0]
        seed = db.execute("SELECT seed FROM samples WHERE rule = 'random' LIMIT 1").fetchone()[0]
        db.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                   " VALUES (?, ?, 'random', ?, NULL, ?, ?)", ["failed-stranger", cid, f"{cid}|x|unjudged", seed, STAMP])
        rid, cid, item = db.execute("SELECT s.run_record_id, s.constraint_id, r.item_id FROM samples s"
                                    " JOIN run_records r ON r.id = s.run_record_id WHERE s.rule = 'random'"
                                    " ORDER BY s.rowid LIMIT 1 OFFSET 3").fetchone()
        db.execute("UPDATE constraints SET check_json = '{\"kind\": \"regex\", \"pattern\": \"x\"}'"
                   " WHERE item_id = ? AND id = ?", [item, cid])
    gone = db.execute("SELECT run_record_id FROM samples WHERE rule = 'random' AND run_record_id NOT IN"
                      " (SELECT run_record_id FROM verdicts) ORDER BY rowid LIMIT 1").fetchone()
    db.execute("PRAGMA foreign_keys = OFF")
    with write(db):
        victim = gone[0] if gone else db.execute(
            "SELECT run_record_id FROM samples WHERE rule = 'random' ORDER BY rowid DESC LIMIT 1").fetchone()[0]
        db.execute("DELETE FROM run_records WHERE id = ?", [victim])
    db.execute("PRAGMA foreign_keys = ON")
    ann.draw_run_sample(db, "demo-run-b", rate=0.3, seed=3)


def test_random_rows_that_are_not_members_are_not_drawn(tmp_path):
    """`drawn` holds only members with a random row of the population draw, with the versions the members' join
    names (the three scans agree population by population), and the draw is the reference's."""
    twins = Twins(tmp_path)
    twins.change(_multi)
    twins.draw(**KW)
    twins.change(_strangers)
    with ann.unit_of_work(twins.fast) as db:
        st = _same_states(db, rate=0.3, seed=5)
        drawn = {p for s in st.values() for p in s.drawn}
        assert ("failed-stranger", ) not in {p[:1] for p in drawn}
        scoped = _sampling._run_scoped(db)
        assert scoped and not (scoped & drawn)
    for path in (twins.fast, twins.ref):
        with closing(sqlite3.connect(path)) as c, c:
            c.execute("DELETE FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
    twins.draw(**{**KW, "rate": 0.3})
    twins.change(lambda db: _new_records(db, "demo-agent-c", 20))
    twins.draw(**{**KW, "overlap": 0.5})


def test_unchanged_fronts_write_nothing(tmp_path):
    """The stored fronts compared in key order: a whole draw of an unchanged project (ids with non-ASCII characters
    among them, whose order Python and SQLite must agree on) writes no `draw_fronts` row; one changed row is a
    change, and the table then holds the new fronts."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        with write(db):
            for k, odd in enumerate(["réponse-ü", "日本-1", "Zebra", "a\U0001f600"]):
                row = next(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a' LIMIT 1 OFFSET ?", [k]))
                row.update(id=odd, seq=60_000 + k)
                db["run_records"].insert(row)
        ann.draw_sample(db, **{**KW, "rate": 0.9})
        rows = db.execute("SELECT kind, constraint_id, model, rank, run_record_id FROM draw_fronts").fetchall()
        assert {"réponse-ü", "日本-1", "a\U0001f600"} <= {r[4] for r in rows}
        shuffled = rows[::-1]
        with write(db):
            before = db.conn.total_changes
            _store_fronts(db, shuffled)
            assert db.conn.total_changes == before
            changed = [*rows[:5], (*rows[5][:4], "someone-else"), *rows[6:]]
            _store_fronts(db, list(changed))
            assert db.conn.total_changes > before
        assert sorted(db.execute("SELECT kind, constraint_id, model, rank, run_record_id FROM draw_fronts")) == sorted(
            changed)
        for _ in range(2):  # a whole draw puts the changed front back, and a second one keeps it
            with write(db):
                db.execute("DELETE FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
            before = db.conn.total_changes
            ann.draw_sample(db, **{**KW, "rate": 0.9})
            fronts_written = db.conn.total_changes - before  # the second draw's: fewer rows than the fronts hold
            assert sorted(db.execute("SELECT kind, constraint_id, model, rank, run_record_id FROM draw_fronts")
                          ) == sorted(rows)
    assert fronts_written < len(rows)


def test_overlap_ranks_hashed_once_are_the_rank(tmp_path):
    """`_overlap_ranks` is `_rank` under the population's overlap salt, ids with separators and non-ASCII text."""
    pairs = [ann.Pair("réponse-ü", "c|1"), ann.Pair("x\x1fy", "日本"), ann.Pair("plain", "c")]
    got = _sampling._overlap_ranks(9, ("c|1", "model-é"), pairs)
    assert got == {p: _sampling._rank(9, f"overlap\x1f{_sampling.population_key('c|1', 'model-é')}", p)
                   for p in pairs}


def _apart(db) -> None:
    """Groups whose verdicts are not written together: each repeat of 30 pairs in its own pass over them (a group's
    row ids are 30 apart), disagreeing and with errors, stamps tied and not; and `verdict_pairs` rows edited by hand
    (a repeat count too small, so the window misses verdicts; one far too large)."""
    pairs = sorted(ann.population_pairs(db))[200:230]
    rows = []
    for rep in range(3):
        for k, (rid, cid) in enumerate(pairs):
            label = None if (k + rep) % 4 == 0 else ("pass" if (k * rep) % 3 else "fail")
            rows.append((rid, cid, V2, "judge-apart", rep, label, None if label else "rate_limit",
                         STAMP if k % 2 else f"2026-10-{rep + 1:02d}T00:00:00Z"))
    _verdicts(db, rows)
    with write(db):
        # groups with an error behind a first repeat that is a label: a window of one row shows no error
        small = db.execute("SELECT id FROM verdict_pairs WHERE n = 3 AND instr(pattern, char(30)) > 3"
                           " AND substr(pattern, 1, 3) = '0' || char(31) || '=' AND judge_model <> 'judge-apart'"
                           " ORDER BY id LIMIT 2").fetchall()
        assert len(small) == 2
        db.execute("UPDATE verdict_pairs SET n = 1 WHERE id = ?", small[0])
        db.execute("UPDATE verdict_pairs SET n = 1000000 WHERE id = ?", small[1])


@pytest.mark.parametrize("odd", [True, False])
def test_targeted_groups_written_apart_are_the_definition(tmp_path, odd):
    """Groups read by their `verdict_pairs` row ids whose verdicts were not written together, or whose repeat count
    was edited by hand: every targeted pair in `targeted_pairs`' order with its reason (odd labels, ties on the
    stamp, repeats out of order, two judge models besides)."""
    from test_sampling_whole import _odd_verdicts

    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        if odd:
            _odd_verdicts(db)
        _apart(db)
        want = list(_sampling.targeted_pairs(db).items())
        with write(db):
            candidates = _sampling._targeted_candidates(db)
            ids = sorted(i for got in candidates.values() for i in got)
            got = list(_sampling._new_targeted(db, set(), candidates).items())
        assert got == want and any("judge-apart" in reason for _p, (_s, reason) in want)
        skip = {p for p, _ in want[::4]}
        with write(db):
            assert list(_sampling._new_targeted(db, skip, candidates).items()) == [kv for kv in want
                                                                                  if kv[0] not in skip]
        assert ids


def test_verdicts_written_apart_draw_the_reference(tmp_path):
    twins = Twins(tmp_path)
    twins.change(_apart)
    twins.draw(**KW)
    for path in (twins.fast, twins.ref):
        with closing(sqlite3.connect(path)) as c, c:
            c.execute("DELETE FROM samples")
            c.execute("DELETE FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
    twins.draw(**{**KW, "seed": 4})


def test_semantic_constraint_ids_through_the_covering_index_or_the_table(tmp_path):
    """The draw's constraint ids through migration 018's covering index, the table without it, and the table when an
    index of that name cannot serve the query (a partial index of the other constraints): the same ids."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        with write(db):
            db.execute("UPDATE constraints SET check_json = '{}' WHERE rowid IN"
                       " (SELECT rowid FROM constraints WHERE check_json IS NULL LIMIT 1)")
        want = sorted({row[0] for row in db.execute("SELECT id FROM constraints WHERE check_json IS NULL")})
        statements = []
        db.conn.set_trace_callback(statements.append)
        try:
            assert sorted(_sampling._semantic_constraint_ids(db)) == want
        finally:
            db.conn.set_trace_callback(None)
        assert any("INDEXED BY constraints_pair" in s for s in statements)
        for index in ("", "CREATE INDEX constraints_pair ON constraints(item_id, id) WHERE check_json IS NOT NULL"):
            with write(db):
                db.execute("DROP INDEX IF EXISTS constraints_pair")
                if index:
                    db.execute(index)
            assert sorted(_sampling._semantic_constraint_ids(db)) == want
