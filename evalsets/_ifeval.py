"""IFEval's 25 instructions as registered checkers, and reading/scoring IFEval files.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import langdetect
from langdetect.lang_detect_exception import LangDetectException
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalsets._io import InputError, Problem
from evalsets._models import Check, Constraint, EvalItem, RunRecord
from evalsets._registry import CheckResult, checker, get_checker, run_check, validate_check

# langdetect is randomised; IFEval never seeds it, so its language verdicts on borderline text vary run to run.
# Seeding makes ours reproducible (it is langdetect's global, set once at import).
langdetect.DetectorFactory.seed = 0

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


# ---------------------------------------------------------------------------------------------------------------
# Text measures (instructions_util.py)


def count_words(text: str) -> int:
    """IFEval's word count: nltk RegexpTokenizer(r"\\w+"), i.e. runs of Unicode word characters."""
    return len(re.findall(r"\w+", text))


# Punkt (Kiss & Strunk 2006) as nltk 3.8 runs it with its English model, which IFEval's count_sentences loads
# (nltk.data.load("tokenizers/punkt/english.pickle")). nltk is not a dependency: the decision procedure is ported
# here with the English model's abbreviation types, collocations and frequent sentence starters. The model's
# orthographic context table (20k word types) is left out and treated as empty: it only decides the rare case of a
# capitalised word after an abbreviation, ellipsis or initial ("Mr. Smith", "wait... What"), see docs/ifeval.md.
_PUNKT_ABBREVS = frozenset((
    ". . ", "a.a", "a.c", "a.d", "a.g", "a.h", "a.m", "a.m.e", "a.s", "a.t", "adm", "ala", "ariz", "aug", "ave",
    "b.f", "b.v", "bros", "c", "c.i.t", "c.o.m.b", "c.v", "calif", "chg", "cie", "co", "col", "colo", "conn", "corp",
    "cos", "ct", "d", "d.c", "d.h", "d.w", "dec", "dr", "e", "e.f", "e.h", "e.l", "e.m", "f", "f.g", "f.j", "feb",
    "fla", "fri", "ft", "g", "g.d", "g.f", "g.k", "ga", "gen", "h", "h.c", "h.f", "h.m", "i.m.s", "ill", "inc",
    "j.b", "j.c", "j.j", "j.k", "j.p", "j.r", "jan", "jr", "k", "kan", "ky", "l", "l.a", "l.f", "l.p", "lt", "ltd",
    "m", "m.b.a", "m.d.c", "m.j", "maj", "messrs", "mg", "mich", "minn", "mr", "mrs", "ms", "n", "n.c", "n.d", "n.h",
    "n.j", "n.m", "n.v", "n.y", "nev", "nov", "oct", "ok", "okla", "ore", "p", "p.a.m", "p.m", "pa", "ph.d", "prof",
    "r", "r.a", "r.h", "r.i", "r.j", "r.k", "r.t", "rep", "reps", "s", "s.a", "s.a.y", "s.c", "s.g", "s.p.a", "s.s",
    "sen", "sep", "sept", "sr", "st", "sw", "t", "t.j", "tenn", "tues", "u.k", "u.n", "u.s", "u.s.a", "u.s.s.r", "v",
    "va", "vs", "vt", "w", "w.c", "w.r", "w.va", "w.w", "wash", "wed", "wis", "yr",
))
_PUNKT_COLLOCATIONS = frozenset(
    [("##number##", w) for w in (
        "abreast", "aes", "business", "cbot", "colgate", "commodities", "cooper", "corrections", "credit",
        "dividend", "financing", "genentech", "henley", "insider", "international", "leisure", "letters", "notable",
        "pay-fone", "pegasus", "pepper", "review", "rj", "wedgestone", "who", "zimmer")]
    + [("b", "edelman"), ("b", "levine"), ("b", "smith"), ("b", "stewart"), ("b", "wigton"), ("i", "magnin"),
       ("i", "toussie"), ("j", "aron"), ("j", "fialka"), ("j", "walter"), ("o", "ludcke")]
)
_PUNKT_SENT_STARTERS = frozenset((
    "according", "although", "among", "both", "but", "despite", "even", "he", "however", "i", "if", "in", "indeed",
    "instead", "it", "many", "meanwhile", "moreover", "most", "nevertheless", "nonetheless", "nor", "sales",
    "separately", "similarly", "since", "so", "some", "the", "there", "these", "they", "this", "though", "thus",
    "under", "when", "while", "yet",
))
_NON_WORD = r"(?:[)\";}\]\*:@\'\({\[!?])"
_MULTI_CHAR = r"(?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)"
_PUNKT_WORD = re.compile(
    rf"({_MULTI_CHAR}|(?=[^\(\"\`{{\[:;&\#\*@\)}}\]\-,])\S+?"
    rf"(?=\s|$|{_NON_WORD}|{_MULTI_CHAR}|,(?=$|\s|{_NON_WORD}|{_MULTI_CHAR}))|\S)"
)
_PERIOD_CONTEXT = re.compile(rf"[.?!](?=(?P<after_tok>{_NON_WORD}|\s+(?P<next_tok>\S+)))")
_REALIGN = re.compile(r'["\')\]}]+?(?:\s+|(?=--)|$)', re.MULTILINE)
_NUMERIC = re.compile(r"^-?[\.,]?\d[\d,\.-]*\.?$")
_INITIAL = re.compile(r"[^\W\d]\.$")
_ELLIPSIS = re.compile(r"\.\.+$")


