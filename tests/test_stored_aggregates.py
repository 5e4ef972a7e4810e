"""Migration 023: the report's pass over every judged pair is stored in the project by the commands that write
verdicts, and read back by `report` and `gate` (which never write) while verdicts, run records and constraints are
unchanged (issue 16.2).

What must hold: a stored pass is read only when it is current, so every report equals one computed afresh with
nothing stored — after each kind of change to the tables the pass reads, after a damaged or foreign row, and under
filters; a reading command never changes the file; a locked project never holds a writer up; no row decodes through
pickle."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (the pass and its codec)
from judgecal.annotations.store import _stored  # house: private (the write's wait)
from conftest import forget_kept, nothing_stored, outputs_under_hash_seeds, run_alone
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


def _report(path: Path, *args: str) -> str:
    rc, out = run_alone(path, "report", "--json", *args)
    assert rc == 0
    return out


def _fresh(path: Path, *args: str) -> str:
    """The report with nothing stored (on a copy: the project itself is left as it is)."""
    return nothing_stored(path, lambda copy: _report(copy, *args))


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT name, args, version, meta, data FROM stored_aggregates ORDER BY args").fetchall()


@pytest.fixture()
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the passes computed (not read back)."""
    calls: list[int] = []
    real = _calibration._sql_pair_pass

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(_calibration, "_sql_pair_pass", counted)
    return calls


def test_the_demo_stores_the_pass_and_report_reads_it_back(demo: Path, passes: list[int]) -> None:
    rows = {r[0]: r for r in _rows(demo)}
    assert json.loads(rows["report_pass"][1]) == []
    meta = json.loads(rows["report_pass"][3])
    assert len(rows["report_pass"][4]) == 8 * meta["n"] and meta["n"] > 0  # two int32 arrays and JSON: no pickle
    got = _report(demo)
    assert passes == []  # read back, not computed
    assert got == _fresh(demo) and passes == [1]
    gate = io.StringIO()
    forget_kept()
    with contextlib.redirect_stdout(gate):
        main(["--db", str(demo), "gate", "--min-kappa", "0.6"])
    assert len(passes) == 1  # the gate read it back too


def test_a_reading_command_never_writes_the_pass(demo: Path, passes: list[int]) -> None:
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    before = demo.read_bytes()
    first = _report(demo)
    assert passes == [1] and _rows(demo) == [] and demo.read_bytes() == before
    assert _report(demo) == first and passes == [1, 1]  # computed again: nothing was stored


# Each change to a table the pass reads, made the way judgecal or a user's SQL would; every one moves the tables'
# versions, so the stored pass is not read and the report equals the fresh one.
CHANGES = {
    "a verdict deleted": "DELETE FROM verdicts WHERE id = (SELECT min(id) FROM verdicts)",
    "a verdict label edited": "UPDATE verdicts SET label = CASE label WHEN 'pass' THEN 'fail' ELSE 'pass' END"
                              " WHERE id = (SELECT max(id) FROM verdicts WHERE label IN ('pass', 'fail'))",
    "a verdict added": "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                       " created_at) SELECT run_record_id, constraint_id, rubric_sha256, judge_model, repeat + 7,"
                       " label, created_at FROM verdicts WHERE error IS NULL LIMIT 1",
    "a constraint's type edited": "UPDATE constraints SET type = type || '-edited'"
                                    " WHERE rowid = (SELECT min(rowid) FROM constraints WHERE check_json IS NULL)",
    "a run record's model edited": "UPDATE run_records SET model = 'another-model'"
                                   " WHERE rowid = (SELECT min(rowid) FROM run_records)",
    "a run record deleted": "DELETE FROM run_records WHERE rowid = (SELECT max(rowid) FROM run_records)",
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_to_what_the_pass_reads_is_never_served_stale(demo: Path, passes: list[int], change: str) -> None:
    before = _report(demo)
    assert passes == []
    with sqlite3.connect(demo) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        assert conn.execute(CHANGES[change]).rowcount == 1
    got = _report(demo)
    assert passes == [1]  # the stored pass was not current
    assert got == _fresh(demo)
    assert got != before or change == "a run record deleted"  # (the demo's last run record may have no verdict)


