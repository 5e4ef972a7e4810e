"""Bad or awkward input files and flag values: every import kind gives a clear error naming the file (exit 2, no
traceback) and changes nothing; Excel's UTF-8 BOM and Windows line endings work; an export re-imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import annotations as ann
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
