"""Drift commands (issue 15.6): `anchor freeze|list` and `drift` (re-judge an anchor, report, exit code for CI)."""

from __future__ import annotations

import argparse
import json
import math

from judgecal import annotations as ann
from judgecal import drift as drift_job
from judgecal._args import (CommandError, fraction, name_text, non_negative_float, non_negative_sqlite_int,
                            positive_int, say)
from judgecal._batch_cli import acknowledge_stop, batch_exit_code, exit_if_abandoned, job_errors, stop_grace_s
from judgecal._cmd_judge import _backend, add_endpoint_flags

EXIT_LIMIT_FAILED = 1


def _num(x: float | None, fmt: str = ".3f") -> str:
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


def _finite(x):
    """JSON has no NaN: an undefined number is null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def cmd_anchor(args: argparse.Namespace) -> int:
    if args.action == "list":
        if args.size is not None or args.seed is not None or args.name is not None:
            raise CommandError("--name, --size and --seed are for `anchor freeze`")
        with ann.unit_of_work(args.db, readonly=True) as db:
            anchors = ann.list_anchors(db)
            rows = [(a, ann.anchor_baselines(db, a.id)) for a in anchors]
        if args.json:
            say(json.dumps([{"name": a.name, "pairs": a.size, "counted_at_freeze": a.counted, "seed": a.seed,
                             "seed_given": a.seed_given, "frozen_at": a.created_at,
                             "baselines": [{"judge_model": b.judge_model, "rubric_sha256": b.rubric_sha256,
                                            "pairs": b.pairs, "repeats": b.repeats} for b in bs]}
                            for a, bs in rows], indent=2))
            return 0
        if not rows:
            say("no anchor frozen yet (judgecal anchor freeze)")
        for a, bs in rows:
            say(f"{a.name}: {a.size} of {a.counted} counted pairs, seed {a.seed} "
                f"({'given' if a.seed_given else 'drawn at random'}), frozen {a.created_at}")
            for b in bs:
                say(f"  verdicts of {b.judge_model}, rubric {b.rubric_sha256[:12]}: {b.pairs} pairs, "
                    f"{b.repeats} repeats")
        return 0
    try:
        with ann.unit_of_work(args.db) as db:
            anchor = ann.freeze_anchor(db, args.name, size=args.size, seed=args.seed)
            baselines = ann.anchor_baselines(db, anchor.id)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        say(json.dumps({"name": anchor.name, "pairs": anchor.size, "counted_at_freeze": anchor.counted,
                        "seed": anchor.seed, "seed_given": anchor.seed_given, "frozen_at": anchor.created_at}))
        return 0
    say(f"froze anchor {anchor.name}: {anchor.size} of {anchor.counted} counted pairs, seed {anchor.seed} "
        f"({'given' if anchor.seed_given else 'drawn at random'}), with the verdicts of "
        f"{len(baselines)} judge model x rubric version(s)")
    if not baselines:
        say("warning: no judge verdicts on these pairs yet: `judgecal drift` needs some to compare with", err=True)
    return 0


def _history(args: argparse.Namespace) -> int:
    try:
        with ann.unit_of_work(args.db, readonly=True) as db:
            rows = ann.drift_history(db, args.anchor)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        say(json.dumps(_finite([r.__dict__ for r in rows]), indent=2, allow_nan=False))
        return 0
    if not rows:
        say("no finished drift run yet")
    for r in rows:
        say(f"{r.finished_at}  {r.anchor}  {r.judge_model} · {r.rubric}  flips {r.flips}/{r.compared} "
            f"({_num(r.flip_rate, '.1%')} [{_num(r.flip_ci_low, '.1%')}, {_num(r.flip_ci_high, '.1%')}])  "
            f"kappa {_num(r.kappa_at_freeze)} -> {_num(r.kappa_now)} (change {_num(r.kappa_change, '+.3f')} "
            f"[{_num(r.kappa_change_low, '+.2f')}, {_num(r.kappa_change_high, '+.2f')}])  {r.drift_run}")
    return 0


def cmd_drift(args: argparse.Namespace) -> int:
    # The judging flags are parsed with the default None, so a flag given is told from one left out (even one given
    # its default value); `--history` judges nothing and checks no limit, so it refuses them, as `anchor list`
    # refuses --size. Left out, each takes its real default here.
    given = [flag for dest, (flag, _) in args.judging_flags.items() if getattr(args, dest) is not None]
    if args.history:
        if given:
            raise CommandError(f"{', '.join(given)}: not with --history, which prints the finished runs as stored "
                               "(it judges nothing and checks no limit: run `drift` with them instead)")
        return _history(args)
    for dest, (_, default) in args.judging_flags.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    if args.repeats is not None and args.repeats < 1:
        raise CommandError("--repeats must be at least 1")
    backend = _backend(args)

    def started(batch_id: str, run_id: str, pairs: int, resumed: bool) -> None:
        say(f"{'resuming' if resumed else 'starting'} drift run {run_id}: re-judging {pairs} anchor pairs with "
            f"{backend.model}, batch {batch_id}", err=True)

    with job_errors("drift batch stopped: {reason} (re-run to resume)", backend):
        result = drift_job.run_drift(
            args.db, backend, anchor=args.anchor, rubric=args.rubric, baseline_model=args.baseline_model,
            baseline_rubric=args.baseline_rubric, repeats=args.repeats, concurrency=args.concurrency,
            progress=not args.quiet and not args.json, grace_s=stop_grace_s(args), on_start=started,
            on_stop=acknowledge_stop("requests"))
    report = result.report
    limits = args.max_flip_rate is not None or args.max_kappa_drop is not None
    pool = None
    if limits:  # the earlier finished runs of this anchor × judge × rubric: re-running until one passes does not pass
        with ann.unit_of_work(args.db, readonly=True) as db:
            pool = ann.drift_pool(db, report)
    checks = ann.drift_checks(report, max_flip_rate=args.max_flip_rate, max_kappa_drop=args.max_kappa_drop,
                              on=args.on, pool=pool)
    if limits and not result.finished:
        checks.append(ann.DriftCheck("finished", math.nan, math.nan, math.nan, False,
                                     "the drift run is not finished: re-run to resume"))
    if args.json:
        say(json.dumps(_finite({"batch": result.summary.as_dict(), "resumed": result.resumed,
                                "drift": report.as_dict(), "checks": [c.__dict__ for c in checks] if limits else None,
                                "pooled": pool.as_dict() if pool is not None else None,
                                "passed": all(c.ok for c in checks) if limits else None}), indent=2, allow_nan=False))
    else:
        say(result.summary.format())
        say("")
        say(report.format())
        if pool is not None:
            say(pool.format())
        for c in checks:
            say(c.format())
    exit_if_abandoned(result.summary.abandoned)
    code = batch_exit_code(result.status, result.summary.errors, result.summary.sent, "requests")
    if code:
        return code
    return EXIT_LIMIT_FAILED if any(not c.ok for c in checks) else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "anchor",
        description="freeze: draw --size counted pairs (random review sample, blind first labels) by --seed and "
                    "freeze them with their human labels and every judge verdict they have now. list: the anchors.")
    p.add_argument("action", choices=["freeze", "list"])
    p.add_argument("--name", type=name_text, help="anchor name (default anchor-N); anchors are never changed")
    p.add_argument("--size", type=positive_int, metavar="N", help="pairs to draw (default: every counted pair)")
    p.add_argument("--seed", type=non_negative_sqlite_int, metavar="S",
                   help="draw seed (default: drawn at random and recorded)")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=cmd_anchor)

    p = sub.add_parser(
        "drift",
        description="Re-judge the anchor's pairs (a new drift run: the verdicts cache is not used; a killed run is "
                    "resumed) and compare with the verdicts frozen with it. Exit 0 ok, 1 a limit failed, 2 bad "
                    "input, 3 nothing answered, 130 interrupted.")
    p.add_argument("--anchor", type=name_text, metavar="NAME", help="anchor to re-judge (default: the latest frozen)")
    first = len(p._actions)  # the judging flags start here (refused with --history)
    p.add_argument("--rubric", metavar="NAME_OR_FILE",
                   help="rubric to re-judge with (default: the baseline's rubric version)")
    p.add_argument("--baseline-model", metavar="MODEL",
                   help="frozen judge model to compare with (default: the same model as now, else the only one)")
    p.add_argument("--baseline-rubric", metavar="NAME_OR_SHA", help="frozen rubric version to compare with")
    p.add_argument("--repeats", type=positive_int, metavar="K", help="verdicts per pair (default: the baseline's)")
    p.add_argument("--max-flip-rate", type=fraction, metavar="X",
                   help="fail (exit 1) unless the flip rate's upper 95%% bound is at most X, for this run and for "
                        "the flips pooled over it and the earlier finished runs of this anchor, judge model and "
                        "rubric version")
    p.add_argument("--max-kappa-drop", type=non_negative_float, metavar="Y",
                   help="fail (exit 1) unless the kappa drop's upper 95%% bound is at most Y, for this run and "
                        "pooled over it and the earlier runs of this anchor, judge model and rubric version")
    p.add_argument("--on", choices=["bound", "point"], default="bound",
                   help="decide limits on the conservative bound (default) or the point estimate")
    add_endpoint_flags(p, model_help="judge model to re-judge with (default: $JUDGECAL_MODEL)")
    # (--quiet goes with --history too: it only silences progress; refusing it broke scripts, a review of the fix)
    judging = {a.dest: (a.option_strings[0], a.default) for a in p._actions[first:] if a.dest != "quiet"}
    p.add_argument("--history", action="store_true",
                   help="print the finished drift runs instead of judging (only --anchor and --json go with it)")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=cmd_drift, judging_flags=judging, **{dest: None for dest in judging})
