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

from judgecal import annotations as ann
from judgecal.annotations.reports import ReviewOrder, review_order
from judgecal import judge
from judgecal.evalsets import label_definitions
from judgecal.app_pages._common import admins, db_path, md_escape, reviewer

LAST_KEY = "last_saved"  # SavedLabel of the reviewer's latest action (its verdict is revealed)
QUEUE_KEY = "review_queue"  # ReviewQueue: this session's walk through the sample
SHOWN_KEY = "shown_at"  # pair -> time.time() when first shown (seconds spent = save time - this)
GUIDELINE_ERROR_KEY = "guideline_error"  # why the last guideline edit was refused
NOTICE_KEY = "review_notice"  # what the last key press did not do, or undid: shown once
CURRENT_KEY = "review_current"  # (reviewer, pair) on the card of the last run: said when it closes under them
MAX_STRATA_SHOWN = 30


def _seconds(pair: ann.Pair) -> float | None:
    shown = st.session_state.get(SHOWN_KEY, {}).get(pair)
    return None if shown is None else time.time() - shown


def _on_label(name: str, pair: ann.Pair, label: str, note_key: str, mode_key: str,
              guideline_version: str | None = None, first: bool = False) -> None:
    # first: a card's label button. A second key press that reaches the server before the next card is drawn still
    # carries the labelled pair: it is refused and said, never stored as a change (a review, wave 18).
    try:
        with ann.unit_of_work(db_path()) as db:
            st.session_state[LAST_KEY] = ann.record_label(
                db, name, pair, label, note=st.session_state.get(note_key),
                failure_mode=st.session_state.get(mode_key), seconds_spent=_seconds(pair),
                guideline_version=guideline_version, first=first)
    except ann.ReviewError as exc:
        st.session_state[NOTICE_KEY] = str(exc)


def _on_save_guideline(name: str, constraint_id: str | None, text_key: str) -> None:
    try:
        with ann.unit_of_work(db_path()) as db:
            ann.save_guideline(db, constraint_id, st.session_state.get(text_key, ""), author=name, admins=admins())
        st.session_state.pop(GUIDELINE_ERROR_KEY, None)
    except ann.GuidelineError as exc:
        st.session_state[GUIDELINE_ERROR_KEY] = str(exc)


def _on_undo() -> None:
    # U is one key: say what it withdrew (maybe a label of another session), or that there was nothing (wave 18).
    with ann.unit_of_work(db_path()) as db:
        undone = st.session_state["undone"] = ann.undo(db, st.session_state[QUEUE_KEY])
    st.session_state[NOTICE_KEY] = ("Nothing to undo: you have no label standing." if undone is None else
                                    f"Withdrew your label on {undone[0]} · {undone[1]}: label it again.")


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


def _render_constraint(card: ann.ReviewCard) -> None:
    c = card.constraint
    st.caption(md_escape(f"Constraint · {c.id} · {c.type} · {c.severity}"))
    st.text(c.text)


def _render_label_buttons(name: str, card: ann.ReviewCard, note_key: str, mode_key: str,
                          order: ReviewOrder | None = None) -> None:
    """One full-width button per label, stacked, its key and meaning beside it: four refusal levels side by side
    were cut to "har… so…", and `2` means fail on one card and soft_refusal on the next."""
    pair, labels = card.pair, card.constraint.labels
    meaning = label_definitions(labels)
    for n, lab in enumerate(labels, 1):
        key_col, text_col = st.columns([2, 3], vertical_alignment="center", gap="small")
        key_col.button(md_escape(lab), key=f"label_{n}", shortcut=str(n) if n <= 9 else None, width="stretch",
                       type="primary", on_click=_on_label,
                       args=(name, pair, order.stored_label(lab) if order else lab, note_key, mode_key,
                             card.guidelines.version, True))
        if lab in meaning:  # the button itself shows its key
            text_col.caption(md_escape(meaning[lab]))


