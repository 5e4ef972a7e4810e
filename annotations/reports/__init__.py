"""Reports computed from the store: calibration, the CI gate, rubric comparison, disagreements and
feedback, run comparison, the boundary report, and their text formatting.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal import lazy_exports

# Each public name and the module it comes from; a module is imported when one of its names is first used
# (judgecal.lazy_exports says why).
_OWNERS = {
    "._browse": (
        "BatchRow", "PairSource", "batches", "calibration_version", "check_results_of_run", "data_version",
        "errors_by_cause", "imported_verdicts", "item_ids", "labelled_pair_ids", "pair_source",
        "project_counts", "report_version", "run_ids_of_item", "runs_with_boundary_cases", "tables_version",
    ),
    "._judge_error": (
        "JudgeError", "RecordCovariates", "judge_error", "record_covariates",
    ),
    "._calibration": (
        "PPI_TUNE_MIN_N", "CalibrationReport", "FilterOptions", "JudgeGroup", "PassRate", "SliceStats",
        "agreement", "calibration_report", "design_weights", "filter_options", "judge_corrected_pass_rate",
        "load_verdicts", "majority_label", "match_rubrics", "page_report", "ppi_pass_rate", "store_label_side",
        "store_labelled_rules", "store_report_pass",
    ),
    "._text": (
        "format_comparison", "confusion_rows", "format_report", "kappa_rows", "slice_table",
    ),
    "._gate": (
        "DEFAULT_MIN_N", "GATE_ON", "PROBE_LIMITS", "GateCheck", "GateResult", "format_gate", "run_gate", "run_pass_gate",
        "transferred_pass_rate",
    ),
    "._rubrics": (
        "DEFAULT_TUNE_SHARE", "HELDOUT_MIN_N", "RubricComparison", "VersionMajority", "compare_rubrics",
        "comparison_blocks", "label_split",
    ),
    "._disagreements": (
        "DECISIONS", "KINDS", "NO_DECISION", "Disagreement", "DisagreementFilter", "FailingPair", "SentItem",
        "adjudicate", "disagreements", "failing_pairs", "filter_disagreements", "send_to_evalset",
        "DisagreementKey", "DisagreementPage", "FailingCount", "FailingPage", "ShownDisagreements",
        "disagreement_card", "disagreement_keys", "disagreement_page", "failing_count", "failing_page",
        "shown_disagreements",
    ),
    "._runs": (
        "BUCKETS", "THRESHOLD_KEYS", "Comparison", "Decision", "ItemOutcome", "PairLabels", "Reason",
        "RunStats", "Settled", "compare_runs", "constraint_passed", "decide", "expected_labels", "list_runs",
        "pair_labels", "parse_thresholds", "rate_difference", "read_thresholds", "require_run", "run_stats",
        "settled_labels",
    ),
    "._boundary": (
        "BOUNDARY_TAG", "DEFAULT_EXPECTED_RUNS", "MIN_CASES", "BoundaryCase", "BoundaryReport", "CaseRun",
        "CategoryReport", "blocked_by", "boundary_category", "boundary_report", "forbidden_calls",
        "format_boundary",
    ),
    "._pairwise": (
        "PAIR_RUN_PREFIX", "PAIR_SOURCE", "ReviewOrder", "clopper_pearson", "pair_record_id",
        "pairwise_report", "review_order", "store_pairs",
    ),
    "._probes": (
        "PROBES", "PositionBias", "ProbeResult", "ProbeTarget", "VerdictPosition",
        "binomial_p", "format_probes", "position_bias", "probe_gate_checks", "probe_targets", "probe_results",
        "verdict_position_bias",
    ),
    "._drift": (
        "Baseline", "DriftCheck", "DriftHistoryRow", "DriftPool", "DriftReport", "FlippedPair", "PooledRun",
        "UNANSWERED", "anchor_baselines", "anchor_rank", "drift_checks", "drift_history", "drift_pool",
        "drift_report", "freeze_anchor",
    ),
}

__all__ = [name for names in _OWNERS.values() for name in names]  # the table is the one list

__getattr__, __dir__ = lazy_exports(__name__, _OWNERS)
del lazy_exports
