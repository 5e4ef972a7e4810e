"""The review flow once in a real browser: `streamlit run app.py` on a copy of the demo project, Debian chromium
driven by playwright. Labels three pairs with the keyboard alone, reloads, and finds the labels and the quota
progress kept; then checks that hostile markup in an output stays inert text.

Needs /usr/bin/chromium (Debian package `chromium`; never `playwright install`). Without it the tests skip locally
and fail when CI=true. The screenshot lands in test-artifacts/ (git-ignored); its path is printed.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from judgecal import annotations as ann
from conftest import HOSTILE_OUTPUT

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
TIMEOUT_MS = 30_000


def _need_browser():
    reason = None
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        reason = "the playwright Python package is not installed"
    if reason is None and not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser test cannot run in CI: {reason}")
        pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(db: Path, tmp_path: Path, *, cwd: Path = REPO, **env: str) -> Iterator[str]:
    port = _free_port()
    log = open(tmp_path / f"streamlit-{port}.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, JUDGECAL_DB=str(db), PYTHONPATH=str(REPO), **env),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start:\n{(tmp_path / f'streamlit-{port}.log').read_text()}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextmanager
def browser_page(width: int = 1400, height: int = 1000, **context: object) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, **context)
            page.set_default_timeout(TIMEOUT_MS)
            yield page
        finally:
            browser.close()


def _demo_db(tmp_path: Path) -> Path:
    """A temp copy of the demo project, with its review sample drawn."""
    from judgecal.cli import main

    db = tmp_path / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    with ann.unit_of_work(db) as conn:
        if not conn.execute("SELECT count(*) FROM samples").fetchone()[0]:
            ann.draw_sample(conn)
    copy = tmp_path / "demo-copy.db"
    with ann.unit_of_work(db) as conn:
        conn.execute(f"VACUUM INTO '{copy}'")
    return copy


def _labels(db: Path, reviewer: str) -> list[tuple]:
    with ann.unit_of_work(db) as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT run_record_id, constraint_id, event, label, blind FROM human_labels WHERE reviewer = ? ORDER BY id",
            [reviewer])]


def _wait_for(predicate, what: str, timeout: float = TIMEOUT_MS / 1000):
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.1)
    return result


def _quota_done(page) -> int:
    text = page.get_by_text(re.compile(r"^Quota: \d+ of \d+")).first.inner_text()
    return int(re.match(r"Quota: (\d+) of", text).group(1))


def _enter_name(page, name: str) -> None:
    """Type the name into the sidebar form and press Enter: the form is replaced by the name, so keyboard focus
    leaves the field by itself and the next key press labels (issue 12.1: no Tab needed)."""
    field = page.get_by_label("Your reviewer name")
    field.fill(name)
    field.press("Enter")
    page.get_by_text(re.compile(r"^Quota: ")).first.wait_for()
    field.wait_for(state="detached")


def test_label_three_pairs_by_keyboard_and_reload(tmp_path):
    _need_browser()
    db = _demo_db(tmp_path)
    with streamlit_server(db, tmp_path) as url, browser_page() as page:
        page.goto(url)
        _enter_name(page, "alice")
        page.locator(".st-key-label_1 button").wait_for()
        assert _quota_done(page) == 0
        for n in range(1, 4):
            page.keyboard.press("1")
            labels = _wait_for(lambda n=n: len(_labels(db, "alice")) == n and _labels(db, "alice"), f"label {n}")
            rid = labels[-1][0]
            # the rerun finished: the reveal of the pair just labelled is on screen
            page.get_by_text(re.compile(rf"Your last label · {re.escape(rid)}")).first.wait_for()
        saved = _labels(db, "alice")
        with ann.unit_of_work(db) as conn:
            label_sets = ann.pair_label_sets(conn, [(r, c) for r, c, *_ in saved])
        # key 1 = the first label of each pair's own label set; blind first labels
        assert [(e, lab, blind) for _, _, e, lab, blind in saved] == [
            ("label", label_sets[(r, c)][0], 1) for r, c, *_ in saved]
        assert len({(r, c) for r, c, *_ in _labels(db, "alice")}) == 3  # three different pairs

        page.reload()  # the name is kept in the URL (?reviewer=alice): no second entry
        with ann.unit_of_work(db) as conn:
            expected = sum(min(r.labelled, r.needed) for r in ann.quota_progress(conn))
        assert expected >= 1  # the demo's queue is the random sample: its labels count for the quota
        _wait_for(lambda: _quota_done(page) == expected, "the quota progress after reload")
        assert len(_labels(db, "alice")) == 3  # persisted across the reload, nothing duplicated
        page.locator(".st-key-label_1 button").wait_for()  # the page has finished its rerun: a complete screenshot
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "review-e2e.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")


def test_hostile_output_is_inert_in_the_browser(project_db, tmp_path):
    _need_browser()
    with ann.unit_of_work(project_db) as conn, ann.write(conn):
        conn.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at)"
                     " VALUES ('run-a-1', 'polite', 'random', 'polite|test', 0, ?)", [ann.now_iso()])
    requests: list[str] = []
    with streamlit_server(project_db, tmp_path, JUDGECAL_REVIEWER="bob") as url, browser_page() as page:
        page.on("request", lambda r: requests.append(r.url))
        page.goto(url)
        page.locator(".st-key-label_1 button").wait_for()
        page.get_by_text("<script>document.title='pwned'</script>", exact=False).first.wait_for()
        body = page.inner_text("body")
        assert HOSTILE_OUTPUT.split(" <script>")[0] in body and "[click me](http://evil.example/phish)" in body
        assert page.locator("img[src*='evil.example']").count() == 0
        assert page.locator("a[href*='evil.example']").count() == 0
        assert page.evaluate("Array.from(document.scripts).some(s => s.text.includes('pwned'))") is False
        assert page.title() != "pwned"
        assert not [u for u in requests if "evil.example" in u]
        # Nothing leaves the server: no CDN fonts or icons, no usage statistics.
        assert not [u for u in requests if not u.startswith(("data:", "blob:", url))], requests
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "review-inert.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
