"""Calibration report: can the judge be trusted, with numbers.

One function, `calibration_report`, feeds the page, the CLI (`judgecal report`) and the CI gate. For each judge
model × rubric version it compares the judge with the humans on the pairs of the RANDOM review sample only (targeted
pairs were chosen because the judge looked unreliable, so their agreement is biased low; it is shown apart), overall,
per constraint id and per constraint type.

Conventions (stated once, used everywhere):

- Judge label of a pair = the majority over its repeats' labels (error rows are not labels). A tie (e.g. 1 × pass,
  1 × fail with two repeats) or a pair whose repeats all failed has no judge label: it stays in the majority
  statistics as the judge label `abstain` (an extra confusion row; humans never use it, so it can only count as a
  disagreement) and is counted (`excluded_tie`, `excluded_no_valid`; the names predate this rule). Dropping such
  pairs rewarded a judge for contradicting itself (LLMBar FairEval: 0.650 on the 46 agreeing pairs while each order
  alone is 0.513 / 0.395). Per repeat, an error row is that repeat's `abstain` the same way.
- Design weights: the quota is ceil(rate × N_s) per stratum (constraint × model under test × rubric version), so
  small strata are sampled at 33-100% and large ones at ~10%. `majority_weighted` weights each compared pair by
  N_s / n_s (judged pairs of its stratum / random labelled pairs of it): the design-weighted confusion table
  estimates the population's, and it is the headline (gate, report) with the unweighted `majority` beside it. Its
  interval uses Kish's effective sample size n_eff = (Σw)² / Σw².
- Intervals: `kappa_ci_low` / `kappa_ci_high` are `annotations.stats.kappa_interval` (within [-1, 1], never zero
  width, method in `kappa_ci_method`, `kappa_ci_approximate` below 30 pairs); the statsmodels-style Wald interval is
  kept beside it (`kappa_wald_low` / `kappa_wald_high`). `labels_needed` projects from that interval, never from a
  zero Wald SE.
- Human label of a pair = a reviewer's BLIND FIRST label (their first `label` event with blind=1). Where several
  reviewers labelled a pair, the reviewer who labelled it first gives the judge-vs-human label; the first two feed
  human-vs-human agreement on the overlap pairs. Later changes (blind=0, made with the judge's verdict in view) and
  labels given again after an undo are kept and shown, never used: each slice reports `changed_after_reveal`, how many
  of its counted pairs the first reviewer changed or withdrew later.
- Which pairs count: only the counted pairs (`annotations.review._sampling.counted_pairs`): per constraint × model, the
  longest prefix of the random sample's draw order whose pairs all carry a blind first label. Labels anywhere else
  (random but beyond the prefix, targeted only, never sampled) are non-random: each group reports them apart
  (`non_random`) and they never enter a kappa, a pass rate or the gate.
- Confusion matrices: rows = judge (or the first reviewer), columns = human (second reviewer), in label-set order.
- TPR / TNR are given only for pass/fail sets, with fail as the positive class: TPR = share of human-fail pairs the
  judge calls fail, TNR = share of human-pass pairs the judge calls pass.
- Gwet's AC1 and PABAK are always computed; `prevalence_dominant` says one label exceeds 80% of all labels given, the
  situation where kappa is low despite high agreement and these two are the numbers to read.
- Undefined numbers are None in `to_dict()` (NaN in the dataclasses) with the reason beside them.
- Human labels stay valid across rubric versions (humans label the constraint, not the rubric); `rubric_seen` keeps
  only labels made while the reviewer was shown that rubric's verdict (criteria drift).
"""

from __future__ import annotations

import functools
import itertools
import json
import operator
import math
import threading
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any, Collection, Iterable, NamedTuple, Sequence

import numpy as np
import sqlite_utils

from judgecal.evalsets import gc_paused
from judgecal.annotations import stats as agr
from judgecal.annotations.stats import (NO_CLUSTERING, PLAN_HALF_WIDTH, PPI_TUNE_MIN_N, LabelShare, PassRate,
                                        PassRateClustering, RatePlan, ac1_batch, ClusterCodes, cluster_codes, clustered_pass_rate, design_effect,
                                        design_weights, JudgedUnits, judged_units, kappa_from_table, label_prediction,
                                        label_predictions,
                                        label_shares, ppi_pass_rate, ppi_prediction, rate_plan, RoganGladen,
                                        AllSummary, summarise_all,
                                        rogan_gladen)
from judgecal.annotations.reports._judge_error import JudgeError, judge_error, kept_record_covariates
from judgecal.annotations.store import (blind_first_labels, current_labels, instant, kept_blind_first,
                                        kept_for_tables, merged)
from judgecal.annotations.review import (DEFAULT_RATE, counted_pairs, coverage as stratum_coverage, population_sizes,
                                   named_seeds, rules_by_pair, sample_rules, store_pair_tally, store_sample_side,
                                   PAIRED)
from judgecal.annotations.store import majority_label
from judgecal.annotations.reports._browse import samples_version, verdicts_version
from judgecal.annotations.store import (PATTERN_SQL, code_digest, has_pair_rowids, has_verdict_pairs, pair_indexes,
                                       parse_pattern, read_snapshot, stored_value)

PASS_FAIL = ("pass", "fail")
DOMINANCE = 0.80
TARGET_HALF_WIDTH = 0.10
ABSTAIN = "abstain"
MAJORITY_RULE = (
    "judge label = strict majority over the repeats' labels; a tie or a pair without a valid repeat counts as the "
    "judge label 'abstain', a disagreement"
)

Pair = tuple[str, str]


# --------------------------------------------------------------------------- result types


@dataclass(frozen=True)
class Agreement:
    """Agreement of rater A (rows) with rater B (columns) on `n` pairs."""

    n: int
    agree: int
    pct_agreement: float
    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    kappa_reason: str | None
    interpretation: str
    labels: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    tpr: float | None
    tnr: float | None
    gwet_ac1: float
    pabak: float
    dominant_label: str | None
    prevalence: float
    prevalence_dominant: bool
    labels_needed: int | None
    labels_needed_reason: str | None
    kappa_ci_method: str = ""
    kappa_ci_approximate: bool = False
    kappa_wald_low: float = math.nan  # the library's Wald interval (as statsmodels), for reference only
    kappa_wald_high: float = math.nan
    abstain: int = 0  # pairs where rater A gave no label (judge tie, no valid repeat, error): disagreements
    design_weighted: bool = False  # confusion holds design-weighted (population) counts, not pair counts
    n_effective: float = math.nan  # Kish's effective sample size of the weighted table (= n unweighted)
    # (issue 15.5) pairs sharing an item are not independent: the interval's n_effective is also divided by the
    # design effect of the agreement indicators clustered by item (1 with one pair per item; see stats._clusters)
    design_effect: float = 1.0
    clusters: int = 0
    ci_clustered_by: str | None = None


@dataclass(frozen=True)
class RepeatAgreement:
    repeat: int
    vs_human: Agreement | None


@dataclass(frozen=True)
class RepeatPairAgreement:
    """Repeat i vs repeat j of the judge on every judged pair of the slice (position bias when repeats differ in
    order). `agree` counts pairs where both repeats gave a label and it was the same; `both_error` pairs where both
    failed (LLMBar counts those as agreeing), `one_error` where only one did."""

    repeat_a: int
    repeat_b: int
    both_labelled: int
    agree: int
    both_error: int
    one_error: int
    agreement: Agreement | None


@dataclass(frozen=True)
class Consistency:
    """Judge self-consistency over the pairs of the slice with at least two labelled repeats."""

    pairs: int
    flipped: int
    flip_rate: float  # share of those pairs whose repeats disagree
    mean_minority_share: float  # mean share of repeats disagreeing with the modal label


@dataclass(frozen=True)
class SliceStats:
    """Judge vs human for one slice: 'overall', 'labels:<label set>', 'constraint:<id>' or 'type:<type>'."""

    slice: str
    pairs_judged: int
    random_labelled: int
    excluded_tie: int
    excluded_no_valid: int
    majority: Agreement | None
    per_repeat: tuple[RepeatAgreement, ...]
    all_repeats_correct: int  # random labelled pairs where every repeat gave the human's label
    targeted_labelled: int
    targeted: Agreement | None  # targeted-only pairs: biased, shown apart
    repeat_vs_repeat: tuple[RepeatPairAgreement, ...]
    consistency: Consistency
    # majority-compared random pairs whose human label is a change made after the judge's verdict was shown (blind=0)
    changed_after_reveal: int = 0
    # the headline: `majority` with each pair weighted by N_s / n_s of its stratum (see the module docstring)
    majority_weighted: Agreement | None = None
    verdict_rows: int = 0  # verdict rows (pairs × repeats) in the slice
    verdict_errors: int = 0  # of which error rows (judge failures: no label)

    @property
    def headline(self) -> Agreement | None:
        """The agreement a decision rests on: design-weighted when there is one."""
        return self.majority_weighted if self.majority_weighted is not None else self.majority


@dataclass(frozen=True)
class JudgeGroup:
    judge_model: str
    rubric_sha256: str
    rubric_name: str
    rubric_version: int
    rubric_created_at: str
    overall: SliceStats
    by_constraint: tuple[SliceStats, ...]
    by_type: tuple[SliceStats, ...]
    pass_rates: tuple[PassRate, ...]
    # One slice per label set when the group mixes label sets (pass/fail and refusal levels, say): a kappa pooled
    # over different label sets rewards a judge that always answers each set's first label, so the gate reads these.
    by_label_set: tuple[SliceStats, ...] = ()
    non_random: "NonRandomLabels | None" = None  # labels that do not count, shown apart
    # Which pairs verify this version (see `_verification`): "all counted pairs" for a first version; for a revision
    # (it may have been tuned on the labels it could see) only counted pairs labelled after it was created, whose
    # slices are `verification` (per label set when mixed). The gate reads `verification` when it is not empty.
    verified_on: str = "all counted pairs"
    verification: tuple[SliceStats, ...] = ()
    # Populations (constraint × model under test) this judge model × rubric version judged only in part. Coverage
    # rows are per rubric version over every judge model; the gated unit is judge model × version, and a judge model
    # that judged only the labelled pairs of a version another judge model ran everywhere must not pass.
    population_gaps: tuple["PopulationGap", ...] = ()
    # The repeats every judged pair of the group has (`common_repeats`): the judge gated is the one run on the
    # population; rows of further repeats on some pairs only (say the labelled ones) are ignored and counted.
    repeats_used: tuple[int, ...] = ()
    ignored_repeat_rows: int = 0
    # issue 15: the corrected share of each label for label sets that are not pass/fail (pairwise, refusal level,
    # Likert), per model under test; and label planning for every corrected rate (pass rates, then label shares)
    label_rates: tuple[LabelShare, ...] = ()
    plans: tuple[RatePlan, ...] = ()
    # (issue 15.5) how each pass rate's CI was clustered by item, one row per entry of `pass_rates`
    pass_rate_clustering: tuple[PassRateClustering, ...] = ()
    # (issue 15.2) TPR/TNR per model under test and the judge-error regression on the counted pass/fail pairs
    judge_error: JudgeError | None = None
    # (issue 15) the Rogan–Gladen corrected pass rate per model under test, a cross-check beside `pass_rates` (PPI
    # stays the headline: docs/decisions.md "Rogan–Gladen beside PPI")
    rogan_gladen: tuple[RoganGladen, ...] = ()

    @property
    def headline(self) -> tuple[SliceStats, ...]:
        """The slices a single verdict on the judge rests on: per label set when sets are mixed, else overall."""
        return self.by_label_set or (self.overall,)


@dataclass(frozen=True)
class PopulationGap:
    """A constraint × model under test of which a judge model × rubric version judged `judged` of `population`
    semantic pairs."""

    constraint_id: str
    model: str
    judged: int
    population: int


@dataclass(frozen=True)
class HumanAgreement:
    slice: str
    agreement: Agreement | None
    overlap_pairs: int  # overlap pairs with labels from at least two reviewers


@dataclass(frozen=True)
class CoverageRow:
    stratum: str
    constraint_id: str
    model: str
    rubric_sha256: str | None
    judged: int
    labelled: int
    needed: int
    rate: float
    ok: bool
    population: int = 0  # every semantic pair of the constraint × model: the coverage denominator
    reason: str | None = None  # why not ok


