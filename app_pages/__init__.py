"""The app's screens, one module per screen, and the settings every screen shares.

Pages are files (st.Page runs them as scripts), so AppTest can open any one of them with `switch_page`.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_pages._common import db_path, reviewer

HERE = Path(__file__).resolve().parent


def pages() -> list:
    return [
        st.Page(HERE / "review.py", title="Review", icon=":material/rate_review:", default=True),
        st.Page(HERE / "calibration.py", title="Calibration", icon=":material/balance:"),
        st.Page(HERE / "evalset.py", title="Eval set", icon=":material/checklist:"),
        st.Page(HERE / "runs.py", title="Runs", icon=":material/play_circle:"),
        st.Page(HERE / "compare.py", title="Compare", icon=":material/compare_arrows:"),
    ]


def settings() -> None:
    """Sidebar: the project database and the reviewer's name (fixed by JUDGECAL_REVIEWER, else chosen once)."""
    path = db_path()
    st.sidebar.caption("Project database")
    st.sidebar.text(str(path))
    reviewer(widget=True)


__all__ = ["db_path", "pages", "reviewer", "settings"]
