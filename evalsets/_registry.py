"""The checker registry: mechanical checks registered by decorator under namespaced ids.

A checker is a pure, deterministic function. Text checkers take the output text; trajectory checkers take the
run record's trajectory (a tuple of `Step`). Every argument is keyword-only; an argument without a default in the
signature is required, and a check that omits it is rejected when the eval set is parsed, never defaulted.
The registry is filled when `evalsets` is imported and never changed afterwards.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Literal, NamedTuple

Target = Literal["text", "trajectory"]


class CheckResult(NamedTuple):
    passed: bool
    detail: str = ""
    # Indices of trajectory steps that break the constraint (for the step deviation rate).
    bad_steps: tuple[int, ...] = ()


@dataclass(frozen=True)
class CheckerSpec:
    id: str
    func: Callable[..., CheckResult | bool]
    target: Target
    required: frozenset[str]
    optional: frozenset[str]
    doc: str


_REGISTRY: dict[str, CheckerSpec] = {}
_ID = re.compile(r"^[a-z0-9_]+:[a-z0-9_]+$")


def checker(checker_id: str, *, target: Target = "text") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a checker under `checker_id` (`group:name`). A duplicate id fails at import."""
    if not _ID.match(checker_id):
        raise ValueError(f"checker id {checker_id!r} must look like 'group:name'")

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        if checker_id in _REGISTRY:
            raise ValueError(f"checker {checker_id!r} registered twice")
        if not (func.__doc__ or "").strip():
            raise ValueError(f"checker {checker_id!r} has no docstring")
        params = list(inspect.signature(func).parameters.values())[1:]
        if any(p.kind is not inspect.Parameter.KEYWORD_ONLY for p in params):
            raise ValueError(f"checker {checker_id!r}: arguments after the first must be keyword-only")
        required = frozenset(p.name for p in params if p.default is inspect.Parameter.empty)
        optional = frozenset(p.name for p in params if p.default is not inspect.Parameter.empty)
        _REGISTRY[checker_id] = CheckerSpec(
            checker_id, func, target, required, optional, inspect.cleandoc(func.__doc__ or "")
        )
        return func

    return register


def checkers() -> dict[str, CheckerSpec]:
    """All registered checkers by id (a copy)."""
    return dict(_REGISTRY)


def get_checker(checker_id: str) -> CheckerSpec:
    try:
        return _REGISTRY[checker_id]
    except KeyError:
        raise ValueError(f"unknown checker {checker_id!r}") from None


def _check_signature(checker_id: str, args: dict[str, Any]) -> CheckerSpec:
    spec = get_checker(checker_id)
    missing = sorted(spec.required - set(args))
    if missing:
        raise ValueError(f"checker {checker_id!r} is missing argument(s): {', '.join(missing)}")
    unknown = sorted(set(args) - spec.required - spec.optional)
    if unknown:
        raise ValueError(f"checker {checker_id!r} has no argument(s): {', '.join(unknown)}")
    return spec


def validate_check(checker_id: str, args: dict[str, Any]) -> CheckerSpec:
    """Raise ValueError naming the problem when `args` do not fit the checker (names or values)."""
    spec = _check_signature(checker_id, args)
    # Checkers are pure and check their arguments first: a dry run surfaces bad values (a negative count, a bad
    # regex) when the eval set is read, not halfway through a check batch.
    try:
        spec.func("x" if spec.target == "text" else (), **args)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"checker {checker_id!r}: {exc}") from None
    return spec


# IFEval's loose mode (Zhou et al. 2023, instructions_util/evaluation_main.py): the response also passes if the
# check passes after removing the first line, the last line, both, and/or every '*'.
def loose_variants(text: str) -> list[str]:
    lines = text.split("\n")
    first_removed = "\n".join(lines[1:]).strip()
    last_removed = "\n".join(lines[:-1]).strip()
    both_removed = "\n".join(lines[1:-1]).strip()
    asterisks_removed = text.replace("*", "")
    return [
        text,
        asterisks_removed,
        first_removed,
        last_removed,
        both_removed,
        first_removed.replace("*", ""),
        last_removed.replace("*", ""),
        both_removed.replace("*", ""),
    ]


def run_check(check_id: str, args: dict[str, Any], *, text: str, trajectory: Any = None,
              loose: bool = False) -> CheckResult:
    """Run one check. `loose` applies IFEval's loose mode to text checkers (any variant passing passes);
    trajectory checkers ignore it."""
    spec = _check_signature(check_id, args)
    call_args = args
    if spec.target == "trajectory":
        return _as_result(spec.func(tuple(trajectory or ()), **call_args))
    if not loose:
        return _as_result(spec.func(text, **call_args))
    first: CheckResult | None = None
    for variant in loose_variants(text):
        if not variant.strip():
            continue
        result = _as_result(spec.func(variant, **call_args))
        if result.passed:
            return result
        first = first or result
    return first or CheckResult(False, "empty response")


def _as_result(value: CheckResult | bool) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    if isinstance(value, bool):
        return CheckResult(value)
    raise TypeError(f"a checker must return bool or CheckResult, not {type(value).__name__}")
