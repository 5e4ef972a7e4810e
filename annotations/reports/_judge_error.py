"""Judge error by model under test and by covariate, for the calibration report (issue 15 item 2).

The statistics are pure functions in annotations.stats (`error_rates_by_model`, `judge_error_regression`); this module
reads the covariates of the run records and hands the counted pairs to them."""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np
import sqlite_utils

from judgecal.annotations.stats import (Covariate, JudgeErrorRegression, ModelErrorRates, error_rates_by_model,
                                        judge_error_regression, log2_length, standardised)

#: A tag is tried as a covariate when at least this many counted pairs have it and this many do not: a rarer tag
#: has no power and only widens the Holm family.
MIN_TAG_PAIRS = 5
NUMERIC_FIELDS = ("input_tokens", "latency_ms", "rounds")


class RecordCovariates(NamedTuple):
    """What a run record offers as a covariate of the judge's error."""

    output_tokens: int | None
    output_chars: int | None  # the output's characters, or the trajectory's when there is no output
    input_tokens: int | None
    latency_ms: float | None
    rounds: int | None
    tags: tuple[str, ...]


@dataclass(frozen=True)
class JudgeError:
    """TPR/TNR per model under test (Wilson CIs, fail = positive) and the judge-error regression on the counted
    pass/fail pairs of one judge model × rubric version. `length_source` says whether output length was measured in
    tokens (every counted record has `output_tokens`) or characters (the fallback)."""

    by_model: tuple[ModelErrorRates, ...]
    regression: JudgeErrorRegression
    length_source: str


def record_covariates(db: sqlite_utils.Database, record_ids: Sequence[str] | None = None
                      ) -> dict[str, RecordCovariates]:
    """Run record id -> its covariates, for the records with a human label (the regression reads counted pairs only;
    a project holds far more records than labels), or for `record_ids`."""
    # The labelled records' rowids first (through an index on the id), then their rows in rowid order: the table
    # pages are read in file order, not in id order (0.6 s less at a million run records, 167k labelled records).
    if record_ids is None:
        rowids = sorted(r[0] for r in db.execute(
            "SELECT r.rowid FROM run_records r WHERE r.id IN (SELECT run_record_id FROM human_labels)"))
    else:
        rowids = sorted(r[0] for r in db.execute(
            "SELECT r.rowid FROM json_each(?) AS wanted CROSS JOIN run_records r ON r.id = wanted.value",
            [json.dumps(list(record_ids))]))
    sql = """SELECT r.id, r.output_tokens, coalesce(length(r.output), length(r.trajectory)), r.input_tokens,
                    r.latency_ms, r.rounds, i.tags
             FROM json_each(?) AS wanted CROSS JOIN run_records r ON r.rowid = wanted.value
             JOIN eval_items i ON i.id = r.item_id"""
    parsed: dict[str | None, tuple[str, ...]] = {}  # an item's tags text: a project has few distinct ones

    def tags_of(text: str | None) -> tuple[str, ...]:
        found = parsed.get(text)
        if found is None:
            found = parsed[text] = tuple(sorted(set(json.loads(text or "[]"))))
        return found

    return {rid: RecordCovariates(ot, oc, it, lat, rounds, tags_of(tags))
            for rid, ot, oc, it, lat, rounds, tags in db.execute(sql, [json.dumps(rowids)])}


def kept_record_covariates(db: sqlite_utils.Database) -> dict[str, RecordCovariates]:
    """`record_covariates(db)`, kept in the process under the run records', items' (migration 024) and labels'
    versions (`kept_for_tables`); after labels were only added, the records of the pairs labelled since that are not
    kept yet are read and merged (a new dict: the kept one is never mutated), so the report after a new label reads
    its own record's row, not every labelled record's (issue 16 item 3: 2.3 s at a million run records)."""
    from judgecal.annotations.store import kept_for_tables, merged, pairs_labelled_since  # noqa: PLC0415

    def update(old: dict[str, RecordCovariates], since: int) -> dict[str, RecordCovariates] | None:
        new = pairs_labelled_since(db, since)
        fresh = None if new is None else [rid for rid in dict.fromkeys(p[0] for p in new) if rid not in old]
        return merged(old, fresh, lambda rids: record_covariates(db, rids))

    return kept_for_tables(db, "record_covariates", (), ("run_records", "eval_items", "human_labels"),
                           lambda: record_covariates(db), appended=("human_labels", update),
                           persisted=_covariates_persisted())


