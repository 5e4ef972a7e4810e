"""Assignment in a real browser (issue 12.4): two reviewers on an overlap pair. The first labels it; the second is
served the same pair and sees nothing of the first (no name, label, note or judge verdict) until their own blind
label is saved. Each reviewer is fixed by the deployment ($JUDGECAL_REVIEWER, one server each, as behind a proxy)."""

from __future__ import annotations

import re

from judgecal import annotations as ann
from test_e2e_browser import ARTIFACTS, _labels, _need_browser, _wait_for, browser_page, streamlit_server

OVERLAP = ann.Pair("run-a-2", "grounded")  # the fixture's judge repeats: pass, pass, fail ("judge says ...")
SINGLE = ann.Pair("run-a-4", "polite")


def _sample_and_assign(db) -> dict[ann.Pair, dict[int, str]]:
    with ann.unit_of_work(db) as conn:
        with ann.write(conn):
            conn.conn.executemany(
                "INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at) VALUES (?,?,?,?,?,?)",
                [(*OVERLAP, "random", "grounded|test", 0, ann.now_iso()),
                 (*OVERLAP, "overlap", "grounded|test", 0, ann.now_iso()),
                 (*SINGLE, "random", "polite|test", 0, ann.now_iso())])
        ann.assign(conn, ["first-rev", "second-rev"])
        return ann.standing_assignments(conn)


def test_second_reviewer_on_an_overlap_pair_sees_nothing_of_the_first(project_db, tmp_path):
    _need_browser()
    slots = _sample_and_assign(project_db)
    assert sorted(slots[OVERLAP].values()) == ["first-rev", "second-rev"]
    first = slots[OVERLAP][1]
    second = slots[OVERLAP][2]
    with streamlit_server(project_db, tmp_path, JUDGECAL_REVIEWER=first) as url, browser_page() as page:
        page.goto(url)
        page.get_by_text("Assigned to you").first.wait_for()
        for _ in range(5):  # label the first reviewer's queue until the overlap pair is done
            page.locator(".st-key-label_2 button").wait_for()
            n = len(_labels(project_db, first))
            page.keyboard.press("2")
            _wait_for(lambda n=n: len(_labels(project_db, first)) == n + 1, "the first reviewer's label")
            if any((r, c) == OVERLAP for r, c, *_ in _labels(project_db, first)):
                break
        # the first reviewer gets the reveal (folded under the buttons since issue 12.2: in the page, not expanded)
        page.get_by_text(re.compile(r"^Judge: ")).first.wait_for(state="attached")
    with streamlit_server(project_db, tmp_path, JUDGECAL_REVIEWER=second) as url, browser_page() as page:
        page.goto(url)
        page.get_by_text("Assigned to you").first.wait_for()
        page.locator(".st-key-label_1 button").wait_for()
        page.get_by_text("Every fact in the answer comes from the input.").first.wait_for()  # the overlap pair
        body = page.inner_text("body")
        assert "Order 1002" in body  # run-a-2's output: this is the overlap pair's card
        for leak in (first, "judge says", "Judge:", "judge-1", "Your last label", "Reason"):
            assert leak not in body, f"the second reviewer sees {leak!r} before their own label"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "review-second-reviewer.png"), full_page=True)
        page.keyboard.press("1")
        _wait_for(lambda: _labels(project_db, second), "the second reviewer's label")
        page.get_by_text(re.compile(rf"^{re.escape(first)}: fail")).first.wait_for(state="attached")  # only now
    with ann.unit_of_work(project_db) as conn:
        blind = {(r["reviewer"], r["label"]) for r in ann.blind_first_labels(conn)
                 if (r["run_record_id"], r["constraint_id"]) == OVERLAP}
        assert blind == {(first, "fail"), (second, "pass")}
        assert ann.overlap_progress(conn) == ann.OverlapProgress(1, 1)
