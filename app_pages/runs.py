"""Runs screen: recorded batches (judge and model runs: status, verdicts, errors, tokens, cost) and judge errors by
cause. Verdicts that no recorded batch stored (imported, or the demo's) are said to be imported, never "no batches"
above a table that lists them."""

from __future__ import annotations

import streamlit as st

from judgecal import annotations as ann
from judgecal.app_pages._common import db_path, fmt_int

st.header("Runs")
with ann.unit_of_work(db_path()) as db:
    batches = ann.batches(db)
    errors = ann.errors_by_cause(db)
    imported = ann.imported_verdicts(db)

judge_batches = sum(b.kind == "judge" for b in batches)
drift_batches = sum(b.kind == "drift" for b in batches)
if batches:
    st.caption(f"{judge_batches} judge batch(es), {len(batches) - judge_batches - drift_batches} model run batch(es)"
               + (f", {drift_batches} drift batch(es)" if drift_batches else "") + ", newest first.")
    st.dataframe(
        [{"batch": b.id, "kind": b.kind, "status": b.status, "started": b.started_at, "finished": b.finished_at or "–",
          "planned": fmt_int(b.planned), "sent": fmt_int(b.sent), "verdicts": fmt_int(b.verdicts),
          "errors": fmt_int(b.errors), "input tokens": fmt_int(b.input_tokens),
          "output tokens": fmt_int(b.output_tokens), "cost": "–" if b.cost is None else f"${b.cost:,.4f}"}
         for b in batches],
        hide_index=True, width="stretch",
    )
    chosen = st.selectbox("Batch settings", [b.id for b in batches], key="runs_batch")
    st.json(next(b.settings for b in batches if b.id == chosen), expanded=False)
if imported:
    st.info(f"{fmt_int(imported)} verdict rows were imported (`judgecal import verdicts` or the demo), not judged by a "
            "batch of this project: they have no batch record, tokens or cost here.")
if not batches and not imported:
    st.info("No judge batches yet. `judgecal judge` scores the semantic constraints and records each batch here.")
st.subheader("Judge errors by cause")
if errors:
    st.caption("An error is never a label: these verdicts count neither as pass nor as fail. \"import:\" names the "
               "file the verdicts were imported from.")
    st.dataframe([{"batch or import": e["batch"], "cause": e["cause"], "verdict rows": fmt_int(e["n"])}
                  for e in errors], hide_index=True, width="stretch")
else:
    st.caption("No judge errors stored.")
