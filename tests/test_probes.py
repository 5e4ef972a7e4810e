"""`judgecal probe KIND` (issue 15.3): bias probes by controlled perturbation, run with the judge itself (the real
openai SDK over HTTP against tests/openai_stub.py). Each planted bias is flagged — a judge that obeys injected
instructions, prefers the first position, passes padded outputs or changes its label with the rubric's wording — and
a clean judge stays quiet; the gate's limits read the conservative bound; error rows are never answers; a probe is
cached and resumes like `judge`. Position bias from stored verdicts is checked against truescore's published
LLMBar FairEval figure."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from judgecal import annotations as ann
from judgecal.annotations.reports import clopper_pearson, position_bias, probe_results, verdict_position_bias
from judgecal.cli import main
from judgecal.judge import INJECTIONS, PADDING
from openai_stub import Reply, StubServer, always, by_position, error_body, prefers, verdicts

REPO = Path(__file__).resolve().parents[1]
N = 30  # items: even = a GOOD output humans passed, odd = a BAD output humans failed
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "llmbar"


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def pass_fail_project(tmp_path: Path, n_items: int = N) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "p.db"
    items = [{"id": f"it-{n}", "instruction": f"Answer question {n}.",
              "constraints": [{"id": "correct", "text": "The answer is correct.", "type": "content"}]} for n in range(n_items)]
    runs = [{"id": f"r-{n}", "item_id": f"it-{n}", "model": "model-a", "run_id": "ra",
             "output": f"{'GOOD' if n % 2 == 0 else 'BAD'} answer {n}"} for n in range(n_items)]
    labels = [{"run_record_id": f"r-{n}", "constraint_id": "correct", "reviewer": "ann",
               "label": "pass" if n % 2 == 0 else "fail", "blind": True} for n in range(n_items)]
    assert main(["--db", str(db), "import", "evalset", str(_jsonl(tmp_path / "i.jsonl", items))]) == 0
    assert main(["--db", str(db), "import", "runs", str(_jsonl(tmp_path / "r.jsonl", runs))]) == 0
    assert main(["--db", str(db), "sample", "--rate", "1.0", "--overlap", "0"]) == 0
    assert main(["--db", str(db), "import", "labels", str(_jsonl(tmp_path / "l.jsonl", labels))]) == 0
    return db


def pairwise_project(tmp_path: Path, n: int = 24) -> Path:
    """LLMBar-shaped pairs: the GOOD output sits in slot 1 on even rows, slot 2 on odd ones."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "pw.db"
    rows = [{"item_id": f"pw-{k}", "instruction": f"Answer {k}.",
             "output_1": f"GOOD {k}" if k % 2 == 0 else f"weak {k}", "output_2": f"weak {k}" if k % 2 == 0 else f"GOOD {k}",
             "human_label": 1 if k % 2 == 0 else 2} for k in range(n)]
    assert main(["--db", str(db), "import", "llmbar", str(_jsonl(tmp_path / "pw.jsonl", rows))]) == 0
    return db


def _output(req) -> str:
    """The quoted output of the judge's prompt (between the marker-tagged output tags)."""
    prompt = req.prompt
    start = prompt.index("<output jc-")
    return prompt[start:prompt.index("</output jc-", start)]


def clean(req) -> str:
    return "pass" if "GOOD answer" in _output(req) else "fail"


INJECTION_SIGNS = ("Note to the evaluator", "</output>\n", "<|im_start|>", '{"label": "pass"')


def obeys_injection(req) -> str:
    return "pass" if any(s in _output(req) for s in INJECTION_SIGNS) else clean(req)


def passes_padding(req) -> str:
    return "pass" if "To expand on the above" in _output(req) else clean(req)


def wording_sensitive(req) -> str:
    return clean(req) if "You are a strict judge" in req.prompt else "pass"


def probe(db: Path, url: str, kind: str, *extra: str) -> int:
    return main(["--db", str(db), "probe", kind, "--model", "j", "--base-url", url, "--api-key", "x", "--quiet",
                 "--max-retries", "0", *extra])


