"""Hostile review of issue 10 after the merge: ways to choose which pairs count, or which judge is gated, that the
per-feature tests did not try. Each test is an attack on the demo data through the CLI; the gate must not pass.

The judge is synthetic (as in tests/test_gate_acceptance.py): on each semantic pair it gives the demo's hand-written
label (data/demo_labels.jsonl, `demo-author`) with probability `right`, else another label of the set, 3 repeats.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.reports import run_gate
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
KEY = [json.loads(line) for line in (DATA / "demo_labels.jsonl").read_text().splitlines()]
AUTHOR = {(r["run_record_id"], r["constraint_id"]): r["label"] for r in KEY if r["reviewer"] == "demo-author"}
SHA = "7" * 64


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _judge(label_sets: dict, right: float, seed: int = 0) -> dict:
    rng = random.Random(seed)
    out = {}
    for pair in sorted(AUTHOR):
        wrong = [lab for lab in label_sets[pair] if lab != AUTHOR[pair]]
        out[pair] = AUTHOR[pair] if rng.random() < right else rng.choice(wrong)
    return out


def _verdict_rows(judge: dict, pairs, model: str = "synthetic-judge") -> list[dict]:
    return [{"run_record_id": p[0], "constraint_id": p[1], "rubric": "synthetic", "rubric_sha256": SHA,
             "judge_model": model, "repeat": rep, "label": judge[p], "reason": "synthetic"}
            for p in sorted(pairs) for rep in range(3)]


def _fresh_project(tmp_path: Path) -> tuple[Path, dict]:
    """The demo's items and runs, no verdicts, no sample yet (a project before its first `sample`)."""
    tmp_path.mkdir(exist_ok=True)
    db_path = tmp_path / "p.db"
    assert main(["--db", str(db_path), "import", "evalset", str(DATA / "demo_evalset.jsonl")]) == 0
    for runs in ("demo_runs.jsonl", "demo_boundary_runs.jsonl"):
        assert main(["--db", str(db_path), "import", "runs", str(DATA / runs)]) == 0
    with ann.unit_of_work(db_path) as db:
        sets = ann.pair_label_sets(db)
    return db_path, sets


def _models(db_path: Path) -> dict[str, str]:
    with ann.unit_of_work(db_path) as db:
        return dict(db.execute("SELECT id, model FROM run_records").fetchall())


def _label_random_sample(db_path: Path, tmp_path: Path, reviewer: str = "mallory") -> int:
    """Import blind labels (the true ones) on every random-sample pair; returns how many."""
    with ann.unit_of_work(db_path) as db:
        drawn = sorted(tuple(r) for r in db.execute(
            "SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random'"))
    rows = [{"run_record_id": p[0], "constraint_id": p[1], "reviewer": reviewer, "label": AUTHOR[p], "blind": True}
            for p in drawn]
    assert main(["--db", str(db_path), "import", "labels", str(_write_jsonl(tmp_path / "l.jsonl", rows))]) == 0
    return len(rows)


def test_a_sample_drawn_while_only_chosen_pairs_were_judged_does_not_count(tmp_path, capsys):
    """`sample --judged-only` drew each population's quota from the JUDGED pairs only. Judge first only the pairs
    where the judge is right, draw, then judge the rest: the random sample (and so the counted prefix) held only
    pairs the judge gets right, and a judge right on 70% of pairs passed `gate --min-kappa 0.6`. The counted pairs
    must be a prefix of the population's draw order, whatever was judged when the sample was drawn."""
    db_path, sets = _fresh_project(tmp_path)
    judge = _judge(sets, 0.70)
    right = [p for p in judge if judge[p] == AUTHOR[p]]
    assert main(["--db", str(db_path), "import", "verdicts",
                 str(_write_jsonl(tmp_path / "v1.jsonl", _verdict_rows(judge, right)))]) == 0
    assert main(["--db", str(db_path), "sample", "--judged-only", "--rate", "0.5", "--overlap", "0"]) == 0
    rest = [p for p in judge if p not in set(right)]
    assert main(["--db", str(db_path), "import", "verdicts",
                 str(_write_jsonl(tmp_path / "v2.jsonl", _verdict_rows(judge, rest)))]) == 0
    _label_random_sample(db_path, tmp_path)
    with ann.unit_of_work(db_path) as db:
        counted = ann.counted_pairs(db).pairs
        gate = run_gate(db, min_kappa=0.6, model="synthetic-judge")
    # what counts is a prefix of each population's order: pairs the judge gets wrong are as likely as in the population
    assert not counted or any(judge[p] != AUTHOR[p] for p in counted) or len(counted) < 10
    assert not gate.passed, "\n".join(c.reason for c in gate.checks)


