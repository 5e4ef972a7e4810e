"""Batch API files: the request lines `judge --batch` uploads (and vLLM's `run_batch` reads), and the reading of
result lines (the Batch API's output and error files, or vLLM's results file) into answers.

Pure: no HTTP and no storage here. The request body is the synchronous judge's own (`chat_request`), the answer is
read by the synchronous judge's own reader (`read_completion`), so a verdict is the same whichever way it came. A
result line that cannot be read is reported as a `BadLine` and never becomes a verdict.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from judgecal.judge._backend import Answer, chat_request, read_completion
from judgecal.judge._runner import VerdictKey

BATCH_ENDPOINT = "/v1/chat/completions"
# OpenAI's limits per batch: 50,000 requests and a 200 MB input file; bigger runs are split into several batches.
MAX_REQUESTS_PER_BATCH = 50_000
MAX_FILE_BYTES = 190_000_000

# Stored causes of a request a batch did not answer (verdicts.error). Never rename one.
BATCH_CAUSES = (
    "batch_expired",    # the batch's 24 h window closed before this request ran
    "batch_cancelled",  # the batch was cancelled before this request ran
    "batch_failed",     # the endpoint refused the whole batch (e.g. its input file did not validate)
    "batch_missing",    # the batch finished and returned nothing readable for this request
    "batch_conflict",   # the batch returned two different answers for this request: neither is a verdict
    "batch_gone",       # the endpoint no longer has the batch or its results file (HTTP 404): asked again by a re-run
)
# A batch in one of these states will not change any more.
TERMINAL = ("completed", "expired", "cancelled", "failed")


def custom_id(key: VerdictKey) -> str:
    """The request's custom_id: the verdict cache key as compact JSON, so no id can make two keys collide."""
    return json.dumps(list(key), ensure_ascii=False, separators=(",", ":"))


def key_of(cid: Any) -> VerdictKey:
    """The verdict key a custom_id names; ValueError when it names none."""
    if not isinstance(cid, str):
        raise ValueError("custom_id is not a string")
    try:
        parts = json.loads(cid)
    except json.JSONDecodeError:
        raise ValueError("custom_id is not a judgecal verdict key") from None
    if (not isinstance(parts, list) or len(parts) != 5 or not all(isinstance(p, str) and p for p in parts[:4])
            or not isinstance(parts[4], int) or isinstance(parts[4], bool) or parts[4] < 0):
        raise ValueError("custom_id is not a judgecal verdict key")
    return VerdictKey(*parts)


def request_line(key: VerdictKey, body: dict[str, Any]) -> str:
    """One line of a Batch API request file (JSONL)."""
    return json.dumps({"custom_id": custom_id(key), "method": "POST", "url": BATCH_ENDPOINT, "body": body},
                      ensure_ascii=False, separators=(",", ":"))


class RequestTask(NamedTuple):
    key: VerdictKey
    prompt: str
    labels: tuple[str, ...]


def request_lines(tasks: Iterable[RequestTask], *, model: str, temperature: float = 0.0,
                  seed: int | None = 0) -> Iterator[str]:
    """The request line of every task, its body built by the synchronous judge's request builder."""
    for t in tasks:
        yield request_line(t.key, chat_request(model, t.prompt, t.labels, temperature=temperature, seed=seed))


class BadLine(NamedTuple):
    """A result line that names no request it answers (not JSON, no or a foreign custom_id)."""

    line: int
    field: str
    message: str


class Result(NamedTuple):
    key: VerdictKey
    answer: Answer
    line: int


def _status_cause(status: int) -> str:
    # The synchronous judge's table (judge._endpoint): the same HTTP status is stored under the same cause.
    return "rate_limit" if status == 429 else "server_error" if status >= 500 else "api_error"


