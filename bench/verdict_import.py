"""Import of 150k verdicts (issue 16.1): `judgecal import verdicts` (parse + validate + one transaction, with the
triggers of migration 015 keeping `verdict_pairs`) vs a raw `sqlite3.executemany` of the same rows into the same
schema; and both again into a copy of the schema without the verdict_pairs triggers (what the triggers cost); and the
same rows as an export writes them, with `item_sha256` and `output_sha256` (what checking them costs). In the same
process, alternated; the median of each. Prints the ratios in CPU and wall time.

    python bench/verdict_import.py [--n 150000] [--repeats 3]

Target (issue 16.1): ratio at most 2.0. The rows come like bench/import_memory.py's: ~6 per run record (2 semantic
constraints x 3 repeats, written in repeat order, as the judge and an export write them), items and run records
imported first so every verdict is valid. A project is built once and copied for every measured import.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal.cli import main as _main  # noqa: E402


def cli(argv: list[str]) -> int:
    """The command in this process, its one-line summary kept off the bench's output."""
    with contextlib.redirect_stdout(io.StringIO()):
        return _main(argv)

SHA = "b" * 64
STAMP = "2026-12-01T00:00:00+00:00"
_FIELDS = ("run_record_id, constraint_id, rubric_sha256, judge_model, repeat, label, reason, error, error_detail, raw,"
           " input_tokens, output_tokens, latency_ms, batch_id, created_at")


class Timing(NamedTuple):
    cpu: float
    wall: float


