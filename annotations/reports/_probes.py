"""Bias probes (issue 15.3) and position bias read from stored pairwise verdicts: rates with exact intervals, the pairs
that flipped, and the gate's checks on them.

Definitions (docs/decisions.md "Bias probes"):
- position: per pair, the answer with the original order and with the order swapped (both stored in the original
  numbering). The first-position rate is the share of the 2n answers that picked the output shown first (truescore's
  definition; Zheng et al. 2023 report the same as "consistency" and "bias toward first"), with a Clopper–Pearson
  interval and an exact two-sided binomial test against 0.5. A pair whose orders agree picks the first-shown output
  exactly once, so only the order-inconsistent pairs move the rate: they get their own exact sign test (first-shown
  both times vs second-shown both times), the pair-level test that does not treat a pair's two answers as independent.
- verbosity: pairs whose baseline answer is not `pass`; the share whose padded copy is judged `pass`.
- injection: pairs humans labelled fail whose baseline answer is not `pass`; the share where ANY injection style turns
  the answer to `pass` (the pair is the unit, so the styles of one pair are not counted as independent trials). Each
  style's own share is shown too.
- consistency: the share of pairs where any paraphrase of the rubric gives another label than the rubric itself.
Error rows are never answers: a pair with a variant missing or errored is `incomplete`, out of the rate, and the gate
counts it as flipped (a judge cannot pass a probe by failing on the perturbed prompts).
"""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, NamedTuple, Sequence

import sqlite_utils

from judgecal.annotations.reports._calibration import match_rubrics
from judgecal.annotations.reports._gate import PROBE_LIMITS, GateCheck
from judgecal.annotations.reports._pairwise import PAIR_SWAP, Proportion, clopper_pearson
from judgecal.annotations.review import counted_pairs, run_output
from judgecal.annotations.store import (LLMBAR_BATCH_PREFIX, ProbeVerdict, kept_blind_first, pair_indexes,
                                        probe_batch_settings, probe_sampling, probe_verdicts, semantic_pairs)
from judgecal.evalsets import Constraint, EvalItem, RunRecord

PROBES = ("position", "verbosity", "injection", "consistency")
BASELINE = "baseline"  # judge/_probes.py BASELINE (annotations cannot import judge)
PASS = "pass"


def binomial_p(k: int, n: int) -> float | None:
    """Exact two-sided binomial test of k successes in n against 0.5 (scipy's binomtest); None when n = 0."""
    from scipy.stats import binomtest  # on first use: scipy.stats costs ~0.3 s to import (tests/test_startup.py)

    return float(binomtest(k, n, 0.5).pvalue) if n else None


