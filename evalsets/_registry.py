"""The checker registry: mechanical checks under namespaced ids, built in or added by plugins.

A checker is a pure, deterministic function. Text checkers take the output text; trajectory checkers take the
run record's trajectory (a tuple of `Step`). Every argument is keyword-only; an argument without a default in the
signature is required, and a check that omits it is rejected when the eval set is parsed, never defaulted.

`@checker("group:name")` only marks a function; a `CheckerRegistry` collects marked functions from modules. The
built-in modules are collected when the registry is made (a duplicate id fails at `import evalsets`). Plugins come
from the entry-point group `judgecal.checkers` (value: a module, or one marked function) and are loaded once, on the
first lookup of an id that is not built in or on the first listing. A plugin's ids are namespaced by its
distribution (`acme-checkers/acme:cites_ticket`), so no plugin can change what an existing eval set's id means.
IFEval's checkers are a bundled plugin registered through the same group, with a fallback for a checkout whose
entry points were never installed.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import re
import threading
import unicodedata
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Callable, Iterable, Literal, NamedTuple

from judgecal.evalsets._plain import IFEVAL_IDS

Target = Literal["text", "trajectory"]

ENTRY_POINT_GROUP = "judgecal.checkers"
# Where built-ins and bundled plugins come from, as `judgecal checkers` shows it.
BUILTIN_SOURCE = "judgecal"
_BUILTIN_MODULES = (f"{__package__}._checks_text", f"{__package__}._checks_trajectory")
# Bundled plugins: entry-point name -> module. Their ids stay un-namespaced (IFEval's own ids).
BUNDLED_PLUGINS: dict[str, str] = {"ifeval": f"{__package__}._ifeval"}

_ID = re.compile(r"^[a-z0-9_]+:[a-z0-9_]+$")
_MARK = "__judgecal_checker__"


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
    # The distribution that provides the checker (normalised name); BUILTIN_SOURCE for ours.
    source: str = BUILTIN_SOURCE


class PluginProblem(NamedTuple):
    """A plugin that could not be loaded: reported by name, its checkers absent, everything else unaffected."""

    entry_point: str
    distribution: str
    message: str

    def __str__(self) -> str:
        return f"checker plugin {self.entry_point!r} ({self.distribution}) not loaded: {self.message}"


class LoadedPlugin(NamedTuple):
    entry_point: str
    distribution: str
    # "entry point", or "bundled fallback" when our own entry point is not installed (a plain checkout).
    via: str
    ids: tuple[str, ...]


def checker(checker_id: str, *, target: Target = "text") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function as the checker `checker_id` (`group:name`); a registry collects it from its module.

    The signature is checked here, so a malformed checker fails where it is defined: a docstring is required, and
    every argument after the first (the text or the trajectory) must be keyword-only."""
    if not _ID.match(checker_id):
        raise ValueError(f"checker id {checker_id!r} must look like 'group:name' (lower-case letters, digits, _)")
    if target not in ("text", "trajectory"):
        raise ValueError(f"checker {checker_id!r}: target must be 'text' or 'trajectory', not {target!r}")

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        if not (func.__doc__ or "").strip():
            raise ValueError(f"checker {checker_id!r} has no docstring")
        params = list(inspect.signature(func).parameters.values())[1:]
        if any(p.kind is not inspect.Parameter.KEYWORD_ONLY for p in params):
            raise ValueError(f"checker {checker_id!r}: arguments after the first must be keyword-only")
        required = frozenset(p.name for p in params if p.default is inspect.Parameter.empty)
        optional = frozenset(p.name for p in params if p.default is not inspect.Parameter.empty)
        setattr(func, _MARK, CheckerSpec(checker_id, func, target, required, optional,
                                         inspect.cleandoc(func.__doc__ or "")))
        return func

    return mark


def _marked(obj: Any) -> list[CheckerSpec]:
    """The checkers a module defines (in definition order), or the one checker a marked function is."""
    if isinstance(obj, ModuleType):
        specs = [getattr(v, _MARK) for v in vars(obj).values()
                 if hasattr(v, _MARK) and getattr(v, "__module__", None) == obj.__name__]
        if not specs:
            raise ValueError(f"module {obj.__name__!r} defines no @checker function")
        return specs
    if hasattr(obj, _MARK):
        return [getattr(obj, _MARK)]
    raise ValueError(f"{obj!r} is neither a module nor a function marked with @checker")


