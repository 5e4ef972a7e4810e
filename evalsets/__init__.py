"""Eval sets and run records: schemas, file I/O, the mechanical checker registry and metrics."""

from evalsets._models import (
    LABEL_SETS,
    PASS_FAIL,
    Check,
    Constraint,
    EvalItem,
    RunRecord,
    Step,
    ToolCall,
    canonical_json,
    evalset_sha256,
    item_sha256,
)
from evalsets._registry import CheckResult, CheckerSpec, checker, checkers, get_checker, run_check, validate_check
from evalsets._io import InputError, Parsed, Problem, jsonl_lines, load_json, parse_rows, read_evalset, read_rows, read_runs, write_jsonl
from evalsets._text import UNSTORABLE_NOTE, printable, storable, storable_record, storable_value
from evalsets._metrics import CheckMetrics, compute_metrics, format_metrics

# Importing the checker modules fills the registry; nothing registers checkers after this point.
from evalsets import _checks_text, _checks_trajectory  # noqa: E402,F401  (registration side effect)
from evalsets import _ifeval  # noqa: E402,F401  (registers the 25 IFEval checkers)
from evalsets._ifeval_files import (  # noqa: E402
    IFEvalRow,
    IFEvalSummary,
    evaluate_ifeval,
    ifeval_to_evalset,
    parse_ifeval,
    read_ifeval,
    summarize_ifeval,
)

__all__ = [
    "LABEL_SETS", "PASS_FAIL", "Check", "Constraint", "EvalItem", "RunRecord", "Step", "ToolCall",
    "canonical_json", "evalset_sha256", "item_sha256",
    "CheckResult", "CheckerSpec", "checker", "checkers", "get_checker", "run_check", "validate_check",
    "CheckMetrics", "compute_metrics", "format_metrics",
    "IFEvalRow", "IFEvalSummary", "evaluate_ifeval", "ifeval_to_evalset", "parse_ifeval", "read_ifeval",
    "summarize_ifeval",
    "InputError", "Parsed", "Problem", "jsonl_lines", "load_json", "parse_rows", "read_evalset", "read_rows", "read_runs", "write_jsonl",
    "UNSTORABLE_NOTE", "printable", "storable", "storable_record", "storable_value",
]
