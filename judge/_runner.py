"""The batch runner: every (run record, semantic constraint) pair x k repeats, bounded concurrency, cache, resume.

The runner knows nothing of storage: it asks a `VerdictSink` which verdicts are already done (the cache) and hands
it each verdict as it arrives. The project's SQLite sink (annotations) commits each verdict within milliseconds and
never overwrites a stored label, so a batch killed at any moment resumes with nothing lost and nothing duplicated:
what was committed is skipped, what was in flight is asked again.
"""

from __future__ import annotations

import operator
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Iterator, NamedTuple, Protocol, Sequence

from judgecal.evalsets import Constraint, EvalItem, RunRecord, VerdictRow

from judgecal.judge._pool import CLAIM_CHUNK, run_pool
from judgecal.judge._backend import Answer, Backend, FatalBackendError, verdict_key_header
from judgecal.judge._rubric import Rubric

DEFAULT_REPEATS = 3
DEFAULT_CONCURRENCY = 8


class VerdictKey(NamedTuple):
    """The cache key: one verdict per (run record, constraint, rubric version, judge model, repeat)."""

    run_record_id: str
    constraint_id: str
    rubric_sha256: str
    judge_model: str
    repeat: int


class Verdict(VerdictRow):
    """One judge verdict (or error) as the sink stores it: evalsets.VerdictRow with its key and constructor."""

    __slots__ = ()

    @property
    def key(self) -> VerdictKey:
        return VerdictKey(**{f: getattr(self, f) for f in VerdictKey._fields})

    @classmethod
    def of(cls, key: VerdictKey, answer: Answer) -> Verdict:
        """The verdict of `key` from a backend's answer, field by field by name: a field added to or moved within
        Answer or Verdict can never shift a value into the wrong column (the key's fields lead Verdict's in the
        same order: checked below, at import)."""
        return cls._make((*key, *_answer_fields(answer)))


# The answer's values in Verdict's column order, by name (one C call per verdict, not a dict of keyword arguments).
_answer_fields = operator.attrgetter(*(f for f in Verdict._fields if f not in VerdictKey._fields))
if Verdict._fields[:len(VerdictKey._fields)] != VerdictKey._fields:  # pragma: no cover — a reordered VerdictRow
    raise ImportError("Verdict must start with the VerdictKey fields, in order")


class VerdictSink(Protocol):
    def done(self, keys: Iterable[VerdictKey]) -> set[tuple[str, str, str, str, int]]:
        """The keys among `keys` that already have a verdict (a label; error rows are asked again)."""
        ...

    def save(self, verdict: Verdict) -> None:
        """Store one verdict durably soon (the SQLite sink: within one short transaction, milliseconds later)."""
        ...

    # Optional: `claim(keys) -> set of keys` — the keys this batch may ask for (the SQLite sink leases them, so a
    # second batch on the same pairs takes only what no live batch holds). A sink without it gets every key.


class Pair(NamedTuple):
    record: RunRecord
    item: EvalItem
    constraint: Constraint


