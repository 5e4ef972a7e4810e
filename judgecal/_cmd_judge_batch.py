"""`judge --batch` (the OpenAI Batch API), `judge --batch-requests FILE` (write the request file, for vLLM's
`run_batch`) and `judge --batch-results FILE` (store a results file): the judge command's flags for big runs.
Parses and prints; the use cases are `jobs.judge_pairs_batch_api`, `jobs.write_batch_requests` and
`jobs.import_batch_results`."""

from __future__ import annotations

import argparse
import os
import sys

from judgecal import jobs
from judgecal._args import CommandError, positive_float, say
from judgecal._batch_cli import batch_exit_code, job_errors, store_report_pass
from judgecal.judge import DEFAULT_REPEATS

DEFAULT_POLL_S = 30.0


def add_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("big runs (the Batch API, or a self-hosted judge's run_batch)")
    g.add_argument("--batch", action="store_true",
                   help="send the requests as OpenAI Batch API jobs (half the price, results within 24 h); poll "
                        "until they end and store the results. Run it again to resume a pending job")
    g.add_argument("--poll-interval", type=positive_float, default=DEFAULT_POLL_S, metavar="S",
                   help=f"seconds between polls of a --batch job (default {DEFAULT_POLL_S:g})")
    g.add_argument("--batch-requests", metavar="FILE",
                   help="write the Batch API request file (JSONL) the --batch run would upload and stop; run it "
                        "with vLLM: python -m vllm.entrypoints.openai.run_batch -i FILE -o RESULTS --model M")
    g.add_argument("--batch-results", metavar="FILE",
                   help="store a Batch API results file (OpenAI's output or error file, or vLLM run_batch's -o "
                        "file) as verdicts")


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.batch or args.batch_requests or args.batch_results)


def run(args: argparse.Namespace, make_backend) -> int:
    """Dispatch the batch flags (exactly one of --batch, --batch-requests, --batch-results)."""
    chosen = [f for f, v in (("--batch", args.batch), ("--batch-requests", args.batch_requests),
                             ("--batch-results", args.batch_results)) if v]
    if len(chosen) > 1:
        raise CommandError(f"give one of {', '.join(chosen)}")
    if args.pairwise:
        raise CommandError(f"{chosen[0]} judges plain pairs: drop --pairwise")
    if args.backend == "local":
        raise CommandError(f"{chosen[0]} needs an OpenAI-compatible endpoint: drop --backend local")
    if args.repeats is None:
        args.repeats = DEFAULT_REPEATS
    with job_errors("judge batch stopped: {reason}"):
        if args.batch_results:
            return _results(args)
        if args.batch_requests:
            return _requests(args)
        return _submit(args, make_backend(args))


def _requests(args: argparse.Namespace) -> int:
    model = args.model or os.environ.get("JUDGECAL_MODEL")
    if not model:
        raise CommandError("no judge model: give --model or set JUDGECAL_MODEL")
    w = jobs.write_batch_requests(args.db, args.batch_requests, model=model, rubric=args.rubric,
                                  repeats=args.repeats, constraint=args.constraint, only_labelled=args.only_labelled,
                                  limit=args.limit, run_id=args.run_id, temperature=args.temperature,
                                  seed=None if args.no_seed else args.seed)
    version = "not stored: no pair selected" if w.rubric_version is None else f"v{w.rubric_version}"
    say(f"{w.requests} requests written to {w.path} ({w.cached} verdicts already stored were left out; rubric "
        f"{w.rubric.name} {version}, {w.rubric.sha256[:12]}, model {model})")
    say(f"store the results with: judgecal judge --batch-results RESULTS.jsonl", err=True)
    return 0


def _results(args: argparse.Namespace) -> int:
    r = jobs.import_batch_results(args.db, args.batch_results)
    store_report_pass(args.db)
    say(r.summary.format())
    return batch_exit_code(r.status, r.summary.errors, r.summary.sent, "requests")


def _submit(args: argparse.Namespace, backend) -> int:
    def started(batch_id: str, pairs: int, rubric, version: int, resuming: tuple[str, ...]) -> None:
        if resuming:
            say(f"resuming Batch API job(s) {', '.join(resuming)} (rubric {rubric.name} v{version}, "
                f"{backend.model}): nothing new is submitted; batch {batch_id}", err=True)
        elif pairs:
            say(f"judging {pairs} pairs x {args.repeats} repeats with {backend.model} through the Batch API "
                f"(rubric {rubric.name} v{version}, {rubric.sha256[:12]}), batch {batch_id}", err=True)

    def submitted(remote_id: str, requests: int) -> None:
        say(f"submitted Batch API job {remote_id}: {requests} requests", err=True)

    def polled(p: jobs.BatchPoll) -> None:
        if not args.quiet:
            say(f"{p.remote_id}: {p.status}, {p.completed}/{p.total} done, {p.failed} failed", err=True)

    def stopped(pending: tuple[str, ...]) -> None:
        say(f"stopped polling. Batch API job(s) {', '.join(pending)} keep running at the endpoint; run the same "
            "`judgecal judge --batch` (same --model, --rubric and --base-url) again to resume polling and store "
            "their results", err=True)
        sys.stderr.flush()

    try:
        result = jobs.judge_pairs_batch_api(
            args.db, backend, rubric=args.rubric, repeats=args.repeats, constraint=args.constraint,
            only_labelled=args.only_labelled, limit=args.limit, run_id=args.run_id, poll_s=args.poll_interval,
            on_start=started, on_submit=submitted, on_poll=polled, on_stop=stopped)
    finally:
        backend.close()
    for job in result.others:
        say(f"warning: Batch API job {job.remote_id} (rubric {job.rubric}, model {job.judge_model}, {job.endpoint}) "
            "has results not stored yet; this run does not resume it (another rubric version, model or endpoint): "
            f"judgecal judge --batch --rubric {job.rubric_sha256[:12]} --model {job.judge_model} --base-url "
            f"{job.endpoint}", err=True)
    if result.pairs == 0 and not result.resumed:
        say("nothing to judge: no (run record, semantic constraint) pairs match", err=True)
        return 0
    store_report_pass(args.db)
    say(result.summary.format())
    if result.unreadable:
        say(f"warning: {result.unreadable} result lines named no request of the job; their requests are error "
            "rows (batch_missing), asked again by the next run", err=True)
    if result.conflicting:
        say(f"warning: {result.conflicting} requests were answered twice with different answers; each is an error "
            "row (batch_conflict), asked again by the next run", err=True)
    return batch_exit_code(result.status, result.summary.errors, result.summary.sent, "requests")
