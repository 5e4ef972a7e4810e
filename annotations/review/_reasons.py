"""Judge reasons as a reviewer reads them (issue 12.9): identical repeat reasons once with a count, and a reason that
contradicts its own verdict's label marked. Used by the Review page's reveal and the Calibration page's
disagreement view, so both mark the same verdicts.

The contradiction rule, kept small on purpose (we do not parse prose):
- the reason's *conclusion* is its first word if that word is a label of the constraint's label set, else its last
  word if that one is; words are runs of letters, digits, ``_`` and ``-``, compared case-insensitively, so
  ``"Fail."``, ``"**complied**"`` and ``"... so the verdict is: fail"`` conclude ``fail`` / ``complied``, while
  ``"fail-safe handling"`` names no label;
- a verdict *contradicts* its reason when the conclusion is a label of the same set other than the verdict's own
  label ("Judge: pass … Reason: fail"; "hard_refusal" with reason "complied"). A reason naming no label at either
  end, an error row (no label) and an empty reason are never marked.
"""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple, Sequence

from judgecal.evalsets import LABEL_SETS

_WORD = re.compile(r"[\w-]+")


class ReasonLine(NamedTuple):
    """One distinct (label, reason) of a verdict's repeats: shown once, with how many repeats gave it."""

    reason: str
    label: str | None
    count: int
    contradicts: bool


def reason_conclusion(reason: str | None, labels: Sequence[str]) -> str | None:
    """The label the reason concludes with (see the module docstring), or None."""
    words = _WORD.findall((reason or "").lower())
    if not words:
        return None
    by_lower = {lab.lower(): lab for lab in labels}
    for word in (words[0], words[-1]):
        if word in by_lower:
            return by_lower[word]
    return None


def reason_contradicts(label: str | None, reason: str | None, labels: Sequence[str]) -> bool:
    """Whether `reason` concludes with a label of `labels` other than the verdict's own `label`."""
    if label is None:
        return False
    conclusion = reason_conclusion(reason, labels)
    return conclusion is not None and conclusion.lower() != label.lower()


def reason_lines(repeats: Iterable[tuple[str | None, str | None]], labels: Sequence[str]) -> tuple[ReasonLine, ...]:
    """(label, reason) of each repeat -> the distinct reasons in first-seen order, identical ones (same label and
    same text, surrounding whitespace aside) counted once. Repeats without a reason are left out."""
    counts: dict[tuple[str | None, str], int] = {}
    for label, reason in repeats:
        text = (reason or "").strip()
        if text:
            counts[(label, text)] = counts.get((label, text), 0) + 1
    return tuple(ReasonLine(text, label, n, reason_contradicts(label, text, labels))
                 for (label, text), n in counts.items())


def label_set_for(*labels: str | None) -> tuple[str, ...]:
    """The named label set (evalsets.LABEL_SETS) holding every given label, else the given labels themselves: for a
    view that knows a verdict's and a human's labels but not the constraint's whole set."""
    given = [lab for lab in labels if lab is not None]
    for named in LABEL_SETS.values():
        if all(lab in named for lab in given):
            return named
    return tuple(dict.fromkeys(given))
