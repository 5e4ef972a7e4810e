"""Text checkers: mechanical checks on an output's text (exact match, keywords, JSON, regex, length, markers).

Each checker's docstring is its specification; `docs/checkers.md` is generated from them (`python -m judgecal.evalsets._docs`).
An argument of the wrong kind (a string where a list of keywords belongs, a negative count, an unknown JSON type)
raises ValueError naming the checker and the argument: a misconfigured check is an error, never a pass or a fail.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from decimal import Decimal
from typing import Any

from judgecal.evalsets import _patterns as patterns
from judgecal.evalsets._registry import CheckResult, checker

# --- argument validation -------------------------------------------------------------------------------------------


def _str_arg(check: str, name: str, value: Any, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{check}: argument {name!r} must be a string, not {type(value).__name__}")
    if not empty_ok and not value:
        raise ValueError(f"{check}: argument {name!r} must not be empty")
    return value


def _str_list_arg(check: str, name: str, value: Any) -> list[str]:
    # A bare string is iterable; accepting it would check each of its characters.
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{check}: argument {name!r} must be a list of strings, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{check}: argument {name!r} must not be empty")
    for v in value:
        _str_arg(check, f"{name}[]", v)
    return list(value)


def _count_arg(check: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{check}: argument {name!r} must be a non-negative integer, got {value!r}")
    return value


def _number_arg(check: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{check}: argument {name!r} must be a finite number, got {value!r}")
    return value


def _bool_arg(check: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{check}: argument {name!r} must be true or false, got {value!r}")
    return value


def _quote_list(values: list[str]) -> str:
    return ", ".join(repr(v) for v in values)


def _with_doc(extra: str) -> Any:
    """Append a shared paragraph to a checker's docstring (before registration reads it)."""

    def add(func: Any) -> Any:
        func.__doc__ = (func.__doc__ or "").rstrip() + "\n\n    " + extra
        return func

    return add


# --- exact match and keywords --------------------------------------------------------------------------------------


@checker("text:exact_match")
def exact_match(text: str, *, expected: str, strip: bool = True, case_sensitive: bool = True) -> CheckResult:
    """The output equals `expected`.

    `strip` (default true) removes leading and trailing whitespace from both the output and `expected` before
    comparing; inner whitespace must match exactly. `case_sensitive` (default true); when false both sides are
    compared after Unicode case folding (`str.casefold`). An empty `expected` is allowed and matches an empty
    (or, with `strip`, all-whitespace) output.
    """
    _str_arg("text:exact_match", "expected", expected, empty_ok=True)
    _bool_arg("text:exact_match", "strip", strip)
    _bool_arg("text:exact_match", "case_sensitive", case_sensitive)
    a, b = (text.strip(), expected.strip()) if strip else (text, expected)
    if not case_sensitive:
        a, b = a.casefold(), b.casefold()
    if a == b:
        return CheckResult(True)
    shown = text if len(text) <= 80 else text[:77] + "..."
    return CheckResult(False, f"output {shown!r} does not equal expected {expected!r}")


# Default-ignorable code points that are not format characters (Cf): the combining grapheme joiner, Hangul fillers,
# Khmer inherent vowels, Mongolian variation selectors, variation selectors. With every Cf character (zero-width
# space and joiners, soft hyphen, bidi controls, BOM, tag characters) they are removed before keywords are matched.
_IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
                        "\U000e0100-\U000e01ef]")
# A right-to-left override (U+202E) displays the letters after it reversed, up to a pop (U+202C) or the line's end.
_RLO_RUN = re.compile("\u202e([^\u202c\n]*)")

