"""The project store: imports are all-or-nothing with errors naming file/line/field; exports round-trip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]

ITEMS = [
    {
        "id": "i1", "instruction": "Summarise the order as JSON.", "input": {"order": "A-17"},
        "constraints": [
            {"id": "json", "text": "Valid JSON", "type": "format", "check": {"id": "format:json", "args": {"fenced": False}}},
            {"id": "order_no", "text": "Mentions the order number", "type": "content"},
        ],
        "tags": ["json"], "split": "tune",
    },
    {
        "id": "i2", "instruction": "回答用户的问题。", "input": "退货政策是什么？",
        "constraints": [
            {"id": "polite", "text": "Stays polite", "type": "content", "severity": "nice"},
            {"id": "pick", "text": "Which output is better", "type": "content", "labels": "pairwise"},
        ],
    },
]
RUNS = [
    {"id": "r1", "item_id": "i1", "model": "m-a", "output": '{"order": "A-17"}', "input_tokens": 10, "latency_ms": 12.5},
    {"id": "r2", "item_id": "i1", "model": "m-b", "output": "order A-17 is fine"},
    {"id": "r3", "item_id": "i2", "model": "m-a", "trajectory": [
        {"type": "thought", "text": "查政策"},
        {"type": "action", "tool": "search", "args": {"q": "退货"}, "result": "30天"},
        {"type": "observation", "text": "30天内可退"},
        {"type": "final_answer", "text": "30天内可以退货。"},
    ], "tool_calls": [{"name": "search", "args": {"q": "退货"}, "result": "30天"}]},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(write_jsonl(tmp_path / "items.jsonl", ITEMS))]) == 0
    assert main(["--db", str(db), "import", "runs", str(write_jsonl(tmp_path / "runs.jsonl", RUNS))]) == 0
    return db


def counts(db: Path) -> dict[str, int]:
    with ann.unit_of_work(db) as conn:
        return ann.table_counts(conn)


def test_import_and_load(project: Path) -> None:
    with ann.unit_of_work(project) as db:
        items = ann.load_items(db)
        runs = list(ann.iter_runs(db))
    assert [i.id for i in items.values()] == ["i1", "i2"]
    assert items["i2"].constraint("pick").labels == ("output_1", "output_2")
    assert runs[2].final_text == "30天内可以退货。"
    assert [c.id for c in items["i1"].constraints if c.semantic] == ["order_no"]


def test_reimport_is_idempotent(project: Path, tmp_path: Path, capsys) -> None:
    before = counts(project)
    assert main(["--db", str(project), "import", "evalset", str(tmp_path / "items.jsonl")]) == 0
    assert "0 imported, 2 already present" in capsys.readouterr().out
    assert counts(project) == before


BAD_EVALSETS = {
    "truncated_json": ('{"id": "x", "instruction": "a", "constraints": [{"id": "c", "te', 1, "(json)"),
    "missing_field": ('{"id": "x", "constraints": [{"id": "c", "text": "t", "type": "content"}]}', 1, "instruction"),
    "wrong_type": ('{"id": "x", "instruction": "a", "constraints": [{"id": "c", "text": "t", "type": "content", "severity": 3}]}', 1, "constraints.0.severity"),
    "bad_constraint_type": ('{"id": "x", "instruction": "a", "constraints": [{"id": "c", "text": "t", "type": "vibes"}]}', 1, "constraints.0.type"),
    "unknown_checker": ('{"id": "x", "instruction": "a", "constraints": [{"id": "c", "text": "t", "type": "format", "check": {"id": "format:yaml"}}]}', 1, "unknown checker 'format:yaml'"),
    "missing_checker_arg": ('{"id": "x", "instruction": "a", "constraints": [{"id": "c", "text": "t", "type": "format", "check": {"id": "format:json"}}]}', 1, "missing argument(s): fenced"),
    "unknown_field": ('{"id": "x", "instruction": "a", "constraints": [{"id": "c", "text": "t", "type": "content"}], "colour": 1}', 1, "colour"),
}


@pytest.mark.parametrize("case", BAD_EVALSETS, ids=list(BAD_EVALSETS))
def test_bad_evalset_changes_nothing(project: Path, tmp_path: Path, capsys, case: str) -> None:
    text, bad_line, field = BAD_EVALSETS[case]
    good = json.dumps({"id": "ok", "instruction": "fine", "constraints": [{"id": "c", "text": "t", "type": "content"}]})
    # The bad row is on line 2, after a good one: the good row must not be imported either.
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + text + "\n", encoding="utf-8")
    before = counts(project)
    assert main(["--db", str(project), "import", "evalset", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{bad_line + 1}" in err
    assert field in err
    assert counts(project) == before


def test_duplicate_id_in_file(project: Path, tmp_path: Path, capsys) -> None:
    row = {"id": "dup", "instruction": "a", "constraints": [{"id": "c", "text": "t", "type": "content"}]}
    path = write_jsonl(tmp_path / "dup.jsonl", [row, row])
    before = counts(project)
    assert main(["--db", str(project), "import", "evalset", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2: id: duplicate id 'dup' (first on line 1)" in err
    assert counts(project) == before


def test_changed_item_under_existing_id_is_rejected(project: Path, tmp_path: Path, capsys) -> None:
    changed = dict(ITEMS[0], instruction="something else")
    path = write_jsonl(tmp_path / "changed.jsonl", [changed])
    before = counts(project)
    assert main(["--db", str(project), "import", "evalset", str(path)]) == 2
    assert "already exists with different content" in capsys.readouterr().err
    assert counts(project) == before


@pytest.mark.parametrize(
    "row, field, message",
    [
        ({"id": "r9", "item_id": "nope", "model": "m", "output": "x"}, "item_id", "no eval item 'nope'"),
        ({"id": "r9", "item_id": "i1", "model": "m"}, "(row)", "needs 'output', 'trajectory' or 'error'"),
        ({"id": "r9", "item_id": "i1", "model": "m", "output": "x", "input_tokens": "many"}, "input_tokens", "integer"),
        ({"id": "r9", "item_id": "i1", "model": "m", "trajectory": [{"type": "action"}]}, "trajectory.0", "needs 'tool'"),
    ],
    ids=["unknown_item", "no_content", "wrong_type", "bad_step"],
)
def test_bad_runs_change_nothing(project: Path, tmp_path: Path, capsys, row: dict, field: str, message: str) -> None:
    path = write_jsonl(tmp_path / "runs_bad.jsonl", [{"id": "r8", "item_id": "i1", "model": "m", "output": "ok"}, row])
    before = counts(project)
    assert main(["--db", str(project), "import", "runs", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2" in err and field in err and message in err
    assert counts(project) == before


def test_label_outside_label_set(project: Path, tmp_path: Path, capsys) -> None:
    rows = [
        {"run_record_id": "r1", "constraint_id": "order_no", "reviewer": "ana", "label": "pass"},
        {"run_record_id": "r3", "constraint_id": "pick", "reviewer": "ana", "label": "pass"},
    ]
    path = write_jsonl(tmp_path / "labels.jsonl", rows)
    before = counts(project)
    assert main(["--db", str(project), "import", "labels", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2: label: label 'pass' is not in the constraint's label set ['output_1', 'output_2']" in err
    assert counts(project) == before
    rows[1]["label"] = "output_2"
    write_jsonl(path, rows)
    assert main(["--db", str(project), "import", "labels", str(path)]) == 0
    assert counts(project)["human_labels"] == 2


def test_csv_import(tmp_path: Path) -> None:
    import csv

    path = tmp_path / "items.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "instruction", "constraints", "tags"])
        w.writerow(["c1", "Say hi", json.dumps([{"id": "k", "text": "says hi", "type": "content"}]), '["x"]'])
        w.writerow(["c2", "Say bye", "[not json", ""])
    with pytest.raises(evalsets.InputError) as exc:
        evalsets.read_evalset(path)
    assert exc.value.problems[0].line == 3 and exc.value.problems[0].field == "constraints"
    path.write_text(path.read_text().splitlines()[0] + "\n" + path.read_text().splitlines()[1] + "\n")
    parsed = evalsets.read_evalset(path)
    assert parsed.rows[0].tags == ("x",)


def test_round_trip(project: Path, tmp_path: Path) -> None:
    labels = write_jsonl(tmp_path / "l.jsonl", [
        {"run_record_id": "r1", "constraint_id": "order_no", "reviewer": "ana", "label": "fail", "note": "没有",
         "created_at": "2026-11-01T10:00:00Z"},
    ])
    assert main(["--db", str(project), "import", "labels", str(labels)]) == 0
    assert main(["--db", str(project), "check"]) == 0
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    for kind in ("evalset", "runs", "checks", "labels"):
        assert main(["--db", str(project), "export", kind, "--out", str(first / f"{kind}.jsonl")]) == 0
    db2 = tmp_path / "copy.db"
    for kind in ("evalset", "runs", "labels"):
        assert main(["--db", str(db2), "import", kind, str(first / f"{kind}.jsonl")]) == 0
    assert main(["--db", str(db2), "check"]) == 0
    for kind in ("evalset", "runs", "checks", "labels"):
        assert main(["--db", str(db2), "export", kind, "--out", str(second / f"{kind}.jsonl")]) == 0
        assert (first / f"{kind}.jsonl").read_bytes() == (second / f"{kind}.jsonl").read_bytes(), kind
    header = json.loads((first / "evalset.jsonl").read_text().splitlines()[0])["judgecal_export"]
    assert header["kind"] == "evalset" and len(header["evalset_sha256"]) == 64


def test_evalset_hash_ignores_key_order_and_whitespace() -> None:
    a = evalsets.parse_rows("\n".join(json.dumps(i) for i in ITEMS), evalsets.EvalItem).rows
    shuffled = [json.dumps(dict(reversed(list(i.items()))), indent=None, separators=(" , ", " : ")) for i in reversed(ITEMS)]
    b = evalsets.parse_rows("\n".join(shuffled), evalsets.EvalItem).rows
    assert evalsets.evalset_sha256(a) == evalsets.evalset_sha256(b)
    changed = [a[0].model_copy(update={"instruction": "other"}), a[1]]
    assert evalsets.evalset_sha256(changed) != evalsets.evalset_sha256(a)


def test_failed_transaction_rolls_back(project: Path) -> None:
    with ann.unit_of_work(project) as db:
        before = ann.table_counts(db)
        with pytest.raises(RuntimeError):
            with ann.write(db):
                db.conn.execute("INSERT INTO settings VALUES ('k', 'v')")
                raise RuntimeError("boom")
        assert ann.table_counts(db) == before


WRITER = r"""
import sys
import annotations as ann
db_path, worker = sys.argv[1], int(sys.argv[2])
for i in range(500):
    # One unit of work per row: the hardest case for lock contention.
    with ann.unit_of_work(db_path) as db, ann.write(db):
        db.conn.execute(
            "INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind, created_at)"
            " VALUES ('r1', 'order_no', ?, 'label', 'pass', 1, ?)", (f"w{worker}", ann.now_iso()))
"""


def test_eight_concurrent_writers_lose_nothing(project: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(project), str(w)], env=env, stderr=subprocess.PIPE, text=True)
        for w in range(8)
    ]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    with ann.unit_of_work(project) as db:
        per_worker = dict(db.execute("SELECT reviewer, count(*) FROM human_labels GROUP BY reviewer").fetchall())
    assert per_worker == {f"w{w}": 500 for w in range(8)}


def test_bad_checker_argument_value_is_rejected_at_import(project: Path, tmp_path: Path, capsys) -> None:
    row = {"id": "x", "instruction": "a", "constraints": [
        {"id": "c", "text": "t", "type": "format", "check": {"id": "length:max_words", "args": {"n": -3}}}]}
    path = write_jsonl(tmp_path / "bad_arg.jsonl", [row])
    before = counts(project)
    assert main(["--db", str(project), "import", "evalset", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1" in err and "length:max_words" in err
    assert counts(project) == before
