"""One OpenAI-compatible endpoint: the configured client, what may be shown of it, what it refuses, and what a failed
request is called. The judge's backend and the model runner both go through it.

What it owns: the `openai` client (connection pool sized to the concurrency, per-request timeout, the SDK's retries
with Retry-After), redaction of secrets (the API key, credentials inside the base URL) from everything that is kept or
printed, the process-wide memory of refused request features (`json_schema`, `seed`) with their fallbacks, and the
one table from SDK exception to stored error cause. What it leaves to callers: the request body (prompt, tools,
labels), the retry cap near a deadline (`deadline=`), and what an answer means.
"""

from __future__ import annotations

import base64
import os
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 4

# The stored cause names of a failed request (verdicts.error, the prefix of a run record's error). They are exported
# and counted on the Runs page: never rename one. Callers may store a cause under their own historic name
# (`Endpoint.complete(..., cause_names=)`): the judge has always called an unreadable body `unparsable`.
ENDPOINT_CAUSES = (
    "timeout",       # no answer within the per-request timeout (after the SDK's retries)
    "rate_limit",    # HTTP 429 after the SDK's retries (which honour Retry-After)
    "server_error",  # HTTP 5xx after the SDK's retries
    "api_error",     # another HTTP 4xx (bad request)
    "connection",    # the endpoint could not be reached
    "bad_response",  # a 200 whose body is not a chat completion, or has no choices
)
REDACTED = "***"
# Query parameters whose values are credentials (matched as substrings of the lower-cased name: `api-key`, `apikey`,
# `access_token`, `sig`, `X-Amz-Credential`...). Over-redacting a harmless parameter costs nothing; missing one
# stores a secret.
_SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session|code", re.IGNORECASE)
# Free text is scrubbed of secrets at least this long: shorter strings ("a", "v1") would garble answers and hardly
# identify anyone. Structural redaction of the URL itself has no such floor.
_MIN_SECRET_LEN = 6


class FatalBackendError(RuntimeError):
    """A failure every request would hit (bad key, unknown model, unreachable configuration): stop the batch."""


class GoneError(FatalBackendError):
    """The endpoint does not know a Batch API job or file id (HTTP 404): deleted, or past its retention. Fatal to any
    call, but a job that is gone is landed with error rows instead of stopping every later run (`judge --batch`)."""


class EndpointError(Exception):
    """A request that failed after the SDK's retries; `cause` is one of ENDPOINT_CAUSES (or the caller's name for
    it), `detail` is redacted and at most 2,000 characters."""

    def __init__(self, cause: str, detail: str, usage: Any = None):
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail
        self.usage = usage  # the response's token usage, when a response came back (it is billed all the same)


class Completion(NamedTuple):
    """A chat completion and the structured-output mode the endpoint actually served it with (`json_schema`,
    `json_object` after a refusal, or None when none was asked)."""

    completion: Any
    structured_output: str | None


class EndpointMemory:
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


ENDPOINTS = EndpointMemory()


def redact_url(url: str | None) -> str | None:
    """`url` safe to store and show: userinfo (`user:pass@`) and the values of credential-like query parameters
    (`?api-key=`, `?key=`, `?token=`...) become `***`. Host, port, path and other parameters are kept, so two
    endpoints stay tellable apart."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # unparsable (e.g. a bad IPv6 literal): show nothing of it rather than risk a secret
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = REDACTED + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        query = "&".join(
            f"{piece.split('=', 1)[0]}={REDACTED}" if "=" in piece and _SECRET_PARAM.search(unquote(piece.split("=", 1)[0]))
            else piece
            for piece in query.split("&"))
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str | None) -> tuple[str, ...]:
    """The credential strings inside `url` as they may reappear in error text: userinfo (raw, decoded, and as the
    HTTP Basic token the client sends for it), password, a token given as user name, credential query values."""
    if not url:
        return ()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    found: list[str] = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        user, _, password = userinfo.partition(":")
        found += [userinfo, unquote(userinfo), password, unquote(password)]
        if not password:  # https://TOKEN@host: the user name is the secret
            found += [user, unquote(user)]
        found.append(base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode())
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if _SECRET_PARAM.search(name):
            found += [value, quote(value, safe=""), quote(value)]
    return tuple(dict.fromkeys(s for s in found if len(s) >= _MIN_SECRET_LEN))


def _split_query(url: str | None) -> tuple[str | None, dict[str, str] | None]:
    """`url` without its query, and the query's parameters (None when it has none)."""
    if not url:
        return url, None
    parts = urlsplit(url)
    if not parts.query:
        return url, None
    return urlunsplit(parts._replace(query="")), dict(parse_qsl(parts.query, keep_blank_values=True))


