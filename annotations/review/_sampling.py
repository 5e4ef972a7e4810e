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

Idempotent: a drawn pair stays drawn. Each pair's place in the draw order is a hash of (seed, constraint id|model,
pair): one order per constraint × model population, shared by every rubric version's stratum and by the unjudged
stratum, so drawing again tops each stratum up to its quota with the next pairs of the same order; with nothing new it
adds nothing. The seed is committed by the first draw of a population (later draws reuse it, whatever seed they name).

Counted pairs (`counted_pairs`). The pairs whose human labels enter an agreement number are a pre-committed prefix of
that draw order: the random-sample pairs of a population, in draw order, up to the first one without a blind first
label. Skipping a pair (labelling only where the judge looks right), importing labels out of order or a queue that
leans toward some pairs stops the prefix there; it cannot choose which pairs count. A population's quota is met when
its counted prefix reaches ceil(rate × N), N = every semantic pair of the constraint × model, and a rubric version's
stratum only when that version has judged all N (it is gated on the population it will be used on).

One run (`sample --run-id R`, `report --run-id R`). R's pairs are a subset of each population; the population's draw
order restricted to them is still a uniformly random order of that subset, so no second draw is made: `sample
--run-id R` adds the first ceil(rate × N_R) pairs of the restricted order (random rows whose reason is
``run:R``), and R's counted pairs are the longest labelled prefix of the restricted order's sampled pairs. The
population's own counted prefix reads only rows of the population draw (reason NULL): pairs drawn for one run lie
beyond the population sample in its order, and counting them there would over-weight the run the user picked.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import math
import operator
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Collection, Iterable, Iterator, Literal, NamedTuple

import sqlite_utils

from judgecal.evalsets import Parsed, Problem, ProblemLog, chunks, gc_paused

from judgecal.annotations.store import PAIRS_IN_JSON, current_labels, kept_blind_first
from judgecal.annotations.store import instant, iso_utc, now_iso, write
from judgecal.annotations.store import code_digest, has_verdict_pairs, pair_indexes, stored_value, table_marks

# The sample file's row model (pydantic) loads with the first sample export or import, not with the draw the report
# and `judgecal gate` read (issue 16.2, start-up).
if TYPE_CHECKING:
    from judgecal.annotations.review._sample_rows import SampleRow

DEFAULT_RATE = 0.10
DEFAULT_OVERLAP = 0.20
DEFAULT_SEED = 0  # the draw order of a population whose verdicts are already stored: fixed by judgecal, not chosen
UNJUDGED = "unjudged"
RUN_REASON = "run:"  # reason of a random row drawn for one run only (`sample --run-id`), followed by the run id


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
    """Review coverage of one stratum. `labelled` counts its counted pairs (the labelled prefix of the draw order,
    see the module docstring); `needed` is the quota ceil(rate × population), `population` every semantic pair of
    the constraint × model; `ok` when labelled ≥ needed and (for a rubric version) it judged the whole population."""

    stratum: str
    constraint_id: str
    model: str
    rubric_sha256: str | None
    judged: int
    sampled: int
    labelled: int
    needed: int
    ok: bool
    population: int = 0  # semantic pairs of the constraint × model (the coverage denominator)
    # The constraint × model's size when the sample was last drawn, when the population has grown since: pairs
    # added after a draw were never ranked, and any of them may rank ahead of the labelled prefix, so the counted
    # pairs are not the front of the population's draw order until `judgecal sample` draws again (not ok).
    drawn_on: int | None = None

    @property
    def unjudged(self) -> int:
        """Pairs of the population this rubric version has not judged (0 for an unjudged stratum)."""
        return 0 if self.rubric_sha256 is None else max(0, self.population - self.judged)

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
    # a named seed this draw did not use: the judged populations it started (`seed_for_draw`), else empty
    seed_not_used: tuple[str, ...] = ()


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


def _rank_prefix(seed: int, salt: str) -> str:
    """The text every rank of one order starts with (`_draw` hashes a population's pairs from it directly)."""
    return f"{seed}\x1f{salt}\x1f"


def _rank(seed: int, salt: str, pair: Pair) -> bytes:
    return hashlib.sha256(f"{_rank_prefix(seed, salt)}{pair[0]}\x1f{pair[1]}".encode()).digest()


def population_key(constraint_id: str, model: str) -> str:
    """The salt of a population's draw order: constraint × model, not the rubric, so every version shares it."""
    return f"{constraint_id}|{model}"


def draw_rank(seed: int, constraint_id: str, model: str, pair: Pair) -> bytes:
    """A pair's place in its population's draw order (smaller = drawn earlier)."""
    return _rank(seed, population_key(constraint_id, model), pair)


def draw_front(n: int, pairs: Iterable[Pair], seed: int, constraint_id: str, model: str) -> list[Pair]:
    """The first `n` of `pairs` in their population's draw order (`draw_rank`): what a draw takes, and what an
    imported sample must be."""
    return heapq.nsmallest(n, pairs, key=lambda p: draw_rank(seed, constraint_id, model, p))


def committed_seeds(db: sqlite_utils.Database) -> dict[tuple[str, str], int]:
    """(constraint id, model) -> the seed of the population's first random draw: its draw order is fixed by it."""
    r_index = pair_indexes(db)[0]  # the model from the covering index, not the run record's row (its output)
    sql = f"""
        SELECT s.constraint_id, r.model, s.seed FROM samples s
        JOIN (SELECT min(s2.rowid) AS rid FROM samples s2 CROSS JOIN run_records r2{r_index} ON r2.id = s2.run_record_id
              WHERE s2.rule = 'random' GROUP BY s2.constraint_id, r2.model) first ON first.rid = s.rowid
        CROSS JOIN run_records r{r_index} ON r.id = s.run_record_id
    """
    return {(cid, model): int(seed or 0) for cid, model, seed in db.execute(sql)}


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
    """Plain (run record, constraint) tuples, equal to and hashed as the Pair that looks them up: for membership
    (issue 16.2: no Python object built per row, 500k rows at a million run records)."""
    return set(db.conn.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = ?", [rule]))


def labelled_pairs(db: sqlite_utils.Database) -> set[Pair]:
    """Pairs with at least one standing human label (a reviewer's latest event on it is not an undo)."""
    return {Pair(r["run_record_id"], r["constraint_id"]) for r in current_labels(db)}


def sample_rules(db: sqlite_utils.Database, pair: Pair | None = None) -> dict[Pair, frozenset[str]]:
    """The sample rules under which each pair was drawn (one pair, or every sampled pair). Sample membership is
    defined here only."""
    where, params = ("WHERE run_record_id = ? AND constraint_id = ?", list(pair)) if pair is not None else ("", [])
    return rules_by_pair(db.conn.execute(f"SELECT run_record_id, constraint_id, rule FROM samples {where}", params))


def rules_by_pair(rows: Iterable[tuple[str, str, str]]) -> dict[Pair, frozenset[str]]:
    """(run record, constraint, rule) sample rows as each pair's rule set (`sample_rules`' reading)."""
    # One frozenset per distinct rule set, shared by its pairs, and a Pair without its Python-level constructor
    # (issue 16.2: 500k rows at a million run records; a set and a frozenset per pair were most of the 2.9 s)
    out: dict[Pair, frozenset[str]] = {}
    shared: dict[tuple[frozenset[str] | None, str], frozenset[str]] = {}
    new = tuple.__new__
    for rid, cid, rule in rows:
        key = new(Pair, (rid, cid))
        got = out.get(key)
        rules = shared.get((got, rule))
        if rules is None:
            rules = shared[(got, rule)] = frozenset({rule}) if got is None else got | {rule}
        out[key] = rules
    return out


class CountedPairs(NamedTuple):
    """Which labelled pairs count (see the module docstring). `order`: each population's random pairs in draw order;
    `prefix`: how many of them count; `pairs`: the counted pairs of all populations."""

    order: dict[tuple[str, str], tuple[Pair, ...]]
    prefix: dict[tuple[str, str], int]
    pairs: frozenset[Pair]

    def counted_of(self, constraint_id: str, model: str) -> int:
        return self.prefix.get((constraint_id, model), 0)


# Derived tables that a page rerun would otherwise rebuild from every sampled pair (a sha256 per pair, a join per
# verdict), memoised per database file and keyed by a fingerprint of exactly the rows they are computed from. The
# fingerprint is one aggregate over the sampled rows (no Python loop), and it changes on any insert, delete or
# reseed of those rows, so a hit returns what the slow definition would compute (tests/test_sampling_cache.py).
_MEMO: dict[tuple, Any] = {}
_MEMO_SIZE = 12


def _db_file(db: sqlite_utils.Database) -> str:
    return next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "") or ""


def _data_version(db: sqlite_utils.Database) -> tuple:
    """What the memoised tables are computed from. Samples can be deleted (tests and repairs do) and drawn again
    into the same row ids, so their part is an aggregate over every row: count, largest row id, and sums that move
    when a row id holds another seed; run records and verdicts are only ever added, so their largest row id."""
    # With migration 016 the samples' part is their O(1) version (`table_marks`: a delete or an update bumps its
    # counter, so rows drawn again into freed row ids move it too) instead of a pass over every sample row (~0.3 s
    # at a million run records, twice per report: issue 16 item 3).
    marks = table_marks(db, ("samples",))
    samples = ("marks", *marks) if marks is not None else tuple(db.execute(
        "SELECT count(*), max(rowid), total(rowid), total(seed), total(rowid * (seed + 1)) FROM samples").fetchone())
    return samples, _table_mark(db, "run_records"), _table_mark(db, "verdicts")


def _memo(db: sqlite_utils.Database, name: str, key: tuple, compute):
    """`compute()` memoised under (database file, name, key); not memoised for an in-memory database."""
    path = _db_file(db)
    if not path:
        return compute()
    full = (path, name, key)
    if full not in _MEMO:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[full] = compute()
    return _MEMO[full]


def _table_mark(db: sqlite_utils.Database, table: str) -> int:
    """Largest row id (one b-tree look-up): verdicts and run records are only ever added, never updated or deleted."""
    return db.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0]


def draw_orders(db: sqlite_utils.Database, version: tuple | None = None) -> dict[tuple[str, str], tuple[Pair, ...]]:
    """Each population's random-sample pairs in draw order (rank under the population's committed seed), pairs
    drawn for one run (`sample --run-id`) included: what the review queue serves.
    `version`: `_data_version(db)` when the caller already read it."""
    return dict(_memo(db, "draw_orders", version or _data_version(db), lambda: _draw_orders(db, scope="*")))


def _run_records(db: sqlite_utils.Database, run_id: str) -> set[str]:
    return {r[0] for r in db.execute("SELECT id FROM run_records WHERE run_id = ?", [run_id])}


def _draw_orders(db: sqlite_utils.Database, scope: str | None = None) -> dict[tuple[str, str], tuple[Pair, ...]]:
    """Random-sample pairs in draw order. `scope`: "*" every random row; None the population draw only (rows not
    drawn for one run); a run id: every random row of that run's records (the restricted order's sampled pairs)."""
    members: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    # `committed_seeds` from the same rows (issue 16.2: its own query joined every random row again): the seed of
    # each population's first random row, whatever its scope
    first: dict[tuple[str, str], tuple[int, int]] = {}
    # each random row's model and run from the run records' covering index, not from their rows (the outputs)
    sql = ("SELECT s.rowid, s.seed, s.run_record_id, s.constraint_id, r.model, s.reason, r.run_id FROM samples s"
           f" CROSS JOIN run_records r{pair_indexes(db)[0]} ON r.id = s.run_record_id WHERE s.rule = 'random'")
    new = tuple.__new__  # a Pair without its Python-level constructor
    for rowid, seed, rid, cid, model, reason, run in db.execute(sql):
        key = (cid, model)
        if key not in first or rowid < first[key][0]:
            first[key] = (rowid, int(seed or 0))
        scoped = reason is not None and reason.startswith(RUN_REASON)
        if scope == "*" or (scope is None and not scoped) or (scope is not None and run == scope):
            members[key].append(new(Pair, (rid, cid)))
    return {key: _in_draw_order(ps, _rank_prefix(first[key][1], population_key(*key)))
            for key, ps in members.items()}


def _in_draw_order(pairs: list[Pair], prefix: str) -> tuple[Pair, ...]:
    """`pairs` sorted by `_rank` under the order whose text starts with `prefix` (`_rank_prefix`), each hashed once."""
    sha256 = hashlib.sha256
    return tuple(sorted(pairs, key=lambda p: sha256(f"{prefix}{p[0]}\x1f{p[1]}".encode()).digest()))


def counted_pairs(db: sqlite_utils.Database, version: tuple | None = None, *,
                  run_id: str | None = None, blind: list[dict[str, Any]] | None = None) -> CountedPairs:
    """The pairs every agreement number uses: per constraint × model, the longest prefix of the random sample's draw
    order whose pairs all carry a blind first label (`blind_first_labels`). Labels elsewhere (beyond the prefix,
    targeted-only, never sampled) are non-random and never count. Nothing about labels, their import order or the
    review queue enters the order; labels only decide where the prefix ends.

    `run_id`: the counted pairs of one run, the same rule on the draw order restricted to its records (see the module
    docstring). Without it, pairs drawn for one run only never count. `blind`: `blind_first_labels(db)` when the
    caller has read it (the report reads it once, not once per use); otherwise `kept_blind_first`'s rows, the same
    rows kept under the labels' version and stored across processes (issue 16.2: the 183k-label scan was ~0.9 s of
    the coverage `sample` prints at a million run records)."""
    # plain (run record, constraint) tuples, equal to and hashed as the Pairs of the orders
    rows = kept_blind_first(db).rows if blind is None else blind
    blind = set(zip(map(_RECORD_ID, rows), map(_CONSTRAINT_ID, rows)))  # (in C: 183k rows at a million run records)
    version = version or _data_version(db)
    orders = dict(_memo(db, ("counted_orders", run_id), version,
                        lambda: _stored_orders(db) if run_id is None else _draw_orders(db, scope=run_id)))
    prefix: dict[tuple[str, str], int] = {}
    pairs: set[Pair] = set()
    for key, order in orders.items():
        counted = list(itertools.takewhile(blind.__contains__, order))
        prefix[key] = len(counted)
        pairs.update(counted)
    return CountedPairs(orders, prefix, frozenset(pairs))


_RECORD_ID, _CONSTRAINT_ID = operator.itemgetter("run_record_id"), operator.itemgetter("constraint_id")


def store_sample_side(db: sqlite_utils.Database) -> None:
    """Store what the report reads of the random sample apart from labels, unless the stored values are current
    (migration 023): the population draw's orders (`_draw_orders(db)`, the counted pairs' orders) and the judged
    strata of the random pairs (`_random_pairs`, coverage's). `sample` calls it after its draw, and
    `store_report_pass` after the commands that write verdicts, so the `report`, `gate` and `compare` after them
    read them back (each ~1 s CPU at a million run records: a join of every random row and a sha256 per pair).
    `sample` stores them before it prints its coverage, which then reads the orders back."""
    _stored_orders(db, write=True)
    if _tally_paths(db):
        _stored_random_pairs(db, write=True)


def _stored_orders(db: sqlite_utils.Database, *, write: bool = False) -> dict[tuple[str, str], tuple[Pair, ...]]:
    """`_draw_orders(db)`, read from `stored_aggregates` while the samples and run records (each random row's model
    and run) are unchanged (`stored_value`). Stored only by `store_sample_side` (`write`): a command that computes
    them on its way, and then fails, leaves the file as it was."""
    return stored_value(db, "draw_orders", [], ("samples", "run_records"), _ORDERS_CODE, lambda: _draw_orders(db),
                        _encode_orders, _decode_orders, write=write)


def _encode_orders(orders: dict[tuple[str, str], tuple[Pair, ...]]) -> tuple[dict[str, Any], bytes]:
    # a population's pairs all hold its constraint id: only their run record ids are stored, in draw order
    return ({"populations": [[cid, model, len(pairs)] for (cid, model), pairs in orders.items()],
             "records": [p[0] for pairs in orders.values() for p in pairs]}, b"")


def _decode_orders(meta: dict[str, Any], data: bytes) -> dict[tuple[str, str], tuple[Pair, ...]]:
    """`_encode_orders`' inverse, in the stored orders; ValueError for anything `_draw_orders` could not have made."""
    pops, records = meta["populations"], meta["records"]
    if data or not isinstance(pops, list) or not isinstance(records, list):
        raise ValueError("not stored draw orders")
    if not all(isinstance(r, str) for r in records):
        raise ValueError("a stored draw order names a run record that is not text")
    new, out, at = tuple.__new__, {}, 0
    for cid, model, n in pops:
        if not (isinstance(cid, str) and isinstance(model, str) and type(n) is int and n > 0) or (cid, model) in out:
            raise ValueError("not a stored population")
        out[(cid, model)] = tuple(new(Pair, (rid, cid)) for rid in records[at:at + n])
        at += n
    if at != len(records):
        raise ValueError("stored draw orders hold more or fewer run records than their populations")
    return out


def population_pairs(db: sqlite_utils.Database) -> set[Pair]:
    """Every semantic pair with output (run record × semantic constraint): what the judge and reviewers score."""
    return {Pair(rid, cid) for cid, rid in db.execute(f"SELECT c.id, r.id {_SEMANTIC_PAIRS}")}


