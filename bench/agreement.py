"""Benchmark: full judgecal agreement analysis vs one scikit-learn kappa.

For 100k label pairs with 2 and with 5 categories, time

* ours: ``cohen_kappa`` (kappa, Fleiss-Cohen-Everitt SE, analytic 95% CI,
  z test) followed by ``bootstrap_ci`` with 1,000 resamples, and
* sklearn: a single ``sklearn.metrics.cohen_kappa_score`` call (kappa only),

on the same arrays in the same process, and print the median of several
repeats and the ratio ours / sklearn (target: below 1).

Run from the repository root::

    python bench/agreement.py [--n 100000] [--repeats 7] [--method percentile|bca]

scikit-learn is a benchmark-only dependency (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# Allow `python bench/agreement.py` from a checkout without installing.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgecal.annotations.stats import bootstrap_ci, cohen_kappa  # noqa: E402


def _require_sklearn():
    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        sys.exit(
            "bench/agreement.py needs scikit-learn for the comparison; install the "
            "benchmark extra:  pip install -e '.[bench]'  (or: pip install scikit-learn)"
        )
    return cohen_kappa_score


def _median_seconds(fn, repeats: int) -> float:
    fn()  # warm-up: imports, first-touch allocations
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _make_pairs(n: int, k: int, agree: float, rng: np.random.Generator):
    """Rater A uniform over k labels; rater B copies A with prob `agree`."""
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < agree, a, rng.integers(0, k, n))
    return a, b


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100_000, help="label pairs (default 100000)")
    p.add_argument("--repeats", type=int, default=7, help="timed repeats, median reported")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    p.add_argument("--method", choices=["percentile", "bca"], default="percentile")
    p.add_argument("--seed", type=int, default=2026)
    args = p.parse_args(argv)

    cohen_kappa_score = _require_sklearn()
    rng = np.random.default_rng(args.seed)
    label_sets = {2: np.array(["pass", "fail"]),
                  5: np.array(["awful", "poor", "ok", "good", "great"])}

    print(f"n = {args.n:,} pairs, bootstrap = {args.resamples} resamples ({args.method}), "
          f"median of {args.repeats} repeats")
    header = f"{'k':>2} {'labels':<12} {'ours full (ms)':>15} {'sklearn kappa (ms)':>19} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for k, names in label_sets.items():
        ia, ib = _make_pairs(args.n, k, 0.7, rng)
        variants = {
            "numpy str": (names[ia], names[ib]),
            "list of str": (names[ia].tolist(), names[ib].tolist()),
            "numpy int": (ia, ib),
        }
        for kind, (a, b) in variants.items():
            def ours():
                res = cohen_kappa(a, b)
                ci = bootstrap_ci(a, b, n_resamples=args.resamples, seed=0, method=args.method)
                return res, ci

            def sk():
                return cohen_kappa_score(a, b)

            res, ci = ours()
            ref = sk()
            if not abs(res.kappa - ref) < 1e-9:
                print(f"kappa mismatch: ours {res.kappa!r} vs sklearn {ref!r}", file=sys.stderr)
                return 1
            t_ours = _median_seconds(ours, args.repeats)
            t_sk = _median_seconds(sk, args.repeats)
            ratio = t_ours / t_sk
            worst = max(worst, ratio)
            print(f"{k:>2} {kind:<12} {t_ours * 1e3:>15.2f} {t_sk * 1e3:>19.2f} {ratio:>7.3f}")
        print(f"   kappa = {res.kappa:.4f}  analytic 95% CI [{res.ci_low:.4f}, {res.ci_high:.4f}]"
              f"  bootstrap [{ci.low:.4f}, {ci.high:.4f}]")
    verdict = "meets" if worst < 1 else "MISSES"
    print(f"worst ratio ours/sklearn = {worst:.3f} ({verdict} the < 1 target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
