"""Review sampling: which (run record, semantic constraint) pairs humans review, and how far each quota is covered.

Strata. A stratum is constraint × model × rubric version, keyed ``f"{constraint_id}|{model}|{rubric_sha256[:12]}"``.
The constraint part is the constraint *id string*, not the (item, constraint) pair: constraint ids are unique only
within an item, and naming them by what they require (``order_number``, ``no_refund_promise``) is what makes every
item's ``order_number`` constraint one stratum. A project whose constraint ids are all different gets one tiny stratum
per constraint, and the 10% quota (rounded up) then means reviewing every pair; name constraint ids by what they check.

Judged pair: a (run record, semantic constraint) with at least one verdict row (a label or an error) under that rubric.
A pair judged under two rubric versions belongs to two strata; one random draw of it counts for both.

Unjudged pairs. Review can start before the judge runs (the demo does): a semantic pair that no rubric has judged yet
belongs to the stratum ``f"{constraint_id}|{model}|unjudged"`` and is sampled at the same rate. When the judge later
scores it, its random draw still is a uniform draw from that constraint × model, so it counts toward the judged
stratum's quota: coverage looks at which pairs carry a ``random`` sample row, not at the stratum recorded at draw time.
`coverage()` leaves unjudged strata out unless asked (the CI gate is about judged pairs).

Rules (samples.rule):
- ``random``: seeded simple random sampling within each stratum, at least ``ceil(rate × judged)`` pairs. Only these
  pairs count for coverage and unbiased estimates.
- ``targeted``: pairs where the judge's repeats disagree or the judge returned an error, with the reason. Kept apart
  from the random sample (a pair may carry both rows); targeted labels never count toward coverage.
- ``overlap``: ``ceil(overlap × random pairs)`` of each stratum's random pairs also go to a second reviewer, so
  human–human agreement is known.

Idempotent: a drawn pair stays drawn. Each pair's place in a stratum's draw order is a hash of (seed, stratum, pair),
so drawing again tops each stratum up to its quota from the not-yet-drawn pairs; with nothing new it adds nothing.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import Counter, defaultdict
from typing import Iterable, NamedTuple

import sqlite_utils

from annotations._store import now_iso, write

DEFAULT_RATE = 0.10
DEFAULT_OVERLAP = 0.20
UNJUDGED = "unjudged"


class Pair(NamedTuple):
    run_record_id: str
    constraint_id: str


class StratumKey(NamedTuple):
    constraint_id: str
    model: str
    rubric_sha256: str | None  # None: no rubric has judged these pairs yet

    @property
    def stratum(self) -> str:
        return stratum_key(self.constraint_id, self.model, self.rubric_sha256)


class StratumCoverage(NamedTuple):
    """Review coverage of one stratum. `labelled` counts random-sample pairs with a standing human label;
    `needed` is the quota ceil(rate × judged); `ok` when labelled ≥ needed."""

    stratum: str
    constraint_id: str
    model: str
    rubric_sha256: str | None
    judged: int
    sampled: int
    labelled: int
    needed: int
    ok: bool

    @property
    def left(self) -> int:
        return max(0, self.needed - self.labelled)

    @property
    def fraction(self) -> float:
        """Share of the quota done, in [0, 1] (1 for an empty quota)."""
        return 1.0 if self.needed == 0 else min(1.0, self.labelled / self.needed)


class SampleSummary(NamedTuple):
    strata: int
    random_added: int
    targeted_added: int
    overlap_added: int
    random_total: int
    targeted_total: int
    overlap_total: int


def stratum_key(constraint_id: str, model: str, rubric_sha256: str | None) -> str:
    return f"{constraint_id}|{model}|{rubric_sha256[:12] if rubric_sha256 else UNJUDGED}"


def quota(rate: float, n: int) -> int:
    """ceil(rate × n), without float noise turning 0.1 × 30 = 3.0000000000000004 into 4."""
    return math.ceil(round(rate * n, 9))


def _check_rates(rate: float, overlap: float) -> None:
    if not 0 < rate <= 1:
        raise ValueError(f"rate must be in (0, 1], got {rate}")
    if not 0 <= overlap <= 1:
        raise ValueError(f"overlap must be in [0, 1], got {overlap}")


def _rank(seed: int, salt: str, pair: Pair) -> bytes:
    return hashlib.sha256(f"{seed}\x1f{salt}\x1f{pair[0]}\x1f{pair[1]}".encode()).digest()


# A pair with output to judge: failed runs (RunRecord.failed: no output, no trajectory) are not reviewed.
_SEMANTIC_PAIRS = """
    FROM run_records r
    JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL
    WHERE (r.output IS NOT NULL OR r.trajectory IS NOT NULL)
