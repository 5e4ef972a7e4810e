"""Assignment: which reviewer labels which sampled pair (issue 12.4), and each reviewer's progress.

Slots. Every sampled pair has slot 1 (its first label); an overlap pair also has slot 2 (the second label, always a
different reviewer, so human–human agreement is known). `assign` fills open slots with the named reviewers:

- ``round-robin``: the pairs are dealt in each constraint × model population's draw order (populations one after
  the other, then targeted-only pairs), one reviewer after the next, so every reviewer holds every R-th pair of each
  population and labels them in draw order;
- ``constraint``: each constraint id goes to one reviewer (largest constraints first, to whoever has the fewest pairs
  so far); the second label of its overlap pairs goes round-robin to the others.

Who is served a pair (`may_label`): with no assignment, anyone (first come, as before); with one, its assigned
reviewers, and outsiders only for slots nobody holds. A reviewer never gets a slot on a pair they already labelled
(a second label must come from someone who has not seen the reveal).

Integrity (docs/decisions.md "counted pairs"): assignment decides only WHO gets a pair. Each reviewer's queue still
serves each population's random pairs in draw order (`reviewer_order`), and which pairs count is still the labelled
prefix of the draw order: nothing here reads a label's value or the judge's verdict.

Rows are appended, never updated (history kept); the latest row per (pair, slot) stands. A pair's assigned slot whose
reviewer has labelled it is never moved; `reassign=True` moves the other open slots to the named reviewers (someone
left the team).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, NamedTuple, Sequence

import sqlite_utils

from judgecal.annotations.store import blind_first_labels, canonical_reviewer, current_labels
from judgecal.annotations.review._sampling import Pair, _memo, draw_orders, sample_rules
from judgecal.annotations.review._version import review_version
from judgecal.annotations.store import now_iso, write

ASSIGN_METHODS = ("round-robin", "constraint")


class AssignmentError(ValueError):
    """An assignment that cannot be made: no reviewers, a duplicate name, an unknown method, one reviewer for
    overlap pairs."""


class AssignSummary(NamedTuple):
    method: str
    reviewers: tuple[str, ...]
    assigned: int     # slots given to a reviewer by this call
    kept: int         # open slots left with the reviewer they had
    unassigned: int   # open slots nobody could take (every named reviewer already labelled the pair)


class ReviewerProgress(NamedTuple):
    """One reviewer's assigned slots and how many they have labelled (a standing label on the pair)."""

    reviewer: str
    assigned: int
    done: int
    overlap_assigned: int  # of which second labels on overlap pairs (or first labels on them)
    overlap_done: int

    @property
    def left(self) -> int:
        return self.assigned - self.done


class OverlapProgress(NamedTuple):
    """Overlap pairs (the human–human sample) and how many carry blind first labels of two different reviewers."""

    target: int
    done: int

    @property
    def left(self) -> int:
        return max(0, self.target - self.done)


def _check_reviewers(db: sqlite_utils.Database, reviewers: Iterable[str]) -> tuple[str, ...]:
    """Each name as its labels are stored (`canonical_reviewer`, the Review page's rule): "ann" and "ANN" are one
    reviewer, so naming both is naming one twice (a review, wave 15: they were dealt the two slots of one overlap
    pair)."""
    typed = tuple(reviewers)
    if not typed or any(not (r or "").strip() for r in typed):
        raise AssignmentError("name at least one reviewer (an empty name is not a reviewer)")
    try:
        names = tuple(canonical_reviewer(db, r).name for r in typed)
    except ValueError as exc:
        raise AssignmentError(str(exc)) from None
    folded = Counter(n.casefold() for n in names)
    dupes = sorted({t for t, n in zip(typed, names) if folded[n.casefold()] > 1})
    if dupes:
        raise AssignmentError(f"reviewer named twice: {', '.join(dupes)} (a name is one reviewer whatever its case "
                              "and spacing)")
    return names


def standing_assignments(db: sqlite_utils.Database, pair: Pair | None = None) -> dict[Pair, dict[int, str]]:
    """pair -> {slot: reviewer}: the latest assignment row of each (pair, slot). The one definition."""
    where, params = ("WHERE run_record_id = ? AND constraint_id = ?", list(pair)) if pair is not None else ("", [])
    out: dict[Pair, dict[int, str]] = defaultdict(dict)
    for rid, cid, slot, reviewer in db.execute(
            f"SELECT run_record_id, constraint_id, slot, reviewer FROM assignments {where} ORDER BY id", params):
        out[Pair(rid, cid)][slot] = reviewer
    return dict(out)


