"""Drift screen (issue 15.6): the frozen anchors and, per judge model × rubric version, the history of drift runs —
flip rate against the frozen verdicts with its exact 95% interval, kappa against the humans at freeze and now, and the
change's paired interval. Everything shown was stored when each run finished (`annotations.drift_history`): the page
computes nothing and runs one query per table. Runs are started from the CLI (`judgecal drift`), which a scheduler
or CI job calls."""

from __future__ import annotations

import shlex

import streamlit as st

from judgecal import annotations as ann
from judgecal.app_pages._common import db_path, fmt_int, fmt_num, fmt_pct, md_escape

st.header("Drift")
path = db_path()
with ann.unit_of_work(path) as db:
    anchors = ann.list_anchors(db)
    history = ann.drift_history(db)

command = f"judgecal --db {shlex.quote(str(path))}"
if not anchors:
    st.info("No anchor frozen yet. Freeze one from the labelled review sample, then re-judge it on a schedule; each "
            "run appears here.")
    st.code(f"{command} anchor freeze --name weekly\n{command} drift --anchor weekly --max-flip-rate 0.10",
            language="bash")
    st.stop()

st.caption("An anchor is a seeded random subset of the counted pairs, frozen with the reviewers' blind first labels and "
           "the judge's verdicts of that moment; a drift run re-judges it and counts the pairs whose verdict changed. "
           "A pair the judge could not answer counts as a flip.")
st.dataframe([{"anchor": a.name, "pairs": fmt_int(a.size), "drawn from (counted pairs)": fmt_int(a.counted),
               "seed": f"{a.seed} ({'given' if a.seed_given else 'random'})", "frozen": a.created_at}
              for a in anchors], hide_index=True, width="stretch")

if not history:
    st.info("No finished drift run yet.")
    st.code(f"{command} drift --anchor {shlex.quote(anchors[-1].name)}", language="bash")
    st.stop()


def _ci(low: float | None, high: float | None, fmt) -> str:
    return "–" if low is None or high is None else f"[{fmt(low)}, {fmt(high)}]"


groups: dict[str, list[ann.DriftHistoryRow]] = {}
for row in history:
    groups.setdefault(f"{row.judge_model} · {row.rubric}", []).append(row)
names = sorted(groups)
chosen = st.selectbox("Judge model · rubric version", names, key="drift_group") if len(names) > 1 else names[0]
rows = groups[chosen]
latest = rows[-1]
cols = st.columns(3)
cols[0].metric("Latest flip rate", fmt_pct(latest.flip_rate),
               help=f"{latest.flips} of {latest.compared} anchor pairs; 95% exact interval "
                    f"{_ci(latest.flip_ci_low, latest.flip_ci_high, fmt_pct)}")
cols[1].metric("Kappa now", fmt_num(latest.kappa_now), help=f"at freeze {fmt_num(latest.kappa_at_freeze)}")
cols[2].metric("Kappa change", fmt_num(latest.kappa_change),
               help=f"paired 95% interval {_ci(latest.kappa_change_low, latest.kappa_change_high, fmt_num)}")
st.subheader(f"History: {md_escape(chosen)}")
st.dataframe([{"finished": r.finished_at, "anchor": r.anchor, "compared against": f"{r.baseline_model} · {r.baseline_rubric}",
               "pairs": fmt_int(r.compared), "flips": fmt_int(r.flips), "unanswered (in flips)": fmt_int(r.unanswered),
               "flip rate": fmt_pct(r.flip_rate), "95% CI": _ci(r.flip_ci_low, r.flip_ci_high, fmt_pct),
               "kappa at freeze": fmt_num(r.kappa_at_freeze), "kappa now": fmt_num(r.kappa_now),
               "change": fmt_num(r.kappa_change), "change 95% CI": _ci(r.kappa_change_low, r.kappa_change_high, fmt_num),
               "run": r.drift_run}
              for r in reversed(rows)], hide_index=True, width="stretch")
