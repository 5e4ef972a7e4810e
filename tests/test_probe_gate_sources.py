"""Probes as they feed `judgecal gate` (a hostile review, wave 17): a probe asks the judge at the settings of the
verdicts it stands in for and of its own stored answers; the gate holds a position limit on the probe and the stored
pairwise verdicts both and names the settings each was asked with; a "paraphrase" with the rubric's own words is
refused; only `import llmbar` rows are read as both orders, whatever a verdict file is called; an unknown
`--constraint` is named."""

from __future__ import annotations

import shutil

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import verdict_position_bias
from judgecal.cli import main
from judgecal.judge import paraphrases_of, shipped_rubric
from openai_stub import StubServer, by_position, prefers, verdicts
from test_probes import _jsonl, clean, gate_probe_checks, obeys_injection, pass_fail_project, probe


def judge(db, url: str, *extra: str) -> int:
    return main(["--db", str(db), "judge", "--model", "j", "--base-url", url, "--api-key", "x", "--quiet",
                 "--max-retries", "0", *extra])


def probe_rows(db) -> int:
    with ann.unit_of_work(db) as d:
        return d.execute("SELECT count(*) FROM probe_verdicts").fetchone()[0]


def test_an_unknown_probe_constraint_is_named(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        capsys.readouterr()
        assert probe(db, s.url, "verbosity", "--constraint", "corect") == 2
        assert s.count == 0
    err = capsys.readouterr().err
    assert "constraint 'corect' does not exist" in err and "label the random sample" not in err
