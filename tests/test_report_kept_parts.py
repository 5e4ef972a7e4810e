"""Issue 16 items 2-3: the report's faster readings give exactly what the plain ones give.

- `load_verdicts(reasons=False)` reads one grouped row per judged pair; it must equal the row-by-row read (same
  groups in the same order, same pairs in the same order, same repeats and labels), including repeats stored out of
  order, error rows, and a label that holds the grouping's separator characters (then it falls back).
- `stats.variance_of` is `statistics.variance` bit for bit.
- `ppi_design_effect` with prepared judged units (`judged_units`) equals the unprepared computation, including a
  labelled pair whose item no judged pair has.
"""

from __future__ import annotations

import random
import statistics
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import load_verdicts
from judgecal.annotations.stats import judged_units, ppi_design_effect, variance_of

def _adversarial_project(tmp_path: Path) -> Path:
    """tests/test_scale_golden.py's adversarial project (loaded by path: plain `pytest FILE` has no `tests` package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_golden", Path(__file__).with_name("test_scale_golden.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.adversarial_project(tmp_path)


def _plain(db, **kw) -> dict:
    """The row-by-row read (`reasons=True` always takes it), reasons dropped."""
    return {key: {p: dict(v.labels) for p, v in group.items()}
            for key, group in load_verdicts(db, reasons=True, **kw).items()}


def _grouped(db, **kw) -> dict:
    return {key: {p: dict(v.labels) for p, v in group.items()}
            for key, group in load_verdicts(db, reasons=False, **kw).items()}


def _same(a: dict, b: dict) -> None:
    assert list(a) == list(b)  # groups in the order of their first verdict row
    for key in a:
        assert list(a[key]) == list(b[key])  # pairs in the order of their first verdict row
        assert a[key] == b[key]


def test_grouped_read_equals_the_row_by_row_read(tmp_path):
    path = _adversarial_project(tmp_path)
    with ann.unit_of_work(path) as db:
        _same(_grouped(db), _plain(db))
        some = {r[0] for r in db.execute("SELECT DISTINCT constraint_id FROM verdicts LIMIT 2")}
        _same(_grouped(db, constraints=some), _plain(db, constraints=some))
        model = db.execute("SELECT judge_model FROM verdicts LIMIT 1").fetchone()[0]
        _same(_grouped(db, model=model), _plain(db, model=model))


def test_pairs_with_the_same_repeats_share_one_reading(tmp_path):
    path = _adversarial_project(tmp_path)
    with ann.unit_of_work(path) as db:
        loaded = load_verdicts(db, reasons=False)
        readings = [v for group in loaded.values() for v in group.values()]
        patterns = {v.pattern for v in readings}
        assert len({id(v) for v in readings}) == len(patterns) < len(readings)


def _insert(db, rid: str, cid: str, sha: str, jm: str, repeat: int, label: str | None) -> None:
    db.execute("INSERT INTO verdicts (run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, error,"
               " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, '2026-11-01T00:00:00Z')",
               [rid, cid, sha, jm, repeat, label, None if label is not None else "timeout"])


@pytest.mark.parametrize("odd", ["pa\x1dss", "pa\x1fss", "\x1e", "=x"])
def test_out_of_order_repeats_error_rows_and_separator_labels(tmp_path, odd):
    path = _adversarial_project(tmp_path)
    with ann.unit_of_work(path) as db, ann.write(db):
        rid, cid = db.execute("SELECT run_record_id, constraint_id FROM verdicts LIMIT 1").fetchone()
        sha = db.execute("SELECT sha256 FROM rubrics LIMIT 1").fetchone()[0]
        # a new judge model whose repeats were stored 2, 0, 1 (a retry), one an error row, one a strange label
        _insert(db, rid, cid, sha, "late-judge", 2, "pass")
        _insert(db, rid, cid, sha, "late-judge", 0, None)
        _insert(db, rid, cid, sha, "late-judge", 1, odd)
    with ann.unit_of_work(path) as db:
        _same(_grouped(db), _plain(db))
        got = load_verdicts(db, reasons=False)[("late-judge", sha)][(rid, cid)].labels
        assert got == {0: None, 1: odd, 2: "pass"}


def test_variance_of_is_statistics_variance_bit_for_bit():
    rng = random.Random(7)
    values = [0.0, 0.5, 1.0, 1 / 3, 0.25, 2 / 3, 0.1, 1e-300, 123456.789]
    for _ in range(2000):
        data = [rng.choice(values) for _ in range(rng.randint(2, 400))]
        assert variance_of(data) == statistics.variance(data)
    many = [rng.random() for _ in range(500)]  # more distinct values than it groups: statistics.variance itself
    assert variance_of(many) == statistics.variance(many)
    assert variance_of([1, 0, 1]) == statistics.variance([1, 0, 1])  # ints: not grouped, the same answer
    with pytest.raises(statistics.StatisticsError):
        variance_of([0.5])


def test_prepared_judged_units_give_the_same_design_effect():
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(3, 60)
        f = [rng.choice([0.0, 0.5, 1.0]) for _ in range(n)]
        items = [f"i{rng.randint(0, n // 2)}" for _ in range(n)]
        lab = sorted(rng.sample(range(n), rng.randint(2, n)))
        y = [rng.randint(0, 1) for _ in lab]
        w = [rng.choice([1.0, 2.0, 3.5]) for _ in lab]
        clusters_lab = [items[k] if rng.random() < 0.9 else "only-labelled" for k in lab]
        lam = rng.choice([1.0, 0.4, 0.0])
        args = (lam, f, items, [f[k] for k in lab], y, w, clusters_lab)
        units = judged_units(f, items)
        before = dict(units.index)
        assert ppi_design_effect(*args, judged=units) == ppi_design_effect(*args)
        assert units.index == before  # the kept units are never changed by a call
        # numbered by first appearance (the keys read in C since compare's fourth pass), as one setdefault a key
        index: dict = {}
        codes = [index.setdefault(c, len(index)) for c in items]
        assert units.codes.tolist() == codes and list(units.index.items()) == list(index.items())


def test_judged_units_number_equal_keys_once_by_first_appearance():
    keys = ["b", 1, "a", 1.0, True, "b", ("t", 1), "a", ("t", 1), 2]
    units = judged_units([0.5] * len(keys), keys)
    assert units.codes.tolist() == [0, 1, 2, 1, 1, 0, 3, 2, 3, 4]
    assert list(units.index) == ["b", 1, "a", ("t", 1), 2]
