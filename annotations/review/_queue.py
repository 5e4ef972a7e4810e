"""The review queue: which sampled pair a reviewer sees next, what the screen shows, and recording labels.

Who gets a pair:
- a ``random`` or ``targeted`` pair goes to whoever labels it first; it is done with one standing label;
- an ``overlap`` pair (also a random pair) needs a second label from a different reviewer;
- a reviewer never gets a pair they have a standing label on (after an undo, the pair is theirs to label again);
- once pairs are assigned (`judgecal assign`, annotations.review._assign), a pair goes only to the reviewers holding its
  slots (an overlap pair's second slot always to a different reviewer); the order below is unchanged.

Order (`reviewer_order`): the random sample in each population's draw order (populations interleaved per reviewer),
then targeted-only pairs (unstable judgements first); no reviewer's order depends on anyone else's. A session's queue
(`open_queue`) builds the order as it is walked, a chunk of the populations' memoised draw orders at a time, and walks
it with indexed look-ups (`next_pair`), so neither a page rerun nor a session's first load reads or sorts the whole
sample; it starts again when the sample changes.

Blind review: `review_card` carries nothing about the judge or other reviewers; `reveal` refuses until the
reviewer's own label is saved. A label is one INSERT in a BEGIN IMMEDIATE transaction: two reviewers saving at the
same moment both keep their labels. The first label on a pair is blind (blind=1); a change made after the reveal
is stored with blind=0, because the judge's verdict was visible by then.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import sqlite_utils

from judgecal.evalsets import Constraint, Step, ToolCall
from judgecal.evalsets._plain import FailureMode  # house: private
from judgecal.annotations.review._assign import assigned_reviewers, assignments_version, may_label
from judgecal.annotations.review._guidelines import DEFAULT_GUIDELINES, GuidelineSet, guidelines_for  # noqa: F401 (re-exported)
from judgecal.annotations.review._guidelines import guidelines_for as guidelines  # the name callers knew  # noqa: F401
from judgecal.annotations.store import load_items, load_run
from judgecal.annotations.review._reasons import ReasonLine, reason_lines
from judgecal.annotations.store import (PAIRS_IN_JSON, canonical_reviewer, clean_reviewer_name, current_labels,
                                        kept_for_tables, pairs_labelled_since, standing_labels_sql)
from judgecal.annotations.review._sampling import (Pair, StratumCoverage, counted_pairs, draw_orders, paired_order,
                                                   population_key, quota_progress, sample_rules)
from judgecal.annotations.review._version import review_version
from judgecal.annotations.store import now_iso, write
from judgecal.annotations.store import majority_label
from judgecal.evalsets import render_evidence

FAILURE_MODES: tuple[str, ...] = FailureMode.__args__  # type: ignore[attr-defined]


class ReviewError(ValueError):
    """A review action that cannot be done: unknown pair, label outside the set, a peek before labelling."""


class ReviewCard(NamedTuple):
    """What the reviewer sees before labelling: nothing about the judge or other reviewers."""

    pair: Pair
    item_id: str
    instruction: str
    input_text: str | None
    input_is_json: bool
    output: str | None
    trajectory: tuple[Step, ...] | None
    tool_calls: tuple[ToolCall, ...]
    run_error: str | None
    constraint: Constraint
    rules: frozenset[str]
    guidelines: GuidelineSet  # the versions on screen; a label made from this card stores `guidelines.version`
    # The run's evidence exactly as the judge's prompt quotes it (render_evidence): the app shows this text, so a
    # reviewer reads what the judge read (trajectory with the final output marked, every turn of a conversation).
    evidence: str = ""


class SavedLabel(NamedTuple):
    id: int
    pair: Pair
    reviewer: str
    event: str
    label: str | None
    note: str | None
    failure_mode: str | None
    seconds_spent: float | None
    rubric_version_seen: str | None
    blind: bool
    guideline_version: str | None = None


class JudgeView(NamedTuple):
    """The judge's verdicts on a pair under one rubric and judge model."""

    rubric_sha256: str
    rubric_name: str | None
    rubric_version: int | None
    judge_model: str
    labels: tuple[str | None, ...]  # one per repeat; None where the repeat was an error
    majority: str | None
    reasons: tuple[str, ...]
    errors: tuple[str, ...]
    # identical repeat reasons once, each marked when it contradicts its label (annotations.review._reasons)
    reason_lines: tuple[ReasonLine, ...] = ()


