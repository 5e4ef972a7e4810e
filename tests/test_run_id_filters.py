"""`--run-id` on `check`, `judge` and `gate`: the command reads (or judges) one run's records only; an unknown run id
is bad input (exit 2, naming the project's runs) and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import RunRecord, parse_rows
from judgecal.cli import main
from openai_stub import StubServer
from test_judge_fixtures import make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = make_project(tmp_path / "p.db", n_items=3, label_sets=False)  # run-0-0 .. run-2-0: no run id
    rows = [{"id": f"new-{n}", "item_id": f"item-{n}", "model": "agent-b", "run_id": "R",
             "output": " ".join(["word"] * (10 if n else 100))} for n in range(2)]  # new-0 breaks the 80-word limit
    with ann.unit_of_work(path) as db:
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in rows), RunRecord))
    return path


def test_check_prints_one_runs_metrics(project, capsys):
    assert main(["--db", str(project), "check", "--run-id", "R"]) == 0
    out = capsys.readouterr().out
    assert "5 check results stored" in out  # every record is checked and stored ...
    assert "agent-b" in out and "agent-a" not in out  # ... the metrics are R's: 1 of 2 checks pass
    assert "50.0% (1/2)" in out


def test_judge_judges_one_runs_pairs(project, capsys):
    with StubServer() as server:
        assert main(["--db", str(project), "judge", "--model", "j", "--base-url", server.url, "--repeats", "1",
                     "--run-id", "R", "--quiet"]) == 0
        assert sorted(r.key for r in server.requests) == sorted(
            f"new-{n}|{c}|0" for n in range(2) for c in ("grounded", "polite"))
    with ann.unit_of_work(project) as db:
        settings = json.loads(db.execute("SELECT settings FROM batches").fetchone()[0])
    assert settings["run_id"] == "R" and settings["pairs"] == 4


@pytest.mark.parametrize("command", [["check"], ["judge", "--model", "j", "--base-url", "http://127.0.0.1:9/v1"],
                                     ["gate", "--min-pass-rate", "0.5"]], ids=["check", "judge", "gate"])
def test_unknown_run_id_is_bad_input_and_changes_nothing(project, capsys, command):
    before = project.read_bytes()
    flag = ["--run-id", "nope"]
    assert main(["--db", str(project), *command, *flag]) == 2
    assert "no run records with run_id 'nope'; runs in the project: R" in capsys.readouterr().err
    with ann.unit_of_work(project, readonly=True) as db:
        assert db.execute("SELECT count(*) FROM batches").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM rubrics").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM check_results").fetchone()[0] == 0
    assert len(before) > 0
