"""Bad or awkward input files and flag values: every import kind gives a clear error naming the file (exit 2, no
traceback) and changes nothing; Excel's UTF-8 BOM and Windows line endings work; an export re-imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main
from test_store_import import counts, project, write_jsonl  # noqa: F401  (project: the shared fixture)

KINDS = ("evalset", "runs", "labels", "verdicts", "ifeval", "llmbar")


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "bad"
    d.mkdir()
    (d / "empty.jsonl").write_bytes(b"")
    (d / "blank.jsonl").write_bytes(b"\n  \n")
    (d / "header.csv").write_text("id,instruction,input,constraints\n", encoding="utf-8")
    (d / "latin1.jsonl").write_bytes('{"id": "caf\xe9"}\n'.encode("latin-1"))
    (d / "a-directory.jsonl").mkdir()
    return {p.name: p for p in d.iterdir()} | {"missing.jsonl": d / "missing.jsonl"}


@pytest.mark.parametrize("kind", KINDS)
def test_bad_files_give_a_clear_error_and_change_nothing(project: Path, tmp_path: Path, capsys, kind: str) -> None:
    before = counts(project)
    for name, path in _bad_files(tmp_path).items():
        rc = main(["--db", str(project), "import", kind, str(path)])
        err = capsys.readouterr().err
        assert rc == 2, (kind, name, err)
        assert "Traceback" not in err and str(path) in err, (kind, name, err)
        assert counts(project) == before, (kind, name)


def test_utf8_bom_and_crlf_are_read(project: Path, tmp_path: Path, capsys) -> None:
    item = {"id": "bom-1", "instruction": "Say hi", "constraints": [{"id": "k", "text": "says hi", "type": "content"}]}
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(item).encode() + b"\r\n")
    assert main(["--db", str(project), "import", "evalset", str(path)]) == 0, capsys.readouterr().err
    # An Excel CSV export: BOM, CRLF, a plain-text `input` cell (text, not JSON) and a JSON list cell.
    csv_path = tmp_path / "excel.csv"
    csv_path.write_bytes(
        b"\xef\xbb\xbfid,instruction,input,constraints\r\n"
        b'csv-1,Say hi,hello there,"[{""id"": ""k"", ""text"": ""says hi"", ""type"": ""content""}]"\r\n'
        b'csv-2,Say bye,"{""a"": 1}","[{""id"": ""k"", ""text"": ""says bye"", ""type"": ""content""}]"\r\n')
    assert main(["--db", str(project), "import", "evalset", str(csv_path)]) == 0, capsys.readouterr().err
    with ann.unit_of_work(project) as db:
        items = ann.load_items(db, ["csv-1", "csv-2", "bom-1"])
    assert items["csv-1"].input == "hello there" and items["csv-2"].input == {"a": 1}
    runs = tmp_path / "runs.csv"
    runs.write_bytes(b"\xef\xbb\xbfid,item_id,model,output\r\ncr-1,csv-1,m,hi\r\n")
    assert main(["--db", str(project), "import", "runs", str(runs)]) == 0, capsys.readouterr().err
    labels = tmp_path / "labels.jsonl"
    labels.write_bytes(b"\xef\xbb\xbf" + json.dumps(
        {"run_record_id": "cr-1", "constraint_id": "k", "reviewer": "x", "label": "pass"}).encode() + b"\r\n")
    assert main(["--db", str(project), "import", "labels", str(labels)]) == 0, capsys.readouterr().err
    llmbar = tmp_path / "llmbar.jsonl"
    llmbar.write_bytes(b"\xef\xbb\xbf" + json.dumps({"item_id": "lb-1", "instruction": "i", "output_1": "a",
                                                     "output_2": "b", "human_label": 1}).encode() + b"\r\n")
    assert main(["--db", str(project), "import", "llmbar", str(llmbar)]) == 0, capsys.readouterr().err


def test_an_empty_export_reimports(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    assert main(["--db", str(project), "export", "labels", "--out", str(out)]) == 0
    assert main(["--db", str(project), "import", "labels", str(out)]) == 0


def test_integers_too_large_for_sqlite_are_input_errors(project: Path, tmp_path: Path, capsys) -> None:
    before = counts(project)
    path = write_jsonl(tmp_path / "big.jsonl", [{"id": "big", "item_id": "i1", "model": "m", "output": "x",
                                                 "input_tokens": 10 ** 30}])
    assert main(["--db", str(project), "import", "runs", str(path)]) == 2
    err = capsys.readouterr().err
    assert "big.jsonl:1: input_tokens" in err and "Traceback" not in err
    assert counts(project) == before


def test_label_rows_without_timestamps_reimport_as_a_noop(project: Path, tmp_path: Path, capsys) -> None:
    path = write_jsonl(tmp_path / "labels.jsonl", [
        {"run_record_id": "r1", "constraint_id": "order_no", "reviewer": "ann", "label": "pass"},
        {"run_record_id": "r1", "constraint_id": "order_no", "reviewer": "ann", "label": "fail", "event": "change"},
    ])
    assert main(["--db", str(project), "import", "labels", str(path)]) == 0
    assert main(["--db", str(project), "import", "labels", str(path)]) == 0
    assert "0 imported, 2 already present" in capsys.readouterr().out
    assert counts(project)["human_labels"] == 2


@pytest.mark.parametrize("argv", [
    ["judge", "--model", "m", "--base-url", "http://127.0.0.1:9", "--max-retries", "-1"],
    ["judge", "--model", "m", "--base-url", "http://127.0.0.1:9", "--timeout", "-1"],
    ["judge", "--model", "m", "--base-url", "http://127.0.0.1:9", "--limit", "-1"],
    ["judge", "--model", "m", "--base-url", "http://127.0.0.1:9", "--repeats", "-2"],
    ["run", "--model", "m", "--base-url", "http://127.0.0.1:9", "--limit", "-1"],
    ["run", "--model", "m", "--base-url", "http://127.0.0.1:9", "--timeout", "0"],
    ["run", "--model", "m", "--base-url", "http://127.0.0.1:9", "--max-retries", "-3"],
    ["sample", "--rate", "1.5"],
    ["sample", "--rate", "0"],
    ["sample", "--overlap", "-0.1"],
    ["gate", "--min-kappa", "2"],
    ["gate", "--min-kappa", "nan"],
    ["gate", "--min-kappa", "0.4", "--min-pass-rate", "1.5"],
    ["gate", "--min-kappa", "0.4", "--min-coverage", "0"],
    ["gate", "--min-kappa", "0.4", "--min-coverage", "0.01"],  # below the 10% floor the product enforces (wave 14)
    ["report", "--rate", "abc"],
    ["price", "m", "nan", "1"],
    ["price", "m", "1", "inf"],
    ["app", "--port", "70000"],
])
def test_bad_flag_values_exit_2_without_a_traceback(project: Path, capsys, argv: list[str]) -> None:
    before = counts(project)
    try:
        rc = main(["--db", str(project), *argv])
    except SystemExit as exc:  # argparse
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "error" in err, err
    assert counts(project) == before


@pytest.mark.parametrize("target", ["missing-dir/out.jsonl", "."])
def test_export_to_a_bad_path_is_a_clear_error(project: Path, tmp_path: Path, capsys, target: str) -> None:
    rc = main(["--db", str(project), "export", "labels", "--out", str(tmp_path / target)])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error:") and "Traceback" not in err


def test_a_db_that_is_not_a_database_is_a_clear_error(tmp_path: Path, capsys) -> None:
    not_db = tmp_path / "notes.txt"
    not_db.write_text("hello, not sqlite\n" * 100)
    assert main(["--db", str(not_db), "report"]) == 2
    err = capsys.readouterr().err
    assert str(not_db) in err and "Traceback" not in err
    assert main(["--db", str(tmp_path), "report"]) == 2  # a directory
    assert str(tmp_path) in capsys.readouterr().err


# --------------------------------------------------------------------------- malformed files, table-driven
# Each case: an import kind (or the --tools / --thresholds flag), the file, and the line the error must name
# (None: the file as a whole). Every one must exit 2 with "FILE:LINE" (or the file) on stderr, no traceback, and
# leave every table as it was. Hostile shapes first: nesting deep enough to blow Python's recursion limit, lone
# surrogate escapes (valid JSON, not storable text), CSV cells past the csv module's limit.

DEEP = "[" * 100_000 + "]" * 100_000  # RecursionError in json.loads
DEEPISH = "[" * 300 + "]" * 300  # past MAX_JSON_DEPTH, within Python's recursion limit
ITEM = {"id": "new-1", "instruction": "Say hi", "constraints": [{"id": "k", "text": "says hi", "type": "content"}]}
RUN = {"id": "new-r", "item_id": "i1", "model": "m", "output": "hi"}
LABEL = {"run_record_id": "r1", "constraint_id": "order_no", "reviewer": "ana", "label": "pass"}
VERDICT = {"run_record_id": "r1", "constraint_id": "order_no", "rubric": "strict", "judge_model": "j", "label": "pass"}
IFEVAL = {"key": 9001, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}],
          "response": "no commas here"}
LLMBAR = {"item_id": "lb-1", "instruction": "i", "output_1": "a", "output_2": "b", "human_label": 1}


def _jl(*rows) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def _with(row: dict, field: str, raw_json: str) -> str:
    """The row as JSON text with `field` set to `raw_json` spliced in verbatim."""
    rest = {k: v for k, v in row.items() if k != field}
    return json.dumps(rest)[:-1] + f', "{field}": {raw_json}}}'


def _csv(header: list[str], *rows: list[str]) -> str:
    import csv
    import io

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue()


SUR = "bad \ud800 text"
ITEM_CSV = ["id", "instruction", "input", "constraints"]
CONSTRAINTS_CELL = json.dumps(ITEM["constraints"])
RUN_CSV = ["id", "item_id", "model", "output", "tool_calls", "trajectory"]
HUGE = "x" * (16 * 1024 * 1024 + 1)  # past CSV_CELL_LIMIT

MALFORMED = [
    # ---- evalset, JSONL
    ("evalset-deep-first-line", "evalset", "e.jsonl", _jl(DEEP), 1),
    ("evalset-deep-header-line", "evalset", "e.jsonl", _jl('{"judgecal_export": ' + DEEP + "}", ITEM), 1),
    ("evalset-deep-input", "evalset", "e.jsonl", _jl(_with(ITEM, "input", DEEP)), 1),
    ("evalset-deepish-input", "evalset", "e.jsonl", _jl(_with(ITEM, "input", DEEPISH)), 1),
    ("evalset-deep-second-line", "evalset", "e.jsonl", _jl(ITEM, DEEP), 2),
    ("evalset-surrogate-instruction", "evalset", "e.jsonl", _jl(ITEM | {"instruction": SUR}), 1),
    ("evalset-surrogate-low-first", "evalset", "e.jsonl", _jl(ITEM | {"reference": "\udc00\ud800"}), 1),
    ("evalset-surrogate-in-key", "evalset", "e.jsonl", _jl(ITEM | {"fixtures": {"t\ud800": 1}}), 1),
    ("evalset-truncated-json", "evalset", "e.jsonl", _jl(json.dumps(ITEM)[:-3]), 1),
    ("evalset-array-row", "evalset", "e.jsonl", _jl([ITEM]), 1),
    ("evalset-nan", "evalset", "e.jsonl", _jl(_with(ITEM, "reference", "NaN")), 1),
    ("evalset-missing-constraints", "evalset", "e.jsonl", _jl({"id": "x", "instruction": "i"}), 1),
    ("evalset-empty-constraints", "evalset", "e.jsonl", _jl(ITEM | {"constraints": []}), 1),
    ("evalset-unknown-field", "evalset", "e.jsonl", _jl(ITEM | {"instructoin": "typo"}), 1),
    ("evalset-duplicate-id", "evalset", "e.jsonl", _jl(ITEM, ITEM), 2),
    ("evalset-unknown-checker", "evalset", "e.jsonl", _jl(ITEM | {"constraints": [
        {"id": "k", "text": "t", "type": "format", "check": {"id": "no:such", "args": {}}}]}), 1),
    ("evalset-unknown-label-set", "evalset", "e.jsonl", _jl(ITEM | {"constraints": [
        {"id": "k", "text": "t", "type": "content", "labels": "stars"}]}), 1),
    ("evalset-u2028-between-rows", "evalset", "e.jsonl", json.dumps(ITEM) + "\u2028" + json.dumps(ITEM) + "\n", 1),
    ("evalset-nul-line", "evalset", "e.jsonl", _jl(ITEM, "\x00"), 2),
    ("evalset-bad-line-3", "evalset", "e.jsonl", _jl(ITEM, ITEM | {"id": "new-2"}, "{"), 3),
    # ---- evalset, CSV
    ("evalset-csv-huge-cell", "evalset", "e.csv", _csv(ITEM_CSV, ["x", HUGE, "", CONSTRAINTS_CELL]), 2),
    ("evalset-csv-deep-input", "evalset", "e.csv", _csv(ITEM_CSV, ["x", "i", DEEP, CONSTRAINTS_CELL]), 2),
    ("evalset-csv-deepish-input", "evalset", "e.csv", _csv(ITEM_CSV, ["x", "i", DEEPISH, CONSTRAINTS_CELL]), 2),
    ("evalset-csv-deep-constraints", "evalset", "e.csv", _csv(ITEM_CSV, ["x", "i", "", DEEP]), 2),
    ("evalset-csv-surrogate-constraints", "evalset", "e.csv",
     _csv(ITEM_CSV, ["x", "i", "", json.dumps([{"id": "k", "text": SUR, "type": "content"}])]), 2),
    ("evalset-csv-surrogate-input", "evalset", "e.csv", _csv(ITEM_CSV, ["x", "i", json.dumps({"q": SUR}), CONSTRAINTS_CELL]), 2),
    ("evalset-csv-bad-json-cell", "evalset", "e.csv", _csv(ITEM_CSV, ["x", "i", "", "[{"]), 2),
    ("evalset-csv-extra-cells", "evalset", "e.csv", _csv(ITEM_CSV, ["x", "i", "", CONSTRAINTS_CELL, "extra"]), 2),
    ("evalset-csv-unknown-column", "evalset", "e.csv", _csv(ITEM_CSV + ["colour"], ["x", "i", "", CONSTRAINTS_CELL, "red"]), 2),
    ("evalset-csv-second-row-deep", "evalset", "e.csv",
     _csv(ITEM_CSV, ["x", "i", "", CONSTRAINTS_CELL], ["y", "i", DEEP, CONSTRAINTS_CELL]), 3),
    # ---- runs, JSONL
    ("runs-deep-first-line", "runs", "r.jsonl", _jl(DEEP), 1),
    ("runs-deep-tool-args", "runs", "r.jsonl", _jl(_with(RUN, "tool_calls", '[{"name": "t", "args": {"a": ' + DEEP + "}}]")), 1),
    ("runs-deep-trajectory", "runs", "r.jsonl", _jl(_with(RUN, "trajectory", DEEP)), 1),
    ("runs-surrogate-output", "runs", "r.jsonl", _jl(RUN | {"output": SUR}), 1),
    ("runs-surrogate-model", "runs", "r.jsonl", _jl(RUN | {"model": "m\ud800"}), 1),
    ("runs-unknown-item", "runs", "r.jsonl", _jl(RUN | {"item_id": "nope"}), 1),
    ("runs-negative-tokens", "runs", "r.jsonl", _jl(RUN | {"input_tokens": -1}), 1),
    ("runs-huge-tokens", "runs", "r.jsonl", _jl(RUN | {"output_tokens": 10 ** 30}), 1),
    ("runs-infinite-latency", "runs", "r.jsonl", _jl(_with(RUN, "latency_ms", "Infinity")), 1),
    ("runs-no-content", "runs", "r.jsonl", _jl({"id": "x", "item_id": "i1", "model": "m"}), 1),
    ("runs-bad-step-type", "runs", "r.jsonl", _jl(RUN | {"trajectory": [{"type": "dance", "text": "x"}]}), 1),
    ("runs-action-without-tool", "runs", "r.jsonl", _jl(RUN | {"trajectory": [{"type": "action"}]}), 1),
    ("runs-duplicate-id", "runs", "r.jsonl", _jl(RUN, RUN), 2),
    ("runs-changed-existing-id", "runs", "r.jsonl", _jl(RUN | {"id": "r1", "output": "changed"}), 1),
    ("runs-deep-after-header", "runs", "r.jsonl", _jl({"judgecal_export": {"kind": "runs"}}, DEEP), 2),
    ("runs-deep-header-line", "runs", "r.jsonl", _jl('{"judgecal_export": ' + DEEP + "}", RUN), 1),
    # ---- runs, CSV
    ("runs-csv-huge-output", "runs", "r.csv", _csv(RUN_CSV, ["x", "i1", "m", HUGE, "", ""]), 2),
    ("runs-csv-deep-tool-calls", "runs", "r.csv", _csv(RUN_CSV, ["x", "i1", "m", "o", DEEP, ""]), 2),
    ("runs-csv-deep-trajectory", "runs", "r.csv", _csv(RUN_CSV, ["x", "i1", "m", "o", "", DEEP]), 2),
    ("runs-csv-surrogate-tool-calls", "runs", "r.csv",
     _csv(RUN_CSV, ["x", "i1", "m", "o", json.dumps([{"name": SUR}]), ""]), 2),
    ("runs-csv-surrogate-trajectory", "runs", "r.csv",
     _csv(RUN_CSV, ["x", "i1", "m", "", "", json.dumps([{"type": "final_answer", "text": SUR}])]), 2),
    ("runs-csv-tokens-not-a-number", "runs", "r.csv", "id,item_id,model,output,input_tokens\nx,i1,m,o,many\n", 2),
    # ---- labels
    ("labels-deep-first-line", "labels", "l.jsonl", _jl(DEEP), 1),
    ("labels-deep-header-line", "labels", "l.jsonl", _jl('{"judgecal_export": ' + DEEP + "}", LABEL), 1),
    ("labels-surrogate-note", "labels", "l.jsonl", _jl(LABEL | {"note": SUR}), 1),
    ("labels-surrogate-reviewer", "labels", "l.jsonl", _jl(LABEL | {"reviewer": "\udfff"}), 1),
    ("labels-deep-field", "labels", "l.jsonl", _jl(_with(LABEL, "note", DEEP)), 1),
    ("labels-not-in-label-set", "labels", "l.jsonl", _jl(LABEL | {"label": "maybe"}), 1),
    ("labels-unknown-pair", "labels", "l.jsonl", _jl(LABEL | {"run_record_id": "nope"}), 1),
    ("labels-missing-reviewer", "labels", "l.jsonl", _jl({k: v for k, v in LABEL.items() if k != "reviewer"}), 1),
    ("labels-csv-huge-note", "labels", "l.csv",
     _csv(["run_record_id", "constraint_id", "reviewer", "label", "note"], ["r1", "order_no", "ana", "pass", HUGE]), 2),
    ("labels-csv-extra-cells", "labels", "l.csv",
     _csv(["run_record_id", "constraint_id", "reviewer", "label"], ["r1", "order_no", "ana", "pass", "x"]), 2),
    # ---- verdicts
    ("verdicts-deep-first-line", "verdicts", "v.jsonl", _jl(DEEP), 1),
    ("verdicts-deep-header-line", "verdicts", "v.jsonl", _jl('{"judgecal_export": ' + DEEP + "}", VERDICT), 1),
    ("verdicts-surrogate-reason", "verdicts", "v.jsonl", _jl(VERDICT | {"reason": SUR}), 1),
    ("verdicts-surrogate-model", "verdicts", "v.jsonl", _jl(VERDICT | {"judge_model": "j\ud800"}), 1),
    ("verdicts-label-and-error", "verdicts", "v.jsonl", _jl(VERDICT | {"error": "timeout"}), 1),
    ("verdicts-neither", "verdicts", "v.jsonl", _jl({k: v for k, v in VERDICT.items() if k != "label"}), 1),
    ("verdicts-no-rubric", "verdicts", "v.jsonl", _jl({k: v for k, v in VERDICT.items() if k != "rubric"}), 1),
    ("verdicts-csv-huge-reason", "verdicts", "v.csv",
     _csv(["run_record_id", "constraint_id", "rubric", "judge_model", "label", "reason"],
          ["r1", "order_no", "strict", "j", "pass", HUGE]), 2),
    # ---- ifeval
    ("ifeval-deep-first-line", "ifeval", "i.jsonl", _jl(DEEP), 1),
    ("ifeval-deep-header-line", "ifeval", "i.jsonl", _jl('{"judgecal_export": ' + DEEP + "}", IFEVAL), 1),
    ("ifeval-deep-extra-field", "ifeval", "i.jsonl", _jl(_with(IFEVAL, "extra", DEEP)), 1),
    ("ifeval-deep-kwargs", "ifeval", "i.jsonl", _jl(_with(IFEVAL, "kwargs", "[" + DEEPISH + "]")), 1),
    ("ifeval-surrogate-response", "ifeval", "i.jsonl", _jl(IFEVAL | {"response": SUR}), 1),
    ("ifeval-surrogate-prompt", "ifeval", "i.jsonl", _jl(IFEVAL | {"prompt": "\ud800"}), 1),
    ("ifeval-unknown-instruction", "ifeval", "i.jsonl", _jl(IFEVAL | {"instruction_id_list": ["no:such"]}), 1),
    ("ifeval-kwargs-count", "ifeval", "i.jsonl", _jl(IFEVAL | {"kwargs": [{}, {}]}), 1),
    ("ifeval-duplicate-key", "ifeval", "i.jsonl", _jl(IFEVAL, IFEVAL), 2),
    # ---- llmbar
    ("llmbar-deep-first-line", "llmbar", "b.jsonl", _jl(DEEP), 1),
    ("llmbar-deep-header-line", "llmbar", "b.jsonl", _jl('{"judgecal_export": ' + DEEP + "}", LLMBAR), 1),
    ("llmbar-deep-second-line", "llmbar", "b.jsonl", _jl(LLMBAR, DEEP), 2),
    ("llmbar-deepish-field", "llmbar", "b.jsonl", _jl(_with(LLMBAR, "output_1", DEEPISH)), 1),
    ("llmbar-surrogate-output", "llmbar", "b.jsonl", _jl(LLMBAR | {"output_1": SUR}), 1),
    ("llmbar-surrogate-item-id", "llmbar", "b.jsonl", _jl(LLMBAR | {"item_id": "lb\ud800"}), 1),
    ("llmbar-surrogate-key", "llmbar", "b.jsonl", _jl(LLMBAR | {"\ud800": 1}), 1),
    ("llmbar-bad-human-label", "llmbar", "b.jsonl", _jl(LLMBAR | {"human_label": 3}), 1),
    ("llmbar-missing-output", "llmbar", "b.jsonl", _jl({k: v for k, v in LLMBAR.items() if k != "output_2"}), 1),
    ("llmbar-unknown-field", "llmbar", "b.jsonl", _jl(LLMBAR | {"extra": 1}), 1),
    ("llmbar-array-row", "llmbar", "b.jsonl", _jl([LLMBAR]), 1),
    ("llmbar-duplicate-item", "llmbar", "b.jsonl", _jl(LLMBAR, LLMBAR), 2),
    ("llmbar-invalid-json", "llmbar", "b.jsonl", _jl(LLMBAR, "{nope"), 2),
    # ---- --tools (judgecal run) and --thresholds (judgecal compare)
    ("tools-deep", "--tools", "tools.json", DEEP, 1),
    ("tools-deepish", "--tools", "tools.json", "[" + DEEPISH + "]", 1),
    ("tools-surrogate", "--tools", "tools.json", json.dumps([{"type": "function", "function": {"name": SUR}}]), 1),
    ("tools-not-a-list", "--tools", "tools.json", "{}", None),
    ("tools-invalid-json", "--tools", "tools.json", "[{", 1),
    ("tools-no-name", "--tools", "tools.json", '[{"type": "function", "function": {}}]', None),
    ("thresholds-deep", "--thresholds", "t.json", DEEP, 1),
    ("thresholds-surrogate-key", "--thresholds", "t.json", json.dumps({"\ud800": 1}), 1),
    ("thresholds-unknown-key", "--thresholds", "t.json", '{"max_everything": 1}', None),
    ("thresholds-negative", "--thresholds", "t.json", '{"max_completion_drop_points": -1}', None),
    ("thresholds-invalid-json", "--thresholds", "t.json", "{", 1),
]


def _argv(project: Path, kind: str, path: Path) -> list[str]:
    if kind == "--tools":
        return ["--db", str(project), "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--tools", str(path)]
    if kind == "--thresholds":
        return ["--db", str(project), "compare", "run-a", "run-b", "--thresholds", str(path)]
    return ["--db", str(project), "import", kind, str(path)]


@pytest.mark.parametrize("kind, name, text, line", [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_files_exit_2_naming_file_and_line(project: Path, tmp_path: Path, capsys, kind: str, name: str,
                                                      text: str, line: int | None) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    before = counts(project)
    rc = main(_argv(project, kind, path))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and err.startswith("error:"), err
    if kind.startswith("--"):
        assert str(path) in err and (line is None or f"line {line}" in err), err
    else:
        assert f"{path}:{line}" in err, err
    assert counts(project) == before


def test_the_table_covers_every_import_kind_and_both_formats() -> None:
    assert len(MALFORMED) >= 70 and len({c[0] for c in MALFORMED}) == len(MALFORMED)
    assert {c[1] for c in MALFORMED} == set(KINDS) | {"--tools", "--thresholds"}
    assert {c[1] for c in MALFORMED if c[2].endswith(".csv")} >= {"evalset", "runs", "labels", "verdicts"}


def test_a_csv_cell_past_the_csv_modules_default_limit_imports(project: Path, tmp_path: Path, capsys) -> None:
    """A 200,000-character output is a real model output, not a malformed file (the csv module's default
    limit is 131,072)."""
    path = tmp_path / "long.csv"
    path.write_text(_csv(RUN_CSV, ["long-1", "i1", "m", "y" * 200_000, "", ""]), encoding="utf-8")
    assert main(["--db", str(project), "import", "runs", str(path)]) == 0, capsys.readouterr().err
    with ann.unit_of_work(project) as db:
        assert len(ann.load_run(db, "long-1").output) == 200_000
