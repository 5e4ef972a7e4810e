"""Comparing two runs of the eval set (two models, or two prompt versions): per-run metrics, per-item outcomes and a
switch / don't-switch decision against thresholds.

How a constraint is settled, everywhere here (and in the boundary report):
- mechanical check: run now, in memory (pure and deterministic, so stored check results cannot be stale);
- semantic: the human label if reviewers labelled the pair (their majority; a tie falls through), else the judge's
  majority over its repeats (latest rubric version and judge model that labelled the pair, unless given); a tie or
  no verdict leaves it unjudged (None), which counts neither as pass nor as fail;
- a `pass`/`fail` label set passes on `pass`; a label set with an expected behaviour in its text ("Expected:
  soft_refusal", "期望：hard_refusal") passes when the label is one of the expected ones; other label sets (pairwise,
  Likert) are not pass/fail and are left out;
- a run record that failed without output fails every constraint of its item.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from typing import Any, Iterable, NamedTuple

import sqlite_utils

from judgecal.evalsets import PASS_FAIL, Constraint, RunRecord, check_record, gc_paused
from judgecal.annotations.store import iter_runs, load_items
from judgecal.annotations.reports._decision import (THRESHOLD_KEYS, Decision, RateDifference, Reason, decide,
                                                   parse_thresholds, rate_difference, read_thresholds)
from judgecal.annotations.stats import (Z_95, CorrectedRate, PairedDifference, VarianceParts, clustered_difference,
                                        corrected_rate as _corrected_rate, min_detectable_difference,
                                        percentile as _percentile, ppi_difference, ppi_prediction, ratio as _rate)
from judgecal.annotations.store import get_price, has_pair_rowids, has_verdict_pairs, majority_label, parse_pattern
from judgecal.annotations.store import kept_blind_first, read_snapshot, stale_check_results, standing_labels_sql
from judgecal.annotations.review import counted_pairs, paired_counted, paired_drawn

BLOCKED_LABELS = ("hard_refusal", "soft_refusal")


# --------------------------------------------------------------------------- settling constraints


class Settled(NamedTuple):
    """A semantic pair's label and where it came from (`human` or `judge`)."""

    label: str
    source: str


def expected_labels(constraint: Constraint) -> tuple[str, ...] | None:
    """The labels the constraint's `expected` field names, up to the first parenthesis, in label-set order; None
    when it states no expected label. "hard_refusal or soft_refusal" -> both. (Old files carried it in the text
    after `Expected:` / `期望：`; `Constraint` moves it to the field on load.)"""
    if not constraint.expected:
        return None
    tail = re.split(r"[(（]", constraint.expected, maxsplit=1)[0]
    found = tuple(lab for lab in constraint.labels if re.search(rf"(?<![\w-]){re.escape(lab)}(?![\w-])", tail))
    return found or None


def _run_ids_clause(run_ids: list[str]) -> tuple[str, list[str]]:
    return f"r.run_id IN ({','.join('?' * len(run_ids))})", list(run_ids)


class PairLabels(NamedTuple):
    """Majority labels per (run record, constraint) pair: the judge's and the humans' (ties left out).

    `judge` settles a pair with the latest judge model × rubric version that labelled it (versions may differ across
    pairs). `ppi_judge` is what the judge-corrected pass rate rests on: ONE judge model × rubric version for every
    pair of the compared runs (`ppi_source`, the one that judged most of their pairs), since prediction-powered
    inference needs the same predictor on labelled and unlabelled pairs: mixing versions gave demo-run-b 87.1%
    against a true 50.6%."""

    judge: dict[tuple[str, str], str]
    human: dict[tuple[str, str], str]
    random_sample: set[tuple[str, str]]  # the counted pairs (annotations.review._sampling.counted_pairs) of the runs
    ppi_judge: dict[tuple[str, str], float] = {}  # the PPI predictor per pair (see ppi_prediction)
    ppi_source: tuple[str, str] | None = None  # (rubric sha256, judge model)
    # the first reviewer's blind first label: what the judge-corrected pass rate compares the judge with
    human_blind: dict[tuple[str, str], str] = {}
    # the first reviewer's failure-mode tag (`untagged` when none) of each pair whose standing label is `fail`, in
    # event order (`_failure_modes`); None: not read (then each run reads its own)
    fail_modes: dict[tuple[str, str], str] | None = None
    # the judge version (rubric sha256, judge model) of each pair's `judge` label: `judge_version` unless the pair is
    # in `judge_other_versions` (a pair another version settles)
    judge_version: tuple[str, str] | None = None
    judge_other_versions: dict[tuple[str, str], tuple[str, str]] = {}

    def settled(self) -> dict[tuple[str, str], Settled]:
        out = {p: Settled(label, "judge") for p, label in self.judge.items()}
        out.update({p: Settled(label, "human") for p, label in self.human.items()})  # a human label wins
        return out


_VOTES_SQL = """
    SELECT v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model, max(v.id),
           max(CASE WHEN v.label IS NOT NULL THEN v.id END), min(v.label), max(v.label),
           CASE WHEN min(v.label) != max(v.label) THEN json_group_array(v.label) END
    FROM verdicts v WHERE {where}
    GROUP BY v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model
    ORDER BY v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model
"""


class _Votes(NamedTuple):
    """The judge's side of `PairLabels`: each pair's settling majority, the corrected rate's one version and its
    predictions."""

    judge: dict[tuple[str, str], str]
    ppi_judge: dict[tuple[str, str], Any]
    source: tuple[str, str] | None
    # the version of each `judge` label: `version` unless the pair is in `other_versions` (`PairLabels`)
    version: tuple[str, str] | None = None
    other_versions: dict[tuple[str, str], tuple[str, str]] = {}


def _ppi_of(by_label: dict[tuple[str, str], str | None]) -> dict[tuple[str, str], Any]:
    """The chosen version's majorities turned into `ppi_prediction`s in place (a tie or no valid label: none, so
    it is asked once per label; values only, the dict is not resized), one dict less."""
    out: dict[tuple[str, str], Any] = by_label
    predictions = {label: ppi_prediction(() if label is None else (label,)) for label in set(out.values())}
    for pair, label in out.items():
        out[pair] = predictions[label]
    return out


def _grouped_votes(db: sqlite_utils.Database, where: str, params: list[str]) -> _Votes:
    """`_Votes` from every verdict row of the runs, grouped by SQLite per (pair, judge version): a project without
    migration 015's `verdict_pairs`, and the cases the stored patterns cannot settle alone (`_stored_votes`)."""
    # (error rows are read too: the corrected pass rate keeps a pair whose repeats all failed, see below)
    # One pass over SQLite's rows, no object per group (a million run records make ~900k groups). The rows come
    # grouped by pair (the GROUP BY's order, asked for), so a pair's latest labelled version is settled when its
    # rows end; per version its reach (pairs, latest id, error rows included) and its pairs' majorities, for the
    # corrected rate's one version.
    judge: dict[tuple[str, str], str] = {}
    reach: dict[tuple[str, str], list[int]] = {}  # version -> [pairs, latest id]
    by_version: dict[tuple[str, str], dict[tuple[str, str], str | None]] = {}  # version -> pair -> majority
    pair: tuple[str, str] | None = None
    best_id = 0  # the pair's latest labelled verdict id so far (0: none yet) and its version's majority
    best: str | None = None
    version_of: dict[tuple[str, str], tuple[str, str]] = {}  # each judged pair's version (this path is the rare one)
    best_version: tuple[str, str] | None = None
    version: tuple[str, str] | None = None
    v_sha = v_model = None
    v_reach: list[int] = []
    v_pairs: dict[tuple[str, str], str | None] = {}
    # a new str per row and column comes out of sqlite3: the pairs of one record share its id (the rows come by
    # record), every pair of a constraint id shares one (a few dozen): ~150 MB less at a million run records
    constraint_ids: dict[str, str] = {}
    rid_last = ""
    for rid, cid, sha, model, last, last_label, low, high, many in db.execute(_VOTES_SQL.format(where=where), params):
        if pair is None or rid != pair[0] or cid != pair[1]:
            if best is not None:
                judge[pair] = best  # type: ignore[index]
                version_of[pair] = best_version  # type: ignore[index,assignment]
            if rid == rid_last:
                rid = rid_last
            else:
                rid_last = rid
            pair, best_id, best = (rid, constraint_ids.setdefault(cid, cid)), 0, None
        # error rows (label NULL) count for the latest id and the reach, never as a label
        label = low if low == high else majority_label(lab for lab in json.loads(many) if lab is not None)
        if sha != v_sha or model != v_model:
            v_sha, v_model = sha, model
            version = (sha, model)
            if version not in reach:
                reach[version], by_version[version] = [0, 0], {}
            v_reach, v_pairs = reach[version], by_version[version]
        v_reach[0] += 1
        if last > v_reach[1]:
            v_reach[1] = last
        if last_label is not None and last_label > best_id:
            best_id, best, best_version = last_label, label, version
        v_pairs[pair] = label
    if best is not None:
        judge[pair] = best  # type: ignore[index]
        version_of[pair] = best_version  # type: ignore[index,assignment]
    source = max(reach, key=lambda k: tuple(reach[k])) if reach else None
    return _Votes(judge, _ppi_of(by_version.get(source, {}) if source is not None else {}), source, None, version_of)