def _has_failed_index(db: sqlite_utils.Database) -> bool:
    """Whether the project has migration 022's partial index of the run records without output (one opened
    read-only before it has not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'run_records_failed'"
                      ).fetchone() is not None


def population_sizes(db: sqlite_utils.Database, run_id: str | None = None, *,
                     version: tuple | None = None) -> Counter[tuple[str, str]]:
    """(constraint id, model) -> number of semantic pairs with output: the population a rubric version is gated on
    (with `run_id`: that run's part of it). `version`: a key that changes whenever run records or constraints change
    (the report's `verdicts_version`): the count, a pass over every run record, is then memoised under it and
    shared by the report and `coverage` (the caller must not mutate it)."""
    if version is None:
        return _population_count(db, run_id)

    def count() -> Counter[tuple[str, str]]:
        # With `coverage`'s pass over the semantic pairs kept under the same version (`_pair_tally`), the pairs of
        # each constraint × model are often counted by it already: the report then makes one pass, not two.
        tally = _pair_tally(db, run_id, version) if _tally_paths(db) else None
        return _population_count(db, run_id, None if tally is None else tally.every)

    def stored() -> Counter[tuple[str, str]]:
        # the whole project's count is stored at write time with the report's pass (`store_report_pass`, migration
        # 023) and read back while run records and constraints are unchanged (what it counts depends on nothing
        # else, however `count` finds it): 2-3 s CPU at a million run records
        if run_id is not None:
            return count()
        return stored_value(db, "population", [], ("run_records", "constraints"), _POPULATION_CODE, count,
                            _encode_population, _decode_population)

    return _memo(db, ("population_sizes", run_id), version, stored)


def _population_count(db: sqlite_utils.Database, run_id: str | None,
                      every: Counter[tuple[str, str]] | None = None) -> Counter[tuple[str, str]]:
    """`population_sizes` read from the project; `every`: every semantic pair (with output or not) per constraint ×
    model in (constraint id, model) order, when the caller has counted them (`_PairTally.every`)."""
    where, params = ("AND r.run_id = ?", [run_id]) if run_id is not None else ("", [])
    r_index, c_index = pair_indexes(db)
    if not (r_index and _has_failed_index(db)):
        return Counter({(cid, model): n for cid, model, n in db.execute(
            f"SELECT c.id, r.model, count(*) {_SEMANTIC_PAIRS} {where} GROUP BY c.id, r.model", params)})
    # Every semantic pair through migration 018's covering indexes, less those of the run records without
    # output through migration 022's partial index of them (few): the run records' table rows, which hold the
    # outputs, are never read (issue 16.2: 3.7-4.1 -> 1.7-2.5 s CPU at a million run records). Counter's
    # subtraction drops a stratum whose every pair lacks output, as the join with the output condition does,
    # and keeps the GROUP BY's order.
    pairs = f"CROSS JOIN constraints c{c_index} ON c.item_id = r.item_id AND c.check_json IS NULL"
    if every is None:
        every = Counter({(cid, model): n for cid, model, n in db.execute(
            f"SELECT c.id, r.model, count(*) FROM run_records r{r_index} {pairs} WHERE 1 {where}"
            " GROUP BY c.id, r.model", params)})
    failed = Counter({(cid, model): n for cid, model, n in db.execute(
        f"SELECT c.id, r.model, count(*) FROM run_records r INDEXED BY run_records_failed {pairs}"
        f" WHERE r.output IS NULL AND r.trajectory IS NULL {where} GROUP BY c.id, r.model", params)})
    return every - failed


def _encode_population(sizes: Counter[tuple[str, str]]) -> tuple[list[list[Any]], bytes]:
    return [[cid, model, n] for (cid, model), n in sizes.items()], b""


def _decode_population(meta: list[list[Any]], data: bytes) -> Counter[tuple[str, str]]:
    """`_encode_population`'s inverse, in the stored order; ValueError for anything a count could not be."""
    if data:
        raise ValueError("not a stored population")
    return Counter(_stored_counts(meta, 2))


def _stored_counts(rows: list, width: int) -> dict[tuple, int]:
    """Stored count rows `[key part, ..., n]` (`width` text parts, n a positive int, each key once) as a dict in
    their order; ValueError for anything else."""
    out: dict[tuple, int] = {}
    for row in rows:
        *key, n = row
        if len(key) != width or type(n) is not int or n <= 0 or not all(isinstance(k, str) for k in key):
            raise ValueError("not a stored count")
        out[tuple(key)] = n
    if len(out) != len(rows):
        raise ValueError("stored counts name a key twice")
    return out


# The code the stored orders were computed and encoded by (`stored_value`'s version: other code recomputes them).
_ORDERS_CODE = code_digest(_draw_orders, _in_draw_order, _rank_prefix, population_key, _encode_orders, _decode_orders)
_POPULATION_CODE = code_digest(population_sizes, _population_count, _encode_population, _decode_population,
                               _stored_counts)


def targeted_pairs(db: sqlite_utils.Database) -> dict[Pair, tuple[str, str]]:
    """Pairs to review on purpose: the judge's repeats disagree, or the judge returned an error.
    Returns pair -> (stratum, reason); the first reason found wins (latest rubric first)."""
    return _targeted(db, None)


def _targeted(db: sqlite_utils.Database, within: str | None) -> dict[Pair, tuple[str, str]]:
    """`targeted_pairs`, of the pairs in table `within` only (None: every pair). A pair's groups are all read
    either way, so its reason and its place in the order are the ones of the whole table. CROSS JOIN: from the
    pairs to their verdicts, never the other way round."""
    source = "verdicts" if within is None else (
        f"(SELECT v.* FROM {within} t CROSS JOIN verdicts v"
        " ON v.run_record_id = t.run_record_id AND v.constraint_id = t.constraint_id)")
    # Grouped first, joined after (issue 16.2): only the groups that qualify are looked up, not every verdict. Ties
    # on the latest stamp (one batch's verdicts share it) in the order of the verdicts' unique index, the order the
    # grouping reads them in, so the order does not hang on the query plan.
    sql = f"""
        SELECT g.run_record_id, g.constraint_id, r.model, g.rubric_sha256, g.judge_model, g.labels, g.errors, g.latest
        FROM (SELECT run_record_id, constraint_id, rubric_sha256, judge_model,
                     group_concat(label, char(31)) AS labels, group_concat(error, char(31)) AS errors,
                     max(created_at) AS latest
              FROM {source}
              GROUP BY run_record_id, constraint_id, rubric_sha256, judge_model
              HAVING count(DISTINCT label) > 1 OR count(error) > 0) g
        JOIN run_records r ON r.id = g.run_record_id
        JOIN constraints c ON c.item_id = r.item_id AND c.id = g.constraint_id AND c.check_json IS NULL
        ORDER BY g.latest DESC, g.run_record_id, g.constraint_id, g.rubric_sha256, g.judge_model
    """
    return _targeted_reasons(db.execute(sql))


def _targeted_reasons(rows: Iterable[tuple]) -> dict[Pair, tuple[str, str]]:
    """`_targeted`'s groups, in its order, as pair -> (stratum, reason): the first group of a pair wins. A group's
    reason (before its rubric and judge model) depends on its label and error texts only: each distinct pair of
    texts is read once (a first draw at a million run records has 285k groups and a few dozen texts)."""
    out: dict[Pair, tuple[str, str]] = {}
    said: dict[tuple[str | None, str | None], str] = {}
    for rid, cid, model, sha, judge_model, labels, errors, _latest in rows:
        pair = Pair(rid, cid)
        if pair in out:
            continue
        text = said.get((labels, errors))
        if text is None:
            parts = []
            label_counts = Counter(labels.split("\x1f")) if labels else Counter()
            if len(label_counts) > 1:
                parts.append("judge repeats disagree: "
                             + ", ".join(f"{k}×{n}" for k, n in sorted(label_counts.items())))
            if errors:
                causes = Counter(errors.split("\x1f"))
                parts.append("judge error: " + ", ".join(f"{k}×{n}" for k, n in sorted(causes.items())))
            text = said[(labels, errors)] = "; ".join(parts)
        out[pair] = (stratum_key(cid, model, sha), f"{text} (rubric {sha[:12]}, {judge_model})")
    return out

def _new_targeted(db: sqlite_utils.Database, targeted_set: set[Pair],
                  candidates: set[tuple[str, str]] | dict[tuple[str, str], list[int]] | None
                  ) -> dict[Pair, tuple[str, str]]:
    """`targeted_pairs` less the pairs in `targeted_set`, in the same order with the same reasons: a pair's reason
    and place come from its own groups only, so leaving pairs out moves nothing else. `candidates`: pairs with a
    group that may be targeted (`_may_be_targeted`, from migration 015's patterns; None: every pair): only those
    not targeted already have their verdicts read (issue 16.2: the whole draw grouped every verdict, 10 s of it at
    a million run records). As a dict (`_targeted_candidates`): each pair's groups that may be targeted, by their
    `verdict_pairs` row id, and only those groups are read (`_targeted_groups`)."""
    if candidates is None:
        return {p: v for p, v in _targeted(db, None).items() if p not in targeted_set}
    if isinstance(candidates, dict):
        return _targeted_groups(db, sorted(i for pair, ids in candidates.items() if pair not in targeted_set
                                           for i in ids))
    fresh = [pair for pair in candidates if pair not in targeted_set]
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _targeting (run_record_id TEXT NOT NULL, constraint_id TEXT NOT NULL,"
               " PRIMARY KEY (run_record_id, constraint_id)) WITHOUT ROWID")
    db.execute("DELETE FROM temp._targeting")
    db.conn.executemany("INSERT INTO temp._targeting VALUES (?, ?)", sorted(fresh))
    try:
        return _targeted(db, "temp._targeting")
    finally:
        db.execute("DELETE FROM temp._targeting")


def _pinned(db: sqlite_utils.Database, sql: str) -> str:
    """`sql` with its `{r}` and `{c}` filled by `pair_indexes`: the run records and constraints read through migration
    018's covering indexes. Without `sqlite_stat1` (judgecal never runs ANALYZE, so no project has it) SQLite picks
    the unique keys and reads each run record's row (its output) and each constraint's (its text) for a model or an
    id the covering index holds: at a million run records the members' join alone took 3.3-3.6 s that way against
    1.6 s through the covering indexes (docs/decisions.md, wave 12)."""
    r, c = pair_indexes(db)
    return sql.format(r=r, c=c)


# `_targeted`'s groups, read from `verdict_pairs` row ids (one per group) instead of grouping verdict rows (issue
# 16.2: at a million run records the first draw's 285k targeted groups were 8 s, most of it SQLite sorting 857k
# verdict rows for the GROUP BY and 285k for the ORDER BY, spilling to temp files). The groups are read in row id
# order (each group's verdicts through the verdicts' unique index, which is about the order they were written), so
# no sort is needed for the grouping; `min(label) <> max(label)` is `count(DISTINCT label) > 1` (two labels differ
# exactly when the smallest and the largest do) without a temp b-tree per group; the order is `_targeted`'s ORDER BY,
# sorted in Python (UTF-8 text compares in SQLite as its code points do in Python).
_TARGETED_GROUPS = """
    SELECT g.run_record_id, g.constraint_id, r.model, g.rubric_sha256, g.judge_model, g.labels, g.errors, g.latest
    FROM (SELECT p.run_record_id, p.constraint_id, p.rubric_sha256, p.judge_model,
                 group_concat(v.label, char(31)) AS labels, group_concat(v.error, char(31)) AS errors,
                 max(v.created_at) AS latest
          FROM temp._targeting_groups t
          CROSS JOIN verdict_pairs p ON p.id = t.id
          CROSS JOIN verdicts v ON v.run_record_id = p.run_record_id AND v.constraint_id = p.constraint_id
                               AND v.rubric_sha256 = p.rubric_sha256 AND v.judge_model = p.judge_model
          GROUP BY t.id
          HAVING min(v.label) <> max(v.label) OR count(v.error) > 0) g
    CROSS JOIN run_records r{r} ON r.id = g.run_record_id
    CROSS JOIN constraints c{c} ON c.item_id = r.item_id AND c.id = g.constraint_id AND c.check_json IS NULL
"""


def _targeted_groups(db: sqlite_utils.Database, ids: list[int]) -> dict[Pair, tuple[str, str]]:
    """`_targeted` of the groups with these `verdict_pairs` row ids (a superset of the targeted groups of their
    pairs: every group of a pair that may be targeted), the same reasons in the same order."""
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _targeting_groups (id INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM temp._targeting_groups")
    try:
        db.conn.executemany("INSERT INTO temp._targeting_groups VALUES (?)", ((i,) for i in ids))
        rows = db.execute(_pinned(db, _TARGETED_GROUPS)).fetchall()
    finally:
        db.execute("DELETE FROM temp._targeting_groups")
    rows.sort(key=lambda row: (row[0], row[1], row[3], row[4]))  # ORDER BY latest DESC, then the unique index's
    rows.sort(key=lambda row: row[7], reverse=True)  # order (a stable sort keeps it among equal stamps)
    return _targeted_reasons(rows)


def _run_scoped(db: sqlite_utils.Database) -> set[Pair]:
    return {Pair(*row) for row in db.execute(
        "SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' AND substr(reason, 1, ?) = ?",
        [len(RUN_REASON), RUN_REASON])}  # case-sensitive, as `reason.startswith(RUN_REASON)` reads a row elsewhere


def draw_run_sample(db: sqlite_utils.Database, run_id: str, *, rate: float = DEFAULT_RATE,
                    seed: int = DEFAULT_SEED) -> SampleSummary:
    """Top up one run's part of the review sample (`sample --run-id`): per population, the first ceil(rate × N_R) of
    its draw order restricted to the run's N_R pairs (see the module docstring). No second random draw: the order is
    the population's own, its seed committed by the population's first draw (or by this one, when it is the first).
    Pairs it adds carry reason ``run:<run_id>`` and count for this run only; the population draw, its overlap and
    targeted rows and the stored quotas are left as they are."""
    _check_rates(rate, 0)
    seed, set_aside = seed_for_draw(db, seed, run_id=run_id)
    stamp = now_iso()
    with write(db):
        seeds = committed_seeds(db)
        random_set = _pairs_with_rule(db, "random")
        judged = {p: stratum_key(k.constraint_id, k.model, k.rubric_sha256)
                  for k, ps in strata_members(db, include_unjudged=False).items() for p in ps}
        pops: dict[tuple[str, str], list[Pair]] = defaultdict(list)
        for cid, model, rid in db.execute(f"SELECT c.id, r.model, r.id {_SEMANTIC_PAIRS} AND r.run_id = ?", [run_id]):
            pops[(cid, model)].append(Pair(rid, cid))
        _refuse_shared_names(StratumKey(*pop, None) for pop in pops)
        new_rows = []
        for pop in sorted(pops):
            pop_seed = seeds.setdefault(pop, seed)
            for p in draw_front(quota(rate, len(pops[pop])), pops[pop], pop_seed, *pop):
                if p not in random_set:
                    random_set.add(p)
                    new_rows.append((p[0], p[1], "random", judged.get(p) or stratum_key(*pop, None),
                                     RUN_REASON + run_id, pop_seed, stamp))
        db.conn.executemany("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                            " VALUES (?,?,?,?,?,?,?)", new_rows)
        # the run records this draw saw (run records are only ever added): a record of the run after them was never
        # drawn, and `coverage(run_id=...)` says so until a draw sees it
        db.conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (
            RUN_DRAW_SETTING + run_id,
            json.dumps({"run_records_top": db.execute("SELECT coalesce(max(rowid), 0) FROM run_records").fetchone()[0],
                        "drawn_at": stamp})))
        totals = dict(db.execute("SELECT rule, count(*) FROM samples GROUP BY rule").fetchall())
    return SampleSummary(len(pops), len(new_rows), 0, 0, totals.get("random", 0), totals.get("targeted", 0),
                         totals.get("overlap", 0), set_aside)


RUN_DRAW_SETTING = "last_run_sample_draw:"  # + run id: `draw_run_sample`'s last look at the run records


def _run_growth(db: sqlite_utils.Database, run_id: str) -> dict[tuple[str, str], int]:
    """Semantic pairs of the run's records added after the last draw that saw the run, per constraint × model: never
    drawn, so the run's counted pairs are not the front of its draw order until a draw sees them. That draw is the
    run's own (`sample --run-id`) once the run has one: its rows reach past the population draw's front, and a later
    population draw does not rank the run's new pairs up to them; else the population draw. Empty when nothing was
    drawn (nothing counts then)."""
    top = None
    for key, pick in ((RUN_DRAW_SETTING + run_id, lambda v: v["run_records_top"]),
                      (DRAW_SETTING, lambda v: v["state"][_RUN_RECORDS_STATE][1])):  # [count, largest rowid, tail]
        row = db.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        if row is not None:
            try:
                top = int(pick(json.loads(row[0])))
            except (ValueError, TypeError, KeyError, IndexError):
                continue  # written by another version: not trusted, as `draw_sample` does not
            break
    if top is None:
        return {}
    return {(cid, model): n for cid, model, n in db.execute(
        "SELECT c.id, r.model, count(*) FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
        " AND c.check_json IS NULL WHERE r.run_id = ? AND r.rowid > ? GROUP BY 1, 2", [run_id, top])}


def draw_sample(db: sqlite_utils.Database, *, rate: float = DEFAULT_RATE, overlap: float = DEFAULT_OVERLAP,
                seed: int = DEFAULT_SEED, include_unjudged: bool = True) -> SampleSummary:
    """Top up the review sample (see the module docstring) and record each stratum's quota. One transaction.

    Drawing again with the same arguments adds nothing; after new verdicts it adds only what the new quotas need.
    A lower rate never removes drawn pairs. When nothing the draw reads has changed since the last draw with the
    same arguments (`_draw_state`), it writes nothing: the draw would add nothing and store the same quotas. When
    only rows were added since (`_draw_since`), it draws from what the last draw stored; the rows are the same.
    """
    _check_rates(rate, overlap)
    seed, set_aside = seed_for_draw(db, seed)
    stamp = now_iso()
    arguments = {"rate": rate, "overlap": overlap, "seed": seed, "include_unjudged": include_unjudged}
    # The collector paused (issue 16.2): a whole draw at a million run records holds millions of objects and builds
    # no reference cycles, and each full collection would walk them all again.
    with gc_paused(), write(db):
        stored = db.execute("SELECT value FROM settings WHERE key = ?", [DRAW_SETTING]).fetchone()
        last = json.loads(stored[0]) if stored else {}
        state = _draw_state(db)
        same_arguments = last.get("state") is not None and {k: last.get(k) for k in arguments} == arguments
        if same_arguments and last["state"] == state:
            return _sample_summary(db, Counter(), set_aside)
        # another rate, overlap or seed starts from the last draw too; another --judged-only draws whole
        resumable = last.get("state") is not None and last.get("include_unjudged") == include_unjudged
        drawn = (_draw_since(db, last, state, rate, overlap, seed, include_unjudged, stamp) if resumable
                 else None)
        if drawn is None:
            drawn = _draw(db, rate, overlap, seed, include_unjudged, stamp)
        db.conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (DRAW_SETTING, json.dumps({
            **arguments, "marks": list(_data_marks(db)), "state": _draw_state(db, state[:_APPENDED]),
            "since": drawn.since, "labels_top": _labels_top(db)})))
    return _sample_summary(db, drawn.added, set_aside)


def _sample_summary(db: sqlite_utils.Database, added: Counter, set_aside: tuple[str, ...]) -> SampleSummary:
    totals = dict(db.execute("SELECT rule, count(*) FROM samples GROUP BY rule").fetchall())
    strata = db.execute("SELECT count(*) FROM sample_strata").fetchone()[0]
    return SampleSummary(strata, added["random"], added["targeted"], added["overlap"], totals.get("random", 0),
                         totals.get("targeted", 0), totals.get("overlap", 0), set_aside)


# What a draw reads, per table: the columns of a row that the draw (or the targeted pairs' reasons) depends on.
_STATE_TABLES = (
    ("verdicts", "json_array(run_record_id, constraint_id, rubric_sha256, judge_model, label, error, created_at)"),
    ("run_records", "json_array(id, item_id, model, output IS NULL AND trajectory IS NULL)"),
    ("constraints", "json_array(item_id, id, check_json IS NULL)"),
    ("samples", "json_array(run_record_id, constraint_id, rule, reason, seed)"),
    ("sample_strata", "json_array(stratum, needed)"),
)
_APPENDED = 3  # the first three only ever get rows added; the rest are the draw's own output
_RUN_RECORDS_STATE = [table for table, _ in _STATE_TABLES].index("run_records")  # its part of `_draw_state`


def _tail(db: sqlite_utils.Database, table: str, columns: str, top: int) -> str | None:
    """The last 20 rows up to row id `top`, as text."""
    return db.execute(f"SELECT group_concat(x, char(31)) FROM (SELECT {columns} AS x FROM {table} WHERE rowid <= ?"
                      " ORDER BY rowid DESC LIMIT 20)", [top]).fetchone()[0]


def _draw_state(db: sqlite_utils.Database, appended: list | None = None) -> list:
    """What a draw reads, as a comparable value: per table the row count, the largest row id and the last rows
    themselves (SQLite reuses the row ids of deleted rows, so a row deleted at the top and another stored in its
    place keeps count and largest id, not its content). Verdicts, run records and constraints are only ever added
    (a verdict's error row may be replaced by a retry's answer: such a pair was already targeted and its strata do
    not move); the sample rows and quotas are the draw's own output, so any other writer's change (`sample
    --run-id`, `--paired`, an import, a deleted row) makes the next draw a full one. Then sums over the sample
    rows, the samples' delete-or-update counter (migration 016) and the size of the stored fronts (migration 017).

    `appended`: the first `_APPENDED` parts as read before the draw, in the same write transaction (a draw writes
    none of those tables): the state stored after the draw reads only the draw's own output again."""
    state = list(appended or [])
    for table, columns in _STATE_TABLES[len(state):]:
        # two statements: count(*) alone is SQLite's b-tree count, beside max() it is a scan of the table
        count = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        top = db.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0]
        state.append([count, top, _tail(db, table, columns, top)])
    state.append(list(db.execute("SELECT total(rowid), total(seed), total(rowid * (seed + 1)) FROM samples")
                      .fetchone()))
    state.append([db.execute("SELECT coalesce((SELECT n FROM table_rewrites WHERE name = 'samples'), 0)").fetchone()[0],
                  db.execute("SELECT count(*) FROM draw_fronts").fetchone()[0]])
    return state


class _Candidate(NamedTuple):
    """A member of a population kept by `_draw_pass` as one of its first by draw rank."""

    rank: bytes  # `draw_rank`: 32 bytes, compared as bytes
    run_record_id: str
    rubrics: str | None  # the rubric versions that judged the pair, comma-separated (None: unjudged)


# Ranks compare as 32-byte strings: this one is behind every rank (nothing was let go yet).
_NO_THRESHOLD = b"\xff" * 33


class _PassState:
    """One population while `_draw_pass` reads its members: counts, and its members ranked before `threshold`
    (every one of them: a member is let go only when it ranks at or behind a threshold)."""

    __slots__ = ("prefix", "kept", "limit", "threshold", "size", "with_output", "unjudged", "rubrics", "drawn",
                 "fixed")

    def __init__(self, prefix: str, rate: float, fixed: int | None):
        self.prefix, self.fixed = prefix, fixed
        self.kept: list[_Candidate] = []
        self.limit = 2 * (fixed if fixed is not None else _capacity(rate, 256))  # when to cut `kept` down again
        self.threshold = _NO_THRESHOLD
        self.size = self.with_output = self.unjudged = 0
        self.rubrics: Counter[str] = Counter()  # rubric versions of a judged member (comma-separated) -> members
        self.drawn: dict[Pair, str | None] = {}  # members with a random row of the population draw -> rubrics

    def cut(self, rate: float) -> None:
        """Keep the first `_capacity` of the members read so far (or the fixed bound); the last kept rank becomes
        the threshold, so every member ranked at or before it stays kept."""
        cap = self.fixed if self.fixed is not None else _capacity(rate, self.size)
        if len(self.kept) > cap:
            self.kept.sort()
            del self.kept[cap:]
            self.threshold = self.kept[-1].rank
        self.limit = 2 * cap


def _capacity(rate: float, n: int) -> int:
    """How many members `_draw_pass` keeps for a population of which it has read `n` so far: the stored front of
    `n` members and a quarter more (the population only grows as it is read, its front with it)."""
    front = _front_size(quota(rate, n))
    return front + front // 4 + _SPARE


class _Judged(NamedTuple):
    """What `_draw_pass` reads of the judged pairs: run record id -> (constraint id, its rubric versions
    comma-separated, constraint id, ...), and the pairs with a group that may be targeted (`_may_be_targeted`;
    None: not known, without migration 015)."""

    rubrics: dict[str, tuple]
    candidates: set[tuple[str, str]] | None


def _may_be_targeted(pattern: str, n: int) -> bool:
    """Whether a `verdict_pairs` group (its repeats as one text, `_schema._PART_TEXT`) may be targeted: an error
    among its repeats, or labels that are not all the same. A superset of `_targeted`'s test: a label holding a
    separator makes the text split into more than `n` parts (or shows \x1e), and the group is read as a
    candidate; otherwise each part is `repeat` \x1f `=label`, and the labels are compared exactly."""
    if "\x1e" in pattern:
        return True
    if n <= 1:
        return False
    parts = pattern.split("\x1d")
    return len(parts) != n or len({part.partition("\x1f")[2] for part in parts}) > 1


def _judged_pairs(db: sqlite_utils.Database) -> _Judged:
    """The judged pairs and their rubric versions, in one scan of migration 015's `verdict_pairs` (one row per
    judged pair and judge model: a third of the verdict rows), which also finds the targeted candidates; without
    015 the verdicts' unique index."""
    judged: dict[str, tuple] = {}
    names: dict[str, str] = {}  # one object per constraint id, rubric sha and rubric list, not one per row
    vp = has_verdict_pairs(db)
    candidates: set[tuple[str, str]] | None = set() if vp else None
    flags: dict[tuple[str, int], bool] = {}  # few distinct pattern texts: each is read once
    sql = ("SELECT run_record_id, constraint_id, rubric_sha256, n, pattern FROM verdict_pairs" if vp else
           "SELECT DISTINCT run_record_id, constraint_id, rubric_sha256, 1, '' FROM verdicts")
    for rid, cid, sha, n, pattern in db.execute(sql):
        if vp:
            flag = flags.get((pattern, n))
            if flag is None:
                flag = flags[(pattern, n)] = _may_be_targeted(pattern, n)
            if flag:
                candidates.add((rid, cid))
        entry = judged.get(rid)
        if entry is None:
            judged[rid] = (names.setdefault(cid, cid), names.setdefault(sha, sha))
            continue
        for k in range(0, len(entry), 2):
            if entry[k] == cid:
                if sha not in entry[k + 1].split(","):  # another judge model under a version already read
                    both = ",".join(sorted([*entry[k + 1].split(","), sha]))
                    judged[rid] = (*entry[:k + 1], names.setdefault(both, both), *entry[k + 2:])
                break
        else:
            judged[rid] = (*entry, names.setdefault(cid, cid), names.setdefault(sha, sha))
    return _Judged(judged, candidates)


def _targeted_candidates(db: sqlite_utils.Database) -> dict[tuple[str, str], list[int]]:
    """The pairs `_judged_pairs` finds as targeted candidates (`_may_be_targeted` on each `verdict_pairs` pattern),
    each with the row ids of its groups that may be targeted, without every row reaching Python: the table is read
    in slices of row ids, and pattern texts already found uniform are left out in SQLite (`temp._plain_patterns`),
    so only candidates and texts not seen yet are read."""
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _plain_patterns (pattern TEXT NOT NULL, n INTEGER NOT NULL,"
               " PRIMARY KEY (pattern, n)) WITHOUT ROWID")
    db.execute("DELETE FROM temp._plain_patterns")
    flags: dict[tuple[str, int], bool] = {}
    out: dict[tuple[str, str], list[int]] = {}
    low, step = 0, 4096
    try:
        # Each slice ends at the row id `step` rows on (an index-only read), not at `low + step`: a row stored by
        # hand under a huge explicit id would otherwise cost one query per empty slice up to it (a review: 5 s for
        # one verdict at id 2^40, no end near 2^62).
        while (high := db.execute("SELECT max(id) FROM (SELECT id FROM verdict_pairs WHERE id > ? ORDER BY id"
                                  " LIMIT ?)", [low, step]).fetchone()[0]) is not None:
            plain = []
            for vid, rid, cid, pattern, n in db.execute(
                    "SELECT id, run_record_id, constraint_id, pattern, n FROM verdict_pairs WHERE id > ? AND id <= ?"
                    " AND (pattern, n) NOT IN (SELECT pattern, n FROM temp._plain_patterns)", [low, high]):
                flag = flags.get((pattern, n))
                if flag is None:
                    flag = flags[(pattern, n)] = _may_be_targeted(pattern, n)
                    if not flag:
                        plain.append((pattern, n))
                if flag:
                    got = out.get((rid, cid))
                    if got is None:
                        out[(rid, cid)] = [vid]
                    else:
                        got.append(vid)
            db.conn.executemany("INSERT INTO temp._plain_patterns VALUES (?, ?)", plain)
            low, step = high, min(step * 2, 1 << 20)
    finally:
        db.execute("DELETE FROM temp._plain_patterns")
    return out

# The members as one query: what `_draw_pass` computes from three scans (tests compare against it; a join per pair
# here, so it is no longer what the draw runs). `rubrics`: the rubric versions that judged the pair.
_DRAW_PAIRS = """
    SELECT c.id, r.model, r.id, (r.output IS NOT NULL OR r.trajectory IS NOT NULL) AS has_output,
           (SELECT group_concat(DISTINCT v.rubric_sha256) FROM verdicts v
            WHERE v.run_record_id = r.id AND v.constraint_id = c.id) AS rubrics
    FROM run_records r
    JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL
    WHERE has_output OR rubrics IS NOT NULL
"""
_DRAW_SIZES = """
    SELECT c.id, r.model, count(*)
    FROM run_records r
    JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL
    WHERE (r.output IS NOT NULL OR r.trajectory IS NOT NULL)
       OR EXISTS (SELECT 1 FROM verdicts v WHERE v.run_record_id = r.id AND v.constraint_id = c.id)
    GROUP BY 1, 2
"""


def _front_sizes(db: sqlite_utils.Database, rate: float) -> dict[tuple[str, str], int]:
    """Each population's stored front size, min(N, `_front_size`(ceil(rate × N))), N counted in SQL."""
    return {(cid, model): min(n, _front_size(quota(rate, n))) for cid, model, n in db.execute(_DRAW_SIZES)}


def _draw_pass(db: sqlite_utils.Database, judged: dict[str, tuple], rate: float, seed: int,
               seeds: dict[tuple[str, str], int], random_set: set[Pair], fixed: dict[tuple[str, str], int] | None = None
               ) -> dict[tuple[str, str], _PassState] | None:
    """Every member of every population once (issue 16.2): counts, the random pairs already drawn, and each
    population's first members by draw rank. Read as three scans joined in Python (semantic constraints by item,
    judged pairs by run record, run records in storage order), not a join per pair: at a million run records the
    per-pair look-ups in SQLite were most of a whole draw.

    Population sizes are only known at the end, so a population keeps the members ranked before its threshold;
    when they are twice `_capacity` of the members read so far, only that many stay and the last one's rank
    becomes the threshold (`_PassState.cut`). No member ranked at or before the threshold is ever let go, so when
    at least the stored front (`_front_size` of the final quota) is kept, that front is exact. When it is not (a
    chance event: members kept for fewer than the final population), None: the caller reads again with the sizes
    known (`fixed`: each population's stored front size)."""
    by_item: dict[str, list[str]] = defaultdict(list)
    names: dict[str, str] = {}
    for item, cid in db.execute("SELECT item_id, id FROM constraints WHERE check_json IS NULL"):
        by_item[item].append(names.setdefault(cid, cid))
    states: dict[tuple[str, str], _PassState] = {}
    # tuple.__new__ builds a named tuple without its Python-level constructor (most of its cost, per member here)
    sha256, new = hashlib.sha256, tuple.__new__
    for rid, item, model, has_output in db.execute(
            "SELECT id, item_id, model, output IS NOT NULL OR trajectory IS NOT NULL FROM run_records"):
        cids = by_item.get(item)
        if cids is None:
            continue
        found = judged.get(rid)
        for cid in cids:
            rubrics = None
            if found is not None:
                if found[0] == cid:
                    rubrics = found[1]
                else:
                    for k in range(2, len(found), 2):
                        if found[k] == cid:
                            rubrics = found[k + 1]
                            break
            if rubrics is None and not has_output:
                continue  # a failed run's pair that no verdict covers: not reviewed
            pop = (cid, model)
            st = states.get(pop)
            if st is None:
                st = states[pop] = _PassState(_rank_prefix(seeds.get(pop, seed), population_key(*pop)), rate,
                                              None if fixed is None else fixed[pop])
            st.size += 1
            st.with_output += has_output
            if rubrics is None:
                st.unjudged += 1
            else:
                st.rubrics[rubrics] += 1
            if (rid, cid) in random_set:
                st.drawn[new(Pair, (rid, cid))] = rubrics
            rank = sha256(f"{st.prefix}{rid}\x1f{cid}".encode()).digest()  # `draw_rank`
            if rank < st.threshold:
                st.kept.append(new(_Candidate, (rank, rid, rubrics)))
                if len(st.kept) > st.limit:
                    st.cut(rate)
    for st in states.values():
        st.kept.sort()  # rank ascending
        keep = min(st.size, _front_size(quota(rate, st.size)))
        if len(st.kept) < keep:
            return None
        del st.kept[keep:]
    return states


# The members in one join, SQLite doing every look-up (issue 16.2, second pass at a million run records): each pair
# of a run record and a semantic constraint of its item, its population (a temp table of every constraint id × model,
# holding the rank text's prefix under the population's seed) and its rubric versions from `verdict_pairs`' unique
# index (one seek per pair; a pair judged by two versions or judge models is one row per `verdict_pairs` row, next to
# each other). What reaches Python per pair is one integer and the text its rank hashes: the join, the prefix and the
# rank text are made in SQLite, the counts in numpy, and only each population's front is looked at pair by pair.
_MEMBERS = """
    SELECT (p.idx * 2 + (f.id IS NULL)) * :versions
           + CASE WHEN v.rubric_sha256 IS NULL THEN 0 ELSE coalesce(t.idx + 2, 1) END,
           CAST(p.prefix || r.id || char(31) || c.id AS BLOB)
    FROM run_records r{r}
    CROSS JOIN constraints c{c} ON c.item_id = r.item_id AND c.check_json IS NULL
    CROSS JOIN temp._draw_pops p ON p.constraint_id = c.id AND p.model = r.model
    LEFT JOIN temp._draw_failed f ON f.id = r.id
    LEFT JOIN verdict_pairs v ON v.run_record_id = r.id AND v.constraint_id = c.id
    LEFT JOIN temp._draw_rubrics t ON t.sha = v.rubric_sha256
    WHERE f.id IS NULL OR v.rubric_sha256 IS NOT NULL
"""
# The random rows' pairs that are members, with their population and rubric versions: the members' join conditions
# from the samples side (issue 16.2, third pass: a samples seek per member was 2.2 s of SQLite at a million run
# records, for 176k random rows). In the samples' key order, which is the members' order (run record id, then
# constraint id); a pair's `verdict_pairs` rows are consecutive.
_DRAWN = """
    SELECT s.run_record_id, s.constraint_id, p.idx, v.rubric_sha256
    FROM samples s
    CROSS JOIN run_records r{r} ON r.id = s.run_record_id
    CROSS JOIN constraints c{c} ON c.item_id = r.item_id AND c.id = s.constraint_id AND c.check_json IS NULL
    CROSS JOIN temp._draw_pops p ON p.constraint_id = c.id AND p.model = r.model
    LEFT JOIN temp._draw_failed f ON f.id = r.id
    LEFT JOIN verdict_pairs v ON v.run_record_id = s.run_record_id AND v.constraint_id = s.constraint_id
    WHERE s.rule = 'random' AND (f.id IS NULL OR v.rubric_sha256 IS NOT NULL)
    ORDER BY s.run_record_id, s.constraint_id
"""
# The run records without output (failed runs), through migration 022's partial index when the project has it.
_FAILED = "INSERT INTO temp._draw_failed SELECT id FROM run_records WHERE output IS NULL AND trajectory IS NULL"
# Above this many constraint ids × models the temp table of populations is not made (every combination, most of them
# empty when constraint ids are all different): the draw reads its members as three scans (`_draw_pass`).
_MAX_POPULATIONS = 200_000
_SQL_PASS = True  # tests turn it off to run `_draw_pass`
_SLICE = 1 << 16  # `_members_of` reads the members in slices of this many rows (tests make it small)


class _Members:
    """One population as `_draw_members` leaves it: what `_draw` reads of a `_PassState`."""

    __slots__ = ("kept", "size", "with_output", "unjudged", "rubrics", "drawn")

    def __init__(self) -> None:
        self.kept: list[_Candidate] = []
        self.size = self.with_output = self.unjudged = 0
        self.rubrics: Counter[str] = Counter()
        self.drawn: dict[Pair, str | None] = {}


def _draw_members(db: sqlite_utils.Database, rate: float, seed: int, seeds: dict[tuple[str, str], int],
                  random_set: set[Pair]) -> dict[tuple[str, str], _Members] | None:
    """What `_draw_pass` returns (every population's counts, its drawn random pairs and its first members by draw
    rank, exactly), from one join in SQLite (`_MEMBERS`) and numpy. None when it cannot serve: no migration 015, too
    many constraint ids × models for the population table, or a rubric version that `rubrics` does not hold."""
    import numpy as np

    if not _SQL_PASS or not has_verdict_pairs(db):
        return None
    cids = _semantic_constraint_ids(db)
    models = [row[0] for row in db.execute("SELECT DISTINCT model FROM run_records")]
    if len(cids) * len(models) > _MAX_POPULATIONS:
        return None
    pops = [(cid, model) for cid in cids for model in models]
    prefix_of = [_rank_prefix(seeds.get(pop, seed), population_key(*pop)) for pop in pops]
    shas = [row[0] for row in db.execute("SELECT sha256 FROM rubrics ORDER BY sha256")]
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _draw_pops (constraint_id TEXT NOT NULL, model TEXT NOT NULL,"
               " idx INTEGER NOT NULL, prefix TEXT NOT NULL, PRIMARY KEY (constraint_id, model)) WITHOUT ROWID")
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _draw_rubrics (sha TEXT PRIMARY KEY, idx INTEGER NOT NULL)"
               " WITHOUT ROWID")
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _draw_failed (id TEXT PRIMARY KEY) WITHOUT ROWID")
    temps = ("_draw_pops", "_draw_rubrics", "_draw_failed")
    try:
        for name in temps:
            db.execute(f"DELETE FROM temp.{name}")
        db.execute(_FAILED)
        db.conn.executemany("INSERT INTO temp._draw_pops VALUES (?, ?, ?, ?)",
                            ((*pop, k, prefix_of[k]) for k, pop in enumerate(pops)))
        db.conn.executemany("INSERT INTO temp._draw_rubrics VALUES (?, ?)", ((sha, k) for k, sha in enumerate(shas)))
        states = _members_of(db, rate, pops, prefix_of, shas, np)
        if states is not None:
            _drawn_of(db, pops, states, random_set)
        return states
    finally:
        for name in temps:
            db.execute(f"DELETE FROM temp.{name}")


