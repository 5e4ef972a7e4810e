"""Issue 16.2: `compare` reads the eval set's tables whole when its runs answer most of it, and looks items up by id
otherwise. Both reads must give the same comparison: the demo compared, then again after an eval set four times its
size joined the project (items no run answers, with constraints of every kind), which sends it down the other path."""

from __future__ import annotations

import contextlib
import io
import json

from judgecal import annotations as ann
from judgecal.cli import main
from judgecal.evalsets import EvalItem, parse_rows


def _compare(path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(path), "compare", "demo-run-a", "demo-run-b", "--json"]) == 0
    return out.getvalue()


def test_both_reads_of_the_items_agree(tmp_path):
    path = tmp_path / "demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
    whole = _compare(path)
    with ann.unit_of_work(path) as db:
        answered = db.execute("SELECT count(DISTINCT item_id) FROM run_records"
                              " WHERE run_id IN ('demo-run-a', 'demo-run-b')").fetchone()[0]
        total = db.execute("SELECT count(*) FROM eval_items").fetchone()[0]
        assert 2 * answered >= total  # the demo reads the tables whole
        # a copy of each demo item under a new id: the same constraints, ids and checks, answered by no run
        extra = []
        for item in ann.load_items(db).values():
            data = item.model_dump(mode="json", exclude_none=True)
            for k in range(4):
                extra.append(json.dumps(data | {"id": f"{item.id}-unanswered-{k}"}, ensure_ascii=False))
        ann.import_items(db, parse_rows("\n".join(extra), EvalItem))
        assert 2 * answered < db.execute("SELECT count(*) FROM eval_items").fetchone()[0]
    assert _compare(path) == whole