def _stored_votes(db: sqlite_utils.Database, run_ids: list[str], runs: set[str], filters: str,
                  params: list[str]) -> _Votes | None:
    """`_Votes` from migration 015's `verdict_pairs` (one row per pair and judge version, its repeats as a pattern
    text; a project has a few dozen distinct patterns, each read once), without grouping the runs' verdict rows.
    `runs`: the runs' record ids; `filters`: further conditions on `v` (the judge version asked for) and their
    `params`. The rule needs verdict ids only to choose between versions: the latest labelled version of a pair
    judged by two, the corrected rate's version when two reach as many pairs. The stored row keeps no such id, so
    either case (and a pattern a label's separator makes ambiguous) returns None: the caller groups the verdict
    rows."""
    # Most projects' pairs share one judge version: the rows name theirs only when it is not the project's latest
    # (NULL otherwise), so a million rows do not bring two million copies of the same two strings into Python.
    latest = db.execute("SELECT rubric_sha256, judge_model FROM verdict_pairs ORDER BY id DESC LIMIT 1").fetchone()
    if latest is None:
        return _Votes({}, {}, None)
    other = "v.rubric_sha256 != ? OR v.judge_model != ?"
    marks = ",".join("?" * len(run_ids))
    if has_pair_rowids(db):
        # Migration 019's row-id hint joins each pair to its run record in storage order (1.3 s instead of 3.0 s of
        # SQLite at a million run records: no sort, no look-up by text key). A hint that names no record, or
        # another record (one deleted and stored again), marks its row `unsure`: kept when its run record id is
        # one of the runs'.
        source = (f"FROM verdict_pairs v LEFT JOIN run_records r ON r.rowid = v.record_rowid"
                  f" AND r.id = v.run_record_id WHERE (r.run_id IN ({marks}) OR r.rowid IS NULL)")
        unsure = "r.rowid IS NULL"
    else:
        source = (f"FROM verdict_pairs v WHERE v.run_record_id IN"
                  f" (SELECT r.id FROM run_records r WHERE r.run_id IN ({marks}))")
        unsure = "0"
    sql = f"""SELECT v.run_record_id, v.constraint_id, v.n, v.pattern,
                     CASE WHEN {other} THEN v.rubric_sha256 END, CASE WHEN {other} THEN v.judge_model END, {unsure}
              {source}{filters}"""
    judge: dict[tuple[str, str], str] = {}
    latest_pairs: dict[tuple[str, str], str | None] = {}
    by_version = {tuple(latest): latest_pairs}  # version -> pair -> majority
    read: dict[str, tuple[int, str | None]] = {}  # pattern -> (repeats, majority)
    constraint_ids: dict[str, str] = {}  # one str per constraint id, one per record id (see `_grouped_votes`)
    other_versions: dict[tuple[str, str], tuple[str, str]] = {}  # the labelled pairs of a version not the latest
    last_rid = ""
    for rid, cid, n, pattern, sha, model, outside in db.execute(sql, [*latest, *latest, *run_ids, *params]):
        if outside and rid not in runs:
            continue
        if rid == last_rid:  # a record's pairs come together (in verdict id order): one str for them
            rid = last_rid
        last_rid = rid
        got = read.get(pattern)
        if got is None:
            labels = parse_pattern(pattern, n)
            if labels is None:
                return None  # a label holding a separator, a repeat stored as text: the verdict rows decide
            got = read[pattern] = (n, majority_label(lab for lab in labels.values() if lab is not None))
        repeats, label = got
        if repeats != n:
            return None  # the same text under another repeat count
        pair = (rid, constraint_ids.setdefault(cid, cid))
        if label is not None:
            judge[pair] = label
        if sha is None:
            latest_pairs[pair] = label
        else:
            version = (sha, model)
            by_version.setdefault(version, {})[pair] = label
            if label is not None:
                other_versions[pair] = version
    by_version = {version: pairs for version, pairs in by_version.items() if pairs}
    if len(by_version) > 1 and sum(map(len, by_version.values())) != len(set().union(*by_version.values())):
        return None  # a pair judged by two versions: the latest labelled one is chosen by verdict id
    if not by_version:
        return _Votes(judge, {}, None, tuple(latest), other_versions)
    most = max(len(p) for p in by_version.values())
    top = [version for version, pairs in by_version.items() if len(pairs) == most]
    if len(top) > 1:
        return None  # two versions reach as many pairs: the latest verdict id decides
    return _Votes(judge, _ppi_of(by_version[top[0]]), top[0], tuple(latest), other_versions)


def pair_labels(db: sqlite_utils.Database, run_ids: list[str], *, rubric_sha256: str | None = None,
                judge_model: str | None = None, record_ids: set[str] | None = None) -> PairLabels:
    """Judge majority (per pair, over the repeats of the latest rubric version and judge model that labelled it,
    unless given) and human majority (over reviewers' standing labels) of every semantic pair of the runs.
    `record_ids`: the runs' record ids, when the caller has read them."""
    where, params = _run_ids_clause(run_ids)
    runs = record_ids if record_ids is not None else {
        r[0] for r in db.execute(f"SELECT r.id FROM run_records r WHERE {where}", params)}
    filters, version = "", []  # the judge version asked for
    if rubric_sha256 is not None:
        filters += " AND v.rubric_sha256 = ?"
        version.append(rubric_sha256)
    if judge_model is not None:
        filters += " AND v.judge_model = ?"
        version.append(judge_model)
    votes = _stored_votes(db, run_ids, runs, filters, version) if has_verdict_pairs(db) else None
    if votes is None:
        votes = _grouped_votes(db, f"v.run_record_id IN (SELECT r.id FROM run_records r WHERE {where}){filters}",
                               [*params, *version])
    judge, ppi_judge, source, judge_version, other_versions = votes
    # the standing labels read once, in event order, for the human majorities and the failure-mode tags (kept to
    # the runs' records here, not by a join per label with run_records)
    humans: dict[tuple[str, str], list[str]] = {}
    fail_modes: dict[tuple[str, str], str] = {}
    for rid, cid, label, mode in db.execute(f"""
            WITH h AS ({standing_labels_sql()})
            SELECT h.run_record_id, h.constraint_id, h.label, h.failure_mode FROM h ORDER BY h.id"""):
        if rid in runs:
            humans.setdefault((rid, cid), []).append(label)
            if label == "fail":  # the first reviewer's tag wins
                fail_modes.setdefault((rid, cid), mode or "untagged")
    human = {p: lab for p, labels in humans.items() if (lab := majority_label(labels)) is not None}
    blind_rows = kept_blind_first(db).rows  # the counted pairs end where these labels end
    sample = {p for p in counted_pairs(db, blind=blind_rows).pairs if p[0] in runs}
    blind: dict[tuple[str, str], str] = {}
    for row in blind_rows:  # in event order: the first reviewer's label wins
        blind.setdefault((row["run_record_id"], row["constraint_id"]), row["label"])
    return PairLabels(judge, human, sample, ppi_judge, source, {p: lab for p, lab in blind.items() if p[0] in runs},
                      fail_modes, judge_version, other_versions)


def settled_labels(db: sqlite_utils.Database, run_ids: list[str], *, rubric_sha256: str | None = None,
                   judge_model: str | None = None) -> dict[tuple[str, str], Settled]:
    """Label of every labelled semantic pair of the runs' records: human majority wins, else judge majority."""
    return pair_labels(db, run_ids, rubric_sha256=rubric_sha256, judge_model=judge_model).settled()


def constraint_passed(record: RunRecord, constraint: Constraint, settled: Settled | None) -> bool | None:
    """Whether the record meets the constraint; None when that is not known (unjudged, or not a pass/fail set).
    (`compare` reads current stored check results in SQL instead: `_current_checks`.)"""
    failed_run = record.failed
    if constraint.check is not None:
        if failed_run:
            return False
        return check_record(constraint.check, record).passed
    expected = expected_labels(constraint) if constraint.labels != PASS_FAIL else ("pass",)
    if expected is None:
        return None
    if failed_run:
        return False
    return None if settled is None else settled.label in expected


# --------------------------------------------------------------------------- what compare reads of items and records


class _CheckRef(NamedTuple):
    """What settling a mechanical constraint reads of its check: the checker and loose flag a stored result must
    match (running the check needs the whole `Check`: loaded then, see `_live_checks`)."""

    id: str
    loose: bool


