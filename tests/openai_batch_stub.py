"""A local fake of OpenAI's files and batches endpoints, served by tests/openai_stub.py's StubServer.

    api = FakeBatchAPI(polls=2)
    with StubServer(verdicts(...), batch_api=api) as server: ...

Real HTTP, so the real `openai` SDK uploads (multipart), creates, polls and downloads. Each request line of a batch
is answered by the server's responder, exactly as a synchronous request would be; the replies are written to an
output file (200) and an error file (anything else), in OpenAI's result-line format. A batch reports `validating`,
then `in_progress` for `polls` retrievals (or until `release()` when `hold=True`), then ends with `outcome`:

    completed   every request answered
    expired     the first `answered` requests answered, the rest in the error file with code `batch_expired`
    cancelled   the first `answered` requests answered, the rest left out (as OpenAI does)
    failed      the input file is refused: no output, `errors` says why

`mangle(line_no, line)` may rewrite or drop (None) an output line, to test unreadable results. `fail` maps a route
(`upload`, `create`, `retrieve`, `download`) to an HTTP status it answers with instead (e.g. {"upload": 500}).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from typing import Any, Callable

from openai_stub import StubRequest


class FakeBatchAPI:
    def __init__(self, *, polls: int = 1, outcome: str = "completed", answered: int | None = None, hold: bool = False,
                 mangle: Callable[[int, str], str | None] | None = None, fail: dict[str, int] | None = None):
        self.fail = dict(fail or {})
        self.polls = polls
        self.outcome = outcome
        self.answered = answered
        self.mangle = mangle
        self.stub: Any = None
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.uploads = 0
        self.creates = 0
        self.retrievals = 0
        self.processed = 0  # request lines answered
        self._held = threading.Event()
        if not hold:
            self._held.set()
        self._lock = threading.Lock()

    def release(self) -> None:
        """Let held batches finish at their next retrieval."""
        self._held.set()

    @staticmethod
    def serves(path: str) -> bool:
        return path.startswith(("/v1/files", "/v1/batches"))

    # ------------------------------------------------------------------- HTTP

    def handle(self, h: Any, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        path = h.path.split("?", 1)[0]
        route = ("upload" if path == "/v1/files" else "create" if path == "/v1/batches" else
                 "download" if path.endswith("/content") else "retrieve")
        if route in self.fail:
            status = self.fail[route]
            payload = json.dumps({"error": {"message": f"{route} refused", "type": "server_error"}}).encode()
            return _send(h, status, payload, "application/json")
        with self._lock:
            if method == "POST" and path == "/v1/files":
                status, body = self._upload(h.headers.get("Content-Type", ""), raw)
            elif method == "POST" and path == "/v1/batches":
                status, body = self._create(json.loads(raw or b"{}"))
            elif method == "GET" and path.startswith("/v1/batches/"):
                status, body = self._retrieve(path.rsplit("/", 1)[1])
            elif method == "GET" and path.startswith("/v1/files/") and path.count("/") == 3:
                fid = path.split("/")[3]
                status, body = ((200, {"id": fid, "object": "file", "bytes": len(self.files[fid]), "created_at": 0,
                                       "filename": "upload.jsonl", "purpose": "batch", "status": "processed"})
                                if fid in self.files else
                                (404, {"error": {"message": f"no file {fid}", "type": "invalid_request_error"}}))
            elif method == "GET" and path.startswith("/v1/files/") and path.endswith("/content"):
                fid = path.split("/")[3]
                if fid not in self.files:
                    status, body = 404, {"error": {"message": f"no file {fid}", "type": "invalid_request_error"}}
                else:
                    return _send(h, 200, self.files[fid], "application/octet-stream")
            else:
                status, body = 404, {"error": {"message": f"no route {method} {path}", "type": "invalid_request_error"}}
        _send(h, status, json.dumps(body).encode(), "application/json")

    def _upload(self, content_type: str, raw: bytes) -> tuple[int, dict[str, Any]]:
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in msg.iter_parts():
            fields[part.get_param("name", header="content-disposition")] = (part.get_filename(),
                                                                           part.get_payload(decode=True))
        if fields.get("purpose", (None, b""))[1] != b"batch" or "file" not in fields:
            return 400, {"error": {"message": "need purpose=batch and a file", "type": "invalid_request_error"}}
        self.uploads += 1
        fid = f"file-{len(self.files) + 1:04d}"
        name, content = fields["file"]
        self.files[fid] = content
        return 200, {"id": fid, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                     "filename": name or "upload.jsonl", "purpose": "batch", "status": "processed"}

    def _create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "unknown input_file_id", "type": "invalid_request_error"}}
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return 400, {"error": {"message": "unsupported endpoint or window", "type": "invalid_request_error"}}
        self.creates += 1
        bid = f"batch_{len(self.batches) + 1:04d}"
        lines = [ln for ln in self.files[body["input_file_id"]].decode().splitlines() if ln.strip()]
        self.batches[bid] = {
            "id": bid, "object": "batch", "endpoint": body["endpoint"], "errors": None,
            "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "validating",
            "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"), "_polls": 0,
        }
        return 200, self._public(bid)

    def _public(self, bid: str) -> dict[str, Any]:
        return {k: v for k, v in self.batches[bid].items() if not k.startswith("_")}

    def _retrieve(self, bid: str) -> tuple[int, dict[str, Any]]:
        if bid not in self.batches:
            return 404, {"error": {"message": f"no batch {bid}", "type": "invalid_request_error"}}
        self.retrievals += 1
        b = self.batches[bid]
        if b["status"] in ("completed", "expired", "cancelled", "failed"):
            return 200, self._public(bid)
        b["_polls"] += 1
        if b["_polls"] == 1:
            b["status"] = "in_progress"
        elif b["_polls"] > self.polls and self._held.is_set():
            self._finish(b)
        else:
            total = b["request_counts"]["total"]
            b["request_counts"]["completed"] = min(total, total * (b["_polls"] - 1) // max(self.polls, 1))
        return 200, self._public(bid)

    def _finish(self, b: dict[str, Any]) -> None:
        if self.outcome == "failed":
            b["status"] = "failed"
            b["errors"] = {"object": "list", "data": [{"code": "invalid_json_line", "line": 1,
                                                       "message": "the input file does not validate", "param": None}]}
            return
        lines = [json.loads(ln) for ln in self.files[b["input_file_id"]].decode().splitlines() if ln.strip()]
        answer_n = len(lines) if self.outcome == "completed" or self.answered is None else self.answered
        out, err = [], []
        for n, line in enumerate(lines):
            if n >= answer_n:
                if self.outcome == "expired":
                    err.append({"id": f"batch_req_{n}", "custom_id": line["custom_id"], "response": None,
                                "error": {"code": "batch_expired",
                                          "message": "This request could not be executed before the completion window expired."}})
                continue
            req = StubRequest(line["url"], {"x-batch-custom-id": line["custom_id"]}, line["body"], n)
            reply = self.stub.responder(req)
            self.processed += 1
            body: Any = json.loads(reply.raw) if reply.raw is not None and _is_json(reply.raw) else (
                reply.raw.decode("utf-8", "replace") if reply.raw is not None else reply.body)
            result = {"id": f"batch_req_{n}", "custom_id": line["custom_id"],
                      "response": {"status_code": reply.status, "request_id": f"req_{n}", "body": body},
                      "error": None}
            (out if reply.status == 200 else err).append(result)
        out_text = []
        for n, r in enumerate(out, start=1):
            text = json.dumps(r)
            if self.mangle is not None:
                text = self.mangle(n, text)
            if text is not None:
                out_text.append(text)
        b["status"] = self.outcome
        b["request_counts"] = {"total": len(lines), "completed": len(out), "failed": len(err)}
        if out_text:
            b["output_file_id"] = self._store_file("\n".join(out_text) + "\n")
        if err:
            b["error_file_id"] = self._store_file("\n".join(json.dumps(r) for r in err) + "\n")

    def _store_file(self, text: str) -> str:
        fid = f"file-{len(self.files) + 1:04d}"
        self.files[fid] = text.encode()
        return fid


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


def _send(h: Any, status: int, payload: bytes, content_type: str) -> None:
    h.wfile.write(f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\nContent-Type: {content_type}\r\n"
                  f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