def _semantic_constraint_ids(db: sqlite_utils.Database) -> list[str]:
    """The distinct ids of the semantic constraints, through migration 018's covering index when the project has one
    that serves (the table rows hold the constraints' texts: 1.2 s at a million run records to read 438k of them for
    16 ids); otherwise (no such index, or one SQLite cannot use for this query) from the table."""
    sql = "SELECT DISTINCT id FROM constraints{} WHERE check_json IS NULL"
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'constraints_pair'"
                  " AND tbl_name = 'constraints'").fetchone() is not None:
        try:
            return [row[0] for row in db.execute(sql.format(" INDEXED BY constraints_pair"))]
        except sqlite3.OperationalError:  # "no query solution": an index of that name that cannot serve
            pass
    return [row[0] for row in db.execute(sql.format(""))]


def _drawn_of(db: sqlite_utils.Database, pops: list[tuple[str, str]], states: dict[tuple[str, str], _Members],
              random_set: set[Pair]) -> None:
    """Each population's `drawn`: its members with a random row of the population draw (in `random_set`; not one
    run's), each with its rubric versions as `_members_of` names them (one sha, or the sorted distinct ones joined by
    commas; None: unjudged). Read from the random rows (`_DRAWN`), not by a samples seek per member."""
    new = tuple.__new__
    prev = None
    got: list[str] = []
    for rid, cid, k, sha in itertools.chain(db.execute(_pinned(db, _DRAWN)), [(None, None, None, None)]):
        if prev is not None and (rid != prev[0] or cid != prev[1]):
            pair = new(Pair, prev[:2])
            if pair in random_set:
                states[pops[prev[2]]].drawn[pair] = (None if not got else got[0] if len(got) == 1
                                                     else ",".join(sorted(set(got))))
            got = []
        if rid is None:
            break
        prev = (rid, cid, k)
        if sha is not None:
            got.append(sha)


