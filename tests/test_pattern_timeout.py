"""An eval set's own regular expressions are matched with a time limit (wave 18, left open by wave 17's review of the
checks): a catastrophic pattern in `text:regex` or an IFEval keyword fails its check as a checker error naming the
pattern instead of hanging `judgecal check` (the standard library's `re` backtracks for minutes and cannot be
interrupted). Each test fails on the code before the fix by running past pytest's budget for it: the catastrophic
case is sized so that `re` takes minutes and the time limit a second."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from pathlib import Path

import pytest

from judgecal.cli import main
from judgecal.evalsets import run_check
from judgecal.evalsets import _patterns as patterns  # house: private

# `re` backtracks through ~1.6^n ways to split n a's before the b: 0.15 s at 28 characters, minutes at 44 (`regex`
# too: it only stops at its time limit)
CATASTROPHIC = r"(a|aa)+$"
HOSTILE_OUTPUT = "a" * 44 + "b"


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(patterns, "PATTERN_SECONDS", 0.2)


def test_a_catastrophic_regex_fails_its_check_as_a_checker_error_within_the_limit(tmp_path, capsys, short_limit):
    db = tmp_path / "p.db"
    item = {"id": "i1", "instruction": "x", "constraints": [
        {"id": "c1", "text": "no y", "type": "format", "check": {"id": "text:regex",
                                                                 "args": {"pattern": CATASTROPHIC, "must_match": False}}},
        {"id": "c2", "text": "short", "type": "format", "check": {"id": "length:max_words", "args": {"n": 5}}}]}
    runs = [{"id": "r1", "item_id": "i1", "model": "m", "run_id": "A", "output": HOSTILE_OUTPUT},
            {"id": "r2", "item_id": "i1", "model": "m", "run_id": "A", "output": "all fine"}]
    assert main(["--db", str(db), "import", "evalset", str(_write(tmp_path / "es.jsonl", [item]))]) == 0
    assert main(["--db", str(db), "import", "runs", str(_write(tmp_path / "runs.jsonl", runs))]) == 0
    capsys.readouterr()
    started = time.monotonic()
    assert main(["--db", str(db), "check"]) == 0
    assert time.monotonic() - started < 30  # (`re` alone: minutes)
    out = capsys.readouterr().out
    assert "1 check(s) could not run and are stored as failed" in out
    assert "record 'r1', constraint 'c1' (text:regex): checker error" in out
    assert "PatternTimeout" in out and repr(CATASTROPHIC) in out and "took longer than 0.2 s" in out
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT run_record_id, constraint_id, passed FROM check_results ORDER BY 1, 2").fetchall()
    # the hostile output's `must_match: false` check is a fail, never a pass; every other check is stored as usual
    assert rows == [("r1", "c1", 0), ("r1", "c2", 1), ("r2", "c1", 1), ("r2", "c2", 1)]
    assert main(["--db", str(db), "gate", "--run", "A", "--min-check-pass-rate", "0.9"]) == 1


@pytest.mark.parametrize("check_id,args", [
    ("keywords:existence", {"keywords": [CATASTROPHIC]}),
    ("keywords:frequency", {"keyword": CATASTROPHIC, "frequency": 1, "relation": "at least"}),
    ("keywords:forbidden_words", {"forbidden_words": [CATASTROPHIC]}),
    ("detectable_content:postscript", {"postscript_marker": CATASTROPHIC}),
    ("detectable_format:multiple_sections", {"section_spliter": CATASTROPHIC, "num_sections": 1}),
])
def test_ifevals_unescaped_patterns_are_time_limited(check_id, args, short_limit):
    started = time.monotonic()
    with pytest.raises(patterns.PatternTimeout, match=re.escape(CATASTROPHIC)):  # (within what IFEval adds)
        run_check(check_id, args, text=HOSTILE_OUTPUT)
    assert time.monotonic() - started < 10


def test_patterns_mean_what_re_says():
    # matched by `regex` in its re-compatible mode: the same matches, groups and splits as `re` on ordinary patterns
    text = "The PRICE is 40.\nP.S. call us\nSection 1 intro SECTION 2 more\nprice, price"
    for pattern, flags in [(r"\bprice\b", re.IGNORECASE), (r"\s*p\.\s?s\..*$", re.MULTILINE), ("(pr)(ice)", 0),
                           (r"^\w+", re.MULTILINE), (r"a.b", re.DOTALL), (r"[0-9]+ # digits", re.VERBOSE)]:
        assert patterns.findall(pattern, text.lower() if flags == re.MULTILINE else text, flags) == re.findall(
            pattern, text.lower() if flags == re.MULTILINE else text, flags)
        assert bool(patterns.search(pattern, text, flags)) == bool(re.search(pattern, text, flags))
    assert patterns.split(r"\s?Section\s?\d+\s?", text) == re.split(r"\s?Section\s?\d+\s?", text)
    with pytest.raises(re.error):  # what `re` rejects stays rejected, with re's message
        patterns.search("(unclosed", "x")


# `re` itself warns that `[[:alpha:]]` may one day mean a nested set: the very reading this test pins for today
@pytest.mark.filterwarnings("ignore:Possible nested set:FutureWarning")
def test_what_re_reads_as_a_literal_is_not_regex_syntax(tmp_path, capsys):
    # A review of the time limit (wave 18): `regex` reads some patterns `re` accepts as its own syntax, even in its
    # re-compatible mode V0. `x_{i}` (a LaTeX subscript) is a fuzzy match there ("x_" with any insertions), so
    # `must_match` passed on an answer with no brace in it; `{e}` was an error (every record a checker error); a
    # `[` in a set began a POSIX class; in verbose mode `{1, 2}` was a repeat.
    assert not run_check("text:regex", {"pattern": "x_{i}"}, text="the sum over x_ only").passed
    assert run_check("text:regex", {"pattern": "x_{i}"}, text="the sum over x_{i}").passed
    assert run_check("text:regex", {"pattern": "x_{i}", "must_match": False}, text="the sum over x_ only").passed
    assert run_check("text:regex", {"pattern": "{e}"}, text="Euler's {e}").passed
    assert not run_check("text:regex", {"pattern": r"^[[:alpha:]]+$"}, text="word").passed
    assert run_check("text:regex", {"pattern": r"^[[:alpha:]]+$"}, text=":]]").passed  # (re: `[:alph` once, `]`s)
    assert not run_check("text:regex", {"pattern": "a{1, 2}", "flags": "x"}, text="a").passed
    assert run_check("keywords:existence", {"keywords": ["colour{e<=1}"]}, text="colour{e<=1}").passed
    assert not run_check("keywords:existence", {"keywords": ["colour{e<=1}"]}, text="color").passed
    assert run_check("keywords:forbidden_words", {"forbidden_words": ["bad{s}"]}, text="a sad day").passed
    # what `re` reads as a repeat stays one, comments stay comments
    for pattern, flags, text in [("a{2}", 0, "caab"), ("a{,2}b", 0, "aaab"), ("(?#[)x{e}", 0, "x{e}"),
                                 ("a{2} # {e} [x", re.VERBOSE, "aa"), (r"\N{DIGIT ONE}{e}", 0, "1{e}"),
                                 ("(?x: a{1, 2})b", 0, "a{1,2}b"), (r"[]{e}[]", 0, "{")]:
        assert [m.span() for m in patterns._compiled(pattern, flags).finditer(text)] == [  # house: private
            m.span() for m in re.finditer(pattern, text, flags)], pattern
    db = tmp_path / "p.db"
    item = {"id": "i1", "instruction": "x", "constraints": [
        {"id": "c1", "text": "names the index", "type": "format",
         "check": {"id": "text:regex", "args": {"pattern": "x_{i}"}}}]}
    runs = [{"id": "r1", "item_id": "i1", "model": "m", "run_id": "A", "output": "the sum over x_ only"}]
    assert main(["--db", str(db), "import", "evalset", str(_write(tmp_path / "es.jsonl", [item]))]) == 0
    assert main(["--db", str(db), "import", "runs", str(_write(tmp_path / "runs.jsonl", runs))]) == 0
    assert main(["--db", str(db), "check"]) == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT passed FROM check_results").fetchall() == [(0,)]


# Characters where Unicode's word and space properties (regex's) and str.isalnum / str.isspace (re's) disagree, and
# ordinary ones around them.
_TRICKY = ["x", "y", "é", "e\u0301", "\u0301", "²", "½", "_", "-", " ", "\x1c", "\x1f", "\u00a0", "\u2028", "\u200d",
           "٣", "ß", "Ω", "\t", "\n", "1", ".", "ſ"]
_CLASS_PATTERNS = [r"\bx\b", r"\w+", r"\W+", r"\s+", r"\S+", r"[\w-]+", r"[^\w\s]+", r"\Bx", r"x\B", r"\b\w+\b",
                   r"[\s\d]+", r"(?a:\w+)\w", r"\be\b", r"(?i)\bX\b", r"[\S]{2}"]


@pytest.mark.parametrize("pattern", _CLASS_PATTERNS)
def test_word_and_space_classes_mean_what_re_says(pattern):
    # A review of the time limit (wave 18): regex's \w leaves out "²" and "½" and takes in combining marks, its \s
    # leaves out U+001C-U+001F, so \b moved beside them: `\bx\b` was found in "x² + 1", a forbidden `cafe` missed in
    # a decomposed "café". They are now re's own classes (`_re_set`), compared here on strings of those characters.
    rng = random.Random(pattern)
    for _ in range(300):
        text = "".join(rng.choice(_TRICKY) for _ in range(rng.randint(1, 12)))
        assert patterns.findall(pattern, text) == re.findall(pattern, text), (pattern, text)
        assert bool(patterns.search(pattern, text)) == bool(re.search(pattern, text)), (pattern, text)


def test_the_review_cases_of_word_boundaries():
    assert patterns.search(r"\bx\b", "x² + 1") is None  # re: "x²" is one word
    assert run_check("keywords:forbidden_words", {"forbidden_words": ["cafe"]}, text="a cafe\u0301 here").passed is False
