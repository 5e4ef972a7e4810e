"""`judge --batch` through the OpenAI Batch API (issue 16.4), `--batch-requests` / `--batch-results` for vLLM's
run_batch. Real parts: SQLite files in tmp_path, the real `openai` SDK over real HTTP against the fake files and
batches endpoints (tests/openai_batch_stub.py), the CLI as a subprocess where a kill or Ctrl+C is involved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgecal import annotations as ann, jobs
from judgecal.annotations import store as av
from judgecal.cli import main
from judgecal.judge import OpenAIBackend, VerdictKey, custom_id, key_of
from openai_batch_stub import FakeBatchAPI
from openai_stub import Reply, StubServer, chat_completion, error_body, verdicts
from test_judge_fixtures import make_project

REPO = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(REPO), OPENAI_API_KEY="sk-test")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p.db", n_items=3, label_sets=False)  # 3 records x 2 semantic constraints


def _batch(db: Path, url: str, *extra: str) -> int:
    return main(["--db", str(db), "judge", "--model", "judge-x", "--base-url", url, "--api-key", "sk-test",
                 "--repeats", "2", "--max-retries", "0", "--batch", "--poll-interval", "0.01", *extra])


def _rows(db: Path) -> list[tuple]:
    with ann.unit_of_work(db) as conn:
        return conn.execute("SELECT run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason, "
                            "error, input_tokens, output_tokens FROM verdicts ORDER BY 1, 2, 3, 4, 5").fetchall()


def _remote(db: Path) -> list[tuple]:
    with ann.unit_of_work(db) as conn:
        return conn.execute("SELECT id, status, requests, landed_at IS NOT NULL FROM remote_batches ORDER BY id").fetchall()


# --------------------------------------------------------------------------- the custom_id is the cache key


def test_custom_id_round_trips_the_verdict_key_and_refuses_anything_else() -> None:
    key = VerdictKey("run|1 \"x\"", "polite", "a" * 64, "judge/x", 3)
    assert key_of(custom_id(key)) == key
    for hostile in (None, 7, "", "request-1", "[1,2]", '["r","c","s","m","1"]', '["r","c","s","m",-1]',
                    '["r","c","s","m",true]', '["r","","s","m",0]', '{"run_record_id": "r"}'):
        with pytest.raises(ValueError):
            key_of(hostile)


# --------------------------------------------------------------------------- the request is the synchronous one


def test_batch_request_bodies_are_exactly_what_the_synchronous_judge_sends(project: Path, tmp_path: Path) -> None:
    sync_db = make_project(tmp_path / "sync.db", n_items=3, label_sets=False)
    with StubServer() as server:
        assert main(["--db", str(sync_db), "judge", "--model", "judge-x", "--base-url", server.url, "--api-key",
                     "sk-test", "--repeats", "2", "--quiet"]) == 0
        sent = {req.key: req.body for req in server.requests}
    out = tmp_path / "requests.jsonl"
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "2", "--batch-requests",
                 str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(sent) == 12
    for line in lines:
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        k = key_of(line["custom_id"])
        assert line["body"] == sent[f"{k.run_record_id}|{k.constraint_id}|{k.repeat}"]


# --------------------------------------------------------------------------- the happy path and the price


def test_batch_lands_the_same_verdict_rows_as_the_synchronous_judge_at_half_the_price(project: Path, tmp_path: Path,
                                                                                     capsys) -> None:
    def answer(req):  # depends on the request only, so both ways must store the same rows
        return "fail" if "order 1" in req.prompt else "pass"

    sync_db = make_project(tmp_path / "sync.db", n_items=3, label_sets=False)
    for db in (project, sync_db):
        with ann.unit_of_work(db) as conn:
            av.set_price(conn, "judge-x", 2.0, 8.0)
    with StubServer(verdicts(answer)) as server:
        assert main(["--db", str(sync_db), "judge", "--model", "judge-x", "--base-url", server.url, "--api-key",
                     "sk-test", "--repeats", "2", "--quiet"]) == 0
    sync_out = capsys.readouterr().out
    api = FakeBatchAPI(polls=2)
    with StubServer(verdicts(answer), batch_api=api) as server:
        assert _batch(project, server.url) == 0
        out, err = capsys.readouterr()
        assert (api.uploads, api.creates, api.processed) == (1, 1, 12)
        assert "submitted Batch API job batch_0001: 12 requests" in err
        assert "batch_0001: in_progress" in err  # progress on each poll
        assert _rows(project) == _rows(sync_db)
        assert _remote(project) == [("batch_0001", "completed", 12, 1)]
        sync_cost = float(sync_out.split("cost:")[1].split()[0])
        batch_cost = float(out.split("cost:")[1].split()[0])
        assert sync_cost > 0 and batch_cost == pytest.approx(sync_cost / 2, abs=1e-4)
        # Run again: everything is stored, nothing is uploaded or asked.
        assert _batch(project, server.url) == 0
        assert (api.uploads, api.creates, api.processed) == (1, 1, 12)
    with ann.unit_of_work(project) as conn:
        assert conn.execute("SELECT count(DISTINCT batch_id) FROM verdicts").fetchone()[0] == 1
        settings = json.loads(conn.execute("SELECT settings FROM batches ORDER BY started_at LIMIT 1").fetchone()[0])
        assert settings["batch_api"] is True and "sk-test" not in json.dumps(settings)


# --------------------------------------------------------------------------- failures are error rows


def test_failed_and_unreadable_results_are_error_rows_never_verdicts(project: Path, capsys) -> None:
    def answer(req):
        if "order 0" in req.prompt and "polite" in req.prompt.lower():
            return Reply(500, error_body(500, "overloaded"))
        if "order 1" in req.prompt:
            return Reply(200, chat_completion("The output passes. {label: pass"))
        return "pass"

    def mangle(n: int, line: str) -> str | None:
        data = json.loads(line)
        k = key_of(data["custom_id"])
        if k.run_record_id == "run-2-0" and k.constraint_id == "grounded":
            if k.repeat == 0:
                return "{not json"  # unreadable: its request has no result -> batch_missing
            data["custom_id"] = custom_id(k._replace(run_record_id="run-9-9"))  # a request the job did not ask
            return json.dumps(data)
        return line

    with StubServer(verdicts(answer), batch_api=FakeBatchAPI(mangle=mangle)) as server:
        assert _batch(project, server.url) == 0
    _, err = capsys.readouterr()
    assert "2 result lines named no request of the job" in err
    rows = _rows(project)
    assert len(rows) == 12
    by_cause = {}
    for r in rows:
        assert (r[5] is None) != (r[7] is None)  # exactly one of label and error
        by_cause.setdefault(r[7], []).append(r[:2])
    assert set(by_cause) == {None, "batch_missing", "server_error", "unparsable"}
    assert len(by_cause["server_error"]) == 2 and len(by_cause["unparsable"]) == 4
    assert by_cause["batch_missing"] == [("run-2-0", "grounded")] * 2
    with ann.unit_of_work(project) as conn:  # the foreign custom_id stored nothing
        assert conn.execute("SELECT count(*) FROM verdicts WHERE run_record_id = 'run-9-9'").fetchone()[0] == 0


@pytest.mark.parametrize("outcome, cause", [("expired", "batch_expired"), ("cancelled", "batch_cancelled")])
def test_requests_an_expired_or_cancelled_batch_did_not_run_are_error_rows(project: Path, outcome: str,
                                                                           cause: str) -> None:
    api = FakeBatchAPI(outcome=outcome, answered=5)
    with StubServer(batch_api=api) as server:
        assert _batch(project, server.url) == 0  # a partial failure: exit 0, counted by cause
        rows = _rows(project)
        assert sum(1 for r in rows if r[5] is not None) == 5
        assert sum(1 for r in rows if r[7] == cause) == 7
        # The next run asks exactly the 7 again, in a new job.
        api.outcome = "completed"
        assert _batch(project, server.url) == 0
        assert (api.creates, api.processed) == (2, 12)
        assert sum(1 for r in _rows(project) if r[5] is not None) == 12


def test_a_failed_batch_is_nothing_answered_exit_3(project: Path, capsys) -> None:
    with StubServer(batch_api=FakeBatchAPI(outcome="failed")) as server:
        assert _batch(project, server.url) == 3
    _, err = capsys.readouterr()
    assert "none of 12 requests was answered (batch_failed: 12)" in err
    with ann.unit_of_work(project) as conn:
        assert conn.execute("SELECT count(*), count(label) FROM verdicts").fetchone() == (12, 0)
        assert "the input file does not validate" in conn.execute("SELECT error_detail FROM verdicts").fetchone()[0]
        assert conn.execute("SELECT status FROM batches").fetchone()[0] == "failed"


@pytest.mark.parametrize("route, status, said", [
    ("upload", 500, "submitting the Batch API job failed (server_error)"),
    ("upload", 401, "AuthenticationError (HTTP 401)"),
    ("create", 400, "submitting the Batch API job failed (api_error)"),
    ("download", 503, "downloading the results of batch_0001 failed (server_error)"),
])
def test_an_endpoint_that_refuses_the_files_or_batches_calls_stops_the_batch_and_a_rerun_recovers(
        project: Path, capsys, route: str, status: int, said: str) -> None:
    api = FakeBatchAPI(fail={route: status})
    with StubServer(batch_api=api) as server:
        assert _batch(project, server.url) == 2
        _, err = capsys.readouterr()
        assert "judge batch stopped: " in err and said in err, err
        assert "sk-test" not in err
        assert _rows(project) == []
        with ann.unit_of_work(project) as conn:
            assert conn.execute("SELECT status FROM batches").fetchone()[0] == "interrupted"
        api.fail.clear()
        assert _batch(project, server.url) == 0
        # A job created before the failure (download) is resumed, not submitted again.
        assert api.creates == 1
    assert len(_rows(project)) == 12


# --------------------------------------------------------------------------- resumable across process restarts


def _argv(db: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "judgecal.cli", "--db", str(db), "judge", "--model", "judge-x", "--base-url", url,
            "--repeats", "2", "--batch", "--poll-interval", "0.05"]


def _start(db: Path, url: str) -> subprocess.Popen:
    return subprocess.Popen(_argv(db, url), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_remote_row(db: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if _remote(db):
                time.sleep(0.3)  # a few polls
                return
        except Exception:  # noqa: BLE001 — the project may be mid-migration
            pass
        time.sleep(0.05)
    raise AssertionError("the judge never recorded its Batch API job")


def _killed_after_submitting(db: Path, url: str) -> None:
    """`judge --batch` killed (SIGKILL) once its Batch API job is recorded and polled a few times."""
    proc = _start(db, url)
    _wait_for_remote_row(db, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)


def test_a_killed_judge_batch_resumes_polling_its_job_instead_of_submitting_again(project: Path) -> None:
    api = FakeBatchAPI(hold=True)
    with StubServer(batch_api=api) as server:
        _killed_after_submitting(project, server.url)
        assert (api.uploads, api.creates) == (1, 1) and api.retrievals >= 1
        assert _remote(project) == [("batch_0001", "in_progress", 12, 0)]
        assert _rows(project) == []
        api.release()
        rc = subprocess.run(_argv(project, server.url), env=ENV, capture_output=True, text=True, timeout=120)
        assert rc.returncode == 0, rc.stderr
        assert "resuming Batch API job(s) batch_0001" in rc.stderr
        assert (api.uploads, api.creates, api.processed) == (1, 1, 12)  # nothing submitted twice
    assert _remote(project) == [("batch_0001", "completed", 12, 1)]
    rows = _rows(project)
    assert len(rows) == 12 and all(r[5] == "pass" for r in rows)
    with ann.unit_of_work(project) as conn:
        statuses = [r[0] for r in conn.execute("SELECT status FROM batches ORDER BY started_at")]
    assert statuses == ["dead", "done"]


def test_ctrl_c_leaves_the_job_running_and_says_how_to_resume(project: Path) -> None:
    api = FakeBatchAPI(hold=True)
    with StubServer(batch_api=api) as server:
        proc = _start(project, server.url)
        _wait_for_remote_row(project, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert "Batch API job(s) batch_0001 keep running at the endpoint" in err
        assert "`judgecal judge --batch`" in err and "again to resume" in err
        with ann.unit_of_work(project) as conn:
            assert conn.execute("SELECT status FROM batches").fetchone()[0] == "interrupted"
        api.release()
        # resumed with other sampling settings: refused (its answers were asked at temperature 0; a review, wave 14)
        assert _batch(project, server.url, "--temperature", "0.7") == 2
        assert _rows(project) == [] and _remote(project)[0][3] == 0
        assert _batch(project, server.url) == 0
        assert (api.uploads, api.creates) == (1, 1)
    assert len(_rows(project)) == 12


# --------------------------------------------------------------------------- vLLM run_batch: request file out, results in


def _vllm_results(requests: Path, out: Path, label=lambda body: "pass") -> None:
    """What `python -m vllm.entrypoints.openai.run_batch -i requests -o out` writes: OpenAI's result-line format."""
    lines = []
    for n, raw in enumerate(requests.read_text().splitlines()):
        req = json.loads(raw)
        answer = json.dumps({"label": label(req["body"]), "reason": "vLLM says so."})
        lines.append(json.dumps({"id": f"vllm-{n}", "custom_id": req["custom_id"],
                                 "response": {"status_code": 200, "request_id": f"vllm-batch-{n}",
                                              "body": chat_completion(answer, model="judge-x")},
                                 "error": None}))
    out.write_text("\n".join(lines) + "\n")


