"""The project store (SQLite), human labels, review sampling, agreement statistics and calibration."""

from annotations._store import (
    DEFAULT_DB,
    MIGRATIONS,
    NoProject,
    ProjectError,
    connect,
    default_db_path,
    discard_if_empty,
    migrate,
    now_iso,
    table_counts,
    unit_of_work,
    write,
)
from annotations._project import (
    ImportSummary,
    export_header,
    import_items,
    import_runs,
    item_rows,
    iter_runs,
    load_items,
    load_run,
    models_in_run,
    project_evalset_sha256,
    SqliteRunSink,
    run_rows,
    semantic_pairs,
)
from annotations._checks import check_export_rows, check_rows, run_checks
from annotations._labels import (
    HumanLabelRow,
    blind_first_labels,
    current_labels,
    import_labels,
    label_export_rows,
    pair_label_sets,
    validate_label_rows,
)

__all__ = [
    "DEFAULT_DB", "MIGRATIONS", "NoProject", "ProjectError", "connect", "default_db_path", "discard_if_empty",
    "migrate", "now_iso", "table_counts",
    "unit_of_work", "write",
    "ImportSummary", "export_header", "import_items", "import_runs", "item_rows", "iter_runs", "load_items",
    "load_run", "models_in_run", "project_evalset_sha256", "SqliteRunSink", "run_rows", "semantic_pairs",
    "check_export_rows", "check_rows", "run_checks",
    "HumanLabelRow", "blind_first_labels", "current_labels", "import_labels", "label_export_rows", "pair_label_sets",
    "validate_label_rows",
]

# Review: sampling, the review queue and the data behind the app's pages.
from annotations._sampling import (
    DEFAULT_OVERLAP,
    DEFAULT_RATE,
    Pair,
    SampleSummary,
    StratumCoverage,
    StratumKey,
    CountedPairs,
    counted_pairs,
    coverage,
    draw_orders,
    draw_sample,
    SampleRow,
    import_samples,
    population_pairs,
    sample_export_rows,
    population_sizes,
    sample_rules,
    labelled_pairs,
    quota,
    quota_progress,
    strata_members,
    stratum_key,
    targeted_pairs,
    DrawSettings,
    ReviewProgress,
    last_draw,
    review_progress,
    sample_is_stale,
    top_up_sample,
)
from annotations._review import (
    DEFAULT_GUIDELINES,
    FAILURE_MODES,
    JudgeView,
    Reveal,
    ReviewCard,
    ReviewError,
    ReviewQueue,
    SavedLabel,
    awaiting_blind_label,
    guidelines,
    is_open,
    my_label,
    next_pair,
    open_queue,
    record_label,
    reveal,
    review_card,
    reviewer_order,
    skip,
    undo,
    undo_last,
)

__all__ += [
    "DEFAULT_OVERLAP", "DEFAULT_RATE", "Pair", "SampleSummary", "StratumCoverage", "StratumKey", "coverage",
    "CountedPairs", "counted_pairs", "draw_orders", "SampleRow", "import_samples", "sample_export_rows", "population_pairs", "population_sizes", "sample_rules",
    "DrawSettings", "ReviewProgress", "last_draw", "review_progress", "sample_is_stale", "top_up_sample",
    "draw_sample", "labelled_pairs", "quota", "quota_progress", "strata_members", "stratum_key", "targeted_pairs",
    "DEFAULT_GUIDELINES", "FAILURE_MODES", "JudgeView", "Reveal", "ReviewCard", "ReviewError", "ReviewQueue",
    "SavedLabel", "guidelines", "is_open", "my_label", "next_pair", "open_queue", "record_label", "reveal",
    "awaiting_blind_label", "review_card", "reviewer_order", "skip", "undo", "undo_last",
]
from annotations._assign import (  # noqa: E402  (review room: who labels which sampled pair)
    ASSIGN_METHODS,
    AssignSummary,
    AssignmentError,
    OverlapProgress,
    ReviewerProgress,
    assign,
    assignment_progress,
    overlap_progress,
    reviewer_progress,
    standing_assignments,
)

__all__ += [
    "ASSIGN_METHODS", "AssignSummary", "AssignmentError", "OverlapProgress", "ReviewerProgress", "assign",
    "assignment_progress", "overlap_progress", "reviewer_progress", "standing_assignments",
]
from annotations._reasons import (  # noqa: E402  (review room: how judge reasons are shown)
    ReasonLine,
    label_set_for,
    reason_conclusion,
    reason_contradicts,
    reason_lines,
)

__all__ += ["ReasonLine", "label_set_for", "reason_conclusion", "reason_contradicts", "reason_lines"]
from annotations._browse import (
    BatchRow,
    batches,
    calibration_version,
    check_results_of_run,
    data_version,
    errors_by_cause,
    imported_verdicts,
    item_ids,
    labelled_pair_ids,
    pair_source,
    PairSource,
    project_counts,
    run_ids_of_item,
    runs_with_boundary_cases,
)