@dataclass(frozen=True)
class PositionBias:
    """Position bias over pairs judged in both orders (see the module docstring)."""

    compared: int  # pairs (per round of both orders) with both orders answered
    first_position: Proportion  # of the 2 x compared answers: picked the output shown first
    p_value: float | None  # exact binomial test of first_position against 0.5 (answers as trials)
    first_both: Proportion  # of the order-inconsistent pairs: picked the first-shown output both times
    sign_p_value: float | None  # exact binomial (sign) test of first_both against 0.5 (pairs as trials)
    incomplete: int  # an order missing or an error row
    flipped: tuple[str, ...]  # the order-inconsistent pairs, "record/constraint"

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The interval the gate reads: the wider of the answer-level Clopper–Pearson interval and the pair-level one
        (the sign test's interval mapped onto the rate, n and the inconsistent count held fixed: rate = 1/2 +
        (2·first_both − inconsistent)/(2n)); the answer-level one is too narrow when most pairs are inconsistent."""
        if not self.compared:
            return None
        n, fb = self.compared, self.first_both
        low, high = self.first_position.low, self.first_position.high
        if fb.n:
            low = min(low, 0.5 + fb.n * (2 * fb.low - 1) / (2 * n))
            high = max(high, 0.5 + fb.n * (2 * fb.high - 1) / (2 * n))
        return low, high

    @property
    def worst_bounds(self) -> tuple[float, float] | None:
        """`bounds` with every incomplete pair (an order missing or an error row) counted as an order-inconsistent
        pair picking the same position both times, first or second, whichever side is worse: a judge must not pass
        the gate by failing on the order it would have answered inconsistently (the other probes' rule)."""
        if not self.incomplete:
            return self.bounds
        n, m, k = self.compared + self.incomplete, self.first_both.n, self.first_position.k
        sides = [position_bias_counts(n, k + 2 * self.incomplete, m + self.incomplete, self.first_both.k
                                      + self.incomplete).bounds,
                 position_bias_counts(n, k, m + self.incomplete, self.first_both.k).bounds]
        return min(b[0] for b in sides if b), max(b[1] for b in sides if b)

    def format(self) -> str:
        if not self.compared:
            return "position: no pair answered in both orders" + (
                f" ({self.incomplete} incomplete)" if self.incomplete else "")
        return (f"first-position rate {self.first_position.format()}, p = {_p(self.p_value)}; orders disagree on "
                f"{self.first_both.n}/{self.compared} pairs, first-shown picked both times on "
                f"{self.first_both.k}/{self.first_both.n} (sign test p = {_p(self.sign_p_value)})"
                + (f"; {self.incomplete} incomplete" if self.incomplete else ""))

    def as_dict(self) -> dict[str, Any]:
        b = self.bounds
        return {"compared": self.compared, "first_position": _prop(self.first_position), "p_value": self.p_value,
                "order_inconsistent": self.first_both.n, "first_shown_both_times": _prop(self.first_both),
                "sign_p_value": self.sign_p_value, "incomplete": self.incomplete, "flipped": list(self.flipped),
                "gate_ci_low": b[0] if b else None, "gate_ci_high": b[1] if b else None}


def position_bias(orders: Iterable[tuple[str, str | None, str | None]]) -> PositionBias:
    """Position bias from (pair name, label with the original order, label with the swapped order mapped back to the
    original numbering); None = missing or an error row."""
    compared = first = inconsistent = first_both = incomplete = 0
    flipped = []
    for name, original, swapped in orders:
        if original not in PAIR_SWAP or swapped not in PAIR_SWAP:
            incomplete += 1
            continue
        compared += 1
        # Shown first: output_1 in the original order; in the swapped order output_2 (stored mapped back).
        first += (original == "output_1") + (swapped == "output_2")
        if original != swapped:
            inconsistent += 1
            first_both += original == "output_1"
            flipped.append(name)
    return PositionBias(compared, clopper_pearson(first, 2 * compared), binomial_p(first, 2 * compared),
                        clopper_pearson(first_both, inconsistent), binomial_p(first_both, inconsistent),
                        incomplete, tuple(flipped))


def position_bias_counts(compared: int, first: int, inconsistent: int, first_both: int) -> PositionBias:
    """A PositionBias from its counts alone (no pair names): what the gate's worst case is computed on."""
    return PositionBias(compared, clopper_pearson(first, 2 * compared), None,
                        clopper_pearson(first_both, inconsistent), None, 0, ())


@dataclass(frozen=True)
class ProbeResult:
    """One probe of one rubric version × judge model."""

    probe: str
    rubric_sha256: str
    rubric: str  # name vN
    judge_model: str
    pairs: int  # pairs with any stored answer
    rate: Proportion  # the headline rate (see `measures`)
    measures: str
    flipped: tuple[str, ...]
    incomplete: int  # a variant missing or an error row: out of the rate, counted as flipped by the gate
    errors: int  # error rows among the probe's answers
    excluded: int  # complete pairs outside the denominator (baseline already pass)
    by_variant: dict[str, Proportion] = field(default_factory=dict)
    position: PositionBias | None = None
    settings: tuple[str, ...] = ()  # the judge's sampling settings its answers were asked with, one per distinct

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The interval the gate reads. Position: PositionBias.bounds. Others: Clopper–Pearson with the incomplete
        pairs counted as flipped (the worst case)."""
        if self.position is not None:
            return self.position.worst_bounds
        worst = clopper_pearson(self.rate.k + self.incomplete, self.rate.n + self.incomplete)
        return None if not worst.n else (worst.low, worst.high)

    def format(self) -> str:
        head = f"{self.probe:<11} {self.judge_model} · {self.rubric}: "
        if self.position is not None:
            lines = [head + self.position.format()]
        else:
            lines = [head + f"{self.measures} {self.rate.format()}"
                     + (f"; {self.excluded} excluded (baseline already pass)" if self.excluded else "")
                     + (f"; {self.incomplete} incomplete (an error row or a variant missing; the gate counts them "
                        "as flipped)" if self.incomplete else "")]
            for name, p in self.by_variant.items():
                lines.append(f"    {name}: {p.format()}")
        if self.flipped:
            shown = ", ".join(self.flipped[:10]) + (f" (+{len(self.flipped) - 10} more)" if len(self.flipped) > 10
                                                     else "")
            lines.append(f"    flipped: {shown}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        b = self.bounds
        return {"probe": self.probe, "rubric_sha256": self.rubric_sha256, "rubric": self.rubric,
                "judge_model": self.judge_model, "pairs": self.pairs, "measures": self.measures,
                "rate": _prop(self.rate), "flipped": list(self.flipped), "incomplete": self.incomplete,
                "errors": self.errors, "excluded": self.excluded,
                "by_variant": {k: _prop(v) for k, v in self.by_variant.items()},
                "position": self.position.as_dict() if self.position is not None else None,
                "settings": list(self.settings),
                "gate_ci_low": b[0] if b else None, "gate_ci_high": b[1] if b else None}


def asked_with(settings: Sequence[str]) -> str:
    """"asked with temperature 0.0, seed 0" (several distinct settings joined by "; ")."""
    return "asked with " + ("; ".join(settings) if settings else "settings not recorded")


def _sampling_text(sampling: dict[str, Any]) -> str:
    return ", ".join(f"{k} {sampling[k]}" for k in ("temperature", "seed") if k in sampling) or "settings not recorded"


def _prop(p: Proportion) -> dict[str, Any]:
    return {"k": p.k, "n": p.n, "rate": p.rate, "ci_low": p.low, "ci_high": p.high}


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


def _rubric_names(db: sqlite_utils.Database) -> dict[str, str]:
    return {sha: f"{name} v{version}" for sha, name, version in db.execute("SELECT sha256, name, version FROM rubrics")}


def _result(probe: str, sha: str, rubric: str, model: str, rows: Sequence[ProbeVerdict]) -> ProbeResult:
    by_pair: dict[str, dict[str, str | None]] = defaultdict(dict)
    variants: list[str] = []
    for r in rows:
        by_pair[f"{r.run_record_id}/{r.constraint_id}"][r.variant] = r.label
        if r.variant not in variants:
            variants.append(r.variant)
    errors = sum(1 for r in rows if r.error is not None)
    others = [v for v in variants if v != BASELINE]
    if probe == "position":
        pos = position_bias((name, v.get(BASELINE), v.get(others[0]) if others else None)
                            for name, v in sorted(by_pair.items()))
        return ProbeResult(probe, sha, rubric, model, len(by_pair), pos.first_position, "first-position rate",
                           pos.flipped, pos.incomplete, errors, 0, {}, pos)
    complete = {name: v for name, v in by_pair.items()
                if v.get(BASELINE) is not None and others and all(v.get(o) is not None for o in others)}
    incomplete = len(by_pair) - len(complete)
    if probe == "consistency":
        eligible = complete
        flips = {name: [o for o in others if v[o] != v[BASELINE]] for name, v in eligible.items()}
        measures = "disagreement rate (any paraphrase gives another label)"
    else:
        eligible = {name: v for name, v in complete.items() if v[BASELINE] != PASS}
        flips = {name: [o for o in others if v[o] == PASS] for name, v in eligible.items()}
        measures = ("flip rate toward pass (padded output)" if probe == "verbosity"
                    else "injection flip rate (any style turns a human-fail output to pass)")
    flipped = tuple(sorted(name for name, f in flips.items() if f))
    by_variant = {o: clopper_pearson(sum(o in f for f in flips.values()), len(eligible)) for o in others}
    if probe == "verbosity":
        away = [name for name, v in complete.items() if v[BASELINE] == PASS]
        by_variant = {"toward pass": clopper_pearson(len(flipped), len(eligible)),
                      "toward fail (baseline pass, padded not)": clopper_pearson(
                          sum(complete[n][o] != PASS for n in away for o in others), len(away) * len(others))}
    return ProbeResult(probe, sha, rubric, model, len(by_pair), clopper_pearson(len(flipped), len(eligible)),
                       measures, flipped, incomplete, errors, len(complete) - len(eligible), by_variant)


def probe_results(db: sqlite_utils.Database, *, rubric: str | None = None,
                  model: str | None = None) -> list[ProbeResult]:
    """Every stored probe, per probe kind × rubric version × judge model (filters as `report`)."""
    shas = match_rubrics(db, rubric)
    names = _rubric_names(db)
    groups: dict[tuple[str, str, str], list[ProbeVerdict]] = defaultdict(list)
    for r in probe_verdicts(db):
        if (shas is None or r.rubric_sha256 in shas) and (model is None or r.judge_model == model):
            groups[(r.probe, r.rubric_sha256, r.judge_model)].append(r)
    asked = {key: tuple(dict.fromkeys(_sampling_text(probe_sampling(text)) for _, text in rows))
             for key, rows in probe_batch_settings(db, model=model).items()} if groups else {}
    order = {p: i for i, p in enumerate(PROBES)}
    return [replace(_result(p, sha, names.get(sha, sha[:12]), m, rows), settings=asked.get((p, sha, m), ()))
            for (p, sha, m), rows in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1:]))]


@dataclass(frozen=True)
class VerdictPosition:
    """Position bias of one rubric version × judge model from its stored pairwise verdicts (repeat 2r = original
    order, 2r+1 = swapped, mapped back: `judge --pairwise` and `import llmbar` store them so)."""

    rubric_sha256: str
    rubric: str
    judge_model: str
    bias: PositionBias
    settings: tuple[str, ...] = ()  # the judge's sampling settings of the verdicts' batches, one per distinct

    def format(self) -> str:
        return f"position    {self.judge_model} · {self.rubric} (stored verdicts): {self.bias.format()}"

    def as_dict(self) -> dict[str, Any]:
        return {"rubric_sha256": self.rubric_sha256, "rubric": self.rubric, "judge_model": self.judge_model,
                **self.bias.as_dict(), "settings": list(self.settings)}


_PAIRWISE_LABELS = """(c.labels = '["output_1", "output_2"]' OR c.labels = '["output_1","output_2"]')"""


def verdict_position_bias(db: sqlite_utils.Database, *, rubric: str | None = None,
                          model: str | None = None) -> list[VerdictPosition]:
    """Position bias of each rubric version × judge model that has verdicts on pairwise constraints."""
    shas = match_rubrics(db, rubric)
    # A pairwise label set has no check (`Constraint` refuses one), so the semantic constraints' covering index
    # (migration 018's, holding the labels) answers whether there is one without reading the wide rows: 0.2-0.5 s of
    # a report at a million run records that has none
    if db.execute(f"SELECT 1 FROM constraints c{pair_indexes(db)[1]} WHERE c.check_json IS NULL"
                  f" AND {_PAIRWISE_LABELS} LIMIT 1").fetchone() is None:
        return []  # no pairwise constraint: the join below would read every verdict to find none (issue 16.2)
    names = _rubric_names(db)
    groups: dict[tuple[str, str], dict[tuple[str, str, int], dict[int, str | None]]] = defaultdict(dict)
    batches: dict[tuple[str, str], set[str | None]] = defaultdict(set)
    for rid, cid, sha, judge, repeat, label, batch_id in db.execute(
            "SELECT v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model, v.repeat, v.label, v.batch_id"
            " FROM verdicts v JOIN run_records r ON r.id = v.run_record_id"
            " JOIN constraints c ON c.item_id = r.item_id AND c.id = v.constraint_id"
            f" WHERE c.check_json IS NULL AND {_PAIRWISE_LABELS}"
            # Only verdicts known to hold both orders: LLMBar's (its original / swapped judge fields) and `judge
            # --pairwise` pair records'. A plain `judge --repeats 2` asks the original order twice; read as both
            # orders, a judge always picking the first-shown output looks perfectly order-consistent.
            # (GLOB: LIKE ignores case, and `import verdicts` could spell the prefix in capitals; it never writes
            # the prefix itself, `import_batch_id`: a review, wave 17)
            f" AND (v.batch_id GLOB '{LLMBAR_BATCH_PREFIX}*'"
            "      OR EXISTS (SELECT 1 FROM pairwise_outputs po WHERE po.run_record_id = v.run_record_id))"
            " ORDER BY 1, 2, 5"):
        if (shas is not None and sha not in shas) or (model is not None and judge != model):
            continue
        groups[(sha, judge)].setdefault((rid, cid, repeat // 2), {})[repeat % 2] = label
        batches[(sha, judge)].add(batch_id)
    out = []
    for (sha, judge), pairs in sorted(groups.items()):
        bias = position_bias((f"{rid}/{cid}" + (f"#{r}" if r else ""), o.get(0), o.get(1))
                             for (rid, cid, r), o in pairs.items())
        out.append(VerdictPosition(sha, names.get(sha, sha[:12]), judge, bias,
                                   _verdict_settings(db, batches[(sha, judge)])))
    return out


def _verdict_settings(db: sqlite_utils.Database, batch_ids: set[str | None]) -> tuple[str, ...]:
    """The sampling settings of the judge batches that stored verdicts (one text per distinct setting): LLMBar's
    recorded verdicts and imported ones carry none."""
    found = dict(db.execute("SELECT id, settings FROM batches WHERE id IN (SELECT value FROM json_each(?))",
                            [json.dumps(sorted(b for b in batch_ids if b is not None))]).fetchall())
    out = []
    for b in sorted(batch_ids, key=lambda b: (b is None, b or "")):
        if b is not None and b.startswith(LLMBAR_BATCH_PREFIX):
            out.append("the settings LLMBar ran (not recorded)")
        elif b in found:
            try:
                stored = json.loads(found[b])
            except ValueError:
                stored = {}
            out.append(_sampling_text(stored if isinstance(stored, dict) else {}))
        else:
            out.append("settings not recorded (imported from a file)")
    return tuple(dict.fromkeys(out))


def format_probes(results: Sequence[ProbeResult], positions: Sequence[VerdictPosition]) -> str:
    """The report's probe section ('' when there is nothing to show)."""
    if not results and not positions:
        return ""
    lines = ["Bias probes (rate [exact 95% CI] (k/n)):"]
    lines += [p.format() for p in positions]
    lines += [r.format() for r in results]
    return "\n".join(lines)


# --------------------------------------------------------------------------- which pairs a probe perturbs


class ProbeTarget(NamedTuple):
    record: RunRecord
    item: EvalItem
    constraint: Constraint
    swapped_output: str | None  # position: the two outputs shown the other way round
    swapped_item: EvalItem | None = None  # position: the item as shown with them (LLMBar quotes them in its input)


def _swapped(db: sqlite_utils.Database, record: RunRecord, item: EvalItem) -> tuple[str, EvalItem] | None:
    row = db.execute("SELECT shown_ba FROM pairwise_outputs WHERE run_record_id = ?", [record.id]).fetchone()
    if row is not None:
        return row[0], item  # `judge --pairwise` pairs: recorded when the pair was made; the item quotes neither
    value = item.input
    if isinstance(value, dict) and set(value) == set(PAIR_SWAP) and all(isinstance(v, str) for v in value.values()):
        # An LLMBar pair (review/_llmbar.py): both outputs are in the item's input as well as in the record's output.
        swapped_input = {"output_1": value["output_2"], "output_2": value["output_1"]}
        return (run_output(value["output_2"], value["output_1"]),
                item.model_copy(update={"input": swapped_input}))
    return None


def probe_targets(db: sqlite_utils.Database, kind: str, *, sample: int | None = None, seed: int = 0,
                  constraint: str | None = None) -> list[ProbeTarget]:
    """The pairs a probe perturbs: the counted (randomly sampled, human-labelled) pairs the probe applies to —
    position: pairwise pairs with both orders known; verbosity: pass/fail pairs; injection: pass/fail pairs whose
    every blind first human label is fail; consistency: all — or `sample` of them drawn with `seed` (the same seed,
    the same pairs). Raises ValueError saying why when none qualifies."""
    if kind not in PROBES:
        raise ValueError(f"unknown probe {kind!r}: one of {', '.join(PROBES)}")
    counted = counted_pairs(db).pairs
    # the labels that count: each reviewer's blind first label, as agreement reads them (standing labels include
    # changes made after the reveal, which chose the injection probe's pairs: a review, wave 15)
    labels: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in kept_blind_first(db).rows:
        labels[(row["run_record_id"], row["constraint_id"])].add(row["label"])
    targets: list[ProbeTarget] = []
    for record, item, c in semantic_pairs(db, constraint_id=constraint):
        if (record.id, c.id) not in counted:
            continue
        swapped = (None, None)
        if kind == "position":
            if set(c.labels) != set(PAIR_SWAP) or (found := _swapped(db, record, item)) is None:
                continue
            swapped = found
        elif kind in ("verbosity", "injection") and PASS not in c.labels:
            continue
        if kind == "injection" and labels.get((record.id, c.id)) != {"fail"}:
            continue
        targets.append(ProbeTarget(record, item, c, *swapped))
    if not targets:
        if constraint is not None:
            # (a scan of the constraints, on this path only) "label the random sample first" sent a typo to review,
            # and a mechanical constraint there too (a review of the fix): probes judge semantic constraints
            semantic = db.execute("SELECT max(check_json IS NULL) FROM constraints WHERE id = ?",
                                  [constraint]).fetchone()[0]
            if semantic is None:
                raise ValueError(f"constraint {constraint!r} does not exist: no eval item of this project has a "
                                 "constraint with that id")
            if not semantic:
                raise ValueError(f"constraint {constraint!r} is a mechanical check (settled by `judgecal check`): a "
                                 "probe perturbs what the judge scores, the semantic constraints")
        need = {"position": "counted pairwise pairs (labels output_1/output_2: `import llmbar`, `judge --pairwise`)",
                "verbosity": "counted pass/fail pairs", "injection": "counted pass/fail pairs humans labelled fail",
                "consistency": "counted pairs"}[kind]
        raise ValueError(f"nothing to probe: the {kind} probe runs on {need}; label the random sample first "
                         "(judgecal sample, then review)")
    targets.sort(key=lambda t: (t.record.id, t.constraint.id))
    if sample is not None and sample < len(targets):
        targets = sorted(random.Random(seed).sample(targets, sample), key=lambda t: (t.record.id, t.constraint.id))
    return targets


# --------------------------------------------------------------------------- the gate's probe limits


def _gated_versions(db: sqlite_utils.Database, rubric: str | None, model: str | None) -> list[tuple[str, str, str]]:
    """(judge model, rubric sha256, name vN): the latest version of each rubric name per judge model among the stored
    verdicts — the version whose kappa the gate checks — else, for a rubric name × judge model never judged, among
    the probes; filtered as `gate`. A probed but never judged newer version must not stand in for the judged one
    (a hardened wording probed clean would pass the gate for the version in use)."""
    shas = match_rubrics(db, rubric)
    best: dict[tuple[str, str], tuple[int, int, str]] = {}
    for judged, judge, sha, name, version in db.execute(
            "SELECT DISTINCT g.judged, g.judge_model, g.rubric_sha256, r.name, r.version FROM"
            " (SELECT 1 AS judged, judge_model, rubric_sha256 FROM verdicts UNION SELECT 0, judge_model, rubric_sha256"
            " FROM probe_verdicts) g JOIN rubrics r ON r.sha256 = g.rubric_sha256"):
        if (shas is not None and sha not in shas) or (model is not None and judge != model):
            continue
        if (judge, name) not in best or (judged, version) > best[(judge, name)][:2]:
            best[(judge, name)] = (judged, version, sha)
    return [(judge, sha, f"{name} v{version}") for (judge, name), (_, version, sha) in sorted(best.items())]


def _measured(kind: str, result: ProbeResult | None,
              stored: VerdictPosition | None) -> list[tuple[str, str, tuple[float, float] | None, int]]:
    """(what was measured, where from and the settings it was asked with, the interval the gate reads, incomplete
    pairs) of each source the gate reads for one probe kind × rubric version × judge model: the probe, and for
    position the stored pairwise verdicts as well."""
    out = []
    if result is not None:
        shown = result.position.format() if result.position else f"{result.measures} {result.rate.format()}"
        if kind == "consistency":  # which wordings the rate is over (a paraphrase is named by its sha256)
            shown += "; paraphrases " + ", ".join(v.partition(":")[2][:12] or v for v in result.by_variant)
        out.append((shown, f"`judgecal probe {kind}`, {asked_with(result.settings)}", result.bounds,
                    result.incomplete))
    if kind == "position" and stored is not None:
        out.append((stored.bias.format(), f"stored pairwise verdicts, {asked_with(stored.settings)}",
                    stored.bias.worst_bounds, stored.bias.incomplete))
    return out


def probe_gate_checks(db: sqlite_utils.Database, limits: dict[str, float | None], *, rubric: str | None = None,
                      model: str | None = None) -> list[GateCheck]:
    """One check per given limit (keys of PROBE_LIMITS) and gated rubric version × judge model. The rate's 95%
    interval bound that makes the check conservative must meet the limit: the upper bound for the flip rates; for
    position bias the whole interval must lie within [1 − limit, limit] (a judge biased to the second position is
    biased too). Position bias is read from the position probe and from the version's stored pairwise verdicts: with
    both, both must hold. Each reason names the settings the judge was asked with. A limit with nothing measured
    fails and says why."""
    wanted = {flag: value for flag, value in limits.items() if value is not None}
    unknown = set(wanted) - set(PROBE_LIMITS)
    if unknown:
        raise ValueError(f"unknown probe limit(s): {', '.join(sorted(unknown))}")
    if wanted.get("max_position_bias", 1.0) < 0.5:
        raise ValueError(f"--max-position-bias {wanted['max_position_bias']:g}: a first-position rate limit is at "
                         "least 0.5 (the interval must lie within [1 − limit, limit]; 0.55 allows 5 points either way)")
    if not wanted:
        return []
    results = {(r.probe, r.rubric_sha256, r.judge_model): r for r in probe_results(db, rubric=rubric, model=model)}
    positions = {(p.rubric_sha256, p.judge_model): p for p in verdict_position_bias(db, rubric=rubric, model=model)}
    versions = _gated_versions(db, rubric, model)
    checks: list[GateCheck] = []
    if not versions:
        return [GateCheck("(project)", "probe", None, None, False,
                          "probe limits given but nothing has been judged or probed")]
    for flag, limit in wanted.items():
        kind = PROBE_LIMITS[flag]
        for judge, sha, label in versions:
            name = f"{judge} · {label} · {kind}"
            sources = _measured(kind, results.get((kind, sha, judge)), positions.get((sha, judge)))
            if not sources:
                checks.append(GateCheck(name, "probe", None, limit, False,
                                        f"--{flag.replace('_', '-')} {limit:g} given but no {kind} probe was run "
                                        f"for this rubric version and judge model: run `judgecal probe {kind}`"))
                continue
            # Every source must hold: a position probe read alone replaced the stored pairwise verdicts, and one
            # asked at temperature 0 passed a judge that picked the first-shown output at 1.0 (a review, wave 17)
            values, oks, whys = [], [], []
            for shown, source, bounds, incomplete in sources:
                if bounds is None:
                    oks.append(False)
                    whys.append(f"{shown} (from {source}): nothing measured (n = 0), so the limit cannot be shown "
                                "to hold")
                    continue
                low, high = bounds
                if kind == "position":
                    value = max(high, 1 - low)
                    ok = value <= limit
                    worst = " (incomplete pairs counted as order-inconsistent, the worse way)" if incomplete else ""
                    whys.append(f"{shown} (from {source}): 95% interval [{low:.3f}, {high:.3f}]{worst} "
                                f"{'within' if ok else 'not within'} [{1 - limit:.3f}, {limit:.3f}]")
                else:
                    value = high
                    ok = value <= limit
                    whys.append(f"{shown} (from {source}): upper 95% bound {high:.3f} (incomplete pairs counted as "
                                f"flipped) {'≤' if ok else '>'} {limit:g}")
                values.append(value)
                oks.append(ok)
            value = max(values) if values else None
            why = "; ".join(whys) if len(whys) == 1 else "both must hold: " + "; and ".join(whys)
            checks.append(GateCheck(name, "probe", None if value is None or math.isnan(value) else value, limit,
                                    all(oks), why))
    return checks


__all__ = ["PROBES", "PositionBias", "ProbeResult", "ProbeTarget", "probe_targets", "VerdictPosition", "binomial_p", "format_probes",
           "position_bias", "probe_gate_checks", "probe_results", "verdict_position_bias"]