def test_a_vllm_results_file_lands_as_verdicts(project: Path, tmp_path: Path, capsys) -> None:
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "2", "--limit", "2",
                 "--batch-requests", str(requests)]) == 0
    _vllm_results(requests, results)
    assert main(["--db", str(project), "judge", "--batch-results", str(results)]) == 0
    rows = _rows(project)
    assert len(rows) == 4 and {r[5] for r in rows} == {"pass"}
    # Importing it again changes nothing; the requests file now leaves the stored verdicts out.
    assert main(["--db", str(project), "judge", "--batch-results", str(results)]) == 0
    assert _rows(project) == rows
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "2", "--batch-requests",
                 str(requests)]) == 0
    assert len(requests.read_text().splitlines()) == 12 - 4


def test_a_vllm_results_file_keeps_the_settings_its_requests_were_written_with(project: Path, tmp_path: Path,
                                                                              capsys) -> None:
    """Requests written at temperature 0.9 and their results landed: the results batch recorded no settings, so a
    plain `judge` at 0 reused those answers and `--batch-requests` at 0.2 mixed its repeats with them (a review of
    wave 14's fix). The request file's settings travel to the results batch; other settings are refused."""
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "1", "--limit", "2",
                 "--temperature", "0.9", "--seed", "5", "--batch-requests", str(requests)]) == 0
    _vllm_results(requests, results)
    assert main(["--db", str(project), "judge", "--batch-results", str(results)]) == 0
    capsys.readouterr()
    for extra in (["--batch-requests", str(tmp_path / "again.jsonl"), "--temperature", "0.2", "--seed", "5"],
                  ["--base-url", "http://127.0.0.1:9/v1", "--api-key", "x"]):
        assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "3", *extra]) == 2, extra
        assert "were asked with temperature 0.9, seed 5" in capsys.readouterr().err
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "3", "--temperature", "0.9",
                 "--seed", "5", "--batch-requests", str(tmp_path / "more.jsonl")]) == 0


