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
  table `evalset_feedback`. The app's button and `judgecal feedback` both call it, on any pair: a disagreement or a
  failing pair (`failing_pairs`).
- `failing_pairs` lists the pairs that failed: a mechanical check that did not pass, a failed run, or a reviewer's
  standing label `fail`.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import sqlite_utils

from judgecal.evalsets import EvalItem, Parsed, RunRecord, canonical_json, render_evidence
from judgecal.annotations.reports._calibration import (
    _as_set,
    human_labels_by_pair,
    kept_sample_rules,
    load_verdicts,
    majority_label,
    match_rubrics,
)
from judgecal.annotations.store import import_items, load_items, load_run
from judgecal.annotations.store import now_iso, write
from judgecal.annotations.reports._rubrics import label_split

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
        if self.judge_label is not None:
            return "disagreement"
        return "tie" if any(l is not None for l in self.repeat_labels) else "judge_error"


KINDS = ("disagreement", "tie", "judge_error")
NO_DECISION = "(undecided)"


def _output_text(record: RunRecord | None) -> str:
    """What the adjudicator reads: the run's evidence as the judge's prompt quotes it (render_evidence: trajectory
    steps with the final output marked, every turn of a conversation), not raw JSON."""
    if record is None or record.failed:
        error = record.error if record is not None else None
        return f"(no output: {error})" if error else "(no output)"
    return render_evidence(record)


def disagreements(db: sqlite_utils.Database, *, rubric: str | None = None, model: str | None = None,
                  constraint: str | Sequence[str] | None = None) -> list[Disagreement]:
    """Labelled pairs where a reviewer and the judge's majority differ, most-flipped first (see module docstring)."""
    rules = kept_sample_rules(db)
    humans = human_labels_by_pair(db, standing=True)
    rubric_rows = {r[0]: r for r in db.execute("SELECT sha256, name, version FROM rubrics")}
    decisions = {(r, c): d for r, c, d in db.execute(
        "SELECT run_record_id, constraint_id, decision FROM adjudications ORDER BY id")}
    sent = {(r, c): i for i, r, c in db.execute("SELECT item_id, run_record_id, constraint_id FROM evalset_feedback")}
    errors: dict[tuple[str, str, str, str], tuple[str, ...]] = defaultdict(tuple)
    for jm, sha, rid, cid, err in db.execute(
            # error IS NOT NULL is label IS NULL (a CHECK of the table); this form can use the partial index
            "SELECT judge_model, rubric_sha256, run_record_id, constraint_id, error FROM verdicts"
            " WHERE error IS NOT NULL ORDER BY repeat"):
        errors[(jm, sha, rid, cid)] += (err or "error (no cause recorded)",)
    rows: list[Disagreement] = []
    cache: dict[tuple[str, str], tuple] = {}
    for (jm, sha), verdicts in load_verdicts(db, rubrics=match_rubrics(db, rubric), model=model,
                                             constraints=_as_set(constraint), pairs=humans).items():
        for pair, v in verdicts.items():
            if pair not in humans:
                continue
            labels = [l for l in v.labels.values() if l is not None]
            maj = majority_label(labels)
            for h in humans[pair]:
                if maj is not None and h["label"] == maj:
                    continue
                if pair not in cache:
                    item_id, run_model, ctext = db.execute(
                        "SELECT r.item_id, r.model, c.text FROM run_records r"
                        " JOIN constraints c ON c.item_id = r.item_id AND c.id = ? WHERE r.id = ?",
                        [pair[1], pair[0]]).fetchone()
                    cache[pair] = item_id, run_model, ctext, _output_text(load_run(db, pair[0]))
                item_id, run_model, ctext, shown_output = cache[pair]
                reasons = [v.reason[r] for r in sorted(v.labels) if v.labels[r] == maj and v.reason.get(r)]
                reasons = reasons or [v.reason[r] for r in sorted(v.reason) if v.reason[r]]
                flip = 1 - max((labels.count(l) for l in set(labels)), default=0) / len(labels) if labels else 1.0
                rows.append(Disagreement(
                    jm, sha, rubric_rows[sha][1], rubric_rows[sha][2], pair[0], pair[1], item_id, run_model,
                    shown_output, ctext, maj, reasons[0] if reasons else None,
                    tuple(v.labels[r] for r in sorted(v.labels)), flip, h["label"], h["note"], h["reviewer"],
                    tuple(sorted(rules.get(pair, ()))), decisions.get(pair), sent.get(pair),
                    h.get("failure_mode"), errors.get((jm, sha, *pair), ())))
    rows.sort(key=lambda d: (KINDS.index(d.kind), -d.flip_share, d.judge_model, d.rubric_name, d.rubric_version, d.run_record_id,
                             d.constraint_id, d.reviewer))
    return rows


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
                     fixtures: dict[str, object] | None = None) -> str:
    # Fixtures join the hash only when present, so ids of items without them stay what they were.
    content = canonical_json({"instruction": instruction, "input": input_, "constraint": constraint_text,
                              **({"fixtures": fixtures} if fixtures else {})})
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
    item_id = feedback_item_id(source.instruction, source.input, c.text, source.fixtures)
    with write(db):
        if db.execute("SELECT 1 FROM eval_items WHERE id = ?", [item_id]).fetchone():
            return SentItem(item_id, False)
        decision = db.execute("SELECT decision FROM adjudications WHERE run_record_id = ? AND constraint_id = ?"
                              " ORDER BY id DESC LIMIT 1", [run_record_id, constraint_id]).fetchone()
        stamp = now_iso()
        extra = [FEEDBACK_TAG] + ([f"adjudicated:{decision[0]}"] if decision else []) + list(tags)
        item = EvalItem.model_validate({
            "id": item_id, "instruction": source.instruction, "input": source.input,
            "constraints": [c.model_dump(mode="json", exclude_none=True)], "reference": source.reference,
            "fixtures": source.fixtures,
            "source": "judgecal calibration", "scenario": source.scenario, "created_at": stamp,
            "derived_from": f"{source.id}/{run_record_id}/{constraint_id}",
            "tags": list(dict.fromkeys([*source.tags, *extra])), "split": split or label_split(source.id, source.split),
        })
        import_items(db, Parsed("calibration", [item], [0]))
        db.execute("INSERT INTO evalset_feedback VALUES (?,?,?,?,?,?,?)",
                   [item_id, source.id, run_record_id, constraint_id, (reason or "").strip(), who.strip(), stamp])
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


