"""Checks that passed what they should fail (a review of the mechanical checks, wave 17): loose mode on checkers
that are not IFEval's, Unicode tricks around forbidden words, field paths and checkers that raise at check time,
JSON looser than strict JSON, numbers read loosely after a marker. Each test fails on the code before its fix."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from judgecal import evalsets
from judgecal.cli import main
from judgecal.evalsets import run_check

# The review's loose-mode cases: each output breaks the check, and loose mode (dropping the first or last line)
# made it pass.
LOOSE_CASES = [
    ("keywords:forbidden", {"words": ["price"]}, "The price is $40.\nAnything else?"),
    ("keywords:forbidden", {"words": ["price"]}, "Hello!\nThe price is $40."),
    ("text:regex", {"pattern": "competitor", "must_match": False}, "Try our competitor.\nBye"),
    ("format:json", {"fenced": False}, 'Sure, here it is:\n{"a": 1}\nHope that helps!'),
    ("length:max_words", {"n": 5}, "one two three four five six seven eight nine ten eleven twelve\nok"),
    ("text:exact_match", {"expected": "42"}, "The answer is\n42"),
]


def _item(check: dict, item_id: str = "i1") -> dict:
    return {"id": item_id, "instruction": "x", "constraints": [{"id": "c1", "text": "t", "type": "format",
                                                               "check": check}]}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("check_id,args,text", LOOSE_CASES)
def test_loose_mode_applies_only_to_ifevals_checkers(check_id, args, text):
    assert not run_check(check_id, args, text=text, loose=True).passed
    # IFEval's checkers keep it: the last line is dropped, and the rest has no comma
    assert run_check("punctuation:no_comma", {}, text="No commas here\nP.S. yes, one", loose=True).passed


@pytest.mark.parametrize("check_id,args,text", LOOSE_CASES)
def test_loose_on_a_checker_that_is_not_ifevals_is_refused_on_import(tmp_path, capsys, check_id, args, text):
    db = tmp_path / "p.db"
    good = _item({"id": "punctuation:no_comma", "args": {}, "loose": True}, "ok")
    path = _write(tmp_path / "es.jsonl", [good, _item({"id": check_id, "args": args, "loose": True}, "bad")])
    assert main(["--db", str(db), "import", "evalset", str(path)]) == 2
    err = capsys.readouterr().err
    assert "es.jsonl:2: constraints.0.check.loose:" in err and "loose mode is IFEval's" in err and check_id in err
    assert "es.jsonl:1" not in err
    assert not db.exists()  # nothing imported: the new project is not even left behind
    with pytest.raises(ValueError, match="loose mode is IFEval's"):
        evalsets.EvalItem.model_validate(_item({"id": check_id, "args": args, "loose": True}))


def test_a_stored_loose_check_on_another_checker_still_loads_runs_strictly_and_is_named(tmp_path, capsys):
    # A project that stored such a check before the rule: its items load, `judgecal check` checks strictly (the
    # forbidden word on the first line fails) and names the constraint whose loose flag was ignored.
    from judgecal import annotations as ann

    db = tmp_path / "p.db"
    check = {"id": "keywords:forbidden", "args": {"words": ["price"]}}
    assert main(["--db", str(db), "import", "evalset", str(_write(tmp_path / "es.jsonl", [_item(check)]))]) == 0
    runs = [{"id": "r1", "item_id": "i1", "model": "m", "run_id": "R", "output": LOOSE_CASES[0][2]}]
    assert main(["--db", str(db), "import", "runs", str(_write(tmp_path / "runs.jsonl", runs))]) == 0
    with sqlite3.connect(db) as conn:  # what an older judgecal stored
        conn.execute("UPDATE constraints SET check_json = ?", [json.dumps({**check, "loose": True})])
    with ann.unit_of_work(db) as conn:
        assert ann.load_items(conn)["i1"].constraints[0].check.loose
    capsys.readouterr()
    assert main(["--db", str(db), "check"]) == 0
    out = capsys.readouterr().out
    assert "loose mode was ignored" in out and "item 'i1', constraint 'c1' (keywords:forbidden)" in out
    with ann.unit_of_work(db) as conn:
        assert conn.execute("SELECT passed, loose FROM check_results").fetchone() == (0, 1)


# --- field paths and checkers that raise at check time --------------------------------------------------------------


@pytest.mark.parametrize("field", ["a.²", "a.１", "a.١"])
def test_only_ascii_digits_index_an_array(field):
    # '²' passed str.isdigit() and then int() raised; '１' (full-width) and '١' (Arabic-Indic) indexed the array.
    for type_ in ("integer", "number"):
        result = run_check("format:json_field_type", {"field": field, "type": type_, "fenced": False},
                           text='{"a": [4, 5, 6]}')
        assert not result.passed and "missing field" in result.detail
    assert not run_check("format:json_required_fields", {"fields": [field], "fenced": False},
                         text='{"a": [4, 5, 6]}').passed
    assert run_check("format:json_field_type", {"field": "a.1", "type": "integer", "fenced": False},
                     text='{"a": [4, 5, 6]}').passed


def _project(tmp_path: Path, checks: list[dict], outputs: list[str]) -> Path:
    db = tmp_path / "p.db"
    item = {"id": "j", "instruction": "json", "constraints": [
        {"id": f"c{k}", "text": "t", "type": "format", "check": check} for k, check in enumerate(checks)]}
    runs = [{"id": f"r{n}", "item_id": "j", "model": "m", "run_id": "A", "output": out}
            for n, out in enumerate(outputs)]
    assert main(["--db", str(db), "import", "evalset", str(_write(tmp_path / "es.jsonl", [item]))]) == 0
    assert main(["--db", str(db), "import", "runs", str(_write(tmp_path / "runs.jsonl", runs))]) == 0
    return db


def test_judgecal_check_stores_a_path_segment_that_is_not_an_ascii_digit_as_a_fail(tmp_path, capsys):
    # The review's make_proj2.py: the eval set imported, then `judgecal check` died with a traceback.
    db = _project(tmp_path, [{"id": "format:json_field_type", "args": {"field": "a.²", "type": "integer",
                                                                         "fenced": False}}], ['{"a": [1, 2, 3]}'])
    assert main(["--db", str(db), "check"]) == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT passed, detail FROM check_results").fetchall() == [(0, "missing field 'a.²'")]


def test_a_checker_that_raises_at_check_time_fails_its_check_and_is_named(tmp_path, capsys, monkeypatch):
    # Any checker bug (a plugin's, or one of ours on a hostile output) that slips past the import's dry run: the
    # check fails with the error as its detail, every other check is stored, and `judgecal check` names the item,
    # record and constraint; the run gate reads the fail instead of stopping with a bare error.
    from judgecal.evalsets import _checks_text  # house: private

    def boom(value, path):
        raise RuntimeError("checker bug")

    db = _project(tmp_path, [{"id": "format:json_field_type", "args": {"field": "a", "type": "integer",
                                                                         "fenced": False}},
                             {"id": "format:json", "args": {"fenced": False}}], ['{"a": 1}', '{"a": 2}'])
    monkeypatch.setattr(_checks_text, "_lookup", boom)
    capsys.readouterr()
    assert main(["--db", str(db), "check"]) == 0
    out = capsys.readouterr().out
    assert "2 check(s) could not run and are stored as failed" in out
    assert "item 'j', record 'r0', constraint 'c0' (format:json_field_type): checker error" in out
    assert "RuntimeError: checker bug" in out
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT run_record_id, constraint_id, passed FROM check_results ORDER BY 1, 2").fetchall()
    assert rows == [("r0", "c0", 0), ("r0", "c1", 1), ("r1", "c0", 0), ("r1", "c1", 1)]
    assert main(["--db", str(db), "gate", "--run", "A", "--min-check-pass-rate", "0.9"]) == 1


# --- Unicode tricks around keywords ----------------------------------------------------------------------------------

# (words, output): each output shows a forbidden word, hidden from a plain regex by an invisible character, a
# compatibility form, another normal form, full case folding or a right-to-left override.
FORBIDDEN_HIDDEN = [
    (["price"], "The pr\u200bice is $5"),         # zero-width space
    (["price"], "The pr\u00adice is $5"),         # soft hyphen
    (["price"], "The pr\u2060ice is $5"),         # word joiner
    (["price"], "The pr\u034fice is $5"),         # combining grapheme joiner (default-ignorable, not Cf)
    (["price"], "The ｐｒｉｃｅ is $5"),            # full-width letters
    (["café"], "Visit our cafe\u0301 today"),     # NFD text, NFC word
    (["cafe\u0301"], "Visit our café today"),     # NFC text, NFD word
    (["straße"], "Go down the STRASSE"),          # full case folding
    (["file"], "the \ufb01le"),                    # ligature in the text
    (["\ufb01le"], "the file"),                    # ligature in the word
    (["price"], "The \u202eecirp\u202c is"),      # displayed as 'price'
]


@pytest.mark.parametrize("words,text", FORBIDDEN_HIDDEN)
def test_unicode_tricks_do_not_hide_a_forbidden_word(words, text):
    result = run_check("keywords:forbidden", {"words": words}, text=text)
    assert not result.passed and "found" in result.detail


@pytest.mark.parametrize("text", ["The PRICE is", "The price\u0301 is", "The price. Thanks"])
def test_what_forbidden_caught_before_it_still_catches(text):
    assert not run_check("keywords:forbidden", {"words": ["price"]}, text=text).passed
    assert not run_check("keywords:forbidden", {"words": ["İstanbul"]}, text="istanbul").passed


@pytest.mark.parametrize("text", ["It is priceless.", "sprice", "The prіce is $5"])  # the last: Cyrillic і
def test_forbidden_words_stay_whole_words_and_homoglyphs_are_not_mapped(text):
    assert run_check("keywords:forbidden", {"words": ["price"]}, text=text).passed


@pytest.mark.parametrize("check_id", ["keywords:contains_all", "keywords:contains_any"])
@pytest.mark.parametrize("keyword,text", [
    ("straße", "Go down the STRASSE"), ("café", "Visit our cafe\u0301 today"), ("price", "the ｐｒｉｃｅ"),
    ("price", "the pr\u200bice"), ("file", "the \ufb01le")])
def test_contains_matches_as_forbidden_does(check_id, keyword, text):
    # contains_* and forbidden read the same text: a keyword contains_* finds, forbidden forbids.
    assert run_check(check_id, {"keywords": [keyword]}, text=text).passed
    assert not run_check("keywords:forbidden", {"words": [keyword]}, text=text).passed


def test_contains_case_sensitive_still_tells_case_apart():
    assert not run_check("keywords:contains_all", {"keywords": ["Price"], "case_sensitive": True},
                         text="the price").passed
    assert run_check("keywords:contains_all", {"keywords": ["Price"], "case_sensitive": True},
                     text="the Ｐrice").passed


@pytest.mark.parametrize("check_id,name", [("keywords:forbidden", "words"), ("keywords:contains_all", "keywords"),
                                           ("keywords:contains_any", "keywords")])
def test_a_keyword_of_only_invisible_characters_is_an_argument_error(check_id, name):
    with pytest.raises(ValueError, match="only invisible characters"):
        evalsets.validate_check(check_id, {name: ["ok", "\u200b\u00ad"]})


# --- strict JSON ----------------------------------------------------------------------------------------------------

NOT_STRICT_JSON = [
    ('{"n": "x", "n": 5}', "appears twice"),             # the last value won: an integer
    ('{"a": {"n": 1, "n": 2}, "n": 5}', "appears twice"),
    ('\u00a0{"n": 5}\u00a0', "not valid JSON"),           # str.strip() removed NBSP
    ('\u3000{"n": 5}', "not valid JSON"),                 # ... and the ideographic space
    ('{"n": 5}\x1c', "not valid JSON"),                   # ... and the information separators
    ('\x1f{"n": 5}\x1e', "not valid JSON"),
    ('{"n": 5, "x": 1e999}', "outside a double's range"),  # read as inf
    ('{"n": 5, "x": -1e400}', "outside a double's range"),
    ('{"n": 5, "x": 1' + "0" * 400 + '}', "outside a double's range"),
]


@pytest.mark.parametrize("text,detail", NOT_STRICT_JSON)
def test_json_checks_accept_only_strict_json(text, detail):
    for check_id, args in (("format:json", {}), ("format:json_required_fields", {"fields": ["n"]}),
                           ("format:json_field_type", {"field": "n", "type": "integer"})):
        result = run_check(check_id, {**args, "fenced": False}, text=text)
        assert not result.passed and detail in result.detail, (check_id, result)


def test_json_whitespace_inside_a_fence_is_json_whitespace_only():
    assert run_check("format:json", {"fenced": True}, text='```json\n{"n": 5}\r\n\t```').passed
    assert not run_check("format:json", {"fenced": True}, text='```json\n{"n": 5}\u00a0\n```').passed


@pytest.mark.parametrize("number,is_integer", [
    ("10000000000000000.5", False), ("9007199254740993.1", False), ("3.5", False),
    ("3", True), ("3.0", True), ("1E2", True), ("-0.0", True), ("1.5e1", True), ("1.25e1", False)])
def test_an_integer_is_judged_on_the_number_as_written(number, is_integer):
    # JSON Schema's integer (documented): a zero fractional part, on the number in the text, not its double.
    result = run_check("format:json_field_type", {"field": "n", "type": "integer", "fenced": False},
                       text=f'{{"n": {number}}}')
    assert result.passed is is_integer, result
    assert run_check("format:json_field_type", {"field": "n", "type": "number", "fenced": False},
                     text=f'{{"n": {number}}}').passed


# --- numbers after a marker -----------------------------------------------------------------------------------------

NUMERIC = {"marker": "Answer:"}


@pytest.mark.parametrize("text,expected", [
    ("Answer: 1,2345", 1234), ("Answer: 1,2345", 2345), ("Answer: 1,2345", 12345), ("Answer: 1,2", 1),
    ("Answer: 1,234,56", 1234), ("Answer: 1.2.3", 1.2)])
def test_digits_that_are_not_one_number_are_no_number(text, expected):
    result = run_check("answer:numeric_after_marker", {**NUMERIC, "expected": expected}, text=text)
    assert not result.passed and "not one well-formed number" in result.detail, result


@pytest.mark.parametrize("minus", ["\u2212", "\u2013", "-"])
def test_a_minus_sign_or_en_dash_before_a_number_is_a_minus(minus):
    assert run_check("answer:numeric_after_marker", {**NUMERIC, "expected": -5}, text=f"Answer: {minus}5").passed
    assert not run_check("answer:numeric_after_marker", {**NUMERIC, "expected": 5}, text=f"Answer: {minus}5").passed


@pytest.mark.parametrize("text,expected", [
    ("Answer: 1,234", 1234), ("Answer: 1,234.", 1234), ("Answer: 42, as shown", 42), ("Answer: **$1,234.50**", 1234.5),
    ("Answer: 3.14.", 3.14), ("Answer: 42%", 42), ("Answer: 5 – 7", 5), ("Answer: v2.0 of the doc", 2)])
def test_well_formed_numbers_still_read(text, expected):
    assert run_check("answer:numeric_after_marker", {**NUMERIC, "expected": expected}, text=text).passed


# --- word counts ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,words", [
    ("नमस्ते", 1), ("नमस्ते दुनिया", 2), ("nai\u0308ve", 1), ("na\u0308i\u0308ve caf\u00e9", 2), ("e\u0301", 1),
    ("\u0301 alone", 1), ("don't", 2), ("我喜欢Python", 4)])
def test_a_combining_mark_belongs_to_its_word(text, words):
    from judgecal.evalsets._checks_text import count_words  # house: private

    assert count_words(text) == words
    assert run_check("length:max_words", {"n": words}, text=text).passed
    assert not run_check("length:min_words", {"n": words + 1}, text=text).passed
