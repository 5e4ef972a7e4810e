"""`judgecal import inspect` streams the log (issue 16.1): a .eval log's sample entries are read one at a time from the
zip, a .json log's `samples` array through ijson, each validated by inspect_ai's own EvalSample. The rows must be the
rows of a whole read (read_eval_log), in its order; a broken sample entry is refused, naming the file and the entry,
and nothing is imported."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai is not installed (pip install 'judgecal-calibrate[inspect]')")

from inspect_ai.log import EvalError, read_eval_log, write_eval_log  # noqa: E402
from inspect_ai.scorer import Score  # noqa: E402

from judgecal.cli import main  # noqa: E402
from judgecal.evalsets import InputError  # noqa: E402
from judgecal.evalsets import _harness_inspect as inspect_harness  # noqa: E402  # house: private
from judgecal.evalsets._harness import collect  # noqa: E402  # house: private

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "harnesses" / "inspect_capitals.eval"


def epochs_log(folder: Path, ext: str) -> Path:
    """The fixture's three samples as int ids 10, 2, 1 (read_eval_log orders them 1, 2, 10: by epoch, then by the
    id zero-filled) over two epochs, written in that scrambled order, with three scorers (`exact` gives one 0.8, so
    it is no judge), one sample that errored and one grade the grader never gave."""
    log = read_eval_log(str(FIXTURE))
    template = log.samples
    samples = []
    for epoch in (2, 1):
        for k, sid in enumerate([10, 2, 1]):
            s = template[k].model_copy(deep=True, update={"id": sid, "epoch": epoch})
            s.scores["exact"] = Score(value=0.8 if (sid, epoch) == (2, 2) else 1.0)
            if (sid, epoch) == (1, 2):
                s.error = EvalError(message="boom", traceback="tb", traceback_ansi="tb")
            if (sid, epoch) == (10, 1):
                s.scores["model_graded_qa"] = Score(value="I", explanation="Grade not found in model output: hm")
            samples.append(s)
    log.samples = samples
    log.eval.dataset.sample_ids = [10, 2, 1]
    log.eval.config.epochs = 2
    path = folder / f"epochs.{ext}"
    write_eval_log(log, str(path))
    return path


def whole(path: Path):
    """The same reader on read_eval_log's whole read: the import as it was before it streamed."""
    log = read_eval_log(str(path))
    original = inspect_harness._open_log
    inspect_harness._open_log = lambda p: (log, inspect_harness._WholeLog(log))
    try:
        return collect(inspect_harness.stream_inspect(path))
    finally:
        inspect_harness._open_log = original


def rows(h) -> tuple:
    return ([r.model_dump() for r in h.items.rows], [r.model_dump() for r in h.runs.rows], h.verdicts.rows,
            h.items.lines, h.runs.lines, h.verdicts.lines, dict(h.skipped))


@pytest.mark.parametrize("ext", ["eval", "json"])
def test_the_streamed_import_is_the_whole_read_row_for_row(tmp_path: Path, ext: str) -> None:
    path = epochs_log(tmp_path, ext)
    streamed = collect(inspect_harness.stream_inspect(path))
    assert rows(streamed) == rows(whole(path))
    # In read_eval_log's order (epoch, then id as a number: 1, 2, 10), not the order the entries were written in.
    eval_id = read_eval_log(str(path), header_only=True).eval.eval_id
    order = [(s.id, s.epoch) for s in read_eval_log(str(path)).samples]
    assert order == [(1, 1), (2, 1), (10, 1), (1, 2), (2, 2), (10, 2)]
    assert [r.id for r in streamed.runs.rows] == [f"inspect:{eval_id}:{i}:{e}" for i, e in order]
    # The mapping itself: the errored sample is a run record with its error and no verdict; the grade never given is
    # an error row; `exact` (one 0.8 among 1.0s) is left out and counted.
    errored = [r for r in streamed.runs.rows if r.error]
    assert [r.id for r in errored] == [f"inspect:{eval_id}:1:2"] and errored[0].error == "boom"
    assert not [v for v in streamed.verdicts.rows if v.run_record_id == errored[0].id]
    assert [v.error for v in streamed.verdicts.rows if v.error] == ["harness_error"]
    assert len(streamed.verdicts.rows) == 5 * 2 and streamed.skipped == {
        "scores of exact (not pass/fail throughout the log)": 6}


def test_the_fixture_log_and_its_json_import_as_the_whole_read(tmp_path: Path) -> None:
    as_json = tmp_path / "capitals.json"
    write_eval_log(read_eval_log(str(FIXTURE)), str(as_json))
    for path in (FIXTURE, as_json):
        assert rows(collect(inspect_harness.stream_inspect(path))) == rows(whole(path))


