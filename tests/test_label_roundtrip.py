"""A project's own label export imported back adds nothing (found by a review, wave 13).

`import labels` skips a row identical to a stored event. It compared `created_at` as text, but the app stores
`now_iso()` ("…:13.692Z") and an export writes the same moment as "…:13.692000Z" / a file may say "+00:00": every
label saved in the app was imported a second time, and the report moved (changed-after-reveal 1 → 18 on the demo:
each reviewer's doubled events read as events after their blind label). Matched on the moment now."""

from __future__ import annotations

import json
import sqlite3

from judgecal import annotations as ann

from conftest import run_alone


def _rows(path) -> list[dict]:
    """The label rows of an export (after its header line)."""
    return [row for row in map(json.loads, path.read_text().splitlines()) if "judgecal_export" not in row]


def _events(path) -> list[tuple]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT run_record_id, constraint_id, reviewer, event, label, blind, created_at"
                         " FROM human_labels ORDER BY id").fetchall()


def test_importing_the_projects_own_export_adds_nothing(unlabelled_demo, tmp_path):
    path = unlabelled_demo
    with sqlite3.connect(path) as c:
        pairs = c.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' ORDER BY rowid"
                          " LIMIT 6").fetchall()
    with ann.unit_of_work(path) as db:  # as the Review page saves them
        for k, p in enumerate(pairs):
            ann.record_label(db, "alice" if k % 2 else "bob", ann.Pair(*p), "pass" if k % 3 else "fail")
        ann.undo_last(db, "alice")
        ann.record_label(db, "alice", ann.Pair(*pairs[5]), "fail")
    before = _events(path)
    report = run_alone(path, "report", "--json")[1]
    out = tmp_path / "labels.jsonl"
    assert run_alone(path, "export", "labels", "--out", str(out))[0] == 0
    exported = [row["created_at"] for row in _rows(out)]
    assert len(exported) == len(before)
    assert exported[0] != before[0][-1]  # the same moment spelt another way: what the text comparison missed
    rc, said = run_alone(path, "import", "labels", str(out))
    assert rc == 0 and f"0 imported, {len(before)} already present" in said, said
    assert _events(path) == before
    assert run_alone(path, "report", "--json")[1] == report

    # the same moments spelt "+00:00" (another tool's export) are the same events too
    lines = [json.loads(line) for line in out.read_text().splitlines()]  # the export's header line too
    for row in lines:
        if "created_at" in row:
            row["created_at"] = row["created_at"].replace("Z", "+00:00")
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(row) + "\n" for row in lines))
    rc, said = run_alone(path, "import", "labels", str(other))
    assert rc == 0 and "0 imported" in said, said
    assert _events(path) == before

    # and without an offset (read as UTC, as the report reads a stored time without one)
    for row in lines:
        if "created_at" in row:
            row["created_at"] = row["created_at"].replace("+00:00", "")
    other.write_text("".join(json.dumps(row) + "\n" for row in lines))
    rc, said = run_alone(path, "import", "labels", str(other))
    assert rc == 0 and "0 imported" in said, said
    assert _events(path) == before


def test_an_event_at_another_moment_is_still_imported(unlabelled_demo, tmp_path):
    path = unlabelled_demo
    with sqlite3.connect(path) as c:
        pair = c.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' LIMIT 1").fetchone()
    with ann.unit_of_work(path) as db:
        ann.record_label(db, "alice", ann.Pair(*pair), "pass")
    out = tmp_path / "labels.jsonl"
    assert run_alone(path, "export", "labels", "--out", str(out))[0] == 0
    (row,) = _rows(out)
    row["created_at"] = "2020-01-01T00:00:00.001Z"  # one millisecond after a moment nobody labelled at
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(row) + "\n")
    rc, said = run_alone(path, "import", "labels", str(other))
    assert rc == 0 and "1 imported" in said, said
    assert len(_events(path)) == 2


def test_an_undo_row_must_name_a_pair_of_the_project(unlabelled_demo, tmp_path, capsys):
    """An undo carries no label, but its pair must exist (a review, wave 13: an unknown run record stopped the import
    on SQLite's foreign key with no file, line or field; an unknown constraint was stored and exported on)."""
    path = unlabelled_demo
    before = _events(path)
    with sqlite3.connect(path) as c:
        rid = c.execute("SELECT id FROM run_records ORDER BY seq LIMIT 1").fetchone()[0]
    for name, row, said in (
            ("a", {"run_record_id": "nope", "constraint_id": "grounded_in_policy"},
             "a.jsonl:1: run_record_id: no run record 'nope' (so no constraint 'grounded_in_policy' on it)"),
            ("b", {"run_record_id": rid, "constraint_id": "no_such"},
             f"b.jsonl:1: constraint_id: no constraint 'no_such' on run record '{rid}'")):
        f = tmp_path / f"{name}.jsonl"
        f.write_text(json.dumps(row | {"reviewer": "ann", "event": "undo"}) + "\n")
        capsys.readouterr()
        assert run_alone(path, "import", "labels", str(f))[0] == 2
        assert said in capsys.readouterr().err
        assert _events(path) == before


def test_label_problems_are_listed_in_line_order_past_the_first_thousand(unlabelled_demo, tmp_path, capsys):
    """The printed list keeps the first 1000 problems: a row's missing label must stay in its place among the pair
    problems, not be collected after them (then line 1's problem was the one left out)."""
    path = unlabelled_demo
    rows = [{"run_record_id": "run-a-001", "constraint_id": "delivery_date_correct", "reviewer": "ann"}]
    rows += [{"run_record_id": f"nope-{k}", "constraint_id": "c", "reviewer": "ann", "label": "pass"}
             for k in range(1000)]
    f = tmp_path / "f.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    capsys.readouterr()
    assert run_alone(path, "import", "labels", str(f))[0] == 2
    listed = [line.strip() for line in capsys.readouterr().err.splitlines() if "f.jsonl:" in line]
    assert listed[0] == f"{f}:1: label: missing label", listed[:2]