KEYWORD_MATCH_DOC = (
    "Both the output and the keywords are compared in Unicode NFKC form (so full-width `ｐｒｉｃｅ`, the ligature "
    "`ﬁ` and a decomposed `cafe\\u0301` read as `price`, `fi` and `café`), with invisible characters removed "
    "(format characters such as the zero-width space, the soft hyphen and bidi controls, and the other "
    "default-ignorable ones: they cannot split a word), and, unless `case_sensitive`, with full Unicode case "
    "folding (`straße` matches `STRASSE`; `İ` matches `i`). Look-alike letters from another script (a Cyrillic `і` "
    "in `prіce`) are not mapped."
)


def _keyword_form(text: str, case_sensitive: bool, form: str = "NFKC") -> str:
    """`text` as keywords are matched: NFKC, invisible characters removed, case folded (unless case-sensitive), and
    finally in `form` (NFKC, or NFKD for the forbidden words' second look)."""
    if text.isascii():
        return text if case_sensitive else text.lower()
    t = unicodedata.normalize("NFKC", text)
    t = _IGNORABLE.sub("", "".join(c for c in t if unicodedata.category(c) != "Cf"))
    if not case_sensitive:
        # casefold writes İ as i + combining dot above; matched as plain i, as re.IGNORECASE did
        t = t.casefold().replace("i\u0307", "i")
    return unicodedata.normalize(form, t)


def _keyword_forms(check: str, name: str, values: Any, case_sensitive: bool) -> list[str]:
    """The keywords as matched; one made only of invisible characters is an argument error (it would be found in
    every output, or in none)."""
    _bool_arg(check, "case_sensitive", case_sensitive)
    forms = [_keyword_form(v, case_sensitive) for v in _str_list_arg(check, name, values)]
    for v, f in zip(values, forms):
        if not f:
            raise ValueError(f"{check}: {name} entry {v!r} is only invisible characters")
    return forms


@checker("keywords:contains_all")
@_with_doc(KEYWORD_MATCH_DOC)
def contains_all(text: str, *, keywords: list[str], case_sensitive: bool = False) -> CheckResult:
    """Every keyword occurs in the output as a substring.

    Substring match: `cat` is found in `concatenate`; use `text:regex` with `\\b` for whole words. Matching is
    case-insensitive by default (Unicode case folding); `case_sensitive=true` compares letters exactly. `keywords`
    must be a non-empty list of non-empty strings. The detail lists every missing keyword.
    """
    forms = _keyword_forms("keywords:contains_all", "keywords", keywords, case_sensitive)
    hay = _keyword_form(text, case_sensitive)
    missing = [k for k, f in zip(keywords, forms) if f not in hay]
    if missing:
        return CheckResult(False, f"missing keyword(s): {_quote_list(missing)}")
    return CheckResult(True)


@checker("keywords:contains_any")
@_with_doc(KEYWORD_MATCH_DOC)
def contains_any(text: str, *, keywords: list[str], case_sensitive: bool = False) -> CheckResult:
    """At least one keyword occurs in the output as a substring.

    Same matching as `keywords:contains_all` (substring, case-insensitive by default). The detail names the
    keyword found, or says that none of them was.
    """
    forms = _keyword_forms("keywords:contains_any", "keywords", keywords, case_sensitive)
    hay = _keyword_form(text, case_sensitive)
    for k, f in zip(keywords, forms):
        if f in hay:
            return CheckResult(True, f"found {k!r}")
    return CheckResult(False, f"none of the keywords found: {_quote_list(keywords)}")


# Han ideographs (with extensions and compatibility forms), hiragana and katakana: scripts written without spaces,
# where one character is counted as one word. Hangul is left out: Korean separates words with spaces.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_CJK_CHAR = re.compile(f"[{_CJK}]")


def _needs_boundary(ch: str) -> bool:
    return bool(re.match(r"\w", ch)) and not _CJK_CHAR.match(ch)


