"""Judge backends: any OpenAI-compatible chat-completions endpoint through the `openai` SDK.

One client is shared by all worker threads (its connection pool is sized to the concurrency). The SDK does the
retrying: it honours Retry-After on 429/503 and backs off on 5xx and connection errors, up to `max_retries`.
What is left after retries becomes an error answer with a cause; nothing here raises for a single bad request,
except configuration failures that would fail every request (`FatalBackendError`).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol
from urllib.parse import quote

from judge._verdict import parse_answer, response_format_json_schema

KEY_HEADER = "X-Judgecal-Key"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 4


class Answer(NamedTuple):
    """What a backend returns for one request: a label and reason, or an error cause with detail."""

    label: str | None
    reason: str | None
    error: str | None
    error_detail: str | None
    raw: str | None
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: float


class FatalBackendError(RuntimeError):
    """A failure every request would hit (bad key, unknown model, unreachable configuration): stop the batch."""


class Backend(Protocol):
    model: str
    name: str

    def judge(self, prompt: str, labels: tuple[str, ...], key: str = "") -> Answer: ...

    def settings(self) -> dict[str, Any]:
        """Settings recorded with the batch (never secrets)."""
        ...

    def close(self) -> None: ...


class _EndpointMemory:
    """Which endpoints refused a request feature (json_schema, seed), remembered for the process so only the first
    request to such an endpoint pays for the refusal. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refused: set[tuple[str, str]] = set()

    def refused(self, endpoint: str, feature: str) -> bool:
        return (endpoint, feature) in self._refused  # set membership is atomic under the GIL

    def remember(self, endpoint: str, feature: str) -> None:
        with self._lock:
            self._refused.add((endpoint, feature))

    def forget(self) -> None:
        with self._lock:
            self._refused.clear()


ENDPOINTS = _EndpointMemory()


def _mentions(exc: Exception, *words: str) -> bool:
    text = str(exc).lower()
    body = getattr(exc, "body", None)
    if body is not None:
        text += " " + str(body).lower()
    return any(w in text for w in words)


