"""The Rubrics screen (issue 12 item 8) through Streamlit's AppTest: each version, the prompt preview (rendered by the
judge's own code, nothing sent), the diff of two versions, the `report --compare` comparison, and the re-judge button
against tests/openai_stub.py over real HTTP (the command to run when no endpoint is configured)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.judge import Rubric, shipped_rubric
from openai_stub import StubServer, verdicts
from test_calibration_project import add_verdicts, build

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "app_pages/rubrics.py"
EXTRA = "Quote the sentence of the output that decides the label.\n"


@pytest.fixture
def rubric_db(tmp_path):
    """The calibration project (strict v1: an imported template that does not render) plus the shipped strict
    rubric (v2) and an edited copy (v3), both with verdicts on the labelled pairs."""
    path = build(tmp_path / "rubrics.db")
    v2 = shipped_rubric()
    v3 = Rubric.from_text("strict", v2.template.replace("CONSTRAINT: {constraint}", EXTRA + "CONSTRAINT: {constraint}"))
    with ann.unit_of_work(path) as db:
        for r in (v2, v3):
            av.store_rubric(db, r.name, r.template, r.sha256, r.note)
        add_verdicts(db, v2.sha256, {n: "PPP" for n in range(1, 10)})
        add_verdicts(db, v3.sha256, {n: "PPP" if n in (1, 2, 3, 7) else "FFF" for n in range(1, 10)})
    return path, v2, v3


def _open(db: Path, monkeypatch, **env: str) -> AppTest:
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    for key in ("OPENAI_BASE_URL", "JUDGECAL_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "alice"
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def test_prompt_preview_is_the_judges_own_rendering(rubric_db, monkeypatch):
    path, v2, v3 = rubric_db
    at = _open(path, monkeypatch)
    at.selectbox(key="rub_preview").select(v3.sha256).run()
    at.selectbox(key="rub_pair").select(("run-6", "grounded")).run()
    assert not at.exception
    with ann.unit_of_work(path) as db:
        source = ann.pair_source(db, "run-6", "grounded")
    expected = v3.render(source.record, source.item, source.constraint)
    codes = [c.value.rstrip("\n") for c in at.code]  # st.code drops the final newline
    assert expected.rstrip("\n") in codes  # exactly the prompt a re-judge sends
    assert "output 6" in expected and EXTRA in expected and "Facts come from the input." in expected
    # another pair, another prompt; no prompt text lives in the page itself
    at.selectbox(key="rub_pair").select(("run-2", "grounded")).run()
    assert v3.render(*_source(path, "run-2")).rstrip("\n") in [c.value.rstrip("\n") for c in at.code]
    assert "You are a strict judge" not in Path(__file__).resolve().parents[1].joinpath(PAGE).read_text()


def _source(path: Path, run: str):
    with ann.unit_of_work(path) as db:
        return ann.pair_source(db, run, "grounded")


def test_preview_of_a_version_whose_template_cannot_render_says_why(rubric_db, monkeypatch):
    path, *_ = rubric_db
    at = _open(path, monkeypatch)
    with ann.unit_of_work(path) as db:
        v1 = next(v for v in av.list_rubrics(db) if v.version == 1)
    at.selectbox(key="rub_preview").select(v1.sha256).run()
    assert not at.exception and any("strict v1" in i.value or "placeholder" in i.value for i in at.info)


def test_diff_and_comparison(rubric_db, monkeypatch):
    path, v2, v3 = rubric_db
    at = _open(path, monkeypatch)
    at.selectbox(key="rub_diff_a").select(v2.sha256).run()
    at.selectbox(key="rub_diff_b").select(v3.sha256).run()
    at.selectbox(key="rub_cmp_a").select(v2.sha256).run()
    at.selectbox(key="rub_cmp_b").select(v3.sha256).run()
    assert not at.exception
    codes = [c.value.rstrip("\n") for c in at.code]  # st.code drops the final newline
    diff = next(c for c in codes if c.startswith("---"))
    assert "+" + EXTRA.rstrip("\n") in diff.splitlines()
    with ann.unit_of_work(path) as db:
        from judgecal.annotations.reports._text import _text  # house: private
        from judgecal.annotations.reports import compare_rubrics, comparison_blocks
        printed = _text(comparison_blocks(compare_rubrics(db, v2.sha256, v3.sha256)))
    assert printed.rstrip("\n") in codes  # what `judgecal report --compare` prints
    # no endpoint: the command to run, no button
    assert any("judge --rubric " + v3.sha256 + " --only-labelled" in c for c in codes)
    assert not [b for b in at.button if b.key == "rub_rejudge"]


def test_rejudge_button_runs_a_batch_against_the_endpoint(rubric_db, monkeypatch):
    path, v2, v3 = rubric_db
    with StubServer(verdicts()) as server:
        at = _open(path, monkeypatch, OPENAI_BASE_URL=server.url, JUDGECAL_MODEL="judge-x", OPENAI_API_KEY="sk-test")
        at.selectbox(key="rub_cmp_b").select(v3.sha256).run()
        at.button(key="rub_rejudge").click().run()
        assert not at.exception, at.exception
    assert at.success and "done" in at.success[0].value
    with ann.unit_of_work(path) as db:
        rows = db.execute("SELECT count(DISTINCT run_record_id), count(*) FROM verdicts WHERE judge_model = 'judge-x'"
                          " AND rubric_sha256 = ?", [v3.sha256]).fetchone()
        labelled = len(ann.labelled_pair_ids(db))
    assert rows[0] == labelled == 9 and server.count == rows[1]  # only the labelled pairs, every answer stored


def test_rejudge_asks_at_the_settings_the_version_was_judged_with(rubric_db, monkeypatch):
    """A judge model asked under a version at temperature 0.7 and seed 5: the page's re-judge asks at those too, and
    its command says so (it asked at the defaults, and `judge` refused it as another judge: a review, wave 14)."""
    from judgecal.jobs import judge_pairs
    from judgecal.judge import OpenAIBackend

    path, v2, v3 = rubric_db
    with StubServer(verdicts()) as server:
        first = OpenAIBackend(model="judge-x", base_url=server.url, api_key="sk-test", temperature=0.7, seed=5)
        try:
            judge_pairs(path, first, rubric=v3, only_labelled=True, limit=2, progress=False)
        finally:
            first.close()
        at = _open(path, monkeypatch, OPENAI_BASE_URL=server.url, JUDGECAL_MODEL="judge-x", OPENAI_API_KEY="sk-test")
        at.selectbox(key="rub_cmp_b").select(v3.sha256).run()
        assert any(c.value.rstrip("\n").endswith(" --temperature 0.7 --seed 5") for c in at.code)
        at.button(key="rub_rejudge").click().run()
        assert not at.exception and not at.error, at.error
    assert at.success and "done" in at.success[0].value
    with ann.unit_of_work(path) as db:
        asked = [json.loads(s) for (s,) in db.execute("SELECT settings FROM batches WHERE kind = 'judge'"
                                                       " ORDER BY started_at")]
        judged = db.execute("SELECT count(DISTINCT run_record_id) FROM verdicts WHERE judge_model = 'judge-x'"
                            " AND rubric_sha256 = ?", [v3.sha256]).fetchone()[0]
    assert [(a["temperature"], a["seed"]) for a in asked] == [(0.7, 5), (0.7, 5)]
    assert judged == 9
