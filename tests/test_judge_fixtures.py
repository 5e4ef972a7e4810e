"""Shared helpers of the judge tests and benches (no tests here): a generated project."""

from __future__ import annotations

import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.evalsets import EvalItem, RunRecord, parse_rows


def make_project(path: Path, n_items: int = 3, runs_per_item: int = 1, *, label_sets: bool = True,
                 output: str = "Order {n} ships on Friday. Thanks for waiting!") -> Path:
    """Items with two semantic pass/fail constraints (plus, with `label_sets`, a pairwise, a refusal and a 1-5
    constraint on the first item) and one mechanical check each; `runs_per_item` run records per item."""
    items, runs = [], []
    for n in range(n_items):
        constraints = [
            {"id": "grounded", "text": "Every fact in the answer comes from the input.", "type": "content"},
            {"id": "polite", "text": "The answer is polite.", "type": "content"},
            {"id": "short", "text": "At most 80 words.", "type": "format",
             "check": {"id": "length:max_words", "args": {"n": 80}}},
        ]
        item_input: object = {"question": f"Where is order {n}?"}
        if label_sets and n == 0:
            constraints += [
                {"id": "better", "text": "Which output answers the question more accurately?", "type": "content",
                 "labels": "pairwise"},
                {"id": "refusal", "text": "How far does the answer refuse the request?", "type": "content",
                 "labels": "refusal"},
                {"id": "helpful", "text": "How well does the answer address the question (1-5)?", "type": "content",
                 "labels": "likert5"},
            ]
            item_input = {"question": "Where is order 0?", "output_1": "It ships Friday.", "output_2": "No idea."}
        items.append({"id": f"item-{n}", "instruction": "Answer the customer's question.", "input": item_input,
                      "constraints": constraints})
        for k in range(runs_per_item):
            runs.append({"id": f"run-{n}-{k}", "item_id": f"item-{n}", "model": "agent-a",
                         "output": output.format(n=n)})
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
    return path
