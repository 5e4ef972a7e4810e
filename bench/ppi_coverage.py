"""Coverage of the corrected pass rate and of the paired corrected difference, by the λ rule (issue 15.1).

The simulation of issue 15: N items answered by two models under test, A and B, whose true passes are correlated
through item difficulty (true pass rates about 0.68 and 0.59); a judge with TPR 0.95 whose TNR is 0.60 on A (longer
outputs, which it favours) and 0.79 on B, so the judge alone overstates the difference. n items are drawn at random
and labelled by humans for BOTH runs (the paired design of `judgecal sample --paired`). For each n and each rule for
the PPI++ weight λ the script reports the share of replications whose 95% CI covers the truth (the mean over the N
items) and the mean CI width, for A's pass rate and for the difference A - B:

- `λ = 1`: plain PPI (Angelopoulos et al. 2023) at every n;
- `PPI++`: λ̂ tuned from 2 labels on (Angelopoulos, Duchi & Zrnic 2023), clipped to [0, 1];
- `rule`: judgecal's rule, λ = 1 below PPI_TUNE_MIN_N (30) labels and PPI++ from there.

It also prints the width of the unpaired difference (the two runs' SEs added, what `compare` did before the paired
design) on the same labels. Every estimate goes through `judgecal.annotations.stats.ppi_mean`, the library's own
estimator. Run from the repository root:

    python bench/ppi_coverage.py [--reps 1000] [--items 4000] [--seed 15]

The table in docs/decisions.md ("Paired corrected differences") is this script's output with the defaults.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal.annotations.stats import PPI_TUNE_MIN_N, Z_95, ppi_mean  # noqa: E402

RULES = {"λ = 1": 10 ** 9, "PPI++": 2, "rule": PPI_TUNE_MIN_N}
SIZES = (10, 20, 30, 60, 150, 600)


def simulate(rng: np.random.Generator, items: int) -> tuple[np.ndarray, ...]:
    difficulty = rng.random(items)
    y_a = (difficulty < 0.68).astype(float)
    # B shares A's item difficulty 70% of the time: the pairing the paired design exploits
    shared = rng.random(items) < 0.7
    y_b = (np.where(shared, difficulty, rng.random(items)) < 0.59).astype(float)

    def judge(y: np.ndarray, tnr: float) -> np.ndarray:
        u = rng.random(items)
        return np.where(y == 1, u < 0.95, u >= tnr).astype(float)

    return y_a, y_b, judge(y_a, 0.60), judge(y_b, 0.79)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--items", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    hits = {(k, n, r): 0 for k in ("rate", "diff") for n in SIZES for r in RULES}
    width = {key: 0.0 for key in hits}
    unpaired = {n: 0.0 for n in SIZES}
    for _ in range(args.reps):
        y_a, y_b, f_a, f_b = simulate(rng, args.items)
        truth = {"rate": y_a.mean(), "diff": y_a.mean() - y_b.mean()}
        order = rng.permutation(args.items)
        for n in SIZES:
            lab = order[:n]
            data = {"rate": (f_a, y_a), "diff": (f_a - f_b, y_a - y_b)}
            for kind, (f, y) in data.items():
                for rule, tune in RULES.items():
                    m = ppi_mean(f.tolist(), f[lab].tolist(), y[lab].tolist(), tune_min_n=tune)
                    half = Z_95 * m.se
                    hits[(kind, n, rule)] += abs(m.estimate - truth[kind]) <= half
                    width[(kind, n, rule)] += 2 * half
            ses = [ppi_mean(f.tolist(), f[lab].tolist(), y[lab].tolist()).se for f, y in ((f_a, y_a), (f_b, y_b))]
            unpaired[n] += 2 * Z_95 * math.hypot(*ses)
    print(f"{args.reps} replications, {args.items} items, seed {args.seed}; 95% CIs: coverage (mean width)")
    print()
    print("| estimand | n labelled | " + " | ".join(RULES) + " | unpaired SEs added (rule) |")
    print("|---|---|" + "---|" * (len(RULES) + 1))
    for kind in ("rate", "diff"):
        for n in SIZES:
            cells = [f"{hits[(kind, n, r)] / args.reps:.3f} ({width[(kind, n, r)] / args.reps:.3f})" for r in RULES]
            extra = f"{unpaired[n] / args.reps:.3f}" if kind == "diff" else "–"
            name = "pass rate A" if kind == "rate" else "difference A − B"
            print(f"| {name} | {n} | " + " | ".join(cells) + f" | {extra} |")


if __name__ == "__main__":
    main()