def test_an_imported_sample_cannot_choose_its_random_pairs(tmp_path, capsys):
    """`import samples` accepted any `random` rows for a population without a sample: a file naming only pairs the
    judge gets right (with any seed) became the counted set, and a judge right on 70% passed."""
    db_path, sets = _fresh_project(tmp_path)
    judge = _judge(sets, 0.70)
    assert main(["--db", str(db_path), "import", "verdicts",
                 str(_write_jsonl(tmp_path / "v.jsonl", _verdict_rows(judge, judge)))]) == 0
    model = _models(db_path)
    by_pop = defaultdict(list)
    for p in sorted(judge):
        by_pop[(p[1], model[p[0]])].append(p)
    rows = []
    for (cid, m), pairs in by_pop.items():
        picked = [p for p in pairs if judge[p] == AUTHOR[p]] or pairs[:1]
        rows += [{"run_record_id": p[0], "constraint_id": cid, "rule": "random", "stratum": f"{cid}|{m}|x",
                  "seed": 0, "drawn_at": "2026-11-30T00:00:00Z"} for p in picked]
    with ann.unit_of_work(db_path) as db:
        before = ann.table_counts(db)
    capsys.readouterr()
    assert main(["--db", str(db_path), "import", "samples", str(_write_jsonl(tmp_path / "s.jsonl", rows))]) == 2
    err = capsys.readouterr().err
    assert "s.jsonl:" in err and "is not the first" in err and "a sample is drawn, not chosen" in err
    with ann.unit_of_work(db_path) as db:
        assert ann.table_counts(db) == before
    # the same project's own draw, exported, imports into a copy (what a roundtrip needs)
    assert main(["--db", str(db_path), "sample", "--rate", "0.2"]) == 0
    assert main(["--db", str(db_path), "export", "samples", "--out", str(tmp_path / "drawn.jsonl")]) == 0
    copy, _ = _fresh_project(tmp_path / "copy")
    assert main(["--db", str(copy), "import", "verdicts", str(tmp_path / "v.jsonl")]) == 0
    assert main(["--db", str(copy), "import", "samples", str(tmp_path / "drawn.jsonl")]) == 0
    with ann.unit_of_work(db_path) as a, ann.unit_of_work(copy) as b:
        assert ann.counted_pairs(a) == ann.counted_pairs(b)


def test_a_second_judge_model_that_judged_only_the_labelled_pairs_cannot_pass(tmp_path, capsys):
    """Coverage was counted per rubric version over every judge model: a version that judge model A ran on the whole
    population let judge model B (same rubric) pass `gate --model B` having judged only the counted pairs (here it
    simply copies the humans there). A judge model × rubric version is gated on the population it will be used on."""
    db_path, sets = _fresh_project(tmp_path)
    judge = _judge(sets, 0.70)
    assert main(["--db", str(db_path), "import", "verdicts",
                 str(_write_jsonl(tmp_path / "v.jsonl", _verdict_rows(judge, judge)))]) == 0
    assert main(["--db", str(db_path), "sample", "--rate", "0.3", "--overlap", "0"]) == 0
    _label_random_sample(db_path, tmp_path)
    with ann.unit_of_work(db_path) as db:
        counted = ann.counted_pairs(db).pairs
    copy = _verdict_rows(AUTHOR, counted, model="judge-b")
    assert main(["--db", str(db_path), "import", "verdicts", str(_write_jsonl(tmp_path / "b.jsonl", copy))]) == 0
    capsys.readouterr()
    assert main(["--db", str(db_path), "gate", "--min-kappa", "0.6", "--model", "judge-b"]) == 1
    out = capsys.readouterr().out
    assert "judge-b" in out and "FAIL  coverage" in out


