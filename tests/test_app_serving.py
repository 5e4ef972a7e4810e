"""Serving the app (issue 11, items 5 and 10): the app refuses a project it cannot open without creating one;
`judgecal app` listens on 127.0.0.1 unless told otherwise, warns when exposed without authentication, refuses a busy
port with exit 2, and SIGTERM stops the Streamlit server it started. Real processes, real sockets."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from conftest import seed_project
from judgecal._app_server import AUTH_ENV, configured_auth, exposure_warning, port_in_use  # house: private

REPO = Path(__file__).resolve().parents[1]
APP = str(REPO / "app.py")
START_S = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepts(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


# --- the app opens the project the way the CLI does -----------------------------------------------------------------

def test_app_on_a_missing_project_says_so_and_creates_nothing(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "typo.db"
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert any("no project at" in e.value for e in at.error)
    assert any("judgecal demo" in t.value for t in at.text)
    assert not db.exists()


def test_app_refuses_another_applications_database_untouched(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "other.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert any("another application" in e.value for e in at.error)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


# --- authentication detection and the exposure warning --------------------------------------------------------------

def test_exposure_warning_only_off_loopback_without_auth(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert configured_auth({}, tmp_path) is None
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert exposure_warning(host, None) is None
    for host in ("0.0.0.0", "::", "192.168.1.10"):
        assert "no authentication" in exposure_warning(host, None)
    assert configured_auth({AUTH_ENV: "proxy"}, tmp_path) is not None
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    secrets.parent.mkdir()
    secrets.write_text("[other]\nx = 1\n")
    assert configured_auth({}, tmp_path) is None  # a secrets file without [auth] is no authentication
    secrets.write_text("[auth]\nredirect_uri = 'http://localhost:8501/oauth2callback'\ncookie_secret = 's'\n")
    auth = configured_auth({}, tmp_path)
    assert auth is not None and exposure_warning("0.0.0.0", auth) is None
    secrets.write_text("[auth\n")  # unreadable TOML: not configured, and no traceback
    assert configured_auth({}, tmp_path) is None


def test_port_in_use_sees_a_listener() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert port_in_use("127.0.0.1", port)
        assert port_in_use("0.0.0.0", port)
    assert not port_in_use("127.0.0.1", port)


# --- `judgecal app` as a process ------------------------------------------------------------------------------------

def _judgecal(db: Path, *args: str, cwd: Path, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "judgecal", "--db", str(db), "app", "--headless", *args],
        cwd=cwd, env=dict(os.environ, PYTHONPATH=str(REPO), HOME=str(cwd), **env),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextmanager
def judgecal_app(db: Path, port: int, tmp_path: Path, **env: str) -> Iterator[subprocess.Popen]:
    proc = _judgecal(db, "--port", str(port), cwd=tmp_path, **env)
    try:
        seen = []
        for line in proc.stdout:  # Streamlit's own banner comes on the same stdout
            seen.append(line)
            if line.startswith("judgecal app on"):  # printed only once the server answers
                break
        assert f"http://127.0.0.1:{port}" in seen[-1], (seen, proc.poll(), proc.stderr.read() if proc.poll() else "")
        yield proc
    finally:
        if proc.poll() is None:
            # SIGTERM first: `judgecal app` stops the Streamlit server it started (a SIGKILL would leave that child
            # serving on after the test, as it did)
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _listen_addresses(port: int) -> set[str]:
    """Local addresses of sockets listening on `port`, from /proc/net/tcp (IPv4) and tcp6."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, hexport = local.rsplit(":", 1)
            if state == "0A" and int(hexport, 16) == port:  # 0A = LISTEN
                found.add(addr)
    return found


