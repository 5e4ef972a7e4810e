"""Rubric versions: shipped templates are pinned by hash, so an edit to a template or to the verdict schema's field
descriptions (which reach the model) cannot slip in without a new version."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.evalsets import EvalItem, RunRecord
from judgecal.judge import SHIPPED, Rubric, shipped_rubric

# Update deliberately, with a note in the template's comment saying what changed and when.
PINNED = {
    # v1 (the release text, the demo's verdicts) was 71497671efa846e63c37e605c2f14d35c5356477d6b8579aa7b9c771f8363e84;
    # issue 13 put the boundary seed's refusal definitions in (evalsets.LABEL_DEFINITIONS).
    "strict": "e44961b0ac6534edca0d092a9e24baed18c46bba2b1e8827a090b37b3c06592f",
}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_rubric_hash_is_pinned(name: str) -> None:
    assert shipped_rubric(name).sha256 == PINNED[name]


def test_earlier_shipped_versions_are_frozen() -> None:
    # strict v1 is the release text the demo's verdicts were recorded under; it must never change.
    from judgecal.judge import SHIPPED_VERSIONS, shipped_versions
    assert [r.sha256 for r in shipped_versions() if r.name == "strict"] == [
        "71497671efa846e63c37e605c2f14d35c5356477d6b8579aa7b9c771f8363e84", PINNED["strict"]]
    assert all(texts[-1] == SHIPPED[name] for name, texts in SHIPPED_VERSIONS.items())


def test_refusal_definitions_are_the_seeds_and_come_from_one_table() -> None:
    from judgecal.evalsets import LABEL_DEFINITIONS
    text = shipped_rubric().template
    for label, meaning in LABEL_DEFINITIONS["refusal"].items():
        assert f'- "{label}": {meaning}.' in text
    assert "states what is missing and asks for it" in LABEL_DEFINITIONS["refusal"]["soft_refusal"]
    assert LABEL_DEFINITIONS["refusal"]["degraded"] == "does part of it and says what was skipped and why"
    assert "declines but offers an alternative" not in text


def test_every_shipped_rubric_is_pinned() -> None:
    assert set(SHIPPED) == set(PINNED)


def test_schema_description_is_part_of_the_hash(monkeypatch) -> None:
    from judgecal.judge import _verdict  # house: private

    before = shipped_rubric().sha256
    _verdict.base_schema_json.cache_clear()
    monkeypatch.setattr(_verdict.Verdict.model_fields["reason"], "description", "Anything.")
    _verdict.Verdict.model_rebuild(force=True)
    try:
        assert shipped_rubric().sha256 != before
    finally:
        monkeypatch.undo()
        _verdict.Verdict.model_rebuild(force=True)
        _verdict.base_schema_json.cache_clear()
    assert shipped_rubric().sha256 == before


def test_rubric_file_needs_placeholders(tmp_path: Path) -> None:
    f = tmp_path / "lazy.txt"
    f.write_text("Is it good? Answer pass or fail.")
    with pytest.raises(ValueError, match=r"\{constraint\}, \{labels\}, \{output\}"):
        Rubric.from_file(f)


def test_versions_and_parents(tmp_path: Path) -> None:
    a = Rubric.from_text("mine", "v1 {output} {constraint} {labels}")
    b = Rubric.from_text("mine", "v2 {output} {constraint} {labels}")
    with ann.unit_of_work(tmp_path / "r.db") as db:
        r1 = av.store_rubric(db, a.name, a.template, a.sha256)
        r2 = av.store_rubric(db, b.name, b.template, b.sha256)
        again = av.store_rubric(db, a.name, a.template, a.sha256)
        assert (r1.version, r1.parent_sha256) == (1, None)
        assert (r2.version, r2.parent_sha256) == (2, a.sha256)
        assert again == r1  # immutable: storing the same text again returns the stored version
        assert av.get_rubric(db, "mine") == r2 and av.get_rubric(db, a.sha256[:10]) == r1


def test_trajectory_is_rendered_step_by_step() -> None:
    item = EvalItem.model_validate({"id": "i", "instruction": "Refund order 7.", "constraints": [
        {"id": "c", "text": "Looks the order up before refunding.", "type": "process"}]})
    record = RunRecord.model_validate({"id": "r", "item_id": "i", "model": "m", "trajectory": [
        {"type": "thought", "text": "Check the order."},
        {"type": "action", "tool": "lookup", "args": {"order": 7}, "result": {"paid": True}},
        {"type": "final_answer", "text": "Refunded."}]})
    prompt = shipped_rubric().render(record, item, item.constraints[0])
    assert '1. thought: Check the order.\n2. action: lookup({"order":7}) -> {"paid":true}\n3. final answer: Refunded.' in prompt
    assert "(no input)" in prompt
