"""Pairwise A vs B of two runs on the same items (issue 13.3). Room: reports (with the one store step that records
the pairs).

- `store_pairs` records, for every item both runs answered, a pairwise item `<item>#ab` (the item's instruction and
  input, one semantic constraint `preferred` with the pairwise label set, listing the item's own constraints) and a
  pair run record `<item>#ab/<RUN_A>/<RUN_B>` whose output shows A as output_1 and B as output_2 — the LLMBar
  import's shape (annotations/review/_llmbar.py), so the review queue, labels and verdicts need nothing new. Which run is A
  is in the record's model and run id, never in the text the judge or the reviewer reads.
- Verdicts come in both orders (judge/_runner.py plan_pairwise): repeat 2r shows A first, 2r+1 shows B first, every
  label stored mapped back to the A/B numbering.
- `pairwise_report`: per (comparison, repeat r) the two orders' labels. Position bias = the share of comparisons whose
  two orders disagree; of those, the share where the judge picked the first-shown output both times, with an exact
  (Clopper–Pearson) 95% interval. The preference rate for A counts only comparisons whose two orders agree (a
  position-flipped answer is no preference): A wins / (A wins + B wins), with its exact interval — a judge that always
  picks the first output has no consistent answers and so no preference rate, never a flattering 50%. Human labels on
  the same pair records give the reviewers' preference rate the same way (each reviewer's blind first label).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

import sqlite_utils
from judgecal.annotations.stats import beta_ppf

from judgecal.evalsets import EvalItem, Parsed, RunRecord
from judgecal.annotations.reports._calibration import human_labels_by_pair
from judgecal.annotations.store import import_items, import_runs, iter_runs, load_items
from judgecal.annotations.store import write

CONSTRAINT_ID = "preferred"
PAIR_TAG = "pairwise"
Z95 = 0.95


def pair_item_id(item_id: str) -> str:
    return f"{item_id}#ab"


def pair_record_id(item_id: str, run_a: str, run_b: str) -> str:
    return f"{pair_item_id(item_id)}/{run_a}/{run_b}"


PAIR_RUN_PREFIX = "pairwise:"
PAIR_SOURCE = "judgecal pairwise"


def pair_run_id(run_a: str, run_b: str) -> str:
    return f"{PAIR_RUN_PREFIX}{run_a}:{run_b}"


@dataclass(frozen=True)
class StoredPair:
    record: RunRecord  # the pair record (output: A as output_1, B as output_2)
    item: EvalItem  # the pairwise item
    output_a: str
    output_b: str


def _pair_item(item: EvalItem) -> EvalItem:
    rules = "\n".join(f"- {c.text}" for c in item.constraints)
    return EvalItem.model_validate({
        "id": pair_item_id(item.id), "instruction": item.instruction, "input": item.input,
        "constraints": [{"id": CONSTRAINT_ID, "type": "content", "labels": "pairwise",
                         "text": "Which output follows the instruction and meets these requirements better:\n" + rules}],
        "reference": item.reference, "scenario": item.scenario, "derived_from": item.id,
        "tags": [PAIR_TAG], "source": PAIR_SOURCE,
    })


def store_pairs(db: sqlite_utils.Database, run_a: str, run_b: str, render: Callable[[RunRecord], str],
                pair_text: Callable[[str, str], str]) -> list[StoredPair]:
    """Record the A-vs-B pairs of two runs (idempotent; one transaction). `render` turns a run record into the text
    the judge reads (the judge's renderer), `pair_text` shows two such texts as one. Raises ValueError for an unknown
    run, the same run twice, or runs with no item in common. A run's first record per item (import order) is its answer."""
    if run_a == run_b:
        raise ValueError("compare two different runs")
    firsts: dict[str, dict[str, RunRecord]] = {}
    for run in (run_a, run_b):
        records: dict[str, RunRecord] = {}
        for r in iter_runs(db, where="run_id = ?", params=[run]):
            records.setdefault(r.item_id, r)
        if not records:
            raise ValueError(f"no run records with run id {run!r}")
        firsts[run] = records
    common = sorted(set(firsts[run_a]) & set(firsts[run_b]))
    if not common:
        raise ValueError(f"runs {run_a!r} and {run_b!r} have no item in common")
    items = load_items(db, common)
    pairs: list[StoredPair] = []
    for item_id in common:
        a, b = firsts[run_a][item_id], firsts[run_b][item_id]
        text_a, text_b = render(a), render(b)
        record = RunRecord.model_validate({
            "id": pair_record_id(item_id, run_a, run_b), "item_id": pair_item_id(item_id),
            "model": f"{a.model} vs {b.model}", "run_id": pair_run_id(run_a, run_b),
            "output": pair_text(text_a, text_b),
        })
        pairs.append(StoredPair(record, _pair_item(items[item_id]), text_a, text_b))
    lines = list(range(1, len(pairs) + 1))
    with write(db):
        import_items(db, Parsed("pairwise", [p.item for p in pairs], lines))
        import_runs(db, Parsed("pairwise", [p.record for p in pairs], lines))
        db.conn.executemany("INSERT OR IGNORE INTO pairwise_outputs VALUES (?,?,?,?,?,?,?)", [
            (p.record.id, run_a, run_b, firsts[run_a][p.item.derived_from].id, firsts[run_b][p.item.derived_from].id,
             p.record.output, pair_text(p.output_b, p.output_a)) for p in pairs])
    return pairs


PAIR_SWAP = {"output_1": "output_2", "output_2": "output_1"}  # judge/_runner.py PAIR_SWAP (annotations cannot import it)


@dataclass(frozen=True)
class ReviewOrder:
    """How one reviewer sees one pair record: `swapped` = B shown as output_1. Labels are stored in the A/B numbering
    (output_1 = A), whatever the reviewer saw."""

    swapped: bool
    output: str

    def stored_label(self, shown_label: str) -> str:
        return PAIR_SWAP.get(shown_label, shown_label) if self.swapped else shown_label

    def shown_label(self, stored_label: str) -> str:
        return self.stored_label(stored_label)  # the swap is its own inverse


def review_order(db: sqlite_utils.Database, reviewer: str, run_record_id: str) -> ReviewOrder | None:
    """The order `reviewer` sees the pair record in (None: not a pairwise record). Random per reviewer and pair,
    stable across reruns: a hash of (reviewer, record), so two reviewers of the same pair often see different orders
    and no reviewer sees A first every time."""
    row = db.execute("SELECT shown_ab, shown_ba FROM pairwise_outputs WHERE run_record_id = ?",
                     [run_record_id]).fetchone()
    if row is None:
        return None
    swapped = hashlib.sha256(f"{reviewer}\0{run_record_id}".encode("utf-8")).digest()[0] & 1 == 1
    return ReviewOrder(swapped, row[1] if swapped else row[0])


@dataclass(frozen=True)
class Proportion:
    k: int
    n: int
    low: float | None
    high: float | None

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    def format(self) -> str:
        if not self.n:
            return "- (n = 0)"
        return f"{self.rate:.1%} [{self.low:.1%}, {self.high:.1%}] ({self.k}/{self.n})"


def clopper_pearson(k: int, n: int, level: float = Z95) -> Proportion:
    """Exact binomial interval (Clopper & Pearson 1934): beta quantiles, the endpoints 0 and 1 when k is 0 or n."""
    if n == 0:
        return Proportion(0, 0, None, None)
    a = (1 - level) / 2
    low = 0.0 if k == 0 else float(beta_ppf(a, k, n - k + 1))
    high = 1.0 if k == n else float(beta_ppf(1 - a, k + 1, n - k))
    return Proportion(k, n, low, high)


@dataclass(frozen=True)
class PairwiseReport:
    run_a: str
    run_b: str
    rubric_sha256: str
    judge_model: str
    pairs: int  # pair records
    compared: int  # (pair, repeat) with both orders labelled
    incomplete: int  # (pair, repeat) with an order missing or an error row: not compared
    order_disagree: Proportion  # of compared: the two orders disagree (position bias)
    first_both: Proportion  # of the disagreements: the first-shown output picked both times
    prefer_a: Proportion  # of compared with both orders agreeing: A preferred
    human_prefer_a: Proportion  # of human labels (each reviewer's blind first label): A preferred

    def format(self) -> str:
        return "\n".join([
            f"pairwise {self.run_a} (A) vs {self.run_b} (B): {self.pairs} items, judge {self.judge_model} "
            f"(rubric {self.rubric_sha256[:12]})",
            f"compared (both orders answered): {self.compared}" + (f"; {self.incomplete} incomplete (an order "
                                                                    "missing or an error row)" if self.incomplete else ""),
            f"position bias (orders disagree):  {self.order_disagree.format()}",
            f"  of those, first-shown picked both times: {self.first_both.format()}",
            f"judge prefers A (orders agree):   {self.prefer_a.format()}",
            f"humans prefer A:                  {self.human_prefer_a.format()}",
        ])

    def as_dict(self) -> dict:
        def p(x: Proportion) -> dict:
            return {"k": x.k, "n": x.n, "rate": x.rate, "ci_low": x.low, "ci_high": x.high}
        return {"run_a": self.run_a, "run_b": self.run_b, "rubric_sha256": self.rubric_sha256,
                "judge_model": self.judge_model, "pairs": self.pairs, "compared": self.compared,
                "incomplete": self.incomplete, "position_bias": p(self.order_disagree),
                "first_shown_both_times": p(self.first_both), "judge_prefers_a": p(self.prefer_a),
                "humans_prefer_a": p(self.human_prefer_a)}


def pairwise_report(db: sqlite_utils.Database, run_a: str, run_b: str, rubric_sha256: str,
                    judge_model: str) -> PairwiseReport:
    run_id = pair_run_id(run_a, run_b)
    records = [r[0] for r in db.execute("SELECT id FROM run_records WHERE run_id = ?", [run_id])]
    by_pair: dict[tuple[str, int], dict[int, str | None]] = {}
    for rid, repeat, label in db.execute(
            "SELECT v.run_record_id, v.repeat, v.label FROM verdicts v JOIN run_records r ON r.id = v.run_record_id"
            " WHERE r.run_id = ? AND v.constraint_id = ? AND v.rubric_sha256 = ? AND v.judge_model = ?",
            [run_id, CONSTRAINT_ID, rubric_sha256, judge_model]):
        by_pair.setdefault((rid, repeat // 2), {})[repeat % 2] = label
    compared = disagree = first_both = a_wins = consistent = incomplete = 0
    for orders in by_pair.values():
        original, swapped = orders.get(0), orders.get(1)
        if original is None or swapped is None:
            incomplete += 1
            continue
        compared += 1
        if original != swapped:
            disagree += 1
            # Stored mapped back: shown first was A in the original order, B in the swapped one.
            first_both += original == "output_1" and swapped == "output_2"
        else:
            consistent += 1
            a_wins += original == "output_1"
    humans = human_labels_by_pair(db)
    h = [row["label"] for rid in records for row in humans.get((rid, CONSTRAINT_ID), [])]
    return PairwiseReport(run_a, run_b, rubric_sha256, judge_model, len(records), compared, incomplete,
                          clopper_pearson(disagree, compared), clopper_pearson(first_both, disagree),
                          clopper_pearson(a_wins, consistent),
                          clopper_pearson(sum(x == "output_1" for x in h), len(h)))


__all__ = ["CONSTRAINT_ID", "PairwiseReport", "Proportion", "ReviewOrder", "StoredPair", "clopper_pearson",
           "pair_item_id", "pair_record_id", "pair_run_id", "pairwise_report", "review_order", "store_pairs"]
