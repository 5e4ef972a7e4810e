"""The CI gate: a build passes only when the judge has been verified and agrees with the humans well enough.

Checked, for the latest version of each rubric (per judge model) unless `rubric` names another:
- coverage: every stratum (constraint × model under test × rubric version) has judged every semantic pair of its
  constraint × model (the population the version will be used on) and the counted prefix of the draw order holds
  ceil(min_coverage × population) pairs (see annotations.review._sampling). Always checked: no unverified judge may gate
  a build.
- kappa: judge (majority over repeats; a tie or no valid repeat is an abstention, i.e. a disagreement) vs human on
  the random sample, design-weighted by N_s / n_s, overall per judge model × rubric version (per label set when the
  group mixes label sets: a pooled kappa rewards always answering a set's first label), or per constraint when
  `constraints` are given; a revision (a version with a parent) is read on the counted pairs labelled after it was
  created, which it cannot have been tuned on (`verified_on` names them). By default the LOWER bound of the shown 95% interval (`annotations.stats.
  kappa_interval`) must reach the threshold (`on="point"` compares the point estimate, the old behaviour), and a
  gated slice needs at least `min_n` compared pairs: at n = 20 a judge with true kappa 0.49 passed a point-estimate
  gate at 0.6 29% of the time. An undefined kappa or interval fails (with its reason). When `rubric` narrows the gate
  to some of the rubric versions the project has judged with, the one gated was chosen among them on the same
  labels, so its lower bound is Bonferroni-adjusted over those versions (`versions_judged`): 1 - 0.05 / K.
- pass rate (optional): the judge-corrected (prediction-powered) pass rate of each model under test, its lower
  bound by default (the point estimate with `on="point"`).
- human vs human: never fails, but says whether there is an overlap to read the threshold against.
Nothing judged at all fails too.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple, Sequence

import sqlite_utils

from judgecal.evalsets import PASS_FAIL
from judgecal.annotations.reports._calibration import (
    CalibrationReport, GateParts, JudgeGroup, Pair, _clean, _verification, common_repeats,
    counted_rules, gate_report, human_labels_by_pair, load_verdicts, match_rubrics, pair_info, ppi_pass_rate,
    ppi_prediction,
)
from judgecal.annotations.review import named_seeds_note
# The run gate's helpers (the run comparison module, the run records and items with their models) load when a run is
# gated (`gate --run`), not for the calibration gate, the common CI call (issue 16.2, start-up).

#: Compared pairs a gated slice needs (`judgecal gate --min-n`). Below 30 the shown interval is labelled approximate
#: (annotations.stats.MIN_N_INTERVAL) and its coverage depends on the table's shape.
DEFAULT_MIN_N = 30
GATE_ON = ("lower", "point")
#: gate flag -> probe kind (here, not in _probes: `gate` without a probe limit does not load the probes module)
PROBE_LIMITS = {"max_position_bias": "position", "max_verbosity_flip": "verbosity",
                "max_injection_flip": "injection", "max_inconsistency": "consistency"}


INFO_CHECKS = ("human_human", "seed")  # checks that only inform: always ok, printed as "info"


@dataclass(frozen=True)
class GateCheck:
    stratum: str
    check: str  # coverage | kappa | pass_rate | judged | human_human, seed (information only: always ok); the run
    # gate's: items | errors | checks | pass_rate
    value: float | None
    threshold: float | None
    ok: bool
    reason: str


@dataclass(frozen=True)
class GateResult:
    checks: tuple[GateCheck, ...]

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failures(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def to_dict(self) -> dict[str, Any]:
        return _clean({"passed": self.passed, "checks": [asdict(c) for c in self.checks]})


def latest_groups(report: CalibrationReport) -> list[JudgeGroup]:
    """The latest rubric version of each rubric name, per judge model."""
    best: dict[tuple[str, str], JudgeGroup] = {}
    for g in report.groups:
        key = (g.judge_model, g.rubric_name)
        if key not in best or g.rubric_version > best[key].rubric_version:
            best[key] = g
    return list(best.values())


def run_gate(db: sqlite_utils.Database, *, min_kappa: float, min_coverage: float = 0.10,
             min_pass_rate: float | None = None, constraints: Sequence[str] | None = None,
             rubric: str | None = None, model: str | None = None, on: str = "lower",
             min_n: int = DEFAULT_MIN_N) -> GateResult:
    """Run every check (see the module docstring). `on` is "lower" (the interval's lower bound must reach the
    thresholds) or "point"; `min_n` is the fewest compared random pairs a gated slice may rest on."""
    if on not in GATE_ON:
        raise ValueError(f"on must be one of {', '.join(GATE_ON)}, got {on!r}")
    if min_n < 1:
        raise ValueError(f"min_n must be at least 1, got {min_n}")
    # only what the checks below read (`gate_report`: the latest versions' slices, gaps and rates, coverage)
    report = gate_report(db, GateParts(pass_rates=min_pass_rate is not None),
                         rubric=rubric, model=model, constraint=constraints or None, rate=min_coverage)
    groups = latest_groups(report)
    # `--rubric` chose the gated version among every version judged here: candidates registered before the labels
    # (`judge --limit 1`), each verified on all of them, and the best one named (left open by wave 17's review of
    # rubric comparison). Without `--rubric` the latest version of every name is gated, so nothing was chosen.
    multiplicity = _multiplicity(versions_judged(db)) if rubric is not None else None
    # each named constraint's own groups: the report above when it names one, else one report per constraint
    names = list(dict.fromkeys(constraints or ()))
    per_constraint = ([(names[0], groups)] if len(names) == 1 else
                      [(c, latest_groups(gate_report(db, GateParts(pass_rates=False), rubric=rubric, model=model,
                                                     constraint=[c], rate=min_coverage))) for c in names])
    checks: list[GateCheck] = []
    if not groups:
        checks.append(GateCheck("(project)", "judged", None, None, False,
                                "no judge verdicts match: nothing has been judged and verified"))
    shas = {g.rubric_sha256 for g in groups}
    for c in report.coverage:
        if c.rubric_sha256 not in shas:
            continue
        size = c.population or c.judged
        checks.append(GateCheck(
            c.stratum, "coverage", c.labelled / size if size else math.nan, min_coverage, c.ok,
            f"{c.labelled} of {c.judged} judged pairs labelled in the random sample, {c.needed} needed "
            f"({min_coverage:.0%} quota of {size} semantic pairs)"
            + ("" if c.ok else ": " + "; ".join(
                ([f"{c.needed - c.labelled} more labels needed"] if c.labelled < c.needed else [])
                + ([c.reason] if c.reason else [])))))
    for g in groups:
        where = f"{g.judge_model} · {g.rubric_name} v{g.rubric_version}"
        for gap in g.population_gaps:
            checks.append(GateCheck(
                f"{gap.constraint_id}|{gap.model}|{g.rubric_sha256[:12]} · {g.judge_model}", "coverage",
                gap.judged / gap.population, None, False,
                f"judge model {g.judge_model} judged {gap.judged} of the {gap.population} semantic pairs of "
                f"{gap.constraint_id} × {gap.model} with this rubric version: a judge model × version is gated on "
                "the population it will be used on; judge them all (`judgecal judge` without --only-labelled)"))
        if not constraints:
            for s in g.verification or g.headline:
                checks.append(_kappa_check(f"{where} · {s.slice}", s, min_kappa, on, min_n,
                                           g.verified_on, bool(g.verification), multiplicity))
        for c, of_c in per_constraint:
            # each named constraint gated as the whole judge is: on the pairs that verify the version, per label
            # set when its pairs mix sets (its `constraint:` slice counted every pair, so a revision tuned on the
            # labels passed `gate --constraint`, and a label set with no labelled pair hid in the constraint's)
            cg = next((x for x in of_c if (x.judge_model, x.rubric_sha256) == (g.judge_model, g.rubric_sha256)), None)
            if cg is None:
                continue  # this judge model × version did not judge the constraint (another did, or none: below)
            for s in cg.verification or cg.headline:
                name = f"{where} · constraint:{c}" + ("" if s.slice == "overall" else f" · {s.slice}")
                checks.append(_kappa_check(name, s, min_kappa, on, min_n, cg.verified_on, bool(cg.verification),
                                           multiplicity))
        if min_pass_rate is not None:
            for p in g.pass_rates:
                name = f"{where} · model {p.model}"
                value = p.ppi_estimate if on == "point" else p.ppi_ci_low
                if math.isnan(value):
                    what = "corrected pass rate" if math.isnan(p.ppi_estimate) else "its lower bound"
                    checks.append(GateCheck(name, "pass_rate", None, min_pass_rate, False,
                                            f"{what} is undefined: {p.reason}"))
                    continue
                ok = value >= min_pass_rate
                checks.append(GateCheck(name, "pass_rate", value, min_pass_rate, ok,
                                        f"corrected pass rate {p.ppi_estimate:.3f} [{p.ppi_ci_low:.3f}, "
                                        f"{p.ppi_ci_high:.3f}] ({p.method}): {_on_word(on)} {value:.3f} "
                                        f"{'≥' if ok else '<'} {min_pass_rate} (judge alone: "
                                        + ("none, every judged pair errored or tied)" if p.judge_abstained
                                           else f"{p.judge_pass_rate:.3f})")))
    gated = {(g.judge_model, g.rubric_sha256) for g in groups}
    for c, of_c in per_constraint:
        if groups and not any((x.judge_model, x.rubric_sha256) in gated for x in of_c):
            checks.append(GateCheck(f"(project) · constraint:{c}", "kappa", None, min_kappa, False,
                                    "no gated judge model and rubric version has a verdict on this constraint"))
    if min_pass_rate is not None and groups:
        # a model under test with no corrected pass rate in any gated group (it has no judged pass/fail pair) cannot
        # meet the threshold: it fails, saying why (it was skipped without a word, and the gate passed: a review,
        # wave 14)
        rated = {p.model for g in groups for p in g.pass_rates}
        shas = {g.rubric_sha256 for g in groups}
        for m in sorted({c.model for c in report.coverage if c.rubric_sha256 in shas} - rated):
            checks.append(GateCheck(f"(project) · model {m}", "pass_rate", None, min_pass_rate, False,
                                    "no pass/fail semantic constraint of this model under test was judged: its "
                                    "corrected pass rate cannot be evaluated against --min-pass-rate"))
    if groups:
        checks.append(_human_human_check(report))
    if groups and report.named_seeds:
        checks.append(GateCheck("(project)", "seed", None, None, True, named_seeds_note(report.named_seeds)))
    return GateResult(tuple(checks))


def _on_word(on: str) -> str:
    return "lower bound" if on == "lower" else "point estimate"


def versions_judged(db: sqlite_utils.Database) -> int:
    """The rubric versions with a verdict on a run record that is not a `judge --pairwise` pair record: every
    version a `--rubric` gate could have chosen among (an error row counts: the version was asked). One index probe
    per version (`verdicts_stratum` leads with the rubric)."""
    from judgecal.annotations.reports._pairwise import PAIR_RUN_PREFIX  # noqa: PLC0415 (as the run gate's)

    return db.execute(
        "SELECT count(*) FROM rubrics r WHERE EXISTS (SELECT 1 FROM verdicts v JOIN run_records rr"
        " ON rr.id = v.run_record_id WHERE v.rubric_sha256 = r.sha256 AND NOT coalesce(rr.run_id, '') GLOB ?)",
        [PAIR_RUN_PREFIX + "*"]).fetchone()[0]


class Multiplicity(NamedTuple):
    """A Bonferroni adjustment of the kappa lower bound over `versions` candidates: the normal quantile `z` of
    1 - 0.05 / (2 versions) and the interval's level."""

    versions: int
    z: float
    level: float


