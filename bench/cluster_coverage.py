"""Simulated coverage of the kappa and pass-rate intervals when pairs share items (issue 15 item 5).

Reproduces the coverage table in docs/decisions.md ("Intervals clustered by item"):

    python bench/cluster_coverage.py              # 1,000 draws per cell (about two minutes on one core)
    python bench/cluster_coverage.py --reps 300   # quicker, noisier

Each draw makes G items of m pairs (an item's constraints, or its runs by several models). Items differ: the human
pass probability of an item is Beta-distributed around 0.6 and the judge's error probability around 0.15, so pairs
of one item agree (or disagree) together. The estimands are the population's: kappa of the pooled judge × human
table and the human pass rate, both known in closed form. Kappa: judgecal's interval (`reports.agreement`, the one
the report and the gate show) without and with `clusters`. Pass rate: `ppi_pass_rate` (a random half of the pairs
labelled) without and with `clustered_pass_rate`. m = 1 is the control: one pair per item, both intervals the same.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal.annotations.reports import agreement  # noqa: E402
from judgecal.annotations.stats import clustered_pass_rate, ppi_pass_rate  # noqa: E402

PI_MEAN, ERR_MEAN = 0.6, 0.15


def beta(rng: np.random.Generator, mean: float, conc: float, size: int) -> np.ndarray:
    return rng.beta(mean * conc, (1 - mean) * conc, size)


def truth() -> tuple[float, float]:
    """(population kappa, population pass rate) with item pass probability and judge error independent."""
    pj = PI_MEAN * (1 - ERR_MEAN) + (1 - PI_MEAN) * ERR_MEAN
    pe = PI_MEAN * pj + (1 - PI_MEAN) * (1 - pj)
    po = 1 - ERR_MEAN
    return (po - pe) / (1 - pe), PI_MEAN


def draw(rng: np.random.Generator, g: int, m: int, conc: float):
    items = np.repeat(np.arange(g), m)
    pi = beta(rng, PI_MEAN, conc, g)[items]
    err = beta(rng, ERR_MEAN, conc, g)[items]
    human = rng.random(g * m) < pi
    judge = np.where(rng.random(g * m) < err, ~human, human)
    return items, human, judge


def cell(g: int, m: int, conc: float, reps: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    kappa, rate = truth()
    hits = {"kappa": 0, "kappa clustered": 0, "PPI": 0, "PPI clustered": 0}
    deffs = []
    for _ in range(reps):
        items, human, judge = draw(rng, g, m, conc)
        h = ["pass" if x else "fail" for x in human]
        j = ["pass" if x else "fail" for x in judge]
        plain = agreement(j, h, ("pass", "fail"))
        clus = agreement(j, h, ("pass", "fail"), clusters=items.tolist())
        hits["kappa"] += plain.kappa_ci_low <= kappa <= plain.kappa_ci_high
        hits["kappa clustered"] += clus.kappa_ci_low <= kappa <= clus.kappa_ci_high
        deffs.append(clus.design_effect)
        lab = rng.random(g * m) < 0.5
        f = judge.astype(float)
        pr = ppi_pass_rate("m", f.tolist(), f[lab].tolist(), human[lab].astype(int).tolist())
        cpr, _ = clustered_pass_rate(pr, f.tolist(), items.tolist(), f[lab].tolist(), human[lab].astype(int).tolist(),
                                     [1.0] * int(lab.sum()), items[lab].tolist())
        hits["PPI"] += pr.ppi_ci_low <= rate <= pr.ppi_ci_high
        hits["PPI clustered"] += cpr.ppi_ci_low <= rate <= cpr.ppi_ci_high
    out = {k: v / reps for k, v in hits.items()}
    out["mean deff (kappa)"] = float(np.mean(deffs))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    args = ap.parse_args()
    cells = [(240, 1, 2.0), (60, 4, 2.0), (30, 8, 2.0), (60, 4, 20.0), (120, 4, 2.0)]
    print(f"true kappa {truth()[0]:.3f}, true pass rate {truth()[1]:.2f}; {args.reps} draws per cell, seed 1")
    print("| items G | pairs per item m | concentration | kappa | kappa clustered | mean deff | PPI | PPI clustered |")
    print("|---|---|---|---|---|---|---|---|")
    for g, m, conc in cells:
        r = cell(g, m, conc, args.reps, seed=1)
        print(f"| {g} | {m} | {conc:g} | {r['kappa']:.3f} | {r['kappa clustered']:.3f} | "
              f"{r['mean deff (kappa)']:.2f} | {r['PPI']:.3f} | {r['PPI clustered']:.3f} |")


if __name__ == "__main__":
    main()
