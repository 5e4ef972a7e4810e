"""`judgecal run` end to end: the local server, the demo eval set in a real SQLite project, records written as tasks
end, resume by run id, the batch record, and the eval-set hash on every record."""

from __future__ import annotations

import re

import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main
from openai_stub import StubServer, agent_script

DATA = Path(__file__).resolve().parents[1] / "data"


def demo_project(tmp_path: Path) -> Path:
    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "import", "evalset", str(DATA / "demo_evalset.jsonl")]) == 0
    return db


def first_tool_then_answer(req, rnd):
    tools = req.body.get("tools")
    if tools and rnd == 0:
        return {"tool_calls": [{"name": tools[0]["function"]["name"], "arguments": {"q": 1}}]}
    return f"Done after {rnd} tool round(s)."


def test_run_stores_every_task_and_resumes(tmp_path, capsys):
    db = demo_project(tmp_path)
    items = ["demo-001", "demo-041", "demo-044"]  # one text item, two agent items with fixtures
    argv = ["--db", str(db), "run", "--model", "model-x", "--run-id", "r1", "--quiet", "--repeats", "2",
            "--api-key", "sk-secret-123"] + [a for i in items for a in ("--item", i)]
    with StubServer(agent_script(first_tool_then_answer)) as s:
        assert main(argv + ["--base-url", s.url]) == 0
        first = s.count
        assert main(argv + ["--base-url", s.url]) == 0  # resume: everything stored, nothing asked
        assert s.count == first
    out = capsys.readouterr().out
    assert "6 already stored" in out
    with ann.unit_of_work(db) as d:
        records = list(ann.iter_runs(d, where="run_id = ?", params=["r1"]))
        sha = ann.project_evalset_sha256(d)
        batches = list(d.query("SELECT kind, status, settings FROM batches ORDER BY started_at"))
        checks = d.execute("SELECT count(*) FROM check_results WHERE run_record_id LIKE 'r1/%'").fetchone()[0]
    assert sorted(r.id for r in records) == sorted(f"r1/{i}/{k}" for i in items for k in range(2))
    assert all(r.evalset_sha256 == sha and r.error is None and r.model == "model-x" for r in records)
    agent = next(r for r in records if r.item_id == "demo-041")
    # Tool specs are derived from the fixtures, sorted by name: the stub calls the first, escalate_to_human.
    assert agent.rounds == 2 and agent.tool_calls[0].name == "escalate_to_human"
    assert agent.tool_calls[0].result["ticket"] == "PRV-2290" and agent.output == "Done after 1 tool round(s)."
    assert [b["kind"] for b in batches] == ["run", "run"] and batches[0]["status"] == "done"
    assert "sk-secret-123" not in json.dumps(batches)
    assert checks > 0  # mechanical checks ran on the new records


def test_run_refuses_a_run_id_of_another_model(tmp_path, capsys):
    db = demo_project(tmp_path)
    with StubServer(agent_script(first_tool_then_answer)) as s:
        base = ["--db", str(db), "run", "--base-url", s.url, "--run-id", "r1", "--quiet", "--item", "demo-001"]
        assert main(base + ["--model", "model-x"]) == 0
        assert main(base + ["--model", "model-y"]) == 2
    assert "already holds records of model 'model-x'" in capsys.readouterr().err


