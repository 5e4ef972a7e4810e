"""The model runner (`judgecal run`): puts eval items to a model under test — single-turn answers and tool-calling
agent loops answered from fixtures — and hands each finished task to a sink as a run record.

Imports `evalsets` and `judge` (its endpoint adapter and worker pool), never the store: the CLI wires a sink."""

from judgecal.runner._model_runner import (
    DEFAULT_LOOP_LIMIT,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_RUN_CONCURRENCY,
    DEFAULT_SYSTEM_PROMPT,
    DEFAULT_TASK_TIMEOUT_S,
    ERROR_CAUSES,
    TASK_TEMPLATE,
    ChatModel,
    MemoryRunSink,
    ModelClient,
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

__all__ = [
    "DEFAULT_LOOP_LIMIT", "DEFAULT_MAX_ROUNDS", "DEFAULT_RUN_CONCURRENCY", "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TASK_TIMEOUT_S", "ERROR_CAUSES", "TASK_TEMPLATE", "ChatModel", "MemoryRunSink", "ModelClient",
    "ModelRunner", "RunSettings", "RunSink", "RunSummary", "Task", "error_cause", "fixture_tools", "plan_tasks",
    "record_id", "run_models", "task_messages",
]