def _render_label_extras(card: ann.ReviewCard, note_key: str, mode_key: str) -> None:
    if card.guidelines.constraint is not None:
        st.caption(md_escape(f"Guidelines for {card.constraint.id} (v{card.guidelines.constraint.version})"))
        st.text(card.guidelines.constraint.text)
    st.text_input("Note (optional)", key=note_key)
    st.selectbox("Failure mode (optional)", ann.FAILURE_MODES, index=None, key=mode_key, placeholder="none")
    skip_col, undo_col = st.columns(2, gap="small")
    skip_col.button("Skip for now", key="skip", shortcut="S", on_click=_on_skip, args=(card.pair,), width="stretch")
    _render_undo(undo_col)


def _render_keys(card: ann.ReviewCard) -> None:
    # In a field the keys type text, and Escape does not leave it (a review, wave 18): say how to get back. Last in
    # the column, so the reveal of the previous label stays on the first screen.
    st.caption(f"Keys: 1–{min(len(card.constraint.labels), 9)} label · S skip · U undo · Tab moves on. In the note "
               "or failure-mode field keys type: press Tab to leave it (twice from the note).")


def _render_undo(where) -> None:
    where.button("Undo last label", key="undo", shortcut="U", on_click=_on_undo, width="stretch")


def _render_guidelines(name: str, card: ann.ReviewCard) -> None:
    """The project's guidelines (collapsed: they change rarely), and for an admin the editor of both scopes."""
    g = card.guidelines
    with st.expander(md_escape(f"Guidelines · {g.version or 'none'}")):
        if g.project is not None:
            st.text(g.project.text)
        if not ann.is_admin(name, admins()):
            return
        st.caption("Edit (admin): saving makes a new version; labels keep the version they were given under.")
        scopes = {f"this constraint ({card.constraint.id})": card.constraint.id, "project default": None}
        scope_name = st.radio("Scope", list(scopes), key="guideline_scope", horizontal=True)
        scope = scopes[scope_name]
        current = g.constraint if scope else g.project
        text_key = f"guideline_text:{scope or ''}:{current.version if current else 0}"
        with st.form("guideline_form", border=False):
            st.text_area("Guideline text", value=current.text if current else "", key=text_key, height=160)
            st.form_submit_button("Save as new version", on_click=_on_save_guideline, args=(name, scope, text_key))
        if st.session_state.get(GUIDELINE_ERROR_KEY):
            st.error(md_escape(st.session_state[GUIDELINE_ERROR_KEY]))


def _render_labelling(name: str, card: ann.ReviewCard, order: ReviewOrder | None = None) -> None:
    pair = card.pair
    note_key, mode_key = f"note:{pair[0]}:{pair[1]}", f"mode:{pair[0]}:{pair[1]}"
    _render_constraint(card)
    _render_label_buttons(name, card, note_key, mode_key, order)
    _render_label_extras(card, note_key, mode_key)


def reason_text(view: ann.JudgeView) -> list[str]:
    """The judge's reasons as plain-text lines: identical repeats once (×n), a reason that contradicts its label
    marked (the rule: annotations.review._reasons)."""
    return [f"Reason{f' (×{r.count})' if r.count > 1 else ''}: {r.reason}"
            + (f"   ⚠ contradicts the label {r.label}" if r.contradicts else "") for r in view.reason_lines]


def _render_judge_view(v: ann.JudgeView) -> None:
    rubric = f"{v.rubric_name} v{v.rubric_version}" if v.rubric_name else v.rubric_sha256[:12]
    st.caption(md_escape(f"Judge {v.judge_model} · rubric {rubric}"))
    if judge.is_demo_quality(v.judge_model):
        st.caption(md_escape(judge.DEMO_QUALITY_WARNING))
    st.text(f"Judge: {v.majority or 'no majority'}   repeats: {', '.join(l or 'error' for l in v.labels)}")
    for line in reason_text(v):
        st.text(line)
    for error in v.errors:
        st.text(f"Error: {error}")


