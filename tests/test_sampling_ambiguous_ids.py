"""Two pairs of two populations that spell the same rank text (found by a review, wave 13).

A pair's rank text is `seed \\x1f constraint|model \\x1f run record \\x1f constraint`. With a \\x1f in a model name
and in a run record id, run record "y\\x1fz" of model "x" and run record "z" of model "x\\x1fy" both give
"0\\x1fc|x\\x1fy\\x1fz\\x1fc", and they are neighbours in the members' join. The whole draw took "the same text as the
row before" to mean "the same pair's next verdict row" and merged the second pair into the first: judged, the
population of model "x\\x1fy" vanished from the whole draw while the draw from the last one kept it; unjudged, the
whole draw raised IndexError. Both draws must give the same rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import run_alone


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _verdict(rid: str) -> dict:
    return {"run_record_id": rid, "constraint_id": "c", "rubric": "strict", "judge_model": "j", "repeat": 0,
            "label": "pass"}


def _drawn(path: Path) -> tuple[list, list]:
    with sqlite3.connect(path) as c:
        return (c.execute("SELECT rowid, run_record_id, constraint_id, rule, stratum, reason, seed FROM samples"
                          " ORDER BY rowid").fetchall(),
                c.execute("SELECT stratum, constraint_id, model, rubric_sha256, judged, sampled, needed, population"
                          " FROM sample_strata ORDER BY stratum").fetchall())


@pytest.mark.parametrize("judged", [True, False])
def test_the_whole_draw_keeps_two_pairs_that_spell_one_rank_text(tmp_path, judged):
    path = tmp_path / "p.db"
    items = _write(tmp_path / "items.jsonl", [{"id": "it1", "instruction": "say hi", "input": "x",
                                               "constraints": [{"id": "c", "text": "polite", "type": "content"}]}])
    first = _write(tmp_path / "runs0.jsonl", [{"id": "base", "item_id": "it1", "model": "x", "run_id": "R0",
                                               "output": "hi"}])
    more = _write(tmp_path / "runs1.jsonl", [
        {"id": "y\x1fz", "item_id": "it1", "model": "x", "run_id": "R1", "output": "hi"},
        {"id": "z", "item_id": "it1", "model": "x\x1fy", "run_id": "R1", "output": "hi"}])
    for argv in (("import", "evalset", str(items)), ("import", "runs", str(first)),
                 ("import", "verdicts", str(_write(tmp_path / "v0.jsonl", [_verdict("base")]))), ("sample",),
                 ("import", "runs", str(more))):
        assert run_alone(path, *argv)[0] == 0, argv
    if judged:
        v1 = _write(tmp_path / "v1.jsonl", [_verdict("y\x1fz"), _verdict("z")])
        assert run_alone(path, "import", "verdicts", str(v1))[0] == 0
    twin = tmp_path / "twin.db"
    with sqlite3.connect(path) as src, sqlite3.connect(twin) as dst:
        src.backup(dst)
    with sqlite3.connect(twin) as c:
        c.execute("DELETE FROM settings WHERE key = 'last_sample_draw'")  # the next draw is whole
    since = run_alone(path, "sample")
    whole = run_alone(twin, "sample")
    assert since[0] == whole[0] == 0, (since, whole)
    assert whole[1] == since[1]
    samples, strata = _drawn(twin)
    assert (samples, strata) == _drawn(path)
    assert {(m, n) for _s, _c, m, _r, _j, _sa, _ne, n in strata} == {("x", 2), ("x\x1fy", 1)}
    assert ("z", "c", "random") in {row[1:4] for row in samples}


def test_two_populations_of_one_stratum_name_are_refused_with_nothing_drawn(tmp_path, capsys):
    """Constraint "a|b" × model "m" and constraint "a" × model "b|m" are both stratum "a|b|m|...": the draw stopped
    on sample_strata's key with an SQLite error; it now names both and draws nothing."""
    path = tmp_path / "p.db"
    items = _write(tmp_path / "items.jsonl", [
        {"id": "it1", "instruction": "hi", "input": "x", "constraints": [{"id": "a|b", "text": "t", "type": "content"}]},
        {"id": "it2", "instruction": "hi", "input": "x", "constraints": [{"id": "a", "text": "t", "type": "content"}]}])
    runs = _write(tmp_path / "runs.jsonl", [{"id": "r1", "item_id": "it1", "model": "m", "run_id": "R", "output": "hi"},
                                            {"id": "r2", "item_id": "it2", "model": "b|m", "run_id": "R", "output": "hi"}])
    assert run_alone(path, "import", "evalset", str(items))[0] == 0
    assert run_alone(path, "import", "runs", str(runs))[0] == 0
    capsys.readouterr()
    assert run_alone(path, "sample")[0] == 2
    err = capsys.readouterr().err
    assert "constraint 'a' × model 'b|m' and constraint 'a|b' × model 'm' make one stratum name, 'a|b|m|unjudged'" in err
    assert _drawn(path) == ([], [])
    with sqlite3.connect(path) as c:
        assert c.execute("SELECT count(*) FROM draw_fronts").fetchone()[0] == 0
        assert c.execute("SELECT count(*) FROM settings WHERE key = 'last_sample_draw'").fetchone()[0] == 0
    capsys.readouterr()
    assert run_alone(path, "sample", "--run-id", "R")[0] == 2  # one run's draw refuses the same
    assert "make one stratum name, 'a|b|m|unjudged'" in capsys.readouterr().err
    assert _drawn(path) == ([], [])
