"""Checker plugins through the real entry-point mechanism: a `<name>.dist-info/` folder (METADATA + entry_points.txt)
and its module in tmp_path, on sys.path, are found by importlib.metadata exactly as an installed distribution is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from judgecal import evalsets
from judgecal.evalsets import BUILTIN_SOURCE, CheckerRegistry, InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "example-checker-plugin"
TICKET = "acme-checkers/acme:cites_ticket"


def install(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> Path:
    """Write what pip would leave in site-packages for a distribution: its modules and its dist-info metadata."""
    site.mkdir(parents=True, exist_ok=True)
    info = site / f"{dist.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n", encoding="utf-8")
    lines = ["[judgecal.checkers]"] + [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, source in modules.items():
        (site / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return site


def install_example(site: Path) -> Path:
    """The worked example under docs/, installed as its own pyproject.toml describes it."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    eps = project["project"]["entry-points"]["judgecal.checkers"]
    modules = {m: (EXAMPLE / f"{m}.py").read_text(encoding="utf-8") for m in project["tool"]["setuptools"]["py-modules"]}
    return install(site, project["project"]["name"], eps, modules)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    yield path
    # Plugin modules are named per test; drop them so no other test sees them in sys.modules.
    for name in [n for n, m in sys.modules.items() if str(path) in str(getattr(m, "__file__", "") or "")]:
        del sys.modules[name]