@checker("keywords:forbidden")
@_with_doc(KEYWORD_MATCH_DOC)
def forbidden(text: str, *, words: list[str], case_sensitive: bool = False) -> CheckResult:
    """None of `words` occurs in the output as a whole word.

    Whole-word rule: at each end of a forbidden word that is a word character (a letter, digit or `_`, as in
    regex `\\w`), the neighbouring output character must not be a word character. So `price` is found in
    `The price is` and `price.` but not in `priceless` or `sprice`; a multi-word phrase (`free trial`) is matched
    as written, with the same rule at its two ends. An end that is not a word character (`c++`, `$`) needs no
    boundary there. CJK characters (Chinese, Japanese kana) need no boundary either — those scripts have no spaces
    between words, so `价格` is found inside `价格表`. Case-insensitive by default. The detail lists each forbidden
    word found.

    Being a check that fails on what it finds, it also looks at two more readings of the output: decomposed (NFKD),
    so a combining accent added after a word's last letter (`price\\u0301`) does not hide it, and, where a
    right-to-left override (U+202E) makes letters display reversed, the text as displayed (`\\u202eecirp` shows
    `price`). The boundary rule is read on the word's NFKC form in both.
    """
    forms = _keyword_forms("keywords:forbidden", "words", words, case_sensitive)
    hays = [text, _RLO_RUN.sub(lambda m: m.group(1)[::-1], text)] if "\u202e" in text else [text]
    # each reading once: for ASCII text the NFKD form is the NFKC one
    readings = dict.fromkeys((form, _keyword_form(h, case_sensitive, form)) for form in ("NFKC", "NFKD") for h in hays)
    found = []
    for w, word in zip(words, forms):
        left = r"(?<!\w)" if _needs_boundary(word[0]) else ""
        right = r"(?!\w)" if _needs_boundary(word[-1]) else ""
        if any(re.search(left + re.escape(unicodedata.normalize(form, word)) + right, h) for form, h in readings):
            found.append(w)
    if found:
        noun = "word" if len(found) == 1 else "words"
        return CheckResult(False, f"forbidden {noun} {_quote_list(found)} found")
    return CheckResult(True)


# --- JSON ----------------------------------------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json)?[ \t]*\r?\n(.*?)[ \t\r\n]*```", re.DOTALL | re.IGNORECASE)
# JSON's own whitespace (RFC 8259): str.strip() also removed NBSP, U+3000 and \x1c-\x1f, text outside the JSON.
_JSON_WS = " \t\r\n"
JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")


class _JSONError(Exception):
    pass


def _reject_constant(name: str) -> Any:
    raise _JSONError(f"{name} is not valid JSON")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _JSONError(f"key {key!r} appears twice in one object (which value counts is up to the reader)")
            seen.add(key)
    return obj


def _in_range(text: str) -> None:
    if not math.isfinite(float(text)):
        raise _JSONError(f"number {text[:40]}{'…' if len(text) > 40 else ''} is outside a double's range")


def _parse_int(text: str) -> int:
    _in_range(text)  # before int(): Python refuses more than 4,300 digits with a ValueError
    return int(text)


def _parse_float(text: str) -> Decimal:
    # The number as written, not rounded to a double: 10000000000000000.5 is not a whole number.
    _in_range(text)
    return Decimal(text)


def _parse_json(text: str, fenced: bool, check: str) -> tuple[Any, str | None]:
    """(value, None) or (None, why it is not JSON). Numbers with a fraction or exponent come back as Decimal."""
    _bool_arg(check, "fenced", fenced)
    s = text.strip(_JSON_WS)
    if s.startswith("```"):
        if not fenced:
            return None, "output is inside a ``` fence, which is not allowed (fenced=false)"
        m = _FENCE.fullmatch(s)
        if not m:
            return None, "malformed fence: expected one ```json (or ```) block and nothing outside it"
        s = m.group(1).strip(_JSON_WS)
    if not s:
        return None, "output is empty, not JSON"
    try:
        # Python's parser accepts NaN and Infinity, a key twice (the last wins) and 1e999 (as inf); JSON does not.
        return json.loads(s, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys,
                          parse_int=_parse_int, parse_float=_parse_float), None
    except json.JSONDecodeError as e:
        return None, f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
    except _JSONError as e:
        return None, f"not valid JSON: {e}"
    except RecursionError:  # a hostile output must not stop `judgecal check` for every other record
        return None, "not valid JSON here: nested deeper than the parser allows (about 1,000 levels)"


