"""The CI gate: a build passes only when the judge has been verified and agrees with the humans well enough.

Checked, for the latest version of each rubric (per judge model) unless `rubric` names another:
- coverage: every stratum (constraint × model under test × rubric version) has judged every semantic pair of its
  constraint × model (the population the version will be used on) and the counted prefix of the draw order holds
  ceil(min_coverage × population) pairs (see annotations._sampling). Always checked: no unverified judge may gate
  a build.
- kappa: judge (majority over repeats) vs human on the random sample, overall per judge model × rubric version (per
  label set when the group mixes label sets: a pooled kappa rewards always answering a set's first label), or
  per constraint when `constraints` are given. An undefined kappa fails (with its reason).
- pass rate (optional): the judge-corrected (prediction-powered) pass rate of each model under test, point estimate.
Nothing judged at all fails too.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import sqlite_utils

from annotations._calibration import CalibrationReport, JudgeGroup, _clean, calibration_report


@dataclass(frozen=True)
class GateCheck:
    stratum: str
    check: str  # coverage | kappa | pass_rate | judged
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
             rubric: str | None = None, model: str | None = None) -> GateResult:
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
        slices = g.by_constraint if constraints else (g.verification or g.headline)
        for s in slices:
            name = f"{where} · {s.slice}"
            a = s.majority
            if a is None:
                checks.append(GateCheck(name, "kappa", None, min_kappa, False,
                                        "no human-labelled random pair with a judge majority label"
                                        + (f" among the pairs that verify it: {g.verified_on}; label the next "
                                           "random pairs (`judgecal sample --rate` higher, then review)"
                                           if g.verification else "")))
            elif math.isnan(a.kappa):
                checks.append(GateCheck(name, "kappa", None, min_kappa, False,
                                        f"kappa is undefined: {a.kappa_reason}"))
            else:
                ok = a.kappa >= min_kappa
                ci = (f"(CI undefined: {a.kappa_reason.removeprefix('the CI is undefined: ')})"
                      if math.isnan(a.kappa_ci_low) else f"[{a.kappa_ci_low:.2f}, {a.kappa_ci_high:.2f}]")
                checks.append(GateCheck(name, "kappa", a.kappa, min_kappa, ok,
                                        f"kappa {a.kappa:.3f} {ci} on {a.n} "
                                        f"random pairs {'≥' if ok else '<'} {min_kappa}; verified on {g.verified_on}"))
        if min_pass_rate is not None:
            for p in g.pass_rates:
                name = f"{where} · model {p.model}"
                if math.isnan(p.ppi_estimate):
                    checks.append(GateCheck(name, "pass_rate", None, min_pass_rate, False,
                                            f"corrected pass rate is undefined: {p.reason}"))
                    continue
                ok = p.ppi_estimate >= min_pass_rate
                checks.append(GateCheck(name, "pass_rate", p.ppi_estimate, min_pass_rate, ok,
                                        f"corrected pass rate {p.ppi_estimate:.3f} [{p.ppi_ci_low:.3f}, "
                                        f"{p.ppi_ci_high:.3f}] {'≥' if ok else '<'} {min_pass_rate} "
                                        f"(judge alone: {p.judge_pass_rate:.3f})"))
    return GateResult(tuple(checks))


def format_gate(result: GateResult) -> str:
    lines = [f"{'ok  ' if c.ok else 'FAIL'}  {c.check:<9}  {c.stratum}: {c.reason}" for c in result.checks]
    lines.append(f"gate {'passed' if result.passed else 'FAILED'}: {len(result.failures)} of {len(result.checks)} "
                 "checks failed")
    return "\n".join(lines)


__all__ = ["GateCheck", "GateResult", "format_gate", "latest_groups", "run_gate"]