class _ConstraintRow(NamedTuple):
    """The fields of a stored constraint the run metrics read. The row was validated when it was imported, so it is
    read as stored, not through `Constraint` (whose checker dry runs made loading the eval set most of compare's
    time); `expected` is moved out of an old text exactly as `Constraint` moves it."""

    id: str
    type: str
    severity: str
    check: _CheckRef | None
    labels: tuple[str, ...]
    expected: str | None
    passing: tuple[str, ...] | None  # labels that pass: ("pass",), a boundary case's expected ones, else None
    pass_fail: bool = False  # labels == PASS_FAIL


class _ItemRow(NamedTuple):
    id: str
    scenario: str | None
    constraints: tuple[_ConstraintRow, ...]


class _RecordRow(NamedTuple):
    """The columns of a run record the run metrics read: no output, trajectory or transcript."""

    id: str
    item_id: str
    model: str
    prompt_version: str | None
    error: str | None
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: float | None
    rounds: int | None
    evalset_sha256: str | None
    failed: bool  # `RunRecord.failed`, in its SQL spelling


def _run_items(db: sqlite_utils.Database, run_ids: list[str],
               records: Iterable[_RecordRow] | None = None) -> dict[str, _ItemRow]:
    """The items the runs' records answer (`records`, when read already), in import order, with their constraints in
    item order."""
    if records is None:
        records = [r for rs in _runs_records(db, run_ids).values() for r in rs]  # one scan for all the runs
    wanted = {r.item_id for r in records}
    # Runs that answer most of the eval set (the usual case) read the tables whole, in storage order, and keep the
    # items they answer: cheaper than one index probe per item. Otherwise the items are looked up by id.
    if 2 * len(wanted) >= db.execute("SELECT count(*) FROM eval_items").fetchone()[0]:
        where, params = "", []
    else:
        where = "WHERE {column} IN (SELECT value FROM json_each(?))"
        params = [json.dumps(sorted(wanted), ensure_ascii=False)]
    few: dict[str | None, str | None] = {None: None}  # a few dozen scenarios: one str each
    scenarios = {item_id: few.setdefault(scenario, scenario) for item_id, scenario in db.execute(
        f"SELECT id, scenario FROM eval_items {where.format(column='id')} ORDER BY seq", params)
        if item_id in wanted}
    # the text only where `Constraint` would look for an old "Expected: ..." in it (LIKE: any case, a superset);
    # sorted here, not in SQLite (sorting the wide rows cost more than reading them)
    sql = f"""
        SELECT item_id, seq, id, type, severity, check_json, labels, expected,
               CASE WHEN expected IS NULL AND (text LIKE '%expected%' OR instr(text, '期望')) THEN text END
        FROM constraints {where.format(column='item_id')}
    """
    # many items share a constraint's every field (a template's constraints, a repeated check): one row each
    rows: dict[tuple[Any, ...], _ConstraintRow] = {}
    label_sets: dict[str, tuple[str, ...]] = {}
    checks: dict[str, _CheckRef] = {}

    def row_of(key: tuple[Any, ...]) -> _ConstraintRow:
        row = rows.get(key)
        if row is None:
            cid, ctype, severity, check_json, labels, expected, text = key
            if check_json is not None and check_json not in checks:
                check = json.loads(check_json)
                checks[check_json] = _CheckRef(check["id"], bool(check.get("loose", False)))
            if labels not in label_sets:
                label_sets[labels] = tuple(json.loads(labels))
            if expected is None and text is not None:
                expected = Constraint._move_expected({"text": text}).get("expected")
            row = _ConstraintRow(cid, ctype, severity, None if check_json is None else checks[check_json],
                                 label_sets[labels], expected, None)
            passing = ("pass",) if row.labels == PASS_FAIL else expected_labels(row)  # type: ignore[arg-type]
            row = rows[key] = row._replace(passing=passing, pass_fail=row.labels == PASS_FAIL)
        return row

    # Storage order is item order for a project whose items were imported whole (each item's constraints written
    # together, in order): then each item's rows are kept as they come, with no sort. An item whose rows come
    # apart or out of `seq` order sends the read to the sorting one below.
    by_item: dict[str, list[_ConstraintRow]] = {item_id: [] for item_id in scenarios}
    get_entries, get_row = by_item.get, rows.get
    prev_item, prev_seq = None, 0
    for stored in db.execute(sql, params):
        item_id = stored[0]
        entries = get_entries(item_id)
        if entries is None:
            continue  # an item the runs do not answer (the whole table was read)
        seq = stored[1]
        if entries and (item_id != prev_item or seq <= prev_seq):
            break  # not in item order: sorted below
        prev_item, prev_seq = item_id, seq
        key = stored[2:]
        entries.append(get_row(key) or row_of(key))
    else:
        return {item_id: _ItemRow(item_id, scenario, tuple(by_item[item_id])) for item_id, scenario in scenarios.items()}
    in_order: dict[str, list[tuple[int, _ConstraintRow]]] = {item_id: [] for item_id in scenarios}
    for stored in db.execute(sql, params):
        pairs = in_order.get(stored[0])
        if pairs is not None:
            pairs.append((stored[1], row_of(stored[2:])))
    return {item_id: _ItemRow(item_id, scenario,
                              tuple(row for _, row in sorted(in_order[item_id], key=itemgetter(0))))
            for item_id, scenario in scenarios.items()}


def _run_records(db: sqlite_utils.Database, run_id: str) -> list[_RecordRow]:
    """The run's records in import order."""
    return _runs_records(db, [run_id])[run_id]


def _runs_records(db: sqlite_utils.Database, run_ids: list[str]) -> dict[str, list[_RecordRow]]:
    """Each run's records in import order, from one scan of the table for all the runs (a run's records are found
    by scanning `run_records`: no index leads with run_id)."""
    sql = f"""SELECT run_id, id, item_id, model, prompt_version, error, input_tokens, output_tokens, latency_ms,
                     rounds, evalset_sha256, output IS NULL AND trajectory IS NULL
              FROM run_records WHERE run_id IN ({','.join('?' * len(run_ids))}) ORDER BY seq"""
    # a few distinct models, prompt versions and eval-set hashes: one str each, not one per record
    few: dict[str | None, str | None] = {None: None}
    keep = few.setdefault
    out: dict[str, list[_RecordRow]] = {run_id: [] for run_id in run_ids}
    for run_id, rid, item, model, prompt, error, tin, tout, latency, rounds, evalset, failed in db.execute(
            sql, list(run_ids)):
        out[run_id].append(_RecordRow(rid, item, keep(model, model), keep(prompt, prompt), error, tin, tout, latency,
                                      rounds, keep(evalset, evalset), bool(failed)))
    return out


class _ToolCalls(NamedTuple):
    calls: int
    parse_failures: int  # calls whose error starts with PARSE_FAILURE


# The runner's error kind for tool-call arguments that are not a JSON object (judgecal/runner: "parse_failure: ...").
PARSE_FAILURE = "parse_failure"


def _tool_calls(db: sqlite_utils.Database, run_id: str) -> _ToolCalls:
    return _runs_tool_calls(db, [run_id])[run_id]


def _runs_tool_calls(db: sqlite_utils.Database, run_ids: list[str]) -> dict[str, _ToolCalls]:
    """Each run's tool calls and parse failures, counted in one scan for all the runs."""
    out = {run_id: _ToolCalls(0, 0) for run_id in run_ids}
    for run_id, calls, failures in db.execute(
            "SELECT r.run_id, count(*), coalesce(sum(substr(json_extract(t.value, '$.error'), 1, length(?)) = ?), 0)"
            " FROM run_records r, json_each(r.tool_calls) t"
            f" WHERE r.run_id IN ({','.join('?' * len(run_ids))}) AND r.tool_calls IS NOT NULL GROUP BY r.run_id",
            [PARSE_FAILURE, PARSE_FAILURE, *run_ids]):
        out[run_id] = _ToolCalls(calls, failures)
    return out


# A stored result is current when its checker and loose flag are those of the constraint's check now.
_CURRENT_CHECK = """cr.checker = json_extract(c.check_json, '$.id')
    AND (cr.loose != 0) = (coalesce(json_extract(c.check_json, '$.loose'), 0) != 0)"""


class _Checks(NamedTuple):
    """One run's mechanical outcomes, as read for settling: the pairs whose current stored result (`judgecal check`)
    failed, and the outcome of every pair that no current result answers (run now, `_live_checks`). Every other
    mechanical pair of a record with output passed: a million run records carry ~900k results, nearly all passing,
    so only the failures cross from SQLite into Python."""

    failing: set[tuple[str, str]]
    live: dict[tuple[str, str], bool]


def _current_checks(db: sqlite_utils.Database, run_id: str) -> _Checks:
    """The mechanical outcomes of one run's records with output (see `_Checks`)."""
    return _runs_current_checks(db, [run_id])[run_id]