"""


def strata_members(db: sqlite_utils.Database, *, include_unjudged: bool = True) -> dict[StratumKey, list[Pair]]:
    """Every stratum and its pairs: judged strata from the verdicts, plus (optionally) unjudged semantic pairs."""
    members: dict[StratumKey, list[Pair]] = defaultdict(list)
    sql = """
        SELECT DISTINCT v.constraint_id, r.model, v.rubric_sha256, v.run_record_id
        FROM verdicts v
        JOIN run_records r ON r.id = v.run_record_id
        JOIN constraints c ON c.item_id = r.item_id AND c.id = v.constraint_id AND c.check_json IS NULL
    """
    for cid, model, sha, rid in db.execute(sql):
        members[StratumKey(cid, model, sha)].append(Pair(rid, cid))
    if include_unjudged:
        sql = f"""
            SELECT c.id, r.model, r.id {_SEMANTIC_PAIRS}
            AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run_record_id = r.id AND v.constraint_id = c.id)
        """
        for cid, model, rid in db.execute(sql):
            members[StratumKey(cid, model, None)].append(Pair(rid, cid))
    return dict(members)


def _pairs_with_rule(db: sqlite_utils.Database, rule: str) -> set[Pair]:
    return {Pair(*row) for row in db.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = ?", [rule])}


_LABELLED_PAIRS = """
    SELECT DISTINCT h.run_record_id, h.constraint_id FROM human_labels h
    JOIN (SELECT max(id) AS id FROM human_labels GROUP BY run_record_id, constraint_id, reviewer) last
      ON last.id = h.id
    WHERE h.event != 'undo'