def test_app_listens_on_loopback_refuses_a_busy_port_and_stops_on_sigterm(tmp_path: Path) -> None:
    db = seed_project(tmp_path / "project.db")
    port = _free_port()
    with judgecal_app(db, port, tmp_path) as first:
        assert _accepts(port)
        if Path("/proc/net/tcp").exists():
            assert _listen_addresses(port) == {"0100007F"}, "listens on 127.0.0.1 only"
        # A second app on the same port: a clear exit 2, not a URL printed as if it had started.
        t0 = time.monotonic()
        second = _judgecal(db, "--port", str(port), cwd=tmp_path)
        out, err = second.communicate(timeout=30)
        assert second.returncode == 2, (out, err)
        assert f"port {port}" in err and "already in use" in err and "http://" not in out
        assert time.monotonic() - t0 < 30
        # SIGTERM to `judgecal app`: the Streamlit server it started stops too.
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=20)
        deadline = time.monotonic() + 10
        while _accepts(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _accepts(port), "the Streamlit server kept listening after judgecal app was stopped"
        assert first.returncode == 128 + signal.SIGTERM


def test_app_stops_its_server_on_ctrl_c(tmp_path: Path) -> None:
    db = seed_project(tmp_path / "project.db")
    port = _free_port()
    with judgecal_app(db, port, tmp_path) as app:
        app.send_signal(signal.SIGINT)  # to the parent alone: a terminal would also signal the child
        app.wait(timeout=20)
        deadline = time.monotonic() + 10
        while _accepts(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _accepts(port)


@pytest.mark.parametrize("auth", [False, True], ids=["no-auth", "auth-env"])
def test_serving_the_network_warns_unless_authentication_is_configured(tmp_path: Path, auth: bool) -> None:
    db = seed_project(tmp_path / "project.db")
    with socket.socket() as busy:  # a busy port ends the command right after the warning (no server started)
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {AUTH_ENV: "proxy"} if auth else {}
        proc = _judgecal(db, "--host", "0.0.0.0", "--port", str(port), cwd=tmp_path, **env)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert ("warning: the app listens on 0.0.0.0" in err) is not auth


def test_app_on_a_missing_project_exits_2(tmp_path: Path) -> None:
    db = tmp_path / "nothing.db"
    proc = _judgecal(db, "--port", str(_free_port()), cwd=tmp_path)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and f"no project at {db}" in err and "http://" not in out
    assert not db.exists()


# --- in a real browser: hostile URLs in ids stay text, and nothing is fetched from outside the server ---------------

HOSTILE_ID = "https://evil.example/item-1 www.evil.example/x"


def _hostile_url_project(path: Path) -> Path:
    """Ids, model, constraint and judge model names that are URLs (the review card, the calibration page and the
    eval set page show them)."""
    import json

    from judgecal import annotations as ann
    from conftest import add_rubric, add_verdicts
    from judgecal.evalsets import EvalItem, RunRecord, parse_rows

    item = {"id": HOSTILE_ID, "instruction": "Answer politely.",
            "constraints": [{"id": "https://evil.example/c", "text": "Be polite.", "type": "content"}]}
    run = {"id": "https://evil.example/run-1", "item_id": HOSTILE_ID, "model": "http://evil.example/model",
           "run_id": "www.evil.example", "output": "Thank you for waiting."}
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows(json.dumps(item), EvalItem))
        ann.import_runs(db, parse_rows(json.dumps(run), RunRecord))
        add_rubric(db, "c" * 64, version=1)
        add_verdicts(db, [(run["id"], "https://evil.example/c", "c" * 64, "pass", None, r) for r in range(3)],
                     judge_model="https://evil.example/judge")
        ann.draw_sample(db, rate=1.0)
    return path


def test_md_escape_keeps_bare_urls_and_addresses_from_becoming_links() -> None:
    """GFM links bare URLs after escapes are resolved: the escaped text must not match its patterns."""
    import re

    from judgecal.app_pages._common import WORD_JOINER, md_escape  # house: private

    for text in ("https://evil.example/x", "HTTP://EVIL.EXAMPLE", "www.evil.example", "WwW.evil.example",
                 "mail bob@evil.example now"):
        shown = re.sub(r"\\(.)", r"\1", md_escape(text))  # what the text reads after markdown's escapes
        assert shown.replace(WORD_JOINER, "") == text
        assert not re.search(r"(?i)https?://|www\.|\w@\w", shown), shown


def test_hostile_urls_are_text_and_nothing_leaves_the_server(tmp_path: Path) -> None:
    from urllib.parse import urlparse

    from test_e2e_browser import _need_browser, browser_page

    _need_browser()
    db = _hostile_url_project(tmp_path / "project.db")
    port = _free_port()
    requests: list[str] = []
    with judgecal_app(db, port, tmp_path, JUDGECAL_REVIEWER="bob"), browser_page() as page:
        page.on("request", lambda r: requests.append(r.url))
        page.goto(f"http://127.0.0.1:{port}")
        page.get_by_text("evil.example/run-1", exact=False).first.wait_for()
        for title, slug in (("Calibration", "calibration"), ("Eval set", "evalset"), ("Runs", "runs"),
                            ("Compare", "compare"), ("Review", "")):
            page.get_by_role("link", name=title).first.click()
            page.wait_for_url(f"http://127.0.0.1:{port}/{slug}")
            # Review and Calibration put the names in markdown (captions, expander labels); the other pages show
            # them in select boxes (<input>) and data frames (a canvas), which cannot hold links.
            if title in ("Review", "Calibration"):
                try:
                    page.wait_for_function("document.body.innerText.includes('evil.example')")
                except Exception:  # noqa: BLE001 - name the page
                    pytest.fail(f"{title} did not show the hostile names at all: {page.inner_text('body')[:1500]}")
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(1000)  # let the script rerun finish rendering
            links = page.locator("a[href*='evil.example']")
            assert links.count() == 0, (f"a link to evil.example on {title}",
                                        links.first.evaluate("a => a.parentElement.parentElement.outerHTML"))
    assert requests
    outside = [u for u in requests if urlparse(u).scheme not in ("data", "blob")
               and urlparse(u).hostname != "127.0.0.1"]
    assert not outside, f"requests left 127.0.0.1: {outside[:5]}"
