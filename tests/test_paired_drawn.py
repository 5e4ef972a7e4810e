"""Issue 16.2: `compare` asks `paired_drawn` before reading a paired sample (`paired_counted` reads every blind label
and both runs' records first, ~2.4 s at a million run records, to find nothing when no paired sample was drawn).
It must say what `paired_counted(...).drawn` says for every run pair: none drawn yet, drawn for this pair (either
order), drawn only for another pair, and run ids that are the start of another's."""

from __future__ import annotations

import json
from pathlib import Path

from judgecal import annotations as ann
from conftest import add_rubric, add_verdicts
from judgecal.evalsets import EvalItem, RunRecord, parse_rows

SHA = "e" * 64
RUNS = ("A", "A2", "B")


def _project(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    items = [{"id": f"i{i}", "instruction": f"Task {i}.", "constraints": [
        {"id": "s", "text": "Answers the question.", "type": "content"}]} for i in range(20)]
    runs = [{"id": f"{run}-{i}", "item_id": f"i{i}", "run_id": run, "model": "m", "output": f"answer {run} {i}"}
            for run in RUNS for i in range(20)]
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
        add_rubric(db, SHA, version=1)
        add_verdicts(db, [(f"{run}-{i}", "s", SHA, "pass" if i % 3 else "fail", None, 0)
                          for run in RUNS for i in range(20)])
    return path


def _agree(db) -> dict[tuple[str, str], bool]:
    out = {}
    for a in RUNS:
        for b in RUNS:
            if a != b:
                drawn = ann.paired_drawn(db, a, b)
                assert drawn == (ann.paired_counted(db, a, b).drawn > 0), (a, b)
                out[(a, b)] = drawn
    return out


def test_paired_drawn_is_paired_counted_drawn(tmp_path):
    path = _project(tmp_path)
    with ann.unit_of_work(path) as db:
        assert not any(_agree(db).values())
        assert ann.compare_runs(db, "A", "B").paired is None
        ann.draw_paired(db, "A2", "A", rate=0.5)
        drawn = _agree(db)
        assert drawn[("A", "A2")] and drawn[("A2", "A")]
        assert not drawn[("A", "B")] and not drawn[("A2", "B")]  # another pair's sample, and "A" starts "A2"
        ann.draw_paired(db, "B", "A", rate=0.5)
        drawn = _agree(db)
        assert drawn[("A", "B")] and drawn[("B", "A")] and not drawn[("A2", "B")]
        assert ann.compare_runs(db, "A", "B").paired is not None