class Reveal(NamedTuple):
    mine: SavedLabel
    judge: tuple[JudgeView, ...]  # latest rubric first
    others: tuple[dict[str, Any], ...]  # other reviewers' standing labels


@dataclass
class _OrderPlan:
    """How the rest of a reviewer's order is built: the populations' draw orders in this reviewer's interleave order,
    and how many positions of them are already in `ReviewQueue.order`."""

    orders: tuple[tuple[Pair, ...], ...]
    pos: int = 0

    @property
    def longest(self) -> int:
        return max(map(len, self.orders), default=0)


@dataclass
class ReviewQueue:
    """One reviewer's walk through the sample (per session; keep it in st.session_state). `order` is the part of
    `reviewer_order` built so far: the random sample's interleave is added a chunk at a time as the cursor reaches its
    end, the rest (paired, targeted) once the random sample is through, so a session's first load does not sort the
    whole sample."""

    reviewer: str
    version: int | tuple  # `_queue_version` when the queue was built
    order: list[Pair]
    cursor: int = 0
    skipped: set[Pair] = field(default_factory=set)
    reopened: list[Pair] = field(default_factory=list)  # undone pairs, served again before the rest (newest first)
    plan: _OrderPlan | None = None  # None: `order` is complete


def _check_reviewer(db: sqlite_utils.Database, reviewer: str) -> str:
    """The name `reviewer`'s events are stored under: the app's rule (`canonical_reviewer`: whitespace collapsed, no
    control characters, a stored reviewer whatever the case), for every caller, not the app's name form alone (a
    review, wave 15: a label after the reveal under "Ann" was "ann"'s blind first label, and the two counted as two
    raters of the human-human ceiling). One index look-up when the name is stored as given."""
    if not (reviewer or "").strip():
        raise ReviewError("choose a reviewer name first")
    try:
        name = clean_reviewer_name(reviewer)
    except ValueError as exc:
        raise ReviewError(str(exc)) from None
    if db.execute("SELECT 1 FROM human_labels WHERE reviewer = ? LIMIT 1", [name]).fetchone() is None:
        name = canonical_reviewer(db, name).name
    return name


def samples_version(db: sqlite_utils.Database) -> tuple[int, int]:
    """Changes whenever the sample changes: its largest row id moves on every insert, and migration 016's counter on
    every delete or update (`review_version`); two index look-ups."""
    return review_version(db)[1:3]


_CHUNK = 256  # pairs of the random sample's interleave added to a queue at a time


def _mine(reviewer: str, text: str) -> bytes:
    return hashlib.sha256(f"{reviewer}\x1f{text}".encode()).digest()


def reviewer_order(db: sqlite_utils.Database, reviewer: str) -> list[Pair]:
    """Every sampled pair in the order this reviewer is served:

    1. the random sample, each constraint × model population in its draw order (`draw_orders`), the populations
       interleaved round-robin in an order of this reviewer's own (a hash of reviewer and population), so two
       reviewers rarely meet on a pair while both fill the counted prefix from its front;
    1b. the paired sample of two runs (`sample --paired`), in its draw order, a unit's pairs of both runs together;
    2. the targeted-only pairs: those whose judge repeats disagree first (SPEC §5: unstable judgements get a human
       look), then judge errors, each in the reviewer's own hash order.

    A pair is served once, in the first part that holds it. Only the counted prefix (`counted_pairs`) enters
    agreement, so serving targeted pairs first (as before issue 10) would only have delayed the quota; the order
    itself never decides which pairs count. The whole order at once; a queue builds it as it goes (`open_queue`)."""
    queue = open_queue(db, reviewer)
    while _extend(db, queue):
        pass
    return queue.order


