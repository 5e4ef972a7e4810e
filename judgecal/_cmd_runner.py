"""Runner commands: `run` (put the eval set to a model) and `compare` (two runs side by side, a switch verdict for CI,
or `--boundary`: the boundary acceptance report of a run).

Wires the model runner (judgecal.runner) to the project store: the runner hands each finished task to a sink, which
writes it as a run record through annotations (judge does not import annotations).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from judgecal import annotations as ann
from judgecal.evalsets import RunRecord, load_json
from judgecal.judge import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S, Endpoint, FatalBackendError
from judgecal.runner import (
    DEFAULT_LOOP_LIMIT,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_RUN_CONCURRENCY,
    DEFAULT_SYSTEM_PROMPT,
    DEFAULT_TASK_TIMEOUT_S,
    ModelClient,
    RunSettings,
    RunSummary,
)
from judgecal import jobs
from judgecal._batch_cli import acknowledge_stop, batch_exit_code, exit_if_abandoned, job_errors
from judgecal._args import (
    CommandError,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    say,
)


def read_tools(path: Path) -> tuple[dict[str, Any], ...]:
    """A JSON list of OpenAI function-tool specs ({"type": "function", "function": {"name": ..., ...}})."""
    try:
        data = load_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(data, list):
        raise CommandError(f"{path}: expected a JSON list of tool specs")
    for n, spec in enumerate(data):
        fn = spec.get("function") if isinstance(spec, dict) else None
        if not isinstance(spec, dict) or spec.get("type") != "function" or not isinstance(fn, dict) or not fn.get("name"):
            raise CommandError(f"{path}: tool {n}: expected {{\"type\": \"function\", \"function\": {{\"name\": ...}}}}")
    return tuple(data)


def _progress(stream=sys.stderr):
    last = [0.0]

    def on_record(record: RunRecord, summary: RunSummary) -> None:
        now = time.monotonic()
        if now - last[0] >= 5.0:
            last[0] = now
            failed = summary.done - summary.ok
            stream.write(f"run: {summary.done}/{summary.planned - summary.stored_before} tasks, {failed} failed\n")
            stream.flush()

    return on_record


def cmd_run(args: argparse.Namespace) -> int:
    model = args.model
    if not model:
        raise CommandError("give --model (the model under test)")
    system = DEFAULT_SYSTEM_PROMPT
    if args.system is not None:
        try:
            system = args.system.read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{args.system}: {exc}") from None
    tools = read_tools(args.tools) if args.tools is not None else None
    run_id = args.run_id or f"run-{model}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}"
    with ann.unit_of_work(args.db) as db:
        evalset = ann.project_evalset_sha256(db)
    try:
        settings = RunSettings(
            run_id=run_id, system_prompt=system,
            tools=tools, prompt_version=args.prompt_version, max_rounds=args.max_rounds, loop_limit=args.loop_limit,
            task_timeout_s=args.task_timeout, repeats=args.repeats, concurrency=args.concurrency, evalset_sha256=evalset)
        endpoint = Endpoint(base_url=args.base_url or os.environ.get("OPENAI_BASE_URL") or None,
                            api_key=args.api_key, timeout_s=args.timeout, max_retries=args.max_retries,
                            concurrency=args.concurrency)
        backend = ModelClient(model=model, endpoint=endpoint, temperature=args.temperature,
                              seed=None if args.no_seed else args.seed)
    except (ValueError, FatalBackendError) as exc:
        raise CommandError(str(exc)) from None

    def started(batch_id: str, items: int) -> None:
        say(f"running {items} items x {args.repeats} with {model} (prompt {settings.version}), run id {run_id}",
            err=True)

    with job_errors(f"run stopped: {{reason}} (re-run with --run-id {run_id} to resume)", backend):
        result = jobs.run_evalset(args.db, backend, settings, item_ids=args.item, tags=args.tag, limit=args.limit,
                                  on_start=started,
                                  on_record=None if args.quiet else _progress(), grace_s=args.timeout,
                                  on_stop=acknowledge_stop("tasks"))
    summary = result.summary
    say(summary.format())
    say(f"run id: {run_id}  (re-run with --run-id {run_id} to resume; compare it with another run: "
        f"judgecal compare OTHER_RUN {run_id})")
    exit_if_abandoned(summary.abandoned)
    return batch_exit_code(result.status, summary.errors, summary.done, "tasks")


def cmd_compare(args: argparse.Namespace) -> int:
    with ann.unit_of_work(args.db, readonly=True) as db:
        try:
            if args.boundary:
                reports = [ann.boundary_report(db, r, expected_runs=args.runs, rubric_sha256=args.rubric_sha256,
                                               judge_model=args.judge_model) for r in args.runs_ids]
                if args.json:
                    say(json.dumps([r.as_dict() for r in reports], ensure_ascii=False, indent=2))
                else:
                    say("\n\n".join(ann.format_boundary(r) for r in reports))
                return 0
            if len(args.runs_ids) != 2:
                raise CommandError("compare needs two run ids: RUN_A (current) RUN_B (candidate)")
            thresholds = ann.read_thresholds(args.thresholds) if args.thresholds else None
            comparison = ann.compare_runs(db, *args.runs_ids, thresholds=thresholds,
                                          rubric_sha256=args.rubric_sha256, judge_model=args.judge_model,
                                          allow_prompt_change=args.allow_prompt_change)
        except (ValueError, OSError) as exc:
            raise CommandError(str(exc)) from None
    if args.json:
        say(comparison.to_json())
    else:
        say(ann.format_comparison(comparison))
    return 0 if comparison.decision is None or comparison.decision.switch else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        description="Put every eval item to a model with the same system prompt, tools, temperature and timeouts "
                    "for every model. Agent items (with fixtures) get a tool-calling loop whose tools answer from "
                    "the fixtures. Each task is stored as a run record when it ends; a failed task is a record with "
                    "its error cause. Re-running with the same --run-id skips stored tasks. Endpoint: --base-url / "
                    "$OPENAI_BASE_URL, $OPENAI_API_KEY. See docs/runner.md.")
    p.add_argument("--model", help="the model under test, as the endpoint names it")
    p.add_argument("--base-url", help="endpoint (default: $OPENAI_BASE_URL, else api.openai.com)")
    p.add_argument("--api-key", help="prefer $OPENAI_API_KEY: a flag shows in the process list. Never stored.")
    p.add_argument("--prompt-version", metavar="V", help="label stored on every record (default: p-<hash of system "
                   "prompt, task template and tools>)")
    p.add_argument("--system", type=Path, metavar="FILE", help="system prompt file (default: the runner's)")
    p.add_argument("--tools", type=Path, metavar="FILE", help="JSON list of OpenAI function-tool specs for agent items "
                   "(default: one spec per fixture of the item)")
    p.add_argument("--max-rounds", type=positive_int, default=DEFAULT_MAX_ROUNDS, metavar="N",
                   help=f"model requests per task before error max_rounds (default {DEFAULT_MAX_ROUNDS})")
    p.add_argument("--loop-limit", type=positive_int, default=DEFAULT_LOOP_LIMIT, metavar="N",
                   help=f"identical tool calls before error loop (default {DEFAULT_LOOP_LIMIT})")
    p.add_argument("--concurrency", type=positive_int, default=DEFAULT_RUN_CONCURRENCY, metavar="N",
                   help=f"tasks in flight (default {DEFAULT_RUN_CONCURRENCY})")
    p.add_argument("--run-id", metavar="ID", help="name of the run (default: run-<model>-<UTC time>); reuse to resume")
    p.add_argument("--repeats", type=positive_int, default=1, metavar="N", help="runs of each item (default 1; 5 for the "
                   "boundary report's reproducibility)")
    p.add_argument("--item", action="append", metavar="ID", help="only this item (repeatable)")
    p.add_argument("--tag", action="append", metavar="TAG",
                   help="only items with this tag, e.g. boundary:tool_overreach to re-run one boundary category "
                        "(repeatable: any of them)")
    p.add_argument("--limit", type=non_negative_int, metavar="N", help="only the first N items (in import order)")
    p.add_argument("--temperature", type=non_negative_float, default=0.0, help="default 0")
    p.add_argument("--seed", type=int, default=0, help="sent where the endpoint supports it (default 0)")
    p.add_argument("--no-seed", action="store_true", help="do not send a seed")
    p.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT_S,
                   help=f"seconds per request (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--task-timeout", type=positive_float, default=DEFAULT_TASK_TIMEOUT_S,
                   help=f"seconds per task, all rounds and retries (default {DEFAULT_TASK_TIMEOUT_S:g})")
    p.add_argument("--max-retries", type=non_negative_int, default=DEFAULT_MAX_RETRIES,
                   help=f"SDK retries on 429/5xx/timeouts, honouring Retry-After (default {DEFAULT_MAX_RETRIES})")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "compare",
        description="Per run: task completion, tool-call parse rate, structured-output and constraint pass rates, "
                    "rounds, tokens, P50/P95 latency, cost, errors by cause; per item: both fail / only A / only B / "
                    "both pass. With --thresholds FILE the exit code is 0 (switch to B) or 1 (don't). With "
                    "--boundary RUN...: the boundary acceptance report of each run. See docs/runner.md.")
    p.add_argument("runs_ids", nargs="+", metavar="RUN", help="run ids: RUN_A RUN_B, or with --boundary one or more")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--thresholds", type=Path, metavar="FILE",
                   help="JSON object; keys: " + ", ".join(ann.THRESHOLD_KEYS))
    p.add_argument("--boundary", action="store_true", help="boundary acceptance report of each RUN instead")
    p.add_argument("--runs", type=positive_int, default=ann.DEFAULT_EXPECTED_RUNS, metavar="N",
                   help=f"with --boundary: runs expected per case (default {ann.DEFAULT_EXPECTED_RUNS})")
    p.add_argument("--rubric-sha256", metavar="SHA", help="judge labels from this rubric version only")
    p.add_argument("--judge-model", metavar="MODEL", help="judge labels from this judge model only")
    p.add_argument("--allow-prompt-change", action="store_true",
                   help="the runs' prompt versions may differ (a prompt A/B): no refusal under --thresholds")
    p.set_defaults(func=cmd_compare)