def test_new_labels_read_the_stored_pass(demo: Path, passes: list[int]) -> None:
    with sqlite3.connect(demo) as conn:
        rid, cid = conn.execute("SELECT run_record_id, constraint_id FROM verdict_pairs ORDER BY id LIMIT 1"
                                ).fetchone()
    path = demo.with_name("labels.jsonl")
    path.write_text(json.dumps({"run_record_id": rid, "constraint_id": cid, "reviewer": "carol", "label": "fail",
                                "blind": True}) + "\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(demo), "import", "labels", str(path)]) == 0
    got = _report(demo)
    assert passes == []
    assert got == _fresh(demo)


def _damage(path: Path, sql: str, *args) -> None:
    with sqlite3.connect(path) as conn:
        assert conn.execute(sql + " WHERE name = 'report_pass'", args).rowcount == 1


DAMAGE = {
    "data cut short": ("UPDATE stored_aggregates SET data = substr(data, 1, length(data) - 4)",),
    "a class number past the classes": ("UPDATE stored_aggregates SET data = ? || substr(data, 5)",
                                        b"\xff\xff\xff\x7f"),
    "a negative item number": ("UPDATE stored_aggregates SET data = substr(data, 1, length(data) - 4) || ?",
                               b"\xff\xff\xff\xff"),
    "meta not JSON": ("UPDATE stored_aggregates SET meta = '{not json'",),
    "meta of another shape": ("UPDATE stored_aggregates SET meta = json_set(meta, '$.classes', 7)",),
    "an item that is not text": ("UPDATE stored_aggregates SET meta = json_set(meta, '$.items[0]', 5)",),
    "a class text with a part missing": ("UPDATE stored_aggregates SET meta = json_set(meta, '$.classes[0]', 'x')",),
    "written by other code": ("UPDATE stored_aggregates SET version = json_set(version, '$[0]', 'other')",),
    "an infinite count": ("UPDATE stored_aggregates SET meta = json_set(meta, '$.n', 9e999)",),
    "meta nested past the recursion limit": ("UPDATE stored_aggregates SET meta = ?",
                                             "[" * 100_000 + "]" * 100_000),
    "a blob holding a pickle": ("UPDATE stored_aggregates SET data = ?",
                                b"\x80\x04\x95" + b"\x00" * 5),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_or_foreign_row_is_computed_again(demo: Path, passes: list[int], damage: str) -> None:
    _damage(demo, *DAMAGE[damage])
    got = _report(demo)
    if damage == "a class text with a part missing":
        # it decodes (a class text is text) into a pass whose class has too few parts, as one of a label holding the
        # separator would: the report reads pair by pair, which still equals the fresh report
        assert got == _fresh(demo)
        return
    assert passes == [1]
    assert got == _fresh(demo)
    with ann.unit_of_work(demo) as db:  # a writing command replaces the row
        ann.store_report_pass(db)
    assert len(passes) == 3
    assert _report(demo) == got and len(passes) == 3


def test_storing_never_waits_on_a_held_lock(demo: Path, passes: list[int], monkeypatch) -> None:
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    holder = sqlite3.connect(demo, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with ann.unit_of_work(demo) as db:
            wait = db.execute("PRAGMA busy_timeout").fetchone()[0]
            ann.store_report_pass(db)  # the lock is held: nothing stored, no error
            assert db.execute("PRAGMA busy_timeout").fetchone()[0] == wait  # the connection's own wait is back
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert passes == [1] and _rows(demo) == []


def test_a_write_inside_the_callers_transaction_is_left_out(demo: Path, passes: list[int]) -> None:
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    with ann.unit_of_work(demo) as db, ann.write(db):
        ann.store_report_pass(db)
    assert passes == [1] and _rows(demo) == []


def test_a_filtered_pass_is_computed_not_stored(demo: Path, passes: list[int]) -> None:
    stored = _rows(demo)
    with ann.unit_of_work(demo) as db:
        cid = db.execute("SELECT constraint_id FROM verdict_pairs ORDER BY id LIMIT 1").fetchone()[0]
        run = db.execute("SELECT run_id FROM run_records ORDER BY rowid LIMIT 1").fetchone()[0]
        _calibration._stored_pass(db, None, None, {cid}, None)
    assert passes == [1] and _rows(demo) == stored  # only the unfiltered pass is stored
    for args in (("--constraint", cid), ("--run-id", run)):
        assert _report(demo, *args) == _fresh(demo, *args)


def test_import_verdicts_stores_the_pass(tmp_path: Path, passes: list[int]) -> None:
    path = tmp_path / "p.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "import", "evalset", str(REPO / "data" / "demo_evalset.jsonl")]) == 0
        for runs in ("demo_runs.jsonl", "demo_boundary_runs.jsonl"):
            assert main(["--db", str(path), "import", "runs", str(REPO / "data" / runs)]) == 0
        assert _rows(path) == []
        assert main(["--db", str(path), "import", "verdicts", str(REPO / "data" / "demo_verdicts.jsonl")]) == 0
    assert sorted(r[0] for r in _rows(path)) == ["blind_first", "draw_orders", "labelled_pair_info", "labelled_sample_rules",
                                              "labelled_verdict_rows", "pair_tally", "population", "random_strata",
                                              "record_covariates", "report_pass"] and passes == [1]
    _report(path)
    assert passes == [1]


def test_code_digest_tells_functions_apart() -> None:
    digest = _stored.code_digest(_calibration._sql_pair_pass)
    assert digest == _stored.code_digest(_calibration._sql_pair_pass)
    assert digest != _stored.code_digest(_calibration._decode_pass)
    assert digest != _stored.code_digest(_calibration._sql_pair_pass, _calibration._decode_pass)


def test_the_population_is_stored_beside_the_pass_and_read_only_while_current(demo: Path) -> None:
    names = [r[0] for r in _rows(demo)]
    assert sorted(names) == ["blind_first", "draw_orders", "labelled_pair_info", "labelled_sample_rules",
                                              "labelled_verdict_rows", "pair_tally", "population", "random_strata",
                                              "record_covariates", "report_pass"]
    fresh = _report(demo)
    assert fresh == _fresh(demo)
    # a stored count that decodes is read back as it is (whoever can write the file could edit the run records
    # too): altering it shows in the report, which proves the report reads it
    with sqlite3.connect(demo) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'population'").fetchone()[0])
        assert meta and all(n > 0 for _, _, n in meta)
        altered = [[cid, model, n + 1000] for cid, model, n in meta]
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = 'population'", [json.dumps(altered)])
    assert _report(demo) != fresh
    # any change to run records moves their version: the altered row is no longer read
    with sqlite3.connect(demo) as conn:
        assert conn.execute("UPDATE run_records SET model = model WHERE rowid = (SELECT min(rowid) FROM run_records)"
                            ).rowcount == 1
    assert _report(demo) == fresh == _fresh(demo)


@pytest.mark.parametrize("meta", ['[["c", "m", -1]]', '[["c", "m", 1.5]]', '[["c", 2, 3]]', '{"c": 1}',
                                  '[["c", "m", 1], ["c", "m", 2]]', '[["c", "m"]]'])
def test_a_damaged_population_is_counted_again(demo: Path, meta: str) -> None:
    with sqlite3.connect(demo) as conn:
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = 'population'", [meta])
    assert _report(demo) == _fresh(demo)


def test_coverage_s_tally_is_stored_and_read_only_while_current(demo: Path) -> None:
    fresh = _report(demo)
    with sqlite3.connect(demo) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'pair_tally'").fetchone()[0])
        assert meta["judged"] and all(n > 0 for *_, n in meta["judged"])
        meta["judged"] = [[cid, model, sha, n + 1000] for cid, model, sha, n in meta["judged"]]
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = 'pair_tally'", [json.dumps(meta)])
    assert _report(demo) != fresh  # read back: the coverage rows' judged counts moved
    with sqlite3.connect(demo) as conn:  # a verdict edited: no longer current
        assert conn.execute("UPDATE verdicts SET reason = reason WHERE id = (SELECT max(id) FROM verdicts)"
                            ).rowcount == 1
    assert _report(demo) == fresh == _fresh(demo)


@pytest.mark.parametrize("change", ['$.judged[0][3]', '$.unjudged', '$.every[0][0]', '$.judged[0][2]'])
def test_a_damaged_tally_is_counted_again(demo: Path, change: str) -> None:
    value = {"$.judged[0][3]": "-2", "$.unjudged": "7", "$.every[0][0]": "3", "$.judged[0][2]": "null"}[change]
    with sqlite3.connect(demo) as conn:
        assert conn.execute(f"UPDATE stored_aggregates SET meta = json_set(meta, '{change}', json(?))"
                            " WHERE name = 'pair_tally'", [value]).rowcount == 1
    assert _report(demo) == _fresh(demo)


def test_the_code_digests_are_the_same_in_every_process() -> None:
    """A stored value is read by another process: the digests must not follow the string hashes a process draws
    (a set literal's frozenset constant has a repr in hash order)."""
    script = ("from judgecal.annotations.reports import _calibration as c; from judgecal.annotations.review import"
              " _sampling as s; print(c._PASS_CODE, s._POPULATION_CODE, s._TALLY_CODE, s._ORDERS_CODE, s._RANDOM_CODE,"
              " c.code_digest(lambda x: x in {'a', 'b', 'c', 'd', 'e', 'f'}))")
    seen = outputs_under_hash_seeds(script)
    assert len(seen) == 1, seen


def test_a_stored_value_is_not_read_under_another_schema(demo: Path, passes: list[int]) -> None:
    """A migration that rewrote a table's stored text without moving its version must not be read through."""
    with sqlite3.connect(demo) as conn:
        conn.execute("INSERT INTO _migrations VALUES ('999_future_rewrite', '2026-12-01T00:00:00Z')")
    from judgecal.annotations.store import _schema  # house: private (the known migrations)

    known = _schema.MIGRATIONS
    try:
        _schema.MIGRATIONS = known + (_schema.Migration("999_future_rewrite", lambda db: None),)
        got = _report(demo)
        assert passes == [1]
    finally:
        _schema.MIGRATIONS = known
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM _migrations WHERE name = '999_future_rewrite'")
    assert got == _fresh(demo)


def test_a_failure_to_store_is_a_warning_after_the_import_is_committed(tmp_path: Path, monkeypatch, capsys) -> None:
    path = tmp_path / "p.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "import", "evalset", str(REPO / "data" / "demo_evalset.jsonl")]) == 0
        for runs in ("demo_runs.jsonl", "demo_boundary_runs.jsonl"):
            assert main(["--db", str(path), "import", "runs", str(REPO / "data" / runs)]) == 0

    def broken(*a, **k):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(_calibration, "_sql_pair_pass", broken)
    capsys.readouterr()
    assert main(["--db", str(path), "import", "verdicts", str(REPO / "data" / "demo_verdicts.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "stored aggregates were not updated (OperationalError: disk I/O error)" in err
    with sqlite3.connect(path) as conn:  # the verdicts are in; the pass is not stored
        assert conn.execute("SELECT count(*) FROM verdicts").fetchone()[0] > 0
        assert conn.execute("SELECT count(*) FROM stored_aggregates WHERE name = 'report_pass'").fetchone()[0] == 0
    monkeypatch.undo()
    assert _report(path) == _fresh(path)


def test_import_llmbar_stores_the_pass(tmp_path: Path, passes: list[int]) -> None:
    # It writes items, run records and verdicts: without storing, the next report and gate compute the pass again.
    rows = [{"item_id": f"x/{k}", "dataset": "X", "instruction": f"Say hi {k}", "output_1": "hi", "output_2": "yo",
             "human_label": 1 + k % 2, "judge_s_order_original": 1 + (k // 2) % 2, "judge_s_order_swapped": 2}
            for k in range(6)]
    f = tmp_path / "llmbar.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    path = tmp_path / "p.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "import", "llmbar", str(f)]) == 0
    assert sorted(r[0] for r in _rows(path)) == ["blind_first", "draw_orders", "labelled_pair_info", "labelled_sample_rules",
                                              "labelled_verdict_rows", "pair_tally", "population", "random_strata",
                                              "record_covariates", "report_pass"] and passes == [1]
    got = _report(path)
    assert passes == [1] and got == _fresh(path)


def test_judge_pairwise_stores_the_pass(tmp_path: Path, passes: list[int]) -> None:
    from openai_stub import StubServer, by_position

    items, runs = tmp_path / "items.jsonl", tmp_path / "runs.jsonl"
    items.write_text("".join(json.dumps({"id": f"it-{n}", "instruction": f"Answer {n}.", "constraints": [
        {"id": "correct", "text": "The answer is correct.", "type": "content"}]}) + "\n" for n in range(4)))
    runs.write_text("".join(json.dumps({"id": f"{r}-{n}", "item_id": f"it-{n}", "model": f"model-{r}", "run_id": r,
                                        "output": f"answer {n}"}) + "\n" for r in ("ra", "rb") for n in range(4)))
    path = tmp_path / "p.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "import", "evalset", str(items)]) == 0
        assert main(["--db", str(path), "import", "runs", str(runs)]) == 0
        with StubServer(by_position("output_1")) as s:
            assert main(["--db", str(path), "judge", "--pairwise", "ra", "rb", "--model", "j", "--base-url", s.url,
                         "--api-key", "x", "--quiet"]) == 0
    assert sorted(r[0] for r in _rows(path)) == ["blind_first", "draw_orders", "labelled_pair_info", "labelled_sample_rules",
                                              "labelled_verdict_rows", "pair_tally", "population", "random_strata",
                                              "record_covariates", "report_pass"] and passes == [1]
    got = _report(path)
    assert passes == [1] and got == _fresh(path)


def _orders(path: Path) -> dict:
    """The counted pairs' draw orders as a reading command finds them (stored, or computed when not current)."""
    from judgecal.annotations.review import _sampling  # house: private (its memo)

    forget_kept()
    with ann.unit_of_work(path, readonly=True) as db:
        return _sampling.counted_pairs(db).order


def _computed_orders(path: Path) -> dict:
    from judgecal.annotations.review import _sampling  # house: private (the orders' definition)

    with ann.unit_of_work(path, readonly=True) as db:
        return _sampling._draw_orders(db)


def _read_back(demo: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> str:
    """The report, with the sample module's `name` never called (its value read back); equal to the fresh one."""
    from judgecal.annotations.review import _sampling  # house: private (the stored values' definitions)

    fresh = _fresh(demo)
    computed = []
    real = getattr(_sampling, name)
    monkeypatch.setattr(_sampling, name, lambda *a, **k: computed.append(1) or real(*a, **k))
    assert _report(demo) == fresh and computed == []
    monkeypatch.setattr(_sampling, name, real)
    return fresh


def test_the_draw_orders_are_stored_and_read_only_while_current(demo: Path, monkeypatch) -> None:
    fresh = _read_back(demo, monkeypatch, "_draw_orders")
    orders = _computed_orders(demo)
    assert _orders(demo) == orders and orders
    # a stored order that decodes is read back as it is: reversed, it is what a reader gets (proves it is read) ...
    with sqlite3.connect(demo) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'draw_orders'").fetchone()[0])
        meta["records"].reverse()
        meta["populations"].reverse()
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = 'draw_orders'", [json.dumps(meta)])
    assert _orders(demo) != orders
    # ... until a sample row or a run record changes: then it is computed again
    with sqlite3.connect(demo) as conn:
        assert conn.execute("UPDATE samples SET seed = seed WHERE rowid = (SELECT max(rowid) FROM samples)"
                            ).rowcount == 1
    assert _orders(demo) == _computed_orders(demo) == orders
    assert _report(demo) == fresh


def test_a_run_record_change_makes_the_stored_orders_stale(demo: Path) -> None:
    orders = _orders(demo)
    with sqlite3.connect(demo) as conn:  # a random pair's run record moved to another model: another population
        rid = conn.execute("SELECT run_record_id FROM samples WHERE rule = 'random' LIMIT 1").fetchone()[0]
        assert conn.execute("UPDATE run_records SET model = 'another-model' WHERE id = ?", [rid]).rowcount == 1
    got = _orders(demo)
    assert got == _computed_orders(demo) and got != orders
    assert any(model == "another-model" for _, model in got)


@pytest.mark.parametrize("damage", ["text record", "short", "long", "empty population", "twice", "data", "shape"])
def test_damaged_draw_orders_are_computed_again(demo: Path, damage: str) -> None:
    orders = _orders(demo)
    with sqlite3.connect(demo) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'draw_orders'").fetchone()[0])
        pops, data = meta["populations"], b""
        if damage == "text record":
            meta["records"][0] = 7
        elif damage == "short":
            meta["records"].pop()
        elif damage == "long":
            meta["records"].append("extra")
        elif damage == "empty population":
            pops.append([pops[0][0], "m-empty", 0])
        elif damage == "twice":
            pops[1] = [pops[0][0], pops[0][1], pops[1][2]]
        elif damage == "data":
            data = b"\x00"
        else:
            meta = [meta["populations"], meta["records"]]
        conn.execute("UPDATE stored_aggregates SET meta = ?, data = ? WHERE name = 'draw_orders'",
                     [json.dumps(meta), data])
    assert _orders(demo) == orders == _computed_orders(demo)
    assert _report(demo) == _fresh(demo)


@pytest.mark.parametrize("argv", [[], ["--run-id", "demo-run-b"]])
def test_sample_stores_the_draw_orders(demo: Path, argv: list[str]) -> None:
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(demo), "sample", "--rate", "0.2", *argv]) == 0
    # and the labelled pairs' sample rules it moved (tests/test_stored_label_side.py)
    assert sorted(r[0] for r in _rows(demo)) == ["draw_orders", "labelled_sample_rules", "random_strata"]
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM samples WHERE 0")  # nothing: the stored row stays current
    assert _orders(demo) == _computed_orders(demo)
    before = demo.read_bytes()
    _orders(demo)
    assert demo.read_bytes() == before


def _random_strata(path: Path, stored: bool) -> tuple:
    from judgecal.annotations.review import _sampling  # house: private (coverage's random strata)

    with ann.unit_of_work(path, readonly=True) as db:
        got = _sampling._stored_random_pairs(db) if stored else _sampling._random_pairs(db, False, None)
    return list(got[0].items()), list(got[1].items())


def test_coverage_s_random_strata_are_stored_and_read_only_while_current(demo: Path, monkeypatch) -> None:
    fresh = _read_back(demo, monkeypatch, "_random_pairs")
    assert _random_strata(demo, True) == _random_strata(demo, False)
    # a stored value that decodes is read back as it is: a stratum's last random pair dropped shows in coverage
    with sqlite3.connect(demo) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'random_strata'"
                                       ).fetchone()[0])
        j = max(range(len(meta["strata"])), key=lambda k: meta["strata"][k][3])  # the stratum with most pairs
        del meta["records"][sum(n for *_, n in meta["strata"][:j + 1]) - 1]
        meta["strata"][j][3] -= 1
        assert meta["strata"][j][3] > 0
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = 'random_strata'", [json.dumps(meta)])
    assert _random_strata(demo, True) != _random_strata(demo, False)
    # ... until what it reads changes: a verdict, a sample row, a constraint or a run record
    with sqlite3.connect(demo) as conn:
        assert conn.execute("UPDATE verdicts SET reason = reason WHERE id = (SELECT max(id) FROM verdicts)"
                            ).rowcount == 1
    assert _random_strata(demo, True) == _random_strata(demo, False)
    assert _report(demo) == fresh


@pytest.mark.parametrize("table", ["samples", "constraints", "run_records", "verdicts"])
def test_each_table_the_random_strata_read_makes_them_stale(demo: Path, table: str) -> None:
    with sqlite3.connect(demo) as conn:  # stored and altered (read back while current), then the table changes
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'random_strata'"
                                       ).fetchone()[0])
        meta["records"].reverse()
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = 'random_strata'", [json.dumps(meta)])
    assert _random_strata(demo, True) != _random_strata(demo, False)
    with sqlite3.connect(demo) as conn:
        assert conn.execute(f"UPDATE {table} SET rowid = rowid WHERE rowid = (SELECT max(rowid) FROM {table})"
                            ).rowcount == 1
    assert _random_strata(demo, True) == _random_strata(demo, False)


@pytest.mark.parametrize("damage", ["text record", "short", "long", "zero", "twice", "null version", "data"])
def test_damaged_random_strata_are_computed_again(demo: Path, damage: str) -> None:
    with sqlite3.connect(demo) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'random_strata'"
                                       ).fetchone()[0])
        rows, data = meta["strata"], b""
        if damage == "text record":
            meta["records"][0] = None
        elif damage == "short":
            meta["records"].pop()
        elif damage == "long":
            meta["records"].append("extra")
        elif damage == "zero":
            rows.append(["c", "m", "sha", 0])
        elif damage == "twice":
            rows[1][:3] = rows[0][:3]
        elif damage == "null version":
            rows[0][2] = None
        else:
            data = b"\x01"
        conn.execute("UPDATE stored_aggregates SET meta = ?, data = ? WHERE name = 'random_strata'",
                     [json.dumps(meta), data])
    assert _random_strata(demo, True) == _random_strata(demo, False)
    assert _report(demo) == _fresh(demo)


def test_a_writing_command_that_only_reads_the_sample_side_stores_nothing(demo: Path) -> None:
    """The sample side is stored by its writers only: a writable connection that computes it on its way (a command
    that may then fail with bad input) leaves the file as it was."""
    from judgecal.annotations.review import _sampling  # house: private (the stored values' readers)

    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM stored_aggregates WHERE name IN ('draw_orders', 'random_strata')")
    forget_kept()
    with ann.unit_of_work(demo) as db:
        assert _sampling.counted_pairs(db).order and _sampling._stored_random_pairs(db)[0]
    assert not {"draw_orders", "random_strata"} & {r[0] for r in _rows(demo)}