def _members_of(db, rate, pops, prefix_of, shas, np) -> dict[tuple[str, str], _Members] | None:
    sha256 = hashlib.sha256
    ranks = bytearray()  # every member's rank, 32 bytes each, in the order read
    codes: list[int] = []  # per member: (population index × 2 + has output) × versions
    #                        + its rubric versions (0 unjudged, 2 + index into `names`)
    texts: list[bytes] = []  # the rank text (UTF-8): prefix, run record id, \x1f, constraint id
    versions = len(shas) + 2  # a pair's rubric versions: an index into `names`, which grows by the sets found
    names = list(shas)  # rubric index -> comma-separated versions (a pair judged by more than one: sorted)
    sets: dict[str, int] = {}
    multi: dict[int, int] = {}  # member -> index into `names`, for a pair judged by more than one version
    # In slices of rows, each hashed and appended by C-level maps (issue 16.2, third pass: a Python loop over 1.76M
    # rows was ~2-3 s of a whole draw at a million run records); a slice holding a pair's second `verdict_pairs` row
    # (another version or judge model: the same rank text as the row before it) is read row by row.
    digest, first, second = operator.methodcaller("digest"), operator.itemgetter(0), operator.itemgetter(1)
    cursor = db.execute(_pinned(db, _MEMBERS), {"versions": versions})
    while rows := cursor.fetchmany(_SLICE):
        slice_texts = list(map(second, rows))
        before = [texts[-1] if texts else None, *slice_texts[:-1]]
        if not any(map(operator.eq, slice_texts, before)):
            codes.extend(map(first, rows))
            texts.extend(slice_texts)
            ranks += b"".join(map(digest, map(sha256, slice_texts)))  # `draw_rank`
            continue  # a first row of an unknown version (code % versions == 1) is found below, over every member
        prev = before[0]
        for code, text in rows:
            # The same pair's next `verdict_pairs` row (another version or judge model): the same rank text in the
            # same population (and output state). The text alone is not enough: with a \x1f in a model name and a
            # run record id, two pairs of two populations can spell the same text (a review: the whole draw merged
            # them into one member, or raised IndexError when neither was judged).
            if text == prev and code // versions == codes[-1] // versions:
                got = code % versions
                last = len(codes) - 1
                if got == 1 or codes[last] % versions == 1:
                    return None  # a version the rubrics table does not hold (not written by judgecal)
                have = names[multi.get(last, codes[last] % versions - 2)].split(",")
                if shas[got - 2] not in have:
                    both = ",".join(sorted([*have, shas[got - 2]]))
                    if both not in sets:
                        sets[both] = len(names)
                        names.append(both)
                    multi[last] = sets[both]
                continue
            if code % versions == 1:
                # a version the rubrics table does not hold, on a pair's first row: the pair's next row would be
                # merged into `names[-1]` (a review found a rubric credited with a pair it never judged): fall back
                return None
            prev = text
            codes.append(code)
            texts.append(text)
            ranks += sha256(text).digest()  # `draw_rank`
    n = len(codes)
    if not n:
        return {}
    code = np.fromiter(codes, dtype=np.int64, count=n)
    del codes
    rub, rest = code % versions, code // versions
    if multi:
        rub[np.fromiter(multi, dtype=np.int64)] = np.fromiter(multi.values(), dtype=np.int64) + 2
    if np.any(rub == 1):
        return None  # a version the rubrics table does not hold (not written by judgecal): read as three scans
    has_output = (rest & 1).astype(bool)
    pop_of = rest >> 1
    stored = np.frombuffer(ranks, dtype=">u8").reshape(n, 4)  # the ranks as bytes, for the kept members
    words = stored.astype(np.uint64)  # compared in the machine's byte order (a numpy sort of '>u8' is generic)
    order = np.argsort(pop_of, kind="stable")
    bounds = np.searchsorted(pop_of[order], np.arange(len(pops) + 1))
    labels = [None, None, *names]  # rubric part -> the pair's versions (None: unjudged)
    rubs = rub.tolist()
    states: dict[tuple[str, str], _Members] = {}
    new = tuple.__new__
    for k in np.flatnonzero(np.diff(bounds)).tolist():
        idx = order[bounds[k]:bounds[k + 1]]
        cid = pops[k][0]
        st = states[pops[k]] = _Members()
        st.size = len(idx)
        st.with_output = int(np.count_nonzero(has_output[idx]))
        judged = rub[idx]
        st.unjudged = int(np.count_nonzero(judged == 0))
        values, counts = np.unique(judged[judged >= 2], return_counts=True)
        for value, count in zip(values.tolist(), counts.tolist()):
            st.rubrics[labels[value]] = count
        start, end = len(prefix_of[k].encode()), -len(cid.encode()) - 1
        idx = _first_by_rank(np, words, idx, min(st.size, _front_size(quota(rate, st.size))))
        kept = stored[idx].tobytes()
        st.kept = [new(_Candidate, (kept[32 * j:32 * j + 32], texts[i][start:end].decode(), labels[rubs[i]]))
                   for j, i in enumerate(idx.tolist())]
    return states


def _first_by_rank(np, words, idx, keep: int):
    """The `keep` members of `idx` first by rank, in rank order: `words` holds each member's 32-byte rank as four
    64-bit words (big-endian words in the machine's order: comparing them in turn is comparing the bytes). Only the
    members whose first word is at most the keep-th smallest first word can be among them (ties included), and only
    those are sorted, by all four words."""
    if keep < len(idx):
        first = words[idx, 0]
        idx = idx[first <= np.partition(first, keep - 1)[keep - 1]]
    w = words[idx]
    return idx[np.lexsort((w[:, 3], w[:, 2], w[:, 1], w[:, 0]))][:keep]