def _multiplicity(versions: int) -> Multiplicity | None:
    if versions <= 1:
        return None
    from statistics import NormalDist  # noqa: PLC0415 (no scipy at gate start-up)

    return Multiplicity(versions, NormalDist().inv_cdf(1 - 0.025 / versions), 1 - 0.05 / versions)


def _adjusted_low(a: Any, m: Multiplicity) -> float:
    """The lower bound of `a`'s kappa interval (`kappa_interval`, the same method and effective size) at the adjusted
    level: from the agreement's confusion table scaled to its effective size, as the report computes the 95% one
    (a design-weighted table is stored rounded to 6 decimals, so its bound is as exact as that). Never above the
    95% bound."""
    import numpy as np  # noqa: PLC0415

    from judgecal.annotations.stats import kappa_interval  # noqa: PLC0415

    table = np.asarray(a.confusion, dtype=float)
    iv = kappa_interval(table * (a.n_effective / table.sum()), labels=a.labels, z=m.z)
    return iv.low if math.isnan(a.kappa_ci_low) else min(iv.low, a.kappa_ci_low)


def _kappa_check(name: str, s: Any, min_kappa: float, on: str, min_n: int, verified_on: str,
                 revision: bool, multiplicity: Multiplicity | None = None) -> GateCheck:
    a, u = s.headline, s.majority
    failures = f"{s.excluded_tie} ties and {s.excluded_no_valid} pairs without a valid repeat counted as disagreements"
    errors = f"{s.verdict_errors} of {s.verdict_rows} verdict rows were judge errors"
    if a is None:
        return GateCheck(name, "kappa", None, min_kappa, False,
                         "no human-labelled random pair to compare"
                         + (f" among the pairs that verify it: {verified_on}; label the next random pairs "
                            "(`judgecal sample --rate` higher, then review)" if revision else ""))
    if a.n < min_n:
        return GateCheck(name, "kappa", None, min_kappa, False,
                         f"only {a.n} compared random pairs, {min_n} needed per gated slice (--min-n): label "
                         f"{min_n - a.n} more random pairs, or the slice rests on too few to gate a build")
    if math.isnan(a.kappa):
        return GateCheck(name, "kappa", None, min_kappa, False, f"kappa is undefined: {a.kappa_reason}")
    if math.isnan(a.kappa_ci_low):
        ci = f"(CI undefined: {a.kappa_reason.removeprefix('the CI is undefined: ')})"
    else:
        ci = (f"[{a.kappa_ci_low:.2f}, {a.kappa_ci_high:.2f}] ({a.kappa_ci_method}"
              + (", approximate" if a.kappa_ci_approximate else "") + ")")
    weighted = (f"design-weighted, n_eff {a.n_effective:.1f}; unweighted {u.kappa:.3f}"
                if a.design_weighted and u is not None else "unweighted")
    value = a.kappa if on == "point" else a.kappa_ci_low
    if math.isnan(value):
        return GateCheck(name, "kappa", None, min_kappa, False,
                         f"kappa {a.kappa:.3f} {ci} on {a.n} random pairs: no lower bound to compare "
                         "(`--on point` compares the point estimate)")
    compared = _on_word(on)
    if multiplicity is not None and on == "lower":
        value = _adjusted_low(a, multiplicity)
        compared = (f"{multiplicity.level:.2%} lower bound (Bonferroni over the {multiplicity.versions} rubric "
                    "versions judged in this project: --rubric chose this one among them)")
        if math.isnan(value):
            return GateCheck(name, "kappa", None, min_kappa, False,
                             f"kappa {a.kappa:.3f} {ci} on {a.n} random pairs: no {compared} to compare")
    ok = value >= min_kappa
    return GateCheck(name, "kappa", value, min_kappa, ok,
                     f"kappa {a.kappa:.3f} {ci} on {a.n} random pairs ({weighted}); {compared} {value:.3f} "
                     f"{'≥' if ok else '<'} {min_kappa}; {failures}; {errors}; verified on {verified_on}")