def _reveal_summary(shown: ann.Reveal) -> str:
    """The reveal in one line: the label, the latest judge's majority, whether they agree."""
    mine = shown.mine
    line = f"Your last label · {mine.pair.run_record_id} · {mine.pair.constraint_id}: {mine.label}"
    if not mine.blind:
        line += " (changed after the reveal)"
    if shown.judge:
        v = shown.judge[0]
        verdict = v.majority or ("errors only" if not any(v.labels) else "no majority")
        line += f" · judge: {verdict}" + (" (agrees)" if v.majority == mine.label else " (differs)")
    else:
        line += " · not judged yet"
    if shown.others:
        line += f" · {len(shown.others)} other reviewer(s)"
    return line


def reveal_as_seen(shown: ann.Reveal, order: ReviewOrder | None) -> ann.Reveal:
    """The reveal in the numbering this reviewer saw the pair record in: labels are stored with A = output_1, but a
    reviewer shown B first labelled B "output_1" and must read their own label, the judge's and other reviewers'
    that way (the judge's free-text reasons cannot be renumbered; the page says so)."""
    if order is None or not order.swapped:
        return shown
    seen = lambda label: order.shown_label(label) if label else label  # noqa: E731
    judge_views = tuple(v._replace(labels=tuple(seen(l) for l in v.labels), majority=seen(v.majority),
                                   reason_lines=tuple(r._replace(label=seen(r.label)) for r in v.reason_lines))
                        for v in shown.judge)
    others = tuple(dict(o, label=seen(o["label"])) for o in shown.others)
    return ann.Reveal(shown.mine._replace(label=seen(shown.mine.label)), judge_views, others)


def _render_reveal(name: str, shown: ann.Reveal, labels: tuple[str, ...], guideline_version: str | None,
                   order: ReviewOrder | None = None) -> None:
    """The previous pair, revealed: one line (expand for the judge's reasons, other reviewers, note and change).
    Placed below the labelling controls, never above the next card. A pairwise record's labels read in the order
    this reviewer saw (`reveal_as_seen`), and a change is stored mapped back to A/B like the first label."""
    stored = shown.mine.label
    shown = reveal_as_seen(shown, order)
    mine = shown.mine
    pair = mine.pair
    with st.expander(md_escape(_reveal_summary(shown))):
        if order is not None:
            st.caption("Labels here follow the order you saw: output_1 is the output shown first to you. The "
                       "judge's reasons quote the order the judge was shown.")
        if not shown.judge:
            st.caption("The judge has not scored this pair yet.")
        for v in shown.judge:
            _render_judge_view(v)
        for other in shown.others:
            st.text(f"{other['reviewer']}: {other['label']}" + (f" — {other['note']}" if other["note"] else ""))
        note_key, mode_key = f"last_note:{pair[0]}:{pair[1]}", f"last_mode:{pair[0]}:{pair[1]}"
        for n, lab in enumerate(labels, 1):
            st.button(f"Change to {md_escape(lab)}", key=f"change_{n}", disabled=lab == mine.label,
                      on_click=_on_label, args=(name, pair, order.stored_label(lab) if order else lab, note_key,
                                                mode_key, guideline_version))
        st.text_input("Add a note to your label", key=note_key, value=mine.note or "")
        st.selectbox("Failure mode", ann.FAILURE_MODES, key=mode_key, placeholder="none",
                     index=ann.FAILURE_MODES.index(mine.failure_mode) if mine.failure_mode else None)
        st.button("Save note", key="save_note", on_click=_on_label,
                  args=(name, pair, stored, note_key, mode_key, guideline_version))


def _render_last(name: str, shown: ann.Reveal | None, last_card: ann.ReviewCard | None,
                 last_order: ReviewOrder | None = None) -> None:
    if shown is not None and last_card is not None:
        _render_reveal(name, shown, last_card.constraint.labels, last_card.guidelines.version, last_order)


