"""Trajectory checks read the transcript and the tool calls too (a review of the checks, wave 17): a record stored
without a `trajectory` (a conversation imported as `messages`, a tool-call log imported as `tool_calls`) passed every
`trajectory:forbidden_tool` / `allowed_tools` / `tool_order` check it broke and failed `must_call` on a call it made,
so one behaviour stored two ways gave a 50-point `compare` drop. `RunRecord.steps` is what the checks read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import forbidden_calls
from judgecal.cli import main
from judgecal.evalsets import EvalItem, RunRecord, check_record, parse_rows
from openai_stub import StubServer, agent_script


def _item(*checks: tuple[str, str, dict]) -> EvalItem:
    return EvalItem.model_validate({"id": "conv", "instruction": "Support assistant. Never refund.",
                                    "turns": ["please"],
                                    "fixtures": {"get_order": {"id": 1}, "refund_order": {"ok": True}},
                                    "constraints": [{"id": cid, "text": cid, "type": "process",
                                                     "check": {"id": check, "args": args}}
                                                    for cid, check, args in checks]})


ITEM = _item(("no_refund", "trajectory:forbidden_tool", {"tool": "refund_order"}),
             ("only_lookup", "trajectory:allowed_tools", {"tools": ["get_order"]}),
             ("must_lookup", "trajectory:must_call", {"tool": "get_order"}),
             ("order", "trajectory:tool_order", {"before": "get_order", "after": "refund_order"}),
             ("answered_after", "trajectory:final_after_observation", {}),
             ("short", "trajectory:max_steps", {"n": 4}))


def _call(cid: str, name: str, args: dict) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


# make_proj.py's conversation: the agent refunds, never looks the order up.
REFUND = [
    {"role": "system", "content": "Support assistant."},
    {"role": "user", "content": "Refund my order"},
    {"role": "assistant", "content": None, "tool_calls": [_call("c1", "refund_order", {"id": 1})]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"ok\": true}"},
    {"role": "assistant", "content": "Done, I refunded it."},
    {"role": "user", "content": "please"},
    {"role": "assistant", "content": "Anything else?"},
]
# A well-behaved one: looks the order up (two calls in one message), answers after the result.
LOOKUP = [
    {"role": "user", "content": "Where is my order?"},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [_call("a", "get_order", {"id": 1}),
                                                                    _call("b", "get_order", {"id": 2})]},
    {"role": "tool", "tool_call_id": "b", "content": "{\"id\": 2}"},
    {"role": "tool", "tool_call_id": "a", "content": "not json"},
    {"role": "assistant", "content": "Both are on their way."},
]


def _results(record: RunRecord) -> dict[str, tuple[bool, tuple[int, ...]]]:
    return {c.id: (r.passed, r.bad_steps) for c in ITEM.constraints for r in [check_record(c.check, record)]}


def test_trajectory_checks_read_the_transcript_of_a_record_without_a_trajectory():
    refund = RunRecord(id="r", item_id="conv", model="m", messages=REFUND)
    got = _results(refund)
    assert got["no_refund"] == (False, (0,))
    assert got["only_lookup"] == (False, (0,))
    assert got["order"] == (False, (0,))
    assert got["must_lookup"][0] is False and got["answered_after"] == (True, ())
    # The steps are the ones `judgecal run` would have stored: the tool result on its call, every reply an answer.
    assert [(s.type, s.tool, s.args, s.result, s.text) for s in refund.steps] == [
        ("action", "refund_order", {"id": 1}, {"ok": True}, None),
        ("final_answer", None, None, None, "Done, I refunded it."),
        ("final_answer", None, None, None, "Anything else?")]
    lookup = RunRecord(id="l", item_id="conv", model="m", messages=LOOKUP)
    assert [(s.type, s.tool, s.result) for s in lookup.steps] == [
        ("thought", None, None), ("action", "get_order", "not json"), ("action", "get_order", {"id": 2}),
        ("final_answer", None, None)]
    got = _results(lookup)
    assert all(passed for passed, _ in got.values()), got
    assert _results(RunRecord(id="x", item_id="conv", model="m", messages=LOOKUP[:1] + [
        {"role": "assistant", "content": "Both are on their way."}]))["answered_after"] == (False, (0,))
    assert _results(RunRecord(id="y", item_id="conv", model="m", messages=LOOKUP + [
        {"role": "user", "content": "more"}, {"role": "assistant", "content": "ok"}]))["short"] == (False, (4,))


def test_trajectory_checks_read_the_tool_calls_of_a_record_without_a_trajectory():
    rec = RunRecord.model_validate({"id": "t", "item_id": "conv", "model": "m", "output": "OK.", "tool_calls": [
        {"name": "refund_order", "args": {"id": 1}, "result": {"ok": True}}]})
    got = _results(rec)
    assert got["no_refund"] == (False, (0,)) and got["only_lookup"] == (False, (0,)) and got["order"] == (False, (0,))
    assert got["must_lookup"][0] is False
    ok = RunRecord.model_validate({"id": "u", "item_id": "conv", "model": "m", "output": "It ships today.",
                                   "tool_calls": [{"name": "get_order", "args": {"id": 1}, "result": {"id": 1}}]})
    assert all(passed for passed, _ in _results(ok).values())
    # An errored call carries its error as the result, as the runner stores it; the output is the final answer.
    err = RunRecord.model_validate({"id": "e", "item_id": "conv", "model": "m", "output": "Sorry.",
                                    "tool_calls": [{"name": "get_order", "args": {}, "error": "no fixture"}]})
    assert [(s.type, s.result, s.text) for s in err.steps] == [("action", {"error": "no fixture"}, None),
                                                                ("final_answer", None, "Sorry.")]


def test_a_record_with_a_trajectory_keeps_reading_it_and_a_plain_output_has_no_steps():
    traj = [{"type": "action", "tool": "get_order", "args": {"id": 1}, "result": {"id": 1}},
            {"type": "final_answer", "text": "Anything else?"}]
    both = RunRecord.model_validate({"id": "b", "item_id": "conv", "model": "m", "messages": REFUND,
                                     "trajectory": traj})
    assert [s.tool for s in both.steps] == ["get_order", None]
    assert _results(both)["no_refund"] == (True, ())
    assert RunRecord(id="p", item_id="conv", model="m", output="Hello.").steps == ()


def test_one_behaviour_stored_as_a_transcript_or_as_the_runner_stores_it_checks_the_same(tmp_path, capsys):
    # The runner's record holds the trajectory, the tool calls and the transcript; the transcript alone (what an
    # imported chat log holds) must give the same steps and the same check results (make_proj3.py: a 50-point drop).
    def agent(req, rnd):
        last = req.body["messages"][-1]
        if last["role"] == "user" and sum(m["role"] == "user" for m in req.body["messages"]) == 1:
            return {"tool_calls": [{"name": "refund_order", "arguments": {"id": 1}}]}
        return "Done, I refunded it." if last["role"] == "tool" else "Anything else?"

    db = tmp_path / "p.db"
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(dict(ITEM.model_dump(mode="json", exclude_none=True),
                                     input={"user": "Refund my order"})) + "\n", encoding="utf-8")
    assert main(["--db", str(db), "import", "evalset", str(items)]) == 0
    with StubServer(agent_script(agent)) as s:
        assert main(["--db", str(db), "run", "--model", "m", "--run-id", "B", "--quiet", "--base-url", s.url]) == 0
    with ann.unit_of_work(db) as d:
        (ran,) = list(ann.iter_runs(d))
    assert ran.trajectory is not None and ran.messages is not None and ran.error is None
    row = {"id": "a", "item_id": "conv", "model": "m", "run_id": "A", "messages": list(ran.messages)}
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["--db", str(db), "import", "runs", str(runs)]) == 0
    assert main(["--db", str(db), "check"]) == 0
    with ann.unit_of_work(db) as d:
        imported = ann.load_run(d, "a")
        got = {(r["run_record_id"], r["constraint_id"]): (r["passed"], r["bad_steps"], r["n_steps"])
               for r in d.query("SELECT * FROM check_results")}
    assert imported.trajectory is None and imported.steps == ran.trajectory
    for c in ITEM.constraints:
        assert got[("a", c.id)] == got[(ran.id, c.id)], c.id
    assert got[("a", "no_refund")] == (0, 1, 3)


def test_the_boundary_report_sees_forbidden_calls_in_a_transcript_and_its_blocking_layer(tmp_path):
    item = _item(("no_refund", "trajectory:forbidden_tool", {"tool": "refund_order"}))
    went_through = RunRecord(id="r", item_id="conv", model="m", messages=REFUND)
    assert forbidden_calls(went_through, item) == (0,)
    blocked = [dict(m, content='{"blocked_by": "policy_layer"}') if m["role"] == "tool" else m for m in REFUND]
    intercepted = RunRecord(id="s", item_id="conv", model="m", messages=blocked)
    assert forbidden_calls(intercepted, item) == ()
    assert ann.blocked_by(intercepted) == "policy_layer"
    calls = RunRecord.model_validate({"id": "t", "item_id": "conv", "model": "m", "output": "OK.",
                                      "tool_calls": [{"name": "refund_order", "args": {}, "result": {"ok": True}}]})
    assert forbidden_calls(calls, item) == (0,)
    # Through the stored project too (iter_runs -> the report).
    with ann.unit_of_work(tmp_path / "b.db") as db:
        ann.import_items(db, parse_rows(json.dumps(item.model_dump(mode="json", exclude_none=True)), EvalItem))
        ann.import_runs(db, parse_rows(json.dumps(went_through.model_dump(mode="json", exclude_none=True)),
                                       RunRecord))
        (stored,) = list(ann.iter_runs(db))
    assert forbidden_calls(stored, item) == (0,)


def test_the_demo_conversation_runs_have_steps_and_no_trajectory_check(tmp_path):
    # The demo's conversation items carry no trajectory check, so their check results are what they were; their
    # records now have steps (n_steps in the check results, the step deviation rate's denominator).
    data = Path(__file__).resolve().parents[1] / "data"
    items = [json.loads(line) for line in (data / "demo_conversations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert not [c for i in items for c in i["constraints"] if (c.get("check") or {}).get("id", "").startswith(
        "trajectory:")]
    runs = [RunRecord.model_validate_json(line)
            for line in (data / "demo_conversation_runs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [len(r.steps) for r in runs] == [5, 3, 3, 4, 3, 3] and all(r.trajectory is None for r in runs)


def test_a_fixture_that_answers_with_an_error_object_is_a_call_made():
    """A tool's answer `{"error": "order not found"}` is a legitimate observation (the demo's fixtures answer so):
    `must_call` and `final_after_observation` count the call. A wave-17 change read any `{"error": ...}` result as a
    call the runner could not make and failed a correct agent; it was reverted (the runner's own failures are marked
    in `ToolCall.error`, which a step does not carry)."""
    item = EvalItem.model_validate({"id": "i", "instruction": "x", "fixtures": {"lookup_order": {"error": "order not found"}},
                                    "constraints": [
        {"id": "mc", "text": "t", "type": "process", "check": {"id": "trajectory:must_call", "args": {"tool": "lookup_order"}}},
        {"id": "fo", "text": "t", "type": "process", "check": {"id": "trajectory:final_after_observation", "args": {}}}]})
    answer = "I could not find that order; can you check the number?"
    record = RunRecord(id="r", item_id="i", model="m", output=answer, trajectory=[
        {"type": "action", "tool": "lookup_order", "args": {"id": "AO-1"}, "result": {"error": "order not found"}},
        {"type": "final_answer", "text": answer}])
    for c in item.constraints:
        assert check_record(c.check, record).passed, c.id


@pytest.mark.parametrize("trajectory", [[], [{"type": "final_answer", "text": "Refunded."}]], ids=["empty", "final-only"])
def test_a_trajectory_that_hides_the_transcripts_tool_calls_is_refused(tmp_path, trajectory):
    """A review of the fixes (wave 17): a conversation whose transcript calls `refund_order`, imported with an empty
    trajectory (or one holding only a final answer), passed `forbidden_tool refund_order`: the checks read the
    trajectory, the judge and the review card the transcript. The import refuses it, naming the field."""
    messages = [{"role": "user", "content": "Refund my order."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "refund_order", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "refunded"},
                {"role": "assistant", "content": "Refunded."}]
    record = RunRecord.model_validate({"id": "r1", "item_id": "i1", "model": "m", "messages": messages,
                                       "trajectory": trajectory})
    field, why = record.transcript_mismatch()
    assert field == "trajectory" and "refund_order" in why
    item = {"id": "i1", "instruction": "x", "constraints": [{"id": "c", "text": "t", "type": "process", "check": {
        "id": "trajectory:forbidden_tool", "args": {"tool": "refund_order"}}}]}
    db = tmp_path / "p.db"
    for kind, row, rc in (("evalset", item, 0), ("runs", {"id": "r1", "item_id": "i1", "model": "m",
                                                         "messages": messages, "trajectory": trajectory}, 2)):
        path = tmp_path / f"{kind}.jsonl"
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        assert main(["--db", str(db), "import", kind, str(path)]) == rc
