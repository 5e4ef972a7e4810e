"""Review screen: the reviewer's next sampled pair, labelled blind by one keystroke.

Keyboard: Streamlit 1.67 has native button shortcuts (`st.button(..., shortcut="1")`); older versions had none, and
the usual workaround (an `st.components.v1.html` script listening on `window.parent.document`) breaks whenever the
component iframe loses same-origin access. Streamlit ignores shortcuts while focus is in a text field, so typing a
note never labels a pair. Keys "C" and "R" are reserved by Streamlit.

Everything that came from the project's files (instruction, input, output, trajectory, constraint, guidelines) is
rendered with st.text / st.code, or markdown-escaped where Streamlit only takes markdown: no HTML, no scripts, no
remote images, no clickable links.
"""

from __future__ import annotations

import time

import streamlit as st

import annotations as ann
import judge
from app_pages._common import db_path, md_escape, reviewer

LAST_KEY = "last_saved"  # SavedLabel of the reviewer's latest action (its verdict is revealed)
QUEUE_KEY = "review_queue"  # ReviewQueue: this session's walk through the sample
SHOWN_KEY = "shown_at"  # pair -> time.time() when first shown (seconds spent = save time - this)
MAX_STRATA_SHOWN = 30


def _seconds(pair: ann.Pair) -> float | None:
    shown = st.session_state.get(SHOWN_KEY, {}).get(pair)
    return None if shown is None else time.time() - shown


def _on_label(name: str, pair: ann.Pair, label: str, note_key: str, mode_key: str) -> None:
    with ann.unit_of_work(db_path()) as db:
        st.session_state[LAST_KEY] = ann.record_label(
            db, name, pair, label, note=st.session_state.get(note_key),
            failure_mode=st.session_state.get(mode_key), seconds_spent=_seconds(pair))


def _on_undo() -> None:
    with ann.unit_of_work(db_path()) as db:
        st.session_state["undone"] = ann.undo(db, st.session_state[QUEUE_KEY])


def _on_skip(pair: ann.Pair) -> None:
    ann.skip(st.session_state[QUEUE_KEY], pair)


def _on_top_up() -> None:
    with ann.unit_of_work(db_path()) as db:
        ann.top_up_sample(db)


def _render_progress(rows: list[ann.StratumCoverage], review: ann.ReviewProgress,
                     mine: ann.ReviewerProgress | None, overlap: ann.OverlapProgress) -> None:
    if mine is not None:
        st.caption(f"Assigned to you: {mine.done} of {mine.assigned} done · {mine.left} left"
                   + (f" (of which {mine.overlap_assigned - mine.overlap_done} overlap pairs)"
                      if mine.overlap_assigned > mine.overlap_done else ""))
    if not rows:
        st.info("Nothing is sampled for review yet. Run `judgecal sample` (the demo does it for you).")
        return
    st.progress(review.done / review.needed if review.needed else 1.0,
                text=f"Quota: {review.done} of {review.needed} random-sample labels · {review.left} left · "
                     f"{review.strata_ok} of {review.strata} strata done · human–human overlap: {overlap.done} of "
                     f"{overlap.target} pairs with two blind labels")
    if review.strata_need_judge:
        st.caption(f"{review.strata_need_judge} strata cannot be done by labelling: their rubric version has not "
                   "judged every pair of its constraint × model; run `judgecal judge --rubric NAME` on all pairs.")
    if review.stale:
        st.caption("Verdicts or run records arrived after the sample was drawn: the quota shown is as of that draw.")
        st.button("Top up the sample now", key="top_up", on_click=_on_top_up)
    with st.expander("Quota per stratum (constraint · model · rubric)"):
        for r in sorted(rows, key=lambda r: (r.ok, -r.left, r.stratum))[:MAX_STRATA_SHOWN]:
            st.progress(r.fraction, text=md_escape(f"{r.stratum}: {r.labelled} of {r.needed} ({r.judged} pairs)"))
        if len(rows) > MAX_STRATA_SHOWN:
            st.caption(f"… and {len(rows) - MAX_STRATA_SHOWN} more strata (`judgecal sample` lists all).")


def _render_card(card: ann.ReviewCard) -> None:
    st.caption(md_escape(f"Item {card.item_id} · run record {card.pair.run_record_id} · "
                         f"drawn as {', '.join(sorted(card.rules))}"))
    st.subheader("Instruction")
    st.text(card.instruction)
    if card.input_text is not None:
        st.subheader("Input")
        if card.input_is_json:
            st.code(card.input_text, language="json", wrap_lines=True)
        else:
            st.text(card.input_text)
    st.subheader("Output")
    # The same text the judge's prompt quotes (judge.render_evidence), shown inert: every step, tool result and turn.
    st.text(card.evidence)


