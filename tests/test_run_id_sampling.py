"""Issue 13 item 6: `--run-id` on `sample` and `report`. One run's pairs are a subset of each constraint × model
population; the population's draw order restricted to them is still a uniformly random order of that subset, so
`sample --run-id R` adds the first ceil(rate × N_R) pairs of the restricted order (no second random draw) and
`report --run-id R` counts the longest labelled prefix of it. Attacks: cherry-picking agreeing pairs of a run, and
using a run's extra pairs to move the project's number.

The project is the demo with the stand-in judge of tests/test_counted_pairs.py (the answer key with a seeded share
of wrong answers). demo-run-a and demo-boundary-5x share model demo-agent-a, so a run is a strict part of a population.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report
from judgecal.cli import main
from test_counted_pairs import AUTHOR, _demo_with_judge, _label

RUN = "demo-boundary-5x"


def _run_pops(db, run_id: str) -> dict[tuple[str, str], list[ann.Pair]]:
    model = dict(db.execute("SELECT id, model FROM run_records").fetchall())
    records = {r[0] for r in db.execute("SELECT id FROM run_records WHERE run_id = ?", [run_id])}
    pops = defaultdict(list)
    for p in ann.population_pairs(db):
        if p[0] in records:
            pops[(p[1], model[p[0]])].append(p)
    return pops


def _restricted_order(db, pops) -> dict[tuple[str, str], list[ann.Pair]]:
    seeds = ann.committed_seeds(db)
    return {pop: sorted(ps, key=lambda p: ann.draw_rank(seeds[pop], *pop, p)) for pop, ps in pops.items()}


@pytest.fixture
def project(tmp_path):
    db_path, judge = _demo_with_judge(tmp_path, 0.70)
    assert main(["--db", str(db_path), "sample", "--overlap", "0"]) == 0
    return db_path, judge


def test_sample_run_id_draws_the_front_of_the_restricted_order(project, capsys):
    db_path, _ = project
    with ann.unit_of_work(db_path) as db:
        before = ann.counted_pairs(db).order
        settings = ann.last_draw(db)
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--rate", "0.5"]) == 0
    out = capsys.readouterr().out
    assert f"run {RUN}:" in out and "stratum" in out
    with ann.unit_of_work(db_path) as db:
        pops = _run_pops(db, RUN)
        order = _restricted_order(db, pops)
        random = {p for p, r in ann.sample_rules(db).items() if "random" in r}
        for pop, ps in order.items():
            # exactly the first ceil(0.5 × N_R) pairs of the restricted order are sampled, no other of R's pairs
            assert {p for p in ps if p in random} == set(ps[:ann.quota(0.5, len(ps))]), pop
        # the population draw is untouched: its order, its counted pairs, its stored settings
        assert ann.counted_pairs(db).order == before
        assert ann.last_draw(db) == settings
        # the queue serves R's extra pairs (they are in the draw order of their population)
        served = {p for o in ann.draw_orders(db).values() for p in o}
        assert all(p in served for ps in order.values() for p in ps[:ann.quota(0.5, len(ps))])
    # idempotent: drawing again adds nothing
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--rate", "0.5"]) == 0
    assert "added 0 random pairs" in capsys.readouterr().out


def test_cherry_picked_agreeing_pairs_of_a_run_count_only_as_a_prefix(project):
    """The attack: draw R's whole restricted order, label only the pairs of R where the judge agrees. Only the pairs
    before the first unlabelled one of the restricted order count for `report --run-id R`; and R's extra pairs never
    enter the project's own number."""
    db_path, judge = project
    with ann.unit_of_work(db_path) as db:
        whole = calibration_report(db, rubric="stand-in")
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--rate", "1.0"]) == 0
    with ann.unit_of_work(db_path) as db:
        order = _restricted_order(db, _run_pops(db, RUN))
        picked = [p for ps in order.values() for p in ps if judge[p] == AUTHOR[p]]
        _label(db, picked)
        expected = set()
        for ps in order.values():
            k = 0
            while k < len(ps) and judge[ps[k]] == AUTHOR[ps[k]]:
                k += 1
            expected |= set(ps[:k])
        counted = ann.counted_pairs(db, run_id=RUN).pairs
        assert counted == expected and counted < set(picked)
        report = calibration_report(db, rubric="stand-in", run_id=RUN)
        overall = report.groups[0].overall
        # every counted pair agrees (that was the cherry-pick) but only the prefix counts; the rest is shown apart
        assert overall.random_labelled == len(expected)
        assert report.groups[0].non_random.beyond_prefix == len(picked) - len(expected)
        assert report.filters["run_id"] == RUN
        # the run's coverage is short of its quota: the hostile labels do not complete it
        assert not all(c.ok for c in report.coverage)
        # The project's number: R's extra pairs lie beyond the population sample in the population's order; had
        # they counted there, the population's counted prefix would over-weight the run the user picked.
        scoped = {(r[0], r[1]) for r in db.execute(
            "SELECT run_record_id, constraint_id FROM samples WHERE reason LIKE 'run:%'")}
        assert scoped and scoped & set(picked)
        population = ann.counted_pairs(db)
        assert population.pairs.isdisjoint(scoped)
        assert not scoped & {p for o in population.order.values() for p in o}
        after = calibration_report(db, rubric="stand-in")
        assert after.groups[0].overall.random_labelled == whole.groups[0].overall.random_labelled + len(
            population.pairs & set(picked))


