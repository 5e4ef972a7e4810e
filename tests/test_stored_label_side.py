"""What the report reads of every labelled pair whatever its label, kept across processes (issue 16.2): the blind
first labels, the labelled pairs' verdict rows and info, and the labelled records' covariates. The writing commands
store them (`store_label_side`: the verdict writers and `import labels`); `report` and `gate` read them back, or
update them by the labels added since, as the app does within one process.

What must hold: every report equals one computed with nothing stored: after labels were added (a new pair, a second
reviewer, a reveal, past the incremental limit), after a label was changed or deleted, after a change to any other
table a value reads, after a stored label row was replaced behind judgecal's back, after any damage; a reading
command never writes; the code digest covers every helper and constant of the modules involved."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import sys
import types
from collections import Counter
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal.annotations.reports import _calibration, _judge_error  # house: private (the kept values)
from judgecal.annotations.store import _labels, _memo, _stored  # house: private (the kept values, the digest)
from conftest import forget_kept, nothing_stored, outputs_under_hash_seeds, run_alone
from judgecal.cli import main

NAMES = ("blind_first", "labelled_pair_info", "labelled_sample_rules", "labelled_verdict_rows", "record_covariates")


def _run(path: Path, *argv: str) -> str:
    """A reading command as a new process would run it: nothing kept in this one."""
    return run_alone(path, *argv)[1]


def _fresh(path: Path, *argv: str) -> str:
    """The command's output with nothing stored (on a copy: the project itself is left as it is)."""
    return nothing_stored(path, lambda copy: _run(copy, *argv))


