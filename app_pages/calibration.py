"""Calibration screen, read in one screen: the headline kappa with its interval per judge × rubric version (per label
set where sets are mixed), the review quota, then tabs — confusion heatmap and slices, coverage per stratum, the
disagreement list (adjudication, "send to eval set"), the judge's errors, and the details (charts, repeats, human vs
human, pass rates). Numbers come from annotations.page_report (the calibration report less what the page never
shows) and are written by app_pages._common's fmt_* helpers. Outputs, notes and reasons are user data: shown with
st.text / st.code / st.dataframe only, never as markdown or HTML."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from judgecal import annotations as ann
from judgecal import judge
from judgecal.annotations.reports import filter_options, page_report
from judgecal.annotations.reports import confusion_rows, kappa_rows, slice_table
from judgecal.annotations.reports import (DECISIONS, NO_DECISION, Disagreement, DisagreementFilter, adjudicate,
                                   disagreement_page, failing_page, send_to_evalset, shown_disagreements)
from judgecal.app_pages._common import db_path, fmt_int, fmt_judge_rate, fmt_kappa, fmt_num, fmt_pct, md_escape, reviewer

ALL = "(all)"
SHOWN = 50
HEADLINES_PER_ROW = 4
# Streamlit's chart theme cuts axis and legend labels at 100 px: "constraint:groun…" stood for two constraints on
# the demo (a review, wave 18). Names are whole up to this width.
LABEL_LIMIT = 400

path = db_path()


# The report reads every verdict of the project (seconds on 100k run records): computed once per version of what it
# reads (`report_version`: verdicts, labels, samples, rubrics, run records, constraints) and filter, shared by every
# session. A decision or a pair sent to the eval set changes the disagreement list, not the report. Everything else
# the page shows (filter options, the pairs hidden from the reviewer, the disagreement list, the failing pairs) is
# kept by the library under the versions of the tables it reads, which cost a few index look-ups (issue 16.3).
@st.cache_data(max_entries=16, show_spinner="Computing the calibration report…")
def _report(db_file: str, version: tuple, rubric: str | None, model: str | None, constraint: str | None):
    with ann.unit_of_work(db_file) as db:
        # the report less what this page never shows (judge error, Rogan–Gladen: `judgecal report` prints them)
        return page_report(db, rubric=rubric, model=model, constraint=constraint)


with ann.unit_of_work(path) as db:
    version = ann.report_version(db)
    options = filter_options(db)

if not options.rubrics:
    st.header("Calibration")
    st.info("No judge verdicts yet: `judgecal judge` scores the semantic constraints (or `judgecal import verdicts`). "
            "Label pairs on the Review screen meanwhile; every label is kept for calibration.")
    st.stop()

# Filters live in the sidebar, so the headline is the first thing on the screen.
st.sidebar.caption("Calibration filters")
rubric = st.sidebar.selectbox("Rubric version", [ALL, *options.rubrics], key="cal_rubric")
model = st.sidebar.selectbox("Judge model", [ALL, *options.judge_models], key="cal_model")
constraint = st.sidebar.selectbox("Constraint", [ALL, *options.constraints], key="cal_constraint")
filters = {"rubric": None if rubric == ALL else rubric, "model": None if model == ALL else model,
           "constraint": None if constraint == ALL else constraint}


report = _report(str(path), version, **filters)
versions = {g.rubric_sha256: f"{g.rubric_name} v{g.rubric_version}" for g in report.groups}


def stratum_name(c: ann.CoverageRow) -> str:
    """'constraint · model · rubric v1' rather than the stored key 'constraint|model|sha-prefix'."""
    rubric_name = versions.get(c.rubric_sha256 or "", (c.rubric_sha256 or "no rubric")[:12])
    return f"{c.constraint_id} · {c.model} · {rubric_name}"


# ------------------------------------------------------------------ headline
st.subheader("Calibration: judge vs human")
heads = [(g, h) for g in report.groups for h in g.headline]
for start in range(0, len(heads), HEADLINES_PER_ROW):
    cols = st.columns(HEADLINES_PER_ROW)
    for col, (g, h) in zip(cols, heads[start:start + HEADLINES_PER_ROW]):
        a = h.headline
        where = f"{g.judge_model} · {g.rubric_name} v{g.rubric_version}"
        label = md_escape(f"kappa · {where}" + ("" if h.slice == "overall" else f" · {h.slice}"))
        # The name is a caption, which wraps: a metric's own label is cut to one line, and at 1280x720 that cut
        # every headline to "kappa · <judge model>…", before the label set that tells two headlines apart (a
        # review, wave 18). The metric keeps it as its (hidden) label.
        if a is None:
            col.caption(label, help="No counted random pair is labelled yet.")
            col.metric(label, "–", label_visibility="collapsed")
            continue
        col.caption(label, help=f"95% interval: {a.kappa_ci_method or 'kappa_interval'}"
                                + (" (approximate: under 30 pairs)" if a.kappa_ci_approximate else "")
                                + ". Design-weighted over the counted random pairs (each reviewer's blind first "
                                  "label).")
        # The value is the kappa alone (a metric truncates long values); its interval is the line under it.
        col.metric(label, fmt_num(a.kappa), label_visibility="collapsed")
        col.markdown(f"**95% CI [{fmt_num(a.kappa_ci_low, 2)}, {fmt_num(a.kappa_ci_high, 2)}]**"
                     + (" ~approx." if a.kappa_ci_approximate else ""))
        col.caption(f"{a.interpretation} · {fmt_int(a.n)} counted pairs · agreement {fmt_pct(a.pct_agreement)}"
                    + (f" · {h.changed_after_reveal} changed after reveal" if h.changed_after_reveal else ""))

demo_judges = sorted({g.judge_model for g in report.groups if judge.is_demo_quality(g.judge_model)})
if demo_judges:
    st.warning(f"{md_escape(', '.join(demo_judges))}: {judge.DEMO_QUALITY_WARNING}")  # model names: user data

if report.named_seeds:  # constraint ids and model names: user data
    st.warning(md_escape(ann.named_seeds_note(report.named_seeds)) + ".")

below = report.below_quota
grown = [c for c in below if c.reason and "since the sample was drawn" in c.reason]
if grown:
    st.error(f"{len(grown)} of {len(report.coverage)} strata grew since the sample was drawn: their new pairs were "
             "never drawn, so no label there counts as a random sample until `judgecal sample` draws again, and "
             "`judgecal gate` fails until then (Coverage tab).")
if len(below) > len(grown):
    st.error(f"{len(below) - len(grown)} of {len(report.coverage)} strata are below the {report.rate:.0%} review "
             "quota: the judge is not verified there, and `judgecal gate` fails until they are labelled (Coverage "
             "tab).")
if not below:
    st.success(f"Every stratum meets the {report.rate:.0%} review quota ({len(report.coverage)} strata).")

# Label planning beside the quota (issue 15.4): the quota says the sample is drawn and labelled; this says whether
# the labels are enough for the precision wanted on each corrected rate, and what difference they can resolve.
plans = [(g, p) for g in report.groups for p in g.plans if p.n_labelled >= 2]
if plans:
    def _more(n: int | None, why: str | None) -> str:
        return "cannot (" + (why or "") + ")" if n is None else (f"{n}" + (" (all)" if why else ""))

    st.markdown(f"**Label planning** (95% CI half-width target ±{100 * plans[0][1].target_half_width:g} points)")
    st.dataframe(pd.DataFrame([{
        "judge · rubric": f"{g.judge_model} · {g.rubric_name} v{g.rubric_version}",
        "rate": p.model + (f" · {p.label}" if p.label else " · pass rate"),
        "labelled": fmt_int(p.n_labelled),
        "half-width now": "–" if p.half_width is None else f"±{100 * p.half_width:.1f} pts",
        "more labels for the target": _more(p.more_labels, p.reason),
        "more per run for a difference of two runs": _more(p.more_labels_difference, p.difference_reason),
        "smallest detectable difference": "–" if p.mdd is None else f"{100 * p.mdd:.1f} pts",
    } for g, p in plans]), hide_index=True, width="stretch")

# ------------------------------------------------------------------ disagreements (read before the tabs: counts)
who = reviewer()
with ann.unit_of_work(path) as db:
    # Pairs still waiting for this viewer's blind label (any reviewer's, when no name is chosen) stay hidden: seeing
    # the judge's verdict or a colleague's label first would make that label not blind (`awaiting_blind_label`).
    listed = disagreement_page(db, who, **filters)
real, failed = listed.real, listed.failed

tab_agree, tab_cover, tab_dis, tab_err, tab_more = st.tabs([
    "Agreement", f"Coverage ({len(report.coverage) - len(below)}/{len(report.coverage)} ok)",
    f"Disagreements ({len(real)})", f"Judge errors ({len(failed)})", "Details"])

# ------------------------------------------------------------------ agreement: heatmap + slices
with tab_agree:
    st.caption(f"Judge vs human (random sample). {report.majority_rule}. Targeted pairs are shown apart (biased). "
               "TPR/TNR: fail = positive.")
    groups = list(report.groups)
    if len(groups) > 1:
        chosen = st.selectbox("Judge · rubric", range(len(groups)), key="cal_group",
                              format_func=lambda i: f"{groups[i].judge_model} · {groups[i].rubric_name} "
                                                    f"v{groups[i].rubric_version}")
        g = groups[chosen]
    else:
        g = groups[0]
    left, right = st.columns([2, 3])
    o = g.overall
    if o.majority is not None:
        labels = list(o.majority.labels)
        cells = pd.DataFrame(confusion_rows(o.majority))
        size = max(60, min(110, 420 // max(len(labels), 1)))
        enc = {"x": alt.X("human:N", sort=labels, title="human", axis=alt.Axis(labelAngle=0)),
               "y": alt.Y("judge:N", sort=labels, title="judge")}
        heat = (alt.Chart(cells).mark_rect().encode(**enc, color=alt.Color("pairs:Q", scale=alt.Scale(scheme="blues"),
                                                                           legend=None),
                                                    tooltip=["judge", "human", "pairs"])
                + alt.Chart(cells).mark_text(fontSize=16).encode(**enc, text="pairs:Q"))
        left.altair_chart(heat.properties(width=size * len(labels), height=size * len(labels)), width="content")
        left.caption("Confusion of the counted random pairs (rows judge, columns human; `abstain` = no judge label).")
    else:
        left.caption("No counted random pair is labelled yet: no confusion table.")
    right.dataframe(pd.DataFrame(slice_table(report)), hide_index=True, width="stretch", height=300)
    if g.non_random is not None and g.non_random.n:
        st.caption(f"Non-random labels (not counted): {g.non_random.n} — {g.non_random.beyond_prefix} beyond the "
                   f"labelled prefix of the draw order, {g.non_random.targeted} targeted, "
                   f"{g.non_random.unsampled} never sampled.")

# ------------------------------------------------------------------ coverage
with tab_cover:
    st.dataframe(pd.DataFrame([{
        "stratum": stratum_name(c), "semantic pairs": c.population, "judged": c.judged, "counted": c.labelled,
        "needed": c.needed, "progress": min(100.0, 100.0 * c.labelled / c.needed) if c.needed else 100.0,
        "status": "ok" if c.ok else (c.reason or "below quota")} for c in report.coverage]),
        hide_index=True, width="stretch",
        column_config={"progress": st.column_config.ProgressColumn("counted / needed", min_value=0, max_value=100,
                                                                   format="%.0f%%")})


# ------------------------------------------------------------------ disagreements
def _adjudicate(run_record_id: str, constraint_id: str, rubric_sha256: str, judge_model: str, key: str) -> None:
    with ann.unit_of_work(path) as db:
        adjudicate(db, run_record_id, constraint_id, st.session_state[f"{key}_decision"], who=who or "anonymous",
                   note=st.session_state.get(f"{key}_note"), rubric_sha256=rubric_sha256, judge_model=judge_model)
    st.session_state["cal_flash"] = f"Decision saved for {md_escape(run_record_id)} / {md_escape(constraint_id)}."


def _send(run_record_id: str, constraint_id: str, key: str) -> None:
    with ann.unit_of_work(path) as db:
        sent = send_to_evalset(db, run_record_id, constraint_id, who=who or "anonymous",
                               reason=st.session_state.get(f"{key}_note") or "sent from the calibration page")
    st.session_state["cal_flash"] = (f"Added eval item {md_escape(sent.item_id)}." if sent.added
                                     else f"Already in the eval set as {md_escape(sent.item_id)}.")


def _choice(col, label: str, values: list[str], key: str) -> str | None:
    picked = col.selectbox(label, [ALL, *values], key=key)
    return None if picked == ALL else picked


def _card(d: Disagreement, key: str) -> None:
    with st.container(border=True):
        st.text(f"{d.run_record_id} · {d.constraint_id} · model {d.model} · judge {d.judge_model} · "
                f"{d.rubric_name} v{d.rubric_version} · {', '.join(d.rules) or 'not sampled'}")
        st.text(f"Constraint: {d.constraint_text}")
        st.code(d.output, language=None, wrap_lines=True, height=160)
        left, right = st.columns(2)
        judged = d.judge_label or "no majority (repeats tie)"
        left.text(f"Judge: {judged}  repeats: {', '.join(l or 'error' for l in d.repeat_labels)}  "
                  f"flipped: {fmt_pct(d.flip_share)}")
        left.text(f"Reason: {d.judge_reason or '–'}" + ("   ⚠ contradicts the label" if ann.reason_contradicts(
            d.judge_label, d.judge_reason, ann.label_set_for(d.judge_label, d.human_label)) else ""))
        right.text(f"Human ({d.reviewer}): {d.human_label}"
                   + (f"  failure mode: {d.failure_mode}" if d.failure_mode else ""))
        right.text(f"Note: {d.human_note or '–'}")
        a, b, c = st.columns([2, 2, 1])
        a.selectbox("Decision", DECISIONS, key=f"{key}_decision",
                    index=DECISIONS.index(d.decision) if d.decision else 0)
        b.text_input("Note / reason", key=f"{key}_note")
        c.button("Save decision", key=f"{key}_adjudicate", on_click=_adjudicate,
                 args=(d.run_record_id, d.constraint_id, d.rubric_sha256, d.judge_model, key))
        c.button("Send to eval set", key=f"{key}_send", on_click=_send, args=(d.run_record_id, d.constraint_id, key),
                 disabled=d.sent_item_id is not None)
        if d.decision or d.sent_item_id:
            st.text(f"Decided: {d.decision or '–'}   Eval item: {d.sent_item_id or '–'}")


with tab_dis:
    if st.session_state.get("cal_flash"):
        st.success(st.session_state.pop("cal_flash"))
    f1, f2, f3, f4 = st.columns(4)
    chosen_filter = DisagreementFilter(
        constraint=_choice(f1, "Constraint", list(listed.constraints), "cal_f_constraint"),
        model=_choice(f2, "Model under test", list(listed.models), "cal_f_model"),
        failure_mode=_choice(f3, "Failure mode", list(listed.failure_modes), "cal_f_failure"),
        decision=_choice(f4, "Decision", [NO_DECISION, *DECISIONS], "cal_f_decision"))
    with ann.unit_of_work(path) as db:  # cards are built for the shown rows only
        shown = shown_disagreements(db, listed, chosen_filter, limit=SHOWN, key=(who, *filters.values()))
    n_hidden = listed.n_hidden
    st.caption(f"{shown.count} reviewer labels differ from the judge's majority: real disagreements first, then "
               f"{shown.ties} where the judge's repeats tie; most-flipped first"
               + (f"; the first {SHOWN} shown" if shown.count > SHOWN else "")
               + (f"; {n_hidden} hidden until you have labelled them blind" if n_hidden else "") + ".")
    for n, d in enumerate(shown.cards):
        _card(d, f"cal_d{n}")

    # Any failing pair, not only a disagreement, can feed the eval set (the same function as `judgecal feedback`).
    with ann.unit_of_work(path) as db:
        failing = failing_page(db, who, limit=SHOWN)
    with st.expander(f"Failing pairs ({failing.count.shown_to}): mechanical checks, failed runs, reviewers' fail "
                     "labels"):
        for n, f in enumerate(failing.rows):
            key = f"cal_f{n}"
            st.text(f"Failing: {f.run_record_id} · {f.constraint_id} · model {f.model} · {f.why}")
            st.text(f"Constraint: {f.constraint_text}")
            a, b = st.columns([4, 1])
            a.text_input("Note / reason", key=f"{key}_note")
            b.button("Send to eval set", key=f"{key}_send", on_click=_send,
                     args=(f.run_record_id, f.constraint_id, key), disabled=f.sent_item_id is not None)

# ------------------------------------------------------------------ judge errors
with tab_err:
    st.caption("Pairs a reviewer labelled whose judge repeats ALL failed: a failure of the judge, not a disagreement "
               "about the output, so they are not offered to the eval set. Re-judge them (`judgecal judge` asks "
               "error rows again) once the cause is fixed.")
    if failed:
        causes = listed.cause_counts()
        st.dataframe(pd.DataFrame([{"cause": c, "pairs": n} for c, n in causes.most_common()]), hide_index=True,
                     width="stretch")
        st.dataframe(pd.DataFrame([{
            "run record": d.run_record_id, "constraint": d.constraint_id, "model": d.model, "judge": d.judge_model,
            "rubric": f"{d.rubric_name} v{d.rubric_version}", "human": d.human_label, "reviewer": d.reviewer,
            "causes": "; ".join(dict.fromkeys(c))} for d, c in zip(failed[:500], listed.failed_causes)]),
            hide_index=True, width="stretch")
    else:
        st.caption("No labelled pair lacks a judge label because of errors.")

# ------------------------------------------------------------------ details
with tab_more:
    points = pd.DataFrame(kappa_rows(report))
    if not points.empty:
        per_constraint = points[points["slice"].str.startswith("constraint:")]
        if not per_constraint.empty:
            st.caption("Kappa with 95% CI per constraint")
            base = alt.Chart(per_constraint).encode(y=alt.Y("slice:N", title=None,
                                                            axis=alt.Axis(labelLimit=LABEL_LIMIT)),
                                                    yOffset="rubric:N",
                                                    color=alt.Color("rubric:N", legend=alt.Legend(
                                                        labelLimit=LABEL_LIMIT)))
            st.altair_chart(
                base.mark_rule().encode(x=alt.X("ci_low:Q", title="kappa", scale=alt.Scale(domain=[-1, 1])),
                                        x2="ci_high:Q")
                + base.mark_point(filled=True).encode(x="kappa:Q", tooltip=["rubric", "judge", "slice", "kappa", "n"]),
                width="stretch")
        headline = {(g.judge_model, f"{g.rubric_name} v{g.rubric_version}", s.slice) for g in report.groups
                    for s in g.headline}
        overall = points[[(j, r, s) in headline for j, r, s in zip(points["judge"], points["rubric"],
                                                                   points["slice"])]]
        if len(overall) > 1:
            st.caption("Kappa per rubric version (per label set where label sets are mixed)")
            st.altair_chart(
                alt.Chart(overall).mark_line(point=True).encode(
                    x=alt.X("version:O", title="rubric version"), y=alt.Y("kappa:Q", scale=alt.Scale(domain=[-1, 1])),
                    color=alt.Color("rubric_name:N", legend=alt.Legend(labelLimit=LABEL_LIMIT)),
                    strokeDash=alt.StrokeDash("slice:N", legend=alt.Legend(labelLimit=LABEL_LIMIT)),
                    detail="judge:N",
                    tooltip=["rubric", "judge", "slice", "kappa", "n", "created_at"]),
                width="stretch")
    for g in report.groups:
        o = g.overall
        st.markdown(f"**{md_escape(g.judge_model)} · {md_escape(g.rubric_name)} v{g.rubric_version}**")
        st.dataframe(pd.DataFrame([{"repeat": r.repeat, "n": fmt_int(r.vs_human.n if r.vs_human else 0),
                                    "agree with human": fmt_int(r.vs_human.agree) if r.vs_human else "–",
                                    "kappa [95% CI]": fmt_kappa(r.vs_human)} for r in o.per_repeat]),
                     hide_index=True, width="stretch")
        rvr = [(h.slice, r) for h in g.headline for r in h.repeat_vs_repeat]
        if rvr:
            st.dataframe(pd.DataFrame([{"slice": name, "repeats": f"{r.repeat_a} vs {r.repeat_b}",
                                        "both labelled": fmt_int(r.both_labelled), "agree": fmt_int(r.agree),
                                        "both error": fmt_int(r.both_error), "one error": fmt_int(r.one_error),
                                        "kappa [95% CI]": fmt_kappa(r.agreement)}
                                       for name, r in rvr]), hide_index=True, width="stretch")
        st.caption(f"Self-consistency: {o.consistency.flipped} of {o.consistency.pairs} pairs flipped between "
                   f"repeats. Targeted pairs labelled: {o.targeted_labelled}.")
        if g.pass_rates:
            st.dataframe(pd.DataFrame([{"model under test": p.model, "judged": fmt_int(p.n_judged),
                                        "judge pass rate": fmt_judge_rate(p), "labelled": fmt_int(p.n_labelled),
                                        "corrected (PPI)": fmt_pct(p.estimate),
                                        "95% CI": f"{fmt_pct(p.ppi_ci_low)} – {fmt_pct(p.ppi_ci_high)}",
                                        "method": p.method} for p in g.pass_rates]),
                         hide_index=True, width="stretch")
        if g.label_rates:
            st.dataframe(pd.DataFrame([{"model under test": x.model, "label set": x.label_set, "label": x.label,
                                        "judge share": fmt_judge_rate(x.rate),
                                        "labelled": fmt_int(x.rate.n_labelled),
                                        "corrected (PPI)": fmt_pct(x.rate.estimate),
                                        "95% CI": f"{fmt_pct(x.rate.ppi_ci_low)} – {fmt_pct(x.rate.ppi_ci_high)}",
                                        "method": x.rate.method} for x in g.label_rates]),
                         hide_index=True, width="stretch")
    st.markdown("**Human vs human (overlap pairs)**")
    if report.human_human:
        st.dataframe(pd.DataFrame([{"slice": h.slice, "pairs": fmt_int(h.overlap_pairs),
                                    "agree": fmt_int(h.agreement.agree), "kappa [95% CI]": fmt_kappa(h.agreement),
                                    "reading": h.agreement.interpretation}
                                   for h in report.human_human if h.agreement]), hide_index=True, width="stretch")
    else:
        st.caption("No overlap pair has labels from two reviewers yet.")
