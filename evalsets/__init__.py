"""Eval sets and run records: schemas, file I/O, the mechanical checker registry and metrics."""

from judgecal.evalsets._models import (
    LABEL_DEFINITIONS,
    LABEL_SETS,
    label_definitions,
    PASS_FAIL,
    Check,
    Constraint,
    EvalItem,
    RunRecord,
    Step,
    ToolCall,
    canonical_json,
    check_transcript,
    evalset_sha256,
    item_sha256,
    VerdictRow,
)
from judgecal.evalsets._registry import (
    BUILTIN_SOURCE,
    BUNDLED_PLUGINS,
    ENTRY_POINT_GROUP,
    CheckerRegistry,
    CheckResult,
    CheckerSpec,
    LoadedPlugin,
    PluginProblem,
    checker,
    checkers,
    default_registry,
    get_checker,
    check_record,
    run_check,
    validate_check,
)
from judgecal.evalsets._io import (BATCH_ROWS, InputError, Parsed, Problem, ProblemLog, SeenKeys, chunks, jsonl_lines, load_json, parse_rows,
                                   read_evalset, read_rows, read_runs, stream_evalset, stream_rows, stream_runs, write_jsonl)
from judgecal.evalsets._text import UNSTORABLE_NOTE, printable, storable, storable_record, storable_value
from judgecal.evalsets._metrics import CheckMetrics, compute_metrics, format_metrics
from judgecal.evalsets._react import ReactError, ReactLog, parse_react, react_chunk, react_runs

from judgecal.evalsets._ifeval_files import (  # noqa: E402
    IFEVAL_IDS,
    IFEvalRow,
    IFEvalSummary,
    evaluate_ifeval,
    ifeval_to_evalset,
    parse_ifeval,
    read_ifeval,
    stream_ifeval,
    summarize_ifeval,
)

# The built-in checkers are collected here, so a duplicate or malformed built-in fails at import. Plugins (IFEval's
# checkers among them) load on first use.
default_registry()

from judgecal.evalsets._evidence import (  # noqa: E402  (the one renderer of a run's evidence: judge prompt and review card)
    FINAL_OUTPUT_MARKER,
    MAX_RESULT_CHARS,
    render_evidence,
    render_messages,
    render_trajectory,
)

from judgecal.evalsets._harness import HarnessImport, HarnessVerdict, MissingExtra  # noqa: E402
from judgecal.evalsets._harness_doctor import HARNESSES, Diagnosis, Harness, diagnose  # noqa: E402

__all__ = [
    "LABEL_DEFINITIONS", "LABEL_SETS", "PASS_FAIL", "label_definitions", "Check", "Constraint", "EvalItem", "RunRecord", "Step", "ToolCall",
    "canonical_json", "check_transcript", "evalset_sha256", "item_sha256",
    "CheckResult", "CheckerSpec", "check_record", "checker", "checkers", "get_checker", "run_check", "validate_check",
    "BUILTIN_SOURCE", "BUNDLED_PLUGINS", "ENTRY_POINT_GROUP", "CheckerRegistry", "LoadedPlugin", "PluginProblem", "default_registry", "IFEVAL_IDS",
    "CheckMetrics", "compute_metrics", "format_metrics",
    "ReactError", "ReactLog", "parse_react", "react_chunk", "react_runs",
    "IFEvalRow", "IFEvalSummary", "evaluate_ifeval", "ifeval_to_evalset", "parse_ifeval", "read_ifeval", "stream_ifeval",
    "summarize_ifeval",
    "BATCH_ROWS", "InputError", "Parsed", "Problem", "ProblemLog", "SeenKeys", "chunks", "jsonl_lines", "load_json", "parse_rows", "read_evalset",
    "read_rows", "read_runs", "stream_evalset", "stream_rows", "stream_runs", "write_jsonl",
    "UNSTORABLE_NOTE", "printable", "storable", "storable_record", "storable_value",
    "FINAL_OUTPUT_MARKER", "MAX_RESULT_CHARS", "render_evidence", "render_messages", "render_trajectory",
    "VerdictRow",
    "HARNESSES", "Diagnosis", "Harness", "HarnessImport", "HarnessVerdict", "MissingExtra", "diagnose",
]