def _punkt_type(tok: str) -> str:
    return _NUMERIC.sub("##number##", tok.lower())


def _punkt_breaks(tokens: list[str]) -> list[bool]:
    """Sentence-break flag of each token: Punkt's first pass (by type) and second pass (by the next token)."""
    breaks, abbrs, ellipses = [], [], []
    for tok in tokens:
        brk = abbr = ell = False
        if tok in (".", "?", "!"):
            brk = True
        elif _ELLIPSIS.match(tok):
            ell = True
        elif tok.endswith(".") and not tok.endswith(".."):
            if tok[:-1].lower() in _PUNKT_ABBREVS or tok[:-1].lower().split("-")[-1] in _PUNKT_ABBREVS:
                abbr = True
            else:
                brk = True
        breaks.append(brk)
        abbrs.append(abbr)
        ellipses.append(ell)
    for i in range(len(tokens) - 1):
        tok, nxt = tokens[i], tokens[i + 1]
        if not tok.endswith("."):
            continue
        typ = _punkt_type(tok)
        typ = typ[:-1] if len(typ) > 1 and typ.endswith(".") else typ
        next_typ = _punkt_type(nxt)
        if breaks[i + 1] and len(next_typ) > 1 and next_typ.endswith("."):
            next_typ = next_typ[:-1]
        initial = bool(_INITIAL.match(tok))
        if (typ, next_typ) in _PUNKT_COLLOCATIONS:
            breaks[i] = False
            continue
        # The orthographic heuristic with an empty context table: a punctuation mark or a lower-case word is
        # "not a sentence starter", anything else is "unknown".
        ortho = False if nxt in tuple(";:,.!?") or nxt[0].islower() else None
        if (abbrs[i] or ellipses[i]) and not initial:
            if nxt[0].isupper() and next_typ in _PUNKT_SENT_STARTERS:
                breaks[i] = True
                continue
        if initial or typ == "##number##":
            if ortho is False or (initial and nxt[0].isupper()):
                breaks[i] = False
    return breaks


def _punkt_contains_break(context: str) -> bool:
    tokens = [t for line in context.split("\n") if line.strip() for t in _PUNKT_WORD.findall(line)]
    breaks = _punkt_breaks(tokens)
    return any(breaks[:-1])