@functools.cache
def _covariates_persisted() -> Any:
    """How `kept_record_covariates` is stored across processes (`kept_for_tables`' `persisted`)."""
    from judgecal.annotations.store import (Persisted, decode_column, kept_for_tables,  # noqa: PLC0415
                                            modules_digest, pairs_labelled_since)

    return Persisted(modules_digest(record_covariates, kept_for_tables, pairs_labelled_since, decode_column),
                     _encode_covariates, _decode_covariates)


def _encode_covariates(value: dict[str, RecordCovariates]) -> tuple[dict[str, Any], bytes]:
    from judgecal.annotations.store import encode_json_texts, encode_texts  # noqa: PLC0415

    rows = value.values()
    return {"n": len(value), "columns": [encode_texts(list(value)), *({"t": [r[k] for r in rows]} for k in range(5)),
                                         encode_json_texts([r.tags for r in rows])]}, b""


def _decode_covariates(meta: dict[str, Any], data: bytes) -> dict[str, RecordCovariates]:
    """`_encode_covariates`' inverse; ValueError for covariates `record_covariates` could not have made."""
    from judgecal.annotations.store import (decode_column, decode_json_column, named_rows,  # noqa: PLC0415
                                            stored_columns, text_tuple)

    n, columns = stored_columns(meta, data, 7, "covariates")
    count, number = (int, type(None)), (int, float, type(None))
    rids = decode_column(columns[0], n, (str,))
    fields = [decode_column(c, n, k) for c, k in zip(columns[1:6], (count, count, count, number, count))]
    tags = decode_json_column(columns[6], n, text_tuple)
    out = dict(zip(rids, named_rows(RecordCovariates, *fields, tags)))
    if len(out) != n:
        raise ValueError("stored covariates name a run record twice")
    return out


def covariates_of(records: Sequence[RecordCovariates]) -> tuple[list[Covariate], str]:
    """The covariates tried for these pairs' records, and the length source. Output length on a log2 scale (one
    step = a doubling) in tokens when every record has them, else characters (mixing the two units in one fit
    would make the unit a covariate); the numeric run-record fields in SD units; each tag on at least
    MIN_TAG_PAIRS pairs and missing from as many, as present (1) / absent (0)."""
    if records and all(r.output_tokens is not None for r in records):
        source, length = "output_tokens", [r.output_tokens for r in records]
    else:
        source, length = "characters", [r.output_chars for r in records]
    out = [Covariate(f"output length ({source.replace('_', ' ')})", log2_length(length), "doubling")]
    for field in NUMERIC_FIELDS:
        values, sd = standardised([getattr(r, field) for r in records])
        out.append(Covariate(field, values, f"SD ({sd:.3g})" if sd == sd and sd else "SD"))
    counts: dict[str, int] = {}
    for tags, k in Counter(r.tags for r in records).items():  # in order of first record, as per record before
        for t in tags:
            counts[t] = counts.get(t, 0) + k
    # a project has a few distinct tag sets: each pair's set numbered once, each set tested once per tag, and a tag's
    # values taken by number (an array: a list per tag was ~10 ms each at a million run records)
    number = {tags: k for k, tags in enumerate(dict.fromkeys(r.tags for r in records))}
    codes = np.fromiter((number[r.tags] for r in records), dtype=np.intp, count=len(records))
    for tag in sorted(t for t, k in counts.items() if k >= MIN_TAG_PAIRS and len(records) - k >= MIN_TAG_PAIRS):
        present = np.array([float(tag in tags) for tags in number], dtype=float)
        out.append(Covariate(f"tag:{tag}", present[codes], "tag present vs absent"))
    return out, source


def judge_error(record_ids: Sequence[str], constraint_ids: Sequence[str], models: Sequence[str], items: Sequence[str],
                judge: Sequence[str], human: Sequence[str], covariates: dict[str, RecordCovariates]) -> JudgeError:
    """Judge error on counted pass/fail pairs: one run record id, constraint id, model under test, item id, judge
    label (an abstention is any label but pass/fail) and blind first human label per pair. The regression's tests
    are clustered by item and give each constraint its own intercept (a judge lenient on one constraint is not
    read as favouring that constraint's longer outputs)."""
    unknown = RecordCovariates(None, None, None, None, None, ())  # (one, not one made per pair and dropped)
    records = list(map(covariates.get, record_ids, itertools.repeat(unknown, len(record_ids))))
    covs, source = covariates_of(records)
    return JudgeError(error_rates_by_model(models, judge, human),
                      judge_error_regression(judge, human, covs, clusters=items, strata=constraint_ids), source)
