"""The README's CLI reference documents the whole CLI (as sqlite-utils' docs tests do): every subcommand, every flag
and every import/export kind, read from the real argparse parser. And the CLI's import graph has no cycle."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from judgecal.cli import EXPORTERS, IMPORTERS, build_parser

ROOT = Path(__file__).resolve().parents[1]


def cli_reference() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## CLI reference")
    end = readme.find("\n## ", start + 1)
    return readme[start:end if end != -1 else None]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def flags(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help")


def rows_of(command: str) -> str:
    """The reference table rows documenting `command` (a row starts with `| \\`command`)."""
    return "\n".join(line for line in cli_reference().splitlines()
                     if re.match(rf"^\| `{re.escape(command)}( |`)", line))


def test_every_subcommand_is_in_the_cli_reference() -> None:
    missing = sorted(name for name in subcommands() if not rows_of(name))
    assert not missing, f"README CLI reference has no row for: {', '.join(missing)}"


def test_every_flag_is_in_the_cli_reference() -> None:
    missing = [f"{name} {flag}" for name, parser in sorted(subcommands().items())
               for flag in flags(parser) if not re.search(rf"{re.escape(flag)}\b", rows_of(name))]
    missing += [f"(global) {flag}" for flag in flags(build_parser())
                if not re.search(rf"{re.escape(flag)}\b", cli_reference().split("|", 1)[0])]
    assert not missing, f"README CLI reference lacks these flags: {', '.join(missing)}"


@pytest.mark.parametrize("command,table", [("import", IMPORTERS), ("export", EXPORTERS)])
def test_every_import_and_export_kind_is_in_the_cli_reference(command, table) -> None:
    documented = set()
    for line in rows_of(command).splitlines():
        documented |= set(re.findall(r"[a-z]+", line.split("`")[1].split()[1]))
    missing = sorted(set(table) - documented)
    assert not missing, f"README CLI reference `{command}` row lacks kinds: {', '.join(missing)}"


def test_the_parser_offers_exactly_the_tables_kinds() -> None:
    parsers = subcommands()
    for command, table in (("import", IMPORTERS), ("export", EXPORTERS)):
        [kind] = [a for a in parsers[command]._actions if a.dest == "kind"]
        assert sorted(kind.choices) == sorted(table)


def test_the_docs_test_catches_a_missing_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    # The check must be able to fail: a flag added to the parser but not to the README is reported by name.
    real = build_parser

    def with_extra():
        parser = real()
        [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        sub.choices["check"].add_argument("--undocumented-flag")
        return parser

    monkeypatch.setitem(globals(), "build_parser", with_extra)
    with pytest.raises(AssertionError, match="check --undocumented-flag"):
        test_every_flag_is_in_the_cli_reference()


def _judgecal_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_no_command_module_imports_the_cli() -> None:
    # cli.py imports the command modules; a command module importing cli back is the cycle issue 14 removed.
    offenders = sorted(p.name for p in (ROOT / "judgecal").rglob("*.py")
                       if p.name not in ("cli.py", "__main__.py") and "judgecal.cli" in _judgecal_imports(p))
    assert not offenders, f"import shared helpers from judgecal._args, not judgecal.cli: {offenders}"