def assignments_version(db: sqlite_utils.Database) -> int:
    """Changes whenever an assignment is made (rows are only ever inserted)."""
    return db.execute("SELECT coalesce(max(id), 0) FROM assignments").fetchone()[0]


def may_label(reviewer: str, need: int, standing: set[str] | frozenset[str],
              assigned: set[str] | frozenset[str]) -> bool:
    """Whether `reviewer` may give one of a pair's `need` labels, given who has a standing label on it and who holds
    its slots: never twice, never beyond `need`; an outsider only takes a slot nobody holds."""
    if reviewer in standing or len(standing) >= need:
        return False
    return reviewer in assigned or len(standing - assigned) < need - len(assigned)


def assign(db: sqlite_utils.Database, reviewers: Sequence[str], *, by: str = "round-robin",
           reassign: bool = False) -> AssignSummary:
    """Give every open slot of the review sample a reviewer (see the module docstring). One transaction.

    Idempotent: a second call with the same reviewers assigns only pairs drawn since (a top-up). Raises
    AssignmentError on bad arguments, and when overlap slots need a second reviewer but only one is named."""
    names = _check_reviewers(db, reviewers)
    if by not in ASSIGN_METHODS:
        raise AssignmentError(f"unknown assignment method {by!r}: use one of {', '.join(ASSIGN_METHODS)}")
    stamp = now_iso()
    with write(db):
        rules = sample_rules(db)
        if len(names) < 2 and any("overlap" in r for r in rules.values()):
            raise AssignmentError("overlap pairs need a second, different reviewer: name at least two reviewers")
        deal = _deal_order(db, rules)
        current = standing_assignments(db)
        standing: dict[Pair, set[str]] = defaultdict(set)
        for row in current_labels(db):
            standing[Pair(row["run_record_id"], row["constraint_id"])].add(row["reviewer"])
        seen: dict[Pair, set[str]] = defaultdict(set)
        for rid, cid, who in db.execute("SELECT DISTINCT run_record_id, constraint_id, reviewer FROM human_labels"):
            seen[Pair(rid, cid)].add(who)

        owner = _constraint_owners(deal, names) if by == "constraint" else {}
        turn = 0

        def next_in_turn(excluded: set[str]) -> str | None:
            nonlocal turn
            for k in range(len(names)):
                name = names[(turn + k) % len(names)]
                if name not in excluded:
                    turn = (turn + k + 1) % len(names)
                    return name
            return None

        rows: list[tuple] = []
        assigned = kept = unassigned = 0
        for pair in deal:
            need = 2 if "overlap" in rules[pair] else 1
            slots = dict(current.get(pair, {}))
            taken: set[str] = set()
            # Slots already labelled by their reviewer stay; so do open ones unless reassigning.
            for slot in sorted(slots):
                who = slots[slot]
                if slot > need:
                    del slots[slot]
                elif who in seen[pair] or not reassign:
                    taken.add(who)
                    if who not in seen[pair]:
                        kept += 1
                else:
                    del slots[slot]
            # A label given before the assignment holds a slot of its own: its reviewer is recorded there.
            early = sorted(standing[pair] - taken)
            for slot in range(1, need + 1):
                if slot in slots:
                    continue
                if early:
                    who, method = early.pop(0), "label"
                else:
                    excluded = taken | seen[pair]
                    if by == "constraint" and slot == 1 and owner.get(pair.constraint_id) not in excluded:
                        who = owner[pair.constraint_id]
                    else:
                        if by == "constraint":
                            excluded = excluded | {owner.get(pair.constraint_id, "")}
                        who = next_in_turn(excluded)
                        if who is None and by == "constraint":
                            who = next_in_turn(taken | seen[pair])
                    method = by
                    if who is None:
                        unassigned += 1
                        continue
                    assigned += 1
                slots[slot] = who
                taken.add(who)
                if current.get(pair, {}).get(slot) != who:
                    rows.append((pair.run_record_id, pair.constraint_id, slot, who, method, stamp))
        db.conn.executemany(
            "INSERT INTO assignments (run_record_id, constraint_id, slot, reviewer, method, assigned_at)"
            " VALUES (?,?,?,?,?,?)", rows)
    return AssignSummary(by, names, assigned, kept, unassigned)


