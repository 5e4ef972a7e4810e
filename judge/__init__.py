"""The judge: rubric versions, the verdict schema, backends (OpenAI-compatible endpoints, an offline demo model)
and the batch runner. Imports only `evalsets`; storage comes in through a `VerdictSink`."""

from judge._verdict import Verdict as VerdictSchema, parse_answer, verdict_json_schema, verdict_model
from judge._rubric import DEFAULT_RUBRIC, SHIPPED, STRICT_TEMPLATE, Rubric, rubric_sha256, shipped_rubric
from judge._backend import ENDPOINTS, KEY_HEADER, Answer, Backend, FatalBackendError, OpenAIBackend, verdict_key_header
from judge._runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_REPEATS,
    BatchSummary,
    Pair,
    Progress,
    Verdict,
    VerdictKey,
    VerdictSink,
    plan,
    run_batch,
)
from judge._local import (
    DEMO_QUALITY_WARNING,
    LocalBackend,
    find_local_model,
    is_demo_quality,
    local_backend_available,
)

__all__ = [
    "VerdictSchema", "parse_answer", "verdict_json_schema", "verdict_model",
    "DEFAULT_RUBRIC", "SHIPPED", "STRICT_TEMPLATE", "Rubric", "rubric_sha256", "shipped_rubric",
    "ENDPOINTS", "KEY_HEADER", "Answer", "Backend", "FatalBackendError", "OpenAIBackend", "verdict_key_header",
    "DEFAULT_CONCURRENCY", "DEFAULT_REPEATS", "BatchSummary", "Pair", "Progress", "Verdict", "VerdictKey",
    "VerdictSink", "plan", "run_batch",
    "DEMO_QUALITY_WARNING", "LocalBackend", "find_local_model", "is_demo_quality", "local_backend_available",
]

# The model runner (judgecal run): eval items -> run records, through the same OpenAI backend.
from judge._model_runner import (  # noqa: E402
    DEFAULT_LOOP_LIMIT,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_RUN_CONCURRENCY,
    DEFAULT_SYSTEM_PROMPT,
    DEFAULT_TASK_TIMEOUT_S,
    ERROR_CAUSES,
    MemoryRunSink,
    ModelRunner,
    RunSettings,
    RunSink,
    RunSummary,
    Task,
    error_cause,
    fixture_tools,
    plan_tasks,
    record_id,
    run_models,
    task_messages,
)

__all__ += [
    "DEFAULT_LOOP_LIMIT", "DEFAULT_MAX_ROUNDS", "DEFAULT_RUN_CONCURRENCY", "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TASK_TIMEOUT_S", "ERROR_CAUSES", "MemoryRunSink", "ModelRunner", "RunSettings", "RunSink", "RunSummary",
    "Task", "error_cause", "fixture_tools", "plan_tasks", "record_id", "run_models", "task_messages",
]
