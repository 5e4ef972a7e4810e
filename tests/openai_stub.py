"""A local OpenAI-compatible chat-completions server for tests and benches.

Real HTTP on 127.0.0.1 (port 0 = a free port), HTTP/1.1 keep-alive, one thread per connection, so the real
`openai` SDK — its client, retries and Retry-After handling — is exercised end to end (openai 3.x uses httpx2, which
respx-style mocks do not intercept).

Behaviour is a *responder*: a function `(StubRequest) -> Reply`. Ready-made ones cover the judge's cases, and
compose (`rate_limited(2, then=verdicts(...))`):

    verdicts(fn)              answer {"label", "reason"} from fn(request) (default: the first allowed label)
    by_position(label)        pairwise: always the same slot (output_1 = whatever is shown first)
    prefers(marker)           pairwise: the slot whose text contains marker, wherever it is shown
    rate_limited(n, ...)      429 with Retry-After for the first n requests, then `then`
    always(status)            an error status on every request (500: the SDK retries until it gives up)
    garbage()                 200 with content that is not JSON
    reject_json_schema(then)  400 like llama.cpp's server for response_format json_schema; `then` otherwise
    refusal(text)             a message with `refusal` set
    hang(seconds, then)       no answer for `seconds` (a hanging endpoint), then `then`
    tool_calls([...])         a message with tool calls (for agent-runner tests)
    agent_script(fn)          per conversation round: fn(request, round) -> final text, tool calls, or a Reply

Every request is recorded (`server.requests`: body, headers, the verdict key header). As a script it runs in its own
process and prints its URL on the first line of stdout:

    python tests/openai_stub.py --latency 0.3 [--log requests.log] [--answer first|pass|fail] [--hang SECONDS]
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

KEY_HEADER = "X-Judgecal-Key"


@dataclass
class StubRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    n: int  # 0-based arrival number

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))

    @property
    def key(self) -> str | None:
        return self.headers.get(KEY_HEADER.lower())

    @property
    def labels(self) -> list[str]:
        """The allowed labels from the json_schema enum, else parsed from the prompt's 'Allowed labels:' line."""
        rf = self.body.get("response_format") or {}
        try:
            return list(rf["json_schema"]["schema"]["properties"]["label"]["enum"])
        except (KeyError, TypeError):
            pass
        for line in self.prompt.splitlines():
            if line.startswith("Allowed labels:"):
                return [x.strip() for x in line.split(":", 1)[1].split(",")]
        return ["pass", "fail"]

    @property
    def round(self) -> int:
        """0-based round of an agent conversation: how many assistant turns the request already carries."""
        return sum(1 for m in self.body.get("messages", []) if m.get("role") == "assistant")

    @property
    def tool_results(self) -> list[str]:
        """Contents of the `tool` messages in the request, in order."""
        return [str(m.get("content")) for m in self.body.get("messages", []) if m.get("role") == "tool"]


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # sent as is instead of JSON(body)


Responder = Callable[[StubRequest], Reply]


