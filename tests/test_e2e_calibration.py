"""The Calibration and Rubrics screens in a real browser at 1280×720 (Debian chromium + playwright, helpers from
test_e2e_browser): the headline kappa and its interval above the fold, a stratum below the quota shows red, hostile
output stays inert, a disagreement is adjudicated and sent to the eval set; the rubric prompt preview. Skips without
/usr/bin/chromium (fails when CI=true). Screenshots: test-artifacts/calibration-e2e.png and rubrics-e2e.png
(git-ignored); their paths are printed."""

from __future__ import annotations

import re

from judgecal import annotations as ann
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


KAPPA = re.compile(r"^-?\d\.\d{3}$")
CI = re.compile(r"^95% CI \[-?\d\.\d{2}, -?\d\.\d{2}\]")


def _in_viewport(page, locator, width: int = 1280, height: int = 720) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height and box["x"] + box["width"] <= width


def test_calibration_page_in_the_browser(tmp_path):
    """Issue 12 item 6 at 1280×720: the headline kappa with its interval is in the viewport without scrolling; the
    quota state, the heatmap, then the Disagreements tab (adjudicate, send to eval set; hostile output inert)."""
    _need_browser()
    db = _project(tmp_path)
    requests: list[str] = []
    with streamlit_server(db, tmp_path, JUDGECAL_REVIEWER="carol") as url, browser_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.on("request", lambda r: requests.append(r.url))
        page.goto(f"{url}/calibration")
        value = page.locator("[data-testid='stMetricValue']").first
        value.wait_for()
        # the headline: kappa [CI] of the first judge × rubric version, above the fold
        assert KAPPA.match(value.inner_text().strip()), value.inner_text()
        assert _in_viewport(page, value), value.bounding_box()
        ci = page.get_by_text(CI).first
        assert _in_viewport(page, ci), ci.bounding_box()
        # not cut off: the element is as wide as its text needs
        assert ci.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        # the headline's name (a caption since wave 18: a metric's label was cut to one line)
        assert _in_viewport(page, page.get_by_text(re.compile(r"^kappa · ")).first)
        # v2's stratum is below the quota: the red state, also on the first screen
        alert = page.get_by_text(re.compile(r"1 of 2 strata are below the 10% review quota")).first
        alert.wait_for()
        assert _in_viewport(page, alert)
        # the confusion heatmap in the first tab
        _wait_for(lambda: page.locator("[data-testid='stVegaLiteChart']").count() >= 1, "the heatmap")
        page.wait_for_timeout(1000)
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "calibration-e2e.png"
        page.screenshot(path=str(shot))  # the viewport: what a reviewer sees without scrolling
        print(f"screenshot: {shot}")
        page.get_by_role("tab", name=re.compile(r"^Disagreements")).click()
        # hostile output is text
        page.get_by_text("<script>document.title='pwned'</script>", exact=False).first.wait_for()
        assert page.locator("img[src*='evil.example']").count() == 0
        assert page.locator("a[href*='evil.example']").count() == 0
        assert page.title() != "pwned"
        # adjudicate the first disagreement and send it to the eval set
        page.locator(".st-key-cal_d0_adjudicate button").click()
        page.get_by_text(re.compile(r"^Decision saved for ")).first.wait_for()
        page.get_by_role("tab", name=re.compile(r"^Disagreements")).click()
        page.locator(".st-key-cal_d0_send button").click()
        page.get_by_text(re.compile(r"^Added eval item cal-")).first.wait_for()
        with ann.unit_of_work(db) as conn:
            assert conn.execute("SELECT who FROM adjudications").fetchone()[0] == "carol"
            assert conn.execute("SELECT count(*) FROM evalset_feedback").fetchone()[0] == 1
        assert not [u for u in requests if "evil.example" in u]


