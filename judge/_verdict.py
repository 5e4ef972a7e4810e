"""The verdict schema the judge answers in, built per label set, and the parsing of an answer.

The field descriptions below reach the model (they are in the JSON schema sent as structured output), so they are
part of the prompt: they are hashed into every rubric's sha256 (see `base_schema_json`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from judgecal.evalsets import canonical_json

LABEL_DESCRIPTION = "One of the allowed labels, written exactly as listed."
REASON_DESCRIPTION = "One sentence that says why the label applies, pointing to the part of the output that decides it."


class Verdict(BaseModel):
    """The shape of every answer; per label set, `label` narrows to that set (see `verdict_model`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(description=LABEL_DESCRIPTION)
    reason: str = Field(description=REASON_DESCRIPTION)


@lru_cache(maxsize=1)
def base_schema_json() -> str:
    """Canonical JSON schema of `Verdict` (labels not narrowed): what a rubric sha256 covers besides the template."""
    return canonical_json(Verdict.model_json_schema())


@lru_cache(maxsize=256)
def verdict_model(labels: tuple[str, ...]) -> type[Verdict]:
    """A Verdict subclass whose label is an enum of `labels`. Cached: building pydantic models is slow."""
    return create_model(  # type: ignore[call-overload]
        "Verdict",
        __base__=Verdict,
        label=(Literal[labels], Field(description=LABEL_DESCRIPTION)),  # type: ignore[valid-type]
    )


@lru_cache(maxsize=256)
def verdict_json_schema(labels: tuple[str, ...]) -> dict[str, Any]:
    """Strict JSON schema (all fields required, no extra keys) for `response_format` json_schema."""
    schema = verdict_model(labels).model_json_schema()
    schema["additionalProperties"] = False
    schema["required"] = ["label", "reason"]
    return schema


@lru_cache(maxsize=256)
def response_format_json_schema(labels: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "strict": True, "schema": verdict_json_schema(labels)},
    }


class Parsed(NamedTuple):
    """A parsed answer: a label and reason, or an error cause (`unparsable`, `bad_label`) with detail."""

    label: str | None
    reason: str | None
    error: str | None = None
    error_detail: str | None = None


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise _DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def parse_answer(content: str | None, labels: tuple[str, ...]) -> Parsed:
    """Parse the model's answer. Never coerces: anything but a JSON object with a label from `labels` and a string
    reason is an error (an error is never a label)."""
    if content is None or not content.strip():
        return Parsed(None, None, "unparsable", "empty answer")
    try:
        data = json.loads(content, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        return Parsed(None, None, "unparsable", f"not JSON: {exc.msg} at column {exc.colno}")
    except _DuplicateKey as exc:
        # {"label": "fail", "label": "pass"} holds both labels: json.loads keeps the last, which is no verdict
        return Parsed(None, None, "unparsable", f"key {exc.args[0]!r} given twice in one object")
    if not isinstance(data, dict):
        return Parsed(None, None, "unparsable", f"expected a JSON object, got {type(data).__name__}")
    label = data.get("label")
    reason = data.get("reason")
    if len(data) == 2 and type(label) is str and type(reason) is str and label in labels:
        # The answer structured output asks for: exactly what the model below accepts and returns (an allowed label
        # and a string reason, no other key), without building a pydantic model per answer.
        return Parsed(label, reason)
    if isinstance(label, str) and label not in labels:
        return Parsed(None, data.get("reason") if isinstance(data.get("reason"), str) else None, "bad_label",
                      f"label {label!r} is not in the label set {list(labels)}")
    try:
        verdict = verdict_model(labels).model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(answer)"
        return Parsed(None, None, "unparsable", f"{where}: {first['msg']}")
    return Parsed(verdict.label, verdict.reason)