def chat_completion(content: str | None = None, *, refusal: str | None = None,
                    tool_calls: list[dict[str, Any]] | None = None, model: str = "stub-judge",
                    prompt_tokens: int = 100, completion_tokens: int = 20, finish_reason: str = "stop") -> dict[str, Any]:
    """A chat.completion response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls:
        message["tool_calls"] = tool_calls
        finish_reason = "tool_calls"
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def error_body(status: int, message: str, etype: str = "server_error") -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "type": etype}}


def verdicts(fn: Callable[[StubRequest], Any] | None = None) -> Responder:
    """Answer a verdict. fn returns a label (str), a dict (sent as the JSON answer) or a Reply."""

    def respond(req: StubRequest) -> Reply:
        out = fn(req) if fn is not None else req.labels[0]
        if isinstance(out, Reply):
            return out
        answer = {"label": out, "reason": "The stub says so."} if isinstance(out, str) else out
        tokens = max(1, len(req.prompt) // 4)
        return Reply(200, chat_completion(json.dumps(answer), prompt_tokens=tokens, completion_tokens=15))

    return respond


def by_position(label: str = "output_1") -> Responder:
    """A pairwise judge with pure position bias: always the same slot (output_1: whatever is shown first)."""
    return verdicts(lambda req: label)


def prefers(marker: str) -> Responder:
    """A pairwise judge without position bias: picks the slot whose text contains `marker` (output_1 when both or
    neither do), wherever it is shown."""

    def pick(req: StubRequest) -> str:
        prompt = req.prompt
        first, _, second = prompt.partition("[Output 2]")
        return "output_2" if marker in second and marker not in first.rpartition("[Output 1]")[2] else "output_1"

    return verdicts(pick)


def rate_limited(times: int, retry_after: float = 0.05, then: Responder | None = None) -> Responder:
    """429 with Retry-After (seconds) for the first `times` requests, then `then`."""
    lock = threading.Lock()
    count = [0]
    then = then or verdicts()

    def respond(req: StubRequest) -> Reply:
        with lock:
            count[0] += 1
            limited = count[0] <= times
        if limited:
            return Reply(429, error_body(429, "Rate limit reached", "rate_limit_error"),
                         {"Retry-After": f"{retry_after:g}"})
        return then(req)

    return respond


def always(status: int, message: str = "internal error") -> Responder:
    return lambda req: Reply(status, error_body(status, message))


def garbage(content: str = "The output passes, I think. {label: pass") -> Responder:
    return lambda req: Reply(200, chat_completion(content))


def refusal(text: str = "I can't help with that.") -> Responder:
    return lambda req: Reply(200, chat_completion(None, refusal=text))


def tool_calls(calls: list[dict[str, Any]]) -> Responder:
    """calls: [{"name": ..., "arguments": {...}}] -> a message asking for those tool calls."""
    body = [{"id": f"call_{n}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
            for n, c in enumerate(calls)]
    return lambda req: Reply(200, chat_completion(None, tool_calls=body))


def agent_script(fn: Callable[[StubRequest, int], Any]) -> Responder:
    """A scripted agent model. For each request, fn(request, round) (round = assistant turns so far) returns:
    a str (final answer), a Reply (sent as is), or {"tool_calls": [{"name", "arguments"}], "content": optional}
    where "arguments" is a dict (sent as JSON) or a str (sent verbatim, e.g. broken JSON). Stateless across
    requests, so concurrent conversations do not interfere."""

    def respond(req: StubRequest) -> Reply:
        out = fn(req, req.round)
        if isinstance(out, Reply):
            return out
        if isinstance(out, str):
            return Reply(200, chat_completion(out, prompt_tokens=max(1, len(req.prompt) // 4), completion_tokens=10))
        calls = [{"id": f"call_{req.round}_{n}", "type": "function",
                  "function": {"name": c["name"], "arguments": c["arguments"] if isinstance(c.get("arguments"), str)
                               else json.dumps(c.get("arguments", {}))}}
                 for n, c in enumerate(out["tool_calls"])]
        return Reply(200, chat_completion(out.get("content"), tool_calls=calls,
                                          prompt_tokens=max(1, len(req.prompt) // 4), completion_tokens=10))

    return respond


def hang(seconds: float = 3600.0, then: Responder | None = None) -> Responder:
    """A hanging endpoint: the request is received (and logged), then nothing for `seconds`, then `then`."""
    then = then or verdicts()

    def respond(req: StubRequest) -> Reply:
        time.sleep(seconds)
        return then(req)

    return respond


def reject_json_schema(then: Responder | None = None) -> Responder:
    """Like llama.cpp's server: response_format json_schema is a 400; json_object and plain text are served."""
    then = then or verdicts()

    def respond(req: StubRequest) -> Reply:
        rf = req.body.get("response_format") or {}
        if rf.get("type") == "json_schema":
            return Reply(400, error_body(400, 'response_format type must be one of "text" or "json_object", but got: json_schema',
                                         "invalid_request_error"))
        return then(req)

    return respond


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the SDK's pool reuses connections
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 — silence per-request logging
        pass

    def do_POST(self) -> None:  # noqa: N802
        if self.server.stub.batch_api is not None and self.server.stub.batch_api.serves(self.path):
            return self.server.stub.batch_api.handle(self, "POST")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {"_unparsable": raw.decode("utf-8", "replace")}
        stub = self.server.stub
        req = stub._record(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        if stub.latency:
            time.sleep(stub.latency)
        reply = stub.responder(req)
        payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
        head = [f"HTTP/1.1 {reply.status} {'OK' if reply.status == 200 else 'Error'}",
                "Content-Type: application/json", f"Content-Length: {len(payload)}"]
        head += [f"{k}: {v}" for k, v in reply.headers.items()]
        # One write for head and body: split writes plus Nagle/delayed ACK would add ~40 ms per request.
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)

    def do_GET(self) -> None:  # noqa: N802
        if self.server.stub.batch_api is not None and self.server.stub.batch_api.serves(self.path):
            return self.server.stub.batch_api.handle(self, "GET")
        payload = json.dumps({"object": "list", "data": [{"id": "stub-judge", "object": "model"}]}).encode()
        self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode() + payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 drops connections when a pool opens dozens at once
    stub: StubServer


class StubServer:
    """The server. Use as a context manager; `url` is the base URL to give the SDK (ends in /v1)."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0, log_path: str | None = None,
                 keep_bodies: bool = True, batch_api: Any = None):
        self.responder = responder or verdicts()
        # The files and batches endpoints (tests/openai_batch_stub.py's FakeBatchAPI), when given.
        self.batch_api = batch_api
        if batch_api is not None:
            batch_api.stub = self
        self.latency = latency
        self.requests: list[StubRequest] = []
        self.keep_bodies = keep_bodies
        self._lock = threading.Lock()
        self._count = 0
        self._log = open(log_path, "a", encoding="utf-8") if log_path else None
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.stub = self
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread: threading.Thread | None = None

    def _record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> StubRequest:
        with self._lock:
            req = StubRequest(path, headers, body, self._count)
            self._count += 1
            if self.keep_bodies:
                self.requests.append(req)
            if self._log is not None:
                self._log.write(f"{req.key}\n")
                self._log.flush()
        return req

    @property
    def count(self) -> int:
        return self._count

    def start(self) -> StubServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="local OpenAI-compatible stub server")
    p.add_argument("--latency", type=float, default=0.0, help="seconds slept per request")
    p.add_argument("--log", help="append each request's verdict key header to this file, one per line")
    p.add_argument("--answer", choices=["first", "pass", "fail"], default="first")
    p.add_argument("--hang", type=float, metavar="SECONDS", help="answer nothing for SECONDS (a hanging endpoint)")
    p.add_argument("--batch-api", action="store_true", help="serve the fake files and batches endpoints too")
    args = p.parse_args(argv)
    fn = None if args.answer == "first" else (lambda req, a=args.answer: a if a in req.labels else req.labels[0])
    responder = verdicts(fn) if args.hang is None else hang(args.hang, verdicts(fn))
    batch_api = None
    if args.batch_api:
        from openai_batch_stub import FakeBatchAPI  # noqa: PLC0415 — the sibling module imports this one

        batch_api = FakeBatchAPI(polls=1)
    server = StubServer(responder, latency=args.latency, log_path=args.log, keep_bodies=False, batch_api=batch_api)
    print(server.url, flush=True)
    server._httpd.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    sys.exit(main())
