"""Acme's own mechanical checks for judgecal (an example plugin)."""

from __future__ import annotations

import re

from judgecal.checkers import CheckResult, checker


@checker("acme:cites_ticket")
def cites_ticket(text: str, *, project: str, min_count: int = 1) -> CheckResult:
    """The output cites at least `min_count` tickets of the tracker project `project` (upper-case key such as
    "OPS"): the key, a hyphen and digits as a whole word ("OPS-1234"). "OPS-" alone or "XOPS-12" do not count."""
    # Arguments are checked first and raise ValueError: judgecal dry-runs every check when an eval set is read, so
    # a bad argument is reported with its file and line at import time.
    if not isinstance(project, str) or not re.fullmatch(r"[A-Z][A-Z0-9]{1,9}", project):
        raise ValueError(f"project must be an upper-case tracker key such as 'OPS', got {project!r}")
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be an integer >= 1, got {min_count!r}")
    found = sorted(set(re.findall(rf"\b{project}-\d+\b", text)))
    return CheckResult(len(found) >= min_count, f"cites {', '.join(found) or 'no ticket'}; needs {min_count}")
