"""Rubric tuning: compare two rubric versions on the same human-labelled pairs, with a tune / heldout split.

Workflow: edit the rubric, re-judge only the labelled pairs (`judgecal judge --rubric FILE --only-labelled`), then
`judgecal report --compare OLD NEW`. Both versions are read as the calibration report and the gate read a judge
(a review, wave 17, found the comparison reading them otherwise):

- Pairs: by default the counted random pairs (`counted_rules`: the random sample's blind first labels, the prefix of
  the draw order the gate counts) that either version judged. `random_only=False` (`--include-non-random`) adds every
  other labelled pair (targeted, beyond the counted prefix, never sampled): pairs an author may have chosen, and
  labelled, after reading B's verdicts; the random-only row is then given beside (`random_only_all`). The compared
  pairs are counted by sample rule (`compared_by_rule`) and by whether their label was made after B was created.
- Human label: the first reviewer's blind first label of each pair, as in the calibration report.
- Judge label: the majority over the repeats EVERY judged pair of that version has (`common_repeats` over the
  version's whole population, as the report does); a tie, a pair without a valid repeat, or a pair the version did
  not judge is the judge label `abstain`, a disagreement (the report's rule). Each version's `VersionMajority` counts
  them and names the repeats used and the repeat rows ignored.

Split: every eval item is `tune` or `heldout`: the item's own `split` when set, else a deterministic draw from
sha256(seed, item id) with P(tune) = `tune_share` (default 0.7); `split_rule` says which held for the compared items.
Tune on `tune`, confirm on `heldout`; the comparison warns when the new version improves kappa on tune but not on
heldout (overfitting the rubric to the labelled cases), and says instead that the heldout row cannot show it either
way when it has fewer than `HELDOUT_MIN_N` pairs.

Flips: `fixed` = wrong under A, right under B; `broken` = right under A, wrong under B (an abstention is wrong).
McNemar's exact test on (fixed, broken) says whether the change in accuracy is more than chance.
Cost: the verdict tokens of each version on the compared pairs (all repeats), priced with the judge model's price
from the settings table (key `price:<judge model>`, set by `judgecal price`) when one is stored; the tokens of
verdicts landed from a Batch API job at the batch price (`Price.batch_api`).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

import sqlite_utils

from judgecal.annotations import stats as agr
from judgecal.annotations.review import PAIRED, sample_rules
from judgecal.annotations.store import get_price, instant
from judgecal.annotations.reports._calibration import (
    ABSTAIN,
    Agreement,
    Pair,
    _clean,
    _label_order,
    _majority_of,
    agreement,
    common_repeats,
    counted_rules,
    human_labels_by_pair,
    load_verdicts,
    match_rubrics,
    pair_info,
)

DEFAULT_TUNE_SHARE = 0.70
SPLITS = ("all", "tune", "heldout")
# Below this many compared heldout pairs the heldout row can show no overfitting, and no absence of it either.
HELDOUT_MIN_N = 10
# How a compared pair was sampled (`compared_by_rule`), in the order printed: counted random pairs first.
SAMPLE_RULES = ("random", "random_beyond_prefix", "targeted", "paired", "not_sampled")
_RULE_WORDS = {"random": "counted random", "random_beyond_prefix": "random beyond the counted prefix",
               "targeted": "targeted", "paired": "paired-sample only", "not_sampled": "not sampled"}


def label_split(item_id: str, item_split: str | None = None, *, seed: int = 0,
                tune_share: float = DEFAULT_TUNE_SHARE) -> str:
    """`tune` or `heldout` for an eval item: its own split when set, else by hash of (seed, item id)."""
    if item_split in ("tune", "heldout"):
        return item_split
    if not 0 <= tune_share <= 1:
        raise ValueError(f"tune_share must be in [0, 1], got {tune_share}")
    u = int.from_bytes(hashlib.sha256(f"{seed}\x1f{item_id}".encode()).digest()[:8], "big") / 2 ** 64
    return "tune" if u < tune_share else "heldout"


def item_splits(db: sqlite_utils.Database, *, seed: int = 0, tune_share: float = DEFAULT_TUNE_SHARE) -> dict[str, str]:
    return {i: label_split(i, s, seed=seed, tune_share=tune_share)
            for i, s in db.execute("SELECT id, split FROM eval_items")}


@dataclass(frozen=True)
class VersionCost:
    rubric_sha256: str
    name: str
    version: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when no price is stored for the judge model


@dataclass(frozen=True)
class VersionMajority:
    """How a version's judge label was read, as the calibration report reads it: the majority over the repeats every
    pair of the version has (`repeats_used`; `ignored_repeat_rows` rows of other repeats left out, over the version's
    whole population), and on the compared pairs how many had no majority (`tie`, `no_valid`: no repeat gave a label)
    or no verdict of this version (`not_judged`): each is the judge label `abstain`, a disagreement."""
    repeats_used: tuple[int, ...]
    ignored_repeat_rows: int
    tie: int
    no_valid: int
    not_judged: int

    @property
    def abstained(self) -> int:
        return self.tie + self.no_valid + self.not_judged


@dataclass(frozen=True)
class SplitComparison:
    split: str
    n: int
    a: Agreement | None
    b: Agreement | None
    kappa_delta: float
    fixed: int
    broken: int
    mcnemar_p: float


@dataclass(frozen=True)
class Flip:
    run_record_id: str
    constraint_id: str
    item_id: str
    split: str
    human: str
    label_a: str
    label_b: str
    kind: str  # fixed | broken


@dataclass(frozen=True)
class RubricComparison:
    judge_model: str
    a: VersionCost
    b: VersionCost
    seed: int
    tune_share: float
    random_only: bool  # True (the default): only the counted random pairs are compared
    labelled: int  # the compared pairs: labelled pairs of the basis that either version judged
    # compared pairs without a majority label under A or B: since wave 17 scored as `abstain`, not left out (the
    # name predates that rule, as the report's `excluded_tie`)
    excluded: int
    splits: tuple[SplitComparison, ...]
    flips: tuple[Flip, ...]
    warning: str | None
    majority_a: VersionMajority | None = None
    majority_b: VersionMajority | None = None
    # the compared pairs by how they were sampled (`SAMPLE_RULES`), and how many of them were labelled (the first
    # reviewer's blind first label) at or after B's creation
    compared_by_rule: dict[str, int] = field(default_factory=dict)
    labelled_after_b: int = 0
    # with random_only False: the "all" row on the counted random pairs alone, the gate's basis, printed beside it
    random_only_all: SplitComparison | None = None
    # "own" (every compared item carries its own split: seed and tune share changed nothing), "seeded" (none does),
    # "mixed"; `items_with_own_split` of `items_compared`
    split_rule: str = "seeded"
    items_compared: int = 0
    items_with_own_split: int = 0

    def to_dict(self) -> dict[str, Any]:
        return _clean(asdict(self))


def _one(db: sqlite_utils.Database, spec: str) -> str:
    shas = match_rubrics(db, spec)
    if len(shas) > 1:
        rows = db.execute(f"SELECT sha256 FROM rubrics WHERE sha256 IN ({','.join('?' * len(shas))})"
                          " ORDER BY version DESC LIMIT 1", sorted(shas)).fetchone()
        return rows[0]  # a bare name means its latest version
    return next(iter(shas))


def _judge_models_of_both(db: sqlite_utils.Database, sha_a: str, sha_b: str) -> list[str]:
    return [m for (m,) in db.execute(
        "SELECT judge_model FROM verdicts WHERE rubric_sha256 IN (?, ?) GROUP BY judge_model"
        " HAVING count(DISTINCT rubric_sha256) = 2 ORDER BY judge_model", [sha_a, sha_b])]


def _rule_of(pair: Pair, random: set[Pair], raw: dict[Pair, frozenset[str]]) -> str:
    # the report's reading of labels that do not count (`_non_random`), the counted random pairs apart
    if pair in random:
        return "random"
    r = raw.get(pair, ())
    if "random" in r:
        return "random_beyond_prefix"
    if "targeted" in r:
        return "targeted"
    if PAIRED in r:
        return "paired"
    return "targeted" if r else "not_sampled"


def _split_row(name: str, r: list[tuple], info: dict) -> SplitComparison:
    order = _label_order(info[p].labels for p, *_ in r)
    a = agreement([x[1] for x in r], [x[3] for x in r], order)
    b = agreement([x[2] for x in r], [x[3] for x in r], order)
    fixed = sum(x[1] != x[3] and x[2] == x[3] for x in r)
    broken = sum(x[1] == x[3] and x[2] != x[3] for x in r)
    delta = (b.kappa - a.kappa) if a and b else math.nan
    return SplitComparison(name, len(r), a, b, delta, fixed, broken, agr.mcnemar_exact(fixed, broken))


def compare_rubrics(db: sqlite_utils.Database, rubric_a: str, rubric_b: str, *, judge_model: str | None = None,
                    seed: int = 0, tune_share: float = DEFAULT_TUNE_SHARE,
                    random_only: bool = True) -> RubricComparison:
    """Compare rubric version A (old) with B (new) on the same human-labelled pairs (see the module docstring).
    Rubrics are given as in `calibration_report` (a bare name = its latest version). Raises ValueError for an unknown
    rubric, A and B the same version, a judge model without verdicts under both, or an ambiguous judge model."""
    sha_a, sha_b = _one(db, rubric_a), _one(db, rubric_b)
    if sha_a == sha_b:
        raise ValueError(f"{rubric_a!r} and {rubric_b!r} are the same rubric version ({sha_a[:12]}): name two versions")
    models = _judge_models_of_both(db, sha_a, sha_b)
    if judge_model is None:
        if len(models) != 1:
            raise ValueError(f"the two rubric versions share judge models {models}: name one (judge_model=)"
                             if models else "no judge model has verdicts under both rubric versions")
        judge_model = models[0]
    elif judge_model not in models:
        raise ValueError(f"judge model {judge_model!r} has no verdicts under both rubric versions"
                         + (f" (judge models that have: {', '.join(models)})" if models else
                            " (no judge model has)"))
    verdicts = load_verdicts(db, rubrics={sha_a, sha_b}, model=judge_model, reasons=False)
    info = pair_info(db)
    # each version's judge as the report reads it: its semantic pairs on the repeats every one of them has
    va, ignored_a = common_repeats({p: v for p, v in verdicts.get((judge_model, sha_a), {}).items() if p in info})
    vb, ignored_b = common_repeats({p: v for p, v in verdicts.get((judge_model, sha_b), {}).items() if p in info})
    raw = sample_rules(db)
    rules = counted_rules(db, raw_rules=raw)
    label_rows = human_labels_by_pair(db)
    humans = {p: rows[0]["label"] for p, rows in label_rows.items()}
    random = {p for p in humans if "random" in rules.get(p, ())}
    own = dict(db.execute("SELECT id, split FROM eval_items").fetchall())
    splits = {i: label_split(i, s, seed=seed, tune_share=tune_share) for i, s in own.items()}
    born_b = instant(db.execute("SELECT created_at FROM rubrics WHERE sha256 = ?", [sha_b]).fetchone()[0])
    rows: dict[str, list[tuple]] = defaultdict(list)
    flips: list[Flip] = []
    counts = {"a": Counter(), "b": Counter()}
    by_rule: Counter = Counter()
    excluded = after_b = 0
    labelled = [p for p in humans if p in info and (p in va or p in vb) and (not random_only or p in random)]

    def judge_label(vs: dict, p: Pair, count: Counter) -> str:
        if p not in vs:
            count["not_judged"] += 1
            return ABSTAIN
        m, valid, _every = _majority_of(vs[p].pattern)
        if m is None:
            count["tie" if valid else "no_valid"] += 1
            return ABSTAIN
        return m

    for p in sorted(labelled):
        ma, mb = judge_label(va, p, counts["a"]), judge_label(vb, p, counts["b"])
        excluded += ma == ABSTAIN or mb == ABSTAIN
        by_rule[_rule_of(p, random, raw)] += 1
        after_b += instant(label_rows[p][0]["created_at"]) >= born_b
        split = splits[info[p].item_id]
        h = humans[p]
        for s in ("all", split):
            rows[s].append((p, ma, mb, h))
        if (ma == h) != (mb == h):
            flips.append(Flip(p[0], p[1], info[p].item_id, split, h, ma, mb, "fixed" if mb == h else "broken"))
    out = tuple(_split_row(s, rows[s], info) for s in SPLITS)
    random_row = None if random_only else _split_row("all, random only", [x for x in rows["all"] if x[0] in random],
                                                     info)
    by = {s.split: s for s in out}
    tune_d, held = by["tune"].kappa_delta, by["heldout"]
    held_d = held.kappa_delta
    shown = "undefined" if math.isnan(held_d) else f"{held_d:+.3f}"
    warning = None
    if held.n < HELDOUT_MIN_N:
        # a review, wave 17: one heldout pair read "improves on tune but not on heldout" as evidence of overfitting,
        # and its absence as evidence of none
        warning = (f"the heldout split has {held.n} compared pairs (fewer than {HELDOUT_MIN_N}): its row cannot show "
                   "overfitting either way" + (f"; kappa improves on tune ({tune_d:+.3f}), heldout {shown}"
                                               if tune_d > 0 else ""))
    elif tune_d > 0 and not held_d > 0:
        warning = (f"kappa improves on tune ({tune_d:+.3f}) but not on heldout ({shown}): the new rubric may be "
                   "fitted to the tune cases")
    items = {info[p].item_id for p in labelled}
    with_own = sum(own.get(i) in ("tune", "heldout") for i in items)
    split_rule = "own" if items and with_own == len(items) else "mixed" if with_own else "seeded"
    compared = {p for p, *_ in rows["all"]}
    price = get_price(db, judge_model)

    def cost(sha: str) -> VersionCost:
        # tokens per way they were sent: a verdict landed from a Batch API job is billed at the batch price (it was
        # costed at the full price here, twice the batch summary's: a review, wave 14)
        tokens = {False: [0, 0], True: [0, 0]}
        for rid, cid, ti, to, batched in db.execute(
                "SELECT v.run_record_id, v.constraint_id, v.input_tokens, v.output_tokens,"
                " coalesce(json_extract(b.settings, '$.batch_api'), 0) FROM verdicts v LEFT JOIN batches b"
                " ON b.id = v.batch_id WHERE v.rubric_sha256 = ? AND v.judge_model = ?", [sha, judge_model]):
            if (rid, cid) in compared:
                tokens[bool(batched)][0] += ti or 0
                tokens[bool(batched)][1] += to or 0
        name, version = db.execute("SELECT name, version FROM rubrics WHERE sha256 = ?", [sha]).fetchone()
        usd = None if price is None else price.cost(*tokens[False]) + price.batch_api().cost(*tokens[True])
        return VersionCost(sha, name, version, tokens[False][0] + tokens[True][0], tokens[False][1] + tokens[True][1],
                           usd)

    def majority(vs: dict, ignored: int, count: Counter) -> VersionMajority:
        used = tuple(sorted(next(iter(vs.values())).labels)) if vs else ()
        return VersionMajority(used, ignored, count["tie"], count["no_valid"], count["not_judged"])

    return RubricComparison(judge_model, cost(sha_a), cost(sha_b), seed, tune_share, random_only,
                            len(labelled), excluded, out, tuple(flips), warning,
                            majority(va, ignored_a, counts["a"]), majority(vb, ignored_b, counts["b"]),
                            {r: by_rule[r] for r in SAMPLE_RULES if by_rule[r]}, after_b, random_row, split_rule,
                            len(items), with_own)


def comparison_blocks(c: RubricComparison) -> list[tuple]:
    """Layout blocks (see annotations.reports._text) of a rubric comparison."""
    def k(a: Agreement | None) -> str:
        if a is None or math.isnan(a.kappa):
            return "–" if a is None else "undefined"
        if math.isnan(a.kappa_ci_low):
            return f"{a.kappa:.3f} (CI undefined)"
        return f"{a.kappa:.3f} [{a.kappa_ci_low:.2f}, {a.kappa_ci_high:.2f}]"

    def usd(v: VersionCost) -> str:
        return f"{v.input_tokens} in / {v.output_tokens} out tokens" + (
            f", ${v.cost_usd:.4f}" if v.cost_usd is not None else " (no price stored)")

    def row(s: SplitComparison) -> list[str]:
        return [s.split, str(s.n), k(s.a), k(s.b), "–" if math.isnan(s.kappa_delta) else f"{s.kappa_delta:+.3f}",
                str(s.fixed), str(s.broken), f"{s.mcnemar_p:.3g}"]

    def read(side: str, m: VersionMajority | None) -> str:
        if m is None:
            return ""
        return (f"{side}: majority over repeats {', '.join(map(str, m.repeats_used)) or 'none'} (those every pair of "
                f"the version has; {m.ignored_repeat_rows} rows of other repeats ignored); {m.tie} ties, {m.no_valid} "
                f"without a valid repeat, {m.not_judged} not judged, each scored 'abstain', a disagreement.")

    by_rule = ", ".join(f"{c.compared_by_rule[r]} {_RULE_WORDS[r]}" for r in SAMPLE_RULES if r in c.compared_by_rule)
    if c.random_only:
        basis = (f"Compared on {c.labelled} counted random pairs (the random sample's blind first labels, the pairs "
                 "the gate reads) that either version judged")
    else:
        basis = (f"Compared on {c.labelled} labelled pairs, non-random ones included (--include-non-random): "
                 f"{by_rule or 'none'}; pairs chosen to be labelled can favour either version, so read the "
                 "'all, random only' row, the gate's basis")
    basis += f"; {c.labelled_after_b} of them labelled after B was created."
    if c.split_rule == "own":
        split = "Split: each compared item's own `split` (the seed and tune share change nothing)."
    elif c.split_rule == "mixed":
        split = (f"Split: {c.items_with_own_split} of {c.items_compared} compared items carry their own `split`; the "
                 f"rest by seed {c.seed}, tune share {c.tune_share:.0%}.")
    else:
        split = f"Split seed {c.seed}, tune share {c.tune_share:.0%}."
    table = [row(s) for s in c.splits]
    if c.random_only_all is not None:
        table.insert(1, row(c.random_only_all))
    blocks: list[tuple] = [
        ("h", 2, f"Rubric comparison: {c.a.name} v{c.a.version} → {c.b.name} v{c.b.version} (judge {c.judge_model})"),
        ("p", f"{basis} {split}"),
        ("table", ["split", "n", "kappa A", "kappa B", "Δ kappa", "fixed", "broken", "McNemar p"], table),
    ]
    if c.majority_a is not None and c.majority_b is not None:
        blocks.append(("p", f"{read('A', c.majority_a)} {read('B', c.majority_b)}"))
    blocks.append(("p", f"Cost A: {usd(c.a)}. Cost B: {usd(c.b)}."))
    if c.warning:
        blocks.append(("p", "WARNING: " + c.warning))
    if c.flips:
        blocks.append(("table", ["pair", "split", "human", "A", "B", "flip"],
                       [[f"{f.run_record_id} / {f.constraint_id}", f.split, f.human, f.label_a, f.label_b, f.kind]
                        for f in c.flips]))
    return blocks


__all__ = [
    "DEFAULT_TUNE_SHARE", "Flip", "HELDOUT_MIN_N", "RubricComparison", "SplitComparison", "VersionCost",
    "VersionMajority", "compare_rubrics", "comparison_blocks", "item_splits", "label_split",
]
