"""Bounded-concurrency work over a task list, shared by the judge batch runner and the model runner.

Threads, not asyncio: the openai SDK's sync client with a shared connection pool reaches the same throughput here
(bench/judge_throughput.py) and keeps the backends simple. Ctrl+C stops handing out tasks; each worker finishes
the request in hand, so what it got back is saved.
"""

from __future__ import annotations

import threading
from typing import Callable, NamedTuple, Sequence, TypeVar

T = TypeVar("T")


class PoolResult(NamedTuple):
    interrupted: bool  # Ctrl+C, or a worker failed
    failure: BaseException | None  # the first exception a worker raised


def run_pool(todo: Sequence[T], handle: Callable[[T], None], *, concurrency: int, name: str) -> PoolResult:
    """Call `handle(task)` for every task with at most `concurrency` in flight. A worker exception stops the
    pool (no new tasks are handed out) and is returned for the caller to raise."""
    lock = threading.Lock()
    stop = threading.Event()
    position = [0]
    failure: list[BaseException] = []

    def next_task() -> T | None:
        with lock:
            if stop.is_set() or position[0] >= len(todo):
                return None
            position[0] += 1
            return todo[position[0] - 1]

    def worker() -> None:
        try:
            while (task := next_task()) is not None:
                handle(task)
        except BaseException as exc:  # noqa: BLE001 — handed to the caller, which re-raises
            with lock:
                failure.append(exc)
            stop.set()

    threads = [threading.Thread(target=worker, name=f"{name}-{n}", daemon=True)
               for n in range(min(concurrency, len(todo)))]
    for t in threads:
        t.start()
    interrupted = False
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.5)  # a timed join lets Ctrl+C reach the main thread
    except KeyboardInterrupt:
        stop.set()
        interrupted = True
        for t in threads:
            t.join()
    return PoolResult(interrupted or bool(failure), failure[0] if failure else None)
