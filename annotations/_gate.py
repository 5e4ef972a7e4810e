"""The CI gate: a build passes only when the judge has been verified and agrees with the humans well enough.

Checked, for the latest version of each rubric (per judge model) unless `rubric` names another:
- coverage: every stratum (constraint × model under test × rubric version) has judged every semantic pair of its
  constraint × model (the population the version will be used on) and the counted prefix of the draw order holds
  ceil(min_coverage × population) pairs (see annotations._sampling). Always checked: no unverified judge may gate
  a build.
- kappa: judge (majority over repeats; a tie or no valid repeat is an abstention, i.e. a disagreement) vs human on
  the random sample, design-weighted by N_s / n_s, overall per judge model × rubric version (per label set when the
  group mixes label sets: a pooled kappa rewards always answering a set's first label), or per constraint when
  `constraints` are given; a revision (a version with a parent) is read on the counted pairs labelled after it was
  created, which it cannot have been tuned on (`verified_on` names them). By default the LOWER bound of the shown 95% interval (`annotations.agreement.
  kappa_interval`) must reach the threshold (`on="point"` compares the point estimate, the old behaviour), and a
  gated slice needs at least `min_n` compared pairs: at n = 20 a judge with true kappa 0.49 passed a point-estimate
  gate at 0.6 29% of the time. An undefined kappa or interval fails (with its reason).
- pass rate (optional): the judge-corrected (prediction-powered) pass rate of each model under test, its lower
  bound by default (the point estimate with `on="point"`).
- human vs human: never fails, but says whether there is an overlap to read the threshold against.
Nothing judged at all fails too.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import sqlite_utils

from annotations._calibration import CalibrationReport, JudgeGroup, _clean, calibration_report

#: Compared pairs a gated slice needs (`judgecal gate --min-n`). Below 30 the shown interval is labelled approximate
#: (annotations.agreement.MIN_N_INTERVAL) and its coverage depends on the table's shape.
DEFAULT_MIN_N = 30
GATE_ON = ("lower", "point")


@dataclass(frozen=True)
class GateCheck:
    stratum: str
    check: str  # coverage | kappa | pass_rate | judged | human_human (information only: always ok)
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
    report = calibration_report(db, rubric=rubric, model=model, constraint=constraints or None, rate=min_coverage)
    groups = latest_groups(report)
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
        slices = g.by_constraint if constraints else (g.verification or g.headline)
        for s in slices:
            checks.append(_kappa_check(f"{where} · {s.slice}", s, min_kappa, on, min_n,
                                       g.verified_on, bool(g.verification)))
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
                                        f"{'≥' if ok else '<'} {min_pass_rate} (judge alone: {p.judge_pass_rate:.3f})"))
    if groups:
        checks.append(_human_human_check(report))
    return GateResult(tuple(checks))


def _on_word(on: str) -> str:
    return "lower bound" if on == "lower" else "point estimate"


def _kappa_check(name: str, s: Any, min_kappa: float, on: str, min_n: int, verified_on: str,
                 revision: bool) -> GateCheck:
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
    ok = value >= min_kappa
    return GateCheck(name, "kappa", value, min_kappa, ok,
                     f"kappa {a.kappa:.3f} {ci} on {a.n} random pairs ({weighted}); {_on_word(on)} {value:.3f} "
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
    lines = [f"{('info' if c.check == 'human_human' else 'ok  ') if c.ok else 'FAIL'}  {c.check:<9}  {c.stratum}: "
             f"{c.reason}" for c in result.checks]
    lines.append(f"gate {'passed' if result.passed else 'FAILED'}: {len(result.failures)} of {len(result.checks)} "
                 "checks failed")
    return "\n".join(lines)


__all__ = ["DEFAULT_MIN_N", "GATE_ON", "GateCheck", "GateResult", "format_gate", "latest_groups", "run_gate"]
