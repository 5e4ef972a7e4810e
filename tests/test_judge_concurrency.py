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


# --------------------------------------------------------------------------- the judge's own CPU per call (16.6)


def _random_json(rng, depth: int = 0):
    r = rng.random()
    if depth > 4 or r < 0.5:
        return rng.choice([None, True, False, 0, -5, 2**70, 1.5, -0.0, 1e300, float("nan"), float("inf"),
                           float("-inf"), "", 'q"b\\s\n\t\x00\x1f\x7f', "é ü 中文 \u2028 \ud800", "x" * rng.randint(0, 5)])
    if r < 0.75:
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["a", "b", "é", "", "z\n", "\ud83d", '"']) + str(rng.randint(0, 9)): _random_json(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


def test_an_item_input_renders_byte_for_byte_as_json_dumps_did() -> None:
    """The prompt must not change: the fast renderer is compared with json.dumps, its reference, on random nested
    values (escapes, lone surrogates, NaN/Infinity, big ints, empty containers, unicode keys) and on values
    json.dumps refuses or treats specially (it still decides those, errors included)."""
    import json
    import random

    from judgecal.judge._rubric import render_input  # house: private

    rng = random.Random(16_6)
    for _ in range(5000):
        value = _random_json(rng)
        if value is None or isinstance(value, str):
            continue
        assert render_input(value) == json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
    assert render_input({"b": (1, 2), "a": {}}) == json.dumps({"b": (1, 2), "a": {}}, ensure_ascii=False, indent=2,
                                                              sort_keys=True)
    assert render_input({"a": {2: 1, 1.5: 2}}) == json.dumps({"a": {2: 1, 1.5: 2}}, ensure_ascii=False, indent=2,
                                                             sort_keys=True)
    with pytest.raises(TypeError, match="not JSON serializable"):
        render_input({"a": object()})
    with pytest.raises(TypeError):
        render_input({1: "a", "b": 2})  # json.dumps cannot sort mixed keys either
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        render_input(loop)
    assert render_input(None) == "(no input)" and render_input("text") == "text"


def test_rendering_prompts_leaves_no_cyclic_garbage() -> None:
    """json.dumps(indent=2) left a reference cycle per call; at --concurrency 256 the plan's prompts made the batch
    run the garbage collector ~5x as often as a bare SDK loop. Rendering must free everything by reference count."""
    import gc

    from judgecal.judge._rubric import render_input  # house: private

    value = {"messages": [{"role": "user", "content": "hi", "n": [1, 2.5, None, True]}], "extra": {"k": "v"}}
    gc.collect()
    gc.disable()
    try:
        for _ in range(200):
            render_input(value)
        assert gc.collect() == 0
    finally:
        gc.enable()


@pytest.mark.parametrize("content", [
    '{"label": "pass", "reason": "ok"}', '{"label": "fail", "reason": ""}', '{"reason": "r", "label": "pass"}',
    '{"label": "pass", "reason": "\\ud800 lone"}', '{"label": "maybe", "reason": "r"}', '{"label": "pass"}',
    '{"label": "pass", "reason": "r", "extra": 1}', '{"label": "pass", "reason": 3}', '{"label": 1, "reason": "r"}',
    '{"label": null, "reason": "r"}', '{"label": "pass", "reason": null}', '["pass"]', '"pass"', 'not json', '',
])
def test_the_parse_fast_path_answers_what_the_verdict_model_answers(content: str) -> None:
    """A clean answer skips building the pydantic model; it must parse exactly as the model would, and anything
    else still goes through the model (its error texts unchanged)."""
    from judgecal.judge._verdict import Parsed, parse_answer, verdict_model  # house: private

    labels = ("pass", "fail")
    got = parse_answer(content, labels)
    try:
        import json

        data = json.loads(content)
        model = verdict_model(labels).model_validate(data)
    except Exception:  # noqa: BLE001 — the model refuses: so must the parser
        assert got.error is not None and got.label is None
    else:
        assert got == Parsed(model.label, model.reason)


def test_a_small_group_is_one_statement_with_the_same_upsert_rules(project) -> None:
    """Groups of up to 60 rows commit as one statement outside a transaction: in order, an error then its retry's
    label (the label replaces it), a label then a late error (the label stays), and a bad row still falls back to
    one error row without losing the others."""
    db, sha = project
    rows = [_verdict("run-1-0", "grounded", sha, label=None, error="timeout"), _verdict("run-1-0", "grounded", sha),
            _verdict("run-2-0", "grounded", sha), _verdict("run-2-0", "grounded", sha, label=None, error="timeout"),
            _verdict("run-3-0", "polite", sha)]
    sink = av.SqliteVerdictSink(db, "b")
    conn = ann.connect(db)
    try:
        sink.commit(conn, rows)
        assert not conn.conn.in_transaction
    finally:
        conn.close()
        sink.close()
    assert _stored(db) == {("run-1-0", "grounded"): ("pass", None), ("run-2-0", "grounded"): ("pass", None),
                           ("run-3-0", "polite"): ("pass", None)}
    bad = [_verdict(f"run-{n}-0", "polite", sha) for n in range(10, 20)]
    bad[4] = bad[4]._replace(error="timeout")  # a label and an error: refused, the other nine are kept
    with av.SqliteVerdictSink(db, "b") as sink:
        for v in bad:
            sink.save(v)
    stored = _stored(db)
    assert stored[("run-14-0", "polite")] == (None, "unstorable")
    assert sum(1 for n in range(10, 20) if stored[(f"run-{n}-0", "polite")] == ("pass", None)) == 9


def test_the_claim_looks_verdicts_up_by_run_record_not_by_rubric(project) -> None:
    """The done look-up of a claim reads the verdicts of the chunk's run records; by the rubric index it walked every
    verdict of the rubric, once per chunk, inside the pool's lock."""
    db, sha = project
    with ann.unit_of_work(db) as conn:
        plan = conn.execute(
            "EXPLAIN QUERY PLAN SELECT run_record_id, constraint_id, repeat FROM verdicts WHERE +rubric_sha256 = ?"
            " AND +judge_model = ? AND error IS NULL AND run_record_id IN (?, ?)", [sha, "m", "a", "b"]).fetchall()
    assert "verdicts_stratum" not in str(plan)
    import inspect

    from judgecal.annotations.store import _verdicts  # house: private

    assert "+rubric_sha256 = ?" in inspect.getsource(_verdicts._verdicts_done)


class _EchoBackend:
    model = "judge-x"
    name = "echo"

    def judge(self, prompt: str, labels: tuple[str, ...], key: str = ""):
        from judgecal.judge import Answer

        return Answer("pass", "ok", None, None, None, 1, 1, 1.0)

    def settings(self) -> dict:
        return {}

    def close(self) -> None:
        pass


def test_the_first_chunk_is_claimed_before_the_workers_start_and_a_failed_claim_still_stops_the_batch(project) -> None:
    from judgecal.judge import run_batch

    db, sha = project
    with ann.unit_of_work(db) as conn:
        pairs = list(ann.semantic_pairs(conn))
    claimers: list[str] = []

    class Sink(av.SqliteVerdictSink):
        def claim(self, keys):
            claimers.append(threading.current_thread().name)
            return super().claim(keys)

    with Sink(db, "b") as sink:
        summary = run_batch(pairs, shipped_rubric(), _EchoBackend(), sink, repeats=1, concurrency=8)
    assert summary.verdicts == len(pairs) and summary.elsewhere == 0
    assert claimers[0] == threading.current_thread().name
    assert len(claimers) == -(-len(pairs) // 64)  # one claim per chunk, the first one included

    class Broken(av.SqliteVerdictSink):
        def claim(self, keys):
            raise sqlite3.OperationalError("disk I/O error")

    with Broken(db, "c") as sink:
        with pytest.raises(RuntimeError, match="judge batch stopped: OperationalError: disk I/O error"):
            run_batch(pairs, shipped_rubric(), _EchoBackend(),
                      sink, repeats=2, concurrency=8)