def _stored_names(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM stored_aggregates")}


@pytest.fixture()
def project(demo: Path) -> Path:
    """The labelled demo with six pass/fail pairs' labels taken away (the demo labels every semantic pair), and the
    label side stored afresh, as `import labels` leaves it."""
    with sqlite3.connect(demo) as conn:
        assert conn.execute(
            "DELETE FROM human_labels WHERE (run_record_id, constraint_id) IN (SELECT run_record_id, constraint_id"
            " FROM human_labels WHERE label IN ('pass', 'fail') GROUP BY 1, 2 ORDER BY 1 DESC, 2 LIMIT 6)").rowcount
    with ann.unit_of_work(demo) as db:
        ann.store_label_side(db)
    return demo


@pytest.fixture()
def full(project: Path, monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Counts each value computed in full (not read back or updated) on the project (not on `_fresh`'s copy). The
    digests are taken first: they cover the modules, which the counting wrappers change."""
    _calibration._persisted("rows"), _calibration._persisted("info")
    _judge_error._covariates_persisted(), _labels._blind_persisted()
    calls: Counter = Counter()

    def counting(module, name, value, is_full):
        real = getattr(module, name)

        def wrapper(*a, **k):
            if is_full(*a, **k) and "fresh-" not in _memo._db_file(a[0]):  # not `_fresh`'s copy
                calls[value] += 1
            return real(*a, **k)

        monkeypatch.setattr(module, name, wrapper)

    counting(_labels, "_blind_first_scan", "blind_first", lambda db, since, rows: since is None)
    counting(_calibration, "_verdict_rows", "labelled_verdict_rows", lambda db, pairs: pairs is None)
    counting(_calibration, "pair_info_of", "labelled_pair_info", lambda db, pairs, labelled=False: pairs is None)
    counting(_calibration, "_labelled_rules_of", "labelled_sample_rules", lambda db, pairs: pairs is None)
    counting(_judge_error, "record_covariates", "record_covariates", lambda db, record_ids=None: record_ids is None)
    return calls


def _add_labels(path: Path, rows: list[dict]) -> None:
    """Labels appended as the app saves them: through the store, without storing the label side again."""
    text = "\n".join(json.dumps({"blind": True, **row}) for row in rows) + "\n"
    with ann.unit_of_work(path) as db:
        ann.import_labels(db, evalsets.parse_rows(text, ann.HumanLabelRow, file="test.jsonl", id_field=None))


def _unlabelled_pass_fail_pairs(path: Path, n: int) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        found = conn.execute(
            "SELECT vp.run_record_id, vp.constraint_id FROM verdict_pairs vp JOIN run_records r"
            " ON r.id = vp.run_record_id JOIN constraints c ON c.item_id = r.item_id AND c.id = vp.constraint_id"
            " WHERE c.labels LIKE '%\"pass\"%' AND NOT EXISTS (SELECT 1 FROM human_labels h WHERE"
            " h.run_record_id = vp.run_record_id AND h.constraint_id = vp.constraint_id)"
            " GROUP BY 1, 2 ORDER BY 1, 2 LIMIT ?", [n]).fetchall()
    assert len(found) == n
    return found


def _labelled(path: Path) -> tuple[str, str, str, str]:
    """A pass/fail pair with a blind first label: (run record, constraint, reviewer, label)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT run_record_id, constraint_id, reviewer, label FROM human_labels"
                            " WHERE event = 'label' AND blind = 1 AND label IN ('pass', 'fail') ORDER BY id LIMIT 1"
                            ).fetchone()


def test_import_labels_stores_the_label_side_and_a_report_reads_it_back(project: Path, full: Counter) -> None:
    assert set(NAMES) <= _stored_names(project)
    report = _run(project, "report", "--json")
    gate = _run(project, "gate", "--min-kappa", "0.6")
    assert full == Counter()  # every value read back
    assert report == _fresh(project, "report", "--json") and gate == _fresh(project, "gate", "--min-kappa", "0.6")
    with sqlite3.connect(project) as conn:
        meta = json.loads(conn.execute("SELECT meta FROM stored_aggregates WHERE name = 'blind_first'").fetchone()[0])
        n = conn.execute("SELECT count(*) FROM human_labels").fetchone()[0]
    assert 0 < meta["n"] <= n  # JSON columns, no pickle


def _added(path: Path, kind: str) -> list[dict]:
    rid, cid, reviewer, label = _labelled(path)
    other = "fail" if label == "pass" else "pass"
    new = _unlabelled_pass_fail_pairs(path, 3)
    return {
        "a new pair": [{"run_record_id": new[0][0], "constraint_id": new[0][1], "reviewer": "zed", "label": "fail"}],
        "a second reviewer": [{"run_record_id": rid, "constraint_id": cid, "reviewer": "zed", "label": other}],
        "a reveal and a change": [{"run_record_id": rid, "constraint_id": cid, "reviewer": reviewer,
                                   "label": other, "blind": False}],
        "a first label that is not blind": [{"run_record_id": new[0][0], "constraint_id": new[0][1],
                                             "reviewer": "zed", "label": "pass", "blind": False}],
        "three pairs at once": [{"run_record_id": r, "constraint_id": c, "reviewer": "zed", "label": lab}
                                for (r, c), lab in zip(new, ("pass", "fail", "pass"))],
    }[kind]


@pytest.mark.parametrize("kind", ["a new pair", "a second reviewer", "a reveal and a change",
                                  "a first label that is not blind", "three pairs at once"])
def test_labels_added_since_update_the_stored_side(project: Path, full: Counter, kind: str) -> None:
    before = _run(project, "report", "--json")
    _add_labels(project, _added(project, kind))
    got = _run(project, "report", "--json")
    assert full == Counter()  # updated from the stored values by the new labels, none computed in full
    assert got == _fresh(project, "report", "--json")
    # a second reviewer's or a non-blind first label counts nowhere here (the demo's overlap sample is not drawn)
    assert (got != before) == (kind in ("a new pair", "a reveal and a change", "three pairs at once"))
    assert _run(project, "gate", "--min-kappa", "0.6") == _fresh(project, "gate", "--min-kappa", "0.6")


def test_a_labelling_session_read_by_new_processes_matches_fresh_reports(project: Path, full: Counter) -> None:
    """Label after label, each report by a new process on the one stored side: every report equals the fresh one."""
    new = _unlabelled_pass_fail_pairs(project, 3)
    rid, cid, reviewer, label = _labelled(project)
    steps = [[{"run_record_id": new[0][0], "constraint_id": new[0][1], "reviewer": "zed", "label": "fail"}],
             [{"run_record_id": rid, "constraint_id": cid, "reviewer": "yan", "label": label}],
             [{"run_record_id": new[0][0], "constraint_id": new[0][1], "reviewer": "zed", "label": "pass",
               "blind": False}],
             [{"run_record_id": new[1][0], "constraint_id": new[1][1], "reviewer": "yan", "label": "pass"}]]
    for rows in steps:
        _add_labels(project, rows)
        assert _run(project, "report", "--json") == _fresh(project, "report", "--json")
    assert full == Counter()


def test_more_new_pairs_than_the_incremental_limit_are_computed_in_full(project: Path, full: Counter,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_labels, "INCREMENTAL_PAIRS", 1)
    _add_labels(project, _added(project, "three pairs at once"))
    got = _run(project, "report", "--json")
    # the blind first labels are read from the new rows whatever their number; the per-pair reads are not
    assert full == Counter({"labelled_verdict_rows": 1, "labelled_pair_info": 1, "record_covariates": 1,
                            "labelled_sample_rules": 1})
    assert got == _fresh(project, "report", "--json")


LABEL_REWRITES = {
    "a label changed in place": "UPDATE human_labels SET label = CASE label WHEN 'pass' THEN 'fail' ELSE 'pass' END"
                                " WHERE id = (SELECT min(id) FROM human_labels WHERE label IN ('pass', 'fail'))",
    "a label deleted": "DELETE FROM human_labels WHERE id = (SELECT min(id) FROM human_labels)",
    "a label made not blind": "UPDATE human_labels SET blind = 0 WHERE id = (SELECT min(id) FROM human_labels)",
}


@pytest.mark.parametrize("rewrite", sorted(LABEL_REWRITES))
def test_a_label_rewritten_is_never_updated_from_the_stored_side(project: Path, full: Counter, rewrite: str) -> None:
    before = _run(project, "report", "--json")
    with sqlite3.connect(project) as conn:
        assert conn.execute(LABEL_REWRITES[rewrite]).rowcount == 1
    _add_labels(project, _added(project, "a new pair"))  # and labels appended after it: still not an append only
    got = _run(project, "report", "--json")
    assert full == Counter(NAMES)  # each computed afresh
    assert got == _fresh(project, "report", "--json") and got != before


def test_the_last_stored_label_replaced_behind_judgecal_s_back_is_not_updated_from(project: Path,
                                                                                  full: Counter) -> None:
    """The sqlite3 shell's `INSERT OR REPLACE` (recursive triggers off: its delete fires no trigger) puts another
    row under the largest label id without moving the labels' counters; a label appended after it leaves only the
    largest id and the last row's digest moved, as an append does. The stored side ended at the replaced row: it
    must not be updated from."""
    with sqlite3.connect(project) as conn:
        row = conn.execute("SELECT * FROM human_labels ORDER BY id DESC LIMIT 1").fetchone()
        names = [d[0] for d in conn.execute("SELECT * FROM human_labels LIMIT 0").description]
        changed = dict(zip(names, row))
        changed["label"] = "fail" if changed["label"] == "pass" else "pass"
        conn.execute(f"INSERT OR REPLACE INTO human_labels ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                     list(changed.values()))
    _add_labels(project, _added(project, "a new pair"))
    got = _run(project, "report", "--json")
    assert full["blind_first"] == 1
    assert got == _fresh(project, "report", "--json")


OTHER_TABLES = {
    "a verdict edited": ("UPDATE verdicts SET label = CASE label WHEN 'pass' THEN 'fail' ELSE 'pass' END WHERE id ="
                         " (SELECT max(v.id) FROM verdicts v JOIN human_labels h ON h.run_record_id ="
                         " v.run_record_id AND h.constraint_id = v.constraint_id WHERE v.label IN ('pass', 'fail'))",
                         {"labelled_verdict_rows"}),
    "a run record's model edited": ("UPDATE run_records SET model = 'another-model' WHERE id ="
                                    " (SELECT min(run_record_id) FROM human_labels)",
                                    {"labelled_pair_info", "record_covariates"}),
    "a run record's latency edited": ("UPDATE run_records SET latency_ms = 12345 WHERE id ="
                                      " (SELECT min(run_record_id) FROM human_labels)",
                                      {"labelled_pair_info", "record_covariates"}),
    "a constraint's type edited": ("UPDATE constraints SET type = type || '-edited' WHERE rowid = (SELECT min(c.rowid)"
                                   " FROM constraints c JOIN human_labels h ON h.constraint_id = c.id"
                                   " WHERE c.check_json IS NULL)", {"labelled_pair_info"}),
    "a sample row of a labelled pair deleted": ("DELETE FROM samples WHERE rowid = (SELECT min(s.rowid) FROM samples s"
                                                " JOIN human_labels h ON h.run_record_id = s.run_record_id AND"
                                                " h.constraint_id = s.constraint_id WHERE s.rule = 'random')",
                                                {"labelled_sample_rules"}),
    "a sample row added": ("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, drawn_at) SELECT"
                           " run_record_id, constraint_id, 'targeted', stratum, drawn_at FROM samples WHERE rule ="
                           " 'random' AND NOT EXISTS (SELECT 1 FROM samples t WHERE t.run_record_id ="
                           " samples.run_record_id AND t.constraint_id = samples.constraint_id AND t.rule ="
                           " 'targeted') LIMIT 1", {"labelled_sample_rules"}),
    "an item's tags edited": ("UPDATE eval_items SET tags = '[\"edited\"]' WHERE id = (SELECT r.item_id FROM"
                              " run_records r JOIN human_labels h ON h.run_record_id = r.id ORDER BY h.id LIMIT 1)",
                              {"record_covariates"}),
}


@pytest.mark.parametrize("change", sorted(OTHER_TABLES))
def test_a_change_to_another_table_a_value_reads_is_computed_afresh(project: Path, full: Counter, change: str) -> None:
    sql, stale = OTHER_TABLES[change]
    with sqlite3.connect(project) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        assert conn.execute(sql).rowcount == 1
    got = _run(project, "report", "--json")
    assert set(full) == stale and set(full.values()) == {1}
    assert got == _fresh(project, "report", "--json")


def _damage(path: Path, name: str, edit) -> None:
    with sqlite3.connect(path) as conn:
        meta = conn.execute("SELECT meta FROM stored_aggregates WHERE name = ?", [name]).fetchone()[0]
        conn.execute("UPDATE stored_aggregates SET meta = ? WHERE name = ?",
                     [edit(json.loads(meta)) if callable(edit) else edit, name])


def _set(path: str, value):
    """An edit of the stored meta at `path` (keys and indexes, '/'-separated)."""
    def edit(meta):
        *keys, last = [int(k) if k.lstrip("-").isdigit() else k for k in path.split("/")]
        node = meta
        for k in keys:
            node = node[k]
        node[last] = value(node[last]) if callable(value) else value
        return json.dumps(meta)
    return edit


def _first_vocab_column(meta: dict) -> int:
    return next(k for k, c in enumerate(meta["columns"]) if "v" in c)


DAMAGE = {
    "not JSON": lambda name: "{not json",
    "a count that is not the rows'": lambda name: _set("n", lambda n: n + 1),
    "a count that is not a number": lambda name: _set("n", "7"),
    "a column missing": lambda name: _set("columns", lambda c: c[:-1]),
    "a column cut short": lambda name: _set("columns/0", lambda c: {"t": c["t"][:-1]} if "t" in c
                                            else {"v": c["v"], "i": c["i"][:-1]}),
    "an index past the vocabulary": lambda name: lambda meta: _set(
        f"columns/{_first_vocab_column(meta)}/i/0", 10 ** 6)(meta),
    "a negative index": lambda name: lambda meta: _set(f"columns/{_first_vocab_column(meta)}/i/0", -1)(meta),
    "a text that is a number": lambda name: _set("columns/0", lambda c: {"t": [7, *c["t"][1:]]} if "t" in c
                                                 else {"v": [7, *c["v"][1:]], "i": c["i"]}),
    "a column of another shape": lambda name: _set("columns/1", [1, 2]),
}

SPECIFIC = {
    ("blind_first", "ids not in event order"): _set("columns/6", lambda c: {"t": c["t"][::-1]}),
    ("labelled_verdict_rows", "rows not in pair order"): _set("columns/0", lambda c: {"t": c["t"][::-1]}),
    ("labelled_verdict_rows", "a pattern of another shape"): _set("columns/5", lambda c: {"v": ['[[0]]'], "i": [
        0] * len(c.get("i", c.get("t", [])))}),
    ("labelled_verdict_rows", "a pattern's repeats out of order"): _set("columns/5", lambda c: {
        "v": ['[[1, "pass"], [0, "fail"]]'], "i": [0] * len(c.get("i", c.get("t", [])))}),
    ("labelled_pair_info", "a pair twice"): _set("columns", lambda cols: [
        {"t": [cols[0]["t"][0]] * len(cols[0]["t"])} if k == 0 and "t" in cols[0]
        else ({"v": [c["v"][0]], "i": [0] * len(c["i"])} if "v" in c else {"t": [c["t"][0]] * len(c["t"])})
        for k, c in enumerate(cols)]),
    ("labelled_pair_info", "a label set that is not texts"): _set("columns/5", lambda c: {
        "v": ["[1, 2]"], "i": [0] * len(c.get("i", c.get("t", [])))}),
    ("labelled_sample_rules", "an empty rule set"): _set("columns/2", lambda c: {
        "v": ["[]"], "i": [0] * len(c.get("i", c.get("t", [])))}),
    ("labelled_sample_rules", "a rule named twice"): _set("columns/2", lambda c: {
        "v": ['["random", "random"]'], "i": [0] * len(c.get("i", c.get("t", [])))}),
    ("record_covariates", "tags that are not a list"): _set("columns/6", lambda c: {
        "v": ['"tag"'], "i": [0] * len(c.get("i", c.get("t", [])))}),
    ("record_covariates", "a latency that is text"): _set("columns/4", lambda c: {
        "v": ["12"], "i": [0] * len(c.get("i", c.get("t", [])))}),
}

CASES = sorted([(name, damage) for name in NAMES for damage in DAMAGE] + list(SPECIFIC))


@pytest.mark.parametrize(("name", "damage"), CASES)
def test_a_damaged_label_side_row_is_computed_again(project: Path, full: Counter, name: str, damage: str) -> None:
    edit = SPECIFIC.get((name, damage)) or DAMAGE[damage](name)
    _damage(project, name, edit)
    got = _run(project, "report", "--json")
    assert full == Counter({name: 1})
    with ann.unit_of_work(project) as db:  # a writing command replaces the row (it fails its checksum)
        ann.store_label_side(db)
    _run(project, "report", "--json")
    assert full == Counter({name: 1})  # the writer stored what this process kept; the report read it back
    assert got == _fresh(project, "report", "--json")


def test_a_stored_side_by_other_code_is_not_read(project: Path, full: Counter) -> None:
    with sqlite3.connect(project) as conn:
        assert conn.execute("UPDATE stored_aggregates SET version = json_set(version, '$[0]', 'other')"
                            f" WHERE name IN ({', '.join('?' * len(NAMES))})", NAMES).rowcount == len(NAMES)
    got = _run(project, "report", "--json")
    assert full == Counter(NAMES)
    assert got == _fresh(project, "report", "--json")


def test_a_reading_command_never_stores_the_label_side(project: Path, full: Counter) -> None:
    with sqlite3.connect(project) as conn:
        conn.execute(f"DELETE FROM stored_aggregates WHERE name IN ({', '.join('?' * len(NAMES))})", NAMES)
    _add_labels(project, _added(project, "a new pair"))
    before = project.read_bytes()
    for argv in (["report", "--json"], ["gate", "--min-kappa", "0.6"], ["report"]):
        _run(project, *argv)
    # computed by each (the gate reads no covariates: it has no judge-error regression): none was stored
    assert full == Counter({**{n: 3 for n in NAMES}, "record_covariates": 2})
    assert project.read_bytes() == before and not set(NAMES) & _stored_names(project)


def test_a_draw_stores_the_labelled_pairs_sample_rules_it_moved(project: Path, full: Counter) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(project), "sample", "--rate", "0.3"]) == 0
    assert full == Counter({"labelled_sample_rules": 1})  # the draw changed them; nothing else was computed
    got = _run(project, "report", "--json")
    assert full == Counter({"labelled_sample_rules": 1})  # read back
    assert got == _fresh(project, "report", "--json")


def test_a_draw_leaves_the_rest_of_the_label_side_to_the_verdict_writers(project: Path, full: Counter) -> None:
    """After new run records a draw stores the sample rules it moved, not the labelled pairs' info and covariates
    the new records made stale (~3 s of a draw at a million run records): the report computes those until a verdict
    writer stores them."""
    with sqlite3.connect(project) as conn:
        conn.execute("INSERT INTO run_records SELECT id || '-new', " + ", ".join(
            c[1] for c in conn.execute("PRAGMA table_info(run_records)") if c[1] != "id") + " FROM run_records LIMIT 1")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(project), "sample", "--rate", "0.3"]) == 0
    assert full == Counter({"labelled_sample_rules": 1})
    got = _run(project, "report", "--json")
    assert full == Counter({"labelled_sample_rules": 1, "labelled_pair_info": 1, "record_covariates": 1})
    assert got == _fresh(project, "report", "--json")