"""


def labelled_pairs(db: sqlite_utils.Database) -> set[Pair]:
    """Pairs with at least one standing human label (a reviewer's latest event on it is not an undo)."""
    return {Pair(*row) for row in db.execute(_LABELLED_PAIRS)}


def targeted_pairs(db: sqlite_utils.Database) -> dict[Pair, tuple[str, str]]:
    """Pairs to review on purpose: the judge's repeats disagree, or the judge returned an error.
    Returns pair -> (stratum, reason); the first reason found wins (latest rubric first)."""
    sql = """
        SELECT v.run_record_id, v.constraint_id, r.model, v.rubric_sha256, v.judge_model,
               group_concat(v.label, char(31)) AS labels, group_concat(v.error, char(31)) AS errors,
               max(v.created_at) AS latest
        FROM verdicts v
        JOIN run_records r ON r.id = v.run_record_id
        JOIN constraints c ON c.item_id = r.item_id AND c.id = v.constraint_id AND c.check_json IS NULL
        GROUP BY v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model
        HAVING count(DISTINCT v.label) > 1 OR count(v.error) > 0
        ORDER BY latest DESC
    """
    out: dict[Pair, tuple[str, str]] = {}
    for rid, cid, model, sha, judge_model, labels, errors, _latest in db.execute(sql):
        pair = Pair(rid, cid)
        if pair in out:
            continue
        parts = []
        label_counts = Counter(labels.split("\x1f")) if labels else Counter()
        if len(label_counts) > 1:
            parts.append("judge repeats disagree: " + ", ".join(f"{k}×{n}" for k, n in sorted(label_counts.items())))
        if errors:
            causes = Counter(errors.split("\x1f"))
            parts.append("judge error: " + ", ".join(f"{k}×{n}" for k, n in sorted(causes.items())))
        out[pair] = (stratum_key(cid, model, sha), f"{'; '.join(parts)} (rubric {sha[:12]}, {judge_model})")
    return out


def draw_sample(db: sqlite_utils.Database, *, rate: float = DEFAULT_RATE, overlap: float = DEFAULT_OVERLAP,
                seed: int = 0, include_unjudged: bool = True) -> SampleSummary:
    """Top up the review sample (see the module docstring) and record each stratum's quota. One transaction.

    Drawing again with the same arguments adds nothing; after new verdicts it adds only what the new quotas need.
    A lower rate never removes drawn pairs.
    """
    _check_rates(rate, overlap)
    stamp = now_iso()
    with write(db):
        members = strata_members(db, include_unjudged=include_unjudged)
        random_set = _pairs_with_rule(db, "random")
        overlap_set = _pairs_with_rule(db, "overlap")
        targeted_set = _pairs_with_rule(db, "targeted")
        new_rows: list[tuple] = []
        strata_rows: list[tuple] = []
        added = Counter()
        # Judged strata first, in a fixed order, so a pair in several strata is drawn by the same stratum each time.
        for key in sorted(members, key=lambda k: (k.rubric_sha256 is None, k)):
            pairs = members[key]
            stratum = key.stratum
            needed = quota(rate, len(pairs))
            have = sum(p in random_set for p in pairs)
            if have < needed:
                fresh = (p for p in pairs if p not in random_set)
                for p in heapq.nsmallest(needed - have, fresh, key=lambda p: _rank(seed, stratum, p)):
                    random_set.add(p)
                    new_rows.append((p[0], p[1], "random", stratum, None, seed, stamp))
                    added["random"] += 1
            drawn = [p for p in pairs if p in random_set]
            want_overlap = quota(overlap, len(drawn)) if overlap else 0
            have_overlap = sum(p in overlap_set for p in drawn)
            if have_overlap < want_overlap:
                fresh = (p for p in drawn if p not in overlap_set)
                salt = f"overlap\x1f{stratum}"
                for p in heapq.nsmallest(want_overlap - have_overlap, fresh, key=lambda p: _rank(seed, salt, p)):
                    overlap_set.add(p)
                    new_rows.append((p[0], p[1], "overlap", stratum, "second reviewer", seed, stamp))
                    added["overlap"] += 1
            strata_rows.append((stratum, key.constraint_id, key.model, key.rubric_sha256, len(pairs), len(drawn),
                                needed, rate, stamp))
        for pair, (stratum, reason) in targeted_pairs(db).items():
            if pair not in targeted_set:
                targeted_set.add(pair)
                new_rows.append((pair[0], pair[1], "targeted", stratum, reason, seed, stamp))
                added["targeted"] += 1
        db.conn.executemany(
            "INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
            " VALUES (?,?,?,?,?,?,?)", new_rows)
        db.conn.execute("DELETE FROM sample_strata")
        db.conn.executemany("INSERT INTO sample_strata VALUES (?,?,?,?,?,?,?,?,?)", strata_rows)
    return SampleSummary(len(members), added["random"], added["targeted"], added["overlap"],
                         len(random_set), len(targeted_set), len(overlap_set))


def coverage(db: sqlite_utils.Database, rate: float = DEFAULT_RATE, *,
             include_unjudged: bool = False) -> list[StratumCoverage]:
    """Exact review coverage of every stratum, from the current verdicts, samples and labels (one row per stratum,
    sorted by stratum). Reads every verdict: for the CLI, calibration and the CI gate, not for a page rerun
    (see `quota_progress`)."""
    _check_rates(rate, 0)
    members = strata_members(db, include_unjudged=include_unjudged)
    random_set = _pairs_with_rule(db, "random")
    done = labelled_pairs(db) & random_set
    rows = []
    for key in sorted(members, key=lambda k: k.stratum):
        pairs = members[key]
        needed = quota(rate, len(pairs))
        labelled = sum(p in done for p in pairs)
        rows.append(StratumCoverage(key.stratum, key.constraint_id, key.model, key.rubric_sha256, len(pairs),
                                    sum(p in random_set for p in pairs), labelled, needed, labelled >= needed))
    return rows


def quota_progress(db: sqlite_utils.Database) -> list[StratumCoverage]:
    """Coverage of the strata as of the last draw (quotas stored by `draw_sample`), with the labels as they are now.

    Cost grows with the number of labels and strata, not with the number of run records or verdicts, so the review
    page can call it on every rerun. Equals `coverage(rate, include_unjudged=True)` until new verdicts arrive;
    then it lags until the next `judgecal sample`.
    """
    strata = list(db.query("SELECT * FROM sample_strata ORDER BY stratum"))
    sql = f"""
        WITH lab AS ({_LABELLED_PAIRS})
        SELECT DISTINCT lab.run_record_id, lab.constraint_id, r.model, v.rubric_sha256
        FROM lab
        JOIN samples s ON s.run_record_id = lab.run_record_id AND s.constraint_id = lab.constraint_id
                       AND s.rule = 'random'
        JOIN run_records r ON r.id = lab.run_record_id
        LEFT JOIN verdicts v ON v.run_record_id = lab.run_record_id AND v.constraint_id = lab.constraint_id
    """
    labelled: Counter[str] = Counter()
    for _rid, cid, model, sha in db.execute(sql):
        labelled[stratum_key(cid, model, sha)] += 1
    return [
        StratumCoverage(s["stratum"], s["constraint_id"], s["model"], s["rubric_sha256"], s["judged"], s["sampled"],
                        labelled[s["stratum"]], s["needed"], labelled[s["stratum"]] >= s["needed"])
        for s in strata
    ]


def sample_rules(db: sqlite_utils.Database, pairs: Iterable[Pair]) -> dict[Pair, set[str]]:
    """The sample rules under which each of `pairs` was drawn."""
    out: dict[Pair, set[str]] = {}
    for p in pairs:
        out[Pair(*p)] = {row[0] for row in db.execute(
            "SELECT rule FROM samples WHERE run_record_id = ? AND constraint_id = ?", [p[0], p[1]])}
    return out
