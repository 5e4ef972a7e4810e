"""`judgecal probe KIND`: bias probes by controlled perturbation, run with the judge itself (issue 15.3).

A probe is a judge batch (judgecal.jobs.run_probe): the same endpoint flags, cache, resume after a kill and error
rows as `judge`.
"""

from __future__ import annotations

import argparse

from judgecal import jobs
from judgecal._args import CommandError, positive_int, say
from judgecal._batch_cli import acknowledge_stop, batch_exit_code, exit_if_abandoned, job_errors, stop_grace_s
from judgecal._cmd_judge import _backend, add_endpoint_flags
from judgecal.judge import (
    PROBE_KINDS,
    SHIPPED,
    Rubric,
)


def cmd_probe(args: argparse.Namespace) -> int:
    if args.paraphrase and args.kind != "consistency":
        raise CommandError("--paraphrase belongs to `probe consistency`")
    backend = _backend(args)

    def started(batch_id: str, pairs: int, rubric: Rubric, version: int) -> None:
        say(f"probe {args.kind}: {pairs} pairs with {backend.model} (rubric {rubric.name} v{version}, "
            f"{rubric.sha256[:12]}), batch {batch_id}", err=True)

    with job_errors("probe batch stopped: {reason}", backend):
        result = jobs.run_probe(
            args.db, backend, args.kind, rubric=args.rubric, sample=args.sample, seed=args.seed_sample,
            constraint=args.constraint, paraphrases=args.paraphrase or (), concurrency=args.concurrency,
            progress=not args.quiet, grace_s=stop_grace_s(args), on_start=started,
            on_stop=acknowledge_stop("requests"))
    say(result.summary.format())
    say("")
    say(result.result.format() if result.result is not None else f"{args.kind}: no answer stored yet")
    exit_if_abandoned(result.summary.abandoned)
    return batch_exit_code(result.status, result.summary.errors, result.summary.sent, "requests")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "probe",
        description="Probe the judge by controlled perturbation, with the judge itself, on the counted (randomly "
                    "sampled, human-labelled) pairs or a seeded random subset. position: pairwise pairs in both "
                    "orders (first-position rate, exact CI, binomial test). verbosity: content-free padding "
                    "appended (flip rate toward pass). injection: judge-targeted instructions appended to outputs "
                    "humans labelled fail, in several styles (share that flips to pass). consistency: paraphrased "
                    "rubric wording (disagreement rate). Results are stored per rubric version, shown by `report`, "
                    "and limited by `gate --max-...`. Endpoint settings as `judge`.")
    p.add_argument("kind", choices=PROBE_KINDS, help="which probe")
    p.add_argument("--rubric", default="strict", metavar="NAME_OR_FILE",
                   help=f"the rubric version probed, as `judge --rubric` ({', '.join(SHIPPED)}, a file or a stored "
                        "rubric; default: strict)")
    p.add_argument("--paraphrase", action="append", metavar="FILE",
                   help="consistency: a rewording of the rubric with the same placeholders (repeatable; default: the "
                        "shipped paraphrases of a shipped rubric)")
    p.add_argument("--sample", type=positive_int, metavar="N", help="only N of the pairs, drawn at random with --seed")
    p.add_argument("--seed", dest="seed_sample", type=int, default=0,
                   help="seed of the --sample draw (default 0: the same seed draws the same pairs)")
    p.add_argument("--constraint", metavar="ID", help="only this constraint id")
    add_endpoint_flags(p, seed_flag="--judge-seed", seed_help="seed sent to the endpoint where it supports it (default 0)")
    p.set_defaults(func=cmd_probe)
