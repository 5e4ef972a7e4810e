"""What every screen needs: the project database path, who the reviewer is, and inert rendering of user data.

Only the database *path* is cached: sqlite connections must not cross Streamlit's threads, so each unit of work
opens its own (`annotations.unit_of_work`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping, NamedTuple

import streamlit as st

from judgecal import annotations as ann

REVIEWER_ENV = "JUDGECAL_REVIEWER"
TRUSTED_HEADER_ENV = "JUDGECAL_TRUSTED_HEADER"  # e.g. X-Forwarded-User: set by an authenticating reverse proxy
USER_CLAIM_ENV = "JUDGECAL_USER_CLAIM"  # which st.user claim names the reviewer after st.login (default: email)
ADMINS_ENV = "JUDGECAL_ADMINS"  # reviewer names (comma-separated) who may edit the guidelines
REVIEWER_KEY = "reviewer"  # session state: the typed name, once submitted
REVIEWER_PARAM = "reviewer"  # query parameter: the typed name survives a reload
ENTRY_KEY = "reviewer_entry"  # the name form's text field (never the name itself: label keys cannot reach it)
SIMILAR_KEY = "reviewer_similar"  # stored names close to a new typed one (a likely typo), offered once
NAME_ERROR_KEY = "reviewer_name_error"  # why the typed name was refused

@st.cache_resource(show_spinner=False)
def _migrated(path: str) -> Path:
    # Bring the schema up to date once per process and path, not on every rerun. create=False: the app never
    # makes a new empty project of a mistyped path (ProjectError is raised, and not cached).
    with ann.unit_of_work(path, create=False):
        pass
    return Path(path)


def db_path() -> Path:
    """$JUDGECAL_DB (set by `judgecal app`), else ./judgecal.db."""
    return _migrated(str(ann.default_db_path().resolve()))


class Identity(NamedTuple):
    """Who is reviewing, and where the name came from. `typed` names are chosen in the app; the others come from the
    deployment and cannot be changed in the app. name None: nobody yet (`problem` says why, when it is an error)."""

    name: str | None
    source: str  # deployment | header | login | typed
    problem: str | None = None

    @property
    def typed(self) -> bool:
        return self.source == "typed"


def resolve_identity(env: Mapping[str, str], headers: Mapping[str, str], user: Mapping[str, object],
                     typed: str | None) -> Identity:
    """The one rule for who the reviewer is, first match wins:

    1. $JUDGECAL_REVIEWER: one fixed name per app instance;
    2. $JUDGECAL_TRUSTED_HEADER: the header an authenticating proxy sets (only trustworthy when the app is reachable
       through that proxy alone); a request without it gets no identity, never a typed one;
    3. Streamlit's login ([auth] in .streamlit/secrets.toml: `user` carries is_logged_in): the claim named by
       $JUDGECAL_USER_CLAIM (default email, then name, then sub); logged out: no identity until login;
    4. the name typed in the app (session, or the ?reviewer= query parameter after a reload)."""
    fixed = env.get(REVIEWER_ENV, "").strip()
    if fixed:
        return Identity(fixed, "deployment")
    header = env.get(TRUSTED_HEADER_ENV, "").strip()
    if header:
        wanted = header.casefold()
        value = next((str(v).strip() for k, v in headers.items() if k.casefold() == wanted), "")
        if value:
            return Identity(value, "header")
        return Identity(None, "header", f"the request carries no {header} header: open the app through the "
                                        "authenticating proxy that sets it")
    if "is_logged_in" in user:
        if not user.get("is_logged_in"):
            return Identity(None, "login")
        claims = [env.get(USER_CLAIM_ENV, "").strip() or "email", "name", "sub"]
        value = next((str(user[c]).strip() for c in claims if str(user.get(c) or "").strip()), "")
        if value:
            return Identity(value, "login")
        return Identity(None, "login", f"the login carries none of the claims {', '.join(claims)}")
    name = " ".join((typed or "").split())
    return Identity(name or None, "typed")


def identity() -> Identity:
    """`resolve_identity` on this session: environment, request headers, st.user, the typed name (session state,
    else the query parameter). A typed name is kept in the URL (?reviewer=) so a reload keeps it."""
    typed = st.session_state.get(REVIEWER_KEY)
    if not typed and st.query_params.get(REVIEWER_PARAM):
        # A new session from a URL (a reload, a bookmark): the same checks and spelling as the form.
        try:
            with ann.unit_of_work(db_path()) as db:
                typed = st.session_state[REVIEWER_KEY] = ann.canonical_reviewer(
                    db, st.query_params[REVIEWER_PARAM]).name
        except ValueError as exc:
            st.session_state[NAME_ERROR_KEY] = f"?{REVIEWER_PARAM}= in the address: {exc}"
            st.query_params.pop(REVIEWER_PARAM, None)
    try:
        user = st.user.to_dict()
    except Exception:  # noqa: BLE001  (outside a session, e.g. bare mode: no login)
        user = {}
    who = resolve_identity(os.environ, dict(st.context.headers or {}), user, typed)
    if who.typed and who.name:
        st.session_state[REVIEWER_KEY] = who.name
        if st.query_params.get(REVIEWER_PARAM) != who.name:
            st.query_params[REVIEWER_PARAM] = who.name
    return who


def reviewer() -> str | None:
    """The reviewer's name (`identity`), None when there is none yet."""
    return identity().name