def _draw(db: sqlite_utils.Database, rate: float, overlap: float, seed: int, include_unjudged: bool,
          stamp: str) -> _Drawn:
    """The draw itself (issue 16.2: one pass over the pairs, each hashed once into a bounded heap of its
    population's front, strata counted on the way): the same rows, in the same order, as drawing from
    `strata_members` (tests/test_sampling_scale.py holds that definition and compares). It also stores what the
    next draw can start from (`_draw_since`): each population's counts, and its fronts in `draw_fronts`."""
    seeds = committed_seeds(db)
    # A pair drawn earlier for one run only that the population draw now reaches joins the population sample.
    scoped = _run_scoped(db)
    random_set = _pairs_with_rule(db, "random") - scoped
    overlap_set = _pairs_with_rule(db, "overlap")
    targeted_set = _pairs_with_rule(db, "targeted")
    # One draw per constraint × model population (every rubric version's stratum shares its order) over every pair
    # of it, judged or not: with --judged-only too (it limits which populations are drawn, never which of their
    # pairs; drawn from the judged pairs alone, judging only chosen pairs first made them the random sample,
    # tests/test_attacks_calibration.py). The random sample is the first ceil(rate × N) pairs of the order.
    states: dict | None = _draw_members(db, rate, seed, seeds, random_set)
    if states is not None:
        candidates: dict | set | None = _targeted_candidates(db)
    else:  # without migration 015 (or with too many constraint ids × models): three scans joined in Python
        judged = _judged_pairs(db)
        candidates = judged.candidates
        states = _draw_pass(db, judged.rubrics, rate, seed, seeds, random_set)
        if states is None:  # a heap let go of a member its front needed: read again, each heap bounded by its front
            states = _draw_pass(db, judged.rubrics, rate, seed, seeds, random_set, _front_sizes(db, rate))
    sizes = {pop: st.size for pop, st in states.items()}
    pop_seed = {pop: seeds.get(pop, seed) for pop in sizes}  # the first draw commits the population's order
    want = {pop: quota(rate, n) for pop, n in sizes.items()}
    judged_counts: Counter[tuple[str, str, str]] = Counter()  # (constraint, model, rubric) -> judged pairs
    unjudged_sampled: Counter[tuple[str, str]] = Counter()
    drawn_before: dict[tuple[str, str], dict[Pair, str | None]] = {}  # random pairs already drawn
    for pop, st in states.items():
        for rubrics, n in st.rubrics.items():
            for sha in rubrics.split(","):
                judged_counts[(*pop, sha)] += n
        drawn_before[pop] = st.drawn
        unjudged_sampled[pop] = sum(r is None for r in st.drawn.values())
    judged_pops = {(cid, model) for cid, model, _sha in judged_counts}
    pops = sorted(p for p in sizes if include_unjudged or p in judged_pops)
    orders = {pop: st.kept for pop, st in states.items()}  # rank ascending
    populations = {pop: _Population(pop_seed[pop], st.size, st.with_output, st.unjudged)
                   for pop, st in states.items()}

    new_rows: list[tuple] = []
    promoted: list[Pair] = []
    promoted_pops: set[tuple[str, str]] = set()
    added: Counter = Counter()
    oranks: dict[tuple[str, str], dict[Pair, bytes]] = {}
    labelled = _labelled_pairs(db) if overlap else frozenset()  # never an overlap candidate (`_labelled_pairs`)
    for pop in pops:
        cid, model = pop
        drawn = drawn_before[pop]
        order = orders[pop][:want[pop]]
        populations[pop].through, populations[pop].drawn_count = _rank_of(order[-1]), want[pop]
        for c in order:
            p = Pair(c.run_record_id, cid)
            if p in random_set:
                continue
            if p in scoped:
                promoted.append(p)
                promoted_pops.add(pop)
            else:
                added["random"] += 1
            random_set.add(p)
            drawn[p] = c.rubrics
            unjudged_sampled[pop] += c.rubrics is None
            new_rows.append((p[0], p[1], "random", _stratum_of(p, model, c.rubrics), None, pop_seed[pop], stamp))
        want_overlap = quota(overlap, len(drawn)) if overlap else 0
        have_overlap = sum(p in overlap_set for p in drawn)
        if overlap:  # each candidate's overlap rank (`_rank`), hashed once for the draw and the stored front
            oranks[pop] = _overlap_ranks(pop_seed[pop], pop, [p for p in drawn if p not in overlap_set
                                                              and p not in labelled])
        if have_overlap < want_overlap:
            for p in heapq.nsmallest(want_overlap - have_overlap, oranks[pop], key=oranks[pop].__getitem__):
                overlap_set.add(p)
                new_rows.append((p[0], p[1], "overlap", _stratum_of(p, model, drawn[p]), "second reviewer",
                                 pop_seed[pop], stamp))
                added["overlap"] += 1
    for pair, (stratum, reason) in _new_targeted(db, targeted_set, candidates).items():
        targeted_set.add(pair)
        new_rows.append((pair[0], pair[1], "targeted", stratum, reason, seed, stamp))
        added["targeted"] += 1
    # Deleted and inserted again rather than updated: the memoised orders key on the samples' row ids.
    db.conn.executemany("DELETE FROM samples WHERE run_record_id = ? AND constraint_id = ? AND rule = 'random'",
                        promoted)
    db.conn.executemany("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                        " VALUES (?,?,?,?,?,?,?)", new_rows)
    # Each stratum's quota, over the random sample as it now stands (the population draw's rows, not one run's).
    sampled: Counter[tuple[str, str, str]] = Counter()
    fronts: list[tuple] = []
    for pop, state in populations.items():
        cid, model = pop
        order = orders[pop]
        state.front = len(order)
        state.bound = None if len(order) == state.size else _rank_of(order[-1])
        fronts.extend(("random", cid, model, _rank_of(c), c.run_record_id) for c in order)
        drawn = drawn_before.get(pop, {})
        state.unjudged_sampled, state.drawn = unjudged_sampled[pop], len(drawn)
        state.overlapped = sum(p in overlap_set for p in drawn)
        for rubrics in drawn.values():
            for sha in rubrics.split(",") if rubrics else ():
                sampled[(cid, model, sha)] += 1
        if overlap:
            fresh = [p for p in drawn if p not in overlap_set and p not in labelled]
            ranks = oranks.get(pop)
            if ranks is None:  # a population not drawn (--judged-only)
                ranks = _overlap_ranks(state.seed, pop, fresh)
            ranked = heapq.nsmallest(_front_size(quota(overlap, len(drawn))), ((ranks[p], p[0]) for p in fresh))
            state.ofront = len(ranked)
            state.obound = None if len(ranked) == len(fresh) else ranked[-1][0]
            fronts.extend(("overlap", cid, model, orank, rid) for orank, rid in ranked)
    _store_fronts(db, fronts)
    _store_quotas(db, rate, stamp, include_unjudged, populations, judged_counts, sampled)
    unsized = {pop: s for pop, s in seeds.items() if pop not in sizes}
    if not _seeds_hold(db, populations, promoted_pops):
        return _Drawn(added, None)
    return _Drawn(added, _since(populations, judged_counts, sampled, unsized))


def _labels_top(db: sqlite_utils.Database) -> int:
    return db.execute("SELECT coalesce(max(id), 0) FROM human_labels").fetchone()[0]


def _overlap_candidates_grew(db: sqlite_utils.Database, top: int, labelled: frozenset[tuple[str, str]]) -> bool:
    """Whether a random pair that is not an overlap pair has become an overlap candidate since the label row `top`
    (a second reviewer's blind label imported onto it: `_labelled_pairs`). The stored overlap fronts never held it:
    the draw since the last one cannot rank it, the whole draw does."""
    moved = [pair for pair in db.execute("SELECT DISTINCT run_record_id, constraint_id FROM human_labels WHERE id > ?"
                                         " AND event = 'label' AND blind = 1", [top]) if pair not in labelled]
    if not moved:
        return False
    rules: dict[tuple[str, str], set[str]] = defaultdict(set)
    for rid, cid, rule in db.execute(f"SELECT run_record_id, constraint_id, rule FROM samples WHERE {PAIRS_IN_JSON}",
                                     [json.dumps(moved)]):
        rules[(rid, cid)].add(rule)
    return any("random" in r and "overlap" not in r for r in rules.values())


def _labelled_pairs(db: sqlite_utils.Database) -> frozenset[tuple[str, str]]:
    """The pairs never drawn as overlap pairs, as plain (run record, constraint) tuples: those with a human label event
    but without blind first labels of two reviewers. A pair labelled once is shown with its verdicts and label on
    the Calibration page (it awaits nobody's blind label), so a second reviewer given it later may have seen both,
    and their label would enter the human-human ceiling as blind (a review, wave 15: raising the overlap share did
    it). A pair two reviewers labelled blind (an imported double annotation) asks nobody for a label as an overlap
    pair: it may be one. Label events are never deleted and a blind first label never changes, so a pair's standing
    only moves from out to in when a second reviewer's blind label is imported, in both draws alike (each reads it
    when it draws)."""
    # a reviewer has one blind first label on a pair at most: a pair's count of them is its count of blind raters
    raters = Counter(map(operator.attrgetter("run_record_id", "constraint_id"), kept_blind_first(db).rows))
    twice = {pair for pair, n in raters.items() if n >= 2}
    return frozenset(db.execute("SELECT DISTINCT run_record_id, constraint_id FROM human_labels").fetchall()) - twice


def _overlap_ranks(seed: int, pop: tuple[str, str], pairs: list[Pair]) -> dict[Pair, bytes]:
    """`_rank(seed, f"overlap\x1f{population_key(*pop)}", p)` of each pair, the prefix made once."""
    prefix, sha256 = _rank_prefix(seed, f"overlap\x1f{population_key(*pop)}"), hashlib.sha256
    return {p: sha256(f"{prefix}{p[0]}\x1f{p[1]}".encode()).digest() for p in pairs}


def _store_fronts(db: sqlite_utils.Database, fronts: list[tuple]) -> None:
    """`draw_fronts` made to hold exactly `fronts`: only the rows that differ are deleted and inserted, in key order
    (a whole draw of a project that only grew rewrites few of them; issue 16.2: writing ~400k rows again was 1.4 s
    of a whole draw at a million run records). The table has no row ids, so the rows it holds are all there is."""
    fronts.sort()  # the primary key's order (kind, constraint, model, rank): b-tree appends
    if db.execute("SELECT 1 FROM draw_fronts LIMIT 1").fetchone() is None:
        db.conn.executemany("INSERT INTO draw_fronts (kind, constraint_id, model, rank, run_record_id)"
                            " VALUES (?,?,?,?,?)", fronts)
        return
    # The table in its key order (WITHOUT ROWID): the same list as the sorted fronts when nothing moved (a whole draw
    # of an unchanged project; Python orders str by code point and bytes bytewise, as SQLite's BINARY and BLOB do).
    old = db.execute("SELECT kind, constraint_id, model, rank, run_record_id FROM draw_fronts"
                     " ORDER BY kind, constraint_id, model, rank").fetchall()
    if old == fronts:
        return
    old = set(old)
    new = set(fronts)
    db.conn.executemany("DELETE FROM draw_fronts WHERE kind = ? AND constraint_id = ? AND model = ? AND rank = ?",
                        sorted(row[:4] for row in old - new))
    db.conn.executemany("INSERT INTO draw_fronts (kind, constraint_id, model, rank, run_record_id)"
                        " VALUES (?,?,?,?,?)", sorted(new - old))

def _seeds_hold(db: sqlite_utils.Database, populations: dict[tuple[str, str], _Population],
                promoted: set[tuple[str, str]]) -> bool:
    """Whether every population whose rows this draw promoted still has the committed seed its fronts are ranked
    under. A committed seed is the population's first random row's (`committed_seeds`); a promoted row is deleted
    and stored again, so the first row may now be another, with another seed (only rows written by hand or by
    another draw's seed differ). Nothing else moves a first row while the sample is the one a draw left."""
    for cid, model in promoted:
        row = db.execute("SELECT s.seed FROM samples s JOIN run_records r ON r.id = s.run_record_id"
                         " WHERE s.rule = 'random' AND s.constraint_id = ? AND r.model = ? ORDER BY s.rowid LIMIT 1",
                         [cid, model]).fetchone()
        if row is not None and int(row[0] or 0) != populations[(cid, model)].seed:
            return False
    return True


def _stratum_of(pair: Pair, model: str, rubrics: str | None) -> str:
    """The stratum a drawn pair is recorded in: its first rubric version's (smallest sha), else unjudged."""
    return stratum_key(pair.constraint_id, model, min(rubrics.split(",")) if rubrics else None)


def _rank_of(c: _Candidate) -> bytes:
    return c.rank


class DrawRefused(ValueError):
    """A draw the project's ids make impossible (two populations of one stratum name); nothing was drawn."""


def seed_for_draw(db: sqlite_utils.Database, seed: int, *, run_id: str | None = None,
                  paired: tuple[str, str, Collection[str]] | None = None) -> tuple[int, tuple[str, ...]]:
    """The seed a draw commits new draw orders under, and the judged populations that kept it from the named one.

    A named seed (not `DEFAULT_SEED`) is used only while no population the draw would start holds a verdict row
    (a label or an error). With the verdicts in view, a seed can be searched for whose front holds no judge error and
    no split repeat, the pairs where the judge is likely right (wave 15's review: such a search took the demo's
    pass/fail agreement from 69.3% to 89.8%); so once one of them is judged the draw commits judgecal's fixed order,
    `DEFAULT_SEED`, for every population it starts, and names the judged ones (the command prints them). Populations
    a first draw already committed keep their seed, as before. `run_id`: the run's populations (`sample --run-id`),
    judged on any run's records, since the run's draw commits the whole population's order; `paired`: the two runs
    of a paired draw and the constraint ids both answered (the keys it can start). Reads only when a seed is
    named."""
    if seed == DEFAULT_SEED:
        return seed, ()
    r_index = pair_indexes(db)[0]
    if paired is not None:
        run_a, run_b, answered = paired
        committed = {r[0] for r in db.execute("SELECT DISTINCT stratum FROM samples WHERE rule = ?", [PAIRED])}
        late = sorted(cid for (cid,) in db.execute(
            f"SELECT DISTINCT v.constraint_id FROM run_records r{r_index} JOIN verdict_pairs v"
            " ON v.run_record_id = r.id WHERE r.run_id IN (?, ?)", [run_a, run_b])
            if cid in answered and paired_key(run_a, run_b, cid) not in committed)
        judged = tuple(f"{cid} (runs {run_a} and {run_b})" for cid in late)
    else:
        pops = {(cid, model) for cid, model in db.execute(
            f"SELECT DISTINCT v.constraint_id, r.model FROM verdict_pairs v CROSS JOIN run_records r{r_index}"
            " ON r.id = v.run_record_id")}
        if run_id is not None:
            pops &= {(cid, model) for cid, model in db.execute(
                f"SELECT DISTINCT c.id, r.model {_SEMANTIC_PAIRS} AND r.run_id = ?", [run_id])}
        judged = tuple(f"{cid} × {model}" for cid, model in sorted(pops - set(committed_seeds(db))))
    return (DEFAULT_SEED, judged) if judged else (seed, ())


def named_seeds(db: sqlite_utils.Database) -> dict[int, tuple[str, ...]]:
    """Seed -> the draw orders with a random or paired row under it, for every seed other than `DEFAULT_SEED`:
    populations ("constraint × model") and paired samples (their key). Empty when every random and
    paired row is in judgecal's fixed order, which one scan of the sample rows says (~0.06 s at a million run
    records). A named seed is used only before a population is judged (`seed_for_draw`), but it can have been chosen
    with the verdicts known elsewhere, or arrive in an imported file that claims an early `drawn_at`: the report and
    the gate say which orders rest on one."""
    if db.execute("SELECT 1 FROM samples WHERE rule IN ('random', ?) AND coalesce(seed, 0) != ? LIMIT 1",
                  [PAIRED, DEFAULT_SEED]).fetchone() is None:
        return {}
    found: dict[int, set[str]] = defaultdict(set)
    # any random row, not only each population's first: a first row can move (a promoted run row is written again)
    r_index = pair_indexes(db)[0]
    for cid, model, seed in db.execute(
            f"SELECT DISTINCT s.constraint_id, r.model, s.seed FROM samples s CROSS JOIN run_records r{r_index}"
            " ON r.id = s.run_record_id WHERE s.rule = 'random' AND coalesce(s.seed, 0) != ?", [DEFAULT_SEED]):
        found[int(seed)].add(f"{cid} × {model}")
    for key, seed in db.execute("SELECT DISTINCT stratum, seed FROM samples WHERE rule = ? AND coalesce(seed, 0) != ?",
                                [PAIRED, DEFAULT_SEED]):
        found[int(seed)].add(key)
    return {seed: tuple(sorted(orders)) for seed, orders in sorted(found.items())}


def named_seeds_note(seeds: dict[int, tuple[str, ...]]) -> str:
    """One sentence for the report and the gate: which draw orders rest on a named seed."""
    parts = "; ".join(f"seed {seed}: {len(orders)} ({', '.join(orders[:2])}{', …' if len(orders) > 2 else ''})"
                      for seed, orders in seeds.items())
    return (f"{sum(map(len, seeds.values()))} draw order(s) rest on a named seed, not judgecal's fixed order "
            f"(seed {DEFAULT_SEED}): {parts}. A draw uses a named seed only before the population is judged, but a "
            "seed chosen with the verdicts known elsewhere, or an imported sample, could still pick a flattering "
            "sample: ask who named it and when")


def seed_note(seed: int, judged: tuple[str, ...]) -> str:
    """What a command prints when `seed_for_draw` did not use the named seed."""
    shown = ", ".join(judged[:3]) + (f" and {len(judged) - 3} more" if len(judged) > 3 else "")
    return (f"note: seed {seed} was not used: {len(judged)} population(s) this draw starts already hold judge "
            f"verdicts ({shown}), and a seed named with the verdicts in view could choose a flattering sample; the "
            f"draw committed judgecal's fixed order (seed {DEFAULT_SEED}). A seed is used by a draw made before the "
            "judge runs.")


def _refuse_shared_names(keys: Iterable[StratumKey]) -> None:
    """DrawRefused when two constraint × model populations make one stratum name (`stratum_key` joins with '|': the
    name is `sample_strata`'s key and what every report and export shows)."""
    named: dict[str, StratumKey] = {}
    for key in keys:
        other = named.setdefault(key.stratum, key)
        if other != key:
            a, b = sorted([other, key], key=lambda k: (k.constraint_id, k.model))
            raise DrawRefused(f"constraint {a.constraint_id!r} × model {a.model!r} and constraint {b.constraint_id!r} "
                             f"× model {b.model!r} make one stratum name, {key.stratum!r} (a '|' in a constraint id "
                             "or a model name): rename one of them; nothing was drawn")


def _store_quotas(db: sqlite_utils.Database, rate: float, stamp: str, include_unjudged: bool,
                  populations: dict[tuple[str, str], _Population], judged: Counter, sampled: Counter) -> None:
    """Each stratum's quota from the draw's counts: judged strata, and (unless --judged-only) each population's
    unjudged pairs. `needed` is over the whole population (a version is gated on the pairs it will be used on)."""
    strata = {StratumKey(*key): n for key, n in judged.items() if n}
    got = Counter({StratumKey(*key): n for key, n in sampled.items()})
    if include_unjudged:
        for pop, state in populations.items():
            if state.unjudged:
                key = StratumKey(*pop, None)
                strata[key], got[key] = state.unjudged, state.unjudged_sampled
    _refuse_shared_names(strata)
    db.conn.execute("DELETE FROM sample_strata")
    rows = []
    for key, n in sorted(strata.items(), key=lambda kv: kv[0].stratum):
        size = max(n, populations[(key.constraint_id, key.model)].with_output)
        rows.append((key.stratum, key.constraint_id, key.model, key.rubric_sha256, n, got[key], quota(rate, size),
                     rate, stamp, size))
    db.conn.executemany("INSERT INTO sample_strata (stratum, constraint_id, model, rubric_sha256, judged, sampled,"
                        " needed, rate, drawn_at, population) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)


# A draw stores each population's first pairs by draw rank beyond its quota: the quota ceil(rate × N) grows with N,
# and the pairs that then enter are the ones just behind the drawn front. New pairs land in the stored range in
# proportion to it, so twice the quota stays about twice the quota as a project grows; the spare covers small
# populations (which are then stored whole).
_SPARE = 64


def _front_size(want: int) -> int:
    return 2 * want + _SPARE


@dataclass
class _Population:
    """What a draw leaves of one constraint × model population for the next (`_draw_since`). Counts are over its
    members: semantic pairs with output, and judged pairs without (what `_draw_pass` reads)."""

    seed: int
    size: int = 0
    with_output: int = 0
    unjudged: int = 0
    unjudged_sampled: int = 0
    drawn: int = 0  # members with a random row of the population draw (not one run's)
    overlapped: int = 0  # of those, the ones with an overlap row
    through: bytes | None = None  # rank of the last pair of the drawn front; None: not drawn (--judged-only)
    drawn_count: int = 0  # the quota the drawn front holds
    bound: bytes | None = None  # `draw_fronts` 'random' holds every member ranked <= bound; None: every member
    front: int = 0
    obound: bytes | None = None  # 'overlap' holds every drawn member without an overlap row ranked <= obound
    ofront: int = 0

    _BYTES = ("through", "bound", "obound")

    def to_json(self) -> list:
        return [v.hex() if k in self._BYTES and v is not None else v for k, v in vars(self).items()]

    @classmethod
    def from_json(cls, values: list) -> _Population:
        names = [f.name for f in fields(cls)]
        return cls(**{k: bytes.fromhex(v) if k in cls._BYTES and v is not None else v for k, v in zip(names, values)})


class _Drawn(NamedTuple):
    added: Counter
    since: dict | None  # what `_draw_since` starts from (stored in the draw's settings row); None: draw whole next


def _since(populations: dict[tuple[str, str], _Population], judged: Counter, sampled: Counter,
           unsized: dict[tuple[str, str], int]) -> dict:
    return {"populations": [[*pop, *state.to_json()] for pop, state in sorted(populations.items()) if state.size],
            "judged": [[*key, n] for key, n in sorted(judged.items()) if n],
            "sampled": [[*key, n] for key, n in sorted(sampled.items()) if n],
            "unsized": [[*pop, s] for pop, s in sorted(unsized.items())]}  # committed seeds of memberless pops


# The pairs a draw after new data has to look at: those of new run records and of new constraints, and those with
# new verdicts. Any other pair is as the last draw left it (only rows were added since, `_draw_since` checks).
_TOUCHED = """
    INSERT OR IGNORE INTO temp._touched (run_record_id, constraint_id)
    SELECT r.id, c.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL
    WHERE r.rowid > :r0
    UNION ALL
    SELECT r.id, c.id FROM constraints c JOIN run_records r ON r.item_id = c.item_id
    WHERE c.check_json IS NULL AND c.rowid > :c0
    UNION ALL
    SELECT run_record_id, constraint_id FROM verdicts WHERE id > :v0
"""
# Each touched pair now and at the last draw: new (its run record or constraint is), output, rubric versions.
_TOUCHED_PAIRS = """
    SELECT c.id, r.model, r.id, (r.output IS NOT NULL OR r.trajectory IS NOT NULL), r.rowid > :r0 OR c.rowid > :c0,
           (SELECT group_concat(DISTINCT v.rubric_sha256) FROM verdicts v
            WHERE v.run_record_id = r.id AND v.constraint_id = c.id),
           (SELECT group_concat(DISTINCT v.rubric_sha256) FROM verdicts v
            WHERE v.run_record_id = r.id AND v.constraint_id = c.id AND v.id <= :v0)
    FROM temp._touched t  -- CROSS JOIN: in this order (the temp table has no statistics to plan by)
    CROSS JOIN run_records r ON r.id = t.run_record_id
    CROSS JOIN constraints c ON c.item_id = r.item_id AND c.id = t.constraint_id AND c.check_json IS NULL
"""


def _is_scoped(reason: str | None) -> bool:
    """`_run_scoped`'s test (SQL LIKE: ASCII case ignored) on one reason."""
    return reason is not None and reason[:len(RUN_REASON)].lower() == RUN_REASON


def _rules_of(db: sqlite_utils.Database, pair: Pair) -> dict[str, str | None]:
    return dict(db.execute("SELECT rule, reason FROM samples WHERE run_record_id = ? AND constraint_id = ?",
                           list(pair)).fetchall())


def _rubrics_of(db: sqlite_utils.Database, pair: Pair) -> str | None:
    return db.execute("SELECT group_concat(DISTINCT rubric_sha256) FROM verdicts WHERE run_record_id = ?"
                      " AND constraint_id = ?", list(pair)).fetchone()[0]


def _front(db: sqlite_utils.Database, kind: str, pop: tuple[str, str], after: bytes, n: int) -> list[tuple]:
    """The first `n` stored pairs of a population's front ranked above `after`, as (rank, run record id, 0)."""
    return [(rank, rid, 0) for rank, rid in db.execute(
        "SELECT rank, run_record_id FROM draw_fronts WHERE kind = ? AND constraint_id = ? AND model = ? AND rank > ?"
        " ORDER BY rank LIMIT ?", [kind, *pop, after, n])] if n > 0 else []


def _tally(state: _Population, counts: tuple[Counter, Counter], pop: tuple[str, str], rubrics: str | None,
           has_output: bool, drawn: bool, overlapped: bool, sign: int) -> None:
    """Add (sign 1) or take away (-1) one member's part of the population's and its strata's counts."""
    judged, sampled = counts
    shas = rubrics.split(",") if rubrics else ()
    state.size += sign
    state.with_output += sign * bool(has_output)
    state.unjudged += sign * (not shas)
    for sha in shas:
        judged[(*pop, sha)] += sign
    if drawn:
        _tally_drawn(state, sampled, pop, rubrics, overlapped, sign)


def _tally_drawn(state: _Population, sampled: Counter, pop: tuple[str, str], rubrics: str | None,
                 overlapped: bool, sign: int) -> None:
    """A member's part of the random sample's counts (`sampled` of its strata)."""
    shas = rubrics.split(",") if rubrics else ()
    state.drawn += sign
    state.overlapped += sign * overlapped
    state.unjudged_sampled += sign * (not shas)
    for sha in shas:
        sampled[(*pop, sha)] += sign


def _draw_since(db: sqlite_utils.Database, last: dict, state: list, rate: float, overlap: float, seed: int,
                include_unjudged: bool, stamp: str) -> _Drawn | None:
    """The draw after new data, from what the last draw stored (`since`, `draw_fronts`), or None when it cannot
    be (then the whole draw runs). It writes the rows the whole draw would, in the same order.

    Only when nothing but new rows arrived since: the sample, its quotas and the stored fronts are as the last draw
    left them, and verdicts, run records and constraints each hold the rows they held (same count below the old
    largest row id, same last rows) plus rows above it. Then only the touched pairs (`_TOUCHED`) can have changed:
    a population's members only grow, its quota with them. Its new front is the first ceil(rate × N) of the stored
    front and the new members ranked within it; the pairs up to the last draw's front are drawn already, so only
    the ones behind it and the new ones are looked up. Overlap pairs come from the stored overlap front and the
    newly drawn pairs; targeted pairs from the groups of the touched pairs (no other group changed)."""
    since, before = last.get("since"), last["state"]
    if not since or state[_APPENDED:] != before[_APPENDED:]:
        return None
    for k, (table, columns) in enumerate(_STATE_TABLES[:_APPENDED]):
        count, top, tail = before[k]
        new = db.execute(f"SELECT count(*) FROM {table} WHERE rowid > ?", [top]).fetchone()[0]
        if state[k][0] - count != new or _tail(db, table, columns, top) != tail:
            return None  # a row below the old top was deleted or replaced: not only new rows
    marks = {"v0": before[0][1], "r0": before[1][1], "c0": before[2][1]}
    # Another rate, overlap or seed than the last draw's: every population's quotas move, not only the touched ones'
    changed = any(last.get(k) != v for k, v in (("rate", rate), ("overlap", overlap), ("seed", seed)))
    if (last.get("overlap") == 0) != (overlap == 0):
        return None  # overlap fronts are kept only while overlap is drawn: none to start from, or none kept since
    try:
        populations = {(row[0], row[1]): _Population.from_json(row[2:]) for row in since["populations"]}
        counts = (Counter({tuple(row[:3]): row[3] for row in since["judged"]}),
                  Counter({tuple(row[:3]): row[3] for row in since["sampled"]}))
        unsized = {(row[0], row[1]): row[2] for row in since["unsized"]}
    except (KeyError, TypeError, ValueError, IndexError):
        return None  # not what this judgecal stores (another version's draw, a hand edit): draw whole
    if last.get("seed") != seed and any(st.through is None for st in populations.values()):
        return None  # a population never drawn has its fronts ranked under the last seed, no row committing it
    db.execute("CREATE TEMP TABLE IF NOT EXISTS _touched (run_record_id TEXT NOT NULL, constraint_id TEXT NOT NULL,"
               " PRIMARY KEY (run_record_id, constraint_id)) WITHOUT ROWID")
    db.execute("DELETE FROM temp._touched")
    db.execute(_TOUCHED, marks)
    rules: dict[Pair, dict[str, str | None]] = defaultdict(dict)
    for rid, cid, rule, reason in db.execute("SELECT s.run_record_id, s.constraint_id, s.rule, s.reason"
                                             " FROM temp._touched t JOIN samples s ON s.run_record_id ="
                                             " t.run_record_id AND s.constraint_id = t.constraint_id"):
        rules[Pair(rid, cid)][rule] = reason
    rubrics_now: dict[Pair, str | None] = {}
    touched_pops: set[tuple[str, str]] = set()
    new_members: dict[tuple[str, str], list[tuple]] = defaultdict(list)  # (rank, run record, 1) within the front
    fresh: dict[tuple[str, str], list[tuple]] = defaultdict(list)  # (overlap rank, run record, 1) within its front
    sha256 = hashlib.sha256

    def population(pop: tuple[str, str]) -> _Population:
        if pop not in populations:  # a new population: every member of it is a touched pair
            populations[pop] = _Population(unsized.get(pop, seed))
        return populations[pop]

    labelled = _labelled_pairs(db) if overlap else frozenset()
    if overlap and (not isinstance(last.get("labels_top"), int)
                    or _overlap_candidates_grew(db, last["labels_top"], labelled)):
        return None  # a pair the stored overlap fronts never held may be drawn now (or an older draw's settings)

    def add_fresh(pop: tuple[str, str], state: _Population, pair: Pair) -> None:
        if overlap and pair not in labelled:
            orank = _rank(state.seed, f"overlap\x1f{population_key(*pop)}", pair)
            if state.obound is None or orank <= state.obound:
                fresh[pop].append((orank, pair.run_record_id, 1))

    for cid, model, rid, has_output, is_new, now, then in db.execute(_TOUCHED_PAIRS, marks).fetchall():
        pop, pair = (cid, model), Pair(rid, cid)
        st = population(pop)
        rubrics_now[pair] = now
        touched_pops.add(pop)
        was = not is_new and bool(has_output or then is not None)
        member = bool(has_output or now is not None)
        r = rules.get(pair, {})
        drawn, overlapped = "random" in r and not _is_scoped(r["random"]), "overlap" in r
        if was:
            _tally(st, counts, pop, then, has_output, drawn, overlapped, -1)
        if member:
            _tally(st, counts, pop, now, has_output, drawn, overlapped, 1)
        if member and not was:
            rank = draw_rank(st.seed, *pop, pair)
            if st.bound is None or rank <= st.bound:
                new_members[pop].append((rank, rid, 1))
            if drawn and not overlapped:
                add_fresh(pop, st, pair)
    def rubrics_of(pair: Pair) -> str | None:
        return rubrics_now[pair] if pair in rubrics_now else _rubrics_of(db, pair)

    new_rows: list[tuple] = []
    promoted: list[Pair] = []
    promoted_pops: set[tuple[str, str]] = set()
    deletes: list[tuple] = []
    added: Counter = Counter()
    drawn_pops = sorted(p for p, st in populations.items() if st.size and (include_unjudged or st.size > st.unjudged))
    for pop in drawn_pops:
        if pop not in touched_pops and not changed:
            continue
        cid, model = pop
        st = populations[pop]
        want = quota(rate, st.size)
        mine = sorted(new_members.get(pop, []))
        if st.bound is not None and want > st.front + len(mine):
            return None  # the quota outgrew the stored front
        if st.through is None:  # drawn for the first time
            front = list(itertools.islice(heapq.merge(_front(db, "random", pop, b"", want), mine), want))
            candidates = front
        elif want < st.drawn_count or (mine and mine[0][0] <= st.through):
            # a lower rate (the front ends inside the drawn one: nothing to add but the new members ranked within
            # it), or new members within the drawn front pushing pairs out of it
            low = [(rank, None, 0) for (rank,) in db.execute(
                "SELECT rank FROM draw_fronts WHERE kind = 'random' AND constraint_id = ? AND model = ? AND rank <= ?"
                " ORDER BY rank", [*pop, st.through])]
            if len(low) != st.drawn_count:
                return None
            tail = _front(db, "random", pop, st.through, want - st.drawn_count)
            front = list(itertools.islice(heapq.merge(low, mine, tail), want))
            candidates = [c for c in front if c[1] is not None]
        else:  # every new member ranks behind the drawn front: it stays, and the next pairs join it
            tail = _front(db, "random", pop, st.through, want - st.drawn_count)
            candidates = list(itertools.islice(heapq.merge(mine, tail), want - st.drawn_count))
            front = [(st.through, None, 0)] * st.drawn_count + candidates
        if len(front) != want:
            return None
        st.through, st.drawn_count = front[-1][0], want
        for _r, rid, _n in candidates:
            pair = Pair(rid, cid)
            r = rules[pair] if pair in rubrics_now else _rules_of(db, pair)
            if "random" in r and not _is_scoped(r["random"]):
                continue  # drawn earlier (a higher rate, an import)
            if "random" in r:
                promoted.append(pair)
                promoted_pops.add(pop)
            else:
                added["random"] += 1
            rubrics = rubrics_of(pair)
            overlapped = "overlap" in r
            _tally_drawn(st, counts[1], pop, rubrics, overlapped, 1)
            new_rows.append((rid, cid, "random", _stratum_of(pair, model, rubrics), None, st.seed, stamp))
            if not overlapped:
                add_fresh(pop, st, pair)
        if overlap:
            need = quota(overlap, st.drawn) - st.overlapped
            mine_o = sorted(fresh.get(pop, []))
            if need > 0:
                if st.obound is not None and need > st.ofront + len(mine_o):
                    return None  # the overlap quota outgrew the stored overlap front
                # (a stored pair labelled since the front was stored is passed over: `_labelled_pairs`)
                picks = list(itertools.islice((f for f in heapq.merge(_front(db, "overlap", pop, b"", st.ofront), mine_o)
                                               if (f[1], cid) not in labelled), need))
                if len(picks) != need and st.obound is not None:
                    return None  # the front ran out; when it holds every candidate, fewer is the whole draw's answer
                for orank, rid, new in picks:
                    pair = Pair(rid, cid)
                    new_rows.append((rid, cid, "overlap", _stratum_of(pair, model, rubrics_of(pair)),
                                     "second reviewer", st.seed, stamp))
                    if not new:
                        deletes.append(("overlap", cid, model, orank))
                        st.ofront -= 1
                added["overlap"] += len(picks)
                st.overlapped += len(picks)
                picked = {rid for _o, rid, new in picks if new}
                fresh[pop] = [f for f in mine_o if f[1] not in picked]
    for pair, (stratum, reason) in _targeted(db, "temp._touched").items():
        if "targeted" not in rules.get(pair, {}):
            new_rows.append((pair[0], pair[1], "targeted", stratum, reason, seed, stamp))
            added["targeted"] += 1
    inserts = [("random", *pop, rank, rid) for pop, ms in new_members.items() for rank, rid, _n in ms]
    inserts += [("overlap", *pop, orank, rid) for pop, fs in fresh.items() for orank, rid, _n in fs]
    for pop, ms in new_members.items():
        populations[pop].front += len(ms)
    for pop, fs in fresh.items():
        populations[pop].ofront += len(fs)
    db.conn.executemany("DELETE FROM draw_fronts WHERE kind = ? AND constraint_id = ? AND model = ? AND rank = ?",
                        deletes)
    db.conn.executemany("INSERT INTO draw_fronts (kind, constraint_id, model, rank, run_record_id)"
                        " VALUES (?,?,?,?,?)", inserts)
    db.conn.executemany("DELETE FROM samples WHERE run_record_id = ? AND constraint_id = ? AND rule = 'random'",
                        promoted)
    db.conn.executemany("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                        " VALUES (?,?,?,?,?,?,?)", new_rows)
    populations = {pop: st for pop, st in populations.items() if st.size}
    _store_quotas(db, rate, stamp, include_unjudged, populations, *counts)
    unsized = {pop: s for pop, s in unsized.items() if pop not in populations}
    if not _seeds_hold(db, populations, promoted_pops):
        return _Drawn(added, None)
    return _Drawn(added, _since(populations, *counts, unsized))


# The arguments of the last `draw_sample` and what the project held then, so the review queue can top the sample up
# with the same rate, overlap and seed (`top_up_sample`) when verdicts or run records have arrived since.
DRAW_SETTING = "last_sample_draw"


class DrawSettings(NamedTuple):
    rate: float
    overlap: float
    seed: int
    include_unjudged: bool
    marks: tuple[int, ...]  # `_data_marks` at the draw


def _data_marks(db: sqlite_utils.Database) -> tuple[int, int, int]:
    """Rows only ever get added to these tables: their largest row ids change exactly when data arrives. Three
    O(1) look-ups (rowid b-tree ends), so a page rerun can ask."""
    return tuple(db.execute(f"SELECT coalesce(max(rowid), 0) FROM {t}").fetchone()[0]
                 for t in ("verdicts", "run_records", "constraints"))


def last_draw(db: sqlite_utils.Database) -> DrawSettings | None:
    """The settings of the last `draw_sample` (None when the sample was never drawn by this judgecal)."""
    row = db.execute("SELECT value FROM settings WHERE key = ?", [DRAW_SETTING]).fetchone()
    if row is None:
        return None
    d = json.loads(row[0])
    return DrawSettings(float(d["rate"]), float(d["overlap"]), int(d["seed"]), bool(d["include_unjudged"]),
                        tuple(d["marks"]))


def sample_is_stale(db: sqlite_utils.Database) -> bool:
    """Whether verdicts, run records or constraints arrived after the last draw: the stored quotas
    (`quota_progress`) may then be short of what `coverage` and the gate compute."""
    last = last_draw(db)
    return last is not None and tuple(last.marks) != _data_marks(db)


def top_up_sample(db: sqlite_utils.Database) -> SampleSummary | None:
    """Draw again with the last draw's rate, overlap and seed when the sample is stale (None when it is not, or was
    never drawn). The same function as `judgecal sample`, so the same draw order: it adds only what the new quotas
    need, the next pairs of each population's committed order (a named seed is set aside for populations judged
    since, `seed_for_draw`)."""
    last = last_draw(db)
    if last is None or not sample_is_stale(db):
        return None
    return draw_sample(db, rate=last.rate, overlap=last.overlap, seed=last.seed,
                       include_unjudged=last.include_unjudged)


class ReviewProgress(NamedTuple):
    """The Review page's progress line. Labels are counted per constraint × model population (every rubric
    version's stratum of a population shares its draw order and counted prefix, so summing strata would count one
    missing label once per version). `left` is the number of labels still missing (what the gate's coverage lines
    add up to); `strata_need_judge` counts rubric-version strata that have not judged their whole population (no
    label fixes those: `judgecal judge`)."""

    needed: int
    done: int
    strata_ok: int
    strata: int
    strata_need_judge: int
    stale: bool

    @property
    def left(self) -> int:
        return self.needed - self.done


def review_progress(db: sqlite_utils.Database, rows: list[StratumCoverage] | None = None) -> ReviewProgress:
    """Progress of the review sample from `quota_progress` (pass its rows if already read), per population."""
    rows = quota_progress(db) if rows is None else rows
    needed: dict[tuple[str, str], int] = {}
    done: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (r.constraint_id, r.model)
        needed[key] = max(needed.get(key, 0), r.needed)
        done[key] = max(done.get(key, 0), r.labelled)
    return ReviewProgress(sum(needed.values()), sum(min(done[k], needed[k]) for k in needed),
                          sum(r.ok for r in rows), len(rows), sum(r.unjudged > 0 for r in rows),
                          sample_is_stale(db))


def coverage(db: sqlite_utils.Database, rate: float = DEFAULT_RATE, *,
             include_unjudged: bool = False, run_id: str | None = None,
             version: tuple | None = None, counted: frozenset[Pair] | None = None) -> list[StratumCoverage]:
    """Exact review coverage of every stratum, from the current verdicts, samples and labels (one row per stratum,
    sorted by stratum). Reads every verdict: for the CLI, calibration and the CI gate, not for a page rerun
    (see `quota_progress`). `run_id`: the coverage of that run's pairs by its counted pairs (`counted_pairs`).

    `version`: a key that changes whenever verdicts, run records or constraints change (the calibration report's
    `verdicts_version`). With it, what does not depend on labels (populations, judged and sampled counts, the
    strata of the random pairs) is memoised under it and the samples' fingerprint, and only the counted pairs are
    read again: the Calibration page after a new label. `counted`: `counted_pairs(db, run_id=run_id).pairs` when the
    caller has it."""
    _check_rates(rate, 0)
    if version is None:
        parts = _coverage_parts(db, include_unjudged, run_id)
    else:
        parts = _memo(db, ("coverage_parts", include_unjudged, run_id), (version, _data_version(db)[0]),
                      lambda: _coverage_parts(db, include_unjudged, run_id, version))
    done = counted_pairs(db, run_id=run_id).pairs if counted is None else counted
    counts = {key: [judged, sampled, 0] for key, (judged, sampled) in parts.counts.items()}
    for key, records in parts.random_strata.items():
        if key in counts:  # with run_id, `done` holds the run's counted pairs only
            cid = key.constraint_id
            counts[key][2] = sum((rid, cid) in done for rid in records)
    # each population's size at the last draw; a run's: its pairs added after the last draw that saw the run
    drawn = ({} if run_id is not None else
             {(cid, model): n for cid, model, n in db.execute(
                 "SELECT constraint_id, model, max(population) FROM sample_strata GROUP BY 1, 2") if n is not None})
    added = _run_growth(db, run_id) if run_id is not None else {}
    rows = []
    for key in sorted(counts, key=lambda k: k.stratum):
        judged, sampled, labelled = counts[key]
        size = max(judged, parts.population[(key.constraint_id, key.model)])
        needed = quota(rate, size)
        complete = key.rubric_sha256 is None or judged >= size
        if run_id is not None:
            new = added.get((key.constraint_id, key.model), 0)
            grown = max(0, size - new) if new else None
        else:
            before = drawn.get((key.constraint_id, key.model))
            grown = before if before is not None and size > before else None
        rows.append(StratumCoverage(key.stratum, key.constraint_id, key.model, key.rubric_sha256, judged, sampled,
                                    labelled, needed, labelled >= needed and complete and grown is None, size,
                                    grown))
    return rows


class _CoverageParts(NamedTuple):
    """What `coverage` reads that labels do not change."""

    population: Counter[tuple[str, str]]
    counts: dict[StratumKey, tuple[int, int]]  # judged, in the random sample
    # the run record ids of the random-sample pairs of each stratum (the constraint is the stratum's), its
    # `strata_members` members: a pair with two rubric versions is in both (`_strata_of_random_pairs`)
    random_strata: dict[StratumKey, tuple[str, ...]]


def _tally_paths(db: sqlite_utils.Database) -> bool:
    """Whether the project has what `_pair_tally` and `_random_pairs` read: `verdict_pairs` (015), the covering
    indexes (018) and the index of the run records without output (022). Else (a project opened read-only before
    them) `coverage` reads its plain definition (`_coverage_parts_by_keys`)."""
    return has_verdict_pairs(db) and bool(pair_indexes(db)[0]) and _has_failed_index(db)


def _coverage_parts(db: sqlite_utils.Database, include_unjudged: bool, run_id: str | None,
                    version: tuple | None = None) -> _CoverageParts:
    if not _tally_paths(db):
        return _coverage_parts_by_keys(db, include_unjudged, run_id, version)
    tally = _pair_tally(db, run_id, version) if version is not None else _pair_tally_uncached(db, run_id)
    population = (population_sizes(db, run_id, version=version) if version is not None
                  else _population_count(db, run_id, tally.every))
    if version is not None:
        # both its readers now hold what they took from the pass (memoised under the same version): its slot goes
        # back to the memo's other tables (a page rerun reads them)
        _MEMO.pop((_db_file(db), ("pair_tally", run_id), version), None)
    strata, sampled = (_stored_random_pairs(db) if not include_unjudged and run_id is None
                       else _random_pairs(db, include_unjudged, run_id))
    counts = {key: (n, sampled.get(key, 0)) for key, n in tally.judged.items()}
    if include_unjudged:
        for pop, n in tally.unjudged_with_output(db, run_id).items():
            key = StratumKey(*pop, None)
            counts[key] = (n, sampled.get(key, 0))
    return _CoverageParts(population, counts, strata)


class _PairTally(NamedTuple):
    """One pass over the semantic pairs (run record × semantic constraint of its item, of one run with `run_id`)
    and their `verdict_pairs` rows, the strata of `strata_members` counted per constraint × model × rubric version
    (`_pair_tally_uncached`)."""

    judged: dict[StratumKey, int]  # distinct judged pairs per rubric version's stratum, output or not
    unjudged: dict[tuple[str, str], int]  # pairs without any verdict_pairs row, output or not
    every: Counter[tuple[str, str]] | None  # every pair per constraint × model, in that order, when the pass tells

    def unjudged_with_output(self, db: sqlite_utils.Database, run_id: str | None) -> dict[tuple[str, str], int]:
        """The unjudged pairs with output: less those of the run records without output (migration 022's index,
        few). A population left with none has no unjudged stratum, as in the join with the output condition."""
        in_run, run_args = (" AND r.run_id = ?", [run_id]) if run_id is not None else ("", [])
        c_index = pair_indexes(db)[1]
        failed = dict(((cid, model), n) for cid, model, n in db.execute(f"""
            SELECT c.id, r.model, count(*) FROM run_records r INDEXED BY run_records_failed
            CROSS JOIN constraints c{c_index} ON c.item_id = r.item_id AND c.check_json IS NULL
            WHERE r.output IS NULL AND r.trajectory IS NULL{in_run}
              AND NOT EXISTS (SELECT 1 FROM verdict_pairs vp WHERE vp.run_record_id = r.id AND vp.constraint_id = c.id)
            GROUP BY 1, 2""", run_args))
        return {pop: n - failed.get(pop, 0) for pop, n in self.unjudged.items() if n > failed.get(pop, 0)}


def _pair_tally(db: sqlite_utils.Database, run_id: str | None, version: tuple) -> _PairTally:
    """`_pair_tally_uncached`, memoised under `version` (the report's `verdicts_version`): `population_sizes` and
    `coverage` read the same pass. The whole project's is stored at write time (`store_pair_tally`)."""
    return _memo(db, ("pair_tally", run_id), version, lambda: _stored_tally(db, run_id))


def store_pair_tally(db: sqlite_utils.Database) -> None:
    """Store the whole project's pass over the semantic pairs (`_pair_tally_uncached`) unless the stored one is
    current (migration 023): `store_report_pass` calls it after the commands that write verdicts, so the `report` and
    `gate` after them read coverage's judged counts back (~4 s CPU at a million run records)."""
    if _tally_paths(db):
        _stored_tally(db, None)


def _stored_tally(db: sqlite_utils.Database, run_id: str | None) -> _PairTally:
    """`_pair_tally_uncached`; the whole project's read from `stored_aggregates` while verdicts, run records and
    constraints are unchanged (`stored_value`), one run's computed."""
    if run_id is not None:
        return _pair_tally_uncached(db, run_id)
    return stored_value(db, "pair_tally", [], ("verdicts", "run_records", "constraints"), _TALLY_CODE,
                        lambda: _pair_tally_uncached(db, None), _encode_tally, _decode_tally)


def _encode_tally(t: _PairTally) -> tuple[dict[str, Any], bytes]:
    return ({"judged": [[*key, n] for key, n in t.judged.items()],
             "unjudged": [[*pop, n] for pop, n in t.unjudged.items()],
             "every": None if t.every is None else [[*pop, n] for pop, n in t.every.items()]}, b"")


def _decode_tally(meta: dict[str, Any], data: bytes) -> _PairTally:
    """`_encode_tally`'s inverse, in the stored orders; ValueError for anything the pass could not have counted."""
    if data:
        raise ValueError("not a stored tally")
    every = meta["every"]
    return _PairTally({StratumKey(*key): n for key, n in _stored_counts(meta["judged"], 3).items()},
                      _stored_counts(meta["unjudged"], 2), None if every is None else Counter(_stored_counts(every, 2)))


def _pair_tally_uncached(db: sqlite_utils.Database, run_id: str | None) -> _PairTally:
    # Issue 16 item 2: the judged pairs of each stratum were counted from the distinct (run record, constraint,
    # rubric version) of `verdict_pairs`, each looked up in the run records and the constraints by its text keys
    # (two seeks a pair, the constraint's through its table row), and grouped on texts holding the rubric hash
    # (7-9 s CPU at a million run records). Here the semantic pairs are walked from the run records' covering index
    # (in key order) and the constraints of each item (one seek per run record), and each pair finds its
    # `verdict_pairs` rows through the table's unique index (one seek, covering): the same (run record,
    # constraint, rubric version) triples, as the key join checks them, in about half the time (4.9-5.7 s against
    # 9.3 s with the old samples join, one process at 1M, load ~3: the GROUP BY of 1.76M rows is ~2 s of it).
    # A pair with no row comes back once with a NULL version: the unjudged pairs (output or not) of its population.
    # A pair has one row per (rubric version, judge model): a stratum whose rows name one judge model holds
    # each pair once; one that names several may hold a pair twice, and is counted again by distinct run record
    # (one constraint id per item: within a stratum the run record is the pair).
    in_run, run_args = (" AND r.run_id = ?", [run_id]) if run_id is not None else ("", [])
    r_index, c_index = pair_indexes(db)
    semantic = (f"run_records r{r_index} CROSS JOIN constraints c{c_index} ON c.item_id = r.item_id"
                " AND c.check_json IS NULL")
    judged: dict[StratumKey, int] = {}
    unjudged: dict[tuple[str, str], int] = {}
    every: Counter[tuple[str, str]] = Counter()
    versions: Counter[tuple[str, str]] = Counter()  # the rubric versions found per constraint × model
    several: set[str] = set()  # rubric versions with a stratum judged by several judge models
    for cid, model, sha, n, low, high in db.execute(f"""
            SELECT c.id, r.model, vp.rubric_sha256, count(*), min(vp.judge_model), max(vp.judge_model)
            FROM {semantic}
            LEFT JOIN verdict_pairs vp ON vp.run_record_id = r.id AND vp.constraint_id = c.id
            WHERE 1{in_run}
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3""", run_args):
        every[(cid, model)] += n
        if sha is None:
            unjudged[(cid, model)] = n
            continue
        judged[StratumKey(cid, model, sha)] = n
        versions[(cid, model)] += 1
        if low != high:
            several.add(sha)
    if several:
        for cid, model, sha, n in db.execute(f"""
                SELECT c.id, r.model, vp.rubric_sha256, count(DISTINCT r.rowid) FROM {semantic}
                CROSS JOIN verdict_pairs vp ON vp.run_record_id = r.id AND vp.constraint_id = c.id
                WHERE vp.rubric_sha256 IN (SELECT value FROM json_each(?)){in_run}
                GROUP BY 1, 2, 3""", [json.dumps(sorted(several))] + run_args):
            judged[StratumKey(cid, model, sha)] = n
    # The rows of a constraint × model are its pairs when each pair has at most one verdict_pairs row there: one
    # rubric version judged by one judge model (or none). Else its population is counted apart.
    told = not several and all(k <= 1 for k in versions.values())
    return _PairTally(judged, unjudged, every if told else None)


# The code the stored tally was computed and encoded by (`stored_value`'s version: other code recomputes it).
_TALLY_CODE = code_digest(_pair_tally_uncached, _encode_tally, _decode_tally, _stored_counts)


def _random_pairs(db: sqlite_utils.Database, include_unjudged: bool, run_id: str | None
                  ) -> tuple[dict[StratumKey, tuple[str, ...]], Counter[StratumKey]]:
    """The strata of each random-sample pair (`_strata_of_random_pairs`), as the run record ids of each stratum's
    pairs, and the number of each stratum's judged pairs in the random sample (of the run's records with
    `run_id`): a pair has at most one random row, so they are counted from the same rows (issue 16 item 2: not a
    samples look-up per judged pair). Whether a pair's run record has output comes from migration 022's index of
    those without (the run records' table rows are not read), the run record's model and run from 018's covering
    index."""
    r_index, c_index = pair_indexes(db)
    # Without the unjudged strata a pair no version judged is in none: the verdict_pairs join is then an inner one,
    # and whether a run record has output is not read.
    failed, join = (("EXISTS (SELECT 1 FROM run_records f INDEXED BY run_records_failed"
                     " WHERE f.id = s.run_record_id AND f.output IS NULL AND f.trajectory IS NULL)", "LEFT JOIN")
                    if include_unjudged else ("0", "CROSS JOIN"))
    sql = f"""
        SELECT s.run_record_id, s.constraint_id, r.model, r.run_id, vp.rubric_sha256, {failed}
        FROM samples s
        CROSS JOIN run_records r{r_index} ON r.id = s.run_record_id
        CROSS JOIN constraints c{c_index} ON c.item_id = r.item_id AND c.id = s.constraint_id AND c.check_json IS NULL
        {join} verdict_pairs vp ON vp.run_record_id = s.run_record_id AND vp.constraint_id = s.constraint_id
        WHERE s.rule = 'random'
    """
    keys: dict[tuple[str, str, str | None], StratumKey] = {}
    members: dict[StratumKey, list[str]] = {}
    sampled: Counter[StratumKey] = Counter()
    last = None
    # A pair's rows are consecutive (its verdict_pairs rows, innermost, in (version, judge model) order): a
    # version's second judge model repeats the row before it.
    for rid, cid, model, run, sha, failed in db.execute(sql):
        if (rid, cid, sha) == last:
            continue
        last = (rid, cid, sha)
        if sha is None and not (include_unjudged and not failed):
            continue
        key = keys.get((cid, model, sha))
        if key is None:
            key = keys[(cid, model, sha)] = StratumKey(cid, model, sha)
            members[key] = []
        members[key].append(rid)
        if run_id is None or run == run_id:
            sampled[key] += 1
    return {key: tuple(rids) for key, rids in members.items()}, sampled


def _stored_random_pairs(db: sqlite_utils.Database, *, write: bool = False
                         ) -> tuple[dict[StratumKey, tuple[str, ...]], Counter[StratumKey]]:
    """`_random_pairs(db, False, None)` (the judged strata of the whole project's random pairs, what the report's and
    the gate's coverage read), from `stored_aggregates` while samples, run records, constraints and verdicts are
    unchanged (`stored_value`): only `sample` and the verdict writers store it (`store_sample_side`, `write`)."""
    return stored_value(db, "random_strata", [], ("samples", "run_records", "constraints", "verdicts"),
                        _RANDOM_CODE, lambda: _random_pairs(db, False, None), _encode_random, _decode_random,
                        write=write)


def _encode_random(value: tuple[dict[StratumKey, tuple[str, ...]], Counter[StratumKey]]
                   ) -> tuple[dict[str, Any], bytes]:
    # without a run every member is counted as sampled, in the same order: the counts are the members' (decoded so)
    strata = value[0]
    return ({"strata": [[*key, len(rids)] for key, rids in strata.items()],
             "records": [rid for rids in strata.values() for rid in rids]}, b"")


def _decode_random(meta: dict[str, Any], data: bytes
                   ) -> tuple[dict[StratumKey, tuple[str, ...]], Counter[StratumKey]]:
    """`_encode_random`'s inverse, in the stored orders; ValueError for anything `_random_pairs` could not make."""
    rows, records = meta["strata"], meta["records"]
    if data or not isinstance(rows, list) or not isinstance(records, list):
        raise ValueError("not stored random strata")
    if not all(isinstance(r, str) for r in records):
        raise ValueError("stored random strata name a run record that is not text")
    strata: dict[StratumKey, tuple[str, ...]] = {}
    at = 0
    for key, n in _stored_counts(rows, 3).items():
        strata[StratumKey(*key)] = tuple(records[at:at + n])
        at += n
    if at != len(records):
        raise ValueError("stored random strata hold more or fewer run records than their counts")
    return strata, Counter({key: len(rids) for key, rids in strata.items()})


# The code the stored random strata were computed and encoded by (`stored_value`'s version).
_RANDOM_CODE = code_digest(_random_pairs, _encode_random, _decode_random, _stored_counts)


def _coverage_parts_by_keys(db: sqlite_utils.Database, include_unjudged: bool, run_id: str | None,
                            version: tuple | None = None) -> _CoverageParts:
    """`coverage`'s parts as defined: each judged pair joined to its run record and constraint by its keys and to
    its random row. For a project without migrations 015, 018 or 022 (opened read-only), and the tests' reference
    for `_pair_tally` and `_random_pairs`."""
    population = population_sizes(db, run_id, version=version)
    # `run_id`: only that run's records (the same SQL with one more condition)
    in_run, run_args = (" AND r.run_id = ?", [run_id]) if run_id is not None else ("", [])
    # The members of each stratum are those of `strata_members`, counted in SQL (issue 16.2: the pairs themselves
    # are never read): judged pairs from the distinct (rubric version, constraint, run record) of the verdicts, and
    # which of them are in the random sample. Only the counted pairs, all in the random sample, are looked up one by
    # one, to find their strata.
    # With migration 015 the distinct judged pairs come from `verdict_pairs` (a third of the rows, in run record
    # order: the run records are then looked up in one sweep, not once per rubric × constraint).
    distinct = ("SELECT DISTINCT run_record_id, constraint_id, rubric_sha256 FROM verdict_pairs"
                if has_verdict_pairs(db) else "SELECT DISTINCT rubric_sha256, constraint_id, run_record_id FROM verdicts")
    # Migration 018's covering indexes make each run record and constraint look-up one seek (8.8 -> 5.2 s CPU at a
    # million run records); CROSS JOIN keeps SQLite from reordering the joins around a forced index (which turned a
    # 0.8 s query into minutes at 100k).
    r_index, c_index = pair_indexes(db)
    counts: dict[StratumKey, tuple[int, int]] = {}
    for cid, model, sha, judged, sampled in db.execute(f"""
            SELECT v.constraint_id, r.model, v.rubric_sha256, count(*), count(s.run_record_id)
            FROM ({distinct}) v
            CROSS JOIN run_records r{r_index} ON r.id = v.run_record_id
            CROSS JOIN constraints c{c_index} ON c.item_id = r.item_id AND c.id = v.constraint_id AND c.check_json IS NULL
            LEFT JOIN samples s ON s.run_record_id = v.run_record_id AND s.constraint_id = v.constraint_id
                                AND s.rule = 'random'
            WHERE 1{in_run}
            GROUP BY 1, 2, 3""", run_args):
        counts[StratumKey(cid, model, sha)] = (judged, sampled)
    if include_unjudged:
        for cid, model, judged, sampled in db.execute(f"""
                SELECT c.id, r.model, count(*), count(s.run_record_id) {_SEMANTIC_PAIRS.replace(
                    "WHERE", "LEFT JOIN samples s ON s.run_record_id = r.id AND s.constraint_id = c.id"
                             " AND s.rule = 'random' WHERE")}
                AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run_record_id = r.id AND v.constraint_id = c.id)
                {in_run}
                GROUP BY 1, 2""", run_args):
            counts[StratumKey(cid, model, None)] = (judged, sampled)
    strata: dict[StratumKey, list[str]] = defaultdict(list)
    for (rid, _cid), key in _strata_of_random_pairs(db, include_unjudged):
        strata[key].append(rid)
    return _CoverageParts(population, counts, {key: tuple(rids) for key, rids in strata.items()})


def _strata_of_random_pairs(db: sqlite_utils.Database, include_unjudged: bool
                            ) -> Iterator[tuple[tuple[str, str], StratumKey]]:
    """The `strata_members` strata of each random-sample pair, one (pair, key) per pair and stratum."""
    judged = "verdict_pairs" if has_verdict_pairs(db) else "verdicts"  # one row per judge model, not per repeat
    sql = f"""
        SELECT DISTINCT s.run_record_id, s.constraint_id, r.model, v.rubric_sha256,
               (r.output IS NOT NULL OR r.trajectory IS NOT NULL) AS has_output
        FROM samples s
        JOIN run_records r ON r.id = s.run_record_id
        JOIN constraints c ON c.item_id = r.item_id AND c.id = s.constraint_id AND c.check_json IS NULL
        LEFT JOIN {judged} v ON v.run_record_id = s.run_record_id AND v.constraint_id = s.constraint_id
        WHERE s.rule = 'random'
    """
    # One StratumKey per stratum, shared by its pairs; the pair a plain tuple (equal to and hashed as the Pair it
    # is looked up with): 530k rows at a million run records.
    keys: dict[tuple[str, str, str | None], StratumKey] = {}
    for rid, cid, model, sha, has_output in db.execute(sql):
        if sha is None and not (include_unjudged and has_output):
            continue
        key = keys.get((cid, model, sha))
        if key is None:
            key = keys[(cid, model, sha)] = StratumKey(cid, model, sha)
        yield (rid, cid), key


def _random_pair_versions(db: sqlite_utils.Database, version: tuple) -> dict[Pair, tuple[str | None, ...]]:
    """Each random-sample pair -> the rubric versions that judged it ((None,) when none has: its stratum is its
    population's unjudged one)."""
    return _memo(db, "random_pair_versions", version, lambda: _random_pair_versions_uncached(db))


def _random_pair_versions_uncached(db: sqlite_utils.Database) -> dict[Pair, tuple[str | None, ...]]:
    # One row per judge model under a version (migration 015), not per repeat; a pair's versions are told apart
    # below, not by a DISTINCT over every row. No run record is joined (issue 16.2): the model is the population's,
    # known to the caller from the draw orders.
    judged = "verdict_pairs" if has_verdict_pairs(db) else "verdicts"
    sql = f"""
        SELECT s.run_record_id, s.constraint_id, v.rubric_sha256
        FROM samples s
        LEFT JOIN {judged} v ON v.run_record_id = s.run_record_id AND v.constraint_id = s.constraint_id
        WHERE s.rule = 'random'
    """
    # Keyed by plain (run record, constraint) tuples, equal to and hashed as the Pair that looks them up; one
    # object per rubric version, not one per row (issue 16.2: 530k rows at 1M run records).
    names: dict[str | None, str | None] = {}
    out: dict[tuple[str, str], tuple[str | None, ...]] = {}
    for rid, cid, sha in db.execute(sql):
        sha = names.setdefault(sha, sha)
        got = out.get((rid, cid))
        if got is None:
            out[(rid, cid)] = (sha,)
        elif sha not in got:
            out[(rid, cid)] = (*got, sha)
    return out


def quota_progress(db: sqlite_utils.Database, version: tuple | None = None) -> list[StratumCoverage]:
    """Coverage of the strata as of the last draw (quotas stored by `draw_sample`), with the labels as they are now.

    Cost grows with the number of labels, sampled pairs and strata, not with the number of run records or verdicts,
    so the review page can call it on every rerun (the population of each stratum is stored by the draw). Equals
    `coverage(rate, include_unjudged=True)` until new verdicts arrive; then it lags until the next `judgecal sample`.
    `version`: the key its memoised tables are kept under, `_data_version(db)` (reads every sample row) unless the
    caller gives a cheaper one that changes with the same data (the Review page: `review_quota`).
    """
    strata = list(db.query("SELECT * FROM sample_strata ORDER BY stratum"))
    version = _data_version(db) if version is None else version
    counted = counted_pairs(db, version)
    labelled: Counter[str] = Counter()
    versions = _random_pair_versions(db, version)
    names: dict[tuple[str, str, str | None], str] = {}
    for (cid, model), order in counted.order.items():  # a pair's strata: its population's, per rubric version
        for pair in order[:counted.prefix[(cid, model)]]:
            for sha in versions.get(pair, ()):
                name = names.get((cid, model, sha))
                if name is None:
                    name = names[(cid, model, sha)] = stratum_key(cid, model, sha)
                labelled[name] += 1
    rows = []
    for s in strata:
        size = max(s["judged"], s["population"] or 0)
        complete = s["rubric_sha256"] is None or s["judged"] >= size
        n = labelled[s["stratum"]]
        rows.append(StratumCoverage(s["stratum"], s["constraint_id"], s["model"], s["rubric_sha256"], s["judged"],
                                    s["sampled"], n, s["needed"], n >= s["needed"] and complete, size))
    return rows


# --------------------------------------------------------------------------- export / import of the sample


def sample_export_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    """Every sample row in the order it was drawn, in the import format."""
    from judgecal.annotations.review._sample_rows import SampleRow  # noqa: PLC0415 (pydantic loads with the export)

    for row in db.query("SELECT run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at FROM samples"
                        " ORDER BY rowid"):
        yield SampleRow.model_validate(row).model_dump(mode="json", exclude_none=True)


# The rows one `import samples` adds, with the file line of each (rowid of the sample row -> line): the whole-file
# draw checks read them back population by population, so the import holds one chunk and one population at a time.
_IMPORTED = "temp._imported_samples"


def _not_a_draw(db: sqlite_utils.Database, file: str) -> Iterator[Problem]:
    """Problems for a population whose imported random rows are not the front of its draw order: `sample` draws the
    first ceil(rate × N) pairs of the order under the committed seed (the first row's), so an exported sample is
    such a prefix. Any other set was chosen, not drawn (a file naming only the pairs where the judge is right became
    the counted set). A project whose population grew after its draw exports a sample that is not a prefix of the
    grown population's order; it is refused too: draw the sample in the new project (`judgecal sample`)."""
    rows = db.execute(f"SELECT s.constraint_id, r.model, s.run_record_id, s.reason, s.seed, i.line, s.drawn_at"
                      f" FROM samples s JOIN {_IMPORTED} i ON i.sample_rowid = s.rowid"
                      f" JOIN run_records r ON r.id = s.run_record_id"
                      f" WHERE s.rule = 'random' ORDER BY s.constraint_id, r.model, s.rowid")
    for pop, group in itertools.groupby(rows, key=lambda row: (row[0], row[1])):
        cid, mod = pop
        seed = first_line = drawn_at = None
        wanted: set[Pair] = set()
        # Rows drawn for one run (`sample --run-id`) are the front of the order restricted to that run's records;
        # the population draw's rows are the front of the whole order. `wanted` holds the population draw's rows
        # only: a pair has one random row (the samples' key), so no row is in both.
        scoped: dict[str, set[Pair]] = defaultdict(set)
        mixed = None  # the first row under another seed: one population, one draw order
        for _, _, rid, reason, row_seed, line, row_drawn_at in group:
            if seed is None:
                seed, first_line, drawn_at = int(row_seed or 0), line, row_drawn_at
            elif int(row_seed or 0) != seed and mixed is None:
                mixed = (line, int(row_seed or 0))
            if reason and reason.startswith(RUN_REASON):
                scoped[reason[len(RUN_REASON):]].add(Pair(rid, cid))
            else:
                wanted.add(Pair(rid, cid))
        if mixed is not None:  # a draw writes one seed a population; a first row can move (promotion), so a mixed
            # file could hide its named seed behind a seed-0 row (a review, wave 16)
            yield Problem(file, mixed[0], "seed", f"{cid} × {mod}: seed {mixed[1]} here, seed {seed} on the "
                                                  f"population's first row (line {first_line}): one population has "
                                                  "one draw order, under one seed")
            continue
        judged_at = _first_verdict(db, "r.model = ?", [mod], cid) if seed != DEFAULT_SEED else None
        if judged_at is not None and judged_at <= instant(drawn_at):
            yield Problem(file, first_line, "seed", _late_seed(seed, f"{cid} × {mod}", judged_at, drawn_at))
            continue
        members = {Pair(rid, cid): run for rid, run in db.execute(
            f"SELECT r.id, r.run_id {_SEMANTIC_PAIRS} AND c.id = ? AND r.model = ?", [cid, mod])}
        for run, drawn in scoped.items():
            drawn = drawn | {p for p in wanted if members.get(p) == run}
            mine = [p for p, r in members.items() if r == run]
            front = set(draw_front(len(drawn), mine, seed, cid, mod))
            if front != drawn:
                yield Problem(file, first_line, "reason",
                              f"the rows drawn for run {run!r} of {cid} × {mod} are not the first {len(drawn)} of its "
                              f"draw order restricted to that run: a sample is drawn, not chosen; draw it with "
                              "`judgecal sample --run-id`")
        if not wanted:
            continue
        front = set(draw_front(len(wanted), members, seed, cid, mod))
        if front != wanted:
            yield Problem(file, first_line, "run_record_id",
                          f"the random sample of {cid} × {mod} is not the first {len(wanted)} pairs of its draw order "
                          f"under seed {seed} ({len(wanted - front)} of its pairs were not drawn): a sample is drawn, "
                          "not chosen; draw it with `judgecal sample`")


def _first_verdict(db: sqlite_utils.Database, where: str, params: list, constraint_id: str) -> datetime | None:
    """The earliest `created_at` (as an instant: `instant`) of the verdict rows of the constraint's pairs whose run
    record matches `where` (on `r`), or None when none is stored."""
    stamps = [row[0] for row in db.execute(
        f"SELECT DISTINCT v.created_at FROM verdicts v JOIN run_records r ON r.id = v.run_record_id"
        f" WHERE v.constraint_id = ? AND {where}", [constraint_id, *params])]
    return min(map(instant, stamps)) if stamps else None


def _late_seed(seed: int, population: str, judged_at: datetime, drawn_at: str) -> str:
    return (f"{population} was drawn at {drawn_at} under seed {seed}, after its first judge verdict "
            f"({iso_utc(judged_at)}): a seed named after the verdicts can be chosen for a flattering sample, so only "
            f"judgecal's fixed order (seed {DEFAULT_SEED}) is taken for a population judged before its draw; draw it "
            "with `judgecal sample`")


def _not_a_paired_draw(db: sqlite_utils.Database, file: str, drawn: set[str]) -> Iterator[Problem]:
    """Problems for imported paired rows that are not the front of their (run pair, constraint) order under the
    first row's seed, or that join a paired sample already drawn (`drawn`: the paired keys stored before this
    import): a paired sample is drawn, not chosen."""
    rows = db.execute(f"SELECT s.stratum, s.run_record_id, s.constraint_id, s.seed, i.line, r.run_id, r.item_id,"
                      f" s.drawn_at"
                      f" FROM samples s JOIN {_IMPORTED} i ON i.sample_rowid = s.rowid"
                      f" JOIN run_records r ON r.id = s.run_record_id"
                      f" WHERE s.rule = ? ORDER BY s.stratum, s.rowid", [PAIRED])
    for key, group in itertools.groupby(rows, key=lambda row: row[0]):
        group = list(group)  # one paired sample: bounded by the units two runs share, not by the file
        _, _, cid, seed, line, _, _, drawn_at = group[0]
        other = next((row for row in group if int(row[3] or 0) != int(seed or 0)), None)
        if other is not None:
            yield Problem(file, other[4], "seed", f"{key}: seed {other[3]} here, seed {seed or 0} on its first row "
                                                  f"(line {line}): one paired sample, one draw order, one seed")
            continue
        pair_runs = sorted({row[5] for row in group})
        if key in drawn or len(pair_runs) != 2 or paired_key(*pair_runs, cid) != key:
            yield Problem(file, line, "stratum", f"{key}: not a paired draw of two runs, or that paired sample is "
                                                 "already drawn; draw it with `judgecal sample --paired`")
            continue
        seed = int(seed or 0)
        judged_at = _first_verdict(db, "r.run_id IN (?, ?)", pair_runs, cid) if seed != DEFAULT_SEED else None
        if judged_at is not None and judged_at <= instant(drawn_at):
            yield Problem(file, line, "seed", _late_seed(seed, f"the paired sample {key}", judged_at, drawn_at))
            continue
        population = [u for u in _paired_population(db, *pair_runs) if u.constraint_id == cid]
        units = {PairedUnit(row[6], cid) for row in group}
        front = set(heapq.nsmallest(len(units), population, key=lambda u: _paired_rank(seed, key, u.item_id)))
        if front != units:
            yield Problem(file, line, "run_record_id", f"the paired sample {key} is not the first {len(units)} items "
                                                       f"of its draw order under seed {seed}: a sample is drawn, not "
                                                       "chosen")


def import_samples(db: sqlite_utils.Database, source: Parsed[SampleRow] | Iterable[Parsed[SampleRow]]) -> int:
    """Insert an exported review sample (a whole `Parsed` or a `stream_rows` stream of chunks) in one write
    transaction; rows already stored are skipped. Every row must name a semantic pair of the project. A sample is
    drawn once: a file that would add random or overlap rows to a constraint × model population that already has a
    random sample is refused (its draw order is pre-committed; adding pairs to it could move which pairs count).

    Each chunk is checked against the project (its own rows looked up) and written; the checks that need a whole
    population (is it the front of its draw order?) read the written rows back one population at a time at the
    end. A bad row anywhere rolls back every chunk written before it: memory follows the chunk and the largest
    population, not the file."""
    conn = db.conn
    problems = ProblemLog()
    fresh_total = 0
    file = "<samples>"
    with write(db):
        drawn = set(committed_seeds(db))
        paired_drawn = {r[0] for r in conn.execute("SELECT DISTINCT stratum FROM samples WHERE rule = ?", [PAIRED])}
        conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_IMPORTED.split('.')[1]}"
                     " (sample_rowid INTEGER PRIMARY KEY, line INTEGER NOT NULL)")
        conn.execute(f"DELETE FROM {_IMPORTED}")
        try:
            for parsed in chunks(source):
                file = parsed.file
                problems.extend(parsed.problems)
                fresh = _fresh_rows(conn, parsed, drawn, problems)
                if problems.total:
                    continue  # the file is refused: read on only to report every problem
                for line, row in fresh:
                    cur = conn.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason,"
                                       " seed, drawn_at) VALUES (?,?,?,?,?,?,?)", row)
                    conn.execute(f"INSERT INTO {_IMPORTED} VALUES (?, ?)", [cur.lastrowid, line])
                fresh_total += len(fresh)
            if not problems.total:
                problems.extend(_not_a_draw(db, file))
                problems.extend(_not_a_paired_draw(db, file, paired_drawn))
            problems.raise_if_any()  # inside the transaction: raising rolls back every chunk already written
        finally:
            conn.execute(f"DELETE FROM {_IMPORTED}")
    return fresh_total