__all__ += [
    "BatchRow", "batches", "check_results_of_run", "data_version", "errors_by_cause", "imported_verdicts", "item_ids",
    "runs_with_boundary_cases", "labelled_pair_ids", "calibration_version", "pair_source", "PairSource",
    "project_counts", "run_ids_of_item",
]

# Agreement statistics (Cohen, Fleiss, Krippendorff, Gwet AC1, PABAK, bootstrap, sample-size advice).
from annotations.agreement import (
    AgreementResult,
    BootstrapCI,
    KappaInterval,
    KappaResult,
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_table,
    fleiss_kappa,
    gwet_ac1,
    interpret_kappa,
    kappa_interval,
    krippendorff_alpha,
    labels_needed,
    labels_needed_for_interval,
    mcnemar_exact,
    pabak,
    randolph_kappa,
)

__all__ += [
    "AgreementResult", "BootstrapCI", "KappaResult", "bootstrap_ci", "cohen_kappa", "cohen_kappa_table",
    "fleiss_kappa", "gwet_ac1", "interpret_kappa", "krippendorff_alpha", "labels_needed", "mcnemar_exact", "pabak",
    "randolph_kappa", "KappaInterval", "kappa_interval", "labels_needed_for_interval",
]

# Run comparison (judgecal compare) and the boundary acceptance report (judgecal compare --boundary).
from annotations._compare import (  # noqa: E402
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
    format_comparison,
    list_runs,
    pair_labels,
    parse_thresholds,
    read_thresholds,
    run_stats,
    settled_labels,
)
from annotations._boundary import (  # noqa: E402
    BOUNDARY_TAG,
    DEFAULT_EXPECTED_RUNS,
    BoundaryCase,
    BoundaryReport,
    CaseRun,
    CategoryReport,
    blocked_by,
    boundary_category,
    boundary_report,
    format_boundary,
)

__all__ += [
    "BUCKETS", "THRESHOLD_KEYS", "Comparison", "Decision", "ItemOutcome", "PairLabels", "Reason", "RunStats",
    "Settled", "compare_runs", "constraint_passed", "decide", "expected_labels", "format_comparison",
    "list_runs", "pair_labels", "parse_thresholds", "read_thresholds", "run_stats", "settled_labels",
    "BOUNDARY_TAG", "DEFAULT_EXPECTED_RUNS", "BoundaryCase", "BoundaryReport", "CaseRun", "CategoryReport",
    "blocked_by", "boundary_category", "boundary_report", "format_boundary",
]

# Calibration: the report, the CI gate, rubric comparison, disagreements and feedback, LLMBar import.
from annotations._calibration import (  # noqa: E402
    CalibrationReport,
    FilterOptions,
    JudgeGroup,
    PassRate,
    SliceStats,
    calibration_report,
    filter_options,
    judge_corrected_pass_rate,
    majority_label,
    match_rubrics,
)
from annotations._calibration_text import format_report  # noqa: E402
from annotations._gate import GateCheck, GateResult, format_gate, run_gate  # noqa: E402
from annotations._tuning import RubricComparison, compare_rubrics, label_split  # noqa: E402
from annotations._feedback import (  # noqa: E402
    DECISIONS,
    Disagreement,
    FailingPair,
    SentItem,
    adjudicate,
    disagreements,
    failing_pairs,
    send_to_evalset,
)
from annotations._llmbar import LLMBarImport, import_llmbar  # noqa: E402

__all__ += [
    "CalibrationReport", "FilterOptions", "JudgeGroup", "PassRate", "SliceStats", "calibration_report",
    "filter_options", "judge_corrected_pass_rate", "majority_label", "match_rubrics", "format_report",
    "GateCheck", "GateResult", "format_gate", "run_gate", "RubricComparison", "compare_rubrics", "label_split",
    "DECISIONS", "Disagreement", "SentItem", "adjudicate", "disagreements", "send_to_evalset",
    "FailingPair", "failing_pairs",
    "LLMBarImport", "import_llmbar",
]
from annotations._guidelines import (  # room: review
    Guideline,
    GuidelineError,
    GuidelineSet,
    current_guideline,
    guideline_history,
    guidelines_for,
    is_admin,
    parse_admins,
    save_guideline,
)
from annotations._labels import canonical_reviewer, clean_reviewer_name, reviewer_names

__all__ += [
    "Guideline", "GuidelineError", "GuidelineSet", "current_guideline", "guideline_history",
    "guidelines_for", "is_admin", "parse_admins", "save_guideline",
    "canonical_reviewer", "clean_reviewer_name", "reviewer_names",
]