def make_files(folder: Path, n: int) -> tuple[Path, Path, Path]:
    items = [{"id": f"item-{i}", "instruction": f"Answer question {i}.", "constraints": [
        {"id": "c1", "text": "Mentions the order number", "type": "content"},
        {"id": "c2", "text": "Stays polite", "type": "content"}]} for i in range(1000)]
    paths = tuple(folder / f"{k}.jsonl" for k in ("evalset", "runs", "verdicts"))
    with open(paths[0], "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in items)
    with open(paths[1], "w") as fh:
        fh.writelines(json.dumps({"id": f"run-{i}", "item_id": f"item-{i % 1000}", "model": "bench-model",
                                  "run_id": "bench", "output": f"Your order A-{i} ships tomorrow. " * 3,
                                  "output_tokens": 40 + i % 30}) + "\n" for i in range((n + 5) // 6))
    with open(paths[2], "w") as fh:
        written = 0
        for i in range((n + 5) // 6):
            for c in ("c1", "c2"):
                for rep in range(3):
                    if written < n:
                        fh.write(json.dumps({"run_record_id": f"run-{i}", "constraint_id": c, "rubric": "bench",
                                             "rubric_sha256": SHA, "judge_model": "judge", "repeat": rep,
                                             "label": "pass" if (i + rep) % 4 else "fail", "reason": "ok",
                                             "input_tokens": 100, "output_tokens": 20, "latency_ms": 300.0}) + "\n")
                        written += 1
    return paths


def raw_rows(verdicts: Path) -> list[tuple]:
    """The rows the import stores, every column with the same values (created_at aside: one stamp per import)."""
    rows = []
    with open(verdicts) as fh:
        for line in fh:
            r = json.loads(line)
            rows.append((r["run_record_id"], r["constraint_id"], r["rubric_sha256"], r["judge_model"], r["repeat"],
                         r["label"], r["reason"], None, None, None, r["input_tokens"], r["output_tokens"],
                         r["latency_ms"], f"import:{verdicts}", STAMP))
    return rows


def with_hashes(template: Path, verdicts: Path, out: Path) -> Path:
    """The verdict file's rows as `export verdicts` writes them: each with its run record's `item_sha256` and
    `output_sha256` in the project, which the import then checks row by row."""
    from judgecal.annotations.store import output_sha256  # noqa: PLC0415

    conn = sqlite3.connect(template)
    try:
        item = dict(conn.execute("SELECT r.id, i.content_sha256 FROM run_records r JOIN eval_items i"
                                 " ON i.id = r.item_id"))
        answer = {row[0]: output_sha256(*row[1:]) for row in conn.execute(
            "SELECT id, output, trajectory, messages, tool_calls FROM run_records")}
    finally:
        conn.close()
    with verdicts.open() as src, out.open("w") as dst:
        for line in src:
            row = json.loads(line)
            row["item_sha256"], row["output_sha256"] = item[row["run_record_id"]], answer[row["run_record_id"]]
            dst.write(json.dumps(row) + "\n")
    return out


def fresh(template: Path, path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy(template, path)
    return path


def ours(path: Path, verdicts: Path) -> Timing:
    cpu, wall = time.process_time(), time.perf_counter()
    code = cli(["--db", str(path), "import", "verdicts", str(verdicts)])
    assert code == 0, code
    return Timing(time.process_time() - cpu, time.perf_counter() - wall)


def raw(path: Path, rows: list[tuple]) -> Timing:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        cpu, wall = time.process_time(), time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT INTO verdicts ({_FIELDS}) VALUES ({', '.join('?' * 15)})", rows)
        conn.execute("COMMIT")
        return Timing(time.process_time() - cpu, time.perf_counter() - wall)
    finally:
        conn.close()


def raw_multirow(path: Path, rows: list[tuple], per: int = 60) -> Timing:
    """The same rows, `per` to a statement (the judge's writer does this): a table with triggers gives every
    statement its own statement journal, so executemany, one statement a row, pays that once a row."""
    one = "(" + ", ".join("?" * 15) + ")"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        cpu, wall = time.process_time(), time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        for start in range(0, len(rows), per):
            part = rows[start:start + per]
            conn.execute(f"INSERT INTO verdicts ({_FIELDS}) VALUES " + ", ".join([one] * len(part)),
                         [value for row in part for value in row])
        conn.execute("COMMIT")
        return Timing(time.process_time() - cpu, time.perf_counter() - wall)
    finally:
        conn.close()


def _median(ts: list[Timing]) -> Timing:
    return Timing(statistics.median(t.cpu for t in ts), statistics.median(t.wall for t in ts))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=150_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        evalset, runs, verdicts = make_files(folder, args.n)
        template = folder / "template.db"
        for kind, file in (("evalset", evalset), ("runs", runs)):
            assert cli(["--db", str(template), "import", kind, str(file)]) == 0
        # The rubric the file names, so the raw rows' foreign key holds: one tiny import creates it, then goes.
        probe = folder / "probe.jsonl"
        probe.write_text(verdicts.open().readline())
        assert cli(["--db", str(template), "import", "verdicts", str(probe)]) == 0
        conn = sqlite3.connect(template, isolation_level=None)
        conn.execute("DELETE FROM verdicts")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        bare = folder / "bare-template.db"
        conn.execute(f"VACUUM INTO '{bare}'")
        conn.close()
        conn = sqlite3.connect(bare, isolation_level=None)
        dropped = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'verdicts'")]
        for name in dropped:
            conn.execute(f"DROP TRIGGER {name}")
        conn.close()
        rows = raw_rows(verdicts)
        hashed = with_hashes(template, verdicts, folder / "hashed.jsonl")
        ours_t, raw_t, bare_t, ours_bare_t, multi_t, multi_bare_t, hashed_t = [], [], [], [], [], [], []
        for _ in range(args.repeats):
            raw_t.append(raw(fresh(template, folder / "raw.db"), rows))
            ours_t.append(ours(fresh(template, folder / "ours.db"), verdicts))
            hashed_t.append(ours(fresh(template, folder / "hashed.db"), hashed))
            bare_t.append(raw(fresh(bare, folder / "bare.db"), rows))
            ours_bare_t.append(ours(fresh(bare, folder / "ours-bare.db"), verdicts))
            multi_t.append(raw_multirow(fresh(template, folder / "multi.db"), rows))
            multi_bare_t.append(raw_multirow(fresh(bare, folder / "multi-bare.db"), rows))
        check = sqlite3.connect(folder / "ours.db")
        stored = check.execute("SELECT count(*) FROM verdicts").fetchone()[0]
        check.close()
        assert stored == len(rows), (stored, len(rows))
        o, r, b, ob = _median(ours_t), _median(raw_t), _median(bare_t), _median(ours_bare_t)
        print(f"verdicts: {len(rows):,} (triggers on verdicts: {', '.join(dropped) or 'none'})")
        print(f"raw executemany, no verdicts triggers: {b.cpu:.3f} s CPU, {b.wall:.3f} s wall")
        print(f"raw executemany (rows prebuilt): {r.cpu:.3f} s CPU, {r.wall:.3f} s wall")
        print(f"judgecal import verdicts (read + validate + insert): {o.cpu:.3f} s CPU, {o.wall:.3f} s wall")
        print(f"judgecal import verdicts, no verdicts triggers: {ob.cpu:.3f} s CPU, {ob.wall:.3f} s wall")
        m, mb = _median(multi_t), _median(multi_bare_t)
        print(f"raw, 60 rows a statement: {m.cpu:.3f} s CPU, {m.wall:.3f} s wall; no verdicts triggers:"
              f" {mb.cpu:.3f} s CPU, {mb.wall:.3f} s wall; triggers' cost {m.cpu / mb.cpu:.2f} CPU")
        print(f"triggers' cost: raw / raw without triggers = {r.cpu / b.cpu:.2f} CPU, {r.wall / b.wall:.2f} wall")
        print(f"ratio ours/raw = {o.cpu / r.cpu:.2f} CPU, {o.wall / r.wall:.2f} wall  (target <= 2.0)")
        print(f"ratio ours/raw, both without triggers = {ob.cpu / b.cpu:.2f} CPU, {ob.wall / b.wall:.2f} wall")
        print(f"triggers' cost in the import: ours / ours without triggers = {o.cpu / ob.cpu:.2f} CPU,"
              f" {o.wall / ob.wall:.2f} wall")
        h = _median(hashed_t)
        print(f"an export's rows (item_sha256 and output_sha256 on each, both checked): {h.cpu:.3f} s CPU; ratio to"
              f" the same rows without them = {h.cpu / o.cpu:.2f} CPU, {h.wall / o.wall:.2f} wall")


if __name__ == "__main__":
    main()