@dataclass(frozen=True)
class CalibrationReport:
    filters: dict[str, Any]
    rate: float
    majority_rule: str
    groups: tuple[JudgeGroup, ...]
    human_human: tuple[HumanAgreement, ...]
    coverage: tuple[CoverageRow, ...]
    # seed -> the draw orders (populations, paired samples) committed under a seed other than judgecal's fixed one
    named_seeds: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def below_quota(self) -> tuple[CoverageRow, ...]:
        return tuple(c for c in self.coverage if not c.ok)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types; NaN becomes None."""
        return _clean(asdict(self))

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False, **kw)


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if is_dataclass(value):
        return _clean(asdict(value))
    return value


# --------------------------------------------------------------------------- statistics on label lists


def _order(labels: Iterable[str], label_order: Sequence[str]) -> tuple[str, ...]:
    # The whole label set, so a label nobody used still has its row and column.
    return tuple(label_order) + tuple(sorted(set(labels) - set(label_order)))


def agreement(a: Sequence[str], b: Sequence[str], label_order: Sequence[str],
              weights: Sequence[float] | None = None, clusters: Sequence[str] | None = None) -> Agreement | None:
    """Agreement of labels `a` (rows) with `b` (columns); None when there are no pairs. Uses annotations.stats.

    `a` may hold ABSTAIN (no label from rater A): an extra category rater B never uses, so it only lowers agreement.
    With `weights` (one per pair, e.g. N_s / n_s) the confusion table is the weighted one (population counts) and
    every rate, kappa, AC1 and PABAK come from it; the interval and `labels_needed` use the table scaled to Kish's
    effective sample size. With `clusters` (one item id per pair) that size is further divided by the design effect
    of the agreement indicators clustered by item (`annotations.stats.design_effect`): exactly 1 when no two pairs
    share an item, so the interval is then the unclustered one."""
    if not a:
        return None
    if weights is None and clusters is None:
        if len(a) != len(b):
            raise ValueError("a and b must hold one label per pair each")
        return agreement_from_counts(Counter(zip(a, b)), label_order)
    labels = _order(list(a) + list(b), label_order)
    index = {lab: i for i, lab in enumerate(labels)}
    n = len(a)
    # The table's cells are summed per cell in pair order, as the element-wise numpy loop this replaces did (issue
    # 16.2: that loop was seconds at 170k labelled pairs): the same float additions in the same order, the same bits.
    # Unweighted, each cell is a count (exact) and the effective size n² / n.
    cells: dict[tuple[str, str], float] = {}
    if weights is None:
        if len(b) != n:
            raise ValueError("a and b must hold one label per pair each")
        cells.update(Counter(zip(a, b)))
        n_eff = float(n) ** 2 / float(n)
    else:
        w = [float(x) for x in weights]
        if len(w) != n or any(not (x > 0 and math.isfinite(x)) for x in w):
            raise ValueError("weights must be one positive number per pair")
        for cell, wt in zip(zip(a, b), w):
            cells[cell] = cells.get(cell, 0.0) + wt
        n_eff = sum(w) ** 2 / sum(x * x for x in w)
    table = np.zeros((len(labels), len(labels)))
    for (x, y), total in cells.items():
        table[index[x], index[y]] = total
    deff = design_effect([x == y for x, y in zip(a, b)], clusters) if clusters is not None else NO_CLUSTERING
    if weights is None:
        confusion = tuple(tuple(int(round(x)) for x in row) for row in table)
    else:
        confusion = tuple(tuple(round(float(x), 6) for x in row) for row in table)
    dominant, count = (Counter(a) + Counter(b)).most_common(1)[0]
    agree = sum(k for (x, y), k in Counter(zip(a, b)).items() if x == y) if weights is not None else \
        sum(k for (x, y), k in cells.items() if x == y)
    return _table_agreement(table, labels, n=n, agree=int(agree), dominant=dominant,
                            count=count, abstain=list(a).count(ABSTAIN), confusion=confusion,
                            n_eff=deff.effective(n_eff), weighted=weights is not None, deff=deff,
                            clustered=clusters is not None)


def agreement_from_counts(cells: dict[tuple[str, str], int], label_order: Sequence[str]) -> Agreement | None:
    """`agreement(a, b, label_order)` (unweighted) from the counts of its (a, b) cells, in the order each cell first
    occurs in the pair sequence (a Counter of zip(a, b) has it): the same numbers in time proportional to the number
    of distinct cells, so a slice of a million pairs is summarised by its few verdict patterns (see
    `_slice_stats`). The order matters only where the list version breaks a tie by first occurrence (the dominant
    label)."""
    cells = {k: c for k, c in cells.items() if c}
    n = sum(cells.values())
    if not n:
        return None
    labels = _order([x for x, _ in cells] + [y for _, y in cells], label_order)
    index = {lab: i for i, lab in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for (x, y), c in cells.items():
        table[index[x], index[y]] += float(c)
    count_a: Counter[str] = Counter()
    count_b: Counter[str] = Counter()
    for (x, y), c in cells.items():  # first-occurrence order, as Counter(a) and Counter(b) would hold it
        count_a[x] += c
        count_b[y] += c
    dominant, count = (count_a + count_b).most_common(1)[0]
    # as the list version: n weights of 1.0, (Σw)² / Σw² = n
    return _table_agreement(table, labels, n=n, agree=sum(c for (x, y), c in cells.items() if x == y),
                            dominant=dominant, count=count, abstain=count_a[ABSTAIN],
                            confusion=tuple(tuple(int(round(x)) for x in row) for row in table),
                            n_eff=float(n) ** 2 / float(n), weighted=False, deff=NO_CLUSTERING, clustered=False)


def _table_agreement(table: np.ndarray, labels: tuple[str, ...], *, n: int, agree: int, dominant: str, count: int,
                     abstain: int, confusion: tuple, n_eff: float, weighted: bool, deff: Any,
                     clustered: bool) -> Agreement:
    """Every number of an `Agreement` from its confusion table (pair or weighted counts) and effective size: the
    one computation behind `agreement` (pairs) and `agreement_from_counts` (cell counts)."""
    index = {lab: i for i, lab in enumerate(labels)}
    scaled = table * (n_eff / table.sum())
    k = kappa_from_table(scaled, None, labels)
    iv = agr.kappa_interval(scaled, labels=labels)
    pct = float(np.trace(table) / table.sum())
    tpr = tnr = None
    if set(labels) - {ABSTAIN} == set(PASS_FAIL):
        # fail is the positive class; an abstaining judge neither detects a fail nor clears a pass
        fail_col, pass_col = table[:, index["fail"]], table[:, index["pass"]]
        tpr = float(fail_col[index["fail"]] / fail_col.sum()) if fail_col.sum() else math.nan
        tnr = float(pass_col[index["pass"]] / pass_col.sum()) if pass_col.sum() else math.nan
    prevalence = count / (2 * n)
    if weighted:
        # the design-weighted table's marginals, as its kappa, AC1 and PABAK read: the unweighted counts could flag a
        # balanced weighted table or miss a dominant one (0.53 against 0.85 in a review's case, wave 14)
        marginals = table.sum(axis=0) + table.sum(axis=1)
        top = int(np.argmax(marginals))
        dominant, prevalence = labels[top], float(marginals[top] / (2 * table.sum()))
    # PABAK over the label set (an abstention is a disagreement, not a category of its own); AC1 from the table
    q = len([lab for lab in labels if lab != ABSTAIN])
    pa = float(np.trace(scaled) / scaled.sum())
    pab = (q * pa - 1) / (q - 1) if q > 1 else math.nan
    ac1 = float(ac1_batch(scaled[None])[0]) if q > 1 else math.nan
    try:
        needed, needed_reason = agr.labels_needed_for_interval(iv, TARGET_HALF_WIDTH), None
        if weighted or deff.value > 1:
            # the projection is in effective pairs; a weighted or clustered design needs n / n_eff times as many
            needed = math.ceil(needed * n / n_eff)
    except ValueError as exc:
        needed, needed_reason = None, str(exc)
    return Agreement(
        n=n, agree=agree, pct_agreement=pct, kappa=k.kappa, kappa_ci_low=iv.low, kappa_ci_high=iv.high,
        kappa_reason=k.reason if math.isnan(k.kappa) or math.isnan(iv.low) else None,
        interpretation=agr.interpret_kappa(k.kappa), labels=labels, confusion=confusion, tpr=tpr, tnr=tnr,
        gwet_ac1=ac1, pabak=pab, dominant_label=dominant, prevalence=prevalence,
        prevalence_dominant=prevalence > DOMINANCE, labels_needed=needed, labels_needed_reason=needed_reason,
        kappa_ci_method=iv.method, kappa_ci_approximate=iv.approximate, kappa_wald_low=k.ci_low,
        kappa_wald_high=k.ci_high, abstain=abstain, design_weighted=weighted, n_effective=n_eff,
        design_effect=deff.value, clusters=deff.clusters, ci_clustered_by=deff.by if clustered else None,
    )


# --------------------------------------------------------------------------- loading


def match_rubrics(db: sqlite_utils.Database, spec: str | None) -> set[str] | None:
    """Rubric shas matching `spec`: a sha256, a unique prefix of 8+ hex characters, `name@version`, or a name (all
    its versions). None for no filter. An unknown spec raises ValueError."""
    if spec is None:
        return None
    rows = list(db.execute("SELECT sha256, name, version FROM rubrics"))
    if "@" in spec:
        name, _, version = spec.rpartition("@")
        found = {s for s, n, v in rows if n == name and str(v) == version}
    else:
        found = {s for s, _n, _v in rows if s == spec}
        if not found and len(spec) >= 8:
            prefixed = {s for s, _n, _v in rows if s.startswith(spec)}
            found = prefixed if len(prefixed) == 1 else set()
        if not found:
            found = {s for s, n, _v in rows if n == spec}
    if not found:
        raise ValueError(f"no rubric matches {spec!r} (give a sha256, an 8+ character prefix, a name or name@version)")
    return found


def _as_set(value: str | Sequence[str] | None) -> set[str] | None:
    if value is None:
        return None
    return {value} if isinstance(value, str) else set(value)


@dataclass
class _Verdicts:
    labels: dict[int, str | None]  # repeat -> label (None = error)
    reason: dict[int, str | None]

    @functools.cached_property
    def pattern(self) -> tuple[tuple[int, str | None], ...]:
        """The (repeat, label) items: every statistic of a slice over all its pairs (repeat vs repeat, consistency,
        error rows, the PPI prediction) depends on a pair only through this, so a slice is summarised by the count
        of each pattern (a few dozen) instead of a loop over its pairs. Read once `labels` is complete (it is kept:
        pairs with the same repeats share one `_Verdicts` and so one tuple)."""
        return tuple(self.labels.items())


def load_verdicts(db: sqlite_utils.Database, *, rubrics: set[str] | None = None, model: str | None = None,
                  constraints: set[str] | None = None, reasons: bool = True,
                  pairs: Iterable[Pair] | None = None) -> dict[tuple[str, str], dict[Pair, _Verdicts]]:
    """(judge model, rubric sha) -> pair -> repeats, pairs in the order of their first verdict row. The filters run
    in SQL; `reasons=False` leaves `reason` empty (the calibration numbers never read it); `pairs` reads only those
    pairs' rows, through the pair index (the disagreement list needs the labelled pairs, not every verdict)."""
    where, params = [], []
    source = "verdicts"
    if pairs is not None:
        source = ("json_each(?) AS wanted JOIN verdicts ON verdicts.run_record_id = json_extract(wanted.value, '$[0]')"
                  " AND verdicts.constraint_id = json_extract(wanted.value, '$[1]')")
        params.append(json.dumps(sorted({tuple(p) for p in pairs})))
    if model is not None:
        where.append("judge_model = ?")
        params.append(model)
    for column, values in (("rubric_sha256", rubrics), ("constraint_id", constraints)):
        if values is not None:
            where.append(f"{column} IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(values)))
    if not reasons and pairs is None:
        grouped = _load_patterns(db, where, params)
        if grouped is not None:
            return grouped
    sql = (f"SELECT judge_model, rubric_sha256, run_record_id, constraint_id, repeat, label"
           f"{', reason' if reasons else ''} FROM {source}"
           + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY verdicts.id")
    out: dict[tuple[str, str], dict[Pair, _Verdicts]] = defaultdict(dict)
    group_key, group = None, {}
    for row in db.execute(sql, params):
        jm, sha, rid, cid, rep, label = row[:6]
        if (jm, sha) != group_key:
            group_key = (jm, sha)
            group = out[group_key]
        v = group.get((rid, cid))
        if v is None:
            v = group[(rid, cid)] = _Verdicts({}, {})
        v.labels[rep] = label
        if reasons:
            v.reason[rep] = row[6]
    return out


def _load_patterns(db: sqlite_utils.Database, where: list[str], params: list[Any]
                   ) -> dict[tuple[str, str], dict[Pair, _Verdicts]] | None:
    """`load_verdicts(reasons=False)` from one row per judged pair: SQLite groups each pair's repeats into a string,
    and pairs with the same repeats share one `_Verdicts` (a project has a few dozen patterns, however many pairs).
    A pass over a million verdicts then builds no Python object per verdict row. None when a label holds a
    separator (the caller reads row by row)."""
    if has_verdict_pairs(db):  # migration 015: the patterns are stored, one row per pair, in first-verdict order
        sql = ("SELECT judge_model, rubric_sha256, run_record_id, constraint_id, id, n, pattern FROM verdict_pairs"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id")
    else:  # a read-only project without migration 015: SQLite groups every verdict row
        sql = (f"SELECT judge_model, rubric_sha256, run_record_id, constraint_id, min(id) AS first, count(*), "
               f"{PATTERN_SQL} FROM verdicts"
               + (" WHERE " + " AND ".join(where) if where else "")
               + " GROUP BY run_record_id, constraint_id, rubric_sha256, judge_model ORDER BY first")
    shared: dict[str, _Verdicts] = {}
    out: dict[tuple[str, str], dict[Pair, _Verdicts]] = defaultdict(dict)
    group_key, group = None, {}
    for jm, sha, rid, cid, _first, n, text in db.execute(sql, params):
        v = shared.get(text)
        if v is None:
            # repeats in repeat order, whatever order SQLite concatenated them in: one pattern per set of repeats
            labels = parse_pattern(text, n)
            if labels is None:
                return None
            v = shared[text] = _Verdicts(labels, {})
        if (jm, sha) != group_key:
            group_key = (jm, sha)
            group = out[group_key]
        group[(rid, cid)] = v
    return out


class PairInfo(NamedTuple):  # one per semantic pair: a tuple is built several times faster than a frozen dataclass
    model: str
    item_id: str
    type: str
    labels: tuple[str, ...]


def pair_info(db: sqlite_utils.Database) -> dict[Pair, PairInfo]:
    sql = """SELECT r.id, c.id, r.model, r.item_id, c.type, c.labels
             FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL"""
    parsed: dict[str, tuple[str, ...]] = {}  # a project has a handful of label sets: parse each once

    def label_set(text: str) -> tuple[str, ...]:
        found = parsed.get(text)
        if found is None:
            found = parsed[text] = tuple(json.loads(text))
        return found

    return {(rid, cid): PairInfo(m, item, t, label_set(ls)) for rid, cid, m, item, t, ls in db.execute(sql)}


def human_labels_by_pair(db: sqlite_utils.Database, *, rubric_seen: set[str] | None = None,
                         standing: bool = False, rows: list[dict[str, Any]] | None = None
                         ) -> dict[Pair, list[dict[str, Any]]]:
    """Human labels per pair, the reviewer who labelled the pair first coming first: each reviewer's blind first
    label (what agreement uses), or with `standing=True` their standing label (what a reviewer reads as the
    current answer, e.g. in the disagreement list)."""
    out: dict[Pair, list[dict[str, Any]]] = defaultdict(list)
    if rows is None:  # `rows`: `blind_first_labels(db)` (or with `standing`, `current_labels(db)`) already read
        rows = current_labels(db) if standing else blind_first_labels(db)
    for row in rows:
        if rubric_seen is not None and row["rubric_version_seen"] not in rubric_seen:
            continue
        out[(row["run_record_id"], row["constraint_id"])].append(row)
    # most pairs have one reviewer: nothing to order. Each reviewer's first event is read for the others only (the
    # overlap pairs: a few thousand at a million run records, not 183k groups), through the pair index.
    several = [pair for pair, found in out.items() if len(found) > 1]
    if several:
        first = {(r, c, who): i for r, c, who, i in db.execute(
            "SELECT h.run_record_id, h.constraint_id, h.reviewer, min(h.id) FROM json_each(?) AS wanted"
            " CROSS JOIN human_labels h ON h.run_record_id = json_extract(wanted.value, '$[0]')"
            " AND h.constraint_id = json_extract(wanted.value, '$[1]') GROUP BY 1, 2, 3", [json.dumps(several)])}
        for pair in several:
            out[pair].sort(key=lambda r: first[(pair[0], pair[1], r["reviewer"])])
    return dict(out)


def counted_rules(db: sqlite_utils.Database, run_id: str | None = None,
                  raw_rules: dict[Pair, frozenset[str]] | None = None,
                  counted: frozenset[Pair] | None = None) -> dict[Pair, frozenset[str]]:
    """`sample_rules`, with "random" kept only on the counted pairs (`counted_pairs`, of one run with `run_id`): what
    every agreement number and pass rate reads as "the random sample". `raw_rules`: `sample_rules(db)` when the
    caller has read it; `counted`: `counted_pairs(db, run_id=run_id).pairs` likewise."""
    if counted is None:
        counted = counted_pairs(db, run_id=run_id).pairs
    # a pair's rules without "random": one frozenset per distinct rule set, shared (530k sampled pairs at 1M)
    minus: dict[frozenset[str], frozenset[str]] = {}

    def without_random(r: frozenset[str]) -> frozenset[str]:
        if not isinstance(r, frozenset):  # a caller's own sets: as before
            return r - {"random"}
        found = minus.get(r)
        if found is None:
            found = minus[r] = r - {"random"}
        return found

    raw = sample_rules(db) if raw_rules is None else raw_rules
    try:
        distinct = set(raw.values())  # a few rule sets, however many pairs
    except TypeError:  # a caller's own (unhashable) sets: pair by pair
        distinct = None
    if distinct is None or any(not isinstance(r, frozenset) for r in distinct):
        return {p: (r if p in counted else without_random(r)) for p, r in raw.items()}
    # every pair's rules without "random", mapped in C, then the counted pairs' own rules put back (issue 16.3:
    # 530k sampled pairs at a million run records, 176k of them counted)
    minus.update((r, r - {"random"}) for r in distinct)
    out = dict(zip(raw, map(minus.__getitem__, raw.values())))
    back = counted & raw.keys()  # (keys already in `out`: their places stay)
    out.update(zip(back, map(raw.__getitem__, back)))
    return out


def later_events(db: sqlite_utils.Database) -> set[tuple[str, str, str]]:
    """(run record, constraint, reviewer) whose reviewer has events after their blind first label (a change, an
    undo, a label given again): shown in the report, never used."""
    # an event after the first is a second row of the (pair, reviewer): one pass over the pair index, no join
    sql = """
        SELECT run_record_id, constraint_id, reviewer FROM human_labels GROUP BY 1, 2, 3 HAVING count(*) > 1
    """
    return {tuple(r) for r in db.execute(sql)}


@dataclass(frozen=True)
class NonRandomLabels:
    """Human-labelled pairs of a group that do not count (see the module docstring), shown apart: `beyond_prefix`
    random pairs after the first unlabelled one of the draw order, `targeted` targeted-only pairs, `unsampled` pairs
    never drawn (e.g. imported labels). `majority`: judge majority vs blind first label on those with a majority."""

    n: int
    beyond_prefix: int
    targeted: int
    unsampled: int
    majority: Agreement | None
    # pairs only in a paired sample of two runs (`sample --paired`): a random draw of items, counted by `compare`'s
    # paired difference, not by this report's agreement (another draw order); neither targeted nor unsampled
    paired: int = 0


def _non_random(pairs: Iterable[Pair], verdicts: dict[Pair, "_Verdicts"], humans: dict[Pair, str],
                raw_rules: dict[Pair, frozenset[str]], counted: frozenset[Pair],
                info: dict[Pair, PairInfo], rest: list[Pair] | None = None) -> NonRandomLabels:
    # `rest`: the labelled pairs of `pairs` that are not counted, when the caller has them (the columns)
    if rest is None:
        rest = [p for p in pairs if p in humans and p not in counted]
    j, h = [], []
    for p in rest:
        m = _majority_of(verdicts[p].pattern).label  # once per verdict pattern
        if m is not None:
            j.append(m)
            h.append(humans[p])
    kinds = Counter("beyond" if "random" in raw_rules.get(p, ()) else "targeted" if "targeted" in raw_rules.get(p, ())
                    else "paired" if PAIRED in raw_rules.get(p, ()) else "targeted" if raw_rules.get(p) else "none"
                    for p in rest)
    return NonRandomLabels(len(rest), kinds["beyond"], kinds["targeted"], kinds["none"],
                           agreement(j, h, _label_order(info[p].labels for p in rest)), kinds["paired"])


# --------------------------------------------------------------------------- the report


def _slice_stats(name: str, pairs: list[Pair], verdicts: dict[Pair, _Verdicts], humans: dict[Pair, str],
                 rules: dict[Pair, set[str]], info: dict[Pair, PairInfo], repeats: list[int],
                 post_reveal: set[Pair] = frozenset(),
                 stratum_of: dict[Pair, tuple[str, str]] | None = None,
                 columns: "_Columns | None" = None, base: "_SliceBase | None" = None,
                 labelled: list[Pair] | None = None, n_pairs: int | None = None) -> SliceStats:
    # `columns`: each pair's label set and verdict pattern, looked up at C speed (a slice may hold 500k pairs);
    # `base`: what `_slice_base` computed for exactly these pairs (kept with the verdicts); `labelled`: the pairs of
    # `pairs` with a human label, in pair order, when the caller has them (a new label then costs no pass over all);
    # `n_pairs`: how many pairs the slice has, when `pairs` is not every one of them (the SQL aggregates hold only
    # counts and the labelled pairs: `_sql_group_bases`)
    if columns is None:
        columns = _columns(pairs, verdicts, info)
    if base is None:
        base = _slice_base(pairs, repeats, columns, stratum_of, info)
    order = base.order
    if labelled is None:
        labelled = list(filter(humans.__contains__, pairs))  # in pair order; few
    random_pairs = [p for p in labelled if "random" in rules.get(p, ())]
    targeted_pairs = [p for p in labelled if "targeted" in rules.get(p, ()) and "random" not in rules.get(p, ())]
    tie = no_valid = 0
    maj_j, maj_h, tgt_j, tgt_h = [], [], [], []
    all_correct = changed = 0
    for p in random_pairs:
        m, valid, every = _majority_of(columns.pattern[p])
        if not valid:
            no_valid += 1
        elif m is None:
            tie += 1
        # a judge that cannot make up its mind (tie) or failed (no valid repeat) abstains: a disagreement, kept
        maj_j.append(ABSTAIN if m is None else m)
        maj_h.append(humans[p])
        changed += p in post_reveal
        if valid and every and valid == {humans[p]}:  # every repeat gave a label, and it was the human's
            all_correct += 1
    for p in targeted_pairs:
        m = _majority_of(columns.pattern[p]).label
        if m is not None:
            tgt_j.append(m)
            tgt_h.append(humans[p])
    # the clusters of the intervals (issue 15.5), numbered once for the slice's five clustered agreements
    items = cluster_codes([info[p].item_id for p in random_pairs])
    per_repeat = []
    repeat_labels = [verdicts[p].labels for p in random_pairs]  # looked up once, not once per repeat
    for r in repeats:
        # an error row (or a repeat that never ran on the pair) is this repeat's abstention
        per_repeat.append(RepeatAgreement(r, agreement([labels.get(r) or ABSTAIN for labels in repeat_labels], maj_h,
                                                       order, clusters=items)))
    stratum = (lambda p: (p[1], info[p].model)) if stratum_of is None else stratum_of.__getitem__
    weights = design_weights(random_pairs, (), stratum, sizes=base.stratum_sizes)
    return SliceStats(name, len(pairs) if n_pairs is None else n_pairs, len(random_pairs), tie, no_valid,
                      agreement(maj_j, maj_h, order, clusters=items),
                      tuple(per_repeat), all_correct, len(targeted_pairs), agreement(tgt_j, tgt_h, order),
                      base.repeat_vs_repeat, base.consistency, changed,
                      majority_weighted=agreement(maj_j, maj_h, order, weights=weights, clusters=items),
                      verdict_rows=base.verdict_rows, verdict_errors=base.verdict_errors)


# --------------------------------------------------------------------------- the labelled pairs as columns (16.3)


class _LabelledColumns(NamedTuple):
    """A group's labelled pairs as columns, one entry per pair in pair order (issue 16.3): what `_slice_stats` reads
    of a pair, read once per group instead of once per slice it falls in (overall, constraint, type, label set). A
    slice is then an index array over them (`slice_index`), its confusion tables counted with `np.bincount`. Labels
    are numbered (`vocab`: code -> label, ABSTAIN among them)."""

    pairs: list[Pair]
    vocab: list[Any]
    abstain: int  # the code of ABSTAIN
    human: np.ndarray  # the blind first human label's code
    judge: np.ndarray  # the judge majority's code, ABSTAIN's for a tie or no valid repeat
    has_majority: np.ndarray  # bool: the repeats have a majority label
    no_valid: np.ndarray  # bool: no repeat gave a label
    single: np.ndarray  # the code of the one label every repeat gave (no error row), -1 otherwise
    repeat: dict[int, np.ndarray]  # repeat -> its label's code, ABSTAIN's for an error row or a missing repeat
    random: np.ndarray  # bool: "random" among the pair's (counted) rules
    targeted: np.ndarray  # bool: targeted and not random
    post_reveal: np.ndarray  # bool: the first reviewer changed or withdrew the label later
    item: np.ndarray  # the item's number (group-wide)
    stratum: np.ndarray  # the design stratum's number, `strata` its keys
    strata: list[tuple[str, str]]
    kinds: dict[str, tuple[np.ndarray, dict[str, int]]]  # slice kind -> (each pair's value number, value -> number)
    pass_fail: np.ndarray  # bool: the pair's label set is pass/fail
    model: np.ndarray  # the model under test's number, `models` its names
    models: list[str]
    item_names: list[str]  # item number -> item id
    label_set: np.ndarray  # the label set's number, `label_sets` the sets
    label_sets: list[tuple[str, ...]]
    prediction: np.ndarray  # the PPI prediction of the pair's repeats (`_prediction_of`)
    pattern: np.ndarray  # the number of the pair's verdicts (pairs with the same repeats share one)
    repeat_labels: list[list[str | None]]  # verdicts number -> the repeats' labels in repeat order

    def slice_index(self, name: str) -> np.ndarray:
        """The positions of a slice's pairs ("overall", "constraint:<id>", "type:<t>", "labels:<set>"), in order."""
        kind, _, value = name.partition(":")
        if kind == "overall":
            return np.arange(len(self.human), dtype=np.intp)
        codes, numbers = self.kinds[kind]
        k = numbers.get(value)
        return np.zeros(0, dtype=np.intp) if k is None else np.flatnonzero(codes == k)


def _labelled_columns(labelled: list[Pair], verdicts: dict[Pair, _Verdicts], humans: dict[Pair, str],
                      rules: dict[Pair, set[str]], info: dict[Pair, PairInfo], repeats: list[int],
                      post_reveal: set[Pair]) -> _LabelledColumns:
    """The columns of a group's labelled pairs (in pair order): one look-up per pair and column, mapped in C; the
    rest per distinct verdicts object, rule set, item or stratum. A pair's design stratum is its (constraint, model
    under test), as everywhere in the report (`_label_maps`)."""
    n = len(labelled)
    vocab = _Numbering()
    abstain = vocab[ABSTAIN]

    def numbered(values: Iterable[Any], numbering: dict | None = None) -> np.ndarray | tuple[np.ndarray, list[Any]]:
        if numbering is not None:  # a numbering shared by several columns (the labels)
            return np.fromiter(map(numbering.__getitem__, values), dtype=np.intp, count=n)
        # (codes, the distinct values in order of first appearance), numbered in C: a value per item is common
        values = list(values)
        index = dict(zip(dict.fromkeys(values), itertools.count()))
        return np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=n), list(index)

    def by_identity(objects: list[Any]) -> tuple[np.ndarray, list[Any]]:
        # pairs share their verdicts and rule-set objects: numbered by identity, each object's values computed once
        ids = list(map(id, objects))
        codes, _ = numbered(ids)
        # the distinct objects in order of first appearance, as the codes number them (the objects are alive in
        # `objects`: one id, one object), as `label_shares` finds its distinct patterns
        return codes, list(dict(zip(ids, objects)).values())

    pat, shared = by_identity(list(map(verdicts.__getitem__, labelled)))
    human = numbered(map(humans.__getitem__, labelled), vocab)
    judge, has_majority, no_valid, single, prediction = [], [], [], [], []
    per_repeat: dict[int, list[int]] = {r: [] for r in repeats}
    for v in shared:  # in code order
        pattern = v.pattern
        m, valid, every = _majority_of(pattern)
        judge.append(vocab[ABSTAIN if m is None else m])
        has_majority.append(m is not None)
        no_valid.append(not valid)
        single.append(vocab[next(iter(valid))] if valid and every and len(valid) == 1 else -1)
        prediction.append(_prediction_of(pattern))
        labels = dict(pattern)
        for r in repeats:
            # an error row (or a repeat that never ran on the pair) is this repeat's abstention
            per_repeat[r].append(vocab[labels.get(r) or ABSTAIN])
    take = lambda column, dtype=np.intp: np.asarray(column, dtype=dtype)[pat]  # noqa: E731
    rule, rule_sets = by_identity(list(map(rules.get, labelled, itertools.repeat((), n))))
    is_random = np.array(["random" in r for r in rule_sets], dtype=bool)
    is_targeted = np.array(["targeted" in r and "random" not in r for r in rule_sets], dtype=bool)
    pair_infos = list(map(info.__getitem__, labelled))
    label_set, label_sets = numbered(map(_LABELS, pair_infos))
    set_names = list(dict.fromkeys("/".join(ls) for ls in label_sets))
    set_codes = np.array([set_names.index("/".join(ls)) for ls in label_sets], dtype=np.intp)
    item, items = numbered(map(_ITEM, pair_infos))
    constraint, constraint_ids = numbered(map(_CONSTRAINT, labelled))
    typ, types = numbered(map(_TYPE, pair_infos))
    model, models = numbered(map(_MODEL, pair_infos))
    # a pair's design stratum is (its constraint, its model under test), as `_label_maps`' `stratum_of` has it:
    # numbered from those two columns in the same order of first appearance, not by hashing a tuple per pair twice
    width = max(len(models), 1)
    first, stratum = _first_appearance(constraint * width + model)
    strata = [(constraint_ids[k // width], models[k % width]) for k in first.tolist()]
    return _LabelledColumns(
        labelled, list(vocab), abstain, human, take(judge), take(has_majority, bool), take(no_valid, bool),
        take(single), {r: take(codes) for r, codes in per_repeat.items()}, is_random[rule], is_targeted[rule],
        np.fromiter(map(post_reveal.__contains__, labelled), dtype=bool, count=n),
        item, stratum, strata,
        {"constraint": (constraint, {c: k for k, c in enumerate(constraint_ids)}),
         "type": (typ, {t: k for k, t in enumerate(types)}),
         "labels": (set_codes[label_set] if n else np.zeros(0, dtype=np.intp),
                    {ls: k for k, ls in enumerate(set_names)})},
        np.array([_is_pass_fail(ls) for ls in label_sets], dtype=bool)[label_set],
        model, models, items, label_set, label_sets,
        take(prediction, float), pat, [list(v.labels.values()) for v in shared])


_MODEL, _ITEM, _TYPE, _LABELS = (operator.itemgetter(k) for k in range(4))  # PairInfo's fields
_RECORD, _CONSTRAINT = operator.itemgetter(0), operator.itemgetter(1)  # a pair's run record and constraint ids


def _positions(cols: _LabelledColumns, mask: np.ndarray) -> tuple[list[int], list[Pair]]:
    idx = np.flatnonzero(mask).tolist()
    return idx, list(map(cols.pairs.__getitem__, idx))


def _model_mask(cols: _LabelledColumns, model: str) -> np.ndarray:
    code = cols.models.index(model) if model in cols.models else -1
    return cols.model == code


def _code_of(cols: _LabelledColumns, label: str) -> int:
    return cols.vocab.index(label) if label in cols.vocab else -1


def _pass_rates_columns(bases: dict[str, _PpiBase], cols: _LabelledColumns,
                        summaries: dict[str, AllSummary] | None = None
                        ) -> tuple[tuple[PassRate, ...], tuple[PassRateClustering, ...]]:
    """`_pass_rates` from the labelled pairs' columns: each model's counted pass/fail pairs, the same lists.
    `summaries`: `_ppi_summaries`' of these bases."""
    rates = []
    for model in sorted(bases):
        base = bases[model]
        idx, lab_pairs = _positions(cols, cols.random & cols.pass_fail & _model_mask(cols, model))
        judge_lab = cols.prediction[idx].tolist()
        human_lab = (cols.human[idx] == _code_of(cols, "pass")).astype(int).tolist()
        strata_lab = list(map(_CONSTRAINT, lab_pairs))
        rate = ppi_pass_rate(model, base.judge, judge_lab, human_lab, strata_all=base.strata, strata_lab=strata_lab,
                             summary=None if summaries is None else summaries[model])
        if math.isnan(rate.ppi_estimate):
            rates.append((rate, clustered_pass_rate(rate, [], [], [], [], [], [])[1]))
            continue
        rates.append(clustered_pass_rate(rate, base.judge, base.units.codes, judge_lab, human_lab,
                                         design_weights(lab_pairs, (), _CONSTRAINT, sizes=base.sizes),
                                         list(map(cols.item_names.__getitem__, cols.item[idx].tolist())),
                                         judged=base.units))
    return tuple(r for r, _ in rates), tuple(c for _, c in rates)


def _rogan_gladen_columns(bases: dict[str, _PpiBase], cols: _LabelledColumns) -> tuple[RoganGladen, ...]:
    """`_rogan_gladen` from the labelled pairs' columns."""
    out = []
    human_pf = np.isin(cols.human, [k for k, label in enumerate(cols.vocab) if label in PASS_FAIL])
    for model in sorted(bases):
        base = bases[model]
        idx, lab = _positions(cols, cols.random & cols.pass_fail & human_pf & _model_mask(cols, model))
        out.append(rogan_gladen(model, base.judge, cols.prediction[idx].tolist(),
                                (cols.human[idx] == _code_of(cols, "pass")).astype(int).tolist(),
                                weights=design_weights(lab, (), _CONSTRAINT, sizes=base.sizes) if lab else None,
                                clusters=list(map(cols.item_names.__getitem__, cols.item[idx].tolist()))))
    return tuple(out)


def _label_rates_columns(bases: dict[tuple[str, tuple[str, ...]], _ShareBase], cols: _LabelledColumns,
                         summaries: dict[tuple[str, tuple[str, ...]], dict[str, AllSummary]] | None = None
                         ) -> tuple[LabelShare, ...]:
    """`_label_rates` from the labelled pairs' columns. `summaries`: `_ppi_summaries`' of these bases."""
    out: list[LabelShare] = []
    for (model, label_set), base in bases.items():
        code = cols.label_sets.index(label_set) if label_set in cols.label_sets else -1
        idx, lab = _positions(cols, cols.random & (cols.label_set == code) & _model_mask(cols, model))
        out += label_shares(model, label_set, [], list(map(cols.repeat_labels.__getitem__, cols.pattern[idx].tolist())),
                            list(map(cols.vocab.__getitem__, cols.human[idx].tolist())),
                            strata_all=base.strata, strata_lab=list(map(_CONSTRAINT, lab)), f_all_by_label=base.f_all,
                            summaries=None if summaries is None else summaries[(model, label_set)])
    return tuple(out)


def _ppi_summaries(bases: dict[tuple[str, str], Any]) -> dict[tuple[str, str], tuple[dict, dict]]:
    """Each group's `summarise_all` of its models' pass/fail predictions and of its label shares' predictions, with
    their strata: what every corrected rate reads of all judged pairs, label-free, so kept with the bases (issue 16
    item 3: a sum and two counts over up to 1.7M pairs per rate, paid again after every new label)."""
    return {key: ({model: summarise_all(b.judge, b.strata, counts=b.counts, sizes=b.sizes if b.counts else None)
                   for model, b in base.ppi.items()},
                  {sk: {label: summarise_all(f, sb.strata, counts=None if sb.counts is None else sb.counts[label],
                                             sizes=sb.sizes)
                        for label, f in sb.f_all.items()}
                   for sk, sb in base.shares.items()})
            for key, base in bases.items()}


def _first_appearance(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of `codes` in order of first appearance, and `codes` renumbered 0.. in that order."""
    if not len(codes):
        return codes, codes
    n = len(codes)
    if codes.dtype.kind in "iu" and codes.min() >= 0 and codes.max() < 4 * n + 1024:
        # numbers (label codes, item numbers): each value's first position by `minimum.at`, not by sorting every
        # code (5-12x per call; the agreement tables call it ~300 times)
        size = int(codes.max()) + 1
        first = np.full(size, n, dtype=np.intp)
        np.minimum.at(first, codes, np.arange(n, dtype=np.intp))
        present = np.flatnonzero(first < n)
        distinct = present[np.argsort(first[present], kind="stable")]
        rank = np.empty(size, dtype=np.intp)
        rank[distinct] = np.arange(len(distinct), dtype=np.intp)
        return distinct.astype(codes.dtype, copy=False), rank[codes]
    uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(uniq), dtype=np.intp)
    rank[order] = np.arange(len(uniq), dtype=np.intp)
    return uniq[order], rank[inverse.reshape(-1)]


def _agreement_codes(a: np.ndarray, b: np.ndarray, vocab: list[Any], abstain: int, label_order: Sequence[str],
                     weights: np.ndarray | None = None, clusters: ClusterCodes | None = None) -> Agreement | None:
    """`agreement([vocab[x] for x in a], [vocab[y] for y in b], label_order, weights, clusters)` from label codes:
    the same numbers, bit for bit (tests/test_report_columns.py). The weighted cells are summed in pair order
    (`np.cumsum`, sequential, as the per-pair dict additions), Kish's sums are Python sums of the same floats, the
    dominant label's tie is broken by first occurrence in `a`, then in `b`, as `Counter(a) + Counter(b)` does."""
    n = len(a)
    if not n:
        return None
    v = len(vocab)
    cell = a * v + b
    if weights is None and clusters is None:
        distinct, _ = _first_appearance(cell)
        counts = np.bincount(cell, minlength=v * v)
        return agreement_from_counts({(vocab[c // v], vocab[c % v]): int(counts[c]) for c in distinct.tolist()},
                                     label_order)
    used = np.flatnonzero(np.bincount(a, minlength=v) + np.bincount(b, minlength=v)).tolist()  # (sorted, unique)
    labels = _order([vocab[c] for c in used], label_order)
    index = {lab: i for i, lab in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    counts = np.bincount(cell, minlength=v * v)
    present = np.flatnonzero(counts).tolist()
    if weights is None:
        for c in present:
            table[index[vocab[c // v]], index[vocab[c % v]]] = int(counts[c])
        n_eff = float(n) ** 2 / float(n)
    else:
        for c in present:  # each cell's weights added in pair order, one after the other
            table[index[vocab[c // v]], index[vocab[c % v]]] = float(np.cumsum(weights[cell == c])[-1])
        w = weights.tolist()
        n_eff = sum(w) ** 2 / sum(x * x for x in w)
    same = a == b
    deff = design_effect(same.astype(float), clusters) if clusters is not None else NO_CLUSTERING
    if weights is None:
        confusion = tuple(tuple(int(round(x)) for x in row) for row in table)
    else:
        confusion = tuple(tuple(round(float(x), 6) for x in row) for row in table)
    total = np.bincount(a, minlength=v) + np.bincount(b, minlength=v)
    in_a, _ = _first_appearance(a)
    seen = set(in_a.tolist())
    in_b, _ = _first_appearance(b)
    first_order = in_a.tolist() + [c for c in in_b.tolist() if c not in seen]
    dominant = max(first_order, key=total.__getitem__)  # the first of the largest, as most_common(1)
    return _table_agreement(table, labels, n=n, agree=int(same.sum()), dominant=vocab[dominant],
                            count=int(total[dominant]), abstain=int((a == abstain).sum()), confusion=confusion,
                            n_eff=deff.effective(n_eff), weighted=weights is not None, deff=deff,
                            clustered=clusters is not None)


def _slice_stats_columns(name: str, cols: _LabelledColumns, idx: np.ndarray, base: _SliceBase, n_pairs: int,
                         repeats: list[int]) -> SliceStats:
    """`_slice_stats` of a slice whose labelled pairs are `idx` (positions in `cols`, in pair order): the same
    SliceStats, number for number and bit for bit (tests/test_report_columns.py)."""
    order = base.order
    r = idx[cols.random[idx]]
    t = idx[cols.targeted[idx]]
    no_valid_r = cols.no_valid[r]
    no_valid = int(no_valid_r.sum())
    tie = int((~no_valid_r & ~cols.has_majority[r]).sum())
    maj_j, maj_h = cols.judge[r], cols.human[r]
    all_correct = int((cols.single[r] == maj_h).sum())
    changed = int(cols.post_reveal[r].sum())
    tt = t[cols.has_majority[t]]
    # the clusters of the intervals (issue 15.5): the slice's items numbered in order of first appearance
    distinct_items, local = _first_appearance(cols.item[r])
    items = ClusterCodes(local, len(distinct_items))
    vocab, abstain = cols.vocab, cols.abstain
    per_repeat = tuple(RepeatAgreement(rep, _agreement_codes(cols.repeat[rep][r], maj_h, vocab, abstain, order,
                                                             clusters=items)) for rep in repeats)
    weights = _design_weights_codes(cols, r, base.stratum_sizes)
    return SliceStats(name, n_pairs, len(r), tie, no_valid,
                      _agreement_codes(maj_j, maj_h, vocab, abstain, order, clusters=items),
                      per_repeat, all_correct, len(t),
                      _agreement_codes(cols.judge[tt], cols.human[tt], vocab, abstain, order),
                      base.repeat_vs_repeat, base.consistency, changed,
                      majority_weighted=_agreement_codes(maj_j, maj_h, vocab, abstain, order, weights=weights,
                                                         clusters=items),
                      verdict_rows=base.verdict_rows, verdict_errors=base.verdict_errors)


def _design_weights_codes(cols: _LabelledColumns, r: np.ndarray, sizes: Counter) -> np.ndarray:
    """`design_weights` of the pairs at `r` (N_s / n_s, one division per stratum) as an array; a stratum without
    population pairs raises as `design_weights` does."""
    got = np.bincount(cols.stratum[r], minlength=len(cols.strata)).tolist()
    weight = np.zeros(len(cols.strata))
    for s, k in enumerate(got):
        if k:
            if not sizes[cols.strata[s]]:
                p = cols.pairs[int(r[np.flatnonzero(cols.stratum[r] == s)[0]])]
                raise ValueError(f"sampled pair {p} lies outside the population's strata")
            weight[s] = sizes[cols.strata[s]] / k
    return weight[cols.stratum[r]]


class _Majority(NamedTuple):
    label: str | None  # `majority_label` of the valid repeats (None: a tie or no valid repeat)
    valid: frozenset[str]  # the labels the valid repeats gave
    every: bool  # every repeat gave a label (no error row)


@functools.lru_cache(maxsize=4096)
def _majority_of(pattern: tuple[tuple[int, str | None], ...]) -> _Majority:
    """A pair's judge majority from its verdict pattern: a slice's labelled pairs share a few dozen patterns."""
    valid = [l for _, l in pattern if l is not None]
    return _Majority(majority_label(valid), frozenset(valid), len(valid) == len(pattern))


class _SliceBase(NamedTuple):
    """What a slice's statistics over ALL its pairs are (verdicts only, no label): kept with the verdicts."""

    order: tuple[str, ...]
    repeat_vs_repeat: tuple[RepeatPairAgreement, ...]
    consistency: Consistency
    verdict_rows: int
    verdict_errors: int
    stratum_sizes: Counter  # design stratum -> pairs of the slice in it (the N_s of the design weights)


def _slice_base(pairs: list[Pair], repeats: list[int], columns: "_Columns",
                stratum_of: dict[Pair, tuple[str, str]] | None, info: dict[Pair, PairInfo]) -> _SliceBase:
    # the design stratum (constraint × model under test) of a pair; `stratum_of` has it precomputed
    stratum = (lambda p: (p[1], info[p].model)) if stratum_of is None else stratum_of.__getitem__
    return _slice_base_of(list(map(columns.label_set.__getitem__, pairs)), list(map(columns.pattern.__getitem__, pairs)),
                          list(map(stratum, pairs)), repeats)


class _SliceColumns(NamedTuple):
    """A slice's pairs' label sets, verdict patterns and design strata, in pair order: what `_slice_base_of` reads
    (built in the one pass of `_group_base` that sorts the pairs into slices, not looked up again per slice)."""

    label_sets: list[tuple[str, ...]]
    patterns: list[tuple[tuple[int, str | None], ...]]
    strata: list[tuple[str, str]]


def _slice_base_of(label_sets: list[tuple[str, ...]], sequence: list[tuple[tuple[int, str | None], ...]],
                   strata: list[tuple[str, str]], repeats: list[int]) -> _SliceBase:
    def minority_total(minority_of: dict[Any, float | None]) -> float:
        # summed in pair order, as before: a float sum's last bits depend on the order
        return sum(m for m in map(minority_of.__getitem__, sequence) if m is not None)

    # Over every pair of the slice, a pair counts only through its verdict pattern: count the patterns (in the
    # order each first occurs, which is all the list versions' tie-breaks read) and compute on the counts.
    return _slice_base_counted(_label_order(dict.fromkeys(label_sets)), Counter(sequence), Counter(strata), repeats,
                               minority_total)


def _slice_base_counted(order: tuple[str, ...], patterns: Counter, strata: Counter, repeats: list[int],
                        minority_total: Any) -> _SliceBase:
    """`_slice_base_of` from the slice's pattern counts (in first-occurrence order) and stratum counts: the one
    computation behind the per-pair path and the SQL aggregates (`_sql_group_bases`). `minority_total(minority_of)`
    gives the sum of the pairs' minority shares in pair order (minority_of: pattern -> share, None below two valid
    repeats): the one number that depends on more than the counts."""
    rvr = []
    for i, a in enumerate(repeats):
        for b in repeats[i + 1:]:
            cells: Counter[tuple[str, str]] = Counter()
            both_err = one_err = 0
            for pattern, c in patterns.items():
                labels = dict(pattern)
                la, lb = labels.get(a, "<missing>"), labels.get(b, "<missing>")
                if la == "<missing>" or lb == "<missing>":
                    continue
                if la is None and lb is None:
                    both_err += c
                elif la is None or lb is None:
                    one_err += c
                else:
                    cells[(la, lb)] += c
            rvr.append(RepeatPairAgreement(a, b, sum(cells.values()), sum(c for (x, y), c in cells.items() if x == y),
                                           both_err, one_err, agreement_from_counts(cells, order)))
    minority_of: dict[Any, float | None] = {}
    flipped = multi = 0
    for pattern, c in patterns.items():
        ls = [l for _, l in pattern if l is not None]
        if len(ls) < 2:
            minority_of[pattern] = None
            continue
        multi += c
        flipped += c * (len(set(ls)) > 1)
        minority_of[pattern] = 1 - Counter(ls).most_common(1)[0][1] / len(ls)
    # the mean over the `multi` pairs with a share (as len() of the per-pair list was)
    consistency = Consistency(multi, flipped, flipped / multi if multi else math.nan,
                              minority_total(minority_of) / multi if multi else math.nan)
    n_rows = sum(c * len(pattern) for pattern, c in patterns.items())
    n_errors = sum(c * sum(l is None for _, l in pattern) for pattern, c in patterns.items())
    return _SliceBase(order, tuple(rvr), consistency, n_rows, n_errors, strata)


class _Columns(NamedTuple):
    label_set: dict[Pair, tuple[str, ...]]
    pattern: dict[Pair, tuple[tuple[int, str | None], ...]]


def _columns(pairs: Iterable[Pair], verdicts: dict[Pair, _Verdicts], info: dict[Pair, PairInfo]) -> _Columns:
    return _Columns({p: info[p].labels for p in pairs}, {p: verdicts[p].pattern for p in pairs})


def _label_order(label_sets: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    out: list[str] = []
    for ls in label_sets:
        out += [l for l in ls if l not in out]
    return tuple(out)


class _PpiBase(NamedTuple):
    """A model under test's pass/fail pairs of a group, in pair order: the judge's prediction of each (`judge`), its
    stratum (`strata`, the constraint id), pairs per stratum (`sizes`) and the judged side of the clustering by item
    (`units`). What the pass rate reads of every pair (verdicts only), kept with the verdicts; the labelled pairs are
    read apart, so a report after a new label reads only them. Built per pair (`_ppi_base`) or from the SQL
    aggregates (`_sql_group_bases`): the same lists, element for element."""

    judge: list[float]
    strata: list[str]
    sizes: Counter
    units: JudgedUnits
    # how many pairs hold each prediction, when counted per class (`_classes_base`): what `summarise_all` reads
    counts: dict[float, int] | None = None


def _ppi_bases(pairs: list[Pair], verdicts: dict[Pair, _Verdicts], info: dict[Pair, PairInfo]
               ) -> dict[str, _PpiBase]:
    by_model: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        i = info[p]
        if _is_pass_fail(i.labels):
            by_model[i.model].append(p)
    return {model: _ppi_base(by_model[model], verdicts, info) for model in sorted(by_model)}


@functools.lru_cache(maxsize=256)
def _is_pass_fail(labels: tuple[str, ...]) -> bool:
    """`set(labels) == set(PASS_FAIL)`, once per label set (a project has a handful; it was a set per pair)."""
    return set(labels) == set(PASS_FAIL)


@functools.lru_cache(maxsize=4096)
def _prediction_of(pattern: tuple[tuple[int, str | None], ...]) -> float:
    """`ppi_prediction` of a pair's repeats, once per verdict pattern (a few, however many pairs)."""
    return ppi_prediction(l for _, l in pattern)


def _ppi_base(pairs: Iterable[Pair], verdicts: dict[Pair, _Verdicts], info: dict[Pair, PairInfo]) -> _PpiBase:
    judge, strata, items = [], [], []
    for p in pairs:
        judge.append(_prediction_of(verdicts[p].pattern))
        strata.append(p[1])
        items.append(info[p].item_id)
    return _PpiBase(judge, strata, Counter(strata), judged_units(judge, items))


class _Labelled(NamedTuple):
    """A group's labelled pairs in pair order (`pairs`), and those of each model under test's pass/fail pairs
    (`ppi`) and of each model under test × other label set (`shares`): what the label-dependent numbers read."""

    pairs: list[Pair]
    ppi: dict[str, list[Pair]]
    shares: dict[tuple[str, tuple[str, ...]], list[Pair]]


def _labelled_by_base(labelled: list[Pair], info: dict[Pair, PairInfo]) -> _Labelled:
    ppi: dict[str, list[Pair]] = defaultdict(list)
    shares: dict[tuple[str, tuple[str, ...]], list[Pair]] = defaultdict(list)
    for p in labelled:
        i = info[p]
        if _is_pass_fail(i.labels):
            ppi[i.model].append(p)
        else:
            shares[(i.model, tuple(i.labels))].append(p)
    return _Labelled(labelled, ppi, shares)


def _pass_rates(bases: dict[str, _PpiBase], labelled: _Labelled, verdicts: dict[Pair, _Verdicts],
                humans: dict[Pair, str], rules: dict[Pair, set[str]], info: dict[Pair, PairInfo]
                ) -> tuple[tuple[PassRate, ...], tuple[PassRateClustering, ...]]:
    rates = [_ppi(model, bases[model], labelled.ppi.get(model, []), verdicts, humans, rules, info)
             for model in sorted(bases)]
    return tuple(r for r, _ in rates), tuple(c for _, c in rates)


def _ppi(model: str, base: _PpiBase, labelled: list[Pair], verdicts: dict[Pair, _Verdicts], humans: dict[Pair, str],
         rules: dict[Pair, set[str]], info: dict[Pair, PairInfo]) -> tuple[PassRate, PassRateClustering]:
    # Post-stratified by constraint id: within one model under test and one rubric version that is the sampling
    # stratum (constraint × model × rubric), whose quota is rounded up per stratum. The CI is clustered by item
    # (issue 15.5): an item's constraints share one output. `labelled`: the model's labelled pass/fail pairs of the
    # group, in pair order.
    judge_lab, human_lab, strata_lab, lab_pairs = [], [], [], []
    for p in labelled:
        if "random" in rules.get(p, ()):
            judge_lab.append(_prediction_of(verdicts[p].pattern))
            human_lab.append(int(humans[p] == "pass"))
            strata_lab.append(p[1])
            lab_pairs.append(p)
    rate = ppi_pass_rate(model, base.judge, judge_lab, human_lab, strata_all=base.strata, strata_lab=strata_lab)
    if math.isnan(rate.ppi_estimate):
        return rate, clustered_pass_rate(rate, [], [], [], [], [], [])[1]
    weights = design_weights(lab_pairs, (), lambda p: p[1], sizes=base.sizes)
    return clustered_pass_rate(rate, base.judge, base.units.codes, judge_lab, human_lab, weights,
                               [info[p].item_id for p in lab_pairs], judged=base.units)


class _ShareBase(NamedTuple):
    """A model under test × label set (not pass/fail) of a group, over its pairs in pair order: each pair's stratum
    and, per label, `label_predictions` (verdicts only, kept with them)."""

    strata: list[str]
    f_all: dict[str, list[float]]  # label -> `label_predictions` over the pairs
    # per label, how many pairs hold each prediction, and the pairs per stratum, when counted per class
    # (`_classes_base`): what `summarise_all` reads
    counts: dict[str, dict[float, int]] | None = None
    sizes: Counter | None = None


def _share_bases(pairs: list[Pair], verdicts: dict[Pair, _Verdicts], info: dict[Pair, PairInfo]
                 ) -> dict[tuple[str, tuple[str, ...]], _ShareBase]:
    groups: dict[tuple[str, tuple[str, ...]], list[Pair]] = defaultdict(list)
    for p in pairs:
        i = info[p]
        if not _is_pass_fail(i.labels):
            groups[(i.model, tuple(i.labels))].append(p)
    out = {}
    for key, ps in sorted(groups.items()):
        labels = [list(verdicts[p].labels.values()) for p in ps]
        out[key] = _ShareBase([p[1] for p in ps], label_predictions(key[1], labels))
    return out


def _rogan_gladen(bases: dict[str, _PpiBase], labelled: _Labelled, verdicts: dict[Pair, _Verdicts],
                  humans: dict[Pair, str], rules: dict[Pair, set[str]], info: dict[Pair, PairInfo]
                  ) -> tuple[RoganGladen, ...]:
    """The Rogan–Gladen cross-check per model under test on the same pairs and predictions as `_ppi`: the judge's
    pass rate over every judged pass/fail pair, TPR/TNR on the counted random pairs weighted by N_s / n_s of their
    constraint (the quota's stratum), the bootstrap resampling items (an item's constraints share one output)."""
    out = []
    for model in sorted(bases):
        base = bases[model]
        lab = [p for p in labelled.ppi.get(model, []) if "random" in rules.get(p, ()) and humans[p] in PASS_FAIL]
        out.append(rogan_gladen(model, base.judge, [_prediction_of(verdicts[p].pattern) for p in lab],
                                [int(humans[p] == "pass") for p in lab],
                                weights=design_weights(lab, (), lambda p: p[1], sizes=base.sizes) if lab else None,
                                clusters=[info[p].item_id for p in lab]))
    return tuple(out)


def _label_rates(bases: dict[tuple[str, tuple[str, ...]], _ShareBase], labelled: _Labelled,
                 verdicts: dict[Pair, _Verdicts], humans: dict[Pair, str], rules: dict[Pair, set[str]]
                 ) -> tuple[LabelShare, ...]:
    """Per model under test × label set other than pass/fail: the corrected share of each label (`label_shares`),
    labelled pairs being the counted random pairs, post-stratified by constraint id like the pass rate."""
    out: list[LabelShare] = []
    for (model, label_set), base in bases.items():
        lab = [p for p in labelled.shares.get((model, label_set), []) if "random" in rules.get(p, ())]
        # `judge_all` is not read when `f_all_by_label` is given: an empty list stands for the pairs' repeats
        out += label_shares(model, label_set, [],
                            [list(verdicts[p].labels.values()) for p in lab], [humans[p] for p in lab],
                            strata_all=base.strata, strata_lab=[p[1] for p in lab], f_all_by_label=base.f_all)
    return tuple(out)


def _plans(rates: tuple[PassRate, ...], shares: tuple[LabelShare, ...], target: float,
           clustering: tuple[PassRateClustering, ...] = ()) -> tuple[RatePlan, ...]:
    # a pass rate's plan grows with its design effect by item (issue 15.5), as its CI does
    deff = {c.model: c.design_effect.value for c in clustering}
    return (tuple(rate_plan(r, target, design_effect=deff.get(r.model, 1.0)) for r in rates)
            + tuple(rate_plan(s.rate, target, label=f"{s.label_set}: {s.label}") for s in shares))


def judge_corrected_pass_rate(db: sqlite_utils.Database, *, run_id: str, rubric: str | None = None,
                              model: str | None = None) -> PassRate | None:
    """The prediction-powered pass rate of one run (run_records.run_id) over its pass/fail semantic pairs.

    The judge labels come from one judge model × rubric version: among the latest version of each rubric name, the
    one that judged most of the run's pairs (`rubric` / `model` narrow the choice). None when nothing of the run
    has been judged. The `model` of the result is the run id."""
    info = pair_info(db)
    run_pairs = {(rid, cid) for rid, cid in db.execute(
        "SELECT r.id, c.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL"
        " WHERE r.run_id = ?", [run_id]) if set(info[(rid, cid)].labels) == set(PASS_FAIL)}
    rubric_rows = {r[0]: r for r in db.execute("SELECT sha256, name, version, created_at FROM rubrics")}
    best: dict[tuple[str, str], tuple[int, dict[Pair, _Verdicts]]] = {}
    for (jm, sha), verdicts in load_verdicts(db, rubrics=match_rubrics(db, rubric), model=model).items():
        mine = {p: v for p, v in verdicts.items() if p in run_pairs}
        key = (jm, rubric_rows[sha][1])
        if mine and (key not in best or rubric_rows[sha][2] > best[key][0]):
            best[key] = (rubric_rows[sha][2], mine)
    if not best:
        return None
    _, verdicts = max(best.values(), key=lambda b: len(b[1]))
    verdicts, _ = common_repeats(verdicts)
    labels = human_labels_by_pair(db)
    humans = {p: rows[0]["label"] for p, rows in labels.items()}
    return _ppi(run_id, _ppi_base(verdicts, verdicts, info), [p for p in verdicts if p in humans], verdicts, humans,
                counted_rules(db), info)[0]


def calibration_report(db: sqlite_utils.Database, *, rubric: str | None = None, model: str | None = None,
                       constraint: str | Sequence[str] | None = None, rubric_seen: str | None = None,
                       rate: float = DEFAULT_RATE,
                       target_half_width: float = PLAN_HALF_WIDTH, run_id: str | None = None) -> CalibrationReport:
    """The calibration report (see the module docstring for every convention).

    `rubric` filters rubric versions (sha256, 8+ prefix, name = all versions, or name@version); `model` is the judge
    model; `constraint` one or more constraint ids; `rubric_seen` keeps human labels made while that rubric was shown;
    `rate` is the review quota per stratum (constraint × model under test × rubric version); `target_half_width`
    the 95% half-width label planning aims at (`RatePlan`). Unknown rubric specs raise ValueError. `run_id`
    restricts every number to that run's records, counted on its counted pairs (the population's draw order
    restricted to the run: `counted_pairs(run_id=...)`); an unknown run is a ValueError.
    """
    # The cycle collector paused (`gc_paused`): the report builds millions of long-lived,
    # acyclic objects at a million run records, and each generation-2 pass walks them all again (~13% of the CPU at
    # 100k). Process-wide: in the app a second thread's report may find it resumed early, which is only slower.
    # One snapshot (`read_snapshot`): every number from the same labels and verdicts while reviewers go on saving.
    with gc_paused(), read_snapshot(db):
        return _calibration_report(db, rubric=rubric, model=model, constraint=constraint, rubric_seen=rubric_seen,
                                   rate=rate, target_half_width=target_half_width, run_id=run_id)


class GateParts(NamedTuple):
    """What `run_gate` reads of a report (`gate_report`): every group's fields the gate's checks read, for the
    latest rubric version of each name per judge model only (`latest_groups`)."""

    pass_rates: bool  # --min-pass-rate: it gates the corrected pass rates


def gate_report(db: sqlite_utils.Database, parts: GateParts, *, rubric: str | None, model: str | None,
                constraint: Sequence[str] | None, rate: float) -> CalibrationReport:
    """The calibration report as `run_gate` reads it: the latest group of each rubric name and judge model, with its
    overall, label set and verification slices and (as `parts` asks) pass rates, its population gaps,
    the human–human agreement and the coverage rows; what the gate never reads (the type slices, labels that do not
    count, label shares, plans, judge error, Rogan–Gladen, older versions) is left empty. Each field it fills is the
    one `calibration_report` computes (tests/test_scale_golden.py pins the gate's output)."""
    with gc_paused(), read_snapshot(db):
        return _calibration_report(db, rubric=rubric, model=model, constraint=constraint, rubric_seen=None,
                                   rate=rate, target_half_width=PLAN_HALF_WIDTH, run_id=None, gate=parts)


def page_report(db: sqlite_utils.Database, *, rubric: str | None = None, model: str | None = None,
                constraint: str | None = None) -> CalibrationReport:
    """The calibration report as the app's Calibration page shows it: every field `calibration_report` fills but
    the two the page never reads, `judge_error` (None) and `rogan_gladen` (()): ~0.9 s of the ~3.7 s the page paid
    after each new label at a million run records (issue 16.3). Every other field is the one `calibration_report`
    computes (tests/test_calibration_page_cache.py)."""
    with gc_paused(), read_snapshot(db):
        return _calibration_report(db, rubric=rubric, model=model, constraint=constraint, rubric_seen=None,
                                   rate=DEFAULT_RATE, target_half_width=PLAN_HALF_WIDTH, run_id=None, page=True)


def _calibration_report(db: sqlite_utils.Database, *, rubric: str | None, model: str | None,
                        constraint: str | Sequence[str] | None, rubric_seen: str | None, rate: float,
                        target_half_width: float, run_id: str | None,
                        gate: GateParts | None = None, page: bool = False) -> CalibrationReport:
    """`calibration_report` with the collector paused; `gate`: only what `run_gate` reads (`gate_report`); `page`:
    no judge error or Rogan–Gladen (`page_report`)."""
    shas = match_rubrics(db, rubric)
    seen = match_rubrics(db, rubric_seen)
    constraints = _as_set(constraint)
    version = verdicts_version(db)  # read once: it keys every kept part
    # The sample rules of the pairs with a label event: every rule the report looks up is a labelled pair's (the
    # counted pairs, the labelled pairs' kinds, the overlap pairs of two reviewers), so the 250k sampled pairs without
    # a label at a million run records are not read (kept, stored and updated per label like the label side)
    raw_rules = _kept_labelled_rules(db)
    # The blind first labels, the counted pairs, their rules and the labels by pair: kept in the process, and after
    # labels were only added updated for the new rows' pairs (issue 16 item 3: ~6 s of a report after a new label
    # at a million run records)
    label_side = _kept_label_side(db, run_id, raw_rules)
    counted_of_run, rules, counted = label_side.counted_of_run, label_side.rules, label_side.counted
    all_labels = (_kept_labels_by_pair(db) if seen is None
                  else human_labels_by_pair(db, rubric_seen=seen, rows=kept_blind_first(db).rows))
    records = None
    if run_id is not None:
        # the run comparison module loads only for `--run-id` (issue 16.2, start-up)
        from judgecal.annotations.reports._runs import require_run  # noqa: PLC0415

        records = require_run(db, run_id)
    # What each group computes over all its pairs (slice pattern counts, repeat vs repeat, consistency, stratum
    # sizes, the predictions the corrected rates read): verdicts only, so kept with them; labels decide only which
    # pairs are compared. With `verdict_pairs` (migration 015) from one streamed SQL pass, and only the labelled
    # pairs' info and verdicts are read into Python; else (an older read-only project, a label holding a separator)
    # pair by pair, every pair's info and verdicts in memory.
    args = _judged_args(shas, model, constraints, run_id)
    bases = (_kept(db, "group_bases_sql", args, lambda: _sql_group_bases(db, shas, model, constraints, run_id),
                   version) if _AGGREGATE_IN_SQL and has_verdict_pairs(db) else None)
    maps = None
    if bases is not None:
        if seen is None and records is None:
            # the labelled pairs' maps below, kept and updated per new label's pair (issue 16 item 3)
            maps = _kept_label_maps(db)
            info = maps.info
        else:
            # every labelled pair's info, kept (a new label reads its own pair's), restricted to these labels' pairs
            kept_info = _kept_labelled_info(db)
            info = {p: kept_info[p] for p in all_labels if p in kept_info}
    else:
        info = _pair_info_kept(db, version)
    if maps is None:
        if records is not None:
            info = {p: i for p, i in info.items() if p[0] in records}  # a new dict: the kept one is never mutated
        maps = _label_maps(info, all_labels, later_events(db))
    labels_by_pair, humans = maps.labels_by_pair, maps.humans
    if bases is not None:
        lab_verdicts = _kept_labelled_verdicts(db, humans, shas, model, constraints)
        judged_lab = {}
        for key, base in bases.items():
            common, shared = set(base.repeats), {}
            verdicts: dict[Pair, _Verdicts] = {}
            for p, labels in lab_verdicts.get(key, ()):
                v = shared.get(id(labels))
                if v is None:  # one per stored pattern, restricted to the group's common repeats
                    v = shared[id(labels)] = _Verdicts({r: l for r, l in labels.items() if r in common}, {})
                verdicts[p] = v
            judged_lab[key] = (verdicts, list(verdicts))
    else:
        full_strata = _kept(db, "strata", (), lambda: _strata_of(_pair_info_kept(db, version)), version)
        judged = _judged_groups(db, info, shas, model, constraints, run_id, version)
        bases = _kept(db, "group_bases", args,
                      lambda: {key: _group_base(verdicts, info, full_strata, ignored)
                               for key, (verdicts, ignored) in judged.items()}, version)
        judged_lab = {key: (verdicts, sorted((p for p in humans if p in bases[key].position),
                                             key=bases[key].position.__getitem__))
                      for key, (verdicts, _) in judged.items()}
    stratum_of, post_reveal = maps.stratum_of, maps.post_reveal
    rubric_rows = {r[0]: r for r in db.execute("SELECT sha256, name, version, created_at FROM rubrics")}
    population = _kept(db, "population", (run_id,), lambda: population_sizes(db, run_id, version=version), version)
    parents = {sha: parent for sha, parent in db.execute("SELECT sha256, parent_sha256 FROM rubrics")}
    # the labelled records' only: a new label reads its own record's (the gate and the page read no judge error)
    covariates = kept_record_covariates(db) if gate is None and not page else None
    # what the corrected rates read of every judged pair, kept beside the bases (the same key)
    summaries = (_kept(db, "ppi_summaries", (_AGGREGATE_IN_SQL and has_verdict_pairs(db), *args),
                       lambda: _ppi_summaries(bases), version) if _COLUMNS and (gate is None or gate.pass_rates)
                 else None)
    latest: dict[tuple[str, str], int] = {}  # (judge model, rubric name) -> its latest version judged
    for jm, sha in bases:
        key = (jm, rubric_rows[sha][1])
        latest[key] = max(latest.get(key, rubric_rows[sha][2]), rubric_rows[sha][2])
    groups = []
    for (jm, sha), base in sorted(bases.items(), key=lambda kv: (kv[0][0], rubric_rows[kv[0][1]][1],
                                                                 rubric_rows[kv[0][1]][2])):
        if gate is not None and rubric_rows[sha][2] != latest[(jm, rubric_rows[sha][1])]:
            continue  # the gate gates the latest version of each rubric (`latest_groups`)
        # the group's labelled pairs in pair order (what every label-dependent number reads: few, however many
        # pairs) with their verdicts; a slice's are those of its kind, in the same order
        verdicts, labelled = judged_lab[(jm, sha)]
        repeats = base.repeats
        # each labelled pair's label set and pattern, for the per-pair path (with the columns, a verification slice's
        # own pairs are looked up by `_slice_stats`: 176k pairs' look-ups, ~0.4 s at a million run records, saved)
        columns = (None if _COLUMNS else
                   _Columns({p: info[p].labels for p in labelled}, {p: verdicts[p].pattern for p in labelled}))
        # the labelled pairs as columns, read once for every slice and rate they enter (issue 16.3); off: per pair
        cols = (_labelled_columns(labelled, verdicts, humans, rules, info, repeats, post_reveal)
                if _COLUMNS else None)
        pass_rates, pass_clustering = (), ()
        if cols is None:
            by_kind = _labelled_by_base(labelled, info)
            if gate is None or gate.pass_rates:
                pass_rates, pass_clustering = _pass_rates(base.ppi, by_kind, verdicts, humans, rules, info)
        elif gate is None or gate.pass_rates:
            pass_rates, pass_clustering = _pass_rates_columns(base.ppi, cols, summaries[(jm, sha)][0])
        of_slice: dict[tuple[str, str], list[Pair]] | None = None

        def labelled_of(name: str) -> list[Pair]:
            nonlocal of_slice
            kind, _, value = name.partition(":")
            if kind == "overall":
                return labelled
            if cols is not None:
                return [cols.pairs[k] for k in cols.slice_index(name).tolist()]
            if of_slice is None:
                # each slice's labelled pairs, sorted out in one pass (in pair order)
                of_slice = defaultdict(list)
                joined: dict[tuple[str, ...], str] = {}
                for p in labelled:
                    i = info[p]
                    ls = joined.get(i.labels)
                    if ls is None:
                        ls = joined[i.labels] = "/".join(i.labels)
                    of_slice[("constraint", p[1])].append(p)
                    of_slice[("type", i.type)].append(p)
                    of_slice[("labels", ls)].append(p)
            return of_slice.get((kind, value), [])

        def stats(name: str, ps: list[Pair] | None = None) -> SliceStats:
            # `ps` given: a verification slice, computed on those (labelled) pairs alone
            if ps is not None:
                return _slice_stats(name, ps, verdicts, humans, rules, info, repeats, post_reveal, stratum_of,
                                    columns)
            if cols is not None:
                return _slice_stats_columns(name, cols, cols.slice_index(name), base.slices[name], base.sizes[name],
                                            repeats)
            return _slice_stats(name, [], verdicts, humans, rules, info, repeats, post_reveal, stratum_of, columns,
                                base.slices[name], labelled_of(name), base.sizes[name])

        _, name, rubric_version, created = rubric_rows[sha]
        verified_on, fresh = _verification(sha, created, parents, labelled, labels_by_pair, counted)
        verification = ()
        by_ls = base.label_sets
        if fresh is not None:
            fresh_ls = {ls: [p for p in labelled_of(f"labels:{ls}") if p in fresh] for ls in by_ls}
            verification = (tuple(stats(f"labels:{ls}", fresh_ls[ls]) for ls in sorted(by_ls))
                            if len(by_ls) > 1 else (stats("overall", [p for p in labelled if p in fresh]),))
        if gate is not None:  # what `run_gate` reads, each computed as below
            groups.append(JudgeGroup(
                jm, sha, name, rubric_version, created, stats("overall"),
                by_constraint=(),
                by_type=(), pass_rates=pass_rates,
                by_label_set=tuple(stats(f"labels:{ls}") for ls in sorted(by_ls)) if len(by_ls) > 1 else (),
                verified_on=verified_on, verification=verification,
                population_gaps=_population_gaps([], info, population, base.slices["overall"].stratum_sizes),
                repeats_used=tuple(repeats), ignored_repeat_rows=base.ignored, pass_rate_clustering=pass_clustering))
            continue
        groups.append(JudgeGroup(
            jm, sha, name, rubric_version, created, stats("overall"),
            tuple(stats(f"constraint:{c}") for c in sorted(base.constraints)),
            tuple(stats(f"type:{t}") for t in sorted(base.types)),
            pass_rates,
            tuple(stats(f"labels:{ls}") for ls in sorted(by_ls)) if len(by_ls) > 1 else (),
            _non_random(labelled, verdicts, humans, raw_rules, counted, info,
                        None if cols is None else _positions(cols, ~cols.random)[1]),
            verified_on, verification, _population_gaps([], info, population, base.slices["overall"].stratum_sizes),
            tuple(repeats), base.ignored,
            shares := (_label_rates(base.shares, by_kind, verdicts, humans, rules) if cols is None
                       else _label_rates_columns(base.shares, cols, summaries[(jm, sha)][1])),
            _plans(pass_rates, shares, target_half_width, pass_clustering),
            pass_clustering,
            (None if page else _judge_error(labelled, verdicts, humans, rules, info, covariates) if cols is None
             else _judge_error_columns(cols, info, covariates)),
            (() if page else _rogan_gladen(base.ppi, by_kind, verdicts, humans, rules, info) if cols is None
             else _rogan_gladen_columns(base.ppi, cols)),
        ))
    human_human = _human_human(labels_by_pair, rules, info, constraints)
    judged_shas = {g.rubric_sha256 for g in groups}
    cov = tuple(
        CoverageRow(c.stratum, c.constraint_id, c.model, c.rubric_sha256, c.judged, c.labelled, c.needed, rate, c.ok,
                    c.population, _coverage_reason(c, run_id))
        for c in stratum_coverage(db, rate, run_id=run_id, version=version, counted=counted_of_run)
        if c.rubric_sha256 in judged_shas and (constraints is None or c.constraint_id in constraints)
    )
    filters = {"rubric": rubric, "model": model, "constraint": sorted(constraints) if constraints else None,
               "rubric_seen": rubric_seen}
    if run_id is not None:
        filters["run_id"] = run_id
    return CalibrationReport(filters, rate, MAJORITY_RULE, tuple(groups), human_human, cov, named_seeds(db))


class _LabelSide(NamedTuple):
    """What the report reads from the blind first labels and the sample (`_kept_label_side`)."""

    order: dict[tuple[str, str], tuple[Pair, ...]]  # `counted_pairs(...).order`
    prefix: dict[tuple[str, str], int]  # `counted_pairs(...).prefix`
    counted_of_run: frozenset[Pair]  # `counted_pairs(...).pairs`
    rules: dict[Pair, frozenset[str]]  # `counted_rules`
    counted: frozenset[Pair]  # the counted pairs whose sample rules hold "random"


# The tables `_kept_label_side` is computed from: the sample rules' (verdicts, run records, constraints, rubrics and
# samples: `verdicts_version` and `samples_version`), the draw orders' (samples, run records, verdicts) and the labels.
_LABEL_SIDE_TABLES = ("verdicts", "run_records", "constraints", "rubrics", "samples", "human_labels")


def _kept_label_side(db: sqlite_utils.Database, run_id: str | None,
                     raw_rules: dict[Pair, frozenset[str]]) -> _LabelSide:
    """The counted pairs (`counted_pairs`), their rules (`counted_rules`) and the counted random pairs, kept under the
    versions of the tables they are read from (`kept_for_tables`). After labels were only added, the blind first
    labels only grew (a pair and reviewer keep their first event), so each population's counted prefix can only
    lengthen: it is walked on from where it ended, and only the newly counted pairs' rules change (a new value: the
    kept one is never mutated). `raw_rules`: `_kept_labelled_rules(db)` (every pair it looks up has a label), unchanged
    while the value is kept."""

    def compute() -> _LabelSide:
        found = counted_pairs(db, run_id=run_id)  # (its blind rows: `kept_blind_first`'s)
        # the pairs whose rules hold "random", found in C: pairs share a few rule-set objects
        flag = {r: "random" in r for r in set(raw_rules.values())}
        counted = found.pairs & frozenset(itertools.compress(raw_rules, map(flag.__getitem__, raw_rules.values())))
        return _LabelSide(found.order, found.prefix, found.pairs,
                          counted_rules(db, run_id, raw_rules, found.pairs), counted)

    def update(old: _LabelSide, since: int) -> _LabelSide:
        blind = _kept_labels_by_pair(db)  # its keys: the pairs with a blind first label
        prefix, added = dict(old.prefix), []
        for key, order in old.order.items():
            k = start = prefix[key]
            while k < len(order) and order[k] in blind:
                k += 1
            if k > start:
                prefix[key] = k
                added.extend(order[start:k])
        # the pairs labelled since (`raw_rules` holds the labelled pairs' rules only): their rules, "random" kept
        # only on those now counted
        missing = raw_rules.keys() - old.rules.keys()
        if not added and not missing:
            return old._replace(prefix=prefix)
        rules = dict(old.rules)
        without: dict[frozenset[str], frozenset[str]] = {}
        for p in missing:
            r = raw_rules[p]
            if r not in without:
                without[r] = r - {"random"}
            rules[p] = without[r]
        for p in added:
            r = raw_rules.get(p)
            if r is not None:
                rules[p] = r
        return _LabelSide(old.order, prefix, old.counted_of_run | frozenset(added), rules,
                          old.counted | frozenset(p for p in added if "random" in raw_rules.get(p, ())))

    return kept_for_tables(db, "label_side", (run_id,), _LABEL_SIDE_TABLES, compute,
                           appended=("human_labels", update))


def _kept_labels_by_pair(db: sqlite_utils.Database) -> dict[Pair, list[Any]]:
    """`human_labels_by_pair(db, rows=kept_blind_first(db).rows)`, kept under the labels' version. A pair's rows are
    its reviewers' blind first labels, each its reviewer's first event there, so in event order they are already in
    the order `human_labels_by_pair` sorts them into (each reviewer's first event); the new blind first labels after
    labels were only added are appended to their pairs (new lists, a new dict: the kept ones are never mutated)."""

    def update(old: dict[Pair, list[Any]], since: int) -> dict[Pair, list[Any]]:
        rows = kept_blind_first(db).rows
        k = len(rows)
        while k > 0 and rows[k - 1].id > since:  # the blind first labels stored since: the last rows
            k -= 1
        if k == len(rows):
            return old
        out = dict(old)
        for row in rows[k:]:
            pair = (row.run_record_id, row.constraint_id)
            out[pair] = [*out.get(pair, ()), row]
        return out

    return kept_for_tables(db, "labels_by_pair", (), ("human_labels",),
                           lambda: human_labels_by_pair(db, rows=kept_blind_first(db).rows),
                           appended=("human_labels", update))


class _LabelMaps(NamedTuple):
    """The report's maps of its labelled pairs (`_label_maps`)."""

    info: dict[Pair, PairInfo]  # the labelled pairs' info, in the labels' pair order
    labels_by_pair: dict[Pair, list[Any]]  # their blind first labels, the first reviewer's first
    humans: dict[Pair, str]  # their first reviewer's blind first label
    stratum_of: dict[Pair, tuple[str, str]]  # their design strata
    post_reveal: frozenset[Pair]  # those whose first reviewer has events after their blind first label
    later: frozenset[tuple[str, str, str]]  # `later_events`


def _label_maps(info: dict[Pair, PairInfo], all_labels: dict[Pair, list[Any]],
                later: set[tuple[str, str, str]]) -> _LabelMaps:
    """`info` (a labelled pair's info, for the pairs with it) restricted to the pairs of `all_labels`, and what the
    report reads of those pairs' labels."""
    # (one look-up per pair, and none where every labelled pair has its info: 176k pairs at a million run records)
    info = {p: i for p in all_labels if (i := info.get(p)) is not None}
    labels_by_pair = (all_labels if len(info) == len(all_labels)  # never mutated: the same dict serves
                      else {p: rows for p, rows in all_labels.items() if p in info})
    humans = {p: rows[0]["label"] for p, rows in labels_by_pair.items()}
    stratum_of = {p: (p[1], i.model) for p, i in info.items()}  # (the same pairs in the same order)
    post_reveal = frozenset(p for p, rows in labels_by_pair.items() if (p[0], p[1], rows[0]["reviewer"]) in later)
    return _LabelMaps(info, labels_by_pair, humans, stratum_of, post_reveal, frozenset(later))


def _kept_label_maps(db: sqlite_utils.Database) -> _LabelMaps:
    """`_label_maps` of every labelled pair's info (`_kept_labelled_info`), the labels by pair (`_kept_labels_by_pair`)
    and `later_events`, kept under the run records', constraints' and labels' versions. After labels were only added,
    only the pairs with new events change: their entries are recomputed (a pair new to the labels goes last, in the
    order its first blind label puts it in the labels by pair), and their later events are counted again through
    the pair index. New containers: the kept ones are never mutated."""
    from judgecal.annotations.store import PAIRS_IN_JSON, pairs_labelled_since  # noqa: PLC0415

    def update(old: _LabelMaps, since: int) -> _LabelMaps | None:
        touched = pairs_labelled_since(db, since)
        if touched is None:
            return None
        touched = list(dict.fromkeys(map(tuple, touched)))
        if not touched:
            return old
        kept_info, all_labels = _kept_labelled_info(db), _kept_labels_by_pair(db)
        keys = set(touched)
        later = {k for k in old.later if k[:2] not in keys} | {tuple(r) for r in db.execute(
            "SELECT run_record_id, constraint_id, reviewer FROM human_labels WHERE " + PAIRS_IN_JSON
            + " GROUP BY 1, 2, 3 HAVING count(*) > 1", [json.dumps(touched)])}
        info, labels_by_pair, humans = dict(old.info), dict(old.labels_by_pair), dict(old.humans)
        stratum_of, post_reveal = dict(old.stratum_of), set(old.post_reveal)
        # the pairs new to the labels by pair are its last ones, in its order
        new_pairs = [p for p in itertools.islice(reversed(all_labels), len(touched)) if p in keys and p not in info]
        for p in [*(p for p in touched if p in info), *reversed(new_pairs)]:
            rows = all_labels.get(p)
            if rows is None or p not in kept_info:
                continue
            info[p], labels_by_pair[p], humans[p] = kept_info[p], rows, rows[0]["label"]
            stratum_of[p] = (p[1], info[p].model)
            if (p[0], p[1], rows[0]["reviewer"]) in later:
                post_reveal.add(p)
            else:
                post_reveal.discard(p)
        return _LabelMaps(info, labels_by_pair, humans, stratum_of, frozenset(post_reveal), frozenset(later))

    return kept_for_tables(db, "label_maps", (), ("run_records", "constraints", "human_labels"),
                           lambda: _label_maps(_kept_labelled_info(db), _kept_labels_by_pair(db), later_events(db)),
                           appended=("human_labels", update))


def _strata_of(info: dict[Pair, PairInfo]) -> dict[Pair, tuple[str, str]]:
    """Each pair's design stratum (constraint, model under test); one tuple per stratum, shared by its pairs (not a
    tuple per pair: 1.7M at a million run records)."""
    shared: dict[tuple[str, str], tuple[str, str]] = {}
    return {p: shared.setdefault((p[1], i.model), (p[1], i.model)) for p, i in info.items()}


def _judge_error(pairs: list[Pair], verdicts: dict[Pair, _Verdicts], humans: dict[Pair, str],
                 rules: dict[Pair, set[str]], info: dict[Pair, PairInfo], covariates: Any) -> JudgeError | None:
    """Judge error on the group's counted pass/fail pairs: the judge's majority (a tie or no valid repeat is an
    abstention) against the blind first human label."""
    counted = [p for p in pairs if p in humans and "random" in rules.get(p, ()) and _is_pass_fail(info[p].labels)
               and humans[p] in PASS_FAIL]
    if not counted:
        return None
    judge = [_majority_of(verdicts[p].pattern).label or ABSTAIN for p in counted]  # once per verdict pattern
    return judge_error([p[0] for p in counted], [p[1] for p in counted], [info[p].model for p in counted],
                       [info[p].item_id for p in counted],
                       judge, [humans[p] for p in counted], covariates)


def _judge_error_columns(cols: _LabelledColumns, info: dict[Pair, PairInfo], covariates: Any) -> JudgeError | None:
    """`_judge_error` from the labelled pairs' columns: the same pairs in the same order, the same lists."""
    human_pf = np.isin(cols.human, [k for k, label in enumerate(cols.vocab) if label in PASS_FAIL])
    idx = np.flatnonzero(cols.random & cols.pass_fail & human_pf).tolist()
    if not idx:
        return None
    counted = list(map(cols.pairs.__getitem__, idx))
    infos = list(map(info.__getitem__, counted))
    vocab = cols.vocab
    as_judge = [label or ABSTAIN for label in vocab]  # per code, not per pair (the lists are built in C)
    judge = list(map(as_judge.__getitem__, cols.judge[idx].tolist()))
    return judge_error(list(map(_RECORD, counted)), list(map(_CONSTRAINT, counted)), list(map(_MODEL, infos)),
                       list(map(_ITEM, infos)), judge, list(map(vocab.__getitem__, cols.human[idx].tolist())),
                       covariates)


# What every verdict and semantic pair of the project loads into (the slow part: a pass over every verdict row),
# kept in the process between calls under `verdicts_version` (the verdicts, run records, constraints and rubrics it
# is read from) and the filters, so the app's report after a new label reads only labels and samples again. Never
# mutated by its readers. Not kept for an in-memory database (no file to name it by).
_KEPT: dict[tuple, Any] = {}
# The SQL aggregates (`_sql_group_bases`) when the project has `verdict_pairs`; tests turn it off to compare them
# with the per-pair path on the same project.
_AGGREGATE_IN_SQL = True
# The label-dependent numbers from the labelled pairs' columns (`_labelled_columns`, issue 16.3); tests turn it off to
# compare them with the per-pair computation (`_slice_stats` and the rest) on the same project.
_COLUMNS = True
_KEPT_SIZE = 16  # per filter: the bases and their summaries (`_ppi_summaries`), beside the shared values
_KEPT_LOCK = threading.Lock()


def _kept(db: sqlite_utils.Database, name: str, args: tuple, compute: Any, version: tuple | None = None) -> Any:
    """`compute()` kept under (database file, name, args, `verdicts_version`); `version`: that version when the
    caller has read it."""
    path = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "") or ""
    if not path:
        return compute()
    key = (path, name, args, verdicts_version(db) if version is None else version)
    found = _KEPT.get(key)
    if found is None:
        found = compute()
        with _KEPT_LOCK:  # the app serves sessions from threads
            while len(_KEPT) >= _KEPT_SIZE:
                _KEPT.pop(next(iter(_KEPT)))
            _KEPT[key] = found
    return found


def kept_sample_rules(db: sqlite_utils.Database, version: tuple | None = None) -> dict[Pair, frozenset[str]]:
    """`sample_rules(db)`, kept under the verdicts' and the samples' versions (the caller must not mutate it)."""
    return _kept(db, "sample_rules", (), lambda: sample_rules(db),
                 ((verdicts_version(db) if version is None else version), samples_version(db)))


def _pair_info_kept(db: sqlite_utils.Database, version: tuple | None = None) -> dict[Pair, PairInfo]:
    return _kept(db, "pair_info", (), lambda: pair_info(db), version)


def _judged_args(shas: set[str] | None, model: str | None, constraints: set[str] | None,
                 run_id: str | None) -> tuple:
    # `info` is the run's with run_id, so the run is part of what the groups are computed from
    return (frozenset(shas) if shas is not None else None, model,
            frozenset(constraints) if constraints is not None else None, run_id)


def _judged_groups(db: sqlite_utils.Database, info: dict[Pair, PairInfo], shas: set[str] | None, model: str | None,
                   constraints: set[str] | None, run_id: str | None = None, version: tuple | None = None
                   ) -> dict[tuple[str, str], tuple[dict[Pair, _Verdicts], int]]:
    """(judge model, rubric sha) -> (its semantic pairs' verdicts on their common repeats, rows left out)."""
    def compute() -> dict[tuple[str, str], tuple[dict[Pair, _Verdicts], int]]:
        loaded = load_verdicts(db, rubrics=shas, model=model, constraints=constraints, reasons=False)
        return {key: common_repeats({p: v for p, v in verdicts.items() if p in info})
                for key, verdicts in loaded.items()}

    return _kept(db, "judged_groups", _judged_args(shas, model, constraints, run_id), compute, version)


class _GroupBase(NamedTuple):
    """What a judge group's report computes over all its pairs from verdicts and pair info alone (no label): counts
    and the per-pair lists the corrected rates need, not the pairs themselves. Built per pair (`_group_base`) or
    from one streamed SQL pass (`_sql_group_bases`); the labelled pairs are read apart."""

    n_pairs: int
    repeats: list[int]  # the common repeats of the group's pairs (`common_repeats`)
    ignored: int  # verdict rows of repeats beyond the common ones
    constraints: list[str]  # the slices' names, by kind
    types: list[str]
    label_sets: list[str]  # "/".join of each label set
    slices: dict[str, "_SliceBase"]  # by slice name, every slice of the group but the verification ones
    sizes: dict[str, int]  # by slice name: its judged pairs
    ppi: dict[str, "_PpiBase"]  # by model under test, its pass/fail pairs
    shares: dict[tuple[str, tuple[str, ...]], "_ShareBase"]  # by model under test × label set, the other sets
    position: dict[Pair, int] | None  # pair -> its place (the per-pair path; the SQL path reads labelled pairs apart)


def _group_base(verdicts: dict[Pair, _Verdicts], info: dict[Pair, PairInfo],
                stratum_of: dict[Pair, tuple[str, str]], ignored: int = 0) -> _GroupBase:
    """The per-pair path: `verdicts` (after `common_repeats`) and every pair's info in memory."""
    pairs = list(verdicts)
    repeats = sorted({r for v in verdicts.values() for r in v.labels})
    new_columns = lambda: _SliceColumns([], [], [])  # noqa: E731
    overall = new_columns()
    of_c: dict[str, _SliceColumns] = defaultdict(new_columns)
    of_t: dict[str, _SliceColumns] = defaultdict(new_columns)
    of_ls: dict[str, _SliceColumns] = defaultdict(new_columns)
    joined: dict[tuple[str, ...], str] = {}  # "/".join per label set, not per pair
    for p in pairs:
        i = info[p]
        ls, pat, st = i.labels, verdicts[p].pattern, stratum_of[p]
        name = joined.get(ls)
        if name is None:
            name = joined[ls] = "/".join(ls)
        for cols in (overall, of_c[p[1]], of_t[i.type], of_ls[name]):
            cols.label_sets.append(ls)
            cols.patterns.append(pat)
            cols.strata.append(st)
    named = [("overall", overall)] + [(f"constraint:{c}", of_c[c]) for c in of_c] + \
        [(f"type:{t}", of_t[t]) for t in of_t] + [(f"labels:{ls}", of_ls[ls]) for ls in of_ls]
    slices = {name: _slice_base_of(*cols, repeats) for name, cols in named}
    sizes = {name: len(cols.patterns) for name, cols in named}
    return _GroupBase(len(pairs), repeats, ignored, list(of_c), list(of_t), list(of_ls), slices, sizes,
                      _ppi_bases(pairs, verdicts, info), _share_bases(pairs, verdicts, info),
                      {p: k for k, p in enumerate(pairs)})


class _PairClass(NamedTuple):
    """The judged pairs of a group that share constraint, model under test, type, label set and verdict pattern (a
    few dozen per group, however many pairs): `code` numbers it in order of its first pair."""

    code: int
    constraint_id: str
    model: str
    type: str
    labels: tuple[str, ...]
    pattern: tuple[tuple[int, str | None], ...]  # restricted to the group's common repeats
    count: int


def _verdict_filters(shas: set[str] | None, model: str | None, constraints: set[str] | None,
                     table: str = "verdict_pairs") -> tuple[list[str], list[Any]]:
    """`load_verdicts`' filters on a table with its columns (judge_model, rubric_sha256, constraint_id)."""
    where, params = [], []
    if model is not None:
        where.append(f"{table}.judge_model = ?")
        params.append(model)
    for column, values in (("rubric_sha256", shas), ("constraint_id", constraints)):
        if values is not None:
            where.append(f"{table}.{column} IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(values)))
    return where, params


_CHUNK = 1 << 16


class _Numbering(dict):
    """Key -> its number in order of first look-up: `map(numbering.__getitem__, keys)` numbers a chunk in C, a new
    key costing one call of `__missing__`."""

    def __missing__(self, key: Any) -> int:
        self[key] = n = len(self)
        return n


class _PairPass(NamedTuple):
    """The one pass over the judged pairs (`_sql_pair_pass`): each pair's class and item number, in pair order."""

    classes: list[str]  # class text (`key` below) by number, in order of first pair
    items: list[str | None]  # item id by number, in order of first pair
    codes: np.ndarray  # each pair's class number
    item_codes: np.ndarray  # each pair's item number


def _sql_group_bases(db: sqlite_utils.Database, shas: set[str] | None, model: str | None,
                     constraints: set[str] | None, run_id: str | None) -> dict[tuple[str, str], _GroupBase] | None:
    """Every judge group's `_GroupBase` from one pass over `verdict_pairs` joined with each pair's run record and
    constraint, in pair order (the table's rowid), without a Python object per pair: each row is numbered by its
    class (`_PairClass`) and its item in C (`map` over a chunk), so what is left per pair is two integer arrays.
    Slices are sums over classes; the lists the corrected rates read per pair (predictions, strata, item numbers)
    are taken from the arrays in pair order. Equal, number for number and bit for bit, to `_group_base` over
    `load_verdicts` (tests/test_report_aggregates.py). None when a stored label holds a separator character (the
    caller reads pair by pair).

    The pass depends on verdicts, run records and constraints only: the unfiltered one is stored in the project by
    the commands that write verdicts (`store_report_pass`), and read back while those tables are unchanged."""
    return _bases_of_pass(_stored_pass(db, shas, model, constraints, run_id))


def store_report_pass(db: sqlite_utils.Database) -> None:
    """Store the unfiltered report's pass over every judged pair, the population sizes, coverage's pass over the
    semantic pairs and the random sample's orders and strata, unless the stored ones are current (migration 023):
    the last step of a command that wrote verdicts (`judge`, `import verdicts`, `import llmbar`, the harness imports,
    `demo`), so the `report` and `gate` after it, which never write, read the pass back instead of joining every
    pair again (10 s CPU at a million run records). The pass is a no-op on a project without verdict pairs."""
    if _AGGREGATE_IN_SQL and has_verdict_pairs(db):
        _stored_pass(db, None, None, None, None)
    population_sizes(db, version=verdicts_version(db))  # the semantic pairs per stratum: stored beside it
    store_pair_tally(db)  # coverage's judged counts, from the same tables
    store_sample_side(db)  # the random sample's orders and strata (current unless samples or those tables moved)
    store_label_side(db)


def store_label_side(db: sqlite_utils.Database) -> None:
    """Store what the report reads of every labelled pair whatever its label (the blind first labels, the labelled
    pairs' verdict rows, info and sample rules, the labelled records' covariates: `kept_for_tables`' `persisted`),
    unless the stored ones are current. A report in another process reads them back, or updates them by the labels added
    since (issue 16.2: ~5 s CPU at a million run records). The last step of the verdict writers and `import labels`
    (`sample` stores the part its draw moves: `store_labelled_rules`)."""
    from judgecal.annotations.store import storing_kept  # noqa: PLC0415

    with storing_kept():
        kept_blind_first(db)
        _kept_labelled_rows(db)
        _kept_labelled_info(db)
        kept_record_covariates(db)
        _kept_labelled_rules(db)


def store_labelled_rules(db: sqlite_utils.Database) -> None:
    """Store the labelled pairs' sample rules (`store_label_side`'s part that a draw moves) unless current: `sample`'s
    last step. The rest of the label side is left to the verdict writers: after new run records (which make the
    labelled pairs' info and covariates stale without changing them) recomputing them would add ~3 s to a draw at a
    million run records."""
    from judgecal.annotations.store import storing_kept  # noqa: PLC0415

    with storing_kept():
        _kept_labelled_rules(db)


def _stored_pass(db: sqlite_utils.Database, shas: set[str] | None, model: str | None, constraints: set[str] | None,
                 run_id: str | None) -> _PairPass:
    """`_sql_pair_pass`; the unfiltered one read from `stored_aggregates` when it was stored at the current versions
    of the tables it reads, by this code (`stored_value`), and stored after computing on a connection that may write.
    A filtered pass is computed (one row per filter would let the app's filters push the report's own row out)."""
    if not (shas is None and model is None and constraints is None and run_id is None):
        return _sql_pair_pass(db, shas, model, constraints, run_id)
    return stored_value(
        db, "report_pass", [], _PASS_TABLES, _PASS_CODE,
        lambda: _sql_pair_pass(db, shas, model, constraints, run_id), _encode_pass, _decode_pass)


_PASS_TABLES = ("verdicts", "run_records", "constraints")  # what `_sql_pair_pass` reads (verdict_pairs: "verdicts")


def _encode_pass(p: _PairPass) -> tuple[dict[str, Any], bytes]:
    return ({"n": len(p.codes), "classes": p.classes, "items": p.items},
            p.codes.astype("<i4").tobytes() + p.item_codes.astype("<i4").tobytes())


def _decode_pass(meta: dict[str, Any], data: bytes) -> _PairPass:
    """`_encode_pass`'s inverse; ValueError for anything that is not a pass `_sql_pair_pass` could have made."""
    n, classes, items = int(meta["n"]), meta["classes"], meta["items"]
    if (n < 0 or len(data) != 8 * n or not isinstance(classes, list) or not isinstance(items, list)
            or not all(isinstance(c, str) for c in classes) or not all(i is None or isinstance(i, str) for i in items)):
        raise ValueError("not a stored pass")
    codes = np.frombuffer(data, dtype="<i4", count=n).astype(np.intp)
    item_codes = np.frombuffer(data, dtype="<i4", count=n, offset=4 * n).astype(np.intp)
    if n and not (0 <= codes.min() and codes.max() < len(classes) and 0 <= item_codes.min()
                  and item_codes.max() < len(items)):
        raise ValueError("a stored pass numbers a class or item it does not name")
    return _PairPass(classes, items, codes, item_codes)


def _sql_pair_pass(db: sqlite_utils.Database, shas: set[str] | None, model: str | None,
                   constraints: set[str] | None, run_id: str | None) -> _PairPass:
    """The pass itself: every judged pair (the filters' `verdict_pairs` rows) numbered by class and item."""
    where, params = _verdict_filters(shas, model, constraints, "vp")
    in_run, run_args = (" AND r.run_id = ?", [run_id]) if run_id is not None else ("", [])
    # LEFT JOINs keep verdict_pairs the outer loop (rowid order, no sort) and keep a group whose pairs all lie
    # outside the semantic pairs (or the run): it is reported with no pair, as the per-pair path does.
    r_index, c_index = pair_indexes(db)
    # A row's class as one text (one Python string a row, hashed once, not eight): whether the pair is outside the
    # semantic pairs (no constraint found), judge model, rubric, constraint, model under test, type, label set,
    # pattern and repeat count, joined by \x1c (a field holding it splits into too many parts: the per-pair path).
    def key(outside: str) -> str:
        return " || char(28) || ".join((outside, "vp.judge_model", "vp.rubric_sha256", "vp.constraint_id",
                                        "ifnull(r.model, '')", "ifnull(c.type, '')", "ifnull(c.labels, '')",
                                        "vp.pattern", "vp.n"))

    by_key = (f" LEFT JOIN run_records r{r_index} ON r.id = vp.run_record_id{in_run}"
              f" LEFT JOIN constraints c{c_index} ON c.item_id = r.item_id AND c.id = vp.constraint_id"
              " AND c.check_json IS NULL")
    filters = " WHERE " + " AND ".join(where) if where else ""
    rowids = has_pair_rowids(db)
    if rowids:
        # Migration 019: each pair's run record and constraint joined by the row ids stored with it, each joined row
        # checked against the pair's key (a run record or constraint stored again has another row id). A row that
        # finds no semantic constraint this way — stale ids, a verdict on a mechanical constraint, one written
        # before its constraint — is flagged `unsure` and read again through the keys below, so the rows are those
        # of the key join. With `run_id`, a run record found by row id but of another run is outside for certain.
        outside_run = "WHEN r.rowid IS NOT NULL AND r.run_id IS NOT ? THEN 2 " if run_id is not None else ""
        flag = f"CASE {outside_run}WHEN c.rowid IS NULL THEN 1 ELSE 0 END"
        sql = (f"SELECT {key(flag)}, r.item_id, {flag} = 1, vp.id FROM verdict_pairs vp"
               " LEFT JOIN run_records r ON r.rowid = vp.record_rowid AND r.id = vp.run_record_id"
               " LEFT JOIN constraints c ON c.rowid = vp.constraint_rowid AND c.item_id = r.item_id"
               " AND c.id = vp.constraint_id AND c.check_json IS NULL" + filters + " ORDER BY vp.id")
        args = run_args * 2 + params
        again = (f"SELECT vp.id, {key('(c.rowid IS NULL)')}, r.item_id FROM verdict_pairs vp{by_key}"
                 " WHERE vp.id IN (SELECT value FROM json_each(?))")
    else:
        sql = f"SELECT {key('(c.rowid IS NULL)')}, r.item_id FROM verdict_pairs vp{by_key}{filters} ORDER BY vp.id"
        args = run_args + params
    classes, items = _Numbering(), _Numbering()  # in order of first appearance
    code_parts, item_parts = [], []
    cursor = db.conn.execute(sql, args)
    while chunk := cursor.fetchmany(_CHUNK):
        if rowids:
            keys, its, unsure, ids = zip(*chunk)
            if 1 in unsure:  # read through the keys, in place: the chunk's order (and so the numbering) is kept
                keys, its = list(keys), list(its)
                at = [k for k, u in enumerate(unsure) if u]
                found = {vid: (text, item) for vid, text, item in db.conn.execute(
                    again, run_args + [json.dumps([ids[k] for k in at])])}
                for k in at:
                    keys[k], its[k] = found[ids[k]]
        else:
            keys, its = zip(*chunk)
        code_parts.append(np.fromiter(map(classes.__getitem__, keys), dtype=np.intp, count=len(keys)))
        item_parts.append(np.fromiter(map(items.__getitem__, its), dtype=np.intp, count=len(its)))
        del chunk, keys, its
    codes = np.concatenate(code_parts) if code_parts else np.zeros(0, dtype=np.intp)
    item_codes = np.concatenate(item_parts) if item_parts else np.zeros(0, dtype=np.intp)
    return _PairPass(list(classes), list(items), codes, item_codes)


# The code the stored pass was computed and encoded by (`stored_value`'s version: other code recomputes it).
_PASS_CODE = code_digest(_sql_pair_pass, _verdict_filters, _encode_pass, _decode_pass)


def _bases_of_pass(p: _PairPass) -> dict[tuple[str, str], _GroupBase] | None:
    """Every judge group's `_GroupBase` from the pass (see `_sql_group_bases`)."""
    codes, item_codes, item_names = p.codes, p.item_codes, p.items
    counts = np.bincount(codes, minlength=len(p.classes)).tolist()
    label_sets: dict[str, tuple[str, ...]] = {}
    parsed: dict[tuple[str, int], dict[int, str | None] | None] = {}
    raw: dict[tuple[str, str], list[tuple[int, tuple, dict[int, str | None]]]] = {}
    for code, text_key in enumerate(p.classes):
        fields = text_key.split("\x1c")
        if len(fields) != 9:
            return None
        outside, jm, sha, cid, m, typ, ls, text, n_text = fields
        n = int(n_text)
        members = raw.setdefault((jm, sha), [])
        if outside != "0":  # outside the semantic pairs (or the run): the group exists, the pair does not count
            continue
        labels = parsed.get((text, n))
        if labels is None:
            labels = parsed[(text, n)] = parse_pattern(text, n)
            if labels is None:
                return None
        if ls not in label_sets:
            label_sets[ls] = tuple(json.loads(ls))
        members.append((code, (jm, sha, cid, m, typ, ls, text, n), labels))
    out = {}
    for group, members in raw.items():
        common = set.intersection(*(set(labels) for _, _, labels in members)) if members else set()
        ignored = 0
        pair_classes = []
        for code, (_jm, _sha, cid, m, typ, ls, _text, _n), labels in members:
            ignored += counts[code] * (len(labels) - len(common))
            pattern = tuple((r, l) for r, l in labels.items() if r in common)
            pair_classes.append(_PairClass(code, cid, m, typ, label_sets[ls], pattern, counts[code]))
        out[group] = _classes_base(pair_classes, sorted(common), ignored, codes, item_codes, item_names)
    return out


def _classes_base(classes: list[_PairClass], repeats: list[int], ignored: int, codes: np.ndarray,
                  item_codes: np.ndarray, item_names: list[str | None]) -> _GroupBase:
    """One group's `_GroupBase` from its classes (in order of first pair) and the pass's class and item number of
    every pair in pair order."""
    joined = {c.labels: "/".join(c.labels) for c in classes}
    by_kind: dict[str, dict[str, list[_PairClass]]] = {"constraint": {}, "type": {}, "labels": {}}
    for c in classes:
        by_kind["constraint"].setdefault(c.constraint_id, []).append(c)
        by_kind["type"].setdefault(c.type, []).append(c)
        by_kind["labels"].setdefault(joined[c.labels], []).append(c)
    named = [("overall", classes)] + [(f"{kind}:{value}", members) for kind in ("constraint", "type", "labels")
                                      for value, members in by_kind[kind].items()]
    minority_codes = np.full(max((c.code for c in classes), default=-1) + 1, np.nan)

    def slice_base(members: list[_PairClass]) -> _SliceBase:
        patterns: Counter = Counter()
        strata: Counter = Counter()
        for c in members:
            patterns[c.pattern] += c.count
            strata[(c.constraint_id, c.model)] += c.count

        def minority_total(minority_of: dict[Any, float | None]) -> float:
            shares = {c.code: minority_of[c.pattern] for c in members if minority_of[c.pattern] is not None}
            nonzero = {m for m in shares.values() if m}
            if len(nonzero) <= 1:
                # adding 0.0 leaves a float sum as it is, so the pair-order sum is that of the k nonzero shares,
                # all equal: the same additions whatever the order
                k = sum(c.count for c in members if shares.get(c.code))
                return sum([nonzero.pop()] * k) if k else 0.0
            # two different shares: their order matters, read from the pairs' class numbers
            minority_codes[:] = np.nan
            for code, m in shares.items():
                minority_codes[code] = m
            seq = minority_codes[codes[np.isin(codes, list(shares))]]
            return sum(seq.tolist())

        return _slice_base_counted(_label_order(dict.fromkeys(c.labels for c in members)), patterns, strata, repeats,
                                   minority_total)

    slices = {name: slice_base(members) for name, members in named}
    sizes = {name: sum(c.count for c in members) for name, members in named}
    ppi: dict[str, _PpiBase] = {}
    pass_fail = [c for c in classes if _is_pass_fail(c.labels)]
    value = np.zeros(len(minority_codes))
    for m in sorted({c.model for c in pass_fail}):
        mine = [c for c in pass_fail if c.model == m]
        mask = np.isin(codes, [c.code for c in mine])
        sub = codes[mask]
        for c in mine:
            value[c.code] = _prediction_of(c.pattern)
        # one float object per class, shared by its pairs (not one per pair: 1.76M at a million run records)
        judge = list(map(value.tolist().__getitem__, sub.tolist()))
        cid = np.empty(len(value), dtype=object)
        for c in mine:
            cid[c.code] = c.constraint_id
        sizes_m: Counter = Counter()
        counts_m: dict[float, int] = {}
        for c in mine:
            sizes_m[c.constraint_id] += c.count
            v = _prediction_of(c.pattern)
            counts_m[v] = counts_m.get(v, 0) + c.count
        # (the units read the predictions as an array: the classes' values, not the list converted back)
        ppi[m] = _PpiBase(judge, cid[sub].tolist(), sizes_m, _units(value[sub], item_codes[mask], item_names), counts_m)
    share_classes: dict[tuple[str, tuple[str, ...]], list[_PairClass]] = defaultdict(list)
    for c in classes:
        if not _is_pass_fail(c.labels):
            share_classes[(c.model, c.labels)].append(c)
    shares = {}
    for key, mine in sorted(share_classes.items()):
        mask = np.isin(codes, [c.code for c in mine])
        sub = codes[mask]
        cid = np.empty(len(value), dtype=object)
        for c in mine:
            cid[c.code] = c.constraint_id
        f_all, counts = {}, {}
        sizes_s: Counter = Counter()
        for c in mine:
            sizes_s[c.constraint_id] += c.count
        for label in key[1]:
            counts[label] = {}
            for c in mine:
                v = value[c.code] = label_prediction(tuple(l for _, l in c.pattern), label, key[1])
                counts[label][v] = counts[label].get(v, 0) + c.count
            f_all[label] = list(map(value.tolist().__getitem__, sub.tolist()))
        shares[key] = _ShareBase(cid[sub].tolist(), f_all, counts, sizes_s)
    return _GroupBase(sum(c.count for c in classes), repeats, ignored, list(by_kind["constraint"]),
                      list(by_kind["type"]), list(by_kind["labels"]), slices, sizes, ppi, shares, None)


def _units(judge: np.ndarray, items: np.ndarray, item_names: list[str | None]) -> JudgedUnits:
    """`judged_units(judge, items)` from item numbers of the whole pass: renumbered in order of first appearance in
    this list, as `judged_units` numbers them, and keyed by item id."""
    if not len(items):
        return judged_units(judge, [])
    distinct, local = _first_appearance(items)
    return JudgedUnits(np.asarray(judge, dtype=float), local,
                       dict(zip(map(item_names.__getitem__, distinct.tolist()), itertools.count())))


# The pairs with a label event (any reviewer, any event), each once, in the label pair index's order: what the
# report's labelled pairs are a subset of. Joined instead of a JSON list of the wanted pairs, whose two json_extract
# calls a row cost more than the look-up (issue 16.3); the caller's pairs are then kept in Python.
_LABELLED_PAIRS = "(SELECT DISTINCT run_record_id AS rid, constraint_id AS cid FROM human_labels) AS wanted"
_WANTED_JSON = ("(SELECT json_extract(value, '$[0]') AS rid, json_extract(value, '$[1]') AS cid FROM json_each(?))"
                " AS wanted")


def _wanted(pairs: Iterable[Pair], labelled: bool) -> tuple[str, list[Any], Any]:
    """(the FROM term naming the wanted pairs `wanted.rid`, `wanted.cid`, its parameters, a test of a row's pair):
    every pair with a label event, then `pairs` kept in Python, when `labelled` says `pairs` are labelled ones; else
    `pairs` as a JSON list."""
    if labelled:
        if pairs is None:  # every pair with a label event
            return _LABELLED_PAIRS, [], None
        keep = pairs if isinstance(pairs, (set, frozenset, dict)) else set(map(tuple, pairs))
        return _LABELLED_PAIRS, [], keep.__contains__
    return _WANTED_JSON, [json.dumps(sorted({tuple(p) for p in pairs}))], None


class _LabelledRows(NamedTuple):
    """Every pair with a label event: its stored verdict rows (`verdict_pairs`) in pair order (vp.id), as
    (vp.id, judge model, rubric, pair, repeats) with repeats parsed once per pattern."""

    rows: list[tuple[int, str, str, Pair, dict[int, str | None] | None]]
    pairs: frozenset[Pair]  # the pairs of `rows`


def _verdict_rows(db: sqlite_utils.Database, pairs: list[Pair] | None) -> _LabelledRows:
    """`_LabelledRows` of `pairs`, or of every pair with a label event (None)."""
    source, params, _ = _wanted(pairs, pairs is None)
    sql = ("SELECT vp.id, vp.judge_model, vp.rubric_sha256, vp.run_record_id, vp.constraint_id, vp.n, vp.pattern"
           f" FROM {source} CROSS JOIN verdict_pairs vp ON vp.run_record_id = wanted.rid"
           " AND vp.constraint_id = wanted.cid ORDER BY vp.id")
    parsed: dict[tuple[str, int], dict[int, str | None] | None] = {}
    rows = []
    for vid, jm, sha, rid, cid, n, text in db.execute(sql, params):
        labels = parsed.get((text, n))
        if labels is None:
            labels = parsed[(text, n)] = parse_pattern(text, n)
        rows.append((vid, jm, sha, (rid, cid), labels))
    return _LabelledRows(rows, frozenset(r[3] for r in rows))


def _labelled_since(db: sqlite_utils.Database, since: int, known: Collection[Pair]) -> list[Pair] | None:
    """The pairs with a label event after `since` that `known` lacks, in first-event order (None: the labels were not
    only added since, as `pairs_labelled_since` says): what a kept labelled read merges in."""
    from judgecal.annotations.store import pairs_labelled_since  # noqa: PLC0415

    new = pairs_labelled_since(db, since)
    return None if new is None else [p for p in dict.fromkeys(map(tuple, new)) if p not in known]


def _kept_labelled_rows(db: sqlite_utils.Database) -> _LabelledRows:
    """`_verdict_rows(db, None)` kept under the verdicts' and labels' versions (`kept_for_tables`): after labels were
    only added, the pairs labelled since that have no rows kept yet are read and merged in vp.id order (a new value:
    the kept one is never mutated), so a new label on the Calibration page reads its own pair's verdicts, not 183k
    pairs' (issue 16.3)."""

    def update(old: _LabelledRows, since: int) -> _LabelledRows | None:
        fresh = _labelled_since(db, since, old.pairs)
        if fresh is None:
            return None
        if not fresh:
            return old
        added = _verdict_rows(db, fresh)
        return _LabelledRows(sorted(old.rows + added.rows, key=operator.itemgetter(0)), old.pairs | added.pairs)

    return kept_for_tables(db, "labelled_verdict_rows", (), ("verdicts", "human_labels"),
                           lambda: _verdict_rows(db, None), appended=("human_labels", update),
                           persisted=_persisted("rows"))


@functools.cache
def _label_side_code() -> str:
    """The digest of every module the labelled pairs' stored values are computed, updated and coded in (one for the
    three: each was taking its own ~7 ms of the same modules)."""
    from judgecal.annotations.store import (decode_column, kept_for_tables, modules_digest,  # noqa: PLC0415
                                            pairs_labelled_since)

    return modules_digest(_verdict_rows, kept_for_tables, pairs_labelled_since, parse_pattern, decode_column)


@functools.cache
def _persisted(kind: str) -> Any:
    """How the labelled pairs' verdict rows ("rows"), sample rules ("rules") and info ("info") are stored across
    processes (`kept_for_tables`' `persisted`): the digest covers every module their computation and update reach."""
    from judgecal.annotations.store import Persisted  # noqa: PLC0415

    code = _label_side_code()
    if kind == "rows":
        return Persisted(code, _encode_rows, _decode_rows)
    if kind == "rules":
        return Persisted(code, _encode_rules, _decode_rules)
    return Persisted(code, _encode_info, _decode_info)


def _encode_rows(value: _LabelledRows) -> tuple[dict[str, Any], bytes]:
    from judgecal.annotations.store import encode_json_texts, encode_texts  # noqa: PLC0415

    rows = value.rows
    return {"n": len(rows), "columns": [
        {"t": [r[0] for r in rows]}, encode_texts([r[1] for r in rows]), encode_texts([r[2] for r in rows]),
        encode_texts([r[3][0] for r in rows]), encode_texts([r[3][1] for r in rows]),
        encode_json_texts([r[4] for r in rows])]}, b""


def _stored_pattern(value: Any) -> dict[int, str | None] | None:
    """A stored pair's repeats (`_encode_rows`) as `parse_pattern` gives them: None, or repeat -> label in repeat
    order."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(
            type(x) is list and len(x) == 2 and type(x[0]) is int and type(x[1]) in (str, type(None)) for x in value):
        raise ValueError("a stored pattern is not one")
    out = dict(value)
    if len(out) != len(value) or list(out) != sorted(out):
        raise ValueError("a stored pattern's repeats are not distinct and in order")
    return out


def _decode_rows(meta: dict[str, Any], data: bytes) -> _LabelledRows:
    """`_encode_rows`' inverse; ValueError for rows `_verdict_rows` could not have made."""
    from judgecal.annotations.store import (ascending, decode_column, decode_json_column,  # noqa: PLC0415
                                            stored_columns)

    n, columns = stored_columns(meta, data, 6, "verdict rows")
    vids, jms, shas, rids, cids = (decode_column(c, n, k) for c, k in zip(
        columns, ((int,), (str,), (str,), (str,), (str,))))
    if not ascending(vids):
        raise ValueError("stored verdict rows are not in pair order")
    pairs = list(zip(rids, cids))
    rows = list(zip(vids, jms, shas, pairs, decode_json_column(columns[5], n, _stored_pattern)))
    return _LabelledRows(rows, frozenset(pairs))


def _kept_labelled_verdicts(db: sqlite_utils.Database, pairs: dict[Pair, Any] | set[Pair], shas: set[str] | None,
                            model: str | None, constraints: set[str] | None
                            ) -> dict[tuple[str, str], list[tuple[Pair, dict[int, str | None]]]]:
    """(judge model, rubric sha) -> its judged pairs among the labelled `pairs`, in pair order (vp.id), with each
    pair's repeats as stored (`verdict_pairs`): from the kept rows of every labelled pair (`_kept_labelled_rows`),
    the judge model, rubric and constraint filters applied in Python."""
    out: dict[tuple[str, str], list[tuple[Pair, dict[int, str | None]]]] = defaultdict(list)
    rows = _kept_labelled_rows(db).rows
    if model is None and shas is None and constraints is None:
        # no filter (the app's and the CLI's usual report): kept and grouped in C, runs of one version at a time
        for version, run in itertools.groupby(itertools.compress(rows, map(pairs.__contains__, map(_ROW_PAIR, rows))),
                                              key=_ROW_VERSION):
            out[version].extend(map(_ROW_PAIR_LABELS, run))
        return out
    for _vid, jm, sha, pair, labels in rows:
        if ((model is None or jm == model) and (shas is None or sha in shas)
                and (constraints is None or pair[1] in constraints) and pair in pairs):
            out[(jm, sha)].append((pair, labels))
    return out


# a `_LabelledRows` row's pair, (judge model, rubric), and (pair, repeats)
_ROW_PAIR, _ROW_VERSION, _ROW_PAIR_LABELS = (operator.itemgetter(3), operator.itemgetter(1, 2),
                                             operator.itemgetter(3, 4))


def _kept_labelled_info(db: sqlite_utils.Database) -> dict[Pair, PairInfo]:
    """`pair_info_of` every pair with a label event, kept under the run records', constraints' and labels' versions;
    after labels were only added, the pairs labelled since that are not kept yet are read and merged (a new dict)."""

    def update(old: dict[Pair, PairInfo], since: int) -> dict[Pair, PairInfo] | None:
        return merged(old, _labelled_since(db, since, old), lambda pairs: pair_info_of(db, pairs))

    return kept_for_tables(db, "labelled_pair_info", (), ("run_records", "constraints", "human_labels"),
                           lambda: pair_info_of(db, None, labelled=True), appended=("human_labels", update),
                           persisted=_persisted("info"))


def _labelled_rules_of(db: sqlite_utils.Database, pairs: list[Pair] | None) -> dict[Pair, frozenset[str]]:
    """`sample_rules(db)` restricted to the pairs with a label event (`pairs` None), or to `pairs`: the rules of
    those that were sampled, one frozenset per distinct rule set."""
    source, params, _ = _wanted(pairs, pairs is None)
    return rules_by_pair(db.conn.execute(
        f"SELECT s.run_record_id, s.constraint_id, s.rule FROM {source} CROSS JOIN samples s"
        " ON s.run_record_id = wanted.rid AND s.constraint_id = wanted.cid", params))


def _kept_labelled_rules(db: sqlite_utils.Database) -> dict[Pair, frozenset[str]]:
    """`_labelled_rules_of` every pair with a label event, kept under the samples' and labels' versions (and stored
    across processes, `store_label_side`); after labels were only added, the pairs labelled since that are not kept
    yet are read and merged (a new dict)."""

    def update(old: dict[Pair, frozenset[str]], since: int) -> dict[Pair, frozenset[str]] | None:
        return merged(old, _labelled_since(db, since, old), lambda pairs: _labelled_rules_of(db, pairs))

    return kept_for_tables(db, "labelled_sample_rules", (), ("samples", "human_labels"),
                           lambda: _labelled_rules_of(db, None), appended=("human_labels", update),
                           persisted=_persisted("rules"))


def _encode_rules(value: dict[Pair, frozenset[str]]) -> tuple[dict[str, Any], bytes]:
    from judgecal.annotations.store import encode_json_texts, encode_texts  # noqa: PLC0415

    in_order = {r: tuple(sorted(r)) for r in set(value.values())}  # one shared tuple per rule set: dumped once
    return {"n": len(value), "columns": [
        encode_texts([p[0] for p in value]), encode_texts([p[1] for p in value]),
        encode_json_texts(list(map(in_order.__getitem__, value.values())))]}, b""


def _decode_rules(meta: dict[str, Any], data: bytes) -> dict[Pair, frozenset[str]]:
    """`_encode_rules`' inverse; ValueError for rules `_labelled_rules_of` could not have made."""
    from judgecal.annotations.store import (decode_column, decode_json_column, stored_columns,  # noqa: PLC0415
                                            text_tuple)

    n, columns = stored_columns(meta, data, 3, "sample rules")
    rids, cids = (decode_column(c, n, (str,)) for c in columns[:2])

    def rule_set(value: Any) -> frozenset[str]:
        rules = frozenset(text_tuple(value))
        if not rules or len(rules) != len(value):
            raise ValueError("a stored rule set is empty or names a rule twice")
        return rules

    out = dict(zip(zip(rids, cids), decode_json_column(columns[2], n, rule_set)))
    if len(out) != n:
        raise ValueError("stored sample rules name a pair twice")
    return out


def _encode_info(value: dict[Pair, PairInfo]) -> tuple[dict[str, Any], bytes]:
    from judgecal.annotations.store import encode_json_texts, encode_texts  # noqa: PLC0415

    infos = value.values()
    return {"n": len(value), "columns": [
        encode_texts([p[0] for p in value]), encode_texts([p[1] for p in value]),
        encode_texts([i.model for i in infos]), encode_texts([i.item_id for i in infos]),
        encode_texts([i.type for i in infos]), encode_json_texts([i.labels for i in infos])]}, b""


def _decode_info(meta: dict[str, Any], data: bytes) -> dict[Pair, PairInfo]:
    """`_encode_info`'s inverse; ValueError for info `pair_info_of` could not have made."""
    from judgecal.annotations.store import (decode_column, decode_json_column, named_rows,  # noqa: PLC0415
                                            stored_columns, text_tuple)

    n, columns = stored_columns(meta, data, 6, "pair info")
    rids, cids, models, items, types = (decode_column(c, n, (str,)) for c in columns[:5])
    out = dict(zip(zip(rids, cids), named_rows(PairInfo, models, items, types,
                                               decode_json_column(columns[5], n, text_tuple))))
    if len(out) != n:
        raise ValueError("stored pair info names a pair twice")
    return out


def pair_info_of(db: sqlite_utils.Database, pairs: Iterable[Pair] | None, *, labelled: bool = False
                 ) -> dict[Pair, PairInfo]:
    """`pair_info(db)` restricted to `pairs` (the labelled ones), read through the run record and constraint keys.
    `labelled`: every pair of `pairs` has a label event (`_wanted`)."""
    r_index, c_index = pair_indexes(db)
    source, params, keep = _wanted(pairs, labelled)
    sql = f"""SELECT r.id, c.id, r.model, r.item_id, c.type, c.labels
              FROM {source}
              CROSS JOIN run_records r{r_index} ON r.id = wanted.rid
              CROSS JOIN constraints c{c_index} ON c.item_id = r.item_id AND c.id = wanted.cid
                                AND c.check_json IS NULL"""
    parsed: dict[str, tuple[str, ...]] = {}
    out = {}
    for rid, cid, m, item, t, ls in db.execute(sql, params):
        if keep is not None and not keep((rid, cid)):
            continue
        found = parsed.get(ls)
        if found is None:
            found = parsed[ls] = tuple(json.loads(ls))
        out[(rid, cid)] = PairInfo(m, item, t, found)
    return out


#: The sha256 of every rubric text judgecal has shipped (`judge.shipped_versions()`; annotations does not import
#: judge, so tests/test_rubric_freshness.py holds the two lists equal). Such a version was written by judgecal, not
#: after reading a project's labels: every counted pair verifies it, even when the project labelled before its
#: first `judge` stored it.
SHIPPED_RUBRIC_SHA256S = frozenset({
    "71497671efa846e63c37e605c2f14d35c5356477d6b8579aa7b9c771f8363e84",  # strict v1 (issue 13 revised it)
    "e44961b0ac6534edca0d092a9e24baed18c46bba2b1e8827a090b37b3c06592f",  # strict, current
})


def _verification(sha: str, created: str, parents: dict[str, str | None], pairs: list[Pair],
                  labels_by_pair: dict[Pair, list[dict[str, Any]]], counted: frozenset[Pair]
                  ) -> tuple[str, frozenset[Pair] | None]:
    """(description, fresh pairs or None). A rubric version may have been written while its author read the
    labelled pairs (`judge --only-labelled`, then `report --compare`), whether it revises a stored version (it has a
    parent) or starts a new name (the README's tour copies the template to `my_rubric.txt`: a review passed the gate
    with kappa 1.0 that way, a new name tuned on the labels): it is verified only on counted pairs whose blind first
    label was made after the version was created, i.e. random pairs it cannot have been tuned on. A version created
    before every counted pair was labelled (the usual first version: judged, then sampled and labelled) is verified
    on them all."""
    if sha in SHIPPED_RUBRIC_SHA256S:  # judgecal's own text, also when stored as a revision (the current `strict`
        # after a project judged with v1 becomes `strict` v2, its parent v1)
        return ("all counted pairs (a " + ("text judgecal ships" if parents.get(sha) else "first version")
                + ": no labels could tune it)"), None
    born = instant(created)
    # a counted pair without a label here (a `--rubric-seen` filter dropped it) verifies nothing either way
    labelled = [p for p in pairs if p in counted and p in labels_by_pair]
    # a label stamped at the version's own instant counts as after it (`import llmbar` stores both in one step; a
    # version cannot have been tuned on a label made as it was stored)
    fresh = frozenset(p for p in labelled if instant(labels_by_pair[p][0]["created_at"]) >= born)
    tuned = len(labelled) - len(fresh)
    if not parents.get(sha) and not tuned:
        return "all counted pairs (a first version: no labels could tune it)", None
    kind = "revision" if parents.get(sha) else "first version"
    return (f"{len(fresh)} counted pairs labelled after this {kind} was created ({tuned} labelled before it, which "
            "it may have been tuned on, are left out)"), fresh


def common_repeats(verdicts: dict[Pair, "_Verdicts"]) -> tuple[dict[Pair, "_Verdicts"], int]:
    """Each pair's verdicts restricted to the repeats EVERY pair of the group has, and how many rows that leaves
    out. More repeats on some pairs make a different predictor there: 4 extra repeats giving the humans' label on the
    labelled pairs only (an import, or `judge --only-labelled --repeats 7`) turned a 3-repeat majority into the
    humans' label and passed the gate. The judge that is gated is the one run on the whole population."""
    if not verdicts:
        return verdicts, 0
    repeat_sets = {tuple(v.labels) for v in verdicts.values()}  # a handful (usually one), however many pairs
    common = set.intersection(*(set(r) for r in repeat_sets))
    if all(len(r) == len(common) for r in repeat_sets):
        return dict(verdicts), 0  # every pair has exactly the common repeats: nothing to leave out
    out, ignored = {}, 0
    # pairs with the same repeats share one `_Verdicts` (`load_verdicts`): restrict each shared one once, and share
    # the result, not a new object per pair (1.7M at a million run records)
    restricted: dict[int, _Verdicts] = {}
    for p, v in verdicts.items():
        ignored += len(v.labels) - len(common)
        kept = restricted.get(id(v))
        if kept is None:
            kept = restricted[id(v)] = _Verdicts({r: l for r, l in v.labels.items() if r in common},
                                                 {r: x for r, x in v.reason.items() if r in common})
        out[p] = kept
    return out, ignored


def _population_gaps(pairs: list[Pair], info: dict[Pair, PairInfo], population: Counter,
                     judged: Counter | None = None) -> tuple[PopulationGap, ...]:
    """`judged`: the pairs per (constraint, model under test) when the caller has counted them."""
    if judged is None:
        judged = Counter((p[1], info[p].model) for p in pairs)
    return tuple(PopulationGap(cid, model, n, population[(cid, model)])
                 for (cid, model), n in sorted(judged.items()) if n < population[(cid, model)])


def _coverage_reason(c: Any, run_id: str | None = None) -> str | None:
    if c.drawn_on is not None:
        draw = "`judgecal sample`" if run_id is None else f"`judgecal sample --run-id {run_id}`"
        return (f"{c.constraint_id} × {c.model} grew from {c.drawn_on} to {c.population} semantic pairs since the "
                "sample was drawn: the new pairs were never drawn, and any may rank ahead of the labelled ones, so "
                f"nothing counts as a random sample of it until {draw} draws again")
    if c.unjudged:
        return (f"this rubric version judged {c.judged} of the {c.population} semantic pairs of {c.constraint_id} × "
                f"{c.model}: a version is gated on the population it will be used on; judge them all "
                "(`judgecal judge --rubric ...` without --only-labelled)")
    if c.labelled < c.needed:
        return (f"{c.labelled} counted pairs (the labelled prefix of the draw order), {c.needed} needed: label the "
                "random sample in queue order, without skipping")
    return None


class FilterOptions(NamedTuple):
    rubrics: tuple[str, ...]  # name@version, in name and version order
    judge_models: tuple[str, ...]
    constraints: tuple[str, ...]


def filter_options(db: sqlite_utils.Database) -> FilterOptions:
    """What the report can be filtered by: rubric versions, judge models and constraint ids that have verdicts.
    Kept under the verdicts' and rubrics' versions (a scan of every verdict: seconds at 1M run records), so a new
    label or a rerun does not read them again."""

    return kept_for_tables(db, "filter_options", (), ("verdicts", "rubrics"), lambda: _filter_options(db))


def _filter_options(db: sqlite_utils.Database) -> FilterOptions:
    # Each distinct value is found by a seek, not a scan of 5M verdicts: the rubrics and, per rubric, the next
    # constraint id through the verdicts' (rubric, constraint, run record) index (migration 014); the judge models
    # from the one row per judged pair (migration 015), a third of the rows, when the project has it.
    shas = [r[0] for r in db.execute("SELECT DISTINCT rubric_sha256 FROM verdicts")]
    rubrics = tuple(f"{n}@{v}" for n, v in db.execute(
        "SELECT name, version FROM rubrics WHERE sha256 IN (SELECT value FROM json_each(?)) ORDER BY name, version",
        [json.dumps(shas)]))
    judged = "verdict_pairs" if has_verdict_pairs(db) else "verdicts"
    models = tuple(r[0] for r in db.execute(f"SELECT DISTINCT judge_model FROM {judged} ORDER BY 1"))
    constraints: set[str] = set()
    for sha in shas:
        cid = db.execute("SELECT min(constraint_id) FROM verdicts WHERE rubric_sha256 = ?", [sha]).fetchone()[0]
        while cid is not None:
            constraints.add(cid)
            cid = db.execute("SELECT min(constraint_id) FROM verdicts WHERE rubric_sha256 = ? AND constraint_id > ?",
                             [sha, cid]).fetchone()[0]
    return FilterOptions(rubrics, models, tuple(sorted(constraints)))


def _human_human(labels_by_pair: dict[Pair, list[dict[str, Any]]], rules: dict[Pair, set[str]],
                 info: dict[Pair, PairInfo], constraints: set[str] | None) -> tuple[HumanAgreement, ...]:
    pairs = [p for p, rows in labels_by_pair.items() if len(rows) >= 2 and "overlap" in rules.get(p, ())
             and p in info and (constraints is None or p[1] in constraints)]
    if not pairs:
        return ()

    def one(name: str, ps: list[Pair]) -> HumanAgreement:
        a = [labels_by_pair[p][0]["label"] for p in ps]
        b = [labels_by_pair[p][1]["label"] for p in ps]
        return HumanAgreement(name, agreement(a, b, _label_order(info[p].labels for p in ps),
                                              clusters=[info[p].item_id for p in ps]), len(ps))

    by_c: dict[str, list[Pair]] = defaultdict(list)
    by_ls: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        by_c[p[1]].append(p)
        by_ls["/".join(info[p].labels)].append(p)
    # Per label set when the overlap pairs mix sets (as the judge's headline): a pooled ceiling misleads the same way.
    per_set = tuple(one(f"labels:{ls}", by_ls[ls]) for ls in sorted(by_ls)) if len(by_ls) > 1 else ()
    return (one("overall", pairs),) + per_set + tuple(one(f"constraint:{c}", by_c[c]) for c in sorted(by_c))


__all__ = [
    "Agreement", "CalibrationReport", "NonRandomLabels", "counted_rules", "later_events", "Consistency", "CoverageRow", "FilterOptions", "filter_options", "HumanAgreement", "JudgeGroup", "PassRate", "PopulationGap",
    "RepeatAgreement", "RepeatPairAgreement", "SliceStats", "agreement", "calibration_report",
    "judge_corrected_pass_rate", "majority_label",
    "match_rubrics", "ppi_pass_rate", "ppi_prediction", "ABSTAIN", "design_weights", "PPI_TUNE_MIN_N",
]