def failing_pairs(db: sqlite_utils.Database, *, limit: int | None = None) -> list[FailingPair]:
    """Pairs that failed, mechanically or by a reviewer's standing label, in run record / constraint order; one row
    per pair (the first reason found: check, failed run, human label)."""
    sent = {(r, c): i for i, r, c in db.execute("SELECT item_id, run_record_id, constraint_id FROM evalset_feedback")}
    why: dict[tuple[str, str], str] = {}
    for r, c, detail in db.execute("SELECT run_record_id, constraint_id, detail FROM check_results WHERE passed = 0"):
        why.setdefault((r, c), f"check: {detail}")
    for r, c, error in db.execute(
            "SELECT r.id, c.id, r.error FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
            " WHERE r.output IS NULL AND r.trajectory IS NULL"):
        why.setdefault((r, c), f"run failed: {error}")
    for pair, labels in human_labels_by_pair(db, standing=True).items():
        for h in labels:
            if h["label"] == "fail":
                why.setdefault(pair, f"labelled fail by {h['reviewer']}")
                break
    rows = []
    for pair in sorted(why)[:limit]:
        found = db.execute("SELECT r.item_id, r.model, c.text FROM run_records r JOIN constraints c"
                           " ON c.item_id = r.item_id AND c.id = ? WHERE r.id = ?", [pair[1], pair[0]]).fetchone()
        if found:
            rows.append(FailingPair(pair[0], pair[1], found[0], found[1], found[2], why[pair], sent.get(pair)))
    return rows


__all__ = ["DECISIONS", "FEEDBACK_TAG", "KINDS", "NO_DECISION", "Disagreement", "DisagreementFilter", "FailingPair",
           "SentItem", "adjudicate", "disagreements", "failing_pairs", "feedback_item_id", "filter_disagreements",
           "send_to_evalset"]