@pytest.mark.parametrize("bad, field", [
    (lambda d: "{not json", "(line)"),
    (lambda d: json.dumps(d | {"custom_id": "request-1"}), "custom_id"),
    (lambda d: json.dumps(d | {"custom_id": custom_id(key_of(d["custom_id"])._replace(run_record_id="nope"))}),
     "custom_id"),
    (lambda d: json.dumps(d | {"custom_id": custom_id(key_of(d["custom_id"])._replace(rubric_sha256="f" * 64))}),
     "custom_id"),
], ids=["not-json", "foreign-id", "unknown-pair", "unknown-rubric"])
def test_a_bad_results_file_is_exit_2_naming_line_and_field_and_changes_nothing(project: Path, tmp_path: Path,
                                                                               capsys, bad, field) -> None:
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--batch-requests", str(requests)]) == 0
    _vllm_results(requests, results)
    lines = results.read_text().splitlines()
    lines[2] = bad(json.loads(lines[2]))
    results.write_text("\n".join(lines) + "\n")
    with ann.unit_of_work(project) as conn:
        before = ann.table_counts(conn)
    capsys.readouterr()
    assert main(["--db", str(project), "judge", "--batch-results", str(results)]) == 2
    _, err = capsys.readouterr()
    assert f"results.jsonl:3: {field}:" in err, err
    with ann.unit_of_work(project) as conn:
        assert ann.table_counts(conn) == before


