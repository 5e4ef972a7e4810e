"""An eval set's own regular expressions (`text:regex`, IFEval's keywords and markers), matched with a time limit.

A pattern comes from the eval-set file, so its author (or a hostile one) decides how long a match takes: `(x+x+)+y`
on 30 characters of output backtracks for minutes in the standard library's `re`, which cannot be interrupted, and
`judgecal check`, `compare`, the run gate and the app's threads all run checks. Such a pattern is matched by the
`regex` package, the one library here with a per-match time limit; a match that runs past PATTERN_SECONDS raises
`PatternTimeout`, which `check_record` turns into a failed check whose detail names the pattern (never a pass, and
never a hang). A pattern must still compile with `re` (what the checkers document, and the errors users see), and is
matched in `regex`'s `re`-compatible mode (V0), with what `re` reads as a literal brace or bracket escaped
(`as_re_reads`: V0 still reads `x_{i}` as a fuzzy match); patterns we write ourselves stay with `re`.
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
    read = re.compile(pattern, flags).flags  # re's error for a pattern re rejects
    bits = regex.V0
    for ours, theirs in _FLAGS:
        if flags & ours:
            bits |= theirs
    return regex.compile(as_re_reads(pattern, bool(read & re.VERBOSE), not read & re.ASCII), bits)


@functools.lru_cache(maxsize=None)
def _re_set(kind: str) -> str:
    """What `re` matches with `\\w`, `\\W`, `\\s` or `\\S` (kind: w, W, s, S) in a str pattern, as the body of a
    `regex` set: runs of code points found by `re` itself over every code point, so the two cannot differ (`regex`
    reads the escapes by Unicode's word and space properties: it leaves `²` and `½` out of `\\w` and takes in
    combining marks, and leaves U+001C-U+001F out of `\\s`). Built once per process, when a pattern first needs it."""
    every = "".join(map(chr, range(0x110000)))
    return "".join(f"\\U{m.start():08x}" + (f"-\\U{m.end() - 1:08x}" if m.end() - m.start() > 1 else "")
                   for m in re.finditer(f"\\{kind}+", every))


def _re_escape(letter: str) -> str:
    """`regex` syntax for `re`'s `\\w`, `\\W`, `\\s`, `\\S`, `\\b` or `\\B` outside a set (Unicode patterns)."""
    if letter in "wWsS":
        return f"[{_re_set(letter)}]"
    word = f"[{_re_set('w')}]"
    if letter == "b":  # a word character on one side only (the string's ends count as non-word)
        return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
    return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"


# `re`'s repeat: {m}, {m,}, {,n}, {m,n}, {,} (digits only, no space); any other `{` is a literal brace to `re`
_REPEAT = re.compile(r"\{\d*(?:,\d*)?\}")
_SCOPED = re.compile(r"\(\?([aiLmsux]*)(?:-([imsx]+))?:")


def as_re_reads(pattern: str, verbose: bool = False, unicode: bool = False) -> str:
    """`pattern` (one `re` accepts) with the characters `re` reads as literals that `regex` reads as syntax escaped:
    a `{` that starts no repeat (`regex` reads `x_{i}` as a fuzzy match, "x_" with any insertions, and `{e}` is an
    error there; `re` reads the brace), and a `[` inside a set (`regex` reads `[[:alpha:]]` as a POSIX class; `re`
    as `[`, `:` and letters). `verbose` (re.VERBOSE in force): `#` comments are copied as they are. A review of the
    time limit (wave 18): `x_{i}` passed `must_match` on "x_" with no brace in it. `unicode` (re.ASCII not in force,
    re's default for str): `\\w`, `\\W`, `\\s`, `\\S`, `\\b` and `\\B` become `re`'s own classes (`_re_set`): a
    forbidden word `cafe` was not found in a decomposed "café" (wave 18, a review of the fix); an `(?a:...)` group
    keeps its escapes (ASCII in both)."""
    out: list[str] = []
    stack: list[tuple[bool, bool]] = []
    i, n = 0, len(pattern)

    def escape_end(j: int) -> int:  # the index after the escape at j (`\N{NAME}` with its braces)
        if pattern.startswith("\\N{", j):
            close = pattern.find("}", j)
            return n if close < 0 else close + 1
        return min(j + 2, n)

    while i < n:
        c = pattern[i]
        if c == "\\":
            end = escape_end(i)
            if unicode and end == i + 2 and pattern[i + 1] in "wWsSbB":
                out.append(_re_escape(pattern[i + 1]))
                i = end
                continue
        elif c == "[":  # a set: to its `]` (a `]` first is a literal)
            j = i + 1 + (pattern.startswith("^", i + 1))
            j += pattern.startswith("]", j)
            out.append(pattern[i:j])
            while j < n and pattern[j] != "]":
                end = escape_end(j) if pattern[j] == "\\" else j + 1
                if unicode and end == j + 2 and pattern[j] == "\\" and pattern[j + 1] in "wWsS":
                    out.append(_re_set(pattern[j + 1]))  # (`\\b` in a set is a backspace in both)
                else:
                    out.append("\\[" if pattern[j] == "[" else pattern[j:end])
                j = end
            i = j
            continue
        elif c == "{":
            m = _REPEAT.match(pattern, i)
            end = m.end() if m and m.group() != "{}" else i + 1
            if end == i + 1:
                out.append("\\{")
                i = end
                continue
        elif pattern.startswith("(?#", i):  # a comment: to its `)`
            close = pattern.find(")", i)
            end = n if close < 0 else close + 1
        elif c == "#" and verbose:
            close = pattern.find("\n", i)
            end = n if close < 0 else close + 1
        elif c == "(":
            stack.append((verbose, unicode))
            m = _SCOPED.match(pattern, i)  # (?x:...) and (?-x:...) turn verbose on or off inside, (?a:...) ASCII on
            if m:
                verbose = (verbose or "x" in m.group(1)) and "x" not in (m.group(2) or "")
                unicode = unicode and "a" not in m.group(1)
            end = m.end() if m else i + 1
        elif c == ")":
            verbose, unicode = stack.pop() if stack else (verbose, unicode)
            end = i + 1
        else:
            end = i + 1
        out.append(pattern[i:end])
        i = end
    return "".join(out)


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
