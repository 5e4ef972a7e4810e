"""Issue 13.3 in the app: after a pairwise label the reveal speaks the A/B numbering the reviewer saw. The order is
random per reviewer and pair (`review_order`); labels are stored with A = output_1. A reviewer shown B first who
picked the first output must read "output_1" as their label, the judge's preference for A as "output_2", and a
change made from the reveal must be stored mapped back like the first label."""

from __future__ import annotations

import re
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.reports import review_order
from test_pairwise import _reviewable

APP = Path(__file__).resolve().parents[1] / "app.py"
SHA = "f" * 64


def _judge_prefers_a(db: Path) -> None:
    with ann.unit_of_work(db) as d, ann.write(d):
        d.execute("INSERT INTO rubrics (sha256, name, version, template, created_at) VALUES (?,?,?,?,?)",
                  [SHA, "pairwise-test", 1, "which output is better", "2026-11-01T00:00:00Z"])
        rids = [r[0] for r in d.execute("SELECT run_record_id FROM pairwise_outputs")]
        d.conn.executemany(
            "INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason,"
            " created_at) VALUES (?,?,?,?,?,?,?,?)",
            [(rid, "preferred", SHA, "judge-x", rep, "output_1", "A is better", "2026-11-01T00:00:00Z")
             for rid in rids for rep in range(3)])


def _stored(db: Path, rid: str) -> str:
    with ann.unit_of_work(db) as d:
        return d.execute("SELECT label FROM human_labels WHERE run_record_id = ? AND reviewer = 'ann' ORDER BY id DESC"
                         " LIMIT 1", [rid]).fetchone()[0]


def test_the_reveal_uses_the_reviewers_own_numbering(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    db = _reviewable(tmp_path)
    _judge_prefers_a(db)
    monkeypatch.setenv("JUDGECAL_DB", str(db))
    monkeypatch.delenv("JUDGECAL_REVIEWER", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    seen = set()
    for _ in range(8):
        assert not at.exception, at.exception
        caption = next(c.value for c in at.caption if "run record" in c.value)
        rid = re.search(r"run record (\S+) ·", caption.replace("\\", "")).group(1)
        with ann.unit_of_work(db) as d:
            swapped = review_order(d, "ann", rid).swapped
        at.button(key="label_1").click().run()  # the output shown first
        summary = next(e.label for e in at.expander if "Your last label" in e.label).replace("\\", "")
        # own label: what was clicked; the judge (A better) read in this reviewer's order
        assert f"{rid} · preferred: output_1 · judge: {'output_2 (differs)' if swapped else 'output_1 (agrees)'}" \
            in summary, summary
        text = "\n".join(t.value for t in at.text)
        assert f"Judge: {'output_2' if swapped else 'output_1'}" in text
        assert _stored(db, rid) == ("output_2" if swapped else "output_1")
        if swapped and True not in seen:
            # change from the reveal to the second shown output (A): stored as output_1, shown as output_2
            assert at.button(key="change_1").disabled and not at.button(key="change_2").disabled
            at.button(key="change_2").click().run()
            assert _stored(db, rid) == "output_1"
            summary = next(e.label for e in at.expander if "Your last label" in e.label).replace("\\", "")
            assert "preferred: output_2 (changed after the reveal) · judge: output_2 (agrees)" in summary, summary
        seen.add(swapped)
        if seen == {True, False}:
            break
    assert seen == {True, False}