def test_a_job_resumed_with_only_labelled_lands_every_answer_it_was_sent_for(project: Path) -> None:
    """A population `judge --batch` (it retries every error row) killed while its job runs, then resumed by
    `judge --batch --only-labelled` (found by a review, wave 13): the resuming command's flag made the landing count
    the error rows as done and drop the answers the job had been sent, and paid, for. A resumed job lands what it
    asked, whatever the resuming command's flags."""
    flaky = {"on": True}

    def answer(req):
        if flaky["on"] and req.key.endswith("|0"):  # repeat 0 fails on every pair, labelled or not
            return Reply(500, {"error": {"message": "boom"}})
        return "pass"

    with ann.unit_of_work(project) as db:
        ann.record_label(db, "ann", ann.Pair("run-1-0", "polite"), "pass")
    api = FakeBatchAPI(hold=True)
    with StubServer(verdicts(answer), batch_api=api) as server:
        assert main(["--db", str(project), "judge", "--model", "judge-x", "--base-url", server.url, "--api-key",
                     "sk-test", "--repeats", "2", "--max-retries", "0", "--quiet"]) == 0
        with ann.unit_of_work(project) as conn:
            assert conn.execute("SELECT count(*) FROM verdicts WHERE error IS NOT NULL").fetchone()[0] == 6
        flaky["on"] = False
        proc = _start(project, server.url)  # the population's --batch: asks the 6 error rows again
        _wait_for_remote_row(project, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        api.release()
        assert _batch(project, server.url, "--only-labelled") == 0
        assert (api.uploads, api.creates, api.processed) == (1, 1, 6)
    with ann.unit_of_work(project) as conn:
        assert conn.execute("SELECT count(*) FROM verdicts WHERE error IS NOT NULL").fetchone()[0] == 0


# --------------------------------------------------------------------------- a review's findings (wave 14)


SENTINEL_KEY = "sk-SENTINEL-batch-4b1d-never-store-me"


def test_an_endpoint_that_echoes_the_key_in_batch_results_does_not_get_it_stored(project: Path, capsys) -> None:
    """The Batch API path read its results without the endpoint's redaction: a reason or an error message quoting
    the key was stored in `reason`, `raw` and `error_detail` (the synchronous judge redacts them)."""
    def answer(req):
        if "order 0" in req.prompt:
            return Reply(400, error_body(400, f"Invalid request for API key {SENTINEL_KEY}"))
        return Reply(200, chat_completion(json.dumps({"label": "pass", "reason": f"key {SENTINEL_KEY}"})))

    with StubServer(verdicts(answer), batch_api=FakeBatchAPI()) as server:
        assert main(["--db", str(project), "judge", "--model", "judge-x", "--base-url", server.url, "--api-key",
                     SENTINEL_KEY, "--repeats", "1", "--max-retries", "0", "--batch", "--poll-interval", "0.01"]) == 0
    captured = capsys.readouterr()
    assert SENTINEL_KEY not in captured.out + captured.err
    with ann.unit_of_work(project) as conn:
        rows = conn.execute("SELECT label, reason, error, error_detail FROM verdicts ORDER BY 1").fetchall()
    assert {r[2] for r in rows} == {None, "api_error"}  # both kinds of answer came back
    assert any("[API key redacted]" in (r[1] or "") for r in rows)
    assert any("[API key redacted]" in (r[3] or "") for r in rows)
    for path in [project, *project.parent.glob(project.name + "*")]:
        assert SENTINEL_KEY.encode() not in path.read_bytes(), path


def test_a_request_answered_twice_differently_is_an_error_row_not_the_first_answer(project: Path, capsys) -> None:
    """A results file holding one request's line twice, first `fail` then `pass`: the first was stored as the
    verdict and the warning said the lines named no request. Two different answers are now an error row
    (`batch_conflict`, asked again by the next run); the same answer twice is one verdict."""
    def mangle(n: int, line: str) -> str | None:
        data = json.loads(line)
        k = key_of(data["custom_id"])
        if k.run_record_id == "run-1-0" and k.constraint_id == "grounded":
            flipped = json.loads(line)
            body = flipped["response"]["body"]
            body["choices"][0]["message"]["content"] = json.dumps({"label": "fail", "reason": "second line"})
            return json.dumps(flipped) + "\n" + line if k.repeat == 0 else line + "\n" + line
        return line

    with StubServer(verdicts(lambda req: "pass"), batch_api=FakeBatchAPI(mangle=mangle)) as server:
        assert _batch(project, server.url) == 0
    err = capsys.readouterr().err
    assert "1 requests were answered twice with different answers" in err, err
    assert "named no request" not in err
    rows = {(r[0], r[1], r[4]): r for r in _rows(project)}
    assert len(rows) == 12
    conflict = rows[("run-1-0", "grounded", 0)]
    assert conflict[5] is None and conflict[7] == "batch_conflict"
    one = rows[("run-1-0", "grounded", 1)]
    assert (conflict[8], conflict[9]) == (2 * one[8], 2 * one[9])  # both lines were billed: their tokens summed
    assert rows[("run-1-0", "grounded", 1)][5] == "pass"  # the same answer twice: one verdict
    assert sum(1 for r in rows.values() if r[7] is not None) == 1


# --------------------------------------------------------------------------- a review's findings (wave 18)


def _summaries(db: Path) -> list[dict]:
    with ann.unit_of_work(db) as conn:
        return [json.loads(s or "{}") for s, in conn.execute("SELECT summary FROM batches ORDER BY started_at")]


def test_a_landed_job_counts_the_tokens_it_was_billed_for_also_of_answers_stored_meanwhile(project: Path,
                                                                                           capsys) -> None:
    """Ctrl+C while a Batch API job runs frees its pairs; a synchronous `judge` labels them meanwhile (README: the
    label stored first stands); the resumed job's answers were then counted as "already stored (no request)" and
    their tokens left out, so the job the endpoint billed cost 0.0000 in every batch's summary (a review, wave 18).
    The tokens of every answer a job returned are counted by the batch that lands it, stored or not."""
    with ann.unit_of_work(project) as conn:
        av.set_price(conn, "judge-x", 2.0, 8.0)
    api = FakeBatchAPI(hold=True)
    with StubServer(verdicts(lambda req: "pass"), batch_api=api) as server:
        proc = _start(project, server.url)
        _wait_for_remote_row(project, proc)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130
        assert main(["--db", str(project), "judge", "--model", "judge-x", "--base-url", server.url, "--api-key",
                     "sk-test", "--repeats", "2", "--quiet"]) == 0
        api.release()
        assert _batch(project, server.url) == 0
        assert api.processed == 12  # the job ran every request, and the endpoint bills them
    interrupted, sync, landed = _summaries(project)
    assert interrupted["input_tokens"] == 0 and sync["sent"] == 12
    assert landed["cached"] == 12 and landed["sent"] == 0  # every answer was already stored: kept, not overwritten
    assert (landed["input_tokens"], landed["output_tokens"]) == (sync["input_tokens"], sync["output_tokens"])
    assert landed["cost"] == pytest.approx(sync["cost"] / 2)


@pytest.mark.parametrize("status, cause", [(500, "server_error"), (429, "rate_limit"), (400, "api_error")])
def test_a_vllm_error_line_is_stored_under_the_synchronous_cause_of_its_status(project: Path, tmp_path: Path,
                                                                               status: int, cause: str) -> None:
    """vLLM's run_batch writes a failed request as `response: {status_code, request_id, body: null}` with the error
    object in `error` (OpenAI's files carry `error` only for requests that never ran): every such line was stored
    as `api_error`, a 500 too, where the synchronous judge and an OpenAI error file store `server_error` (a review,
    wave 18)."""
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "1", "--limit", "1",
                 "--batch-requests", str(requests)]) == 0
    cid = json.loads(requests.read_text().splitlines()[0])["custom_id"]
    error = {"error": {"message": "engine overloaded", "type": "ServerError", "param": None, "code": status}}
    results.write_text(json.dumps({"id": "vllm-1", "custom_id": cid, "error": error,
                                   "response": {"status_code": status, "request_id": "vllm-batch-1", "body": None}})
                       + "\n")
    assert main(["--db", str(project), "judge", "--batch-results", str(results)]) == 3
    rows = _rows(project)
    assert [(r[5], r[7]) for r in rows] == [(None, cause)]


