"""The one endpoint adapter (judge.Endpoint) shared by the judge and the model runner: URL redaction, one cause table,
one refused-feature memory, verdicts built by field name, the structured-output mode recorded after the fact, and
credentials inside --base-url kept out of the project file, exports, the terminal and the Runs page.

Real SDK over real HTTP against tests/openai_stub.py; real SQLite files; the Runs page through AppTest."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from judgecal import annotations as ann
from judgecal.judge import (
    ENDPOINT_CAUSES,
    Answer,
    Endpoint,
    OpenAIBackend,
    Verdict,
    VerdictKey,
    redact_url,
    run_batch,
    shipped_rubric,
)
from judgecal.cli import main
from judgecal.runner import ERROR_CAUSES, MemoryRunSink, ModelClient, RunSettings, error_cause, run_models
from judgecal.evalsets import EvalItem
from openai_stub import Reply, StubServer, error_body, reject_json_schema, verdicts
from test_judge_fixtures import make_project

APP = str(Path(__file__).resolve().parents[1] / "app.py")


# --------------------------------------------------------------------------- redaction of a base URL


@pytest.mark.parametrize("url, shown", [
    ("https://user:pa55word@api.example.com/v1", "https://***@api.example.com/v1"),
    ("https://sk-token-as-user@api.example.com:8443/v1", "https://***@api.example.com:8443/v1"),
    ("https://u:p%40ss%3Aw@host/v1", "https://***@host/v1"),  # '@' and ':' inside the password, percent-encoded
    ("https://host/v1?api-key=abc123&api-version=2024-06-01", "https://host/v1?api-key=***&api-version=2024-06-01"),
    ("https://host/v1?key=abc123", "https://host/v1?key=***"),
    ("https://host/v1?token=abc123&x=1", "https://host/v1?token=***&x=1"),
    ("https://host/v1?access_token=a&API_KEY=b&apikey=c&sig=d&X-Amz-Credential=e",
     "https://host/v1?access_token=***&API_KEY=***&apikey=***&sig=***&X-Amz-Credential=***"),
    ("https://a:b@host/v1?api-key=k#frag", "https://***@host/v1?api-key=***#frag"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),  # nothing secret: unchanged
    ("https://host/v1?api-version=2024-06-01", "https://host/v1?api-version=2024-06-01"),
], ids=["userinfo", "token-as-user", "encoded-password", "api-key", "key", "token", "many", "both", "plain",
        "harmless-query"])
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize("url", ["http://u:pw-SENTINEL-1@host:notaport/v1", "http://[::1:pw-SENTINEL-1@host/v1"])
@pytest.mark.parametrize("command", ["judge", "run"])
def test_an_unusable_base_url_is_a_clear_error_without_its_credentials(tmp_path: Path, capsys, url: str,
                                                                        command: str) -> None:
    db = make_project(tmp_path / "p.db")
    assert main(["--db", str(db), command, "--model", "m", "--base-url", url, "--api-key", "sk-x"]) == 2
    err = capsys.readouterr().err
    assert "invalid base URL" in err and "pw-SENTINEL-1" not in err and "Traceback" not in err, err


def test_redact_url_of_nothing_and_of_an_unparsable_url() -> None:
    assert redact_url(None) is None and redact_url("") == ""
    assert redact_url("http://[::1:secret@host/v1") == "***"  # urlsplit refuses it: show nothing


PASSWORD = "pw-SENTINEL-3c9d1e77"
QUERY_KEY = "qk-SENTINEL-81f0aa42"
API_KEY = "sk-SENTINEL-5be2c0d9"
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()  # what the client sends for alice:PASSWORD@
SECRETS = (PASSWORD, QUERY_KEY, API_KEY, BASIC)


def secret_url(server: StubServer) -> str:
    return server.url.replace("http://", f"http://alice:{PASSWORD}@") + f"?api-version=2024-06-01&api-key={QUERY_KEY}"


def test_endpoint_settings_and_redact_hide_every_credential() -> None:
    endpoint = Endpoint(base_url=f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY_KEY}", api_key=API_KEY)
    try:
        shown = json.dumps(endpoint.settings()) + repr(endpoint)
        assert not [s for s in SECRETS if s in shown], shown
        assert endpoint.settings()["base_url"] == "http://***@127.0.0.1:9/v1/?api-key=***"
        echoed = f"denied: Authorization: Basic {BASIC}; Bearer {API_KEY}; url ...?api-key={QUERY_KEY} pw={PASSWORD}"
        scrubbed = endpoint.redact(echoed)
        assert not [s for s in SECRETS if s in scrubbed], scrubbed
        assert "[API key redacted]" in scrubbed and "[credential redacted]" in scrubbed
        # Short or absent strings are left alone: no secret of under 6 characters is searched for in free text.
        assert endpoint.redact("pass") == "pass" and endpoint.redact(None) is None
    finally:
        endpoint.close()


# --------------------------------------------------------------------------- one cause table, one memory


def test_runner_causes_include_every_endpoint_cause() -> None:
    assert set(ENDPOINT_CAUSES) <= set(ERROR_CAUSES)


def _item() -> EvalItem:
    return EvalItem.model_validate({"id": "t-1", "instruction": "Answer.", "input": "Hi?",
                                    "constraints": [{"id": "c1", "text": "Is polite.", "type": "content"}]})


def _run_one(server: StubServer, **endpoint_kw: Any) -> str | None:
    endpoint = Endpoint(base_url=server.url, api_key="sk-test", **({"max_retries": 0, "timeout_s": 5.0} | endpoint_kw))
    sink = MemoryRunSink()
    try:
        run_models([_item()], ModelClient(model="m", endpoint=endpoint), sink, RunSettings(run_id="r"))
    finally:
        endpoint.close()
    return sink.records["r/t-1/0"].error


def _judge_one(server: StubServer) -> Answer:
    backend = OpenAIBackend(model="j", base_url=server.url, api_key="sk-test", max_retries=0, timeout_s=5.0)
    try:
        return backend.judge("Allowed labels: pass, fail", ("pass", "fail"))
    finally:
        backend.close()


@pytest.mark.parametrize("reply, cause", [
    (Reply(500, error_body(500, "boom")), "server_error"),
    (Reply(429, error_body(429, "slow down", "rate_limit_error"), {"Retry-After": "0"}), "rate_limit"),
    (Reply(400, error_body(400, "bad request", "invalid_request_error")), "api_error"),
    (Reply(200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}), "bad_response"),
], ids=["5xx", "429", "4xx", "no-choices"])
def test_judge_and_runner_name_a_failure_alike(reply: Reply, cause: str) -> None:
    """One table: the same failure gets the same stored cause from both, except that the judge has always called an
    unreadable response `unparsable` (its stored, exported name)."""
    with StubServer(lambda req: reply) as server:
        answer = _judge_one(server)
        run_error = _run_one(server)
    assert error_cause(run_error) == cause
    assert answer.error == ("unparsable" if cause == "bad_response" else cause) and answer.label is None
    assert answer.error_detail.split(":")[0] == run_error.split(": ", 1)[1].split(":")[0]  # same wording


def test_a_refused_seed_learned_by_the_judge_is_not_sent_by_the_runner() -> None:
    """The capability memory is the adapter's, shared across judge and runner in the process."""
    def no_seed(req):
        if "seed" in req.body:
            return Reply(400, error_body(400, "Unrecognized request argument supplied: seed", "invalid_request_error"))
        return verdicts()(req)

    with StubServer(no_seed) as server:
        assert _judge_one(server).label == "pass"
        assert _run_one(server) is None
        sent = ["seed" in r.body for r in server.requests]
    assert sent == [True, False, False]  # one refusal, then remembered for the runner too