@dataclass
class OpenAIBackend:
    """Chat completions with structured output. `api_key` is used for requests only: `settings()` leaves it out,
    and it appears in no answer, error detail or log line."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    seed: int | None = 0
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    concurrency: int = 8
    name: str = "openai"

    def __post_init__(self) -> None:
        import httpx2
        import openai

        self.base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url:
                key = "no-key"  # local servers (llama.cpp, vLLM) ignore it, the SDK insists on one
            else:
                raise FatalBackendError("no API key: set OPENAI_API_KEY (or give --base-url of a server without keys)")
        limits = httpx2.Limits(max_connections=max(self.concurrency * 2, 16),
                               max_keepalive_connections=max(self.concurrency * 2, 16))
        self._client = openai.OpenAI(
            api_key=key, base_url=self.base_url, timeout=self.timeout_s, max_retries=self.max_retries,
            http_client=openai.DefaultHttpxClient(limits=limits, timeout=self.timeout_s),
        )
        self._endpoint = str(self._client.base_url)
        self._openai = openai
        # Kept only to scrub it from error text: some proxies echo the bearer token in their error messages, and
        # the SDK hands that text on (it would land in error_detail, run records and on stderr).
        self._secret = key if len(key) >= 8 else None

    def redact(self, text: str | None) -> str | None:
        """`text` with the API key replaced (error details and answers pass through this before they are kept)."""
        if text is None or self._secret is None or self._secret not in text:
            return text
        return text.replace(self._secret, "[API key redacted]")

    def settings(self) -> dict[str, Any]:
        return {
            "backend": self.name, "model": self.model, "base_url": self._endpoint, "temperature": self.temperature,
            "seed": self.seed, "timeout_s": self.timeout_s, "max_retries": self.max_retries,
            "json_schema": not ENDPOINTS.refused(self._endpoint, "json_schema"),
        }

    def close(self) -> None:
        self._client.close()

    def _request(self, prompt: str, labels: tuple[str, ...], key: str) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
        }
        if self.seed is not None and not ENDPOINTS.refused(self._endpoint, "seed"):
            kwargs["seed"] = self.seed
        if ENDPOINTS.refused(self._endpoint, "json_schema"):
            kwargs["response_format"] = {"type": "json_object"}
        else:
            kwargs["response_format"] = response_format_json_schema(labels)
        if key:
            # Which verdict a request is for, for server-side logs and tests; a header changes nothing in the prompt.
            kwargs["extra_headers"] = {KEY_HEADER: key}
        while True:
            try:
                return self._client.chat.completions.create(**kwargs)
            except self._openai.BadRequestError as exc:
                # llama.cpp's server refuses json_schema with a 400: fall back to json_object + our own validation,
                # once per endpoint. Same for servers that refuse `seed`.
                if kwargs["response_format"]["type"] == "json_schema" and _mentions(exc, "json_schema", "response_format"):
                    ENDPOINTS.remember(self._endpoint, "json_schema")
                    kwargs["response_format"] = {"type": "json_object"}
                    continue
                if "seed" in kwargs and _mentions(exc, "seed"):
                    ENDPOINTS.remember(self._endpoint, "seed")
                    del kwargs["seed"]
                    continue
                raise

    def judge(self, prompt: str, labels: tuple[str, ...], key: str = "") -> Answer:
        openai = self._openai
        start = time.perf_counter()

        def failed(cause: str, detail: str) -> Answer:
            return Answer(None, None, cause, self.redact(detail), None, None, None, (time.perf_counter() - start) * 1000)

        try:
            completion = self._request(prompt, labels, key)
        except openai.APITimeoutError:
            return failed("timeout", f"no answer within {self.timeout_s:g} s (after {self.max_retries} retries)")
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
            raise FatalBackendError(self.redact(f"{type(exc).__name__} (HTTP {exc.status_code}): {exc.message}")) from None
        except openai.RateLimitError as exc:
            return failed("rate_limit", f"HTTP 429 after {self.max_retries} retries: {exc.message}")
        except openai.APIStatusError as exc:
            cause = "server_error" if exc.status_code >= 500 else "api_error"
            return failed(cause, f"HTTP {exc.status_code} after {self.max_retries} retries: {exc.message}"[:2000])
        except openai.APIConnectionError as exc:
            return failed("connection", f"{type(exc).__name__}: {exc}"[:2000])
        except ValueError as exc:  # the SDK could not decode the response body
            return failed("unparsable", f"response body: {exc}"[:2000])
        latency_ms = (time.perf_counter() - start) * 1000
        usage = getattr(completion, "usage", None)
        tokens_in = getattr(usage, "prompt_tokens", None)
        tokens_out = getattr(usage, "completion_tokens", None)
        choices = getattr(completion, "choices", None) or []
        if not choices:
            return Answer(None, None, "unparsable", "response has no choices", None, tokens_in, tokens_out, latency_ms)
        message = choices[0].message
        if getattr(message, "refusal", None):
            refusal = self.redact(message.refusal)
            return Answer(None, None, "refusal", refusal[:2000], refusal, tokens_in, tokens_out, latency_ms)
        content = message.content
        parsed = parse_answer(content, labels)
        if parsed.error and choices[0].finish_reason == "length":
            parsed = parsed._replace(error_detail=f"{parsed.error_detail} (answer cut off at the token limit)")
        return Answer(parsed.label, self.redact(parsed.reason), parsed.error, self.redact(parsed.error_detail),
                      self.redact(content), tokens_in, tokens_out, latency_ms)


def verdict_key_header(run_record_id: str, constraint_id: str, repeat: int) -> str:
    """Header value naming the verdict a request is for: percent-encoded ids and the repeat, '|'-separated."""
    return f"{quote(run_record_id, safe='')}|{quote(constraint_id, safe='')}|{repeat}"
