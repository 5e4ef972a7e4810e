"""Judge commands: `judge`, `price`, and the `verdicts` kind of `import` / `export`.

Wires the judge package (rubrics, backends, batch runner) to the project store (annotations); neither imports the
other.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import annotations as ann
from annotations import _verdicts as av
from annotations._compare import require_run
from annotations._writer import WriterError
from evalsets import read_rows, write_jsonl
from judge import (
    DEFAULT_CONCURRENCY,
    DEFAULT_REPEATS,
    DEMO_QUALITY_WARNING,
    SHIPPED,
    FatalBackendError,
    OpenAIBackend,
    Rubric,
    run_batch,
    shipped_rubric,
)
from judge import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S
from judgecal._args import (
    CommandError,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    say,
)


def resolve_rubric(db, name_or_file: str) -> Rubric:
    """A rubric file (name = stem), a shipped rubric name, or the latest stored version of a name / a sha256."""
    path = Path(name_or_file)
    if path.suffix or os.sep in name_or_file or path.is_file():
        if not path.is_file():
            raise CommandError(f"rubric file not found: {path}")
        try:
            return Rubric.from_file(path)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: {exc}") from None
    if name_or_file in SHIPPED:
        return shipped_rubric(name_or_file)
    row = av.get_rubric(db, name_or_file)
    if row is None:
        raise CommandError(f"unknown rubric {name_or_file!r}: give a file, a shipped name ({', '.join(SHIPPED)}) "
                           "or a rubric stored in the project")
    if not row.template:
        raise CommandError(f"rubric {row.name} v{row.version} was imported with verdicts; its template is not known")
    rubric = Rubric.from_text(row.name, row.template, row.note)
    if rubric.sha256 != row.sha256:
        raise CommandError(f"rubric {row.name} v{row.version}: stored template does not hash to its sha256")
    return rubric


def _backend(args: argparse.Namespace):
    if args.backend == "local":
        from judge import LocalBackend, local_backend_available

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
    if args.repeats < 1 or args.concurrency < 1:
        raise CommandError("--repeats and --concurrency must be at least 1")
    backend = _backend(args)
    with ann.unit_of_work(args.db) as db:
        in_run = None
        if args.run_id is not None:  # checked before anything is stored: a bad run id changes nothing
            try:
                in_run = require_run(db, args.run_id)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        rubric = resolve_rubric(db, args.rubric)
        stored = av.store_rubric(db, rubric.name, rubric.template, rubric.sha256, rubric.note)
        pairs = list(ann.semantic_pairs(db, constraint_id=args.constraint))
        if in_run is not None:
            pairs = [p for p in pairs if p[0].id in in_run]
        if args.only_labelled:
            labelled = {(r["run_record_id"], r["constraint_id"]) for r in ann.current_labels(db)}
            pairs = [p for p in pairs if (p[0].id, p[2].id) in labelled]
        if args.limit is not None:
            pairs = pairs[: args.limit]
        price = av.get_price(db, backend.model)
        settings = backend.settings() | {
            "rubric": rubric.name, "rubric_version": stored.version, "rubric_sha256": rubric.sha256,
            "repeats": args.repeats, "concurrency": args.concurrency, "constraint": args.constraint,
            "only_labelled": args.only_labelled, "limit": args.limit, "pairs": len(pairs),
            **({"run_id": args.run_id} if args.run_id is not None else {}),
        }
        batch_id = av.start_batch(db, settings)
    if not pairs:
        with ann.unit_of_work(args.db) as db:
            av.finish_batch(db, batch_id, "done", {"planned": 0})
        say("nothing to judge: no (run record, semantic constraint) pairs match", err=True)
        return 0
    say(f"judging {len(pairs)} pairs x {args.repeats} repeats with {backend.model} "
        f"(rubric {rubric.name} v{stored.version}, {rubric.sha256[:12]}), batch {batch_id}", err=True)
    status, summary, fatal = "done", None, None
    try:
        with av.SqliteVerdictSink(args.db, batch_id) as sink:
            try:
                summary = run_batch(pairs, rubric, backend, sink, repeats=args.repeats, concurrency=args.concurrency,
                                    price=tuple(price) if price else None, progress=not args.quiet)
            except FatalBackendError as exc:
                fatal, summary = exc, getattr(exc, "summary", None)
    except WriterError as exc:
        # The writer thread failed (disk full, I/O error): the batch stops; what it committed is kept.
        fatal, summary = f"{exc} (verdicts committed before it are kept; re-run to resume)", None
    finally:
        backend.close()
    if summary is None or summary.interrupted:
        status = "interrupted"
    with ann.unit_of_work(args.db) as db:
        av.finish_batch(db, batch_id, status, summary.as_dict() if summary else {})
        flipped = sum(1 for r in av.judge_consistency(db, rubric.sha256, backend.model) if r.flipped)
    if fatal is not None:
        raise CommandError(f"judge batch stopped: {fatal}")
    say(summary.format())
    say(f"pairs whose repeats disagree (targeted for review): {flipped}")
    if args.backend == "local":
        say(f"note: {DEMO_QUALITY_WARNING}")
    return 130 if summary.interrupted else 0


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
    parsed = read_rows(file, av.VerdictImportRow, id_field=None)
    shas = {r.rubric_sha256 for r in parsed.rows}
    with ann.unit_of_work(db_path) as db, ann.write(db):
        # Verdicts of a shipped rubric (the demo's, or any judgecal user's) bring its real template along.
        for name in SHIPPED:
            rubric = shipped_rubric(name)
            if rubric.sha256 in shas:
                av.store_rubric(db, rubric.name, rubric.template, rubric.sha256, rubric.note)
        s = av.import_verdicts(db, parsed)
    return f"judge verdicts: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def _export_verdicts(db_path: Path, out: Path) -> str:
    with ann.unit_of_work(db_path, readonly=True) as db:
        n = write_jsonl(out, av.verdict_export_rows(db), header=ann.export_header(db, "verdicts"))
    return f"{n} verdicts rows written to {out}"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge", help="judge every (run record, semantic constraint) pair k times; resumable, cached",
        description="Judge every (run record, semantic constraint) pair --repeats times. Verdicts already stored "
                    "for the same rubric version and model are not asked again; error rows are. Endpoint settings: "
                    "--base-url / $OPENAI_BASE_URL, $OPENAI_API_KEY, --model / $JUDGECAL_MODEL.")
    p.add_argument("--rubric", default="strict", metavar="NAME_OR_FILE",
                   help="a rubric file (name = file stem; a changed file is a new version), a shipped rubric "
                        f"({', '.join(SHIPPED)}), or a rubric stored in the project (default: strict)")
    p.add_argument("--backend", choices=["openai", "local"], default="openai",
                   help="openai: any OpenAI-compatible endpoint; local: offline SmolLM2-135M (demo quality)")
    p.add_argument("--model", help="judge model (default: $JUDGECAL_MODEL)")
    p.add_argument("--base-url", help="endpoint (default: $OPENAI_BASE_URL, else api.openai.com)")
    p.add_argument("--api-key", help="prefer $OPENAI_API_KEY: a flag shows in the process list. Never stored.")
    p.add_argument("--repeats", type=positive_int, default=DEFAULT_REPEATS, metavar="K", help=f"verdicts per pair (default {DEFAULT_REPEATS})")
    p.add_argument("--concurrency", type=positive_int, default=DEFAULT_CONCURRENCY, metavar="N",
                   help=f"requests in flight (default {DEFAULT_CONCURRENCY})")
    p.add_argument("--constraint", metavar="ID", help="only this constraint id")
    p.add_argument("--run-id", metavar="RUN_ID", help="only the pairs of this run's records")
    p.add_argument("--only-labelled", action="store_true", help="only pairs that have a human label")
    p.add_argument("--limit", type=non_negative_int, metavar="N", help="only the first N pairs (in import order)")
    p.add_argument("--temperature", type=non_negative_float, default=0.0, help="default 0")
    p.add_argument("--seed", type=int, default=0, help="sent where the endpoint supports it (default 0)")
    p.add_argument("--no-seed", action="store_true", help="do not send a seed")
    p.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT_S, help=f"seconds per request (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--max-retries", type=non_negative_int, default=DEFAULT_MAX_RETRIES,
                   help=f"SDK retries on 429/5xx/timeouts, honouring Retry-After (default {DEFAULT_MAX_RETRIES})")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_judge)

    p = sub.add_parser("price", help="set or list judge model prices (for batch cost totals)")
    p.add_argument("model", nargs="?", help="judge model name as given to --model")
    p.add_argument("input_per_million", nargs="?", type=float, help="price per million input tokens")
    p.add_argument("output_per_million", nargs="?", type=float, help="price per million output tokens")
    p.set_defaults(func=cmd_price)