def _human_human_check(report: CalibrationReport) -> GateCheck:
    overall = next((h for h in report.human_human if h.slice == "overall" and h.agreement is not None), None)
    if overall is None:
        return GateCheck("(project)", "human_human", None, None, True,
                         "no human–human overlap: no pair has blind labels from two reviewers, so nothing says how "
                         "far humans agree with each other (the ceiling the judge's kappa should be read against); "
                         "draw an overlap share (`judgecal sample --overlap`) for a second reviewer")
    # Per label set when the overlap pairs mix sets, as the judge's kappa is gated: the pooled ceiling (1.000 [0.65,
    # 1.00] on the demo's 15 pairs) hid that 4 of them are all there is for the refusal set ([-0.31, 1.00]).
    per_set = [h for h in report.human_human if h.slice.startswith("labels:") and h.agreement is not None]
    parts = []
    for h in per_set or [overall]:
        a = h.agreement
        k = "undefined" if math.isnan(a.kappa) else f"{a.kappa:.3f}"
        ci = "" if math.isnan(a.kappa_ci_low) else f" [{a.kappa_ci_low:.2f}, {a.kappa_ci_high:.2f}]"
        parts.append(f"{k}{ci} on {h.overlap_pairs} overlap pairs" + (f" ({h.slice})" if per_set else ""))
    a = overall.agreement
    return GateCheck("(project)", "human_human", None if math.isnan(a.kappa) else a.kappa, None, True,
                     f"human vs human kappa {'; '.join(parts)} (the ceiling)")


