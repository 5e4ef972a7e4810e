"""Issue 16.2: `compare --json` writes its item lists from a template (`Comparison.to_json`), since `json.dumps` with
`indent` falls back to its pure-Python encoder. The text must be `json.dumps(as_dict(), ensure_ascii=False,
indent=2)` byte for byte, for every shape an item takes: no failed constraints or several, a pass that is not known
(null), ids that need escaping (quotes, backslashes, control characters) or are not ASCII, an empty bucket."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from pathlib import Path

from judgecal import annotations as ann
from judgecal.annotations.reports._runs import ItemOutcome  # house: private (a test builds outcomes)
from judgecal.cli import main


def _demo(tmp_path: Path) -> Path:
    path = tmp_path / "demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--db", str(path), "demo"]) == 0
    return path


def test_to_json_is_json_dumps_byte_for_byte(tmp_path):
    with ann.unit_of_work(_demo(tmp_path)) as db:
        c = ann.compare_runs(db, "demo-run-a", "demo-run-b")
    assert c.items and c.to_json() == json.dumps(c.as_dict(), ensure_ascii=False, indent=2)
    odd = (ItemOutcome('q"uote\\back\nline\x01', "both_fail", False, False, ("c1", "期望-c2"), ()),
           ItemOutcome("élan", "only_a", True, False, (), ("a\tb",)),
           ItemOutcome("x", "not_comparable", None, True, (), ()),
           ItemOutcome("y", "not_comparable", False, None, ("m",), ("n", "o", "p")))
    for items in (odd, ()):  # every bucket empty: each list is []
        shaped = dataclasses.replace(c, items=items)
        assert shaped.to_json() == json.dumps(shaped.as_dict(), ensure_ascii=False, indent=2)


def test_cli_json_is_the_comparison(tmp_path):
    path = _demo(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["--db", str(path), "compare", "demo-run-a", "demo-run-b", "--json"])
    with ann.unit_of_work(path) as db:
        c = ann.compare_runs(db, "demo-run-a", "demo-run-b")
    assert out.getvalue() == json.dumps(c.as_dict(), ensure_ascii=False, indent=2) + "\n"
