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
from test_probes import (_jsonl, clean, gate_probe_checks, obeys_injection, pass_fail_project, probe,
                         sample_and_label_pairs)


def judge(db, url: str, *extra: str) -> int:
    return main(["--db", str(db), "judge", "--model", "j", "--base-url", url, "--api-key", "x", "--quiet",
                 "--max-retries", "0", *extra])


def probe_rows(db) -> int:
    with ann.unit_of_work(db) as d:
        return d.execute("SELECT count(*) FROM probe_verdicts").fetchone()[0]


def test_a_probe_at_other_settings_than_the_judged_verdicts_is_refused(tmp_path, capsys):
    """The attack: the judge is asked at temperature 1.0 (where it obeys injected instructions); `probe injection
    --temperature 0` measured another judge, 0 of 15 flipped, and the gate passed `--max-injection-flip` for the
    judge at 1.0. `judge` itself refuses a second temperature for one judge model × rubric version; `probe` did not."""
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        assert judge(db, s.url, "--temperature", "1.0") == 0
        sent = s.count
        capsys.readouterr()
        assert probe(db, s.url, "injection", "--temperature", "0") == 2
        err = capsys.readouterr().err
        assert "temperature 1.0" in err and "temperature 0.0" in err and "this probe asks" in err
        assert probe(db, s.url, "injection", "--temperature", "1.0", "--judge-seed", "7") == 2
        assert "seed 0" in capsys.readouterr().err
        assert s.count == sent and probe_rows(db) == 0
        assert probe(db, s.url, "injection", "--temperature", "1.0") == 0
    _, checks = gate_probe_checks(db, capsys, "--max-injection-flip", "0.25")
    (check,) = checks
    assert "from `judgecal probe injection`, asked with temperature 1.0, seed 0" in check["reason"]


def test_a_probe_resumed_at_other_settings_than_its_stored_answers_is_refused(tmp_path, capsys):
    """The probe cache is keyed without settings: a second probe at temperature 1.0 after one at 0 asked nothing
    ("already stored") and reported the answers at 0 as its own. Refused now, for any probe kind of the same judge
    model × rubric version; a probe batch written before the judge's seed was recorded binds its temperature only."""
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(obeys_injection)) as s:
        assert probe(db, s.url, "verbosity") == 0
        sent, rows = s.count, probe_rows(db)
        capsys.readouterr()
        for extra in (["--temperature", "1.0"], ["--judge-seed", "3"], ["--no-seed"]):
            assert probe(db, s.url, "verbosity", *extra) == 2
            assert "stored probe answers of j under strict v1 were asked with" in capsys.readouterr().err
        assert probe(db, s.url, "injection", "--temperature", "1.0") == 2  # another kind: the same judge
        assert s.count == sent and probe_rows(db) == rows
        assert probe(db, s.url, "verbosity") == 0 and s.count == sent  # the same settings: all cached
        with ann.unit_of_work(db) as d:  # as a batch written before wave 17: its "seed" is the --sample draw's
            with ann.write(d):
                d.execute("UPDATE batches SET settings = json_remove(json_set(settings, '$.seed', 5), '$.sampling')"
                          " WHERE kind = 'probe'")
        assert probe(db, s.url, "verbosity", "--temperature", "1.0") == 2
        assert probe(db, s.url, "verbosity", "--judge-seed", "3") == 0  # the old batches' judge seed is not known
    _, (check,) = gate_probe_checks(db, capsys, "--max-verbosity-flip", "0.5")
    assert "(from `judgecal probe verbosity`, asked with temperature 0.0):" in check["reason"]  # no seed known


def test_judge_pairwise_batches_bind_a_position_probe(tmp_path, capsys):
    from test_pairwise import judge as judge_pairwise, project as two_runs

    db = two_runs(tmp_path)
    with StubServer(prefers("GOOD")) as s:
        assert judge_pairwise(db, s.url, "--temperature", "1.0") == 0
        sample_and_label_pairs(db, tmp_path)
        sent = s.count
        capsys.readouterr()
        assert probe(db, s.url, "position") == 2
        err = capsys.readouterr().err
        assert "temperature 1.0" in err and "temperature 0.0" in err and s.count == sent
        assert probe(db, s.url, "position", "--temperature", "1.0") == 0


def test_the_position_gate_holds_on_the_probe_and_the_stored_pairwise_verdicts_both(tmp_path, capsys):
    """The attack: `judge --pairwise` stored verdicts of a judge that picks the output shown first; a position probe
    that answered fairly (another day, or other settings) then replaced them at the gate, which passed
    `--max-position-bias`. Both sources are read now: either failing fails the check, and the reason shows both."""
    from test_pairwise import judge as judge_pairwise, project as two_runs

    db = two_runs(tmp_path)
    answer = {"biased": True}

    fair = prefers("GOOD")

    def respond(req):
        return (by_position("output_1") if answer["biased"] else fair)(req)

    with StubServer(respond) as s:
        assert judge_pairwise(db, s.url) == 0
        sample_and_label_pairs(db, tmp_path)
        answer["biased"] = False
        assert probe(db, s.url, "position") == 0
    code, checks = gate_probe_checks(db, capsys, "--max-position-bias", "0.8")
    (check,) = checks
    assert not check["ok"] and code == 1
    reason = check["reason"]
    assert reason.startswith("both must hold: ")
    probe_part, stored_part = reason.split("; and ")
    assert "from `judgecal probe position`, asked with temperature 0.0, seed 0" in probe_part
    assert "50.0%" in probe_part and "within [0.200, 0.800]" in probe_part and "not within" not in probe_part
    assert "from stored pairwise verdicts, asked with temperature 0.0, seed 0" in stored_part
    assert "100.0%" in stored_part and "not within [0.200, 0.800]" in stored_part
    assert check["value"] == pytest.approx(1.0)


