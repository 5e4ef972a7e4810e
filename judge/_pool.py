"""Bounded-concurrency work over a task list, shared by the judge batch runner and the model runner.

Threads, not asyncio: the openai SDK's sync client with a shared connection pool reaches the same throughput here
(bench/judge_throughput.py) and keeps the backends simple.

Ctrl+C stops handing out tasks and says so at once (`on_stop`, with the number of requests in flight); the workers
get `grace_s` (the request timeout) to finish the request in hand, so what comes back is saved. A second Ctrl+C, or
the end of the grace time, abandons what is still in flight: its threads are daemons and its answers are not waited
for (a re-run asks them again).
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Iterable, NamedTuple, TypeVar

T = TypeVar("T")

CLAIM_CHUNK = 64  # tasks leased per transaction by the runners: few transactions, little held ahead of workers


class PoolResult(NamedTuple):
    interrupted: bool  # Ctrl+C, or a worker failed
    failure: BaseException | None  # the first exception a worker raised
    abandoned: int = 0  # requests still in flight when the pool gave up waiting for them


def run_pool(todo: Iterable[T], handle: Callable[[T], None], *, concurrency: int, name: str,
             grace_s: float | None = None, on_stop: Callable[[int], None] | None = None) -> PoolResult:
    """Call `handle(task)` for every task with at most `concurrency` in flight. A worker exception stops the
    pool (no new tasks are handed out) and is returned for the caller to raise.

    `todo` may be a lazy iterable (the judge claims leases chunk by chunk as it goes); it is advanced under a lock,
    one task at a time. On Ctrl+C, `on_stop(in_flight)` is called at once and the workers get `grace_s` seconds
    (None: unbounded) to finish."""
    lock = threading.Lock()
    stop = threading.Event()
    tasks = iter(todo)
    failure: list[BaseException] = []
    in_flight = [0]
    # Workers still running, counted by the workers themselves. Not Thread.is_alive()/join(): on CPython 3.11 and
    # 3.12 a KeyboardInterrupt that lands inside join() (the tstate-lock acquire) marks a RUNNING thread stopped
    # (bpo-45274's handler, gh-90882), and the pool would return with that worker still between its request and
    # its save.
    live = [0]
    all_done = threading.Event()

    def next_task() -> tuple[bool, T | None]:
        with lock:
            if stop.is_set():
                return False, None
            for task in tasks:
                in_flight[0] += 1
                return True, task
            return False, None

    def worker() -> None:
        try:
            _work()
        finally:
            with lock:
                live[0] -= 1
                if live[0] == 0:
                    all_done.set()

    def _work() -> None:
        try:
            while True:
                ok, task = next_task()
                if not ok:
                    return
                try:
                    handle(task)  # type: ignore[arg-type]
                finally:
                    with lock:
                        in_flight[0] -= 1
        except BaseException as exc:  # noqa: BLE001 — handed to the caller, which re-raises
            with lock:
                failure.append(exc)
            stop.set()

    n_threads = min(concurrency, len(todo)) if hasattr(todo, "__len__") else concurrency  # type: ignore[arg-type]
    threads = [threading.Thread(target=worker, name=f"{name}-{n}", daemon=True) for n in range(n_threads)]
    live[0] = len(threads)
    if not threads:
        all_done.set()
    for t in threads:
        t.start()

    def wait(deadline: float | None) -> None:
        while not all_done.is_set() and (deadline is None or time.monotonic() < deadline):
            # A plain sleep, not Event.wait(): Ctrl+C may land anywhere in the main thread, and a sleep holds no
            # lock a worker needs nor any thread state the interrupt could leave half changed.
            time.sleep(0.02)

    interrupted = False
    try:
        wait(None)
    except KeyboardInterrupt:
        stop.set()
        interrupted = True
        try:  # the second Ctrl+C may come while the first is still being acknowledged: it stops waiting all the same
            if on_stop is not None:
                with lock:
                    n = in_flight[0]
                on_stop(n)
            wait(None if grace_s is None else time.monotonic() + grace_s)
        except KeyboardInterrupt:
            pass  # the second Ctrl+C: stop waiting
    with lock:
        abandoned = 0 if all_done.is_set() else in_flight[0]
    return PoolResult(interrupted or bool(failure), failure[0] if failure else None, abandoned)
