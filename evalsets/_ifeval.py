"""IFEval's 25 instructions as registered checkers (files: _ifeval_files.py; text measures: _ifeval_text.py).

Each checker is registered under its IFEval instruction id (`punctuation:no_comma`, ...) with IFEval's kwargs names,
and reimplements `check_following` of google-research/instruction_following_eval (Zhou et al. 2023, arXiv
2311.07911, Apache-2.0: instructions.py, instructions_util.py, evaluation_lib.py) rule for rule. Where IFEval
picks a random value for a missing or odd argument, these checkers reject the argument instead; every other
departure is listed in docs/ifeval.md.

Common to all checkers: a response that is empty or only whitespace fails (IFEval's evaluation_lib fails such a
response before it calls any checker, in strict and in loose mode). Loose mode is `run_check(..., loose=True)`.
"""

from __future__ import annotations

import collections
import functools
import json
import re
from typing import Any, Callable

import threading

from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
from langdetect.lang_detect_exception import LangDetectException

from judgecal.evalsets import _patterns as patterns
from judgecal.evalsets._ifeval_files import IFEVAL_IDS  # noqa: F401  (re-exported; the ids live with the file reader)
from judgecal.evalsets._ifeval_text import count_sentences, count_words, word_tokenize
from judgecal.evalsets._registry import CheckResult, checker

# langdetect is randomised; IFEval never seeds it, so its language verdicts on borderline text vary run to run.
# Ours use seed 0 on a detector factory of our own: langdetect's global factory and its class-wide
# `DetectorFactory.seed` stay as the host program left them (importing evalsets changes nothing there).
LANGDETECT_SEED = 0
_factory: DetectorFactory | None = None
_factory_lock = threading.Lock()

RELATIONS = ("less than", "at least")


# ---------------------------------------------------------------------------------------------------------------
# Argument checks (IFEval substitutes a random value for a missing or negative one; we raise)