def test_the_deadline_caps_timeout_and_retries() -> None:
    import time

    from judgecal.judge import EndpointError

    with StubServer(latency=1.0) as server:
        endpoint = Endpoint(base_url=server.url, api_key="sk-test", max_retries=3, timeout_s=30.0)
        start = time.monotonic()
        try:
            with pytest.raises(EndpointError) as caught:
                endpoint.complete({"model": "m", "messages": [{"role": "user", "content": "x"}]},
                                  deadline=time.monotonic() + 0.3)
        finally:
            endpoint.close()
        assert time.monotonic() - start < 1.0  # no retries with backoff after the deadline
        assert server.count == 1
    assert caught.value.cause == "timeout" and "after 0 retries" in caught.value.detail


# --------------------------------------------------------------------------- verdicts by name


def test_verdict_is_built_by_field_name_whatever_the_answer_field_order() -> None:
    """Positional construction (Verdict(*key, *answer[:5], ...)) would store a moved field in the wrong column."""
    values = {f: f"<{f}>" for f in Answer._fields}
    shuffled = NamedTuple("Shuffled", [(f, Any) for f in reversed(Answer._fields)])  # type: ignore[misc]
    key = VerdictKey(run_record_id="r", constraint_id="c", rubric_sha256="s", judge_model="m", repeat=2)
    for answer in (Answer(**values), shuffled(**values)):
        verdict = Verdict.of(key, answer)
        assert verdict._asdict() == key._asdict() | {f: f"<{f}>" for f in Verdict._fields if f not in key._fields}
        assert verdict.key == key