def test_rubric_prompt_preview_in_the_browser(tmp_path):
    """Issue 12 item 8: the Rubrics page shows the prompt the newest version sends for the first labelled pair, as
    the judge renders it, before anything is sent."""
    _need_browser()
    from test_rubrics_page import EXTRA, rubric_db

    path, _v2, v3 = rubric_db.__wrapped__(tmp_path)
    with ann.unit_of_work(path) as conn:
        first = ann.labelled_pair_ids(conn)[0]
        source = ann.pair_source(conn, *first)
    prompt = v3.render(source.record, source.item, source.constraint)
    with streamlit_server(path, tmp_path, JUDGECAL_REVIEWER="carol") as url, browser_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{url}/rubrics")
        page.get_by_text(re.compile(r"exactly as the judge renders it")).first.wait_for()
        code = page.locator("[data-testid='stCode']").first
        _wait_for(lambda: EXTRA.strip() in code.inner_text(), "the edited rubric line in the preview")
        shown = code.inner_text()
        assert f"output {first[0].split('-')[1]}" in shown and "CONSTRAINT: Facts come from the input." in shown
        assert shown.strip().splitlines()[-1] == prompt.strip().splitlines()[-1]
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "rubrics-e2e.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")


def test_each_headline_names_its_label_set_in_full_at_1280x720(tmp_path):
    """The demo's two headlines (pass/fail and refusal levels) were both shown as "kappa · SmolLM2-135M-Ins…" at
    1280×720: the metric label was cut before the label set, so the two kappas could not be told apart (a review of
    the app, wave 18). Every headline name on screen is shown in full, and the names differ."""
    _need_browser()
    from test_e2e_browser import _demo_db  # house: private

    db = _demo_db(tmp_path)
    with streamlit_server(db, tmp_path, JUDGECAL_REVIEWER="carol") as url, browser_page(1280, 720) as page:
        page.goto(f"{url}/calibration")
        page.locator("[data-testid='stMetricValue']").first.wait_for()
        page.wait_for_timeout(500)
        # every visible element whose own text is a headline name: its text, whether it or a parent up to its
        # column is narrower than its content (cut), and its box
        names = page.evaluate("""() => Array.from(document.querySelectorAll("[data-testid='stMain'] *"))
            .filter(e => e.getClientRects().length && Array.from(e.childNodes).some(
                n => n.nodeType === 3 && n.textContent.trim().startsWith("kappa · ")))
            .map(e => { let cut = false;
                        for (let x = e; x && !x.matches("[data-testid='stColumn']"); x = x.parentElement)
                            cut = cut || x.scrollWidth > x.clientWidth + 1;
                        const r = e.getBoundingClientRect();
                        return [e.innerText.trim(), cut, r.bottom <= 720 && r.right <= 1280]; })""")
        texts = [text for text, _cut, _seen in names]
        assert len(set(texts)) >= 2 and any(t.endswith("labels:pass/fail") for t in texts), texts
        assert not [text for text, cut, _seen in names if cut], names  # not cut: each name as wide as its text
        assert all(seen for _text, _cut, seen in names), names  # and on the first screen
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "calibration-headlines-1280x720.png"))


def test_chart_labels_name_each_constraint_in_full(tmp_path):
    """The Details tab's kappa per constraint at 1280×720: Streamlit's chart theme cuts axis and legend labels at
    100 px, so on the demo "constraint:groun…" stood for both grounded_in_policy and grounded_in_record (a review of
    the app, wave 18). Every label in the charts is whole."""
    _need_browser()
    from test_e2e_browser import _demo_db  # house: private

    db = _demo_db(tmp_path)
    with ann.unit_of_work(db) as conn:
        pairs = [ann.Pair(*r) for r in conn.execute("SELECT DISTINCT run_record_id, constraint_id FROM samples"
                                                    " WHERE rule = 'random'")]
        sets = ann.pair_label_sets(conn, pairs)
        for n, pair in enumerate(pairs):  # both labels of each set, so each constraint's kappa is defined
            ann.record_label(conn, "ann", pair, sets[pair][n % 2])
    with streamlit_server(db, tmp_path, JUDGECAL_REVIEWER="ann") as url, browser_page(1280, 720) as page:
        page.goto(f"{url}/calibration")
        page.get_by_role("tab", name="Details").click()
        chart = page.locator("[data-testid='stVegaLiteChart']:visible svg").first
        chart.wait_for()
        page.wait_for_timeout(500)
        texts = page.evaluate("""() => Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart'] svg text"))
                                     .map(t => t.textContent)""")
        assert {"constraint:grounded_in_policy", "constraint:grounded_in_record"} <= set(texts), texts
        assert not [t for t in texts if t.endswith("…")], texts
        ARTIFACTS.mkdir(exist_ok=True)
        chart.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "calibration-details-1280x720.png"))
