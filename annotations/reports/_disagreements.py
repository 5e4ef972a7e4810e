"""Disagreements between judge and humans: list them, adjudicate them, and send them to the eval set.

- `disagreements` lists every labelled pair (random or targeted) where a reviewer's standing label differs from the
  judge's majority label (or the judge has no majority), per judge model × rubric version. Each row has a `kind`:
  `disagreement` (the judge gave a label and it differs from the human's), `tie` (labelled repeats tie) or
  `judge_error` (no repeat gave a label: every repeat is an error row, whose causes are in `error_causes`). Real
  disagreements come first, then ties, then judge errors; within a kind the most-flipped first. A judge error is a
  failure of the judge, not a disagreement about the output: the page lists those apart and offers no "send to eval
  set" on them. `filter_disagreements` narrows a list by constraint, model under test, failure mode and decision.
- `adjudicate` stores a decision — judge wrong, human wrong, rubric ambiguous, constraint ambiguous — with who and
  when (table `adjudications`; history kept, the latest decision on a pair stands).
- `send_to_evalset` turns a pair into a new eval item: the source item's instruction, input, fixtures and reference
  with the disputed constraint alone (its check, labels and expected level with it), `derived_from` =
  "<source item id>/<run record id>/<constraint id>", tags `from-calibration` (plus `adjudicated:<decision>` when
  decided), the split asked for, else the source's tune/heldout split (its own, or the one `label_split` gives it with
  seed 0), so a heldout case stays heldout. Its id is `cal-<sha256[:12]>` of (instruction, input, constraint text,
  and the fixtures when there are any), so the same content is never added twice. The note, who and when are kept in
  table `evalset_feedback`, one row per pair sent (a pair whose content is already there is sent to that item). The
  app's button and `judgecal feedback` both call it, on any pair: a disagreement or a failing pair (`failing_pairs`).
- `failing_pairs` lists the pairs that failed: a mechanical check that did not pass, a failed run, or a reviewer's
  standing label `fail`.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import json
import operator
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

import sqlite_utils

from judgecal.evalsets import LABEL_SETS, EvalItem, Parsed, RunRecord, canonical_json, render_evidence
from judgecal.annotations.reports._calibration import _as_set, kept_sample_rules, majority_label, match_rubrics
from judgecal.annotations.review import Pair, awaiting_blind_label, sample_rules
from judgecal.annotations.store import (PAIRS_IN_JSON, has_verdict_pairs, import_items, kept_for_tables, load_items,
                                        load_run, pairs_labelled_since, standing_labels_sql)
from judgecal.annotations.store import PATTERN_SQL, now_iso, pair_indexes, parse_pattern, write
from judgecal.annotations.reports._rubrics import label_split
from judgecal.annotations.reports._pairwise import PAIR_SOURCE

DECISIONS = ("judge_wrong", "human_wrong", "rubric_ambiguous", "constraint_ambiguous")
FEEDBACK_TAG = "from-calibration"


@dataclass(frozen=True)
class Disagreement:
    judge_model: str
    rubric_sha256: str
    rubric_name: str
    rubric_version: int
    run_record_id: str
    constraint_id: str
    item_id: str
    model: str
    output: str
    constraint_text: str
    judge_label: str | None  # None: the repeats tie or all failed
    judge_reason: str | None
    repeat_labels: tuple[str | None, ...]  # by repeat; None = error
    flip_share: float  # share of labelled repeats that disagree with the modal label
    human_label: str
    human_note: str | None
    reviewer: str
    rules: tuple[str, ...]
    decision: str | None
    sent_item_id: str | None
    failure_mode: str | None = None  # the reviewer's failure mode on the pair
    error_causes: tuple[str, ...] = ()  # the error of each repeat that gave no label, in repeat order

    @property
    def kind(self) -> str:
        """`disagreement`, `tie` or `judge_error` (see the module docstring)."""
        return KINDS[_kind_index(self.judge_label, self.repeat_labels)]


KINDS = ("disagreement", "tie", "judge_error")


def _kind_index(judge_label: str | None, repeat_labels: tuple[str | None, ...]) -> int:
    if judge_label is not None:
        return 0
    return 1 if any(l is not None for l in repeat_labels) else 2
NO_DECISION = "(undecided)"


def _output_text(record: RunRecord | None) -> str:
    """What the adjudicator reads: the run's evidence as the judge's prompt quotes it (render_evidence: trajectory
    steps with the final output marked, every turn of a conversation), not raw JSON."""
    if record is None or record.failed:
        error = record.error if record is not None else None
        return f"(no output: {error})" if error else "(no output)"
    return render_evidence(record)


class DisagreementKey(NamedTuple):
    """One row of the disagreement list without what only a shown card reads (the output, the constraint text, the
    judge's reasons, the sample rules, the decision): what the list is sorted, counted and filtered by. The first
    eight fields are the list's order (`kind` as its index in KINDS, the flip share negated)."""

    kind_index: int
    neg_flip: float
    judge_model: str
    rubric_name: str
    rubric_version: int
    run_record_id: str
    constraint_id: str
    reviewer: str
    rubric_sha256: str
    model: str  # the model under test
    human_label: str
    human_note: str | None
    failure_mode: str | None
    judge_label: str | None
    repeat_labels: tuple[str | None, ...]

    @property
    def kind(self) -> str:
        return KINDS[self.kind_index]

    @property
    def pair(self) -> tuple[str, str]:
        return (self.run_record_id, self.constraint_id)


class _Judged(NamedTuple):
    """What the list needs of a pair's repeats, the same for every pair with the same pattern."""

    repeat_labels: tuple[str | None, ...]
    judge_label: str | None
    flip_share: float
    kind_index: int


def _judged(repeat_labels: tuple[str | None, ...]) -> _Judged:
    labels = [l for l in repeat_labels if l is not None]
    maj = majority_label(labels)
    flip = 1 - max((labels.count(l) for l in set(labels)), default=0) / len(labels) if labels else 1.0
    return _Judged(repeat_labels, maj, flip, _kind_index(maj, repeat_labels))


def _pair_repeats(db: sqlite_utils.Database, jm: str, sha: str, rid: str, cid: str) -> list[tuple]:
    """(repeat, label, reason, error) of one judged pair, in repeat order (the verdicts' unique index)."""
    return list(db.execute(
        "SELECT repeat, label, reason, error FROM verdicts WHERE run_record_id = ? AND constraint_id = ?"
        " AND rubric_sha256 = ? AND judge_model = ? ORDER BY repeat", [rid, cid, sha, jm]))


_PAIRS_GROUPED = f"""(SELECT judge_model, rubric_sha256, run_record_id, constraint_id, count(*) AS n,
    {PATTERN_SQL} AS pattern
    FROM verdicts GROUP BY run_record_id, constraint_id, rubric_sha256, judge_model)"""


def disagreement_keys(db: sqlite_utils.Database, *, rubric: str | None = None, model: str | None = None,
                      constraint: str | Sequence[str] | None = None) -> tuple[DisagreementKey, ...]:
    """The disagreement list's rows in its order (see the module docstring), without the card's text: one join of
    the standing labels with the labelled pairs' stored patterns (`verdict_pairs`) and their run records' models.
    Kept under the versions of the tables it reads, so the page's rerun reads nothing."""
    args = (rubric, model, constraint if constraint is None or isinstance(constraint, str) else tuple(constraint))

    def update(kept: tuple[DisagreementKey, ...], since: int) -> tuple[DisagreementKey, ...] | None:
        touched = pairs_labelled_since(db, since)
        if touched is None:
            return None
        again = set(touched)
        rows = [k for k in kept if k.pair not in again]  # still in the list's order
        # the touched pairs' rows put in place, each after the rows of an equal order key as the stable sort of
        # `_disagreement_keys` puts them: a few binary searches, not a sort of the ~84k rows at a million run records
        for row in sorted(_disagreement_keys(db, rubric=rubric, model=model, constraint=constraint, pairs=touched),
                          key=_ORDER):
            bisect.insort_right(rows, row, key=_ORDER)
        return tuple(rows)

    return kept_for_tables(db, "disagreement_keys", args, _KEY_TABLES,
                           lambda: tuple(_disagreement_keys(db, rubric=rubric, model=model, constraint=constraint)),
                           appended=("human_labels", update))


_KEY_TABLES = ("verdicts", "human_labels", "run_records", "rubrics")


def _disagreement_keys(db: sqlite_utils.Database, *, rubric: str | None, model: str | None,
                       constraint: str | Sequence[str] | None,
                       pairs: list[tuple[str, str]] | None = None) -> list[DisagreementKey]:
    """The rows of every labelled pair in the list's order, or of `pairs` only (unsorted)."""
    where, params = [], []
    if pairs is not None:
        params.append(json.dumps(pairs))
    if model is not None:
        where.append("vp.judge_model = ?")
        params.append(model)
    for column, values in (("vp.rubric_sha256", match_rubrics(db, rubric)), ("vp.constraint_id", _as_set(constraint))):
        if values is not None:
            where.append(f"{column} IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(values)))
    judged_pairs = "verdict_pairs" if has_verdict_pairs(db) else _PAIRS_GROUPED
    sql = f"""
        SELECT vp.judge_model, vp.rubric_sha256, vp.run_record_id, vp.constraint_id, vp.n, vp.pattern,
               h.reviewer, h.label, h.note, h.failure_mode, r.model
        FROM ({standing_labels_sql(PAIRS_IN_JSON if pairs is not None else "")}) h
        JOIN {judged_pairs} vp ON vp.run_record_id = h.run_record_id AND vp.constraint_id = h.constraint_id
        JOIN run_records r{pair_indexes(db)[0]} ON r.id = h.run_record_id
        {"WHERE " + " AND ".join(where) if where else ""}"""  # r: the model from the covering index, not the row
    rubric_rows = {r[0]: (r[1], r[2]) for r in db.execute("SELECT sha256, name, version FROM rubrics")}
    judged: dict[str, _Judged] = {}  # a project has a few dozen patterns, however many pairs
    rows = []
    for jm, sha, rid, cid, n, text, reviewer, label, note, failure_mode, run_model in db.execute(sql, params):
        j = judged.get(text)
        if j is None:
            labels = parse_pattern(text, n)
            if labels is None:
                j = _judged(tuple(row[1] for row in _pair_repeats(db, jm, sha, rid, cid)))
            else:
                j = judged[text] = _judged(tuple(labels.values()))
        if j.judge_label is not None and label == j.judge_label:
            continue
        name, version = rubric_rows[sha]
        rows.append(DisagreementKey(j.kind_index, -j.flip_share, jm, name, version, rid, cid, reviewer, sha,
                                    run_model, label, note, failure_mode, j.judge_label, j.repeat_labels))
    if pairs is None:
        rows.sort(key=_ORDER)
    return rows


_ORDER = operator.itemgetter(slice(0, 8))  # a row's place in the list: its first eight fields (`DisagreementKey`)


class _Context(NamedTuple):
    """The pair-level facts a card shows beside its key: sample rules, the standing decision, the sent item."""

    rules: dict[tuple[str, str], frozenset[str]]
    decisions: dict[tuple[str, str], str]
    sent: dict[tuple[str, str], str]


def _decisions(db: sqlite_utils.Database) -> dict[tuple[str, str], str]:
    """The standing (latest) decision on each pair."""
    return {(r, c): d for r, c, d in db.execute(
        "SELECT run_record_id, constraint_id, decision FROM adjudications ORDER BY id")}


def _sent(db: sqlite_utils.Database) -> dict[tuple[str, str], str]:
    return {(r, c): i for i, r, c in db.execute("SELECT item_id, run_record_id, constraint_id FROM evalset_feedback")}


def disagreement_card(db: sqlite_utils.Database, key: DisagreementKey,
                      context: _Context | None = None) -> Disagreement:
    """The full row of one key: its run record's output, the constraint text, the judge's reasons and error causes
    (the pair's verdict rows, through the unique index), the sample rules, the decision and the sent item."""
    jm, sha, (rid, cid) = key.judge_model, key.rubric_sha256, key.pair
    item_id, ctext = db.execute(
        "SELECT r.item_id, c.text FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.id = ?"
        " WHERE r.id = ?", [cid, rid]).fetchone()
    repeats = _pair_repeats(db, jm, sha, rid, cid)
    maj = key.judge_label
    # the majority's reasons first (with no majority, those of error rows that carry one: the rule as it was)
    reasons = [reason for _r, label, reason, _e in repeats if label == maj and reason]
    reasons = reasons or [reason for _r, _l, reason, _e in repeats if reason]
    errors = tuple(error or "error (no cause recorded)" for _r, label, _reason, error in repeats if label is None)
    if context is None:
        rules = sample_rules(db, Pair(rid, cid)).get(Pair(rid, cid), frozenset())
        decision = db.execute("SELECT decision FROM adjudications WHERE run_record_id = ? AND constraint_id = ?"
                              " ORDER BY id DESC LIMIT 1", [rid, cid]).fetchone()
        decision = decision[0] if decision else None
        sent = db.execute("SELECT item_id FROM evalset_feedback WHERE run_record_id = ? AND constraint_id = ?"
                          " ORDER BY rowid DESC LIMIT 1", [rid, cid]).fetchone()  # as _sent: the last one
        sent = sent[0] if sent else None
    else:
        rules, decision, sent = (context.rules.get(key.pair, ()), context.decisions.get(key.pair),
                                 context.sent.get(key.pair))
    return Disagreement(
        jm, sha, key.rubric_name, key.rubric_version, rid, cid, item_id, key.model,
        _output_text(load_run(db, rid)), ctext, maj, reasons[0] if reasons else None, key.repeat_labels,
        -key.neg_flip, key.human_label, key.human_note, key.reviewer, tuple(sorted(rules)), decision, sent,
        key.failure_mode, errors)


def disagreements(db: sqlite_utils.Database, *, rubric: str | None = None, model: str | None = None,
                  constraint: str | Sequence[str] | None = None) -> list[Disagreement]:
    """Labelled pairs where a reviewer and the judge's majority differ, most-flipped first (see module docstring):
    every row with its card (the page builds only the cards it shows: `disagreement_page`)."""
    context = _Context(kept_sample_rules(db), _decisions(db), _sent(db))
    return [disagreement_card(db, k, context)
            for k in disagreement_keys(db, rubric=rubric, model=model, constraint=constraint)]


class DisagreementFilter(NamedTuple):
    """What the disagreement list is narrowed to; None = any. `decision` may be NO_DECISION (not yet decided)."""

    constraint: str | None = None
    model: str | None = None  # the model under test
    failure_mode: str | None = None
    decision: str | None = None


def filter_disagreements(rows: Sequence[Disagreement], f: DisagreementFilter) -> list[Disagreement]:
    """The rows matching every set field of `f`, order kept."""
    def keep(d: Disagreement) -> bool:
        return ((f.constraint is None or d.constraint_id == f.constraint)
                and (f.model is None or d.model == f.model)
                and (f.failure_mode is None or d.failure_mode == f.failure_mode)
                and (f.decision is None or (d.decision or NO_DECISION) == f.decision))
    return [d for d in rows if keep(d)]


class DisagreementPage(NamedTuple):
    """What the Calibration page shows of the disagreement list for one reviewer: the rows not waiting for their
    blind label, split into real disagreements (and ties) and judge errors, the filter choices over the real ones,
    and the judge errors' causes (each pair's causes in repeat order, aligned with `failed`)."""

    n_hidden: int
    real: tuple[DisagreementKey, ...]
    failed: tuple[DisagreementKey, ...]
    failed_causes: tuple[tuple[str, ...], ...]
    constraints: tuple[str, ...]
    models: tuple[str, ...]
    failure_modes: tuple[str, ...]

    def cause_counts(self) -> Counter:
        """Pairs per cause (a pair counted once per cause)."""
        return Counter(c for causes in self.failed_causes for c in set(causes))


def disagreement_page(db: sqlite_utils.Database, reviewer: str | None, *, rubric: str | None = None,
                      model: str | None = None, constraint: str | None = None) -> DisagreementPage:
    """The disagreement list as `reviewer` may see it (`awaiting_blind_label` hides pairs still waiting for their
    blind label), kept under the versions of the tables it reads."""
    def compute() -> DisagreementPage:
        keys = disagreement_keys(db, rubric=rubric, model=model, constraint=constraint)
        hidden = awaiting_blind_label(db, reviewer)
        visible = [k for k in keys if k.pair not in hidden]
        real = tuple(k for k in visible if k.kind_index != 2)
        failed = tuple(k for k in visible if k.kind_index == 2)
        return DisagreementPage(len(keys) - len(visible), real, failed, _error_causes(db, failed),
                                tuple(sorted({k.constraint_id for k in real})), tuple(sorted({k.model for k in real})),
                                tuple(sorted({k.failure_mode for k in real if k.failure_mode})))
    return kept_for_tables(db, "disagreement_page", (reviewer, rubric, model, constraint), (*_KEY_TABLES, "samples"),
                           compute)


def _error_causes(db: sqlite_utils.Database, keys: Sequence[DisagreementKey]) -> tuple[tuple[str, ...], ...]:
    """Each key's error causes in repeat order: read for the pairs not read before under the verdicts' version (one
    read of their error rows through the unique index), so a new label reads at most its own pair's."""
    known: dict[tuple[str, str, str, str], tuple[str, ...]] = kept_for_tables(db, "error_causes", (), ("verdicts",),
                                                                               dict)
    # membership tests, not a view over the dict another session's thread may be growing
    missing = {w for w in ((k.run_record_id, k.constraint_id, k.rubric_sha256, k.judge_model) for k in keys)
               if w not in known}
    if missing:
        found = _read_error_causes(db, sorted(missing))
        with _CAUSES_LOCK:  # the kept dict only grows, by values that depend on the verdicts alone
            known.update(found)
    return tuple(known[(k.run_record_id, k.constraint_id, k.rubric_sha256, k.judge_model)] for k in keys)


_CAUSES_LOCK = threading.Lock()


def _read_error_causes(db: sqlite_utils.Database, keys: list[tuple[str, str, str, str]]
                       ) -> dict[tuple[str, str, str, str], tuple[str, ...]]:
    wanted = json.dumps(keys)
    causes: dict[tuple[str, str, str, str], tuple[str, ...]] = {key: () for key in keys}
    for rid, cid, sha, jm, error in db.execute(
            "SELECT v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model, v.error FROM json_each(?) w"
            " JOIN verdicts v ON v.run_record_id = json_extract(w.value, '$[0]')"
            " AND v.constraint_id = json_extract(w.value, '$[1]') AND v.rubric_sha256 = json_extract(w.value, '$[2]')"
            " AND v.judge_model = json_extract(w.value, '$[3]') WHERE v.label IS NULL ORDER BY v.repeat", [wanted]):
        key = (rid, cid, sha, jm)
        causes[key] += (error or "error (no cause recorded)",)
    return causes


class ShownDisagreements(NamedTuple):
    """The rows a filter of the list matches (`count`, `ties` of them) and the cards of the first ones."""

    count: int
    ties: int
    cards: tuple[Disagreement, ...]


def shown_disagreements(db: sqlite_utils.Database, page: DisagreementPage, f: DisagreementFilter, *,
                        limit: int, key: tuple = ()) -> ShownDisagreements:
    """`filter_disagreements` over the page's real rows, with cards built for the first `limit` only (their output,
    reasons, rules, decision: a few look-ups each). `key`: what `page` was computed for (reviewer and report
    filters): with it the result is kept under the versions of every table a card reads."""
    def compute() -> ShownDisagreements:
        decisions = _decisions(db) if f.decision is not None else {}

        def keep(d: DisagreementKey) -> bool:
            return ((f.constraint is None or d.constraint_id == f.constraint)
                    and (f.model is None or d.model == f.model)
                    and (f.failure_mode is None or d.failure_mode == f.failure_mode)
                    and (f.decision is None or decisions.get(d.pair, NO_DECISION) == f.decision))
        matched = [d for d in page.real if keep(d)]
        return ShownDisagreements(len(matched), sum(d.kind_index == 1 for d in matched),
                                  tuple(disagreement_card(db, d) for d in matched[:limit]))
    if not key:
        return compute()
    return kept_for_tables(db, "shown_disagreements", (*key, tuple(f), limit), (*_KEY_TABLES, "samples",
                           "constraints", "adjudications", "evalset_feedback"), compute)


def adjudicate(db: sqlite_utils.Database, run_record_id: str, constraint_id: str, decision: str, *, who: str,
               note: str | None = None, rubric_sha256: str | None = None, judge_model: str | None = None) -> int:
    """Store a decision on a disagreement (one of DECISIONS). Returns the new row id. Raises ValueError for an
    unknown decision, an empty `who` or a pair that does not exist."""
    if decision not in DECISIONS:
        raise ValueError(f"decision must be one of {list(DECISIONS)}, got {decision!r}")
    if not (who or "").strip():
        raise ValueError("who decided? give a name")
    _source(db, run_record_id, constraint_id)
    with write(db):
        cur = db.conn.execute(
            "INSERT INTO adjudications (run_record_id, constraint_id, rubric_sha256, judge_model, decision, note, who,"
            " created_at) VALUES (?,?,?,?,?,?,?,?)",
            (run_record_id, constraint_id, rubric_sha256, judge_model, decision, (note or "").strip() or None,
             who.strip(), now_iso()))
    return int(cur.lastrowid)


def _source(db: sqlite_utils.Database, run_record_id: str, constraint_id: str) -> tuple[EvalItem, int]:
    row = db.execute("SELECT item_id FROM run_records WHERE id = ?", [run_record_id]).fetchone()
    if row is None:
        raise ValueError(f"no run record {run_record_id!r}")
    item = load_items(db, [row[0]])[row[0]]
    for k, c in enumerate(item.constraints):
        if c.id == constraint_id:
            return item, k
    raise ValueError(f"no constraint {constraint_id!r} on run record {run_record_id!r}")


@dataclass(frozen=True)
class SentItem:
    item_id: str
    added: bool  # False: an item with the same instruction, input and constraint text was already there


def feedback_item_id(instruction: str, input_: object, constraint_text: str,
                     fixtures: dict[str, object] | None = None, turns: Sequence[str] | None = None) -> str:
    # Fixtures and a conversation's turns join the hash only when present, so ids of items without them stay what
    # they were (two conversations with one opening message and different follow-ups made one id: a review, wave 14).
    content = canonical_json({"instruction": instruction, "input": input_, "constraint": constraint_text,
                              **({"fixtures": fixtures} if fixtures else {}),
                              **({"turns": list(turns)} if turns else {})})
    return "cal-" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:12]


def send_to_evalset(db: sqlite_utils.Database, run_record_id: str, constraint_id: str, *, who: str,
                    reason: str | None = None, tags: Sequence[str] = (), split: str | None = None) -> SentItem:
    """Add the pair as a new eval item with provenance (see the module docstring). One transaction. Raises ValueError
    for an empty `who`, an unknown run record or constraint, or a split other than tune/heldout."""
    if not (who or "").strip():
        raise ValueError("give who sends it")
    if split is not None and split not in ("tune", "heldout"):
        raise ValueError(f"split must be tune or heldout, got {split!r}")
    source, k = _source(db, run_record_id, constraint_id)
    c = source.constraints[k]
    if source.source == PAIR_SOURCE or c.labels == LABEL_SETS["pairwise"]:
        # an A-vs-B comparison (`judge --pairwise`, an imported LLMBar pair) has no output of its own to run: as an
        # eval item, `run` executed it and the judge scored one output on "which of two is better" (a review, wave 14)
        raise ValueError(f"{run_record_id!r} × {constraint_id!r} is an A-vs-B comparison ({source.id}), not a run of "
                         "an eval item: send the compared runs' own pairs to the eval set instead")
    item_id = feedback_item_id(source.instruction, source.input, c.text, source.fixtures, source.turns)
    with write(db):  # (read inside the write lock: two sends of one pair store one row)
        sent = db.execute("SELECT item_id FROM evalset_feedback WHERE run_record_id = ? AND constraint_id = ?",
                          [run_record_id, constraint_id]).fetchone()
        if sent is not None:
            return SentItem(sent[0], False)  # sent before (whatever id the item would get now: ids gained the turns)
        stamp = now_iso()
        provenance = [item_id, source.id, run_record_id, constraint_id, (reason or "").strip(), who.strip(), stamp]
        if db.execute("SELECT 1 FROM eval_items WHERE id = ?", [item_id]).fetchone():
            # Another pair of the same content made it (the other agent's run of the item, another repeat): this
            # pair's note and author are kept too, and it is sent (a review, wave 18: both were lost).
            db.execute("INSERT INTO evalset_feedback VALUES (?,?,?,?,?,?,?)", provenance)
            return SentItem(item_id, False)
        decision = db.execute("SELECT decision FROM adjudications WHERE run_record_id = ? AND constraint_id = ?"
                              " ORDER BY id DESC LIMIT 1", [run_record_id, constraint_id]).fetchone()
        extra = [FEEDBACK_TAG] + ([f"adjudicated:{decision[0]}"] if decision else []) + list(tags)
        item = EvalItem.model_validate({
            "id": item_id, "instruction": source.instruction, "input": source.input,
            "constraints": [c.model_dump(mode="json", exclude_none=True)], "reference": source.reference,
            "fixtures": source.fixtures, "turns": source.turns,
            "source": "judgecal calibration", "scenario": source.scenario, "created_at": stamp,
            "derived_from": f"{source.id}/{run_record_id}/{constraint_id}",
            "tags": list(dict.fromkeys([*source.tags, *extra])), "split": split or label_split(source.id, source.split),
        })
        import_items(db, Parsed("calibration", [item], [0]))
        db.execute("INSERT INTO evalset_feedback VALUES (?,?,?,?,?,?,?)", provenance)
    return SentItem(item_id, True)


@dataclass(frozen=True)
class FailingPair:
    run_record_id: str
    constraint_id: str
    item_id: str
    model: str
    constraint_text: str
    why: str  # "check: <detail>", "run failed: <error>" or "labelled fail by <reviewer>"
    sent_item_id: str | None


def failing_pairs(db: sqlite_utils.Database, *, limit: int | None = None,
                  hidden: frozenset[tuple[str, str]] | set[tuple[str, str]] = frozenset()) -> list[FailingPair]:
    """Pairs that failed, mechanically or by a reviewer's standing label, in run record / constraint order; one row
    per pair (the first reason found: check, failed run, human label); the first `limit` not in `hidden`."""
    rows = []
    for pair, why in _failing_order(db):
        if limit is not None and len(rows) >= limit:
            break
        if pair in hidden:
            continue
        found = db.execute("SELECT r.item_id, r.model, c.text FROM run_records r JOIN constraints c"
                           " ON c.item_id = r.item_id AND c.id = ? WHERE r.id = ?", [pair[1], pair[0]]).fetchone()
        sent = db.execute("SELECT item_id FROM evalset_feedback WHERE run_record_id = ? AND constraint_id = ?"
                          " ORDER BY rowid DESC LIMIT 1", pair).fetchone()
        rows.append(FailingPair(pair[0], pair[1], found[0], found[1], found[2], why, sent[0] if sent else None))
    return rows


class FailingCount(NamedTuple):
    """How many pairs failed, and how many of them a reviewer may see (not waiting for their blind label)."""

    total: int
    shown_to: int


def failing_count(db: sqlite_utils.Database, hidden: frozenset[tuple[str, str]] = frozenset()) -> FailingCount:
    """`len(failing_pairs(db))`, and without the pairs in `hidden`, without building a row."""
    mechanical, labelled = _mechanical_failures(db), _label_failures(db)
    extra = [p for p in labelled if p not in mechanical]
    total = len(mechanical) + len(extra)
    small, large = (hidden, mechanical) if len(hidden) <= len(mechanical) else (mechanical, hidden)
    hidden_failing = sum(1 for p in small if p in large) + sum(1 for p in extra if p in hidden)
    return FailingCount(total, total - hidden_failing)


def _failing_order(db: sqlite_utils.Database) -> Iterator[tuple[tuple[str, str], str]]:
    """(pair, why) of every failing pair in pair order: the mechanical failures (kept: checks and runs change
    rarely) merged with the pairs only a standing `fail` label makes failing (read again after a label)."""
    mechanical, labelled = _mechanical_failures(db), _label_failures(db)
    extra = sorted((p, why) for p, why in labelled.items() if p not in mechanical)
    return heapq.merge(_sorted_items(db, mechanical), extra)


def _sorted_items(db: sqlite_utils.Database, mechanical: dict) -> list[tuple[tuple[str, str], str]]:
    return kept_for_tables(db, "failing_sorted", (), _MECHANICAL_TABLES, lambda: sorted(mechanical.items()))


_MECHANICAL_TABLES = ("check_results", "run_records", "constraints")


def _mechanical_failures(db: sqlite_utils.Database) -> dict[tuple[str, str], str]:
    """pair -> why, for a check that did not pass (first) or a failed run, over pairs whose run record and
    constraint exist (a row the list could not show is not counted)."""
    def compute() -> dict[tuple[str, str], str]:
        why: dict[tuple[str, str], str] = {}
        for r, c, detail in db.execute(
                "SELECT k.run_record_id, k.constraint_id, k.detail FROM check_results k WHERE k.passed = 0"
                " AND EXISTS (SELECT 1 FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                " AND c.id = k.constraint_id WHERE r.id = k.run_record_id)"):
            why.setdefault((r, c), f"check: {detail}")
        for r, c, error in db.execute(
                "SELECT r.id, c.id, r.error FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                " WHERE r.output IS NULL AND r.trajectory IS NULL"):
            why.setdefault((r, c), f"run failed: {error}")
        return why
    return kept_for_tables(db, "mechanical_failures", (), _MECHANICAL_TABLES, compute)


def _label_failures(db: sqlite_utils.Database) -> dict[tuple[str, str], str]:
    """pair -> "labelled fail by <reviewer>" for pairs with a standing `fail` label (of an existing run record and
    constraint): the reviewer who labelled the pair first among those whose standing label is fail. New labels are
    applied to their own pairs."""
    def update(kept: dict[tuple[str, str], str], since: int) -> dict[tuple[str, str], str] | None:
        touched = pairs_labelled_since(db, since)
        if touched is None:
            return None
        again = set(touched)
        return {**{p: why for p, why in kept.items() if p not in again}, **_label_failures_of(db, touched)}

    return kept_for_tables(db, "label_failures", (), ("human_labels", "run_records", "constraints"),
                           lambda: _label_failures_of(db), appended=("human_labels", update))


def _label_failures_of(db: sqlite_utils.Database, pairs: list[tuple[str, str]] | None = None
                       ) -> dict[tuple[str, str], str]:
    first: dict[tuple[str, str], tuple[int, str]] = {}
    for r, c, reviewer, since in db.execute(f"""
            SELECT h.run_record_id, h.constraint_id, h.reviewer,
                   (SELECT min(id) FROM human_labels f WHERE f.run_record_id = h.run_record_id
                    AND f.constraint_id = h.constraint_id AND f.reviewer = h.reviewer)
            FROM ({standing_labels_sql(PAIRS_IN_JSON if pairs is not None else "")}) h WHERE h.label = 'fail'
            AND EXISTS (SELECT 1 FROM run_records r JOIN constraints c ON c.item_id = r.item_id
                        AND c.id = h.constraint_id WHERE r.id = h.run_record_id)""",
            [json.dumps(pairs)] if pairs is not None else []):
        if (r, c) not in first or since < first[(r, c)][0]:
            first[(r, c)] = (since, reviewer)
    return {pair: f"labelled fail by {reviewer}" for pair, (_since, reviewer) in first.items()}


class FailingPage(NamedTuple):
    """The failing pairs a reviewer may see: how many, and the first rows."""

    count: FailingCount
    rows: tuple[FailingPair, ...]


def failing_page(db: sqlite_utils.Database, reviewer: str | None, *, limit: int) -> FailingPage:
    """`failing_pairs` without the pairs waiting for `reviewer`'s blind label: their count and the first `limit`
    rows, kept under the versions of the tables they are read from."""
    def compute() -> FailingPage:
        hidden = awaiting_blind_label(db, reviewer)
        return FailingPage(failing_count(db, hidden), tuple(failing_pairs(db, limit=limit, hidden=hidden)))
    return kept_for_tables(db, "failing_page", (reviewer, limit), (*_MECHANICAL_TABLES, "human_labels", "samples",
                           "evalset_feedback"), compute)


__all__ = ["DECISIONS", "FEEDBACK_TAG", "KINDS", "NO_DECISION", "Disagreement", "DisagreementFilter",
           "DisagreementKey", "DisagreementPage", "FailingCount", "FailingPage", "FailingPair", "SentItem",
           "ShownDisagreements", "adjudicate", "disagreement_card", "disagreement_keys", "disagreement_page",
           "disagreements", "failing_count", "failing_page", "failing_pairs", "feedback_item_id",
           "filter_disagreements", "send_to_evalset", "shown_disagreements"]
