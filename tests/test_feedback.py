"""`judgecal feedback` and the flywheel: a failing pair becomes a derived eval item that re-runs (fixtures copied),
once per content, with provenance; unknown run records or constraints are exit 2 with nothing changed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main
from openai_stub import StubServer, agent_script

DATA = Path(__file__).resolve().parents[1] / "data"


def project(tmp_path: Path) -> Path:
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(DATA / "demo_evalset.jsonl")]) == 0
    assert main(["--db", str(db), "import", "runs", str(DATA / "demo_runs.jsonl")]) == 0
    assert main(["--db", str(db), "check"]) == 0
    return db


def call_tool_then_answer(req, rnd):
    tools = req.body.get("tools")
    if tools and rnd == 0:
        names = [t["function"]["name"] for t in tools]
        return {"tool_calls": [{"name": "verify_identity" if "verify_identity" in names else names[0],
                                "arguments": {"email": "lee.w@example.com"}}]}
    return "Verified; refund on its way."


def test_feedback_item_reruns_with_its_fixtures(tmp_path, capsys):
    db = project(tmp_path)
    with ann.unit_of_work(db) as d:
        failing = {(f.run_record_id, f.constraint_id): f for f in ann.failing_pairs(d)}
        source = ann.load_items(d, ["demo-044"])["demo-044"]
    # demo-agent-b skipped verification: a mechanical failure, no judge or human involved.
    assert failing[("run-b-044", "verify_before_refund")].why.startswith("check:")
    capsys.readouterr()
    argv = ["--db", str(db), "feedback", "--run-record", "run-b-044", "--constraint", "verify_before_refund",
            "--note", "skipped verification under time pressure", "--who", "alice", "--split", "heldout"]
    assert main(argv) == 0
    item_id = capsys.readouterr().out.strip()
    assert item_id.startswith("cal-")
    with ann.unit_of_work(db) as d:
        item = ann.load_items(d, [item_id])[item_id]
        (fb,) = d.query("SELECT * FROM evalset_feedback")
        sent = {(f.run_record_id, f.constraint_id): f.sent_item_id for f in ann.failing_pairs(d)}
    assert sent[("run-b-044", "verify_before_refund")] == item_id
    assert item.fixtures == source.fixtures and item.fixtures
    assert (item.instruction, item.input, item.reference) == (source.instruction, source.input, source.reference)
    assert [c.id for c in item.constraints] == ["verify_before_refund"]
    assert item.constraints[0].check == source.constraint("verify_before_refund").check
    assert item.derived_from == "demo-044/run-b-044/verify_before_refund" and item.split == "heldout"
    assert (fb["who"], fb["reason"], fb["run_record_id"]) == ("alice", "skipped verification under time pressure",
                                                              "run-b-044")
    # Dedup: the same pair again adds nothing and prints the same id.
    assert main(argv[:-4] + ["--who", "bob"]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == item_id and "already" in out.err
    # The derived item re-runs: its tools answer from the copied fixtures (before, "no fixture for tool ...").
    with StubServer(agent_script(call_tool_then_answer)) as s:
        assert main(["--db", str(db), "run", "--model", "m", "--run-id", "again", "--quiet", "--item", item_id,
                     "--base-url", s.url, "--api-key", "x"]) == 0
    with ann.unit_of_work(db) as d:
        (rec,) = ann.iter_runs(d, where="run_id = ?", params=["again"])
        (passed,) = d.execute("SELECT passed FROM check_results WHERE run_record_id = ?", [rec.id]).fetchone()
    assert rec.error is None and rec.tool_calls[0].name == "verify_identity"
    assert rec.tool_calls[0].error is None and rec.tool_calls[0].result == source.fixtures["verify_identity"]
    assert passed == 1


def test_feedback_bad_input_is_exit_2_and_changes_nothing(tmp_path, capsys):
    db = project(tmp_path)
    with ann.unit_of_work(db) as d:
        before = ann.table_counts(d)
    for extra, message in ((["--run-record", "run-404", "--constraint", "x"], "no run record 'run-404'"),
                           (["--run-record", "run-b-044", "--constraint", "nope"], "no constraint 'nope'")):
        assert main(["--db", str(db), "feedback", "--who", "alice", *extra]) == 2
        assert message in capsys.readouterr().err
    with ann.unit_of_work(db) as d:
        assert ann.table_counts(d) == before
    assert main(["--db", str(tmp_path / "missing.db"), "feedback", "--who", "a", "--run-record", "r",
                 "--constraint", "c"]) == 2
    assert not (tmp_path / "missing.db").exists()


def test_feedback_needs_an_author(tmp_path, capsys, monkeypatch):
    db = project(tmp_path)
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    assert main(["--db", str(db), "feedback", "--run-record", "run-b-044", "--constraint",
                 "verify_before_refund"]) == 2
    assert "--who" in capsys.readouterr().err
    monkeypatch.setenv("JUDGECAL_REVIEWER", "carol")
    assert main(["--db", str(db), "feedback", "--run-record", "run-b-044", "--constraint",
                 "verify_before_refund"]) == 0
    with ann.unit_of_work(db) as d:
        (fb,) = d.query("SELECT who, reason FROM evalset_feedback")
    assert fb == {"who": "carol", "reason": ""}


def test_human_fail_labels_are_failing_pairs(tmp_path):
    db = project(tmp_path)
    with ann.unit_of_work(db) as d:
        run, _, c = next(iter(ann.semantic_pairs(d)))
        assert (run.id, c.id) not in {(f.run_record_id, f.constraint_id) for f in ann.failing_pairs(d)}
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"run_record_id": run.id, "constraint_id": c.id, "reviewer": "dana",
                                  "label": "fail"}) + "\n")
    assert main(["--db", str(db), "import", "labels", str(labels)]) == 0
    with ann.unit_of_work(db) as d:
        rows = {(f.run_record_id, f.constraint_id): f.why for f in ann.failing_pairs(d)}
    assert rows[(run.id, c.id)] == "labelled fail by dana"


def test_the_adjudication_list_shows_the_judges_evidence_not_raw_json(tmp_path):
    """Issue 14.2: a disagreement on a trajectory run is shown as the judge's prompt quotes it (render_evidence:
    numbered steps with the final output marked), never as the stored JSON."""
    from judgecal.evalsets import RunRecord, render_evidence
    from judgecal.annotations.reports._disagreements import _output_text  # house: private

    rec = RunRecord(id="r1", item_id="i1", model="m", output="Your order ships Monday.",
                    trajectory=[{"type": "action", "tool": "lookup", "args": {"id": 7}, "result": "ships Monday"}])
    shown = _output_text(rec)
    assert shown == render_evidence(rec) and '"type": "action"' not in shown and "lookup" in shown
    assert _output_text(RunRecord(id="r2", item_id="i1", model="m", error="timeout: none")) == "(no output: timeout: none)"


def test_feedback_on_a_conversation_keeps_its_turns_and_tells_conversations_apart(tmp_path, capsys):
    """A conversation's derived item dropped its follow-up turns (the failure it was sent for could not happen
    again), and two conversations with one opening message and different follow-ups made one item id, so the
    second was "already in the eval set" (a review, wave 14)."""
    repo = Path(__file__).resolve().parents[1]
    db = str(tmp_path / "conv.db")
    items = [json.loads(line) for line in (repo / "data" / "demo_conversations.jsonl").read_text().splitlines()]
    runs = [json.loads(line) for line in (repo / "data" / "demo_conversation_runs.jsonl").read_text().splitlines()]
    source = next(i for i in items if i.get("turns"))
    twin = dict(source, id=source["id"] + "-twin", turns=[*source["turns"][:-1], "My lawyer says you must."])
    twin_run = dict(next(r for r in runs if r["item_id"] == source["id"]), id="run-twin", item_id=twin["id"])
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in [*items, twin]))
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*runs, twin_run]))
    assert main(["--db", db, "import", "evalset", str(tmp_path / "items.jsonl")]) == 0
    assert main(["--db", db, "import", "runs", str(tmp_path / "runs.jsonl")]) == 0
    first = next(r for r in runs if r["item_id"] == source["id"])
    cid = source["constraints"][0]["id"]
    made = []
    for rid in (first["id"], "run-twin"):
        with ann.unit_of_work(db) as d:
            sent = ann.send_to_evalset(d, rid, cid, who="rev")
        assert sent.added, rid
        made.append(sent.item_id)
    assert made[0] != made[1]
    with ann.unit_of_work(db) as d:
        got = ann.load_items(d, made)
    assert list(got[made[0]].turns) == source["turns"]
    assert list(got[made[1]].turns) == twin["turns"]


def test_feedback_refuses_an_llmbar_pair_and_a_pair_sent_before_keeps_its_item(tmp_path, capsys):
    """`import llmbar` items are A-vs-B comparisons too (their constraint's label set is output_1/output_2): the
    refusal read only `judge --pairwise`'s source (a review of wave 14's fix). A pair already sent returns the item
    it made, whatever id the item would get now (conversation ids gained the turns)."""
    rows = [{"item_id": "lb-1", "dataset": "Natural", "instruction": "Say hi.", "output_1": "Hi.",
             "output_2": "Goodbye.", "human_label": 1}]
    path = tmp_path / "llmbar.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    db = str(tmp_path / "l.db")
    assert main(["--db", db, "import", "llmbar", str(path)]) == 0
    with ann.unit_of_work(db) as d:
        rid, cid = d.execute("SELECT r.id, c.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                             " WHERE c.check_json IS NULL").fetchone()
        before = ann.table_counts(d)
    capsys.readouterr()
    assert main(["--db", db, "feedback", "--who", "me", "--run-record", rid, "--constraint", cid]) == 2
    assert "is an A-vs-B comparison" in capsys.readouterr().err
    with ann.unit_of_work(db) as d:
        assert ann.table_counts(d) == before

    demo = project(tmp_path)
    with ann.unit_of_work(demo) as d:
        first = ann.send_to_evalset(d, "run-b-044", "polite_tone", who="alice")
        again = ann.send_to_evalset(d, "run-b-044", "polite_tone", who="bob")
    assert first.added and (again.item_id, again.added) == (first.item_id, False)


def test_a_second_pair_of_the_same_content_is_sent_with_its_own_note(tmp_path):
    """Both agents' runs of one item failing one constraint make one derived item; the second send found it and
    stored nothing, so its note and author were lost and the pair stayed unsent (a review, wave 18)."""
    db = project(tmp_path)
    with ann.unit_of_work(db) as d:
        items = d.execute("SELECT count(*) FROM eval_items").fetchone()[0]
        a = ann.send_to_evalset(d, "run-a-044", "polite_tone", who="alice", reason="too curt")
        b = ann.send_to_evalset(d, "run-b-044", "polite_tone", who="bob", reason="rude")
        again = ann.send_to_evalset(d, "run-b-044", "polite_tone", who="cat", reason="sent twice")
        rows = d.execute("SELECT item_id, run_record_id, who, reason FROM evalset_feedback ORDER BY rowid").fetchall()
        assert d.execute("SELECT count(*) FROM eval_items").fetchone()[0] == items + 1
    assert a.added and (b.item_id, b.added) == (a.item_id, False) and again == b
    assert rows == [(a.item_id, "run-a-044", "alice", "too curt"), (a.item_id, "run-b-044", "bob", "rude")]


def test_feedback_rows_of_a_project_before_migration_025_are_kept(tmp_path):
    db = project(tmp_path)
    with ann.unit_of_work(db) as d:
        a = ann.send_to_evalset(d, "run-a-044", "polite_tone", who="alice", reason="too curt")
    with sqlite3.connect(db) as conn:  # the table as migration 003 made it: one row per created item
        conn.execute("ALTER TABLE evalset_feedback RENAME TO per_pair")
        conn.execute("CREATE TABLE evalset_feedback (item_id TEXT PRIMARY KEY REFERENCES eval_items(id),"
                     " source_item_id TEXT NOT NULL, run_record_id TEXT NOT NULL, constraint_id TEXT NOT NULL,"
                     " reason TEXT NOT NULL, who TEXT NOT NULL, created_at TEXT NOT NULL)")
        conn.execute("INSERT INTO evalset_feedback SELECT * FROM per_pair")
        conn.execute("DROP TABLE per_pair")
        from judgecal.annotations.store import _schema  # house: private (020's trigger text)
        for statement in _schema._rewrite_triggers(("evalset_feedback",)):
            conn.execute(statement)
        conn.execute("DELETE FROM _migrations WHERE name = '025_feedback_per_pair'")
    with ann.unit_of_work(db) as d:  # opening migrates
        b = ann.send_to_evalset(d, "run-b-044", "polite_tone", who="bob", reason="rude")
        rows = d.execute("SELECT item_id, run_record_id, who FROM evalset_feedback ORDER BY rowid").fetchall()
        triggers = {r[0] for r in d.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                            " AND tbl_name = 'evalset_feedback'")}
    assert rows == [(a.item_id, "run-a-044", "alice"), (b.item_id, "run-b-044", "bob")]
    assert triggers == {"evalset_feedback_rewrite_delete", "evalset_feedback_rewrite_update"}