def test_run_refuses_to_resume_a_run_id_under_another_prompt_or_sampling_settings(tmp_path, capsys):
    """A resumed run was refused only for another model: a second `run --run-id R --system other.txt` (or another
    temperature) added records of another prompt to run R, which `compare` then read as one prompt (a review,
    wave 14). Refused now, nothing stored; the same settings resume it."""
    db = demo_project(tmp_path)
    system = tmp_path / "system.txt"
    system.write_text("You are terse.")
    with StubServer(agent_script(first_tool_then_answer)) as s:
        base = ["--db", str(db), "run", "--base-url", s.url, "--run-id", "r1", "--quiet", "--model", "model-x"]
        assert main(base + ["--item", "demo-001"]) == 0
        with ann.unit_of_work(db) as d:
            before = ann.table_counts(d)
        capsys.readouterr()
        assert main(base + ["--item", "demo-002", "--system", str(system)]) == 2
        assert "holds records of prompt version p-" in capsys.readouterr().err
        assert main(base + ["--item", "demo-002", "--temperature", "0.9"]) == 2
        assert "was run with temperature 0.0" in capsys.readouterr().err
        # the same --prompt-version label over another system prompt: the prompt's hash tells them apart (a review
        # of wave 14's fix)
        labelled = ["--db", str(db), "run", "--base-url", s.url, "--run-id", "r2", "--quiet", "--model", "model-x",
                    "--prompt-version", "v1"]
        assert main(labelled + ["--item", "demo-001"]) == 0
        capsys.readouterr()
        assert main(labelled + ["--item", "demo-002", "--system", str(system)]) == 2
        assert "prompt_sha256" in capsys.readouterr().err
        with ann.unit_of_work(db) as d:
            before = ann.table_counts(d)
        with ann.unit_of_work(db) as d:
            assert ann.table_counts(d) == before
        assert main(base + ["--item", "demo-002"]) == 0  # the same settings: resumed


def test_bad_tools_file_names_the_file(tmp_path, capsys):
    db = demo_project(tmp_path)
    tools = tmp_path / "tools.json"
    tools.write_text('[{"type": "function", "function": {}}]')
    assert main(["--db", str(db), "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--tools", str(tools)]) == 2
    assert "tools.json: tool 0" in capsys.readouterr().err


