"""Issue 13.5: the demo's tool_overreach category with the 15 cases seed 003 §6 asks for. Eleven more hand-written
cases (demo-061 ... demo-071) live in their own files, which `judgecal demo` does not import (the 60-item demo's
published numbers and recorded verdicts stay as they are); the README tour imports them in one step. Their expected
refusal level is a field neither the judge nor the reviewer sees; the answer key covers every semantic pair."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import read_evalset, read_rows, read_runs
from judgecal.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
REFUSAL = ("hard_refusal", "soft_refusal", "degraded", "complied")


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generators_reproduce_the_files():
    items, runs = _module("make_demo").build_overreach()
    labels = _module("make_demo_labels").overreach_rows()
    for name, rows in (("demo_overreach.jsonl", items), ("demo_overreach_runs.jsonl", runs),
                       ("demo_overreach_labels.jsonl", labels)):
        expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        assert (DATA / name).read_text(encoding="utf-8") == expected, f"{name} is stale: run data/make_demo*.py"


def test_the_cases_read_and_hide_their_expected_level():
    items = read_evalset(DATA / "demo_overreach.jsonl").rows
    runs = read_runs(DATA / "demo_overreach_runs.jsonl").rows
    core = {i.id for i in read_evalset(DATA / "demo_evalset.jsonl").rows}
    assert len(items) == 11 and not {i.id for i in items} & core
    for item in items:
        assert "boundary:tool_overreach" in item.tags and item.scenario == "boundary"
        (refusal,) = [c for c in item.constraints if c.labels == REFUSAL]
        # the expected level is its own field; the text the judge prompt and the review card render never says it
        assert refusal.expected and "Expected" not in refusal.text and "soft_refusal" not in refusal.text
        forbidden = [c.check.args["tool"] for c in item.constraints
                     if c.check is not None and c.check.id == "trajectory:forbidden_tool"]
        assert forbidden and not set(forbidden) & set(item.input["allowed_tools"]), item.id
        assert set(item.fixtures) <= set(item.input["allowed_tools"]), item.id
    by_id = {i.id: i for i in items}
    per_run = Counter((r.run_id, r.item_id) for r in runs)
    assert set(per_run.values()) == {1, 5}
    assert {k for k, n in per_run.items() if n == 5} == {("demo-boundary-5x", i) for i in by_id}
    for run in runs:  # an allowed tool answered from its fixture; any other call is an error, never a result
        allowed = by_id[run.item_id].input["allowed_tools"]
        for call in run.tool_calls:
            assert (call.error is None and call.result == by_id[run.item_id].fixtures[call.name]) if call.name in allowed \
                else call.error, run.id


@pytest.fixture(scope="module")
def tour(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("overreach") / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    for kind, name in (("evalset", "demo_overreach.jsonl"), ("runs", "demo_overreach_runs.jsonl"),
                       ("labels", "demo_overreach_labels.jsonl")):
        assert main(["--db", str(db), "import", kind, str(DATA / name)]) == 0
    return db


def test_the_answer_key_covers_every_new_pair(tour):
    rows = read_rows(DATA / "demo_overreach_labels.jsonl", ann.HumanLabelRow, id_field=None).rows
    with ann.unit_of_work(tour) as db:
        pairs = [(r.id, c.id) for r, item, c in ann.semantic_pairs(db) if int(item.id[5:]) > 60]
        sets = ann.pair_label_sets(db)
    author = Counter((r.run_record_id, r.constraint_id) for r in rows if r.reviewer == "demo-author")
    assert set(author) == set(pairs) and set(author.values()) == {1} and len(pairs) == 105
    second = {(r.run_record_id, r.constraint_id) for r in rows if r.reviewer == "demo-reviewer-2"}
    assert second == set(pairs[::5])
    assert all(r.label in sets[(r.run_record_id, r.constraint_id)] for r in rows)


def test_tool_overreach_reaches_15_cases_and_loses_its_warning(tour, capsys):
    with ann.unit_of_work(tour) as db:
        report = ann.boundary_report(db, "demo-boundary-5x")
        before_b = ann.boundary_report(db, "demo-run-b", expected_runs=1)
    cats = {c.category: c for c in report.categories}
    tool = cats["tool_overreach"]
    assert (tool.cases, tool.runs) == (15, 75) and tool.warning is None
    assert all(c.warning and "15 needed" in c.warning for k, c in cats.items() if k != "tool_overreach")
    # the 55 new runs carry the answer key's labels: demo-agent-a refuses every time
    new_cases = [c for c in report.cases if c.item_id > "demo-060"]
    labels = {r.record_id: r.label for c in new_cases for r in c.runs}
    assert len(new_cases) == 11 and set(labels.values()) <= {"hard_refusal", "soft_refusal", None}
    assert [k for k, v in labels.items() if v is None] == ["bnd-a-062-1"]  # the two reviewers split: no majority
    # demo-agent-b tried three forbidden tools on the new cases: those runs are never counted blocked
    b_tool = {c.category: c for c in before_b.categories}["tool_overreach"]
    assert b_tool.forbidden_call_runs >= 3
    assert main(["--db", str(tour), "compare", "--boundary", "demo-boundary-5x"]) == 0
    out = capsys.readouterr().out
    assert "warning: tool_overreach" not in out and "warning: role_overreach" in out
