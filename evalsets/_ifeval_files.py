"""IFEval files: reading, scoring in IFEval's result shape, and conversion to an eval set with run records."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judgecal.evalsets._io import BATCH_ROWS, InputError, Parsed, Problem, _collect, parse_rows, stream_rows
from judgecal.evalsets._models import Check, Constraint, EvalItem, RunRecord
from judgecal.evalsets._plain import IFEVAL_IDS
from judgecal.evalsets._registry import run_check, validate_check

# IFEVAL_IDS (IFEval's 25 instruction ids) live in _plain: the registry reads them to know which checkers have a
# loose mode. The checkers are the bundled plugin `evalsets._ifeval`, loaded on first use, so reading an IFEval file
# does not import langdetect.

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

    @field_validator("kwargs", mode="before")
    @classmethod
    def _drop_unused(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{k: v for k, v in kw.items() if v is not None} if isinstance(kw, dict) else kw for kw in value]
        return value


def parse_ifeval(text: str, *, file: str = "<string>") -> list[IFEvalRow]:
    """Parse IFEval JSONL text. Raises InputError naming file, line and field of every bad row: bad JSON, a missing
    field, a duplicate key, an unknown instruction id, or kwargs that do not fit the checker (None-valued keys are
    dropped first, as IFEval's released input_data has them for unused arguments)."""
    parsed = parse_rows(text, IFEvalRow, file=file, id_field="key")
    problems = [p for row, line in zip(parsed.rows, parsed.lines) for p in _row_problems(row, file, line)]
    if problems:
        raise InputError(problems)
    return parsed.rows


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
            validate_check(iid, kwargs)
        except (ValueError, TypeError) as exc:
            problems.append(Problem(file, line, f"kwargs.{i}", str(exc)))
    return problems


def stream_ifeval(path: str | Path, *, batch: int = BATCH_ROWS) -> Iterator[Parsed[IFEvalRow]]:
    """An IFEval JSONL file read as it goes, in chunks of at most `batch` rows, each carrying the problems of its
    lines (parse_ifeval's rules; a duplicate key names the line it was first on, in any earlier chunk)."""
    # Any name: an IFEval file is JSONL whatever it is called (read_ifeval always took it so).
    for chunk in stream_rows(path, IFEvalRow, id_field="key", batch=batch, fmt="jsonl"):
        chunk.problems.extend(p for row, line in zip(chunk.rows, chunk.lines) for p in _row_problems(row, chunk.file, line))
        yield chunk


def read_ifeval(path: str | Path) -> list[IFEvalRow]:
    """Read an IFEval JSONL file whole (see parse_ifeval): for `judgecal ifeval`, which scores it in memory. The
    import streams (stream_ifeval)."""
    return _collect(stream_ifeval(path)).rows


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
