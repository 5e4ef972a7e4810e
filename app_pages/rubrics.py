"""Rubrics screen: tune a rubric without the CLI. Each stored version; the prompt a version gives for a chosen labelled
pair, rendered by the judge's own code (judge.Rubric.render via judgecal.jobs.resolve_rubric: the preview is the
prompt a re-judge would send, before any token is spent); the diff between two versions; the comparison
`judgecal report --compare A B` prints; and a re-judge of the labelled pairs (judgecal.jobs.judge_pairs, the same
batch life cycle as `judgecal judge --only-labelled`) when an endpoint is configured, else the command to run.
Templates, prompts and outputs are user data: shown with st.code / st.dataframe only."""

from __future__ import annotations

import dataclasses
import difflib
import os
import shlex

import streamlit as st

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.annotations.reports._text import _text  # house: private
from judgecal.annotations.reports import compare_rubrics, comparison_blocks
from judgecal.app_pages._common import db_path, fmt_int, md_escape, reviewer

st.header("Rubrics")
path = db_path()
with ann.unit_of_work(path) as db:
    versions = av.list_rubrics(db)
    pairs = ann.labelled_pair_ids(db)

if not versions:
    st.info("No rubric version stored yet: `judgecal judge` stores the rubric it judges with (the shipped `strict`, "
            "or `--rubric my_rubric.txt`); every changed file becomes a new version.")
    st.stop()

by_sha = {v.sha256: v for v in versions}
shas = [v.sha256 for v in versions]


def name_of(sha: str) -> str:
    v = by_sha[sha]
    return f"{v.name} v{v.version} ({sha[:12]})"


st.dataframe([{"rubric": v.name, "version": v.version, "sha256": v.sha256[:12],
               "parent": f"v{by_sha[v.parent_sha256].version}" if v.parent_sha256 in by_sha else "–",
               "created": v.created_at, "note": v.note or "–",
               "template": "known" if v.template else "not known (imported with verdicts)"} for v in versions],
             hide_index=True, width="stretch")

tab_preview, tab_diff, tab_compare = st.tabs(["Prompt preview", "Diff", "Compare on labelled pairs"])

# ------------------------------------------------------------------ preview
with tab_preview:
    c1, c2 = st.columns(2)
    chosen = c1.selectbox("Rubric version", shas, index=len(shas) - 1, format_func=name_of, key="rub_preview")
    if not pairs:
        st.caption("No labelled pair yet: label pairs on the Review screen to preview prompts on them.")
    else:
        pair = c2.selectbox("Labelled pair", pairs, format_func=lambda p: f"{p[0]} · {p[1]}", key="rub_pair")
        from judgecal.jobs import JobError, resolve_rubric

        with ann.unit_of_work(path) as db:
            try:
                rubric = resolve_rubric(db, chosen)
                source = ann.pair_source(db, *pair)
            except (JobError, ValueError) as exc:
                rubric = None
                st.info(md_escape(exc))
        if rubric is not None:
            prompt = rubric.render(source.record, source.item, source.constraint)
            st.caption(f"The prompt {md_escape(name_of(chosen))} sends for this pair ({fmt_int(len(prompt))} "
                       "characters), exactly as the judge renders it. Nothing is sent.")
            st.code(prompt, language=None, wrap_lines=True, height=420)

# ------------------------------------------------------------------ diff
with tab_diff:
    c1, c2 = st.columns(2)
    a = c1.selectbox("Version A (old)", shas, index=max(0, len(shas) - 2), format_func=name_of, key="rub_diff_a")
    b = c2.selectbox("Version B (new)", shas, index=len(shas) - 1, format_func=name_of, key="rub_diff_b")
    diff = "".join(difflib.unified_diff(by_sha[a].template.splitlines(keepends=True),
                                        by_sha[b].template.splitlines(keepends=True),
                                        fromfile=name_of(a), tofile=name_of(b)))
    if a == b:
        st.caption("Pick two different versions.")
    elif not diff:
        st.caption("The templates are identical (the versions differ in the verdict schema only).")
    else:
        st.code(diff, language="diff")

