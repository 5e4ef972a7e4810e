"""The project store: SQLite schema and migrations, the writer thread, items and runs, mechanical check
results, human labels, judge verdicts, batches and prices, and the read-only queries behind the pages.

The public names of this room; other rooms and callers import from here, never from its
private modules (rules: the map at the top of docs/decisions.md)."""

from judgecal import lazy_exports

# Each public name and the module it comes from; a module is imported when one of its names is first used
# (judgecal.lazy_exports says why).
_OWNERS = {
    "._schema": (
        "DEFAULT_DB", "DEFAULT_GUIDELINES", "GUIDELINES_SETTING", "MIGRATIONS", "NoProject", "ProjectError",
        "connect", "default_db_path", "discard_if_empty", "has_pair_rowids", "has_verdict_pairs",
        "instant", "iso_utc", "migrate", "pair_indexes", "parse_pattern", "PATTERN_SQL", "now_iso", "table_marks",
        "table_counts", "unit_of_work", "write",
    ),
    "._interface": (
        "STORE_CONNECTION_OPERATIONS", "STORE_DATABASE_OPERATIONS", "StoreConnection", "StoreDatabase",
    ),
    "._writer": (
        "QueuedWriter", "WriterError",
    ),
    "._project": (
        "ImportSummary", "SqliteRunSink", "export_header", "import_items", "import_runs", "item_rows",
        "iter_runs", "load_items", "load_run", "models_in_run", "project_evalset_sha256", "run_rows",
        "semantic_pairs",
    ),
    "._checks": (
        "check_export_rows", "check_rows", "loose_ignored", "run_checks", "stale_check_results",
    ),
    "._label_rows": (
        "HumanLabelRow",
    ),
    "._labels": (
        "BlindFirst", "BlindLabel", "blind_first_labels", "canonical_reviewer", "clean_reviewer_name", "current_labels",
        "import_labels", "label_export_rows", "pair_label_sets", "reviewer_names", "standing_labels_sql",
        "validate_label_rows", "INCREMENTAL_PAIRS", "PAIRS_IN_JSON", "pairs_labelled_since", "kept_blind_first",
        "output_sha256",
    ),
    "judgecal.annotations.stats": (
        "majority_label",
    ),
    "._rubrics": (
        "get_rubric", "list_rubrics", "store_rubric",
    ),
    "._batches": (
        "HEARTBEAT_S", "LEASE_TTL_S", "finish_batch", "heartbeat", "mark_dead_batches", "start_batch",
    ),
    "._prices": (
        "BATCH_DISCOUNT", "Price", "get_price", "list_prices", "set_price",
    ),
    "._remote": (
        "RemoteBatch", "pending_remote_batches", "record_remote_batch", "remote_batch_requests",
        "update_remote_batch",
    ),
    "._verdicts": (
        "LLMBAR_BATCH_PREFIX", "SqliteVerdictSink", "VerdictImportRow", "done_verdict_keys", "flip_rates",
        "import_batch_id", "import_verdicts",
        "judge_consistency", "unknown_rubric_sha256", "verdict_export_rows",
    ),
    "._anchors": (
        "AnchorPair", "AnchorRow", "DriftRunRow", "DriftVerdict", "FrozenVerdict", "OpenedDriftRun",
        "SqliteDriftSink", "anchor_pairs", "anchor_verdicts", "drift_verdicts", "finish_drift_run",
        "get_anchor", "get_drift_run", "insert_anchor", "list_anchors", "list_drift_runs", "open_drift_run",
    ),
    "._probes": (
        "PROBE_SAMPLING", "ProbeVerdict", "SqliteProbeSink", "probe_batch_settings", "probe_sampling",
        "probe_verdicts",
    ),
    "._memo": (
        "kept_for_tables", "merged", "storing_kept",
    ),
    "._stored": (
        "Persisted", "ascending", "code_digest", "decode_column", "named_rows", "decode_json_column", "encode_json_texts", "encode_texts", "modules_digest",
        "read_snapshot", "stored_columns", "stored_value", "text_tuple",
    ),
}

__all__ = [name for names in _OWNERS.values() for name in names]  # the table is the one list

__getattr__, __dir__ = lazy_exports(__name__, _OWNERS)
del lazy_exports
