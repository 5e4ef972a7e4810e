"""Project commands: demo, import/export of eval sets, runs, labels and checks, check, ifeval, app."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgecal import annotations as ann
from judgecal import evalsets
from judgecal.annotations.reports import require_run
from judgecal.evalsets import write_jsonl
from judgecal._args import CommandError, port, say
from judgecal._batch_cli import keep_report_aggregates
from judgecal._transfer import IMPORTERS, import_evalset, import_runs

PACKAGE = Path(__file__).resolve().parent
# The wheel ships the demo files as judgecal/data; a checkout keeps them in the repository's data/
# (package-dir maps that folder to judgecal.data only when building).
DEMO_DIR = PACKAGE / "data" if (PACKAGE / "data").is_dir() else PACKAGE.parent / "data"
# The router script `judgecal app` hands to Streamlit: inside the package, so the wheel has it too.
APP_SCRIPT = PACKAGE / "_app.py"


def cmd_demo(args: argparse.Namespace) -> str:
    """Create the demo project (or bring an existing one up to date: imports are idempotent, labels are kept)."""
    messages = [
        import_evalset(args.db, DEMO_DIR / "demo_evalset.jsonl"),
        import_runs(args.db, DEMO_DIR / "demo_runs.jsonl"),
        # Five runs of demo-agent-a on each boundary item: the boundary report's reproducibility cases.
        import_runs(args.db, DEMO_DIR / "demo_boundary_runs.jsonl"),
    ]
    # Verdicts recorded from a real judge run.
    if (DEMO_DIR / "demo_verdicts.jsonl").exists():
        messages.append(IMPORTERS["verdicts"].run(args.db, DEMO_DIR / "demo_verdicts.jsonl"))
    with ann.unit_of_work(args.db) as db:
        ann.run_checks(db)
        # Drawing again adds nothing (a drawn pair stays drawn); after new verdicts it tops the strata up.
        s = ann.draw_sample(db)
        keep_report_aggregates(db)
    messages.append(
        f"Review sample: {s.random_total} random, {s.targeted_total} targeted, {s.overlap_total} overlap pairs")
    messages.append(f"Demo project ready: {args.db}")
    messages.append(f"Open it in the browser:  judgecal --db {args.db} app")
    return "\n".join(messages)


def cmd_check(args: argparse.Namespace) -> str:
    with ann.unit_of_work(args.db) as db:
        in_run = None
        if args.run_id is not None:
            try:
                in_run = require_run(db, args.run_id)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        n = ann.run_checks(db)
        rows = [r for r in ann.check_rows(db) if in_run is None or r["run_record_id"] in in_run]
        loose = ann.loose_ignored(db)
    if not rows:
        return "no mechanical checks to run (import an eval set with checks and run records first)"
    metrics = evalsets.compute_metrics(rows)
    return f"{n} check results stored\n\n{evalsets.format_metrics(metrics)}" + _check_notes(rows, loose)


def _check_notes(rows: list[dict], loose: list[tuple[str, str, str]], shown: int = 10) -> str:
    """What `judgecal check` says besides the metrics: checks whose checker raised (stored as failed, the error as
    detail) and stored checks whose `loose` was ignored (not IFEval's checker: refused on import since wave 17)."""
    errors = [r for r in rows if r["detail"].startswith(evalsets.CHECKER_ERROR)]
    notes = []
    if errors:
        notes.append(f"{len(errors)} check(s) could not run and are stored as failed (the checker raised):")
        notes += [f"  item {r['item_id']!r}, record {r['run_record_id']!r}, constraint {r['constraint_id']!r} "
                  f"({r['checker']}): {r['detail']}" for r in errors[:shown]]
        notes += [f"  … and {len(errors) - shown} more"] if len(errors) > shown else []
    if loose:
        notes.append(f"{len(loose)} stored check(s) ask for 'loose' on a checker that is not IFEval's; loose mode "
                     "was ignored (checked strictly):")
        notes += [f"  item {i!r}, constraint {c!r} ({k})" for i, c, k in loose[:shown]]
        notes += [f"  … and {len(loose) - shown} more"] if len(loose) > shown else []
    return "".join(f"\n{line}" for line in (["", *notes] if notes else []))


def cmd_ifeval(args: argparse.Namespace) -> str:
    rows = evalsets.read_ifeval(args.file)
    results = evalsets.evaluate_ifeval(rows, loose=args.loose)
    if args.out:
        write_jsonl(args.out, results)
    s = evalsets.summarize_ifeval(results)
    mode = "loose" if args.loose else "strict"
    return (
        f"IFEval ({mode}) on {args.file}\n"
        f"prompt-level accuracy:      {s.prompts_followed}/{s.prompts} = {s.prompt_accuracy:.4f}\n"
        f"instruction-level accuracy: {s.instructions_followed}/{s.instructions} = {s.instruction_accuracy:.4f}"
        + (f"\nresults written to {args.out}" if args.out else "")
    )


def _summary(doc: str, limit: int = 100) -> str:
    """A docstring's first sentence on one line (docstrings wrap mid-sentence, so the first line alone is cut)."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    sentence = paragraph.split(". ", 1)[0].rstrip(".") + "."
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def cmd_checkers(args: argparse.Namespace) -> int:
    """List every checker (built-in, bundled, plugins) with its source distribution and the first line of its doc.
    A plugin that failed to load is named on stderr and the exit code is 1, so CI can catch a broken plugin."""
    registry = evalsets.default_registry()
    specs = sorted(registry.all().values(), key=lambda s: (s.source != "judgecal", s.source, s.id))
    width = max((len(s.id) for s in specs), default=2)
    source_width = max((len(s.source) for s in specs), default=6)
    say(f"{'id'.ljust(width)}  {'source'.ljust(source_width)}  description")
    for s in specs:
        say(f"{s.id.ljust(width)}  {s.source.ljust(source_width)}  {_summary(s.doc)}")
    problems = registry.problems()
    for problem in problems:
        say(f"error: {problem}", err=True)
    return 1 if problems else 0


def cmd_app(args: argparse.Namespace) -> int:
    """Start the Streamlit review app on the project database (judgecal/_app_server.py: host, port, stopping)."""
    from judgecal._app_server import AppError, serve

    try:
        return serve(APP_SCRIPT, Path(args.db).resolve(), host=args.host, port=args.port, headless=args.headless)
    except AppError as exc:
        raise CommandError(str(exc)) from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("check")
    p.add_argument("--run-id", metavar="RUN_ID", help="print the metrics of this run's records only (all are checked)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("ifeval")
    p.add_argument("file", type=Path)
    p.add_argument("--loose", action="store_true", help="IFEval's loose mode")
    p.add_argument("--out", type=Path, help="write one result line per prompt (IFEval's result shape)")
    p.set_defaults(func=cmd_ifeval)

    p = sub.add_parser("checkers")
    p.set_defaults(func=cmd_checkers)

    p = sub.add_parser("app")
    p.add_argument("--port", type=port, default=8501)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only). 0.0.0.0 serves the network; "
                        "judgecal warns unless authentication is configured ($JUDGECAL_AUTH or [auth] in "
                        ".streamlit/secrets.toml)")
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.set_defaults(func=cmd_app)
