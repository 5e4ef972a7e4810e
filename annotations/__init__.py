"""The project store and what is computed from it, in four rooms (the map: top of docs/decisions.md):

- `stats`: pure statistics (agreement); no sqlite.
- `store`: the SQLite project (schema, writer, items and runs, checks, labels, verdicts, batches, prices).
- `review`: the review sample and queue.
- `reports`: calibration, gate, rubric comparison, disagreements, run comparison, boundary, text formatting.

This module re-exports each room's public names so `from judgecal import annotations as ann; ann.<name>` keeps
working for callers outside annotations. Code inside a room imports from the room that owns a name, never from here.
A name's module is imported on its first use (judgecal.lazy_exports): importing a room loads only its table.
"""

from judgecal.annotations import stats, store, review, reports  # noqa: F401  (dependency order)
from judgecal import lazy_exports

__all__ = [*stats.__all__, *store.__all__, *review.__all__, *reports.__all__]

# A name several rooms export (majority_label, the PPI names) is one object; the last room's, as `import *` gave.
_ROOM_OF = {name: room.__name__ for room in (stats, store, review, reports) for name in room.__all__}
__getattr__, __dir__ = lazy_exports(__name__, {room: [n for n, r in _ROOM_OF.items() if r == room]
                                               for room in dict.fromkeys(_ROOM_OF.values())})
del lazy_exports