def test_a_results_file_is_costed_at_the_stored_price_as_the_report_costs_it(project: Path, tmp_path: Path,
                                                                            capsys) -> None:
    """`--batch-results` costed its tokens at half the price (the Batch API discount) while `report --compare` costs
    the same verdict rows at the full price (their batch is no Batch API job): two costs for one run, and the lower
    one is a discount a self-hosted vLLM run never had (a review, wave 18). judgecal cannot tell a file the Batch
    API billed at half from a self-hosted run's, so it costs it at the stored price."""
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    with ann.unit_of_work(project) as conn:
        av.set_price(conn, "judge-x", 2.0, 8.0)
    assert main(["--db", str(project), "judge", "--model", "judge-x", "--repeats", "1", "--batch-requests",
                 str(requests)]) == 0
    _vllm_results(requests, results)
    capsys.readouterr()
    assert main(["--db", str(project), "judge", "--batch-results", str(results)]) == 0
    out = capsys.readouterr().out
    (summary,) = [s for s in _summaries(project) if s]
    tokens_in, tokens_out = summary["input_tokens"], summary["output_tokens"]
    assert tokens_in > 0
    assert summary["cost"] == pytest.approx(av.Price(2.0, 8.0).cost(tokens_in, tokens_out))
    assert f"cost:     {summary['cost']:.4f}" in out


