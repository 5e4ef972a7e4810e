"""`gate --rubric` chose the gated version among every rubric version the project judged with (wave 18; left open by
wave 17's review of rubric comparison): candidate versions registered before the labels (`judge --limit 1`, or a
judge run elsewhere whose verdicts keep their times) are each verified on every counted pair, and naming the best
one in the gate passed on the best of K draws. The kappa lower bound is then Bonferroni-adjusted over the K versions
(1 - 0.05 / K); without `--rubric` the latest version of every name is gated and nothing was chosen."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import run_alone
from judgecal import annotations as ann
from judgecal.annotations.reports import _gate  # house: private
from judgecal.annotations.stats import kappa_interval
from judgecal.annotations.stats._common import Z_95  # house: private

CANDIDATES = 5  # candidate rubric names beside the demo's strict: K = 6


def _candidates(demo: Path, tmp_path: Path, n: int = CANDIDATES) -> None:
    """`n` candidate rubric versions, judged before the labels: the demo's verdicts (with their 2026-11-01 times, the
    demo judge's run) under other rubric names."""
    out = tmp_path / "exported.jsonl"
    assert run_alone(demo, "export", "verdicts", "--out", str(out))[0] == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    rows = [r for r in rows if "judgecal_export" not in r]
    for k in range(n):
        renamed = [{key: v for key, v in r.items() if key not in ("rubric_sha256", "rubric_version")}
                   | {"rubric": f"candidate{k}"} for r in rows]
        path = tmp_path / f"candidate{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in renamed))
        assert run_alone(demo, "import", "verdicts", str(path))[0] == 0


def _kappa_checks(demo: Path, *argv: str) -> tuple[int, list[dict]]:
    # (the demo's refusal label set has 13 compared random pairs; its weak judge's bounds are -0.22 and -0.64)
    rc, out = run_alone(demo, "gate", "--json", "--min-n", "10", *argv)
    return rc, [c for c in json.loads(out)["checks"] if c["check"] == "kappa"]


def test_naming_one_of_several_candidate_versions_is_gated_on_the_bonferroni_bound(demo: Path, tmp_path: Path):
    rc, alone = _kappa_checks(demo, "--min-kappa", "-1", "--rubric", "strict")
    assert rc == 0 and alone and all("Bonferroni" not in c["reason"] for c in alone)  # one version: no adjustment
    bound = min(c["value"] for c in alone)
    _candidates(demo, tmp_path)
    with ann.unit_of_work(demo, readonly=True) as db:
        assert _gate.versions_judged(db) == CANDIDATES + 1
    # a threshold the 95% bound clears: it passed before, and fails now that strict was chosen among six
    threshold = str(round(bound - 0.01, 3))
    rc, checks = _kappa_checks(demo, "--min-kappa", threshold, "--rubric", "strict")
    assert rc == 1
    failed = [c for c in checks if not c["ok"]]
    assert failed and all("99.17% lower bound (Bonferroni over the 6 rubric versions" in c["reason"] for c in failed)
    assert all(c["value"] < bound - 0.01 for c in failed)
    # the point estimate is not a bound: nothing to adjust
    rc, point = _kappa_checks(demo, "--min-kappa", threshold, "--rubric", "strict", "--on", "point")
    assert all("Bonferroni" not in c["reason"] for c in point)


def test_without_rubric_every_latest_version_is_gated_and_nothing_is_adjusted(demo: Path, tmp_path: Path):
    rc, before = _kappa_checks(demo, "--min-kappa", "-1")
    _candidates(demo, tmp_path, n=2)
    rc, after = _kappa_checks(demo, "--min-kappa", "-1")
    assert all("Bonferroni" not in c["reason"] for c in after)
    strict = [c for c in after if "strict" in c["stratum"]]
    assert [(c["stratum"], c["value"]) for c in strict] == [(c["stratum"], c["value"]) for c in before]
    assert len(after) == 3 * len(before)  # each candidate name is gated too: a bad one fails the build


def test_the_adjusted_bound_is_the_reports_interval_at_the_adjusted_level(demo: Path):
    # At z = 1.96 the recomputation from the stored confusion table and effective size is the report's own bound.
    with ann.unit_of_work(demo, readonly=True) as db:
        report = ann.calibration_report(db, rubric="strict")
    slices = [s for g in report.groups for s in (g.verification or g.headline)]
    assert slices
    same = _gate.Multiplicity(1, Z_95, 0.95)
    six = _gate._multiplicity(6)  # house: private
    assert six.z == pytest.approx(2.638, abs=1e-3) and six.level == pytest.approx(1 - 0.05 / 6)
    for s in slices:
        a = s.headline
        if a is None or math.isnan(a.kappa_ci_low):
            continue
        exact = a.design_weighted is False
        got = _gate._adjusted_low(a, same)  # house: private
        assert got == a.kappa_ci_low if exact else got == pytest.approx(a.kappa_ci_low, abs=1e-5)
        assert _gate._adjusted_low(a, six) < a.kappa_ci_low  # house: private
    assert _gate._multiplicity(1) is None  # house: private


def test_a_larger_z_widens_the_kappa_interval_around_the_same_one():
    table = np.array([[40.0, 6.0], [4.0, 30.0]])
    base = kappa_interval(table)
    assert kappa_interval(table, z=Z_95) == base
    wide = kappa_interval(table, z=2.638)
    assert wide.low < base.low and wide.high > base.high and wide.method == base.method