_MISSING = object()


# An array index: ASCII digits only. `str.isdigit()` also holds for '²' (then `int()` raised at check time, after the
# eval set had imported) and '１' (full-width: it indexed the array).
_INDEX = re.compile(r"[0-9]+")


def _lookup(value: Any, path: str) -> Any:
    """The value at a dotted path, or _MISSING. A segment of ASCII digits indexes an array."""
    cur = value
    for seg in path.split("."):
        if isinstance(cur, dict) and seg in cur:
            cur = cur[seg]
        elif isinstance(cur, list) and _INDEX.fullmatch(seg) and int(seg) < len(cur):
            cur = cur[int(seg)]
        else:
            return _MISSING
    return cur


def _path_arg(check: str, name: str, value: Any) -> str:
    _str_arg(check, name, value)
    if any(seg == "" for seg in value.split(".")):
        raise ValueError(f"{check}: argument {name!r} has an empty path segment: {value!r}")
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, (float, Decimal)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _is_type(value: Any, json_type: str) -> bool:
    actual = _json_type(value)
    if json_type == "number":
        return actual in ("integer", "number")
    if json_type == "integer":
        # JSON Schema (draft 6 and later): an integer is any number with a zero fractional part, so 1.0 counts; the
        # number as written (a Decimal), so 10000000000000000.5, which a double rounds to a whole number, does not.
        return actual == "integer" or (actual == "number" and value == value.to_integral_value())
    return actual == json_type


FENCED_DOC = (
    "`fenced` (required): when true, the whole output may be wrapped in one Markdown fence — an opening "
    "```` ```json ```` (tag case-insensitive) or bare ```` ``` ```` on its own line, closed by ```` ``` ```` — which "
    "is stripped before parsing; unfenced JSON passes too. A fence with another language tag fails. When false, a "
    "fence fails the check. Surrounding JSON whitespace (space, tab, CR, LF) is always ignored, but any other text "
    "outside the JSON (or outside the fence) fails, other white space included (a no-break space, U+3000, "
    "`\\x1c`-`\\x1f`). Parsing is strict JSON: `NaN` and `Infinity` are rejected, so is an object with the same "
    "key twice and a number outside a double's range (`1e999`); any JSON value (object, array, string, number, true, "
    "false, null) is valid at the top level."
)


@checker("format:json")
@_with_doc(FENCED_DOC)
def json_valid(text: str, *, fenced: bool) -> CheckResult:
    """The output is valid JSON."""
    _, error = _parse_json(text, fenced, "format:json")
    return CheckResult(False, error) if error else CheckResult(True)


@checker("format:json_required_fields")
@_with_doc(FENCED_DOC)
def json_required_fields(text: str, *, fields: list[str], fenced: bool) -> CheckResult:
    """The output is JSON and every field in `fields` is present.

    A field is a key of the top-level object or a dotted path (`user.address.city`) through nested objects; a
    segment made of ASCII digits `0`-`9` indexes an array (`items.0.id`; `²` or a full-width `１` never does). A
    key that itself contains a dot cannot be named. A field whose value is `null` is present. Output that is not
    JSON fails with the parse error as the detail; otherwise the detail lists every missing field.
    """
    for f in _str_list_arg("format:json_required_fields", "fields", fields):
        _path_arg("format:json_required_fields", "fields[]", f)
    value, error = _parse_json(text, fenced, "format:json_required_fields")
    if error:
        return CheckResult(False, error)
    missing = [f for f in fields if _lookup(value, f) is _MISSING]
    if missing:
        return CheckResult(False, f"missing field(s): {_quote_list(missing)}")
    return CheckResult(True)


