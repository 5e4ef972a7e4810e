"""Planning: how many labels a kappa interval of a given width needs.

Conventions: judgecal.annotations.stats._common."""

from __future__ import annotations

import math
from collections.abc import Sequence

from judgecal.annotations.stats._common import Z_95
from judgecal.annotations.stats._two_rater import KappaInterval, cohen_kappa


def labels_needed(
    a: Sequence, b: Sequence, target_half_width: float, *,
    labels: Sequence | None = None, weights: str | None = None,
) -> int:
    """How many more random labels bring the 95% kappa CI half-width under target.

    Assumes the current agreement and prevalence hold for new items, so the
    asymptotic SE scales as 1/sqrt(n): n_total = ceil(n * (hw / target)^2),
    and the answer is n_total - n (0 when already at or under the target).

    Edge cases: ``target_half_width`` <= 0 raises ``ValueError``; an
    undefined kappa (NaN, e.g. both raters constant) or an undefined SE (one
    rater constant: kappa 0 with an SE of 0 by construction) raises
    ``ValueError`` with the reason, because no sample size can be projected
    from it. With
    perfect observed agreement the asymptotic SE is 0 and the answer is 0:
    the projection is then over-optimistic, so collect a bootstrap CI or a
    minimum sample instead.
    """
    if not (target_half_width > 0 and math.isfinite(target_half_width)):
        raise ValueError(f"target_half_width must be a positive number, got {target_half_width}")
    res = cohen_kappa(a, b, labels=labels, weights=weights)
    if not (math.isfinite(res.kappa) and math.isfinite(res.se)):
        raise ValueError(f"cannot project a sample size: {res.reason}")
    hw = Z_95 * res.se
    if hw <= target_half_width:
        return 0
    total = math.ceil(res.n * (hw / target_half_width) ** 2 - 1e-9)
    return max(int(total) - res.n, 0)


def labels_needed_for_interval(interval: KappaInterval, target_half_width: float) -> int:
    """More random labels for the half-width of `interval` to fall to `target_half_width`, projecting that the
    width shrinks as 1/sqrt(n). Unlike :func:`labels_needed` this never answers 0 from a zero Wald SE: the interval
    always has positive width, so perfect agreement on 13 pairs still asks for more. NaN bounds or a bad target
    raise ``ValueError``."""
    if not (target_half_width > 0 and math.isfinite(target_half_width)):
        raise ValueError(f"target_half_width must be a positive number, got {target_half_width}")
    if not (math.isfinite(interval.low) and math.isfinite(interval.high)):
        raise ValueError(f"cannot project a sample size: {interval.reason}")
    hw = (interval.high - interval.low) / 2.0
    if hw <= target_half_width:
        return 0
    return max(math.ceil(interval.n * (hw / target_half_width) ** 2 - 1e-9) - math.ceil(interval.n - 1e-9), 1)
