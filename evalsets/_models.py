"""Pydantic models of the eval set and of run records.

These are the shapes of the JSONL/CSV files a user imports and of the rows judgecal exports; the store
keeps them field for field, so an export re-imports to the same rows.
"""

from __future__ import annotations

import hashlib
import re
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from judgecal.evalsets._plain import LABEL_SETS, PASS_FAIL, SQLITE_INT_MAX, ConstraintType, Severity, Split, StepType




class _Strict(BaseModel):
    # Unknown fields are an error: a typo in a field name must not silently drop data.
    model_config = ConfigDict(extra="forbid", frozen=True)


# Validation context of items read back from the project (`EvalItem.model_validate(data, context=STORED)`): rules
# added after an item could be stored (`loose` on a checker that is not IFEval's) refuse new input, not stored items.
STORED: dict[str, Any] = {"stored": True}


class Check(_Strict):
    """A mechanical check: a registered checker id and its arguments."""

    id: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    # IFEval's loose mode, for IFEval's checkers only (refused on others, except in items already stored: see STORED).
    loose: bool = False
    # A conversation's text checks read its final assistant turn (the record's output) unless `turns` is "every":
    # then each assistant turn must pass (e.g. "never names a competitor" over a whole conversation). Absent =
    # final, so a check without it stores, exports and hashes as before. Trajectory checks see every step anyway.
    turns: Literal["final", "every"] | None = None

    @field_validator("loose")
    @classmethod
    def _loose_is_ifevals(cls, v: bool, info: ValidationInfo) -> bool:
        from judgecal.evalsets._registry import LOOSE_NOT_IFEVAL, has_loose_mode

        checker_id = info.data.get("id")
        if v and checker_id is not None and not has_loose_mode(checker_id) and not (info.context or {}).get("stored"):
            raise ValueError(LOOSE_NOT_IFEVAL.format(checker=checker_id))
        return v

    @model_validator(mode="after")
    def _known_checker(self) -> Check:
        from judgecal.evalsets._registry import validate_check

        validate_check(self.id, self.args)
        return self


# "Expected: soft_refusal (...)" (or 期望：...) at the end of a constraint's text, as boundary cases were written
# before the `expected` field existed.
EXPECTED_IN_TEXT = re.compile(r"(?:Expected|期望)\s*[:：]\s*(.*)", re.S)


