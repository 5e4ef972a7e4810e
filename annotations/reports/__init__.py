"""Reports computed from the store: calibration, the CI gate, rubric comparison, disagreements and
feedback, run comparison, the boundary report, and their text formatting.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal.annotations.reports._browse import (
    BatchRow,
    PairSource,
    batches,
    calibration_version,
    check_results_of_run,
    data_version,
    errors_by_cause,
    imported_verdicts,
    item_ids,
    labelled_pair_ids,
    pair_source,
    project_counts,
    run_ids_of_item,
    runs_with_boundary_cases,
)
from judgecal.annotations.reports._judge_error import (
    JudgeError,
    RecordCovariates,
    judge_error,
    record_covariates,
)
from judgecal.annotations.reports._calibration import (
    PPI_TUNE_MIN_N,
    CalibrationReport,
    FilterOptions,
    JudgeGroup,
    PassRate,
    SliceStats,
    agreement,
    calibration_report,
    design_weights,
    filter_options,
    judge_corrected_pass_rate,
    load_verdicts,
    majority_label,
    match_rubrics,
    ppi_pass_rate,
)
from judgecal.annotations.reports._text import (
    format_comparison,
    confusion_rows,
    format_report,
    kappa_rows,
    slice_table,
)
from judgecal.annotations.reports._gate import (
    DEFAULT_MIN_N,
    GATE_ON,
    GateCheck,
    GateResult,
    format_gate,
    run_gate,
    run_pass_gate,
    transferred_pass_rate,
)
from judgecal.annotations.reports._rubrics import (
    DEFAULT_TUNE_SHARE,
    RubricComparison,
    compare_rubrics,
    comparison_blocks,
    label_split,
)
from judgecal.annotations.reports._disagreements import (
    DECISIONS,
    KINDS,
    NO_DECISION,
    Disagreement,
    DisagreementFilter,
    FailingPair,
    SentItem,
    adjudicate,
    disagreements,
    failing_pairs,
    filter_disagreements,
    send_to_evalset,
)
from judgecal.annotations.reports._runs import (
    BUCKETS,
    THRESHOLD_KEYS,
    Comparison,
    Decision,
    ItemOutcome,
    PairLabels,
    Reason,
    RunStats,
    Settled,
    compare_runs,
    constraint_passed,
    decide,
    expected_labels,
    list_runs,
    pair_labels,
    parse_thresholds,
    rate_difference,
    read_thresholds,
    require_run,
    run_stats,
    settled_labels,
)
from judgecal.annotations.reports._boundary import (
    BOUNDARY_TAG,
    DEFAULT_EXPECTED_RUNS,
    MIN_CASES,
    BoundaryCase,
    BoundaryReport,
    CaseRun,
    CategoryReport,
    blocked_by,
    boundary_category,
    boundary_report,
    forbidden_calls,
    format_boundary,
)
from judgecal.annotations.reports._pairwise import (
    PAIR_RUN_PREFIX,
    PAIR_SOURCE,
    ReviewOrder,
    clopper_pearson,
    pair_record_id,
    pairwise_report,
    review_order,
    store_pairs,
)

from judgecal.annotations.reports._probes import (
    PROBE_LIMITS,
    PROBES,
    PositionBias,
    ProbeResult,
    ProbeTarget,
    VerdictPosition,
    binomial_p,
    format_probes,
    position_bias,
    probe_gate_checks,
    probe_targets,
    probe_results,
    verdict_position_bias,
)

__all__ = [
    "JudgeError", "RecordCovariates", "judge_error", "record_covariates",
    "BatchRow", "PairSource", "batches", "calibration_version", "check_results_of_run", "data_version",
    "errors_by_cause", "imported_verdicts", "item_ids", "labelled_pair_ids", "pair_source", "project_counts",
    "run_ids_of_item", "runs_with_boundary_cases", "PPI_TUNE_MIN_N", "CalibrationReport", "FilterOptions",
    "JudgeGroup", "PassRate", "SliceStats", "agreement", "calibration_report", "design_weights", "filter_options",
    "judge_corrected_pass_rate", "load_verdicts", "majority_label", "match_rubrics", "ppi_pass_rate",
    "confusion_rows", "format_report", "kappa_rows", "slice_table", "DEFAULT_MIN_N", "GATE_ON", "GateCheck",
    "GateResult", "format_gate", "run_gate", "run_pass_gate", "transferred_pass_rate", "DEFAULT_TUNE_SHARE",
    "RubricComparison", "compare_rubrics", "comparison_blocks", "label_split", "DECISIONS", "KINDS", "NO_DECISION",
    "Disagreement", "DisagreementFilter", "FailingPair", "SentItem", "adjudicate", "disagreements", "failing_pairs",
    "filter_disagreements", "send_to_evalset", "BUCKETS", "THRESHOLD_KEYS", "Comparison", "Decision", "ItemOutcome",
    "PairLabels", "Reason", "RunStats", "Settled", "compare_runs", "constraint_passed", "decide", "expected_labels",
    "format_comparison", "list_runs", "pair_labels", "parse_thresholds", "rate_difference", "read_thresholds",
    "require_run", "run_stats", "settled_labels", "BOUNDARY_TAG", "DEFAULT_EXPECTED_RUNS", "MIN_CASES",
    "BoundaryCase", "BoundaryReport", "CaseRun", "CategoryReport", "blocked_by", "boundary_category",
    "boundary_report", "forbidden_calls", "format_boundary", "PAIR_RUN_PREFIX", "PAIR_SOURCE", "ReviewOrder",
    "clopper_pearson", "pair_record_id", "pairwise_report", "review_order", "store_pairs",
    "PROBE_LIMITS", "PROBES", "PositionBias", "ProbeResult", "VerdictPosition", "binomial_p", "format_probes",
    "position_bias", "probe_gate_checks", "probe_results", "ProbeTarget", "probe_targets", "verdict_position_bias",
]
from judgecal.annotations.reports._drift import (  # noqa: E402  (issue 15.6: anchors and drift)
    Baseline,
    DriftCheck,
    DriftHistoryRow,
    DriftReport,
    FlippedPair,
    UNANSWERED,
    anchor_baselines,
    anchor_rank,
    drift_checks,
    drift_history,
    drift_report,
    freeze_anchor,
)

__all__ += [
    "Baseline", "DriftCheck", "DriftHistoryRow", "DriftReport", "FlippedPair", "UNANSWERED", "anchor_baselines",
    "anchor_rank", "drift_checks", "drift_history", "drift_report", "freeze_anchor",
]
