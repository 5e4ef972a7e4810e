"""The Eval set page's check metrics follow a re-run of the checks (they are cached per `data_version`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgecal import annotations as ann
from judgecal.annotations.store import _checks as checks_module  # private on purpose: the name run_checks calls is patched  # house: private
from judgecal.evalsets import CheckResult

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _metrics(at: AppTest) -> str:
    [text] = [c.value for c in at.code if "pass rate" in c.value.lower()]
    return text


def _fail_everything(check, record) -> CheckResult:
    return CheckResult(False, "a stricter checker version")


def test_data_version_changes_when_the_checks_are_re_run(project_db: Path, monkeypatch) -> None:
    with ann.unit_of_work(project_db) as db:
        ann.run_checks(db)
        before = ann.data_version(db)
        assert ann.data_version(db) == before  # stable while nothing changes
        ann.run_checks(db)  # same number of results, replaced
        assert ann.data_version(db) != before


def test_page_shows_new_metrics_after_a_re_run(project_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGECAL_DB", str(project_db))
    with ann.unit_of_work(project_db) as db:
        n = ann.run_checks(db)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ann"
    at.run()
    at.switch_page("app_pages/evalset.py").run()
    first = _metrics(at)
    # A newer checker that fails everything: the same number of results, different verdicts. Stands in for an
    # upgraded checker or plugin, which is when a re-run changes results without changing their count.
    monkeypatch.setattr(checks_module, "check_record", _fail_everything)
    with ann.unit_of_work(project_db) as db:
        assert ann.run_checks(db) == n
    at.run()
    assert not at.exception
    second = _metrics(at)
    assert "100.0% (8/8)" in first
    assert second != first and "0.0% (0/8)" in second, second
