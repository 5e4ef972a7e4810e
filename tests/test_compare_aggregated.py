"""Issue 16.2: `compare` sums judge repeats up in SQLite (one row per pair and judge version) and reads items and
records as stored rows. The attack: a retry by another judge version, repeats that tie, a version whose every repeat
failed, an item answered twice in one run, a human label on a checked pair, a failed record that was judged and
labelled. Each must count exactly as the row-by-row rule counts it: `constraint_passed` on the validated item and
record, the judge majority of the latest version that labelled the pair (`majority_label`), the corrected rate's
one judge version (most pairs reached, then the latest verdict, error rows included)."""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main

RUNS = ["demo-run-a", "demo-run-b"]


def _reference_judge(db, run_ids):
    """The row-by-row rule over every verdict of the runs: per pair, the latest labelled version's majority; the
    version reaching most pairs (then the latest id) and its `ppi_prediction` per pair."""
    marks = ",".join("?" * len(run_ids))
    groups: dict = {}
    for rid, cid, sha, model, label, vid in db.execute(
            "SELECT v.run_record_id, v.constraint_id, v.rubric_sha256, v.judge_model, v.label, v.id FROM verdicts v"
            f" JOIN run_records r ON r.id = v.run_record_id WHERE r.run_id IN ({marks})", run_ids):
        g = groups.setdefault((rid, cid), {}).setdefault((sha, model), {"last": 0, "last_label": 0, "labels": []})
        g["last"] = max(g["last"], vid)
        if label is not None:
            g["last_label"] = max(g["last_label"], vid)
            g["labels"].append(label)
    judge = {}
    reach: dict = {}
    for pair, by_version in groups.items():
        labelled = [g for g in by_version.values() if g["labels"]]
        if labelled and (m := ann.majority_label(max(labelled, key=lambda g: g["last_label"])["labels"])):
            judge[pair] = m
        for version, g in by_version.items():
            r = reach.setdefault(version, [0, 0])
            r[0] += 1
            r[1] = max(r[1], g["last"])
    source = max(reach, key=lambda k: tuple(reach[k]))
    ppi = {pair: ann.ppi_prediction(bv[source]["labels"]) for pair, bv in groups.items() if source in bv}
    return judge, ppi, source


@pytest.fixture()
def attacked(tmp_path: Path) -> Path:
    path = tmp_path / "demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
    with ann.unit_of_work(path) as db, ann.write(db):
        c = db.conn
        sha, model = c.execute("SELECT rubric_sha256, judge_model FROM verdicts LIMIT 1").fetchone()
        semantic = c.execute(
            "SELECT DISTINCT v.run_record_id, v.constraint_id FROM verdicts v JOIN run_records r"
            " ON r.id = v.run_record_id WHERE r.run_id = 'demo-run-b' AND r.error IS NULL ORDER BY 1, 2").fetchall()
        assert len(semantic) >= 12
        fields = "run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error, created_at"

        def add(pair, judge, repeat, label, error=None):
            c.execute(f"INSERT INTO verdicts ({fields}) VALUES (?,?,?,?,?,?,?, '2026-01-01T00:00:00Z')",
                      [*pair, sha, judge, repeat, label, error])

        # a retry by another judge version, flipping the first judge's label: the latest version settles the pair
        for pair in semantic[0:4]:
            first = c.execute("SELECT label FROM verdicts WHERE run_record_id = ? AND constraint_id = ? AND label"
                              " IS NOT NULL", pair).fetchone()[0]
            add(pair, "retry-judge", 0, "fail" if first == "pass" else "pass")
        # a later version whose repeats tie: the pair is unjudged (no falling back to the older version)
        for pair in semantic[4:7]:
            add(pair, "tie-judge", 0, "pass")
            add(pair, "tie-judge", 1, "fail")
        # a later version whose every repeat failed: not a label, the older version's label stands
        for pair in semantic[7:10]:
            add(pair, "broken-judge", 0, None, "timeout")
            add(pair, "broken-judge", 1, None, "server_error")
        # an item answered twice in run B: a second record of the first item, judged the other way
        rid, item = c.execute("SELECT id, item_id FROM run_records WHERE run_id = 'demo-run-b' AND error IS NULL"
                              " ORDER BY seq LIMIT 1").fetchone()
        cols = [r[1] for r in c.execute("PRAGMA table_info(run_records)")]
        select = ", ".join({"id": "id || '-again'", "seq": "(SELECT max(seq) + 1 FROM run_records)"}.get(k, k)
                           for k in cols)
        c.execute(f"INSERT INTO run_records ({', '.join(cols)}) SELECT {select} FROM run_records WHERE id = ?", [rid])
        c.execute(f"INSERT INTO verdicts ({fields}) SELECT run_record_id || '-again', constraint_id, rubric_sha256,"
                  " judge_model, repeat, CASE label WHEN 'pass' THEN 'fail' WHEN 'fail' THEN 'pass' ELSE label END,"
                  " error, created_at FROM verdicts WHERE run_record_id = ?", [rid])
        # a human label on a checked pair of run A, and a failed record of run A that was judged and labelled
        checked = c.execute("SELECT r.id, k.id FROM run_records r JOIN constraints k ON k.item_id = r.item_id"
                            " WHERE r.run_id = 'demo-run-a' AND k.check_json IS NOT NULL LIMIT 1").fetchone()
        judged_a = c.execute("SELECT v.run_record_id, v.constraint_id FROM verdicts v JOIN run_records r"
                             " ON r.id = v.run_record_id WHERE r.run_id = 'demo-run-a' AND r.error IS NULL"
                             " AND v.label = 'pass' LIMIT 1").fetchone()
        for pair in (checked, judged_a):
            c.execute("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind,"
                      " created_at) VALUES (?, ?, 'hostile', 'label', 'pass', 1, '2026-01-01T00:00:00Z')", pair)
        c.execute("UPDATE run_records SET output = NULL, trajectory = NULL, error = 'timeout: no answer' WHERE id = ?",
                  [judged_a[0]])
    return path