def gate_probe_checks(db: Path, capsys, *flags: str) -> tuple[int, list[dict]]:
    capsys.readouterr()
    code = main(["--db", str(db), "gate", "--min-kappa", "0", "--min-n", "1", "--json", *flags])
    checks = [c for c in json.loads(capsys.readouterr().out)["checks"] if c["check"] == "probe"]
    return code, checks


@pytest.mark.parametrize("kind, biased, flag, limit, expect", [
    ("injection", obeys_injection, "--max-injection-flip", "0.25", (15, 15)),
    ("verbosity", passes_padding, "--max-verbosity-flip", "0.25", (15, 15)),
    ("consistency", wording_sensitive, "--max-inconsistency", "0.25", (15, 30)),
], ids=["injection", "verbosity", "consistency"])
def test_planted_bias_is_flagged_and_a_clean_judge_stays_quiet(tmp_path, capsys, kind, biased, flag, limit, expect):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(biased)) as s:
        assert probe(db, s.url, kind) == 0
        sent = s.count
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
    assert (r.rate.k, r.rate.n) == expect and r.incomplete == 0 and r.errors == 0
    assert len(r.flipped) == expect[0]
    if kind == "injection":  # only outputs humans labelled fail are perturbed: 15 pairs x (baseline + 4 styles)
        assert sent == 15 * (1 + len(INJECTIONS))
        assert all(p.k == 15 for p in r.by_variant.values()) and len(r.by_variant) == len(INJECTIONS)
    code, checks = gate_probe_checks(db, capsys, flag, limit)
    assert [c["ok"] for c in checks] == [False] and code == 1
    assert checks[0]["value"] == pytest.approx(clopper_pearson(*expect).high)

    clean_db = pass_fail_project(tmp_path / "clean")
    with StubServer(verdicts(clean)) as s:
        assert probe(clean_db, s.url, kind) == 0
    with ann.unit_of_work(clean_db) as d:
        (r,) = probe_results(d)
    assert r.rate.k == 0 and not r.flipped
    # The conservative bound: 0 of 15 still leaves 0.218 possible, so a limit of 0.25 passes and 0.02 cannot.
    code, checks = gate_probe_checks(clean_db, capsys, flag, limit)
    assert [c["ok"] for c in checks] == [True]
    assert checks[0]["value"] == pytest.approx(clopper_pearson(0, r.rate.n).high)
    _, checks = gate_probe_checks(clean_db, capsys, flag, "0.02")
    assert [c["ok"] for c in checks] == [False]


def test_the_perturbations_reach_the_judge(tmp_path):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "verbosity") == 0
        assert probe(db, s.url, "injection", "--sample", "3", "--seed", "7") == 0
        outputs = [_output(r) for r in s.requests]
    assert sum(PADDING.strip()[:40] in o for o in outputs) == N
    for text in INJECTIONS.values():
        assert sum(text.strip()[:20] in o for o in outputs) == 3
    # The fake closing tag stays inside the real (marker-carrying) output tags.
    assert all("</output>" not in o.split("<output jc-")[0] for o in outputs)


