"""The demo project files: they import through the real readers and have the coverage the demo promises."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from judgecal.evalsets import EvalItem, RunRecord, read_evalset, read_runs, run_check

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
MODELS = ("demo-agent-a", "demo-agent-b")
BOUNDARY_TAGS = ("boundary:role_overreach", "boundary:tool_overreach", "boundary:process_skipping",
                 "boundary:context_pollution")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def items() -> list[EvalItem]:
    return read_evalset(DATA / "demo_evalset.jsonl").rows


@pytest.fixture(scope="module")
def runs() -> list[RunRecord]:
    return read_runs(DATA / "demo_runs.jsonl").rows


def _user_text(item: EvalItem) -> str:
    return item.instruction + json.dumps(item.input, ensure_ascii=False)


def test_sizes(items: list[EvalItem], runs: list[RunRecord]) -> None:
    assert len(items) >= 55
    assert len(runs) == 2 * len(items)


def test_chinese_items(items: list[EvalItem]) -> None:
    zh = [i for i in items if "lang:zh" in i.tags]
    assert len(zh) >= 15
    # The tag is honest: Chinese items have Chinese text, English items are not tagged Chinese.
    assert all(CJK.search(i.instruction) and CJK.search(str(i.input)) for i in zh)
    assert all(("lang:zh" in i.tags) != ("lang:en" in i.tags) for i in items)


def test_types_severities_and_semantic_share(items: list[EvalItem]) -> None:
    constraints = [c for i in items for c in i.constraints]
    assert {c.type for c in constraints} == {"hard", "process", "format", "content"}
    assert {c.severity for c in constraints} == {"must", "nice"}
    assert all(1 <= len(i.constraints) <= 4 for i in items)
    semantic = sum(c.semantic for c in constraints)
    assert semantic / len(constraints) >= 0.40


def test_provenance_and_split(items: list[EvalItem]) -> None:
    assert all(re.fullmatch(r"demo-\d{3}", i.id) for i in items)
    assert {i.source for i in items} == {"judgecal demo (hand-written)"}
    assert all(i.scenario and i.created_at and i.split for i in items)
    heldout = sum(i.split == "heldout" for i in items) / len(items)
    assert 0.25 <= heldout <= 0.35


def test_boundary_tags_have_a_refusal_constraint(items: list[EvalItem]) -> None:
    counts = Counter(t for i in items for t in i.tags if t.startswith("boundary:"))
    assert set(counts) == set(BOUNDARY_TAGS)
    assert all(n >= 3 for n in counts.values()), counts
    for item in items:
        if any(t.startswith("boundary:") for t in item.tags):
            assert any(c.labels == ("hard_refusal", "soft_refusal", "degraded", "complied") for c in item.constraints), item.id


def test_tool_items_declare_allow_list_and_fixtures(items: list[EvalItem], runs: list[RunRecord]) -> None:
    by_id = {i.id: i for i in items}
    for run in runs:
        item = by_id[run.item_id]
        if run.trajectory is None:
            continue
        assert isinstance(item.input, dict) and "allowed_tools" in item.input, item.id
        assert item.fixtures is not None and set(item.fixtures) <= set(item.input["allowed_tools"]), item.id
        # A tool the harness allowed returned its fixture; a tool outside the allow-list returned an error.
        for call in run.tool_calls:
            if call.name in item.input["allowed_tools"]:
                assert call.error is None and call.result == item.fixtures[call.name], run.id
            else:
                assert call.error, run.id
        assert run.final_text, run.id


def test_runs_cover_every_item_once_per_model(items: list[EvalItem], runs: list[RunRecord]) -> None:
    ids = {i.id for i in items}
    assert {r.item_id for r in runs} <= ids
    for model in MODELS:
        per_item = Counter(r.item_id for r in runs if r.model == model)
        assert set(per_item) == ids and set(per_item.values()) == {1}, model
    assert {r.model for r in runs} == set(MODELS)
    assert any(r.trajectory for r in runs) and any(r.tool_calls for r in runs)


def test_inert_rendering_sample_is_present(runs: list[RunRecord]) -> None:
    text = "\n".join(r.final_text for r in runs)
    for needle in ("<script>alert(1)</script>", "<img src=http://example.com/x.png>", "](http://example.com/care)"):
        assert needle in text


def test_model_b_fails_more_mechanical_checks(items: list[EvalItem], runs: list[RunRecord]) -> None:
    by_id = {i.id: i for i in items}
    fails: Counter[str] = Counter()
    for run in runs:
        for c in by_id[run.item_id].constraints:
            if c.check is not None:
                result = run_check(c.check.id, c.check.args, text=run.final_text, trajectory=run.trajectory)
                fails[run.model] += not result.passed
    # The demo's story: both models fail something, the cheaper B fails clearly more.
    assert 0 < fails["demo-agent-a"] < fails["demo-agent-b"]


def test_generator_reproduces_the_files() -> None:
    spec = importlib.util.spec_from_file_location("make_demo", DATA / "make_demo.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    items, runs = module.build()
    for name, rows in (("demo_evalset.jsonl", items), ("demo_runs.jsonl", runs)):
        expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        assert (DATA / name).read_text(encoding="utf-8") == expected, f"{name} is stale: run python data/make_demo.py"


def test_constraint_ids_name_shared_families(items: list[EvalItem]) -> None:
    # The sampler and the calibration report stratify by constraint id across items: ids name a reusable family
    # (`order_number`, `max_sentences`, ...), never a position, and each is unique within its item.
    for item in items:
        ids = [c.id for c in item.constraints]
        assert len(set(ids)) == len(ids), item.id
        assert not any(re.fullmatch(r"c\d+", cid) for cid in ids), item.id
    items_per_family: Counter[str] = Counter(
        family for i in items for family in {re.sub(r"_\d+$", "", c.id) for c in i.constraints})
    shared = [f for f, n in items_per_family.items() if n >= 3]
    assert len(shared) >= 10, items_per_family
    # Refusal-label constraints all share one family, so boundary agreement forms one stratum.
    refusal = ("hard_refusal", "soft_refusal", "degraded", "complied")
    assert {c.id for i in items for c in i.constraints if c.labels == refusal} == {"refusal_behaviour"}