@dataclass
class BatchSummary:
    """Totals of one batch. `cost` is None when no price is known for the model."""

    planned: int = 0
    cached: int = 0
    sent: int = 0
    verdicts: int = 0
    errors: Counter = field(default_factory=Counter)
    labels: Counter = field(default_factory=Counter)
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms_total: float = 0.0
    wall_s: float = 0.0
    cost: float | None = None
    interrupted: bool = False
    elsewhere: int = 0  # keys another running batch held (or finished meanwhile): left to it, not sent
    abandoned: int = 0  # requests in flight when a second Ctrl+C (or the grace time) gave up on them

    # Responses by the structured-output mode the endpoint actually served (json_schema / json_object), counted as
    # they come back: a batch that fell back to json_object says so here, whatever its settings said at the start.
    structured_output: Counter = field(default_factory=Counter)

    @property
    def nothing_answered(self) -> bool:
        """Requests went out and not one came back as a verdict: the endpoint is down, not the judge unsure."""
        return self.sent > 0 and self.verdicts == 0

    def add(self, answer: Answer | Verdict) -> None:
        self.sent += 1
        if (mode := getattr(answer, "structured_output", None)) is not None:
            self.structured_output[mode] += 1
        if answer.error:
            self.errors[answer.error] += 1
        else:
            self.verdicts += 1
            self.labels[answer.label] += 1
        self.input_tokens += answer.input_tokens or 0
        self.output_tokens += answer.output_tokens or 0
        self.latency_ms_total += answer.latency_ms or 0.0

    def unstored(self, verdict: Answer | Verdict, cause: str = "unstorable") -> None:
        """A counted verdict the sink could not store and kept as an error row `cause` instead (see QueuedWriter's
        `replaced`): the summary counts what is stored, so it moves from the verdicts to the errors."""
        if verdict.error:
            return  # already counted as an error
        self.verdicts -= 1
        self.labels[verdict.label] -= 1
        if self.labels[verdict.label] <= 0:
            del self.labels[verdict.label]
        self.errors[cause] += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "planned": self.planned, "cached": self.cached, "sent": self.sent, "verdicts": self.verdicts,
            "errors": dict(self.errors), "labels": dict(self.labels), "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens, "latency_ms_total": round(self.latency_ms_total, 1),
            "mean_latency_ms": round(self.latency_ms_total / self.sent, 1) if self.sent else None,
            "wall_s": round(self.wall_s, 3), "cost": self.cost, "interrupted": self.interrupted,
            "elsewhere": self.elsewhere, "abandoned": self.abandoned,
            "structured_output": dict(self.structured_output),
        }

    def format(self) -> str:
        lines = [
            f"planned {self.planned} verdicts: {self.cached} already stored (no request), {self.sent} requested"
            + (" — INTERRUPTED" if self.interrupted else "")
            + (f"; {self.elsewhere} left to another running batch" if self.elsewhere else "")
            + (f"; {self.abandoned} abandoned in flight" if self.abandoned else ""),
            f"verdicts: {self.verdicts}" + (f"  ({', '.join(f'{k}: {v}' for k, v in self.labels.most_common())})" if self.labels else ""),
            f"errors:   {sum(self.errors.values())}" + (f"  by cause: {', '.join(f'{k}: {v}' for k, v in self.errors.most_common())}" if self.errors else ""),
            f"tokens:   {self.input_tokens} in, {self.output_tokens} out",
            f"latency:  mean {self.latency_ms_total / self.sent:.0f} ms per request" if self.sent else "latency:  -",
            f"time:     {self.wall_s:.1f} s" + (f" ({self.sent / self.wall_s:.1f} requests/s)" if self.wall_s > 0 and self.sent else ""),
            f"cost:     {self.cost:.4f} (prices from the project settings)" if self.cost is not None
            else "cost:     unknown (set a price: judgecal price MODEL INPUT_PER_MILLION OUTPUT_PER_MILLION)",
        ]
        return "\n".join(lines)


