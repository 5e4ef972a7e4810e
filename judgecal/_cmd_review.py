"""Review commands: `judgecal sample` draws (or tops up) the review sample and prints coverage per stratum."""

from __future__ import annotations

import argparse

import annotations as ann
from judgecal._args import fraction, positive_fraction


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
    with ann.unit_of_work(args.db) as db:
        s = ann.draw_sample(db, rate=args.rate, overlap=args.overlap, seed=args.seed,
                            include_unjudged=not args.judged_only)
        rows = ann.quota_progress(db)
    return (
        f"{s.strata} strata; added {s.random_added} random, {s.targeted_added} targeted, {s.overlap_added} overlap "
        f"pairs (now {s.random_total} random, {s.targeted_total} targeted, {s.overlap_total} overlap)\n\n"
        + format_coverage(rows)
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sample",
        help="draw or top up the review sample: ≥rate of every stratum (constraint × model × rubric), targeted "
             "pairs (judge repeats disagree, judge errors) and an overlap share for a second reviewer",
    )
    p.add_argument("--rate", type=positive_fraction, default=ann.DEFAULT_RATE,
                   help="share of each stratum's judged pairs in the random sample, rounded up (default 0.10)")
    p.add_argument("--overlap", type=fraction, default=ann.DEFAULT_OVERLAP,
                   help="share of each stratum's random pairs also given to a second reviewer (default 0.2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random draw (default 0)")
    p.add_argument("--judged-only", action="store_true",
                   help="do not sample pairs that no rubric has judged yet (stratum …|unjudged)")
    p.set_defaults(func=cmd_sample)