def test_the_log_is_never_read_whole(tmp_path: Path, monkeypatch) -> None:
    # The attack on the memory bound: a change that quietly goes back to read_eval_log's whole read still passes
    # every row test above. Only the header may be read by read_eval_log (.json with NaN aside, tested below).
    calls = []
    real = inspect_harness._inspect_ai

    def spy():
        ins = real()
        return ins._replace(read_eval_log=lambda *a, **k: calls.append(k) or ins.read_eval_log(*a, **k))

    monkeypatch.setattr(inspect_harness, "_inspect_ai", spy)
    for ext in ("eval", "json"):
        collect(inspect_harness.stream_inspect(epochs_log(tmp_path, ext)))
    assert calls == [{"header_only": True}, {"header_only": True}]


def rewrite(src: Path, dst: Path, change: dict[str, bytes | None]) -> Path:
    """A copy of a .eval zip with some entries replaced (bytes) or left out (None)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = change.get(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)
    return dst


def counts(db: Path) -> tuple[int, ...]:
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                     for t in ("eval_items", "run_records", "verdicts"))


def refused(tmp_path: Path, log: Path, capsys) -> str:
    """Import the fixture, then `log`: exit 2, and the project holds what it held."""
    db = tmp_path / "p.db"
    assert main(["--db", str(db), "import", "inspect", str(FIXTURE)]) == 0
    before = counts(db)
    capsys.readouterr()
    assert main(["--db", str(db), "import", "inspect", str(log)]) == 2
    assert counts(db) == before
    return capsys.readouterr().err


def test_a_log_missing_a_sample_entry_imports_what_it_holds_as_read_eval_log_does(tmp_path: Path) -> None:
    # An interrupted or cancelled run leaves a log with fewer samples than its dataset: read_eval_log reads the
    # samples that are there, and so does the import (the header's list of sample ids is not a promise).
    log = rewrite(epochs_log(tmp_path, "eval"), tmp_path / "missing.eval", {"samples/2_epoch_1.json": None})
    streamed = collect(inspect_harness.stream_inspect(log))
    assert rows(streamed) == rows(whole(log))
    assert len(streamed.runs.rows) == 5 and not [r for r in streamed.runs.rows if r.id.endswith(":2:1")]


@pytest.mark.parametrize("entry, why", [
    (b'{"id": 2, "epoch": 1, "input": "x"', "invalid JSON (line 1 of the entry)"),
    (json.dumps({"id": 2, "epoch": "first", "input": "x", "target": "y"}).encode(),
     "samples/2_epoch_1.json -> epoch: not an Inspect AI sample"),
    (json.dumps([1, 2]).encode(), "samples/2_epoch_1.json: not an Inspect AI sample"),
])
def test_a_broken_sample_entry_is_refused_naming_the_file_and_the_entry(tmp_path: Path, capsys, entry: bytes,
                                                                        why: str) -> None:
    log = rewrite(epochs_log(tmp_path, "eval"), tmp_path / "broken.eval", {"samples/2_epoch_1.json": entry})
    err = refused(tmp_path, log, capsys)
    assert f"{log}: samples/2_epoch_1.json" in err and why in err


def test_a_sample_whose_transcript_is_broken_is_refused_in_the_second_pass(tmp_path: Path, capsys,
                                                                          monkeypatch) -> None:
    # The first pass validates ids, epochs and scores only; a broken event is found when the sample is read whole,
    # after rows of earlier samples went to the store (chunks of 2 rows here): the whole file is still refused,
    # nothing imported.
    from judgecal.evalsets import _harness  # house: private

    real = _harness.HarnessBuilder.__init__
    monkeypatch.setattr(_harness.HarnessBuilder, "__init__", lambda self, kind, file: real(self, kind, file, batch=2))
    src = epochs_log(tmp_path, "eval")
    with zipfile.ZipFile(src) as z:
        data = json.loads(z.read("samples/10_epoch_2.json"))
    data["events"] = [{"event": "no such event"}]
    log = rewrite(src, tmp_path / "events.eval", {"samples/10_epoch_2.json": json.dumps(data).encode()})
    err = refused(tmp_path, log, capsys)
    assert f"{log}:6: samples[5] (samples/10_epoch_2.json) -> events" in err


def test_a_sample_entry_with_a_bad_checksum_is_refused(tmp_path: Path, capsys) -> None:
    src = epochs_log(tmp_path, "eval")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp_path / "crc.eval", "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))
    with zipfile.ZipFile(tmp_path / "crc.eval") as z:
        info = z.getinfo("samples/2_epoch_1.json")
    raw = bytearray((tmp_path / "crc.eval").read_bytes())
    # A stored entry's data starts after its 30-byte local header, name and extra field; one letter of it changed
    # (`"id":2` -> `"id":3`): still JSON, still a sample, but its CRC no longer matches.
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    at = raw.index(b'"id":2,', start)
    assert at < start + info.compress_size
    raw[at + 5] = ord("3")
    (tmp_path / "crc.eval").write_bytes(bytes(raw))
    err = refused(tmp_path, tmp_path / "crc.eval", capsys)
    assert f"{tmp_path / 'crc.eval'}: samples/2_epoch_1.json: cannot read this sample entry: BadZipFile" in err


def test_a_json_log_with_a_broken_sample_is_refused_with_its_place(tmp_path: Path, capsys) -> None:
    src = epochs_log(tmp_path, "json")
    doc = json.loads(src.read_text(encoding="utf-8"))
    doc["samples"][3]["epoch"] = "first"
    log = tmp_path / "broken.json"
    log.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert f"{log}:4: samples[3] -> epoch: not an Inspect AI sample" in refused(tmp_path, log, capsys)
    truncated = tmp_path / "truncated.json"
    text = src.read_text(encoding="utf-8")
    truncated.write_text(text[: len(text) // 2], encoding="utf-8")
    lines = truncated.read_text(encoding="utf-8").count("\n") + 1
    assert f"{truncated}:{lines}: (json): invalid JSON: parse error: premature EOF" in refused(tmp_path, truncated,
                                                                                             capsys)


def test_a_json_log_with_nan_is_read_whole_as_before(tmp_path: Path) -> None:
    # inspect_ai writes a float that is not finite as NaN, which is no JSON for ijson (yajl); inspect_ai reads it.
    # Such a log is read whole (as before streaming) rather than refused: the same rows as read_eval_log's.
    log = read_eval_log(str(FIXTURE))
    log.samples[0].scores["model_graded_fact"].value = float("nan")
    path = tmp_path / "nan.json"
    write_eval_log(log, str(path))
    assert "NaN" in path.read_text(encoding="utf-8")
    streamed = collect(inspect_harness.stream_inspect(path))
    assert rows(streamed) == rows(whole(path))
    assert streamed.skipped == {"scores of model_graded_fact (not pass/fail throughout the log)": 3}


def test_an_old_single_score_is_named_by_the_logs_scorer_as_read_eval_log_names_it(tmp_path: Path) -> None:
    # Old .json logs wrote one `score` per sample; EvalLog names it after the log's first scorer when it validates
    # the whole log. The streamed reader validates samples one at a time, so it must name it the same way.
    src = tmp_path / "capitals.json"
    write_eval_log(read_eval_log(str(FIXTURE)), str(src))
    doc = json.loads(src.read_text(encoding="utf-8"))
    for s in doc["samples"]:
        s["score"] = s.pop("scores")["model_graded_qa"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc), encoding="utf-8")
    streamed = collect(inspect_harness.stream_inspect(old))
    assert rows(streamed) == rows(whole(old))
    assert {v.constraint_id for v in streamed.verdicts.rows} == {doc["results"]["scores"][0]["name"]}


def test_no_samples_is_still_an_error(tmp_path: Path, capsys) -> None:
    src = epochs_log(tmp_path, "eval")
    with zipfile.ZipFile(src) as z:
        empty = rewrite(src, tmp_path / "empty.eval", {n: None for n in z.namelist() if n.startswith("samples/")})
    assert "samples: the log holds no samples" in refused(tmp_path, empty, capsys)
    with pytest.raises(InputError, match="holds no samples"):
        collect(inspect_harness.stream_inspect(empty))


def test_a_zip_layout_we_do_not_know_is_read_by_read_eval_log(tmp_path: Path, monkeypatch) -> None:
    # Should another inspect_ai keep its samples elsewhere in the zip, finding no entry under samples/ must not
    # become "the log holds no samples": read_eval_log, which knows its layouts, reads the log whole.
    path = epochs_log(tmp_path, "eval")
    monkeypatch.setattr(inspect_harness, "_SAMPLES_DIR", "elsewhere/")
    streamed = collect(inspect_harness.stream_inspect(path))
    assert len(streamed.runs.rows) == 6 and rows(streamed) == rows(whole(path))


def test_a_json_log_with_a_lone_surrogate_is_refused_with_its_line(tmp_path: Path, capsys) -> None:
    # yajl would read "\ud800" as "?" and the import would store text the log does not hold; the first pass is also
    # the document's check (inspect_ai refuses this log too, so there is no whole read to fall back on).
    src = tmp_path / "capitals.json"
    write_eval_log(read_eval_log(str(FIXTURE)), str(src))
    text = src.read_text(encoding="utf-8")
    log = tmp_path / "surrogate.json"
    log.write_text(text.replace('"target": "Paris"', '"target": "Par\\ud800is"', 1), encoding="utf-8")
    line = text[: text.index('"target": "Paris"')].count("\n") + 1
    assert f"{log}:{line}: (json): invalid JSON: a lone surrogate escape" in refused(tmp_path, log, capsys)
