"""A judge run that selects no pair stores no rubric version (a review, wave 17): `judge --limit 0` stored one while
judging nothing, so an author could register candidate versions before any label existed and later gate the luckiest
as "a first version: no labels could tune it"."""

from __future__ import annotations

import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.cli import main
from judgecal.judge import shipped_rubric
from openai_stub import StubServer
from test_judge_fixtures import make_project


def _names(db_path: Path) -> list[tuple[str, int]]:
    with ann.unit_of_work(db_path) as db:
        return [(r.name, r.version) for r in av.list_rubrics(db)]


def test_a_judge_run_that_selects_nothing_stores_no_rubric_version(tmp_path: Path, capsys) -> None:
    project = make_project(tmp_path / "p.db")
    rubric = tmp_path / "candidate.txt"
    rubric.write_text(shipped_rubric().template.replace("CONSTRAINT:", "Read twice.\nCONSTRAINT:"))
    requests = tmp_path / "r.jsonl"
    with StubServer() as server:
        base = ["--db", str(project), "judge", "--model", "m", "--base-url", server.url, "--rubric", str(rubric),
                "--quiet"]
        assert main([*base, "--limit", "0"]) == 0
        assert main([*base, "--only-labelled"]) == 0  # no label yet: selects nothing
        assert main(["--db", str(project), "judge", "--model", "m", "--rubric", str(rubric), "--limit", "0",
                     "--batch-requests", str(requests)]) == 0
        assert "not stored: no pair selected" in capsys.readouterr().out
        assert server.requests == [] and _names(project) == []
        # the empty request file binds no settings: a judge at another temperature is not refused over it (it was,
        # "asked with temperature 1.0 (a --batch-requests file)" for a file that asked nothing: a review of the fixes)
        assert main(["--db", str(project), "judge", "--model", "m", "--rubric", str(rubric), "--limit", "0",
                     "--temperature", "1.0", "--batch-requests", str(requests)]) == 0
        with ann.unit_of_work(project) as db:
            assert db.execute("SELECT count(*) FROM settings WHERE key LIKE '%request%'").fetchone()[0] == 0
        # the run that judges a pair stores it, as the first version of its name
        assert main([*base, "--limit", "1", "--repeats", "1"]) == 0
        assert _names(project) == [("candidate", 1)] and len(server.requests) == 1
        # a stored version is named by a later run that selects nothing, and nothing new is stored
        assert main([*base, "--limit", "0"]) == 0
    with ann.unit_of_work(project) as db:
        settings = [json.loads(s) for (s,) in db.execute("SELECT settings FROM batches ORDER BY started_at, id")]
    assert [s["rubric_version"] for s in settings if s.get("limit") == 0] == [None, 1]
    assert _names(project) == [("candidate", 1)]