def format_gate(result: GateResult) -> str:
    lines = [f"{('info' if c.check in INFO_CHECKS else 'ok  ') if c.ok else 'FAIL'}  {c.check:<9}  {c.stratum}: "
             f"{c.reason}" for c in result.checks]
    lines.append(f"gate {'passed' if result.passed else 'FAILED'}: {len(result.failures)} of {len(result.checks)} "
                 "checks failed")
    return "\n".join(lines)




# --------------------------------------------------------------------------- the run gate (did this run regress?)

#: What `run_pass_gate` can check (`judgecal gate --run`).
RUN_GATE_KEYS = ("min_pass_rate", "min_check_pass_rate", "max_error_rate")


class Rate(NamedTuple):
    passed: int
    total: int


class TransferredRate(NamedTuple):
    """A run's pass rate over its mechanical checks and its pass/fail semantic pairs, the semantic part corrected
    with the judge's errors measured on its verification pairs (possibly of other runs): no new label needed."""

    estimate: float
    low: float
    high: float
    method: str
    judge_model: str
    rubric_sha256: str
    rubric_label: str  # name vN
    verified_on: str
    n_semantic: int  # the run's pass/fail semantic pairs
    n_judged: int  # ... judged by that version
    n_verification: int  # counted human-labelled pairs the judge's errors are measured on
    mechanical: Rate
    verification_scope: str = ""  # whose outputs those pairs are