def test_every_verdict_writer_stores_the_label_side(demo: Path) -> None:
    with sqlite3.connect(demo) as conn:
        conn.execute("DELETE FROM stored_aggregates")
    with ann.unit_of_work(demo) as db:
        ann.store_report_pass(db)
    assert set(NAMES) <= _stored_names(demo)


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, name, "exec"), module.__dict__)  # noqa: S102 - the test's own source
    return module


BASE = '''
import functools
from typing import NamedTuple
LIMIT = 2000
SQL = "SELECT 1"
PAIRS = frozenset({"a", "b", "c"})
_CACHE = {}
class Row(NamedTuple):
    a: int
    b: str
    def twice(self):
        return self.a * 2
def helper(x):
    return x + 1
@functools.cache
def cached(x):
    return x * 3
def entry(x):
    return helper(x)
'''


@pytest.mark.parametrize("edit", [("return x + 1", "return x + 2"), ("LIMIT = 2000", "LIMIT = 2001"),
                                  ('SQL = "SELECT 1"', 'SQL = "SELECT 2"'), ("b: str", "b: str\n    c: str = ''"),
                                  ("return self.a * 2", "return self.a * 3"), ("return x * 3", "return x * 4"),
                                  ('{"a", "b", "c"}', '{"a", "b"}')])
