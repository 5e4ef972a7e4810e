"""Judge backends: any OpenAI-compatible chat-completions endpoint, through the one endpoint adapter (`Endpoint`).

The adapter owns the client (shared by all worker threads, its connection pool sized to the concurrency), the SDK's
retrying (Retry-After on 429/503, backoff on 5xx and connection errors, up to `max_retries`), redaction, the
json_schema / seed fallbacks and the cause table. What is left after retries becomes an error answer with a cause;
nothing here raises for a single bad request, except configuration failures that would fail every request
(`FatalBackendError`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Protocol
from urllib.parse import quote

from judgecal.judge._endpoint import (  # noqa: F401 — DEFAULT_* and ENDPOINTS are re-exported for existing importers
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    ENDPOINTS,
    Endpoint,
    EndpointError,
    FatalBackendError,
)
from judgecal.judge._verdict import parse_answer, response_format_json_schema

KEY_HEADER = "X-Judgecal-Key"
# The judge has always stored an unreadable response body under the same cause as an unreadable answer.
JUDGE_CAUSE_NAMES = {"bad_response": "unparsable"}


class Answer(NamedTuple):
    """What a backend returns for one request: a label and reason, or an error cause with detail."""

    label: str | None
    reason: str | None
    error: str | None
    error_detail: str | None
    raw: str | None
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: float | None  # None: not measured (a Batch API result has no per-request latency)
    # The response_format the endpoint actually served (json_schema, or json_object after it refused json_schema);
    # None when no response came back or the backend has no such notion.
    structured_output: str | None = None


class Backend(Protocol):
    model: str
    name: str

    def judge(self, prompt: str, labels: tuple[str, ...], key: str = "") -> Answer: ...

    def settings(self) -> dict[str, Any]:
        """Settings recorded with the batch (never secrets)."""
        ...

    def close(self) -> None: ...


@dataclass
class OpenAIBackend:
    """Chat completions with structured output through an `Endpoint`. `api_key` and credentials inside `base_url`
    are used for requests only: `settings()` leaves them out, and they appear in no answer, error detail or log line."""

    model: str
    base_url: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    seed: int | None = 0
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    concurrency: int = 8
    name: str = "openai"

    def __post_init__(self) -> None:
        self.endpoint = Endpoint(base_url=self.base_url, api_key=self.api_key, timeout_s=self.timeout_s,
                                 max_retries=self.max_retries, concurrency=self.concurrency)
        self.base_url = self.endpoint.base_url

    def redact(self, text: str | None) -> str | None:
        """`text` with the API key and the base URL's credentials replaced."""
        return self.endpoint.redact(text)

    def settings(self) -> dict[str, Any]:
        # `json_schema`: what the next request will ask for (False once the endpoint refused it). What each request
        # was actually served with is counted after the fact in the batch summary (`structured_output`).
        return {"backend": self.name, "model": self.model} | self.endpoint.settings() | {
            "temperature": self.temperature, "seed": self.seed,
            "json_schema": not self.endpoint.refuses("json_schema")}

    def close(self) -> None:
        self.endpoint.close()

    def request(self, prompt: str, labels: tuple[str, ...]) -> dict[str, Any]:
        """The chat-completion request for one verdict (the SDK's create arguments): what the synchronous judge
        sends and what a Batch API request line carries as its body."""
        return chat_request(self.model, prompt, labels, temperature=self.temperature, seed=self.seed)

    def judge(self, prompt: str, labels: tuple[str, ...], key: str = "") -> Answer:
        start = time.perf_counter()
        kwargs = self.request(prompt, labels)
        if key:
            # Which verdict a request is for, for server-side logs and tests; a header changes nothing in the prompt.
            kwargs["extra_headers"] = {KEY_HEADER: key}
        try:
            completion, mode = self.endpoint.complete(kwargs, cause_names=JUDGE_CAUSE_NAMES)
        except EndpointError as exc:
            usage = exc.usage
            return Answer(None, None, exc.cause, exc.detail, None, getattr(usage, "prompt_tokens", None),
                          getattr(usage, "completion_tokens", None), (time.perf_counter() - start) * 1000)
        return read_completion(completion, labels, mode, (time.perf_counter() - start) * 1000, self.redact)


def chat_request(model: str, prompt: str, labels: tuple[str, ...], *, temperature: float = 0.0,
                 seed: int | None = 0) -> dict[str, Any]:
    """The one request builder of the judge: the synchronous judge sends it, `judge --batch` puts it in each
    request line's `body` (so a batch asks exactly what the synchronous judge would)."""
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": temperature,
        "response_format": response_format_json_schema(labels),
    }
    if seed is not None:
        kwargs["seed"] = seed
    return kwargs


def read_completion(completion: Any, labels: tuple[str, ...], mode: str | None, latency_ms: float | None,
                    redact: Callable[[str | None], str | None] = lambda text: text) -> Answer:
    """The answer in a chat completion (an SDK object with choices): a refusal, a label and reason, or an
    unparsable / bad_label error. The one reading of a judge answer, for synchronous and Batch API results alike."""
    usage = getattr(completion, "usage", None)
    tokens_in = getattr(usage, "prompt_tokens", None)
    tokens_out = getattr(usage, "completion_tokens", None)
    choice = completion.choices[0]
    message = choice.message
    if getattr(message, "refusal", None):
        refusal = redact(message.refusal) or ""
        return Answer(None, None, "refusal", refusal[:2000], refusal, tokens_in, tokens_out, latency_ms, mode)
    content = message.content
    parsed = parse_answer(content, labels)
    if parsed.error and choice.finish_reason == "length":
        parsed = parsed._replace(error_detail=f"{parsed.error_detail} (answer cut off at the token limit)")
    return Answer(label=parsed.label, reason=redact(parsed.reason), error=parsed.error,
                  error_detail=redact(parsed.error_detail), raw=redact(content),
                  input_tokens=tokens_in, output_tokens=tokens_out, latency_ms=latency_ms,  # type: ignore[arg-type]
                  structured_output=mode)


def verdict_key_header(run_record_id: str, constraint_id: str, repeat: int) -> str:
    """Header value naming the verdict a request is for: percent-encoded ids and the repeat, '|'-separated."""
    return f"{quote(run_record_id, safe='')}|{quote(constraint_id, safe='')}|{repeat}"