# --------------------------------------------------------------------------- structured output actually used


def _summaries(db: Path) -> list[dict]:
    with ann.unit_of_work(db) as conn:
        return [json.loads(r[0]) for r in conn.execute("SELECT summary FROM batches ORDER BY started_at")]


def test_structured_output_mode_is_recorded_after_the_fact(tmp_path: Path) -> None:
    db = make_project(tmp_path / "p.db")
    argv = ["--db", str(db), "judge", "--model", "judge-x", "--repeats", "1", "--max-retries", "0", "--quiet",
            "--concurrency", "1"]
    with StubServer(verdicts()) as server:
        assert main(argv + ["--base-url", server.url, "--constraint", "grounded"]) == 0
    with StubServer(reject_json_schema()) as server:
        assert main(argv + ["--base-url", server.url, "--constraint", "polite"]) == 0
        assert [r.body["response_format"]["type"] for r in server.requests] == ["json_schema"] + ["json_object"] * 3
    schema, fallback = _summaries(db)
    assert schema["structured_output"] == {"json_schema": 3}
    # The fallback was not known when the batch started; the summary says what was actually served.
    assert fallback["structured_output"] == {"json_object": 3} and fallback["verdicts"] == 3


def test_run_batch_counts_modes_and_skips_failed_requests() -> None:
    def half(req):
        return Reply(500, error_body(500, "boom")) if req.key.startswith("run-1") else verdicts()(req)

    from judgecal.judge import Pair
    from judgecal.evalsets import Constraint, RunRecord

    item = EvalItem.model_validate({"id": "i", "instruction": "x", "input": "y",
                                    "constraints": [{"id": "c", "text": "ok", "type": "content"}]})
    pairs = [Pair(RunRecord.model_validate({"id": f"run-{n}", "item_id": "i", "model": "a", "output": "o"}),
                  item, item.constraints[0]) for n in range(2)]
    assert isinstance(pairs[0].constraint, Constraint)

    class Sink:
        saved: list = []

        def done(self, keys):
            return set()

        def save(self, v):
            self.saved.append(v)

    with StubServer(half) as server:
        backend = OpenAIBackend(model="j", base_url=server.url, api_key="sk-test", max_retries=0)
        try:
            summary = run_batch(pairs, shipped_rubric(), backend, Sink(), repeats=2, concurrency=2)
        finally:
            backend.close()
    assert summary.as_dict()["structured_output"] == {"json_schema": 2} and summary.errors == {"server_error": 2}