def normalise_distribution(name: str) -> str:
    """PEP 503 normal form (`Acme_Checkers` -> `acme-checkers`): the namespace of a plugin's ids."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_entry_points() -> Iterable[importlib.metadata.EntryPoint]:
    return importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)


class CheckerRegistry:
    """Checker ids -> CheckerSpec. Built-ins at construction; plugins once, lazily, under a lock (the app looks
    checkers up from several threads). After loading, the registry never changes."""

    def __init__(self, builtin_modules: Iterable[str | ModuleType] = _BUILTIN_MODULES, *,
                 bundled: dict[str, str] | None = None,
                 entry_points: Callable[[], Iterable[importlib.metadata.EntryPoint]] = _installed_entry_points):
        self._specs: dict[str, CheckerSpec] = {}
        for module in builtin_modules:
            mod = importlib.import_module(module) if isinstance(module, str) else module
            self._add(_marked(mod), namespace=None, source=BUILTIN_SOURCE, where=mod.__name__)
        self._bundled = dict(BUNDLED_PLUGINS if bundled is None else bundled)
        self._entry_points = entry_points
        self._lock = threading.Lock()
        self._loaded = False
        self._problems: list[PluginProblem] = []
        self._plugins: list[LoadedPlugin] = []

    # -- lookup ---------------------------------------------------------------------------------------------------

    def get(self, checker_id: str) -> CheckerSpec:
        spec = self._specs.get(checker_id)
        if spec is None:
            self.load_plugins()
            spec = self._specs.get(checker_id)
        if spec is None:
            hint = "".join(f"; {p}" for p in self._problems)
            raise ValueError(f"unknown checker {checker_id!r} (`judgecal checkers` lists them){hint}")
        return spec

    def all(self) -> dict[str, CheckerSpec]:
        """Every checker by id, plugins included (a copy)."""
        self.load_plugins()
        return dict(self._specs)

    def problems(self) -> list[PluginProblem]:
        self.load_plugins()
        return list(self._problems)

    def plugins(self) -> list[LoadedPlugin]:
        self.load_plugins()
        return list(self._plugins)

    # -- loading --------------------------------------------------------------------------------------------------

    def load_plugins(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            self._load()
            self._loaded = True

    def _load(self) -> None:
        bundled_modules = {module: name for name, module in self._bundled.items()}
        try:
            found = list(self._entry_points())
        except Exception as exc:  # a corrupt metadata folder on sys.path must not take the built-ins down
            self._problems.append(PluginProblem("*", "?", f"entry points unreadable: {type(exc).__name__}: {exc}"))
            found = []
        ours = [ep for ep in found if ep.module in bundled_modules]
        theirs = sorted((ep for ep in found if ep.module not in bundled_modules),
                        key=lambda ep: (normalise_distribution(_dist_name(ep)), ep.name))
        # Bundled first, so a third-party plugin cannot take an id before IFEval's checkers are in.
        seen: set[str] = set()
        for ep in ours:
            if ep.module in seen:
                continue
            seen.add(ep.module)
            self._load_one(ep.name, BUILTIN_SOURCE, ep.load, namespace=None, via="entry point")
        for name, module in self._bundled.items():
            if module not in seen:
                self._load_one(name, BUILTIN_SOURCE, lambda m=module: importlib.import_module(m),
                               namespace=None, via="bundled fallback")
        for ep in theirs:
            dist = normalise_distribution(_dist_name(ep))
            self._load_one(ep.name, dist, ep.load, namespace=dist, via="entry point")

    def _load_one(self, name: str, dist: str, load: Callable[[], Any], *, namespace: str | None, via: str) -> None:
        try:
            specs = _marked(load())
            added = self._add(specs, namespace=namespace, source=dist, where=f"plugin {name!r} ({dist})")
        except Exception as exc:  # any failure of third-party code is that plugin's problem, reported by name
            self._problems.append(PluginProblem(name, dist, f"{type(exc).__name__}: {exc}"))
            return
        self._plugins.append(LoadedPlugin(name, dist, via, added))

    def _add(self, specs: list[CheckerSpec], *, namespace: str | None, source: str, where: str) -> tuple[str, ...]:
        """Add a module's checkers all together or none of them (a half-loaded plugin would be worse than none)."""
        new: dict[str, CheckerSpec] = {}
        for spec in specs:
            full = spec.id
            if namespace is not None:
                if spec.id in self._specs and self._specs[spec.id].source == BUILTIN_SOURCE:
                    raise ValueError(f"checker {spec.id!r} would shadow the built-in checker of that id; a plugin's "
                                     f"ids must not repeat a built-in one (rename it, e.g. to "
                                     f"'{namespace.replace('-', '_')}:{spec.id.split(':', 1)[1]}')")
                full = f"{namespace}/{spec.id}"
            if full in self._specs or full in new:
                raise ValueError(f"checker {full!r} registered twice ({where})")
            new[full] = replace(spec, id=full, source=source)
        self._specs.update(new)
        return tuple(new)


