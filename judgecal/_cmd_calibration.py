"""Calibration commands: `report`, `gate`, and the `llmbar` kind of `import`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report
from judgecal.annotations.reports import DEFAULT_MIN_N, GATE_ON, format_gate, run_gate, run_pass_gate
from judgecal.annotations.reports import DEFAULT_TUNE_SHARE, compare_rubrics
from judgecal.annotations.reports import GateResult, PROBE_LIMITS
from judgecal.evalsets._io import read_text_file  # house: private
from judgecal._args import CommandError, fraction, kappa_threshold, positive_fraction, review_quota, say


def _import_llmbar(db_path: Path, file: Path) -> str:
    from judgecal._batch_cli import keep_report_aggregates  # noqa: PLC0415
    from judgecal.annotations.review import import_llmbar  # here, not at the top: `gate` does not load the import

    if not file.is_file():
        read_text_file(file)  # raises the InputError that says why (not found, a directory), before the db opens
    with ann.unit_of_work(db_path) as db:
        s = import_llmbar(db, file)
        keep_report_aggregates(db)  # after the import's commit: it wrote verdicts, run records and constraints
    return (f"LLMBar: {s.items} eval items, {s.runs} run records, {s.labels} human labels, {s.verdicts} verdicts "
            f"({s.errors} unparsable) imported; rubric versions: {', '.join(s.rubrics)} ({file})")



def _min_n(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value!r}")
    return n


def _write(text: str, out: Path | None) -> str:
    if out is None:
        return text.rstrip("\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return f"report written to {out}"


def cmd_report(args: argparse.Namespace) -> str:
    fmt = "json" if args.json else args.format
    if args.run_id is not None and args.compare:
        raise CommandError("report: --compare compares rubric versions on the whole project; drop --run-id")
    if args.include_non_random and not args.compare:
        raise CommandError("report: --include-non-random widens the rubric comparison; give --compare A B")
    # the probes module (with the pairwise store and the eval set's models) loads here and for a gate with a probe
    # limit, not for a plain `gate` (issue 16.2, start-up)
    from judgecal.annotations.reports import format_probes, probe_results, verdict_position_bias  # noqa: PLC0415

    try:
        with ann.unit_of_work(args.db, readonly=True) as db:
            report = calibration_report(db, rubric=args.rubric, model=args.model, constraint=args.constraint or None,
                                        rubric_seen=args.rubric_seen, rate=args.rate,
                                        target_half_width=args.target_half_width, run_id=args.run_id)
            probes = probe_results(db, rubric=args.rubric, model=args.model)
            positions = verdict_position_bias(db, rubric=args.rubric, model=args.model)
            comparison = None
            if args.compare:
                comparison = compare_rubrics(db, *args.compare, judge_model=args.model, seed=args.seed,
                                             tune_share=args.tune_share,
                                             random_only=not args.include_non_random)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    if fmt == "json":
        data = report.to_dict()
        if comparison is not None:
            data["comparison"] = comparison.to_dict()
        data["probes"] = [r.as_dict() for r in probes]
        data["position_bias"] = [p.as_dict() for p in positions]
        return _write(json.dumps(data, ensure_ascii=False, allow_nan=False, indent=2) + "\n", args.out)
    from judgecal.annotations.reports import format_report  # the text formatting: `gate` does not load it

    text = format_report(report, fmt, comparison)
    if fmt == "text" and (section := format_probes(probes, positions)):
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    return _write(text, args.out)


def cmd_gate(args: argparse.Namespace) -> int:
    if args.run is not None:
        return _cmd_run_gate(args)
    if args.min_kappa is None:
        raise CommandError("gate: --min-kappa is required for the judge gate (or give --run RUN_ID for the run gate)")
    for flag in ("min_check_pass_rate", "max_error_rate"):
        if getattr(args, flag) is not None:
            raise CommandError(f"gate: --{flag.replace('_', '-')} belongs to the run gate (--run RUN_ID)")
    try:
        with ann.unit_of_work(args.db, readonly=True) as db:
            result = run_gate(db, min_kappa=args.min_kappa, min_coverage=args.min_coverage,
                              min_pass_rate=args.min_pass_rate, constraints=args.constraint or None,
                              rubric=args.rubric, model=args.model, on=args.on, min_n=args.min_n)
            result = _with_probe_limits(db, args, result)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        say(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        say(format_gate(result))
    return 0 if result.passed else 1


def _with_probe_limits(db, args: argparse.Namespace, result: GateResult) -> GateResult:
    """The judge gate's checks plus one per `--max-...` probe limit (issue 15.3)."""
    if all(getattr(args, flag) is None for flag in PROBE_LIMITS):
        return result
    from judgecal.annotations.reports import probe_gate_checks  # noqa: PLC0415 (see cmd_report)

    checks = probe_gate_checks(db, {flag: getattr(args, flag) for flag in PROBE_LIMITS}, rubric=args.rubric,
                               model=args.model)
    return GateResult(result.checks + tuple(checks)) if checks else result


