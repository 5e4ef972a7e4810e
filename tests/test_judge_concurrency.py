"""The judged path at high concurrency (issue 16.6): the writer's group hand-off, the multi-row verdict upsert and
the lease claim by set look-ups keep what the per-row versions guaranteed. Real SQLite files in tmp_path."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.annotations.store._batches import claim_leases  # house: private
from judgecal.annotations.store._verdicts import _verdicts_done, verdict_lease_key  # house: private
from judgecal.annotations.store import QueuedWriter, WriterError
from judgecal.judge import shipped_rubric
from judgecal.judge._runner import Verdict, VerdictKey  # house: private
from test_judge_fixtures import make_project


def _verdict(rid: str, cid: str, sha: str, *, label: str | None = "pass", error: str | None = None) -> Verdict:
    return Verdict(**VerdictKey(rid, cid, sha, "judge-x", 0)._asdict(), label=label, reason="r" if label else None,
                   error=error, error_detail="d" if error else None, raw=None, input_tokens=1, output_tokens=1,
                   latency_ms=1.0)


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    db = make_project(tmp_path / "p.db", n_items=80, label_sets=False)
    rubric = shipped_rubric()
    with ann.unit_of_work(db) as conn:
        av.store_rubric(conn, rubric.name, rubric.template, rubric.sha256)
    return db, rubric.sha256


def _stored(db: Path) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    with ann.unit_of_work(db) as conn:
        return {(r, c): (label, error) for r, c, label, error in
                conn.execute("SELECT run_record_id, constraint_id, label, error FROM verdicts")}


def test_a_group_larger_than_one_statement_keeps_every_row_and_the_upsert_rules(project) -> None:
    db, sha = project
    rows = [_verdict(f"run-{n}-0", cid, sha) for n in range(80) for cid in ("grounded", "polite")]  # 160 > 60 a statement
    # Within one group, in order: an error then its retry's label (the label replaces it), a label then a late error
    # for the same key (the label stays).
    rows[100] = _verdict("run-50-0", "grounded", sha, label=None, error="timeout")
    rows.append(_verdict("run-50-0", "grounded", sha))
    rows.append(_verdict("run-0-0", "grounded", sha, label=None, error="timeout"))
    sink = av.SqliteVerdictSink(db, "b")
    conn = ann.connect(db)
    try:
        sink.commit(conn, rows)
    finally:
        conn.close()
        sink.close()
    stored = _stored(db)
    assert len(stored) == 160
    assert stored[("run-50-0", "grounded")] == ("pass", None)
    assert stored[("run-0-0", "grounded")] == ("pass", None)


def test_a_bad_row_in_a_big_group_becomes_one_error_row(project) -> None:
    db, sha = project
    rows = [_verdict(f"run-{n}-0", "polite", sha) for n in range(80)]
    rows[70] = rows[70]._replace(error="timeout")  # a label and an error: the sink refuses to store it
    with av.SqliteVerdictSink(db, "b") as sink:
        for v in rows:
            sink.save(v)
    with ann.unit_of_work(db) as conn:
        labels = conn.execute("SELECT count(*) FROM verdicts WHERE label IS NOT NULL").fetchone()[0]
    assert labels == 79
    assert len(sink.replaced) == 1 and sink.replaced[0][0] == rows[70]
    assert _stored(db)[("run-70-0", "polite")] == (None, "unstorable")


class _Groups(QueuedWriter[int]):
    MAX_GROUP = 50

    def __init__(self, path: Path):
        self.groups: list[list[int]] = []
        super().__init__(path)

    def commit(self, db, rows):
        with ann.write(db):
            db.conn.executemany("INSERT INTO t (x) VALUES (?)", [(r,) for r in rows])
        self.groups.append(list(rows))


def test_rows_from_many_threads_are_all_committed_in_bounded_groups(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with ann.unit_of_work(path):
        pass
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x INTEGER NOT NULL)")
    conn.commit()
    conn.close()
    writer = _Groups(path)

    def work(k: int) -> None:
        for n in range(500):
            writer.save(k * 1000 + n)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    saved = sorted(k * 1000 + n for k in range(16) for n in range(500))
    assert sorted(x for g in writer.groups for x in g) == saved
    assert max(len(g) for g in writer.groups) <= 50
    assert writer.committed == len(saved)
    with pytest.raises(WriterError, match="closed"):
        writer.save(1)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == len(saved)
    conn.close()


def test_claim_with_one_look_up_agrees_with_the_key_by_key_claim(project) -> None:
    db, sha = project
    keys = [(f"run-{n}-0", cid, sha, "judge-x", rep) for n in range(80) for cid in ("grounded", "polite")
            for rep in range(6)]  # 960 keys: more than one 900-key look-up
    lease = {verdict_lease_key(k): k for k in keys}
    with ann.unit_of_work(db) as conn:
        live = av.start_batch(conn, {}, kind="judge")
        gone = av.start_batch(conn, {}, kind="judge")
        av.finish_batch(conn, gone, "failed", {})
    with av.SqliteVerdictSink(db, "b") as sink:  # done: 10 labels and an error row (asked again, not done)
        for k in keys[:10]:
            sink.save(_verdict(k[0], k[1], sha)._replace(repeat=k[4]))
        sink.save(_verdict(keys[10][0], keys[10][1], sha, label=None, error="timeout")._replace(repeat=keys[10][4]))
    with ann.unit_of_work(db) as conn:
        with ann.write(conn):
            conn.conn.executemany("INSERT INTO leases (key, batch_id, expires_at) VALUES (?, ?, 9e18)",
                                  [(verdict_lease_key(k), live) for k in keys[20:30]]
                                  + [(verdict_lease_key(k), gone) for k in keys[30:40]])
    with ann.unit_of_work(db) as conn:
        one = claim_leases(conn, "mine-1", list(lease), done_of=lambda d, ks: _verdicts_done(d, ks, lease))
    with ann.unit_of_work(db) as conn:
        with ann.write(conn):
            conn.execute("DELETE FROM leases WHERE batch_id = 'mine-1'")
        per_key = claim_leases(conn, "mine-1", list(lease),
                               lambda d, k: k in _verdicts_done(d, [k], lease))
    assert (one.done, one.elsewhere, len(one.keys)) == (10, 10, 940)
    assert one == per_key
    with ann.unit_of_work(db) as conn:
        with pytest.raises(ValueError, match="exactly one"):
            claim_leases(conn, "mine-2", list(lease))
