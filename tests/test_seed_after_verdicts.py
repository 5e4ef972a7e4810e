"""A sample's seed cannot be chosen after the judge's verdicts are in view (found by a hostile review, wave 15; closed
in wave 16).

The attack: with the verdicts stored, a script tries seeds until each population's random front holds no judge error
and no split repeat (the pairs where the judge is likely wrong), then draws with that seed. The counted pairs are a
prefix of that order, so the agreement the gate reads is the flattering one (the demo's pass/fail agreement went
from 69.3% to 89.8%). Now a named seed is used only by a draw none of whose new populations holds a verdict; once one
does, the draw commits judgecal's fixed order (`DEFAULT_SEED`) and says so (`sample`, `sample --run-id`, `sample
--paired`): every seed a script names gives the one sample. An imported sample file drawn after the population's
first verdict under another seed is refused.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main
from judgecal.evalsets import EvalItem, RunRecord, parse_rows
from conftest import RUBRIC_SHA, _item, _run, add_rubric, add_verdicts, seed_project  # house: private

# The seed_project fixture's verdicts: run-a-2 × grounded has split repeats, run-a-3 × polite a judge error.
TELLTALE = {("run-a-2", "grounded"), ("run-a-3", "polite")}


def _unjudged(path: Path, models=("model-a", "model-b")) -> Path:
    """seed_project's items and run records, no verdict yet."""
    items = parse_rows("\n".join(json.dumps(_item(n)) for n in range(1, 5)), EvalItem)
    runs = parse_rows("\n".join(json.dumps(_run(n, m)) for m in models for n in range(1, 5)), RunRecord)
    with ann.unit_of_work(path) as db:
        ann.import_items(db, items)
        ann.import_runs(db, runs)
        add_rubric(db, RUBRIC_SHA, version=1)
    return path


def _judge(path: Path, model_letter: str = "a") -> None:
    with ann.unit_of_work(path) as db:
        add_verdicts(db, [(f"run-{model_letter}-{n}", cid, RUBRIC_SHA, "pass", None, rep)
                          for n in range(1, 5) for cid in ("grounded", "polite") for rep in range(3)])


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT run_record_id, constraint_id, rule, seed FROM samples ORDER BY rowid").fetchall()


