"""`report --compare` reads a rubric version as the calibration report and the gate do (a hostile review, wave 17):
every counted random pair, a tie or a pair without a valid repeat scored `abstain`; the counted random pairs by
default, other labelled pairs only on request and then beside the random-only row; the majority over the repeats
every pair of the version has; degenerate input refused. Project: tests/test_calibration_project.py (pairs 1-8 are
the counted random pairs, 9 is targeted; items 1-7 tune, 8-10 heldout by their own split)."""

from __future__ import annotations

import json

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import calibration_report, compare_rubrics, comparison_blocks
from judgecal.annotations.reports._text import _text  # house: private
from judgecal.cli import main
from test_calibration_project import ALICE, LABEL, R1, R2, REPEATS, add_label, add_rubric, add_verdicts, build


def _by(c):
    return {s.split: s for s in c.splits}


def _opposite(answers: str) -> str:
    return answers.translate(str.maketrans("PF", "FP"))


def test_a_version_that_errs_where_it_would_be_wrong_is_scored_as_the_report_scores_it(tmp_path):
    """B gives the human's label on one of A's wrong pairs and an error row wherever it would be wrong, and on one
    pair A gets right: the comparison dropped every pair without a majority and gave B kappa 1.000."""
    path = build(tmp_path / "abst.db")
    with ann.unit_of_work(path) as db:
        add_rubric(db, R2, 2)
        # alice: P P P F F F P P (pairs 1-8); A: P P P F F P F tie
        add_verdicts(db, R2, {1: "EEE", 2: "PPP", 3: "PPP", 4: "FFF", 5: "FFF", 6: "FFF", 7: "EEE", 8: "EEE",
                              9: "EEE", 10: "FFF"})
        c = compare_rubrics(db, "strict@1", "strict@2")
        report = calibration_report(db)
    by = _by(c)
    assert by["all"].n == c.labelled == 8  # every counted random pair, none dropped
    assert (c.majority_a.tie, c.majority_a.no_valid, c.majority_b.tie, c.majority_b.no_valid) == (1, 0, 0, 3)
    assert c.excluded == 3  # pairs 1, 7 and 8 (8 under both): scored, not left out
    assert by["all"].b.abstain == 3 and by["all"].a.abstain == 1
    # B fixed 6, broke 1 (an abstention is wrong); 7 and 8 wrong under both
    assert {(f.run_record_id, f.kind, f.label_b) for f in c.flips} == {("run-6", "fixed", "fail"),
                                                                       ("run-1", "broken", "abstain")}
    # each version's kappa is the report's unweighted majority kappa of its group on the same counted pairs
    kappa = {g.rubric_sha256: g.overall.majority.kappa for g in report.groups}
    assert by["all"].a.kappa == pytest.approx(kappa[R1]) and by["all"].b.kappa == pytest.approx(kappa[R2])
    assert by["all"].b.kappa < 1
    text = _text(comparison_blocks(c))
    assert "3 without a valid repeat" in text and "1 ties" in text


def _late_labels(path, pairs: dict[int, str]) -> None:
    """B created at 2001, the build's labels dated 2000, the `pairs` labelled (not sampled) at 2002."""
    with ann.unit_of_work(path) as db:
        for n, lab in pairs.items():
            add_label(db, "alice", n, lab, seen=R2)
        with ann.write(db):
            db.execute("UPDATE human_labels SET created_at = '2000-01-01T00:00:00.000Z'")
            db.execute("UPDATE human_labels SET created_at = '2002-01-01T00:00:00.000Z' WHERE run_record_id IN"
                       f" ({','.join('?' * len(pairs))})", [f"run-{n}" for n in pairs])
            db.execute("UPDATE rubrics SET created_at = '2001-01-01T00:00:00.000Z' WHERE sha256 = ?", [R2])