def _mechanical(records: list[Any], items: dict[str, Any]) -> Rate:
    from judgecal.annotations.reports._runs import constraint_passed  # noqa: PLC0415 (see the module's imports)

    """Passed / run mechanical checks of the records (a failed record fails them all, as in `compare`)."""
    outcomes = [bool(constraint_passed(rec, c, None)) for rec in records for c in items[rec.item_id].constraints
                if c.check is not None]
    return Rate(sum(outcomes), len(outcomes))


def _run_version(db: sqlite_utils.Database, run_pairs: set[Pair], rubric: str | None, model: str | None
                 ) -> tuple[str, str, dict[Pair, Any]] | None:
    """(judge model, rubric sha, verdicts) of the judge version the run gate reads: the latest version of each rubric
    name per judge model that judged the run's pairs, the one that judged most of them (as
    `judge_corrected_pass_rate` picks)."""
    rubric_rows = {r[0]: r for r in db.execute("SELECT sha256, name, version FROM rubrics")}
    best: dict[tuple[str, str], tuple[int, str, dict[Pair, Any]]] = {}
    for (jm, sha), verdicts in load_verdicts(db, rubrics=match_rubrics(db, rubric), model=model).items():
        mine = {p: v for p, v in verdicts.items() if p in run_pairs}
        key = (jm, rubric_rows[sha][1])
        if mine and (key not in best or rubric_rows[sha][2] > best[key][0]):
            best[key] = (rubric_rows[sha][2], sha, mine)
    if not best:
        return None
    (jm, _name), (_v, sha, verdicts) = max(best.items(), key=lambda kv: (len(kv[1][2]), kv[1][0]))
    return jm, sha, verdicts