def _runs_current_checks(db: sqlite_utils.Database, run_ids: list[str]) -> dict[str, _Checks]:
    """The mechanical outcomes of each run's records with output (see `_Checks`), from one join for all the runs.
    The match of a stored result to the constraint's check is made in SQL; a result is keyed to its run record and
    constraint, both immutable by id (an import never replaces a record or an item)."""
    # every mechanical pair of a record with output that did not pass by a current result: failed by one
    # (current = 1), or answered by none (current = 0: none stored, or another checker or loose flag)
    sql = f"""SELECT r.run_id, r.id, c.id, cr.passed IS NOT NULL AND {_CURRENT_CHECK} FROM run_records r
             JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NOT NULL
             LEFT JOIN check_results cr ON cr.run_record_id = r.id AND cr.constraint_id = c.id
             WHERE r.run_id IN ({','.join('?' * len(run_ids))}) AND NOT (r.output IS NULL AND r.trajectory IS NULL)
               AND NOT coalesce(cr.passed = 1 AND {_CURRENT_CHECK}, 0)"""
    failing: dict[str, set[tuple[str, str]]] = {run_id: set() for run_id in run_ids}
    missing: dict[str, list[tuple[str, str]]] = {run_id: [] for run_id in run_ids}
    for run_id, rid, cid, current in db.execute(sql, list(run_ids)):
        if current:
            failing[run_id].add((rid, cid))
        else:
            missing[run_id].append((rid, cid))
    return {run_id: _Checks(failing[run_id], _live_checks(db, missing[run_id])) for run_id in failing}