@checker("format:json_field_type")
@_with_doc(FENCED_DOC)
def json_field_type(text: str, *, field: str, type: str, fenced: bool) -> CheckResult:  # noqa: A002
    """The output is JSON and the value at `field` has JSON type `type`.

    `field` is a key or dotted path as in `format:json_required_fields`; a missing field fails. `type` is one of
    string, number, integer, boolean, array, object, null, with JSON Schema's meaning: `number` accepts integers,
    `integer` accepts any number with a zero fractional part as written (`3`, `3.0` and `1E2`, not `3.5`, and not
    `10000000000000000.5`, which a double would round to a whole number), `boolean` is only
    true/false (never 0/1), and `null` is only null. The detail names the type found.
    """
    _path_arg("format:json_field_type", "field", field)
    if type not in JSON_TYPES:
        raise ValueError(f"format:json_field_type: argument 'type' must be one of {', '.join(JSON_TYPES)}; "
                         f"got {type!r}")
    value, error = _parse_json(text, fenced, "format:json_field_type")
    if error:
        return CheckResult(False, error)
    found = _lookup(value, field)
    if found is _MISSING:
        return CheckResult(False, f"missing field {field!r}")
    if not _is_type(found, type):
        return CheckResult(False, f"field {field!r} is {_json_type(found)}, not {type}")
    return CheckResult(True)


# --- regex, prefix, suffix -----------------------------------------------------------------------------------------

_REGEX_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


@checker("text:regex")
def regex(text: str, *, pattern: str, must_match: bool = True, flags: str = "") -> CheckResult:
    """The Python regular expression `pattern` is found anywhere in the output (`re.search`).

    Anchor with `^`/`$` (or `\\A`/`\\Z`) to match the whole output. `must_match=false` inverts the check: the
    pattern must not be found. `flags` is a string of letters, each adding one flag: `i` ignore case, `m` multiline
    (`^`/`$` at line breaks), `s` dot matches newline, `x` verbose; default none. An invalid pattern or an unknown
    flag letter is an argument error. A match that takes longer than 1 s (catastrophic backtracking, e.g. a repeated
    group inside a repeat) fails the check as a checker error naming the pattern.
    """
    _str_arg("text:regex", "pattern", pattern)
    _bool_arg("text:regex", "must_match", must_match)
    _str_arg("text:regex", "flags", flags, empty_ok=True)
    bits = 0
    for letter in flags:
        if letter not in _REGEX_FLAGS:
            raise ValueError(f"text:regex: unknown flag {letter!r}; use letters from 'imsx'")
        bits |= _REGEX_FLAGS[letter]
    try:
        compiled = re.compile(pattern, bits)
    except re.error as e:
        raise ValueError(f"text:regex: invalid pattern {pattern!r}: {e}") from None
    m = patterns.search(compiled.pattern, text, bits)  # time-limited: the pattern is the eval set's (`_patterns`)
    if must_match and not m:
        return CheckResult(False, f"pattern {pattern!r} not found")
    if not must_match and m:
        return CheckResult(False, f"pattern {pattern!r} found: {m.group(0)!r}")
    return CheckResult(True)


@checker("text:prefix")
def prefix(text: str, *, value: str) -> CheckResult:
    """The output, with leading and trailing whitespace removed, starts with `value` (case-sensitive, literal).

    `value` itself is not stripped, so a `value` starting with whitespace could never match and is an argument
    error.
    """
    _str_arg("text:prefix", "value", value)
    if value[0].isspace():
        raise ValueError("text:prefix: argument 'value' must not start with whitespace (the output is stripped)")
    s = text.strip()
    if s.startswith(value):
        return CheckResult(True)
    return CheckResult(False, f"output starts with {s[:len(value)]!r}, not {value!r}")


