"""Streaming imports (issue 16.1): a file is read, validated and inserted in chunks inside ONE write transaction.
Memory follows the chunk, not the file; all-or-nothing is SQLite's own atomicity (a bad row in the last chunk, or a
kill -9 midway, leaves the project as it was); every problem is still named by file, line and field."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]
ITEMS = [{"id": "i1", "instruction": "Answer.", "constraints": [
    {"id": "polite", "text": "Stays polite", "type": "content"}]}]


def _runs(n: int, start: int = 0) -> list[dict]:
    return [{"id": f"r{i}", "item_id": "i1", "model": "m", "output": f"answer {i}"} for i in range(start, start + n)]


def _write(path: Path, rows: list, *, raw_lines: dict[int, str] | None = None) -> Path:
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    for number, text in (raw_lines or {}).items():
        lines[number - 1] = text
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "evalset", str(_write(tmp_path / "items.jsonl", ITEMS))]) == 0
    return db


def _count(db: Path, table: str) -> int:
    with ann.unit_of_work(db, readonly=True) as d:
        return d.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_a_bad_row_in_the_last_chunk_rolls_back_the_chunks_already_written(project: Path, tmp_path: Path):
    runs = _write(tmp_path / "runs.jsonl", _runs(12), raw_lines={11: '{"id": "r10", "item_id": "i1"}'})
    with ann.unit_of_work(project) as db, pytest.raises(evalsets.InputError) as exc:
        ann.import_runs(db, evalsets.stream_rows(runs, evalsets.RunRecord, batch=4))
    assert f"{runs}:11: (row)" in str(exc.value) or f"{runs}:11:" in str(exc.value)
    assert _count(project, "run_records") == 0


def test_the_cli_import_streams_and_stays_all_or_nothing(project: Path, tmp_path: Path, capsys):
    n = evalsets.BATCH_ROWS + 50  # more than one chunk
    runs = _write(tmp_path / "runs.jsonl", _runs(n), raw_lines={n: '{"id": "bad", "item_id": "nope", "model": "m", "output": "x"}'})
    assert main(["--db", str(project), "import", "runs", str(runs)]) == 2
    assert f"{runs}:{n}: item_id: no eval item 'nope' in the project" in capsys.readouterr().err
    assert _count(project, "run_records") == 0
    good = _write(tmp_path / "good.jsonl", _runs(n))
    assert main(["--db", str(project), "import", "runs", str(good)]) == 0
    assert _count(project, "run_records") == n
    assert main(["--db", str(project), "import", "runs", str(good)]) == 0  # identical re-import: a no-op
    assert f"0 imported, {n} already present" in capsys.readouterr().out
    with ann.unit_of_work(project, readonly=True) as db:  # import order is kept across chunks
        seqs = [r[0] for r in db.execute("SELECT seq FROM run_records ORDER BY seq")]
    assert seqs == list(range(1, n + 1))


def test_a_duplicate_id_in_a_later_chunk_names_the_line_it_was_first_on(project: Path, tmp_path: Path):
    rows = _runs(9)
    rows[7] = dict(rows[1], output="another answer")
    runs = _write(tmp_path / "runs.jsonl", rows)
    with ann.unit_of_work(project) as db, pytest.raises(evalsets.InputError) as exc:
        ann.import_runs(db, evalsets.stream_rows(runs, evalsets.RunRecord, batch=3))
    assert f"{runs}:8: id: duplicate id 'r1' (first on line 2)" in str(exc.value)
    assert _count(project, "run_records") == 0


def test_rows_are_written_as_the_file_is_read_not_collected_first(project: Path, tmp_path: Path):
    runs = _write(tmp_path / "runs.jsonl", _runs(10))
    seen: list[int] = []
    with ann.unit_of_work(project) as db:
        def watched():
            for chunk in evalsets.stream_rows(runs, evalsets.RunRecord, batch=3):
                # When the next chunk is read, the earlier ones are already in the (open) transaction.
                seen.append(db.execute("SELECT count(*) FROM run_records").fetchone()[0])
                yield chunk
        ann.import_runs(db, watched())
    assert seen == [0, 3, 6, 9]


def test_problems_are_counted_past_the_kept_ones(project: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(evalsets.ProblemLog, "KEPT", 30)
    runs = _write(tmp_path / "runs.jsonl", [{"id": f"r{i}", "item_id": "i1"} for i in range(100)])
    with ann.unit_of_work(project) as db, pytest.raises(evalsets.InputError) as exc:
        ann.import_runs(db, evalsets.stream_rows(runs, evalsets.RunRecord, batch=7))
    assert str(exc.value).startswith("100 problem(s) in input; nothing was imported")
    assert "… and 80 more" in str(exc.value)
    assert len(exc.value.problems) == 30 and exc.value.problems[0].line == 1


def test_file_text_edge_cases_read_as_one_whole_text_would(tmp_path: Path):
    body = ("\ufeff" + json.dumps(ITEMS[0]) + "\r\n"  # BOM, CRLF
            + "\n  \n"  # blank lines are skipped, numbering goes on
            + json.dumps({**ITEMS[0], "id": "i2", "instruction": "a\u2028b\u0085c"}) + "\r")  # no final newline
    path = tmp_path / "items.jsonl"
    path.write_text(body, encoding="utf-8", newline="")
    streamed = evalsets._io._collect(evalsets.stream_rows(path, evalsets.EvalItem, batch=1))  # house: private
    whole = evalsets.parse_rows(body.lstrip("\ufeff"), evalsets.EvalItem)
    assert [r.id for r in streamed.rows] == ["i1", "i2"] and streamed.lines == [1, 4] == whole.lines
    assert streamed.rows == whole.rows


def test_a_non_utf8_byte_far_into_the_file_is_named_by_offset(project: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(evalsets._io._open_text, "BLOCK", 64)  # house: private
    path = tmp_path / "runs.jsonl"
    good = "".join(json.dumps(r) + "\n" for r in _runs(20)).encode()
    path.write_bytes(good + b'{"id": "x\xff"}\n')
    assert main(["--db", str(project), "import", "runs", str(path)]) == 2
    assert _count(project, "run_records") == 0
    with pytest.raises(evalsets.InputError, match=f"not UTF-8 text .* at byte {len(good) + 9}"):
        list(evalsets.stream_rows(path, evalsets.RunRecord))


def test_a_multi_line_csv_cell_survives_chunking(project: Path, tmp_path: Path):
    path = tmp_path / "runs.csv"
    path.write_text('id,item_id,model,output\nr1,i1,m,"line one\nline two"\nr2,i1,m,plain\n', encoding="utf-8")
    with ann.unit_of_work(project) as db:
        ann.import_runs(db, evalsets.stream_rows(path, evalsets.RunRecord, batch=1))
    with ann.unit_of_work(project, readonly=True) as db:
        assert [r[0] for r in db.execute("SELECT output FROM run_records ORDER BY seq")] == ["line one\nline two", "plain"]


def test_a_killed_import_leaves_the_project_as_it_was(project: Path, tmp_path: Path):
    """kill -9 after chunks were written (uncommitted) -> nothing of the file is in the project."""
    runs = _write(tmp_path / "runs.jsonl", _runs(50))
    marker = tmp_path / "written"
    script = f"""