def test_aggregated_judge_labels_are_the_row_by_row_ones(attacked):
    with ann.unit_of_work(attacked) as db:
        judge, ppi, source = _reference_judge(db, RUNS)
        labels = ann.pair_labels(db, RUNS)
    assert labels.judge == judge and labels.ppi_judge == ppi and labels.ppi_source == source
    # the attack took: the retry flipped, the ties left pairs unjudged, the broken version's pairs kept a label
    assert source == labels.ppi_source and sum(1 for p in ppi.values() if p == 0.5) >= 3


def test_aggregated_compare_counts_what_constraint_passed_counts(attacked):
    with ann.unit_of_work(attacked) as db:
        judge, _, _ = _reference_judge(db, RUNS)
        humans = {}
        for row in ann.current_labels(db):
            humans.setdefault((row["run_record_id"], row["constraint_id"]), []).append(row["label"])
        human = {p: lab for p, labs in humans.items() if (lab := ann.majority_label(labs)) is not None}
        settled = {p: ann.Settled(lab, "judge") for p, lab in judge.items()}
        settled |= {p: ann.Settled(lab, "human") for p, lab in human.items()}
        items = ann.load_items(db)
        comparison = ann.compare_runs(db, *RUNS)
        for run, stats in zip(RUNS, (comparison.a, comparison.b)):
            counts = Counter()
            item_pass: dict[str, list] = {}  # item -> each record's pass (None: no settled `must` constraint)
            for rec in ann.iter_runs(db, where="run_id = ?", params=[run]):
                musts = []
                for c in items[rec.item_id].constraints:
                    s = settled.get((rec.id, c.id))
                    outcome = ann.constraint_passed(rec, c, s)
                    counts["human"] += int(s is not None and s.source == "human")
                    if outcome is None:
                        counts["unjudged"] += int(c.check is None and (c.labels == ("pass", "fail")
                                                                       or ann.expected_labels(c) is not None))
                        continue
                    counts["settled"] += 1
                    counts["passed"] += int(outcome)
                    if c.severity == "must":
                        musts.append(outcome)
                item_pass.setdefault(rec.item_id, []).append(all(musts) if musts else None)
            assert (stats.constraints_settled, stats.constraints_passed, stats.constraints_unjudged,
                    stats.human_settled) == (counts["settled"], counts["passed"], counts["unjudged"], counts["human"])
            side = "a_pass" if run == RUNS[0] else "b_pass"
            got = {o.item_id: getattr(o, side) for o in comparison.items if o.item_id in item_pass}
            assert got == {i: False if False in v else None if None in v else True for i, v in item_pass.items()}
    # the item answered twice in run B is held to both records: its pass needs both
    assert comparison.b.repeats == 1 and comparison.b.tasks == comparison.a.tasks + 1
