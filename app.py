"""Streamlit entry point: settings -> services -> st.navigation. Nothing else lives here."""

import streamlit as st

from app_pages import pages, settings

st.set_page_config(page_title="judgecal", layout="wide")
settings()
st.navigation(pages()).run()