def _fresh_rows(conn: Any, parsed: Parsed[SampleRow], drawn: set[tuple[str, str]],
                problems: ProblemLog) -> list[tuple[int, tuple]]:
    """(line, row) for each row of the chunk that is new; a row that contradicts the project is a problem. Stored
    rows (earlier chunks' included: they are written) are looked up for this chunk's run records only."""
    ids = sorted({r.run_record_id for r in parsed.rows})
    model: dict[str, str] = {}
    pairs: set[Pair] = set()
    stored: set[tuple] = set()
    for start in range(0, len(ids), 900):  # SQLite caps bound parameters
        part = ids[start:start + 900]
        marks = ",".join("?" * len(part))
        for cid, rid, mod in conn.execute(f"SELECT c.id, r.id, r.model {_SEMANTIC_PAIRS} AND r.id IN ({marks})", part):
            pairs.add(Pair(rid, cid))
            model[rid] = mod
        stored.update(tuple(r) for r in conn.execute(
            "SELECT run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at FROM samples"
            f" WHERE run_record_id IN ({marks})", part))
    stored_keys = {r[:3]: r for r in stored}
    fresh: list[tuple[int, tuple]] = []
    for index, r in enumerate(parsed.rows):
        row = (r.run_record_id, r.constraint_id, r.rule, r.stratum, r.reason, r.seed, r.drawn_at)
        if (r.run_record_id, r.constraint_id) not in pairs:
            problems.extend([parsed.problem(index, "constraint_id", f"no semantic pair ({r.run_record_id!r}, "
                                                                    f"{r.constraint_id!r}) in the project")])
        elif row in stored:
            continue  # already in the project, or a repeat of a row earlier in the file
        elif row[:3] in stored_keys:
            problems.extend([parsed.problem(index, "rule", "this pair is already in the sample under this rule, "
                                                           "with other fields")])
        elif r.rule not in ("targeted", PAIRED) and (r.constraint_id, model[r.run_record_id]) in drawn:
            problems.extend([parsed.problem(index, "rule", f"{r.constraint_id} × {model[r.run_record_id]} already "
                                                           "has a random sample: its draw order is pre-committed")])
        else:
            fresh.append((parsed.lines[index], row))
            stored.add(row)
            stored_keys[row[:3]] = row
    return fresh


