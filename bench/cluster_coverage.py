"""Simulated coverage of the kappa and pass-rate intervals when pairs share items (issue 15 item 5).

Reproduces the coverage table in docs/decisions.md ("Intervals clustered by item"):

    python bench/cluster_coverage.py              # 1,000 draws per cell (about two minutes on one core)
    python bench/cluster_coverage.py --reps 300   # quicker, noisier
    python bench/cluster_coverage.py --table difference   # compare's difference A - B only (about 30 s)

Each draw makes G items of m pairs (an item's constraints, or its runs by several models). Items differ: the human
pass probability of an item is Beta-distributed around 0.6 and the judge's error probability around 0.15, so pairs
of one item agree (or disagree) together. The estimands are the population's: kappa of the pooled judge × human
table and the human pass rate, both known in closed form. Kappa: judgecal's interval (`reports.agreement`, the one
the report and the gate show) without and with `clusters`. Pass rate: `ppi_pass_rate` (a random half of the pairs
labelled) without and with `clustered_pass_rate`. m = 1 is the control: one pair per item, both intervals the same.

`--table difference` (the second table there, "compare's difference"): two runs A and B of the same G items, m
constraints each; an item's pass probability differs by run (Beta around 0.7 and 0.55) and its judge-error
probability (Beta around 0.15) is shared by both runs and all its constraints. The estimand is the true difference
0.15 of compare's judge-corrected pass rates. Unpaired: each run's pairs labelled at random (half), `corrected_rate`
per run without and with clusters, the SEs added; paired: half the item × constraint units labelled in both runs,
`ppi_difference` without and with `clustered_difference`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal.annotations.reports import agreement  # noqa: E402
from judgecal.annotations.stats import (Z_95, clustered_difference, clustered_pass_rate, corrected_rate,  # noqa: E402
                                        ppi_difference, ppi_pass_rate)

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


PA_MEAN, PB_MEAN = 0.7, 0.55


def difference_cell(g: int, m: int, conc: float, reps: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    true = PA_MEAN - PB_MEAN
    hits = {"unpaired": 0, "unpaired clustered": 0, "paired": 0, "paired clustered": 0}
    widths = {k: 0.0 for k in hits}
    deffs = []
    items = np.repeat(np.arange(g), m)
    strata = [f"c{k}" for k in np.tile(np.arange(m), g)]
    for _ in range(reps):
        err = beta(rng, ERR_MEAN, conc, g)[items]
        runs = []
        for mean in (PA_MEAN, PB_MEAN):
            human = rng.random(g * m) < beta(rng, mean, conc, g)[items]
            judge = np.where(rng.random(g * m) < err, ~human, human)
            runs.append((human.astype(float), judge.astype(float)))
        rates: dict[bool, list] = {False: [], True: []}
        for human, judge in runs:
            idx = np.flatnonzero(rng.random(g * m) < 0.5)
            args = ((0, 0), judge.tolist(), judge[idx].tolist(), human[idx].astype(int).tolist(), strata,
                    [strata[i] for i in idx])
            rates[False].append(corrected_rate(*args))
            rates[True].append(corrected_rate(*args, clusters_all=items.tolist(), clusters_lab=items[idx].tolist()))
        for clustered, key in ((False, "unpaired"), (True, "unpaired clustered")):
            a, b = rates[clustered]
            d, se = a.estimate - b.estimate, float(np.hypot(a.se, b.se))
            hits[key] += d - Z_95 * se <= true <= d + Z_95 * se
            widths[key] += 2 * Z_95 * se
        (ya, fa), (yb, fb) = runs
        idx = np.flatnonzero(rng.random(g * m) < 0.5)
        s_lab = [strata[i] for i in idx]
        plain = ppi_difference(fa.tolist(), fb.tolist(), fa[idx].tolist(), fb[idx].tolist(), ya[idx].tolist(),
                               yb[idx].tolist(), strata_all=strata, strata_lab=s_lab)
        clus = clustered_difference(plain, (fa - fb).tolist(), items.tolist(), (fa - fb)[idx].tolist(),
                                    (ya - yb)[idx].tolist(), items[idx].tolist(), strata_all=strata,
                                    strata_lab=s_lab)
        deffs.append(clus.design_effect)
        for key, r in (("paired", plain), ("paired clustered", clus)):
            hits[key] += r.low <= true <= r.high
            widths[key] += r.high - r.low
    out = {k: v / reps for k, v in hits.items()}
    out |= {f"{k} width": v / reps for k, v in widths.items()}
    out["mean deff (paired)"] = float(np.mean(deffs))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--table", choices=("rates", "difference", "both"), default="both")
    args = ap.parse_args()
    if args.table != "rates":
        print(f"compare's difference A - B, true {PA_MEAN - PB_MEAN:.2f}; {args.reps} draws per cell, seed 1; "
              "coverage (mean width)")
        print("| items G | constraints per item m | concentration | unpaired | unpaired clustered | paired "
              "| paired clustered | mean deff (paired) |")
        print("|---|---|---|---|---|---|---|---|")
        for g, m, conc in [(240, 1, 2.0), (60, 4, 2.0), (30, 8, 2.0), (60, 4, 20.0), (120, 4, 2.0)]:
            r = difference_cell(g, m, conc, args.reps, seed=1)
            cells = " | ".join(f"{r[k]:.3f} ({r[k + ' width']:.3f})" for k in
                               ("unpaired", "unpaired clustered", "paired", "paired clustered"))
            print(f"| {g} | {m} | {conc:g} | {cells} | {r['mean deff (paired)']:.2f} |")
        if args.table == "difference":
            return
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
