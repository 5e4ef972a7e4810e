"""The Calibration page's kept values (issue 16.3, migration 020): what a rerun reads is kept under O(1) versions of
the tables it is computed from, and new labels are applied to their own pairs. A kept value that outlives a change
would show stale numbers, so every test here changes the project one way and compares what the page would read with
the same values computed afresh and with plain reference definitions (the pre-16.3 code, written out here)."""

from __future__ import annotations

import inspect
import sqlite3
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from judgecal.annotations.reports import (DisagreementFilter, disagreement_keys, disagreement_page, disagreements,
                                          failing_page, failing_pairs, filter_options, shown_disagreements)
from judgecal.annotations.review import _queue  # house: private (the full recompute is counted)
from judgecal.annotations.store import current_labels, table_marks
from judgecal.annotations.store._schema import REWRITE_MARKED  # house: private
from judgecal.annotations.store import _memo  # house: private (cleared to compute afresh)
from judgecal.annotations.stats import majority_label
from test_calibration_project import R1, R2, add_label, add_rubric, add_sample, add_verdicts, build

APP = str(Path(__file__).resolve().parents[1] / "app.py")
VIEWERS = ("alice", "bob", "dave", None)


# ------------------------------------------------------------------ reference definitions (the pre-16.3 code)
def reference_awaiting(db, reviewer):
    name = (reviewer or "").strip() or None
    standing: dict = {}
    for row in current_labels(db):
        standing.setdefault((row["run_record_id"], row["constraint_id"]), set()).add(row["reviewer"])
    rules: dict = defaultdict(set)
    for r, c, rule in db.execute("SELECT run_record_id, constraint_id, rule FROM samples"):
        rules[(r, c)].add(rule)
    out = set()
    for pair, rs in rules.items():
        who = standing.get(pair, set())
        if name is not None and name in who:
            continue
        if len(who) < (2 if "overlap" in rs else 1):
            out.add(pair)
    return out


def reference_failing(db):
    why: dict = {}
    for r, c, detail in db.execute("SELECT run_record_id, constraint_id, detail FROM check_results WHERE passed = 0"):
        why.setdefault((r, c), f"check: {detail}")
    for r, c, error in db.execute("SELECT r.id, c.id, r.error FROM run_records r JOIN constraints c"
                                  " ON c.item_id = r.item_id WHERE r.output IS NULL AND r.trajectory IS NULL"):
        why.setdefault((r, c), f"run failed: {error}")
    first = {(r, c, w): i for r, c, w, i in db.execute(
        "SELECT run_record_id, constraint_id, reviewer, min(id) FROM human_labels GROUP BY 1, 2, 3")}
    for row in sorted(current_labels(db), key=lambda x: first[(x["run_record_id"], x["constraint_id"], x["reviewer"])]):
        if row["label"] == "fail":
            why.setdefault((row["run_record_id"], row["constraint_id"]), f"labelled fail by {row['reviewer']}")
    return sorted(why.items())


def reference_disagreements(db):
    """(judge, rubric, run, constraint, reviewer, human label, judge label, kind, error causes, reason) of every
    row."""
    repeats: dict = defaultdict(dict)
    for jm, sha, rid, cid, rep, label, error, reason in db.execute(
            "SELECT judge_model, rubric_sha256, run_record_id, constraint_id, repeat, label, error, reason"
            " FROM verdicts"):
        repeats[(jm, sha, rid, cid)][rep] = (label, error, reason)
    by_pair: dict = defaultdict(list)
    for key in repeats:
        by_pair[key[2:]].append(key)
    out = set()
    for row in current_labels(db):
        for key in by_pair.get((row["run_record_id"], row["constraint_id"]), ()):
            labels = [l for l, _e, _r in repeats[key].values() if l is not None]
            maj = majority_label(labels)
            if maj is not None and maj == row["label"]:
                continue
            kind = "disagreement" if maj is not None else ("tie" if labels else "judge_error")
            by_repeat = [repeats[key][r] for r in sorted(repeats[key])]
            causes = tuple(e or "error (no cause recorded)" for l, e, _r in by_repeat if l is None)
            reasons = [r for l, _e, r in by_repeat if l == maj and r] or [r for _l, _e, r in by_repeat if r]
            out.add((*key, row["reviewer"], row["label"], maj, kind, causes, reasons[0] if reasons else None))
    return out


