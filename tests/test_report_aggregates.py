"""Issue 16.2: the report's label-free part from one streamed SQL pass over `verdict_pairs` (`_sql_group_bases`)
equals the per-pair path (`_group_base` over `load_verdicts` and every pair's info), number for number and bit for
bit, on projects built to break it: the golden tests' adversarial project (ties, error rows, a pair whose every repeat
failed, extra repeats on labelled pairs only, a second judge model, a revision verified on fresh labels, mixed label
sets, targeted-only and unsampled labels) plus repeats stored out of order, four repeats whose minority shares differ
(1/4, 1/2: their pair-order sum is the one float that depends on more than counts), a verdict on a pair outside the
semantic pairs (a mechanical constraint), a judge group none of whose pairs are in a run, and a label holding the
pattern separator (the SQL path must refuse it and the report fall back to the per-pair read).

Each report is computed twice on the same file with every kept part cleared, once per path; any SQL aggregate that
disagreed with the per-pair computation (a count, a first-occurrence tie-break, a sum's order, an item numbering,
a group or pair filtered differently) changes the JSON."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (the two paths compared)
from judgecal.annotations.reports._calibration import calibration_report  # house: private
from test_scale_golden import STAMP, V1, V2, adversarial_project, demo_project


def _both(db_path: Path, monkeypatch: pytest.MonkeyPatch, **kwargs) -> tuple[str, str, bool]:
    """(SQL path's JSON, per-pair path's JSON, whether the SQL path computed the groups)."""
    out = []
    used_sql = False
    for in_sql in (True, False):
        monkeypatch.setattr(_calibration, "_AGGREGATE_IN_SQL", in_sql)
        _calibration._KEPT.clear()
        with ann.unit_of_work(db_path) as db:
            out.append(calibration_report(db, **kwargs).to_json())
            if in_sql:
                used_sql = any(k[1] == "group_bases_sql" and v is not None for k, v in _calibration._KEPT.items())
    _calibration._KEPT.clear()
    return out[0], out[1], used_sql


def _hostile(tmp_path: Path) -> Path:
    db_path = adversarial_project(tmp_path)
    rng = random.Random(18)
    with ann.unit_of_work(db_path) as db:
        sets = ann.pair_label_sets(db)
        pairs = sorted(ann.population_pairs(db))
        rows = []
        # judged in a shuffled pair order: an item's first pair differs between models under test and label sets,
        # so each corrected rate's items must be numbered by their first appearance in its own pairs
        for k, pair in enumerate(rng.sample(pairs, len(pairs))):
            labels = sets[pair]
            # judge-z: four repeats stored out of order (3, 1, 0, 2), splits 2-1-1 and 3-1 and 2-2 among them
            order = (3, 1, 0, 2)
            for rep in order:
                if k % 5 == 0:
                    label = labels[rep % len(labels)] if rep < 2 else labels[0]
                elif k % 5 == 1:
                    label = labels[0] if rep else labels[-1]
                elif k % 5 == 2:
                    label = labels[rep % 2 % len(labels)]
                else:
                    label = rng.choice(labels)
                error = None
                if k % 13 == 0 and rep == 3:
                    label, error = None, "timeout"
                rows.append((pair[0], pair[1], V2, "judge-z", rep, label, error, STAMP))
        mechanical = db.execute("SELECT r.id, c.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                                " WHERE c.check_json IS NOT NULL LIMIT 1").fetchone()
        with ann.write(db):
            db.conn.executemany(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error,"
                " created_at) VALUES (?,?,?,?,?,?,?,?)", rows)
            if mechanical is not None:  # a verdict on a pair that is not a semantic pair: never counted
                db.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat,"
                           " label, created_at) VALUES (?,?,?,?,?,?,?)",
                           [mechanical[0], mechanical[1], V1, "judge-x", 0, "pass", STAMP])
            # a judge model on one run's pairs only: under `run_id` of the other run it is a group with no pair
            run_a = [p for p in pairs if db.execute("SELECT run_id FROM run_records WHERE id = ?",
                                                    [p[0]]).fetchone()[0] == "demo-run-a"]
            db.conn.executemany(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                " created_at) VALUES (?,?,?,?,?,?,?)",
                [(p[0], p[1], V1, "judge-a-only", rep, sets[p][0], STAMP) for p in run_a[:30] for rep in range(2)])
    assert mechanical is not None
    return db_path


CALLS = [{}, {"rubric": "strict@1"}, {"rubric": "strict@2"}, {"model": "judge-z"}, {"model": "judge-y"},
         {"constraint": "grounded_in_policy"}, {"constraint": ["grounded_in_policy", "no_overcommitment"]},
         {"rubric_seen": "strict"}, {"run_id": "demo-run-b"}, {"run_id": "demo-run-a", "rubric": "strict@2"}]


@pytest.mark.parametrize("kwargs", CALLS, ids=[str(c) for c in CALLS])
def test_sql_aggregates_equal_the_per_pair_path(tmp_path, monkeypatch, kwargs):
    db_path = _hostile(tmp_path)
    in_sql, per_pair, used_sql = _both(db_path, monkeypatch, **kwargs)
    assert used_sql
    assert in_sql == per_pair


def test_the_hostile_project_reaches_what_the_sql_path_must_reproduce(tmp_path, monkeypatch):
    """The comparison above means something only if the project has what the SQL path computes apart."""
    db_path = _hostile(tmp_path)
    monkeypatch.setattr(_calibration, "_AGGREGATE_IN_SQL", True)
    _calibration._KEPT.clear()
    with ann.unit_of_work(db_path) as db:
        bases = _calibration._sql_group_bases(db, None, None, None, None)
        report = calibration_report(db)
        empty = _calibration._sql_group_bases(db, None, "judge-a-only", None, "demo-run-b")
    _calibration._KEPT.clear()
    z = bases[("judge-z", V2)]
    assert z.repeats == [0, 1, 2, 3]
    # two different nonzero minority shares among the group's pairs: their pair-order sum is read from the pairs'
    # class numbers, not from counts
    with ann.unit_of_work(db_path) as db:
        texts = [tuple(r) for r in db.execute("SELECT DISTINCT pattern, n FROM verdict_pairs WHERE judge_model = ?",
                                              ["judge-z"])]
    shares = set()
    for text, n in texts:
        valid = [l for l in ann.parse_pattern(text, n).values() if l is not None]
        if len(valid) >= 2:
            shares.add(1 - max(valid.count(l) for l in valid) / len(valid))
    assert len(shares - {0.0}) >= 2
    groups = {(g.judge_model, g.rubric_version): g for g in report.groups}
    assert groups[("judge-x", 1)].ignored_repeat_rows > 0  # extra repeats on labelled pairs only
    assert len(groups[("judge-z", 2)].by_label_set) > 1  # several label sets
    assert groups[("judge-z", 2)].overall.verdict_errors > 0
    assert empty[("judge-a-only", V1)].n_pairs == 0  # a group with no pair in the run is still a group
    # the mechanical-constraint verdict is in verdict_pairs but no slice counts it
    assert bases[("judge-x", V1)].n_pairs == groups[("judge-x", 1)].overall.pairs_judged


def test_a_label_holding_the_separator_falls_back_to_the_per_pair_path(tmp_path, monkeypatch):
    db_path = demo_project(tmp_path)
    with ann.unit_of_work(db_path) as db:
        pair = db.execute("SELECT run_record_id, constraint_id FROM verdicts LIMIT 1").fetchone()
        with ann.write(db):
            db.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                       ["c" * 64, "odd", 1, "t", STAMP])
            db.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                       " created_at) VALUES (?,?,?,?,?,?,?)", [pair[0], pair[1], "c" * 64, "odd", 0,
                                                              "pa\x1dss", STAMP])
        assert _calibration._sql_group_bases(db, None, None, None, None) is None
    in_sql, per_pair, used_sql = _both(db_path, monkeypatch)
    assert not used_sql
    assert in_sql == per_pair