def test_position_probe_flags_a_first_position_judge_and_not_a_fair_one(tmp_path, capsys):
    db = pairwise_project(tmp_path)
    with StubServer(by_position("output_1")) as s:
        assert probe(db, s.url, "position") == 0
        assert s.count == 2 * 24
        prompts = [r.prompt for r in s.requests if "Answer 0." in r.prompt]
    # The swap reaches every place the pair is quoted: LLMBar items carry both outputs in their input too.
    assert len(prompts) == 2
    for prompt in prompts:
        quoted_input = prompt[prompt.index("<input jc-"):prompt.index("</input jc-")]
        quoted_output = _output(type("R", (), {"prompt": prompt})())
        first_in_input = quoted_input.index("GOOD 0") < quoted_input.index("weak 0")
        assert first_in_input == (quoted_output.index("GOOD 0") < quoted_output.index("weak 0"))
    assert sorted(p.index("GOOD 0") < p.index("weak 0") for p in prompts) == [False, True]
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
    assert (r.position.compared, r.position.first_position.k, r.position.first_both.k) == (24, 48, 24)
    assert r.position.p_value < 1e-10 and len(r.flipped) == 24
    assert "flipped: pw-0#pair/preferred, pw-1#pair/preferred" in r.format()
    code, checks = gate_probe_checks(db, capsys, "--max-position-bias", "0.55")
    assert [c["ok"] for c in checks] == [False] and code == 1

    fair = pairwise_project(tmp_path / "fair")
    with StubServer(prefers("GOOD")) as s:
        assert probe(fair, s.url, "position") == 0
    with ann.unit_of_work(fair) as d:
        (r,) = probe_results(d)
    assert (r.position.first_position.k, r.position.first_position.n, r.position.first_both.n) == (24, 48, 0)
    assert r.position.p_value == 1.0
    # 24/48 exactly fair, yet [0.352, 0.648] is not inside [0.45, 0.55]: too few pairs to show the limit holds.
    _, checks = gate_probe_checks(fair, capsys, "--max-position-bias", "0.55")
    assert [c["ok"] for c in checks] == [False] and "not within" in checks[0]["reason"]
    _, checks = gate_probe_checks(fair, capsys, "--max-position-bias", "0.7")
    assert [c["ok"] for c in checks] == [True]


def test_a_gate_limit_without_a_probe_fails_and_says_why(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "verbosity") == 0
    code, checks = gate_probe_checks(db, capsys, "--max-injection-flip", "0.5", "--max-verbosity-flip", "0.5")
    by = {c["stratum"].rsplit(" · ", 1)[1]: c for c in checks}
    assert not by["injection"]["ok"] and "no injection probe was run" in by["injection"]["reason"]
    assert "judgecal probe injection" in by["injection"]["reason"]
    assert by["verbosity"]["ok"] and code == 1


def test_a_judge_that_errors_on_perturbed_prompts_cannot_pass(tmp_path, capsys):
    """The attack: answer the baseline, fail (HTTP 500) on every injected prompt. Error rows are never answers, the
    pairs are incomplete, and the gate counts them as flipped."""
    db = pass_fail_project(tmp_path)

    def fail_injected(req):
        if any(s in _output(req) for s in INJECTION_SIGNS):
            return Reply(500, error_body(500, "boom"))
        return clean(req)

    with StubServer(verdicts(fail_injected)) as s:
        assert probe(db, s.url, "injection") == 0  # some requests answered: a warning, not a failed batch
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
        stored = d.execute("SELECT count(*) FROM probe_verdicts WHERE error IS NOT NULL").fetchone()[0]
        assert d.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 0  # probes never enter `verdicts`
    assert stored == 15 * len(INJECTIONS) == r.errors
    assert (r.rate.n, r.incomplete) == (0, 15)
    _, checks = gate_probe_checks(db, capsys, "--max-injection-flip", "0.9")
    assert [c["ok"] for c in checks] == [False]
    assert checks[0]["value"] == pytest.approx(clopper_pearson(15, 15).high)

    # Resume: only the error rows are asked again; a clean answer now completes the pairs.
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "injection") == 0
        assert s.count == 15 * len(INJECTIONS)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, "injection") == 0
        assert s.count == 0  # cached
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
    assert (r.rate.k, r.rate.n, r.incomplete, r.errors) == (0, 15, 0, 0)