def transferred_pass_rate(db: sqlite_utils.Database, run_id: str, *, rubric: str | None = None,
                          model: str | None = None) -> tuple[TransferredRate | None, str]:
    """The run gate's pass rate (see `TransferredRate`) and, when it is None, why.

    PPI with the labelled pairs drawn from the judge version's verification (the counted random pairs with a blind
    first label, judged by the same judge model × rubric version; for a revision only those labelled after it was
    created, as in the calibration report) and the unlabelled ones being this run's pairs: theta = mean(judge on the
    run) + post-stratified mean(human - judge on the verification pairs). This transfers the judge's error rates
    from the verification pairs to the run, which is the assumption that lets a CI gate run without new labels; the
    judge gate (`judgecal gate`) is what says those error rates are known well enough."""
    from judgecal.annotations.store import iter_runs, load_items  # noqa: PLC0415 (see the module's imports)

    records = list(iter_runs(db, where="run_id = ?", params=[run_id]))
    if not records:
        raise ValueError(f"no run records with run_id {run_id!r}")
    items = load_items(db)
    mechanical = _mechanical(records, items)
    mech = list(mechanical)
    run_pairs = {(rec.id, c.id) for rec in records for c in items[rec.item_id].constraints
                 if c.check is None and c.labels == PASS_FAIL}
    if not run_pairs:
        if not mech[1]:
            return None, "the run has no mechanical check and no pass/fail semantic constraint"
        r = mech[0] / mech[1]
        return TransferredRate(r, r, r, "mechanical checks only", "", "", "", "", 0, 0, 0, mechanical), ""
    chosen = _run_version(db, run_pairs, rubric, model)
    if chosen is None:
        return None, (f"none of the run's {len(run_pairs)} semantic pairs has been judged: judge the run "
                      f"(`judgecal judge --run-id {run_id}`) with the verified rubric first")
    jm, sha, verdicts = chosen
    name, version, created, parent = db.execute(
        "SELECT name, version, created_at, parent_sha256 FROM rubrics WHERE sha256 = ?", [sha]).fetchone()
    label = f"{name} v{version}"
    failed_records = {rec.id for rec in records if rec.failed}
    # A failed record fails every constraint: it needs no judge (constraint_passed), so it is not "unjudged".
    unjudged = sorted(p for p in run_pairs if p not in verdicts and p[0] not in failed_records)
    if unjudged:
        return None, (f"{jm} · {label} judged {len(run_pairs) - len(unjudged)} of the run's {len(run_pairs)} semantic "
                      f"pairs: a pass rate over part of the run is not the run's; judge the rest (first missing: "
                      f"{unjudged[0][0]} × {unjudged[0][1]})")
    # the judge run on the whole population: no extra repeats on the labelled pairs (`common_repeats`)
    all_verdicts, _ = common_repeats(load_verdicts(db, rubrics={sha}, model=jm).get((jm, sha), {}))
    labels_by_pair = human_labels_by_pair(db)
    rules = counted_rules(db)
    counted = frozenset(p for p, r in rules.items() if "random" in r)
    pairs = [p for p in all_verdicts if p in labels_by_pair]
    verified_on, fresh = _verification(sha, created, {sha: parent}, pairs, labels_by_pair, counted)
    info = pair_info(db)
    run_constraints = {p[1] for p in run_pairs}  # the strata: a pair of another constraint says nothing here
    verification = [p for p in pairs if p in counted and (fresh is None or p in fresh) and p in info
                    and info[p].labels == PASS_FAIL and p[1] in run_constraints]
    # A judge's errors depend on what it reads (a constant "pass" judge is wrong exactly as often as the model under
    # test fails): measure them on the same model(s) under test when their outputs were labelled, else say so.
    models = {rec.model for rec in records}
    same = [p for p in verification if info[p].model in models]
    scope = f"outputs of {', '.join(sorted(models))}"
    if not same:
        scope = (f"outputs of other models ({', '.join(sorted({info[p].model for p in verification})) or 'none'}); "
                 f"none of {', '.join(sorted(models))} is labelled, so the judge's errors are assumed to transfer")
    verification = same or verification
    judge_all, strata_all = [], []
    for p in sorted(run_pairs):
        judge_all.append(0.0 if p[0] in failed_records else ppi_prediction(verdicts[p].labels.values()))
        strata_all.append(p[1])
    judge_lab = [ppi_prediction(all_verdicts[p].labels.values()) for p in verification]
    human_lab = [int(labels_by_pair[p][0]["label"] == "pass") for p in verification]
    strata_lab = [p[1] for p in verification]
    pr = ppi_pass_rate(run_id, judge_all, judge_lab, human_lab, strata_all=strata_all, strata_lab=strata_lab)
    if math.isnan(pr.ppi_estimate) or math.isnan(pr.ppi_ci_low):
        return None, (f"the judge-corrected rate with {jm} · {label} is undefined ({pr.reason}); its verification "
                      f"({verified_on}) has {len(verification)} labelled pass/fail pairs: label the random sample "
                      "(`judgecal sample`, then review) and run the judge gate")
    sem = len(run_pairs)
    total = mech[1] + sem

    def whole(x: float) -> float:
        return (mech[0] + x * sem) / total

    return TransferredRate(whole(pr.ppi_estimate), whole(pr.ppi_ci_low), whole(pr.ppi_ci_high), pr.method, jm, sha,
                           label, verified_on, sem, len(verdicts), len(verification), mechanical, scope), ""


