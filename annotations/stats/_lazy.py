"""scipy's functions, imported on first use. scipy.stats costs about a third of a second to import, which every
`judgecal` command paid before it parsed its arguments (`judgecal --help`, `gate` on a small project); a command that
computes no interval never loads it. tests/test_startup.py fails when a module imports scipy or pandas at the top.

ndtr and ndtri of one float need no scipy at all: judgecal.annotations.stats._normal computes them, bit for bit as
scipy does, and a kappa's p-value is all `gate` on a small project needed scipy.special for (issue 16.2). They return
numpy's float64 as scipy does, so arithmetic on the result (division by zero: inf, not ZeroDivisionError) is
unchanged; arrays and other types still go to scipy."""

from __future__ import annotations

from typing import Any

import numpy as np

from judgecal.annotations.stats import _normal  # the module itself: its ndtr is not this ndtr


def ndtr(x: Any) -> Any:
    if isinstance(x, float):  # a Python float or numpy float64
        return np.float64(_normal.ndtr(x))
    from scipy.special import ndtr as f

    return f(x)


def ndtri(x: Any) -> Any:
    if isinstance(x, float):
        return np.float64(_normal.ndtri(x))
    from scipy.special import ndtri as f

    return f(x)


def binom_cdf(k: Any, n: Any, p: Any) -> Any:
    from scipy.stats import binom

    return binom.cdf(k, n, p)


def beta_ppf(q: Any, a: Any, b: Any) -> Any:
    from scipy.stats import beta

    return beta.ppf(q, a, b)


def expit(x: Any) -> Any:
    from scipy.special import expit as f

    return f(x)


def chi2_sf(x: Any, df: Any) -> Any:
    from scipy.stats import chi2

    return chi2.sf(x, df)


def norm_sf(x: Any) -> Any:
    from scipy.stats import norm

    return norm.sf(x)
