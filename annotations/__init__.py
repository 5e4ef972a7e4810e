"""The project store and what is computed from it, in four rooms (the map: top of docs/decisions.md):

- `stats`: pure statistics (agreement); no sqlite.
- `store`: the SQLite project (schema, writer, items and runs, checks, labels, verdicts, batches, prices).
- `review`: the review sample and queue.
- `reports`: calibration, gate, rubric comparison, disagreements, run comparison, boundary, text formatting.

This module re-exports each room's public names so `from judgecal import annotations as ann; ann.<name>` keeps
working for callers outside annotations. Code inside a room imports from the room that owns a name, never from here.
"""

from judgecal.annotations import stats, store, review, reports  # noqa: F401  (dependency order)
from judgecal.annotations.stats import *  # noqa: F401,F403
from judgecal.annotations.store import *  # noqa: F401,F403
from judgecal.annotations.review import *  # noqa: F401,F403
from judgecal.annotations.reports import *  # noqa: F401,F403

__all__ = [*stats.__all__, *store.__all__, *review.__all__, *reports.__all__]
