"""Metrics over mechanical check results: pass rates, all-pass rate, failure modes and step deviation, per model.

Input is one row per (run record, constraint) that was checked — a pandas DataFrame or a list of records (dicts,
`CheckRow`s or other named tuples / dataclasses) with the columns in `REQUIRED_COLUMNS`, plus optionally
`failure_mode`. Only checked constraints appear, so every rate is over checked constraints only; semantic
constraints that no checker settled are simply absent. A rate with an empty denominator is NaN, never 0 or 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

ALL = "all"
REQUIRED_COLUMNS = (
    "run_record_id", "item_id", "model", "constraint_id", "constraint_type", "severity", "passed", "bad_steps",
    "n_steps",
)
# Failed checks that carry no failure mode are counted under this key.
UNLABELLED = "unlabelled"
PROCESS = "process"
NICE = "nice"


class CheckRow(NamedTuple):
    """One checked (run record, constraint) pair: the input row of `compute_metrics`."""

    run_record_id: str
    item_id: str
    model: str
    constraint_id: str
    constraint_type: str
    severity: str
    passed: bool
    bad_steps: int  # how many steps of the trajectory break this constraint (len of CheckResult.bad_steps)
    n_steps: int  # length of the run record's trajectory; 0 for a plain-text output
    failure_mode: str | None = None


class Rate(NamedTuple):
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else math.nan


@dataclass(frozen=True)
class CheckMetrics:
    """Check metrics for one model (or for all models together, under the key `ALL`).

    - `pass_rate`: passed checks / checks.
    - `all_pass_rate`: run records whose every checked constraint passed / run records. A failed `nice`
      constraint never fails a record (seed 000: nice-to-haves are reported, not required); it still counts in
      `pass_rate`, `by_severity` and the failure modes.
    - `per_task_pass_rate`: the mean over run records of each record's own pass rate (every checked constraint),
      beside the pooled `pass_rate`, which weights a record by how many constraints it has.
    - `by_type`, `by_severity`: passed / total checks per constraint type and per severity.
    - `failure_modes`: failed checks per failure mode (`UNLABELLED` when a failed check has none).
    - `step_deviation_rate`: bad steps summed over checks of `process` constraints / steps of all trajectory run
      records (each record's `n_steps` counted once). A step that breaks two process constraints counts twice, so
      the rate is deviations per step and can exceed 1. NaN when there are no trajectory steps.
    """

    model: str
    n_records: int
    n_items: int
    n_checks: int
    n_passed: int
    n_records_all_pass: int
    by_type: dict[str, Rate]
    by_severity: dict[str, Rate]
    failure_modes: dict[str, int]
    n_bad_steps: int
    n_steps: int
    per_task_pass_rate: float = math.nan

    @property
    def pass_rate(self) -> float:
        return Rate(self.n_passed, self.n_checks).rate

    @property
    def all_pass_rate(self) -> float:
        return Rate(self.n_records_all_pass, self.n_records).rate

    @property
    def step_deviation_rate(self) -> float:
        return self.n_bad_steps / self.n_steps if self.n_steps else math.nan

    @property
    def failure_mode_shares(self) -> dict[str, float]:
        """Each failure mode's share of the failed checks."""
        failed = sum(self.failure_modes.values())
        return {k: v / failed for k, v in self.failure_modes.items()} if failed else {}


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_count(v: Any) -> bool:
    if _is_bool(v):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    # CSV round trips and NaN-padded frames turn integer columns into floats; 3.0 is still a count.
    return isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer()


def _frame(rows: pd.DataFrame | Iterable[Any]) -> pd.DataFrame:
    import pandas as pd  # on first use: pandas costs ~0.4 s to import, which every CLI command paid

    df = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if df.empty:
        raise ValueError("no check results to summarise")
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"check results lack column(s): {', '.join(missing)}")
    if "failure_mode" not in df.columns:
        df["failure_mode"] = None
    df = df.reset_index(drop=True)

    def bad_row(mask: pd.Series, message: str) -> None:
        if mask.any():
            first = int(mask.to_numpy().nonzero()[0][0])
            raise ValueError(f"check results row {first}: {message} ({int(mask.sum())} row(s))")

    # A passed value that is not a real bool (None, "yes", 1) is bad input, not a pass or a fail.
    bad_row(~df["passed"].map(_is_bool), "'passed' must be a bool")
    df["passed"] = df["passed"].astype(bool)
    for col in ("bad_steps", "n_steps"):
        bad_row(~df[col].map(_is_count), f"{col!r} must be a whole number")
        df[col] = df[col].astype("int64")
        bad_row(df[col] < 0, f"{col!r} must not be negative")
    bad_row(df["model"] == ALL, f"model name {ALL!r} is reserved for the overall entry")
    bad_row(df.duplicated(["run_record_id", "constraint_id"]), "duplicate (run_record_id, constraint_id)")
    per_record = df.groupby("run_record_id")[["model", "n_steps"]].nunique()
    inconsistent = per_record[(per_record > 1).any(axis=1)].index
    bad_row(df["run_record_id"].isin(inconsistent), "one run record with different 'model' or 'n_steps' values")
    return df