def open_queue(db: sqlite_utils.Database, reviewer: str) -> ReviewQueue:
    """A new walk through `reviewer_order`, built a chunk at a time as `next_pair` reaches it."""
    reviewer = _check_reviewer(db, reviewer)
    # The version before the orders: a draw committed in between then makes the next call start the queue again.
    version = _queue_version(db)
    orders = draw_orders(db, review_version(db))
    # the populations in this reviewer's own order; at each position every population still holding a pair gives one
    plan = _OrderPlan(tuple(o for _h, o in sorted((_mine(reviewer, population_key(*pop)), o)
                                                  for pop, o in orders.items())))
    return ReviewQueue(reviewer, version, [], plan=plan)


def _extend(db: sqlite_utils.Database, queue: ReviewQueue) -> bool:
    """Add the next chunk of the reviewer's order to `queue.order`; False when it was complete."""
    plan = queue.plan
    if plan is None:
        return False
    longest, added = plan.longest, 0
    while added < _CHUNK and plan.pos < longest:
        for order in plan.orders:
            if plan.pos < len(order):
                queue.order.append(order[plan.pos])
                added += 1
        plan.pos += 1
    if plan.pos >= longest:
        queue.order.extend(_rest_of_order(queue, db))
        queue.plan = None
    return True


def _rest_of_order(queue: ReviewQueue, db: sqlite_utils.Database) -> list[Pair]:
    """Parts 1b and 2 of `reviewer_order`, without the pairs of the random sample (served in part 1)."""
    seen = {pair for order in queue.plan.orders for pair in order}
    unstable: list[Pair] = []
    targeted: list[Pair] = []
    for rid, cid, reason in db.execute("SELECT run_record_id, constraint_id, reason FROM samples"
                                       " WHERE rule = 'targeted'"):
        (unstable if "repeats disagree" in (reason or "") else targeted).append(Pair(rid, cid))
    out: dict[Pair, None] = {}
    hashed = lambda p: _mine(queue.reviewer, f"{p[0]}\x1f{p[1]}")  # noqa: E731
    for group in (paired_order(db), sorted(unstable, key=hashed), sorted(targeted, key=hashed)):
        for pair in group:
            if pair not in seen:
                out.setdefault(pair, None)
    return list(out)


def _queue_version(db: sqlite_utils.Database) -> tuple:
    # A queue is rebuilt when the sample changes or an assignment moves a pair to (or away from) its reviewer.
    return (*samples_version(db), assignments_version(db))


def _standing(db: sqlite_utils.Database, pair: Pair) -> dict[str, dict[str, Any]]:
    """reviewer -> standing label row on the pair (`current_labels`, the one definition)."""
    return {row["reviewer"]: row for row in current_labels(db, pair=pair)}


def _rules(db: sqlite_utils.Database, pair: Pair) -> frozenset[str]:
    return sample_rules(db, pair).get(Pair(*pair), frozenset())


def review_quota(db: sqlite_utils.Database) -> list[StratumCoverage]:
    """`quota_progress` with its memoised tables keyed by `review_version`, which costs four index look-ups where
    `quota_progress`'s own key reads every sample row: what the Review page calls on every rerun (issue 16.3;
    tests/test_review_scale.py pins the rows equal)."""
    return quota_progress(db, review_version(db))


def is_open(db: sqlite_utils.Database, reviewer: str, pair: Pair) -> bool:
    """Whether `pair` still needs a label from `reviewer` (see the module docstring); with an assignment, only
    from a reviewer holding one of its slots, or an open slot nobody holds (`annotations.review._assign.may_label`).
    The name as its events are stored (`_check_reviewer`)."""
    return _is_open(db, _check_reviewer(db, reviewer), pair)


def _is_open(db: sqlite_utils.Database, reviewer: str, pair: Pair) -> bool:
    """`is_open` for a name already as stored (a queue's reviewer)."""
    rules = _rules(db, pair)
    if not rules:
        return False
    return may_label(reviewer, 2 if "overlap" in rules else 1, frozenset(_standing(db, pair)),
                     assigned_reviewers(db, pair))


