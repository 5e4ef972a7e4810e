"""Review commands: `judgecal sample` draws (or tops up) the review sample and prints coverage per stratum;
`judgecal assign` hands its pairs to reviewers and prints each reviewer's progress."""

from __future__ import annotations

import argparse

from judgecal import annotations as ann
from judgecal.annotations.reports import require_run
from judgecal._args import CommandError, fraction, positive_fraction, sqlite_int
from judgecal._batch_cli import keep_sample_side


def format_coverage(rows: list[ann.StratumCoverage]) -> str:
    if not rows:
        return "no strata: import run records of an eval set with semantic constraints first"
    width = max(len(r.stratum) for r in rows)
    lines = [f"{'stratum':<{width}}  judged  sampled  labelled  needed  ok"]
    for r in rows:
        lines.append(f"{r.stratum:<{width}}  {r.judged:>6}  {r.sampled:>7}  {r.labelled:>8}  {r.needed:>6}  "
                     f"{'yes' if r.ok else 'no'}")
    return "\n".join(lines)


def cmd_sample(args: argparse.Namespace) -> str:
    if args.paired:
        if args.run_id is not None:
            raise CommandError("sample: --paired RUN_A RUN_B already names the runs; leave out --run-id")
        return _cmd_sample_paired(args)
    if args.run_id is not None:
        return _sample_run(args)
    with ann.unit_of_work(args.db) as db:
        try:
            s = ann.draw_sample(db, rate=args.rate, overlap=args.overlap, seed=args.seed,
                                include_unjudged=not args.judged_only)
        except ann.DrawRefused as exc:  # two populations of one stratum name
            raise CommandError(str(exc)) from None
        keep_sample_side(db)  # after the draw's commit; the coverage below reads the orders back
        rows = ann.quota_progress(db)
    return (
        _seed_note(args.seed, s.seed_not_used)
        + f"{s.strata} strata; added {s.random_added} random, {s.targeted_added} targeted, {s.overlap_added} overlap "
        f"pairs (now {s.random_total} random, {s.targeted_total} targeted, {s.overlap_total} overlap)\n\n"
        + format_coverage(rows)
    )


def _cmd_sample_paired(args: argparse.Namespace) -> str:
    run_a, run_b = args.paired
    with ann.unit_of_work(args.db) as db:
        try:
            d = ann.draw_paired(db, run_a, run_b, rate=args.rate, seed=args.seed)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        counted = ann.paired_counted(db, run_a, run_b)
    lines = [_seed_note(args.seed, d.seed_not_used)
             + f"paired sample of {run_a} and {run_b}: {d.drawn} of the {d.units} items × constraints both runs "
             f"answered (added {d.added_pairs} pairs); each is labelled in both runs", "",
             "constraint  drawn  counted (labelled in both runs, in draw order)"]
    width = max([10, *(len(c) for c in counted.order)])
    lines[2] = f"{'constraint':<{width}}  drawn  counted (labelled in both runs, in draw order)"
    for cid in sorted(counted.order):
        lines.append(f"{cid:<{width}}  {len(counted.order[cid]):>5}  {counted.prefix[cid]:>7}")
    return "\n".join(lines)


def _sample_run(args: argparse.Namespace) -> str:
    """`sample --run-id`: the run's part of each population's draw order (no second random draw; see
    annotations.review._sampling), and the run's coverage by its counted pairs."""
    for flag, value in (("--judged-only", args.judged_only), ("--overlap", args.overlap != ann.DEFAULT_OVERLAP)):
        if value:
            raise CommandError(f"sample --run-id: {flag} belongs to the population draw (`judgecal sample` without "
                               "--run-id)")
    with ann.unit_of_work(args.db, readonly=True) as db:
        try:
            require_run(db, args.run_id)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    with ann.unit_of_work(args.db) as db:
        try:
            s = ann.draw_run_sample(db, args.run_id, rate=args.rate, seed=args.seed)
        except ann.DrawRefused as exc:  # two populations of one stratum name (the population draw's refusal)
            raise CommandError(str(exc)) from None
        keep_sample_side(db)  # the run's rows moved the samples' version
        rows = ann.coverage(db, args.rate, include_unjudged=True, run_id=args.run_id)
    return (_seed_note(args.seed, s.seed_not_used)
            + f"run {args.run_id}: {s.strata} populations; added {s.random_added} random pairs of the run (now "
            f"{s.random_total} random in the project)\n\n" + format_coverage(rows))


