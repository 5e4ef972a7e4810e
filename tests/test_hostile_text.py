"""Hostile text from models and files: answers holding lone surrogate escapes are stored (escaped, and marked) and
never stop a batch; one row the store refuses becomes one error row; line separators inside strings do not split
JSONL lines; control characters in data never reach the terminal raw. Real SDK over real HTTP, real SQLite."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.store import QueuedWriter
from judgecal.evalsets import printable, storable, storable_value
from judgecal.cli import main
from openai_stub import Reply, StubServer, agent_script, chat_completion, verdicts
from test_judge_fixtures import make_project

SURROGATE_ESCAPED = {"label": "pass", "reason": "half an emoji \ud83d and on"}  # json.dumps writes \\ud83d


def _verdict_rows(db: Path) -> list[dict]:
    with ann.unit_of_work(db) as conn:
        return list(conn.query("SELECT * FROM verdicts ORDER BY run_record_id, repeat"))


def test_a_judge_answer_with_a_lone_surrogate_is_stored_marked_and_not_asked_again(tmp_path: Path, capsys) -> None:
    """300 verdicts; two answers hold a lone surrogate: one as an escape inside the answer's JSON, one as a raw
    character of the message content (the HTTP body escaped it). Today's failure: the writer thread died on the
    first and rolled back its group, the batch stopped after a handful of verdicts."""
    db = make_project(tmp_path / "p.db", n_items=100, label_sets=False)

    def answer(req):
        if req.key == "run-7-0|grounded|1":
            return SURROGATE_ESCAPED
        if req.key == "run-42-0|grounded|2":
            return Reply(200, chat_completion('{"label": "fail", "reason": "raw \ud800 here"}'))
        return "pass"

    argv = ["--db", str(db), "judge", "--model", "judge-x", "--constraint", "grounded", "--repeats", "3",
            "--max-retries", "0", "--quiet"]
    with StubServer(verdicts(answer)) as server:
        assert main(argv + ["--base-url", server.url]) == 0, capsys.readouterr().err
        asked = server.count
        assert main(argv + ["--base-url", server.url]) == 0  # resume: every verdict is stored, nothing is asked
        assert server.count == asked == 300
    rows = _verdict_rows(db)
    assert len(rows) == 300 and all(r["error"] is None for r in rows)
    marked = {(r["run_record_id"], r["repeat"]): r for r in rows if r["error_detail"]}
    assert set(marked) == {("run-7-0", 1), ("run-42-0", 2)}
    first, second = marked[("run-7-0", 1)], marked[("run-42-0", 2)]
    assert first["label"] == "pass" and first["reason"] == "half an emoji \\ud83d and on"
    assert "lone surrogate" in first["error_detail"] and "reason" in first["error_detail"]
    assert second["label"] == "fail" and second["reason"] == "raw \\ud800 here" and "raw" in second["error_detail"]
    assert "300 requested" in capsys.readouterr().out
    out = tmp_path / "verdicts.jsonl"  # the marked rows export and re-import like any other
    assert main(["--db", str(db), "export", "verdicts", "--out", str(out)]) == 0
    assert main(["--db", str(db), "import", "verdicts", str(out)]) == 0, capsys.readouterr().err
    assert "0 imported, 300 already present" in capsys.readouterr().out


def test_a_model_answer_with_a_lone_surrogate_is_one_marked_record_and_the_run_resumes(tmp_path: Path, capsys) -> None:
    db = make_project(tmp_path / "p.db", n_items=100, label_sets=False)

    def model(req, rnd):
        return "Order 57 ships \udc00 soon." if "order 57?" in req.prompt else "It ships on Friday."

    argv = ["--db", str(db), "run", "--model", "model-x", "--run-id", "r1", "--max-retries", "0", "--quiet"]
    with StubServer(agent_script(model)) as server:
        assert main(argv + ["--base-url", server.url]) == 0, capsys.readouterr().err
        asked = server.count
        assert main(argv + ["--base-url", server.url]) == 0
        assert server.count == asked == 100
    with ann.unit_of_work(db) as conn:
        records = list(ann.iter_runs(conn, where="run_id = ?", params=["r1"]))
    assert len(records) == 100
    bad = [r for r in records if r.error is not None]
    assert [r.item_id for r in bad] == ["item-57"]
    assert bad[0].error.startswith("bad_response:") and "output" in bad[0].error
    assert bad[0].output == "Order 57 ships \\udc00 soon."  # kept, escaped: nothing is lost
    assert "bad_response: 1" in capsys.readouterr().out


class _Texts(QueuedWriter[str]):
    """A writer into a table whose CHECK refuses one value: a row the store refuses, whatever the reason."""

    def commit(self, db, rows):
        with ann.write(db):
            db.conn.executemany("INSERT INTO t (x) VALUES (?)", [(r,) for r in rows])

    def fallback(self, row, exc):
        return f"error: {type(exc).__name__}"


def test_one_row_the_store_refuses_becomes_one_error_row_and_the_rest_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with ann.unit_of_work(path):
        pass  # a project file: the writer opens it as one
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x TEXT NOT NULL CHECK (x <> 'poison'))")
    conn.commit()
    conn.close()
    rows = [f"row-{n}" for n in range(1000)]
    rows[500] = "poison"
    rows[700] = "bad \ud800"  # sqlite3 cannot even bind it
    with _Texts(path) as writer:
        for row in rows:
            writer.save(row)
    conn = sqlite3.connect(path)
    stored = [r[0] for r in conn.execute("SELECT x FROM t ORDER BY rowid")]
    conn.close()
    assert len(stored) == 1000
    assert sorted(stored) == sorted([r for r in rows if r not in ("poison", "bad \ud800")]
                                    + ["error: IntegrityError", "error: UnicodeEncodeError"])
    assert [type(e).__name__ for _, e in writer.replaced] == ["IntegrityError", "UnicodeEncodeError"]


@pytest.mark.parametrize("value, expected, changed", [
    ("plain", "plain", False),
    ("a\ud800b", "a\\ud800b", True),
    ({"k\udfff": ["x", "\ud83d"]}, {"k\\udfff": ["x", "\\ud83d"]}, True),
    (["ok", 1, None], ["ok", 1, None], False),
], ids=["clean", "lone-high", "nested-key-and-list", "untouched"])
def test_storable_value(value, expected, changed) -> None:
    out, did = storable_value(value)
    assert out == expected and did is changed
    if isinstance(out, str):
        out.encode("utf-8")
    assert storable("😀") == "😀"  # a real pair is valid text


# Characters `str.splitlines()` takes for line ends, all valid raw inside a JSON string.
SEPARATORS = "\u2028 \u2029 \x85 \x0b \x0c \x1c \x1d \x1e"


def test_line_separators_inside_strings_export_and_reimport_byte_identically(tmp_path: Path, capsys) -> None:
    db = make_project(tmp_path / "p.db", n_items=2, label_sets=False,
                      output="Order {n}" + SEPARATORS + " ships.")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"run_record_id": "run-0-0", "constraint_id": "grounded", "reviewer": "ana",
                                  "label": "pass", "note": "ok" + SEPARATORS}, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    assert main(["--db", str(db), "import", "labels", str(labels)]) == 0, capsys.readouterr().err
    reason = {"label": "pass", "reason": "fine" + SEPARATORS}
    with StubServer(verdicts(lambda req: reason)) as server:
        assert main(["--db", str(db), "judge", "--model", "j", "--base-url", server.url, "--repeats", "1",
                     "--max-retries", "0", "--quiet"]) == 0
    assert main(["--db", str(db), "check"]) == 0
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    kinds = ("evalset", "runs", "labels", "verdicts", "checks")
    for kind in kinds:
        assert main(["--db", str(db), "export", kind, "--out", str(first / f"{kind}.jsonl")]) == 0
    assert "\u2028" in (first / "runs.jsonl").read_text(encoding="utf-8")  # written raw, as JSON allows
    copy = tmp_path / "copy.db"
    for kind in kinds[:4]:
        assert main(["--db", str(copy), "import", kind, str(first / f"{kind}.jsonl")]) == 0, capsys.readouterr().err
    assert main(["--db", str(copy), "check"]) == 0
    for kind in kinds:
        assert main(["--db", str(copy), "export", kind, "--out", str(second / f"{kind}.jsonl")]) == 0
        assert (first / f"{kind}.jsonl").read_bytes() == (second / f"{kind}.jsonl").read_bytes(), kind


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_other_tools_jsonl_and_csv_with_separators_import(tmp_path: Path, capsys, fmt: str) -> None:
    item = {"id": "s1", "instruction": "Say" + SEPARATORS, "input": "in" + SEPARATORS,
            "constraints": [{"id": "k", "text": "says" + SEPARATORS, "type": "content"}]}
    path = tmp_path / f"items.{fmt}"
    if fmt == "jsonl":
        path.write_text("\r\n".join(json.dumps(i, ensure_ascii=False) for i in (item, item | {"id": "s2"})) + "\r\n",
                        encoding="utf-8")
    else:
        import csv
        with open(path, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "instruction", "input", "constraints"])
            for i in ("s1", "s2"):
                w.writerow([i, item["instruction"], item["input"], json.dumps(item["constraints"], ensure_ascii=False)])
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(path)]) == 0, capsys.readouterr().err
    with ann.unit_of_work(db) as conn:
        got = ann.load_items(conn)
    assert got["s2"].instruction == item["instruction"] and got["s1"].constraints[0].text == "says" + SEPARATORS


def test_llmbar_rows_with_separators_import(tmp_path: Path, capsys) -> None:
    path = tmp_path / "llmbar.jsonl"
    path.write_text(json.dumps({"item_id": "lb-1", "instruction": "i" + SEPARATORS, "output_1": "a\u2028b",
                                "output_2": "c\x85d", "human_label": 1}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["--db", str(tmp_path / "p.db"), "import", "llmbar", str(path)]) == 0, capsys.readouterr().err


def test_an_output_nested_too_deep_for_the_json_parser_fails_its_check_and_stops_nothing(tmp_path: Path, capsys) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "j", "instruction": "Answer in JSON", "constraints": [
        {"id": "json", "text": "JSON", "type": "format", "check": {"id": "format:json", "args": {"fenced": False}}},
        {"id": "ife", "text": "JSON", "type": "format", "check": {"id": "detectable_format:json_format"}}]}) + "\n")
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps({"id": f"r{n}", "item_id": "j", "model": "m", "output": out}) + "\n"
                            for n, out in enumerate([deep, "[1]"])))
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(items)]) == 0
    assert main(["--db", str(db), "import", "runs", str(runs)]) == 0
    assert main(["--db", str(db), "check"]) == 0, capsys.readouterr().err
    with ann.unit_of_work(db) as conn:
        got = {(r["run_record_id"], r["constraint_id"]): (r["passed"], r["detail"]) for r in conn.query(
            "SELECT run_record_id, constraint_id, passed, detail FROM check_results")}
    assert got[("r0", "json")][0] == 0 and "nested deeper" in got[("r0", "json")][1]
    assert got[("r0", "ife")][0] == 0 and "nested deeper" in got[("r0", "ife")][1]
    assert got[("r1", "json")][0] == 1 and got[("r1", "ife")][0] == 1


# Control characters an imported name may carry: SGR colour, a window-title OSC, CR (overwrites the line), C1 CSI,
# a bidi override, and a raw line separator.
EVIL = "\x1b[31mred\x1b]0;pwned\x07\rover\x9b2J\u202eevil"
RAW = ("\x1b", "\r", "\x9b", "\u202e", "\x07")


def test_control_characters_in_imported_names_never_reach_the_terminal_raw(tmp_path: Path, capsys) -> None:
    db = tmp_path / "p.db"
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "item" + EVIL, "instruction": "Answer.", "constraints": [
        {"id": "c" + EVIL, "text": "Polite" + EVIL, "type": "content", "labels": ["ok" + EVIL, "bad"]},
        {"id": "n", "text": "short", "type": "format", "check": {"id": "length:max_words", "args": {"n": 5}}}]}) + "\n")
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps({"id": f"r{n}" + EVIL, "item_id": "item" + EVIL, "model": f"m{n}" + EVIL,
                                        "run_id": f"run{n}" + EVIL, "output": "fine" + EVIL}) + "\n" for n in (1, 2)))
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"run_record_id": "r1" + EVIL, "constraint_id": "c" + EVIL, "reviewer": "ana",
                                  "label": "ok" + EVIL, "note": EVIL}) + "\n")
    # a reviewer name the app would refuse is refused by the import too (wave 15), the refusal printed escaped
    evil_reviewer = tmp_path / "evil_reviewer.jsonl"
    evil_reviewer.write_text(labels.read_text().replace('"ana"', json.dumps("ana" + EVIL)))
    outputs = []

    def cli(*argv: str) -> int:
        rc = main(["--db", str(db), *argv])
        captured = capsys.readouterr()
        outputs.append((argv, captured.out + captured.err))
        return rc

    assert cli("import", "evalset", str(items)) == 0
    assert cli("import", "runs", str(runs)) == 0
    assert cli("import", "labels", str(labels)) == 0
    assert cli("import", "labels", str(labels)) == 0
    assert cli("import", "labels", str(evil_reviewer)) == 2
    with StubServer(verdicts(lambda req: {"label": req.labels[0], "reason": EVIL})) as server:
        assert cli("judge", "--model", "judge" + EVIL, "--base-url", server.url, "--repeats", "2", "--max-retries",
                   "0", "--quiet", "--rubric", "strict") == 0
    cli("check")
    cli("sample", "--rate", "1")
    cli("report")
    cli("report", "--format", "md")
    cli("report", "--json")
    cli("gate", "--min-kappa", "0")
    cli("gate", "--min-kappa", "0", "--json")
    cli("compare", "run1" + EVIL, "run2" + EVIL)
    cli("compare", "run1" + EVIL, "run2" + EVIL, "--json")
    cli("compare", "--boundary", "run1" + EVIL)
    cli("price", "judge" + EVIL, "1", "2")
    # Errors that name the hostile value: a run record of an unknown item, a label outside the label set.
    bad = tmp_path / ("bad" + EVIL.replace("/", "") + ".jsonl")
    bad.write_text(json.dumps({"id": "x", "item_id": "nope" + EVIL, "model": "m", "output": "o"}) + "\n")
    assert cli("import", "runs", str(bad)) == 2
    assert cli("compare", "nope" + EVIL, "run2" + EVIL) in (1, 2)
    for argv, text in outputs:
        assert not any(c in text for c in RAW), (argv, text)
    seen = "".join(text for _, text in outputs)
    assert "item\\x1b[31mred" in seen and "\\r" in seen and "\\u009b2J" in seen  # shown escaped, not dropped
    report = next(text for argv, text in outputs if argv == ("report", "--json"))
    assert json.loads(report)  # printed JSON stays valid JSON


def test_printable_escapes_what_drives_a_terminal_and_keeps_text() -> None:
    assert printable("a\x1b[2Jb\rc") == "a\\x1b[2Jb\\rc"
    assert printable("tab\tand\nnewline, 中文, emoji 😀") == "tab\tand\nnewline, 中文, emoji 😀"
    assert printable("\x9b\x7f\u2028\u202e\ud800") == "\\u009b\\u007f\\u2028\\u202e\\ud800"
    printable("\ud800").encode("utf-8")  # a lone surrogate cannot even be written to a UTF-8 stream raw
    assert json.loads(printable(json.dumps({"k": EVIL}, ensure_ascii=False))) == {"k": EVIL}


def test_no_cli_module_prints_around_say() -> None:
    """Every CLI line goes through judgecal.cli.say (defined in judgecal._args; control characters escaped)."""
    import re

    root = Path(__file__).resolve().parents[1] / "judgecal"
    for path in root.rglob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if re.search(r"\bprint\(", line) and not (path.name == "_args.py" and "printable(text)" in line):
                pytest.fail(f"{path.name}:{n}: print( outside judgecal.cli.say: {line.strip()}")
