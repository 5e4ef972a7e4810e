"""`population_sizes` (semantic pairs with output per constraint × model, the population a rubric version is gated
on) read through the covering indexes less the run records without output (migration 022's partial index) equals
the plain join with the output condition: with failed run records, a stratum whose every run record failed (it has no population), a
trajectory without output, and per run (issue 16.2)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.review import _sampling  # house: private (the fast path's switch lives there)
from judgecal.cli import main


def _plain(db, run_id=None) -> Counter:
    where, params = ("AND r.run_id = ?", [run_id]) if run_id else ("", [])
    return Counter({(c, m): n for c, m, n in db.execute(
        "SELECT c.id, r.model, count(*) FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
        " AND c.check_json IS NULL WHERE (r.output IS NOT NULL OR r.trajectory IS NOT NULL)"
        f" {where} GROUP BY c.id, r.model", params)})


def test_population_sizes_equal_the_plain_join(tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    assert main(["--db", str(path), "demo"]) == 0
    with ann.unit_of_work(path) as db:
        assert _sampling._has_failed_index(db), "connect() should have added migration 022's index"
        runs = [r[0] for r in db.execute("SELECT DISTINCT run_id FROM run_records ORDER BY run_id")]
        with ann.write(db):
            # a third of one run's records fail; every record of one model on one item fails; one record keeps only
            # a trajectory (it has output for the population)
            db.execute("UPDATE run_records SET output = NULL, trajectory = NULL"
                       " WHERE run_id = ? AND rowid % 3 = 0", [runs[0]])
            # every run record of one stratum (a constraint x model) fails: the stratum has no population
            gone = min(_plain(db), key=lambda k: _plain(db)[k])
            db.execute("UPDATE run_records SET output = NULL, trajectory = NULL WHERE model = ? AND item_id IN"
                       " (SELECT item_id FROM constraints WHERE id = ? AND check_json IS NULL)", [gone[1], gone[0]])
            db.execute("UPDATE run_records SET output = NULL, trajectory = '[]'"
                       " WHERE rowid = (SELECT max(rowid) FROM run_records)")
        assert db.execute("SELECT count(*) FROM run_records WHERE output IS NULL AND trajectory IS NULL"
                          ).fetchone()[0] > 0
        assert gone not in _plain(db) and gone not in _sampling.population_sizes(db)
        for run in (None, *runs):
            fast = _sampling.population_sizes(db, run)
            assert fast == _plain(db, run) and list(fast) == list(_plain(db, run))
            assert all(n > 0 for n in fast.values())
        # a project without the index (opened read-only before migration 022) counts the plain way, equally
        with ann.write(db):
            db.execute("DROP INDEX run_records_failed")
        assert not _sampling._has_failed_index(db)
        for run in (None, *runs):
            assert _sampling.population_sizes(db, run) == _plain(db, run)
