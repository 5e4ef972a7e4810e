"""`judgecal judge --pairwise RUN_A RUN_B` against the local stub: both orders judged and stored mapped back to A/B,
position bias caught (a judge that always answers output_1), the preference rate of a consistent judge, the exact
intervals, caching and bad input (issue 13.3)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import clopper_pearson, pair_record_id, pairwise_report
from judgecal.cli import main
from openai_stub import StubServer, always, by_position, prefers

ITEMS = 12


def project(tmp_path: Path) -> Path:
    db = tmp_path / "p.db"
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"it-{n}", "instruction": f"Answer question {n}.", "constraints": [
        {"id": "correct", "text": "The answer is correct.", "type": "content"}]}) + "\n" for n in range(ITEMS)))
    runs = tmp_path / "runs.jsonl"
    rows = [{"id": f"a-{n}", "item_id": f"it-{n}", "model": "model-a", "run_id": "ra", "output": f"GOOD answer {n}"}
            for n in range(ITEMS)]
    # Run B misses two items: only the common ten are compared.
    rows += [{"id": f"b-{n}", "item_id": f"it-{n}", "model": "model-b", "run_id": "rb", "output": f"weak answer {n}"}
             for n in range(ITEMS - 2)]
    runs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["--db", str(db), "import", "evalset", str(items)]) == 0
    assert main(["--db", str(db), "import", "runs", str(runs)]) == 0
    return db


def judge(db: Path, url: str, *extra: str) -> int:
    return main(["--db", str(db), "judge", "--pairwise", "ra", "rb", "--model", "j", "--base-url", url,
                 "--api-key", "x", "--quiet", *extra])


def test_position_biased_judge_is_caught(tmp_path, capsys):
    db = project(tmp_path)
    with StubServer(by_position("output_1")) as s:
        assert judge(db, s.url) == 0
        assert s.count == 20  # 10 common items x 2 orders
        prompts = [r.body["messages"][-1]["content"] for r in s.requests]
    out = capsys.readouterr().out
    # Each pair shown once with A first and once with B first.
    assert sum("GOOD answer 3" in p.split("[Output 2]")[0] for p in prompts if "question 3" in p) == 1
    assert "position bias (orders disagree):  100.0%" in out
    with ann.unit_of_work(db) as d:
        rows = d.execute("SELECT repeat, label FROM verdicts WHERE run_record_id = ? ORDER BY repeat",
                         [pair_record_id("it-3", "ra", "rb")]).fetchall()
        sha = d.execute("SELECT rubric_sha256 FROM verdicts LIMIT 1").fetchone()[0]
        report = pairwise_report(d, "ra", "rb", sha, "j")
    # Stored mapped back: output_1 shown first in the swapped order is B, stored as output_2.
    assert [tuple(r) for r in rows] == [(0, "output_1"), (1, "output_2")]
    assert (report.pairs, report.compared, report.order_disagree.k) == (10, 10, 10)
    assert (report.first_both.k, report.first_both.n) == (10, 10)
    # No consistent answer: no preference rate at all, not a flattering 50% (the attack).
    assert report.prefer_a.n == 0 and report.prefer_a.rate is None
    assert "judge prefers A (orders agree):   - (n = 0)" in out


def test_consistent_judge_gives_a_preference_rate_and_reuses_the_cache(tmp_path, capsys):
    db = project(tmp_path)
    with StubServer(prefers("GOOD")) as s:
        assert judge(db, s.url) == 0
        first = s.count
        assert judge(db, s.url) == 0  # cached: nothing asked again
        assert s.count == first == 20
    with ann.unit_of_work(db) as d:
        sha = d.execute("SELECT rubric_sha256 FROM verdicts LIMIT 1").fetchone()[0]
        report = pairwise_report(d, "ra", "rb", sha, "j")
        labels = {r[0] for r in d.execute("SELECT label FROM verdicts")}
    assert labels == {"output_1"}  # A (GOOD) in both orders, after mapping back
    assert report.order_disagree.k == 0 and (report.prefer_a.k, report.prefer_a.n) == (10, 10)
    assert report.prefer_a.low == pytest.approx(0.025 ** (1 / 10))  # exact lower bound at k = n: (alpha/2)^(1/n)
    assert "judge prefers A (orders agree):   100.0%" in capsys.readouterr().out


def test_error_rows_are_not_verdicts_and_pairs_stay_out_of_plain_runs(tmp_path, capsys):
    db = project(tmp_path)
    with StubServer(always(400, "bad request")) as s:
        rc = judge(db, s.url, "--max-retries", "0")
    assert rc == 3  # nothing answered
    with ann.unit_of_work(db) as d:
        assert d.execute("SELECT count(*) FROM verdicts WHERE label IS NOT NULL").fetchone()[0] == 0
        assert d.execute("SELECT count(*) FROM verdicts WHERE error IS NOT NULL").fetchone()[0] == 20
        sha = d.execute("SELECT rubric_sha256 FROM verdicts LIMIT 1").fetchone()[0]
        assert pairwise_report(d, "ra", "rb", sha, "j").compared == 0
    # A plain judge batch leaves the pair records alone (their repeats mean orders).
    with StubServer(by_position("pass")) as s:
        assert main(["--db", str(db), "judge", "--model", "j2", "--base-url", s.url, "--api-key", "x", "--quiet",
                     "--repeats", "1"]) == 0
        assert s.count == 22  # the 22 ordinary (record, constraint) pairs only


@pytest.mark.parametrize("argv,message", [
    (["ra", "ra"], "two different runs"),
    (["ra", "nope"], "no run records with run id 'nope'"),
])
def test_bad_runs_are_exit_2(tmp_path, capsys, argv, message):
    db = project(tmp_path)
    assert main(["--db", str(db), "judge", "--pairwise", *argv, "--model", "j", "--base-url", "http://127.0.0.1:9/v1",
                 "--api-key", "x"]) == 2
    assert message in capsys.readouterr().err


def test_clopper_pearson_matches_published_values():
    # Reference: R binom.test(7, 20)$conf.int = 0.1539092 0.5921885 (exact Clopper-Pearson, 95%).
    p = clopper_pearson(7, 20)
    assert (round(p.low, 6), round(p.high, 6)) == (0.153909, 0.592189)
    assert clopper_pearson(0, 10).low == 0.0 and clopper_pearson(10, 10).high == 1.0
    assert clopper_pearson(0, 0).rate is None


def _reviewable(tmp_path: Path) -> Path:
    from judgecal.judge import pair_output
    from judgecal.evalsets import render_evidence as render_output

    db = project(tmp_path)
    with ann.unit_of_work(db) as d:
        from judgecal.annotations.reports import store_pairs

        pairs = store_pairs(d, "ra", "rb", render_output, pair_output)
        with ann.write(d):
            d.conn.executemany(
                "INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at) VALUES (?,?,?,?,?,?)",
                [(p.record.id, "preferred", "random", "preferred|test", 0, ann.now_iso()) for p in pairs])
    return db


def test_review_order_is_random_per_reviewer_and_stable(tmp_path):
    from judgecal.annotations.reports import review_order

    db = _reviewable(tmp_path)
    with ann.unit_of_work(db) as d:
        ids = [pair_record_id(f"it-{n}", "ra", "rb") for n in range(10)]
        orders = {who: [review_order(d, who, rid).swapped for rid in ids] for who in ("ann", "bob", "cy")}
        again = [review_order(d, "ann", rid).swapped for rid in ids]
        assert review_order(d, "ann", "a-1") is None  # not a pairwise record
        shown = review_order(d, "ann", ids[orders["ann"].index(True)])
    assert again == orders["ann"]  # stable across reruns
    assert all(0 < sum(o) < 10 for o in orders.values())  # each reviewer sees A first on some pairs, B on others
    assert len({tuple(o) for o in orders.values()}) > 1  # and reviewers differ
    assert shown.output.index("weak answer") < shown.output.index("GOOD answer")  # swapped: B shown first
    assert shown.stored_label("output_1") == "output_2"


def test_review_card_shows_the_reviewers_order_and_stores_a_b(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from judgecal.annotations.reports import review_order

    db = _reviewable(tmp_path)
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    seen = []
    for _ in range(4):
        assert not at.exception, at.exception
        caption = next(c.value for c in at.caption if "run record" in c.value)
        # The caption is markdown-escaped: strip the backslashes to read the record id.
        rid = re.search(r"run record (\S+) ·", caption.replace("\\", "")).group(1)
        text = "\n".join(t.value for t in at.text)
        with ann.unit_of_work(db) as d:
            order = review_order(d, "ann", rid)
        good_first = text.index("GOOD answer") < text.index("weak answer")
        assert good_first == (not order.swapped)
        at.button(key="label_1").click().run()  # the reviewer picks what is shown first
        with ann.unit_of_work(db) as d:
            (label,) = d.execute("SELECT label FROM human_labels WHERE run_record_id = ? AND reviewer = 'ann'",
                                 [rid]).fetchone()
        # Stored in A/B numbering: output_1 when A was shown first, output_2 when B was.
        assert label == ("output_2" if order.swapped else "output_1")
        seen.append(order.swapped)
    with ann.unit_of_work(db) as d:
        sha = "none"
        report = pairwise_report(d, "ra", "rb", sha, "j")
    assert True in seen and False in seen  # both orders met, so the mapping back is exercised
    assert report.human_prefer_a.n == 4 and report.human_prefer_a.k == seen.count(False)


def test_feedback_refuses_an_a_vs_b_record(tmp_path, capsys):
    """`feedback` on a pairwise record made an eval item asking "which of two outputs is better" of one output,
    which `run` then executed and the judge scored (a review, wave 14): it is refused and changes nothing."""
    db = project(tmp_path)
    with StubServer(by_position("output_1")) as s:
        assert judge(db, s.url) == 0
    record = pair_record_id("it-3", "ra", "rb")
    with ann.unit_of_work(db) as d:
        before = ann.table_counts(d)
    capsys.readouterr()
    assert main(["--db", str(db), "feedback", "--who", "rev", "--run-record", record, "--constraint", "preferred"]) == 2
    assert "is an A-vs-B comparison" in capsys.readouterr().err
    with ann.unit_of_work(db) as d:
        assert ann.table_counts(d) == before


def test_pairwise_and_plain_judging_keep_their_own_settings(tmp_path, capsys):
    """`judge --pairwise` was not checked for its settings, and its pair records' batch refused a later plain
    `judge` at other settings though a plain batch never asks those pairs (a review of wave 14's fix)."""
    db = project(tmp_path)
    with StubServer(by_position("output_1")) as s:
        assert judge(db, s.url, "--temperature", "1.0") == 0
        capsys.readouterr()
        assert judge(db, s.url) == 2  # the pairs' answers were asked at 1.0
        assert "were asked with temperature 1.0" in capsys.readouterr().err
    with StubServer(by_position("pass")) as s:  # plain judging of the runs' own pairs, at 0: not bound by the pairs
        assert main(["--db", str(db), "judge", "--model", "j", "--base-url", s.url, "--api-key", "x", "--quiet",
                     "--repeats", "1"]) == 0