def test_the_modules_digest_covers_every_helper_and_constant(edit: tuple[str, str]) -> None:
    """A value's digest names one entry point; a change to a helper it calls, a constant, a named tuple's field,
    a method or a cached function of that module must all change it."""
    try:
        base = _stored.modules_digest(_module("judgecal_digest_a", BASE).entry)
        again = _stored.modules_digest(_module("judgecal_digest_b", BASE).entry)
        assert base == again  # the module's name is not part of it
        edited = _stored.modules_digest(_module("judgecal_digest_c", BASE.replace(*edit)).entry)
        assert BASE.replace(*edit) != BASE and edited != base
    finally:
        for name in ("judgecal_digest_a", "judgecal_digest_b", "judgecal_digest_c"):
            sys.modules.pop(name, None)


def test_the_modules_digest_ignores_a_cache_s_contents() -> None:
    try:
        module = _module("judgecal_digest_d", BASE)
        base = _stored.modules_digest(module.entry)
        module._CACHE["k"] = "v"
        module.cached(3)
        assert _stored.modules_digest(module.entry) == base
    finally:
        sys.modules.pop("judgecal_digest_d", None)


def test_the_label_side_digests_are_the_same_in_every_process() -> None:
    script = ("from judgecal.annotations.reports import _calibration as c, _judge_error as j;"
              " from judgecal.annotations.store import _labels as l;"
              " print(c._persisted('rows').code, c._persisted('info').code, j._covariates_persisted().code,"
              " l._blind_persisted().code)")
    seen = outputs_under_hash_seeds(script)
    assert len(seen) == 1, seen


def test_a_writer_finds_a_current_stored_side_without_decoding_it(project: Path, monkeypatch) -> None:
    """A verdict writer's process keeps nothing yet: where the stored rows are current (their marks, code and
    checksum), it leaves them as they are without reading them back (~1.5 s at a million run records)."""
    with sqlite3.connect(project) as conn:
        before = conn.execute("SELECT name, version, meta FROM stored_aggregates ORDER BY name").fetchall()
    reads: list[str] = []
    real = _memo.read_persisted
    monkeypatch.setattr(_memo, "read_persisted", lambda db, name, *a: reads.append(name) or real(db, name, *a))
    forget_kept()
    with ann.unit_of_work(project) as db:
        ann.store_label_side(db)
    assert reads == []
    with sqlite3.connect(project) as conn:
        assert conn.execute("SELECT name, version, meta FROM stored_aggregates ORDER BY name").fetchall() == before
    _add_labels(project, _added(project, "a new pair"))  # now stale: updated from the stored rows, and stored
    forget_kept()
    with ann.unit_of_work(project) as db:
        ann.store_label_side(db)
    assert sorted(reads) == sorted(NAMES)
    assert _run(project, "report", "--json") == _fresh(project, "report", "--json")
