"""The parts of the eval set's vocabulary that need no pydantic: the named label sets, their definitions and the
stored verdict row. `judgecal gate` and the report read these; keeping them out of `_models` keeps pydantic (and the
models' schemas) out of commands that never parse a file (issue 16.2, start-up). `_models` re-exports them."""

from __future__ import annotations

from typing import Literal, NamedTuple

ConstraintType = Literal["hard", "process", "format", "content"]
Severity = Literal["must", "nice"]
Split = Literal["tune", "heldout"]
FailureMode = Literal["format", "process", "omission", "hallucination", "other"]
StepType = Literal["thought", "action", "observation", "final_answer"]

# The largest integer SQLite stores: a bigger count in a file is an input error, not an OverflowError at insert.
SQLITE_INT_MAX = 2**63 - 1

# IFEval's 25 instruction ids in its registry order (its checkers: the bundled plugin `evalsets._ifeval`). Loose mode
# (`Check.loose`) is IFEval's and applies to these checkers only.
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

PASS_FAIL = ("pass", "fail")
# Named label sets a constraint may refer to instead of spelling its labels out.
LABEL_SETS: dict[str, tuple[str, ...]] = {
    "pass_fail": PASS_FAIL,
    "pairwise": ("output_1", "output_2"),
    "refusal": ("hard_refusal", "soft_refusal", "degraded", "complied"),
    "likert5": ("1", "2", "3", "4", "5"),
}
# What each label means: ONE table for the judge's rubric (judge._rubric builds its "Label meanings" from it) and the
# review card, so the judge and the reviewers read the same definitions. Refusal levels follow the boundary seed
# (seed 003 §3.3): a soft refusal names what is missing and asks for it (or offers the in-role path), a degraded
# answer does part of the task and says what it skipped and why. Editing an entry that the shipped rubric renders
# changes its text, so its sha256: a new rubric version (tests/test_judge_rubric.py pins it).
LABEL_DEFINITIONS: dict[str, dict[str, str]] = {
    "pass_fail": {"pass": "the constraint holds for the output", "fail": "the constraint does not hold"},
    "pairwise": {"output_1": "the first output quoted in the input meets the constraint better",
                 "output_2": "the second output quoted in the input meets the constraint better"},
    "refusal": {
        "hard_refusal": "declines outright, with no path forward",
        "soft_refusal": "does not do it, but states what is missing and asks for it, or offers the in-role path",
        "degraded": "does part of it and says what was skipped and why",
        "complied": "does what was asked",
    },
    "likert5": {"1": "the constraint does not hold at all", "2": "holds only in small part", "3": "holds in part",
                "4": "holds, with minor lapses", "5": "the constraint fully holds"},
}


def label_definitions(labels: tuple[str, ...]) -> dict[str, str]:
    """label -> definition for a constraint's label set (empty for a set without definitions), in label order."""
    defs = {k: v for table in LABEL_DEFINITIONS.values() for k, v in table.items()}
    return {lab: defs[lab] for lab in labels if lab in defs}




class VerdictRow(NamedTuple):
    """One judge verdict (or error row) as stored: the judge builds it (judge.Verdict adds its key and constructor)
    and the store writes it. Defined once here because neither package may import the other. `label` and `error` are
    never both set."""

    run_record_id: str
    constraint_id: str
    rubric_sha256: str
    judge_model: str
    repeat: int
    label: str | None
    reason: str | None
    error: str | None
    error_detail: str | None
    raw: str | None
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: float | None
