"""Calibration screen (placeholder): judge–human agreement arrives with the calibration feature."""

import streamlit as st

st.header("Calibration")
st.info(
    "Calibration arrives with the calibration feature: agreement between the judge and the reviewers (Cohen's kappa "
    "with its confidence interval, confusion matrix, TPR/TNR) per constraint, next to the human–human ceiling. "
    "Until then, label pairs on the Review screen; every label is kept for it."
)
