"""scipy's functions, imported on first use. scipy.stats costs about a third of a second to import, which every
`judgecal` command paid before it parsed its arguments (`judgecal --help`, `gate` on a small project); a command that
computes no interval never loads it. tests/test_startup.py fails when a module imports scipy or pandas at the top."""

from __future__ import annotations

from typing import Any


def ndtr(x: Any) -> Any:
    from scipy.special import ndtr as f

    return f(x)


def ndtri(x: Any) -> Any:
    from scipy.special import ndtri as f

    return f(x)


def binom_cdf(k: Any, n: Any, p: Any) -> Any:
    from scipy.stats import binom

    return binom.cdf(k, n, p)


def beta_ppf(q: Any, a: Any, b: Any) -> Any:
    from scipy.stats import beta

    return beta.ppf(q, a, b)
