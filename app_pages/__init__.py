"""The app's screens, one module per screen, and the settings every screen shares.

Pages are files (st.Page runs them as scripts), so AppTest can open any one of them with `switch_page`.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from judgecal import annotations as ann
from judgecal.app_pages._common import db_path, md_escape, render_identity, reviewer

HERE = Path(__file__).resolve().parent


def pages() -> list:
    # No `:material/...:` icons: Streamlit loads them from fonts.gstatic.com, and the app fetches nothing from
    # outside the server it runs on.
    return [
        st.Page(HERE / "review.py", title="Review", default=True),
        st.Page(HERE / "calibration.py", title="Calibration"),
        st.Page(HERE / "evalset.py", title="Eval set"),
        st.Page(HERE / "runs.py", title="Runs"),
        st.Page(HERE / "compare.py", title="Compare"),
        st.Page(HERE / "rubrics.py", title="Rubrics"),
        st.Page(HERE / "drift.py", title="Drift"),
    ]


def settings() -> None:
    """Sidebar: the project database and who the reviewer is (`_common.identity`: deployment, proxy header, login,
    else a name typed once).
    A project that cannot be opened (missing, another application's database, a newer judgecal's, read-only) stops
    every page with the reason, and nothing is created."""
    try:
        path = db_path()
    except ann.ProjectError as exc:
        st.error(md_escape(exc))
        if isinstance(exc, ann.NoProject):
            st.text("Create one with: judgecal demo, or judgecal import evalset FILE (with the same --db or "
                    "$JUDGECAL_DB), then reload this page.")
        st.stop()
        return  # st.stop() only stops a script run by Streamlit
    st.sidebar.caption("Project database")
    st.sidebar.text(str(path))
    render_identity()


def main() -> None:
    """The router: page config, the shared sidebar, then the page the user is on. Nothing else lives here."""
    st.set_page_config(page_title="judgecal", layout="wide")
    settings()
    st.navigation(pages()).run()


__all__ = ["db_path", "main", "pages", "reviewer", "settings"]