def next_pair(db: sqlite_utils.Database, queue: ReviewQueue) -> Pair | None:
    """The reviewer's next open pair (None when their queue is done). Advances `queue` past closed pairs; rebuilds
    it when the sample has grown."""
    while queue.reopened:
        pair = queue.reopened[-1]
        if _is_open(db, queue.reviewer, pair):
            return pair
        queue.reopened.pop()
    version = _queue_version(db)
    if version != queue.version:
        fresh = open_queue(db, queue.reviewer)
        queue.order, queue.plan, queue.version, queue.cursor = fresh.order, fresh.plan, fresh.version, 0
    while True:
        if queue.cursor >= len(queue.order):
            if not _extend(db, queue):
                return None
            continue
        pair = queue.order[queue.cursor]
        if pair not in queue.skipped and _is_open(db, queue.reviewer, pair):
            return pair
        queue.cursor += 1
    return None


def skip(queue: ReviewQueue, pair: Pair) -> None:
    """Put `pair` aside for this session (it stays open for everyone else, and for this reviewer next session)."""
    queue.skipped.add(Pair(*pair))


def review_card(db: sqlite_utils.Database, pair: Pair) -> ReviewCard:
    pair = Pair(*pair)
    record = load_run(db, pair.run_record_id)
    if record is None:
        raise ReviewError(f"no run record {pair.run_record_id!r}")
    item = load_items(db, [record.item_id])[record.item_id]
    try:
        constraint = item.constraint(pair.constraint_id)
    except KeyError:
        raise ReviewError(f"no constraint {pair.constraint_id!r} on item {item.id!r}") from None
    if item.input is None or isinstance(item.input, str):
        input_text, is_json = item.input, False
    else:
        input_text, is_json = json.dumps(item.input, indent=2, ensure_ascii=False), True
    return ReviewCard(
        pair, item.id, item.instruction, input_text, is_json, record.output, record.trajectory, record.tool_calls,
        record.error, constraint, _rules(db, pair), guidelines_for(db, constraint.id), render_evidence(record),
    )


def revealed_rubric(db: sqlite_utils.Database, pair: Pair) -> str | None:
    """The rubric whose verdict the reveal shows first: the one that judged the pair most recently."""
    row = db.execute(
        "SELECT rubric_sha256 FROM verdicts WHERE run_record_id = ? AND constraint_id = ? ORDER BY created_at DESC, id DESC"
        " LIMIT 1", [pair[0], pair[1]]).fetchone()
    return row[0] if row else None


def _saved(row: dict[str, Any]) -> SavedLabel:
    return SavedLabel(
        row["id"], Pair(row["run_record_id"], row["constraint_id"]), row["reviewer"], row["event"], row["label"],
        row["note"], row["failure_mode"], row["seconds_spent"], row["rubric_version_seen"], bool(row["blind"]),
        row.get("guideline_version"),
    )