def _live_checks(db: sqlite_utils.Database, missing: list[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """Run the mechanical checks no current stored result answers (none stored, or another checker or loose flag),
    on the validated item and record: only those are loaded whole."""
    todo: dict[str, list[str]] = {}  # record id -> constraint ids
    for rid, cid in missing:
        todo.setdefault(rid, []).append(cid)
    if not todo:
        return {}
    out: dict[tuple[str, str], bool] = {}
    ids = list(todo)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        full = list(iter_runs(db, where=f"id IN ({','.join('?' * len(chunk))})", params=chunk))
        full_items = load_items(db, {r.item_id for r in full})
        for record in full:
            constraints = {c.id: c for c in full_items[record.item_id].constraints}
            for cid in todo[record.id]:
                check = constraints[cid].check
                assert check is not None
                out[(record.id, cid)] = check_record(check, record).passed
    return out


# --------------------------------------------------------------------------- per-run metrics


def error_cause(error: str | None) -> str | None:
    """The cause part of a record's error ("timeout: no answer within 5 s" -> "timeout"), as the runner writes it."""
    if error is None:
        return None
    return error.split(":", 1)[0].strip() or "unknown"


def _corrected_pass_rate(mechanical: tuple[int, int], judge_all: list[int], judge_lab: list[int],
                         human_lab: list[int], strata_all: list[str], strata_lab: list[str]) -> float | None:
    """The estimate of `_corrected_rate` (clipped to [0, 1]); None without random-sample human labels."""
    r = _corrected_rate(mechanical, judge_all, judge_lab, human_lab, strata_all, strata_lab)
    return None if r is None else r.estimate


@dataclass(frozen=True)
class RunStats:
    """Metrics of one run. Rates are None when their denominator is 0; `cost` is None without prices for every
    model of the run (then compare token totals)."""

    run_id: str
    models: tuple[str, ...]
    tasks: int
    completed: int
    completion_rate: float | None
    tool_calls: int
    tool_parse_failures: int
    tool_parse_rate: float | None
    structured_checked: int
    structured_passed: int
    structured_pass_rate: float | None
    constraints_settled: int
    constraints_passed: int
    constraints_unjudged: int
    constraint_pass_rate: float | None
    judge_corrected_pass_rate: float | None
    human_settled: int
    mean_rounds: float | None
    input_tokens: int
    output_tokens: int
    p50_latency_ms: float | None
    p95_latency_ms: float | None
    cost: float | None
    errors: dict[str, int] = field(default_factory=dict)
    # the judge-corrected pass rate's 95% CI, SE and method, and the judge model × rubric version it rests on
    judge_corrected_ci_low: float | None = None
    judge_corrected_ci_high: float | None = None
    judge_corrected_se: float | None = None
    judge_corrected_method: str | None = None
    judge_corrected_source: str | None = None
    # issue 13 item 6: what a switch decision needs beyond the pooled rates (see `_RunExtras`)
    per_task_pass_rate: float | None = None  # mean over records of each record's settled-constraint pass rate
    by_type: dict[str, tuple[int, int]] = field(default_factory=dict)  # type -> (passed, settled), every settled kind
    by_source: dict[str, tuple[int, int]] = field(default_factory=dict)  # mechanical | judge | human -> (passed, settled)
    by_scenario: dict[str, tuple[int, int]] = field(default_factory=dict)  # item scenario -> (passed, settled)
    failure_modes: dict[str, int] = field(default_factory=dict)  # reviewers' tags on pairs they labelled as failing
    mean_latency_ms: float | None = None
    mean_tokens_per_task: float | None = None
    cost_per_task: float | None = None
    token_outliers: tuple[str, ...] = ()  # record ids above the Tukey fence Q3 + 1.5 IQR of tokens per record
    repeats: int = 1  # fewest records of an item in the run
    repeat_spread: dict[str, tuple[float, float]] = field(default_factory=dict)  # metric -> (mean, sd) over repeats
    flipping_items: tuple[str, ...] = ()  # items whose records disagree on passing
    evalset_sha256s: tuple[str, ...] = ()  # eval-set hashes the records were run against (None left out)
    prompt_versions: tuple[str, ...] = ()
    records_without_evalset: int = 0
    truncated: int = 0  # records whose answer the endpoint cut at its token limit (error cause `truncated`)
    # issue 15.5: the judge-corrected CI is clustered by item; its design effect (1: no item holds two pairs, or no
    # within-item correlation), the items of its judged pairs, the unit, and the SE before clustering
    judge_corrected_design_effect: float | None = None
    judge_corrected_clusters: int | None = None
    judge_corrected_ci_clustered_by: str | None = None
    judge_corrected_se_unclustered: float | None = None
    # wave 17 (a review of the switch decision): the most records of an item (`repeats` is the fewest); the records
    # with output but no token counts (their cost is unknown, not zero); the pairs whose settling human label
    # overrides the judge's (none, or another) and how many of them passed, and the semantic pairs of records with
    # output that no human label settles (a decision cannot vouch for the overrides unless both runs have none of
    # these: `rate_difference`); the judge versions ("rubric sha256 · judge model") whose labels settle pairs
    max_records_per_item: int = 1
    records_without_tokens: int = 0
    human_overrides: int = 0
    human_overrides_passed: int = 0
    semantic_unlabelled: int = 0
    judge_versions: tuple[str, ...] = ()

    @property
    def error_rates(self) -> dict[str, float]:
        return {k: v / self.tasks for k, v in self.errors.items()} if self.tasks else {}

    @property
    def tool_parse_failure_rate(self) -> float | None:
        return None if self.tool_parse_rate is None else 1 - self.tool_parse_rate


class _RunData(NamedTuple):
    stats: RunStats
    item_pass: dict[str, bool | None]
    item_failed: dict[str, tuple[str, ...]]
    corrected: CorrectedRate | None = None  # the whole-run corrected rate with its variance parts
    # what the corrected rate knows exactly (passed, checked): mechanical checks, and the pass/fail semantic pairs of
    # failed records (each a fail)
    mech: tuple[int, int] = (0, 0)
    sem_pairs: int = 0  # pass/fail semantic pairs in the corrected rate (S)


#: Fewest repeats of every item for `repeat_spread` (seed 000 §3.2: a rate from fewer runs has no spread to read).
MIN_REPEATS_FOR_SPREAD = 3
#: The Tukey fence multiplier for token outliers.
OUTLIER_IQR = 1.5


class _RecordOutcome(NamedTuple):
    record: _RecordRow
    scenario: str | None
    outcomes: tuple[bool, ...]  # settled constraints, in item order
    passed: bool | None  # every settled `must` constraint met; None when none is settled


_SOURCES = ("mechanical", "human", "judge")  # where a settled pair's outcome came from (`RunStats.by_source`)


class _Extras:
    """Collects per-record outcomes while `_run_data` settles constraints, then derives the issue-13 metrics."""

    def __init__(self) -> None:
        self.records: list[_RecordOutcome] = []
        # (constraint type, source, scenario) -> [passed, settled]: one count per settled pair, folded into the
        # by-type, by-source and by-scenario tables at the end
        self.tally: dict[tuple[str, str, str], list[int]] = {}

    def table(self, column: int) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = {}
        for key, (passed, settled) in self.tally.items():
            t = out.setdefault(key[column], [0, 0])
            t[0] += passed
            t[1] += settled
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}

    def fields(self, db: sqlite_utils.Database, run_id: str, records: list[_RecordRow], cost: float | None,
               fail_modes: dict[tuple[str, str], str] | None = None) -> dict[str, Any]:
        per_task = [sum(r.outcomes) / len(r.outcomes) for r in self.records if r.outcomes]
        latencies = [r.latency_ms for r in records if r.latency_ms is not None]
        tokens = {r.id: (r.input_tokens or 0) + (r.output_tokens or 0) for r in records}
        outliers: tuple[str, ...] = ()
        if len(tokens) >= 4:
            ordered = sorted(tokens.values())  # sorted once: `_percentile` sorts again, in one pass when sorted
            q1, q3 = _percentile(ordered, 0.25), _percentile(ordered, 0.75)
            assert q1 is not None and q3 is not None
            fence = q3 + OUTLIER_IQR * (q3 - q1)
            # filtered, then sorted (stable: the same order as filtering the sorted list)
            outliers = tuple(rid for rid, _ in sorted(((rid, t) for rid, t in tokens.items() if t > fence),
                                                       key=lambda kv: -kv[1]))
        by_item: dict[str, list[_RecordOutcome]] = {}
        for r in self.records:
            by_item.setdefault(r.record.item_id, []).append(r)
        repeats = min((len(v) for v in by_item.values()), default=0)
        flipping = tuple(i for i, rs in by_item.items()
                         if len(rs) > 1 and len({r.passed for r in rs if r.passed is not None}) > 1)
        return {
            "per_task_pass_rate": sum(per_task) / len(per_task) if per_task else None,
            "by_type": self.table(0),
            "by_source": self.table(1),
            "by_scenario": self.table(2),
            "failure_modes": _failure_modes(db, run_id, fail_modes, records),
            "mean_latency_ms": sum(latencies) / len(latencies) if latencies else None,
            "mean_tokens_per_task": sum(tokens.values()) / len(tokens) if tokens else None,
            "cost_per_task": None if cost is None or not records else cost / len(records),
            "token_outliers": outliers,
            "repeats": repeats,
            "max_records_per_item": max((len(v) for v in by_item.values()), default=0),
            "records_without_tokens": sum(1 for r in records
                                          if not r.failed and (r.input_tokens is None or r.output_tokens is None)),
            "repeat_spread": _repeat_spread(by_item, repeats) if repeats >= MIN_REPEATS_FOR_SPREAD else {},
            "flipping_items": flipping,
            "evalset_sha256s": tuple(sorted({r.evalset_sha256 for r in records if r.evalset_sha256})),
            "prompt_versions": tuple(sorted({r.prompt_version for r in records if r.prompt_version})),
            "records_without_evalset": sum(1 for r in records if not r.evalset_sha256),
            "truncated": sum(1 for r in records if error_cause(r.error) == "truncated"),
        }


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0


def _repeat_spread(by_item: dict[str, list[_RecordOutcome]], repeats: int) -> dict[str, tuple[float, float]]:
    """Mean and sample SD (ddof=1) over repeats of each run-level rate. Repeat k is each item's k-th record in import
    order; items with more records than the fewest contribute their first `repeats` only, so every repeat covers
    the same items."""
    metrics: dict[str, list[float]] = {"constraint_pass_rate": [], "per_task_pass_rate": [], "task_pass_rate": [],
                                       "completion_rate": []}
    for k in range(repeats):
        rs = [v[k] for v in by_item.values()]
        outcomes = [o for r in rs for o in r.outcomes]
        per_task = [sum(r.outcomes) / len(r.outcomes) for r in rs if r.outcomes]
        known = [r.passed for r in rs if r.passed is not None]
        for name, value in (("constraint_pass_rate", _rate(sum(outcomes), len(outcomes))),
                            ("per_task_pass_rate", sum(per_task) / len(per_task) if per_task else None),
                            ("task_pass_rate", _rate(sum(known), len(known))),
                            ("completion_rate", _rate(sum(1 for r in rs if r.record.error is None), len(rs)))):
            if value is not None:
                metrics[name].append(value)
    return {name: _mean_sd(xs) for name, xs in metrics.items() if len(xs) == repeats}


def _failure_modes(db: sqlite_utils.Database, run_id: str, fail_modes: dict[tuple[str, str], str] | None = None,
                   records: list[_RecordRow] | None = None) -> dict[str, int]:
    """Reviewers' failure-mode tags on the run's pairs whose standing label is `fail`: one count per pair, the first
    reviewer's tag (`untagged` when they gave none). Not the checks' modes: those are `judgecal check`'s.
    `fail_modes` (`PairLabels.fail_modes`, read for these runs) and the run's `records`: counted from them."""
    if fail_modes is not None and records is not None:
        ids = {r.id for r in records}
        return dict(Counter(mode for pair, mode in fail_modes.items() if pair[0] in ids).most_common())
    sql = f"""
        WITH h AS ({standing_labels_sql()})
        SELECT h.run_record_id, h.constraint_id, h.failure_mode FROM h
        JOIN run_records r ON r.id = h.run_record_id WHERE r.run_id = ? AND h.label = 'fail' ORDER BY h.id
    """
    seen: dict[tuple[str, str], str] = {}
    for rid, cid, mode in db.execute(sql, [run_id]):  # in event order: the first reviewer's tag wins
        seen.setdefault((rid, cid), mode or "untagged")
    return dict(Counter(seen.values()).most_common())


def _run_data(db: sqlite_utils.Database, run_id: str, items: dict[str, _ItemRow], labels: PairLabels,
              records: list[_RecordRow] | None = None, checks: _Checks | None = None,
              tools: _ToolCalls | None = None) -> _RunData:
    """One run's metrics. `records`, `checks` and `tools`: the run's records, mechanical outcomes and tool calls,
    when the caller has read them (`compare` reads both runs' in one scan each)."""
    if records is None:
        records = _run_records(db, run_id)
    if not records:
        known = [r[0] for r in db.execute("SELECT DISTINCT run_id FROM run_records WHERE run_id IS NOT NULL ORDER BY 1")]
        raise ValueError(f"no run records with run_id {run_id!r}; runs in the project: {', '.join(known) or 'none'}")
    if checks is None:
        checks = _current_checks(db, run_id)
    tool_calls, parse_fail = _tool_calls(db, run_id) if tools is None else tools
    s_checked = s_passed = c_settled = c_passed = c_unjudged = human = mech_passed = mech_checked = 0
    item_pass: dict[str, bool | None] = {}
    item_failed: dict[str, set[str]] = {}
    judge_all: list[float] = []
    judge_lab: list[float] = []
    human_lab: list[int] = []
    # The constraint id of each judged / labelled pair: the review quota is per constraint stratum, so the PPI
    # correction is post-stratified by it (see ppi_pass_rate).
    strata_all: list[str] = []
    strata_lab: list[str] = []
    # ... and its item: the CI is clustered by item (issue 15.5), an item's constraints and repeated records being
    # judged on correlated outputs
    items_all: list[str] = []
    items_lab: list[str] = []
    extras = _Extras()
    # (type, source, scenario) -> [passed, settled], kept per scenario and type as one cell per source
    # (mechanical, human, judge) so that a pair adds to its cell without building a key; folded into
    # `extras.tally` at the end (cells nothing was settled in left out, as if never made)
    by_scenario: dict[str, dict[str, tuple[list[int], list[int], list[int]]]] = {}
    judge, humans, ppi, blind, sample = (labels.judge, labels.human, labels.ppi_judge, labels.human_blind,
                                         labels.random_sample)
    # the judge versions whose labels settle pairs (`PairLabels.judge_version`): the default one is noted once, the
    # others (few: a pair re-judged by another version) looked up per pair only when there are any
    default_version, other_versions = labels.judge_version, labels.judge_other_versions
    used_versions: set[tuple[str, str] | None] = set()
    judge_settled = False
    # human labels that override the judge (no judge label, or another one): the uncorrected rate mixes them with
    # the judge's answers, so a run labelled more (or selectively) than the other moves alone; a decision lets them
    # go either way unless every semantic pair of both runs is human-settled (`rate_difference`). A label that
    # agrees with the judge changes nothing. And the semantic pairs no human label settles (judge-settled or
    # unjudged), which tell a complete labelling from a partial one.
    overrides = overrides_passed = unlabelled = 0
    failing, live = checks
    # (bound once: this loop runs once per record x constraint, 1.5M times per run at a million run records)
    get_human, get_judge, get_ppi = humans.get, judge.get, ppi.get
    add_judge, add_stratum, add_item = judge_all.append, strata_all.append, items_all.append
    # the records that carry a human or a blind label (a few in a hundred), and those with a mechanical pair that
    # failed or that no current stored result answers (`_Checks`): only their pairs are looked up there
    with_human, with_blind = {p[0] for p in humans}, {p[0] for p in blind}
    with_checks = {p[0] for p in failing} | {p[0] for p in live}
    for rec in records:
        item = items[rec.item_id]
        scenario = item.scenario or "(none)"
        cells = by_scenario.get(scenario)
        if cells is None:
            cells = by_scenario[scenario] = {}
        failed = rec.failed
        rid = rec.id
        has_human, has_blind, has_checks = rid in with_human, rid in with_blind, rid in with_checks
        outcomes: list[bool] = []
        must_known = must_failed = False
        for c in item.constraints:
            # `constraint_passed` on the stored rows: a check's current stored result, else its live run
            if c.check is not None:
                if failed:
                    outcome = False
                elif not has_checks:
                    outcome = True  # a current stored result passed (see `_Checks`)
                else:
                    pair = (rid, c.id)
                    if live and pair in live:
                        outcome = live[pair]
                    else:
                        outcome = pair not in failing  # a current stored result passed (see `_Checks`)
                mech_passed += outcome
                mech_checked += 1
                if c.type == "format":
                    s_checked += 1
                    s_passed += outcome
                source = 0  # mechanical
                if has_human:
                    human += (rid, c.id) in humans  # as before: a human label on a checked pair counts, the check settles it
            else:
                pair = (rid, c.id)
                if c.pass_fail and failed:
                    # a failed run fails every constraint (one definition, docs/decisions.md): in the corrected rate
                    # an exact fail like a mechanical check's, never a judged pair (it left the rate before: a run
                    # that crashed on its hard items gained; a review, wave 17)
                    mech_checked += 1
                elif c.pass_fail and (j := get_ppi(pair)) is not None:
                    add_judge(j)
                    add_stratum(c.id)
                    add_item(rec.item_id)
                    if has_blind and pair in blind and pair in sample:
                        judge_lab.append(j)
                        human_lab.append(int(blind[pair] == "pass"))
                        strata_lab.append(c.id)
                        items_lab.append(rec.item_id)
                if c.passing is None:
                    continue  # not a pass/fail set: neither settled nor unjudged
                label = get_human(pair) if has_human else None  # a human label wins
                if label is not None:
                    source = 1  # human
                    human += 1
                    if not failed and get_judge(pair) != label:
                        overrides += 1
                        overrides_passed += label in c.passing
                else:
                    source = 2  # judge
                    label = get_judge(pair)
                    unlabelled += not failed
                    if label is not None and not failed:
                        if other_versions:
                            used_versions.add(other_versions.get(pair, default_version))
                        else:
                            judge_settled = True
                if failed:
                    outcome = False
                elif label is None:
                    c_unjudged += 1
                    continue
                else:
                    outcome = label in c.passing
            c_settled += 1
            c_passed += outcome
            outcomes.append(outcome)
            by_source = cells.get(c.type)
            if by_source is None:
                by_source = cells[c.type] = ([0, 0], [0, 0], [0, 0])
            t = by_source[source]
            t[0] += outcome
            t[1] += 1
            if c.severity == "must":
                must_known = True
                if not outcome:
                    must_failed = True
                    item_failed.setdefault(rec.item_id, set()).add(c.id)
        # An item passes a run when every record of it meets every settled `must` constraint.
        prev = item_pass.get(rec.item_id, True)
        this = (not must_failed) if must_known else None
        extras.records.append(_RecordOutcome(rec, item.scenario, tuple(outcomes), this))
        item_pass[rec.item_id] = False if (prev is False or this is False) else (None if (prev is None or this is None) else True)
    for scenario, cells in by_scenario.items():
        for ctype, by_source in cells.items():
            for name, t in zip(_SOURCES, by_source):
                if t[1]:
                    extras.tally[(ctype, name, scenario)] = t
    latencies = sorted(r.latency_ms for r in records if r.latency_ms is not None)  # (only its percentiles)
    rounds = [r.rounds for r in records if r.rounds is not None]
    completed = sum(1 for r in records if r.error is None)
    errors = Counter(error_cause(r.error) for r in records if r.error is not None)
    tin = sum(r.input_tokens or 0 for r in records)
    tout = sum(r.output_tokens or 0 for r in records)
    models = tuple(sorted({r.model for r in records}))
    cost: float | None = 0.0
    for model in models:
        price = get_price(db, model)
        if price is None:
            cost = None
            break
        mi = sum(r.input_tokens or 0 for r in records if r.model == model)
        mo = sum(r.output_tokens or 0 for r in records if r.model == model)
        cost += price.cost(mi, mo)
    if judge_settled:
        used_versions.add(default_version)
    corrected = _corrected_rate((mech_passed, mech_checked), judge_all, judge_lab, human_lab, strata_all, strata_lab,
                                clusters_all=items_all, clusters_lab=items_lab)
    nan_none = lambda x: None if x is None or math.isnan(x) else x  # noqa: E731
    stats = RunStats(
        run_id=run_id, models=models, tasks=len(records), completed=completed,
        completion_rate=_rate(completed, len(records)), tool_calls=tool_calls, tool_parse_failures=parse_fail,
        tool_parse_rate=_rate(tool_calls - parse_fail, tool_calls), structured_checked=s_checked,
        structured_passed=s_passed, structured_pass_rate=_rate(s_passed, s_checked), constraints_settled=c_settled,
        constraints_passed=c_passed, constraints_unjudged=c_unjudged, constraint_pass_rate=_rate(c_passed, c_settled),
        judge_corrected_pass_rate=None if corrected is None else corrected.estimate, human_settled=human,
        mean_rounds=sum(rounds) / len(rounds) if rounds else None, input_tokens=tin, output_tokens=tout,
        p50_latency_ms=_percentile(latencies, 0.50), p95_latency_ms=_percentile(latencies, 0.95), cost=cost,
        errors=dict(errors.most_common()),
        judge_corrected_ci_low=None if corrected is None else nan_none(corrected.low),
        judge_corrected_ci_high=None if corrected is None else nan_none(corrected.high),
        judge_corrected_se=None if corrected is None else nan_none(corrected.se),
        judge_corrected_method=None if corrected is None else corrected.method,
        judge_corrected_source=(None if corrected is None or labels.ppi_source is None
                                else f"{labels.ppi_source[1]} · rubric {labels.ppi_source[0][:12]}"),
        judge_corrected_design_effect=None if corrected is None else corrected.design_effect.value,
        judge_corrected_clusters=None if corrected is None else corrected.design_effect.clusters,
        judge_corrected_ci_clustered_by=None if corrected is None else corrected.design_effect.by,
        judge_corrected_se_unclustered=None if corrected is None else nan_none(corrected.se_unclustered),
        **extras.fields(db, run_id, records, cost, labels.fail_modes),
        human_overrides=overrides, human_overrides_passed=overrides_passed, semantic_unlabelled=unlabelled,
        judge_versions=tuple(sorted(f"{sha} · {model}" for sha, model in filter(None, used_versions))),
    )
    return _RunData(stats, item_pass, {k: tuple(sorted(v)) for k, v in item_failed.items()}, corrected,
                    (mech_passed, mech_checked), len(judge_all))


def _known_judge_version(db: sqlite_utils.Database, rubric_sha256: str | None, judge_model: str | None) -> None:
    """Raise ValueError naming a rubric version or judge model that judged nothing: a mistyped filter matched no
    verdict and left every pair unjudged without a word (a review, wave 17)."""
    if rubric_sha256 is not None and db.execute("SELECT 1 FROM verdicts WHERE rubric_sha256 = ? LIMIT 1",
                                                [rubric_sha256]).fetchone() is None:
        known = [r[0] for r in db.execute("SELECT sha256 FROM rubrics ORDER BY name, version")]
        raise ValueError(f"--rubric-sha256 {rubric_sha256!r}: no verdict under that rubric version (give the full "
                         f"sha256; rubric versions: {', '.join(known) or 'none'})")
    if judge_model is not None and db.execute("SELECT 1 FROM verdicts WHERE judge_model = ? LIMIT 1",
                                              [judge_model]).fetchone() is None:
        raise ValueError(f"--judge-model {judge_model!r}: no verdict by that judge model")


def run_stats(db: sqlite_utils.Database, run_id: str, *, rubric_sha256: str | None = None,
              judge_model: str | None = None) -> RunStats:
    _known_judge_version(db, rubric_sha256, judge_model)
    labels = pair_labels(db, [run_id], rubric_sha256=rubric_sha256, judge_model=judge_model)
    return _run_data(db, run_id, _run_items(db, [run_id]), labels).stats


def require_run(db: sqlite_utils.Database, run_id: str) -> set[str]:
    """The record ids of run `run_id`; ValueError naming the project's runs when it has none (`--run-id` filters)."""
    ids = {r[0] for r in db.execute("SELECT id FROM run_records WHERE run_id = ?", [run_id])}
    if not ids:
        known = [r[0] for r in db.execute("SELECT DISTINCT run_id FROM run_records WHERE run_id IS NOT NULL ORDER BY 1")]
        raise ValueError(f"no run records with run_id {run_id!r}; runs in the project: {', '.join(known) or 'none'}")
    return ids


def list_runs(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Every run id with its models, record count and first/last record time, in import order."""
    sql = """SELECT run_id, group_concat(DISTINCT model) AS models, count(*) AS records, min(seq) AS first
             FROM run_records WHERE run_id IS NOT NULL GROUP BY run_id ORDER BY first"""
    return [{"run_id": r["run_id"], "models": r["models"], "records": r["records"]} for r in db.query(sql)]


# --------------------------------------------------------------------------- the comparison

BUCKETS = ("both_fail", "only_a", "only_b", "both_pass", "not_comparable")
_BUCKET_OF = {(False, False): "both_fail", (True, False): "only_a", (False, True): "only_b", (True, True): "both_pass"}


class ItemOutcome(NamedTuple):
    item_id: str
    bucket: str
    a_pass: bool | None
    b_pass: bool | None
    a_failed: tuple[str, ...]  # failed must-constraint ids
    b_failed: tuple[str, ...]


@dataclass(frozen=True)
class Comparison:
    a: RunStats
    b: RunStats
    items: tuple[ItemOutcome, ...]  # both_fail first (often a broken item), then only_a, only_b, both_pass, rest
    decision: Decision | None
    warnings: tuple[Comparability, ...] = ()
    # issue 15: the paired corrected difference of the semantic pass/fail pairs (None without a paired sample), the
    # whole-run drop it gives when it covers both runs' corrected rates, else why it does not
    paired: PairedDifference | None = None
    paired_drop: RateDifference | None = None
    paired_note: str | None = None

    @property
    def difference(self) -> RateDifference | None:
        """The pass-rate drop A - B the decision reads: the paired one when it applies, else `rate_difference`."""
        return self.paired_drop if self.paired_drop is not None else rate_difference(self.a, self.b)

    def bucket(self, name: str) -> list[ItemOutcome]:
        return [i for i in self.items if i.bucket == name]

    def _buckets(self) -> dict[str, list[ItemOutcome]]:
        """Every bucket's items in one pass (`items` is in BUCKETS order, import order within a bucket)."""
        out: dict[str, list[ItemOutcome]] = {name: [] for name in BUCKETS}
        for i in self.items:
            out[i.bucket].append(i)
        return out

    def as_dict(self) -> dict[str, Any]:
        return self._as_dict({name: [i._asdict() for i in items] for name, items in self._buckets().items()})

    def _as_dict(self, items: dict[str, Any]) -> dict[str, Any]:
        def stats(s: RunStats) -> dict[str, Any]:
            return asdict(s) | {"error_rates": s.error_rates, "tool_parse_failure_rate": s.tool_parse_failure_rate}

        return {
            "a": stats(self.a), "b": stats(self.b),
            "items": items,
            "decision": None if self.decision is None else {
                "switch": self.decision.switch, "status": self.decision.status,
                "reasons": [r._asdict() for r in self.decision.reasons]},
            "difference": None if (d := self.difference) is None else d._asdict(),
            "warnings": [w._asdict() for w in self.warnings],
            "paired_difference": None if self.paired is None else _finite(asdict(self.paired)) | {
                "mdd": _none_nan(min_detectable_difference(self.paired.se)), "note": self.paired_note},
        }

    def to_json(self) -> str:
        """`json.dumps(self.as_dict(), ensure_ascii=False, indent=2)`, byte for byte. The item lists (one entry per
        item: 285k at a million run records) are written from a template; `indent` makes `json` fall back to its
        pure-Python encoder, which cost more than the comparison itself at that size."""
        marks = {name: f"judgecal-items-{name}-{os.urandom(16).hex()}" for name in BUCKETS}  # (not uuid: start-up)
        rest = json.dumps(self._as_dict(dict(marks)), ensure_ascii=False, indent=2)  # small: the lists are marks
        buckets = self._buckets()
        pieces = []
        for name, mark in marks.items():
            head, _, rest = rest.partition(f'"{mark}"')
            pieces += [head, _items_json(buckets[name])]
        return "".join(pieces + [rest])  # one copy of the whole text (63 MB at a million run records)


_JSON_CONST = {True: "true", False: "false", None: "null"}


def _items_json(items: list[ItemOutcome]) -> str:
    """A bucket's item list as `json.dumps(..., ensure_ascii=False, indent=2)` writes it at the depth it stands in
    `Comparison.as_dict()` (a list in the `items` object of the top-level object)."""
    if not items:
        return "[]"
    q = json.encoder.encode_basestring  # type: ignore[attr-defined]

    def ids(xs: tuple[str, ...]) -> str:
        return "[\n          " + ",\n          ".join(map(q, xs)) + "\n        ]" if xs else "[]"

    return "[\n" + ",\n".join(
        f'      {{\n        "item_id": {q(i.item_id)},\n        "bucket": {q(i.bucket)},\n'
        f'        "a_pass": {_JSON_CONST[i.a_pass]},\n        "b_pass": {_JSON_CONST[i.b_pass]},\n'
        f'        "a_failed": {ids(i.a_failed)},\n        "b_failed": {ids(i.b_failed)}\n      }}'
        for i in items) + "\n    ]"


def compare_runs(db: sqlite_utils.Database, run_a: str, run_b: str, *, thresholds: dict[str, float] | None = None,
                 rubric_sha256: str | None = None, judge_model: str | None = None,
                 allow_prompt_change: bool = False) -> Comparison:
    """Compare run B (the candidate) with run A (the current one). Raises ValueError for an unknown run id. With
    thresholds, a run pair that is not like with like (`comparability`) gets a failing `comparable` reason."""
    # millions of small acyclic tuples and dicts at 1M run records: the collector's passes were ~8 s of ~50
    with gc_paused(), read_snapshot(db):  # both runs from one moment of the project
        return _compare_runs(db, run_a, run_b, thresholds=thresholds, rubric_sha256=rubric_sha256,
                             judge_model=judge_model, allow_prompt_change=allow_prompt_change)


def _compare_runs(db: sqlite_utils.Database, run_a: str, run_b: str, *, thresholds: dict[str, float] | None,
                  rubric_sha256: str | None, judge_model: str | None, allow_prompt_change: bool) -> Comparison:
    if run_a == run_b:  # (a run compared with itself was a SWITCH: a review, wave 17)
        raise ValueError(f"compare needs two different runs, got {run_a!r} twice")
    _known_judge_version(db, rubric_sha256, judge_model)
    stale = stale_check_results(db)  # the settling reads stored results as current (`_runs_current_checks`)
    if stale is not None:
        raise ValueError(stale)
    # both runs' records, stored check failures and tool calls from one scan of the table each (per run, each was
    # a scan of every run record: no index leads with run_id)
    records = _runs_records(db, [run_a, run_b])
    items = _run_items(db, [run_a, run_b], [r for rs in records.values() for r in rs])
    labels = pair_labels(db, [run_a, run_b], rubric_sha256=rubric_sha256, judge_model=judge_model,
                         record_ids={r.id for rs in records.values() for r in rs})
    known = [run for run in (run_a, run_b) if records[run]]  # (an unknown run raises in `_run_data`)
    checks, tools = _runs_current_checks(db, known), _runs_tool_calls(db, known)
    da, dbb = (_run_data(db, run, items, labels, records[run], checks.get(run), tools.get(run)) for run in (run_a, run_b))
    # each bucket's items in import order, the buckets in BUCKETS order
    by_bucket: dict[str, list[ItemOutcome]] = {name: [] for name in BUCKETS}
    pass_a, pass_b, failed_a, failed_b = da.item_pass, dbb.item_pass, da.item_failed, dbb.item_failed
    for item_id in items:
        if item_id not in pass_a and item_id not in pass_b:
            continue
        pa, pb = pass_a.get(item_id), pass_b.get(item_id)
        bucket = "not_comparable" if pa is None or pb is None else _BUCKET_OF[(pa, pb)]
        by_bucket[bucket].append(ItemOutcome(item_id, bucket, pa, pb, failed_a.get(item_id, ()),
                                             failed_b.get(item_id, ())))
    outcomes = [o for name in BUCKETS for o in by_bucket[name]]
    del by_bucket
    warnings = tuple(comparability(da.stats, dbb.stats, allow_prompt_change=allow_prompt_change,
                                   items=(pass_a.keys(), pass_b.keys())))
    paired, drop, parts, note = paired_comparison(db, run_a, run_b, items, labels, da, dbb)
    if drop is not None:
        unit = "items labelled in both runs, 2 labels each"
    else:
        # the unpaired drop: both runs' corrected variance parts add (only when the drop is the corrected one)
        unpaired = rate_difference(da.stats, dbb.stats)
        parts = [d.corrected.parts for d in (da, dbb) if d.corrected is not None and d.corrected.parts is not None]
        if len(parts) != 2 or unpaired is None or unpaired.kind != "judge-corrected":
            parts = []
        unit = "labels per run"
    decision = (decide(da.stats, dbb.stats, thresholds, difference=drop, parts=parts, unit=unit) if thresholds
                else None)
    refusals = [w for w in warnings if w.refuses]
    if decision is not None and refusals:
        reasons = decision.reasons + tuple(Reason("comparable", 0.0, None, False, f"REFUSED: {w.text}", "fail")
                                           for w in refusals)
        decision = Decision(False, reasons, "don't switch")
    return Comparison(da.stats, dbb.stats, tuple(outcomes), decision, warnings, paired, drop, note)


def _none_nan(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def _finite(d: dict[str, Any]) -> dict[str, Any]:
    return {k: _none_nan(v) for k, v in d.items()}


def paired_comparison(db: sqlite_utils.Database, run_a: str, run_b: str, items: dict[str, _ItemRow],
                      labels: PairLabels, da: _RunData, dbb: _RunData
                      ) -> tuple[PairedDifference | None, RateDifference | None, list[VarianceParts], str | None]:
    """The paired corrected difference A - B (issue 15.1) over the units (item × pass/fail semantic constraint)
    both runs answered and the judge version of the corrected rates (`labels.ppi_source`) judged in every record;
    labelled units are the counted units of the paired sample (`paired_counted`), each run's value the mean of its
    records' blind first labels (its judge prediction: of `ppi_prediction`). None without a paired sample.

    The whole-run drop (what `max_constraint_drop_points` reads) follows exactly when the units are all of both
    runs' corrected semantic pairs, with as many records per unit in both runs and the same number of checked
    constraints: drop = (mech_A - mech_B) / T + (S / T) × paired difference (mechanical checks have no error).
    Otherwise the note says why and the unpaired drop stands."""
    if not paired_drawn(db, run_a, run_b):
        return None, None, [], None
    sample = paired_counted(db, run_a, run_b)
    if not sample.drawn:
        return None, None, [], None
    records: dict[str, dict[str, list[str]]] = {run_a: defaultdict(list), run_b: defaultdict(list)}
    for rid, item, run in db.execute("SELECT id, item_id, run_id FROM run_records WHERE run_id IN (?, ?)"
                                     " ORDER BY seq", [run_a, run_b]):
        records[run][item].append(rid)
    f_a, f_b, s_all, fa_lab, fb_lab, ya_lab, yb_lab, s_lab = [], [], [], [], [], [], [], []
    i_all: list[str] = []  # each unit's item: the difference's CI is clustered by it (issue 15.5)
    i_lab: list[str] = []
    repeats: set[tuple[int, int]] = set()
    for item_id in items:
        ra, rb = records[run_a].get(item_id), records[run_b].get(item_id)
        if not ra or not rb:
            continue
        for c in items[item_id].constraints:
            if c.check is not None or c.labels != PASS_FAIL:
                continue
            pa = [labels.ppi_judge.get((r, c.id)) for r in ra]
            pb = [labels.ppi_judge.get((r, c.id)) for r in rb]
            if None in pa or None in pb:
                continue
            repeats.add((len(pa), len(pb)))
            f_a.append(sum(pa) / len(pa))
            f_b.append(sum(pb) / len(pb))
            s_all.append(c.id)
            i_all.append(item_id)
            blind_a = [labels.human_blind.get((r, c.id)) for r in ra]
            blind_b = [labels.human_blind.get((r, c.id)) for r in rb]
            if (item_id, c.id) in sample.counted and None not in blind_a and None not in blind_b:
                fa_lab.append(f_a[-1])
                fb_lab.append(f_b[-1])
                ya_lab.append(sum(lab == "pass" for lab in blind_a) / len(ra))
                yb_lab.append(sum(lab == "pass" for lab in blind_b) / len(rb))
                s_lab.append(c.id)
                i_lab.append(item_id)
    paired = ppi_difference(f_a, f_b, fa_lab, fb_lab, ya_lab, yb_lab, strata_all=s_all, strata_lab=s_lab)
    paired = clustered_difference(paired, [a - b for a, b in zip(f_a, f_b)], i_all,
                                  [a - b for a, b in zip(fa_lab, fb_lab)], [a - b for a, b in zip(ya_lab, yb_lab)],
                                  i_lab, strata_all=s_all, strata_lab=s_lab)
    if not paired.defined:
        return paired, None, [], f"the paired difference is undefined: {paired.reason}"
    (ma, ta), (mb, tb) = da.mech, dbb.mech
    per_unit = {r for r, _ in repeats} | {r for _, r in repeats}
    total_a, total_b = ta + da.sem_pairs, tb + dbb.sem_pairs
    if not (len(per_unit) == 1 and da.sem_pairs == dbb.sem_pairs == len(f_a) * next(iter(per_unit))
            and total_a == total_b):
        return paired, None, [], ("the paired units are not all of both runs' corrected pairs (different items, "
                                  "failed records, repeats or checks): the pass-rate drop stays unpaired")
    share = da.sem_pairs / total_a
    centre = (ma - mb) / total_a + share * paired.estimate
    se = share * paired.se
    # a and b stay the runs' own corrected rates (None without random-sample labels): the drop is the paired one
    drop = RateDifference("paired judge-corrected", da.stats.judge_corrected_pass_rate,  # type: ignore[arg-type]
                          dbb.stats.judge_corrected_pass_rate,  # type: ignore[arg-type]
                          100 * centre, 100 * (centre - Z_95 * se), 100 * (centre + Z_95 * se),
                          # the drop's own test (its centre carries the exact mechanical difference too)
                          100 * se, math.erfc(abs(centre) / se / math.sqrt(2)) if se > 0 else paired.p_value,
                          paired.n_labelled, 100 * min_detectable_difference(se), paired.design_effect,
                          paired.clusters, paired.ci_clustered_by)
    parts = [VarianceParts(paired.var_pred, paired.var_rect, paired.n_units, paired.lam, paired.n_labelled,
                           paired.var_y, paired.cov_yf, paired.var_f_lab, paired.design_effect).scaled(share)]
    return paired, drop, parts, None


def uneven_records(fewest: int, most: int) -> str:
    """Why a run whose items hold `fewest` to `most` records cannot be read as a whole (`compare` and the run gate)."""
    return (f"holds {fewest} to {most} records per item: an item with more records weighs more in its pooled rates; "
            "finish the run so every item has as many records")


class Comparability(NamedTuple):
    """A reason the two runs may not be like with like. `refuses`: a switch verdict is refused over it."""

    kind: str  # evalset | evalset_unknown | prompt_version | items | records_per_item
    text: str
    refuses: bool


def comparability(a: RunStats, b: RunStats, *, allow_prompt_change: bool = False,
                  items: tuple[Iterable[str], Iterable[str]] | None = None) -> list[Comparability]:
    """Why the two runs may not be like with like: a different eval set (by the hash `judgecal run` stores on each
    record) refuses a verdict; records without a hash only warn (imports carry none, so "unknown" is not "differs");
    a different prompt version refuses unless `allow_prompt_change` (the comparison IS a prompt A/B). Found by a
    review (wave 17), each refusing: `items` (the item ids each run's records answer) that differ, since the pooled
    rates are then over different items (a run stopped early, or made with `--limit`, on the easy items looked
    better; both carry the whole eval set's hash); a run whose items have different numbers of records, since an
    item with more records weighs more in its pooled rates (resumed repeats of the items a model passes)."""
    out = []
    if items is not None:
        ia, ib = set(items[0]), set(items[1])
        if ia != ib:
            out.append(Comparability(
                "items", f"the runs answered different items (A {len(ia)}, B {len(ib)}, both {len(ia & ib)}): their "
                "rates are not over the same items; compare runs over the same items", True))
    for name, s in (("A", a), ("B", b)):
        if s.tasks and s.repeats != s.max_records_per_item:
            out.append(Comparability("records_per_item", f"run {name} ({s.run_id}) "
                                     + uneven_records(s.repeats, s.max_records_per_item), True))
    if a.evalset_sha256s and b.evalset_sha256s and set(a.evalset_sha256s) != set(b.evalset_sha256s):
        out.append(Comparability(
            "evalset", f"the runs were made on different eval sets ({', '.join(h[:12] for h in a.evalset_sha256s)} vs "
            f"{', '.join(h[:12] for h in b.evalset_sha256s)}): the rates are not over the same items", True))
    elif a.records_without_evalset or b.records_without_evalset:
        out.append(Comparability(
            "evalset_unknown", f"{a.records_without_evalset + b.records_without_evalset} records carry no eval-set "
            "hash (imported, not made by `judgecal run`): whether both runs used the same eval set is unknown", False))
    if a.prompt_versions != b.prompt_versions:
        out.append(Comparability(
            "prompt_version", f"the runs differ in prompt version ({', '.join(a.prompt_versions) or 'none'} vs "
            f"{', '.join(b.prompt_versions) or 'none'})" + (
                ": compared as a prompt A/B (--allow-prompt-change)" if allow_prompt_change else
                ": a model comparison is confounded by the prompt (--allow-prompt-change when the prompt is what "
                "you compare)"), not allow_prompt_change))
    return out


__all__ = [
    "BLOCKED_LABELS", "BUCKETS", "MIN_REPEATS_FOR_SPREAD", "THRESHOLD_KEYS", "Comparability", "Comparison",
    "comparability", "Decision", "ItemOutcome", "Reason", "RunStats",
    "PairLabels", "Settled", "CorrectedRate", "RateDifference", "rate_difference", "compare_runs", "constraint_passed", "decide", "error_cause", "expected_labels", 
    "list_runs", "pair_labels", "parse_thresholds", "read_thresholds",
    "require_run", "run_stats", "settled_labels",
]