@checker("text:suffix")
def suffix(text: str, *, value: str) -> CheckResult:
    """The output, with leading and trailing whitespace removed, ends with `value` (case-sensitive, literal).

    A `value` ending with whitespace could never match and is an argument error.
    """
    _str_arg("text:suffix", "value", value)
    if value[-1].isspace():
        raise ValueError("text:suffix: argument 'value' must not end with whitespace (the output is stripped)")
    s = text.strip()
    if s.endswith(value):
        return CheckResult(True)
    return CheckResult(False, f"output ends with {s[-len(value):]!r}, not {value!r}")


# --- length --------------------------------------------------------------------------------------------------------

# A sentence ends at a run of . ! ? … followed by whitespace or the end of the text (so `3.14` and `e.g.x` do not
# split), or at a run of full-width 。！？ (Chinese and Japanese put no space after them); closing quotes and
# brackets right after the terminator belong to the sentence.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|[。！？]+[\"'”’」』）)\]]*")

SENTENCE_SPLITTER_DOC = (
    "Sentences: the text is split after each run of `.`, `!`, `?`, `…` that is followed by whitespace or the end of "
    "the text, and after each run of full-width `。`, `！`, `？` (no space needed); closing quotes and brackets "
    "right after the terminator stay with the sentence. A piece counts as a sentence when it contains at least one "
    "letter or digit, so a trailing fragment without a full stop counts, and `...` or an emoji alone does not. "
    "Line breaks do not end a sentence. `3.14` does not split; abbreviations followed by a space (`e.g. this`) do."
)


def count_sentences(text: str) -> int:
    """Number of sentences by the splitter described in SENTENCE_SPLITTER_DOC."""
    return sum(1 for piece in _SENTENCE_END.split(text) if re.search(r"[^\W_]", piece))


_WORD = re.compile(f"[{_CJK}]|(?:(?![{_CJK}])\\w)+")

WORD_COUNT_DOC = (
    "Words: each CJK character (Han ideographs, hiragana, katakana) counts as one word, because those scripts "
    "have no spaces; every other word is a maximal run of regex `\\w` characters (letters, digits, `_`, any "
    "script). So `don't` is two words, `3.14` is two, `state-of-the-art` is four, and `我喜欢Python` is four "
    "(three characters plus `Python`). Punctuation and emoji are not words. The text is read in NFC form and a "
    "combining mark (Unicode categories Mn, Mc, Me: a vowel sign, a virama, an accent) belongs to the word it "
    "follows, so Hindi `नमस्ते` is one word, as is a decomposed `nai\\u0308ve`. Thai, Lao, Khmer and Burmese are "
    "written without spaces between words and are not segmented: a run between spaces counts as one word, so a word "
    "limit on them counts phrases, not words."
)
_MARKS = ("Mn", "Mc", "Me")


def count_words(text: str) -> int:
    """Number of words by the rule described in WORD_COUNT_DOC."""
    if not text.isascii():
        # Regex `\w` does not match a combining mark, so a mark split its word in two (a review, wave 17). Dropped
        # after NFC, a mark joins the letters around it and, alone, is no word (standard library only).
        text = "".join(c for c in unicodedata.normalize("NFC", text) if unicodedata.category(c) not in _MARKS)
    return len(_WORD.findall(text))


@checker("length:max_sentences")
@_with_doc(SENTENCE_SPLITTER_DOC)
def max_sentences(text: str, *, n: int) -> CheckResult:
    """The output has at most `n` sentences (inclusive; `n` is a non-negative integer)."""
    _count_arg("length:max_sentences", "n", n)
    got = count_sentences(text)
    return CheckResult(got <= n, f"{got} sentence(s), at most {n} allowed")


@checker("length:min_sentences")
@_with_doc(SENTENCE_SPLITTER_DOC)
def min_sentences(text: str, *, n: int) -> CheckResult:
    """The output has at least `n` sentences (inclusive; `n` is a non-negative integer)."""
    _count_arg("length:min_sentences", "n", n)
    got = count_sentences(text)
    return CheckResult(got >= n, f"{got} sentence(s), at least {n} required")