def record_label(db: sqlite_utils.Database, reviewer: str, pair: Pair, label: str, *, note: str | None = None,
                 failure_mode: str | None = None, seconds_spent: float | None = None,
                 guideline_version: str | None = None, first: bool = False) -> SavedLabel:
    """Save `reviewer`'s label on `pair`: event ``label`` when they have no standing label on it, else ``change``.
    Blind only when they never labelled the pair before (a change, or a label after an undo, follows the reveal).
    `guideline_version`: the guidelines the reviewer had on screen (`ReviewCard.guidelines.version`).
    `first`: a label from an unlabelled card, never a change: ReviewError (nothing stored) when the reviewer already
    has a standing label on the pair (a second key press that reached the server before the next card was drawn
    still names the pair just labelled; a review of the app, wave 18). One INSERT in one IMMEDIATE transaction."""
    reviewer = _check_reviewer(db, reviewer)
    pair = Pair(*pair)
    row = db.execute(
        "SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.id = ?"
        " WHERE r.id = ?", [pair.constraint_id, pair.run_record_id]).fetchone()
    if row is None:
        raise ReviewError(f"no constraint {pair.constraint_id!r} on run record {pair.run_record_id!r}")
    labels = json.loads(row[0])
    if label not in labels:
        raise ReviewError(f"label {label!r} is not in the constraint's label set {labels}")
    if failure_mode is not None and failure_mode not in FAILURE_MODES:
        raise ReviewError(f"failure mode {failure_mode!r} is not one of {list(FAILURE_MODES)}")
    if seconds_spent is not None:
        seconds_spent = max(0.0, round(float(seconds_spent), 3))
    note = (note or "").strip() or None
    with write(db):
        # Read and insert under the write lock: whether this is a first label or a change cannot race.
        standing = _standing(db, pair).get(reviewer)
        if standing is not None and first:
            raise ReviewError(f"you have already labelled {pair.run_record_id} · {pair.constraint_id} "
                              f"({standing['label']}): a second key press changes nothing")
        event = "change" if standing is not None else "label"
        # Blind only if the reviewer never labelled this pair before: after an undo they have seen the verdict.
        blind = db.execute(
            "SELECT 1 FROM human_labels WHERE run_record_id = ? AND constraint_id = ? AND reviewer = ? LIMIT 1",
            [pair.run_record_id, pair.constraint_id, reviewer]).fetchone() is None
        rubric = revealed_rubric(db, pair)
        cur = db.conn.execute(
            "INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, note, failure_mode,"
            " seconds_spent, rubric_version_seen, blind, created_at, guideline_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (pair.run_record_id, pair.constraint_id, reviewer, event, label, note, failure_mode, seconds_spent,
             rubric, int(blind), now_iso(), guideline_version))
    return SavedLabel(cur.lastrowid, pair, reviewer, event, label, note, failure_mode, seconds_spent, rubric, blind,
                      guideline_version)


def undo_last(db: sqlite_utils.Database, reviewer: str) -> Pair | None:
    """Withdraw the reviewer's most recent standing label (an ``undo`` event; history is kept). Returns its pair,
    which is open for them again, or None when they have nothing to undo. Repeated calls go further back."""
    reviewer = _check_reviewer(db, reviewer)
    with write(db):
        standing = current_labels(db, reviewer=reviewer)  # in event order: the last one is the most recent
        if not standing:
            return None
        last = standing[-1]
        row = (last["run_record_id"], last["constraint_id"], last["rubric_version_seen"])
        db.conn.execute(
            "INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, rubric_version_seen,"
            " blind, created_at) VALUES (?,?,?,'undo',NULL,?,0,?)", (row[0], row[1], reviewer, row[2], now_iso()))
    return Pair(row[0], row[1])


def undo(db: sqlite_utils.Database, queue: ReviewQueue) -> Pair | None:
    """`undo_last` for the queue's reviewer; the withdrawn pair is served next."""
    pair = undo_last(db, queue.reviewer)
    if pair is not None:
        queue.reopened.append(pair)
    return pair


def my_label(db: sqlite_utils.Database, reviewer: str, pair: Pair) -> SavedLabel | None:
    row = _standing(db, Pair(*pair)).get(_check_reviewer(db, reviewer))
    return _saved(row) if row else None


