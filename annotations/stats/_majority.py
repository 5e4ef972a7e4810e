"""The one majority rule of the project (pure: the store, the review and the reports all count by it)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable


def majority_label(labels: Iterable[str]) -> str | None:
    """The strictly most frequent label; None on a tie or with no labels. The one majority rule of the project."""
    counts = Counter(labels).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]
