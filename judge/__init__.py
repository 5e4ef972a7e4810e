"""The judge: rubric versions, the verdict schema, the endpoint adapter (any OpenAI-compatible endpoint; also used
by the model runner in `judgecal.runner`), backends (that adapter, an offline demo model) and the batch runner.
Imports only `evalsets`; storage comes in through a `VerdictSink`."""

from judgecal.judge._verdict import Verdict as VerdictSchema, parse_answer, verdict_json_schema, verdict_model
from judgecal.evalsets import FINAL_OUTPUT_MARKER, MAX_RESULT_CHARS, render_evidence, render_messages, render_trajectory
from judgecal.judge._rubric import (
    DEFAULT_RUBRIC, SHIPPED, SHIPPED_VERSIONS, STRICT_TEMPLATE, Rubric, rubric_sha256, shipped_rubric, shipped_versions,
)
from judgecal.judge._endpoint import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    ENDPOINT_CAUSES,
    ENDPOINTS,
    Completion,
    Endpoint,
    EndpointError,
    EndpointMemory,
    FatalBackendError,
    GoneError,
    redact_url,
    url_secrets,
)
from judgecal.judge._backend import (
    KEY_HEADER, Answer, Backend, OpenAIBackend, chat_request, read_completion, verdict_key_header,
)
from judgecal.judge._pool import CLAIM_CHUNK, PoolResult, run_pool
from judgecal.judge._runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_REPEATS,
    BatchSummary,
    PAIR_SWAP,
    Pair,
    PairwiseTask,
    Progress,
    Verdict,
    VerdictKey,
    VerdictSink,
    pair_output,
    plan,
    plan_pairwise,
    run_batch,
)
from judgecal.judge._probes import (
    INJECTIONS,
    PADDING,
    PROBE_KINDS,
    ProbePair,
    paraphrases_of,
    plan_probe,
    probe_variants,
)
from judgecal.judge._batch_api import (
    BATCH_CAUSES,
    BATCH_ENDPOINT,
    MAX_FILE_BYTES,
    MAX_REQUESTS_PER_BATCH,
    TERMINAL as BATCH_TERMINAL,
    BadLine,
    RequestTask,
    Result as BatchResult,
    custom_id,
    key_of,
    read_result,
    read_results,
    request_line,
    request_lines,
)
from judgecal.judge._local import (
    DEMO_QUALITY_WARNING,
    LocalBackend,
    find_local_model,
    is_demo_quality,
    local_backend_available,
)

__all__ = [
    "VerdictSchema", "parse_answer", "verdict_json_schema", "verdict_model",
    "DEFAULT_RUBRIC", "SHIPPED", "SHIPPED_VERSIONS", "STRICT_TEMPLATE", "Rubric", "rubric_sha256", "shipped_rubric",
    "shipped_versions",
    "FINAL_OUTPUT_MARKER", "MAX_RESULT_CHARS", "render_evidence", "render_messages", "render_trajectory",
    "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT_S", "ENDPOINT_CAUSES", "ENDPOINTS", "Completion", "Endpoint",
    "EndpointError", "EndpointMemory", "FatalBackendError", "GoneError", "redact_url", "url_secrets",
    "KEY_HEADER", "Answer", "Backend", "OpenAIBackend", "verdict_key_header", "CLAIM_CHUNK", "PoolResult", "run_pool",
    "DEFAULT_CONCURRENCY", "DEFAULT_REPEATS", "BatchSummary", "Pair", "Progress", "Verdict", "VerdictKey",
    "VerdictSink", "plan", "run_batch", "PAIR_SWAP", "PairwiseTask", "pair_output", "plan_pairwise",
    "INJECTIONS", "PADDING", "PROBE_KINDS", "ProbePair", "paraphrases_of", "plan_probe", "probe_variants",
    "chat_request", "read_completion", "BATCH_CAUSES", "BATCH_ENDPOINT", "MAX_FILE_BYTES", "MAX_REQUESTS_PER_BATCH",
    "BATCH_TERMINAL", "BadLine", "RequestTask", "BatchResult", "custom_id", "key_of", "read_result", "read_results",
    "request_line", "request_lines",
    "DEMO_QUALITY_WARNING", "LocalBackend", "find_local_model", "is_demo_quality", "local_backend_available",
]
