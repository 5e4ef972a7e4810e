"""Eval set screen: sizes and mechanical-check metrics, then one item at a time with its constraints, outputs and
check results. Item text and outputs are user data: shown with st.text / st.code / st.dataframe only."""

from __future__ import annotations

import json

import streamlit as st

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal.app_pages._common import db_path

PAGE_SIZE = 200


@st.cache_data(show_spinner=False, max_entries=8)
def _metrics_text(path: str, version: tuple) -> str | None:
    # Metrics read every check result: computed once per data version, not on each rerun.
    with ann.unit_of_work(path) as db:
        rows = list(ann.check_rows(db))
    return evalsets.format_metrics(evalsets.compute_metrics(rows)) if rows else None


st.header("Eval set")
path = db_path()
with ann.unit_of_work(path) as db:
    counts = ann.project_counts(db)
    version = ann.data_version(db)
cols = st.columns(len(counts))
for col, (what, n) in zip(cols, counts.items()):
    col.metric(what, n)

st.subheader("Mechanical checks")
text = _metrics_text(str(path), version)
if text is None:
    st.caption("No check results yet: `judgecal check` runs the mechanical checks.")
else:
    st.code(text, language=None)

st.subheader("Items")
search = st.text_input("Find item id", key="evalset_search")
page = st.number_input("Page", min_value=1, value=1, step=1, key="evalset_page")
with ann.unit_of_work(path) as db:
    ids = ann.item_ids(db, search=search, limit=PAGE_SIZE, offset=(int(page) - 1) * PAGE_SIZE)
if not ids:
    st.caption("No items here.")
    st.stop()
item_id = st.selectbox("Item", ids, key="evalset_item")
with ann.unit_of_work(path) as db:
    item = ann.load_items(db, [item_id])[item_id]
    runs = ann.run_ids_of_item(db, item_id)
st.caption("Instruction")
st.text(item.instruction)
if item.input is not None:
    st.caption("Input")
    if isinstance(item.input, str):
        st.text(item.input)
    else:
        st.code(json.dumps(item.input, indent=2, ensure_ascii=False), language="json", wrap_lines=True)
st.caption("Constraints")
st.dataframe(
    [{"id": c.id, "text": c.text, "type": c.type, "severity": c.severity,
      "check": c.check.id if c.check else "(semantic: judge and reviewers)", "labels": ", ".join(c.labels)}
     for c in item.constraints],
    hide_index=True, width="stretch",
)
if not runs:
    st.caption("No run records for this item.")
    st.stop()
run_id = st.selectbox("Run record", [r[0] for r in runs], key="evalset_run",
                      format_func=lambda rid: f"{rid} ({dict(runs)[rid]})")
with ann.unit_of_work(path) as db:
    record = ann.load_run(db, run_id)
    results = ann.check_results_of_run(db, run_id)
st.caption("Output")
if record.output is not None:
    st.text(record.output)
elif record.trajectory is not None:
    st.code(json.dumps([s.model_dump(mode="json", exclude_none=True) for s in record.trajectory], indent=2,
                       ensure_ascii=False, default=str), language="json", wrap_lines=True)
else:
    st.text(f"(no output: {record.error})")
st.caption("Check results")
if results:
    st.dataframe(results, hide_index=True, width="stretch")
else:
    st.text("(not checked yet)")