def reveal(db: sqlite_utils.Database, reviewer: str, pair: Pair) -> Reveal:
    """The judge's verdicts and other reviewers' labels on `pair` — only once `reviewer` has a label on it."""
    reviewer = _check_reviewer(db, reviewer)
    pair = Pair(*pair)
    standing = _standing(db, pair)
    if reviewer not in standing:
        raise ReviewError("blind review: save your label before the judge's verdict and other labels are shown")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for v in db.query(
        """SELECT v.*, rb.name AS rubric_name, rb.version AS rubric_version FROM verdicts v
           LEFT JOIN rubrics rb ON rb.sha256 = v.rubric_sha256
           WHERE v.run_record_id = ? AND v.constraint_id = ? ORDER BY v.created_at DESC, v.id DESC""",
        [pair.run_record_id, pair.constraint_id],
    ):
        groups.setdefault((v["rubric_sha256"], v["judge_model"]), []).append(v)
    row = db.execute("SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.id = ?"
                     " WHERE r.id = ?", [pair.constraint_id, pair.run_record_id]).fetchone()
    label_set = tuple(json.loads(row[0])) if row else ()
    views = []
    for (sha, judge_model), rows in groups.items():
        rows.sort(key=lambda v: v["repeat"])
        labels = tuple(v["label"] for v in rows)
        views.append(JudgeView(
            sha, rows[0]["rubric_name"], rows[0]["rubric_version"], judge_model, labels,
            majority_label([lab for lab in labels if lab is not None]),  # the one majority rule; a tie has none
            tuple(v["reason"] for v in rows if v["reason"]),
            tuple(f"{v['error']}: {v['error_detail']}" if v["error_detail"] else v["error"] for v in rows if v["error"]),
            reason_lines(((v["label"], v["reason"]) for v in rows), label_set),
        ))
    others = tuple(
        {"reviewer": r, "label": row["label"], "note": row["note"], "failure_mode": row["failure_mode"]}
        for r, row in sorted(standing.items()) if r != reviewer
    )
    return Reveal(_saved(standing[reviewer]), tuple(views), others)


def awaiting_blind_label(db: sqlite_utils.Database, reviewer: str | None) -> frozenset[Pair]:
    """Sampled pairs still waiting for a blind label from `reviewer` (any reviewer when None): the judge's verdict
    and other reviewers' labels on them must stay out of view (the Calibration page hides them), or the label that
    follows is not blind. Counted in SQL (per sampled pair: its standing reviewers, and whether `reviewer` is one) and
    kept under the samples' and labels' versions, so a rerun with neither changed reads nothing, and new labels are
    applied to their own pairs only."""
    name = (reviewer or "").strip() or None

    def update(kept: frozenset[Pair], since: int) -> frozenset[Pair] | None:
        touched = pairs_labelled_since(db, since)
        if touched is None:
            return None
        return frozenset(kept.difference(Pair(*p) for p in touched) | _awaiting_blind_label(db, name, touched))

    def compute() -> frozenset[Pair]:
        if name is None:
            return _awaiting_blind_label(db, None)
        # the pairs waiting for anyone, less those `name` has labelled: the same pairs as the SQL with `name`, sharing
        # the kept pairs of every reviewer (at 1M run records a set of 257k pairs is ~58 MB)
        mine = db.execute(f"SELECT run_record_id, constraint_id FROM ({standing_labels_sql('reviewer = ?')})", [name])
        return awaiting_blind_label(db, None).difference(tuple(r) for r in mine)

    return kept_for_tables(db, "awaiting_blind_label", (name,), ("samples", "human_labels"), compute,
                           appended=("human_labels", update))


def _awaiting_blind_label(db: sqlite_utils.Database, name: str | None,
                          pairs: list[tuple[str, str]] | None = None) -> frozenset[Pair]:
    """The one definition of "waiting": an overlap pair waits for two reviewers, any other sampled pair for one, and
    never for a reviewer who has labelled it. Over every sampled pair, or over `pairs` only."""
    where = PAIRS_IN_JSON if pairs is not None else ""
    params = [json.dumps(pairs)] * 2 if pairs is not None else []
    sql = f"""
        SELECT s.run_record_id, s.constraint_id FROM
            (SELECT run_record_id, constraint_id, max(rule = 'overlap') AS overlap FROM samples
             {"WHERE " + where if where else ""} GROUP BY 1, 2) s
        LEFT JOIN (SELECT run_record_id, constraint_id, count(*) AS n, max(reviewer IS ?) AS mine
                   FROM ({standing_labels_sql(where)}) GROUP BY 1, 2) t
          ON t.run_record_id = s.run_record_id AND t.constraint_id = s.constraint_id
        WHERE NOT coalesce(t.mine, 0) AND coalesce(t.n, 0) < 1 + s.overlap"""
    return frozenset(Pair(r, c) for r, c in db.execute(sql, [*params[:1], name, *params[1:]]))