# --------------------------------------------------------------------------- the paired sample (issue 15.1)
#
# The per-population draws above are independent across models, so two runs' labelled pairs share few items (90 of
# 600 in issue 15's simulation) and cannot support a paired estimate of their difference. `draw_paired` draws items:
# one pre-committed order per (run pair, constraint id), a hash of (seed, key, item id), and the first
# ceil(rate × U) units (item × constraint answered by both runs) go to review with every record of the item in BOTH
# runs (rule `paired`, stratum = the key). The counted-pairs rule carries over: the counted units are the longest
# prefix of that order whose pairs in both runs all carry a blind first label (`paired_counted`).

PAIRED = "paired"


class PairedUnit(NamedTuple):
    item_id: str
    constraint_id: str


def paired_key(run_a: str, run_b: str, constraint_id: str) -> str:
    """The population key (stored as the rows' stratum) of a paired draw: the run ids sorted, so `compare B A` finds
    the sample drawn for A B."""
    lo, hi = sorted((run_a, run_b))
    return f"{PAIRED}|{lo}|{hi}|{constraint_id}"


def _paired_rank(seed: int, key: str, item_id: str) -> bytes:
    return hashlib.sha256(f"{seed}\x1f{key}\x1f{item_id}".encode()).digest()


def _paired_population(db: sqlite_utils.Database, run_a: str, run_b: str) -> dict[PairedUnit, list[Pair]]:
    """Every unit answered by both runs (semantic constraint with output in each) -> its pairs in both runs."""
    sides: dict[PairedUnit, dict[str, list[Pair]]] = defaultdict(lambda: {run_a: [], run_b: []})
    for cid, rid, item, run in db.execute(f"SELECT c.id, r.id, r.item_id, r.run_id {_SEMANTIC_PAIRS}"
                                          " AND r.run_id IN (?, ?) ORDER BY r.seq", [run_a, run_b]):
        sides[PairedUnit(item, cid)][run].append(Pair(rid, cid))
    return {u: s[run_a] + s[run_b] for u, s in sides.items() if s[run_a] and s[run_b]}


