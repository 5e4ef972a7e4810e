"""Labels and verdicts moved between projects carry the content hash of their eval item (found by a review,
wave 14).

`import labels` and `import verdicts` attached rows by run record and constraint id alone: a project rebuilt from an
edited eval set (a constraint's text turned around, the same ids) took every exported label and verdict, and the
report counted a `fail` given on a rude reply to "the reply is polite" as agreement on "the reply is rude". `export
labels` and `export verdicts` now write `item_sha256`, and an import refuses a row whose item differs in the project
(file, line, field; nothing stored). A file without the field (written by hand) is taken as before."""

from __future__ import annotations

import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.cli import main

REPO = Path(__file__).resolve().parents[1]


def _project(folder: Path, evalset: Path) -> str:
    db = str(folder / "p.db")
    assert main(["--db", db, "import", "evalset", str(evalset)]) == 0
    assert main(["--db", db, "import", "runs", str(REPO / "data" / "demo_runs.jsonl")]) == 0
    return db


def _export(demo: Path, kind: str, out: Path) -> Path:
    """`export KIND` of the demo, the rows of `data/demo_runs.jsonl`'s run records only (what `_project` holds)."""
    assert main(["--db", str(demo), "export", kind, "--out", str(out)]) == 0
    ids = {json.loads(line)["id"] for line in (REPO / "data" / "demo_runs.jsonl").read_text().splitlines()}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows
                           if "judgecal_export" in r or r["run_record_id"] in ids))
    return out


def _edited(tmp_path: Path) -> tuple[Path, str]:
    """The demo eval set with one semantic constraint's text changed (same ids), and that constraint's id."""
    rows = [json.loads(line) for line in (REPO / "data" / "demo_evalset.jsonl").read_text().splitlines()]
    for row in rows:
        for c in row["constraints"]:
            if "check" not in c:
                c["text"] = "The opposite of: " + c["text"]
                edited = c["id"]
                break
        else:
            continue
        break
    out = tmp_path / "edited.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out, edited


def test_labels_and_verdicts_made_on_another_item_text_are_refused(demo, tmp_path, capsys):
    labels = _export(demo, "labels", tmp_path / "labels.jsonl")
    verdicts = _export(demo, "verdicts", tmp_path / "verdicts.jsonl")
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    assert all("item_sha256" in r for r in rows if "judgecal_export" not in r)
    edited, cid = _edited(tmp_path)
    (tmp_path / "b").mkdir()
    db = _project(tmp_path / "b", edited)
    with ann.unit_of_work(db) as conn:
        before = ann.table_counts(conn)
    capsys.readouterr()
    for kind, path in (("verdicts", verdicts), ("labels", labels)):
        assert main(["--db", db, "import", kind, str(path)]) == 2, kind
        err = capsys.readouterr().err
        assert f"{path.name}:" in err and ": item_sha256: the eval item of run record" in err, err
        assert "was made on another text of the item" in err
    with ann.unit_of_work(db) as conn:
        assert ann.table_counts(conn) == before  # nothing stored

    # without the field (a hand-written file), as before
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "item_sha256"}) + "\n" for r in rows
                            if "judgecal_export" not in r))
    assert main(["--db", db, "import", "labels", str(bare)]) == 0


def test_a_project_built_from_the_same_eval_set_takes_them(demo, tmp_path):
    labels = _export(demo, "labels", tmp_path / "labels.jsonl")
    verdicts = _export(demo, "verdicts", tmp_path / "verdicts.jsonl")
    (tmp_path / "c").mkdir()
    db = _project(tmp_path / "c", REPO / "data" / "demo_evalset.jsonl")
    assert main(["--db", db, "import", "verdicts", str(verdicts)]) == 0
    assert main(["--db", db, "import", "labels", str(labels)]) == 0
