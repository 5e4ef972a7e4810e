"""The Calibration screen once in a real browser (Debian chromium + playwright, helpers from test_e2e_browser):
the report renders, a stratum below the quota shows red, hostile output stays inert, a disagreement is adjudicated
and sent to the eval set. Skips without /usr/bin/chromium (fails when CI=true). Screenshot:
test-artifacts/calibration-e2e.png (git-ignored); its path is printed."""

from __future__ import annotations

import re

import annotations as ann
from test_calibration_project import R1, R2, add_rubric, add_verdicts, build
from test_e2e_browser import ARTIFACTS, _need_browser, _wait_for, browser_page, streamlit_server

HOSTILE = "<script>document.title='pwned'</script> <img src=http://evil.example/x.png> [click](http://evil.example/p)"


def _project(tmp_path):
    """The hand-checked project (v1: kappa 5/12, covered) plus rubric v2, which judged runs 1, 4 and 11-40: its
    stratum has 32 judged pairs, a quota of 4 and only runs 1 and 4 labelled in the random sample -> below quota."""
    path = build(tmp_path / "cal-e2e.db", n_items=40)
    with ann.unit_of_work(path) as db:
        add_verdicts(db, R1, {n: "PPP" if n % 2 else "FFF" for n in range(11, 41)})
        add_rubric(db, R2, 2)
        add_verdicts(db, R2, {1: "PPP", 4: "FFF"} | {n: "PPP" if n % 2 else "FFP" for n in range(11, 41)})
        with ann.write(db):
            db.execute("UPDATE run_records SET output = ? WHERE id = 'run-7'", [HOSTILE])
    return path


def test_calibration_page_in_the_browser(tmp_path):
    _need_browser()
    db = _project(tmp_path)
    requests: list[str] = []
    with streamlit_server(db, tmp_path, JUDGECAL_REVIEWER="carol") as url, browser_page() as page:
        page.on("request", lambda r: requests.append(r.url))
        page.goto(f"{url}/calibration")
        page.get_by_text("Judge vs human (random sample)").first.wait_for()
        # v2's stratum is below the quota: the red state
        page.get_by_text(re.compile(r"1 of 2 strata are below the 10% review quota")).first.wait_for()
        assert page.locator("[data-testid='stAlertContentError']").count() >= 1
        # charts drawn (kappa CI per constraint, kappa per rubric version, confusion heatmap)
        _wait_for(lambda: page.locator("[data-testid='stVegaLiteChart']").count() >= 3, "the charts")
        # hostile output is text
        page.get_by_text("<script>document.title='pwned'</script>", exact=False).first.wait_for()
        assert page.locator("img[src*='evil.example']").count() == 0
        assert page.locator("a[href*='evil.example']").count() == 0
        assert page.title() != "pwned"
        # adjudicate the first disagreement and send it to the eval set
        page.locator(".st-key-cal_d0_adjudicate button").click()
        page.get_by_text(re.compile(r"^Decision saved for ")).first.wait_for()
        page.locator(".st-key-cal_d0_send button").click()
        page.get_by_text(re.compile(r"^Added eval item cal-")).first.wait_for()
        with ann.unit_of_work(db) as conn:
            assert conn.execute("SELECT who FROM adjudications").fetchone()[0] == "carol"
            assert conn.execute("SELECT count(*) FROM evalset_feedback").fetchone()[0] == 1
        assert not [u for u in requests if "evil.example" in u]
        # Streamlit scrolls inside its own container: a tall viewport shows the whole screen in one picture
        page.set_viewport_size({"width": 1400, "height": 5200})
        page.locator("[data-testid='stMain']").evaluate("e => e.scrollTo(0, 0)")
        page.wait_for_timeout(1500)
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "calibration-e2e.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