def _error_answer(cause: str, detail: str, usage: Any = None,
                  redact: Callable[[str | None], str | None] = lambda text: text) -> Answer:
    usage = usage if isinstance(usage, dict) else {}
    tokens_in, tokens_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return Answer(None, None, cause, (redact(detail) or "")[:2000], None,  # redacted before it is cut
                  tokens_in if isinstance(tokens_in, int) else None,
                  tokens_out if isinstance(tokens_out, int) else None, None)


def _message(err: Any) -> str:
    if isinstance(err, dict):
        inner = err.get("error", err)
        if isinstance(inner, dict):
            return f"{inner.get('code') or inner.get('type') or 'error'}: {inner.get('message') or ''}".strip()
    return str(err)


def read_result(data: dict[str, Any], labels: tuple[str, ...],
                redact: Callable[[str | None], str | None] | None = None) -> Answer:
    """The answer one result line carries: a request-level error (e.g. `batch_expired`) or a non-200 response is an
    error row by cause; a 200 is read exactly as a synchronous response (an unreadable body is `unparsable`).
    `redact`: the endpoint's (`Endpoint.redact`), applied to every text kept, as the synchronous judge applies it:
    an endpoint that echoes the API key in an answer or an error message must not put it in the project."""
    redact = redact or (lambda text: text)
    from openai.types.chat import ChatCompletion  # noqa: PLC0415 — the SDK's own type, as a synchronous call builds
    from pydantic import ValidationError  # noqa: PLC0415

    error, response = data.get("error"), data.get("response")
    if error:
        code = error.get("code") if isinstance(error, dict) else None
        # vLLM's run_batch puts a failed request's error object here beside `response.status_code` (a 500 was
        # stored as api_error: a review, wave 18); OpenAI's files use `error` for requests that never ran.
        status = response.get("status_code") if isinstance(response, dict) else None
        cause = (code if code in BATCH_CAUSES else _status_cause(status)
                 if isinstance(status, int) and not isinstance(status, bool) and status != 200 else "api_error")
        return _error_answer(cause, f"batch request error: {_message(error)}", redact=redact)
    if not isinstance(response, dict):
        return _error_answer("unparsable", "result line has neither a response nor an error", redact=redact)
    status, body = response.get("status_code"), response.get("body")
    if not isinstance(status, int) or isinstance(status, bool):
        return _error_answer("unparsable", "response.status_code is not a number", redact=redact)
    if status != 200:
        return _error_answer(_status_cause(status), f"HTTP {status}: {_message(body)}",
                             body.get("usage") if isinstance(body, dict) else None, redact=redact)
    if not isinstance(body, dict):
        return _error_answer("unparsable", "response.body is not a JSON object", redact=redact)
    try:
        completion = ChatCompletion.model_validate(body)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(body)"
        return _error_answer("unparsable", f"response body: {where}: {first['msg']}", body.get("usage"), redact=redact)
    if not completion.choices:
        return _error_answer("unparsable", "response has no choices", body.get("usage"), redact=redact)
    # Every request line asks for json_schema (no fallback inside a batch: the endpoint serves it or fails the line).
    return read_completion(completion, labels, "json_schema", None, redact)


def read_results(text: str, labels_of: dict[VerdictKey, tuple[str, ...]],
                 redact: Callable[[str | None], str | None] | None = None) -> Iterator[Result | BadLine]:
    """Every line of a results file (JSONL) as a Result for a key in `labels_of` (the requests this batch asked),
    or a BadLine. Blank lines are skipped."""
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield BadLine(n, "(line)", f"not JSON: {exc.msg} at column {exc.colno}")
            continue
        if not isinstance(data, dict):
            yield BadLine(n, "(line)", "not a JSON object")
            continue
        try:
            key = key_of(data.get("custom_id"))
        except ValueError as exc:
            yield BadLine(n, "custom_id", str(exc))
            continue
        labels = labels_of.get(key)
        if labels is None:
            yield BadLine(n, "custom_id", "names a request this batch did not ask")
            continue
        yield Result(key, read_result(data, labels, redact), n)