class Progress:
    """A plain progress bar on a stream (stderr): done/total, rate, ETA, errors. Redraws at most 5 times a second
    on a terminal; elsewhere prints a line every 5 seconds."""

    def __init__(self, total: int, stream: IO[str] | None = None, width: int = 30):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self._last = 0.0
        self._lock = threading.Lock()

    def update(self, done: int, errors: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < (0.2 if self.tty else 5.0):
            return
        with self._lock:
            self._last = now
            elapsed = max(now - self.start, 1e-9)
            rate = done / elapsed
            eta = (self.total - done) / rate if rate > 0 else float("inf")
            filled = int(self.width * done / self.total) if self.total else self.width
            bar = "#" * filled + "." * (self.width - filled)
            eta_s = "--" if eta == float("inf") else _duration(eta)
            line = f"judge [{bar}] {done}/{self.total} {rate:.1f}/s ETA {eta_s} errors {errors}"
            if self.tty:
                self.stream.write("\r" + line + "\x1b[K")
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def close(self, done: int, errors: int) -> None:
        self.update(done, errors, force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class _Task(NamedTuple):
    key: VerdictKey
    prompt: str
    labels: tuple[str, ...]
    # Pairwise, outputs shown B then A: the answer is mapped back to the A/B numbering (output_1 = A) before it is
    # stored, as LLMBar stores its swapped order.
    swapped: bool = False


# Pairwise position swap: the label in the shown order -> the label in the stored order (output_1 = run A).
PAIR_SWAP = {"output_1": "output_2", "output_2": "output_1"}


class PairwiseTask(NamedTuple):
    """One A-vs-B comparison: the pair run record (its output shows A as output_1, B as output_2), its pairwise item
    and constraint, and the two outputs as rendered for the judge."""

    record: RunRecord
    item: EvalItem
    constraint: Constraint
    output_a: str
    output_b: str


def pair_output(first: str, second: str) -> str:
    """Two candidate outputs as one text, in the shown order (the LLMBar import's format)."""
    return f"[Output 1]\n{first}\n\n[Output 2]\n{second}"


def plan_pairwise(pairs: Iterable[PairwiseTask], rubric: Rubric, model: str,
                  repeats: int = DEFAULT_REPEATS) -> list[_Task]:
    """Each comparison in both orders, `repeats` times: repeat 2r shows A first (original), 2r+1 shows B first
    (swapped; its answer is stored mapped back). Both orders are always planned, so position bias is measured on
    every pair, never on the ones that happened to be asked twice."""
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    tasks = []
    for p in pairs:
        if set(p.constraint.labels) != set(PAIR_SWAP):
            raise ValueError(f"{p.record.id}: a pairwise constraint needs the labels output_1/output_2")
        shown = {False: p.record.model_copy(update={"output": pair_output(p.output_a, p.output_b), "trajectory": None}),
                 True: p.record.model_copy(update={"output": pair_output(p.output_b, p.output_a), "trajectory": None})}
        prompts = {swapped: rubric.render(rec, p.item, p.constraint) for swapped, rec in shown.items()}
        for r in range(repeats):
            for swapped in (False, True):
                key = VerdictKey(run_record_id=p.record.id, constraint_id=p.constraint.id,
                                 rubric_sha256=rubric.sha256, judge_model=model, repeat=2 * r + swapped)
                tasks.append(_Task(key=key, prompt=prompts[swapped], labels=p.constraint.labels, swapped=swapped))
    return tasks


def plan(pairs: Iterable[Pair | tuple[RunRecord, EvalItem, Constraint]], rubric: Rubric, model: str,
         repeats: int = DEFAULT_REPEATS) -> list[_Task]:
    """Every verdict of the batch, pair by pair, repeats together. The prompt is rendered once per pair."""
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    tasks = []
    for record, item, constraint in pairs:
        prompt = rubric.render(record, item, constraint)
        for r in range(repeats):
            key = VerdictKey(run_record_id=record.id, constraint_id=constraint.id, rubric_sha256=rubric.sha256,
                             judge_model=model, repeat=r)
            tasks.append(_Task(key=key, prompt=prompt, labels=constraint.labels))
    return tasks


def run_batch(pairs: Iterable[Pair | tuple[RunRecord, EvalItem, Constraint]], rubric: Rubric, backend: Backend,
              sink: VerdictSink, *, repeats: int = DEFAULT_REPEATS, concurrency: int = DEFAULT_CONCURRENCY,
              price: tuple[float, float] | None = None, progress: Progress | bool | None = None,
              grace_s: float | None = None, on_stop: Callable[[int], None] | None = None,
              tasks: Sequence[_Task] | None = None) -> BatchSummary:
    """Judge every pair `repeats` times with at most `concurrency` requests in flight; skip verdicts the sink
    already has. A failed request is a verdict with an error (stored, counted by cause) and the batch goes on.

    `price` = (input, output) per million tokens. `progress`: True for a bar on stderr, or a Progress.
    On KeyboardInterrupt `on_stop(requests in flight)` is called at once and the workers get `grace_s` to finish
    their current request (it is saved); a second Ctrl+C abandons them. The summary comes back with
    `interrupted=True`. A FatalBackendError (bad key, unknown model) stops the batch and is raised.
    `tasks`: a plan made elsewhere (plan_pairwise) instead of `plan(pairs, ...)`.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    start = time.monotonic()
    tasks = list(tasks) if tasks is not None else plan(pairs, rubric, backend.model, repeats)
    summary = BatchSummary(planned=len(tasks))
    done = sink.done(t.key for t in tasks)
    todo: Sequence[_Task] = [t for t in tasks if tuple(t.key) not in done]
    summary.cached = len(tasks) - len(todo)
    bar = Progress(len(todo)) if progress is True else (progress or None)

    lock = threading.Lock()
    # Set once the pool returns. An answer that comes back later (a request the pool abandoned) is neither saved
    # nor counted: the caller closes the sink next, and a re-run asks it again. Save and count under one lock, so
    # whatever the summary counts was queued before the sink closed, and the two never differ.
    finished = [False]

    def handle(task: _Task) -> None:
        k = task.key
        answer = backend.judge(task.prompt, task.labels, verdict_key_header(k.run_record_id, k.constraint_id, k.repeat))
        if task.swapped and answer.label in PAIR_SWAP:
            answer = answer._replace(label=PAIR_SWAP[answer.label],
                                     reason=f"[outputs shown B first; label mapped back] {answer.reason or ''}".rstrip())
        with lock:
            if finished[0]:
                return
            sink.save(Verdict.of(k, answer))
            summary.add(answer)
            sent, errors = summary.sent, sum(summary.errors.values())
        if bar is not None:
            bar.update(sent, errors)

    claim = getattr(sink, "claim", None)

    # A claim runs inside the pool's lock, so every worker that wants a task waits for it: one chunk per round of
    # workers at least (at --concurrency 256, a chunk of 64 stalled the pool four times a round, ~4% of the wall
    # time). What is held ahead of the workers stays one round of requests.
    chunk_size = max(CLAIM_CHUNK, concurrency)

    # The first chunk is claimed here, before the workers start. Claimed by the first worker, it ran while the main
    # thread was still starting the other 255: every SQLite call of the claim gives the GIL back and waited for it
    # among them, and no request went out until it was done (~0.5 s of an 8 s batch at --concurrency 256). A
    # failure is raised in the pool, where a later chunk's would be.
    first: set[tuple[str, str, str, str, int]] | BaseException | None = None
    if claim is not None and todo:
        try:
            first = claim([t.key for t in todo[:chunk_size]])
        except Exception as exc:  # noqa: BLE001 — raised by the first worker that asks for a task
            first = exc

    def claimed() -> Iterator[_Task]:
        # Runs inside the pool's lock, one chunk at a time: leases are taken just ahead of the workers.
        for start in range(0, len(todo), chunk_size):
            chunk = todo[start:start + chunk_size]
            if start == 0 and isinstance(first, BaseException):
                raise first
            got = first if start == 0 else None if claim is None else claim([t.key for t in chunk])
            for t in chunk:
                if got is None or tuple(t.key) in got:
                    yield t
                else:
                    summary.elsewhere += 1

    result = run_pool(claimed(), handle, concurrency=min(concurrency, max(len(todo), 1)), name="judge",
                      grace_s=grace_s, on_stop=on_stop)
    with lock:
        finished[0] = True
    summary.interrupted = result.interrupted
    summary.abandoned = result.abandoned
    summary.wall_s = time.monotonic() - start
    if price is not None:
        summary.cost = (summary.input_tokens * price[0] + summary.output_tokens * price[1]) / 1_000_000
    if bar is not None:
        bar.close(summary.sent, sum(summary.errors.values()))
    if (exc := result.failure) is not None:
        if isinstance(exc, FatalBackendError):
            exc.summary = summary  # type: ignore[attr-defined]  — so the caller can record the partial batch
            raise exc
        raise RuntimeError(f"judge batch stopped: {type(exc).__name__}: {exc}") from exc
    return summary