def test_a_resumed_job_holds_its_pairs_while_it_is_polled(project: Path, capsys) -> None:
    """The batch that submits a job leases its pairs while it polls, so a synchronous `judge` meanwhile leaves them
    to it; the batch that resumes the job (after a Ctrl+C or a kill) took no lease, and a synchronous `judge` run
    while it polled asked every pair again, paid twice (a review, wave 18)."""
    api = FakeBatchAPI(hold=True)
    sent: list[int] = []

    def interrupt(poll: jobs.BatchPoll) -> None:
        raise KeyboardInterrupt

    def judge_meanwhile(poll: jobs.BatchPoll) -> None:
        if not sent:  # the synchronous judge, while this process polls the resumed job
            before = server.count
            assert main(["--db", str(project), "judge", "--model", "judge-x", "--base-url", server.url,
                         "--api-key", "sk-test", "--repeats", "2", "--quiet"]) == 0
            sent.append(server.count - before)
            api.release()

    with StubServer(verdicts(lambda req: "pass"), batch_api=api) as server:
        for on_poll in (interrupt, judge_meanwhile):
            backend = OpenAIBackend(model="judge-x", base_url=server.url, api_key="sk-test", max_retries=0)
            try:
                r = jobs.judge_pairs_batch_api(project, backend, repeats=2, poll_s=0.01, on_poll=on_poll)
            finally:
                backend.close()
        assert r.resumed and r.status == "done"
    assert sent == [0]
    assert "12 left to another running batch" in capsys.readouterr().out
    assert len(_rows(project)) == 12


