"""`judgecal feedback`: turn a failing (or disputed) pair into a derived eval item, the same function as the app's
"Send to eval set" button (annotations/reports/_disagreements.py)."""

from __future__ import annotations

import argparse
import os

from judgecal import annotations as ann
from judgecal._args import CommandError, say


def cmd_feedback(args: argparse.Namespace) -> str:
    who = args.who or os.environ.get("JUDGECAL_REVIEWER") or ""
    if not who.strip():
        raise CommandError("feedback: who sends it? give --who NAME (or set $JUDGECAL_REVIEWER)")
    with ann.unit_of_work(args.db, create=False) as db:
        try:
            sent = ann.send_to_evalset(db, args.run_record, args.constraint, who=who, reason=args.note,
                                       split=args.split)
        except ValueError as exc:
            raise CommandError(f"feedback: {exc}") from None
    # The id alone on stdout, so a script can capture it; what happened goes to stderr.
    say("added eval item" if sent.added else "already in the eval set (same content)", err=True)
    return sent.item_id


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("feedback")
    p.add_argument("--run-record", required=True, metavar="R", help="run record id")
    p.add_argument("--constraint", required=True, metavar="C", help="constraint id on that record's item")
    p.add_argument("--note", metavar="TEXT", help="why it goes to the eval set (kept with the item's provenance)")
    p.add_argument("--split", choices=("tune", "heldout"),
                   help="the new item's split (default: the source item's, so a heldout case stays heldout)")
    p.add_argument("--who", metavar="NAME", help="author (default: $JUDGECAL_REVIEWER)")
    p.set_defaults(func=cmd_feedback)
