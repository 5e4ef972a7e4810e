"""`import verdicts` rows that name a rubric without its sha256 (found by a review, wave 14).

A row giving only `rubric` (a name) was filed under the latest stored version of that name, whatever its
`rubric_version` said: verdicts written for version 1 were credited to a revision, filled its "judged every pair"
coverage and entered its verification. A name-only row now goes to the version `rubric_version` numbers in this
project, or to the name's only version; a name with several versions and no `rubric_version`, or a version the name
does not have, refuses the file (file, line, field) and stores nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import run_alone

OTHER_SHA = "c" * 64


def _rubric(path: Path) -> tuple[str, str]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT name, sha256 FROM rubrics WHERE version = 1 ORDER BY created_at LIMIT 1").fetchone()


def _pair(path: Path) -> tuple[str, str]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT run_record_id, constraint_id FROM verdict_pairs ORDER BY id LIMIT 1").fetchone()


def _write(tmp_path: Path, name: str, rows: list[dict]) -> Path:
    out = tmp_path / name
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def _verdicts(path: Path, judge_model: str) -> list[tuple]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT v.rubric_sha256, r.version, v.label FROM verdicts v JOIN rubrics r"
                         " ON r.sha256 = v.rubric_sha256 WHERE v.judge_model = ?", [judge_model]).fetchall()


def _with_revision(demo: Path, tmp_path: Path) -> tuple[str, str, tuple[str, str]]:
    """The demo plus a second version of its rubric's name (a file with that version's sha256)."""
    name, sha = _rubric(demo)
    rid, cid = _pair(demo)
    revision = _write(tmp_path, "revision.jsonl", [{
        "run_record_id": rid, "constraint_id": cid, "rubric": name, "rubric_sha256": OTHER_SHA, "rubric_version": 2,
        "judge_model": "other-judge", "label": "pass"}])
    assert run_alone(demo, "import", "verdicts", str(revision))[0] == 0
    with sqlite3.connect(demo) as c:
        assert sorted(c.execute("SELECT version FROM rubrics WHERE name = ?", [name])) == [(1,), (2,)]
    return name, sha, (rid, cid)


def test_a_name_only_row_goes_to_the_version_it_numbers(demo, tmp_path):
    name, sha, (rid, cid) = _with_revision(demo, tmp_path)
    rows = _write(tmp_path, "v1.jsonl", [{"run_record_id": rid, "constraint_id": cid, "rubric": name,
                                          "rubric_version": 1, "judge_model": "hand-judge", "label": "fail"}])
    rc, out = run_alone(demo, "import", "verdicts", str(rows))
    assert rc == 0, out
    assert _verdicts(demo, "hand-judge") == [(sha, 1, "fail")]  # not the revision (the latest)


def test_a_name_with_several_versions_and_no_version_is_refused(demo, tmp_path, capsys):
    name, _, (rid, cid) = _with_revision(demo, tmp_path)
    rows = _write(tmp_path, "bare.jsonl", [{"run_record_id": rid, "constraint_id": cid, "rubric": name,
                                            "judge_model": "hand-judge", "label": "fail"}])
    rc, _ = run_alone(demo, "import", "verdicts", str(rows))
    err = capsys.readouterr().err
    assert rc == 2
    assert "bare.jsonl:1: rubric: " in err and "versions 1, 2" in err, err
    assert _verdicts(demo, "hand-judge") == []


def test_a_version_the_name_does_not_have_is_refused(demo, tmp_path, capsys):
    name, _, (rid, cid) = _with_revision(demo, tmp_path)
    rows = _write(tmp_path, "v3.jsonl", [{"run_record_id": rid, "constraint_id": cid, "rubric": name,
                                          "rubric_version": 3, "judge_model": "hand-judge", "label": "fail"}])
    rc, _ = run_alone(demo, "import", "verdicts", str(rows))
    err = capsys.readouterr().err
    assert rc == 2
    assert "v3.jsonl:1: rubric_version: " in err and "no version 3" in err, err
    assert _verdicts(demo, "hand-judge") == []


def test_a_name_with_one_version_still_takes_a_bare_row(demo, tmp_path):
    name, sha = _rubric(demo)
    rid, cid = _pair(demo)
    rows = _write(tmp_path, "bare.jsonl", [{"run_record_id": rid, "constraint_id": cid, "rubric": name,
                                            "judge_model": "hand-judge", "label": "fail"}])
    assert run_alone(demo, "import", "verdicts", str(rows))[0] == 0
    assert _verdicts(demo, "hand-judge") == [(sha, 1, "fail")]