class Constraint(_Strict):
    """What must hold of an output. Without `check` it is semantic: the judge and humans score it."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    type: ConstraintType
    severity: Severity = "must"
    check: Check | None = None
    labels: tuple[str, ...] = PASS_FAIL
    # The expected label(s) of a boundary case with a why, e.g. "soft_refusal (declines, offers help)". Kept out of
    # `text` because the text is what the judge's prompt and the review card show: an answer key there would tell
    # both which label to give. Old files carry it in the text ("... Expected: soft_refusal ..."): moved on load.
    expected: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _move_expected(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("expected") is None and isinstance(data.get("text"), str):
            m = EXPECTED_IN_TEXT.search(data["text"])
            if m and m.group(1).strip():
                before = data["text"][:m.start()].rstrip()
                data = dict(data, text=before or "How the request is handled.", expected=m.group(1).strip())
        return data

    @field_validator("labels", mode="before")
    @classmethod
    def _named_set(cls, v: Any) -> Any:
        if isinstance(v, str):
            if v not in LABEL_SETS:
                raise ValueError(f"unknown label set {v!r}; known: {', '.join(LABEL_SETS)}")
            return LABEL_SETS[v]
        return v

    @model_validator(mode="after")
    def _labels_ok(self) -> Constraint:
        if len(self.labels) < 2:
            raise ValueError("a label set needs at least two labels")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError("labels must be distinct")
        if self.check is not None and self.labels != PASS_FAIL:
            raise ValueError("a mechanical check answers pass/fail; its constraint must use labels ['pass', 'fail']")
        return self

    @property
    def semantic(self) -> bool:
        return self.check is None


class EvalItem(_Strict):
    """One instruction with its input and the constraints its answer must meet."""

    id: str = Field(min_length=1)
    instruction: str
    input: str | dict[str, Any] | list[Any] | None = None
    constraints: tuple[Constraint, ...] = Field(min_length=1)
    reference: str | None = None
    source: str | None = None
    scenario: str | None = None
    created_at: datetime | None = None
    derived_from: str | None = None
    tags: tuple[str, ...] = ()
    split: Split | None = None
    # Tool fixtures for agent runs: tool name -> canned result, so runs are reproducible.
    fixtures: dict[str, Any] | None = None
    # A conversation: the user turns after the first (the first is the instruction with its input), played in order
    # by `judgecal run`, each answered (with tool rounds) before the next is sent.
    turns: tuple[str, ...] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _unique_constraint_ids(self) -> EvalItem:
        seen: set[str] = set()
        for c in self.constraints:
            if c.id in seen:
                raise ValueError(f"duplicate constraint id {c.id!r}")
            seen.add(c.id)
        return self

    def constraint(self, constraint_id: str) -> Constraint:
        for c in self.constraints:
            if c.id == constraint_id:
                return c
        raise KeyError(constraint_id)


class Step(_Strict):
    """One step of an agent trajectory."""

    type: StepType
    text: str | None = None
    tool: str | None = None
    args: dict[str, Any] | None = None
    result: Any = None

    @model_validator(mode="after")
    def _shape(self) -> Step:
        if self.type == "action" and not self.tool:
            raise ValueError("an action step needs 'tool'")
        if self.type != "action" and self.text is None:
            raise ValueError(f"a {self.type} step needs 'text'")
        return self


class ToolCall(_Strict):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None


MessageRole = Literal["system", "user", "assistant", "tool"]


def check_transcript(messages: tuple[dict[str, Any], ...]) -> None:
    """A transcript in OpenAI chat format is valid only if every tool message answers, by `tool_call_id`, a tool call
    an earlier assistant message made and no earlier tool message answered, and every tool call is answered before
    the next user or assistant message. Raises ValueError naming the message index and field."""
    open_calls: dict[str, int] = {}
    answered: set[str] = set()
    seen_ids: set[str] = set()
    for i, m in enumerate(messages):
        role = m.get("role")
        if role not in MessageRole.__args__:  # type: ignore[attr-defined]
            raise ValueError(f"messages[{i}].role: {role!r} is not one of system, user, assistant, tool")
        if role == "tool":
            cid = m.get("tool_call_id")
            if not isinstance(cid, str) or not cid:
                raise ValueError(f"messages[{i}].tool_call_id: a tool message needs the id of the call it answers")
            if cid in answered:
                raise ValueError(f"messages[{i}].tool_call_id: tool call {cid!r} is already answered")
            if cid not in open_calls:
                raise ValueError(f"messages[{i}].tool_call_id: no earlier assistant tool call has id {cid!r}")
            del open_calls[cid]
            answered.add(cid)
            continue
        if open_calls:
            raise ValueError(f"messages[{i}]: tool call(s) {', '.join(map(repr, open_calls))} (messages"
                             f"[{min(open_calls.values())}]) are not answered before this {role} message")
        content = m.get("content")
        if content is not None and not isinstance(content, str):
            raise ValueError(f"messages[{i}].content: must be text or null")
        calls = m.get("tool_calls")
        if calls is None:
            if role != "assistant" and content is None:
                raise ValueError(f"messages[{i}].content: a {role} message needs content")
            continue
        if role != "assistant":
            raise ValueError(f"messages[{i}].tool_calls: only an assistant message makes tool calls")
        for k, call in enumerate(calls):
            cid = call.get("id") if isinstance(call, dict) else None
            name = (call.get("function") or {}).get("name") if isinstance(call, dict) else None
            if not isinstance(cid, str) or not cid:
                raise ValueError(f"messages[{i}].tool_calls[{k}].id: a tool call needs an id")
            if cid in seen_ids:
                raise ValueError(f"messages[{i}].tool_calls[{k}].id: id {cid!r} is used twice")
            if not isinstance(name, str) or not name:
                raise ValueError(f"messages[{i}].tool_calls[{k}].function.name: a tool call needs a function name")
            seen_ids.add(cid)
            open_calls[cid] = i
    if open_calls:
        raise ValueError(f"messages: tool call(s) {', '.join(map(repr, open_calls))} are never answered")


def _json_or_text(value: Any) -> Any:
    """A tool call's arguments or a tool message's content as a value: its JSON when it is JSON text, else as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value


