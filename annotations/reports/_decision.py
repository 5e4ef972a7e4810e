"""Switch from run A to run B? The thresholds file and the decision against it (used by `compare_runs`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from judgecal.evalsets import load_json
from judgecal.annotations.stats import Z_95, VarianceParts, min_detectable_difference, newcombe_difference, plan_labels

if TYPE_CHECKING:  # annotations only: _runs imports this module
    from judgecal.annotations.reports._runs import RunStats

# --------------------------------------------------------------------------- thresholds and the decision

THRESHOLD_KEYS = {
    "max_completion_drop_points": "B's task completion rate may be at most this many points below A's",
    "max_constraint_drop_points": "B's constraint pass rate (judge-corrected when known) at most this many points below A's",
    "max_tool_parse_failure_rate": "share of B's tool calls whose arguments are not valid JSON",
    "max_p95_latency_ms": "B's P95 task latency",
    "max_cost_ratio": "B's cost / A's cost (token totals when no run's models have prices; unknown when one run's do)",
}


def parse_thresholds(data: Any, source: str = "thresholds") -> dict[str, float]:
    """Validate a thresholds object: known keys only, each a number >= 0, at least one. Raises ValueError naming the
    key."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: expected a JSON object of thresholds, got {type(data).__name__}")
    if not data:  # no decision would be made, and the command would exit 0 as if it said switch (a review, wave 17)
        raise ValueError(f"{source}: no thresholds: give at least one of {', '.join(THRESHOLD_KEYS)}")
    out = {}
    for key, value in data.items():
        if key not in THRESHOLD_KEYS:
            raise ValueError(f"{source}: unknown threshold {key!r}; known: {', '.join(THRESHOLD_KEYS)}")
        # (an infinite limit decides nothing, like no threshold: `1e999` reads as inf; a review of the fixes)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or not math.isfinite(value):
            raise ValueError(f"{source}: threshold {key!r} must be a finite number >= 0, got {value!r}")
        out[key] = float(value)
    return out


def read_thresholds(path: str | Path) -> dict[str, float]:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    # a key given twice: JSON keeps the last one silently, so a limit read above could be the one not applied
    json.loads(text, object_pairs_hook=lambda pairs: _no_repeated_keys(pairs, path))
    return parse_thresholds(data, str(path))


def _no_repeated_keys(pairs: list[tuple[str, Any]], path: Path) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"{path}: threshold {key!r} is given twice (JSON would keep only the last)")
        seen.add(key)
    return dict(pairs)


class Reason(NamedTuple):
    threshold: str
    limit: float
    value: float | None
    ok: bool
    detail: str
    status: str = ""  # ok | fail | undecided (the CI straddles the limit) | unknown (cannot be evaluated)
    ci_low: float | None = None  # the value's 95% CI where it has one (the pass-rate drop)
    ci_high: float | None = None


class Decision(NamedTuple):
    """Switch from A to B when every threshold holds. A threshold that cannot be evaluated does not hold; a
    threshold whose CI straddles the limit is `undecided` and does not hold either (collect more labels)."""

    switch: bool
    reasons: tuple[Reason, ...]
    status: str = ""  # switch | don't switch | undecided


class RateDifference(NamedTuple):
    """A's pass rate minus B's (the drop), in points, with its 95% CI. Both rates of the same kind: judge-corrected
    for both runs when both have one, else the plain constraint pass rate for both (never one of each). The runs'
    records are different pairs, so the variances add (this ignores a positive correlation through shared items,
    which would narrow the interval: conservative). Judge-corrected rates carry SEs clustered by item within each
    run (issue 15.5), so the difference's is too: `design_effect` is its variance over the unclustered one."""

    kind: str  # "judge-corrected" | "uncorrected"
    a: float
    b: float
    drop_points: float
    low: float
    high: float
    # issue 15: the paired corrected difference (kind "paired judge-corrected") carries its SE, p-value and the
    # labelled items it rests on; the minimum detectable difference (80% power, two-sided 5%) is for every kind
    se_points: float | None = None
    p_value: float | None = None
    n_labelled: int | None = None
    mdd_points: float | None = None
    # issue 15.5: the clustering of the CI (judge-corrected kinds): variance inflation, clusters (items; for the
    # unpaired difference the more of the two runs'), the unit; None for the uncorrected kind
    design_effect: float | None = None
    clusters: int | None = None
    ci_clustered_by: str | None = None
    # wave 17: the uncorrected kind's pairs the interval lets go either way (None for the other kinds): those the
    # judge left unsettled (error rows, tied repeats) and those a human label settles against the judge
    # (`RunStats.human_overrides`) unless both runs are labelled completely, in both runs
    unsure_pairs: int | None = None