# ------------------------------------------------------------------ compare + re-judge
with tab_compare:
    c1, c2 = st.columns(2)
    ca = c1.selectbox("Version A (old)", shas, index=max(0, len(shas) - 2), format_func=name_of, key="rub_cmp_a")
    cb = c2.selectbox("Version B (new)", shas, index=len(shas) - 1, format_func=name_of, key="rub_cmp_b")
    if ca == cb:
        st.caption("Pick two different versions.")
    else:
        with ann.unit_of_work(path) as db:
            try:
                comparison = compare_rubrics(db, ca, cb)
            except ValueError as exc:
                comparison = None
                st.info(md_escape(exc))
            # A flipped pair shows its human label and both versions' verdicts: one still waiting for this viewer's
            # blind label (any reviewer's, when no name is chosen) is left out of the list, or the label that follows
            # would not be blind (a review, wave 14), as the Compare and Calibration pages hide such pairs. The
            # split totals stay.
            waiting = set(ann.awaiting_blind_label(db, reviewer())) if comparison is not None else set()
        if comparison is not None:
            flips = tuple(f for f in comparison.flips if (f.run_record_id, f.constraint_id) not in waiting)
            hidden = len(comparison.flips) - len(flips)
            comparison = dataclasses.replace(comparison, flips=flips)
            st.caption("As `judgecal report --compare A B` prints it: the counted random pairs (the pairs the gate "
                       "reads) under both versions, tune and heldout apart; a tie or a pair without a valid repeat "
                       "is scored 'abstain', as in the report."
                       + (f" {hidden} flipped pairs are hidden until you have labelled them blind (Review)."
                          if hidden else ""))
            st.code(_text(comparison_blocks(comparison)), language=None)

    st.subheader("Re-judge the labelled pairs")
    target = cb
    model = os.environ.get("JUDGECAL_MODEL", "").strip()
    base_url = os.environ.get("OPENAI_BASE_URL", "").strip()
    # at the sampling settings this judge model was asked with under the version, if it was: one judge model and
    # rubric version is one judge (`judge` refuses other settings; the re-judge asked at the defaults, a review in
    # wave 14)
    from judgecal.jobs import stored_sampling_settings

    with ann.unit_of_work(path, readonly=True) as db:
        sampling = stored_sampling_settings(db, target, model) if model else {}
    flags = f" --temperature {sampling['temperature']}" if "temperature" in sampling else ""
    if "seed" in sampling:
        flags += " --no-seed" if sampling["seed"] is None else f" --seed {sampling['seed']}"
    command = (f"judgecal --db {shlex.quote(str(path))} judge --rubric {target} --only-labelled"
               + ("" if model else " --model MODEL") + ("" if base_url else " --base-url URL") + flags)
    st.caption(f"Judges every labelled pair ({fmt_int(len(pairs))}{'+' if len(pairs) >= 500 else ''}) under "
               f"{md_escape(name_of(target))}; pairs it already judged are not asked again. Same as:")
    st.code(command, language="bash")
    if not (model and base_url):
        st.caption("No endpoint configured for the app ($OPENAI_BASE_URL and $JUDGECAL_MODEL): run the command above.")
    elif st.button(f"Re-judge with {md_escape(model)}", key="rub_rejudge"):
        from judgecal.judge import OpenAIBackend
        from judgecal.jobs import BatchStopped, JobError, judge_pairs

        backend = OpenAIBackend(model=model, base_url=base_url, **sampling)
        try:
            with st.spinner("Judging the labelled pairs…"):
                result = judge_pairs(path, backend, rubric=target, only_labelled=True, progress=False)
        except (JobError, BatchStopped) as exc:
            st.error(md_escape(exc))
        else:
            s = result.summary
            st.success(f"Batch {md_escape(result.batch_id)} {result.status}: {fmt_int(result.pairs)} pairs, "
                       f"{fmt_int(s.verdicts)} verdicts, {fmt_int(sum(s.errors.values()) if isinstance(s.errors, dict) else s.errors)} "
                       "errors. The Calibration and Compare views now include them.")
        finally:
            backend.close()
