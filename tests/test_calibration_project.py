"""A small calibration project whose numbers are derived by hand in tests/test_calibration.py.

10 eval items with one semantic pass/fail constraint `grounded` (type content), one run each of model `m`, judged
3 times by judge `j` under rubric R1:

    run | repeats (0, 1, 2) | majority | alice (first reviewer) | sample rule
    1   | P P P             | P        | P                      | random, overlap (bob: P)
    2   | P P P             | P        | P                      | random, overlap (bob: F)
    3   | P P F             | P        | P (blind), F, back to P| random
    4   | F F F             | F        | F                      | random
    5   | F F P             | F        | F                      | random
    6   | P P P             | P        | F                      | random, overlap (bob: F)
    7   | F F F             | F        | P                      | random
    8   | P err F           | tie      | P                      | random
    9   | P P P             | P        | F                      | targeted
    10  | F F F             | F        | -                      | -

`carol` labels run 5 and undoes it (her label no longer stands).
"""

from __future__ import annotations

import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.evalsets import EvalItem, RunRecord, parse_rows

R1 = "1" * 64
R2 = "2" * 64
JUDGE = "j"
REPEATS = {
    1: "PPP", 2: "PPP", 3: "PPF", 4: "FFF", 5: "FFP", 6: "PPP", 7: "FFF", 8: "PEF", 9: "PPP", 10: "FFF",
}
ALICE = {1: "P", 2: "P", 3: "P", 4: "F", 5: "F", 6: "F", 7: "P", 8: "P", 9: "F"}
BOB = {1: "P", 2: "F", 6: "F"}
LABEL = {"P": "pass", "F": "fail"}


def build(path: Path, *, n_items: int = 10, constraint_type: str = "content", labelled: bool = True) -> Path:
    """The project above (`labelled=False`: items, runs and rubric R1 only; no verdicts, labels or samples)."""
    items = [{"id": f"item-{n}", "instruction": f"Task {n}", "input": f"input {n}",
              "split": "tune" if n <= 7 else "heldout",
              "constraints": [{"id": "grounded", "text": "Facts come from the input.", "type": constraint_type}]}
             for n in range(1, n_items + 1)]
    runs = [{"id": f"run-{n}", "item_id": f"item-{n}", "model": "m", "output": f"output {n}",
             "input_tokens": 10, "output_tokens": 5} for n in range(1, n_items + 1)]
    with ann.unit_of_work(path) as db:
        ann.import_items(db, parse_rows("\n".join(json.dumps(i) for i in items), EvalItem))
        ann.import_runs(db, parse_rows("\n".join(json.dumps(r) for r in runs), RunRecord))
        add_rubric(db, R1, 1)
        if not labelled:
            return path
        add_verdicts(db, R1, REPEATS)
        # run 3: blind first label pass, changed to fail after the reveal, then back to pass (history kept; the blind
        # first label is what agreement uses, `changed_after_reveal` counts the pair)
        add_label(db, "alice", 3, "pass", seen=R1)
        add_label(db, "alice", 3, "fail", seen=R1, event="change")
        for n, lab in ALICE.items():
            add_label(db, "alice", n, LABEL[lab], seen=R1, event="change" if n == 3 else "label")
        for n, lab in BOB.items():
            add_label(db, "bob", n, LABEL[lab], seen=R1)
        add_label(db, "carol", 5, "pass", seen=R1)
        add_label(db, "carol", 5, None, seen=R1, event="undo")
        for n in range(1, 9):
            add_sample(db, n, "random")
        for n in (1, 2, 6):
            add_sample(db, n, "overlap")
        add_sample(db, 9, "targeted")
    return path


def add_rubric(db, sha: str, version: int, name: str = "strict", created_at: str | None = None) -> None:
    with ann.write(db):
        db.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                   [sha, name, version, f"template v{version}", created_at or ann.now_iso()])


def add_verdicts(db, sha: str, repeats: dict[int, str], *, judge: str = JUDGE, tokens: tuple[int, int] = (100, 10)) -> None:
    rows = []
    for n, answers in repeats.items():
        for rep, a in enumerate(answers):
            label = None if a == "E" else LABEL[a]
            rows.append((f"run-{n}", "grounded", sha, judge, rep, label, f"because {label}" if label else None,
                         "timeout" if label is None else None, tokens[0], tokens[1], ann.now_iso()))
    with ann.write(db):
        db.conn.executemany(
            "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason,"
            " error, input_tokens, output_tokens, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)


def add_label(db, reviewer: str, n: int, label: str | None, *, seen: str | None, event: str = "label",
              note: str | None = None) -> None:
    with ann.write(db):
        db.execute("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, note,"
                   " rubric_version_seen, blind, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                   [f"run-{n}", "grounded", reviewer, event, label, note, seen, int(event == "label"), ann.now_iso()])


def add_sample(db, n: int, rule: str) -> None:
    with ann.write(db):
        db.execute("INSERT INTO samples (run_record_id, constraint_id, rule, stratum, drawn_at) VALUES (?,?,?,?,?)",
                   [f"run-{n}", "grounded", rule, f"grounded|m|{R1[:12]}", ann.now_iso()])
