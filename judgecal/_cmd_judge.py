"""Judge commands: `judge`, `price`, and the `verdicts` kind of `import` / `export`.

Wires the judge package (rubrics, backends, batch runner) to the project store (annotations); neither imports the
other.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations import store as av
from judgecal.evalsets import read_rows, stream_rows, write_jsonl
from judgecal.judge import (
    DEFAULT_CONCURRENCY,
    DEFAULT_REPEATS,
    DEMO_QUALITY_WARNING,
    SHIPPED,
    FatalBackendError,
    OpenAIBackend,
    Rubric,
    shipped_rubric,
    shipped_versions,
)
from judgecal.judge import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S
from judgecal import jobs
from judgecal import _cmd_judge_batch
from judgecal._batch_cli import (acknowledge_stop, batch_exit_code, exit_if_abandoned, job_errors,
                                 keep_report_aggregates, stop_grace_s, store_report_pass)
from judgecal._args import (
    CommandError,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    say,
)


def _backend(args: argparse.Namespace):
    if args.backend == "local":
        from judgecal.judge import LocalBackend, local_backend_available

        ok, why = local_backend_available()
        if not ok:
            raise CommandError(f"offline backend unavailable: {why}")
        say(f"warning: {DEMO_QUALITY_WARNING}", err=True)
        # One in-process model answers one request at a time; a single worker also keeps the repeats of a pair
        # back to back, so llama.cpp reuses the whole evaluated prompt for repeats 2..k.
        args.concurrency = 1
        return LocalBackend()
    model = args.model or os.environ.get("JUDGECAL_MODEL")
    if not model:
        raise CommandError("no judge model: give --model or set JUDGECAL_MODEL")
    try:
        return OpenAIBackend(
            model=model, base_url=args.base_url or os.environ.get("OPENAI_BASE_URL") or None,
            api_key=args.api_key, temperature=args.temperature, seed=None if args.no_seed else args.seed,
            timeout_s=args.timeout, max_retries=args.max_retries, concurrency=args.concurrency,
        )
    except FatalBackendError as exc:
        raise CommandError(str(exc)) from None


def cmd_judge(args: argparse.Namespace) -> int:
    if _cmd_judge_batch.wanted(args):
        return _cmd_judge_batch.run(args, _backend)
    if args.pairwise:
        return _cmd_pairwise(args)
    if args.repeats is None:
        args.repeats = DEFAULT_REPEATS
    if args.repeats < 1 or args.concurrency < 1:
        raise CommandError("--repeats and --concurrency must be at least 1")
    backend = _backend(args)

    def started(batch_id: str, pairs: int, rubric: Rubric, version: int) -> None:
        if pairs:
            say(f"judging {pairs} pairs x {args.repeats} repeats with {backend.model} "
                f"(rubric {rubric.name} v{version}, {rubric.sha256[:12]}), batch {batch_id}", err=True)

    with job_errors("judge batch stopped: {reason}", backend):
        result = jobs.judge_pairs(
            args.db, backend, rubric=args.rubric, repeats=args.repeats, concurrency=args.concurrency,
            constraint=args.constraint, only_labelled=args.only_labelled, limit=args.limit, progress=not args.quiet,
            run_id=args.run_id,
            grace_s=stop_grace_s(args), on_start=started, on_stop=acknowledge_stop("requests"))
    if result.pairs == 0:
        say("nothing to judge: no (run record, semantic constraint) pairs match", err=True)
        return 0
    store_report_pass(args.db)
    say(result.summary.format())
    say(f"pairs whose repeats disagree (targeted for review): {result.flipped}")
    if args.backend == "local":
        say(f"note: {DEMO_QUALITY_WARNING}")
    exit_if_abandoned(result.summary.abandoned)
    return batch_exit_code(result.status, result.summary.errors, result.summary.sent, "requests")


def _cmd_pairwise(args: argparse.Namespace) -> int:
    if args.constraint or args.only_labelled or args.limit is not None:
        raise CommandError("--pairwise judges every common item of the two runs: drop --constraint, --only-labelled "
                           "and --limit")
    run_a, run_b = args.pairwise
    backend = _backend(args)

    def started(batch_id: str, pairs: int, rubric: Rubric, version: int) -> None:
        say(f"judging {run_a} (A) vs {run_b} (B): {pairs} items x {args.repeats or 1} x both orders with "
            f"{backend.model} (rubric {rubric.name} v{version}, {rubric.sha256[:12]}), batch {batch_id}", err=True)

    with job_errors("judge batch stopped: {reason}", backend):
        result = jobs.judge_pairwise(
            args.db, backend, run_a, run_b, rubric=args.rubric, repeats=args.repeats or 1,
            concurrency=args.concurrency, progress=not args.quiet, grace_s=stop_grace_s(args), on_start=started,
            on_stop=acknowledge_stop("requests"))
    store_report_pass(args.db)  # its verdicts, and the pair records it wrote, move what the report's pass reads
    say(result.summary.format())
    say("")
    say(result.report.format())
    exit_if_abandoned(result.summary.abandoned)
    return batch_exit_code(result.status, result.summary.errors, result.summary.sent, "requests")


def cmd_price(args: argparse.Namespace) -> str:
    with ann.unit_of_work(args.db, readonly=args.model is None) as db:
        if args.model is not None:
            if args.input_per_million is None or args.output_per_million is None:
                raise CommandError("give MODEL INPUT_PER_MILLION OUTPUT_PER_MILLION")
            try:
                av.set_price(db, args.model, args.input_per_million, args.output_per_million)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        prices = av.list_prices(db)
    if not prices:
        return "no prices set"
    return "\n".join(f"{m}: {p.input_per_million:g} per million input tokens, {p.output_per_million:g} per million "
                     "output tokens" for m, p in prices.items())


def _import_verdicts(db_path: Path, file: Path) -> str:
    with ann.unit_of_work(db_path) as db:
        # Verdicts of a shipped rubric (the demo's, or any judgecal user's) bring its real template along.
        s = av.import_verdicts(db, stream_rows(file, av.VerdictImportRow, id_field=None), templates=shipped_versions())
        keep_report_aggregates(db)  # after the import's commit: the next report reads them back
    return f"judge verdicts: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def _export_verdicts(db_path: Path, out: Path) -> str:
    with ann.unit_of_work(db_path, readonly=True) as db:
        n = write_jsonl(out, av.verdict_export_rows(db), header=ann.export_header(db, "verdicts"))
    return f"{n} verdicts rows written to {out}"


def add_endpoint_flags(p: argparse.ArgumentParser, *, model_help: str = "judge model (default: $JUDGECAL_MODEL)",
                       seed_flag: str = "--seed",
                       seed_help: str = "sent where the endpoint supports it (default 0)") -> None:
    """The judge endpoint's flags, read by `_backend`: `judge`, `probe` and `drift` take the same ones."""
    p.add_argument("--backend", choices=["openai", "local"], default="openai",
                   help="openai: any OpenAI-compatible endpoint; local: offline SmolLM2-135M (demo quality)")
    p.add_argument("--model", help=model_help)
    p.add_argument("--base-url", help="endpoint (default: $OPENAI_BASE_URL, else api.openai.com)")
    p.add_argument("--api-key", help="prefer $OPENAI_API_KEY: a flag shows in the process list. Never stored.")
    p.add_argument("--concurrency", type=positive_int, default=DEFAULT_CONCURRENCY, metavar="N",
                   help=f"requests in flight (default {DEFAULT_CONCURRENCY})")
    p.add_argument("--temperature", type=non_negative_float, default=0.0, help="default 0")
    p.add_argument(seed_flag, dest="seed", type=int, default=0, help=seed_help)
    p.add_argument("--no-seed", action="store_true", help="do not send a seed")
    p.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT_S,
                   help=f"seconds per request (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--max-retries", type=non_negative_int, default=DEFAULT_MAX_RETRIES,
                   help=f"SDK retries on 429/5xx/timeouts, honouring Retry-After (default {DEFAULT_MAX_RETRIES})")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        description="Judge every (run record, semantic constraint) pair --repeats times. Verdicts already stored "
                    "for the same rubric version and model are not asked again; error rows are. Endpoint settings: "
                    "--base-url / $OPENAI_BASE_URL, $OPENAI_API_KEY, --model / $JUDGECAL_MODEL.")
    p.add_argument("--rubric", default="strict", metavar="NAME_OR_FILE",
                   help="a rubric file (name = file stem; a changed file is a new version), a shipped rubric "
                        f"({', '.join(SHIPPED)}), or a rubric stored in the project (default: strict)")
    p.add_argument("--repeats", type=positive_int, default=None, metavar="K",
                   help=f"verdicts per pair (default {DEFAULT_REPEATS}; with --pairwise: rounds of both orders, default 1)")
    p.add_argument("--pairwise", nargs=2, metavar=("RUN_A", "RUN_B"),
                   help="judge run A against run B on their common items, each pair in both orders (position "
                        "swap); prints position bias and the preference rate with exact 95%% intervals")
    p.add_argument("--constraint", metavar="ID", help="only this constraint id")
    p.add_argument("--run-id", metavar="RUN_ID", help="only the pairs of this run's records")
    p.add_argument("--only-labelled", action="store_true",
                   help="only pairs that have a human label (their stored error rows are not asked again: a retry "
                        "on the labelled pairs alone would gate a judge the population does not have; `judge` "
                        "without it retries every pair's)")
    p.add_argument("--limit", type=non_negative_int, metavar="N", help="only the first N pairs (in import order)")
    add_endpoint_flags(p)
    _cmd_judge_batch.add_flags(p)
    p.set_defaults(func=cmd_judge)

    p = sub.add_parser("price")
    p.add_argument("model", nargs="?", help="judge model name as given to --model")
    p.add_argument("input_per_million", nargs="?", type=float, help="price per million input tokens")
    p.add_argument("output_per_million", nargs="?", type=float, help="price per million output tokens")
    p.set_defaults(func=cmd_price)
