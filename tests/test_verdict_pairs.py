"""Migration 015: `verdict_pairs` (one row per judged pair, its repeats as one pattern text) is kept exactly in step
with `verdicts` by triggers, whatever writes the verdicts, and the verdicts' O(1) version moves on every change.

The attacks: a verdict replaced under the same row id (count and largest row id unchanged), the retry upsert turning
an error row into a label (an UPDATE, not an insert), a deleted verdict and a pair's last verdict deleted, a verdict
moved to another pair by an UPDATE of a key column, an import that is refused (rolled back), and a project without
the migration (read the old way, same numbers). Real SQLite files in tmp_path."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from conftest import RUBRIC_SHA, seed_project
from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.annotations.reports import calibration_report, load_verdicts
from judgecal.annotations.reports._browse import verdicts_version  # house: private
from judgecal.annotations.store import has_verdict_pairs
from judgecal.cli import main
from judgecal.judge._runner import Verdict, VerdictKey  # house: private

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")


def _recomputed(conn) -> set[tuple]:
    """What the table must hold, computed from `verdicts` in Python (repeat order, the same text)."""
    pairs: dict[tuple, list] = {}
    for vid, jm, sha, rid, cid, rep, label in conn.execute(
            "SELECT id, judge_model, rubric_sha256, run_record_id, constraint_id, repeat, label FROM verdicts"):
        pairs.setdefault((jm, sha, rid, cid), []).append((rep, vid, label))
    out = set()
    for key, rows in pairs.items():
        text = "\x1d".join(f"{rep}\x1f" + ("\x1e" if label is None else "=" + label) for rep, _, label in sorted(rows))
        out.add((min(vid for _, vid, _ in rows), *key, len(rows), text))
    return out


def _stored(conn) -> set[tuple]:
    return set(conn.execute("SELECT id, judge_model, rubric_sha256, run_record_id, constraint_id, n, pattern"
                            " FROM verdict_pairs"))


def _exact(path: Path) -> None:
    with ann.unit_of_work(path) as db:
        assert _stored(db.conn) == _recomputed(db.conn)
        # migration 019's row ids, written with each row: its run record's and semantic constraint's
        assert not list(db.execute(
            "SELECT vp.id FROM verdict_pairs vp LEFT JOIN run_records r ON r.id = vp.run_record_id"
            " LEFT JOIN constraints c ON c.item_id = r.item_id AND c.id = vp.constraint_id AND c.check_json IS NULL"
            " WHERE vp.record_rowid IS NOT r.rowid OR vp.constraint_rowid IS NOT c.rowid"))


def _version(path: Path) -> tuple:
    with ann.unit_of_work(path) as db:
        return verdicts_version(db)


def _verdict(rid: str, cid: str, *, repeat: int, label: str | None = "pass", error: str | None = None) -> Verdict:
    return Verdict(**VerdictKey(rid, cid, RUBRIC_SHA, "judge-1", repeat)._asdict(), label=label,
                   reason="r" if label else None, error=error, error_detail="d" if error else None, raw=None,
                   input_tokens=1, output_tokens=1, latency_ms=1.0)


def test_a_new_project_fills_the_table_from_its_first_verdict(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        assert has_verdict_pairs(db)
        assert db.execute("SELECT count(*) FROM verdict_pairs").fetchone()[0] == 8  # 4 runs x 2 constraints
        # the error repeat is kept as an error, not a label
        assert db.execute("SELECT pattern FROM verdict_pairs WHERE run_record_id = 'run-a-3'"
                          " AND constraint_id = 'polite'").fetchone()[0] == "0\x1f=pass\x1d1\x1f\x1e\x1d2\x1f=pass"
    _exact(path)


def test_every_verdict_write_keeps_the_table_exact_and_moves_the_version(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    versions = [_version(path)]

    def step() -> None:
        _exact(path)
        versions.append(_version(path))
        assert versions[-1] != versions[-2]

    # the judge's writer: the retry upsert turns the error row into a label (an UPDATE), a late error for a stored
    # label changes nothing, and a new repeat is inserted
    sink = av.SqliteVerdictSink(path, "b")
    db = ann.connect(path)
    try:
        sink.commit(db, [_verdict("run-a-3", "polite", repeat=1),
                         _verdict("run-a-1", "grounded", repeat=0, label=None, error="timeout"),
                         _verdict("run-a-1", "grounded", repeat=3, label="fail")])
    finally:
        db.close()
        sink.close()
    step()
    with ann.unit_of_work(path) as db:
        assert db.execute("SELECT pattern FROM verdict_pairs WHERE run_record_id = 'run-a-3'"
                          " AND constraint_id = 'polite'").fetchone()[0] == "0\x1f=pass\x1d1\x1f=pass\x1d2\x1f=pass"
        top, count = db.execute("SELECT max(id), count(*) FROM verdicts").fetchone()
        row = db.execute("SELECT * FROM verdicts WHERE id = ?", [top]).fetchone()
    # the newest verdict replaced under the same row id with another label: count and largest id do not move
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("DELETE FROM verdicts WHERE id = ?", [top])
        db.execute("INSERT INTO verdicts (id, run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                   " created_at) VALUES (?, ?, ?, ?, ?, ?, 'pass', ?)", [top, *row[1:6], row[-1]])
        assert db.execute("SELECT max(id), count(*) FROM verdicts").fetchone() == (top, count)
    step()
    # a verdict deleted below the top, then another stored by hand under that row id: count and largest id are
    # where the delete left them, so the insert itself must move the version
    with ann.unit_of_work(path) as db, ann.write(db):
        low = db.execute("SELECT * FROM verdicts WHERE id < ? ORDER BY id LIMIT 1", [top]).fetchone()
        db.execute("DELETE FROM verdicts WHERE id = ?", [low[0]])
    step()
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("INSERT INTO verdicts (id, run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                   " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   [low[0], *low[1:6], "fail" if low[6] == "pass" else "pass", low[-1]])
    step()
    # one repeat deleted, then a pair's every verdict deleted (its row goes)
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("DELETE FROM verdicts WHERE run_record_id = 'run-a-2' AND constraint_id = 'grounded'"
                   " AND repeat = 0")
    step()
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("DELETE FROM verdicts WHERE run_record_id = 'run-a-4' AND constraint_id = 'polite'")
        assert db.execute("SELECT count(*) FROM verdict_pairs WHERE run_record_id = 'run-a-4'"
                          " AND constraint_id = 'polite'").fetchone()[0] == 0
    step()
    # an UPDATE of a key column moves a verdict to another pair: both pairs are recomputed
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("UPDATE verdicts SET run_record_id = 'run-b-1' WHERE run_record_id = 'run-a-1'"
                   " AND constraint_id = 'polite' AND repeat = 2")
    step()
    # an update that touches no label (a batch id) still keeps it exact and still moves the version
    with ann.unit_of_work(path) as db, ann.write(db):
        db.execute("UPDATE verdicts SET batch_id = 'x'")
    step()


def test_import_verdicts_and_a_refused_import_keep_the_table_exact(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    good = tmp_path / "v.jsonl"
    rows = [{"run_record_id": f"run-b-{n}", "constraint_id": "polite", "rubric_sha256": RUBRIC_SHA,
             "judge_model": "judge-2", "repeat": rep, "label": "pass" if (n + rep) % 3 else "fail"}
            for n in range(1, 5) for rep in range(3)]
    good.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = _version(path)
    assert main(["--db", str(path), "import", "verdicts", str(good)]) == 0
    _exact(path)
    assert _version(path) != before
    with ann.unit_of_work(path) as db:
        assert db.execute("SELECT count(*) FROM verdict_pairs WHERE judge_model = 'judge-2'").fetchone()[0] == 4
    bad = tmp_path / "bad.jsonl"
    fresh = [dict(r, judge_model="judge-3") for r in rows]
    fresh[5]["repeat"] = "x"  # the file is refused: nothing of it lands, in verdicts or in the pairs
    bad.write_text("".join(json.dumps(r) + "\n" for r in fresh))
    with ann.unit_of_work(path) as db:
        stored = _stored(db.conn)
    assert main(["--db", str(path), "import", "verdicts", str(bad)]) == 2
    with ann.unit_of_work(path) as db:
        assert _stored(db.conn) == stored
    _exact(path)


def _without_migration(src: Path, dst: Path) -> sqlite_utils.Database:
    """A copy as a project built before migration 015 looks (a read-only open of one reads it as it is)."""
    shutil.copy(src, dst)
    conn = sqlite3.connect(dst)
    conn.executescript("DROP TRIGGER verdict_pairs_insert; DROP TRIGGER verdict_pairs_insert_behind;"
                       " DROP TRIGGER verdict_pairs_update;"
                       " DROP TRIGGER verdict_pairs_delete; DROP TRIGGER verdicts_gap_insert; DROP TABLE verdict_pairs;"
                       " DELETE FROM table_rewrites WHERE name = 'verdicts';"
                       " DELETE FROM _migrations WHERE name IN ('015_verdict_pairs', '019_pair_rowids');")
    conn.close()
    conn = sqlite3.connect(f"file:{dst}?mode=ro", uri=True, check_same_thread=False)
    return sqlite_utils.Database(conn)


def _labels(loaded: dict) -> dict:
    return {key: list((p, dict(v.labels)) for p, v in group.items()) for key, group in loaded.items()}


def test_without_the_migration_the_report_reads_the_verdicts_and_gives_the_same_numbers(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=1.0, overlap=0.5, seed=1)
        with ann.write(db):  # a repeat stored out of order and a second judge on some pairs
            db.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                       " created_at) VALUES ('run-b-2', 'polite', ?, 'judge-1', 2, 'fail', 'x'),"
                       " ('run-b-2', 'polite', ?, 'judge-1', 0, 'pass', 'x')", [RUBRIC_SHA, RUBRIC_SHA])
        new = (_labels(load_verdicts(db, reasons=False)), calibration_report(db).to_json())
        row_by_row = _labels(load_verdicts(db, reasons=True))
        version = verdicts_version(db)
    old = _without_migration(path, tmp_path / "old.db")
    try:
        assert not has_verdict_pairs(old)
        assert (_labels(load_verdicts(old, reasons=False)), calibration_report(old).to_json()) == new
        assert verdicts_version(old) != version  # the old key: the verdicts' tail, read from the table
    finally:
        old.close()
    assert new[0] == row_by_row


def test_the_migration_fills_an_existing_project(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    old = _without_migration(path, tmp_path / "old.db")
    old.close()
    conn = sqlite3.connect(tmp_path / "old.db")  # verdicts written while the project had no migration 015
    conn.execute("DELETE FROM verdicts WHERE run_record_id = 'run-a-1' AND repeat = 0")
    conn.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, error,"
                 " created_at) VALUES ('run-b-3', 'grounded', ?, 'judge-9', 0, 'timeout', 'x')", [RUBRIC_SHA])
    conn.commit()
    conn.close()
    with ann.unit_of_work(tmp_path / "old.db") as db:  # opening it migrates
        assert has_verdict_pairs(db)
    _exact(tmp_path / "old.db")


def test_kept_population_and_coverage_follow_new_run_records(tmp_path: Path) -> None:
    """The population count is memoised under the verdicts' version (shared by the report and `coverage`): a new run
    record with no verdict moves that version (its run records' part) and so the population."""
    from judgecal.annotations.review import coverage
    from conftest import _run

    path = seed_project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        ann.draw_sample(db, rate=1.0, overlap=0.5, seed=1)
        before = coverage(db, version=verdicts_version(db))
        assert before == coverage(db)
    runs = tmp_path / "more.jsonl"
    runs.write_text("".join(json.dumps(dict(_run(n, "model-a"), id=f"run-c-{n}")) + "\n" for n in range(1, 4)))
    assert main(["--db", str(path), "import", "runs", str(runs)]) == 0
    with ann.unit_of_work(path) as db:
        after = coverage(db, version=verdicts_version(db))
        assert after == coverage(db)
        assert [c.population for c in after] != [c.population for c in before]


def test_the_judge_writer_fed_from_many_threads_keeps_the_table_exact(tmp_path: Path) -> None:
    """Verdicts handed to the writer thread from 8 worker threads, each repeat first an error row and then its
    retry's label (the upsert's UPDATE), in whatever order the threads interleave."""
    import threading

    path = seed_project(tmp_path / "p.db")
    pairs = [(f"run-{m}-{n}", cid) for m in "ab" for n in range(1, 5) for cid in ("grounded", "polite")]
    sink = av.SqliteVerdictSink(path, "b")

    def work(k: int) -> None:
        for rid, cid in pairs[k::8]:
            for repeat in range(3, 7):
                sink.save(_verdict(rid, cid, repeat=repeat, label=None, error="timeout"))
                sink.save(_verdict(rid, cid, repeat=repeat, label="fail" if (repeat + k) % 3 else "pass"))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sink.close()
    _exact(path)
    with ann.unit_of_work(path) as db:
        assert db.execute("SELECT count(*) FROM verdicts WHERE error IS NOT NULL AND repeat >= 3").fetchone()[0] == 0
        assert db.execute("SELECT min(n) FROM verdict_pairs WHERE judge_model = 'judge-1'").fetchone()[0] >= 4


def test_the_report_resumes_the_garbage_collector_after_it_and_after_a_failure(tmp_path: Path) -> None:
    import gc

    import pytest

    path = seed_project(tmp_path / "p.db")
    assert gc.isenabled()
    with ann.unit_of_work(path) as db:
        calibration_report(db)
        assert gc.isenabled()
        with pytest.raises(ValueError):
            calibration_report(db, rubric="no-such-rubric")
        assert gc.isenabled()
        gc.disable()
        try:
            calibration_report(db)
            assert not gc.isenabled()  # a caller that paused it keeps it paused
        finally:
            gc.enable()


# An insert after every stored repeat (and verdict id) of its pair appends to the pair's row; any other insert
# recomputes it. The attacks on the append: a repeat that arrives late, a verdict id below the pair's first, a
# refused duplicate, error rows, labels holding the separators, and each trigger alone (exactly one must fire).

def _insert(db, rid: str, cid: str, repeat: int, label: str | None, *, judge: str = "judge-7",
            vid: int | None = None) -> None:
    db.execute("INSERT INTO verdicts (id, run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
               " error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'x')",
               [vid, rid, cid, RUBRIC_SHA, judge, repeat, label, None if label is not None else "timeout"])


def _row(db, rid: str, cid: str, judge: str = "judge-7") -> tuple | None:
    return db.execute("SELECT id, n, pattern FROM verdict_pairs WHERE run_record_id = ? AND constraint_id = ?"
                      " AND judge_model = ?", [rid, cid, judge]).fetchone()


def test_repeats_in_order_error_rows_and_separator_labels_are_appended_exactly(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    odd = "a\x1fb\x1d=c\x1e"  # every separator the pattern text uses, and the label marker
    with ann.unit_of_work(path) as db, ann.write(db):
        _insert(db, "run-b-1", "polite", 0, "pass")
        first = db.execute("SELECT max(id) FROM verdicts").fetchone()[0]
        assert _row(db, "run-b-1", "polite") == (first, 1, "0\x1f=pass")
        _insert(db, "run-b-1", "polite", 1, None)       # an error row: a part, never a label
        _insert(db, "run-b-1", "polite", 2, odd)
        _insert(db, "run-b-1", "polite", 7, "fail")     # a gap in the repeats is still in order
        _insert(db, "run-a-1", "polite", 3, "fail", judge="judge-1")  # after the seed's repeats 0-2
        assert _row(db, "run-b-1", "polite") == (
            first, 4, f"0\x1f=pass\x1d1\x1f\x1e\x1d2\x1f={odd}\x1d7\x1f=fail")
        assert _row(db, "run-a-1", "polite", "judge-1")[1:] == (4, "0\x1f=pass\x1d1\x1f=pass\x1d2\x1f=pass\x1d3\x1f=fail")
    _exact(path)
    # what the report reads from the appended text: the separator label read row by row, the error row as an error
    with ann.unit_of_work(path) as db:
        loaded = _labels(load_verdicts(db, reasons=False))
        assert loaded == _labels(load_verdicts(db, reasons=True))
        assert any(odd in labels.values() for group in loaded.values() for _, labels in group)


def test_a_repeat_below_a_stored_one_or_a_smaller_verdict_id_recomputes_the_pair(tmp_path: Path) -> None:
    path = seed_project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db, ann.write(db):
        for repeat in (0, 1, 3):
            _insert(db, "run-b-2", "grounded", repeat, "pass")
        _insert(db, "run-b-2", "grounded", 2, "fail")   # 2 after 3: in repeat order in the text, not at its end
        assert _row(db, "run-b-2", "grounded")[1:] == (4, "0\x1f=pass\x1d1\x1f=pass\x1d2\x1f=fail\x1d3\x1f=pass")
        # repeats in order but a verdict id below the pair's first: the row takes the smallest id
        _insert(db, "run-b-3", "polite", 0, "pass", vid=5000)
        _insert(db, "run-b-3", "polite", 1, "fail", vid=4000)
        assert _row(db, "run-b-3", "polite") == (4000, 2, "0\x1f=pass\x1d1\x1f=fail")
        _insert(db, "run-b-3", "polite", 2, "pass", vid=6000)  # then in order again: appended, id kept
        assert _row(db, "run-b-3", "polite") == (4000, 3, "0\x1f=pass\x1d1\x1f=fail\x1d2\x1f=pass")
    _exact(path)


def test_a_duplicate_repeat_refused_by_the_unique_index_leaves_the_table_unchanged(tmp_path: Path) -> None:
    import pytest

    path = seed_project(tmp_path / "p.db")
    with ann.unit_of_work(path) as db, ann.write(db):
        _insert(db, "run-b-4", "polite", 0, "pass")
        _insert(db, "run-b-4", "polite", 1, "pass")
        before = _stored(db.conn)
        for repeat in (1, 0):  # the last repeat again (it would be "in order" if the index let it in), the first
            with pytest.raises(sqlite3.IntegrityError):
                _insert(db, "run-b-4", "polite", repeat, "fail")
        assert _stored(db.conn) == before
    with ann.unit_of_work(path) as db:
        assert _stored(db.conn) == before
    _exact(path)


def test_exactly_one_insert_trigger_fires(tmp_path: Path) -> None:
    """Each trigger alone on a copy: the append one keeps in-order inserts exact and leaves late ones alone, the
    recompute one the reverse — so with both, each insert is handled once, whichever SQLite runs first."""
    path = seed_project(tmp_path / "p.db")
    for kept, dropped in (("verdict_pairs_insert", "verdict_pairs_insert_behind"),
                          ("verdict_pairs_insert_behind", "verdict_pairs_insert")):
        copy = tmp_path / f"{kept}.db"
        shutil.copy(path, copy)
        conn = sqlite3.connect(copy, isolation_level=None)
        conn.execute(f"DROP TRIGGER {dropped}")
        before = _stored(conn)
        _insert(conn, "run-a-2", "polite", 3, "fail", judge="judge-1")  # in order
        in_order = _stored(conn)
        _insert(conn, "run-a-4", "grounded", 0, "fail", judge="judge-9")
        _insert(conn, "run-a-4", "grounded", 2, "fail", judge="judge-9")
        _insert(conn, "run-a-4", "grounded", 1, "pass", judge="judge-9")  # late
        late_pattern = _row(conn, "run-a-4", "grounded", "judge-9")[2]
        if kept == "verdict_pairs_insert":
            assert in_order == _recomputed_after(before, conn, "run-a-2", "polite", "judge-1")
            assert late_pattern == "0\x1f=fail\x1d2\x1f=fail"  # the late repeat is not its to handle
        else:
            assert in_order == before
            assert late_pattern == "0\x1f=fail\x1d1\x1f=pass\x1d2\x1f=fail"
        conn.close()


def _recomputed_after(before: set[tuple], conn, rid: str, cid: str, judge: str) -> set[tuple]:
    """`before` with one pair's row as `verdicts` now gives it."""
    fresh = {r for r in _recomputed(conn) if r[1] == judge and r[3] == rid and r[4] == cid}
    return {r for r in before if not (r[1] == judge and r[3] == rid and r[4] == cid)} | fresh


def test_an_import_written_sixty_rows_a_statement_keeps_every_row_and_the_table_exact(tmp_path: Path) -> None:
    """`import verdicts` writes 60 rows a statement: 131 rows are three statements, pairs split across their
    boundaries, and some pairs' repeats come out of order within the file (repeat 2 before 1)."""
    path = seed_project(tmp_path / "p.db")
    rows = [{"run_record_id": f"run-{m}-{n}", "constraint_id": cid, "rubric_sha256": RUBRIC_SHA,
             "judge_model": f"judge-x{j}", "repeat": rep, "label": None if (n + rep + j) % 7 == 0 else "pass",
             "error": "timeout" if (n + rep + j) % 7 == 0 else None}
            for j in range(9) for m in "ab" for n in range(1, 5) for cid in ("grounded", "polite")
            for rep in ((0, 2, 1) if (j + n) % 3 == 0 else (0, 1))][:131]
    assert len(rows) == 131
    file = tmp_path / "v.jsonl"
    file.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in rows))
    assert main(["--db", str(path), "import", "verdicts", str(file)]) == 0
    with ann.unit_of_work(path) as db:
        assert db.execute("SELECT count(*) FROM verdicts WHERE judge_model LIKE 'judge-x%'").fetchone()[0] == 131
    _exact(path)
