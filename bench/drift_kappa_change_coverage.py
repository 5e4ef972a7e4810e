"""Coverage of the drift report's paired bootstrap interval for the kappa change (annotations.stats.paired_kappa_change)
on anchors of n pairs drawn from a population with a known change.

Population (seed 1): human says fail with p = 0.3; the judge at freeze agrees with the human on 90% of pairs; the
judge now answers the opposite of its frozen verdict on `flip` of the pairs (chosen at random, so mostly away from
the humans). The true change is the kappa change on 1,000,000 pairs. Prints the share of 95% intervals that cover it.

    python bench/drift_kappa_change_coverage.py [--reps 1000]
"""

from __future__ import annotations

import argparse

import numpy as np

from judgecal.annotations.stats import paired_kappa_change


def population(rng: np.random.Generator, n: int, flip: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    human = rng.random(n) < 0.3
    before = np.where(rng.random(n) < 0.9, human, ~human)
    after = np.where(rng.random(n) < flip, ~before, before)
    return human, before, after


def kappa(a: np.ndarray, b: np.ndarray) -> float:
    po = np.mean(a == b)
    pe = np.mean(a) * np.mean(b) + np.mean(~a) * np.mean(~b)
    return (po - pe) / (1 - pe)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=1000)
    args = p.parse_args()
    rng = np.random.default_rng(1)
    print("| n | judge flips | true change | coverage | mean width |")
    print("|---|---|---|---|---|")
    for flip in (0.0, 0.05, 0.15):
        h, b, a = population(rng, 1_000_000, flip)
        truth = kappa(h, a) - kappa(h, b)
        for n in (30, 100, 300):
            cover, width = 0, []
            for rep in range(args.reps):
                idx = rng.integers(0, len(h), n)
                lab = lambda x: ["fail" if v else "pass" for v in x]  # noqa: E731
                k = paired_kappa_change(lab(h[idx]), lab(b[idx]), lab(a[idx]), n_resamples=1000, seed=rep)
                if np.isfinite(k.low):
                    cover += k.low <= truth <= k.high
                    width.append(k.high - k.low)
            print(f"| {n} | {flip:.0%} | {truth:+.3f} | {cover / args.reps:.3f} | {np.mean(width):.3f} |")


if __name__ == "__main__":
    main()