import time
from pathlib import Path
from judgecal import annotations as ann, evalsets
with ann.unit_of_work({str(project)!r}) as db:
    def slow():
        for k, chunk in enumerate(evalsets.stream_rows({str(runs)!r}, evalsets.RunRecord, batch=10)):
            if k == 3:
                Path({str(marker)!r}).write_text(str(db.execute("SELECT count(*) FROM run_records").fetchone()[0]))
                time.sleep(600)
            yield chunk
    ann.import_runs(db, slow())
"""
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), "the importer never reached its fourth chunk"
        assert marker.read_text() == "30"  # three chunks written inside the open transaction
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert _count(project, "run_records") == 0
    with ann.unit_of_work(project, readonly=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert main(["--db", str(project), "import", "runs", str(runs)]) == 0  # and the write lock is free again
    assert _count(project, "run_records") == 50


# ------------------------------------------------------------------------------------------------ verdicts, labels

SHA = "a" * 64


def _verdict(run: str, *, repeat: int = 0, label: str = "pass", **extra) -> dict:
    return {"run_record_id": run, "constraint_id": "polite", "rubric": "house", "rubric_sha256": SHA,
            "judge_model": "j", "repeat": repeat, "label": label, **extra}


@pytest.fixture
def with_runs(project: Path, tmp_path: Path) -> Path:
    assert main(["--db", str(project), "import", "runs", str(_write(tmp_path / "runs.jsonl", _runs(10)))]) == 0
    return project


def test_verdicts_stream_with_duplicates_across_chunks_and_the_rubric_made_at_the_end(with_runs: Path, tmp_path: Path):
    rows = [_verdict(f"r{i}") for i in range(10)] + [_verdict("r2", label="fail")]
    path = _write(tmp_path / "v.jsonl", rows)
    with ann.unit_of_work(with_runs) as db, pytest.raises(evalsets.InputError) as exc:
        ann.import_verdicts(db, evalsets.stream_rows(path, ann.VerdictImportRow, id_field=None, batch=4))
    assert f"{path}:11: repeat: duplicate verdict (same pair, rubric, model and repeat as line 3)" in str(exc.value)
    assert _count(with_runs, "verdicts") == 0 and _count(with_runs, "rubrics") == 0
    good = _write(tmp_path / "good.jsonl", rows[:10])
    with ann.unit_of_work(with_runs) as db:
        # a new rubric's verdicts go in before the rubric row: the foreign key is checked at COMMIT
        s = ann.import_verdicts(db, evalsets.stream_rows(good, ann.VerdictImportRow, id_field=None, batch=4))
    assert s == {"inserted": 10, "unchanged": 0}
    with ann.unit_of_work(with_runs, readonly=True) as db:
        assert db.execute("SELECT name, version FROM rubrics").fetchall() == [("house", 1)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    changed = _write(tmp_path / "changed.jsonl", rows[:9] + [_verdict("r9", label="fail")])
    assert main(["--db", str(with_runs), "import", "verdicts", str(changed)]) == 2
    assert _count(with_runs, "verdicts") == 10


def test_a_verdict_naming_a_missing_run_rolls_back_and_creates_no_rubric(with_runs: Path, tmp_path: Path, capsys):
    rows = [_verdict(f"r{i}") for i in range(10)] + [_verdict("r99")]
    path = _write(tmp_path / "v.jsonl", rows)
    assert main(["--db", str(with_runs), "import", "verdicts", str(path)]) == 2
    # the field at fault is the run record (it named constraint_id before: a review, wave 13)
    assert f"{path}:11: run_record_id: no run record 'r99' (so no constraint 'polite' on it)" in capsys.readouterr().err
    assert _count(with_runs, "verdicts") == 0 and _count(with_runs, "rubrics") == 0


def test_untimed_labels_stay_idempotent_across_chunks(with_runs: Path, tmp_path: Path):
    row = {"run_record_id": "r1", "constraint_id": "polite", "reviewer": "ana", "label": "pass"}
    path = _write(tmp_path / "labels.jsonl", [row, row, row])
    with ann.unit_of_work(with_runs) as db:
        assert ann.import_labels(db, evalsets.stream_rows(path, ann.HumanLabelRow, id_field=None, batch=1)) == 3
    with ann.unit_of_work(with_runs) as db:  # the same file again: every row matches a stored event
        assert ann.import_labels(db, evalsets.stream_rows(path, ann.HumanLabelRow, id_field=None, batch=1)) == 0
    more = _write(tmp_path / "more.jsonl", [row] * 4)
    with ann.unit_of_work(with_runs) as db:  # one more than stored: exactly one is new
        assert ann.import_labels(db, evalsets.stream_rows(more, ann.HumanLabelRow, id_field=None, batch=2)) == 1
    assert _count(with_runs, "human_labels") == 4