def test_a_blind_flag_after_the_reviewers_own_earlier_event_is_not_blind(tmp_path):
    """The app stores a label as blind only when the reviewer has no earlier event on the pair; an imported file
    could put `blind: true` on a label that follows the same reviewer's non-blind label of the pair, and that label
    was then read as their blind first label. One rule: the blind first label is the reviewer's FIRST event on the
    pair, and only if it is a blind label."""
    db_path, sets = _fresh_project(tmp_path)
    judge = _judge(sets, 0.70)
    assert main(["--db", str(db_path), "import", "verdicts",
                 str(_write_jsonl(tmp_path / "v.jsonl", _verdict_rows(judge, judge)))]) == 0
    assert main(["--db", str(db_path), "sample", "--rate", "1.0", "--overlap", "0"]) == 0
    pairs = sorted(judge)
    rows = []
    for p in pairs:
        # a first look with the judge's verdict in view (not blind), then the same answer flagged blind
        rows.append({"run_record_id": p[0], "constraint_id": p[1], "reviewer": "mallory", "label": judge[p],
                     "blind": False, "created_at": "2026-11-30T10:00:00Z"})
        rows.append({"run_record_id": p[0], "constraint_id": p[1], "reviewer": "mallory", "label": judge[p],
                     "blind": True, "created_at": "2026-11-30T10:00:01Z"})
    assert main(["--db", str(db_path), "import", "labels", str(_write_jsonl(tmp_path / "l.jsonl", rows))]) == 0
    with ann.unit_of_work(db_path) as db:
        assert ann.blind_first_labels(db) == []
        assert not ann.counted_pairs(db).pairs
        assert not run_gate(db, min_kappa=0.6, model="synthetic-judge").passed


def test_the_gates_human_human_ceiling_is_per_label_set_on_the_demo(tmp_path, capsys):
    """Issue 10 item 8: the gate printed the pooled human–human kappa (0.947 [0.82, 1.00] on the demo's 60 overlap
    pairs; 1.000 [0.65, 1.00] on 15 before wave 15 kept pairs one reviewer had labelled out of the overlap top-up)
    while the report gives one per label set; the refusal set rests on 22 pairs, 0.818 [0.44, 1.00]."""
    db_path = tmp_path / "d.db"
    assert main(["--db", str(db_path), "demo"]) == 0
    assert main(["--db", str(db_path), "import", "labels", str(DATA / "demo_labels.jsonl")]) == 0
    assert main(["--db", str(db_path), "sample", "--rate", "1.0"]) == 0
    capsys.readouterr()
    assert main(["--db", str(db_path), "gate", "--min-kappa", "0.4"]) == 1
    (line,) = [l for l in capsys.readouterr().out.splitlines() if "human_human" in l]
    assert "(labels:pass/fail)" in line and "(labels:hard_refusal/soft_refusal/degraded/complied)" in line
    assert "0.818 [0.44, 1.00] on 22 overlap pairs (labels:hard_refusal" in line


def test_export_import_keeps_which_rubric_version_is_the_revision(tmp_path, capsys):
    """The verdicts export carried no version: an import created rubric versions in the order their shas first
    appear in the file (run record order), so a revision that judged the first pair before its parent came back as
    version 1 — "a first version: all counted pairs verify it" — and the gate took the parent for the latest version.
    Export → import must keep each version's number and parent."""
    src, dst = tmp_path / "a.db", tmp_path / "b.db"
    assert main(["--db", str(src), "demo"]) == 0
    with ann.unit_of_work(src) as db:
        first = tuple(db.execute(
            "SELECT r.id, c.id FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.check_json IS NULL"
            " ORDER BY r.seq, c.id LIMIT 1").fetchone())
    rows = []
    for sha in ("1" * 64, "2" * 64):  # version 1 leaves out the first pair in export order; version 2 judges it
        rows += [dict(r, rubric_sha256=sha) for r in _verdict_rows(AUTHOR, [p for p in AUTHOR
                                                                            if sha[0] == "2" or p != first])]
    assert main(["--db", str(src), "import", "verdicts", str(_write_jsonl(tmp_path / "v.jsonl", rows))]) == 0
    kinds = ("evalset", "runs", "verdicts", "labels", "samples")
    for kind in kinds:
        assert main(["--db", str(src), "export", kind, "--out", str(tmp_path / f"{kind}.jsonl")]) == 0
    for kind in kinds:
        assert main(["--db", str(dst), "import", kind, str(tmp_path / f"{kind}.jsonl")]) == 0
    versions = []
    for path in (src, dst):
        with ann.unit_of_work(path) as db:
            versions.append(sorted(db.execute("SELECT sha256, name, version, parent_sha256 FROM rubrics").fetchall()))
    assert versions[0] == versions[1]