def _settings(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT key, value FROM settings ORDER BY key").fetchall()


def test_the_attack_every_seed_a_script_names_gives_the_one_fixed_sample(tmp_path, capsys):
    project = seed_project(tmp_path / "p.db")
    # What a seed search finds: a seed whose quota-2 front of model-a's two populations holds neither telltale pair.
    members = {cid: [ann.Pair(f"run-a-{n}", cid) for n in range(1, 5)] for cid in ("grounded", "polite")}

    def front(seed: int) -> set:  # rate 0.5 of 4 pairs: the first 2 of each population's order
        return {p for cid, ps in members.items()
                for p in sorted(ps, key=lambda p: ann.draw_rank(seed, cid, "model-a", p))[:2]}

    default_front = front(0)
    shopped = next(seed for seed in range(1, 200) if not front(seed) & TELLTALE)
    assert default_front & TELLTALE  # the fixed order does hold one: the shop would have flattered the judge
    samples = set()
    for seed in (shopped, 1, 2, 3, -1, 2**40, 0):
        copy = tmp_path / f"copy{seed}.db"
        shutil.copy(project, copy)
        assert main(["--db", str(copy), "sample", "--rate", "0.5", "--seed", str(seed)]) == 0
        out = capsys.readouterr().out
        if seed:
            assert out.startswith(f"note: seed {seed} was not used: 2 population(s) this draw starts already hold "
                                  "judge verdicts (grounded × model-a, polite × model-a)"), out
            assert "committed judgecal's fixed order (seed 0)" in out
        else:
            assert "note:" not in out
        rows = _rows(copy)
        assert {seed for *_, seed in rows} == {0}
        samples.add(tuple(rows))
    assert len(samples) == 1  # the script gets no second sample to choose from
    drawn = {(rid, cid) for rid, cid, rule, _ in next(iter(samples)) if rule == "random" and rid.startswith("run-a")}
    assert drawn == {tuple(p) for p in default_front}


def test_a_seed_named_before_judging_holds_and_a_later_judged_population_takes_the_default(tmp_path, capsys):
    project = _unjudged(tmp_path / "p.db", models=("model-a",))
    assert main(["--db", str(project), "sample", "--rate", "0.5", "--seed", "7"]) == 0  # review before judging
    assert "note:" not in capsys.readouterr().out
    _judge(project)
    first = _rows(project)
    assert first and {seed for *_, seed in first} == {7}
    # the committed populations: another seed changes nothing, and no note (it would not have applied anyway)
    assert main(["--db", str(project), "sample", "--rate", "0.5", "--seed", "9"]) == 0
    assert _rows(project) == first and "note:" not in capsys.readouterr().out
    # a new model's records, judged before any draw saw them: its populations take the fixed order
    runs = parse_rows("\n".join(json.dumps(_run(n, "model-b")) for n in range(1, 5)), RunRecord)
    with ann.unit_of_work(project) as db:
        ann.import_runs(db, runs)
    _judge(project, "b")
    assert main(["--db", str(project), "sample", "--rate", "0.5", "--seed", "9"]) == 0
    out = capsys.readouterr().out
    assert "seed 9 was not used: 2 population(s)" in out and "grounded × model-b" in out
    assert "model-a" not in out.split("\n\n")[0]
    seeds = {(rid[:5], seed) for rid, _, rule, seed in _rows(project) if rule == "random"}
    assert seeds == {("run-a", 7), ("run-b", 0)}


def test_an_error_row_is_a_verdict_in_view(tmp_path, capsys):
    """A population whose only verdicts are judge errors is judged: the errors are what a seed search avoids. The
    draw's other new populations, unjudged, take the fixed order with it (one seed a draw)."""
    project = _unjudged(tmp_path / "p.db", models=("model-a",))
    with ann.unit_of_work(project) as db:
        add_verdicts(db, [("run-a-1", "polite", RUBRIC_SHA, None, "timeout", 0)])
    assert main(["--db", str(project), "sample", "--seed", "5"]) == 0
    assert "seed 5 was not used: 1 population(s) this draw starts already hold judge verdicts (polite × model-a)" \
        in capsys.readouterr().out
    assert {seed for *_, seed in _rows(project)} == {0}


def test_run_and_paired_draws_take_the_rule_too(tmp_path, capsys):
    project = seed_project(tmp_path / "p.db")
    assert main(["--db", str(project), "sample", "--run-id", "r1", "--seed", "4"]) == 0
    assert "seed 4 was not used: 2 population(s)" in capsys.readouterr().out
    assert {seed for *_, seed in _rows(project)} == {0}
    # a paired draw: model-a's records as run A, model-b's as run B, judged on A's side only
    with ann.unit_of_work(project) as db, ann.write(db):
        db.conn.execute("DELETE FROM samples")
        db.conn.execute("UPDATE run_records SET run_id = CASE model WHEN 'model-a' THEN 'A' ELSE 'B' END")
    assert main(["--db", str(project), "sample", "--paired", "A", "B", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "seed 3 was not used: 2 population(s)" in out and "grounded (runs A and B)" in out
    assert {seed for *_, seed in _rows(project)} == {0}


def test_the_python_api_sets_it_aside_as_the_command_does(tmp_path):
    project = seed_project(tmp_path / "p.db")
    with ann.unit_of_work(project) as db:
        s = ann.draw_sample(db, seed=11)
        assert s.random_added and s.seed_not_used == ("grounded × model-a", "polite × model-a")
        assert ann.draw_sample(db, seed=12).seed_not_used == ()  # every population committed now
    assert {seed for *_, seed in _rows(project)} == {0}


def _export(path: Path, out: Path) -> list[dict]:
    with ann.unit_of_work(path) as db:
        rows = list(ann.sample_export_rows(db))
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def test_an_imported_sample_drawn_under_a_seed_after_the_verdicts_is_refused(tmp_path, capsys):
    # drawn under seed 7 before any verdict (the project it came from), then judged there
    origin = _unjudged(tmp_path / "origin.db")
    assert main(["--db", str(origin), "sample", "--rate", "0.5", "--seed", "7"]) == 0
    before_verdicts = tmp_path / "early.jsonl"
    rows = _export(origin, before_verdicts)
    target = seed_project(tmp_path / "target.db")  # its verdicts stored after that draw
    fresh = tmp_path / "fresh.db"
    shutil.copy(target, fresh)
    assert main(["--db", str(fresh), "import", "samples", str(before_verdicts)]) == 0
    assert {seed for *_, seed in _rows(fresh)} == {7}
    # the same rows claiming a draw after the target's verdicts: a seed that could have been chosen
    late = tmp_path / "late.jsonl"
    late.write_text("".join(json.dumps({**r, "drawn_at": ann.now_iso()}) + "\n" for r in rows))
    capsys.readouterr()
    assert main(["--db", str(target), "import", "samples", str(late)]) == 2
    err = capsys.readouterr().err
    assert "late.jsonl" in err and "seed" in err and "after its first judge verdict" in err
    assert "grounded × model-a" in err and "model-b" not in err  # model-b has no verdict in the target
    assert _rows(target) == []  # all or nothing
    # times compared as instants: a drawn_at one hour before the verdicts, spelt at +14:00, sorts after them as text
    with sqlite3.connect(target) as conn:
        first_verdict = conn.execute("SELECT min(created_at) FROM verdicts").fetchone()[0]
    from datetime import datetime, timedelta, timezone
    hour_before = datetime.fromisoformat(first_verdict.replace("Z", "+00:00")) - timedelta(hours=1)
    spelt = hour_before.astimezone(timezone(timedelta(hours=14))).isoformat()
    assert spelt > first_verdict
    offset = tmp_path / "offset.jsonl"
    offset.write_text("".join(json.dumps({**r, "drawn_at": spelt}) + "\n" for r in rows))
    assert main(["--db", str(target), "import", "samples", str(offset)]) == 0


def test_an_imported_default_order_sample_is_taken_whenever_it_was_drawn(tmp_path):
    origin = seed_project(tmp_path / "origin.db")
    assert main(["--db", str(origin), "sample", "--rate", "0.5"]) == 0
    file = tmp_path / "sample.jsonl"
    rows = _export(origin, file)
    target = seed_project(tmp_path / "target.db")
    assert main(["--db", str(target), "import", "samples", str(file)]) == 0
    assert len(_rows(target)) == len(rows)


def test_an_imported_paired_sample_under_a_late_seed_is_refused(tmp_path, capsys):
    project = _unjudged(tmp_path / "p.db")
    with ann.unit_of_work(project) as db, ann.write(db):
        db.conn.execute("UPDATE run_records SET run_id = CASE model WHEN 'model-a' THEN 'A' ELSE 'B' END")
    assert main(["--db", str(project), "sample", "--paired", "A", "B", "--seed", "3"]) == 0  # before any verdict
    file = tmp_path / "paired.jsonl"
    rows = _export(project, file)
    with ann.unit_of_work(project) as db, ann.write(db):
        db.conn.execute("DELETE FROM samples")
    _judge(project)
    assert main(["--db", str(project), "import", "samples", str(file)]) == 0  # drawn before the verdicts
    with ann.unit_of_work(project) as db, ann.write(db):
        db.conn.execute("DELETE FROM samples")
    late = tmp_path / "late.jsonl"
    late.write_text("".join(json.dumps({**r, "drawn_at": ann.now_iso()}) + "\n" for r in rows))
    capsys.readouterr()
    assert main(["--db", str(project), "import", "samples", str(late)]) == 2
    err = capsys.readouterr().err
    assert "the paired sample paired|A|B|" in err and "after its first judge verdict" in err
    assert _rows(project) == []


def test_the_review_pages_top_up_sets_the_named_seed_aside_for_populations_judged_since(tmp_path):
    """A seed named before judging, then a new model judged: the Review page's top-up repeats the last draw's rate,
    overlap and seed, and the seed is set aside for the new, judged populations as for `judgecal sample`."""
    project = _unjudged(tmp_path / "p.db", models=("model-a",))
    assert main(["--db", str(project), "sample", "--rate", "0.5", "--seed", "7"]) == 0
    _judge(project)
    runs = parse_rows("\n".join(json.dumps(_run(n, "model-b")) for n in range(1, 5)), RunRecord)
    with ann.unit_of_work(project) as db:
        ann.import_runs(db, runs)
    _judge(project, "b")
    with ann.unit_of_work(project) as db:
        assert ann.sample_is_stale(db)
        assert ann.top_up_sample(db).random_added == 4
        assert not ann.sample_is_stale(db)
    seeds = {(rid[:5], seed) for rid, _, rule, seed in _rows(project) if rule == "random"}
    assert seeds == {("run-a", 7), ("run-b", 0)}


def test_a_drawn_at_that_is_not_a_time_is_refused_with_file_line_and_field(tmp_path, capsys):
    origin = _unjudged(tmp_path / "origin.db")
    assert main(["--db", str(origin), "sample", "--rate", "0.5", "--seed", "7"]) == 0
    rows = _export(origin, tmp_path / "ok.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps({**r, "drawn_at": "yesterday" if i == 1 else r["drawn_at"]}) + "\n"
                           for i, r in enumerate(rows)))
    target = seed_project(tmp_path / "target.db")
    capsys.readouterr()
    assert main(["--db", str(target), "import", "samples", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2: drawn_at" in err and "not an ISO 8601 time: 'yesterday'" in err
    assert _rows(target) == []


def test_a_run_draw_cannot_commit_a_population_judged_on_another_runs_records(tmp_path, capsys):
    """`sample --run-id R --seed S` commits the whole population's order (the population draw reuses it), so the
    verdicts on the population's other runs' records count: judging only run r2 must not leave r1 a free seed."""
    project = _unjudged(tmp_path / "p.db", models=("model-a",))
    with ann.unit_of_work(project) as db, ann.write(db):
        db.conn.execute("UPDATE run_records SET run_id = 'r2' WHERE id IN ('run-a-3', 'run-a-4')")
        db.conn.executemany(
            "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error,"
            " created_at) VALUES (?,?,?,'judge-1',0,'pass',NULL,?)",
            [(rid, cid, RUBRIC_SHA, ann.now_iso()) for rid in ("run-a-3", "run-a-4") for cid in ("grounded", "polite")])
    assert main(["--db", str(project), "sample", "--run-id", "r1", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "seed 7 was not used: 2 population(s)" in out and "grounded × model-a" in out
    assert {seed for *_, seed in _rows(project)} == {0}


def _named_project(tmp_path: Path) -> Path:
    """Drawn under seed 7 before judging (the one way a draw uses a named seed), then judged and labelled."""
    project = _unjudged(tmp_path / "p.db", models=("model-a",))
    assert main(["--db", str(project), "sample", "--rate", "1.0", "--overlap", "0", "--seed", "7"]) == 0
    _judge(project)
    with ann.unit_of_work(project) as db:
        for rid, cid, rule, _ in _rows(project):
            if rule == "random":
                ann.record_label(db, "ann", ann.Pair(rid, cid), "pass")
    return project


def test_the_report_and_the_gate_say_which_draw_orders_rest_on_a_named_seed(tmp_path, capsys):
    """Whatever the rule lets through (a seed named before verdicts were imported, a file claiming an early
    `drawn_at`) is shown: the report's text and JSON, and an information check of the gate that never fails it."""
    project = _named_project(tmp_path)
    capsys.readouterr()
    assert main(["--db", str(project), "report", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["named_seeds"] == {"7": ["grounded × model-a", "polite × model-a"]}
    assert main(["--db", str(project), "report"]) == 0
    assert ("NOTE: 2 draw order(s) rest on a named seed, not judgecal's fixed order (seed 0): seed 7: 2 "
            "(grounded × model-a, polite × model-a)") in capsys.readouterr().out
    with ann.unit_of_work(project) as db:
        gate = ann.run_gate(db, min_kappa=-1.0, min_n=1, on="point")
        without = [c for c in gate.checks if c.check != "seed"]
    seed_checks = [c for c in gate.checks if c.check == "seed"]
    assert len(seed_checks) == 1 and seed_checks[0].ok and "seed 7: 2" in seed_checks[0].reason
    assert gate.passed == all(c.ok for c in without)  # information only
    exit_code = main(["--db", str(project), "gate", "--min-kappa", "-1", "--min-n", "1", "--on", "point"])
    out = capsys.readouterr().out
    assert "info  seed" in out and "seed 7: 2" in out
    assert exit_code == (0 if gate.passed else 1)


def test_a_project_in_the_fixed_order_shows_no_named_seed(tmp_path, capsys):
    project = seed_project(tmp_path / "p.db")
    assert main(["--db", str(project), "sample", "--seed", "9"]) == 0  # set aside: judged
    capsys.readouterr()
    assert main(["--db", str(project), "report", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["named_seeds"] == {}
    assert main(["--db", str(project), "report"]) == 0
    assert "named seed" not in capsys.readouterr().out
    with ann.unit_of_work(project) as db:
        assert not [c for c in ann.run_gate(db, min_kappa=0.0, min_n=1).checks if c.check == "seed"]


def test_a_backdated_imported_sample_passes_the_import_but_is_shown(tmp_path, capsys):
    origin = _unjudged(tmp_path / "origin.db")
    assert main(["--db", str(origin), "sample", "--rate", "0.5", "--seed", "7"]) == 0
    file = tmp_path / "early.jsonl"
    _export(origin, file)
    target = seed_project(tmp_path / "target.db")  # judged after the file's drawn_at: the file is taken
    assert main(["--db", str(target), "import", "samples", str(file)]) == 0
    with ann.unit_of_work(target) as db:
        assert ann.named_seeds(db) == {7: ("grounded × model-a", "grounded × model-b", "polite × model-a",
                                           "polite × model-b")}


def test_a_paired_sample_under_a_named_seed_is_shown_by_its_key(tmp_path):
    project = _unjudged(tmp_path / "p.db")
    with ann.unit_of_work(project) as db, ann.write(db):
        db.conn.execute("UPDATE run_records SET run_id = CASE model WHEN 'model-a' THEN 'A' ELSE 'B' END")
    assert main(["--db", str(project), "sample", "--paired", "A", "B", "--seed", "3"]) == 0
    with ann.unit_of_work(project) as db:
        assert ann.named_seeds(db) == {3: ("paired|A|B|grounded", "paired|A|B|polite")}


def test_the_calibration_page_shows_the_named_seed(tmp_path, monkeypatch):
    from test_app_pages import _app

    at = _app(_named_project(tmp_path), monkeypatch, reviewer="zoe")
    at.switch_page("app_pages/calibration.py").run()
    assert not at.exception
    # the value is the markdown source, escaped: "seed 7\\: 2" renders as "seed 7: 2"
    assert any("rest on a named seed" in w.value and "seed 7\\: 2" in w.value for w in at.warning), at.warning


def _order(seed: int, cid: str, model: str = "model-a") -> list:
    return sorted([ann.Pair(f"run-{model[-1]}-{n}", cid) for n in range(1, 5)],
                  key=lambda p: ann.draw_rank(seed, cid, model, p))


def _sample_file(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps({"stratum": f"{r['constraint_id']}|model-a|{RUBRIC_SHA[:12]}", "reason": None,
                                        "drawn_at": "2000-01-01T00:00:00Z", "rule": "random", **r}) + "\n"
                            for r in rows))
    return path


def test_an_import_cannot_mix_seeds_in_one_population(tmp_path, capsys):
    """Found by a review of this change: a run row under a shopped seed first, the population's row under seed 0
    second. The draw promoted the run row (written again, so no longer first) and the shopped seed vanished from
    `named_seeds` while its front stayed the sample. A population's rows carry one seed now."""
    project = seed_project(tmp_path / "p.db")
    shopped = next(s for s in range(1, 500)
                   if not {tuple(p) for c in ("grounded", "polite") for p in _order(s, c)[:2]} & TELLTALE)
    rows = []
    for cid in ("grounded", "polite"):
        o = _order(shopped, cid)
        rows += [{"run_record_id": o[1][0], "constraint_id": cid, "reason": "run:r1", "seed": shopped},
                 {"run_record_id": o[0][0], "constraint_id": cid, "seed": 0}]
    file = _sample_file(tmp_path / "mixed.jsonl", rows)
    assert main(["--db", str(project), "import", "samples", str(file)]) == 2
    err = capsys.readouterr().err
    assert "mixed.jsonl:2: seed" in err and f"seed 0 here, seed {shopped} on the population's first row" in err
    assert _rows(project) == []


def test_named_seeds_reads_every_row_not_only_the_first(tmp_path):
    """A population's first random row can move (a promoted run row is written again): the seed on any of its random
    rows is shown."""
    project = seed_project(tmp_path / "p.db")
    assert main(["--db", str(project), "sample", "--rate", "0.5"]) == 0
    with ann.unit_of_work(project) as db:
        assert ann.named_seeds(db) == {}
        with ann.write(db):  # as a promotion left it: a later row of grounded × model-a under another seed
            db.conn.execute("UPDATE samples SET seed = 5 WHERE rowid = (SELECT max(s.rowid) FROM samples s WHERE"
                            " s.rule = 'random' AND s.constraint_id = 'grounded' AND s.run_record_id LIKE 'run-a-%')")
        assert ann.named_seeds(db) == {5: ("grounded × model-a",)}


def test_a_seed_sqlite_cannot_store_is_refused_not_a_crash(tmp_path, capsys):
    project = _unjudged(tmp_path / "p.db")
    with pytest.raises(SystemExit) as exc:
        main(["--db", str(project), "sample", "--seed", str(2 ** 64)])
    assert exc.value.code == 2 and "--seed" in capsys.readouterr().err
    file = _sample_file(tmp_path / "big.jsonl", [{"run_record_id": "run-a-1", "constraint_id": "grounded",
                                                 "seed": 2 ** 64}])
    assert main(["--db", str(project), "import", "samples", str(file)]) == 2
    assert "big.jsonl:1: seed" in capsys.readouterr().err
    assert main(["--db", str(project), "sample", "--seed", str(2 ** 63 - 1)]) == 0
    assert {seed for *_, seed in _rows(project)} == {2 ** 63 - 1}


def test_a_paired_draw_sets_a_seed_aside_only_for_constraints_both_runs_answered(tmp_path, capsys):
    """A constraint only run A answered is judged, but a paired draw never starts it: the seed stays the user's."""
    project = _unjudged(tmp_path / "p.db")
    extra = {"id": "item-9", "instruction": "Say hello.", "input": "hi",
             "constraints": [{"id": "friendly", "text": "The answer is friendly.", "type": "content"}]}
    with ann.unit_of_work(project) as db:
        ann.import_items(db, parse_rows(json.dumps(extra), EvalItem))
        ann.import_runs(db, parse_rows(json.dumps({"id": "run-a-9", "item_id": "item-9", "model": "model-a",
                                                   "run_id": "r1", "output": "Hello!"}), RunRecord))
        add_verdicts(db, [("run-a-9", "friendly", RUBRIC_SHA, "pass", None, 0)])
        with ann.write(db):
            db.conn.execute("UPDATE run_records SET run_id = CASE model WHEN 'model-a' THEN 'A' ELSE 'B' END")
    assert main(["--db", str(project), "sample", "--paired", "A", "B", "--seed", "3"]) == 0
    assert "note:" not in capsys.readouterr().out
    assert {seed for *_, seed in _rows(project)} == {3}


def test_an_upper_case_run_reason_is_a_population_row_for_the_draw_too(tmp_path):
    """`RUN:r1` is not a run row to the import's check (case-sensitive), so it must not be one to the draw either:
    the draw promoted it (deleted and wrote it again), moving the population's first row."""
    project = seed_project(tmp_path / "p.db")
    rows = [{"run_record_id": p[0], "constraint_id": cid, "seed": 0, "reason": "RUN:r1" if i == 0 else None}
            for cid in ("grounded", "polite") for i, p in enumerate(_order(0, cid)[:2])]
    file = _sample_file(tmp_path / "upper.jsonl", rows)
    assert main(["--db", str(project), "import", "samples", str(file)]) == 0
    with sqlite3.connect(project) as conn:
        before = conn.execute("SELECT rowid, run_record_id, constraint_id FROM samples WHERE reason = 'RUN:r1'"
                              " ORDER BY rowid").fetchall()
    assert main(["--db", str(project), "sample", "--rate", "0.5"]) == 0
    with sqlite3.connect(project) as conn:
        after = conn.execute("SELECT rowid, run_record_id, constraint_id FROM samples WHERE reason = 'RUN:r1'"
                             " ORDER BY rowid").fetchall()
    assert len(before) == 2 and after == before