def test_the_default_basis_is_the_counted_random_pairs_and_chosen_labels_are_shown_beside_it(tmp_path):
    """B differs from A only on pairs nobody sampled, and its author labels exactly those, agreeing with B: every
    labelled pair counted by default and moved Δ kappa; the gate counts only the counted random pairs."""
    path = build(tmp_path / "picked.db", n_items=14)
    with ann.unit_of_work(path) as db:
        add_rubric(db, R2, 2)
        add_verdicts(db, R1, {n: "PPP" for n in range(11, 15)})
        add_verdicts(db, R2, {n: REPEATS[n] for n in range(1, 11)} | {n: "FFF" for n in range(11, 15)})
    _late_labels(path, {n: "fail" for n in range(11, 15)})
    with ann.unit_of_work(path) as db:
        default = compare_rubrics(db, "strict@1", "strict@2")
        wide = compare_rubrics(db, "strict@1", "strict@2", random_only=False)
    assert default.random_only and default.labelled == _by(default)["all"].n == 8
    assert _by(default)["all"].kappa_delta == 0 and default.random_only_all is None
    assert default.compared_by_rule == {"random": 8} and default.labelled_after_b == 0
    assert _by(wide)["all"].n == 13 and _by(wide)["all"].kappa_delta > 0.3
    assert wide.compared_by_rule == {"random": 8, "targeted": 1, "not_sampled": 4} and wide.labelled_after_b == 4
    assert wide.random_only_all.n == 8 and wide.random_only_all.kappa_delta == 0
    text = _text(comparison_blocks(wide))
    assert "all, random only" in text and "8 counted random, 1 targeted, 4 not sampled" in text
    assert "4 of them labelled after B was created" in text
    # the CLI: the default, the old flag (now the default), the opt-in, and the two together refused
    out = tmp_path / "r.json"
    for flags, n in (([], 8), (["--random-only"], 8), (["--include-non-random"], 13)):
        assert main(["--db", str(path), "report", "--json", "--compare", "strict@1", "strict@2", *flags,
                     "--out", str(out)]) == 0
        data = json.loads(out.read_text())["comparison"]
        assert data["splits"][0]["n"] == n and data["random_only"] == (n == 8)
    assert data["random_only_all"]["n"] == 8 and data["labelled_after_b"] == 4
    with pytest.raises(SystemExit) as exc:
        main(["--db", str(path), "report", "--compare", "strict@1", "strict@2", "--random-only",
              "--include-non-random"])
    assert exc.value.code == 2
    assert main(["--db", str(path), "report", "--include-non-random"]) == 2  # nothing to widen


def test_extra_repeats_on_the_labelled_pairs_are_not_read(tmp_path):
    """B is A's three repeats everywhere plus six more, giving the humans' label, on the sampled labelled pairs only
    (`judge --only-labelled --repeats 9`): its majority there was the humans' label and B scored 1.000."""
    path = build(tmp_path / "repeats.db")
    with ann.unit_of_work(path) as db:
        add_rubric(db, R2, 2)
        add_verdicts(db, R2, {n: REPEATS[n] for n in range(1, 11)})
        with ann.write(db):
            db.conn.executemany(
                "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label,"
                " created_at) VALUES (?, 'grounded', ?, 'j', ?, ?, ?)",
                [(f"run-{n}", R2, rep, LABEL[lab], ann.now_iso()) for n, lab in ALICE.items() for rep in range(3, 9)])
        c = compare_rubrics(db, "strict@1", "strict@2")
    by = _by(c)
    assert by["all"].kappa_delta == 0 and (by["all"].fixed, by["all"].broken) == (0, 0)
    assert c.majority_b.repeats_used == (0, 1, 2) and c.majority_b.ignored_repeat_rows == 9 * 6
    assert c.majority_a.repeats_used == (0, 1, 2) and c.majority_a.ignored_repeat_rows == 0
    assert "54 rows of other repeats ignored" in _text(comparison_blocks(c))


def test_degenerate_comparisons_are_refused(tmp_path):
    path = build(tmp_path / "degenerate.db")
    with ann.unit_of_work(path) as db:
        add_rubric(db, R2, 2)
        add_verdicts(db, R2, {n: REPEATS[n] for n in range(1, 11)})
        with pytest.raises(ValueError, match="same rubric version"):
            compare_rubrics(db, "strict@2", R2)
        with pytest.raises(ValueError, match="judge model 'nope' has no verdicts under both"):
            compare_rubrics(db, "strict@1", "strict@2", judge_model="nope")
    assert main(["--db", str(path), "report", "--compare", "strict@2", "strict@2"]) == 2
    assert main(["--db", str(path), "report", "--compare", "strict@1", "strict@2", "--model", "nope"]) == 2
    assert main(["--db", str(path), "report", "--compare", "strict@1", "strict@2", "--model", "j"]) == 0


def test_a_tiny_heldout_set_shows_no_overfitting_either_way_and_own_splits_are_named(tmp_path):
    """The fixture's heldout set has one counted pair: its row can neither show nor rule out overfitting, whether or
    not kappa improves on tune. Every item carries its own split, so the seed and tune share changed nothing."""
    path = build(tmp_path / "heldout.db")
    with ann.unit_of_work(path) as db:
        add_rubric(db, R2, 2)
        add_verdicts(db, R2, {n: _opposite(REPEATS[n]) for n in range(1, 11)})  # worse on tune: no warning before
        c = compare_rubrics(db, "strict@1", "strict@2", seed=5)
        assert _by(c)["heldout"].n == 1 and _by(c)["tune"].kappa_delta < 0
        assert c.warning and "cannot show overfitting either way" in c.warning
        assert c.split_rule == "own" and (c.items_compared, c.items_with_own_split) == (8, 8)
        text = _text(comparison_blocks(c))
        assert "each compared item's own `split`" in text and "seed 5" not in text
        with ann.write(db):
            db.execute("UPDATE eval_items SET split = NULL WHERE id IN ('item-1', 'item-2')")
        mixed = compare_rubrics(db, "strict@1", "strict@2", seed=5)
    assert mixed.split_rule == "mixed" and "6 of 8 compared items carry their own `split`" in _text(
        comparison_blocks(mixed))