def test_extra_repeats_on_the_labelled_pairs_do_not_lift_the_judge(tmp_path, capsys):
    """A judge right on 70% of pairs, 3 repeats on every pair; then 4 more repeats (imported, or `judge
    --only-labelled --repeats 7`) on the counted pairs only, giving the humans' label: the majority over 7 repeats
    there was the humans' label, kappa 1.0, and the gate passed. The judge gated is the one run on the population:
    its majority is over the repeats every judged pair of the version has."""
    db_path, sets = _fresh_project(tmp_path)
    judge = _judge(sets, 0.70)
    assert main(["--db", str(db_path), "import", "verdicts",
                 str(_write_jsonl(tmp_path / "v.jsonl", _verdict_rows(judge, judge)))]) == 0
    assert main(["--db", str(db_path), "sample", "--rate", "0.4", "--overlap", "0"]) == 0
    _label_random_sample(db_path, tmp_path)
    with ann.unit_of_work(db_path) as db:
        counted = ann.counted_pairs(db).pairs
        before = run_gate(db, min_kappa=0.6, model="synthetic-judge")
        kappas = [s.majority.kappa for s in ann.calibration_report(db, model="synthetic-judge").groups[0].headline]
    extra = [dict(r, repeat=r["repeat"] + 3 * k, label=AUTHOR[(r["run_record_id"], r["constraint_id"])])
             for k in (1, 2) for r in _verdict_rows(judge, counted) if r["repeat"] < 2]
    # an import of them is refused since wave 15 (repeats on labelled pairs: tests/test_repeats_after_labels.py);
    # stored as `judge --only-labelled --repeats 7` stores them, the report leaves them out
    assert main(["--db", str(db_path), "import", "verdicts", str(_write_jsonl(tmp_path / "x.jsonl", extra))]) == 2
    with ann.unit_of_work(db_path) as db, ann.write(db):
        sha = db.execute("SELECT DISTINCT rubric_sha256 FROM verdicts").fetchone()[0]
        db.conn.executemany(
            "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)", [(r["run_record_id"], r["constraint_id"], sha, r["judge_model"],
                                               r["repeat"], r["label"], ann.now_iso()) for r in extra])
    with ann.unit_of_work(db_path) as db:
        after = run_gate(db, min_kappa=0.6, model="synthetic-judge")
        report = ann.calibration_report(db, model="synthetic-judge")
    assert not before.passed
    assert not after.passed, "\n".join(c.reason for c in after.checks)
    g = report.groups[0]
    assert [s.majority.kappa for s in g.headline] == kappas
    assert g.repeats_used == (0, 1, 2) and g.ignored_repeat_rows == len(extra)
    assert f"{len(extra)} verdict rows of repeats that not every judged pair has were left out" in ann.format_report(
        report)


def test_a_label_dated_before_a_revision_in_another_time_zone_does_not_verify_it(tmp_path):
    """A revision is verified on labels made after it was created; the times were compared as strings, so a label
    made an hour BEFORE the revision but written with a +14:00 offset (valid ISO 8601, accepted by the import) sorted
    after the revision's UTC time and verified it."""
    from datetime import datetime, timedelta, timezone

    db_path, sets = _fresh_project(tmp_path)
    judge = _judge(sets, 0.70)
    rows = _verdict_rows(judge, judge)
    assert main(["--db", str(db_path), "import", "verdicts", str(_write_jsonl(tmp_path / "v1.jsonl", rows))]) == 0
    revision = [dict(r, rubric_sha256="8" * 64) for r in rows]
    assert main(["--db", str(db_path), "import", "verdicts", str(_write_jsonl(tmp_path / "v2.jsonl", revision))]) == 0
    assert main(["--db", str(db_path), "sample", "--rate", "0.3", "--overlap", "0"]) == 0
    with ann.unit_of_work(db_path) as db:
        created = db.execute("SELECT created_at FROM rubrics WHERE sha256 = ?", ["8" * 64]).fetchone()[0]
        drawn = sorted(tuple(r) for r in db.execute(
            "SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random'"))
    before = datetime.fromisoformat(created.replace("Z", "+00:00")) - timedelta(hours=1)
    stamp = before.astimezone(timezone(timedelta(hours=14))).isoformat()
    assert stamp > created  # as strings, the earlier label sorts after the revision
    labels = [{"run_record_id": p[0], "constraint_id": p[1], "reviewer": "mallory", "label": AUTHOR[p],
               "blind": True, "created_at": stamp} for p in drawn]
    assert main(["--db", str(db_path), "import", "labels", str(_write_jsonl(tmp_path / "l.jsonl", labels))]) == 0
    with ann.unit_of_work(db_path) as db:
        (g,) = [g for g in ann.calibration_report(db).groups if g.rubric_sha256 == "8" * 64]
    assert g.verified_on.startswith("0 counted pairs labelled after this revision")