def transcript_steps(messages: tuple[dict[str, Any], ...]) -> tuple[Step, ...]:
    """The steps a transcript shows, in the shape `judgecal run` stores them, so one behaviour stored either way reads
    the same: an assistant message with tool calls is a thought (its text, when it has any) and one action step per
    call (its arguments parsed from JSON; None when they are not a JSON object), each carrying as `result` the
    content of the tool message that answers it by id (parsed when it is JSON); an assistant message without tool
    calls is a final answer (each turn's reply, as the runner records every reply). System and user messages are no
    steps. The transcript is valid (`check_transcript`), so every tool message answers an earlier call."""
    steps: list[dict[str, Any]] = []
    at: dict[str, int] = {}
    for m in messages:
        role = m.get("role")
        if role == "tool":
            i = at.get(m.get("tool_call_id"))  # type: ignore[arg-type]
            if i is not None:
                steps[i]["result"] = _json_or_text(m.get("content"))
        elif role == "assistant":
            calls = m.get("tool_calls") or ()
            text = m.get("content")
            if not calls:
                steps.append({"type": "final_answer", "text": text if isinstance(text, str) else ""})
                continue
            if isinstance(text, str) and text:
                steps.append({"type": "thought", "text": text})
            for call in calls:
                fn = call.get("function") or {}
                args = _json_or_text(fn.get("arguments") or "{}")
                at[call["id"]] = len(steps)
                steps.append({"type": "action", "tool": fn["name"], "args": args if isinstance(args, dict) else None})
    return tuple(Step(**s) for s in steps)


