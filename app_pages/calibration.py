"""Calibration screen: judge vs human agreement (annotations.calibration_report), the review quota, and the
disagreement list with adjudication and "send to eval set". Outputs, notes and reasons are user data: shown with
st.text / st.code / st.dataframe only, never as markdown or HTML."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import annotations as ann
import judge
from annotations._calibration import calibration_report, filter_options
from annotations._calibration_text import confusion_rows, kappa_rows, slice_table
from annotations._feedback import DECISIONS, adjudicate, disagreements, send_to_evalset
from app_pages._common import db_path, md_escape, reviewer

ALL = "(all)"
SHOWN = 50

st.header("Calibration")
path = db_path()
with ann.unit_of_work(path) as db:
    options = filter_options(db)

if not options.rubrics:
    st.info("No judge verdicts yet: `judgecal judge` scores the semantic constraints (or `judgecal import verdicts`). "
            "Label pairs on the Review screen meanwhile; every label is kept for calibration.")
    st.stop()

c1, c2, c3 = st.columns(3)
rubric = c1.selectbox("Rubric version", [ALL, *options.rubrics], key="cal_rubric")
model = c2.selectbox("Judge model", [ALL, *options.judge_models], key="cal_model")
constraint = c3.selectbox("Constraint", [ALL, *options.constraints], key="cal_constraint")
filters = {"rubric": None if rubric == ALL else rubric, "model": None if model == ALL else model,
           "constraint": None if constraint == ALL else constraint}

with ann.unit_of_work(path) as db:
    report = calibration_report(db, **filters)

demo_judges = sorted({g.judge_model for g in report.groups if judge.is_demo_quality(g.judge_model)})
if demo_judges:
    st.warning(f"{md_escape(', '.join(demo_judges))}: {judge.DEMO_QUALITY_WARNING}")  # model names: user data

# ------------------------------------------------------------------ quota
below = report.below_quota
if below:
    st.error(f"{len(below)} of {len(report.coverage)} strata are below the {report.rate:.0%} review quota: the judge "
             "is not verified there, and `judgecal gate` fails until they are labelled.")
else:
    st.success(f"Every stratum meets the {report.rate:.0%} review quota ({len(report.coverage)} strata).")
st.dataframe(pd.DataFrame([{"stratum": c.stratum, "semantic pairs": c.population, "judged": c.judged,
                            "counted": c.labelled, "needed": c.needed,
                            "status": "ok" if c.ok else (c.reason or "BELOW QUOTA")} for c in report.coverage]),
             hide_index=True, width="stretch")

# ------------------------------------------------------------------ agreement
st.subheader("Judge vs human (random sample)")
st.caption(f"{report.majority_rule}. Targeted pairs are shown apart (biased). TPR/TNR: fail = positive.")
st.dataframe(pd.DataFrame(slice_table(report)), hide_index=True, width="stretch")

points = pd.DataFrame(kappa_rows(report))
if not points.empty:
    per_constraint = points[points["slice"].str.startswith("constraint:")]
    if not per_constraint.empty:
        st.caption("Kappa with 95% CI per constraint")
        base = alt.Chart(per_constraint).encode(y=alt.Y("slice:N", title=None), yOffset="rubric:N", color="rubric:N")
        st.altair_chart(
            base.mark_rule().encode(x=alt.X("ci_low:Q", title="kappa", scale=alt.Scale(domain=[-1, 1])), x2="ci_high:Q")
            + base.mark_point(filled=True).encode(x="kappa:Q", tooltip=["rubric", "judge", "slice", "kappa", "n"]),
            width="stretch")
    # Per label set where a group mixes sets: a pooled kappa rewards answering each set's first label.
    headline = {(g.judge_model, f"{g.rubric_name} v{g.rubric_version}", s.slice) for g in report.groups
                for s in g.headline}
    overall = points[[(j, r, s) in headline for j, r, s in zip(points["judge"], points["rubric"], points["slice"])]]
    if len(overall) > 1:
        st.caption("Kappa per rubric version (per label set where label sets are mixed)")
        st.altair_chart(
            alt.Chart(overall).mark_line(point=True).encode(
                x=alt.X("version:O", title="rubric version"), y=alt.Y("kappa:Q", scale=alt.Scale(domain=[-1, 1])),
                color="rubric_name:N", strokeDash="slice:N", detail="judge:N",
                tooltip=["rubric", "judge", "slice", "kappa", "n", "created_at"]),
            width="stretch")

for i, g in enumerate(report.groups):
    label = f"{g.judge_model} · {g.rubric_name} v{g.rubric_version} ({g.rubric_sha256[:12]})"
    with st.expander(md_escape(label), expanded=i == 0):
        o = g.overall
        for h in g.headline:  # per label set when the group mixes label sets, never the pooled kappa alone
            if h.majority is None:
                continue
            m1, m2, m3 = st.columns(3)
            m1.metric(f"kappa (majority){'' if h.slice == 'overall' else ' · ' + h.slice}",
                      f"{h.majority.kappa:.3f}" if h.majority.kappa == h.majority.kappa else "–")
            m2.metric("agreement", f"{h.majority.pct_agreement:.1%}")
            m3.metric("counted random pairs", h.majority.n)
        if g.non_random is not None and g.non_random.n:
            st.caption(f"Non-random labels (not counted): {g.non_random.n} — {g.non_random.beyond_prefix} beyond the "
                       f"labelled prefix of the draw order, {g.non_random.targeted} targeted, "
                       f"{g.non_random.unsampled} never sampled.")
        if o.majority is not None:
            st.altair_chart(
                alt.Chart(pd.DataFrame(confusion_rows(o.majority))).mark_rect().encode(
                    x=alt.X("human:N", sort=list(o.majority.labels)), y=alt.Y("judge:N", sort=list(o.majority.labels)),
                    color=alt.Color("pairs:Q", scale=alt.Scale(scheme="blues")), tooltip=["judge", "human", "pairs"])
                + alt.Chart(pd.DataFrame(confusion_rows(o.majority))).mark_text().encode(
                    x=alt.X("human:N", sort=list(o.majority.labels)), y=alt.Y("judge:N", sort=list(o.majority.labels)),
                    text="pairs:Q").properties(height=160),
                width="stretch")
        st.dataframe(pd.DataFrame([{"repeat": r.repeat, "n": r.vs_human.n if r.vs_human else 0,
                                    "agree with human": r.vs_human.agree if r.vs_human else None,
                                    "kappa": r.vs_human.kappa if r.vs_human else None} for r in o.per_repeat]),
                     hide_index=True, width="stretch")
        rvr = [(h.slice, r) for h in g.headline for r in h.repeat_vs_repeat]
        if rvr:
            st.dataframe(pd.DataFrame([{"slice": name, "repeats": f"{r.repeat_a} vs {r.repeat_b}",
                                        "both labelled": r.both_labelled,
                                        "agree": r.agree, "both error": r.both_error, "one error": r.one_error,
                                        "kappa": r.agreement.kappa if r.agreement else None}
                                       for name, r in rvr]), hide_index=True, width="stretch")
        st.caption(f"Self-consistency: {o.consistency.flipped} of {o.consistency.pairs} pairs flipped between "
                   f"repeats. Targeted pairs labelled: {o.targeted_labelled}.")
        if g.pass_rates:
            st.dataframe(pd.DataFrame([{"model under test": p.model, "judged": p.n_judged,
                                        "judge pass rate": p.judge_pass_rate, "labelled": p.n_labelled,
                                        "corrected (PPI)": p.ppi_estimate, "CI low": p.ppi_ci_low,
                                        "CI high": p.ppi_ci_high} for p in g.pass_rates]),
                         hide_index=True, width="stretch")

st.subheader("Human vs human (overlap pairs)")
if report.human_human:
    st.dataframe(pd.DataFrame([{"slice": h.slice, "pairs": h.overlap_pairs, "agree": h.agreement.agree,
                                "kappa": h.agreement.kappa, "reading": h.agreement.interpretation}
                               for h in report.human_human if h.agreement]), hide_index=True, width="stretch")
else:
    st.caption("No overlap pair has labels from two reviewers yet.")

# ------------------------------------------------------------------ disagreements
st.subheader("Disagreements")
who = reviewer()
with ann.unit_of_work(path) as db:
    rows = disagreements(db, **filters)
    # Pairs still waiting for this viewer's blind label (any reviewer's, when no name is chosen) stay hidden: seeing
    # the judge's verdict or a colleague's label first would make that label not blind.
    hidden = ann.awaiting_blind_label(db, who)
n_hidden = sum((d.run_record_id, d.constraint_id) in hidden for d in rows)
rows = [d for d in rows if (d.run_record_id, d.constraint_id) not in hidden]
st.caption(f"{len(rows)} reviewer labels differ from the judge's majority (most-flipped first"
           + (f"; the first {SHOWN} shown" if len(rows) > SHOWN else "")
           + (f"; {n_hidden} hidden until you have labelled them blind" if n_hidden else "") + ").")


def _adjudicate(run_record_id: str, constraint_id: str, rubric_sha256: str, judge_model: str, key: str) -> None:
    with ann.unit_of_work(path) as db:
        adjudicate(db, run_record_id, constraint_id, st.session_state[f"{key}_decision"], who=who or "anonymous",
                   note=st.session_state.get(f"{key}_note"), rubric_sha256=rubric_sha256, judge_model=judge_model)
    st.session_state["cal_flash"] = f"Decision saved for {md_escape(run_record_id)} / {md_escape(constraint_id)}."


def _send(run_record_id: str, constraint_id: str, key: str) -> None:
    with ann.unit_of_work(path) as db:
        sent = send_to_evalset(db, run_record_id, constraint_id, who=who or "anonymous",
                               reason=st.session_state.get(f"{key}_note") or "judge-human disagreement")
    st.session_state["cal_flash"] = (f"Added eval item {md_escape(sent.item_id)}." if sent.added
                                     else f"Already in the eval set as {md_escape(sent.item_id)}.")


if st.session_state.get("cal_flash"):
    st.success(st.session_state.pop("cal_flash"))
for n, d in enumerate(rows[:SHOWN]):
    key = f"cal_d{n}"
    with st.container(border=True):
        st.text(f"{d.run_record_id} · {d.constraint_id} · model {d.model} · judge {d.judge_model} · "
                f"{d.rubric_name} v{d.rubric_version} · {', '.join(d.rules) or 'not sampled'}")
        st.text(f"Constraint: {d.constraint_text}")
        st.code(d.output, language=None, wrap_lines=True)
        left, right = st.columns(2)
        left.text(f"Judge: {d.judge_label or 'no majority (tie)'}  repeats: "
                  f"{', '.join(l or 'error' for l in d.repeat_labels)}  flipped: {d.flip_share:.0%}")
        left.text(f"Reason: {d.judge_reason or '—'}" + ("   ⚠ contradicts the label" if ann.reason_contradicts(
            d.judge_label, d.judge_reason, ann.label_set_for(d.judge_label, d.human_label)) else ""))
        right.text(f"Human ({d.reviewer}): {d.human_label}")
        right.text(f"Note: {d.human_note or '—'}")
        a, b, c = st.columns([2, 2, 1])
        a.selectbox("Decision", DECISIONS, key=f"{key}_decision",
                    index=DECISIONS.index(d.decision) if d.decision else 0)
        b.text_input("Note / reason", key=f"{key}_note")
        c.button("Save decision", key=f"{key}_adjudicate", on_click=_adjudicate,
                 args=(d.run_record_id, d.constraint_id, d.rubric_sha256, d.judge_model, key))
        c.button("Send to eval set", key=f"{key}_send", on_click=_send, args=(d.run_record_id, d.constraint_id, key),
                 disabled=d.sent_item_id is not None)
        if d.decision or d.sent_item_id:
            st.text(f"Decided: {d.decision or '—'}   Eval item: {d.sent_item_id or '—'}")
