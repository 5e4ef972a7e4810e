"""Issue 16.2: a draw after new data starts from what the last draw stored (`_draw_since`, migration 017).

Every test keeps twin projects (`Twins` from test_sampling_scale): one drawn by `draw_sample`, one by main's per-pair
draw (`_reference_draw`), and compares every sample row (row id order, stratum, reason, seed) and every stored quota
after each change. Here the changes are the ones that take the incremental path (only rows added since the last
draw) and the hostile ones that must not: each test says which path it expects, and checks that the counts the
incremental path stored are the ones a whole draw would store, and that each stored front still holds exactly the
pairs its bound promises.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.review import _sampling  # house: private
from judgecal.annotations.review._sampling import _rank, draw_rank, population_key  # house: private
from judgecal.annotations.store import write

from test_sampling_scale import STAMP, V1, V2, V3, Twins, _copy, _drawn, _new_records, _verdicts

# The draw's mechanics under seeds named on purpose (conftest.any_seed; the seed rule: test_seed_after_verdicts.py)
pytestmark = pytest.mark.usefixtures("any_seed")

KW = {"rate": 0.2, "overlap": 0.3, "seed": 7}
V4 = "c" * 64


class Paths:
    """Which draw `draw_sample` ran: the incremental one (`_draw_since` returned rows) or the whole one."""

    def __init__(self, monkeypatch):
        self.taken: list[str] = []
        since, whole = _sampling._draw_since, _sampling._draw

        def spy_since(*a, **k):
            out = since(*a, **k)
            self.taken.append("since" if out is not None else "refused")
            return out

        def spy_whole(*a, **k):
            self.taken.append("whole")
            return whole(*a, **k)

        monkeypatch.setattr(_sampling, "_draw_since", spy_since)
        monkeypatch.setattr(_sampling, "_draw", spy_whole)

    def last(self) -> str:
        return self.taken[-1]


@pytest.fixture(params=[0, 64], ids=["fronts-cut", "fronts-as-shipped"])
def twins(tmp_path, monkeypatch, request):
    """Twins drawn once. At the demo's size a stored front of twice the quota and 64 is most of a population;
    with no spare it is 40% of one, so the pairs behind it and the bound are exercised too."""
    monkeypatch.setattr(_sampling, "_SPARE", request.param)
    t = Twins(tmp_path)
    t.paths = Paths(monkeypatch)
    t.tmp = tmp_path
    t.change(lambda db: db.execute("INSERT INTO rubrics (sha256, name, version, template, created_at)"
                                   " VALUES (?, 'strict', 4, 'v4', ?)", [V4, STAMP]))
    t.draw(**KW)
    assert t.paths.last() == "whole"
    return t


def _since(path: Path) -> dict:
    with closing(sqlite3.connect(path)) as c:
        return json.loads(c.execute("SELECT value FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
                          .fetchone()[0])["since"]


# the counts of a population a whole draw recomputes (the fronts' sizes and bounds are the draw's own choice)
_COUNTS = ("seed", "size", "with_output", "unjudged", "unjudged_sampled", "drawn", "overlapped", "through",
           "drawn_count")


def _counts(since: dict) -> tuple:
    pops = {}
    for row in since["populations"]:
        state = _sampling._Population.from_json(row[2:])
        pops[(row[0], row[1])] = tuple(getattr(state, k) for k in _COUNTS)
    return pops, since["judged"], since["sampled"], since["unsized"]


def _check_stored(twins, kw) -> None:
    """The incremental draw stored what a whole draw stores, and each front holds what its bound promises."""
    scratch = _copy(twins.fast, twins.tmp / f"whole-{len(twins.paths.taken)}.db")
    with ann.unit_of_work(scratch) as db, write(db):
        value = json.loads(db.execute("SELECT value FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
                           .fetchone()[0])
        # the draw before this one, redone whole on the same rows: the counts must agree
        db.execute("DELETE FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])
    with ann.unit_of_work(scratch) as db:
        ann.draw_sample(db, **kw)
    assert _counts(_since(twins.fast)) == _counts(_since(scratch))
    assert _drawn(scratch) == _drawn(twins.fast)  # nothing was left for the whole draw to add
    with ann.unit_of_work(twins.fast) as db:
        members = _members(db)
        for row in value["since"]["populations"]:
            pop, state = (row[0], row[1]), _sampling._Population.from_json(row[2:])
            ranked = sorted(draw_rank(state.seed, *pop, p) for p in members[pop])
            stored = [r for (r,) in db.execute("SELECT rank FROM draw_fronts WHERE kind = 'random' AND"
                                               " constraint_id = ? AND model = ? ORDER BY rank", list(pop))]
            assert stored == [r for r in ranked if state.bound is None or r <= state.bound]
            assert len(stored) == state.front >= state.drawn_count
            assert state.through is None or state.through == ranked[state.drawn_count - 1]
            # (a labelled pair is never an overlap candidate: one labelled since its front was stored stays in it,
            # passed over when picked from)
            labelled = {ann.Pair(*r) for r in db.execute("SELECT run_record_id, constraint_id FROM human_labels")}
            fresh = [p for p in members[pop] if p in _rule(db, "random") and p not in _rule(db, "overlap")
                     and p not in labelled]
            salt = f"overlap\x1f{population_key(*pop)}"
            oranked = sorted(_rank(state.seed, salt, p) for p in fresh)
            ostored = db.execute("SELECT rank, run_record_id FROM draw_fronts WHERE kind = 'overlap' AND"
                                 " constraint_id = ? AND model = ? ORDER BY rank", list(pop)).fetchall()
            assert [r for r, rid in ostored if ann.Pair(rid, pop[0]) not in labelled] == \
                [r for r in oranked if state.obound is None or r <= state.obound]
            assert len(ostored) == state.ofront


def _members(db) -> dict:
    out: dict = {}
    for cid, model, rid, _has_output, _rubrics in db.execute(_sampling._DRAW_PAIRS):
        out.setdefault((cid, model), []).append(ann.Pair(rid, cid))
    return out


def _rule(db, rule: str) -> set:
    return {ann.Pair(*r) for r in db.execute(
        "SELECT run_record_id, constraint_id FROM samples WHERE rule = ? AND (reason IS NULL OR reason NOT LIKE"
        " 'run:%')", [rule])}


def _step(twins, change, expect: str, kw=KW) -> ann.SampleSummary:
    twins.change(change)
    got = twins.draw(**kw)
    assert twins.paths.last() == expect, twins.paths.taken
    if expect == "since":
        _check_stored(twins, kw)
    return got


def _judge(model: str | None, sha: str, judge: str, *, step: int = 1, repeats: int = 1, label="pass"):
    """Verdicts by `sha` on every `step`-th semantic pair (of `model`'s run records only, when given)."""
    def change(db):
        done = {ann.Pair(*r) for r in db.execute("SELECT run_record_id, constraint_id FROM verdicts WHERE"
                                                 " rubric_sha256 = ? AND judge_model = ?", [sha, judge])}
        pairs = sorted(p for p in ann.population_pairs(db) if p not in done and (
            model is None or db.execute("SELECT model FROM run_records WHERE id = ?", [p[0]]).fetchone()[0] == model))
        rows = [(rid, cid, sha, judge, rep, label if not callable(label) else label(k, rep), None, STAMP)
                for k, (rid, cid) in enumerate(pairs[::step]) for rep in range(repeats)]
        _verdicts(db, rows)
    return change


def test_new_run_records_of_an_existing_model_then_their_verdicts(twins):
    with ann.unit_of_work(twins.fast) as db:
        model = db.execute("SELECT model FROM run_records WHERE run_id = 'demo-run-a'").fetchone()[0]

    def more(db):  # the same model, more run records: every one of its populations grows
        rows = list(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a' ORDER BY seq"))
        with write(db):
            for k, row in enumerate(rows):
                row.update(id=f"again-{k}", run_id="demo-run-a2", seq=30_000 + k)
                db["run_records"].insert(row)

    got = _step(twins, more, "since")
    assert got.random_added
    got = _step(twins, _judge(model, V1, "judge-x", step=2, repeats=3,
                              label=lambda k, rep: "fail" if k % 5 == 0 and rep == 2 else "pass"), "since")
    assert got.targeted_added  # repeats that disagree on the new pairs


def test_a_new_model_and_a_new_rubric_version(twins):
    got = _step(twins, lambda db: _new_records(db, "demo-agent-c", 40), "since")
    assert got.random_added and got.overlap_added
    with ann.unit_of_work(twins.fast) as db:
        assert db.execute("SELECT count(*) FROM samples WHERE stratum LIKE '%demo-agent-c%'").fetchone()[0]
    _step(twins, _judge("demo-agent-c", V4, "judge-4", step=3), "since")  # a new version on the new model
    _step(twins, _judge(None, V4, "judge-4", step=2), "since")  # ... and on every model: new strata everywhere


def test_new_verdicts_on_sampled_pairs_make_them_targeted_and_new_repeats(twins):
    with ann.unit_of_work(twins.fast) as db:
        sampled = db.execute("SELECT s.run_record_id, s.constraint_id FROM samples s WHERE s.rule = 'random' AND"
                             " NOT EXISTS (SELECT 1 FROM samples t WHERE t.run_record_id = s.run_record_id AND"
                             " t.constraint_id = s.constraint_id AND t.rule = 'targeted') LIMIT 6").fetchall()
        assert len(sampled) == 6
    # further repeats that disagree, an error row, and agreeing repeats of another judge (no target)
    rows = [(*sampled[0], V1, "judge-x", 7, "fail", None, "2026-12-01T00:00:00Z"),
            (*sampled[0], V1, "judge-x", 8, "pass", None, "2026-12-01T00:00:00Z"),
            (*sampled[1], V2, "judge-y", 0, None, "timeout", "2026-12-02T00:00:00Z"),
            *[(*p, V3, "judge-z", rep, "pass", None, STAMP) for p in sampled[2:] for rep in range(2)]]
    got = _step(twins, lambda db: _verdicts(db, rows), "since")
    assert got.targeted_added == 2
    with ann.unit_of_work(twins.fast) as db:
        reasons = [r for (r,) in db.execute("SELECT reason FROM samples WHERE rule = 'targeted' ORDER BY rowid"
                                            " DESC LIMIT 2")]
    assert any("judge error: timeout" in r for r in reasons) and any("disagree" in r for r in reasons)


def test_a_failed_run_record_judged_later_joins_its_population(twins):
    def failed(db):
        row = next(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-b' ORDER BY seq LIMIT 1"))
        row.update(id="failed-2", output=None, trajectory=None, seq=40_000)
        with write(db):
            db["run_records"].insert(row)

    _step(twins, failed, "since")  # no member: nothing changes
    with ann.unit_of_work(twins.fast) as db:
        cids = [c for (c,) in db.execute("SELECT c.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                                         " AND c.check_json IS NULL WHERE r.id = 'failed-2'")]
    _step(twins, lambda db: _verdicts(db, [("failed-2", c, V2, "judge-y", 0, "fail", None, STAMP) for c in cids]),
          "since")


def test_many_small_appends(twins):
    for k in range(8):
        _step(twins, lambda db, k=k: _new_records(db, f"more-{k % 2}-{k}", 7), "since")
        _step(twins, _judge(f"more-{k % 2}-{k}", V1, "judge-x", repeats=2), "since")


@pytest.mark.parametrize("kind", ["random", "overlap"])
def test_a_quota_that_outgrows_its_stored_front_takes_the_whole_draw(twins, kind):
    """New pairs land in a stored front in proportion to it, so a front of twice the quota keeps up with appends
    of any size; only chance can leave a quota past it. Here the fronts are cut to what is drawn (the promise each
    bound makes still holds), so the next quota is past them: the draw must see that and draw whole."""
    def cut(db):
        with write(db):
            row = db.execute("SELECT value FROM settings WHERE key = ?", [_sampling.DRAW_SETTING]).fetchone()
            value = json.loads(row[0])
            for pop in value["since"]["populations"]:
                state = _sampling._Population.from_json(pop[2:])
                if kind == "random" and state.through is not None:
                    db.execute("DELETE FROM draw_fronts WHERE kind = 'random' AND constraint_id = ? AND model = ?"
                               " AND rank > ?", [pop[0], pop[1], state.through])
                    state.bound, state.front = state.through, state.drawn_count
                elif kind == "overlap":
                    db.execute("DELETE FROM draw_fronts WHERE kind = 'overlap' AND constraint_id = ? AND model = ?",
                               [pop[0], pop[1]])
                    state.obound, state.ofront = b"\0" * 32, 0
                pop[2:] = state.to_json()
            value["state"] = _sampling._draw_state(db)  # as if the draw had stored these fronts itself
            db.execute("UPDATE settings SET value = ? WHERE key = ?", [json.dumps(value), _sampling.DRAW_SETTING])

    with ann.unit_of_work(twins.fast) as db:
        cut(db)

    def more(db):
        rows = list(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a' ORDER BY seq"))
        with write(db):
            for k, row in enumerate(rows):
                db["run_records"].insert({**row, "id": f"grow-{k}", "run_id": "grow", "seq": 70_000 + k})

    twins.change(more)
    twins.draw(**KW)
    assert twins.paths.taken[-2:] == ["refused", "whole"], twins.paths.taken
    _step(twins, lambda db: _new_records(db, "more-9", 5), "since")  # the whole draw stored full fronts again


def test_judged_only_a_population_judged_for_the_first_time(twins):
    kw = {**KW, "include_unjudged": False}
    twins.draw(**kw)  # other arguments: a whole draw
    assert twins.paths.last() == "whole"
    _step(twins, lambda db: _new_records(db, "demo-agent-d", 30), "since", kw)  # unjudged: not drawn
    with ann.unit_of_work(twins.fast) as db:
        assert not db.execute("SELECT 1 FROM samples WHERE stratum LIKE '%demo-agent-d%'").fetchone()
    got = _step(twins, _judge("demo-agent-d", V2, "judge-y", step=4), "since", kw)  # now drawn, from its first pair
    assert got.random_added


def test_pairs_drawn_for_one_run_are_promoted_when_the_front_reaches_them(twins):
    twins.change(lambda db: ann.draw_run_sample(db, "demo-run-b", rate=0.9, seed=7))
    twins.draw(**KW)  # the sample changed: whole
    assert twins.paths.last() == "whole"
    with ann.unit_of_work(twins.fast) as db:
        scoped_before = db.execute("SELECT count(*) FROM samples WHERE reason LIKE 'run:%'").fetchone()[0]
    for k in range(4):
        _step(twins, lambda db, k=k: _new_records(db, f"other-{k}", 30), "since")

        def same_model(db, k=k):  # more run records of demo-run-b's model: its fronts grow into the run's pairs
            rows = list(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-b' ORDER BY seq LIMIT 25"))
            with write(db):
                for j, row in enumerate(rows):
                    db["run_records"].insert({**row, "id": f"b-{k}-{j}", "run_id": f"b-{k}",
                                              "seq": 60_000 + 100 * k + j})

        _step(twins, same_model, "since")
    with ann.unit_of_work(twins.fast) as db:
        scoped_after = db.execute("SELECT count(*) FROM samples WHERE reason LIKE 'run:%'").fetchone()[0]
    assert scoped_after < scoped_before  # some were promoted on the incremental path


def test_a_new_constraint_on_existing_items(twins):
    def constraint(db):
        with write(db):
            for item in [i for (i,) in db.execute("SELECT id FROM eval_items ORDER BY seq LIMIT 4")]:
                db.execute("INSERT INTO constraints (item_id, id, seq, text, type, severity, check_json, labels)"
                           " VALUES (?, 'added_later', 99, 'added', 'content', 'major', NULL, '[\"pass\",\"fail\"]')",
                           [item])

    got = _step(twins, constraint, "since")
    assert got.random_added


@pytest.mark.parametrize("attack", ["delete the top verdict, add two", "delete a middle verdict, add one",
                                    "replace the top run record", "delete a sample row", "edit a stored front",
                                    "--judged-only"])
def test_what_is_not_only_new_rows_takes_the_whole_draw(twins, attack):
    """Counts and largest row ids that look append-only, a changed sample, a hand-edited front, other arguments:
    the whole draw runs (and writes the reference rows)."""
    def edit(db):
        with write(db):
            if attack == "delete the top verdict, add two":  # count +1, largest id +1: as if one was added
                top = db.execute("SELECT * FROM verdicts ORDER BY id DESC LIMIT 1").fetchone()
                db.execute("DELETE FROM verdicts WHERE id = ?", [top[0]])
                _verdicts(db, [(top[1], top[2], V3, "judge-q", 0, "fail", None, STAMP),
                               (top[1], top[2], V3, "judge-q", 1, "pass", None, STAMP)])
            elif attack == "delete a middle verdict, add one":
                db.execute("DELETE FROM verdicts WHERE id = (SELECT id FROM verdicts ORDER BY id LIMIT 1 OFFSET 40)")
                _verdicts(db, [(*db.execute("SELECT run_record_id, constraint_id FROM verdicts LIMIT 1").fetchone(),
                                V4, "judge-q", 0, "pass", None, STAMP)])
            elif attack == "replace the top run record":  # same id, same row id, now with output
                row = dict(next(db.query("SELECT * FROM run_records ORDER BY rowid DESC LIMIT 1")))
                assert row["id"] == "victim" and row["output"] is None
                db.execute("DELETE FROM run_records WHERE id = 'victim'")
                db["run_records"].insert({**row, "output": "an answer after all"})
            elif attack == "delete a sample row":
                db.execute("DELETE FROM samples WHERE rowid = (SELECT rowid FROM samples WHERE rule = 'random'"
                           " LIMIT 1 OFFSET 3)")
            elif attack == "edit a stored front":
                db.execute("DELETE FROM draw_fronts WHERE rank = (SELECT min(rank) FROM draw_fronts)")
        _new_records(db, "after-edit", 12)

    kw = {"--judged-only": {**KW, "include_unjudged": False}}.get(attack, KW)
    _step(twins, lambda db: _new_records(db, "before-edit", 6), "since")  # unjudged run records at the top

    def victim(db):  # a failed run record on top: no pair of it is a member, none is sampled
        row = next(db.query("SELECT * FROM run_records ORDER BY rowid DESC LIMIT 1"))
        with write(db):
            db["run_records"].insert({**row, "id": "victim", "output": None, "trajectory": None})

    _step(twins, victim, "since")
    twins.change(edit)
    twins.draw(**kw)
    assert twins.paths.last() == "whole", twins.paths.taken
    _step(twins, lambda db: _new_records(db, "then-more", 9), "since", kw)  # and then it is incremental again


def test_a_population_whose_seed_was_committed_before_it_had_members(twins):
    """A random row for a pair that is no member yet (a failed run record, unjudged: here written by hand) commits
    its population's seed; when a verdict later makes the pair a member, the incremental draw must rank and record
    under that seed (the reference reads it from the sample), not under the draw's."""
    def ghost(db):
        row = next(db.query("SELECT * FROM run_records WHERE run_id = 'demo-run-a' ORDER BY seq LIMIT 1"))
        with write(db):
            db["run_records"].insert({**row, "id": "ghost-1", "model": "ghost", "output": None, "trajectory": None,
                                      "seq": 80_000})
            cid = db.execute("SELECT id FROM constraints WHERE item_id = ? AND check_json IS NULL",
                             [row["item_id"]]).fetchone()[0]
            db.execute("INSERT INTO samples VALUES ('ghost-1', ?, 'random', ?, NULL, 99, ?)",
                       [cid, f"{cid}|ghost|unjudged", STAMP])

    twins.change(ghost)
    twins.draw(**KW)
    assert twins.paths.last() == "whole"
    with ann.unit_of_work(twins.fast) as db:
        cid = db.execute("SELECT constraint_id FROM samples WHERE run_record_id = 'ghost-1'").fetchone()[0]
    got = _step(twins, lambda db: _verdicts(db, [("ghost-1", cid, V2, "judge-y", 0, "fail", None, STAMP)]), "since")
    assert got.overlap_added
    with ann.unit_of_work(twins.fast) as db:
        assert db.execute("SELECT seed FROM samples WHERE run_record_id = 'ghost-1' AND rule = 'overlap'"
                          ).fetchone()[0] == 99


def test_a_promoted_first_row_that_moves_a_committed_seed(twins):
    """A population's committed seed is its first random row's. Here one run's rows came first (seed 11) and all
    but the first were given another seed by hand (5); the population is drawn for the first time incrementally
    (--judged-only, once judged), which promotes the first row: the committed seed is 5 from then on, so the fronts
    ranked under 11 must not be used again (the reference ranks under 5)."""
    kw = {**KW, "include_unjudged": False}
    twins.change(lambda db: _new_records(db, "demo-agent-e", 40))
    twins.change(lambda db: ann.draw_run_sample(db, "run-demo-agent-e", rate=0.5, seed=11))

    def reseed(db):
        with write(db):
            db.execute("UPDATE samples SET seed = 5 WHERE rule = 'random' AND run_record_id LIKE 'demo-agent-e-%'"
                       " AND rowid NOT IN (SELECT min(s.rowid) FROM samples s WHERE s.rule = 'random' AND"
                       " s.run_record_id LIKE 'demo-agent-e-%' GROUP BY s.constraint_id)")

    twins.change(reseed)
    twins.draw(**kw)  # the sample changed: whole; demo-agent-e is unjudged, so not drawn
    assert twins.paths.last() == "whole"
    twins.change(_judge("demo-agent-e", V1, "judge-x"))
    got = twins.draw(**kw)
    assert twins.paths.last() == "since"
    assert got.random_total and not got.random_added  # its front was the run's rows: promoted, none new
    with ann.unit_of_work(twins.fast) as db:
        seeds = _sampling.committed_seeds(db)
    assert 5 in {s for (cid, model), s in seeds.items() if model == "demo-agent-e"}  # a first row moved
    assert _since(twins.fast) is None  # the draw saw it: nothing stored to start the next one from
    twins.change(lambda db: _new_records(db, "demo-agent-f", 5))
    twins.draw(**kw)
    assert twins.paths.taken[-2:] == ["refused", "whole"], twins.paths.taken


@pytest.mark.parametrize("kw, expect", [
    ({**KW, "rate": 0.35}, "since"),  # the stored fronts (twice the quota) reach the new quota
    ({**KW, "rate": 0.1}, "since"),  # a lower rate: nothing drawn but new members within the shorter front
    ({**KW, "overlap": 0.5}, "since"),
    ({**KW, "overlap": 0.1}, "since"),
    ({**KW, "seed": 8}, "since"),  # every population has a committed seed
    ({**KW, "rate": 0.9}, "past"),  # past the stored fronts (with no spare; the demo's are stored whole with it)
    ({**KW, "overlap": 0.0}, "whole"),  # overlap fronts are kept only while overlap is drawn: on or off is whole
], ids=["rate up", "rate down", "overlap up", "overlap down", "seed", "rate past the fronts", "overlap off"])
def test_another_rate_overlap_or_seed_starts_from_the_last_draw(twins, kw, expect):
    """Issue 16.2: a changed rate, overlap or seed is no longer a whole draw when the data only grew: every
    population's quota is recomputed from the stored counts and fronts (the rows and quotas are the reference's,
    the stored counts a whole draw's), with new run records and verdicts arriving at the same time. Then back to
    the first arguments."""
    if expect == "past":
        expect = "whole" if _sampling._SPARE == 0 else "since"
    _step(twins, lambda db: _new_records(db, "with-the-change", 10), expect, kw)
    _step(twins, _judge(None, V4, "judge-k", step=5, label=lambda k, rep: "fail" if k % 4 else "pass"),
          "since" if kw.get("overlap") != 0.0 else "whole", KW)


def test_another_seed_with_a_population_never_drawn_draws_whole(twins):
    """--judged-only leaves an unjudged population undrawn: its stored fronts are ranked under the last draw's seed,
    which no row commits, so another seed must rank it again (the whole draw)."""
    _step(twins, lambda db: _new_records(db, "never-judged", 15), "whole", {**KW, "include_unjudged": False})
    _step(twins, lambda db: _new_records(db, "more", 3), "whole", {**KW, "include_unjudged": False, "seed": 99})
    _step(twins, lambda db: _new_records(db, "and-more", 3), "since", {**KW, "include_unjudged": False, "seed": 99})


def _label_every_other_random_pair(db) -> None:
    """Reviewer ann labels every other random pair that is not an overlap pair, as the Review page saves."""
    for pair in sorted(_rule(db, "random") - _rule(db, "overlap"))[::2]:
        labels = json.loads(db.execute("SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                                       " AND c.id = ? WHERE r.id = ?", [pair[1], pair[0]]).fetchone()[0])
        ann.record_label(db, "ann", pair, labels[0])


def _labelled(path) -> set:
    with ann.unit_of_work(path) as db:
        return {ann.Pair(*r) for r in db.execute("SELECT run_record_id, constraint_id FROM human_labels")}


@pytest.mark.parametrize("whole", [False, True], ids=["since", "whole"])
def test_a_labelled_pair_is_never_drawn_as_an_overlap_pair(twins, whole):
    """A pair labelled once is shown with its verdicts and label on the Calibration page (nobody's blind label is
    awaited on it): a second reviewer given it later may have seen both, and their label entered the human-human
    ceiling as blind (a review, wave 15: `sample --overlap 1.0` after labelling made every labelled pair an overlap
    pair). Neither a higher overlap share nor a population's growth draws one now, by either draw."""
    twins.change(_label_every_other_random_pair)
    labelled = _labelled(twins.fast)
    assert labelled

    def forget(db):  # the whole draw instead of the draw since the last
        if whole:
            with write(db):
                db.execute("DELETE FROM settings WHERE key = ?", [_sampling.DRAW_SETTING])

    with ann.unit_of_work(twins.fast) as db:
        before = _rule(db, "overlap")
    twins.change(forget)
    got = twins.draw(**(KW | {"overlap": 0.5}))  # a higher share: compared with the reference draw
    assert got.overlap_added
    paths = [twins.paths.last()]
    if twins.paths.last() == "since":
        _check_stored(twins, KW | {"overlap": 0.5})
    with ann.unit_of_work(twins.fast) as db:
        added = _rule(db, "overlap") - before
    assert added and not added & labelled
    # the populations grow: the new random pairs may become overlap pairs, the labelled ones never
    twins.change(lambda db: _new_records(db, "demo-agent-a", 40))
    twins.change(forget)
    assert twins.draw(**(KW | {"overlap": 0.5})).overlap_added
    paths.append(twins.paths.last())
    if twins.paths.last() == "since":
        _check_stored(twins, KW | {"overlap": 0.5})
    with ann.unit_of_work(twins.fast) as db:
        assert not (_rule(db, "overlap") - before) & labelled
    assert paths == ["whole" if whole else "since"] * 2, twins.paths.taken