def rate_difference(a: RunStats, b: RunStats) -> RateDifference | None:
    """The constraint pass-rate drop from A to B with its CI, like with like; None when either rate is unknown."""
    if (a.judge_corrected_pass_rate is not None and b.judge_corrected_pass_rate is not None
            and a.judge_corrected_se is not None and b.judge_corrected_se is not None):
        ra, rb = a.judge_corrected_pass_rate, b.judge_corrected_pass_rate
        se = math.hypot(a.judge_corrected_se, b.judge_corrected_se)
        kind = "judge-corrected"
        raw = math.hypot(a.judge_corrected_se_unclustered if a.judge_corrected_se_unclustered is not None
                         else a.judge_corrected_se,
                         b.judge_corrected_se_unclustered if b.judge_corrected_se_unclustered is not None
                         else b.judge_corrected_se)
        clustering: tuple[float | None, int | None, str | None] = (
            (se / raw) ** 2 if raw > 0 else 1.0,
            max((c for c in (a.judge_corrected_clusters, b.judge_corrected_clusters) if c is not None), default=None),
            a.judge_corrected_ci_clustered_by or b.judge_corrected_ci_clustered_by)
    elif a.constraint_pass_rate is not None and b.constraint_pass_rate is not None:
        # The uncorrected rates' difference (the judge's errors are not in it) with Newcombe's hybrid score interval
        # of the settled counts: the Wald interval was [d, d] when both rates were 0% or 100%, and `compare` decided
        # on it ("smallest drop these labels detect 0.00 points"; a review, wave 14). Its SE for the plans is the
        # interval's half-width over z (the larger side).
        diff, low, high = newcombe_difference(a.constraints_passed, a.constraints_settled,
                                              b.constraints_passed, b.constraints_settled)
        # Pairs the rate cannot vouch for go either way (reviews, wave 17): the judge left them unsettled (error
        # rows, tied repeats: they left the rate, so a judge that errs on one run's failing outputs lifted it), or a
        # human label overrides the judge on them: the rate mixes humans' answers with the judge's, so a reviewer
        # who relabels one run's failing pairs, or one run's labelled random sample beside another run judged only,
        # moved one run alone. Only when every semantic pair of both runs is human-settled is there no mix (a
        # complete labelling: the overrides are the truth in both). The interval is the union of the intervals with
        # each run's such pairs all failing and all passing, the worse way for each side: (settled-only) estimate,
        # interval over every completion.
        complete = not (a.semantic_unlabelled or b.semantic_unlabelled)
        unsure_a = a.constraints_unjudged + (0 if complete else a.human_overrides)
        unsure_b = b.constraints_unjudged + (0 if complete else b.human_overrides)
        if unsure_a or unsure_b:
            n_a, n_b = a.constraints_settled + a.constraints_unjudged, b.constraints_settled + b.constraints_unjudged
            sure_a = a.constraints_passed - (0 if complete else a.human_overrides_passed)
            sure_b = b.constraints_passed - (0 if complete else b.human_overrides_passed)
            low = min(low, newcombe_difference(sure_a, n_a, sure_b + unsure_b, n_b)[1])
            high = max(high, newcombe_difference(sure_a + unsure_a, n_a, sure_b, n_b)[2])
        se = max(diff - low, high - diff) / Z_95
        d = 100 * diff
        return RateDifference("uncorrected", a.constraint_pass_rate, b.constraint_pass_rate, d, 100 * low,
                              100 * high, 100 * se, None, None, 100 * min_detectable_difference(se), None, None, None,
                              unsure_a + unsure_b)
    else:
        return None
    d = 100 * (ra - rb)
    half = 100 * Z_95 * se
    return RateDifference(kind, ra, rb, d, d - half, d + half, 100 * se, None, None,
                          100 * min_detectable_difference(se), *clustering)


def _labels_to_decide(diff: RateDifference, limit: float, parts: Sequence[VarianceParts], unit: str) -> str:
    """"N more <unit>" for the CI to clear the limit if the estimate holds (plan_labels on the distance from the
    estimate to the limit), or why no number can be given."""
    if not parts:
        return "label more pairs"
    distance = abs(diff.drop_points - limit) / 100
    if distance < 1e-9:
        return "the estimate sits on the limit: no number of labels can be projected to decide"
    plan = plan_labels(parts, distance)
    if plan.more is None:
        return f"no number of labels decides it at this estimate: {plan.reason}"
    return f"about {plan.more} more {unit}" + (f"; {plan.reason}" if plan.reason else "")