class PairedDraw(NamedTuple):
    units: int  # units answered by both runs
    drawn: int  # units in the paired sample
    added_pairs: int
    seed_not_used: tuple[str, ...] = ()  # as `SampleSummary`'s


def draw_paired(db: sqlite_utils.Database, run_a: str, run_b: str, *, rate: float = DEFAULT_RATE,
                seed: int = DEFAULT_SEED) -> PairedDraw:
    """Top up the paired sample of two runs: per constraint id, the first ceil(rate × U) units of the committed
    order (U: units both runs answered), every pair of each unit in both runs. One transaction; idempotent; the
    seed is committed by the first paired draw of each (run pair, constraint) (later draws reuse it). ValueError for
    an unknown run, the same run twice, or two runs that share no answered item."""
    _check_rates(rate, 0)
    if run_a == run_b:
        raise ValueError(f"--paired needs two different runs, got {run_a!r} twice")
    known = {r[0] for r in db.execute("SELECT DISTINCT run_id FROM run_records WHERE run_id IN (?, ?)",
                                      [run_a, run_b])}
    for run in (run_a, run_b):
        if run not in known:
            raise ValueError(f"no run records with run_id {run!r}")
    stamp = now_iso()
    with write(db):
        population = _paired_population(db, run_a, run_b)
        if not population:
            raise ValueError(f"runs {run_a!r} and {run_b!r} share no item with a semantic constraint both answered")
        seed, set_aside = seed_for_draw(db, seed, paired=(run_a, run_b, {u.constraint_id for u in population}))
        stored = {Pair(rid, cid) for rid, cid in db.execute(
            "SELECT run_record_id, constraint_id FROM samples WHERE rule = ?", [PAIRED])}
        seeds = {stratum: int(s or 0) for stratum, s in db.execute(
            "SELECT stratum, seed FROM samples WHERE rowid IN (SELECT min(rowid) FROM samples WHERE rule = ?"
            " GROUP BY stratum)", [PAIRED])}
        by_cid: dict[str, list[PairedUnit]] = defaultdict(list)
        for unit in population:
            by_cid[unit.constraint_id].append(unit)
        rows, drawn = [], 0
        for cid in sorted(by_cid):
            key = paired_key(run_a, run_b, cid)
            key_seed = seeds.setdefault(key, seed)
            units = heapq.nsmallest(quota(rate, len(by_cid[cid])), by_cid[cid],
                                    key=lambda u: _paired_rank(key_seed, key, u.item_id))
            drawn += len(units)
            for unit in units:
                rows += [(p[0], p[1], PAIRED, key, None, key_seed, stamp) for p in population[unit] if p not in stored]
        db.conn.executemany("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, reason, seed, drawn_at)"
                            " VALUES (?,?,?,?,?,?,?)", rows)
    return PairedDraw(len(population), drawn, len(rows), set_aside)


class PairedSample(NamedTuple):
    """The paired sample of two runs: each constraint's sampled units in draw order, how many of them count (the
    prefix whose pairs all carry a blind first label, in both runs), and the counted units."""

    order: dict[str, tuple[PairedUnit, ...]]  # constraint id -> units in draw order
    prefix: dict[str, int]
    counted: frozenset[PairedUnit]

    @property
    def drawn(self) -> int:
        return sum(len(o) for o in self.order.values())


def paired_drawn(db: sqlite_utils.Database, run_a: str, run_b: str) -> bool:
    """Whether a paired sample of `run_a` and `run_b` was drawn: `paired_counted(...).drawn > 0`, asked of one index
    row instead of every blind label and both runs' records (`compare` of runs without one, the usual case, paid
    ~2.4 s for it at a million run records)."""
    lo, hi = sorted((run_a, run_b))
    prefix_key = f"{PAIRED}|{lo}|{hi}|"
    # the range lets samples_stratum answer: the keys that start with the prefix ('|' + 1 is '}')
    return db.execute("SELECT 1 FROM samples s JOIN run_records r ON r.id = s.run_record_id"
                      " WHERE s.stratum >= ? AND s.stratum < ? AND s.rule = ? AND substr(s.stratum, 1, ?) = ?"
                      " LIMIT 1", [prefix_key, prefix_key[:-1] + "}", PAIRED, len(prefix_key), prefix_key]
                      ).fetchone() is not None


def paired_counted(db: sqlite_utils.Database, run_a: str, run_b: str) -> PairedSample:
    """The counted units of the paired sample of `run_a` and `run_b` (see the section comment): the prefix of each
    constraint's draw order whose items have a blind first label on every record with output in both runs (a record
    added after the draw stops the prefix there until it is labelled; `sample --paired` again puts it in the
    sample)."""
    lo, hi = sorted((run_a, run_b))
    prefix_key = f"{PAIRED}|{lo}|{hi}|"
    blind = {Pair(r["run_record_id"], r["constraint_id"]) for r in kept_blind_first(db).rows}
    units: dict[str, dict[PairedUnit, list[tuple[str, Pair]]]] = defaultdict(lambda: defaultdict(list))
    seeds: dict[str, int] = {}
    for rid, cid, stratum, seed, item, run in db.execute(
            "SELECT s.run_record_id, s.constraint_id, s.stratum, s.seed, r.item_id, r.run_id FROM samples s"
            " JOIN run_records r ON r.id = s.run_record_id WHERE s.rule = ? AND substr(s.stratum, 1, ?) = ?"
            " ORDER BY s.rowid", [PAIRED, len(prefix_key), prefix_key]):
        seeds.setdefault(stratum, int(seed or 0))
        units[stratum][PairedUnit(item, cid)].append((run, Pair(rid, cid)))
    # A unit is labelled when every record of its item in both runs carries a blind first label on the constraint,
    # records added after the draw included: adding a record to an awkward item cannot drop it from the labelled
    # units while the prefix runs on past it.
    records: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rid, item, run in db.execute("SELECT id, item_id, run_id FROM run_records WHERE run_id IN (?, ?)"
                                     " AND (output IS NOT NULL OR trajectory IS NOT NULL)", [run_a, run_b]):
        records[(item, run)].append(rid)
    order: dict[str, tuple[PairedUnit, ...]] = {}
    prefix: dict[str, int] = {}
    counted: set[PairedUnit] = set()
    for stratum, members in units.items():
        cid = stratum[len(prefix_key):]
        ranked = tuple(sorted(members, key=lambda u: _paired_rank(seeds[stratum], stratum, u.item_id)))
        k = 0
        for unit in ranked:
            current = [Pair(rid, cid) for run in (run_a, run_b) for rid in records[(unit.item_id, run)]]
            if not (all(records[(unit.item_id, run)] for run in (run_a, run_b))
                    and all(p in blind for p in current)):
                break
            k += 1
        order[cid], prefix[cid] = ranked, k
        counted.update(ranked[:k])
    return PairedSample(order, prefix, frozenset(counted))


def paired_order(db: sqlite_utils.Database) -> list[Pair]:
    """Every paired-sample pair in the order the review queue serves them: each (run pair, constraint) population
    in draw order, the populations interleaved, a unit's pairs together (run by run, in record order)."""
    seeds: dict[str, int] = {}
    units: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for rid, cid, stratum, seed, item in db.execute(
            "SELECT s.run_record_id, s.constraint_id, s.stratum, s.seed, r.item_id FROM samples s"
            " JOIN run_records r ON r.id = s.run_record_id WHERE s.rule = ? ORDER BY r.run_id, r.seq", [PAIRED]):
        seeds.setdefault(stratum, int(seed or 0))
        units[(stratum, item)].append(Pair(rid, cid))
    ranked: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for stratum, item in units:
        ranked[stratum].append((stratum, item))
    positions = []
    for stratum, keys in ranked.items():
        keys.sort(key=lambda k: _paired_rank(seeds[stratum], stratum, k[1]))
        positions += [(pos, stratum, key) for pos, key in enumerate(keys)]
    return [p for _pos, _s, key in sorted(positions) for p in units[key]]
