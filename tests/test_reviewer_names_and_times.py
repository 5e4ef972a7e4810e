"""One person is one reviewer, and nothing is labelled in the future (found by a hostile review, wave 15).

- Reviewer names were normalised by the app's name form only. Through `record_label`, `import labels` and `assign`,
  "ann" and "ANN" were two reviewers: a label given after the reveal under "Ann" was stored as a blind first label,
  one person's two spellings made a human-human ceiling of kappa 1.000, and `assign` dealt them the two slots of one
  overlap pair. Every path now stores a name as the app does (`canonical_reviewer`: whitespace collapsed, no control
  characters, a stored reviewer whatever the case), and an import refuses a name the app would (file, line, field).
- A rubric version is verified on the labels made after it; a label file dated 2099 "verified" a version tuned on
  those very labels and the gate passed. An imported `created_at` later than now (five minutes' allowance) is refused,
  for labels and verdicts, naming file, line and field; nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.cli import main


def _first_random(db: Path, k: int = 0) -> ann.Pair:
    with ann.unit_of_work(db) as conn:
        row = conn.execute("SELECT run_record_id, constraint_id FROM samples WHERE rule = 'random' ORDER BY rowid"
                           " LIMIT 1 OFFSET ?", [k]).fetchone()
    return ann.Pair(*row)


def _label_set(db: Path, pair: ann.Pair) -> list[str]:
    with ann.unit_of_work(db) as conn:
        return json.loads(conn.execute("SELECT c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id"
                                       " AND c.id = ? WHERE r.id = ?", [pair[1], pair[0]]).fetchone()[0])


def test_a_second_spelling_is_the_same_reviewer(unlabelled_demo):
    db = unlabelled_demo
    pair = _first_random(db)
    first, other = _label_set(db, pair)[:2]
    with ann.unit_of_work(db) as conn:
        ann.record_label(conn, "ann", pair, first)
        seen = ann.reveal(conn, "  ANN ", pair)  # the reveal is ann's: she labelled the pair
        assert seen is not None
        again = ann.record_label(conn, "Ann", pair, other)
        assert (again.reviewer, again.event, again.blind) == ("ann", "change", False)
        rows = conn.execute("SELECT reviewer, event, blind FROM human_labels ORDER BY id").fetchall()
        assert rows == [("ann", "label", 1), ("ann", "change", 0)]
        firsts = [(r["reviewer"], r["label"]) for r in ann.blind_first_labels(conn)]
        assert firsts == [("ann", first)]
        with pytest.raises(ann.ReviewError, match="control characters"):
            ann.record_label(conn, "zed\x1b[31m", pair, first)
        assert ann.undo_last(conn, "ANN") == pair


def test_an_import_stores_one_spelling_and_refuses_names_the_app_refuses(unlabelled_demo, tmp_path, capsys):
    db = unlabelled_demo
    pairs = [_first_random(db, k) for k in range(3)]
    with ann.unit_of_work(db) as conn:
        ann.record_label(conn, "ann", pairs[0], _label_set(db, pairs[0])[0])
    rows = [{"run_record_id": p[0], "constraint_id": p[1], "reviewer": name, "label": _label_set(db, p)[0],
             "blind": True, "created_at": "2026-11-02T00:00:00Z"}
            for p, name in ((pairs[0], "ANN"), (pairs[1], " Ann "), (pairs[2], "bob"), (pairs[2], "BOB"))]
    good = tmp_path / "labels.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["--db", str(db), "import", "labels", str(good)]) == 0
    with ann.unit_of_work(db) as conn:
        assert [r[0] for r in conn.execute("SELECT reviewer FROM human_labels ORDER BY id")] == \
            ["ann", "ann", "ann", "bob", "bob"]
        # one blind first label per person and pair: no human-human pair out of one person
        firsts = sorted((r["reviewer"], r["run_record_id"]) for r in ann.blind_first_labels(conn))
        assert firsts == sorted([("ann", pairs[0][0]), ("ann", pairs[1][0]), ("bob", pairs[2][0])])
        before = ann.table_counts(conn)
    capsys.readouterr()
    for bad, why in (("zed\x1b[31m", "control characters"), ("   ", "cannot be empty"), ("z" * 5000, "at most")):
        path = tmp_path / "bad.jsonl"
        path.write_text(json.dumps(rows[2] | {"reviewer": bad}) + "\n")
        assert main(["--db", str(db), "import", "labels", str(path)]) == 2
        err = capsys.readouterr().err
        assert "bad.jsonl:1: reviewer:" in err and why in err, err
    with ann.unit_of_work(db) as conn:
        assert ann.table_counts(conn) == before


def test_assign_takes_one_spelling_once(unlabelled_demo):
    with ann.unit_of_work(unlabelled_demo) as conn:
        with pytest.raises(ann.AssignmentError, match="reviewer named twice: ANN, ann"):
            ann.assign(conn, ["ann", "ANN", "bob"])
        with pytest.raises(ann.AssignmentError, match="named twice"):
            ann.assign(conn, ["ann", " ann ", "bob"])
        ann.record_label(conn, "Carol", _first_random(unlabelled_demo), _label_set(unlabelled_demo,
                                                                                    _first_random(unlabelled_demo))[0])
        summary = ann.assign(conn, ["carol", "bob"])
        assert summary.reviewers == ("Carol", "bob")  # the stored spelling


@pytest.mark.parametrize("kind", ["labels", "verdicts"])
def test_a_row_dated_after_now_is_refused(unlabelled_demo, tmp_path, capsys, kind):
    db = unlabelled_demo
    pair = _first_random(db)
    label = _label_set(db, pair)[0]
    if kind == "labels":
        row = {"run_record_id": pair[0], "constraint_id": pair[1], "reviewer": "ann", "label": label, "blind": True}
    else:
        row = {"run_record_id": pair[0], "constraint_id": pair[1], "rubric": "tuned", "judge_model": "j",
               "label": label}
    with ann.unit_of_work(db) as conn:
        before = ann.table_counts(conn)
    for stamp in ("2099-01-01T00:00:00Z", "2099-01-01T00:00:00"):
        path = tmp_path / f"{kind}.jsonl"
        path.write_text(json.dumps(row | {"created_at": stamp}) + "\n")
        capsys.readouterr()
        assert main(["--db", str(db), "import", kind, str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{kind}.jsonl:1: created_at:" in err and "nothing is made in the future" in err, err
    with ann.unit_of_work(db) as conn:
        assert ann.table_counts(conn) == before
    path.write_text(json.dumps(row | {"created_at": "2026-11-02T00:00:00Z"}) + "\n")  # a past time is taken
    assert main(["--db", str(db), "import", kind, str(path)]) == 0


def test_an_assigned_name_is_the_reviewer_before_they_label(unlabelled_demo):
    """"Ann" after `assign ann,bob` is ann, who has not labelled yet: she was a new person and got the second slot of
    her own overlap pair, which nobody could then fill (a review of this fix)."""
    with ann.unit_of_work(unlabelled_demo) as conn:
        ann.draw_sample(conn, overlap=0.9, seed=0)
        ann.assign(conn, ["ann", "bob"])
        summary = ann.assign(conn, ["Ann", "bob"])
        assert summary.reviewers == ("ann", "bob")
        slots = conn.execute("SELECT run_record_id, constraint_id, group_concat(reviewer) FROM (SELECT * FROM"
                             " assignments ORDER BY id) GROUP BY 1, 2, slot").fetchall()
        assert all("Ann" not in names for *_pair, names in slots)
        pair = _first_random(unlabelled_demo)
        assert ann.is_open(conn, "ANN", pair) == ann.is_open(conn, "ann", pair)
        ann.record_label(conn, "ann", pair, _label_set(unlabelled_demo, pair)[0])
        assert ann.my_label(conn, " Ann ", pair).reviewer == "ann"


def test_re_importing_an_export_with_two_stored_spellings_adds_nothing(unlabelled_demo, tmp_path):
    """Names stored in two spellings before wave 15 stay apart: each row goes back under the name it was stored
    under, so re-importing the project's own export is a no-op (a review of this fix: one spelling's rows were filed
    under the other and copied)."""
    db = unlabelled_demo
    with ann.unit_of_work(db) as conn, ann.write(conn):
        for k, name in enumerate(("kim", "Kim")):
            pair = _first_random(db, k)
            conn.execute("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, blind,"
                         " created_at) VALUES (?, ?, ?, 'label', ?, 1, ?)",
                         [*pair, name, _label_set(db, pair)[0], ann.now_iso()])
    out = tmp_path / "labels.jsonl"
    assert main(["--db", str(db), "export", "labels", "--out", str(out)]) == 0
    assert main(["--db", str(db), "import", "labels", str(out)]) == 0
    with ann.unit_of_work(db) as conn:
        assert conn.execute("SELECT reviewer FROM human_labels ORDER BY id").fetchall() == [("kim",), ("Kim",)]


def test_an_import_files_a_name_under_its_assigned_spelling(unlabelled_demo, tmp_path):
    """`import labels` matches names as `canonical_reviewer` does: "ANN" after `assign ann,bob`, before ann labelled
    anything, is ann (it matched labelled names only, so she would have been two reviewers again)."""
    db = unlabelled_demo
    with ann.unit_of_work(db) as conn:
        ann.assign(conn, ["ann", "bob"])
    pair = _first_random(db)
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"run_record_id": pair[0], "constraint_id": pair[1], "reviewer": "ANN",
                                "label": _label_set(db, pair)[0], "blind": True}) + "\n")
    assert main(["--db", str(db), "import", "labels", str(path)]) == 0
    with ann.unit_of_work(db) as conn:
        assert conn.execute("SELECT reviewer FROM human_labels").fetchall() == [("ann",)]


@pytest.mark.parametrize("typed", ["\u200b", "\u2060\ufeff", " \u200b \u200d "], ids=["zwsp", "joiners", "spaced"])
def test_a_name_without_a_visible_character_is_refused(project_db, typed):
    """A review of the app (wave 18): ?reviewer=%E2%80%8B (a zero-width space) was accepted, and labels went in under
    a reviewer the sidebar showed as a blank line. Such a name is empty, wherever it comes from (form, URL, import);
    a zero-width non-joiner inside a name (Persian spelling) stays."""
    with pytest.raises(ValueError, match="cannot be empty"):
        ann.clean_reviewer_name(typed)
    with ann.unit_of_work(project_db) as conn:
        with pytest.raises(ValueError, match="cannot be empty"):
            ann.canonical_reviewer(conn, typed)
    persian = "\u0645\u0647\u0631\u200c\u0646\u0627\u0632"
    assert ann.clean_reviewer_name(persian) == persian