# ------------------------------------------------------------------ what the page reads
def page_values(db) -> dict:
    out = {"options": filter_options(db), "keys": disagreement_keys(db), "failing": failing_pairs(db)}
    for who in VIEWERS:
        listed = disagreement_page(db, who)
        out[who] = (ann.awaiting_blind_label(db, who), listed, failing_page(db, who, limit=3),
                    shown_disagreements(db, listed, DisagreementFilter(), limit=3, key=(who, None, None, None)),
                    shown_disagreements(db, listed, DisagreementFilter(decision="judge_wrong"), limit=3,
                                        key=(who, None, None, None)))
    return out


def check_against_fresh_and_reference(db) -> None:
    kept = page_values(db)
    _memo._KEPT.clear()
    assert kept == page_values(db)  # what was kept (or updated) is what a fresh computation gives
    assert kept["options"] == (
        tuple(f"{n}@{v}" for n, v in db.execute("SELECT name, version FROM rubrics WHERE sha256 IN"
                                                " (SELECT rubric_sha256 FROM verdicts) ORDER BY name, version")),
        tuple(r[0] for r in db.execute("SELECT DISTINCT judge_model FROM verdicts ORDER BY 1")),
        tuple(r[0] for r in db.execute("SELECT DISTINCT constraint_id FROM verdicts ORDER BY 1")))
    rows = disagreements(db)
    assert {(d.judge_model, d.rubric_sha256, d.run_record_id, d.constraint_id, d.reviewer, d.human_label, d.judge_label,
             d.kind, d.error_causes, d.judge_reason) for d in rows} == reference_disagreements(db)
    assert [(f.run_record_id, f.constraint_id, f.why) for f in kept["failing"]] == [
        (*p, why) for p, why in reference_failing(db)]
    for who in VIEWERS:
        hidden, listed, failing, shown, _decided = kept[who]
        assert hidden == reference_awaiting(db, who)
        visible = [d for d in rows if (d.run_record_id, d.constraint_id) not in hidden]
        assert [d.run_record_id for d in visible if d.kind != "judge_error"] == [k.run_record_id for k in listed.real]
        assert listed.n_hidden == len(rows) - len(visible)
        assert failing.count.shown_to == sum(p not in hidden for p, _w in reference_failing(db))
        assert shown.count == len(listed.real) and list(shown.cards) == [
            d for d in visible if d.kind != "judge_error"][:3]


def _label(db, reviewer, n, label, event="label"):
    add_label(db, reviewer, n, label, seen=R1, event=event)


def _sql(db, sql, params=()):
    with ann.write(db):
        db.execute(sql, list(params))


CHANGES = {
    "new sample row": lambda db: add_sample(db, 10, "overlap"),  # waits for two reviewers: hidden from everyone
    "new label": lambda db: _label(db, "alice", 10, "pass"),  # shown to alice, still hidden from the others
    "second reviewer on an overlap pair": lambda db: _label(db, "dave", 10, "pass"),  # shown to everyone
    "new reviewer on a random pair": lambda db: _label(db, "bob", 7, "fail"),
    "label changed": lambda db: _label(db, "alice", 6, "pass", event="change"),
    "label undone": lambda db: (_label(db, "carol", 4, "pass"), _label(db, "carol", 4, None, event="undo")),
    "third reviewer on an overlap pair": lambda db: _label(db, "dave", 6, "pass"),
    "label edited in place": lambda db: _sql(db, "UPDATE human_labels SET label = 'pass' WHERE reviewer = 'bob'"
                                                 " AND run_record_id = 'run-2'"),
    "label deleted": lambda db: _sql(db, "DELETE FROM human_labels WHERE reviewer = 'bob' AND run_record_id = 'run-6'"),
    "sample row deleted": lambda db: _sql(db, "DELETE FROM samples WHERE run_record_id = 'run-8'"),
    "new judge's verdicts": lambda db: add_verdicts(db, R1, {7: "PPP", 4: "PEP"}, judge="j2"),
    "another rubric's verdicts": lambda db: (add_rubric(db, R2, 2), add_verdicts(db, R2, {2: "FFF"})),
    "verdicts on other constraints": lambda db: [  # the filter options' constraints are found seek by seek
        _sql(db, "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                 " created_at) VALUES ('run-1', ?, ?, 'j', 0, 'pass', 'x')", [cid, sha])
        for cid, sha in (("another", R1), ("zz", R2), ("Ä-upper", R2))],
    "an error row with a reason": lambda db: _sql(db, "UPDATE verdicts SET reason = 'gave up' WHERE label IS NULL"),
    "verdict deleted": lambda db: _sql(db, "DELETE FROM verdicts WHERE run_record_id = 'run-8' AND label IS NULL"),
    "verdict edited": lambda db: _sql(db, "UPDATE verdicts SET label = 'fail' WHERE run_record_id = 'run-1'"
                                          " AND repeat = 0 AND judge_model = 'j'"),
    "decision": lambda db: ann.adjudicate(db, "run-6", "grounded", "judge_wrong", who="alice"),
    "sent to the eval set": lambda db: ann.send_to_evalset(db, "run-7", "grounded", who="alice"),
    "failed check": lambda db: _sql(db, "INSERT INTO check_results VALUES ('run-1', 'grounded', 'c', 0, 0, 'too long',"
                                        " 0, 0, 'x')"),
    "check re-run passes": lambda db: _sql(db, "INSERT OR REPLACE INTO check_results VALUES ('run-1', 'grounded', 'c',"
                                               " 0, 1, 'ok', 0, 0, 'y')"),
    "failed run": lambda db: _sql(db, "UPDATE run_records SET output = NULL, error = 'boom' WHERE id = 'run-3'"),
}