@checker("length:max_words")
@_with_doc(WORD_COUNT_DOC)
def max_words(text: str, *, n: int) -> CheckResult:
    """The output has at most `n` words (inclusive; `n` is a non-negative integer)."""
    _count_arg("length:max_words", "n", n)
    got = count_words(text)
    return CheckResult(got <= n, f"{got} word(s), at most {n} allowed")


@checker("length:min_words")
@_with_doc(WORD_COUNT_DOC)
def min_words(text: str, *, n: int) -> CheckResult:
    """The output has at least `n` words (inclusive; `n` is a non-negative integer)."""
    _count_arg("length:min_words", "n", n)
    got = count_words(text)
    return CheckResult(got >= n, f"{got} word(s), at least {n} required")


# --- numeric answer ------------------------------------------------------------------------------------------------

# Thousands separators only in groups of three. A number is whole: not preceded by a digit, `.` or `,`, and not
# followed by a digit or by `,`/`.` and a digit, so `1,2345` and `1,2` are no number (the first read as 1,234, a
# review, wave 17) and `1.2.3` is none either. A minus is `-`, U+2212 or an en dash U+2013 (read as +5 before).
_MINUS = "−–"
_NUMBER = re.compile(r"(?<![\d.,])[-+" + _MINUS + r"]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
                     r"(?:[eE][-+]?\d+)?(?![\d]|[.,]\d)")


@checker("answer:numeric_after_marker")
def numeric_after_marker(text: str, *, marker: str, expected: float, tolerance: float = 0) -> CheckResult:
    """The first number after the last occurrence of `marker` equals `expected` within `tolerance`.

    `marker` (e.g. `Answer:`) is matched literally and case-sensitively; the last occurrence is used, so a marker
    mentioned while reasoning does not count. The number is searched on the first non-blank line after the marker
    (so `Answer:\\n42` works) and may be preceded by other text on that line (`Answer: $42`, `Answer: **42**`).
    A number is an optional sign (`-`, `+`, the minus sign `−` U+2212 or the en dash `–` U+2013 right before the
    digits), digits with optional comma thousands separators in groups of three (`1,234`), an optional decimal part
    and exponent (`.5`, `1e3`); `42%` reads as 42 and `3/4` as 3. Digits that do not form one such number are no
    number: `1,2345` and `1,2` (a separator not followed by a group of exactly three digits) and `1.2.3`.
    Passes when |number − expected| ≤ `tolerance` (default 0: exact). Fails when the marker is absent or no number
    follows it on that line.
    """
    _str_arg("answer:numeric_after_marker", "marker", marker)
    _number_arg("answer:numeric_after_marker", "expected", expected)
    _number_arg("answer:numeric_after_marker", "tolerance", tolerance)
    if tolerance < 0:
        raise ValueError("answer:numeric_after_marker: argument 'tolerance' must not be negative")
    at = text.rfind(marker)
    if at < 0:
        return CheckResult(False, f"marker {marker!r} not found")
    line = text[at + len(marker):].lstrip().split("\n", 1)[0]
    m = _NUMBER.search(line)
    if not m:
        digits = re.search(r"[\d.,]*\d[\d.,]*", line)
        why = f" ({digits.group(0)[:40]!r} is not one well-formed number)" if digits else ""
        return CheckResult(False, f"no number after marker {marker!r}{why}")
    got = float(re.sub(f"[{_MINUS}]", "-", m.group(0).replace(",", "")))
    if abs(got - expected) <= tolerance:
        return CheckResult(True, f"found {m.group(0)}")
    within = f" within {tolerance}" if tolerance else ""
    return CheckResult(False, f"answer {m.group(0)} after {marker!r} is not {expected}{within}")
