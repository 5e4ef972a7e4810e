"""Issue 12 items 1-3 in a real browser at 1280x720 on the demo: the reviewer's name typed once then keys label
(the name stays as typed), a reload keeps the name, after a label the next pair's constraint and buttons are in the
viewport without scrolling, a refusal card's four buttons are readable in full, and a trusted proxy header names the
reviewer. Screenshots land in test-artifacts/ (git-ignored)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from judgecal import annotations as ann
from test_e2e_browser import (ARTIFACTS, _demo_db, _enter_name, _labels, _need_browser, _wait_for, browser_page,
                              streamlit_server)

WIDTH, HEIGHT = 1280, 720


def _in_viewport(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT and box["x"] + box["width"] <= WIDTH


def _buttons_in_view(page) -> bool:
    return all(_in_viewport(page, f".st-key-label_{n} button") for n in (1, 2))


def _shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / name
    page.screenshot(path=str(shot))  # the viewport only: what the reviewer sees without scrolling
    print(f"screenshot: {shot}")
    return shot


def test_name_then_keys_then_reload_and_next_item_in_view(tmp_path):
    _need_browser()
    db = _demo_db(tmp_path)
    with streamlit_server(db, tmp_path) as url, browser_page(WIDTH, HEIGHT) as page:
        page.goto(url)
        _enter_name(page, "carol")
        page.locator(".st-key-label_1 button").wait_for()
        assert _buttons_in_view(page)
        for n in range(1, 4):  # the README says: press 1. Focus must not be in the name field.
            page.keyboard.press("1")
            _wait_for(lambda n=n: len(_labels(db, "carol")) == n, f"label {n}")
            rid = _labels(db, "carol")[-1][0]
            page.get_by_text(re.compile(rf"Your last label · {re.escape(rid)}")).first.wait_for()
            page.locator(".st-key-label_1 button").wait_for()
            # the next pair's constraint and buttons are in view without scrolling
            assert page.evaluate("window.scrollY") == 0
            assert _buttons_in_view(page), f"after label {n} the next pair's buttons are below the fold"
            assert _in_viewport(page, "[data-testid='stCaptionContainer']:has-text('Constraint ·')")
        _shot(page, "review-next-item-1280x720.png")
        with sqlite3.connect(db) as conn:
            assert [r[0] for r in conn.execute("SELECT DISTINCT reviewer FROM human_labels WHERE reviewer LIKE 'carol%'")] == ["carol"]
        assert "reviewer=carol" in page.url

        page.reload()  # the name survives: no form, the same reviewer, labels go on under it
        page.locator(".st-key-label_1 button").wait_for()
        assert page.get_by_label("Your reviewer name").count() == 0
        page.keyboard.press("2")
        _wait_for(lambda: len(_labels(db, "carol")) == 4, "a label after the reload")
        with sqlite3.connect(db) as conn:  # no "carol1", "carol2": the key never reached the name
            assert conn.execute("SELECT count(*) FROM human_labels WHERE reviewer LIKE 'carol_%'").fetchone()[0] == 0


def _refusal_first(db: Path) -> None:
    """Leave only boundary (refusal) pairs in the sample, so the first card is a refusal card."""
    with ann.unit_of_work(db) as conn, ann.write(conn):
        conn.execute("DELETE FROM samples WHERE constraint_id != 'refusal_behaviour'")
        left = conn.execute("SELECT count(*) FROM samples").fetchone()[0]
    assert left, "the demo sample has no refusal pairs"


def test_refusal_buttons_are_readable_in_full(tmp_path):
    _need_browser()
    db = _demo_db(tmp_path)
    _refusal_first(db)
    with streamlit_server(db, tmp_path, JUDGECAL_REVIEWER="dave") as url, browser_page(WIDTH, HEIGHT) as page:
        page.goto(url)
        page.locator(".st-key-label_4 button").wait_for()
        for n, label in enumerate(("hard_refusal", "soft_refusal", "degraded", "complied"), 1):
            button = page.locator(f".st-key-label_{n} button")
            assert button.inner_text().split("\n")[0].strip() == label  # then the key hint
            # not cut: no descendant of the button is narrower than its text (an ellipsis means scrollWidth > clientWidth)
            assert button.evaluate("b => [b, ...b.querySelectorAll('*')].every(e => e.scrollWidth <= e.clientWidth + 1)"), label
            assert _in_viewport(page, f".st-key-label_{n} button"), label
        body = page.inner_text("body")
        assert "states what is missing and asks for it, or offers the in-role path" in body
        assert "does part of it and says what was skipped and why" in body
        _shot(page, "review-refusal-card-1280x720.png")


def test_trusted_header_names_the_reviewer(tmp_path):
    _need_browser()
    db = _demo_db(tmp_path)
    with streamlit_server(db, tmp_path, JUDGECAL_TRUSTED_HEADER="X-Forwarded-User") as url, \
            browser_page(WIDTH, HEIGHT, extra_http_headers={"X-Forwarded-User": "erin@corp.example"}) as page:
        page.goto(url + "/?reviewer=mallory")  # a typed name in the URL cannot override the proxy's
        page.locator(".st-key-label_1 button").wait_for()
        assert page.get_by_label("Your reviewer name").count() == 0
        page.keyboard.press("1")
        _wait_for(lambda: _labels(db, "erin@corp.example"), "a label under the header's name")
        assert not _labels(db, "mallory")


def test_oidc_example_config_shows_a_login_and_no_name_field(tmp_path):
    """docs/auth.md's secrets.toml, served for real: Streamlit reads the [auth] section, so st.user carries
    is_logged_in=False and the app asks for a login instead of a typed name (the login itself needs the provider)."""
    _need_browser()
    from test_auth_docs import example_secrets

    db = _demo_db(tmp_path)
    example_secrets(tmp_path / "site")
    with streamlit_server(db, tmp_path, cwd=tmp_path / "site") as url, browser_page(WIDTH, HEIGHT) as page:
        page.goto(url + "/?reviewer=mallory")
        page.get_by_role("button", name="Log in").wait_for()
        assert page.get_by_label("Your reviewer name").count() == 0
        assert page.locator(".st-key-label_1 button").count() == 0
