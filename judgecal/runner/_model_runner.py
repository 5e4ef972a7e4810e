"""The model runner: puts the eval set to a model (single-turn answers and tool-calling agent loops) and hands each
finished task to a sink as a run record.

Every model gets the same system prompt, tool descriptions, task rendering, temperature and timeouts (they are
`RunSettings` plus the model client's settings, recorded with the run). Requests go through the judge package's
endpoint adapter (`judge.Endpoint`: client, retries, redaction, refused-feature memory, the cause table), with the
task deadline capping each request's timeout and retries. Tools are answered from the item's
`fixtures`, so a run is reproducible and touches nothing real. A failed task is never skipped: it becomes a run
record with `error` = "<cause>: <detail>", cause one of ERROR_CAUSES. Like the judge's batch runner this module knows
nothing of storage: the sink says which record ids are already stored (resume) and stores each record as it ends.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Protocol, Sequence

from judgecal.evalsets import EvalItem, RunRecord, Step, ToolCall, canonical_json, check_transcript, storable_record

from judgecal.judge import CLAIM_CHUNK, ENDPOINT_CAUSES, Endpoint, EndpointError, FatalBackendError, run_pool

# The shared system prompt. v1 (2026-11): first version. It says nothing about any eval item: the item's own
# instruction comes in the user message. Changing it changes the default prompt_version (its hash).
#: The error cause of a run record whose final answer the endpoint cut at its token limit (finish_reason "length").
TRUNCATED = "truncated"
TRUNCATED_FINISH = "length"
# The finish reason of an answer the endpoint's content filter stopped (OpenAI, Azure): a failed record, cause
# `content_filter`; the partial text is no answer of the model's.
FILTERED_FINISH = "content_filter"
DEFAULT_SYSTEM_PROMPT = (
    "You are the assistant under evaluation. Follow the instruction in the user message and answer the input it "
    "gives. When tools are offered, call them only when they help, and finish with a plain-text answer."
)
# How an item becomes the user message. Part of the prompt hash, so a change here is a new prompt_version.
TASK_TEMPLATE = "{instruction}\n\nInput:\n{input}"

DEFAULT_MAX_ROUNDS = 5
DEFAULT_LOOP_LIMIT = 3
DEFAULT_TASK_TIMEOUT_S = 300.0
DEFAULT_RUN_CONCURRENCY = 8

# `error` of a failed run record is "<cause>: <detail>".
# The endpoint's causes (judge.ENDPOINT_CAUSES, one table for judge and runner) plus the runner's own.
ERROR_CAUSES = (
    "timeout",        # no answer within the per-request timeout (after retries) or the per-task timeout
    "loop",           # the model made the identical tool call (same name and arguments) `loop_limit` times
    "parse_failure",  # tool-call arguments that are not a JSON object
    "max_rounds",     # still calling tools after `max_rounds` model requests
    "server_error",   # HTTP 5xx after the SDK's retries
    "rate_limit",     # HTTP 429 after the SDK's retries (which honour Retry-After)
    "api_error",      # another HTTP 4xx (bad request)
    "connection",     # the endpoint could not be reached
    "bad_response",   # a 200 without a usable message
)
# The endpoint gave no answer (as opposed to the model answering badly: loop, parse_failure, max_rounds).
NO_ANSWER_CAUSES = frozenset(ENDPOINT_CAUSES)


def error_cause(error: str | None) -> str | None:
    """The cause part of a run record's `error` ("timeout: no answer within 5 s" -> "timeout")."""
    if error is None:
        return None
    return error.split(":", 1)[0].strip() or "unknown"


