"""The checker reference (`docs/checkers.md`), generated from the registry so it cannot drift from the code.

Regenerate after adding or changing a checker: `python -m judgecal.evalsets._docs > docs/checkers.md`. A test fails while the
committed file differs from this module's output.
"""

from __future__ import annotations

import inspect
import json

from judgecal.evalsets._registry import BUILTIN_SOURCE, CheckerSpec, checkers

REGENERATE = "python -m judgecal.evalsets._docs > docs/checkers.md"


def _literal(value: object) -> str:
    # Eval-set files are JSON, so defaults are shown as they would be written there.
    try:
        return json.dumps(value, ensure_ascii=False)
    except TypeError:
        return repr(value)


def _signature(spec: CheckerSpec) -> str:
    params = list(inspect.signature(spec.func).parameters.values())[1:]
    parts = []
    for p in params:
        if p.default is inspect.Parameter.empty:
            parts.append(f"`{p.name}` (required)")
        else:
            parts.append(f"`{p.name}` = `{_literal(p.default)}`")
    return ", ".join(parts) if parts else "none"


def checker_reference_markdown() -> str:
    """Markdown listing every checker judgecal ships (built-ins and the bundled IFEval plugin) by group: id, target,
    arguments and its docstring. Third-party plugins installed here are left out: the file documents the package."""
    specs = sorted((s for s in checkers().values() if s.source == BUILTIN_SOURCE), key=lambda s: s.id)
    lines = [
        "# Checker reference",
        "",
        f"Generated from the checker registry; do not edit by hand. Regenerate with `{REGENERATE}`.",
        "",
        "Arguments marked required must be given in the check's `args`; a missing or unknown argument is rejected "
        "when the eval set is read.",
    ]
    group = None
    for spec in specs:
        g = spec.id.split(":", 1)[0]
        if g != group:
            group = g
            lines += ["", f"## {g}"]
        lines += [
            "",
            f"### `{spec.id}`",
            "",
            f"Target: {spec.target}. Arguments: {_signature(spec)}.",
            "",
            spec.doc,
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(checker_reference_markdown(), end="")