def _deal_order(db: sqlite_utils.Database, rules: dict[Pair, frozenset[str]]) -> list[Pair]:
    """Every sampled pair: each population's random pairs in draw order (populations sorted), then the other
    sampled pairs sorted. The order pairs are dealt in, never the order they are served in."""
    out: dict[Pair, None] = {}
    for _pop, order in sorted(draw_orders(db).items()):
        for pair in order:
            out.setdefault(pair, None)
    for pair in sorted(rules):
        out.setdefault(pair, None)
    return list(out)


def _constraint_owners(deal: list[Pair], names: tuple[str, ...]) -> dict[str, str]:
    """constraint id -> its reviewer: largest constraint first, to the reviewer with the fewest pairs (ties by the
    order the reviewers were named)."""
    sizes = Counter(p.constraint_id for p in deal)
    load = {n: 0 for n in names}
    owners = {}
    for cid, n in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        who = min(names, key=lambda r: (load[r], names.index(r)))
        owners[cid] = who
        load[who] += n
    return owners


def assigned_reviewers(db: sqlite_utils.Database, pair: Pair) -> frozenset[str]:
    """The reviewers holding a slot on `pair` (empty when it is not assigned)."""
    return frozenset(standing_assignments(db, pair).get(Pair(*pair), {}).values())


def assignment_progress(db: sqlite_utils.Database) -> list[ReviewerProgress]:
    """Per reviewer (sorted by name): assigned slots and how many they have labelled."""
    standing: dict[Pair, set[str]] = defaultdict(set)
    for row in current_labels(db):
        standing[Pair(row["run_record_id"], row["constraint_id"])].add(row["reviewer"])
    rules = sample_rules(db)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for pair, slots in standing_assignments(db).items():
        overlap = "overlap" in rules.get(pair, ())
        for who in set(slots.values()):
            c = counts[who]
            done = who in standing[pair]
            c[0] += 1
            c[1] += done
            c[2] += overlap
            c[3] += overlap and done
    return [ReviewerProgress(who, *c) for who, c in sorted(counts.items())]


def reviewer_progress(db: sqlite_utils.Database, reviewer: str) -> ReviewerProgress | None:
    """`assignment_progress` of one reviewer (None when they hold no assignment). Cost grows with the sample and
    this reviewer's labels, not with run records or verdicts, so the Review page can call it on every rerun."""
    mine = {Pair(rid, cid) for rid, cid in db.execute(
        """SELECT a.run_record_id, a.constraint_id FROM assignments a
           JOIN (SELECT max(id) AS id FROM assignments GROUP BY run_record_id, constraint_id, slot) m ON m.id = a.id
           WHERE a.reviewer = ?""", [reviewer])}
    if not mine:
        return None
    labelled = {Pair(r["run_record_id"], r["constraint_id"]) for r in current_labels(db, reviewer=reviewer)}
    overlap = overlap_pairs(db)
    return ReviewerProgress(reviewer, len(mine), len(mine & labelled), len(mine & overlap),
                            len(mine & overlap & labelled))


def overlap_progress(db: sqlite_utils.Database) -> OverlapProgress:
    """The human–human target: every overlap pair needs blind first labels of two different reviewers (the labels
    the human–human agreement uses, `blind_first_labels`)."""
    # The overlap sample is read once per version of the sample (`overlap_pairs`), the labels on every call: a page
    # rerun's cost then grows with the labels, not with the sample.
    overlap = overlap_pairs(db)
    who: dict[Pair, set[str]] = defaultdict(set)
    for row in blind_first_labels(db):
        who[Pair(row["run_record_id"], row["constraint_id"])].add(row["reviewer"])
    return OverlapProgress(len(overlap), sum(len(w) >= 2 and p in overlap for p, w in who.items()))


def overlap_pairs(db: sqlite_utils.Database) -> frozenset[Pair]:
    """The overlap sample (pairs drawn under rule ``overlap``), memoised per database file under `review_version`:
    the Review page asks on every rerun, and the sample changes only when it is drawn."""
    return _memo(db, "overlap_pairs", review_version(db), lambda: frozenset(Pair(r, c) for r, c in db.execute(
        "SELECT run_record_id, constraint_id FROM samples WHERE rule = 'overlap'")))