def _rates(df: pd.DataFrame, by: str) -> dict[str, Rate]:
    g = df.groupby(by)["passed"].agg(["sum", "count"])
    return {str(k): Rate(int(r["sum"]), int(r["count"])) for k, r in g.sort_index().iterrows()}


def _summarise(df: pd.DataFrame, model: str) -> CheckMetrics:
    # `passed | nice`: a failed nice-to-have does not fail the record
    all_pass = (df["passed"] | (df["severity"] == NICE)).groupby(df["run_record_id"]).all()
    per_task = df.groupby("run_record_id")["passed"].mean()
    failed = df.loc[~df["passed"], "failure_mode"].fillna(UNLABELLED).astype(str)
    modes = failed.value_counts()
    steps = df.drop_duplicates("run_record_id")["n_steps"].sum()
    return CheckMetrics(
        model=model,
        n_records=int(all_pass.size),
        n_items=int(df["item_id"].nunique()),
        n_checks=int(len(df)),
        n_passed=int(df["passed"].sum()),
        n_records_all_pass=int(all_pass.sum()),
        by_type=_rates(df, "constraint_type"),
        by_severity=_rates(df, "severity"),
        failure_modes={str(k): int(v) for k, v in sorted(modes.items(), key=lambda kv: (-kv[1], kv[0]))},
        n_bad_steps=int(df.loc[df["constraint_type"] == PROCESS, "bad_steps"].sum()),
        n_steps=int(steps),
        per_task_pass_rate=float(per_task.mean()),
    )


def compute_metrics(rows: pd.DataFrame | Iterable[Any]) -> dict[str, CheckMetrics]:
    """Check metrics per model, in model-name order, followed by the overall entry under `ALL` ("all").

    Raises ValueError for empty input, a missing column, a `passed` value that is not a bool, a negative or
    fractional step count, a model named "all", a duplicate (run_record_id, constraint_id) pair, or a run record
    whose rows disagree on `model` or `n_steps`.
    """
    df = _frame(rows)
    out = {str(model): _summarise(g, str(model)) for model, g in df.groupby("model", sort=True)}
    out[ALL] = _summarise(df, ALL)
    return out


def _pct(rate: float) -> str:
    return "n/a" if math.isnan(rate) else f"{100 * rate:.1f}%"


def _cell(r: Rate | None) -> str:
    return "" if r is None else f"{_pct(r.rate)} ({r.passed}/{r.total})"


def _table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    lines = [header, ["-" * w for w in widths], *body]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip()
        for line in lines
    )


def format_metrics(metrics: dict[str, CheckMetrics]) -> str:
    """A plain-text report of `compute_metrics` output: overview, pass rate by type and severity, failure modes."""
    ms = list(metrics.values())
    overview = _table(
        ["model", "records", "checks", "pass rate", "per-task mean", "all-pass", "step deviation"],
        [[m.model, str(m.n_records), str(m.n_checks), _cell(Rate(m.n_passed, m.n_checks)), _pct(m.per_task_pass_rate),
          _cell(Rate(m.n_records_all_pass, m.n_records)),
          "n/a" if not m.n_steps else f"{_pct(m.step_deviation_rate)} ({m.n_bad_steps}/{m.n_steps})"] for m in ms],
    )
    parts = ["Checks", overview]
    for title, attr in (("Pass rate by constraint type", "by_type"), ("Pass rate by severity", "by_severity")):
        keys = sorted({k for m in ms for k in getattr(m, attr)})
        parts += ["", title, _table(["model", *keys], [[m.model, *(_cell(getattr(m, attr).get(k)) for k in keys)]
                                                        for m in ms])]
    modes = sorted({k for m in ms for k in m.failure_modes})
    parts += ["", "Failure modes (failed checks)"]
    if modes:
        parts.append(_table(["model", *modes], [[m.model, *(str(m.failure_modes.get(k, 0)) for k in modes)]
                                                for m in ms]))
    else:
        parts.append("no failed checks")
    return "\n".join(parts) + "\n"
