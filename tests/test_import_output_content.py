"""Labels and verdicts moved between projects carry the content hash of their run record's answer (an open item of
wave 14's review, closed in wave 15).

`export labels` and `export verdicts` wrote `item_sha256`, so a label made on another text of the item was refused,
but a run record imported again elsewhere with another output under the same id kept every label and verdict made
on the first output: the report counted a `fail` given on an apology as the judge's error on a correct answer. The
exports now write `output_sha256` too (the output, trajectory, messages and tool calls, the JSON ones parsed), and an
import refuses a row whose run record answers otherwise in the project (file, line, field; nothing stored). The hash
does not depend on the stored JSON's key order or spacing; a file without the field is taken as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.store import output_sha256
from judgecal.cli import main

from test_import_item_content import _export  # the demo's export of the records `_project` holds

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "data" / "demo_runs.jsonl"


def _runs() -> list[dict]:
    return [json.loads(line) for line in RUNS.read_text().splitlines()]


def _project(folder: Path, runs: list[dict]) -> str:
    folder.mkdir()
    path = folder / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    db = str(folder / "p.db")
    assert main(["--db", db, "import", "evalset", str(REPO / "data" / "demo_evalset.jsonl")]) == 0
    assert main(["--db", db, "import", "runs", str(path)]) == 0
    return db


def _rows(path: Path) -> list[dict]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if "judgecal_export" not in r]


@pytest.fixture
def exported(demo, tmp_path):
    """The demo's labels and verdicts exported, the rows of `data/demo_runs.jsonl`'s run records only (what
    `_project` holds): each file's path and rows."""
    labels = _export(demo, "labels", tmp_path / "labels.jsonl")
    verdicts = _export(demo, "verdicts", tmp_path / "verdicts.jsonl")
    return labels, _rows(labels), verdicts, _rows(verdicts)


def test_every_exported_row_names_its_answer(exported, demo):
    _, labels, _, verdicts = exported
    assert labels and verdicts
    with ann.unit_of_work(demo, readonly=True) as db:
        stored = {row[0]: output_sha256(*row[1:]) for row in
                  db.execute("SELECT id, output, trajectory, messages, tool_calls FROM run_records")}
    for row in [*labels, *verdicts]:
        assert row["output_sha256"] == stored[row["run_record_id"]]


def test_labels_and_verdicts_made_on_another_output_are_refused(exported, tmp_path, capsys):
    labels_path, labels, verdicts_path, _ = exported
    target = labels[0]["run_record_id"]
    runs = _runs()
    for r in runs:
        if r["id"] == target:
            r["output"] = "I am sorry, I cannot help with that."
    db = _project(tmp_path / "b", runs)
    with ann.unit_of_work(db) as conn:
        before = ann.table_counts(conn)
    capsys.readouterr()
    for kind, path in (("verdicts", verdicts_path), ("labels", labels_path)):
        assert main(["--db", db, "import", kind, str(path)]) == 2, kind
        err = capsys.readouterr().err
        assert f"{path.name}:" in err and f": output_sha256: run record {target!r} answered" in err, err
        assert "it was made on another output" in err
    with ann.unit_of_work(db) as conn:
        assert ann.table_counts(conn) == before  # nothing stored

    # without the field (a hand-written file), as before
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "output_sha256"}) + "\n" for r in labels))
    assert main(["--db", db, "import", "labels", str(bare)]) == 0


def test_the_same_answer_stored_another_way_is_taken(exported, tmp_path):
    """The same runs with every JSON field's keys in another order and spaced otherwise: the same answers."""
    labels_path, _, verdicts_path, _ = exported
    runs = _runs()
    db = _project(tmp_path / "c", runs)
    with ann.unit_of_work(db) as conn:  # the stored JSON texts rewritten, keys reversed and spaced
        rows = conn.execute("SELECT id, trajectory, tool_calls FROM run_records WHERE trajectory IS NOT NULL").fetchall()
        assert rows
        def turned(text):
            def rev(value):
                if isinstance(value, dict):
                    return {k: rev(value[k]) for k in reversed(list(value))}
                if isinstance(value, list):
                    return [rev(v) for v in value]
                return value
            return None if text is None else json.dumps(rev(json.loads(text)), indent=1)
        for rid, trajectory, tool_calls in rows:
            conn.execute("UPDATE run_records SET trajectory = ?, tool_calls = ? WHERE id = ?",
                         [turned(trajectory), turned(tool_calls), rid])
        conn.conn.commit()
    assert main(["--db", db, "import", "verdicts", str(verdicts_path)]) == 0
    assert main(["--db", db, "import", "labels", str(labels_path)]) == 0


def test_the_hash_reads_each_part_of_the_answer():
    base = ("a", '[{"type": "thought", "text": "t"}]', None, '[{"name": "f", "args": {}}]')
    seen = {output_sha256(*base)}
    for i, other in enumerate(("b", '[{"type": "thought", "text": "u"}]', "[]", '[{"name": "g", "args": {}}]')):
        changed = list(base)
        changed[i] = other
        seen.add(output_sha256(*changed))
    assert len(seen) == 5
    # a missing part is not an empty one, and the parts do not run into each other
    assert output_sha256("", None, None, None) != output_sha256(None, None, None, None)
    assert output_sha256(None, "[]", None, None) != output_sha256(None, None, "[]", None)


def test_a_text_answer_hashes_as_its_canonical_json():
    """`output_sha256`'s short way for an answer that is text alone spells what `canonical_json` would."""
    import hashlib

    from judgecal.evalsets import canonical_json

    for output in (None, "", "plain", 'quote " and \\\\ backslash', "ünïcödé ✓ \u2028 \n\t", "\x00\x1f", "🙂" * 3):
        slow = canonical_json({"output": output, "trajectory": None, "messages": None, "tool_calls": None})
        assert output_sha256(output, None, None, None) == hashlib.sha256(slow.encode()).hexdigest(), output