@pytest.mark.parametrize("edit", [
    lambda t: t + "\n\n",
    lambda t: "\n".join(t.split(" ")),
    lambda t: t.replace("You are", "YOU ARE", 1),
    lambda t: t.replace("You are", "You\u200b are", 1),
    lambda t: t.replace("You are", "Ｙｏｕ are", 1),
], ids=["two-newlines", "spaces-as-newlines", "capitals", "zero-width-space", "full-width"])
def test_a_paraphrase_with_the_rubrics_own_words_is_refused(tmp_path, capsys, edit):
    """The attack: the rubric plus two newlines given as `--paraphrase` (another sha256, so it was taken) makes a
    judge that reads the wording look consistent. A text equal to the rubric's once whitespace runs are collapsed,
    the ends stripped and case ignored is refused, naming the file; nearer copies than that are not judged."""
    db = pass_fail_project(tmp_path)
    strict = shipped_rubric("strict").template
    assert "You are" in strict
    copy = tmp_path / "strict_para.txt"
    copy.write_text(edit(strict))
    with StubServer(verdicts(clean)) as s:
        capsys.readouterr()
        assert probe(db, s.url, "consistency", "--paraphrase", str(copy)) == 2
        assert s.count == 0
    err = capsys.readouterr().err
    assert str(copy) in err and "has the probed rubric's text" in err
    assert probe_rows(db) == 0


def test_the_consistency_check_names_each_paraphrase(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "consistency") == 0
    _, (check,) = gate_probe_checks(db, capsys, "--max-inconsistency", "0.5")
    shas = [p.sha256[:12] for p in paraphrases_of(shipped_rubric("strict"))]
    assert len(shas) == 2 and f"paraphrases {', '.join(shas)}" in check["reason"]


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


def test_llmbar_imports_are_still_read_as_both_orders_and_name_their_source(tmp_path, capsys):
    rows = [{"item_id": f"x/{k}", "dataset": "X", "instruction": f"Say hi {k}", "output_1": f"hi {k}",
             "output_2": f"yo {k}", "human_label": 1, "judge_s_order_original": 1, "judge_s_order_swapped": 1}
            for k in range(6)]
    db = tmp_path / "l.db"
    assert main(["--db", str(db), "import", "llmbar", str(_jsonl(tmp_path / "llmbar.jsonl", rows))]) == 0
    with ann.unit_of_work(db) as d:
        (v,) = verdict_position_bias(d)
    assert (v.bias.compared, v.bias.first_both.n) == (6, 0)
    assert v.settings == ("the settings LLMBar ran (not recorded)",)
    _, (check,) = gate_probe_checks(db, capsys, "--max-position-bias", "0.99")
    assert "from stored pairwise verdicts, asked with the settings LLMBar ran (not recorded)" in check["reason"]


def test_an_unknown_probe_constraint_is_named(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        capsys.readouterr()
        assert probe(db, s.url, "verbosity", "--constraint", "corect") == 2
        assert s.count == 0
    err = capsys.readouterr().err
    assert "constraint 'corect' does not exist" in err and "label the random sample" not in err
    # a mechanical constraint is named as such too (a review of the fix)
    item = {"id": "mech-1", "instruction": "Say ok.", "constraints": [
        {"id": "says_ok", "text": "Says ok.", "type": "format",
         "check": {"id": "keywords:contains_all", "args": {"keywords": ["ok"]}}}]}
    assert main(["--db", str(db), "import", "evalset", str(_jsonl(tmp_path / "m.jsonl", [item]))]) == 0
    with StubServer(verdicts(clean)) as s:
        capsys.readouterr()
        assert probe(db, s.url, "verbosity", "--constraint", "says_ok") == 2
    err = capsys.readouterr().err
    assert "'says_ok' is a mechanical check" in err and "label the random sample" not in err


def test_a_judge_at_other_settings_than_its_stored_probes_is_refused(tmp_path, capsys):
    """The same hole the other way round: probed at temperature 0 first, then judged at 1.0, the gate read the probe
    for the judge at 1.0. `judge` compares its settings with the stored probe answers' too."""
    from judgecal import jobs

    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "injection") == 0
        sent = s.count
        capsys.readouterr()
        assert judge(db, s.url, "--temperature", "1.0") == 2
        err = capsys.readouterr().err
        assert "the probes of j under strict v1 were asked with temperature 0.0, seed 0" in err
        assert "temperature 1.0" in err and s.count == sent
        with ann.unit_of_work(db) as d:  # the Rubrics page's re-judge asks as the probes were asked
            sha = d.execute("SELECT sha256 FROM rubrics WHERE name = 'strict'").fetchone()[0]
            assert jobs.stored_sampling_settings(d, sha, "j") == {"temperature": 0.0, "seed": 0}
        assert judge(db, s.url) == 0


def test_probes_asked_before_their_settings_were_recorded_do_not_lock_the_judge(tmp_path, capsys):
    """A review of the fix (wave 17): a project whose probes (asked before wave 17, no judge settings recorded) and
    judge verdicts already disagreed could never judge again: `judge` at the verdicts' settings was refused by the
    probes and at the probes' by the verdicts, and no command forgets probes. Only probes that recorded the judge's
    settings bind `judge`; the gate still names the old probes' settings."""
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "injection") == 0
        with ann.unit_of_work(db) as d, ann.write(d):  # as a probe batch written before wave 17 records it
            d.execute("UPDATE batches SET settings = json_remove(json_set(settings, '$.temperature', 0.7), '$.sampling')"
                      " WHERE kind LIKE 'probe%' OR id IN (SELECT batch_id FROM probe_verdicts)")
        capsys.readouterr()
        assert judge(db, s.url) == 0, capsys.readouterr().err
