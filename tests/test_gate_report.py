"""`gate_report`: the report as `run_gate` reads it (issue 16.2). It skips what the gate never reads (type slices,
labels that do not count, label shares, plans, judge error, Rogan–Gladen, older rubric versions); every field it
does fill must be the one `calibration_report` computes, for exactly the groups `latest_groups` picks, on the
adversarial project (two rubric versions, a revision verified on fresh labels, mixed label sets, a second judge
model, ties and error rows) under each filter the gate takes. The gate's printed output is pinned by
tests/test_scale_golden.py; this compares the values themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import _calibration  # house: private (gate_report and its parts)
from judgecal.annotations.reports._gate import latest_groups  # house: private
from test_scale_golden import adversarial_project

FILTERS = [{}, {"constraint": ["grounded_in_policy"]}, {"rubric": "strict@1"}, {"rubric": "strict"},
           {"model": "judge-y"}]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return adversarial_project(tmp_path_factory.mktemp("gate-report"))


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: "-".join(f"{k}={v}" for k, v in f.items()) or "none")
def test_gate_report_fills_what_the_gate_reads_as_the_report_does(project: Path, filters: dict) -> None:
    with ann.unit_of_work(project, readonly=True) as db:
        full = ann.calibration_report(db, rubric=filters.get("rubric"), model=filters.get("model"),
                                      constraint=filters.get("constraint"), rate=0.1)
        latest = latest_groups(full)
        assert full.groups  # the filter leaves something to gate
        for pass_rates in (False, True):
            parts = _calibration.GateParts(pass_rates)
            _calibration._KEPT.clear()
            lite = _calibration.gate_report(db, parts, rubric=filters.get("rubric"), model=filters.get("model"),
                                            constraint=filters.get("constraint"), rate=0.1)
            assert [(g.judge_model, g.rubric_sha256) for g in lite.groups] == \
                [(g.judge_model, g.rubric_sha256) for g in full.groups if g in latest]
            for got, want in zip(lite.groups, (g for g in full.groups if g in latest)):
                assert (got.rubric_name, got.rubric_version, got.overall, got.by_label_set, got.headline,
                        got.verified_on, got.verification, got.population_gaps, got.repeats_used,
                        got.ignored_repeat_rows) == \
                    (want.rubric_name, want.rubric_version, want.overall, want.by_label_set, want.headline,
                     want.verified_on, want.verification, want.population_gaps, want.repeats_used,
                     want.ignored_repeat_rows)
                assert got.by_constraint == ()  # the gate gates a named constraint by its own report
                assert (got.pass_rates, got.pass_rate_clustering) == \
                    ((want.pass_rates, want.pass_rate_clustering) if pass_rates else ((), ()))
                assert (got.by_type, got.label_rates, got.plans, got.judge_error, got.rogan_gladen) == \
                    ((), (), (), None, ())
            shas = {g.rubric_sha256 for g in latest}
            assert lite.coverage == tuple(c for c in full.coverage if c.rubric_sha256 in shas)
            assert lite.human_human == full.human_human
            assert lite.filters == full.filters


def test_the_adversarial_project_has_older_versions_the_gate_leaves_out(project: Path) -> None:
    with ann.unit_of_work(project, readonly=True) as db:
        full = ann.calibration_report(db)
    assert len(latest_groups(full)) < len(full.groups)
    assert len({g.judge_model for g in full.groups}) > 1
    assert any(len(g.by_label_set) > 1 for g in full.groups) and any(g.verification for g in full.groups)
