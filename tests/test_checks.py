"""Mechanical checkers: each passes and fails where its docstring says, through the registry's `run_check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgecal import evalsets
from judgecal.evalsets import Step, run_check, validate_check
from judgecal.evalsets._checks_text import count_sentences, count_words  # house: private
from judgecal.evalsets._docs import REGENERATE, checker_reference_markdown  # house: private

ROOT = Path(__file__).resolve().parent.parent

FENCED = '```json\n{"a": 1}\n```'

# (id, check, args, text, passed, detail fragment). The fragment is asserted to appear in the detail, so a failure
# that fails for the wrong reason is caught.
TEXT_CASES = [
    ("exact-pass-stripped", "text:exact_match", {"expected": "Paris"}, "  Paris\n", True, ""),
    ("exact-fail-case", "text:exact_match", {"expected": "Paris"}, "paris", False, "does not equal"),
    ("exact-pass-ignore-case", "text:exact_match", {"expected": "Paris", "case_sensitive": False}, "PARIS", True, ""),
    ("exact-fail-no-strip", "text:exact_match", {"expected": "Paris", "strip": False}, "Paris ", False, "Paris"),
    ("exact-fail-inner-space", "text:exact_match", {"expected": "New York"}, "New  York", False, ""),
    ("all-pass", "keywords:contains_all", {"keywords": ["refund", "days"]}, "Refund within 30 DAYS", True, ""),
    ("all-fail-lists-missing", "keywords:contains_all", {"keywords": ["refund", "days", "receipt"]},
     "refund in 30 days", False, "missing keyword(s): 'receipt'"),
    ("all-substring", "keywords:contains_all", {"keywords": ["cat"]}, "concatenate", True, ""),
    ("all-case-sensitive-fail", "keywords:contains_all", {"keywords": ["Refund"], "case_sensitive": True},
     "refund", False, "'Refund'"),
    ("all-chinese", "keywords:contains_all", {"keywords": ["退款"]}, "我们会在30天内退款。", True, ""),
    ("any-pass", "keywords:contains_any", {"keywords": ["yes", "sure"]}, "Sure thing", True, "'sure'"),
    ("any-fail", "keywords:contains_any", {"keywords": ["yes", "sure"]}, "No.", False, "none of the keywords"),
    ("forbidden-pass", "keywords:forbidden", {"words": ["price"]}, "It is priceless.", True, ""),
    ("forbidden-fail", "keywords:forbidden", {"words": ["price"]}, "The Price is right", False,
     "forbidden word 'price' found"),
    ("forbidden-fail-punct", "keywords:forbidden", {"words": ["price"]}, "ask about price.", False, "'price'"),
    ("forbidden-prefix-word", "keywords:forbidden", {"words": ["price"]}, "sprice", True, ""),
    ("forbidden-phrase", "keywords:forbidden", {"words": ["free trial"]}, "a free trial!", False, "'free trial'"),
    ("forbidden-symbol-edge", "keywords:forbidden", {"words": ["c++"]}, "I like c++.", False, "'c++'"),
    ("forbidden-chinese-inside", "keywords:forbidden", {"words": ["价格"]}, "请看价格表", False, "'价格'"),
    ("forbidden-case-sensitive", "keywords:forbidden", {"words": ["Price"], "case_sensitive": True}, "price", True,
     ""),
    ("forbidden-lists-all", "keywords:forbidden", {"words": ["a1", "b2", "c3"]}, "b2 and c3", False,
     "forbidden words 'b2', 'c3' found"),
    ("json-pass", "format:json", {"fenced": False}, ' {"a": [1, 2]} \n', True, ""),
    ("json-pass-scalar", "format:json", {"fenced": False}, "42", True, ""),
    ("json-fail-syntax", "format:json", {"fenced": False}, '{"a": 1,}', False, "not valid JSON"),
    ("json-fail-nan", "format:json", {"fenced": False}, '{"a": NaN}', False, "NaN"),
    ("json-fail-prose", "format:json", {"fenced": True}, 'Here: {"a": 1}', False, "not valid JSON"),
    ("json-fail-empty", "format:json", {"fenced": True}, "  ", False, "empty"),
    ("json-fence-not-allowed", "format:json", {"fenced": False}, FENCED, False, "fence"),
    ("json-fence-stripped", "format:json", {"fenced": True}, FENCED, True, ""),
    ("json-bare-fence", "format:json", {"fenced": True}, '```\n[1]\n```', True, ""),
    ("json-fence-crlf", "format:json", {"fenced": True}, '```json\r\n{"a": 1}\r\n```', True, ""),
    ("json-fence-one-line", "format:json", {"fenced": True}, '```json {"a": 1}```', False, "malformed fence"),
    ("json-fence-upper", "format:json", {"fenced": True}, '```JSON\n[1]\n```', True, ""),
    ("json-fenced-allows-bare", "format:json", {"fenced": True}, '{"a": 1}', True, ""),
    ("json-fence-other-lang", "format:json", {"fenced": True}, '```python\n[1]\n```', False, "malformed fence"),
    ("json-fence-trailing-text", "format:json", {"fenced": True}, FENCED + "\nHope this helps", False,
     "malformed fence"),
    ("fields-pass", "format:json_required_fields", {"fields": ["name", "user.city", "items.0.id"], "fenced": False},
     '{"name": null, "user": {"city": "Oslo"}, "items": [{"id": 1}]}', True, ""),
    ("fields-fail", "format:json_required_fields", {"fields": ["name", "user.zip", "items.1.id"], "fenced": False},
     '{"name": "x", "user": {"city": "Oslo"}, "items": [{"id": 1}]}', False, "missing field(s): 'user.zip', 'items.1.id'"),
    ("fields-fail-not-object", "format:json_required_fields", {"fields": ["a"], "fenced": False}, "[1]", False,
     "'a'"),
    ("fields-fail-not-json", "format:json_required_fields", {"fields": ["a"], "fenced": False}, "{a: 1}", False,
     "not valid JSON"),
    ("fields-fenced", "format:json_required_fields", {"fields": ["a"], "fenced": True}, FENCED, True, ""),
    ("type-string", "format:json_field_type", {"field": "a", "type": "string", "fenced": False}, '{"a": "1"}', True,
     ""),
    ("type-string-fail", "format:json_field_type", {"field": "a", "type": "string", "fenced": False}, '{"a": 1}',
     False, "field 'a' is integer, not string"),
    ("type-number-int", "format:json_field_type", {"field": "a", "type": "number", "fenced": False}, '{"a": 1}', True,
     ""),
    ("type-integer-float-whole", "format:json_field_type", {"field": "a", "type": "integer", "fenced": False},
     '{"a": 3.0}', True, ""),
    ("type-integer-fail", "format:json_field_type", {"field": "a", "type": "integer", "fenced": False},
     '{"a": 3.5}', False, "number, not integer"),
    ("type-boolean-not-int", "format:json_field_type", {"field": "a", "type": "integer", "fenced": False},
     '{"a": true}', False, "boolean"),
    ("type-boolean", "format:json_field_type", {"field": "a", "type": "boolean", "fenced": False}, '{"a": false}',
     True, ""),
    ("type-null", "format:json_field_type", {"field": "a.b", "type": "null", "fenced": False}, '{"a": {"b": null}}',
     True, ""),
    ("type-array", "format:json_field_type", {"field": "a", "type": "array", "fenced": True}, '```json\n{"a": []}\n```',
     True, ""),
    ("type-object-fail", "format:json_field_type", {"field": "a", "type": "object", "fenced": False}, '{"a": []}',
     False, "array, not object"),
    ("type-missing", "format:json_field_type", {"field": "b", "type": "string", "fenced": False}, '{"a": "x"}',
     False, "missing field 'b'"),
    ("regex-pass", "text:regex", {"pattern": r"\d{3}-\d{4}"}, "call 555-1234", True, ""),
    ("regex-fail", "text:regex", {"pattern": r"\d{3}-\d{4}"}, "call me", False, "not found"),
    ("regex-must-not-pass", "text:regex", {"pattern": "sorry", "must_match": False}, "Here you go", True, ""),
    ("regex-must-not-fail", "text:regex", {"pattern": "sorry", "must_match": False, "flags": "i"}, "SORRY!", False,
     "found: 'SORRY'"),
    ("regex-flag-m", "text:regex", {"pattern": "^b$", "flags": "m"}, "a\nb\nc", True, ""),
    ("regex-no-flag-m", "text:regex", {"pattern": "^b$"}, "a\nb\nc", False, "not found"),
    ("prefix-pass", "text:prefix", {"value": "Answer:"}, "\n  Answer: 4", True, ""),
    ("prefix-fail", "text:prefix", {"value": "Answer:"}, "The answer: 4", False, "not 'Answer:'"),
    ("prefix-case", "text:prefix", {"value": "Answer:"}, "answer: 4", False, ""),
    ("suffix-pass", "text:suffix", {"value": "Thanks."}, "Done. Thanks.\n\n", True, ""),
    ("suffix-fail", "text:suffix", {"value": "Thanks."}, "Thanks. Done.", False, "ends with '. Done.'"),
    ("max-sentences-pass", "length:max_sentences", {"n": 2}, "One. Two!", True, ""),
    ("max-sentences-fail", "length:max_sentences", {"n": 2}, "One. Two! Three?", False, "3 sentence(s)"),
    ("max-sentences-decimal", "length:max_sentences", {"n": 1}, "Pi is 3.14 roughly.", True, ""),
    ("max-sentences-chinese-fail", "length:max_sentences", {"n": 1}, "你好。今天天气很好！", False, "2 sentence(s)"),
    ("min-sentences-pass", "length:min_sentences", {"n": 2}, "One. And a fragment", True, ""),
    ("min-sentences-fail", "length:min_sentences", {"n": 2}, "Only one.", False, "1 sentence(s), at least 2"),
    ("max-words-pass", "length:max_words", {"n": 3}, "one, two; three.", True, ""),
    ("max-words-fail", "length:max_words", {"n": 3}, "one two three four", False, "4 word(s), at most 3"),
    ("max-words-chinese-fail", "length:max_words", {"n": 5}, "我们今天去北京", False, "7 word(s)"),
    ("min-words-pass", "length:min_words", {"n": 2}, "hello world", True, ""),
    ("min-words-chinese-pass", "length:min_words", {"n": 4}, "我喜欢猫", True, ""),
    ("min-words-fail", "length:min_words", {"n": 2}, "hello!!!", False, "1 word(s), at least 2"),
    ("numeric-pass", "answer:numeric_after_marker", {"marker": "Answer:", "expected": 42}, "so... Answer: 42", True,
     ""),
    ("numeric-last-marker", "answer:numeric_after_marker", {"marker": "Answer:", "expected": 7},
     "Answer: 5 is wrong.\nAnswer: 7", True, ""),
    ("numeric-decorated", "answer:numeric_after_marker", {"marker": "Answer:", "expected": 1234.5},
     "Answer: **$1,234.50**", True, ""),
    ("numeric-next-line", "answer:numeric_after_marker", {"marker": "Answer:", "expected": -3}, "Answer:\n  -3",
     True, ""),
    ("numeric-fail-value", "answer:numeric_after_marker", {"marker": "Answer:", "expected": 42}, "Answer: 41", False,
     "answer 41 after 'Answer:' is not 42"),
    ("numeric-tolerance-pass", "answer:numeric_after_marker", {"marker": "=", "expected": 3.14, "tolerance": 0.01},
     "pi = 3.1416", True, ""),
    ("numeric-tolerance-fail", "answer:numeric_after_marker", {"marker": "=", "expected": 3.14, "tolerance": 0.001},
     "pi = 3.1416", False, "within 0.001"),
    ("numeric-no-marker", "answer:numeric_after_marker", {"marker": "Answer:", "expected": 1}, "1", False,
     "marker 'Answer:' not found"),
    ("numeric-no-number", "answer:numeric_after_marker", {"marker": "Answer:", "expected": 1},
     "Answer: unknown\n1", False, "no number after marker"),
]


@pytest.mark.parametrize("check_id,args,text,passed,detail", [c[1:] for c in TEXT_CASES],
                         ids=[c[0] for c in TEXT_CASES])
def test_text_checker(check_id, args, text, passed, detail):
    result = run_check(check_id, args, text=text)
    assert result.passed is passed, result.detail
    assert detail in result.detail
    assert result.bad_steps == ()


def test_every_text_and_trajectory_checker_has_a_pass_and_a_fail_case():
    # IFEval's checkers are tested against the official verdicts elsewhere.
    modules = {"judgecal.evalsets._checks_text", "judgecal.evalsets._checks_trajectory"}
    mine = {i for i, s in evalsets.checkers().items() if s.func.__module__ in modules}
    assert len(mine) == 21
    outcomes: dict[str, set[bool]] = {}
    for case in TEXT_CASES:
        outcomes.setdefault(case[1], set()).add(case[4])
    for case in TRAJECTORY_CASES:
        outcomes.setdefault(case[1], set()).add(case[4])
    lacking = sorted(i for i in mine if outcomes.get(i) != {True, False})
    assert not lacking, f"checkers without both a passing and a failing case: {lacking}"


@pytest.mark.parametrize("text,words", [
    ("", 0),
    ("Hello, world!", 2),
    ("don't", 2),
    ("state-of-the-art", 4),
    ("3.14", 2),
    ("我喜欢Python", 4),
    ("我们今天去北京。", 7),
    ("日本語のテキスト", 8),
    ("Hello 世界", 3),
    ("안녕하세요 세계", 2),
    ("🙂 ...", 0),
], ids=["empty", "english", "apostrophe", "hyphens", "decimal", "chinese-mixed", "chinese", "japanese",
        "mixed-space", "korean-spaced", "no-words"])
def test_count_words(text, words):
    assert count_words(text) == words


@pytest.mark.parametrize("text,sentences", [
    ("", 0),
    ("No full stop", 1),
    ("One. Two. Three.", 3),
    ("Wait... what?!", 2),
    ('He said "Stop." Then left.', 2),
    ("Version 2.0 is out.", 1),
    ("e.g. this splits", 2),
    ("第一句。第二句！第三句？", 3),
    ("...", 0),
    ("Line one\nline two.", 1),
], ids=["empty", "fragment", "three", "ellipsis", "closing-quote", "decimal", "abbreviation", "chinese",
        "dots-only", "newline-no-split"])
def test_count_sentences(text, sentences):
    assert count_sentences(text) == sentences


def T(*spec: str) -> tuple[Step, ...]:
    """Trajectory shorthand: 'think', 'act:TOOL', 'act:TOOL=result' (result on the action), 'obs', 'final'."""
    steps = []
    for s in spec:
        if s == "think":
            steps.append(Step(type="thought", text="hmm"))
        elif s == "obs":
            steps.append(Step(type="observation", text="tool said"))
        elif s == "final":
            steps.append(Step(type="final_answer", text="done"))
        elif s.startswith("act:"):
            tool, _, result = s[4:].partition("=")
            steps.append(Step(type="action", tool=tool, args={}, result=result or None))
        else:
            raise AssertionError(f"bad step spec {s!r}")
    return tuple(steps)


# (id, check, args, trajectory, passed, bad_steps, detail fragment)
TRAJECTORY_CASES = [
    ("must-call-pass", "trajectory:must_call", {"tool": "search"}, T("think", "act:search", "obs", "final"), True,
     (), ""),
    ("must-call-fail", "trajectory:must_call", {"tool": "search"}, T("think", "act:lookup", "obs", "final"), False,
     (), "'search' was never called"),
    ("must-call-empty", "trajectory:must_call", {"tool": "search"}, T(), False, (), "never called"),
    ("order-pass", "trajectory:tool_order", {"before": "search", "after": "book"},
     T("act:search", "obs", "act:book", "obs", "final"), True, (), ""),
    ("order-fail", "trajectory:tool_order", {"before": "search", "after": "book"},
     T("act:book", "obs", "act:search", "obs", "act:book", "obs", "final"), False, (0,),
     "'book' called at step(s) [0] before any call of 'search'"),
    ("order-fail-never-before", "trajectory:tool_order", {"before": "search", "after": "book"},
     T("act:book", "act:book", "final"), False, (0, 1), ""),
    ("order-neither-called", "trajectory:tool_order", {"before": "search", "after": "book"}, T("think", "final"),
     True, (), ""),
    ("order-only-before", "trajectory:tool_order", {"before": "search", "after": "book"}, T("act:search", "final"),
     True, (), ""),
    ("final-pass", "trajectory:final_after_observation", {}, T("act:search", "obs", "final"), True, (), ""),
    ("final-pass-result-on-action", "trajectory:final_after_observation", {}, T("act:search=3 hits", "final"), True,
     (), ""),
    ("final-fail", "trajectory:final_after_observation", {}, T("think", "final", "act:search", "obs", "final"),
     False, (1,), "final answer at step(s) [1] with no observation"),
    ("final-fail-action-without-result", "trajectory:final_after_observation", {}, T("act:search", "final"), False,
     (1,), ""),
    ("final-none", "trajectory:final_after_observation", {}, T("think"), True, (), ""),
    ("max-steps-pass", "trajectory:max_steps", {"n": 3}, T("act:a", "obs", "final"), True, (), ""),
    ("max-steps-fail", "trajectory:max_steps", {"n": 3}, T("think", "act:a", "obs", "act:b", "obs", "final"), False,
     (3, 4, 5), "6 step(s), at most 3"),
    ("forbidden-tool-pass", "trajectory:forbidden_tool", {"tool": "delete"}, T("act:search", "obs", "final"), True,
     (), ""),
    ("forbidden-tool-fail", "trajectory:forbidden_tool", {"tool": "delete"},
     T("act:delete", "obs", "act:search", "act:delete", "final"), False, (0, 3), "'delete' called at step(s) [0, 3]"),
    ("allowed-pass", "trajectory:allowed_tools", {"tools": ["search", "book"]}, T("act:search", "act:book", "final"),
     True, (), ""),
    ("allowed-fail", "trajectory:allowed_tools", {"tools": ["search"]},
     T("act:search", "act:pay", "obs", "act:email", "act:pay", "final"), False, (1, 3, 4),
     "'email', 'pay' not allowed"),
    ("allowed-empty-list", "trajectory:allowed_tools", {"tools": []}, T("act:search", "final"), False, (0,), ""),
    ("allowed-no-calls", "trajectory:allowed_tools", {"tools": []}, T("think", "final"), True, (), ""),
]


@pytest.mark.parametrize("check_id,args,trajectory,passed,bad_steps,detail", [c[1:] for c in TRAJECTORY_CASES],
                         ids=[c[0] for c in TRAJECTORY_CASES])
def test_trajectory_checker(check_id, args, trajectory, passed, bad_steps, detail):
    result = run_check(check_id, args, text="", trajectory=trajectory)
    assert result.passed is passed, result.detail
    assert result.bad_steps == bad_steps
    assert detail in result.detail


def test_trajectory_checkers_ignore_loose_mode():
    traj = T("act:delete", "final")
    assert run_check("trajectory:forbidden_tool", {"tool": "delete"}, text="x", trajectory=traj, loose=True).bad_steps \
        == (0,)


@pytest.mark.parametrize("check_id,args,message", [
    ("keywords:contains_all", {}, "missing argument(s): keywords"),
    ("format:json", {}, "missing argument(s): fenced"),
    ("format:json_field_type", {"field": "a", "fenced": True}, "missing argument(s): type"),
    ("answer:numeric_after_marker", {"marker": "A:"}, "missing argument(s): expected"),
    ("trajectory:tool_order", {"before": "a"}, "missing argument(s): after"),
    ("trajectory:max_steps", {}, "missing argument(s): n"),
    ("keywords:forbidden", {"words": ["x"], "whole_word": True}, "has no argument(s): whole_word"),
    ("text:regex", {"pattern": "x", "flag": "i"}, "has no argument(s): flag"),
    ("trajectory:final_after_observation", {"n": 1}, "has no argument(s): n"),
    ("text:nonexistent", {}, "unknown checker 'text:nonexistent'"),
], ids=["contains-all-no-keywords", "json-no-fenced", "field-type-no-type", "numeric-no-expected",
        "order-no-after", "max-steps-no-n", "forbidden-unknown", "regex-typo", "final-unexpected", "unknown-id"])
def test_validate_check_rejects(check_id, args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_check(check_id, args)


def test_missing_argument_rejected_when_parsing_an_eval_set():
    with pytest.raises(ValueError, match="fenced"):
        evalsets.Check(id="format:json", args={})


# Argument values of the wrong kind: an error naming the argument, never a silent pass or fail.
@pytest.mark.parametrize("check_id,args,name", [
    ("keywords:contains_all", {"keywords": "refund"}, "keywords"),
    ("keywords:contains_any", {"keywords": []}, "keywords"),
    ("keywords:forbidden", {"words": ["ok", ""]}, "words"),
    ("format:json", {"fenced": "yes"}, "fenced"),
    ("format:json_required_fields", {"fields": ["a..b"], "fenced": False}, "fields"),
    ("format:json_field_type", {"field": "a", "type": "float", "fenced": False}, "type"),
    ("text:regex", {"pattern": "("}, "invalid pattern"),
    ("text:regex", {"pattern": "a", "flags": "q"}, "unknown flag"),
    ("text:prefix", {"value": " A"}, "value"),
    ("text:suffix", {"value": ""}, "value"),
    ("length:max_words", {"n": -1}, "'n'"),
    ("length:min_sentences", {"n": 2.5}, "'n'"),
    ("length:max_sentences", {"n": True}, "'n'"),
    ("answer:numeric_after_marker", {"marker": "A:", "expected": "4"}, "expected"),
    ("answer:numeric_after_marker", {"marker": "A:", "expected": 4, "tolerance": -1}, "tolerance"),
    ("text:exact_match", {"expected": 4}, "expected"),
], ids=["keywords-string", "keywords-empty", "words-empty-item", "fenced-string", "empty-path-segment",
        "unknown-json-type", "bad-regex", "bad-flag", "prefix-leading-space", "suffix-empty", "negative-n",
        "fractional-n", "bool-n", "expected-string", "negative-tolerance", "expected-not-string"])
def test_bad_argument_values_raise(check_id, args, name):
    with pytest.raises(ValueError, match=name.replace("(", r"\(")):
        run_check(check_id, args, text="A: 4")


@pytest.mark.parametrize("check_id,args", [
    ("trajectory:must_call", {"tool": ""}),
    ("trajectory:tool_order", {"before": "a", "after": "a"}),
    ("trajectory:max_steps", {"n": -2}),
    ("trajectory:forbidden_tool", {"tool": None}),
    ("trajectory:allowed_tools", {"tools": "search"}),
], ids=["empty-tool", "same-tool", "negative-n", "tool-none", "tools-string"])
def test_bad_trajectory_argument_values_raise(check_id, args):
    with pytest.raises(ValueError, match=check_id):
        run_check(check_id, args, text="", trajectory=T("act:a", "final"))


def test_every_checker_has_a_docstring():
    specs = evalsets.checkers()
    assert specs
    undocumented = sorted(i for i, s in specs.items() if not s.doc.strip())
    assert not undocumented


def test_checker_reference_is_up_to_date():
    committed = (ROOT / "docs" / "checkers.md").read_text(encoding="utf-8")
    assert committed == checker_reference_markdown(), (
        f"docs/checkers.md is out of date with the checker registry; regenerate it with `{REGENERATE}`"
    )


def test_checker_reference_lists_every_checker_with_its_arguments():
    doc = checker_reference_markdown()
    for checker_id, spec in evalsets.checkers().items():
        assert f"### `{checker_id}`" in doc
        for arg in spec.required:
            assert f"`{arg}` (required)" in doc


_ascii_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789_", min_size=1, max_size=8)


@given(words=st.lists(_ascii_word, max_size=20), sep=st.sampled_from([" ", ", ", "\n", " - ", "... "]))
def test_word_count_of_separated_words(words, sep):
    assert count_words(sep.join(words)) == len(words)


@given(chars=st.text(alphabet="我们你他好天气北京东西日本語", max_size=30))
def test_each_chinese_character_is_a_word(chars):
    assert count_words(chars) == len(chars)
    assert run_check("length:max_words", {"n": len(chars)}, text=chars).passed
    assert run_check("length:min_words", {"n": len(chars) + 1}, text=chars).passed is False


@given(word=_ascii_word, left=st.sampled_from(["", " ", "(", "x "]), right=st.sampled_from(["", " ", ".", "!"]))
def test_forbidden_word_found_between_non_word_characters(word, left, right):
    assert not run_check("keywords:forbidden", {"words": [word]}, text=f"{left}{word}{right}").passed
    assert run_check("keywords:forbidden", {"words": [word]}, text=f"a{word}b").passed


# A record that gave no answer fails every check (`unanswered`; a review, wave 17): an agent run that ended in an
# error after some tool calls kept a partial trajectory, so it was not a failed run, and every check passed on its
# empty text — forbidden words absent, word limits met, the tool it called with unparsable arguments "called".
NO_ANSWER_CHECKS = [
    {"id": "keywords:forbidden", "args": {"words": ["price"]}},
    {"id": "length:max_words", "args": {"n": 50}},
    {"id": "text:regex", "args": {"pattern": "sorry", "must_match": False}},
    {"id": "trajectory:must_call", "args": {"tool": "search"}},
    {"id": "trajectory:final_after_observation", "args": {}},
]


@pytest.mark.parametrize("record", [
    {"output": None, "error": "parse_failure: search arguments are not a JSON object",
     "trajectory": [{"type": "action", "tool": "search", "args": {}}]},
    {"output": None, "error": "loop: the same call 3 times",
     "trajectory": [{"type": "action", "tool": "search", "args": {}}, {"type": "observation", "text": "r"}] * 3},
    {"output": None, "error": "timeout: no answer within 30 s",
     "trajectory": [{"type": "action", "tool": "search", "args": {}}, {"type": "observation", "text": "r"}]},
    {"output": ""},
    {"output": " \n\t "},
    {"output": "\u200b\u00ad\u2060\ufeff\u3164\u2800"},
    {"output": None, "trajectory": [{"type": "action", "tool": "search", "args": {}},
                                    {"type": "observation", "text": "r"}, {"type": "final_answer", "text": "  "}]},
], ids=["parse-failure", "loop", "timeout", "empty", "whitespace", "invisible", "empty-final-answer"])
def test_a_record_without_an_answer_fails_every_check(tmp_path, record):
    from judgecal import annotations as ann
    from judgecal.cli import main
    item = {"id": "i1", "instruction": "Find it.", "constraints": [
        {"id": f"c{k}", "text": "a check", "type": "format", "check": check} for k, check in enumerate(NO_ANSWER_CHECKS)]}
    rec = {"id": "r1", "item_id": "i1", "model": "m", "run_id": "R", **record}
    parsed = evalsets.RunRecord.model_validate(rec)
    for c in evalsets.EvalItem.model_validate(item).constraints:
        result = evalsets.check_record(c.check, parsed)
        assert not result.passed and result.detail.startswith("no answer"), (c.check.id, result)
    db = tmp_path / "p.db"
    for kind, row in (("evalset", item), ("runs", rec)):
        path = tmp_path / f"{kind}.jsonl"
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        assert main(["--db", str(db), "import", kind, str(path)]) == 0
    assert main(["--db", str(db), "check"]) == 0
    with ann.unit_of_work(db) as conn:
        assert conn.execute("SELECT count(*), sum(passed) FROM check_results").fetchone() == (5, 0)
    assert main(["--db", str(db), "gate", "--run", "R", "--min-check-pass-rate", "0.01"]) == 1


def test_a_truncated_answer_is_checked_as_it_is():
    parsed = evalsets.RunRecord.model_validate({"id": "r1", "item_id": "i1", "model": "m", "output": "It costs",
                                                "error": "truncated: finish_reason length"})
    check = evalsets.Check(id="keywords:forbidden", args={"words": ["price"]})
    assert evalsets.check_record(check, parsed).passed
