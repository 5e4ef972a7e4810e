"""Trajectory checkers: mechanical checks on an agent's steps (which tools, in what order, how many steps).

A tool call is a step of type `action`; its tool is `step.tool`. Every checker reports in `CheckResult.bad_steps`
the 0-based indices of the steps that break its constraint — the numerator of the step deviation rate — and a
constraint broken by something missing (a tool never called) has no offending step, so `bad_steps` is empty.
"""

from __future__ import annotations

from typing import Any

from judgecal.evalsets._models import Step
from judgecal.evalsets._registry import CheckResult, checker


def _tool_arg(check: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{check}: argument {name!r} must be a non-empty tool name, got {value!r}")
    return value


def _calls(trajectory: tuple[Step, ...]) -> list[tuple[int, str]]:
    return [(i, s.tool or "") for i, s in enumerate(trajectory) if s.type == "action"]


def _fail(detail: str, bad: list[int]) -> CheckResult:
    return CheckResult(False, detail, tuple(bad))


@checker("trajectory:must_call", target="trajectory")
def must_call(trajectory: tuple[Step, ...], *, tool: str) -> CheckResult:
    """The agent calls `tool` at least once (an `action` step whose tool name equals `tool`, case-sensitive).

    An omission has no offending step: on failure `bad_steps` is empty. An empty trajectory fails.
    """
    _tool_arg("trajectory:must_call", "tool", tool)
    if any(name == tool for _, name in _calls(trajectory)):
        return CheckResult(True)
    return CheckResult(False, f"tool {tool!r} was never called")


@checker("trajectory:tool_order", target="trajectory")
def tool_order(trajectory: tuple[Step, ...], *, before: str, after: str) -> CheckResult:
    """Every call of tool `after` comes after some earlier call of tool `before`.

    Bad steps: each call of `after` with no call of `before` at a lower index. The check is about order only:
    it passes when neither tool is called, and when only `before` is called — combine it with
    `trajectory:must_call` to require the calls themselves. `before` and `after` must differ.
    """
    _tool_arg("trajectory:tool_order", "before", before)
    _tool_arg("trajectory:tool_order", "after", after)
    if before == after:
        raise ValueError("trajectory:tool_order: 'before' and 'after' must be different tools")
    seen_before = False
    bad = []
    for i, name in _calls(trajectory):
        if name == before:
            seen_before = True
        elif name == after and not seen_before:
            bad.append(i)
    if bad:
        return _fail(f"{after!r} called at step(s) {bad} before any call of {before!r}", bad)
    return CheckResult(True)


@checker("trajectory:final_after_observation", target="trajectory")
def final_after_observation(trajectory: tuple[Step, ...]) -> CheckResult:
    """No final answer before the agent has observed a tool result.

    Every `final_answer` step needs an observation at a lower index: a step of type `observation`, or an `action`
    step whose `result` is set (harnesses that record the tool result on the action step itself). Bad steps: each
    final answer without one. A trajectory with no final answer passes (nothing was answered too early).
    """
    observed = False
    bad = []
    for i, step in enumerate(trajectory):
        if step.type == "observation" or (step.type == "action" and step.result is not None):
            observed = True
        elif step.type == "final_answer" and not observed:
            bad.append(i)
    if bad:
        return _fail(f"final answer at step(s) {bad} with no observation before it", bad)
    return CheckResult(True)


@checker("trajectory:max_steps", target="trajectory")
def max_steps(trajectory: tuple[Step, ...], *, n: int) -> CheckResult:
    """The trajectory has at most `n` steps, counting steps of every type (inclusive; `n` is a non-negative integer).

    Bad steps: the steps past the limit (indices `n` and above).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"trajectory:max_steps: argument 'n' must be a non-negative integer, got {n!r}")
    if len(trajectory) <= n:
        return CheckResult(True, f"{len(trajectory)} step(s), at most {n} allowed")
    bad = list(range(n, len(trajectory)))
    return _fail(f"{len(trajectory)} step(s), at most {n} allowed", bad)


@checker("trajectory:forbidden_tool", target="trajectory")
def forbidden_tool(trajectory: tuple[Step, ...], *, tool: str) -> CheckResult:
    """The agent never calls `tool` (case-sensitive tool name). Bad steps: every call of it."""
    _tool_arg("trajectory:forbidden_tool", "tool", tool)
    bad = [i for i, name in _calls(trajectory) if name == tool]
    if bad:
        return _fail(f"forbidden tool {tool!r} called at step(s) {bad}", bad)
    return CheckResult(True)


@checker("trajectory:allowed_tools", target="trajectory")
def allowed_tools(trajectory: tuple[Step, ...], *, tools: list[str]) -> CheckResult:
    """The agent calls only tools from the allow-list `tools` (case-sensitive names).

    An empty list allows no tool calls at all. Bad steps: every call of a tool not in the list; the detail names
    those tools. A trajectory with no tool calls passes.
    """
    if isinstance(tools, str) or not isinstance(tools, (list, tuple)):
        raise ValueError(f"trajectory:allowed_tools: argument 'tools' must be a list of tool names, "
                         f"not {type(tools).__name__}")
    for t in tools:
        _tool_arg("trajectory:allowed_tools", "tools[]", t)
    allowed = set(tools)
    bad = [(i, name) for i, name in _calls(trajectory) if name not in allowed]
    if bad:
        names = sorted({name for _, name in bad})
        steps = [i for i, _ in bad]
        return _fail(f"tool(s) {', '.join(repr(n) for n in names)} not allowed, called at step(s) {steps}", steps)
    return CheckResult(True)
