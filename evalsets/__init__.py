"""Eval sets and run records: schemas, file I/O, the mechanical checker registry and metrics."""

from judgecal import lazy_exports

# Every name loads its module on first use (judgecal.lazy_exports; issue 16.2). `judgecal gate` reads label sets and
# `gc_paused`, and needs neither pydantic (the models) nor the checker registry: they load with the first file parsed
# or the first check run. The registry collects the built-in checkers when it loads (`_registry`'s last line), so a
# duplicate or malformed built-in still fails on first use of any checker.


__all__ = [
    "LABEL_DEFINITIONS", "LABEL_SETS", "PASS_FAIL", "label_definitions", "Check", "Constraint", "EvalItem",
    "RunRecord", "STORED", "Step", "ToolCall", "canonical_json", "check_transcript", "evalset_sha256", "item_sha256",
    "CHECKER_ERROR", "CheckResult", "CheckerSpec", "check_record", "checker", "checkers", "get_checker",
    "has_loose_mode", "run_check", "validate_check",
    "BUILTIN_SOURCE", "BUNDLED_PLUGINS", "ENTRY_POINT_GROUP", "CheckerRegistry", "LoadedPlugin", "PluginProblem", "default_registry", "IFEVAL_IDS",
    "CheckMetrics", "compute_metrics", "format_metrics",
    "ReactError", "ReactLog", "parse_react", "react_chunk", "react_runs",
    "IFEvalRow", "IFEvalSummary", "evaluate_ifeval", "ifeval_to_evalset", "parse_ifeval", "read_ifeval", "stream_ifeval",
    "summarize_ifeval",
    "BATCH_ROWS", "InputError", "gc_paused", "Parsed", "Problem", "ProblemLog", "SeenKeys", "chunks", "jsonl_lines", "load_json", "parse_rows", "read_evalset",
    "read_rows", "read_runs", "stream_evalset", "stream_rows", "stream_runs", "write_jsonl",
    "UNSTORABLE_NOTE", "printable", "storable", "storable_record", "storable_value",
    "FINAL_OUTPUT_MARKER", "MAX_RESULT_CHARS", "render_evidence", "render_messages", "render_trajectory",
    "VerdictRow",
    "HARNESSES", "Diagnosis", "Harness", "HarnessImport", "HarnessVerdict", "MissingExtra", "diagnose",
]

# Loaded on first use (judgecal.lazy_exports; issue 16.2): `judgecal gate` needs the models, the registry and the
# file I/O above, not the metrics, the ReAct parser, the IFEval files, the evidence renderer or the harness readers.
__getattr__, __dir__ = lazy_exports(__name__, {
    "._plain": ("LABEL_DEFINITIONS", "LABEL_SETS", "PASS_FAIL", "label_definitions", "VerdictRow"),
    "._models": ("Check", "Constraint", "EvalItem", "RunRecord", "STORED", "Step", "ToolCall", "canonical_json",
                 "check_transcript", "evalset_sha256", "item_sha256"),
    "._registry": ("CHECKER_ERROR", "BUILTIN_SOURCE", "BUNDLED_PLUGINS", "ENTRY_POINT_GROUP", "CheckerRegistry",
                   "CheckResult", "CheckerSpec", "LoadedPlugin", "PluginProblem", "checker", "checkers",
                   "default_registry", "get_checker", "check_record", "has_loose_mode", "run_check", "validate_check"),
    "._io": ("BATCH_ROWS", "InputError", "gc_paused", "Parsed", "Problem", "ProblemLog", "SeenKeys", "chunks",
             "jsonl_lines", "load_json", "parse_rows", "read_evalset", "read_rows", "read_runs", "stream_evalset",
             "stream_rows", "stream_runs", "write_jsonl"),
    "._text": ("UNSTORABLE_NOTE", "printable", "storable", "storable_record", "storable_value"),
    "._metrics": ("CheckMetrics", "compute_metrics", "format_metrics"),
    "._react": ("ReactError", "ReactLog", "parse_react", "react_chunk", "react_runs"),
    "._ifeval_files": ("IFEVAL_IDS", "IFEvalRow", "IFEvalSummary", "evaluate_ifeval", "ifeval_to_evalset",
                       "parse_ifeval", "read_ifeval", "stream_ifeval", "summarize_ifeval"),
    # the one renderer of a run's evidence: judge prompt and review card
    "._evidence": ("FINAL_OUTPUT_MARKER", "MAX_RESULT_CHARS", "render_evidence", "render_messages",
                   "render_trajectory"),
    "._harness": ("HarnessImport", "HarnessVerdict", "MissingExtra"),
    "._harness_doctor": ("HARNESSES", "Diagnosis", "Harness", "diagnose"),
})
del lazy_exports
