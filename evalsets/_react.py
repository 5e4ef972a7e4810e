"""Plain-text ReAct agent logs (`Thought:` / `Action:` / `Action Input:` / `Observation:` / `Final Answer:`) turned
into trajectories, the shape `judgecal run` stores, so the trajectory checks, the judge and the review card read an
imported text log like a recorded run.

Grammar (one step per marker at the start of a line; a step's text runs on until the next marker line):
- `Thought:` TEXT                      -> a thought step
- `Action:` TOOL  then `Action Input:` JSON object   -> an action step (tool, args)
- `Observation:` TEXT right after an action          -> that action's result (JSON when it parses, else the text)
- `Final Answer:` TEXT                 -> a final_answer step and the record's `output`; nothing may follow it
Malformed: text before the first marker, an Action without an Action Input right after it, an Action Input that is not
a JSON object (the trajectory's `args` is a JSON object), an Action Input or Observation with no Action before it, an
empty tool name, anything after the Final Answer. Each is reported with its line in the log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from judgecal.evalsets._io import InputError, Parsed, Problem, load_json
from judgecal.evalsets._models import RunRecord, Step, ToolCall

# Longest first: "Action Input:" must not be read as "Action:" with text "Input: ...".
MARKER = re.compile(r"^[ \t]*(Thought|Action Input|Action|Observation|Final Answer)[ \t]*:[ \t]?(.*)$")


@dataclass(frozen=True)
class ReactError(Exception):
    line: int  # 1-based line in the log
    message: str

    def __str__(self) -> str:
        return f"log line {self.line}: {self.message}"


@dataclass(frozen=True)
class ReactLog:
    steps: tuple[Step, ...]
    final_answer: str | None  # None: the log ends without one (the agent was cut off)
    tool_calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class _Block:
    marker: str
    text: str
    line: int


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    current: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        m = MARKER.match(raw)
        if m:
            if blocks:
                blocks[-1] = _Block(blocks[-1].marker, "\n".join(current).strip(), blocks[-1].line)
            blocks.append(_Block(m.group(1), "", n))
            current = [m.group(2)]
        elif blocks:
            current.append(raw)
        elif raw.strip():
            raise ReactError(n, f"text before the first marker (Thought:, Action:, ... ): {raw.strip()[:60]!r}")
    if blocks:
        blocks[-1] = _Block(blocks[-1].marker, "\n".join(current).strip(), blocks[-1].line)
    return blocks


def _result(text: str) -> Any:
    """An Observation: its JSON value, else its text (also JSON nested past `MAX_JSON_DEPTH`, which `load_json`
    refuses instead of a RecursionError)."""
    try:
        return load_json(text)
    except ValueError:
        return text


def parse_react(text: str) -> ReactLog:
    """Parse one ReAct log. Raises ReactError (with the log line) for the first malformed step."""
    blocks = _blocks(text)
    if not blocks:
        raise ReactError(1, "no ReAct steps (Thought:, Action:, Action Input:, Observation:, Final Answer:)")
    steps: list[Step] = []
    calls: list[ToolCall] = []
    final: str | None = None
    i = 0
    while i < len(blocks):
        b = blocks[i]
        if final is not None:
            raise ReactError(b.line, f"{b.marker}: after the Final Answer")
        if b.marker == "Thought":
            steps.append(Step(type="thought", text=b.text))
        elif b.marker == "Final Answer":
            final = b.text
            steps.append(Step(type="final_answer", text=b.text))
        elif b.marker == "Action":
            if not b.text or "\n" in b.text:
                raise ReactError(b.line, "Action: needs one tool name on its line")
            if i + 1 >= len(blocks) or blocks[i + 1].marker != "Action Input":
                raise ReactError(b.line, f"Action {b.text!r} without an Action Input right after it")
            arg_block = blocks[i + 1]
            try:
                args = load_json(arg_block.text)  # (not json.loads: nesting past the limit raised a traceback)
            except ValueError as exc:
                raise ReactError(arg_block.line, f"Action Input is not JSON ({exc.msg})") from None
            if not isinstance(args, dict):
                raise ReactError(arg_block.line, "Action Input must be a JSON object of arguments, got "
                                                 f"{type(args).__name__}")
            result = None
            i += 1
            if i + 1 < len(blocks) and blocks[i + 1].marker == "Observation":
                i += 1
                result = _result(blocks[i].text)
            steps.append(Step(type="action", tool=b.text, args=args, result=result))
            calls.append(ToolCall(name=b.text, args=args, result=result))
        else:  # an Action Input or Observation that no Action precedes
            raise ReactError(b.line, f"{b.marker}: without an Action before it")
        i += 1
    return ReactLog(tuple(steps), final, tuple(calls))


def react_runs(parsed: Parsed[RunRecord]) -> Parsed[RunRecord]:
    """Run records whose `output` is a ReAct log, with the log turned into `trajectory`, `tool_calls` and the Final
    Answer as `output`. Raises InputError naming file, line, field and the log line of every malformed log."""
    out = react_chunk(parsed)
    if out.problems:
        raise InputError(out.problems)
    return out


def react_chunk(parsed: Parsed[RunRecord]) -> Parsed[RunRecord]:
    """`react_runs` of one streamed chunk: the malformed logs join the chunk's problems (the importer refuses the
    file at the end) instead of raising."""
    out: Parsed[RunRecord] = Parsed(parsed.file, header=parsed.header, problems=list(parsed.problems))
    problems = out.problems
    for k, r in enumerate(parsed.rows):
        if r.output is None:  # a failed run (error only): nothing to parse
            out.rows.append(r)
            out.lines.append(parsed.lines[k])
            continue
        if r.trajectory is not None:
            problems.append(parsed.problem(k, "trajectory", "a ReAct import reads the trajectory from `output`; "
                                                            "this record has one already"))
            continue
        try:
            log = parse_react(r.output)
        except ReactError as exc:
            problems.append(parsed.problem(k, "output", str(exc)))
            continue
        out.rows.append(r.model_copy(update={"trajectory": log.steps, "output": log.final_answer,
                                             "tool_calls": log.tool_calls}))
        out.lines.append(parsed.lines[k])
    return out


__all__ = ["ReactError", "ReactLog", "parse_react", "react_runs"]