@dataclass(frozen=True)
class RunSettings:
    """What a run holds fixed across models. `tools` None: each agent item gets tool specs derived from its
    fixtures (`fixture_tools`); items without fixtures are single-turn whatever `tools` says."""

    run_id: str
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    tools: tuple[dict[str, Any], ...] | None = None
    prompt_version: str | None = None
    max_rounds: int = DEFAULT_MAX_ROUNDS
    loop_limit: int = DEFAULT_LOOP_LIMIT
    task_timeout_s: float = DEFAULT_TASK_TIMEOUT_S
    repeats: int = 1
    concurrency: int = DEFAULT_RUN_CONCURRENCY
    evalset_sha256: str | None = None

    def __post_init__(self) -> None:
        if not self.run_id:
            raise ValueError("a run needs a run id")
        for name in ("max_rounds", "loop_limit", "repeats", "concurrency"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.task_timeout_s <= 0:
            raise ValueError("task_timeout_s must be positive")

    @property
    def prompt_sha256(self) -> str:
        """Hash of everything the model is shown besides the item: system prompt, task template, tool specs."""
        blob = canonical_json({"system": self.system_prompt, "template": TASK_TEMPLATE,
                               "tools": list(self.tools) if self.tools is not None else "from-fixtures"})
        return hashlib.sha256(blob.encode()).hexdigest()

    @property
    def version(self) -> str:
        """The prompt_version stored on every record: the one given, else `p-` + the first 12 of the prompt hash."""
        return self.prompt_version or f"p-{self.prompt_sha256[:12]}"

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["tools"] = list(self.tools) if self.tools is not None else None
        return out | {"prompt_version": self.version, "prompt_sha256": self.prompt_sha256}


class ChatModel(Protocol):
    """What the runner needs of a model under test: its name, sampling settings and the endpoint serving it
    (`ModelClient` is the runner's own; the judge's `OpenAIBackend` has the same shape)."""

    model: str
    temperature: float
    seed: int | None
    endpoint: Endpoint

    def settings(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


@dataclass
class ModelClient:
    """The model under test, served by `endpoint`. `seed` is sent where the endpoint accepts it."""

    model: str
    endpoint: Endpoint
    temperature: float = 0.0
    seed: int | None = 0
    name: str = "openai"

    def settings(self) -> dict[str, Any]:
        """Recorded with the run (never a secret: the endpoint shows its URL redacted)."""
        return {"backend": self.name, "model": self.model} | self.endpoint.settings() | {
            "temperature": self.temperature, "seed": self.seed}

    def close(self) -> None:
        self.endpoint.close()


class Task(NamedTuple):
    item: EvalItem
    repeat: int
    record_id: str


class RunSink(Protocol):
    def done(self, record_ids: Iterable[str]) -> set[str]:
        """The ids among `record_ids` already stored (failed tasks included: they are not asked again)."""
        ...

    def save(self, record: RunRecord) -> None:
        """Store one finished task durably soon."""
        ...


class MemoryRunSink:
    """A sink that keeps records in a dict (tests, benches). Thread-safe."""

    def __init__(self) -> None:
        self.records: dict[str, RunRecord] = {}
        self._lock = threading.Lock()

    def done(self, record_ids: Iterable[str]) -> set[str]:
        with self._lock:
            return {r for r in record_ids if r in self.records}

    def save(self, record: RunRecord) -> None:
        with self._lock:
            if record.id in self.records:
                raise ValueError(f"duplicate run record {record.id!r}")
            self.records[record.id] = record


def record_id(run_id: str, item_id: str, repeat: int) -> str:
    return f"{run_id}/{item_id}/{repeat}"


def plan_tasks(items: Iterable[EvalItem], settings: RunSettings) -> list[Task]:
    """Every (item, repeat) of the run, item by item."""
    return [Task(item, k, record_id(settings.run_id, item.id, k)) for item in items for k in range(settings.repeats)]


def fixture_tools(item: EvalItem) -> list[dict[str, Any]]:
    """Minimal function-tool specs for the tools an item has fixtures for (name, a neutral description, any
    object as arguments). Sorted by name so every model sees the same list."""
    return [
        {"type": "function", "function": {
            "name": name, "description": f"The {name} tool.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": True}}}
        for name in sorted(item.fixtures or {})
    ]


def task_messages(item: EvalItem, system_prompt: str) -> list[dict[str, Any]]:
    """The opening messages of a task: the shared system prompt, then the item's instruction and input."""
    if item.input is None:
        rendered = "(none)"
    elif isinstance(item.input, str):
        rendered = item.input
    else:
        rendered = json.dumps(item.input, ensure_ascii=False, indent=2)
    return [{"role": "system", "content": system_prompt},
            {"role": "user", "content": TASK_TEMPLATE.format(instruction=item.instruction, input=rendered)}]


def _tool_content(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


@dataclass
class RunSummary:
    planned: int = 0
    stored_before: int = 0
    done: int = 0
    ok: int = 0
    errors: Counter = field(default_factory=Counter)
    input_tokens: int = 0
    output_tokens: int = 0
    wall_s: float = 0.0
    interrupted: bool = False
    elsewhere: int = 0  # tasks another running batch held (or stored meanwhile): left to it
    abandoned: int = 0  # tasks in flight when a second Ctrl+C (or the grace time) gave up on them
    without_tokens: int = 0  # records a response of which came without token counts (their tokens are unknown)

    @property
    def nothing_answered(self) -> bool:
        """Tasks ran and the endpoint answered none of them (every one failed on a request cause)."""
        return self.done > 0 and sum(self.errors[c] for c in NO_ANSWER_CAUSES) == self.done

    def add(self, record: RunRecord) -> None:
        self.done += 1
        if record.error is None:
            self.ok += 1
        else:
            self.errors[error_cause(record.error)] += 1
        self.input_tokens += record.input_tokens or 0
        self.output_tokens += record.output_tokens or 0
        self.without_tokens += record.input_tokens is None or record.output_tokens is None

    def as_dict(self) -> dict[str, Any]:
        return {"planned": self.planned, "stored_before": self.stored_before, "done": self.done, "ok": self.ok,
                "errors": dict(self.errors), "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "wall_s": round(self.wall_s, 3), "interrupted": self.interrupted, "elsewhere": self.elsewhere,
                "abandoned": self.abandoned, "without_tokens": self.without_tokens}

    def format(self) -> str:
        errs = ", ".join(f"{k}: {v}" for k, v in self.errors.most_common())
        rate = f" ({self.done / self.wall_s:.1f} tasks/s)" if self.wall_s > 0 and self.done else ""
        return "\n".join([
            f"planned {self.planned} tasks: {self.stored_before} already stored (skipped), {self.done} run"
            + (" — INTERRUPTED" if self.interrupted else "")
            + (f"; {self.elsewhere} left to another running batch" if self.elsewhere else "")
            + (f"; {self.abandoned} abandoned in flight" if self.abandoned else ""),
            f"completed: {self.ok}",
            f"failed:    {self.done - self.ok}" + (f"  by cause: {errs}" if errs else ""),
            f"tokens:    {self.input_tokens} in, {self.output_tokens} out"
            + (f" (and {self.without_tokens} records without token counts: the endpoint sent none)"
               if self.without_tokens else ""),
            f"time:      {self.wall_s:.1f} s{rate}",
        ])


class _Failed(Exception):
    def __init__(self, cause: str, detail: str, usage: Any = None):
        super().__init__(f"{cause}: {detail}")
        self.error = f"{cause}: {detail}"[:2000]
        self.usage = usage  # the token usage of a response that came back unusable


def _add_usage(tokens: list[int | None], usage: Any) -> None:
    """Add one response's token counts to the task's. A response without a count (no `usage`, or not a count) makes
    the task's unknown, None, never 0: `compare` takes a record without counts for an unknown cost, while 0 tokens
    made a model behind an endpoint that sends no usage look free (max_cost_ratio 0; a review, wave 18)."""
    for n, name in enumerate(("prompt_tokens", "completion_tokens")):
        value = getattr(usage, name, None)
        current = tokens[n]
        known = isinstance(value, int) and not isinstance(value, bool) and value >= 0 and current is not None
        # (a negative or huge count, which RunRecord refuses, stopped the run: it is not a count)
        tokens[n] = current + value if known and current + value < 2**63 else None  # type: ignore[operator]


class ModelRunner:
    """Runs tasks against one model through its endpoint adapter (base URL, key handling, per-request timeout, SDK
    retries with Retry-After, connection pool, redaction, the cause table). Thread-safe: one runner, many workers."""

    def __init__(self, model: ChatModel, settings: RunSettings):
        self.model = model
        self.settings = settings
        self.endpoint = model.endpoint

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, deadline: float) -> Any:
        if deadline - time.monotonic() <= 0:
            raise _Failed("timeout", f"task not finished within {self.settings.task_timeout_s:g} s")
        model = self.model
        kwargs: dict[str, Any] = {"model": model.model, "messages": messages, "temperature": model.temperature}
        if tools:
            kwargs["tools"] = tools
        if model.seed is not None:
            kwargs["seed"] = model.seed
        try:
            return self.endpoint.complete(kwargs, deadline=deadline).completion
        except EndpointError as exc:
            if exc.cause == "timeout" and time.monotonic() >= deadline:
                raise _Failed("timeout", f"task not finished within {self.settings.task_timeout_s:g} s") from None
            raise _Failed(exc.cause, exc.detail, exc.usage) from None

    def run_task(self, task: Task) -> RunRecord:
        """One task to the end: a run record, with `error` set when it failed (never raises for a task failure)."""
        item, settings = task.item, self.settings
        start = time.monotonic()
        deadline = start + settings.task_timeout_s
        tools = (list(settings.tools) if settings.tools is not None else fixture_tools(item)) if item.fixtures is not None else None
        fixtures = item.fixtures or {}
        messages = task_messages(item, settings.system_prompt)
        steps: list[Step] = []
        calls: list[ToolCall] = []
        seen: Counter = Counter()
        tokens: list[int | None] = [0, 0]
        rounds = 0
        output: str | None = None
        error: str | None = None
        truncated = False
        # A conversation item: each scripted user turn is sent once the previous reply (with its tool rounds) is
        # complete; max_rounds bounds each reply's tool rounds.
        pending_turns = list(item.turns or ())
        reply_rounds = 0
        try:
            while True:
                if reply_rounds >= settings.max_rounds:
                    raise _Failed("max_rounds", f"still calling tools after {settings.max_rounds} rounds")
                completion = self._request(messages, tools, deadline)
                rounds += 1
                reply_rounds += 1
                _add_usage(tokens, getattr(completion, "usage", None))
                choice, message, tool_calls = _reply(completion)
                if not tool_calls:
                    # A refusal is an answer (boundary cases are about exactly this), not an error.
                    output = message.content if message.content is not None else (getattr(message, "refusal", None) or "")
                    steps.append(Step(type="final_answer", text=output))
                    truncated = getattr(choice, "finish_reason", None) == TRUNCATED_FINISH
                    messages.append({"role": "assistant", "content": output})
                    if truncated or not pending_turns:
                        break
                    messages.append({"role": "user", "content": pending_turns.pop(0)})
                    reply_rounds = 0
                    continue
                if message.content:
                    steps.append(Step(type="thought", text=message.content))
                for tc in tool_calls:
                    if getattr(tc, "function", None) is None:  # a custom tool or a broken call: nothing to execute
                        detail = f"tool call {getattr(tc, 'id', None)!r} names no function"
                        calls.append(ToolCall(name="<unnamed>", error=f"parse_failure: {detail}"))
                        raise _Failed("parse_failure", detail)
                messages.append({"role": "assistant", "content": message.content, "tool_calls": [
                    {"id": tc.id, "type": "function", "function": {"name": tc.function.name, "arguments": tc.function.arguments}}
                    for tc in tool_calls]})
                for tc in tool_calls:
                    self._call_tool(tc, fixtures, steps, calls, messages, seen)
        except _Failed as exc:
            error = exc.error
            if exc.usage is not None:  # a response came back (no choices ...): it is billed all the same
                _add_usage(tokens, exc.usage)
        if truncated and error is None:
            # The endpoint stopped the answer at its token limit: kept (and checked and judged as it is), but marked,
            # so `compare` shows a truncation rate and completion does not count it as finished.
            error = (f"{TRUNCATED}: the answer stopped at the output token limit (finish_reason "
                     f"{TRUNCATED_FINISH!r}); its text is kept as it is")
        # storable_record: an answer holding lone surrogate escapes is stored escaped and marked bad_response.
        return storable_record(RunRecord(
            id=task.record_id, item_id=item.id, model=self.model.model, prompt_version=settings.version,
            run_id=settings.run_id, output=output if error is None or truncated else None,
            trajectory=tuple(steps) if tools is not None and steps else None, tool_calls=tuple(calls),
            input_tokens=tokens[0], output_tokens=tokens[1], latency_ms=round((time.monotonic() - start) * 1000, 1),
            rounds=rounds, error=error, evalset_sha256=settings.evalset_sha256,
            messages=_complete_transcript(messages) if item.turns is not None else None,
        ))

    def _call_tool(self, tc: Any, fixtures: dict[str, Any], steps: list[Step], calls: list[ToolCall],
                   messages: list[dict[str, Any]], seen: Counter) -> None:
        name = tc.function.name if isinstance(tc.function.name, str) and tc.function.name else "<unnamed>"
        raw = tc.function.arguments
        try:
            if raw is not None and not isinstance(raw, str):
                raise ValueError("not a JSON string")
            args = json.loads(raw) if raw and raw.strip() else {}
            if not isinstance(args, dict):
                raise ValueError("not an object")
        except ValueError:
            detail = f"arguments of {name} are not a JSON object: {str(raw)[:200]!r}"
            calls.append(ToolCall(name=name, error=f"parse_failure: {detail}"))
            steps.append(Step(type="action", tool=name, result={"error": "arguments are not valid JSON"}))
            raise _Failed("parse_failure", detail) from None
        if name in fixtures:
            result = fixtures[name]
            calls.append(ToolCall(name=name, args=args, result=result))
        else:
            # Recorded as a failed call; the model sees an error result and may recover.
            result = {"error": f"no fixture for tool {name!r}: the tool is not available"}
            calls.append(ToolCall(name=name, args=args, error=result["error"]))
        steps.append(Step(type="action", tool=name, args=args, result=result))
        messages.append({"role": "tool", "tool_call_id": tc.id, "content": _tool_content(result)})
        key = (name, canonical_json(args))
        seen[key] += 1
        if seen[key] >= self.settings.loop_limit:
            raise _Failed("loop", f"{name} called {seen[key]} times with the same arguments")


def _reply(completion: Any) -> tuple[Any, Any, list[Any]]:
    """The first choice, its message and tool calls; `_Failed("bad_response")` for a 200 without a usable message: a
    null choice or message, content or refusal that is not text, or neither content, tool calls nor a refusal (unless
    cut at the token limit: that is a truncated answer). Such replies stopped the whole run with a traceback, or were
    stored as a completed empty answer (a review, wave 18)."""
    choice = completion.choices[0]
    message = getattr(choice, "message", None)
    if getattr(choice, "finish_reason", None) == FILTERED_FINISH:
        # What text came is cut where the provider's filter stopped it: stored as the answer, it was checked, judged
        # and counted as completed (left by the runner's review, wave 18; closed after it)
        partial = getattr(message, "content", None) if message is not None else None
        raise _Failed(FILTERED_FINISH, "the endpoint's content filter stopped the answer (finish_reason "
                      f"{FILTERED_FINISH!r})" + (f"; its partial text: {partial[:500]!r}"
                                                 if isinstance(partial, str) and partial else ""))
    if message is None:
        raise _Failed("bad_response", "the response's first choice has no message")
    content, refusal = message.content, getattr(message, "refusal", None)
    if not isinstance(content, (str, type(None))) or not isinstance(refusal, (str, type(None))):
        raise _Failed("bad_response", f"the message's content is not text: {str(content)[:200]!r}")
    tool_calls = list(getattr(message, "tool_calls", None) or [])
    if not tool_calls and content is None and refusal is None \
            and getattr(choice, "finish_reason", None) != TRUNCATED_FINISH:
        raise _Failed("bad_response", "the message has no content, tool call or refusal")
    return choice, message, tool_calls


def _complete_transcript(messages: list[dict[str, Any]]) -> tuple[dict[str, Any], ...] | None:
    """The transcript up to its last complete point: a task that failed in a tool round leaves a tool call without
    its answer, which no transcript may hold (evalsets.check_transcript); the failure itself is in `error`."""
    kept = list(messages)
    while kept:
        try:
            check_transcript(tuple(kept))
            return tuple(kept)
        except ValueError:
            kept.pop()
    return None


def run_models(items: Iterable[EvalItem], model: ChatModel, sink: RunSink, settings: RunSettings, *,
               on_record: Callable[[RunRecord, RunSummary], None] | None = None, grace_s: float | None = None,
               on_stop: Callable[[int], None] | None = None) -> RunSummary:
    """Run every (item, repeat) not yet stored with at most `settings.concurrency` tasks in flight; each record
    goes to the sink as soon as its task ends. Re-running the same run id skips what the sink has (failed tasks
    included), so a killed run resumes with nothing duplicated.

    On KeyboardInterrupt `on_stop(tasks in flight)` is called at once and the workers get `grace_s` to finish their
    current task (it is saved); a second Ctrl+C abandons them. The summary comes back with `interrupted=True`. A FatalBackendError (bad key, unknown model) stops the run and is raised.
    """
    start = time.monotonic()
    tasks = plan_tasks(items, settings)
    summary = RunSummary(planned=len(tasks))
    stored = sink.done(t.record_id for t in tasks)
    todo: Sequence[Task] = [t for t in tasks if t.record_id not in stored]
    summary.stored_before = len(tasks) - len(todo)
    runner = ModelRunner(model, settings)
    lock = threading.Lock()
    finished = [False]  # as in the judge's run_batch: a late answer is neither saved nor counted

    def handle(task: Task) -> None:
        record = runner.run_task(task)
        with lock:
            if finished[0]:
                return
            sink.save(record)
            summary.add(record)
        if on_record is not None:
            on_record(record, summary)

    claim = getattr(sink, "claim", None)  # optional, as for the judge's sink: lease tasks just ahead of the workers

    def claimed() -> Iterator[Task]:
        for start in range(0, len(todo), CLAIM_CHUNK):
            chunk = todo[start:start + CLAIM_CHUNK]
            got = None if claim is None else claim([t.record_id for t in chunk])
            for t in chunk:
                if got is None or t.record_id in got:
                    yield t
                else:
                    summary.elsewhere += 1

    result = run_pool(claimed(), handle, concurrency=min(settings.concurrency, max(len(todo), 1)), name="run",
                      grace_s=grace_s, on_stop=on_stop)
    with lock:
        finished[0] = True
    summary.interrupted = result.interrupted
    summary.abandoned = result.abandoned
    summary.wall_s = time.monotonic() - start
    if (exc := result.failure) is not None:
        if isinstance(exc, FatalBackendError):
            exc.summary = summary  # type: ignore[attr-defined]
            raise exc
        raise RuntimeError(f"run stopped: {type(exc).__name__}: {exc}") from exc
    return summary
