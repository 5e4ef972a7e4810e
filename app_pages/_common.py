"""What every screen needs: the project database path, the reviewer's name, and inert rendering of user data.

Only the database *path* is cached: sqlite connections must not cross Streamlit's threads, so each unit of work
opens its own (`annotations.unit_of_work`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import streamlit as st

import annotations as ann

REVIEWER_ENV = "JUDGECAL_REVIEWER"
REVIEWER_KEY = "reviewer"


@st.cache_resource(show_spinner=False)
def _migrated(path: str) -> Path:
    # Bring the schema up to date once per process and path, not on every rerun. create=False: the app never
    # makes a new empty project of a mistyped path (ProjectError is raised, and not cached).
    with ann.unit_of_work(path, create=False):
        pass
    return Path(path)


def db_path() -> Path:
    """$JUDGECAL_DB (set by `judgecal app`), else data/judgecal.db."""
    return _migrated(str(ann.default_db_path().resolve()))


def reviewer(*, widget: bool = False) -> str | None:
    """The reviewer's name: fixed by the deployment ($JUDGECAL_REVIEWER) or chosen in the sidebar (kept in
    the session). `widget=True` draws the sidebar field (the router does, on every screen)."""
    fixed = os.environ.get(REVIEWER_ENV, "").strip()
    if fixed:
        if widget:
            st.sidebar.caption("Reviewer (set by the deployment)")
            st.sidebar.text(fixed)
        return fixed
    if widget:
        st.sidebar.text_input("Your reviewer name", key=REVIEWER_KEY, placeholder="e.g. alice")
    return (st.session_state.get(REVIEWER_KEY) or "").strip() or None


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
# One way to write a number on every screen: the report's own formatting (annotations._calibration_text), so the page
# and `judgecal report` read the same; an undefined value is "–" everywhere, never None, NaN or a raw fraction.
def fmt_num(x: float | None, digits: int = 3) -> str:
    from annotations._calibration_text import _num
    return _num(x, digits)


def fmt_pct(x: float | None) -> str:
    """A share in [0, 1] as a percentage with one decimal ("–" when undefined)."""
    from annotations._calibration_text import _pct
    return "–" if x is None else _pct(x)


def fmt_kappa(a: object) -> str:
    """An annotations Agreement's kappa with its 95% interval: "0.314 [0.02, 0.61]" ("~": approximate)."""
    from annotations._calibration_text import _kappa
    return _kappa(a)


def fmt_int(x: int | None) -> str:
    return "–" if x is None else f"{x:,}"
