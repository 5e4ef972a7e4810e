"""Simulated coverage of 95% kappa intervals on the table shapes judgecal's slices produce.

Reproduces the coverage table in docs/decisions.md ("Kappa intervals that never claim certainty"):

    python bench/kappa_interval_coverage.py            # 2,000 draws per cell (about a minute on one core)
    python bench/kappa_interval_coverage.py --reps 500 # quicker, noisier

Each cell draws `reps` tables of n pairs from a fixed population table (numpy seed 1), computes each interval and
counts how often it contains the population kappa. Draws where kappa is undefined (both raters constant) are left
out and counted in `valid`. Methods: Wald (kappa +/- 1.96 SE, as statsmodels; an undefined SE counts as [-1, 1]),
BCa bootstrap (500 resamples), Wilson-mapped (Wilson score interval of p_o mapped through (p_o - p_e)/(1 - p_e)),
and judgecal's `kappa_interval` (Wilson-mapped joined with Wald, clipped to [-1, 1]).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal.annotations import stats as agr  # noqa: E402
from judgecal.annotations.stats._two_rater import _wilson  # house: private


def population(kind: str) -> np.ndarray:
    """Population cell probabilities, rows = judge, columns = human."""
    tables = {
        # one label dominates (90% pass), kappa ~0.69
        "2x2 skewed": [[0.86, 0.03], [0.03, 0.08]],
        # 95% pass, kappa ~0.58: the demo's pass/fail constraints look like this
        "2x2 very skewed": [[0.92, 0.02], [0.02, 0.04]],
        # balanced, 95% agreement, kappa 0.90
        "2x2 high": [[0.475, 0.025], [0.025, 0.475]],
        # four refusal levels, one dominant, kappa ~0.69
        "4x4 skewed": np.diag([0.62, 0.12, 0.06, 0.04]) + 0.16 / 12 * (1 - np.eye(4)),
        # four balanced levels, 96% agreement, kappa ~0.95
        "4x4 high": np.diag([0.24] * 4) + 0.04 / 12 * (1 - np.eye(4)),
    }
    p = np.asarray(tables[kind], dtype=float)
    return p / p.sum()


def kappa_of(p: np.ndarray) -> float:
    po, pe = np.trace(p), p.sum(1) @ p.sum(0)
    return float((po - pe) / (1 - pe))


def wilson_mapped(r: agr.KappaResult) -> tuple[float, float]:
    lo, hi = _wilson(r.p_observed, r.n)
    pe = r.p_expected
    return max(-1.0, (lo - pe) / (1 - pe)), min(1.0, (hi - pe) / (1 - pe))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    methods = ("wald", "bca", "wilson-mapped", "judgecal")
    print(f"| table | true kappa | n | valid | {' | '.join(methods)} | judgecal zero-width |")
    print("|---|---|---|---|" + "---|" * len(methods) + "---|")
    for kind in ("2x2 skewed", "2x2 very skewed", "2x2 high", "4x4 skewed", "4x4 high"):
        p = population(kind)
        k0, k = kappa_of(p), p.shape[0]
        for n in (20, 50, 200):
            hits = dict.fromkeys(methods, 0)
            valid = zero = 0
            for _ in range(args.reps):
                t = rng.multinomial(n, p.ravel()).reshape(k, k).astype(float)
                r = agr.cohen_kappa_table(t)
                if not math.isfinite(r.kappa):
                    continue
                valid += 1
                wl, wh = (r.ci_low, r.ci_high) if math.isfinite(r.se) else (-1.0, 1.0)
                hits["wald"] += wl <= k0 <= wh
                cells = t.ravel().astype(int)
                a = np.repeat(np.repeat(np.arange(k), k), cells)
                b = np.repeat(np.tile(np.arange(k), k), cells)
                bc = agr.bootstrap_ci(a, b, method="bca", n_resamples=500, seed=int(rng.integers(1 << 30)),
                                      labels=list(range(k)))
                hits["bca"] += (bc.low <= k0 <= bc.high) if math.isfinite(bc.low) else 1
                lo, hi = wilson_mapped(r) if math.isfinite(r.se) else (-1.0, 1.0)
                hits["wilson-mapped"] += lo <= k0 <= hi
                iv = agr.kappa_interval(t)
                if math.isfinite(iv.low):
                    hits["judgecal"] += iv.low <= k0 <= iv.high
                    zero += iv.high <= iv.low
                else:  # undefined (one rater constant): claims nothing
                    hits["judgecal"] += 1
            cov = " | ".join(f"{hits[m] / valid:.3f}" for m in methods)
            print(f"| {kind} | {k0:.3f} | {n} | {valid} | {cov} | {zero} |", flush=True)


if __name__ == "__main__":
    main()
