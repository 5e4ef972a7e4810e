"""The model runner against the local OpenAI-compatible server: single-turn answers, tool-calling loops answered from
fixtures, max rounds, loops, broken tool arguments, timeouts, 429 storms and resume. Real SDK, real HTTP."""

from __future__ import annotations

import json
import threading
import time

import pytest

from judgecal.evalsets import EvalItem
from judgecal.judge import FatalBackendError, OpenAIBackend
from judgecal.runner import MemoryRunSink, RunSettings, error_cause, run_models
from openai_stub import Reply, StubServer, agent_script, always, chat_completion, rate_limited, verdicts

ORDER = {"order_id": "AO-1", "status": "shipped", "eta": "2026-11-06"}


def text_item(n: int = 1) -> EvalItem:
    return EvalItem.model_validate({
        "id": f"t-{n}", "instruction": "Answer the customer in one sentence.", "input": {"user": f"Question {n}?"},
        "constraints": [{"id": "c1", "text": "Is polite.", "type": "content"}]})


def agent_item(n: int = 1, fixtures: dict | None = None) -> EvalItem:
    return EvalItem.model_validate({
        "id": f"a-{n}", "instruction": "You may call only lookup_order.", "input": {"user": "Where is AO-1?"},
        "constraints": [{"id": "c1", "text": "States the ETA.", "type": "content"}],
        "fixtures": fixtures if fixtures is not None else {"lookup_order": ORDER}})


def backend(server: StubServer, model: str = "model-x", **kw) -> OpenAIBackend:
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout_s", 5.0)
    return OpenAIBackend(model=model, base_url=server.url, api_key="test-key", **kw)


def run(items, server, *, model="model-x", sink=None, backend_kw=None, **settings):
    sink = sink if sink is not None else MemoryRunSink()
    be = backend(server, model, **(backend_kw or {}))
    try:
        summary = run_models(items, be, sink, RunSettings(**({"run_id": "r1"} | settings)))
    finally:
        be.close()
    return summary, sink


def answers_from_tool(req, rnd):
    """Round 0: look the order up. Round 1: answer with what the tool said."""
    if rnd == 0:
        return {"tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "AO-1"}}]}
    return f"Your order arrives on {json.loads(req.tool_results[-1])['eta']}."


def test_single_turn_records_output_tokens_and_settings():
    with StubServer(lambda req: Reply(200, chat_completion("Happy to help!", prompt_tokens=40, completion_tokens=5))) as s:
        summary, sink = run([text_item()], s, evalset_sha256="e" * 64, prompt_version="v7")
    rec = sink.records["r1/t-1/0"]
    assert (rec.output, rec.error, rec.rounds, rec.trajectory) == ("Happy to help!", None, 1, None)
    assert (rec.input_tokens, rec.output_tokens, rec.model, rec.run_id) == (40, 5, "model-x", "r1")
    assert (rec.prompt_version, rec.evalset_sha256) == ("v7", "e" * 64)
    body = s.requests[0].body
    assert body["temperature"] == 0 and "tools" not in body
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][1]["content"].startswith("Answer the customer in one sentence.\n\nInput:\n")
    assert '"user": "Question 1?"' in body["messages"][1]["content"]
    assert summary.ok == summary.done == 1


def test_every_model_gets_the_same_prompt_tools_and_temperature():
    items = [text_item(1), agent_item(1)]
    with StubServer(agent_script(answers_from_tool)) as s:
        run(items, s, model="model-a")
        run(items, s, model="model-b", run_id="r2")
    by_model: dict[str, list] = {}
    for req in s.requests:
        body = dict(req.body)
        by_model.setdefault(body.pop("model"), []).append(body)
    key = lambda b: json.dumps(b, sort_keys=True)  # noqa: E731
    assert sorted(map(key, by_model["model-a"])) == sorted(map(key, by_model["model-b"]))


