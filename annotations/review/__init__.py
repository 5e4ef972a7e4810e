"""Review: the sample (strata, quotas, targeted and overlap pairs), the review queue, and the LLMBar import
that seeds labelled pairs into the sample.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal import lazy_exports

# Each public name and the module it comes from; a module is imported when one of its names is first used
# (judgecal.lazy_exports says why).
_OWNERS = {
    "._sampling": (
        "DEFAULT_OVERLAP", "DEFAULT_RATE", "DEFAULT_SEED", "PAIRED", "CountedPairs", "DrawRefused", "PairedDraw",
        "PairedSample",
        "PairedUnit", "DrawSettings", "Pair", "ReviewProgress", "SampleSummary",
        "StratumCoverage", "StratumKey", "committed_seeds", "counted_pairs", "coverage", "draw_orders",
        "draw_rank", "draw_paired", "draw_run_sample", "draw_sample", "import_samples", "paired_counted",
        "paired_drawn",
        "paired_key", "paired_order", "labelled_pairs", "last_draw", "population_pairs", "population_sizes",
        "quota", "quota_progress", "review_progress", "rules_by_pair", "sample_export_rows", "sample_is_stale",
        "sample_rules", "seed_for_draw", "seed_note", "named_seeds", "named_seeds_note",
        "store_sample_side", "store_pair_tally", "strata_members", "stratum_key", "targeted_pairs", "top_up_sample",
    ),
    "._sample_rows": (
        "SampleRow",
    ),
    "._queue": (
        "FAILURE_MODES", "JudgeView", "Reveal", "ReviewCard", "ReviewError", "ReviewQueue", "SavedLabel",
        "awaiting_blind_label", "guidelines", "is_open", "my_label", "next_pair", "open_queue",
        "record_label", "reveal", "review_card", "review_quota", "reviewer_order", "skip", "undo",
        "undo_last",
    ),
    "._version": (
        "review_version",
    ),
    "._llmbar": (
        "JUDGE_MODEL", "REVIEWER", "LLMBarImport", "import_llmbar", "parse_llmbar", "rubric_sha",
        "run_output",
    ),
    "._assign": (
        "ASSIGN_METHODS", "AssignmentError", "AssignSummary", "OverlapProgress", "ReviewerProgress", "assign",
        "assignment_progress", "overlap_pairs", "overlap_progress", "reviewer_progress",
        "standing_assignments",
    ),
    "._reasons": (
        "ReasonLine", "label_set_for", "reason_conclusion", "reason_contradicts", "reason_lines",
    ),
    "._guidelines": (
        "Guideline", "GuidelineError", "GuidelineSet", "current_guideline", "guideline_history",
        "guidelines_for", "is_admin", "parse_admins", "save_guideline",
    ),
}

__all__ = [name for names in _OWNERS.values() for name in names]  # the table is the one list

__getattr__, __dir__ = lazy_exports(__name__, _OWNERS)
del lazy_exports
