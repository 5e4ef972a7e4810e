"""Issue 16 item 2, coverage at a million run records: `coverage` counts each stratum's judged pairs in one pass over
the semantic pairs, each finding its `verdict_pairs` rows through the table's unique index (`_pair_tally`), its
sampled pairs from the random-sample pairs it reads anyway (`_random_pairs`), and `population_sizes` under a version
reuses that pass when it tells every pair apart. Each is compared with the plain definition (`_coverage_parts_by_keys`:
the judged pairs joined by their keys, a samples look-up per judged pair, the random pairs joined through the run
records' table rows) on projects built to break it: pairs judged by two rubric versions and by two judge models under
one version (judging the same pairs and others), a failed run record judged and one not, verdicts on a constraint
that is not semantic, a run's own draw, stale and missing migration 019 row ids, run records and constraints stored
again, and a project without migration 022's index (the plain path itself)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from contextlib import closing

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (its kept values)
from judgecal.annotations.review import _sampling  # house: private (the switch and the parts live there)
from judgecal.annotations.store import _memo, write  # house: private (its kept values)

from test_sampling_members import _hostile
from test_sampling_scale import STAMP, V1, V2, _new_records, _project, _verdicts

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")

RUNS = (None, "demo-run-a", "demo-run-b")


def _clear() -> None:
    for kept in (_calibration._KEPT, _memo._KEPT, _sampling._MEMO):
        kept.clear()


def _rows(db, monkeypatch, plain: bool, **kw) -> list:
    _clear()
    with monkeypatch.context() as m:
        if plain:
            m.setattr(_sampling, "_tally_paths", lambda db: False)
        return ann.coverage(db, 0.3, **kw)


def _same(db, monkeypatch) -> int:
    """Every coverage table (with and without unjudged strata, per run, with a version and without) equals the
    plain definition's; the parts too, and `population_sizes` under a version equals the plain count in its order.
    Returns how many rows were compared."""
    n = 0
    version = ("test", _sampling._data_version(db))
    for run in RUNS:
        for unjudged in (False, True):
            want = _rows(db, monkeypatch, True, include_unjudged=unjudged, run_id=run)
            assert _rows(db, monkeypatch, False, include_unjudged=unjudged, run_id=run) == want, (run, unjudged)
            assert _rows(db, monkeypatch, False, include_unjudged=unjudged, run_id=run, version=version) == want
            _clear()
            fast = _sampling._coverage_parts(db, unjudged, run)
            plain = _sampling._coverage_parts_by_keys(db, unjudged, run)
            assert fast.counts == plain.counts and fast.population == plain.population
            assert {k: sorted(v) for k, v in fast.random_strata.items()} == {
                k: sorted(v) for k, v in plain.random_strata.items()}
            n += len(want)
            # the labelled counts as defined: each random pair's strata, counted where the pair is counted
            done = ann.counted_pairs(db, run_id=run).pairs
            labelled = Counter(key.stratum for pair, key in _sampling._strata_of_random_pairs(db, unjudged)
                               if pair in done)
            assert {r.stratum: r.labelled for r in want} == {r.stratum: labelled[r.stratum] for r in want}
        _clear()
        kept = _sampling.population_sizes(db, run, version=version)
        assert kept == _sampling.population_sizes(db, run) and list(kept) == list(_sampling.population_sizes(db, run))
    return n


def _label(db, share: int = 2) -> None:
    """A blind first label on every `share`-th random pair (so the counted prefixes stop at different places)."""
    rows = db.execute("SELECT s.run_record_id, s.constraint_id, c.labels FROM samples s JOIN run_records r"
                      " ON r.id = s.run_record_id JOIN constraints c ON c.item_id = r.item_id"
                      " AND c.id = s.constraint_id WHERE s.rule = 'random' ORDER BY s.rowid").fetchall()
    for k, (rid, cid, labels) in enumerate(rows):
        if k % share == 0 or k % 7 == 1:
            ann.record_label(db, "ann", ann.Pair(rid, cid), json.loads(labels)[0])


@pytest.fixture()
def project(tmp_path):
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=0.3, overlap=0.2, seed=7)
        _label(db)
    return path


def test_the_pass_equals_the_plain_definition(project, monkeypatch):
    with ann.unit_of_work(project) as db:
        assert _sampling._tally_paths(db)
        assert _same(db, monkeypatch) > 10
        assert any(r.labelled for r in ann.coverage(db, 0.3))
        # the tally tells every pair apart only where one version judged a population with one judge model
        assert _sampling._pair_tally_uncached(db, None).every is None  # V1, V2 and V3 judge the same populations


def test_hostile_projects(project, monkeypatch):
    """Two versions and two judge models on the same pairs, judge models judging a version's pairs apart, a failed
    run record judged and one not, verdicts on a mechanical constraint, a run's own draw, a new model's records."""
    with ann.unit_of_work(project) as db:
        _hostile(db)
        _new_records(db, "demo-agent-c", 25)
        pairs = sorted(ann.population_pairs(db))
        # judge-w judges V2 on pairs judge-x/judge-y judged and on others; judge-v only on pairs nobody judged by V2
        _verdicts(db, [(rid, cid, V2, "judge-w", 0, "pass", None, STAMP) for rid, cid in pairs[::3]]
                  + [(rid, cid, V2, "judge-a", 0, "fail", None, STAMP) for rid, cid in pairs[1::4]])
        ann.draw_sample(db, rate=0.4, overlap=0.1, seed=3)
        _label(db, 3)
        with write(db):  # random pairs no version judged whose run records then fail: out of the unjudged strata
            db.execute("UPDATE run_records SET output = NULL, trajectory = NULL WHERE id IN (SELECT s.run_record_id"
                       " FROM samples s WHERE s.rule = 'random' AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE"
                       " v.run_record_id = s.run_record_id AND v.constraint_id = s.constraint_id) LIMIT 3)")
        assert db.execute("SELECT count(*) FROM samples s JOIN run_records r ON r.id = s.run_record_id WHERE"
                          " s.rule = 'random' AND r.output IS NULL AND r.trajectory IS NULL AND NOT EXISTS (SELECT 1"
                          " FROM verdicts v WHERE v.run_record_id = s.run_record_id"
                          " AND v.constraint_id = s.constraint_id)").fetchone()[0] >= 3
        several = db.execute("SELECT count(*) FROM (SELECT 1 FROM verdict_pairs GROUP BY run_record_id,"
                             " constraint_id, rubric_sha256 HAVING count(*) > 1)").fetchone()[0]
        assert several > 10
        assert _same(db, monkeypatch) > 10
        assert any(r.rubric_sha256 is None for r in ann.coverage(db, 0.3, include_unjudged=True))


def test_one_version_one_judge_model_counts_the_population_in_the_same_pass(tmp_path, monkeypatch):
    """The shape of the scale projects: the tally's rows are the pairs, so `population_sizes` under a version reads
    no second pass, and still equals the plain count (failed run records, a stratum with no population left)."""
    path = _project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        with write(db):
            db.execute("DELETE FROM verdicts WHERE rubric_sha256 <> ?", [V1])
            db.execute("UPDATE run_records SET output = NULL, trajectory = NULL WHERE run_id = 'demo-run-a'"
                       " AND rowid % 4 = 0")
        ann.draw_sample(db, rate=0.3, overlap=0.2, seed=7)
        _label(db)
        tally = _sampling._pair_tally_uncached(db, None)
        assert tally.every is not None and tally.unjudged
        calls = []
        with monkeypatch.context() as m:
            real = _sampling._population_count
            m.setattr(_sampling, "_population_count", lambda db, run, every=None: calls.append(every) or real(
                db, run, every))
            _clear()
            _sampling.population_sizes(db, None, version=("v",))
        assert calls and calls[0] is not None
        # the report's order: the population first, then the coverage from the same pass, which frees its slot
        assert any(k[1] == ("pair_tally", None) for k in _sampling._MEMO)
        kept = ann.coverage(db, 0.3, version=("v",))
        assert not any(k[1] == ("pair_tally", None) for k in _sampling._MEMO)
        assert kept == _rows(db, monkeypatch, True)
        assert _same(db, monkeypatch) > 5


def test_stale_row_ids_and_rows_stored_again(project, monkeypatch):
    """The pass reads no row id hint (migration 019): ids + 1, NULLs, another run record of the same item, and a
    run record and a constraint deleted and stored again change nothing."""
    with closing(sqlite3.connect(project)) as conn, conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("UPDATE verdict_pairs SET record_rowid = record_rowid + 1 WHERE id % 3 = 0")
        conn.execute("UPDATE verdict_pairs SET constraint_rowid = NULL WHERE id % 5 = 0")
        conn.execute("UPDATE verdict_pairs SET record_rowid = (SELECT max(r2.rowid) FROM run_records r1 JOIN"
                     " run_records r2 ON r2.item_id = r1.item_id WHERE r1.id = verdict_pairs.run_record_id)"
                     " WHERE id % 7 = 0")
        rid = conn.execute("SELECT run_record_id FROM samples WHERE rule = 'random' LIMIT 1").fetchone()[0]
        cols = [r[1] for r in conn.execute("PRAGMA table_info(run_records)")]
        row = conn.execute("SELECT * FROM run_records WHERE id = ?", [rid]).fetchone()
        conn.execute("DELETE FROM run_records WHERE id = ?", [rid])
        conn.execute(f"INSERT INTO run_records ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", row)
        item, cid = conn.execute("SELECT c.item_id, c.id FROM samples s JOIN run_records r ON r.id = s.run_record_id"
                                 " JOIN constraints c ON c.item_id = r.item_id AND c.id = s.constraint_id"
                                 " WHERE s.rule = 'random' LIMIT 1 OFFSET 5").fetchone()
        ccols = [r[1] for r in conn.execute("PRAGMA table_info(constraints)")]
        crow = conn.execute("SELECT * FROM constraints WHERE item_id = ? AND id = ?", [item, cid]).fetchone()
        conn.execute("DELETE FROM constraints WHERE item_id = ? AND id = ?", [item, cid])
        conn.execute(f"INSERT INTO constraints ({', '.join(ccols)}) VALUES ({', '.join('?' * len(ccols))})", crow)
    with ann.unit_of_work(project) as db:
        assert _same(db, monkeypatch) > 10


def test_a_constraint_made_mechanical_and_a_record_gone(project, monkeypatch):
    """Verdicts and random rows left on a constraint that is no longer semantic and on a run record deleted (hand
    SQL): neither is a semantic pair, in the pass as in the plain join."""
    with closing(sqlite3.connect(project)) as conn, conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        item, cid = conn.execute("SELECT c.item_id, c.id FROM samples s JOIN run_records r ON r.id = s.run_record_id"
                                 " JOIN constraints c ON c.item_id = r.item_id AND c.id = s.constraint_id"
                                 " WHERE s.rule = 'random' LIMIT 1 OFFSET 2").fetchone()
        conn.execute("UPDATE constraints SET check_json = '{}' WHERE item_id = ? AND id = ?", [item, cid])
        rid = conn.execute("SELECT run_record_id FROM samples WHERE rule = 'random' LIMIT 1 OFFSET 9").fetchone()[0]
        conn.execute("DELETE FROM run_records WHERE id = ?", [rid])
    with ann.unit_of_work(project) as db:
        assert _same(db, monkeypatch) > 10


def test_a_project_without_the_failed_index_reads_the_plain_path(project, monkeypatch):
    with ann.unit_of_work(project) as db:
        want = {run: _rows(db, monkeypatch, True, include_unjudged=True, run_id=run) for run in RUNS}
        with write(db):
            db.execute("DROP INDEX run_records_failed")
        assert not _sampling._tally_paths(db)
        calls = []
        with monkeypatch.context() as m:
            m.setattr(_sampling, "_pair_tally_uncached", lambda *a: calls.append(a))
            for run in RUNS:
                _clear()
                assert ann.coverage(db, 0.3, include_unjudged=True, run_id=run) == want[run]
                assert ann.coverage(db, 0.3, include_unjudged=True, run_id=run, version=("v",)) == want[run]
        assert not calls