# --------------------------------------------------------------------------- issue 11.6: credentials in --base-url


def _echo_then_answer(req):
    """Fails the first request of each kind echoing what a careless proxy would (the Authorization header and the
    request path with its query), then answers."""
    if req.n == 0:
        return Reply(500, error_body(500, f"upstream refused {req.path} with {req.headers.get('authorization')}"))
    if req.body.get("response_format"):
        return verdicts()(req)
    return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [{
        "index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}})


def _assert_no_secret(where: str, text: str | bytes) -> None:
    for secret in SECRETS:
        needle = secret.encode() if isinstance(text, bytes) else secret
        assert needle not in text, f"{secret!r} found in {where}"


def test_credentials_in_the_base_url_are_stored_and_shown_nowhere(tmp_path: Path, monkeypatch, capsys) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    db = make_project(tmp_path / "secret.db")
    with StubServer(_echo_then_answer) as server:
        url = secret_url(server)
        rc_judge = main(["--db", str(db), "judge", "--model", "judge-x", "--base-url", url, "--repeats", "1",
                         "--constraint", "grounded", "--max-retries", "0", "--concurrency", "1"])
        server.requests.clear()
        server._count = 0  # the runner's first request is echoed too
        monkeypatch.setenv("OPENAI_BASE_URL", url)  # the environment variable is redacted alike
        rc_run = main(["--db", str(db), "run", "--model", "agent-x", "--run-id", "secret-run", "--max-retries", "0",
                      "--quiet"])
        # The credentials did reach the endpoint (Basic auth, query) and were echoed back by it.
        assert any(PASSWORD not in r.headers.get("authorization", "") and BASIC in r.headers.get("authorization", "")
                   for r in server.requests)
        # The base URL's query goes where the server expects it, after the route (not spliced in front of it).
        assert all(r.path.startswith("/v1/chat/completions?") and f"api-key={QUERY_KEY}" in r.path
                   for r in server.requests)
    assert rc_judge == 0 and rc_run == 0
    with ann.unit_of_work(db) as conn:
        settings = [json.loads(r[0]) for r in conn.execute("SELECT settings FROM batches ORDER BY started_at")]
        details = [r[0] for r in conn.execute("SELECT error_detail FROM verdicts WHERE error IS NOT NULL")]
        run_errors = [r[0] for r in conn.execute("SELECT error FROM run_records WHERE error IS NOT NULL")]
    assert [s["base_url"] for s in settings] == [redact_url(url).replace("/v1?", "/v1/?")] * 2
    assert settings[0]["base_url"].startswith("http://***@127.0.0.1:")
    assert details and "[credential redacted]" in details[0], details  # the echo was there, scrubbed
    assert run_errors and "[credential redacted]" in run_errors[0], run_errors
    out = tmp_path / "out"
    out.mkdir()
    for kind in ("verdicts", "runs"):
        assert main(["--db", str(db), "export", kind, "--out", str(out / f"{kind}.jsonl")]) == 0
    captured = capsys.readouterr()
    _assert_no_secret("stdout", captured.out)
    _assert_no_secret("stderr", captured.err)
    for path in sorted(out.iterdir()):
        _assert_no_secret(path.name, path.read_bytes())
    for path in [db, *db.parent.glob(db.name + "-*")]:  # the project file, its -wal and -shm
        _assert_no_secret(path.name, path.read_bytes())

    monkeypatch.setenv("JUDGECAL_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    at.switch_page("app_pages/runs.py").run()
    assert not at.exception
    shown = []
    for batch in at.selectbox(key="runs_batch").options:
        at.selectbox(key="runs_batch").select(batch).run()
        shown += [j.value for j in at.json]
    assert len(shown) == 2 and all("***@" in s for s in shown), shown
    page = "\n".join(shown) + json.dumps([df.value.to_dict("records") for df in at.dataframe], default=str)
    _assert_no_secret("the Runs page", page)