def test_run_by_tag_reruns_one_boundary_category(tmp_path, capsys):
    db = demo_project(tmp_path)
    # the README tour's extra step: the 11 later tool-overreach cases (issue 13.5)
    assert main(["--db", str(db), "import", "evalset", str(DATA / "demo_overreach.jsonl")]) == 0
    with ann.unit_of_work(db, readonly=True) as d:
        tagged = sorted(i.id for i in ann.load_items(d).values() if "boundary:tool_overreach" in i.tags)
    assert len(tagged) == 15  # the demo's category has the 15 cases seed 003 §6 asks for (issue 13.5)
    with StubServer(agent_script(first_tool_then_answer)) as s:
        assert main(["--db", str(db), "run", "--model", "m", "--base-url", s.url, "--run-id", "b1", "--quiet",
                     "--tag", "boundary:tool_overreach"]) == 0
        assert main(["--db", str(db), "run", "--model", "m", "--base-url", s.url, "--run-id", "b2", "--quiet",
                     "--tag", "boundary:no_such"]) == 2
    assert "no eval item tagged boundary:no_such; tags in the project:" in capsys.readouterr().err
    with ann.unit_of_work(db, readonly=True) as d:
        ran = sorted({r.item_id for r in ann.iter_runs(d, where="run_id = ?", params=["b1"])})
        assert d.execute("SELECT count(*) FROM run_records WHERE run_id = 'b2'").fetchone()[0] == 0
    assert ran == tagged
    capsys.readouterr()
    assert main(["--db", str(db), "compare", "--boundary", "b1", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^tool_overreach\s+15\s+15\b", out, re.M) and "warning: tool_overreach" not in out


def test_truncation_is_detected_from_finish_reason(tmp_path):
    from openai_stub import Reply, chat_completion

    db = demo_project(tmp_path)

    def cut(req, rnd):
        return Reply(200, chat_completion("Your order ships on", finish_reason="length", completion_tokens=5))

    with StubServer(agent_script(cut)) as s:
        assert main(["--db", str(db), "run", "--model", "m", "--base-url", s.url, "--run-id", "t1", "--quiet",
                     "--item", "demo-001"]) == 0
    with ann.unit_of_work(db, readonly=True) as d:
        (rec,) = list(ann.iter_runs(d, where="run_id = ?", params=["t1"]))
        stats = ann.run_stats(d, "t1")
    # kept (and checked / judged as it is), but marked: not completed, counted as truncated
    assert rec.output == "Your order ships on" and rec.error.startswith("truncated: ") and not rec.failed
    assert stats.truncated == 1 and stats.completion_rate == 0.0 and stats.errors == {"truncated": 1}


def test_a_model_whose_endpoint_sends_no_usage_is_not_cheaper_in_compare(tmp_path, capsys):
    """`judgecal run` stored 0 tokens when the endpoint sent no usage, and `compare --thresholds` said SWITCH on
    max_cost_ratio 0 ("tokens only: 13029 -> 0"; a review, wave 18). The tokens are unknown now, and so is the cost."""
    from openai_stub import Reply, chat_completion

    db = demo_project(tmp_path)

    def no_usage(req, rnd):
        body = chat_completion("An answer.")
        del body["usage"]
        return Reply(200, body)

    thresholds = tmp_path / "t.json"
    thresholds.write_text('{"max_cost_ratio": 1.2}')
    items = ["--quiet"] + [a for i in ("demo-001", "demo-002", "demo-003") for a in ("--item", i)]
    with StubServer(agent_script(first_tool_then_answer)) as a, StubServer(agent_script(no_usage)) as b:
        assert main(["--db", str(db), "run", "--model", "ma", "--base-url", a.url, "--run-id", "ra"] + items) == 0
        assert main(["--db", str(db), "run", "--model", "mb", "--base-url", b.url, "--run-id", "rb"] + items) == 0
    ran = capsys.readouterr().out
    assert main(["--db", str(db), "compare", "ra", "rb", "--thresholds", str(thresholds)]) == 1
    out = capsys.readouterr().out
    assert "token counts missing on 0 of A's and 3 of B's records with output: the cost is unknown" in out
    assert "3 records without token counts" in ran  # the run's summary says so too


def test_run_refuses_a_run_id_that_holds_imported_records(tmp_path, capsys):
    """`judgecal run --run-id demo-run-a --prompt-version v1` (the imported run's label) ran every item again beside
    the imported records: two records per item, another harness's answers read as repeats of the runner's (a review,
    wave 18). Refused now, nothing stored."""
    db = demo_project(tmp_path)
    assert main(["--db", str(db), "import", "runs", str(DATA / "demo_runs.jsonl")]) == 0
    with ann.unit_of_work(db, readonly=True) as d:
        (model, version), = d.execute(
            "SELECT DISTINCT model, prompt_version FROM run_records WHERE run_id = 'demo-run-a'")
        before = ann.table_counts(d)
    capsys.readouterr()
    with StubServer(agent_script(first_tool_then_answer)) as s:
        assert main(["--db", str(db), "run", "--base-url", s.url, "--run-id", "demo-run-a", "--quiet", "--model", model,
                     "--prompt-version", version, "--item", "demo-001"]) == 2
        assert s.count == 0
    assert "holds run record 'run-a-001', which `judgecal run` did not make" in capsys.readouterr().err
    with ann.unit_of_work(db, readonly=True) as d:
        assert ann.table_counts(d) == before


def test_run_refuses_to_resume_a_run_id_under_other_stopping_rules(tmp_path, capsys):
    """`--max-rounds` and `--loop-limit` decide a task's outcome (an agent stopped at round 1 fails `max_rounds`), yet a
    run made at `--max-rounds 1` resumed at 5: one run held both (a review, wave 18). Refused now, as another
    temperature is."""
    db = demo_project(tmp_path)
    with StubServer(agent_script(first_tool_then_answer)) as s:
        base = ["--db", str(db), "run", "--base-url", s.url, "--run-id", "r1", "--quiet", "--model", "model-x"]
        assert main(base + ["--item", "demo-041", "--max-rounds", "1"]) == 0
        capsys.readouterr()
        assert main(base + ["--item", "demo-044", "--max-rounds", "5"]) == 2
        assert "max_rounds 1" in capsys.readouterr().err
        assert main(base + ["--item", "demo-044", "--max-rounds", "1", "--loop-limit", "2"]) == 2
        assert "loop_limit 3" in capsys.readouterr().err
        assert main(base + ["--item", "demo-044", "--max-rounds", "1"]) == 0  # the same rules: resumed
    with ann.unit_of_work(db, readonly=True) as d:
        errors = {r.item_id: r.error for r in ann.iter_runs(d, where="run_id = 'r1'")}
    assert sorted(errors) == ["demo-041", "demo-044"] and all(e.startswith("max_rounds") for e in errors.values())