def test_page_values_follow_every_change(tmp_path):
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        check_against_fresh_and_reference(db)
        for name, change in CHANGES.items():
            page_values(db)  # kept at the version before the change
            change(db)
            try:
                check_against_fresh_and_reference(db)
            except AssertionError as e:
                raise AssertionError(f"after {name}: {e}") from e


def test_a_label_stored_into_a_gap_moves_the_version(tmp_path):
    """An import could store a label under an explicit id a delete freed: without 020's gap trigger the labels'
    version would stay where the delete put it, and the page would keep the list it computed after the delete."""
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        gap = db.execute("SELECT max(id) - 1 FROM human_labels").fetchone()[0]
        row = list(db.execute("SELECT * FROM human_labels WHERE id = ?", [gap]).fetchone())
        _sql(db, "DELETE FROM human_labels WHERE id = ?", [gap])
        page_values(db)
        before = ann.calibration_version(db)
        row[5] = "pass" if row[5] == "fail" else "fail"  # the same event, the other label
        _sql(db, f"INSERT INTO human_labels VALUES ({','.join('?' * len(row))})", row)
        assert ann.calibration_version(db) != before
        check_against_fresh_and_reference(db)


def test_new_labels_update_their_own_pairs_only(tmp_path, monkeypatch):
    """After new label events, the hidden pairs and the disagreement list are updated from those pairs' rows (no
    read of every label) and equal a fresh computation; a delete or an edit reads everything again."""
    full = []
    real = _queue._awaiting_blind_label
    monkeypatch.setattr(_queue, "_awaiting_blind_label",
                        lambda db, name, pairs=None: (full.append(pairs is None), real(db, name, pairs))[1])
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        page_values(db)
        full.clear()
        _label(db, "alice", 10, "fail")
        _label(db, "dave", 2, "pass")
        check_against_fresh_and_reference(db)  # the kept values first, then afresh
        n_viewers = len(VIEWERS)
        assert full[:n_viewers] == [False] * n_viewers  # updated from the two new pairs
        page_values(db)
        full.clear()
        _sql(db, "UPDATE human_labels SET note = 'edited' WHERE run_record_id = 'run-2' AND reviewer = 'dave'")
        page_values(db)
        assert full and all(full)  # an edit is not an append: read again (once; each reviewer's from it)


def test_too_many_new_labels_are_read_afresh(tmp_path, monkeypatch):
    monkeypatch.setattr("judgecal.annotations.store._labels.INCREMENTAL_PAIRS", 1)
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        page_values(db)
        _label(db, "alice", 10, "fail")
        _label(db, "dave", 2, "pass")
        check_against_fresh_and_reference(db)


@pytest.mark.parametrize("table", REWRITE_MARKED)
def test_rewrite_counters(tmp_path, table):
    """Migration 020: an insert moves the largest rowid, a delete or an update the table's counter; nothing else."""
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        _sql(db, "INSERT INTO check_results VALUES ('run-1', 'grounded', 'c', 0, 0, 'too long', 0, 0, 'x')")
        ann.adjudicate(db, "run-6", "grounded", "judge_wrong", who="alice")
        ann.send_to_evalset(db, "run-7", "grounded", who="alice")
        before = table_marks(db, (table,))
        first = db.execute(f"SELECT min(rowid) FROM {table}").fetchone()[0]
        column = db.execute(f"SELECT name FROM pragma_table_info('{table}') LIMIT 1 OFFSET 1").fetchone()[0]
        _sql(db, f"UPDATE {table} SET {column} = {column} WHERE rowid = ?", [first])
        after_update = table_marks(db, (table,))
        assert after_update[0] == before[0] and after_update[1] == before[1] + 1
        db.execute("PRAGMA foreign_keys = OFF")  # the row's dependents do not matter to its counter
        _sql(db, f"DELETE FROM {table} WHERE rowid = ?", [first])
        assert table_marks(db, (table,))[1] == before[1] + 2


