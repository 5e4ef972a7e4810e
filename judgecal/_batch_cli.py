"""What `judge` and `run` print and return around a batch: the Ctrl+C acknowledgement and the exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterator

from judgecal._args import EXIT_NOTHING_ANSWERED, CommandError, say


def store_report_pass(db_path: Any) -> None:
    """After a judge batch's verdicts are committed: `keep_report_aggregates` on its own connection."""
    from judgecal import annotations as ann  # noqa: PLC0415

    with ann.unit_of_work(db_path) as db:
        keep_report_aggregates(db)


def keep_report_aggregates(db: Any) -> None:
    """After a command's verdicts are committed: store what the report computes from every judged pair and no label,
    so the next `report`/`gate` reads it back (`annotations.store_report_pass`, migration 023). Derived data, stored
    after the command's own work is done: a failure here is a warning, never the command's failure (its rows are
    committed; the next report computes what was not stored)."""
    from judgecal import annotations as ann  # noqa: PLC0415

    _keep(ann.store_report_pass, db)


def keep_sample_side(db: Any) -> None:
    """After a draw is committed (`sample`): store what the report reads of the random sample apart from labels, as
    `keep_report_aggregates` does (`annotations.store_sample_side`), and the labelled pairs' sample rules the draw
    moved (`annotations.store_labelled_rules`), a failure a warning."""
    from judgecal import annotations as ann  # noqa: PLC0415

    _keep(ann.store_sample_side, db)
    _keep(ann.store_labelled_rules, db)  # the labelled pairs' sample rules moved with the draw


def keep_label_side(db: Any) -> None:
    """After labels are committed (`import labels`): store what the report reads of every labelled pair whatever its
    label (`annotations.store_label_side`), as `keep_report_aggregates` does, a failure a warning."""
    from judgecal import annotations as ann  # noqa: PLC0415

    _keep(ann.store_label_side, db)


def _keep(store: Any, db: Any) -> None:
    try:
        store(db)
    except Exception as exc:  # noqa: BLE001 - derived data, stored after the command's committed work
        say(f"warning: the report's stored aggregates were not updated ({type(exc).__name__}: {exc}); the next "
            "report computes them", err=True)


def stop_grace_s(args: argparse.Namespace) -> float | None:
    """How long the first Ctrl+C waits for requests in flight: one request timeout (no retries after it)."""
    return args.timeout if getattr(args, "backend", "openai") == "openai" else None


def acknowledge_stop(what: str):
    """on_stop callback: say at once that the batch is stopping, and how to stop waiting."""

    def on_stop(in_flight: int) -> None:
        say(f"stopping: waiting for {in_flight} {what} in flight, Ctrl-C again to abandon them", err=True)
        sys.stderr.flush()

    return on_stop


def exit_if_abandoned(abandoned: int) -> None:
    """After a second Ctrl+C the abandoned requests' threads still sit in socket reads; interpreter shutdown would
    wait on them (up to a request timeout). Everything is committed and the batch recorded by now: leave at once."""
    if abandoned:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)


def batch_exit_code(status: str, errors: Counter, attempted: int, what: str) -> int:
    """130 interrupted; EXIT_NOTHING_ANSWERED when every request failed (causes on stderr); else 0, with the
    failures counted by cause on stderr when some failed."""
    n_errors = sum(errors.values())
    causes = ", ".join(f"{k}: {v}" for k, v in errors.most_common())
    if status == "interrupted":
        return 130
    if status == "failed":
        say(f"error: none of {attempted} {what} was answered ({causes}); the batch is recorded as failed", err=True)
        return EXIT_NOTHING_ANSWERED
    if n_errors:
        say(f"warning: {n_errors} of {attempted} {what} failed ({causes}); a re-run asks them again", err=True)
    return 0


@contextmanager
def job_errors(stopped: str, backend: Any = None) -> Iterator[None]:
    """A job's failures as the CLI reports them: `JobError` (nothing started) and `BatchStopped` (a fatal error
    midway; `stopped` names the batch and how to resume) are exit 2; the endpoint client is closed either way."""
    from judgecal import jobs  # noqa: PLC0415  (jobs imports the judge; a command parses its arguments first)

    try:
        yield
    except jobs.JobError as exc:
        raise CommandError(str(exc)) from None
    except jobs.BatchStopped as exc:
        raise CommandError(stopped.format(reason=exc.reason)) from None
    finally:
        if backend is not None:
            backend.close()
