"""The judge sees the evidence (issue 13 item 1): a run record with a trajectory (or tool calls, or a transcript)
reaches the judge step by step with the final output marked, long tool results cut with a marker, {reference} and
{trajectory} placeholders filled, and the review card shows the very text the judge's prompt quoted. The prompt is
checked where it arrives: at the local OpenAI-compatible stub, over real HTTP with the real SDK."""

from __future__ import annotations

import re

from judgecal import annotations as ann
from judgecal.evalsets import EvalItem, RunRecord
from judgecal.judge import (FINAL_OUTPUT_MARKER, MAX_RESULT_CHARS, OpenAIBackend, Rubric, STRICT_TEMPLATE, render_evidence,
                   rubric_sha256, run_batch, shipped_rubric)
from judgecal.runner import MemoryRunSink, RunSettings, run_models
from openai_stub import StubServer, agent_script, verdicts

PRICE = {"sku": "A-7", "price_eur": 41.5}


def price_item(**extra) -> EvalItem:
    return EvalItem.model_validate({
        "id": "p-1", "instruction": "Quote the price of A-7. You may call only get_price.", "input": {"user": "A-7?"},
        "constraints": [{"id": "from_tool", "text": "The price must come from the tool.", "type": "process"}],
        "fixtures": {"get_price": PRICE}, **extra})


class ListSink:
    def __init__(self) -> None:
        self.saved = []

    def done(self, keys):
        return set()

    def save(self, verdict) -> None:
        self.saved.append(verdict)


def _agent(req, rnd):
    if rnd == 0:
        return {"tool_calls": [{"name": "get_price", "arguments": {"sku": "A-7"}}]}
    return "A-7 costs 41.50 EUR."


def _judge(record: RunRecord, item: EvalItem, rubric: Rubric):
    with StubServer(verdicts()) as s:
        be = OpenAIBackend(model="judge-x", base_url=s.url, api_key="k", max_retries=0, timeout_s=5.0)
        try:
            sink = ListSink()
            run_batch([(record, item, item.constraints[0])], rubric, be, sink, repeats=1)
        finally:
            be.close()
    assert len(sink.saved) == 1 and sink.saved[0].label == "pass"
    return s.requests[0].prompt


def test_the_judge_prompt_at_the_stub_quotes_tool_name_args_result_and_marks_the_final_output():
    item = price_item()
    with StubServer(agent_script(_agent)) as s:
        be = OpenAIBackend(model="agent-x", base_url=s.url, api_key="k", max_retries=0, timeout_s=5.0)
        sink = MemoryRunSink()
        try:
            run_models([item], be, sink, RunSettings(run_id="r1"))
        finally:
            be.close()
    record = sink.records["r1/p-1/0"]
    assert record.output == "A-7 costs 41.50 EUR." and record.trajectory  # what `judgecal run` writes: both
    prompt = _judge(record, item, shipped_rubric())
    assert 'get_price({"sku":"A-7"}) -> {"price_eur":41.5,"sku":"A-7"}' in prompt
    quoted = re.search(r"<output (jc-\w+)>\n(.*)\n</output \1>", prompt, re.S).group(2)
    assert quoted.endswith(f"{FINAL_OUTPUT_MARKER}\nA-7 costs 41.50 EUR.")
    assert quoted.index("get_price") < quoted.index(FINAL_OUTPUT_MARKER)


def test_output_only_prompts_and_the_strict_hash_are_unchanged():
    # The shipped template's text is untouched (its sha256 stays pinned): a plain output renders as before.
    assert shipped_rubric().sha256 == rubric_sha256(STRICT_TEMPLATE)
    item = price_item()
    record = RunRecord(id="r", item_id="p-1", model="m", output="41.50 EUR.")
    assert render_evidence(record) == "41.50 EUR."
    assert "<output" in shipped_rubric().render(record, item, item.constraints[0])
    assert FINAL_OUTPUT_MARKER not in shipped_rubric().render(record, item, item.constraints[0])


def test_a_long_tool_result_is_cut_with_a_marker_never_silently():
    long = "x" * (MAX_RESULT_CHARS + 500)
    record = RunRecord.model_validate({"id": "r", "item_id": "p-1", "model": "m", "output": "done", "trajectory": [
        {"type": "action", "tool": "search", "args": {"q": "a"}, "result": long},
        {"type": "observation", "text": long}]})
    text = render_evidence(record)
    assert long not in text
    assert text.count("[... truncated: 500 more characters not shown]") == 2
    imported = RunRecord.model_validate({"id": "r2", "item_id": "p-1", "model": "m", "output": "done",
                                         "tool_calls": [{"name": "search", "args": {"q": "a"}, "result": long}]})
    text = render_evidence(imported)
    assert "search({\"q\":\"a\"})" in text and "[... truncated: 500 more characters not shown]" in text
    assert text.endswith(f"{FINAL_OUTPUT_MARKER}\ndone")


def test_reference_and_trajectory_placeholders_are_filled_and_covered_by_the_marker():
    item = price_item(reference="41.50 EUR, read from get_price")
    rubric = Rubric.from_text("ref", "Reference: {reference}\nSteps:\n{trajectory}\n<o {marker}>{output}</o {marker}>\n"
                                     "{constraint} {labels}")
    record = RunRecord.model_validate({"id": "r", "item_id": "p-1", "model": "m", "output": "41.50 EUR.",
                                       "trajectory": [{"type": "action", "tool": "get_price", "args": {"sku": "A-7"},
                                                       "result": PRICE}]})
    prompt = _judge(record, item, rubric)
    assert "Reference: 41.50 EUR, read from get_price" in prompt
    assert 'Steps:\n1. action: get_price({"sku":"A-7"})' in prompt
    bare = price_item()
    assert "Reference: (no reference)" in rubric.render(record, bare, bare.constraints[0])
    plain = RunRecord(id="r", item_id="p-1", model="m", output="x")
    assert "Steps:\n(no trajectory)" in rubric.render(plain, bare, bare.constraints[0])
    # A placeholder-like string inside the reference is data, not a second substitution.
    tricky = price_item(reference="{output} {labels}")
    assert "Reference: {output} {labels}" in rubric.render(plain, tricky, tricky.constraints[0])


def test_the_review_card_shows_exactly_the_evidence_the_judge_quoted(project_db):
    with ann.unit_of_work(project_db) as db:
        records = [r[0] for r in db.execute("SELECT id FROM run_records")]
        pairs = [(rid, c.id) for rid in records for c in
                 ann.load_items(db, [ann.load_run(db, rid).item_id]).popitem()[1].constraints]
        shown = 0
        for rid, cid in pairs:
            card = ann.review_card(db, ann.Pair(rid, cid))
            record = ann.load_run(db, rid)
            item = ann.load_items(db, [record.item_id])[record.item_id]
            prompt = shipped_rubric().render(record, item, item.constraint(cid))
            quoted = re.search(r"<output (jc-\w+)>\n(.*)\n</output \1>", prompt, re.S).group(2)
            assert card.evidence == quoted == render_evidence(record)
            shown += record.trajectory is not None
    assert shown, "the seeded project should hold a trajectory record"