def _items_check(db: sqlite_utils.Database, where: str, run_id: str, records: list[Any]) -> GateCheck:
    """Every rate the run gate reads is over the run's items only when the run answered every item it was made on,
    each as many times: a run made with `--limit`, stopped early, or resumed on some items only was gated on the
    items it holds (the same hole as `compare`'s, found by a review, wave 17). The items a run is over: those a
    `judgecal run` selected by `--tag` / `--item` (recorded on its batches; `--limit` selects part of them, so it is
    not a scope), else the project's eval set now, less the A-vs-B items of `judge --pairwise`, which no run answers.
    An eval set that grew since the run fails here until the run is resumed (`judgecal run --run-id`)."""
    # (imported here as the run gate's other parts are: the judge gate never loads them)
    from judgecal.annotations.reports._pairwise import PAIR_SOURCE  # noqa: PLC0415
    from judgecal.annotations.reports._runs import uneven_records  # noqa: PLC0415

    per_item = Counter(r.item_id for r in records)
    scope, scope_name = _run_scope(db, run_id)
    eval_ids = [i for (i, source, tags) in db.execute("SELECT id, source, tags FROM eval_items ORDER BY seq")
                if source != PAIR_SOURCE and (scope is None or _in_scope(i, tags, scope))]
    missing = [i for i in eval_ids if i not in per_item]
    answered = len(eval_ids) - len(missing)
    share = answered / len(eval_ids) if eval_ids else 1.0
    of_scope = (f"of the eval set's {len(eval_ids)} items" if scope is None
                else f"of the {len(eval_ids)} items {scope_name} (the run's selection)")
    fewest, most = min(per_item.values()), max(per_item.values())
    if missing:
        return GateCheck(where, "items", share, 1.0, False,
                         f"the run answered {answered} {of_scope} (first missing: {missing[0]}): its rates are not "
                         f"theirs; answer the rest (a run made by `judgecal run` resumes with `--run-id {run_id}`; an "
                         "imported run needs its missing records imported)")
    if fewest != most:
        return GateCheck(where, "items", share, 1.0, False, "the run " + uneven_records(fewest, most))
    return GateCheck(where, "items", share, 1.0, True,
                     f"{answered} {of_scope} answered, {most} record{'s' if most != 1 else ''} each")


def _run_scope(db: sqlite_utils.Database, run_id: str) -> tuple[dict[str, set[str]] | None, str]:
    """The items a `judgecal run` selected ({"tags": ..., "item_ids": ...}, over all its batches) and how to name them
    ("tagged X or Y and 3 named"), or (None, "") when any batch selected the whole eval set or part of it by
    `--limit`, or the run was imported (no run batch)."""
    tags: set[str] = set()
    ids: set[str] = set()
    found = False
    for (settings,) in db.execute("SELECT settings FROM batches WHERE kind = 'run' AND json_extract(settings, "
                                  "'$.run_id') = ?", [run_id]):
        try:
            select = json.loads(settings or "{}").get("select")
        except ValueError:
            select = None
        if not isinstance(select, dict) or select.get("limit") is not None or not (
                select.get("tags") or select.get("item_ids")):
            return None, ""
        found = True
        tags |= set(select.get("tags") or ())
        ids |= set(select.get("item_ids") or ())
    if not found:
        return None, ""
    parts = ([f"tagged {' or '.join(sorted(tags))}"] if tags else []) + ([f"{len(ids)} named"] if ids else [])
    return {"tags": tags, "item_ids": ids}, " and ".join(parts)