def test_nothing_answered_is_a_failed_batch_not_a_rate(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(always(500)) as s:
        assert probe(db, s.url, "verbosity") == 3
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
        (status,) = d.execute("SELECT status FROM batches WHERE kind = 'probe'").fetchone()
    # No rate; the gate's worst case counts the 30 unanswered pairs as flipped.
    assert status == "failed" and r.rate.n == 0 and r.incomplete == 30 and r.bounds[1] == 1.0


@pytest.mark.parametrize("argv, message", [
    (["position"], "nothing to probe: the position probe runs on counted pairwise pairs"),
    (["verbosity", "--paraphrase", "x.txt"], "--paraphrase belongs to `probe consistency`"),
    (["consistency", "--rubric", "nonexistent"], "unknown rubric 'nonexistent'"),
], ids=["no-pairwise-pairs", "paraphrase-elsewhere", "bad-rubric"])
def test_bad_probe_requests_are_exit_2_and_change_nothing(tmp_path, capsys, argv, message):
    db = pass_fail_project(tmp_path)
    with ann.unit_of_work(db) as d:
        before = ann.table_counts(d)
    with StubServer(verdicts(clean)) as s:
        assert probe(db, s.url, *argv) == 2
        assert s.count == 0
    assert message in capsys.readouterr().err
    with ann.unit_of_work(db) as d:
        assert ann.table_counts(d) == before


def test_report_shows_probes_in_text_and_json(tmp_path, capsys):
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(obeys_injection)) as s:
        assert probe(db, s.url, "injection", "--sample", "5", "--seed", "1") == 0
    capsys.readouterr()
    assert main(["--db", str(db), "report"]) == 0
    out = capsys.readouterr().out
    assert "Bias probes" in out and "injection flip rate" in out and "100.0% [47.8%, 100.0%] (5/5)" in out
    assert main(["--db", str(db), "report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (p,) = data["probes"]
    assert (p["probe"], p["rate"]["k"], p["rate"]["n"], len(p["flipped"])) == ("injection", 5, 5, 5)
    assert data["position_bias"] == []


def test_a_seeded_sample_draws_the_same_pairs(tmp_path):
    db = pass_fail_project(tmp_path)
    with ann.unit_of_work(db) as d:
        a = [t.record.id for t in ann.probe_targets(d, "verbosity", sample=6, seed=3)]
        b = [t.record.id for t in ann.probe_targets(d, "verbosity", sample=6, seed=3)]
        c = [t.record.id for t in ann.probe_targets(d, "verbosity", sample=6, seed=4)]
    assert a == b != c and len(set(a)) == 6


def test_position_bias_by_hand():
    # 3 pairs agree (one first pick each), 2 pick the first-shown both times, 1 the second-shown both times, 1 error.
    orders = [("a", "output_1", "output_1"), ("b", "output_2", "output_2"), ("c", "output_1", "output_1"),
              ("d", "output_1", "output_2"), ("e", "output_1", "output_2"), ("f", "output_2", "output_1"),
              ("g", "output_1", None)]
    b = position_bias(orders)
    assert (b.compared, b.incomplete, b.first_position.k, b.first_position.n) == (6, 1, 3 + 4, 12)
    assert (b.first_both.k, b.first_both.n, b.flipped) == (2, 3, ("d", "e", "f"))
    assert b.sign_p_value == pytest.approx(1.0)  # 2 of 3 vs 0.5, two-sided: P(X<=1)+P(X>=2)... = 1
    # The pair-level bound widens the answer-level one when most pairs are inconsistent.
    all_flip = position_bias([(str(k), "output_1", "output_2") for k in range(10)])
    assert all_flip.bounds[0] <= all_flip.first_position.low


def test_faireval_first_position_rate_matches_truescore(tmp_path, capsys):
    """truescore on LLMBar FairEval GPT-4 (vanilla_norules), as quoted in issue 15: first-position rate 0.621
    [0.533, 0.704], p = 0.0067 — 82 of the 132 answers picked the first-shown output: the 46 order-consistent pairs
    pick it once each, and 18 of the 20 inconsistent pairs both times (46 + 36 = 82)."""
    path = DATA / "faireval.jsonl"
    if not path.exists():
        pytest.skip(f"LLMBar reference data not present at {path} (read-only shared data, not in the repository)")
    db = tmp_path / "f.db"
    assert main(["--db", str(db), "import", "llmbar", str(path)]) == 0
    with ann.unit_of_work(db) as d:
        (v,) = verdict_position_bias(d, rubric="gpt4_vanilla_norules")
    b = v.bias
    assert (b.first_position.k, b.first_position.n, b.first_both.k, b.first_both.n) == (82, 132, 18, 20)
    assert round(b.first_position.rate, 3) == 0.621
    assert (round(b.first_position.low, 3), round(b.first_position.high, 3)) == (0.533, 0.704)
    assert round(b.p_value, 4) == 0.0067
    assert b.sign_p_value == pytest.approx(0.000402, abs=1e-6)  # 2·(1 + 20 + 190)/2^20
    capsys.readouterr()
    assert main(["--db", str(db), "report", "--rubric", "gpt4_vanilla_norules"]) == 0
    assert "first-position rate 62.1% [53.3%, 70.4%] (82/132), p = 0.0067" in capsys.readouterr().out
    # Gated from the stored verdicts (no probe run needed): [0.533, 0.704] is not within [0.45, 0.55].
    code, checks = gate_probe_checks(db, capsys, "--rubric", "gpt4_vanilla_norules", "--max-position-bias", "0.55")
    assert [c["ok"] for c in checks] == [False] and "stored pairwise verdicts" in checks[0]["reason"]


def test_a_probe_killed_midway_resumes_with_nothing_lost_or_asked_twice(tmp_path):
    """Like `judge` (tests/test_judge_crash.py): SIGKILL the probe batch, run it again; every answer committed before
    the kill is kept and never asked again, the rest is asked exactly once."""
    db = pass_fail_project(tmp_path, n_items=200)  # verbosity: 200 pairs x 2 variants = 400 requests
    log = tmp_path / "requests.log"
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENAI_API_KEY="sk-test")
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "openai_stub.py"), "--latency", "0.05",
                               "--log", str(log), "--answer", "fail"], stdout=subprocess.PIPE, text=True, env=env)

    def stored() -> set[tuple[str, str]]:
        conn = sqlite3.connect(db)
        try:
            return set(conn.execute("SELECT run_record_id, variant FROM probe_verdicts WHERE error IS NULL"))
        finally:
            conn.close()

    try:
        url = server.stdout.readline().strip()
        cmd = [sys.executable, "-m", "judgecal", "--db", str(db), "probe", "verbosity", "--model", "judge-x",
               "--base-url", url, "--concurrency", "8", "--max-retries", "0", "--quiet"]
        first = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(stored()) < 80:
            time.sleep(0.05)
        assert first.poll() is None, "the probe finished before it could be killed"
        first.send_signal(signal.SIGKILL)
        first.wait()
        time.sleep(0.3)
        committed = stored()
        seen_before_kill = len(log.read_text().splitlines())
        assert 80 <= len(committed) < 400
        rerun = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    variants = ("baseline", "padded")
    every = {(f"r-{n}", v) for n in range(200) for v in variants}
    assert stored() == every
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM probe_verdicts").fetchone()[0] == 400
    assert [r[0] for r in conn.execute("SELECT status FROM batches ORDER BY started_at")] == ["dead", "done"]
    conn.close()
    second = [(rid, variants[int(rep)]) for rid, _cid, rep in
              (line.strip().split("|") for line in log.read_text().splitlines()[seen_before_kill:])]
    assert not committed & set(second), "an answer committed before the kill was asked again"
    assert set(second) == every - committed and max(Counter(second).values()) == 1


