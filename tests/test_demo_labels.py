"""data/demo_labels.jsonl: the demo's hand-written human labels (the answer key) import into a fresh demo project and
cover its semantic pairs as promised."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.evalsets import read_rows
from judgecal.cli import main

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "data" / "demo_labels.jsonl"
AUTHOR = "demo-author"
REVIEWER_2 = "demo-reviewer-2"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("demo_labels") / "demo.db"
    assert main(["--db", str(db), "demo"]) == 0
    with ann.unit_of_work(db) as d:
        assert ann.current_labels(d) == []  # `judgecal demo` does not import the answer key
    assert main(["--db", str(db), "import", "labels", str(LABELS)]) == 0
    return db


@pytest.fixture(scope="module")
def rows() -> list[ann.HumanLabelRow]:
    return read_rows(LABELS, ann.HumanLabelRow, id_field=None).rows


def _semantic_pairs(db_path: Path) -> list[tuple[str, str]]:
    with ann.unit_of_work(db_path) as db:
        return [(r.id, c.id) for r, _item, c in ann.semantic_pairs(db)]


def test_author_covers_every_semantic_pair_once(demo_db: Path, rows: list[ann.HumanLabelRow]) -> None:
    pairs = _semantic_pairs(demo_db)
    author = Counter((r.run_record_id, r.constraint_id) for r in rows if r.reviewer == AUTHOR)
    assert set(author) == set(pairs)
    assert max(author.values()) == 1
    assert {r.reviewer for r in rows} == {AUTHOR, REVIEWER_2}
    assert all(r.blind and r.event == "label" for r in rows)


def test_second_reviewer_is_a_subset(demo_db: Path, rows: list[ann.HumanLabelRow]) -> None:
    pairs = _semantic_pairs(demo_db)
    second = Counter((r.run_record_id, r.constraint_id) for r in rows if r.reviewer == REVIEWER_2)
    assert set(second) <= set(pairs)
    assert max(second.values()) == 1
    assert 0.15 <= len(second) / len(pairs) <= 0.25
    assert set(second) == set(pairs[::5])  # every 5th pair in semantic_pairs order


def test_labels_are_in_label_sets(demo_db: Path, rows: list[ann.HumanLabelRow]) -> None:
    with ann.unit_of_work(demo_db) as db:
        label_sets = ann.pair_label_sets(db)
    for r in rows:
        assert r.label in label_sets[(r.run_record_id, r.constraint_id)], r
        assert r.failure_mode is None or r.label == "fail", r


def test_import_stores_every_row(demo_db: Path, rows: list[ann.HumanLabelRow]) -> None:
    with ann.unit_of_work(demo_db) as db:
        stored = Counter(row["reviewer"] for row in ann.current_labels(db))
    assert stored == Counter(r.reviewer for r in rows)
    # Importing again adds nothing.
    assert main(["--db", str(demo_db), "import", "labels", str(LABELS)]) == 0
    with ann.unit_of_work(demo_db) as db:
        assert len(ann.current_labels(db)) == len(rows)


def test_both_label_kinds_occur(rows: list[ann.HumanLabelRow]) -> None:
    labels = Counter(r.label for r in rows if r.reviewer == AUTHOR)
    assert labels["pass"] and labels["fail"]
    assert {"hard_refusal", "soft_refusal", "complied"} <= set(labels)


def test_generator_reproduces_the_file(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_demo_labels", ROOT / "data" / "make_demo_labels.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    module.OUT = tmp_path / "demo_labels.jsonl"
    module.main()
    assert module.OUT.read_bytes() == LABELS.read_bytes()
    first = json.loads(LABELS.read_text(encoding="utf-8").splitlines()[0])
    assert set(first) >= {"run_record_id", "constraint_id", "reviewer", "label", "blind", "created_at"}