def _cmd_run_gate(args: argparse.Namespace) -> int:
    """`gate --run`: did this run regress? Mechanical checks and the judge-corrected pass rate; no new labels."""
    judge_only = [f for f, v in (("--min-kappa", args.min_kappa), ("--constraint", args.constraint)) if v]
    judge_only += [f"--{f.replace('_', '-')}" for f in PROBE_LIMITS if getattr(args, f) is not None]
    if judge_only:
        raise CommandError(f"gate --run: {', '.join(judge_only)} belong(s) to the judge gate (`judgecal gate` "
                           "without --run); run both gates as two CI steps")
    try:
        with ann.unit_of_work(args.db, readonly=True) as db:
            result = run_pass_gate(db, args.run, min_pass_rate=args.min_pass_rate,
                                   min_check_pass_rate=args.min_check_pass_rate, max_error_rate=args.max_error_rate,
                                   rubric=args.rubric, model=args.model, on=args.on)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    say(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) if args.json else format_gate(result))
    return 0 if result.passed else 1


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rubric", help="rubric version(s): sha256, 8+ character prefix, name (all versions; the gate "
                                    "takes the latest, and reads its kappa's lower bound Bonferroni-adjusted over the "
                                    "rubric versions judged in the project: it was chosen among them) or name@version")
    p.add_argument("--model", help="judge model")
    p.add_argument("--constraint", action="append", help="constraint id (repeatable)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report")
    _filters(p)
    p.add_argument("--rubric-seen", help="only human labels made while this rubric version was shown")
    p.add_argument("--rate", type=positive_fraction, default=ann.DEFAULT_RATE, help="review quota per stratum (default 0.10)")
    p.add_argument("--target-half-width", type=positive_fraction, default=ann.PLAN_HALF_WIDTH, metavar="H",
                   help="label planning: the 95%% CI half-width to plan for, of each corrected rate and of a "
                        "difference between two runs (default 0.03, ±3 points)")
    p.add_argument("--run-id", metavar="RUN_ID",
                   help="only this run's records, counted on the labelled prefix of the draw order restricted to them")
    p.add_argument("--json", action="store_true", help="machine-readable JSON (same as --format json)")
    p.add_argument("--format", choices=("text", "json", "md", "html"), default="text")
    p.add_argument("--out", type=Path, help="write to this file instead of printing")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="also compare rubric versions A (old) and B (new) on the same human-labelled pairs: the "
                        "counted random pairs either version judged, unless --include-non-random")
    p.add_argument("--seed", type=int, default=0, help="seed of the tune/heldout split of items without a split")
    p.add_argument("--tune-share", type=positive_fraction, default=DEFAULT_TUNE_SHARE, help="share of items in tune (0.7)")
    basis = p.add_mutually_exclusive_group()
    # the default since wave 17 (a review: labels chosen after reading B's verdicts moved the comparison); the flag
    # stays for the scripts that pass it
    basis.add_argument("--random-only", action="store_true",
                       help="compare on the counted random pairs only (the default; kept for scripts)")
    basis.add_argument("--include-non-random", action="store_true",
                       help="with --compare: also compare on labelled pairs outside the counted random sample "
                            "(targeted, beyond the counted prefix, never sampled), printing the random-only row beside")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("gate")
    _filters(p)
    p.add_argument("--min-kappa", type=kappa_threshold,
                   help="minimum judge-vs-human kappa (required by the judge gate, refused with --run)")
    p.add_argument("--run", "--run-id", dest="run", metavar="RUN_ID",
                   help="the run gate: gate this run's mechanical checks and judge-corrected pass rate (the judge's "
                        "latest verification named) instead of the judge; needs at least one limit")
    p.add_argument("--min-check-pass-rate", type=fraction, help="run gate: minimum mechanical check pass rate")
    p.add_argument("--max-error-rate", type=fraction, help="run gate: maximum share of records ending in an error")
    p.add_argument("--min-coverage", type=review_quota, default=0.10,
                   help="minimum share of each stratum labelled in the random sample (default and floor 0.10)")
    p.add_argument("--min-pass-rate", type=fraction, help="minimum judge-corrected pass rate of each model under "
                                                          "test (with --run: of the run, mechanical checks included)")
    p.add_argument("--on", choices=GATE_ON, default="lower",
                   help="compare the lower 95%% confidence bound (default) or the point estimate with the thresholds")
    p.add_argument("--min-n", type=_min_n, default=DEFAULT_MIN_N,
                   help=f"compared random pairs each gated slice needs (default {DEFAULT_MIN_N})")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    _probe_limits(p)
    p.set_defaults(func=cmd_gate)


def _probe_limits(p: argparse.ArgumentParser) -> None:
    # Each limit is read against the bound of the probe's exact 95% interval that makes it conservative; a limit
    # with no probe run fails (annotations/reports/_probes.py probe_gate_checks).
    p.add_argument("--max-position-bias", type=fraction, metavar="RATE",
                   help="judge gate: the first-position rate's 95%% interval must lie within [1-RATE, RATE] (e.g. "
                        "0.55); from `probe position` and from the version's stored pairwise verdicts (with both, both must "
                        "hold)")
    p.add_argument("--max-verbosity-flip", type=fraction, metavar="RATE",
                   help="judge gate: upper 95%% bound of `probe verbosity`'s flip rate toward pass")
    p.add_argument("--max-injection-flip", type=fraction, metavar="RATE",
                   help="judge gate: upper 95%% bound of `probe injection`'s flip rate (e.g. 0.02)")
    p.add_argument("--max-inconsistency", type=fraction, metavar="RATE",
                   help="judge gate: upper 95%% bound of `probe consistency`'s disagreement rate")


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: judgecal report | judgecal gate")