def _seed_note(seed: int, judged: tuple[str, ...]) -> str:
    return ann.seed_note(seed, judged) + "\n\n" if judged else ""


def format_assignment(progress: list[ann.ReviewerProgress], overlap: ann.OverlapProgress) -> str:
    lines = ["no pairs are assigned yet: `judgecal assign --reviewers a,b,c`"] if not progress else []
    if progress:
        width = max(8, *(len(p.reviewer) for p in progress))
        lines.append(f"{'reviewer':<{width}}  assigned  done  left  overlap (done)")
        for p in progress:
            lines.append(f"{p.reviewer:<{width}}  {p.assigned:>8}  {p.done:>4}  {p.left:>4}  "
                         f"{p.overlap_assigned:>7} ({p.overlap_done})")
    lines.append(f"human–human overlap: {overlap.done} of {overlap.target} overlap pairs carry blind labels of two "
                 "different reviewers")
    return "\n".join(lines)


def cmd_assign(args: argparse.Namespace) -> str:
    if args.reviewers is None and (args.reassign or args.by != "round-robin"):
        raise CommandError("--reassign and --by need --reviewers (without it, assign only prints the progress)")
    with ann.unit_of_work(args.db, readonly=args.reviewers is None) as db:
        head = ""
        if args.reviewers is not None:
            if not db.execute("SELECT 1 FROM samples LIMIT 1").fetchone():
                raise CommandError("nothing is sampled for review yet: run `judgecal sample` first")
            try:
                s = ann.assign(db, args.reviewers.split(","), by=args.by, reassign=args.reassign)
            except ann.AssignmentError as exc:
                raise CommandError(str(exc)) from None
            head = (f"{s.method}: {s.assigned} slots assigned to {', '.join(s.reviewers)}; {s.kept} open slots kept "
                    f"their reviewer" + (f"; {s.unassigned} open slots left to anyone (every named reviewer already "
                                         "labelled those pairs)" if s.unassigned else "") + "\n\n")
        return head + format_assignment(ann.assignment_progress(db), ann.overlap_progress(db))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample")
    p.add_argument("--rate", type=positive_fraction, default=ann.DEFAULT_RATE,
                   help="share of each stratum's judged pairs in the random sample, rounded up (default 0.10)")
    p.add_argument("--overlap", type=fraction, default=ann.DEFAULT_OVERLAP,
                   help="share of each stratum's random pairs also given to a second reviewer (default 0.2)")
    p.add_argument("--seed", type=sqlite_int, default=ann.DEFAULT_SEED,
                   help=f"seed of the draw orders this draw starts, used while none of their populations holds a "
                        f"judge verdict (default {ann.DEFAULT_SEED}, judgecal's fixed order, which a draw after the "
                        "judge runs always takes)")
    p.add_argument("--judged-only", action="store_true",
                   help="do not sample pairs that no rubric has judged yet (stratum …|unjudged)")
    p.add_argument("--paired", nargs=2, metavar=("RUN_A", "RUN_B"),
                   help="draw the same items for two runs instead (rate of the items × constraints both answered, "
                        "each labelled in both runs): what `compare`'s paired corrected difference uses")
    p.add_argument("--run-id", metavar="RUN_ID",
                   help="draw this run's share: the first ceil(rate × N) of each population's draw order restricted "
                        "to the run's N pairs (no second random draw); prints the run's coverage")
    p.set_defaults(func=cmd_sample)

    a = sub.add_parser("assign")
    a.add_argument("--reviewers", metavar="A,B,C", help="comma-separated reviewer names to assign open pairs to")
    a.add_argument("--by", choices=ann.ASSIGN_METHODS, default="round-robin",
                   help="round-robin: deal each population's pairs in draw order; constraint: one reviewer per "
                        "constraint id (default round-robin)")
    a.add_argument("--reassign", action="store_true",
                   help="also move open slots that are assigned but not yet labelled to the named reviewers")
    a.set_defaults(func=cmd_assign)
