"""A rubric version is verified only on labels it cannot have been tuned on, whatever its name (found by a review,
wave 13).

A revision (a second version of a name) was verified only on counted pairs labelled after it was created, but a
first version of a NEW name counted as "a first version: no labels could tune it". The README's own tour copies the
template to `my_rubric.txt`, so a rubric written after reading the labelled disagreements — the humans' label on the
labelled pairs, the old judge's everywhere else — passed the gate with kappa 1.0 while its true agreement was the
old judge's. A version created after some of the counted pairs were labelled is now verified on the later ones only.
A judge run that predates the labels keeps them all when its verdicts move between projects: `export verdicts`
writes each verdict's time, and `import verdicts` creates a new rubric version at its earliest verdict's time."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_alone

REPO = Path(__file__).resolve().parents[1]


def _tuned_file(demo: Path, tmp_path: Path, *, keep_times: bool) -> Path:
    """The demo's verdicts as a rubric named `my_rubric`: the humans' label on every pair they labelled (what an
    author tuning on the labels gets), the demo judge's label elsewhere."""
    out = tmp_path / "exported.jsonl"
    assert run_alone(demo, "export", "verdicts", "--out", str(out))[0] == 0
    humans = {}
    for line in (REPO / "data" / "demo_labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        humans.setdefault((row["run_record_id"], row["constraint_id"]), row["label"])
    rows = []
    for line in out.read_text().splitlines():
        row = json.loads(line)
        if "judgecal_export" in row:
            continue
        assert "created_at" in row  # the export writes each verdict's time
        row = {k: v for k, v in row.items() if k not in ("rubric_sha256", "rubric_version")} | {"rubric": "my_rubric"}
        human = humans.get((row["run_record_id"], row["constraint_id"]))
        if human is not None:
            row = {k: v for k, v in row.items() if k not in ("error", "error_detail")} | {"label": human}
        if not keep_times:
            row.pop("created_at")  # judged now, after the labels
        rows.append(row)
    tuned = tmp_path / "tuned.jsonl"
    tuned.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tuned


def _my_rubric(path: Path) -> dict:
    report = json.loads(run_alone(path, "report", "--json", "--rubric", "my_rubric")[1])
    (group,) = report["groups"]
    return group


def test_a_new_rubric_name_tuned_on_the_labels_is_verified_on_later_labels_only(demo, tmp_path):
    assert run_alone(demo, "import", "verdicts", str(_tuned_file(demo, tmp_path, keep_times=False)))[0] == 0
    group = _my_rubric(demo)
    assert group["verified_on"].startswith("0 counted pairs labelled after this first version was created ("), \
        group["verified_on"]
    rc, out = run_alone(demo, "gate", "--min-kappa", "0.6", "--rubric", "my_rubric")
    assert rc == 1, out
    kappa_lines = [line for line in out.splitlines() if " kappa " in line and "my_rubric" in line]
    assert kappa_lines and all(line.startswith("FAIL") and "0 counted pairs labelled after" in line
                               for line in kappa_lines), out


def test_a_judge_run_that_predates_the_labels_keeps_them_all(demo, tmp_path):
    # the same verdicts with the demo judge's times (2026-11-01, before the labels of 2026-11-02): the rubric is
    # created at its earliest verdict, so every counted pair verifies it, as a first version judged before labelling
    assert run_alone(demo, "import", "verdicts", str(_tuned_file(demo, tmp_path, keep_times=True)))[0] == 0
    group = _my_rubric(demo)
    assert group["verified_on"] == "all counted pairs (a first version: no labels could tune it)"
    assert group["rubric_created_at"] == "2026-11-01T00:00:00.000Z"


def test_the_demo_rubric_is_dated_by_its_recorded_run(demo):
    rc, out = run_alone(demo, "report", "--json")
    group = json.loads(out)["groups"][0]
    assert group["rubric_created_at"] == "2026-11-01T00:00:00.000Z"
    assert group["verified_on"] == "all counted pairs (a first version: no labels could tune it)"


def test_the_shipped_rubric_list_is_judges():
    from judgecal.annotations.reports._calibration import SHIPPED_RUBRIC_SHA256S  # house: private (the list)
    from judgecal.judge import shipped_versions

    assert SHIPPED_RUBRIC_SHA256S == {r.sha256 for r in shipped_versions()}


def test_a_shipped_rubric_stored_after_the_labels_keeps_them_all(unlabelled_demo):
    """Labelling first and judging after (`sample` draws unjudged pairs too): `judge` stores the shipped rubric when it
    first runs, after the labels, and nobody can have tuned judgecal's own text on them."""
    import sqlite3

    from judgecal import annotations as ann

    path = unlabelled_demo
    with sqlite3.connect(path) as c:  # the demo's rubric (shipped strict v1) as if `judge` stored it just now
        c.execute("UPDATE rubrics SET created_at = '2099-01-01T00:00:00.000Z'")
        pairs = c.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' ORDER BY rowid"
                          " LIMIT 3").fetchall()
    with ann.unit_of_work(path) as db:
        for p in pairs:
            ann.record_label(db, "ann", ann.Pair(*p), json.loads(db.execute(
                "SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id AND c.id = ?"
                " WHERE r.id = ?", [p[1], p[0]]).fetchone()[0])[0])
    group = json.loads(run_alone(path, "report", "--json")[1])["groups"][0]
    assert group["verified_on"] == "all counted pairs (a first version: no labels could tune it)"


