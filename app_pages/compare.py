"""Compare screen: two runs side by side (metrics, items by outcome, both-fail first) and a run's boundary report."""

from __future__ import annotations

import streamlit as st

import dataclasses
import json

from judgecal import annotations as ann
from judgecal.app_pages._common import db_path, md_escape, reviewer

st.header("Compare runs")
with ann.unit_of_work(db_path()) as db:
    runs = ann.list_runs(db)
    boundary_runs = ann.runs_with_boundary_cases(db)

if len(runs) < 1:
    st.info("No runs yet. `judgecal run --model M` puts the eval set to a model; imported run records with a "
            "`run_id` show up here too.")
    st.stop()

labels = {r["run_id"]: f"{r['run_id']}  ({r['models']}, {r['records']} records)" for r in runs}
ids = list(labels)
tab_compare, tab_boundary = st.tabs(["Two runs", "Boundary cases"])

with tab_compare:
    col_a, col_b = st.columns(2)
    run_a = col_a.selectbox("Run A (current)", ids, index=0, format_func=labels.get, key="compare_a")
    run_b = col_b.selectbox("Run B (candidate)", ids, index=min(1, len(ids) - 1), format_func=labels.get,
                            key="compare_b")
    if run_a == run_b:
        st.info("Pick two different runs.")
    else:
        with ann.unit_of_work(db_path()) as db:
            try:
                c = ann.compare_runs(db, run_a, run_b)
            except ValueError as exc:  # e.g. check results stored by an older judgecal: `judgecal check` again
                st.error(md_escape(str(exc)))
                st.stop()
            # An item's failed constraints come from the human labels and the judge's verdicts on its pairs: an item
            # with a pair still waiting for this viewer's blind label (any reviewer's, when no name is chosen) is
            # left out of the lists, or the label that follows would not be blind (a review found a colleague's
            # `fail` readable here). The run-level rates are totals over every pair.
            # (the waiting pairs' records looked up, not every record of the two runs: bounded by the sample)
            waiting = sorted({rid for rid, _cid in ann.awaiting_blind_label(db, reviewer())})
            hidden = {row[0] for row in db.execute(
                "SELECT item_id FROM run_records WHERE id IN (SELECT value FROM json_each(?)) AND run_id IN (?, ?)",
                [json.dumps(waiting), run_a, run_b])}
        shown = dataclasses.replace(c, items=tuple(o for o in c.items if o.item_id not in hidden))
        st.code(ann.format_comparison(shown), language=None)
        counts = {name: len(shown.bucket(name)) for name in ann.BUCKETS}
        st.caption("Items: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items())
                   + ". Both-fail items come first: such an item is often broken rather than hard."
                   + (f" {len(hidden)} items are hidden until you have labelled their sampled pairs blind (Review)."
                      if hidden else ""))
        c = shown
        st.dataframe([{"item": o.item_id, "outcome": o.bucket.replace("_", " "), "A failed": ", ".join(o.a_failed),
                       "B failed": ", ".join(o.b_failed)} for o in c.items], hide_index=True, width="stretch")

with tab_boundary:
    # Open on the run with the most boundary runs per case (annotations.runs_with_boundary_cases), not on whichever
    # run came first.
    run = st.selectbox("Run", ids, index=ids.index(boundary_runs[0]) if boundary_runs else 0, format_func=labels.get,
                       key="boundary_run")
    if not boundary_runs:
        st.caption("No run has boundary cases (items tagged boundary:* with a refusal constraint).")
    n = st.number_input("Runs expected per case", min_value=1, max_value=50, value=ann.DEFAULT_EXPECTED_RUNS,
                        key="boundary_n")
    with ann.unit_of_work(db_path()) as db:
        try:
            report = ann.boundary_report(db, run, expected_runs=int(n))
        except ValueError as exc:
            report = None
            st.info(md_escape(exc))  # names the run id: user data in a markdown message
    if report is not None:
        st.dataframe([{"category": c.category, "cases": c.cases, "runs": c.runs, "labelled": c.labelled,
                       "blocked": c.blocked_rate, "compliant": c.compliance_rate,
                       "blocked by": ", ".join(f"{k} {v}" for k, v in c.layers.items()),
                       "not reproducible": ", ".join(c.irreproducible)} for c in report.categories],
                     hide_index=True, width="stretch")
        bad = [c for c in report.cases if not c.reproducible]
        if bad:
            st.subheader("Cases whose runs disagree")
            st.dataframe([{"item": c.item_id, "category": c.category, "why": c.why_not_reproducible} for c in bad],
                         hide_index=True, width="stretch")
        if report.unlabelled:
            st.caption(f"{report.unlabelled} run(s) have no refusal label yet: judge them (`judgecal judge`) or label "
                       "them in Review. They count in no rate.")