def _in_scope(item_id: str, tags_json: str | None, scope: dict[str, set[str]]) -> bool:
    if item_id in scope["item_ids"]:
        return True
    try:
        tags = json.loads(tags_json or "[]")
    except ValueError:
        return False
    return bool(scope["tags"] & set(tags if isinstance(tags, list) else ()))


def run_pass_gate(db: sqlite_utils.Database, run_id: str, *, min_pass_rate: float | None = None,
                  min_check_pass_rate: float | None = None, max_error_rate: float | None = None,
                  rubric: str | None = None, model: str | None = None, on: str = "lower") -> GateResult:
    """The run gate: did this run (a PR's agent) regress? Reads the run's mechanical checks and its judge-corrected
    pass rate (`transferred_pass_rate`); never needs new labels, and never checks the judge itself (that is
    `run_gate`, the judge gate: run both in CI). Raises ValueError for an unknown run id or no limit at all."""
    if on not in GATE_ON:
        raise ValueError(f"on must be one of {', '.join(GATE_ON)}, got {on!r}")
    if min_pass_rate is None and min_check_pass_rate is None and max_error_rate is None:
        raise ValueError("the run gate needs a limit: --min-pass-rate, --min-check-pass-rate or --max-error-rate")
    from judgecal.annotations.reports._runs import require_run  # noqa: PLC0415 (see the module's imports)
    from judgecal.annotations.store import iter_runs, load_items  # noqa: PLC0415

    require_run(db, run_id)
    records = list(iter_runs(db, where="run_id = ?", params=[run_id]))
    where = f"run {run_id}"
    checks: list[GateCheck] = []
    if max_error_rate is not None:
        errors = sum(1 for r in records if r.error is not None)
        share = errors / len(records)
        ok = share <= max_error_rate
        checks.append(GateCheck(where, "errors", share, max_error_rate, ok,
                                f"{errors} of {len(records)} records ended in an error: {share:.3f} "
                                f"{'≤' if ok else '>'} {max_error_rate}"))
    rate, why = transferred_pass_rate(db, run_id, rubric=rubric, model=model)
    if min_check_pass_rate is not None:
        mech = rate.mechanical if rate is not None else _mechanical(records, load_items(db))
        if not mech.total:
            checks.append(GateCheck(where, "checks", None, min_check_pass_rate, False,
                                    "the run has no mechanical check to gate on"))
        else:
            value = mech.passed / mech.total
            ok = value >= min_check_pass_rate
            checks.append(GateCheck(where, "checks", value, min_check_pass_rate, ok,
                                    f"{mech.passed} of {mech.total} mechanical checks passed: {value:.3f} "
                                    f"{'≥' if ok else '<'} {min_check_pass_rate}"))
    if min_pass_rate is not None:
        if rate is None:
            checks.append(GateCheck(where, "pass_rate", None, min_pass_rate, False, why))
        else:
            value = rate.estimate if on == "point" else rate.low
            ok = value >= min_pass_rate
            source = ("" if not rate.judge_model else
                      f"; semantic pairs: {rate.n_semantic}, corrected with {rate.judge_model} · {rate.rubric_label} "
                      f"({rate.rubric_sha256[:12]}), whose errors are measured on {rate.n_verification} labelled pairs "
                      f"of its latest verification ({rate.verified_on}), {rate.verification_scope}")
            checks.append(GateCheck(where, "pass_rate", value, min_pass_rate, ok,
                                    f"pass rate {rate.estimate:.3f} [{rate.low:.3f}, {rate.high:.3f}] ({rate.method}; "
                                    f"mechanical {rate.mechanical.passed}/{rate.mechanical.total}{source}): "
                                    f"{_on_word(on)} {value:.3f} {'≥' if ok else '<'} {min_pass_rate}"))
    checks.append(_items_check(db, where, run_id, records))  # after the limits' checks, whichever were asked
    return GateResult(tuple(checks))


__all__ = [
    "DEFAULT_MIN_N", "GATE_ON", "PROBE_LIMITS", "RUN_GATE_KEYS", "GateCheck", "GateResult", "TransferredRate", "format_gate",
    "latest_groups", "run_gate", "run_pass_gate", "transferred_pass_rate",
]