def _int(check: str, name: str, value: Any, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{check}: {name} must be an integer >= {minimum}, got {value!r}")
    return value


def _str(check: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{check}: {name} must be a non-empty string, got {value!r}")
    return value


def _strs(check: str, name: str, value: Any) -> list[str]:
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{check}: {name} must be a non-empty list of non-empty strings, got {value!r}")
    return list(value)


def _relation(check: str, name: str, value: Any) -> str:
    if value not in RELATIONS:
        raise ValueError(f"{check}: {name} must be 'less than' or 'at least', got {value!r}")
    return value


def _compare(count: int, relation: str, threshold: int, what: str) -> CheckResult:
    passed = count < threshold if relation == "less than" else count >= threshold
    return CheckResult(passed, f"{count} {what}; needs {relation} {threshold}")


def _regex(check: str, name: str, pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{check}: {name} {pattern!r} is used as a regular expression (as IFEval does) and "
                         f"does not compile: {exc}") from None
    return pattern


def _ifeval(checker_id: str) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Register an IFEval checker; an empty or whitespace-only response fails without running it."""

    def register(func: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        @functools.wraps(func)
        def wrapped(text: str, **kwargs: Any) -> CheckResult:
            if not text.strip():
                return CheckResult(False, "empty response")
            return func(text, **kwargs)

        return checker(checker_id)(wrapped)

    return register


def _detect_language(text: str) -> str | None:
    """langdetect's language code, or None where langdetect raises (IFEval then counts the check as passed)."""
    global _factory
    if _factory is None:
        with _factory_lock:
            if _factory is None:
                # The same profiles `langdetect.detect` loads; loaded on the first detection, not at import.
                factory = DetectorFactory()
                factory.load_profile(PROFILES_DIRECTORY)
                factory.set_seed(LANGDETECT_SEED)
                _factory = factory
    try:
        detector = _factory.create()
        detector.append(text)
        return detector.detect()
    except LangDetectException:
        return None


# ---------------------------------------------------------------------------------------------------------------
# The 25 checkers, in IFEval's registry order. Each docstring states the exact rule.


@_ifeval("keywords:existence")
def keywords_existence(text: str, *, keywords: list[str]) -> CheckResult:
    """Every keyword occurs: `re.search(keyword, text, IGNORECASE)` for each. As in IFEval the keyword is a regular
    expression, not escaped, and needs no word boundary ("cat" is found in "category")."""
    words = [_regex("keywords:existence", "keywords", k) for k in _strs("keywords:existence", "keywords", keywords)]
    missing = [k for k in words if not patterns.search(k, text, re.IGNORECASE)]
    return CheckResult(not missing, f"missing: {', '.join(missing)}" if missing else "all keywords present")


@_ifeval("keywords:frequency")
def keywords_frequency(text: str, *, keyword: str, frequency: int, relation: str) -> CheckResult:
    """`len(re.findall(keyword.strip(), text, IGNORECASE))` compared with `frequency`: "less than" is <, "at least"
    is >=. The keyword is an unescaped regular expression matched anywhere (no word boundary)."""
    kw = _regex("keywords:frequency", "keyword", _str("keywords:frequency", "keyword", keyword).strip())
    n = _int("keywords:frequency", "frequency", frequency)
    rel = _relation("keywords:frequency", "relation", relation)
    return _compare(len(patterns.findall(kw, text, re.IGNORECASE)), rel, n, f"occurrences of {kw!r}")


@_ifeval("keywords:forbidden_words")
def keywords_forbidden_words(text: str, *, forbidden_words: list[str]) -> CheckResult:
    """No forbidden word occurs as a whole word: `re.search(r"\\b" + word + r"\\b", text, IGNORECASE)` finds none.
    The word is an unescaped regular expression, as in IFEval."""
    words = _strs("keywords:forbidden_words", "forbidden_words", forbidden_words)
    words = [_regex("keywords:forbidden_words", "forbidden_words", w) for w in words]
    found = [w for w in sorted(set(words)) if patterns.search(r"\b" + w + r"\b", text, re.IGNORECASE)]
    return CheckResult(not found, f"found: {', '.join(found)}" if found else "no forbidden word")


@_ifeval("keywords:letter_frequency")
def keywords_letter_frequency(text: str, *, letter: str, let_frequency: int, let_relation: str) -> CheckResult:
    """Occurrences of the single character `letter` (lower-cased) in the lower-cased text, compared with
    `let_frequency` ("less than": <, "at least": >=). IFEval replaces a letter outside a-z (e.g. "#") with a random
    letter; we count the character given."""
    if not isinstance(letter, str) or len(letter.strip()) != 1:
        raise ValueError(f"keywords:letter_frequency: letter must be one character, got {letter!r}")
    ch = letter.strip().lower()
    n = _int("keywords:letter_frequency", "let_frequency", let_frequency)
    rel = _relation("keywords:letter_frequency", "let_relation", let_relation)
    return _compare(collections.Counter(text.lower())[ch], rel, n, f"occurrences of {ch!r}")


@_ifeval("language:response_language")
def language_response_language(text: str, *, language: str) -> CheckResult:
    """`langdetect.detect(text) == language` (an ISO 639-1 code such as "en", "fr"). Where langdetect cannot decide
    (it raises, e.g. text without letters) the check passes, as in IFEval. langdetect is seeded (seed 0)."""
    lang = _str("language:response_language", "language", language)
    found = _detect_language(text)
    if found is None:
        return CheckResult(True, "language not detectable; counted as followed (as IFEval does)")
    return CheckResult(found == lang, f"detected {found!r}; expected {lang!r}")


@_ifeval("length_constraints:number_sentences")
def length_number_sentences(text: str, *, num_sentences: int, relation: str) -> CheckResult:
    """Punkt sentence count (nltk's English Punkt model, as IFEval's count_sentences) compared with `num_sentences`
    ("less than": <, "at least": >=). Newlines alone do not end a sentence."""
    n = _int("length_constraints:number_sentences", "num_sentences", num_sentences)
    rel = _relation("length_constraints:number_sentences", "relation", relation)
    return _compare(count_sentences(text), rel, n, "sentences")


@_ifeval("length_constraints:number_paragraphs")
def length_number_paragraphs(text: str, *, num_paragraphs: int) -> CheckResult:
    """Exactly `num_paragraphs` paragraphs separated by the markdown divider: split on `\\s?\\*\\*\\*\\s?`; an empty
    first or last part is not counted, an empty part in between fails the check."""
    n = _int("length_constraints:number_paragraphs", "num_paragraphs", num_paragraphs)
    parts = re.split(r"\s?\*\*\*\s?", text)
    count = len(parts)
    for i, part in enumerate(parts):
        if not part.strip():
            if i in (0, len(parts) - 1):
                count -= 1
            else:
                return CheckResult(False, f"empty paragraph between dividers (part {i + 1})")
    return CheckResult(count == n, f"{count} paragraphs; needs exactly {n}")


@_ifeval("length_constraints:number_words")
def length_number_words(text: str, *, num_words: int, relation: str) -> CheckResult:
    """Word count (runs of `\\w`, as nltk's RegexpTokenizer(r"\\w+")) compared with `num_words` ("less than": <,
    "at least": >=). "don't" is two words, "3.5" is two."""
    n = _int("length_constraints:number_words", "num_words", num_words)
    rel = _relation("length_constraints:number_words", "relation", relation)
    return _compare(count_words(text), rel, n, "words")


@_ifeval("length_constraints:nth_paragraph_first_word")
def length_nth_paragraph_first_word(text: str, *, num_paragraphs: int, nth_paragraph: int,
                                    first_word: str) -> CheckResult:
    """Paragraphs are split on "\\n\\n"; blank ones are not counted. Passes when the count equals `num_paragraphs`
    and paragraph `nth_paragraph` (1-based, indexed among all parts, blank ones included, as IFEval does) starts
    with `first_word`: its first whitespace token, leading ' and " removed, cut at the first of . , ? ! ' ",
    compared case-insensitively."""
    n = _int("length_constraints:nth_paragraph_first_word", "num_paragraphs", num_paragraphs, minimum=1)
    nth = _int("length_constraints:nth_paragraph_first_word", "nth_paragraph", nth_paragraph, minimum=1)
    if nth > n:
        raise ValueError(f"length_constraints:nth_paragraph_first_word: nth_paragraph {nth} > num_paragraphs {n}")
    want = _str("length_constraints:nth_paragraph_first_word", "first_word", first_word).lower()
    parts = re.split(r"\n\n", text)
    count = sum(1 for p in parts if p.strip())
    if nth > count:
        return CheckResult(False, f"{count} paragraphs; paragraph {nth} does not exist")
    para = parts[nth - 1].strip()
    if not para:
        return CheckResult(False, f"paragraph {nth} is empty")
    word = para.split()[0].strip().lstrip("'").lstrip('"')
    first = ""
    for ch in word:
        if ch in {".", ",", "?", "!", "'", '"'}:
            break
        first += ch.lower()
    return CheckResult(count == n and first == want,
                       f"{count} paragraphs (needs {n}); paragraph {nth} starts with {first!r} (needs {want!r})")


@_ifeval("detectable_content:number_placeholders")
def content_number_placeholders(text: str, *, num_placeholders: int) -> CheckResult:
    """At least `num_placeholders` placeholders `[...]`: matches of `\\[.*?\\]` (non-greedy, within a line)."""
    n = _int("detectable_content:number_placeholders", "num_placeholders", num_placeholders)
    found = len(re.findall(r"\[.*?\]", text))
    return CheckResult(found >= n, f"{found} placeholders; needs at least {n}")


@_ifeval("detectable_content:postscript")
def content_postscript(text: str, *, postscript_marker: str) -> CheckResult:
    """A line of the lower-cased text contains the marker: "P.S." matches `\\s*p\\.\\s?s\\.`, "P.P.S" matches
    `\\s*p\\.\\s?p\\.\\s?s`, any other marker is lower-cased and used as an unescaped regular expression. The
    postscript need not be at the end."""
    marker = _str("detectable_content:postscript", "postscript_marker", postscript_marker).strip()
    if marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + _regex("detectable_content:postscript", "postscript_marker", marker.lower()) + r".*$"
    found = patterns.findall(pattern, text.lower(), re.MULTILINE)
    return CheckResult(bool(found), "postscript found" if found else f"no postscript starting with {marker!r}")


@_ifeval("detectable_format:number_bullet_lists")
def format_number_bullet_lists(text: str, *, num_bullets: int) -> CheckResult:
    """Exactly `num_bullets` bullet lines: lines matching `^\\s*\\*[^\\*].*$` (star bullets, not "**bold**") plus
    lines matching `^\\s*-.*$` (dash bullets; a "---" rule counts too)."""
    n = _int("detectable_format:number_bullet_lists", "num_bullets", num_bullets)
    found = (len(re.findall(r"^\s*\*[^\*].*$", text, flags=re.MULTILINE))
             + len(re.findall(r"^\s*-.*$", text, flags=re.MULTILINE)))
    return CheckResult(found == n, f"{found} bullet points; needs exactly {n}")


@_ifeval("detectable_format:constrained_response")
def format_constrained_response(text: str) -> CheckResult:
    """The response contains "My answer is yes.", "My answer is no." or "My answer is maybe." (case-sensitive,
    anywhere)."""
    for option in ("My answer is yes.", "My answer is no.", "My answer is maybe."):
        if option in text.strip():
            return CheckResult(True, f"contains {option!r}")
    return CheckResult(False, "none of the allowed answers")


@_ifeval("detectable_format:number_highlighted_sections")
def format_number_highlighted_sections(text: str, *, num_highlights: int) -> CheckResult:
    r"""At least `num_highlights` highlights: non-overlapping matches of `\*[^\n\*]*\*` that are not blank once
    their stars are stripped, plus non-blank matches of `\*\*[^\n\*]*\*\*` ("*a*" counts once through the first
    pattern, "**a**" once through the second, since the first then only finds the blank "**")."""
    n = _int("detectable_format:number_highlighted_sections", "num_highlights", num_highlights)
    found = sum(1 for h in re.findall(r"\*[^\n\*]*\*", text) if h.strip("*").strip())
    found += sum(1 for h in re.findall(r"\*\*[^\n\*]*\*\*", text) if h.removeprefix("**").removesuffix("**").strip())
    return CheckResult(found >= n, f"{found} highlighted sections; needs at least {n}")


@_ifeval("detectable_format:multiple_sections")
def format_multiple_sections(text: str, *, section_spliter: str, num_sections: int) -> CheckResult:
    """At least `num_sections` sections: the number of splits of the text on `\\s?` + spliter + `\\s?\\d+\\s?`
    (case-sensitive; the spliter, stripped, is an unescaped regular expression; "Section 1" anywhere counts)."""
    spliter = _str("detectable_format:multiple_sections", "section_spliter", section_spliter).strip()
    _regex("detectable_format:multiple_sections", "section_spliter", spliter)
    n = _int("detectable_format:multiple_sections", "num_sections", num_sections)
    found = len(patterns.split(r"\s?" + spliter + r"\s?\d+\s?", text)) - 1
    return CheckResult(found >= n, f"{found} sections marked {spliter!r}; needs at least {n}")


@_ifeval("detectable_format:json_format")
def format_json_format(text: str) -> CheckResult:
    """The stripped text, less one leading "```json" / "```Json" / "```JSON" / "```" and one trailing "```", then
    stripped again, parses with Python's json.loads (which accepts NaN and Infinity)."""
    value = (text.strip().removeprefix("```json").removeprefix("```Json").removeprefix("```JSON")
             .removeprefix("```").removesuffix("```").strip())
    try:
        json.loads(value)
    except ValueError as exc:
        return CheckResult(False, f"not JSON: {exc}")
    except RecursionError:  # the reference implementation crashes here; one output must not stop the whole check
        return CheckResult(False, "not JSON that Python's parser reads: nested deeper than about 1,000 levels")
    return CheckResult(True, "valid JSON")


@_ifeval("detectable_format:title")
def format_title(text: str) -> CheckResult:
    """A title in double angular brackets: some match of `<<[^\\n]+>>` is not blank once its < and > are removed."""
    for title in re.findall(r"<<[^\n]+>>", text):
        if title.lstrip("<").rstrip(">").strip():
            return CheckResult(True, f"title {title!r}")
    return CheckResult(False, "no <<title>>")


@_ifeval("combination:two_responses")
def combination_two_responses(text: str) -> CheckResult:
    """Split on "******": after dropping a blank first and last part there are exactly two parts, no blank part
    in between, and the two differ once stripped."""
    parts = text.split("******")
    valid = []
    for i, part in enumerate(parts):
        if not part.strip():
            if i not in (0, len(parts) - 1):
                return CheckResult(False, "empty response between separators")
        else:
            valid.append(part)
    ok = len(valid) == 2 and valid[0].strip() != valid[1].strip()
    return CheckResult(ok, f"{len(valid)} responses" + (" (identical)" if len(valid) == 2 and not ok else ""))


@_ifeval("combination:repeat_prompt")
def combination_repeat_prompt(text: str, *, prompt_to_repeat: str) -> CheckResult:
    """The stripped, lower-cased text starts with the stripped, lower-cased `prompt_to_repeat`."""
    prompt = _str("combination:repeat_prompt", "prompt_to_repeat", prompt_to_repeat)
    ok = text.strip().lower().startswith(prompt.strip().lower())
    return CheckResult(ok, "starts with the prompt" if ok else "does not start with the prompt")


@_ifeval("startend:end_checker")
def startend_end_checker(text: str, *, end_phrase: str) -> CheckResult:
    """The text, stripped of whitespace and then of double quotes at both ends, lower-cased, ends with the stripped,
    lower-cased `end_phrase`."""
    phrase = _str("startend:end_checker", "end_phrase", end_phrase).strip().lower()
    ok = text.strip().strip('"').lower().endswith(phrase)
    return CheckResult(ok, f"ends with {phrase!r}" if ok else f"does not end with {phrase!r}")


@_ifeval("change_case:capital_word_frequency")
def case_capital_word_frequency(text: str, *, capital_frequency: int, capital_relation: str) -> CheckResult:
    """Tokens of nltk.word_tokenize (Treebank rules: "DON'T" is "DO" + "N'T", hyphenated words are one token) whose
    str.isupper() is true (single letters such as "I" and "A" count), compared with `capital_frequency`
    ("less than": <, "at least": >=)."""
    n = _int("change_case:capital_word_frequency", "capital_frequency", capital_frequency)
    rel = _relation("change_case:capital_word_frequency", "capital_relation", capital_relation)
    return _compare(sum(1 for w in word_tokenize(text) if w.isupper()), rel, n, "all-capital words")


@_ifeval("change_case:english_capital")
def case_english_capital(text: str) -> CheckResult:
    """`text.isupper()` (no lower-case letter, at least one cased one) and langdetect says "en". If langdetect
    cannot decide, the check passes (as in IFEval, even when the text is not upper-case)."""
    lang = _detect_language(text)
    if lang is None:
        return CheckResult(True, "language not detectable; counted as followed (as IFEval does)")
    return CheckResult(text.isupper() and lang == "en", f"isupper={text.isupper()}, language={lang!r}")


@_ifeval("change_case:english_lowercase")
def case_english_lowercase(text: str) -> CheckResult:
    """`text.islower()` (no upper-case letter, at least one cased one) and langdetect says "en". If langdetect
    cannot decide, the check passes (as in IFEval)."""
    lang = _detect_language(text)
    if lang is None:
        return CheckResult(True, "language not detectable; counted as followed (as IFEval does)")
    return CheckResult(text.islower() and lang == "en", f"islower={text.islower()}, language={lang!r}")


@_ifeval("punctuation:no_comma")
def punctuation_no_comma(text: str) -> CheckResult:
    """No ASCII comma "," anywhere (other commas such as "，" are allowed)."""
    n = text.count(",")
    return CheckResult(n == 0, f"{n} commas")


@_ifeval("startend:quotation")
def startend_quotation(text: str) -> CheckResult:
    """The stripped text is longer than one character and starts and ends with an ASCII double quote."""
    value = text.strip()
    ok = len(value) > 1 and value[0] == '"' and value[-1] == '"'
    return CheckResult(ok, "wrapped in double quotes" if ok else "not wrapped in double quotes")