class RunRecord(_Strict):
    """One model output for one eval item: plain text or an agent trajectory."""

    id: str = Field(min_length=1)
    item_id: str = Field(min_length=1)
    model: str = Field(min_length=1)
    prompt_version: str | None = None
    run_id: str | None = None
    output: str | None = None
    trajectory: tuple[Step, ...] | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    input_tokens: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    output_tokens: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    latency_ms: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    rounds: int | None = Field(default=None, ge=0, le=SQLITE_INT_MAX)
    error: str | None = None
    evalset_sha256: str | None = None
    created_at: datetime | None = None
    # A conversation's whole transcript (OpenAI chat format). `output` is then its final assistant turn (filled from
    # the transcript when absent), so every check, the judge's pass rate and the failed-run rule read it unchanged.
    messages: tuple[dict[str, Any], ...] | None = Field(default=None, min_length=1)

    @field_validator("messages")
    @classmethod
    def _valid_transcript(cls, v: tuple[dict[str, Any], ...] | None) -> tuple[dict[str, Any], ...] | None:
        if v is not None:
            check_transcript(v)
        return v

    @model_validator(mode="after")
    def _has_content(self) -> RunRecord:
        # An after-validator, not a before one: a before-validator makes pydantic build a Python dict of every JSONL
        # row before validating it, a third of the parse time of a large import.
        # Not for a failed run: its transcript's last assistant text is an earlier turn, not the answer.
        if self.output is None and self.error is None and self.messages is not None:
            finals = [m.get("content") for m in self.messages if m.get("role") == "assistant"
                      and isinstance(m.get("content"), str)]
            if finals:
                object.__setattr__(self, "output", finals[-1])  # frozen model, still being built
        if self.output is None and self.trajectory is None and self.error is None:
            raise ValueError("a run record needs 'output', 'trajectory' or 'error' (or 'messages' with an assistant reply)")
        return self

    def transcript_mismatch(self) -> tuple[str, str] | None:
        """(field, why) when the record's `trajectory` shows other tool calls than its transcript, or its `output` is
        not the text of its transcript's last assistant turn (the last assistant
        message with text, the one `output` is filled from when a file leaves it out), or None. The checks read the
        output while the judge and the review card quote the transcript, so a record whose output differs from it
        would be checked on an answer nobody reads (a review, wave 17: output "Happy to help!" after a final turn
        naming a competitor passed `keywords:forbidden`). Not a validator: records stored before the rule was made
        still load; every import refuses such a record (`annotations.import_runs`). A record without an output (a
        failed run) has nothing to differ."""
        if self.messages is not None and self.trajectory is not None and self.error is None:
            # the trajectory checks read the trajectory, the judge and the review card the transcript: an empty
            # trajectory, or one with only a final answer, hid a transcript's forbidden call (a review of the fix).
            # Not for a failed run: the runner's transcript stops at the failure, its trajectory may hold the call
            # that failed, and a record without an answer fails every check anyway (`unanswered`)
            shown = [st.tool for st in transcript_steps(self.messages) if st.type == "action"]
            stored = [st.tool for st in self.trajectory if st.type == "action"]
            if shown != stored:
                return ("trajectory", f"its tool calls {stored[:5]} differ from the transcript's {shown[:5]}; the "
                        "checks read the trajectory, the judge and the review card the transcript (leave the "
                        "trajectory out to take the steps from the transcript)")
        if self.messages is None or self.output is None:
            return None
        last = max((i for i, m in enumerate(self.messages)
                    if m.get("role") == "assistant" and isinstance(m.get("content"), str)), default=None)
        if last is None:
            return "output", "the transcript (messages) has no assistant turn with text, so the output is not in it"
        final = self.messages[last]["content"]
        if final == self.output:
            return None
        return "output", (f"differs from the text of the transcript's last assistant turn (messages[{last}].content): "
                          f"{self.output[:60]!r} vs {final[:60]!r}; the checks read the output, the judge and the "
                          f"review card the transcript (leave the output out to take it from the transcript)")

    def assistant_texts(self) -> tuple[str, ...]:
        """Every assistant turn's text, in order (the output alone for a record without a transcript): what a check
        with `turns: "every"` looks at."""
        if self.messages is None:
            return (self.final_text,)
        return tuple(m["content"] for m in self.messages if m.get("role") == "assistant" and m.get("content"))

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps the trajectory checks (and the boundary report's forbidden calls) read: the trajectory; for a
        record without one, the steps its transcript shows (`transcript_steps`), else its `tool_calls` as action
        steps (an errored call's result `{"error": ...}`, as the runner stores it) followed by the output as the final
        answer; else none. A conversation or a tool-call log imported without a trajectory passed every
        `trajectory:forbidden_tool` check it broke (a review, wave 17). Derived when read, never stored."""
        if self.trajectory is not None:
            return self.trajectory
        if self.messages is not None and (not self.tool_calls or any(m.get("tool_calls") for m in self.messages)):
            return transcript_steps(self.messages)
        if not self.tool_calls:
            return ()
        steps = [Step(type="action", tool=c.name, args=c.args,
                      result=c.result if c.error is None else {"error": c.error}) for c in self.tool_calls]
        if self.output is not None:
            steps.append(Step(type="final_answer", text=self.output))
        return tuple(steps)

    @property
    def failed(self) -> bool:
        """A failed run: it produced neither output nor trajectory (its `error` says why), so there is nothing to
        check, judge or review. It fails every constraint of its item (compare, boundary, check results), and it has no
        semantic pair to judge or sample. The one definition of "failed run"; SQL spells it
        `output IS NULL AND trajectory IS NULL` (annotations/review/_sampling.py)."""
        return self.output is None and self.trajectory is None

    @property
    def final_text(self) -> str:
        """The text the mechanical text checks and the judge look at: the output, else the final answer."""
        if self.output is not None:
            return self.output
        for step in reversed(self.trajectory or ()):
            if step.type == "final_answer":
                return step.text or ""
        return ""


def canonical_json(obj: Any) -> str:
    """JSON that does not depend on key order or whitespace: the basis of content hashes."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _hashed(item: EvalItem) -> dict[str, Any]:
    # A constraint without `expected` (an item without `turns`) hashes as it did before the field existed, so stored
    # versions stay valid.
    data = item.model_dump(mode="json")
    if data.get("turns") is None:
        data.pop("turns", None)
    data["constraints"] = [{k: v for k, v in c.items() if k != "expected" or v is not None} for c in data["constraints"]]
    for c in data["constraints"]:
        if c.get("check") and c["check"].get("turns") is None:
            c["check"].pop("turns", None)
    return data


def item_sha256(item: EvalItem) -> str:
    return hashlib.sha256(canonical_json(_hashed(item)).encode()).hexdigest()


def evalset_sha256(items: list[EvalItem] | tuple[EvalItem, ...]) -> str:
    """Version of an eval set: the hash of its items' canonical JSON, in id order (file order does not matter)."""
    h = hashlib.sha256()
    for item in sorted(items, key=lambda i: i.id):
        h.update(canonical_json(_hashed(item)).encode())
        h.update(b"\n")
    return h.hexdigest()


