"""Project commands: demo, import/export of eval sets, runs, labels and checks, check, ifeval, app."""

from __future__ import annotations

import argparse
from pathlib import Path

import annotations as ann
import evalsets
from evalsets import Parsed, read_rows, write_jsonl
from judgecal.cli import EXPORTERS, IMPORTERS, CommandError, port

REPO = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO / "data"


def _import_evalset(db_path: Path, file: Path) -> str:
    parsed = evalsets.read_evalset(file)
    with ann.unit_of_work(db_path) as db:
        s = ann.import_items(db, parsed)
    return f"eval items: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def _import_runs(db_path: Path, file: Path) -> str:
    parsed = evalsets.read_runs(file)
    with ann.unit_of_work(db_path) as db:
        s = ann.import_runs(db, parsed)
    return f"run records: {s['inserted']} imported, {s['unchanged']} already present ({file})"


def _import_labels(db_path: Path, file: Path) -> str:
    parsed = read_rows(file, ann.HumanLabelRow, id_field=None)
    with ann.unit_of_work(db_path) as db:
        n = ann.import_labels(db, parsed)
    return f"human labels: {n} imported, {len(parsed.rows) - n} already present ({file})"


def _import_ifeval(db_path: Path, file: Path) -> str:
    rows = evalsets.read_ifeval(file)
    items, runs = evalsets.ifeval_to_evalset(rows)
    with ann.unit_of_work(db_path) as db, ann.write(db):
        # Both imports in one transaction: an IFEval file comes in whole or not at all.
        s1 = ann.import_items(db, Parsed(str(file), items, list(range(1, len(items) + 1))))
        s2 = ann.import_runs(db, Parsed(str(file), runs, list(range(1, len(runs) + 1))))
    return f"IFEval: {s1['inserted']} eval items and {s2['inserted']} run records imported ({file})"


def _exporter(kind: str, rows_fn):
    def export(db_path: Path, out: Path) -> str:
        with ann.unit_of_work(db_path, readonly=True) as db:
            n = write_jsonl(out, rows_fn(db), header=ann.export_header(db, kind))
        return f"{n} {kind} rows written to {out}"

    return export


IMPORTERS.update(
    evalset=("eval items (JSONL/CSV)", _import_evalset),
    runs=("run records (JSONL/CSV)", _import_runs),
    labels=("human labels (JSONL/CSV; fields in README)", _import_labels),
    ifeval=("an IFEval-format file as eval items + run records", _import_ifeval),
)
EXPORTERS.update(
    evalset=("eval items", _exporter("evalset", ann.item_rows)),
    runs=("run records", _exporter("runs", ann.run_rows)),
    checks=("mechanical check results", _exporter("checks", ann.check_export_rows)),
    labels=("every human label event", _exporter("labels", ann.label_export_rows)),
)


def cmd_demo(args: argparse.Namespace) -> str:
    """Create the demo project (or bring an existing one up to date: imports are idempotent, labels are kept)."""
    messages = [
        _import_evalset(args.db, DEMO_DIR / "demo_evalset.jsonl"),
        _import_runs(args.db, DEMO_DIR / "demo_runs.jsonl"),
        # Five runs of demo-agent-a on each boundary item: the boundary report's reproducibility cases.
        _import_runs(args.db, DEMO_DIR / "demo_boundary_runs.jsonl"),
    ]
    # Verdicts recorded from a real judge run, and the sample drawn for review, when those features exist.
    for kind, name in (("verdicts", "demo_verdicts.jsonl"),):
        if kind in IMPORTERS and (DEMO_DIR / name).exists():
            messages.append(IMPORTERS[kind][1](args.db, DEMO_DIR / name))
    with ann.unit_of_work(args.db) as db:
        ann.run_checks(db)
        # Drawing again adds nothing (a drawn pair stays drawn); after new verdicts it tops the strata up.
        s = ann.draw_sample(db)
    messages.append(
        f"Review sample: {s.random_total} random, {s.targeted_total} targeted, {s.overlap_total} overlap pairs")
    messages.append(f"Demo project ready: {args.db}")
    messages.append(f"Open it in the browser:  judgecal --db {args.db} app")
    return "\n".join(messages)


def cmd_check(args: argparse.Namespace) -> str:
    with ann.unit_of_work(args.db) as db:
        n = ann.run_checks(db)
        rows = list(ann.check_rows(db))
    if not rows:
        return "no mechanical checks to run (import an eval set with checks and run records first)"
    metrics = evalsets.compute_metrics(rows)
    return f"{n} check results stored\n\n{evalsets.format_metrics(metrics)}"


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


def cmd_app(args: argparse.Namespace) -> int:
    """Start the Streamlit review app on the project database (judgecal/_app_server.py: host, port, stopping)."""
    from judgecal._app_server import AppError, serve

    try:
        return serve(REPO / "app.py", Path(args.db).resolve(), host=args.host, port=args.port, headless=args.headless)
    except AppError as exc:
        raise CommandError(str(exc)) from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="create or refresh the demo project database")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("check", help="run the mechanical checks on all run records; print metrics")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("ifeval", help="score an IFEval-format file with the official IFEval semantics")
    p.add_argument("file", type=Path)
    p.add_argument("--loose", action="store_true", help="IFEval's loose mode")
    p.add_argument("--out", type=Path, help="write one result line per prompt (IFEval's result shape)")
    p.set_defaults(func=cmd_ifeval)

    p = sub.add_parser("app", help="open the review app (Streamlit) on the project")
    p.add_argument("--port", type=port, default=8501)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only). 0.0.0.0 serves the network; "
                        "judgecal warns unless authentication is configured ($JUDGECAL_AUTH or [auth] in "
                        ".streamlit/secrets.toml)")
    p.add_argument("--headless", action="store_true", help="do not open a browser window")
    p.set_defaults(func=cmd_app)