def _dist_name(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None and dist.name else "unknown-distribution"


_default: CheckerRegistry | None = None
_default_lock = threading.Lock()


def default_registry() -> CheckerRegistry:
    """The process's registry: built-ins, the bundled IFEval plugin and installed plugins."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = CheckerRegistry()
    return _default


def checkers() -> dict[str, CheckerSpec]:
    """All checkers by id, plugins included (a copy)."""
    return default_registry().all()


def get_checker(checker_id: str) -> CheckerSpec:
    return default_registry().get(checker_id)


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
    except Exception as exc:
        # A plugin's checker that fails its dry run some other way: still the eval set's problem, not a traceback.
        if spec.source == BUILTIN_SOURCE:
            raise
        raise ValueError(f"checker {checker_id!r} ({spec.source}) failed on a dry run: "
                         f"{type(exc).__name__}: {exc}") from None
    return spec


# IFEval's loose mode (Zhou et al. 2023, instructions_util/evaluation_main.py): the response also passes if the
# check passes after removing the first line, the last line, both, and/or every '*'.
LOOSE_NOT_IFEVAL = ("loose mode is IFEval's and applies only to IFEval's instructions (`judgecal checkers` lists "
                    "them); on {checker!r} it would pass an output whose first or last line breaks the check. Remove "
                    "'loose'")


def has_loose_mode(checker_id: str) -> bool:
    """Whether `loose` applies to the checker: IFEval's instructions only. Loose mode drops the first or last line
    (or every `*`) and passes when any variant passes: on a negative check (`keywords:forbidden`, `text:regex` with
    `must_match=false`, `length:max_words`) that passes the very output it should fail (a review, wave 17)."""
    return checker_id in IFEVAL_IDS


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
    """Run one check. `loose` applies IFEval's loose mode to IFEval's checkers (any variant passing passes); every
    other checker ignores it (`has_loose_mode`): an eval set that asks for it on another checker is refused on
    import, and one stored before that rule runs strictly."""
    spec = _check_signature(check_id, args)
    call_args = args
    if spec.target == "trajectory":
        return _as_result(spec.func(tuple(trajectory or ()), **call_args))
    if not loose or not has_loose_mode(check_id):
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


def check_record(check: Any, record: Any) -> CheckResult:
    """Run an item's `Check` on a run record: on its final text (the output, a conversation's final assistant turn),
    or with `turns: "every"` on each assistant turn, failing at the first turn that fails. The one place that decides
    which text a check reads; a trajectory check reads `record.steps` (the trajectory, else the steps the transcript
    or the tool calls show). A record that gave no answer fails every check (`unanswered`). A checker that raises
    (a plugin's bug, a plugin uninstalled since the import, a built-in's bug on a hostile output) fails the check with
    the error as its detail, starting CHECKER_ERROR: never a pass, and never a traceback that stops every other
    record's checks."""
    why = unanswered(record)
    if why is not None:
        return CheckResult(False, why)
    try:
        return _check_answer(check, record)
    except Exception as exc:  # noqa: BLE001 (any failure of checker code is this check's failure, reported)
        return CheckResult(False, f"{CHECKER_ERROR}: {type(exc).__name__}: {exc}")


# The start of the detail of a check whose checker raised: `judgecal check` names each such result.
CHECKER_ERROR = "checker error (not a verdict on the answer)"


def _check_answer(check: Any, record: Any) -> CheckResult:
    if check.turns != "every" or record.messages is None:
        return run_check(check.id, check.args, text=record.final_text, trajectory=record.steps, loose=check.loose)
    texts = record.assistant_texts()
    for n, text in enumerate(texts, start=1):
        result = run_check(check.id, check.args, text=text, trajectory=record.steps, loose=check.loose)
        if not result.passed:
            return result._replace(detail=f"assistant turn {n} of {len(texts)}: {result.detail}".rstrip(": "))
    return CheckResult(True, f"all {len(texts)} assistant turns pass")


def unanswered(record: Any) -> str | None:
    """Why a run record gives a check no answer to pass on, or None. A run that ended in an error before its answer
    (no output: an agent's tool-argument parse failure, a loop, a timeout or `max_rounds` after some tool calls) kept
    a partial trajectory, so it was not a failed run (`RunRecord.failed`), and every check passed on its empty text:
    forbidden words absent, word limits met, the tool it called with unparsable arguments "called" (a review, wave
    17). An answer that is empty or only whitespace passed the negative checks the same way; IFEval's strict mode
    fails an empty response, and so does every check here. A truncated answer (error `truncated`, its output kept)
    is checked as it is."""
    error = getattr(record, "error", None)
    if record.output is None and error is not None and error.split(":", 1)[0].strip() != "truncated":
        return f"no answer: the run ended in an error ({error})"
    if not _visible(record.final_text):
        return "no answer: the final text is empty"
    return None


# Characters that show nothing though `str.isspace` is false: format characters (zero-width space, soft hyphen,
# word joiner, BOM: category Cf) and the blank fillers (Hangul fillers, the blank braille pattern). An answer of only
# these passed the negative checks as an empty one did (a review of the fixes, wave 17).
_BLANK_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(text: str) -> bool:
    return any(not ch.isspace() and ch not in _BLANK_FILLERS and unicodedata.category(ch) != "Cf" for ch in text)


def _as_result(value: CheckResult | bool) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    if isinstance(value, bool):
        return CheckResult(value)
    raise TypeError(f"a checker must return bool or CheckResult, not {type(value).__name__}")


# The built-in checkers are collected when this module loads (it loads on the first checker name used, through the
# package's lazy exports), so a duplicate or malformed built-in fails there, before any check runs. Plugins (IFEval's
# checkers among them) load on first use.
default_registry()
