"""Human labels: one row per event (label, change, undo); history is never rewritten.

Two readings of the history, each defined once here:
- standing label of a reviewer on a pair (`standing_labels`): their latest event on it, unless that was an `undo`.
  It drives the review queue (who still owes a label) and what the reveal shows.
- blind first label of a reviewer on a pair (`blind_first_labels`): their first `label` event with blind=1. Only this
  one is compared with the judge: a later change, or a label given again after an undo, was made with the judge's
  verdict in view, so it is kept and shown but never moves an agreement number or the gate.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, NamedTuple

import sqlite_utils

from judgecal.evalsets import InputError, Parsed, Problem, ProblemLog, chunks, printable
from judgecal.annotations.store._schema import aware_utc, now_iso, write

# The import row's model (pydantic) loads with the first label file read or export written, not with the label
# readings the report and `judgecal gate` use (issue 16.2, start-up).
if TYPE_CHECKING:
    from judgecal.annotations.store._label_rows import HumanLabelRow

LabelEvent = Literal["label", "change", "undo"]


def pair_label_sets(db: sqlite_utils.Database, pairs: Iterable[tuple[str, str]] | None = None) -> dict[tuple[str, str], tuple[str, ...]]:
    """Label set of each (run record, constraint) pair that exists in the project."""
    import json

    sql = """SELECT r.id, c.id, c.labels FROM run_records r JOIN constraints c ON c.item_id = r.item_id"""
    wanted = set(pairs) if pairs is not None else None
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    if wanted is not None:
        run_ids = sorted({p[0] for p in wanted})
        for start in range(0, len(run_ids), 900):
            chunk = run_ids[start:start + 900]
            for rid, cid, labels in db.execute(sql + f" WHERE r.id IN ({','.join('?' * len(chunk))})", chunk):
                if (rid, cid) in wanted:
                    out[(rid, cid)] = tuple(json.loads(labels))
        return out
    for rid, cid, labels in db.execute(sql):
        out[(rid, cid)] = tuple(json.loads(labels))
    return out


def _item_hashes(db: sqlite_utils.Database, run_record_ids: Iterable[str]) -> dict[str, str]:
    """Run record id -> the content hash of its eval item, for the ids among `run_record_ids` that name a stored run
    record (every one has its item: a foreign key), so its keys are the stored ones."""
    import json  # noqa: PLC0415 (as pair_label_sets)

    return dict(db.execute("SELECT r.id, i.content_sha256 FROM run_records r JOIN eval_items i ON i.id = r.item_id"
                           " WHERE r.id IN (SELECT value FROM json_each(?))",
                           [json.dumps(sorted(set(run_record_ids)))]).fetchall())


# What a reviewer, the judge and the checks read of a run record: its answer, whichever form it took.
_OUTPUT_COLUMNS = ("output", "trajectory", "messages", "tool_calls")


def output_sha256(output: str | None, trajectory: str | None, messages: str | None, tool_calls: str | None) -> str:
    """The content hash of a run record's answer as stored (`_OUTPUT_COLUMNS`: the JSON ones parsed, so neither key
    order nor spacing moves it): `export labels` and `export verdicts` write it per row, and an import refuses a row
    whose run record answers otherwise in the importing project (a review, wave 14: a label moved by id alone onto
    another output was counted as that output's label)."""
    import hashlib  # noqa: PLC0415 (as pair_label_sets)
    import json  # noqa: PLC0415

    from judgecal.evalsets import canonical_json  # noqa: PLC0415

    if trajectory is None and messages is None and tool_calls is None:
        # an answer that is text alone (most): `canonical_json` of the same dict, spelt out (its keys sorted)
        text = f'{{"messages":null,"output":{json.dumps(output, ensure_ascii=False)},"tool_calls":null,"trajectory":null}}'
        return hashlib.sha256(text.encode()).hexdigest()
    parsed = [output, *(None if text is None else json.loads(text) for text in (trajectory, messages, tool_calls))]
    return hashlib.sha256(canonical_json(dict(zip(_OUTPUT_COLUMNS, parsed))).encode()).hexdigest()


def output_hashes(db: sqlite_utils.Database, run_record_ids: Iterable[str]) -> dict[str, str]:
    """Run record id -> `output_sha256` of its stored answer, for the ids among `run_record_ids` that name a stored
    run record."""
    import json  # noqa: PLC0415 (as pair_label_sets)

    return {row[0]: output_sha256(*row[1:]) for row in db.execute(
        f"SELECT id, {', '.join(_OUTPUT_COLUMNS)} FROM run_records WHERE id IN (SELECT value FROM json_each(?))",
        [json.dumps(sorted(set(run_record_ids)))])}


def output_hash_of(db: sqlite_utils.Database) -> Callable[[str], str | None]:
    """For an export: run record id -> `output_sha256` of its stored answer (None: no such record), each record read
    once while it is among the last few asked for (an export reads its rows record by record or nearly so)."""

    @functools.lru_cache(maxsize=1024)
    def of(run_record_id: str) -> str | None:
        row = db.execute(f"SELECT {', '.join(_OUTPUT_COLUMNS)} FROM run_records WHERE id = ?",
                         [run_record_id]).fetchone()
        return None if row is None else output_sha256(*row)

    return of


# How far ahead of this machine's clock an imported `created_at` may be (another machine's clock running fast).
FUTURE_ALLOWANCE = timedelta(minutes=5)


def validate_label_rows(parsed: Parsed[Any], label_sets: dict[tuple[str, str], tuple[str, ...]],
                        *, label_field: str = "label", allow_missing_label: bool = False,
                        db: sqlite_utils.Database | None = None,
                        labelled: Callable[[Any], bool] | None = None) -> list[Problem]:
    """Problems for rows naming a pair that does not exist or a label outside the constraint's label set, in row
    order. `db`: the project, to name a run record that does not exist as such (looked up for the rows whose pair
    is missing only: a valid file costs no query). `labelled(row)` False: the row carries no label to check (an
    undo event), only its pair."""
    problems: list[Problem] = []
    missing = [row.run_record_id for row in parsed.rows if (row.run_record_id, row.constraint_id) not in label_sets]
    # and the rows that say which item content they were made on (an export's): one look-up, for those rows only
    hashed = [row.run_record_id for row in parsed.rows if getattr(row, "item_sha256", None) is not None]
    items = _item_hashes(db, missing + hashed) if db is not None and (missing or hashed) else {}
    records = items if db is not None and missing else None  # (its keys: the stored run records)
    # and those that say which answer they were made on
    answered = [row.run_record_id for row in parsed.rows if getattr(row, "output_sha256", None) is not None]
    outputs = output_hashes(db, answered) if db is not None and answered else {}
    now = datetime.now(timezone.utc)
    for index, row in enumerate(parsed.rows):
        made = getattr(row, "created_at", None)
        if made is not None and aware_utc(made) > now + FUTURE_ALLOWANCE:
            # A rubric version is verified on the labels made after it (the gate's fresh-label rule): a label dated
            # ahead of now "verified" a version tuned on it (a review, wave 15: labels dated 2099)
            problems.append(parsed.problem(index, "created_at", (
                f"{made.isoformat()} is later than now ({now.isoformat(timespec='seconds')}):"
                " nothing is made in the future; give the time with its zone (a time without one is read as UTC)")))
            continue
        pair = (row.run_record_id, row.constraint_id)
        if pair not in label_sets:
            if records is not None and row.run_record_id not in records:
                problems.append(parsed.problem(index, "run_record_id", f"no run record {row.run_record_id!r} (so no "
                                                                       f"constraint {row.constraint_id!r} on it)"))
            else:
                problems.append(parsed.problem(
                    index, "constraint_id", f"no constraint {row.constraint_id!r} on run record {row.run_record_id!r}"))
            continue
        wrong = _made_elsewhere(row.run_record_id, row, items, outputs) if items or outputs else None
        if wrong is not None:
            problems.append(parsed.problem(index, *wrong))
            continue
        if labelled is not None and not labelled(row):
            continue
        label = getattr(row, label_field)
        if label is None:
            if not allow_missing_label:
                problems.append(parsed.problem(index, label_field, "missing label"))
        elif label not in label_sets[pair]:
            problems.append(parsed.problem(
                index, label_field, f"label {label!r} is not in the constraint's label set {list(label_sets[pair])}"))
    return problems


# field -> (the stored hash's place, said of the row's run record id; the verb now; what the row was made on)
_ELSEWHERE = {"item_sha256": ("the eval item of run record {rid!r} was", "is", "another text of the item"),
              "output_sha256": ("run record {rid!r} answered", "answers", "another output")}


def _made_elsewhere(rid: str, row: Any, items: dict[str, str], outputs: dict[str, str]) -> tuple[str, str] | None:
    """(field, why) when `row` says it was made on another text of its eval item (`item_sha256`: an edited constraint,
    label set, check or instruction; a review, wave 14) or another answer of its run record (`output_sha256`: runs
    imported again under the same ids; wave 15) than this project holds: a label or verdict moved between projects by
    id alone was counted against a text or an output nobody judged. None when it says neither."""
    for field, stored in (("item_sha256", items), ("output_sha256", outputs)):
        given = getattr(row, field, None)
        if given is not None and stored.get(rid, given) != given:
            then, now, what = _ELSEWHERE[field]
            return field, (f"{then.format(rid=rid)} {given[:12]} where this was made and {now} {stored[rid][:12]} in "
                           f"this project: it was made on {what}; label or judge it here (or leave the field out to "
                           "import it anyway)")
    return None


def import_labels(db: sqlite_utils.Database, source: Parsed[HumanLabelRow] | Iterable[Parsed[HumanLabelRow]]) -> int:
    """Insert imported human labels (a whole `Parsed` or a stream of chunks; one transaction, all or nothing).
    Rows identical to a stored event are skipped."""
    conn = db.conn
    problems = ProblemLog()
    stamp = now_iso()
    inserted = 0
    # A row without created_at gets the import time, so it can only match a stored event by its other fields: as
    # many such rows are skipped as identical events are stored (re-importing the file is a no-op). Counted over
    # the whole file, against the events stored before it.
    consumed: Counter[tuple[Any, ...]] = Counter()
    spellings: dict[str, str] | None = None  # casefolded reviewer name -> the spelling it is stored under
    stored_names: set[str] = set()
    with write(db):
        last_before = conn.execute("SELECT coalesce(max(id), 0) FROM human_labels").fetchone()[0]
        for parsed in chunks(source):
            problems.extend(parsed.problems)
            problems.extend(parsed.problem(index, "label", "an undo event carries no label")
                            for index, row in enumerate(parsed.rows) if row.event == "undo" and row.label is not None)
            label_sets = pair_label_sets(db, [(r.run_record_id, r.constraint_id) for r in parsed.rows])
            # an undo carries no label, but its pair must exist like any other row's (a review: an unknown run
            # record stopped the import on the foreign key with no line, an unknown constraint was stored)
            problems.extend(validate_label_rows(parsed, label_sets, db=db, labelled=lambda row: row.event != "undo"))
            # One person is one reviewer: a name is stored as the app stores it (whitespace collapsed, no control
            # characters), under the spelling the project (or, for a new name, the file) first gave it whatever its
            # case (a review, wave 15: "ann" and "ANN" were two raters of the human-human ceiling, and a label
            # after the reveal under "Ann" was a blind first label)
            if spellings is None:  # (a name stored exactly as given keeps it: two stored spellings stay apart)
                known = _known_reviewers(db)  # as `canonical_reviewer` matches a typed name
                stored_names = set(known)
                spellings = {name.casefold(): name for name in known}
            reviewers = []
            for index, r in enumerate(parsed.rows):
                try:
                    name = clean_reviewer_name(r.reviewer)
                except ValueError as exc:
                    problems.extend([parsed.problem(index, "reviewer", str(exc))])
                    name = r.reviewer
                reviewers.append(name if name in stored_names else spellings.setdefault(name.casefold(), name))
            if problems.total:
                continue  # the file is refused: read on only to report every problem
            rows = [
                (
                    r.run_record_id, r.constraint_id, name, r.event, r.label, r.note, r.failure_mode,
                    r.seconds_spent, r.rubric_version_seen, int(r.blind), r.guideline_version,
                    r.created_at.isoformat() if r.created_at else None,  # last: rows without it are matched on the rest
                )
                for r, name in zip(parsed.rows, reviewers)
            ]
            stored = _stored_events(conn, sorted({r[0] for r in rows}), last_before)
            # matched on the moment, not its spelling: the app stores `now_iso()` ("…:13.692Z"), an export writes
            # the same moment as "…:13.692000Z" and a file may say "+00:00" (a review: importing a project's own
            # export doubled every label the app had saved)
            existing = {row[:-1] + (_instant(row[-1]),) for row in stored}
            untimed = Counter(row[:-1] for row in stored)
            fresh = []
            for r, parsed_row in zip(rows, parsed.rows):
                if r[-1] is not None:
                    if r[:-1] + (aware_utc(parsed_row.created_at),) not in existing:
                        fresh.append(r)
                elif untimed[r[:-1]] > consumed[r[:-1]]:
                    consumed[r[:-1]] += 1
                else:
                    fresh.append(r[:-1] + (stamp,))
            conn.executemany(
                "INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, note, failure_mode,"
                " seconds_spent, rubric_version_seen, blind, guideline_version, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                fresh,
            )
            inserted += len(fresh)
        problems.raise_if_any()  # inside the transaction: raising rolls back every chunk already written
    return inserted


def _instant(stamp: Any) -> Any:
    """A stored `created_at` as the moment it names (an aware datetime when it reads as one; a time without an
    offset is UTC, as the report reads it), else as stored."""
    try:
        return aware_utc(datetime.fromisoformat(stamp))
    except (TypeError, ValueError):
        return stamp




def _stored_events(conn: Any, run_record_ids: list[str], last_before: int) -> list[tuple[Any, ...]]:
    """The label events of these run records stored before this import began (id <= last_before)."""
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(run_record_ids), 900):
        part = run_record_ids[start:start + 900]
        out += conn.execute(
            "SELECT run_record_id, constraint_id, reviewer, event, label, note, failure_mode, seconds_spent,"
            " rubric_version_seen, blind, guideline_version, created_at FROM human_labels"
            f" WHERE id <= ? AND run_record_id IN ({','.join('?' * len(part))})", [last_before, *part]).fetchall()
    return out


