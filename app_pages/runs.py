"""Runs screen: judge batches (status, verdicts, errors, tokens, cost) and judge errors by cause."""

from __future__ import annotations

import streamlit as st

import annotations as ann
from app_pages._common import db_path

st.header("Runs")
with ann.unit_of_work(db_path()) as db:
    batches = ann.batches(db)
    errors = ann.errors_by_cause(db)

if not batches:
    st.info("No judge batches yet. `judgecal judge` scores the semantic constraints and records each batch here.")
else:
    st.dataframe(
        [{"batch": b.id, "kind": b.kind, "status": b.status, "started": b.started_at, "finished": b.finished_at,
          "planned": b.planned, "sent": b.sent, "verdicts": b.verdicts, "errors": b.errors,
          "input tokens": b.input_tokens, "output tokens": b.output_tokens,
          "cost": None if b.cost is None else round(b.cost, 4)} for b in batches],
        hide_index=True, width="stretch",
    )
    chosen = st.selectbox("Batch settings", [b.id for b in batches], key="runs_batch")
    st.json(next(b.settings for b in batches if b.id == chosen), expanded=False)
st.subheader("Judge errors by cause")
if errors:
    st.caption("An error is never a label: these verdicts count neither as pass nor as fail.")
    st.dataframe(errors, hide_index=True, width="stretch")
else:
    st.caption("No judge errors stored.")
