"""Plain-text ReAct logs become trajectories on `import react`; malformed steps are errors naming file, line, field and
the line in the log (issue 13.8). Table-driven: each case is a log and what it must parse to, or its error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import ReactError, parse_react
from judgecal.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"

GOOD = [
    ("thought, action, observation, answer",
     "Thought: look the order up\nAction: lookup_order\nAction Input: {\"order_id\": \"AO-1\"}\n"
     "Observation: {\"status\": \"shipped\"}\nFinal Answer: It shipped.",
     [("thought", "look the order up"), ("action", "lookup_order", {"order_id": "AO-1"}, {"status": "shipped"}),
      ("final_answer", "It shipped.")], "It shipped."),
    ("multi-line texts, observation that is not JSON, indented markers",
     "Thought: first line\nsecond line\n  Action: search\n  Action Input: {\"q\": \"x\"}\nObservation: no hits\n"
     "found\nFinal Answer: Nothing\nfound.\n\n",
     [("thought", "first line\nsecond line"), ("action", "search", {"q": "x"}, "no hits\nfound"),
      ("final_answer", "Nothing\nfound.")], "Nothing\nfound."),
    ("an action with no observation (cut off) and no final answer",
     "Action: escalate\nAction Input: {}",
     [("action", "escalate", {}, None)], None),
    ("Action Input spanning lines",
     "Action: refund\nAction Input: {\"order\": \"AO-1\",\n  \"amount\": 5}\nObservation: 42\nFinal Answer: done",
     [("action", "refund", {"order": "AO-1", "amount": 5}, 42), ("final_answer", "done")], "done"),
    ("leading blank lines are not text",
     "\n\n   \nFinal Answer: ok", [("final_answer", "ok")], "ok"),
]

BAD = [
    ("text before the first marker", "I will look it up.\nThought: x", 1, "text before the first marker"),
    ("Action without Action Input", "Thought: t\nAction: lookup_order\nObservation: y", 2,
     "without an Action Input"),
    ("Action at the end", "Thought: t\nAction: lookup_order", 2, "without an Action Input"),
    ("Action Input not JSON", "Action: lookup_order\nAction Input: order AO-1", 2, "Action Input is not JSON"),
    ("Action Input a JSON string, not an object", "Action: lookup_order\nAction Input: \"AO-1\"", 2,
     "must be a JSON object"),
    ("Action Input without Action", "Thought: t\nAction Input: {}", 2, "Action Input: without an Action"),
    ("Observation without Action", "Thought: t\nObservation: x", 2, "Observation: without an Action"),
    ("empty tool name", "Action:\nAction Input: {}", 1, "one tool name"),
    ("a step after the Final Answer", "Final Answer: a\nThought: more", 2, "after the Final Answer"),
    ("no markers at all", "", 1, "no ReAct steps"),
    # nested past the 200 levels every JSON cell is held to (a review: 300 levels crashed the import with
    # "Maximum serialization depth exceeded", 100000 with a RecursionError)
    ("Action Input nested 300 deep", "Action: lookup_order\nAction Input: " + '{"a": ' * 300 + "1" + "}" * 300, 2,
     "nested more than 200 levels deep"),
    ("Action Input nested 100000 deep", "Action: lookup_order\nAction Input: " + '{"a": ' * 100000 + "1"
     + "}" * 100000, 2, "nested more than 200 levels deep"),
]


def _shape(step):
    if step.type == "action":
        return ("action", step.tool, step.args, step.result)
    return (step.type, step.text)


@pytest.mark.parametrize("name,log,steps,final", GOOD, ids=[g[0] for g in GOOD])
def test_parse_good_logs(name, log, steps, final):
    parsed = parse_react(log)
    assert [_shape(s) for s in parsed.steps] == steps
    assert parsed.final_answer == final
    actions = [s for s in parsed.steps if s.type == "action"]
    assert [(c.name, c.args, c.result) for c in parsed.tool_calls] == [(a.tool, a.args, a.result) for a in actions]


@pytest.mark.parametrize("name,log,line,message", BAD, ids=[b[0] for b in BAD])
def test_parse_bad_logs(name, log, line, message):
    with pytest.raises(ReactError) as exc:
        parse_react(log)
    assert exc.value.line == line and message in exc.value.message


def _rows(tmp_path: Path, *outputs: str) -> Path:
    path = tmp_path / "react.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{k}", "item_id": "demo-044", "model": "text-agent", "run_id": "logs",
                                        "output": o}) + "\n" for k, o in enumerate(outputs)))
    return path


def test_import_react_stores_trajectories_that_the_checks_read(tmp_path, capsys):
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(DATA / "demo_evalset.jsonl")]) == 0
    ok = ("Thought: policy says verify first\nAction: verify_identity\nAction Input: {\"email\": \"lee.w@example.com\"}\n"
          "Observation: {\"verified\": true}\nAction: issue_refund\nAction Input: {\"order_id\": \"AO-628870\"}\n"
          "Observation: {\"ok\": true}\nFinal Answer: Verified and refunded.")
    skipped = "Action: issue_refund\nAction Input: {\"order_id\": \"AO-628870\"}\nFinal Answer: Refunded."
    assert main(["--db", str(db), "import", "react", str(_rows(tmp_path, ok, skipped))]) == 0
    assert main(["--db", str(db), "check"]) == 0
    with ann.unit_of_work(db) as d:
        runs = {r.id: r for r in ann.iter_runs(d, where="run_id = 'logs'")}
        passed = dict(d.execute("SELECT run_record_id, passed FROM check_results"
                                " WHERE constraint_id = 'verify_before_refund'").fetchall())
    assert runs["r0"].output == "Verified and refunded." and [s.type for s in runs["r0"].trajectory] == [
        "thought", "action", "action", "final_answer"]
    assert runs["r0"].tool_calls[0].name == "verify_identity"
    assert passed == {"r0": 1, "r1": 0}  # the trajectory check reads the parsed log


def test_import_react_names_file_line_and_log_line_and_imports_nothing(tmp_path, capsys):
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(DATA / "demo_evalset.jsonl")]) == 0
    path = _rows(tmp_path, "Final Answer: fine", "Thought: t\nAction: lookup_order\nObservation: y")
    capsys.readouterr()
    assert main(["--db", str(db), "import", "react", str(path)]) == 2
    err = capsys.readouterr().err
    assert "react.jsonl:2: output: log line 2: Action 'lookup_order' without an Action Input" in err
    with ann.unit_of_work(db) as d:
        assert d.execute("SELECT count(*) FROM run_records").fetchone()[0] == 0
