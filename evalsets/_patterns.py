"""An eval set's own regular expressions (`text:regex`, IFEval's keywords and markers), matched with a time limit.

A pattern comes from the eval-set file, so its author (or a hostile one) decides how long a match takes: `(x+x+)+y`
on 30 characters of output backtracks for minutes in the standard library's `re`, which cannot be interrupted, and
`judgecal check`, `compare`, the run gate and the app's threads all run checks. Such a pattern is matched by the
`regex` package, the one library here with a per-match time limit; a match that runs past PATTERN_SECONDS raises
`PatternTimeout`, which `check_record` turns into a failed check whose detail names the pattern (never a pass, and
never a hang). A pattern must still compile with `re` (what the checkers document, and the errors users see), and is
matched in `regex`'s `re`-compatible mode (V0); patterns we write ourselves stay with `re`.
"""

from __future__ import annotations

import functools
import re

import regex

#: The longest one match of an eval set's pattern may take (wall clock). A keyword or marker takes microseconds on a
#: long answer; only catastrophic backtracking comes near this.
PATTERN_SECONDS = 1.0

# `re`'s flags as `regex` spells them (the bits are the same today; mapped so that stays true)
_FLAGS = ((re.IGNORECASE, regex.IGNORECASE), (re.MULTILINE, regex.MULTILINE), (re.DOTALL, regex.DOTALL),
          (re.VERBOSE, regex.VERBOSE))


class PatternTimeout(RuntimeError):
    """One match of an eval set's pattern took longer than PATTERN_SECONDS."""


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str, flags: int) -> regex.Pattern[str]:
    re.compile(pattern, flags)  # re's error for a pattern re rejects (the caller's message names the argument)
    bits = regex.V0
    for ours, theirs in _FLAGS:
        if flags & ours:
            bits |= theirs
    return regex.compile(pattern, bits)


def _timed(pattern: str, call: functools.partial) -> object:
    try:
        return call(timeout=PATTERN_SECONDS)
    except TimeoutError:
        raise PatternTimeout(f"pattern {pattern!r} took longer than {PATTERN_SECONDS:g} s on this output "
                             "(catastrophic backtracking?): rewrite it, e.g. without a repeated group "
                             "inside a repeat") from None


def search(pattern: str, text: str, flags: int = 0) -> regex.Match[str] | None:
    """`re.search(pattern, text, flags)`, or PatternTimeout."""
    return _timed(pattern, functools.partial(_compiled(pattern, flags).search, text))  # type: ignore[return-value]


def findall(pattern: str, text: str, flags: int = 0) -> list[str]:
    """`re.findall(pattern, text, flags)`, or PatternTimeout."""
    return _timed(pattern, functools.partial(_compiled(pattern, flags).findall, text))  # type: ignore[return-value]


def split(pattern: str, text: str, flags: int = 0) -> list[str]:
    """`re.split(pattern, text, flags=flags)`, or PatternTimeout."""
    return _timed(pattern, functools.partial(_compiled(pattern, flags).split, text))  # type: ignore[return-value]