def test_tool_calling_loop_answers_from_fixtures():
    with StubServer(agent_script(answers_from_tool)) as s:
        _, sink = run([agent_item()], s)
    rec = sink.records["r1/a-1/0"]
    assert rec.error is None and rec.rounds == 2
    assert rec.output == "Your order arrives on 2026-11-06."
    assert [st.type for st in rec.trajectory] == ["action", "final_answer"]
    assert rec.trajectory[0].tool == "lookup_order" and rec.trajectory[0].result == ORDER
    assert [(c.name, c.args, c.result, c.error) for c in rec.tool_calls] == [("lookup_order", {"order_id": "AO-1"}, ORDER, None)]
    first, second = s.requests[0].body, s.requests[1].body
    assert [t["function"]["name"] for t in first["tools"]] == ["lookup_order"]  # derived from the fixtures
    assert second["messages"][-1]["role"] == "tool" and json.loads(second["messages"][-1]["content"]) == ORDER
    assert rec.final_text == rec.output


def test_tool_without_fixture_gets_an_error_result_and_is_recorded():
    def script(req, rnd):
        if rnd == 0:
            return {"content": "Let me try.", "tool_calls": [{"name": "apply_discount", "arguments": {"pct": 50}}]}
        return "I can't apply discounts."

    with StubServer(agent_script(script)) as s:
        _, sink = run([agent_item()], s)
    rec = sink.records["r1/a-1/0"]
    assert rec.error is None and rec.output == "I can't apply discounts."
    assert [st.type for st in rec.trajectory] == ["thought", "action", "final_answer"]
    call = rec.tool_calls[0]
    assert call.name == "apply_discount" and call.result is None and "no fixture" in call.error
    assert "no fixture for tool 'apply_discount'" in s.requests[1].tool_results[0]


def test_model_that_never_stops_calling_tools_is_stopped_at_max_rounds():
    calls_forever = agent_script(lambda req, rnd: {"tool_calls": [{"name": "lookup_order", "arguments": {"page": rnd}}]})
    with StubServer(calls_forever) as s:
        _, sink = run([agent_item()], s, max_rounds=4)
    rec = sink.records["r1/a-1/0"]
    assert error_cause(rec.error) == "max_rounds" and rec.output is None
    assert rec.rounds == 4 and s.count == 4
    assert len(rec.tool_calls) == 4 and [st.type for st in rec.trajectory] == ["action"] * 4