def label_export_rows(db: sqlite_utils.Database) -> Iterator[dict[str, Any]]:
    """Every label event in the order it happened, in the import format."""
    from judgecal.annotations.store._label_rows import HumanLabelRow  # noqa: PLC0415 (see the module's imports)

    answer = output_hash_of(db)
    for row in db.query("SELECT h.*, ei.content_sha256 AS item_sha256 FROM human_labels h"
                        " LEFT JOIN run_records r ON r.id = h.run_record_id LEFT JOIN eval_items ei ON ei.id = r.item_id"
                        " ORDER BY h.id"):
        row["output_sha256"] = answer(row["run_record_id"])
        out = HumanLabelRow.model_validate(
            {k: row[k] for k in HumanLabelRow.model_fields if k != "blind"} | {"blind": bool(row["blind"])}
        )
        yield out.model_dump(mode="json", exclude_none=True)


def standing_labels_sql(where: str = "") -> str:
    """SQL selecting the standing label rows (see the module docstring); `where` filters human_labels before the
    latest event is taken (e.g. one reviewer or one pair). The one definition every caller uses."""
    return f"""
        SELECT h.* FROM human_labels h
        JOIN (SELECT max(id) AS id FROM human_labels {f"WHERE {where}" if where else ""}
              GROUP BY run_record_id, constraint_id, reviewer) last ON last.id = h.id
        WHERE h.event != 'undo'
    """


