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


@pytest.mark.parametrize("name", ["llmbar:v.jsonl", "LLMBar:v.jsonl"])
def test_a_verdict_file_named_like_an_llmbar_import_is_not_read_as_both_orders(tmp_path, capsys, monkeypatch, name):
    """The attack: a plain `judge --repeats 2` (the original order twice) of a judge that always picks the output
    shown first, exported and imported from a file named `llmbar:v.jsonl`: its batch id `import:llmbar:v.jsonl` read
    as LLMBar's both orders, a perfectly order-consistent judge, and `--max-position-bias 0.55` passed."""
    items = [{"id": f"pw-{k}", "instruction": f"Pick the better answer {k}.", "input": {"q": f"question {k}"},
              "constraints": [{"id": "better", "text": "Which output is better?", "type": "content",
                               "labels": "pairwise"}]} for k in range(12)]
    runs = [{"id": f"r-{k}", "item_id": f"pw-{k}", "model": "m", "run_id": "ra",
             "output": f"[Output 1]\nanswer A {k}\n\n[Output 2]\nanswer B {k}"} for k in range(12)]
    for db in (tmp_path / "src.db", tmp_path / "dst.db"):
        assert main(["--db", str(db), "import", "evalset", str(_jsonl(tmp_path / "i.jsonl", items))]) == 0
        assert main(["--db", str(db), "import", "runs", str(_jsonl(tmp_path / "r.jsonl", runs))]) == 0
    with StubServer(by_position("output_1")) as s:
        assert judge(tmp_path / "src.db", s.url, "--repeats", "2") == 0
    assert main(["--db", str(tmp_path / "src.db"), "export", "verdicts", "--out", str(tmp_path / "v.jsonl")]) == 0
    shutil.copy(tmp_path / "v.jsonl", tmp_path / name)
    monkeypatch.chdir(tmp_path)
    assert main(["--db", str(tmp_path / "dst.db"), "import", "verdicts", name]) == 0
    with ann.unit_of_work(tmp_path / "dst.db") as d:
        assert verdict_position_bias(d) == []
        (batch_id,) = [r[0] for r in d.execute("SELECT DISTINCT batch_id FROM verdicts")]
    assert batch_id == f"import:./{name}"
    _, (check,) = gate_probe_checks(tmp_path / "dst.db", capsys, "--max-position-bias", "0.55")
    assert not check["ok"] and "no position probe was run" in check["reason"]


def test_llmbar_imports_are_still_read_as_both_orders(tmp_path, capsys):
    rows = [{"item_id": f"x/{k}", "dataset": "X", "instruction": f"Say hi {k}", "output_1": f"hi {k}",
             "output_2": f"yo {k}", "human_label": 1, "judge_s_order_original": 1, "judge_s_order_swapped": 1}
            for k in range(6)]
    db = tmp_path / "l.db"
    assert main(["--db", str(db), "import", "llmbar", str(_jsonl(tmp_path / "llmbar.jsonl", rows))]) == 0
    with ann.unit_of_work(db) as d:
        (v,) = verdict_position_bias(d)
    assert (v.bias.compared, v.bias.first_both.n) == (6, 0)
    with ann.unit_of_work(db) as d:
        assert [r[0] for r in d.execute("SELECT DISTINCT batch_id FROM verdicts")] == ["import:llmbar:llmbar.jsonl"]


def test_an_unknown_probe_constraint_is_named(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        capsys.readouterr()
        assert probe(db, s.url, "verbosity", "--constraint", "corect") == 2
        assert s.count == 0
    err = capsys.readouterr().err
    assert "constraint 'corect' does not exist" in err and "label the random sample" not in err
