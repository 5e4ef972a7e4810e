"""Reference values for tests/test_paired_ppi.py from the judge-auditing libraries, on shared simulated data.

ppi-python (`ppi_py`, the reference code of Angelopoulos et al.) and truescore (paired PPI++) are NOT dependencies of
judgecal: install them by hand (`pip install ppi-python truescore`) and run from the repository root

    python bench/ppi_reference.py

It prints the numbers the test hard-codes (values were generated with ppi-python 0.2.3 and truescore 0.7.4). The
data are `make_data` below; the test builds the same arrays with the same generator (numpy's PCG64 stream is stable).

Conventions, so the comparisons are like with like:
- judgecal's PPI averages the judge over ALL N pairs (labelled ones included, as in Angelopoulos et al. 2023), where
  truescore and ppi-python's `Yhat_unlabeled` take the unlabelled pairs only. Passing all N predictions as the
  "unlabelled" set (for truescore: the judge array is the N predictions followed by the n labelled ones, `gold_index`
  the last n positions) makes the formulas coincide: at a fixed λ the estimate and SE then agree to float precision.
- judgecal's SE uses sample variances (ddof = 1), as truescore does; ppi-python uses ddof = 0, so its CI is narrower
  by a factor of about sqrt((n-1)/n) in the rectifier term.
- λ̂: judgecal minimises its estimated variance with var(f) over the labelled pairs in the n-term; ppi-python and
  truescore use var(f) over labelled + unlabelled and cov with ddof 0. The tuned λ differs by O(1/n).
- judgecal tunes λ only from 30 labels on (λ = 1 below: bench/ppi_coverage.py); truescore always tunes.
"""

from __future__ import annotations

import sys

import numpy as np


def make_data(seed: int = 2023, items: int = 1000) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """True passes of runs A and B on the same items (correlated) and a judge that is lenient on A."""
    rng = np.random.default_rng(seed)
    u = rng.random(items)
    y_a = (u < 0.70).astype(float)
    y_b = (np.where(rng.random(items) < 0.7, u, rng.random(items)) < 0.60).astype(float)
    v_a, v_b = rng.random(items), rng.random(items)
    f_a = np.where(y_a == 1, v_a < 0.95, v_a >= 0.60).astype(float)
    f_b = np.where(y_b == 1, v_b < 0.95, v_b >= 0.80).astype(float)
    return y_a, y_b, f_a, f_b


def main() -> int:
    try:
        import ppi_py
        import truescore
        from scipy import stats
        from truescore.compare import ppi_compare
        from truescore.correct import ppi_estimate
    except ImportError as exc:
        print(f"skipped: the reference libraries are not installed ({exc}); pip install ppi-python truescore")
        return 0
    from importlib.metadata import version

    print(f"ppi-python {version('ppi-python')}, truescore {version('truescore')}")
    y_a, y_b, f_a, f_b = make_data()
    n_items = len(y_a)
    for n in (20, 200):
        lab = np.arange(n)  # the first n items: the data are exchangeable, so any fixed set is a random draw
        d, yd = f_a - f_b, y_a - y_b
        # truescore at λ = 1 with judgecal's convention (all N predictions as the "unlabelled" set)
        judge = np.concatenate([d, d[lab]])
        est = ppi_estimate(judge, yd[lab], np.arange(n_items, n_items + n), lambda_=1.0)
        p = 2 * stats.norm.sf(abs(est.point) / est.standard_error)
        print(f"n={n} paired λ=1 truescore: estimate={est.point!r} se={est.standard_error!r} "
              f"low={est.low!r} high={est.high!r} p={p!r}")
        tuned = ppi_estimate(judge, yd[lab], np.arange(n_items, n_items + n))
        print(f"n={n} paired PPI++ truescore (all-N convention): estimate={tuned.point!r} lambda={tuned.lambda_!r} "
              f"se={tuned.standard_error!r}")
        own = ppi_compare(f_a, f_b, y_a[lab], y_b[lab], lab)
        print(f"n={n} truescore.ppi_compare (its own convention): difference={own.difference!r} low={own.low!r} "
              f"high={own.high!r} p={own.p_value!r}")
        lo, hi = ppi_py.ppi_mean_ci(y_a[lab], f_a[lab], f_a, alpha=0.05, lam=1)
        pt = ppi_py.ppi_mean_pointestimate(y_a[lab], f_a[lab], f_a, lam=1)
        print(f"n={n} pass rate A ppi_py λ=1: estimate={float(np.squeeze(pt))!r} low={float(lo[0])!r} "
              f"high={float(hi[0])!r}")
        lo, hi = ppi_py.ppi_mean_ci(y_a[lab], f_a[lab], f_a, alpha=0.05)
        pt = ppi_py.ppi_mean_pointestimate(y_a[lab], f_a[lab], f_a)
        print(f"n={n} pass rate A ppi_py PPI++: estimate={float(np.squeeze(pt))!r} low={float(lo[0])!r} "
              f"high={float(hi[0])!r}")
    print(f"truth: pass rate A={y_a.mean()!r} difference={y_a.mean() - y_b.mean()!r}")
    del truescore
    return 0


if __name__ == "__main__":
    sys.exit(main())
