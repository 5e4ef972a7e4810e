"""The identity example configuration in docs/auth.md is the one the code reads: its secrets.toml is an [auth]
section that `judgecal app` counts as authentication (tests/test_e2e_review_flow.py serves the app with it and finds
the Log in button), and the proxy example passes the header named in its $JUDGECAL_TRUSTED_HEADER line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from judgecal.app_pages._common import TRUSTED_HEADER_ENV, resolve_identity  # house: private
from judgecal._app_server import configured_auth, exposure_warning  # house: private

DOC = Path(__file__).resolve().parents[1] / "docs" / "auth.md"


def block(language: str) -> str:
    found = re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(found) == 1, f"one ```{language} block in {DOC.name}"
    return found[0]


def example_secrets(folder: Path) -> Path:
    secrets = folder / ".streamlit" / "secrets.toml"
    secrets.parent.mkdir(parents=True, exist_ok=True)
    secrets.write_text(block("toml"), encoding="utf-8")
    return secrets


def test_the_oidc_example_is_an_auth_section_judgecal_app_recognises(tmp_path):
    auth = tomllib.loads(block("toml"))["auth"]
    # the keys Streamlit's st.login needs for a single provider (Streamlit docs, "User authentication")
    assert {"redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url"} <= set(auth)
    assert auth["redirect_uri"].endswith("/oauth2callback")
    example_secrets(tmp_path)
    found = configured_auth({}, tmp_path)
    assert found is not None and exposure_warning("0.0.0.0", found) is None


def test_the_proxy_example_passes_the_header_the_app_trusts():
    header = re.search(rf"{TRUSTED_HEADER_ENV}=(\S+) judgecal app", block("bash")).group(1)
    nginx = block("nginx")
    assert f"proxy_set_header {header} $user;" in nginx  # the proxy overwrites what a client sent
    assert "proxy_pass http://127.0.0.1:8501;" in nginx  # the app listens on loopback only
    assert configured_auth({TRUSTED_HEADER_ENV: header}) is not None  # no exposure warning behind the proxy
    assert resolve_identity({TRUSTED_HEADER_ENV: header}, {header.lower(): "erin@corp"}, {}, None).name == "erin@corp"
