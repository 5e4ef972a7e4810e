"""Start-up cost (issue 16.2): a command imports scipy, pandas, openai and streamlit only where it uses them, so
`judgecal --help` and `judgecal gate` on a small project do not pay ~1 s of imports first. Timings live in
bench/startup.py; this test pins the cause (which modules a command loads), which is deterministic.

Second round: `judgecal --help` loads no command module at all (judgecal.cli.COMMANDS holds the help lines; a
command's module is imported when it is parsed), nor sqlite-utils, pydantic or numpy; `gate` loads only its own
command module and the annotations package, and computes its p-values without scipy (stats._normal)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("scipy", "pandas", "openai", "streamlit", "altair", "httpx")
# What `judgecal --help` used to load besides HEAVY (~0.5 s together): none of it is needed to list the commands.
PACKAGES = ("sqlite_utils", "pydantic", "numpy", "judgecal.annotations", "judgecal.evalsets", "judgecal.judge",
            "judgecal.jobs", "judgecal.runner", "judgecal.drift", "judgecal._transfer", "judgecal._cmd_project",
            "judgecal._cmd_judge", "judgecal._cmd_calibration", "judgecal._cmd_review", "judgecal._cmd_runner",
            "judgecal._cmd_harness", "judgecal._cmd_drift", "judgecal._cmd_probe", "judgecal._cmd_feedback")


def _loaded_after(code: str, cwd: Path, watch: tuple[str, ...] = HEAVY) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {watch!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_library(tmp_path: Path):
    assert _loaded_after("import judgecal.cli", tmp_path) == set()


def test_help_loads_no_heavy_library(tmp_path: Path):
    code = ("import contextlib, io\nfrom judgecal.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    assert _loaded_after(code, tmp_path) == set()


def test_gate_on_a_small_project_loads_neither_pandas_nor_openai(tmp_path: Path):
    from judgecal.cli import main

    assert main(["--db", str(tmp_path / "demo.db"), "demo"]) == 0
    code = ("import contextlib, io\nfrom judgecal.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['--db', {str(tmp_path / 'demo.db')!r}, 'gate', '--min-kappa', '0.4'])")
    assert _loaded_after(code, tmp_path).isdisjoint({"pandas", "openai", "streamlit", "altair", "httpx"})


def test_sqlite_utils_still_works_when_pandas_is_loaded_later(tmp_path: Path):
    code = ("import judgecal.cli, pandas, sqlite_utils\n"
            f"db = sqlite_utils.Database({str(tmp_path / 'x.db')!r})\n"
            "db['t'].insert({'a': 1, 'b': 'x'})\nassert db['t'].count == 1")
    assert "pandas" in _loaded_after(code, tmp_path)


@pytest.mark.parametrize("module", ["judgecal.annotations", "judgecal.evalsets", "judgecal.judge", "judgecal.jobs"])
def test_library_packages_import_without_scipy_or_pandas(module: str, tmp_path: Path):
    assert _loaded_after(f"import {module}", tmp_path).isdisjoint({"scipy", "pandas", "streamlit", "altair"})


def _main(argv: list[str]) -> str:
    return ("import contextlib, io\nfrom judgecal.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass")


def test_help_loads_no_command_module_nor_the_packages(tmp_path: Path):
    assert _loaded_after(_main(["--help"]), tmp_path, HEAVY + PACKAGES) == set()
    # a wrong command name is refused from the same table, without loading anything either
    assert _loaded_after(_main(["no-such-command"]), tmp_path, HEAVY + PACKAGES) == set()


def test_a_command_loads_only_its_own_module(tmp_path: Path):
    # `doctor` on a missing file: its module, not the judge's, the runner's or the import tables
    loaded = _loaded_after(_main(["--db", str(tmp_path / "p.db"), "doctor", str(tmp_path / "missing.jsonl")]),
                           tmp_path, PACKAGES)
    assert "judgecal._cmd_harness" in loaded
    assert loaded.isdisjoint({"judgecal._cmd_judge", "judgecal.jobs", "judgecal._cmd_runner", "judgecal._transfer",
                              "judgecal._cmd_calibration"})


def test_gate_on_a_small_project_loads_no_scipy_and_no_other_command(tmp_path: Path):
    from judgecal import annotations as ann
    from judgecal.annotations.reports import load_verdicts, majority_label
    from judgecal.cli import main

    db = str(tmp_path / "demo.db")
    assert main(["--db", db, "demo"]) == 0
    # Label the random sample (the judge's majority, every third flipped) so the gate computes kappas and their
    # p-values, the part that needed scipy.special, not only "no labelled pair".
    with ann.unit_of_work(db) as conn:
        ann.draw_sample(conn, rate=0.10, overlap=0.0, seed=0, include_unjudged=False)
        verdicts = {p: v for g in load_verdicts(conn).values() for p, v in g.items()}
        label_sets = ann.pair_label_sets(conn)
        rows = []
        for i, (rid, cid) in enumerate(conn.execute("SELECT run_record_id, constraint_id FROM samples")):
            v = verdicts.get((rid, cid))
            label = (majority_label([x for x in v.labels.values() if x]) if v else None) or label_sets[(rid, cid)][0]
            if i % 3 == 0:
                label = next(x for x in label_sets[(rid, cid)] if x != label)
            rows.append((rid, cid, label, ann.now_iso()))
        with ann.write(conn):
            conn.conn.executemany("INSERT INTO human_labels (run_record_id, constraint_id, reviewer, event, label, "
                                  "blind, created_at) VALUES (?,?,'alice','label',?,1,?)", rows)
    count_calls = ("import judgecal.annotations.stats._normal as N\ncalls = []\n_ndtr = N.ndtr\n"
                   "N.ndtr = lambda x: (calls.append(x), _ndtr(x))[1]\n")
    code = count_calls + _main(["--db", db, "gate", "--min-kappa", "0.4"]) + "\nassert calls, 'no p-value computed'"
    loaded = _loaded_after(code, tmp_path, HEAVY + PACKAGES)
    assert "scipy" not in loaded
    assert loaded.isdisjoint({"judgecal._cmd_judge", "judgecal.jobs", "judgecal.judge", "judgecal._transfer",
                              "judgecal._cmd_runner", "judgecal._cmd_project", "judgecal.runner"})


def test_sqlite_utils_loads_with_its_first_user_and_still_without_pandas(tmp_path: Path):
    assert _loaded_after("import judgecal", tmp_path, ("sqlite_utils", "pandas")) == set()
    assert _loaded_after("import judgecal, sqlite_utils", tmp_path, ("sqlite_utils", "pandas")) == {"sqlite_utils"}
    # Importing the annotations package loads only its tables (judgecal.lazy_exports); the store's first use loads
    # sqlite-utils, still without pandas. (Before the third round `import judgecal.annotations` loaded it.)
    assert _loaded_after("import judgecal.annotations", tmp_path, ("sqlite_utils", "pandas")) == set()
    assert _loaded_after("import judgecal.annotations as ann\nann.unit_of_work", tmp_path,
                         ("sqlite_utils", "pandas")) == {"sqlite_utils"}


def test_the_lazy_parser_is_the_full_parser():
    # Each command's parser, filled in when parsed, is the one the full build makes (flags, defaults, help text),
    # and every command of COMMANDS is registered by the module the table names.
    import argparse

    from judgecal.cli import COMMANDS, build_parser

    def commands(parser):
        [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return sub

    full, lazy = commands(build_parser()), build_parser(lazy=True)
    assert list(full.choices) == list(COMMANDS)
    assert [a.help for a in commands(lazy)._choices_actions] == [c.help for c in COMMANDS.values()]
    for name, command in COMMANDS.items():
        commands(lazy).load(command.module)
        assert commands(lazy).choices[name].format_help() == full.choices[name].format_help(), name
    assert lazy.format_help() == build_parser().format_help()


def test_a_command_cannot_bring_its_own_help_line():
    # One place for the line `judgecal --help` prints: a module passing help= to add_parser is refused.
    import argparse

    from judgecal.cli import build_parser

    [sub] = [a for a in build_parser(lazy=True)._actions if isinstance(a, argparse._SubParsersAction)]
    with pytest.raises(ValueError, match="COMMANDS"):
        sub.add_parser("gate", help="a second help line")
    with pytest.raises(ValueError, match="COMMANDS"):
        sub.add_parser("not-a-command")


def test_the_db_default_in_help_is_the_stores():
    from judgecal import annotations as ann
    from judgecal.cli import DEFAULT_DB_NAME

    assert str(ann.DEFAULT_DB) == DEFAULT_DB_NAME


# Modules `gate` used to load through the package facades (every room's every module, every evalsets module) and
# does not call: the third round loads a module when one of its names is first used (judgecal.lazy_exports).
NOT_FOR_GATE = ("judgecal.annotations.reports._text", "judgecal.annotations.reports._drift",
                "judgecal.annotations.reports._boundary", "judgecal.annotations.reports._disagreements",
                "judgecal.annotations.review._queue", "judgecal.annotations.review._assign",
                "judgecal.annotations.review._guidelines", "judgecal.annotations.review._reasons",
                "judgecal.annotations.store._anchors", "judgecal.annotations.store._checks",
                "judgecal.annotations.store._remote", "judgecal.annotations.stats._multi_rater",
                "judgecal.annotations.stats._bootstrap", "judgecal.annotations.stats._drift",
                "judgecal.evalsets._harness", "judgecal.evalsets._harness_doctor", "judgecal.evalsets._harness_promptfoo",
                "judgecal.evalsets._ifeval_files", "judgecal.evalsets._metrics", "judgecal.evalsets._react",
                "judgecal.evalsets._evidence",
                # fourth round: the models and the registry load with the first file parsed or check run, the run
                # comparison with `--run`/`--run-id`, the probes with a probe limit; so pydantic never loads
                "pydantic", "judgecal.evalsets._models", "judgecal.evalsets._registry",
                "judgecal.annotations.reports._runs", "judgecal.annotations.reports._probes",
                "judgecal.annotations.reports._pairwise", "judgecal.annotations.store._label_rows",
                "judgecal.annotations.review._sample_rows")


def test_gate_loads_only_the_modules_it_uses(tmp_path: Path):
    from judgecal.cli import main

    db = str(tmp_path / "demo.db")
    assert main(["--db", db, "demo"]) == 0
    loaded = _loaded_after(_main(["--db", db, "gate", "--min-kappa", "0.4"]), tmp_path,
                           NOT_FOR_GATE + ("judgecal.annotations.reports._gate",))
    assert loaded == {"judgecal.annotations.reports._gate"}  # the probe sees what gate loads
    # and `report` (text) still finds its formatting, which gate no longer loads
    assert "judgecal.annotations.reports._text" in _loaded_after(_main(["--db", db, "report"]), tmp_path,
                                                                 NOT_FOR_GATE)
    # and a gate with a probe limit still loads the probes (the limit fails: nothing was probed, no pairwise verdict)
    assert "judgecal.annotations.reports._probes" in _loaded_after(
        _main(["--db", db, "gate", "--min-kappa", "0.4", "--max-injection-flip", "0.1"]), tmp_path, NOT_FOR_GATE)