def test_identical_repeated_tool_call_is_a_loop():
    same_call = agent_script(lambda req, rnd: {"tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "AO-1"}}]})
    with StubServer(same_call) as s:
        _, sink = run([agent_item()], s, max_rounds=10, loop_limit=3)
    rec = sink.records["r1/a-1/0"]
    assert error_cause(rec.error) == "loop" and rec.rounds == 3 and s.count == 3


def test_tool_arguments_that_are_not_json_are_a_parse_failure():
    broken = agent_script(lambda req, rnd: {"tool_calls": [{"name": "lookup_order", "arguments": '{"order_id": "AO-1"'}]})
    with StubServer(broken) as s:
        _, sink = run([agent_item()], s)
    rec = sink.records["r1/a-1/0"]
    assert error_cause(rec.error) == "parse_failure" and rec.output is None and rec.rounds == 1
    assert rec.tool_calls[0].error.startswith("parse_failure:")


def test_request_timeout_is_recorded():
    def slow(req):
        time.sleep(1.0)
        return Reply(200, chat_completion("late"))

    with StubServer(slow) as s:
        t0 = time.monotonic()
        _, sink = run([text_item()], s, backend_kw={"timeout_s": 0.2, "max_retries": 0})
        elapsed = time.monotonic() - t0
    rec = sink.records["r1/t-1/0"]
    assert error_cause(rec.error) == "timeout" and rec.output is None and rec.rounds == 0
    assert elapsed < 0.9


def test_task_timeout_stops_a_slow_agent_loop():
    def slow_tools(req):
        time.sleep(0.15)
        return agent_script(lambda r, rnd: {"tool_calls": [{"name": "lookup_order", "arguments": {"page": rnd}}]})(req)

    with StubServer(slow_tools) as s:
        _, sink = run([agent_item()], s, max_rounds=50, task_timeout_s=0.5)
    rec = sink.records["r1/a-1/0"]
    assert error_cause(rec.error) == "timeout" and "task not finished" in rec.error
    assert 1 <= rec.rounds <= 4 and rec.latency_ms < 900


def test_429_storm_retries_with_retry_after_then_succeeds():
    arrivals: list[float] = []
    lock = threading.Lock()
    storm = rate_limited(8, retry_after=0.3, then=verdicts(lambda req: "pass"))

    def responder(req):
        with lock:
            arrivals.append(time.monotonic())
        return storm(req)

    items = [text_item(n) for n in range(4)]
    with StubServer(responder) as s:
        t0 = time.monotonic()
        summary, sink = run(items, s, concurrency=4, backend_kw={"max_retries": 5})
        elapsed = time.monotonic() - t0
    assert sorted(sink.records) == [f"r1/t-{n}/0" for n in range(4)]  # every task, once
    assert all(r.error is None for r in sink.records.values())
    assert s.count == 8 + 4
    # Each task was refused twice on average: with Retry-After 0.3 s honoured the run takes at least two waits.
    assert elapsed >= 0.55
    assert summary.ok == 4


def test_429_forever_is_a_recorded_rate_limit_error_and_resume_sends_nothing():
    items = [text_item(n) for n in range(4)]
    sink = MemoryRunSink()
    with StubServer(rate_limited(10**9, retry_after=0.01)) as s:
        summary, _ = run(items, s, sink=sink, concurrency=4, backend_kw={"max_retries": 2})
        assert s.count == 4 * 3  # first try + 2 retries per task
        assert [error_cause(r.error) for r in sink.records.values()] == ["rate_limit"] * 4
        assert summary.errors == {"rate_limit": 4}
        again, _ = run(items, s, sink=sink, concurrency=4)  # MemoryRunSink raises on a duplicate id
        assert s.count == 12 and again.stored_before == 4 and again.done == 0


def test_server_error_after_retries_is_recorded():
    with StubServer(always(500)) as s:
        _, sink = run([text_item()], s, backend_kw={"max_retries": 1})
    assert error_cause(sink.records["r1/t-1/0"].error) == "server_error" and s.count == 2


def test_resume_skips_stored_tasks_and_repeats_are_separate_records():
    items = [text_item(n) for n in range(3)]
    with StubServer(verdicts()) as s:
        _, sink = run(items[:1], s, repeats=2)
        summary, sink = run(items, s, sink=sink, repeats=2)
    assert summary.stored_before == 2 and summary.done == 4 and s.count == 6
    assert sorted(sink.records) == sorted(f"r1/t-{n}/{k}" for n in range(3) for k in range(2))


def test_bad_key_stops_the_run():
    with StubServer(always(401, "invalid api key")) as s:
        with pytest.raises(FatalBackendError):
            run([text_item(n) for n in range(3)], s)


def test_settings_are_validated_and_hash_into_the_prompt_version():
    a, b = RunSettings(run_id="r"), RunSettings(run_id="r", system_prompt="Other prompt.")
    assert a.version.startswith("p-") and a.version != b.version
    assert RunSettings(run_id="r", prompt_version="v2").version == "v2"
    with pytest.raises(ValueError):
        RunSettings(run_id="r", max_rounds=0)
    with pytest.raises(ValueError):
        RunSettings(run_id="")


def _malformed(mutate):
    def respond(req):
        body = chat_completion("An answer.")
        mutate(body)
        return Reply(200, body)

    return respond


@pytest.mark.parametrize("mutate, cause", [
    (lambda b: b["choices"][0].update(message=None), "bad_response"),
    (lambda b: b["choices"].__setitem__(0, None), "bad_response"),
    (lambda b: b["choices"][0]["message"].update(content=[{"type": "text", "text": "hi"}]), "bad_response"),
    (lambda b: b["choices"][0]["message"].update(content=None), "bad_response"),
    (lambda b: b["choices"][0]["message"].update(content=None, tool_calls=[{"id": "c1", "type": "custom"}]),
     "parse_failure"),
    (lambda b: b["choices"][0]["message"].update(content=None, tool_calls=[
        {"id": "c1", "type": "function", "function": {"name": "lookup_order", "arguments": {"order_id": 1}}}]),
     "parse_failure"),
], ids=["null-message", "null-choice", "content-not-text", "no-content-no-call", "call-without-function",
        "arguments-not-a-string"])
def test_a_reply_without_a_usable_message_is_a_failed_record_and_the_run_goes_on(mutate, cause):
    """A 200 whose message the runner cannot read stopped the whole run with a traceback (exit 1, the task never
    stored, so every resume stopped on it again), and a message with no content, tool call or refusal was stored as a
    completed empty answer (completion 100%, `gate --run --max-error-rate 0` passed, exit 0 for an endpoint that
    answered nothing; a review, wave 18). Each is now a failed record, and the other tasks run."""
    items = [agent_item(1), text_item(2)]
    with StubServer(_malformed(mutate)) as s:
        summary, sink = run(items, s, backend_kw={"max_retries": 0})
    assert sorted(sink.records) == ["r1/a-1/0", "r1/t-2/0"]
    rec = sink.records["r1/a-1/0"]
    assert error_cause(rec.error) == cause and rec.output is None and summary.ok == 0
    if cause == "parse_failure":
        assert rec.tool_calls[-1].error.startswith("parse_failure:")  # counted by compare's tool-call parse rate
    else:
        assert summary.nothing_answered  # exit 3: the endpoint answered nothing usable


def test_missing_token_counts_are_unknown_and_a_billed_failure_counts():
    """An endpoint that sends no `usage` was stored as 0 tokens, so `compare` costed the model at nothing (it reads a
    record without counts as an unknown cost); the usage of a response that came back with no choices was dropped,
    where the judge counts it (a review, wave 18)."""
    def respond(req):
        body = chat_completion("An answer.", prompt_tokens=40, completion_tokens=5)
        if "Question 1?" in req.prompt:
            del body["usage"]
        if "Question 2?" in req.prompt:
            body["choices"] = []
        return Reply(200, body)

    with StubServer(respond) as s:
        summary, sink = run([text_item(0), text_item(1), text_item(2)], s, backend_kw={"max_retries": 0})
    counts = {r.item_id: (r.input_tokens, r.output_tokens) for r in sink.records.values()}
    assert counts == {"t-0": (40, 5), "t-1": (None, None), "t-2": (40, 5)}
    assert error_cause(sink.records["r1/t-2/0"].error) == "bad_response"
    assert (summary.input_tokens, summary.without_tokens) == (80, 1)
    assert "1 records without token counts" in summary.format()


@pytest.mark.parametrize("content", ["Here is how to pick the lo", None], ids=["partial-text", "no-text"])
def test_an_answer_the_content_filter_stopped_is_a_failed_record_not_an_answer(content):
    """A reply with finish_reason `content_filter` and some text was stored as a completed answer: checked, judged
    and counted in completion though the provider cut it (left by the runner's review, wave 18). It is a failed
    record, cause `content_filter`, whose error keeps the partial text; the other tasks run."""
    def respond(req):
        body = chat_completion("An answer.")
        if "Question 1?" in req.prompt:
            body["choices"][0].update(finish_reason="content_filter")
            body["choices"][0]["message"]["content"] = content
        return Reply(200, body)

    with StubServer(respond) as s:
        summary, sink = run([text_item(0), text_item(1), text_item(2)], s, backend_kw={"max_retries": 0})
    rec = sink.records["r1/t-1/0"]
    assert error_cause(rec.error) == "content_filter" and rec.output is None
    assert ("partial text: 'Here is how to pick the lo'" in rec.error) == (content is not None)
    assert summary.ok == 2 and summary.errors["content_filter"] == 1
    assert sink.records["r1/t-0/0"].output == "An answer."
