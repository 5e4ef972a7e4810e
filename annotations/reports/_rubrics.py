"""Rubric tuning: compare two rubric versions on the same human-labelled pairs, with a tune / heldout split.

Workflow: edit the rubric, re-judge only the labelled pairs (`judgecal judge --rubric FILE --only-labelled`), then
`judgecal report --compare OLD NEW`. Both versions are scored against the same human labels (the first reviewer's
standing label of each pair, as in the calibration report) on the pairs where both versions have a majority label.
Every labelled pair is used, targeted ones included: the comparison is paired (same pairs for both versions), so the
selection bias of targeted pairs affects both alike; pass `random_only=True` for the random sample alone.

Split: every eval item is `tune` or `heldout`: the item's own `split` when set, else a deterministic draw from
sha256(seed, item id) with P(tune) = `tune_share` (default 0.7). Tune on `tune`, confirm on `heldout`; the comparison
warns when the new version improves kappa on tune but not on heldout (overfitting the rubric to the labelled cases).

Flips: `fixed` = wrong under A, right under B; `broken` = right under A, wrong under B. McNemar's exact test on
(fixed, broken) says whether the change in accuracy is more than chance.
Cost: the verdict tokens of each version on the compared pairs (all repeats), priced with the judge model's price
from the settings table (key `price:<judge model>`, set by `judgecal price`) when one is stored; the tokens of
verdicts landed from a Batch API job at the batch price (`Price.batch_api`).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

import sqlite_utils

from judgecal.annotations import stats as agr
from judgecal.annotations.store import get_price
from judgecal.annotations.reports._calibration import (
    Agreement,
    _clean,
    _label_order,
    agreement,
    human_labels_by_pair,
    load_verdicts,
    majority_label,
    match_rubrics,
    pair_info,
    counted_rules,
)

DEFAULT_TUNE_SHARE = 0.70
SPLITS = ("all", "tune", "heldout")


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
    random_only: bool
    labelled: int
    excluded: int  # labelled pairs without a majority label under one of the versions
    splits: tuple[SplitComparison, ...]
    flips: tuple[Flip, ...]
    warning: str | None

    def to_dict(self) -> dict[str, Any]:
        return _clean(asdict(self))


def _one(db: sqlite_utils.Database, spec: str) -> str:
    shas = match_rubrics(db, spec)
    if len(shas) > 1:
        rows = db.execute(f"SELECT sha256 FROM rubrics WHERE sha256 IN ({','.join('?' * len(shas))})"
                          " ORDER BY version DESC LIMIT 1", sorted(shas)).fetchone()
        return rows[0]  # a bare name means its latest version
    return next(iter(shas))


def compare_rubrics(db: sqlite_utils.Database, rubric_a: str, rubric_b: str, *, judge_model: str | None = None,
                    seed: int = 0, tune_share: float = DEFAULT_TUNE_SHARE, random_only: bool = False) -> RubricComparison:
    """Compare rubric version A (old) with B (new) on the same human-labelled pairs (see the module docstring).
    Rubrics are given as in `calibration_report` (a bare name = its latest version). Raises ValueError for an unknown
    rubric, or when the judge model is ambiguous."""
    sha_a, sha_b = _one(db, rubric_a), _one(db, rubric_b)
    verdicts = load_verdicts(db, rubrics={sha_a, sha_b}, model=judge_model)
    models = sorted({jm for jm, sha in verdicts if sha == sha_a} & {jm for jm, sha in verdicts if sha == sha_b})
    if judge_model is None:
        if len(models) != 1:
            raise ValueError(f"the two rubric versions share judge models {models}: name one (judge_model=)"
                             if models else "no judge model has verdicts under both rubric versions")
        judge_model = models[0]
    va, vb = verdicts.get((judge_model, sha_a), {}), verdicts.get((judge_model, sha_b), {})
    info = pair_info(db)
    rules = counted_rules(db)
    humans = {p: rows[0]["label"] for p, rows in human_labels_by_pair(db).items()
              if not random_only or "random" in rules.get(p, ())}
    splits = item_splits(db, seed=seed, tune_share=tune_share)
    rows: dict[str, list[tuple]] = defaultdict(list)
    flips: list[Flip] = []
    excluded = 0
    labelled = [p for p in humans if p in info and (p in va or p in vb)]
    for p in sorted(labelled):
        ma = majority_label([l for l in va[p].labels.values() if l is not None]) if p in va else None
        mb = majority_label([l for l in vb[p].labels.values() if l is not None]) if p in vb else None
        if ma is None or mb is None:
            excluded += 1
            continue
        split = splits[info[p].item_id]
        h = humans[p]
        for s in ("all", split):
            rows[s].append((p, ma, mb, h))
        if (ma == h) != (mb == h):
            flips.append(Flip(p[0], p[1], info[p].item_id, split, h, ma, mb, "fixed" if mb == h else "broken"))
    out = []
    for s in SPLITS:
        r = rows[s]
        order = _label_order(info[p].labels for p, *_ in r)
        a = agreement([x[1] for x in r], [x[3] for x in r], order)
        b = agreement([x[2] for x in r], [x[3] for x in r], order)
        fixed = sum(x[1] != x[3] and x[2] == x[3] for x in r)
        broken = sum(x[1] == x[3] and x[2] != x[3] for x in r)
        delta = (b.kappa - a.kappa) if a and b else math.nan
        out.append(SplitComparison(s, len(r), a, b, delta, fixed, broken, agr.mcnemar_exact(fixed, broken)))
    by = {s.split: s for s in out}
    warning = None
    tune_d, held_d = by["tune"].kappa_delta, by["heldout"].kappa_delta
    if tune_d > 0 and not held_d > 0:
        warning = (f"kappa improves on tune ({tune_d:+.3f}) but not on heldout "
                   f"({'undefined' if math.isnan(held_d) else f'{held_d:+.3f}'}): the new rubric may be fitted to the "
                   "tune cases")
    compared = {p for p, *_ in rows["all"]}
    price = get_price(db, judge_model)

    def cost(sha: str, vs: dict) -> VersionCost:
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

    return RubricComparison(judge_model, cost(sha_a, va), cost(sha_b, vb), seed, tune_share, random_only,
                            len(labelled), excluded, tuple(out), tuple(flips), warning)


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

    blocks: list[tuple] = [
        ("h", 2, f"Rubric comparison: {c.a.name} v{c.a.version} → {c.b.name} v{c.b.version} (judge {c.judge_model})"),
        ("p", f"{c.labelled} human-labelled pairs, {c.excluded} without a majority under one version; split seed "
              f"{c.seed}, tune share {c.tune_share:.0%}" + (", random sample only" if c.random_only else "") + "."),
        ("table", ["split", "n", "kappa A", "kappa B", "Δ kappa", "fixed", "broken", "McNemar p"],
         [[s.split, str(s.n), k(s.a), k(s.b), "–" if math.isnan(s.kappa_delta) else f"{s.kappa_delta:+.3f}",
           str(s.fixed), str(s.broken), f"{s.mcnemar_p:.3g}"] for s in c.splits]),
        ("p", f"Cost A: {usd(c.a)}. Cost B: {usd(c.b)}."),
    ]
    if c.warning:
        blocks.append(("p", "WARNING: " + c.warning))
    if c.flips:
        blocks.append(("table", ["pair", "split", "human", "A", "B", "flip"],
                       [[f"{f.run_record_id} / {f.constraint_id}", f.split, f.human, f.label_a, f.label_b, f.kind]
                        for f in c.flips]))
    return blocks


__all__ = [
    "DEFAULT_TUNE_SHARE", "Flip", "RubricComparison", "SplitComparison", "VersionCost", "compare_rubrics",
    "comparison_blocks", "item_splits", "label_split",
]
