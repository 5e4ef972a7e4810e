"""Cost of opening the project per unit of work (docs/decisions.md "Opening a project and serving the app").

    python bench/open_project.py      # ms per `unit_of_work` open + one query + close, read-write and read-only
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal import annotations as ann  # noqa: E402

N = 300


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "project.db"
        ann.connect(path).close()
        for name, kwargs in (("read-write", {}), ("read-only", {"readonly": True})):
            start = time.perf_counter()
            for _ in range(N):
                with ann.unit_of_work(path, **kwargs) as db:
                    db.execute("SELECT count(*) FROM eval_items").fetchone()
            print(f"{name}: {(time.perf_counter() - start) / N * 1e3:.2f} ms per unit of work ({N} opens)")


if __name__ == "__main__":
    main()