def test_a_label_made_at_the_versions_own_instant_counts_as_after_it():
    """`import llmbar` stores its rubric versions and its labels in one step, at one instant: a version cannot have
    been tuned on a label made as it was stored (before, the gate verified LLMBar's judges on 0 pairs)."""
    from judgecal.annotations.reports._calibration import _verification  # house: private (the rule)

    at = "2026-12-02T00:00:00.000Z"
    pairs = [("r1", "c"), ("r2", "c")]
    labels = {("r1", "c"): [{"created_at": at}], ("r2", "c"): [{"created_at": "2026-12-01T23:59:59.999Z"}]}
    said, fresh = _verification("f" * 64, at, {}, pairs, labels, frozenset(pairs))
    assert fresh == frozenset({("r1", "c")}) and said.startswith("1 counted pairs labelled after this first version")
    said, fresh = _verification("f" * 64, at, {}, pairs[:1], labels, frozenset(pairs))
    assert fresh is None and said == "all counted pairs (a first version: no labels could tune it)"


def test_the_current_shipped_rubric_stored_as_a_revision_keeps_every_label(demo):
    """A project that judged with shipped strict v1 (the demo) stores today's shipped `strict` as v2, a revision of
    v1: it is judgecal's own text, verified on every counted pair (a review found it verified on none)."""
    import sqlite3

    from judgecal import annotations as ann
    from judgecal.judge import shipped_rubric

    rubric = shipped_rubric()
    with ann.unit_of_work(demo) as db:
        row = ann.store_rubric(db, rubric.name, rubric.template, rubric.sha256)
    assert row.version == 2 and row.parent_sha256
    with sqlite3.connect(demo) as c:  # its verdicts: v1's, copied under v2
        c.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                  " reason, error, created_at) SELECT run_record_id, constraint_id, ?, judge_model, repeat, label,"
                  " reason, error, created_at FROM verdicts WHERE rubric_sha256 != ?", [rubric.sha256, rubric.sha256])
    groups = json.loads(run_alone(demo, "report", "--json")[1])["groups"]
    mine = [g for g in groups if g["rubric_sha256"] == rubric.sha256]
    assert mine and mine[0]["verified_on"] == "all counted pairs (a text judgecal ships: no labels could tune it)"


def test_gate_constraint_verifies_a_tuned_rubric_on_later_labels_only(demo, tmp_path):
    """`gate --constraint` gated the constraint's slice of every counted pair, so the rubric tuned on the labels
    that the plain gate fails passed it (found by a review, wave 14): each named constraint is gated on the pairs
    that verify the version, as the whole judge is."""
    assert run_alone(demo, "import", "verdicts", str(_tuned_file(demo, tmp_path, keep_times=False)))[0] == 0
    report = json.loads(run_alone(demo, "report", "--json", "--rubric", "my_rubric")[1])
    constraints = sorted(s["slice"].removeprefix("constraint:") for s in report["groups"][0]["by_constraint"])
    assert len(constraints) > 1
    for argv in ([["--constraint", constraints[0]]], [["--constraint", c] for c in constraints]):
        flags = [x for pair in argv for x in pair]
        rc, out = run_alone(demo, "gate", "--min-kappa", "0.6", "--min-n", "1", "--rubric", "my_rubric", *flags)
        assert rc == 1, out
        kappa_lines = [line for line in out.splitlines() if " kappa " in line and "my_rubric" in line]
        assert len(kappa_lines) == len(argv), out
        assert all(line.startswith("FAIL") and "constraint:" in line and "0 counted pairs labelled after" in line
                   for line in kappa_lines), out