def judgecal(args: list[str], site: Path) -> subprocess.CompletedProcess:
    """The real CLI in a fresh process, with `site` on its path (a fresh process discovers entry points anew)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "judgecal", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def write_evalset(path: Path, args: dict) -> Path:
    item = {"id": "t1", "instruction": "Answer and cite the OPS ticket.",
            "constraints": [{"id": "cites", "text": "Cites the OPS ticket", "type": "format",
                             "check": {"id": TICKET, "args": args}},
                            {"id": "short", "text": "At most 20 words", "type": "format",
                             "check": {"id": "length:max_words", "args": {"n": 20}}}]}
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    return path


# --- the worked example, end to end through the CLI ---------------------------------------------------------------

def test_example_plugin_checks_an_imported_eval_set(tmp_path: Path) -> None:
    site = install_example(tmp_path / "site")
    db = tmp_path / "p.db"
    evalset = write_evalset(tmp_path / "e.jsonl", {"project": "OPS"})
    runs = tmp_path / "r.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "r1", "item_id": "t1", "model": "m", "output": "Fixed in OPS-1234, see there."},
        {"id": "r2", "item_id": "t1", "model": "m", "output": "Fixed in XOPS-1234 and OPS-."},
    ]), encoding="utf-8")
    for args in (["import", "evalset", str(evalset)], ["import", "runs", str(runs)], ["check"],
                 ["export", "checks", "--out", str(tmp_path / "c.jsonl")]):
        done = judgecal(["--db", str(db), *args], site)
        assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in (tmp_path / "c.jsonl").read_text().splitlines()[1:]]
    verdicts = {(r["run_record_id"], r["checker"]): r["passed"] for r in rows}
    assert verdicts == {("r1", TICKET): True, ("r2", TICKET): False,
                        ("r1", "length:max_words"): True, ("r2", "length:max_words"): True}

    listed = judgecal(["checkers"], site)
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.startswith(TICKET))
    assert line.split()[1] == "acme-checkers" and "cites at least `min_count` tickets" in line
    assert any(x.split()[:2] == ["format:json", BUILTIN_SOURCE] for x in listed.stdout.splitlines())
    assert any(x.split()[:2] == ["keywords:existence", BUILTIN_SOURCE] for x in listed.stdout.splitlines())


def test_plugin_arguments_are_validated_like_built_ins(tmp_path: Path) -> None:
    site = install_example(tmp_path / "site")
    cases = [({}, "missing argument(s): project"),
             ({"project": "ops"}, "project must be an upper-case tracker key"),
             ({"project": "OPS", "min_count": 0}, "min_count must be an integer >= 1"),
             ({"project": "OPS", "strict": True}, "has no argument(s): strict")]
    path = tmp_path / "e.jsonl"
    lines = []
    for n, (args, _) in enumerate(cases):
        lines.append(write_evalset(tmp_path / "one.jsonl", args).read_text().replace('"t1"', f'"t{n}"'))
    path.write_text("".join(lines), encoding="utf-8")
    db = tmp_path / "p.db"
    done = judgecal(["--db", str(db), "import", "evalset", str(path)], site)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    for line, (_, message) in enumerate(cases, start=1):
        assert any(x.strip().startswith(f"{path}:{line}: constraints.0.check:") and message in x
                   for x in done.stderr.splitlines()), (line, message, done.stderr)
    assert not db.exists() or "t0" not in db.read_bytes().decode("latin-1")  # nothing imported


# --- registry rules ---------------------------------------------------------------------------------------------

def test_plugin_ids_are_namespaced_by_distribution(site: Path) -> None:
    install(site, "Team_Checks", {"team": "team_checks_a"}, {"team_checks_a": '''
        from judgecal.checkers import checker

        @checker("team:says_hi")
        def says_hi(text: str) -> bool:
            """The text contains "hi"."""
            return "hi" in text
    '''})
    registry = CheckerRegistry()
    assert registry.get("team-checks/team:says_hi").source == "team-checks"
    with pytest.raises(ValueError, match="unknown checker 'team:says_hi'"):
        registry.get("team:says_hi")


def test_a_plugin_cannot_shadow_a_built_in(site: Path) -> None:
    install(site, "sneaky", {"sneaky": "sneaky_checks_b"}, {"sneaky_checks_b": '''
        from judgecal.checkers import checker

        @checker("sneaky:fine")
        def fine(text: str) -> bool:
            """Always passes."""
            return True

        @checker("format:json")
        def always_json(text: str, *, fenced: bool = False) -> bool:
            """Everything is JSON."""
            return True
    '''})
    registry = CheckerRegistry()
    specs = registry.all()
    assert specs["format:json"].source == BUILTIN_SOURCE
    assert registry.get("format:json").func("not json", fenced=False).passed is False
    # All of the plugin or none of it: its harmless checker is not half-loaded either.
    assert not any(i.startswith("sneaky/") for i in specs)
    [problem] = registry.problems()
    assert problem.entry_point == "sneaky" and problem.distribution == "sneaky"
    assert "'format:json' would shadow the built-in checker" in str(problem)


def test_a_plugin_cannot_shadow_a_bundled_ifeval_checker(site: Path) -> None:
    install(site, "sneaky2", {"sneaky2": "sneaky_checks_c"}, {"sneaky_checks_c": '''
        from judgecal.checkers import checker

        @checker("punctuation:no_comma")
        def no_comma(text: str) -> bool:
            """Always passes."""
            return True
    '''})
    registry = CheckerRegistry()
    assert registry.get("punctuation:no_comma").func("a, b").passed is False
    assert "would shadow" in str(registry.problems()[0])


@pytest.mark.parametrize("module,message", [
    ("import not_an_installed_module_xyz\n", "ModuleNotFoundError: No module named 'not_an_installed_module_xyz'"),
    ("raise RuntimeError('plugin exploded')\n", "RuntimeError: plugin exploded"),
    ("from judgecal.checkers import checker\n@checker('other/x:y')\ndef f(text):\n    '''Doc.'''\n",
     "must look like 'group:name'"),
    ("from judgecal.checkers import checker\n@checker('x:y')\ndef f(text, n):\n    '''Doc.'''\n",
     "keyword-only"),
    ("from judgecal.checkers import checker\n@checker('x:y')\ndef f(text):\n    return True\n", "no docstring"),
], ids=["import-error", "raises", "claims-a-namespace", "positional-argument", "no-docstring"])
def test_a_broken_plugin_is_reported_by_name_and_built_ins_keep_working(site: Path, module, message) -> None:
    name = f"broken_{abs(hash(message)) % 10**8}"
    install(site, "broken-dist", {"broken": name}, {name: module})
    install(site, "acme-checkers", {"acme": "acme_checkers"},
            {"acme_checkers": (EXAMPLE / "acme_checkers.py").read_text(encoding="utf-8")})
    registry = CheckerRegistry()
    [problem] = registry.problems()
    assert (problem.entry_point, problem.distribution) == ("broken", "broken-dist")
    assert message in problem.message
    assert registry.get("format:json") and registry.get("keywords:existence") and registry.get(TICKET)
    with pytest.raises(ValueError, match="checker plugin 'broken' \\(broken-dist\\) not loaded"):
        registry.get("broken-dist/x:y")


def test_entry_point_may_name_one_function_and_bad_targets_are_problems(site: Path) -> None:
    install(site, "acme-checkers", {"acme": "acme_checkers:cites_ticket", "junk": "acme_checkers:re",
                                    "text": "acme_checkers:cites_ticket.__doc__"},
            {"acme_checkers": (EXAMPLE / "acme_checkers.py").read_text(encoding="utf-8")})
    registry = CheckerRegistry()
    assert registry.get(TICKET).required == frozenset({"project"})
    junk, text = registry.problems()
    assert junk.entry_point == "junk" and "module 're' defines no @checker function" in junk.message
    assert text.entry_point == "text" and "neither a module nor a function marked with @checker" in text.message


def test_cli_names_a_broken_plugin_without_a_traceback(tmp_path: Path) -> None:
    site = install(tmp_path / "site", "broken-dist", {"broken": "broken_mod"},
                   {"broken_mod": "import not_an_installed_module_xyz\n"})
    done = judgecal(["checkers"], site)
    assert done.returncode == 1
    assert "checker plugin 'broken' (broken-dist) not loaded: ModuleNotFoundError" in done.stderr
    assert "Traceback" not in done.stderr and "format:json" in done.stdout
    # Everything else still works: an eval set with built-in and IFEval checks imports and checks.
    item = {"id": "t1", "instruction": "x", "constraints": [
        {"id": "c", "text": "no comma", "type": "format", "check": {"id": "punctuation:no_comma"}}]}
    (tmp_path / "e.jsonl").write_text(json.dumps(item) + "\n")
    done = judgecal(["--db", str(tmp_path / "p.db"), "import", "evalset", str(tmp_path / "e.jsonl")], site)
    assert done.returncode == 0, done.stderr


def test_plugins_load_lazily_and_once() -> None:
    calls = []

    def entry_points():
        calls.append(1)
        return []

    registry = CheckerRegistry(entry_points=entry_points)
    assert registry.get("format:json") and calls == []  # a built-in lookup loads nothing
    assert registry.get("keywords:existence") and calls == [1]  # an id not built in loads the plugins
    registry.all(), registry.get("startend:quotation")
    with pytest.raises(ValueError, match="unknown checker"):
        registry.get("nope:nope")
    assert calls == [1]


def test_unreadable_entry_points_leave_the_built_ins() -> None:
    def entry_points():
        raise OSError("metadata unreadable")

    registry = CheckerRegistry(entry_points=entry_points)
    assert registry.get("punctuation:no_comma")  # the bundled fallback still loads
    assert "metadata unreadable" in str(registry.problems()[0])


# --- IFEval as the bundled plugin ---------------------------------------------------------------------------------

def test_ifeval_is_registered_through_our_own_entry_point_group() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["judgecal.checkers"] == evalsets.BUNDLED_PLUGINS


def test_ifeval_via_the_entry_point(site: Path) -> None:
    install(site, "judgecal-as-installed", dict(evalsets.BUNDLED_PLUGINS), {})
    registry = CheckerRegistry(entry_points=lambda: [
        ep for ep in __import__("importlib.metadata").metadata.entry_points(group="judgecal.checkers")
        if ep.dist.name == "judgecal-as-installed"])
    [plugin] = registry.plugins()
    assert (plugin.entry_point, plugin.distribution, plugin.via) == ("ifeval", BUILTIN_SOURCE, "entry point")
    assert set(plugin.ids) == set(evalsets.IFEVAL_IDS) and len(plugin.ids) == 25


def test_ifeval_from_a_plain_checkout_without_entry_points() -> None:
    registry = CheckerRegistry(entry_points=lambda: [])
    [plugin] = registry.plugins()
    assert plugin.via == "bundled fallback" and set(plugin.ids) == set(evalsets.IFEVAL_IDS)
    assert all(registry.get(i).source == BUILTIN_SOURCE for i in evalsets.IFEVAL_IDS)


def test_installed_entry_point_is_used_when_present() -> None:
    import importlib.metadata

    if not any(ep.name == "ifeval" for ep in importlib.metadata.entry_points(group="judgecal.checkers")):
        pytest.skip("judgecal's entry points are not installed here (run `pip install -e .`)")
    assert [p.via for p in CheckerRegistry().plugins() if p.entry_point == "ifeval"] == ["entry point"]


def test_importing_evalsets_has_no_global_side_effect_on_langdetect() -> None:
    # A fresh process: the test session may have loaded IFEval already.
    code = textwrap.dedent("""
        import sys
        import langdetect, langdetect.detector_factory as f
        before = f.DetectorFactory.seed
        from judgecal import evalsets  # the installed name: the checkout folder `evalsets` is not a package of its own
        assert evalsets.BUNDLED_PLUGINS["ifeval"] not in sys.modules, "IFEval's checkers load on first use"
        r = evalsets.run_check("language:response_language", {"language": "en"},
                               text="This is plainly an English sentence about the weather today.")
        assert r.passed, r
        assert f.DetectorFactory.seed is before is None, f.DetectorFactory.seed
        assert f._factory is None, "langdetect's own global factory was created"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_language_detection_is_seeded_and_repeatable() -> None:
    # Short, mixed text is where langdetect's random sampling flips between languages without a fixed seed.
    text = "Ciao bella, das ist ok"
    first = evalsets.run_check("language:response_language", {"language": "it"}, text=text).detail
    assert all(evalsets.run_check("language:response_language", {"language": "it"}, text=text).detail == first
               for _ in range(20))


def test_a_duplicate_built_in_id_fails_when_the_registry_is_made(tmp_path: Path, monkeypatch) -> None:
    # Built-ins are ours: a duplicate is a bug to fail on at once, not a plugin problem to report.
    install(tmp_path, "x", {}, {"dup_checks_mod": '''
        from judgecal.checkers import checker

        @checker("text:one")
        def one(text: str) -> bool:
            """First."""
            return True

        @checker("text:one")
        def two(text: str) -> bool:
            """Second."""
            return False
    '''})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="checker 'text:one' registered twice"):
        CheckerRegistry(["dup_checks_mod"])
    sys.modules.pop("dup_checks_mod", None)


def test_concurrent_first_lookups_load_plugins_once() -> None:
    import threading

    calls = []
    gate = threading.Barrier(8)

    def entry_points():
        calls.append(1)
        return []

    registry = CheckerRegistry(entry_points=entry_points)
    found = []

    def lookup():
        gate.wait()
        found.append(registry.get("punctuation:no_comma").id)

    threads = [threading.Thread(target=lookup) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and found == ["punctuation:no_comma"] * 8
