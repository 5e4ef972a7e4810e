"""Repeats added to labelled pairs by an import are refused (found by a hostile review, wave 15).

A judge's verdicts on a pair are its repeats under one rubric version and judge model, and the pair's judge label is
their majority. `import verdicts` (and every harness import, which lands through it) took new repeats on pairs that
humans had already labelled: a Langfuse evaluator edited after reading the disagreements, re-run and re-exported,
landed as repeats 1 and 2 of the same version, the majority flipped to the humans' answers and the gate went from
kappa 0.600 to 1.000. Such rows are now refused (file, line, field; nothing stored); the same rows before any label,
or under another rubric version, are taken."""

from __future__ import annotations

import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main

from conftest import import_c1_run, label_drawn_c1


def _repeats(folder: Path, name: str, records: range, *, rubric: str = "myrubric") -> Path:
    """Repeats 1 and 2 of judge J on c1 for these run records, each saying the truth (pass on odd k)."""
    path = folder / name
    path.write_text("".join(
        json.dumps({"run_record_id": f"r{k}", "constraint_id": "c1", "rubric": rubric, "judge_model": "J",
                    "repeat": repeat, "label": "pass" if k % 2 else "fail", "created_at": "2026-01-02T00:00:00Z"})
        + "\n" for k in records for repeat in (1, 2)))
    return path


def _kappa(db: str, capsys) -> str:
    capsys.readouterr()
    main(["--db", db, "gate", "--min-kappa", "0.8"])
    return capsys.readouterr().out


def test_repeats_on_labelled_pairs_are_refused(tmp_path, capsys):
    db = str(tmp_path / "p.db")
    import_c1_run(db, tmp_path, 0, 40, judge_right=False)  # J wrong on every pair
    assert main(["--db", db, "sample", "--rate", "0.5"]) == 0
    label_drawn_c1(db)
    gate_before = _kappa(db, capsys)
    assert "FAIL" in gate_before or "failed" in gate_before.lower()
    with ann.unit_of_work(db) as conn:
        before = ann.table_counts(conn)
        labelled = sorted(int(r[0][1:]) for r in conn.execute("SELECT DISTINCT run_record_id FROM human_labels"))
    path = _repeats(tmp_path, "again.jsonl", range(40))
    capsys.readouterr()
    assert main(["--db", db, "import", "verdicts", str(path)]) == 2
    err = capsys.readouterr().err
    first = 2 * labelled[0] + 1  # the first line of a labelled pair's repeats
    assert f"again.jsonl:{first}: repeat: run record 'r{labelled[0]}' × 'c1' already carries human labels" in err, err
    with ann.unit_of_work(db) as conn:
        assert ann.table_counts(conn) == before  # nothing stored, the unlabelled pairs' rows neither
    assert _kappa(db, capsys) == gate_before

    # the same answers as another rubric version are another judge: taken
    other = _repeats(tmp_path, "other.jsonl", range(40), rubric="tuned")
    assert main(["--db", db, "import", "verdicts", str(other)]) == 0


def test_repeats_before_any_label_are_taken(tmp_path):
    db = str(tmp_path / "p.db")
    import_c1_run(db, tmp_path, 0, 20)
    assert main(["--db", db, "import", "verdicts", str(_repeats(tmp_path, "more.jsonl", range(20)))]) == 0
    with ann.unit_of_work(db) as conn:
        assert conn.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 60


def test_a_files_own_repeats_across_its_chunks_are_taken(tmp_path):
    """The refusal is of repeats on verdicts stored before the import: a file's own repeats of a group it begins stay
    its own whichever chunk they fall in (a review of this fix: a project moved labels-first with more than one
    chunk of verdicts was refused at the chunk boundary)."""
    from judgecal.annotations import store as av
    from judgecal.evalsets import stream_rows

    db = str(tmp_path / "p.db")
    import_c1_run(db, tmp_path, 0, 20)
    assert main(["--db", db, "sample", "--rate", "0.5"]) == 0
    label_drawn_c1(db)
    path = tmp_path / "tuned.jsonl"
    path.write_text("".join(
        json.dumps({"run_record_id": f"r{k}", "constraint_id": "c1", "rubric": "tuned", "judge_model": "J",
                    "repeat": repeat, "label": "pass"}) + "\n" for k in range(20) for repeat in range(3)))
    with ann.unit_of_work(db) as conn:
        got = av.import_verdicts(conn, stream_rows(path, av.VerdictImportRow, id_field=None, batch=2))
    assert got["inserted"] == 60