def split_sentences_punkt(text: str) -> list[str]:
    """Punkt's sentences (PunktSentenceTokenizer.tokenize with boundary realignment)."""
    slices: list[slice] = []
    last_break = 0
    prev_match: re.Match[str] | None = None
    prev_slice = slice(0, 0)
    candidates: list[tuple[re.Match[str], str]] = []
    for match in _PERIOD_CONTEXT.finditer(text):
        before = text[prev_slice.stop:match.start()]
        ws = max((i for i, ch in enumerate(before) if ch.isspace() and ch in " \t\n\r\x0b\x0c"), default=0)
        start = ws + prev_slice.stop + 1 if ws else prev_slice.start
        word_slice = slice(start, match.start())
        if prev_match and prev_slice.stop <= word_slice.start:
            candidates.append((prev_match, text[prev_slice] + prev_match.group() + prev_match.group("after_tok")))
        prev_match, prev_slice = match, word_slice
    if prev_match:
        candidates.append((prev_match, text[prev_slice] + prev_match.group() + prev_match.group("after_tok")))
    for match, context in candidates:
        if _punkt_contains_break(context):
            slices.append(slice(last_break, match.end()))
            last_break = match.start("next_tok") if match.group("next_tok") else match.end()
    slices.append(slice(last_break, len(text.rstrip())))
    sentences: list[str] = []
    realign = 0
    for i, s1 in enumerate(slices):
        s1 = slice(s1.start + realign, s1.stop)
        if i + 1 == len(slices):
            if text[s1]:
                sentences.append(text[s1])
            continue
        s2 = slices[i + 1]
        m = _REALIGN.match(text[s2])
        if m:
            sentences.append(text[s1.start:s2.start + len(m.group(0).rstrip())])
            realign = m.end()
        else:
            realign = 0
            if text[s1]:
                sentences.append(text[s1])
    return sentences


def count_sentences(text: str) -> int:
    """IFEval's sentence count: the number of Punkt sentences (see split_sentences_punkt)."""
    return len(split_sentences_punkt(text))