def _pp(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def decide(a: RunStats, b: RunStats, thresholds: dict[str, float], *, difference: RateDifference | None = None,
           parts: Sequence[VarianceParts] = (), unit: str = "labels per run") -> Decision:
    """The switch decision. `difference` replaces the pass-rate drop of `rate_difference` (the paired corrected
    difference when the runs have a paired sample); `parts` are its variance parts (in rate units), from which an
    undecided threshold says how many more labels (`unit`) would let the CI clear the limit."""
    reasons: list[Reason] = []
    for key, limit in thresholds.items():
        value: float | None = None
        if key == "max_completion_drop_points":
            if a.completion_rate is not None and b.completion_rate is not None:
                value = 100 * (a.completion_rate - b.completion_rate)
            detail = f"completion {_pp(a.completion_rate)} -> {_pp(b.completion_rate)}"
        elif key == "max_constraint_drop_points":
            diff = difference if difference is not None else rate_difference(a, b)
            versions = sorted(set(a.judge_versions) | set(b.judge_versions))
            if diff is None:
                detail = f"constraint pass rate {_pp(a.constraint_pass_rate)} -> {_pp(b.constraint_pass_rate)}"
            elif diff.kind == "uncorrected" and len(versions) > 1:
                # each pair is settled by the latest judge version that labelled it: re-judging one run with a
                # lenient rubric moved its rate alone (a review, wave 17); the corrected rates rest on one version
                # undecided, not failed: nothing says B is worse, only that these rates cannot say (a review of the
                # fixes: a re-judge of both runs that errored on a few pairs falls back to the older version there)
                reasons.append(Reason(
                    key, limit, None, False,
                    f"uncorrected pass rate {_pp(diff.a)} -> {_pp(diff.b)}, settled by {len(versions)} judge versions "
                    f"({'; '.join(v[:12] + v[64:] for v in versions)}): the runs' rates may differ by judge, not by "
                    f"model; UNDECIDED, compare with one (--rubric-sha256, --judge-model)", "undecided"))
                continue
            else:
                value = diff.drop_points
                status = "ok" if diff.high <= limit + 1e-12 else ("fail" if diff.low > limit + 1e-12 else "undecided")
                detail = (f"{diff.kind} pass rate {_pp(diff.a)} -> {_pp(diff.b)}; drop {diff.drop_points:.2f} points "
                          f"[{diff.low:.2f}, {diff.high:.2f}]" + (
                              f" (the interval lets {diff.unsure_pairs} pairs go either way: unsettled by the judge, "
                              "or settled against it by human labels in runs not labelled completely)"
                              if diff.unsure_pairs else "")
                          ) if not diff.kind.startswith("paired") else (
                    f"{diff.kind} pass-rate drop on the items both runs answered ({diff.n_labelled} labelled in "
                    f"both): {diff.drop_points:.2f} points [{diff.low:.2f}, {diff.high:.2f}], p = {diff.p_value:.2g}")
                verdict = {"ok": "the whole CI is within the limit", "fail": "the whole CI is beyond the limit",
                           "undecided": "UNDECIDED, the CI straddles the limit ("
                                        + (_labels_to_decide(diff, limit, parts, unit) if status == "undecided"
                                           else "") + ")"}[status]
                reasons.append(Reason(key, limit, value, status == "ok", f"{detail} vs limit {limit:g}: {verdict}",
                                      status, diff.low, diff.high))
                continue
        elif key == "max_tool_parse_failure_rate":
            value = b.tool_parse_failure_rate if b.tool_calls else 0.0
            detail = f"{b.tool_parse_failures} of {b.tool_calls} tool calls unparsable"
        elif key == "max_p95_latency_ms":
            value = b.p95_latency_ms
            detail = "B's P95 latency " + ("unknown" if value is None else f"{value:.0f} ms")
        elif a.records_without_tokens or b.records_without_tokens:  # max_cost_ratio
            # a record with output but no token counts cost something unknown, not nothing (it lowered B's cost)
            detail = (f"token counts missing on {a.records_without_tokens} of A's and {b.records_without_tokens} of "
                      "B's records with output: the cost is unknown")
        elif (a.cost is None) != (b.cost is None):  # max_cost_ratio
            # prices set for one run's models only: its tokens and the other's are not the same money (a review of
            # the fixes: `price demo-agent-a ...` alone compared raw tokens and said SWITCH)
            detail = (f"prices set for {'B' if a.cost is None else 'A'}'s models only: the cost is unknown (set them "
                      "for both runs' models with `judgecal price`, or for neither to compare tokens)")
        else:  # max_cost_ratio
            if a.cost is not None and b.cost is not None and a.cost > 0:
                value, detail = b.cost / a.cost, f"cost {a.cost:.4f} -> {b.cost:.4f}"
            else:
                ta, tb = a.input_tokens + a.output_tokens, b.input_tokens + b.output_tokens
                value = tb / ta if ta else None
                detail = f"tokens only (no prices set for both): {ta} -> {tb}"
        ok = value is not None and value <= limit + 1e-12
        shown = "cannot be evaluated" if value is None else f"{value:.4g}"
        reasons.append(Reason(key, limit, value, ok, f"{detail}; {key} {shown} vs limit {limit:g}",
                              "unknown" if value is None else ("ok" if ok else "fail")))
    switch = all(r.ok for r in reasons)
    status = ("switch" if switch else "undecided" if not any(r.status in ("fail", "unknown") for r in reasons)
              else "don't switch")
    return Decision(switch, tuple(reasons), status)