def _render_labelling(name: str, card: ann.ReviewCard) -> None:
    pair = card.pair
    c = card.constraint
    st.subheader("Constraint")
    st.caption(md_escape(f"{c.id} · {c.type} · {c.severity}"))
    st.text(c.text)
    labels = c.labels
    st.caption("Keys: " + " · ".join(md_escape(f"{n} = {lab}") for n, lab in enumerate(labels[:9], 1))
               + " · S = skip · U = undo last")
    note_key, mode_key = f"note:{pair[0]}:{pair[1]}", f"mode:{pair[0]}:{pair[1]}"
    cols = st.columns(len(labels))
    for n, (col, lab) in enumerate(zip(cols, labels), 1):
        col.button(md_escape(lab), key=f"label_{n}", shortcut=str(n) if n <= 9 else None, width="stretch",
                   type="primary", on_click=_on_label, args=(name, pair, lab, note_key, mode_key))
    st.text_input("Note (optional)", key=note_key)
    st.selectbox("Failure mode (optional)", ann.FAILURE_MODES, index=None, key=mode_key, placeholder="none")
    st.button("Skip for now", key="skip", shortcut="S", on_click=_on_skip, args=(pair,))
    with st.expander("Guidelines", expanded=True):
        st.text(card.guidelines)


def reason_text(view: ann.JudgeView) -> list[str]:
    """The judge's reasons as plain-text lines: identical repeats once (×n), a reason that contradicts its label
    marked (the rule: annotations._reasons)."""
    return [f"Reason{f' (×{r.count})' if r.count > 1 else ''}: {r.reason}"
            + (f"   ⚠ contradicts the label {r.label}" if r.contradicts else "") for r in view.reason_lines]


def _render_reveal(name: str, shown: ann.Reveal, labels: tuple[str, ...]) -> None:
    mine = shown.mine
    pair = mine.pair
    with st.container(border=True):
        st.markdown(f"**Your last label** · {md_escape(pair.run_record_id)} · {md_escape(pair.constraint_id)}: "
                    f"**{md_escape(mine.label)}**" + (" (changed after the reveal)" if not mine.blind else ""))
        if not shown.judge:
            st.caption("The judge has not scored this pair yet.")
        for v in shown.judge:
            rubric = f"{v.rubric_name} v{v.rubric_version}" if v.rubric_name else v.rubric_sha256[:12]
            st.caption(md_escape(f"Judge {v.judge_model} · rubric {rubric}"))
            if judge.is_demo_quality(v.judge_model):
                st.caption(md_escape(judge.DEMO_QUALITY_WARNING))
            st.text(f"Judge: {v.majority or 'no majority'}   repeats: {', '.join(l or 'error' for l in v.labels)}")
            for line in reason_text(v):
                st.text(line)
            for error in v.errors:
                st.text(f"Error: {error}")
        for other in shown.others:
            st.text(f"{other['reviewer']}: {other['label']}" + (f" — {other['note']}" if other["note"] else ""))
        note_key, mode_key = f"last_note:{pair[0]}:{pair[1]}", f"last_mode:{pair[0]}:{pair[1]}"
        cols = st.columns(len(labels) + 1)
        for n, (col, lab) in enumerate(zip(cols, labels), 1):
            col.button(f"Change to {md_escape(lab)}", key=f"change_{n}", disabled=lab == mine.label,
                       on_click=_on_label, args=(name, pair, lab, note_key, mode_key))
        cols[-1].button("Undo", key="undo", shortcut="U", on_click=_on_undo)
        st.text_input("Add a note to your label", key=note_key, value=mine.note or "")
        st.selectbox("Failure mode", ann.FAILURE_MODES, key=mode_key, placeholder="none",
                     index=ann.FAILURE_MODES.index(mine.failure_mode) if mine.failure_mode else None)
        st.button("Save note", key="save_note", on_click=_on_label, args=(name, pair, mine.label, note_key, mode_key))


st.header("Review")
name = reviewer()
if not name:
    st.info("Enter your reviewer name in the sidebar to start. Labels are stored under that name.")
    st.stop()

with ann.unit_of_work(db_path()) as db:
    queue = st.session_state.get(QUEUE_KEY)
    if queue is None or queue.reviewer != name:
        ann.top_up_sample(db)  # the queue opens on a sample that matches the current verdicts (issue 12.7)
        queue = st.session_state[QUEUE_KEY] = ann.open_queue(db, name)
    pair = ann.next_pair(db, queue)
    if pair is None and ann.top_up_sample(db) is not None:
        pair = ann.next_pair(db, queue)
    progress = ann.quota_progress(db)
    review = ann.review_progress(db, progress)
    mine, overlap = ann.reviewer_progress(db, name), ann.overlap_progress(db)
    card = ann.review_card(db, pair) if pair else None
    last = st.session_state.get(LAST_KEY)
    shown = None
    if last is not None and last.reviewer == name and ann.my_label(db, name, last.pair) is not None:
        shown = ann.reveal(db, name, last.pair)
        last_labels = ann.review_card(db, last.pair).constraint.labels

_render_progress(progress, review, mine, overlap)
if shown is not None:
    _render_reveal(name, shown, last_labels)
else:
    st.button("Undo last label", key="undo", shortcut="U", on_click=_on_undo)

if card is None and review.left:
    st.info(f"Nothing left in your queue, {md_escape(name)}. {review.left} random-sample labels are still missing: "
            "their pairs are assigned to other reviewers (`judgecal assign` lists who holds what) or wait for a "
            "second reviewer.")
    st.stop()
if card is None:
    st.success(f"Nothing left in your queue, {md_escape(name)}. Thank you! New pairs arrive when `judgecal sample` draws more.")
    st.stop()

st.session_state.setdefault(SHOWN_KEY, {}).setdefault(card.pair, time.time())
left, right = st.columns([3, 2], gap="large")
with left:
    _render_card(card)
with right:
    _render_labelling(name, card)