# nltk.word_tokenize (NLTKWordTokenizer, nltk 3.8) for counting all-caps words. word_tokenize first splits
# sentences with Punkt; that only moves sentence-final periods into their own tokens, which changes no token's
# isupper(), so the tokenizer runs on the whole text here.
_WT_STEPS: list[tuple[re.Pattern[str], str]] = [(re.compile(p, f), r) for p, f, r in [
    # starting quotes
    ("([«“‘„]|[`]+)", 0, r" \1 "), (r'^\"', 0, r"``"), (r"(``)", 0, r" \1 "), (r"([ \(\[{<])(\"|\'{2})", 0, r"\1 `` "),
    (r"(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b", 0, r"\1 \2"),
    # punctuation
    (r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*)\s*$", 0, r"\1 \2 \3 "), (r"([:,])([^\d])", 0, r" \1 \2"),
    (r"([:,])$", 0, r" \1 "), (r"\.{2,}", 0, r" \g<0> "), (r"[;@#$%&]", 0, r" \g<0> "),
    (r'([^\.])(\.)([\]\)}>"\']*)\s*$', 0, r"\1 \2\3 "), (r"[?!]", 0, r" \g<0> "), (r"([^'])' ", 0, r"\1 ' "),
    (r"[*]", 0, r" \g<0> "),
    # brackets, double dashes
    (r"[\]\[\(\)\{\}\<\>]", 0, r" \g<0> "), (r"--", 0, r" -- "),
]]
_WT_ENDING: list[tuple[re.Pattern[str], str]] = [(re.compile(p), r) for p, r in [
    ("([»”’])", r" \1 "), (r"''", " '' "), (r'"', " '' "), (r"\s+", " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "), (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
]]
_WT_CONTRACTIONS = [re.compile(p) for p in (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b", r"(?i)\b(gon)(?#X)(na)\b",
    r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b", r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
    r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b",
)]


def word_tokenize(text: str) -> list[str]:
    """Tokens as nltk.word_tokenize makes them, up to the placement of sentence-final periods."""
    for pattern, repl in _WT_STEPS:
        text = pattern.sub(repl, text)
    text = f" {text} "
    for pattern, repl in _WT_ENDING:
        text = pattern.sub(repl, text)
    for pattern in _WT_CONTRACTIONS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()


def _detect_language(text: str) -> str | None:
    """langdetect's language code, or None where langdetect raises (IFEval then counts the check as passed)."""
    try:
        return langdetect.detect(text)
    except LangDetectException:
        return None


# ---------------------------------------------------------------------------------------------------------------
# The 25 checkers, in IFEval's registry order. Each docstring states the exact rule.


@_ifeval("keywords:existence")
def keywords_existence(text: str, *, keywords: list[str]) -> CheckResult:
    """Every keyword occurs: `re.search(keyword, text, IGNORECASE)` for each. As in IFEval the keyword is a regular
    expression, not escaped, and needs no word boundary ("cat" is found in "category")."""
    words = [_regex("keywords:existence", "keywords", k) for k in _strs("keywords:existence", "keywords", keywords)]
    missing = [k for k in words if not re.search(k, text, flags=re.IGNORECASE)]
    return CheckResult(not missing, f"missing: {', '.join(missing)}" if missing else "all keywords present")


@_ifeval("keywords:frequency")
def keywords_frequency(text: str, *, keyword: str, frequency: int, relation: str) -> CheckResult:
    """`len(re.findall(keyword.strip(), text, IGNORECASE))` compared with `frequency`: "less than" is <, "at least"
    is >=. The keyword is an unescaped regular expression matched anywhere (no word boundary)."""
    kw = _regex("keywords:frequency", "keyword", _str("keywords:frequency", "keyword", keyword).strip())
    n = _int("keywords:frequency", "frequency", frequency)
    rel = _relation("keywords:frequency", "relation", relation)
    return _compare(len(re.findall(kw, text, flags=re.IGNORECASE)), rel, n, f"occurrences of {kw!r}")


@_ifeval("keywords:forbidden_words")
def keywords_forbidden_words(text: str, *, forbidden_words: list[str]) -> CheckResult:
    """No forbidden word occurs as a whole word: `re.search(r"\\b" + word + r"\\b", text, IGNORECASE)` finds none.
    The word is an unescaped regular expression, as in IFEval."""
    words = _strs("keywords:forbidden_words", "forbidden_words", forbidden_words)
    words = [_regex("keywords:forbidden_words", "forbidden_words", w) for w in words]
    found = [w for w in sorted(set(words)) if re.search(r"\b" + w + r"\b", text, flags=re.IGNORECASE)]
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
    found = re.findall(pattern, text.lower(), flags=re.MULTILINE)
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
    """At least `num_highlights` highlights: each non-blank `*...*` within a line counts, and each non-blank
    `**...**` counts once more (so "**bold**" can count twice, as in IFEval)."""
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
    found = len(re.split(r"\s?" + spliter + r"\s?\d+\s?", text)) - 1
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


IFEVAL_IDS: tuple[str, ...] = (
    "keywords:existence", "keywords:frequency", "keywords:forbidden_words", "keywords:letter_frequency",
    "language:response_language", "length_constraints:number_sentences", "length_constraints:number_paragraphs",
    "length_constraints:number_words", "length_constraints:nth_paragraph_first_word",
    "detectable_content:number_placeholders", "detectable_content:postscript",
    "detectable_format:number_bullet_lists", "detectable_format:constrained_response",
    "detectable_format:number_highlighted_sections", "detectable_format:multiple_sections",
    "detectable_format:json_format", "detectable_format:title", "combination:two_responses",
    "combination:repeat_prompt", "startend:end_checker", "change_case:capital_word_frequency",
    "change_case:english_capital", "change_case:english_lowercase", "punctuation:no_comma", "startend:quotation",
)


# ---------------------------------------------------------------------------------------------------------------
# IFEval files: input_data.jsonl rows with a `response` (IFEval's input_response_data joined on the prompt)


class IFEvalRow(BaseModel):
    """One IFEval prompt with its instructions and the response to score. Other fields (such as recorded
    verdicts) are kept in `extra` and ignored."""

    model_config = ConfigDict(extra="allow", frozen=True)

    key: int | str
    prompt: str
    instruction_id_list: list[str] = Field(min_length=1)
    kwargs: list[dict[str, Any]]
    response: str
    response_model: str | None = None


def parse_ifeval(text: str, *, file: str = "<string>") -> list[IFEvalRow]:
    """Parse IFEval JSONL text. Raises InputError naming file, line and field of every bad row: bad JSON, a missing
    field, an unknown instruction id, kwargs that do not fit the checker (None-valued keys are dropped first, as
    IFEval's released input_data has them for unused arguments), or a duplicate key."""
    rows: list[IFEvalRow] = []
    problems: list[Problem] = []
    seen: dict[Any, int] = {}
    for line, raw_line in enumerate(text.splitlines(), start=1):
        if not raw_line.strip():
            continue
        try:
            raw = json.loads(raw_line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(file, line, "(json)", f"invalid JSON: {exc.msg} at column {exc.colno}"))
            continue
        if not isinstance(raw, dict):
            problems.append(Problem(file, line, "(row)", "expected a JSON object"))
            continue
        if isinstance(raw.get("kwargs"), list):
            raw["kwargs"] = [{k: v for k, v in kw.items() if v is not None} if isinstance(kw, dict) else kw
                             for kw in raw["kwargs"]]
        try:
            row = IFEvalRow.model_validate(raw)
        except ValidationError as exc:
            problems.extend(Problem(file, line, ".".join(str(p) for p in e["loc"]) or "(row)", e["msg"])
                            for e in exc.errors(include_url=False))
            continue
        row_problems = _row_problems(row, file, line)
        if row_problems:
            problems.extend(row_problems)
            continue
        if row.key in seen:
            problems.append(Problem(file, line, "key", f"duplicate key {row.key!r} (first on line {seen[row.key]})"))
            continue
        seen[row.key] = line
        rows.append(row)
    if problems:
        raise InputError(problems)
    return rows


def _row_problems(row: IFEvalRow, file: str, line: int) -> list[Problem]:
    if len(row.kwargs) != len(row.instruction_id_list):
        return [Problem(file, line, "kwargs", f"{len(row.kwargs)} kwargs dicts for "
                                              f"{len(row.instruction_id_list)} instructions")]
    problems = []
    for i, (iid, kwargs) in enumerate(zip(row.instruction_id_list, row.kwargs)):
        if iid not in IFEVAL_IDS:
            problems.append(Problem(file, line, f"instruction_id_list.{i}", f"unknown IFEval instruction {iid!r}"))
            continue
        try:
            spec = validate_check(iid, kwargs)
            spec.func("x", **kwargs)  # checkers are pure: a dry run surfaces bad argument values
        except (ValueError, TypeError) as exc:
            problems.append(Problem(file, line, f"kwargs.{i}", str(exc)))
    return problems


def read_ifeval(path: str | Path) -> list[IFEvalRow]:
    """Read an IFEval JSONL file (see parse_ifeval)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([Problem(str(path), 0, "", "file not found")]) from None
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), 0, "", f"not UTF-8 text ({exc.reason})")]) from None
    return parse_ifeval(text, file=str(path))


def evaluate_ifeval(rows: list[IFEvalRow], *, loose: bool) -> list[dict[str, Any]]:
    """IFEval's verdicts per row, in its result shape: key, instruction_id_list, follow_instruction_list,
    follow_all_instructions (evaluation_lib.test_instruction_following_strict / _loose)."""
    results = []
    for row in rows:
        follow = [run_check(iid, kwargs, text=row.response, loose=loose).passed
                  for iid, kwargs in zip(row.instruction_id_list, row.kwargs)]
        results.append({"key": row.key, "instruction_id_list": list(row.instruction_id_list),
                        "follow_instruction_list": follow, "follow_all_instructions": all(follow)})
    return results


@dataclass(frozen=True)
class IFEvalSummary:
    """IFEval's headline numbers: prompt-level (all instructions followed) and instruction-level accuracy."""

    prompts: int
    prompts_followed: int
    instructions: int
    instructions_followed: int

    @property
    def prompt_accuracy(self) -> float:
        return self.prompts_followed / self.prompts if self.prompts else 0.0

    @property
    def instruction_accuracy(self) -> float:
        return self.instructions_followed / self.instructions if self.instructions else 0.0


def summarize_ifeval(results: list[dict[str, Any]]) -> IFEvalSummary:
    """Counts as evaluation_lib.print_report computes them."""
    return IFEvalSummary(
        prompts=len(results),
        prompts_followed=sum(1 for r in results if all(r["follow_instruction_list"])),
        instructions=sum(len(r["instruction_id_list"]) for r in results),
        instructions_followed=sum(sum(r["follow_instruction_list"]) for r in results),
    )


_CONTENT_IDS = {"keywords:existence", "keywords:frequency", "keywords:forbidden_words", "keywords:letter_frequency",
                "language:response_language", "detectable_content:number_placeholders",
                "detectable_content:postscript", "combination:repeat_prompt"}


def describe_instruction(instruction_id: str, kwargs: dict[str, Any]) -> str:
    """A readable sentence for one instruction (close to IFEval's own descriptions)."""
    k = kwargs
    texts: dict[str, Callable[[], str]] = {
        "keywords:existence": lambda: f"Include the keywords {', '.join(map(repr, k['keywords']))}.",
        "keywords:frequency": lambda: f"The word {k['keyword']!r} appears {k['relation']} {k['frequency']} times.",
        "keywords:forbidden_words": lambda: f"Do not use the words {', '.join(map(repr, k['forbidden_words']))}.",
        "keywords:letter_frequency": lambda: (f"The letter {k['letter']!r} appears {k['let_relation']} "
                                              f"{k['let_frequency']} times."),
        "language:response_language": lambda: f"The entire response is in language {k['language']!r}.",
        "length_constraints:number_sentences": lambda: f"Use {k['relation']} {k['num_sentences']} sentences.",
        "length_constraints:number_paragraphs": lambda: (f"Exactly {k['num_paragraphs']} paragraphs, separated "
                                                         "by the markdown divider ***."),
        "length_constraints:number_words": lambda: f"Answer with {k['relation']} {k['num_words']} words.",
        "length_constraints:nth_paragraph_first_word": lambda: (
            f"Exactly {k['num_paragraphs']} paragraphs separated by blank lines; paragraph {k['nth_paragraph']} "
            f"starts with the word {k['first_word']!r}."),
        "detectable_content:number_placeholders": lambda: (f"At least {k['num_placeholders']} placeholders in "
                                                           "square brackets, such as [address]."),
        "detectable_content:postscript": lambda: f"Add a postscript starting with {k['postscript_marker']!r}.",
        "detectable_format:number_bullet_lists": lambda: f"Exactly {k['num_bullets']} markdown bullet points.",
        "detectable_format:constrained_response": lambda: ("Answer with one of: 'My answer is yes.', "
                                                           "'My answer is no.', 'My answer is maybe.'"),
        "detectable_format:number_highlighted_sections": lambda: (f"Highlight at least {k['num_highlights']} "
                                                                  "sections with markdown, *like this*."),
        "detectable_format:multiple_sections": lambda: (f"{k['num_sections']} sections, each starting with "
                                                        f"'{k['section_spliter']} X'."),
        "detectable_format:json_format": lambda: "The entire output is JSON (markdown ``` fences allowed).",
        "detectable_format:title": lambda: "Include a title in double angular brackets, such as <<poem of joy>>.",
        "combination:two_responses": lambda: "Give two different responses separated by ******.",
        "combination:repeat_prompt": lambda: "First repeat the request word for word, then answer.",
        "startend:end_checker": lambda: f"End the response with the exact phrase {k['end_phrase']!r}.",
        "change_case:capital_word_frequency": lambda: (f"Words in all capital letters appear "
                                                       f"{k['capital_relation']} {k['capital_frequency']} times."),
        "change_case:english_capital": lambda: "The entire response is in English and in capital letters.",
        "change_case:english_lowercase": lambda: "The entire response is in English and in lowercase letters.",
        "punctuation:no_comma": lambda: "Do not use any commas.",
        "startend:quotation": lambda: "Wrap the entire response in double quotation marks.",
    }
    return texts[instruction_id]()


def ifeval_to_evalset(rows: list[IFEvalRow]) -> tuple[list[EvalItem], list[RunRecord]]:
    """Each row as an eval item (one mechanical constraint per instruction, id "<n>:<instruction id>") and a run
    record holding the response."""
    items, runs = [], []
    for row in rows:
        item_id = f"ifeval-{row.key}"
        constraints = tuple(
            Constraint(id=f"{n}:{iid}", text=describe_instruction(iid, kwargs),
                       type="content" if iid in _CONTENT_IDS else "format",
                       check=Check(id=iid, args=dict(kwargs)))
            for n, (iid, kwargs) in enumerate(zip(row.instruction_id_list, row.kwargs), start=1)
        )
        items.append(EvalItem(id=item_id, instruction=row.prompt, constraints=constraints, source="IFEval"))
        model = row.response_model or "unknown"
        runs.append(RunRecord(id=f"{item_id}-{row.response_model or 'response'}", item_id=item_id, model=model,
                              output=row.response))
    return items, runs