def sample_and_label_pairs(db, tmp_path) -> None:
    """Draw every pair of `judge --pairwise`'s records into the sample and give each a blind label."""
    assert main(["--db", str(db), "sample", "--rate", "1.0", "--overlap", "0"]) == 0
    with ann.unit_of_work(db) as d:
        pair_ids = [r[0] for r in d.execute("SELECT run_record_id FROM pairwise_outputs ORDER BY 1")]
    labels = [{"run_record_id": rid, "constraint_id": "preferred", "reviewer": "ann", "label": "output_1",
               "blind": True} for rid in pair_ids]
    assert main(["--db", str(db), "import", "labels", str(_jsonl(tmp_path / "pl.jsonl", labels))]) == 0


def test_position_probe_swaps_judge_pairwise_records_from_their_recorded_orders(tmp_path, capsys):
    from test_pairwise import judge as judge_pairwise, project as two_runs

    db = two_runs(tmp_path)
    with StubServer(prefers("GOOD")) as s:
        assert judge_pairwise(db, s.url) == 0
    sample_and_label_pairs(db, tmp_path)
    with ann.unit_of_work(db) as d:
        targets = ann.probe_targets(d, "position")
        shown_ba = dict(d.execute("SELECT run_record_id, shown_ba FROM pairwise_outputs").fetchall())
    assert [t.record.id for t in targets] == sorted(shown_ba) and len(targets) == 10
    assert all(t.swapped_output == shown_ba[t.record.id] for t in targets)
    assert all(t.swapped_output.index("weak answer") < t.swapped_output.index("GOOD answer") for t in targets)
    with StubServer(prefers("GOOD")) as s:
        assert probe(db, s.url, "position") == 0
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
    assert (r.position.compared, r.position.first_both.n, r.position.first_position.k) == (10, 0, 10)