def current_labels(db: sqlite_utils.Database, *, reviewer: str | None = None,
                   pair: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    """The standing label of each (pair, reviewer): their latest event, unless that was an undo. In event order."""
    where, params = [], []
    if reviewer:
        where.append("reviewer = ?")
        params.append(reviewer)
    if pair is not None:
        where.append("run_record_id = ? AND constraint_id = ?")
        params += [pair[0], pair[1]]
    return list(db.query(standing_labels_sql(" AND ".join(where)) + " ORDER BY h.id", params))


def blind_first_labels(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Each reviewer's blind first label on each pair (their first `label` event with blind=1), in event order.

    Event order is the store's insertion order (row id), not `created_at`: an imported file cannot back-date a label
    to stand in front of one already stored. A later change or undo does not remove it (see the module docstring).
    It must be the reviewer's FIRST event on the pair, as the review page decides blindness (`save_label`: blind only
    when the reviewer has no earlier event there): a `blind: true` row after the same reviewer's non-blind label or
    change, which only an import can write, was made with the judge's verdict in view and is not blind."""
    # One scan in event order keeping each (pair, reviewer)'s first event: the rows of `BLIND_FIRST_SQL` in its
    # order (tests/test_blind_first_labels.py), without its grouping, look-up per group and sort (issue 16.2: 1.3 s
    # of SQLite at a million run records' 183k labels).
    cursor = db.conn.execute("SELECT * FROM human_labels ORDER BY id")
    columns = [d[0] for d in cursor.description]
    rid, cid, reviewer, event, blind = map(columns.index,
                                           ("run_record_id", "constraint_id", "reviewer", "event", "blind"))
    seen: set[tuple] = set()
    out = []
    for row in cursor:
        key = (row[rid], row[cid], row[reviewer])
        if key in seen:
            continue
        seen.add(key)
        if row[event] == "label" and row[blind] == 1:
            out.append(dict(zip(columns, row)))
    return out


class BlindLabel(NamedTuple):
    """A blind first label as the report reads it (`kept_blind_first`): the columns its callers read, not the row.
    `row["label"]` works as on `blind_first_labels`' dicts (an attribute read in C, no Python frame), at a sixth of
    a dict's memory (issue 16 item 3: the dicts were +188 MB at a million run records' 183k labels)."""

    run_record_id: str
    constraint_id: str
    reviewer: str
    label: str | None
    rubric_version_seen: str | None
    created_at: str | None
    id: int  # the label row's id


BlindLabel.__getitem__ = object.__getattribute__  # type: ignore[assignment]  # row["label"]: by name only


class BlindFirst(NamedTuple):
    """`blind_first_labels` as `BlindLabel`s (`rows`, in event order)."""

    rows: tuple[BlindLabel, ...]


_BLIND_COLUMNS = "run_record_id, constraint_id, reviewer, event, blind, label, rubric_version_seen, created_at, id"


def _blind_first_scan(db: sqlite_utils.Database, since: int | None, rows: list[BlindLabel]) -> None:
    """`blind_first_labels`' one scan over the label rows after `since` (row id; None: every row), appending to
    `rows`. After `since`, a (pair, reviewer) with an event at or below it is found through the pair index (one seek
    per new row: the keys of every label are not held). Equal texts share one string (a reviewer's name, a label, a
    rubric: a few distinct ones)."""
    shared: dict[Any, Any] = {}
    seen: set[tuple[str, str, str]] = set()
    new = tuple.__new__
    earlier = ("SELECT 1 FROM human_labels INDEXED BY human_labels_pair WHERE run_record_id = ? AND constraint_id = ?"
               " AND reviewer = ? AND id <= ? LIMIT 1")
    for rid, cid, reviewer, event, blind, label, seen_sha, created, row_id in db.conn.execute(
            f"SELECT {_BLIND_COLUMNS} FROM human_labels WHERE id > ? ORDER BY id",
            [-(2 ** 63) if since is None else since]):
        reviewer = shared.setdefault(reviewer, reviewer)
        key = (rid, cid, reviewer)
        if key in seen:
            continue
        seen.add(key)
        if since is not None and db.conn.execute(earlier, [rid, cid, reviewer, since]).fetchone() is not None:
            continue
        if event == "label" and blind == 1:
            cid = shared.setdefault(cid, cid)
            rows.append(new(BlindLabel, (rid, cid, reviewer, shared.setdefault(label, label),
                                         shared.setdefault(seen_sha, seen_sha), created, row_id)))


def kept_blind_first(db: sqlite_utils.Database) -> BlindFirst:
    """`blind_first_labels(db)` as `BlindFirst`, kept in the process under the labels' version (`kept_for_tables`).
    After labels were only added (every new row's id above the kept ones': an insert below the largest id bumps
    the labels' counter, migration 020), only the new rows are read: a (pair, reviewer) with an earlier event keeps
    its first event, so the kept rows stay as they are and the new blind first labels follow them in event order.
    The Calibration page after a new label reads one row, not 183k (issue 16 item 3). Never mutated: an update
    builds a new value."""
    from judgecal.annotations.store._memo import kept_for_tables  # noqa: PLC0415

    def compute() -> BlindFirst:
        rows: list[BlindLabel] = []
        _blind_first_scan(db, None, rows)
        return BlindFirst(tuple(rows))

    def update(old: BlindFirst, since: int) -> BlindFirst:
        rows: list[BlindLabel] = []
        _blind_first_scan(db, since, rows)
        return BlindFirst(old.rows + tuple(rows)) if rows else old

    return kept_for_tables(db, "blind_first", (), ("human_labels",), compute, appended=("human_labels", update),
                           persisted=_blind_persisted())


@functools.cache
def _blind_persisted() -> Any:
    """How `kept_blind_first` is stored across processes (`kept_for_tables`' `persisted`): as columns."""
    from judgecal.annotations.store._memo import kept_for_tables  # noqa: PLC0415
    from judgecal.annotations.store._stored import Persisted, decode_column, modules_digest  # noqa: PLC0415

    # this module, the kept values' and the codec's (decode_column)
    return Persisted(modules_digest(kept_blind_first, kept_for_tables, decode_column), _encode_blind, _decode_blind)


def _encode_blind(value: BlindFirst) -> tuple[dict[str, Any], bytes]:
    from judgecal.annotations.store._stored import encode_texts  # noqa: PLC0415

    columns = list(zip(*value.rows)) or [()] * len(BlindLabel._fields)
    return {"n": len(value.rows), "columns": [*map(encode_texts, columns[:-1]), {"t": list(columns[-1])}]}, b""


def _decode_blind(meta: dict[str, Any], data: bytes) -> BlindFirst:
    """`_encode_blind`'s inverse; ValueError for rows `_blind_first_scan` could not have made (ids not increasing)."""
    from judgecal.annotations.store._stored import ascending, decode_column, named_rows, stored_columns  # noqa: PLC0415

    n, columns = stored_columns(meta, data, len(BlindLabel._fields), "blind first labels")
    text, maybe = (str,), (str, type(None))
    kinds = (text, text, text, maybe, maybe, maybe, (int,))
    rid, cid, reviewer, label, seen, created, ids = (decode_column(c, n, k) for c, k in zip(columns, kinds))
    if not ascending(ids):
        raise ValueError("stored blind first labels are not in event order")
    return BlindFirst(tuple(named_rows(BlindLabel, rid, cid, reviewer, label, seen, created, ids)))


#: The definition `blind_first_labels` computes in one scan (kept for its test).
BLIND_FIRST_SQL = """
    SELECT h.* FROM human_labels h
    JOIN (SELECT min(id) AS id FROM human_labels
          GROUP BY run_record_id, constraint_id, reviewer) first ON first.id = h.id
    WHERE h.event = 'label' AND h.blind = 1
    ORDER BY h.id
"""


MAX_REVIEWER_CHARS = 100


class ReviewerName(NamedTuple):
    """A typed reviewer name as it will be stored, and the stored names it is close to (a likely typo)."""

    name: str
    similar: tuple[str, ...]


def reviewer_names(db: sqlite_utils.Database) -> list[str]:
    """Every reviewer who has a label event in the project."""
    return [r[0] for r in db.execute("SELECT DISTINCT reviewer FROM human_labels ORDER BY reviewer")]


def clean_reviewer_name(typed: str | None) -> str:
    """A typed name with its whitespace collapsed. ValueError for an empty name (or one of invisible format
    characters only), one with control characters, or one over MAX_REVIEWER_CHARS."""
    name = " ".join((typed or "").split())
    # format characters (zero-width space, joiners, BOM) are invisible: a name of nothing else is empty (a review of
    # the app, wave 18: "?reviewer=%E2%80%8B" labelled under a blank name)
    if not "".join(ch for ch in name if unicodedata.category(ch) != "Cf").strip():
        raise ValueError("a reviewer name cannot be empty")
    if printable(typed) != typed or any(ch in typed for ch in "\t\n"):  # the CLI's rule for unprintable text
        raise ValueError("a reviewer name cannot contain control characters")
    if len(name) > MAX_REVIEWER_CHARS:
        raise ValueError(f"a reviewer name is at most {MAX_REVIEWER_CHARS} characters")
    return name


def _known_reviewers(db: sqlite_utils.Database) -> list[str]:
    """The names a typed name is matched against, sorted: those labels are stored under, and those `assign` dealt
    slots to who have not labelled yet (a review, wave 15: "Ann" after "ann" was assigned was a new person, and was
    dealt the second slot of ann's own overlap pair)."""
    return sorted({*reviewer_names(db), *(r[0] for r in db.execute("SELECT DISTINCT reviewer FROM assignments"))})


def canonical_reviewer(db: sqlite_utils.Database, typed: str) -> ReviewerName:
    """The name a typed reviewer name is stored under. Whitespace is collapsed; a name that differs from a stored
    reviewer only in case IS that reviewer (one person must not become two reviewers: the human-human statistics
    would count them as two raters). A new name comes with the stored names it resembles, to be offered.
    ValueError as `clean_reviewer_name`."""
    import difflib  # noqa: PLC0415

    name = clean_reviewer_name(typed)
    known = _known_reviewers(db)
    for stored in known:
        if stored.casefold() == name.casefold():
            return ReviewerName(stored, ())
    return ReviewerName(name, tuple(difflib.get_close_matches(name, known, n=3, cutoff=0.75)))


# Beyond this many pairs with new label events, reading every label once is cheaper than a look-up per pair.
INCREMENTAL_PAIRS = 2000

# A `where` for human_labels (or samples) rows of the pairs in a JSON array of [run record id, constraint id]:
# the pair index serves it.
PAIRS_IN_JSON = ("(run_record_id, constraint_id) IN"
                 " (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))")


def pairs_labelled_since(db: sqlite_utils.Database, rowid: int) -> list[tuple[str, str]] | None:
    """The pairs with a label event stored after `rowid` (a change, an undo, a new label), or None when there are
    more than INCREMENTAL_PAIRS of them: what a value kept under the labels' version recomputes when labels were
    only added (`kept_for_tables`' `appended`)."""
    rows = [tuple(r) for r in db.execute(
        "SELECT DISTINCT run_record_id, constraint_id FROM human_labels WHERE id > ? LIMIT ?",
        [rowid, INCREMENTAL_PAIRS + 1])]
    return rows if len(rows) <= INCREMENTAL_PAIRS else None