def admins() -> frozenset[str]:
    return ann.parse_admins(os.environ.get(ADMINS_ENV))


def _on_name_submitted() -> None:
    # Runs before the rerun that removes the form: keyboard focus cannot stay in a field that is gone, so the next
    # key press labels instead of editing the name.
    typed = st.session_state.get(ENTRY_KEY) or ""
    try:
        with ann.unit_of_work(db_path()) as db:
            chosen = ann.canonical_reviewer(db, typed)
    except ValueError as exc:
        st.session_state[NAME_ERROR_KEY] = str(exc)
        return
    st.session_state.pop(NAME_ERROR_KEY, None)
    st.session_state[REVIEWER_KEY] = chosen.name
    st.session_state[SIMILAR_KEY] = chosen.similar
    st.query_params[REVIEWER_PARAM] = chosen.name


def _use_name(name: str) -> None:
    st.session_state[REVIEWER_KEY] = name
    st.session_state[SIMILAR_KEY] = ()
    st.query_params[REVIEWER_PARAM] = name


def _switch_reviewer() -> None:
    for key in (REVIEWER_KEY, SIMILAR_KEY):
        st.session_state.pop(key, None)
    st.query_params.pop(REVIEWER_PARAM, None)


def render_identity() -> Identity:
    """The sidebar's reviewer block on every screen: the name and where it comes from; for a typed name, the form
    that sets it once (Enter submits) and a button to switch; for a login, log in / log out."""
    who = identity()
    side = st.sidebar
    if who.name is None:
        if who.source == "login":
            side.caption(md_escape(who.problem) if who.problem else "Log in to review: your login names you.")
            side.button("Log in", key="login", on_click=st.login)
        elif who.problem:
            side.error(md_escape(who.problem))
        else:
            problem = st.session_state.get(NAME_ERROR_KEY)
            with side.form("reviewer_form", border=False):
                st.text_input("Your reviewer name", key=ENTRY_KEY, placeholder="e.g. alice", max_chars=100)
                st.form_submit_button("Start reviewing", on_click=_on_name_submitted)
            if problem:
                side.error(md_escape(problem))
        return who
    side.caption({"deployment": "Reviewer (set by the deployment)", "header": "Reviewer (from your proxy login)",
                  "login": "Reviewer (your login)", "typed": "Reviewer"}[who.source])
    side.text(who.name)
    if who.typed:
        similar = st.session_state.get(SIMILAR_KEY) or ()
        if similar:
            side.warning(md_escape(f"{who.name} is a new reviewer name. Is one of these you?"))
            for n, other in enumerate(similar):
                side.button(md_escape(f"I am {other}"), key=f"use_name_{n}", on_click=_use_name, args=(other,))
        side.button("Switch reviewer", key="switch_reviewer", on_click=_switch_reviewer)
    elif who.source == "login":
        side.button("Log out", key="logout", on_click=st.logout)
    return who


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")
# GFM turns bare URLs, www. names and e-mail addresses into links AFTER escapes are resolved (a find-and-replace
# on the parsed text), so escaping cannot stop it: a WORD JOINER (U+2060, invisible) inside "://", after "www" and
# after "@" breaks the pattern while the text reads the same.
_AUTOLINK = re.compile(r"(?i)(:)(//)|(www)(\.)|(@)")
WORD_JOINER = "\u2060"


def _defuse_autolink(text: str) -> str:
    return _AUTOLINK.sub(lambda m: WORD_JOINER.join(g for g in m.groups() if g is not None)
                         + (WORD_JOINER if m.group(5) else ""), text)


def md_escape(text: object) -> str:
    """User data placed where Streamlit renders markdown (button labels, progress text, expander labels, alerts):
    every markdown character escaped, so a link, image or emphasis stays literal text, and bare URLs, www. names
    and e-mail addresses are kept from becoming links."""
    return _MD_SPECIAL.sub(r"\\\1", _defuse_autolink(str(text))).replace("\n", " ")


# ---------------------------------------------------------------------------------------------- number formatting
# One way to write a number on every screen: the report's own formatting (annotations.reports._text), so the page
# and `judgecal report` read the same; an undefined value is "–" everywhere, never None, NaN or a raw fraction.
def fmt_num(x: float | None, digits: int = 3) -> str:
    from judgecal.annotations.reports._text import _num  # house: private
    return _num(x, digits)


def fmt_pct(x: float | None) -> str:
    """A share in [0, 1] as a percentage with one decimal ("–" when undefined)."""
    from judgecal.annotations.reports._text import _pct  # house: private
    return "–" if x is None else _pct(x)


def fmt_judge_rate(rate: object) -> str:
    """A `PassRate`'s judge-alone rate, or why it has none (every judged pair errored or tied), as the report says."""
    from judgecal.annotations.reports._text import _judge_rate  # house: private
    return _judge_rate(rate)


def fmt_kappa(a: object) -> str:
    """An annotations Agreement's kappa with its 95% interval: "0.314 [0.02, 0.61]" ("~": approximate)."""
    from judgecal.annotations.reports._text import _kappa  # house: private
    return _kappa(a)


def fmt_int(x: int | None) -> str:
    return "–" if x is None else f"{x:,}"
