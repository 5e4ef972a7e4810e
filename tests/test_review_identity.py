"""Who the reviewer is (issue 12.1): one rule (`app_pages._common.resolve_identity`) over the deployment's fixed name,
a trusted proxy header, Streamlit's login and a name typed once into a form; AppTest for each source AppTest can
seed (query parameter, st.user, environment), the rule itself for the header (AppTest cannot send request headers;
tests/test_e2e_review_flow.py sends one from a real browser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from judgecal.app_pages._common import Identity, resolve_identity  # house: private

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ENV_KEYS = ("JUDGECAL_REVIEWER", "JUDGECAL_TRUSTED_HEADER", "JUDGECAL_USER_CLAIM", "JUDGECAL_ADMINS")


def _sample(db: Path) -> None:
    with ann.unit_of_work(db) as conn, ann.write(conn):
        conn.conn.executemany(
            "INSERT INTO samples (run_record_id, constraint_id, rule, stratum, seed, drawn_at) VALUES (?,?,?,?,?,?)",
            [(rid, "grounded", "random", "grounded|test", 0, ann.now_iso()) for rid in ("run-a-2", "run-a-4")])


def _at(db: Path, monkeypatch, **env: str) -> AppTest:
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return AppTest.from_file(APP, default_timeout=60)


def _reviewers(db: Path) -> list[str]:
    with ann.unit_of_work(db) as conn:
        return [r[0] for r in conn.execute("SELECT reviewer FROM human_labels ORDER BY id")]


@pytest.mark.parametrize("env, headers, user, typed, expected", [
    pytest.param({"JUDGECAL_REVIEWER": "fixed"}, {"X-Forwarded-User": "h"}, {"is_logged_in": True, "email": "e"},
                 "typed", Identity("fixed", "deployment"), id="deployment-first"),
    pytest.param({"JUDGECAL_TRUSTED_HEADER": "X-Forwarded-User"}, {"x-forwarded-user": " carol@corp "}, {}, "mallory",
                 Identity("carol@corp", "header"), id="header-case-insensitive-beats-typed"),
    pytest.param({"JUDGECAL_TRUSTED_HEADER": "X-Forwarded-User"}, {"X-Other": "carol"}, {}, "mallory",
                 Identity(None, "header", "the request carries no X-Forwarded-User header: open the app through the "
                                          "authenticating proxy that sets it"), id="header-missing-no-typed-fallback"),
    pytest.param({}, {}, {"is_logged_in": True, "email": "dana@corp", "name": "Dana"}, "mallory",
                 Identity("dana@corp", "login"), id="login-email"),
    pytest.param({"JUDGECAL_USER_CLAIM": "name"}, {}, {"is_logged_in": True, "email": "dana@corp", "name": "Dana"},
                 None, Identity("Dana", "login"), id="login-claim"),
    pytest.param({}, {}, {"is_logged_in": False}, "mallory", Identity(None, "login"), id="logged-out-no-typed"),
    pytest.param({}, {"X-Forwarded-User": "h"}, {"email": "no-auth-configured"}, "  carol  ",
                 Identity("carol", "typed"), id="typed-header-ignored-unless-configured"),
    pytest.param({}, {}, {}, "", Identity(None, "typed"), id="nobody"),
])
def test_identity_rule(env, headers, user, typed, expected):
    assert resolve_identity(env, headers, user, typed) == expected


def test_typed_name_is_submitted_once_and_kept_in_the_url(project_db, monkeypatch):
    _sample(project_db)
    at = _at(project_db, monkeypatch).run()
    assert at.sidebar.text_input(key="reviewer_entry").label == "Your reviewer name"
    assert not any(b.key == "label_1" for b in at.button)  # no name yet, no queue
    at.sidebar.text_input(key="reviewer_entry").input("carol")
    at.sidebar.button[0].click().run()
    assert not at.exception
    assert at.query_params["reviewer"] == "carol"
    assert not at.sidebar.text_input  # the field is gone: no later key press can reach it
    at.button(key="label_1").click().run()
    assert _reviewers(project_db) == ["carol"]


def test_reload_keeps_the_name_from_the_query_parameter(project_db, monkeypatch):
    _sample(project_db)
    at = _at(project_db, monkeypatch)
    at.query_params["reviewer"] = "carol"  # a fresh session (a reload) with the URL the form left
    at.run()
    assert not at.exception and not at.sidebar.text_input
    at.button(key="label_1").click().run()
    assert _reviewers(project_db) == ["carol"]


def test_a_name_differing_only_in_case_is_the_stored_reviewer_and_a_near_typo_is_flagged(project_db, monkeypatch):
    _sample(project_db)
    with ann.unit_of_work(project_db) as db:
        ann.record_label(db, "Carol", ann.Pair("run-a-2", "grounded"), "pass")
        assert ann.canonical_reviewer(db, "  carol ") == ("Carol", ())
        assert ann.canonical_reviewer(db, "Carl").similar == ("Carol",)
        for bad in ("", "   ", "car\x1bol", "x" * 101):
            with pytest.raises(ValueError):
                ann.canonical_reviewer(db, bad)
    at = _at(project_db, monkeypatch).run()
    at.sidebar.text_input(key="reviewer_entry").input("Carl")
    at.sidebar.button[0].click().run()
    assert any("Carl is a new reviewer name" in w.value for w in at.sidebar.warning)
    at.sidebar.button(key="use_name_0").click().run()
    assert at.query_params["reviewer"] == "Carol" and not at.sidebar.warning
    at.sidebar.button(key="switch_reviewer").click().run()
    assert at.sidebar.text_input(key="reviewer_entry") is not None and "reviewer" not in at.query_params
    at.sidebar.text_input(key="reviewer_entry").input("bad\x07name")
    at.sidebar.button[0].click().run()
    assert "control characters" in at.sidebar.error[0].value and "reviewer" not in at.query_params


def test_login_names_the_reviewer_and_cannot_be_typed(project_db, monkeypatch):
    _sample(project_db)
    at = _at(project_db, monkeypatch)
    at.user = {"is_logged_in": True, "email": "dana@example.com", "name": "Dana"}
    at.query_params["reviewer"] = "mallory"  # a typed name in the URL does not override a login
    at.run()
    assert not at.exception and not at.sidebar.text_input
    assert "dana@example.com" in [t.value for t in at.sidebar.text]
    at.button(key="label_1").click().run()
    assert _reviewers(project_db) == ["dana@example.com"]


def test_logged_out_user_gets_a_login_button_and_no_queue(project_db, monkeypatch):
    _sample(project_db)
    at = _at(project_db, monkeypatch)
    at.user = {"is_logged_in": False}
    at.run()
    assert not at.exception and not at.sidebar.text_input
    assert at.sidebar.button(key="login").label == "Log in"
    assert not any(b.key == "label_1" for b in at.button)


def test_trusted_header_configured_but_absent_stops_the_review(project_db, monkeypatch):
    """AppTest sends no request headers: with $JUDGECAL_TRUSTED_HEADER set, the page must not fall back to a typed
    name (that would let anyone who reaches the app directly label as anyone)."""
    _sample(project_db)
    at = _at(project_db, monkeypatch, JUDGECAL_TRUSTED_HEADER="X-Forwarded-User")
    at.query_params["reviewer"] = "mallory"
    at.run()
    assert not at.exception and not at.sidebar.text_input
    assert "X-Forwarded-User header" in at.sidebar.error[0].value.replace("\\", "")
    assert not any(b.key == "label_1" for b in at.button)


def test_a_name_from_the_url_gets_the_checks_and_spelling_of_the_form(project_db, monkeypatch):
    _sample(project_db)
    with ann.unit_of_work(project_db) as db:
        ann.record_label(db, "carol", ann.Pair("run-a-2", "grounded"), "pass")
    at = _at(project_db, monkeypatch)
    at.query_params["reviewer"] = " CAROL "  # a hand-typed URL: the stored reviewer, not a second one
    at.run()
    assert at.query_params["reviewer"] == "carol"
    at.button(key="label_1").click().run()
    assert _reviewers(project_db) == ["carol", "carol"]

    bad = _at(project_db, monkeypatch)
    bad.query_params["reviewer"] = "eve\u202ename"  # a bidi override is a control character in a name
    bad.run()
    assert not bad.exception and "control characters" in bad.sidebar.error[0].value
    assert bad.sidebar.text_input(key="reviewer_entry") is not None and "reviewer" not in bad.query_params