def _mentions(exc: Exception, *words: str) -> bool:
    text = str(exc).lower()
    body = getattr(exc, "body", None)
    if body is not None:
        text += " " + str(body).lower()
    return any(w in text for w in words)


@dataclass
class Endpoint:
    """A configured client for one OpenAI-compatible endpoint. `api_key` and the credentials in `base_url` are used
    for requests only: `settings()` shows the redacted URL, and `redact()` scrubs both from any text before it is
    kept. Thread-safe: one endpoint, many workers."""

    base_url: str | None = field(default=None, repr=False)  # may hold credentials: `url` is the one to show
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    concurrency: int = 8

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
        # The SDK appends the route to the base URL as a string, so a query in it would end up in front of
        # "chat/completions" (`/v1/?api-key=Kchat/completions`): send it as the client's default query instead.
        try:
            base, query = _split_query(self.base_url)
            self._client = openai.OpenAI(
                api_key=key, base_url=base, default_query=query, timeout=self.timeout_s, max_retries=self.max_retries,
                http_client=openai.DefaultHttpxClient(limits=limits, timeout=self.timeout_s),
            )
        except Exception as exc:  # noqa: BLE001 — a URL the SDK or httpx cannot use; every request would fail
            # The message may quote the URL: show it redacted, and nothing of the original exception.
            shown = redact_url(self.base_url)
            raise FatalBackendError(f"invalid base URL {shown}: {type(exc).__name__}") from None
        self._openai = openai
        # The capability memory's key; process memory only, never stored or shown.
        self._key = str(self._client.base_url)
        # Kept only to scrub them from text: some proxies echo the bearer token (or the Basic credentials of a
        # user:pass@ URL) in their error messages, and the SDK hands that text on (it would land in error_detail,
        # run records and on stderr).
        marks = {s: "[credential redacted]" for s in url_secrets(self.base_url) + url_secrets(self._key)}
        if len(key) >= 8:
            marks[key] = "[API key redacted]"
        # Longest first, so a secret that contains another is replaced whole.
        self._secrets = tuple(sorted(marks.items(), key=lambda kv: len(kv[0]), reverse=True))
        # The URL may be shown in full except for its secrets (scrubbed again in case a secret sits in the path).
        shown = self._key + ("?" + urlsplit(self.base_url).query if query else "")
        self.url = self.redact(redact_url(shown)) or ""

    def redact(self, text: str | None) -> str | None:
        """`text` with the API key and the base URL's credentials replaced (error details, answers and anything
        printed pass through this before they are kept)."""
        if not text:
            return text
        for secret, mark in self._secrets:
            if secret in text:
                text = text.replace(secret, mark)
        return text

    def settings(self) -> dict[str, Any]:
        """What a batch records of the endpoint (never a secret)."""
        return {"base_url": self.url, "timeout_s": self.timeout_s, "max_retries": self.max_retries}

    def refuses(self, feature: str) -> bool:
        """Whether this endpoint refused `feature` (`json_schema`, `seed`) earlier in the process."""
        return ENDPOINTS.refused(self._key, feature)

    def close(self) -> None:
        self._client.close()

    def complete(self, kwargs: dict[str, Any], *, deadline: float | None = None,
                 cause_names: dict[str, str] | None = None) -> Completion:
        """One chat completion for `kwargs` (the SDK's create arguments; `seed` and a json_schema `response_format`
        are dropped / downgraded to json_object where the endpoint refused them, once per process).

        `deadline` (time.monotonic()): the request timeout is capped to the time left, and when the cap bites the
        SDK's retries are skipped — with their backoff they would all land after the deadline. A failure raises
        EndpointError (cause from ENDPOINT_CAUSES, renamed by `cause_names`); a failure every request would hit
        raises FatalBackendError."""
        kwargs = dict(kwargs)
        if "seed" in kwargs and self.refuses("seed"):
            del kwargs["seed"]
        rf = kwargs.get("response_format")
        if rf is not None and rf.get("type") == "json_schema" and self.refuses("json_schema"):
            kwargs["response_format"] = {"type": "json_object"}
        timeout, retries, client = self.timeout_s, self.max_retries, self._client
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining < self.timeout_s:
                timeout, retries = max(remaining, 0.001), 0
                client = client.with_options(max_retries=0)
            kwargs["timeout"] = timeout
        names = cause_names or {}

        def failed(cause: str, detail: str, usage: Any = None) -> EndpointError:
            return EndpointError(names.get(cause, cause), (self.redact(detail) or "")[:2000], usage)

        openai = self._openai
        try:
            completion = self._create(client, kwargs)
        except openai.APITimeoutError:
            raise failed("timeout", f"no answer within {timeout:g} s (after {retries} retries)") from None
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
            raise FatalBackendError(self.redact(f"{type(exc).__name__} (HTTP {exc.status_code}): {exc.message}")) from None
        except openai.RateLimitError as exc:
            raise failed("rate_limit", f"HTTP 429 after {retries} retries: {exc.message}") from None
        except openai.APIStatusError as exc:
            cause = "server_error" if exc.status_code >= 500 else "api_error"
            raise failed(cause, f"HTTP {exc.status_code} after {retries} retries: {exc.message}") from None
        except openai.APIConnectionError as exc:
            raise failed("connection", f"{type(exc).__name__}: {exc}") from None
        except ValueError as exc:  # the SDK could not decode the response body
            raise failed("bad_response", f"response body: {exc}") from None
        if not getattr(completion, "choices", None):
            raise failed("bad_response", "response has no choices", getattr(completion, "usage", None))
        used = kwargs.get("response_format")
        return Completion(completion, used["type"] if used else None)

    def _create(self, client: Any, kwargs: dict[str, Any]) -> Any:
        while True:
            try:
                return client.chat.completions.create(**kwargs)
            except self._openai.BadRequestError as exc:
                # llama.cpp's server refuses json_schema with a 400: fall back to json_object (the caller validates
                # the answer itself), once per endpoint. Same for servers that refuse `seed`.
                rf = kwargs.get("response_format")
                if rf is not None and rf.get("type") == "json_schema" and _mentions(exc, "json_schema", "response_format"):
                    ENDPOINTS.remember(self._key, "json_schema")
                    kwargs["response_format"] = {"type": "json_object"}
                    continue
                if "seed" in kwargs and _mentions(exc, "seed"):
                    ENDPOINTS.remember(self._key, "seed")
                    del kwargs["seed"]
                    continue
                raise

    # ----------------------------------------------------------------------- the Batch API (files and batches)

    def _remote(self, what: str, call: Callable[[], Any]) -> Any:
        """One files/batches call with the SDK's retries. Refused credentials or an unknown id are fatal (every
        call would fail); what is left after retries is an EndpointError with a cause from ENDPOINT_CAUSES."""
        openai = self._openai
        try:
            return call()
        except openai.NotFoundError as exc:
            raise GoneError(self.redact(f"{what}: {type(exc).__name__} (HTTP {exc.status_code}): {exc.message}")
                            ) from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise FatalBackendError(self.redact(f"{what}: {type(exc).__name__} (HTTP {exc.status_code}): {exc.message}")) from None
        except openai.APITimeoutError:
            raise EndpointError("timeout", f"{what}: no answer within {self.timeout_s:g} s") from None
        except openai.RateLimitError as exc:
            raise EndpointError("rate_limit", self.redact(f"{what}: HTTP 429: {exc.message}") or "") from None
        except openai.APIStatusError as exc:
            cause = "server_error" if exc.status_code >= 500 else "api_error"
            raise EndpointError(cause, self.redact(f"{what}: HTTP {exc.status_code}: {exc.message}") or "") from None
        except openai.APIConnectionError as exc:
            raise EndpointError("connection", self.redact(f"{what}: {type(exc).__name__}: {exc}") or "") from None

    def upload_batch_file(self, name: str, content: bytes) -> str:
        """Upload a Batch API request file (purpose `batch`); returns the file id."""
        return self._remote("upload", lambda: self._client.files.create(file=(name, content), purpose="batch")).id

    def create_batch(self, input_file_id: str, metadata: dict[str, str] | None = None) -> Any:
        """Start a Batch API job over chat completions with a 24 h completion window; returns the SDK's Batch."""
        return self._remote("create batch", lambda: self._client.batches.create(
            input_file_id=input_file_id, endpoint="/v1/chat/completions", completion_window="24h",
            **({"metadata": metadata} if metadata else {})))

    def get_batch(self, batch_id: str) -> Any:
        """The Batch API job `batch_id` as the endpoint reports it now (status, request counts, file ids)."""
        return self._remote("poll batch", lambda: self._client.batches.retrieve(batch_id))

    def get_file(self, file_id: str) -> Any:
        """The file `file_id` as the endpoint describes it (GoneError when it does not know it)."""
        return self._remote("look up file", lambda: self._client.files.retrieve(file_id))

    def download_file(self, file_id: str) -> bytes:
        """The content of a file (a batch's output or error file)."""
        return self._remote("download", lambda: self._client.files.content(file_id).content)