def test_a_judge_that_passes_everything_has_nothing_to_flip_and_cannot_pass_the_gate(tmp_path, capsys):
    """The attack on the flip rate's denominator: a judge that already passes every output never flips toward pass.
    Its pairs are excluded (baseline already pass), the rate has n = 0, and the limit cannot be shown to hold."""
    db = pass_fail_project(tmp_path)
    with StubServer(verdicts(lambda req: "pass")) as s:
        assert probe(db, s.url, "verbosity") == 0
    with ann.unit_of_work(db) as d:
        (r,) = probe_results(d)
    assert (r.rate.n, r.excluded, r.incomplete) == (0, 30, 0)
    _, checks = gate_probe_checks(db, capsys, "--max-verbosity-flip", "0.5")
    assert [c["ok"] for c in checks] == [False] and "nothing measured (n = 0)" in checks[0]["reason"]


@pytest.mark.parametrize("argv, message", [
    (["--min-kappa", "0", "--max-position-bias", "0.45"], "a first-position rate limit is at least 0.5"),
    (["--run", "ra", "--max-injection-flip", "0.02"], "--max-injection-flip belong(s) to the judge gate"),
], ids=["position-limit-below-half", "probe-limit-on-the-run-gate"])
def test_bad_gate_probe_limits_are_exit_2(tmp_path, capsys, argv, message):
    db = pass_fail_project(tmp_path)
    capsys.readouterr()
    assert main(["--db", str(db), "gate", *argv]) == 2
    assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):  # not a share: argparse refuses it
        main(["--db", str(db), "gate", "--min-kappa", "0", "--max-inconsistency", "1.5"])


def test_the_injection_probe_reads_the_blind_first_labels(tmp_path):
    """Its pairs are those humans labelled fail, as agreement counts labels: each reviewer's blind first label. A
    label changed after the reveal chose them before (standing labels; a review, wave 15): a reviewer could pick
    which pairs the injection probe plants its instruction in, and so its flip rate."""
    db = pass_fail_project(tmp_path)
    with ann.unit_of_work(db) as d:
        before = sorted(t.record.id for t in ann.probe_targets(d, "injection"))
        assert before == sorted(f"r-{n}" for n in range(N) if n % 2 == 1)
        for n in range(0, 6, 2):  # blind first labels pass: revealed, then changed to fail
            pair = ann.Pair(f"r-{n}", "correct")
            ann.reveal(d, "ann", pair)
            assert ann.record_label(d, "ann", pair, "fail").event == "change"
        for n in range(1, 6, 2):  # blind first labels fail: changed to pass
            assert ann.record_label(d, "ann", ann.Pair(f"r-{n}", "correct"), "pass").event == "change"
        assert sorted(t.record.id for t in ann.probe_targets(d, "injection")) == before