def test_versions_cost_no_count(tmp_path):
    """The page's versions are index look-ups: no full scan of any table (EXPLAIN QUERY PLAN says SEARCH or a
    max() of the row id, never SCAN), but of `sample_strata`: one row per stratum (constraint × model × rubric
    version), rewritten by every draw, whatever the number of pairs (wave 14: a draw may rewrite only it)."""
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        db.conn.set_trace_callback(None)
        statements = []
        db.conn.set_trace_callback(statements.append)
        ann.calibration_version(db)
        ann.report_version(db)
        db.conn.set_trace_callback(None)
        plans = [row[3] for sql in statements if sql.lstrip().upper().startswith("SELECT")
                 for row in db.execute("EXPLAIN QUERY PLAN " + sql)]
        assert plans and not [p for p in plans if p.startswith("SCAN") and p not in ("SCAN sqlite_master",
                                                                                 "SCAN CONSTANT ROW",
                                                                                 "SCAN sample_strata")]


def test_without_the_counters_nothing_is_kept_and_the_old_key_serves(tmp_path):
    """A project opened raw, without migration 020's triggers on labels (an older read-only copy): the version falls
    back to counts and tails, and what reads labels is computed on every call, never kept under a key that cannot
    see a change."""
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        marked = ann.calibration_version(db)
        assert marked[0] == "marks"
    conn = sqlite3.connect(path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE"
                                " 'human_labels_rewrite_%'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.commit()
    conn.close()
    import sqlite_utils
    db = sqlite_utils.Database(sqlite3.connect(path))
    assert table_marks(db, ("human_labels",)) is None and ann.calibration_version(db)[0] != "marks"
    _memo._KEPT.clear()
    page_values(db)
    label_readers = {"awaiting_blind_label", "disagreement_keys", "disagreement_page", "label_failures",
                     "failing_page", "shown_disagreements"}
    assert _memo._KEPT and not [k for k in _memo._KEPT if k[1] in label_readers]  # filter options are still kept
    before = ann.calibration_version(db)
    db.execute("UPDATE human_labels SET label = 'pass' WHERE reviewer = 'bob' AND run_record_id = 'run-2'")
    db.conn.commit()
    assert ann.calibration_version(db) != before  # the tail holds the edited row
    check_against_fresh_and_reference(db)


# ------------------------------------------------------------------ the page itself
def _open(db: Path, monkeypatch, reviewer: str = "alice") -> AppTest:
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = reviewer
    at.run()
    at.switch_page("app_pages/calibration.py").run()
    assert not at.exception, at.exception
    return at


def _cards(at) -> set[str]:
    return {t.value.split(" · ")[0] for t in at.text if t.value.startswith("run-") and " · grounded · model" in t.value}


def test_page_follows_an_edited_label_a_new_sample_row_and_a_new_verdict(tmp_path, monkeypatch):
    path = build(tmp_path / "p.db")
    at = _open(path, monkeypatch, "bob")
    assert "run-7" in _cards(at)  # alice P, judge F F F
    with ann.unit_of_work(path) as db:  # edited in place: alice's label on run 7 now agrees with the judge
        _sql(db, "UPDATE human_labels SET label = 'fail' WHERE reviewer = 'alice' AND run_record_id = 'run-7'")
    at.run()
    assert not at.exception and "run-7" not in _cards(at)
    with ann.unit_of_work(path) as db:  # run 9 becomes an overlap pair: bob has not labelled it, so it is hidden
        add_sample(db, 9, "overlap")
    assert "run-9" in _cards(at)
    at.run()
    assert "run-9" not in _cards(at)
    assert any("hidden until you have labelled them blind" in c.value for c in at.caption)
    with ann.unit_of_work(path) as db:  # a second judge disagrees with alice on run 4 (F): a new card
        add_verdicts(db, R1, {4: "PPP"}, judge="j2")
    at.run()
    assert any(t.value.startswith("run-4 · grounded · model m · judge j2") for t in at.text)
    labels = [t for t in at.tabs if t.label.startswith("Disagreements")]
    assert labels and labels[0].label != "Disagreements (0)"


def test_a_rerun_computes_nothing_and_a_label_only_its_pair(tmp_path, monkeypatch):
    """What ≤ 2 s at a million run records rests on: a rerun with the data unchanged calls none of the functions
    that read whole tables, and after a new label those that read labels read only the labelled pair."""
    from judgecal.annotations.reports import _calibration, _disagreements  # house: private
    calls: list[tuple[str, bool]] = []

    def counted(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls.append((name, inspect.signature(real).bind(*args, **kwargs).arguments.get("pairs") is None))
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    for module, name in ((_queue, "_awaiting_blind_label"), (_disagreements, "_disagreement_keys"),
                         (_disagreements, "_label_failures_of"), (_disagreements, "_read_error_causes"),
                         (_disagreements, "_mechanical_failures"), (_calibration, "_filter_options")):
        counted(module, name)
    path = build(tmp_path / "p.db")
    _memo._KEPT.clear()
    at = _open(path, monkeypatch, "bob")
    assert {n for n, _whole in calls} >= {"_awaiting_blind_label", "_disagreement_keys", "_filter_options"}
    calls.clear()
    at.run()
    assert not at.exception and [n for n, _whole in calls if n != "_mechanical_failures"] == []
    with ann.unit_of_work(path) as db:
        _label(db, "bob", 7, "fail")
    at.run()
    assert not at.exception
    whole = {n for n, is_whole in calls if is_whole and n not in ("_mechanical_failures", "_read_error_causes")}
    assert not whole and {n for n, _w in calls} >= {"_awaiting_blind_label", "_disagreement_keys"}


def test_disagreement_rows_without_verdict_pairs_and_with_a_separator_in_a_label(tmp_path):
    """The rows come from migration 015's stored patterns; a project read raw without that table groups the
    verdicts itself, and a label holding the pattern's separator is read from the pair's rows: the same rows."""
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        _sql(db, "UPDATE verdicts SET label = 'pa\x1dss' WHERE run_record_id = 'run-6'")  # alice: fail
        _label(db, "dave", 6, "pa\x1dss")  # agrees with the judge's odd label: no row for dave
        expected = disagreements(db)
        assert expected and {d.run_record_id for d in expected if d.reviewer == "alice"} >= {"run-6"}
        assert not [d for d in expected if d.reviewer == "dave"]
        check_against_fresh_and_reference(db)
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE verdict_pairs")
    conn.commit()
    conn.close()
    import sqlite_utils
    db = sqlite_utils.Database(sqlite3.connect(path))
    _memo._KEPT.clear()
    assert disagreements(db) == expected


# ------------------------------------------------------------------ the page's report
def _less_what_the_page_never_shows(report):
    return replace(report, groups=tuple(replace(g, judge_error=None, rogan_gladen=()) for g in report.groups))


def test_the_page_report_is_the_report_less_judge_error_and_rogan_gladen(tmp_path):
    """`page_report` leaves out only the two fields the page never reads, after every change the kept parts follow
    (the full report afterwards, so each page report is computed on what the one before it kept)."""
    path = build(tmp_path / "p.db")
    with ann.unit_of_work(path) as db:
        full = ann.calibration_report(db)
        assert any(g.judge_error is not None and g.rogan_gladen for g in full.groups)  # the test sees both fields
        for name, change in {"nothing": lambda db: None, **CHANGES}.items():
            change(db)
            page = ann.page_report(db)
            assert page == _less_what_the_page_never_shows(ann.calibration_report(db)), f"after {name}"
            for kwargs in ({"model": "j"}, {"constraint": "grounded"}, {"rubric": R1}):
                assert ann.page_report(db, **kwargs) == _less_what_the_page_never_shows(
                    ann.calibration_report(db, **kwargs)), f"after {name}, {kwargs}"


def test_the_page_computes_no_judge_error_or_rogan_gladen(tmp_path, monkeypatch):
    """The page renders without them (it would raise here if it asked for the full report) and shows the headline."""
    from judgecal.annotations.reports import _calibration  # house: private

    def not_on_the_page(*args, **kwargs):
        raise AssertionError("the Calibration page computed a part it never shows")

    for name in ("_judge_error_columns", "_judge_error", "_rogan_gladen_columns", "_rogan_gladen",
                 "kept_record_covariates"):
        monkeypatch.setattr(_calibration, name, not_on_the_page)
    _memo._KEPT.clear()
    at = _open(build(tmp_path / "p.db"), monkeypatch, "bob")
    assert not at.exception, at.exception
    assert any(m.label.startswith("kappa · j") for m in at.metric)
