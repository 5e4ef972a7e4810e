"""The evidence of a run record as text: what the judge's prompt quotes as the output and what the review card shows.

ONE renderer for both, so a reviewer labels exactly what the judge read (issue 13 item 1). Pairwise judging renders
each of its two outputs with the same function.

- a plain output: the output, unchanged;
- tool calls without a trajectory (an imported record): each call with its arguments and result, then the output
  after the FINAL OUTPUT marker;
- a trajectory: every step numbered (thoughts, tool calls with arguments and results, observations), and when the
  record also has an `output` (what `judgecal run` writes), that output after a FINAL OUTPUT marker;
- a conversation (`messages`): every message, attributed to its role and turn, tool calls with ids and arguments,
  tool results with the id they answer, the last assistant message marked as the final output.

A tool result longer than `max_result_chars` is cut and marked with how much was cut: never silently.
"""

from __future__ import annotations

from typing import Any

from judgecal.evalsets._models import RunRecord, ToolCall, canonical_json

# Long enough for a real API answer (a product record, a search hit), short enough that ten tool rounds fit in a judge's
# context window beside the rubric.
MAX_RESULT_CHARS = 2000
FINAL_OUTPUT_MARKER = "=== FINAL OUTPUT ==="


def truncated(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """`text` cut to `limit` characters with a marker saying how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} [... truncated: {len(text) - limit} more characters not shown]"


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value)


def render_trajectory(record: RunRecord, *, max_result_chars: int = MAX_RESULT_CHARS) -> str:
    """The trajectory's steps, one numbered line each; '(no trajectory)' when the record has none."""
    if record.trajectory is None:
        return "(no trajectory)"
    lines = []
    for n, step in enumerate(record.trajectory, start=1):
        if step.type == "action":
            line = f"{n}. action: {step.tool}({canonical_json(step.args or {})})"
            if step.result is not None:
                line += f" -> {truncated(_as_text(step.result), max_result_chars)}"
        elif step.type == "observation":
            line = f"{n}. observation: {truncated(step.text or '', max_result_chars)}"
        else:
            line = f"{n}. {step.type.replace('_', ' ')}: {step.text}"
        lines.append(line)
    return "\n".join(lines)


def render_messages(messages: tuple[dict[str, Any], ...] | list[dict[str, Any]], *,
                    max_result_chars: int = MAX_RESULT_CHARS) -> str:
    """A transcript, each message attributed: '[turn 2 · user]', '[turn 2 · assistant]', '[turn 2 · tool result for
    call_1]'. A turn starts at each user message; the last assistant message is marked as the final output."""
    last_assistant = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    turn = 0
    blocks = []
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "user":
            turn += 1
        where = f"turn {turn}" if turn else "setup"
        if role == "tool":
            head = f"[{where} · tool result for {m.get('tool_call_id')}]"
            body = truncated(_as_text(m.get("content") or ""), max_result_chars)
        else:
            head = f"[{where} · {role}]"
            if i == last_assistant:
                head = f"{FINAL_OUTPUT_MARKER}\n{head}"
            parts = [_as_text(m["content"])] if m.get("content") not in (None, "") else []
            for call in m.get("tool_calls") or ():
                fn = call.get("function") or {}
                parts.append(f"tool call {call.get('id')}: {fn.get('name')}({fn.get('arguments') or '{}'})")
            body = "\n".join(parts) if parts else "(empty)"
        blocks.append(f"{head}\n{body}")
    return "\n\n".join(blocks)


def _call_line(n: int, call: ToolCall, limit: int) -> str:
    line = f"{n}. tool call: {call.name}({canonical_json(call.args)})"
    if call.error is not None:
        return f"{line} -> error: {truncated(call.error, limit)}"
    return f"{line} -> {truncated(_as_text(call.result), limit)}" if call.result is not None else line


def render_evidence(record: RunRecord, *, max_result_chars: int = MAX_RESULT_CHARS) -> str:
    """Everything the run shows about how it answered, as the judge reads it and the review card shows it."""
    messages = getattr(record, "messages", None)
    if messages:
        return render_messages(messages, max_result_chars=max_result_chars)
    if record.trajectory is None and record.tool_calls:
        calls = "\n".join(_call_line(n, c, max_result_chars) for n, c in enumerate(record.tool_calls, start=1))
        final = record.output if record.output is not None else f"(no output; the run failed: {record.error})"
        return f"{calls}\n{FINAL_OUTPUT_MARKER}\n{final}"
    if record.trajectory is None:
        if record.output is not None:
            return record.output
        return f"(no output; the run failed: {record.error})" if record.error else "(no output)"
    steps = render_trajectory(record, max_result_chars=max_result_chars)
    if record.output is None:
        return steps
    return f"{steps}\n{FINAL_OUTPUT_MARKER}\n{record.output}"
