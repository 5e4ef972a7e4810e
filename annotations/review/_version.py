"""A version of what the review sample's derived tables are computed from, read in O(1): what the Review page keys
its memoised tables by on every rerun (issue 16.3).

`_sampling._data_version` keys the same tables by an aggregate over every sample row (count, sums of row ids and
seeds), which at 1M run records (340,000 sample rows) cost ~150 ms of each rerun. Here the sample's part is its largest
row id plus the `table_rewrites` counter that triggers bump on every delete or update (migration 016); run records and
verdicts are only ever added, so their largest row ids. Any change to those rows changes the version; nothing else
does (labels are not part of it: they only decide where each counted prefix ends, recomputed on every call).
"""

from __future__ import annotations

import sqlite3

import sqlite_utils

from judgecal.annotations.review._sampling import _data_version, _table_mark

REWRITES_SQL = "SELECT n FROM table_rewrites WHERE name = 'samples'"


def review_version(db: sqlite_utils.Database) -> tuple:
    """("rewrites", largest sample row id, sample deletes + updates, run records' and verdicts' largest row ids).
    A database opened without migration 016 (read-only, never migrated) falls back to the full aggregate."""
    try:
        row = db.execute(REWRITES_SQL).fetchone()
    except sqlite3.OperationalError:  # no table_rewrites
        return _data_version(db)
    return ("rewrites", _table_mark(db, "samples"), row[0] if row else 0, _table_mark(db, "run_records"),
            _table_mark(db, "verdicts"))