name = reviewer()
if not name:
    st.info("Enter your reviewer name in the sidebar to start (or log in). Labels are stored under that name.")
    st.stop()

with ann.unit_of_work(db_path()) as db:
    queue = st.session_state.get(QUEUE_KEY)
    if queue is None or queue.reviewer != name:
        ann.top_up_sample(db)  # the queue opens on a sample that matches the current verdicts (issue 12.7)
        queue = st.session_state[QUEUE_KEY] = ann.open_queue(db, name)
    pair = ann.next_pair(db, queue)
    if pair is None and ann.top_up_sample(db) is not None:
        pair = ann.next_pair(db, queue)
    # The card of the last run closed under the reviewer (another reviewer gave it the labels it needs, or the
    # sample or an assignment changed): say so, with the note typed on it, instead of swapping the card silently
    # (a review, wave 18).
    before = st.session_state.get(CURRENT_KEY)
    closed = before[1] if (before and before[0] == name and before[1] != pair and before[1] not in queue.skipped
                           and ann.my_label(db, name, before[1]) is None
                           and not ann.is_open(db, name, before[1])) else None
    progress = ann.review_quota(db)  # quota_progress keyed by the O(1) review_version (issue 16.3)
    review = ann.review_progress(db, progress)
    mine, overlap = ann.reviewer_progress(db, name), ann.overlap_progress(db)
    card = ann.review_card(db, pair) if pair else None
    # A pairwise A-vs-B record is shown in this reviewer's own order (random per reviewer and pair); the label is
    # stored mapped back to A = output_1.
    order = review_order(db, name, card.pair.run_record_id) if card else None
    if order is not None:
        card = card._replace(output=order.output, evidence=order.output)
    last = st.session_state.get(LAST_KEY)
    shown = last_card = last_order = None
    if last is not None and last.reviewer == name and ann.my_label(db, name, last.pair) is not None:
        shown = ann.reveal(db, name, last.pair)
        last_card = ann.review_card(db, last.pair)
        last_order = review_order(db, name, last.pair.run_record_id)

if st.session_state.get(NOTICE_KEY):
    st.toast(md_escape(st.session_state.pop(NOTICE_KEY)))
st.session_state[CURRENT_KEY] = (name, pair) if pair else None
if closed is not None:
    typed = (st.session_state.get(f"note:{closed[0]}:{closed[1]}") or "").strip()
    st.warning(md_escape(f"The pair you were reading, {closed[0]} · {closed[1]}, needs no label from you any more "
                         "(another reviewer gave it the labels it needs, or the sample changed): here is your next "
                         "pair." + (f" Your note on it was not saved: {typed}" if typed else "")))
_render_progress(progress, review, mine, overlap)

if card is None and review.left:
    st.info(f"Nothing left in your queue, {md_escape(name)}. {review.left} random-sample labels are still missing: "
            "their pairs are assigned to other reviewers (`judgecal assign` lists who holds what) or wait for a "
            "second reviewer.")
    _render_last(name, shown, last_card, last_order)
    _render_undo(st)
    st.stop()
if card is None:
    st.success(f"Nothing left in your queue, {md_escape(name)}. Thank you! New pairs arrive when `judgecal sample` draws more.")
    _render_last(name, shown, last_card, last_order)
    _render_undo(st)
    st.stop()

st.session_state.setdefault(SHOWN_KEY, {}).setdefault(card.pair, time.time())
# The labelling column first in reading order and at the top: after any action the next pair's constraint and
# buttons are on screen at 1280x720; the previous pair's reveal sits below them, never above the next card.
left, right = st.columns([3, 2], gap="medium")
with right:
    _render_labelling(name, card, order)
    _render_last(name, shown, last_card, last_order)
    _render_guidelines(name, card)
    _render_keys(card)
with left:
    _render_card(card)