def test_an_honest_run_report_counts_every_labelled_pair_in_order(project, capsys):
    db_path, _ = project
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--rate", "0.2"]) == 0
    with ann.unit_of_work(db_path) as db:
        order = _restricted_order(db, _run_pops(db, RUN))
        front = [p for ps in order.values() for p in ps[:ann.quota(0.2, len(ps))]]
        _label(db, front)
        assert ann.counted_pairs(db, run_id=RUN).pairs == set(front)
        assert all(c.ok for c in ann.coverage(db, 0.2, include_unjudged=True, run_id=RUN))
        # the run's counted pairs never include another run's pair
        assert {p[0] for p in ann.counted_pairs(db, run_id=RUN).pairs} <= {
            r[0] for r in db.execute("SELECT id FROM run_records WHERE run_id = ?", [RUN])}
    capsys.readouterr()
    assert main(["--db", str(db_path), "report", "--rubric", "stand-in", "--run-id", RUN, "--rate", "0.2",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["filters"]["run_id"] == RUN
    assert data["groups"][0]["overall"]["random_labelled"] == len(front)
    assert {row["model"] for row in data["coverage"]} == {"demo-agent-a"}
    assert all(row["ok"] for row in data["coverage"])
    assert main(["--db", str(db_path), "report", "--rubric", "stand-in", "--run-id", RUN, "--rate", "0.2"]) == 0
    assert f"run_id={RUN}" in capsys.readouterr().out


def test_the_population_draw_takes_over_a_runs_pairs_it_reaches(project):
    db_path, _ = project
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--rate", "0.5"]) == 0
    assert main(["--db", str(db_path), "sample", "--rate", "1.0", "--overlap", "0"]) == 0
    with ann.unit_of_work(db_path) as db:
        assert db.execute("SELECT count(*) FROM samples WHERE reason LIKE 'run:%'").fetchone()[0] == 0
        everything = ann.population_pairs(db)
        assert {p for o in ann.counted_pairs(db).order.values() for p in o} == everything


def test_a_run_sample_survives_export_and_import_and_a_forged_one_is_refused(project, tmp_path, capsys):
    db_path, _ = project
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--rate", "0.5"]) == 0
    out = tmp_path / "samples.jsonl"
    assert main(["--db", str(db_path), "export", "samples", "--out", str(out)]) == 0
    fresh = tmp_path / "fresh.db"
    assert main(["--db", str(fresh), "demo"]) == 0
    with ann.unit_of_work(fresh) as db:
        db.execute("DELETE FROM samples")
        db.conn.commit()
    assert main(["--db", str(fresh), "import", "samples", str(out)]) == 0
    with ann.unit_of_work(db_path) as a, ann.unit_of_work(fresh) as b:
        assert ann.draw_orders(a) == ann.draw_orders(b)
        assert ann.counted_pairs(a, run_id=RUN).order == ann.counted_pairs(b, run_id=RUN).order
        pops = _restricted_order(a, _run_pops(a, RUN))
    # forge: swap a run-scoped row for a pair of the run further down the restricted order
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    i = next(i for i, r in enumerate(rows) if (r.get("reason") or "").startswith("run:"))
    pop_order = next(o for o in pops.values() if any(p == (rows[i]["run_record_id"], rows[i]["constraint_id"])
                                                     for p in o))
    rows[i]["run_record_id"] = pop_order[-1][0]
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(r) + "\n" for r in rows))
    again = tmp_path / "again.db"
    assert main(["--db", str(again), "demo"]) == 0
    with ann.unit_of_work(again) as db:
        db.execute("DELETE FROM samples")
        db.conn.commit()
        before = db.execute("SELECT count(*) FROM samples").fetchone()[0]
    capsys.readouterr()
    assert main(["--db", str(again), "import", "samples", str(forged)]) == 2
    assert "restricted to that run" in capsys.readouterr().err
    with ann.unit_of_work(again) as db:
        assert db.execute("SELECT count(*) FROM samples").fetchone()[0] == before


@pytest.mark.parametrize("command", [["sample"], ["report"]], ids=["sample", "report"])
def test_unknown_run_id_is_bad_input_and_changes_nothing(project, capsys, command):
    db_path, _ = project
    before = db_path.read_bytes()
    assert main(["--db", str(db_path), *command, "--run-id", "nope"]) == 2
    assert "no run records with run_id 'nope'; runs in the project:" in capsys.readouterr().err
    assert db_path.read_bytes() == before


def test_run_id_refuses_flags_of_the_population_draw(project, capsys):
    db_path, _ = project
    assert main(["--db", str(db_path), "sample", "--run-id", RUN, "--judged-only"]) == 2
    assert "--judged-only belongs to the population draw" in capsys.readouterr().err
    assert main(["--db", str(db_path), "report", "--run-id", RUN, "--compare", "a", "b"]) == 2
    assert "drop --run-id" in capsys.readouterr().err