def test_a_job_of_an_edited_rubric_is_named_with_the_command_that_resumes_it(project: Path, tmp_path: Path,
                                                                           capsys) -> None:
    """A rubric file edited between submit and collect is a new rubric version, so the next `judge --batch` submits
    a new job and never mentioned the first one, paid for and still to be stored (a review, wave 18). It is named,
    with the command that resumes it; that command lands it."""
    from judgecal.judge import shipped_rubric

    rubric = tmp_path / "mine.txt"
    rubric.write_text(shipped_rubric("strict").template + "\nJudge the stated constraint only.\n")
    api = FakeBatchAPI(hold=True)
    with StubServer(verdicts(lambda req: "pass"), batch_api=api) as server:
        proc = subprocess.Popen(_argv(project, server.url) + ["--rubric", str(rubric)], env=ENV,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for_remote_row(project, proc)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130
        api.release()
        rubric.write_text(rubric.read_text() + "Be strict.\n")
        capsys.readouterr()
        assert _batch(project, server.url, "--rubric", str(rubric)) == 0
        err = capsys.readouterr().err
        assert api.creates == 2
        assert "warning: Batch API job batch_0001 (rubric mine@1, model judge-x" in err, err
        command = err.split("warning: Batch API job batch_0001", 1)[1].split(": judgecal ", 1)[1].splitlines()[0]
        assert main(["--db", str(project), *command.split(), "--repeats", "2", "--api-key", "sk-test",
                     "--poll-interval", "0.01", "--quiet"]) == 0
        assert "warning: Batch API job" not in capsys.readouterr().err
    assert [r[3] for r in _remote(project)] == [1, 1]  # both jobs landed
    assert len(_rows(project)) == 24


# --------------------------------------------------------------------------- a job the endpoint no longer has


@pytest.mark.parametrize("what", ["job", "results file"])
def test_a_job_the_endpoint_no_longer_has_lands_as_error_rows_and_a_rerun_asks_again(project: Path, capsys,
                                                                                     what: str) -> None:
    # Left by the review of the Batch API path (wave 18): a job the endpoint answers 404 for (deleted, or its output
    # file past the retention period) stopped every later `judge --batch` of that judge at its poll or download,
    # exit 2, and only deleting its remote_batches row by hand got the project going again.
    api = FakeBatchAPI(hold=True)
    with StubServer(batch_api=api) as server:
        _killed_after_submitting(project, server.url)
        if what == "job":  # (kept under another id: the fake numbers jobs by count, an endpoint never reuses one)
            api.batches["batch_deleted"] = api.batches.pop("batch_0001")
        else:
            api.release()
            while api.batches["batch_0001"]["status"] != "completed":
                api._retrieve("batch_0001")  # house: private (the job finishes while no judgecal polls it)
            del api.files[api.batches["batch_0001"]["output_file_id"]]
        capsys.readouterr()
        assert _batch(project, server.url) == 3  # nothing answered
        err = capsys.readouterr().err
        assert "resuming Batch API job(s) batch_0001" in err
        rows = _rows(project)
        assert len(rows) == 12 and {r[7] for r in rows} == {"batch_gone"} and {r[5] for r in rows} == {None}
        with ann.unit_of_work(project) as conn:
            details = {r[0] for r in conn.execute("SELECT error_detail FROM verdicts")}
        assert len(details) == 1 and "no longer has batch batch_0001" in details.pop()
        assert _remote(project)[0][3] == 1  # landed: no later run waits for it
        api.release()
        assert _batch(project, server.url) == 0  # a re-run asks the error rows again, in a new job
        assert (api.uploads, api.creates) == (2, 2)
    rows = _rows(project)
    assert len(rows) == 12 and {r[5] for r in rows} == {"pass"} and {r[7] for r in rows} == {None}


def test_a_job_another_api_key_cannot_see_is_kept_pending_not_landed_as_gone(project: Path, capsys) -> None:
    # A review of the fix above (wave 18): OpenAI scopes batch and file ids to a project, so a key of another project
    # or organisation (CI's, a colleague's) gets a 404 for a job that is still running, and an endpoint URL now served
    # by another server does too. Landed as gone, the paid job was forgotten (landed, every pair an error row) and the
    # next run asked and paid for every pair again; the job's own results were never collected. A 404 is final only
    # when the endpoint still knows the job's input file.
    api = FakeBatchAPI(hold=True)
    with StubServer(batch_api=api) as server:
        _killed_after_submitting(project, server.url)
        batches, files = dict(api.batches), dict(api.files)
        api.batches.clear()  # what another project's key sees: none of its ids
        api.files.clear()
        capsys.readouterr()
        assert _batch(project, server.url) == 2
        err = capsys.readouterr().err
        assert "nor does it know the job's input file file-0001" in err and "kept pending" in err, err
        assert _rows(project) == [] and _remote(project)[0][3] == 0  # nothing stored, the job not landed
        api.batches.update(batches)  # the key the job was submitted with
        api.files.update(files)
        api.release()
        assert _batch(project, server.url) == 0
        assert (api.uploads, api.creates) == (1, 1)  # nothing asked twice
    rows = _rows(project)
    assert len(rows) == 12 and {r[5] for r in rows} == {"pass"} and _remote(project)[0][3] == 1
