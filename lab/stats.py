"""Statistics primitives the core itself needs: Wilson score intervals and Holm's adjustment.

They live here, at the bottom layer, because the core's tuning, tournament and option-value code use them; the
analysis layer (:mod:`meeplab.analysis`) builds its report statistics on them.

- win rate of ``k`` wins in ``n`` games: Wilson score interval (Wilson 1927; Newcombe 1998). ``k`` may be
  fractional: a k-way shared win counts 1/k.
- several comparisons: Holm's step-down adjusted p-values (Holm 1979), which hold the family-wise error rate;
  or Benjamini-Hochberg's step-up adjusted p-values (Benjamini & Hochberg 1995), which hold the false discovery
  rate (the expected share of false findings among those called significant) and so find more in large families.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054  # the two-sided 95 % normal quantile


ALPHA = 0.05  # the error rate of every finding meeplab marks (family-wise where Holm adjusts a family)


def games_for_precision(half_width: float, n_players: int, change: bool = False, z: float = Z95) -> int:
    """Games that give a win rate near its fair share ``1/P`` a 95 % interval of half-width at most ``half_width``
    (normal approximation, ``z^2 p (1 - p) / h^2`` with ``p = 1/P``; a seat plays every game, so this holds for each
    seat's rate); with ``change``, for the difference of two such rates from independent runs (twice the variance;
    a paired what-if on common random numbers needs fewer, so this is a bound)."""
    if not 0.0 < half_width < 0.5 or not math.isfinite(half_width):
        raise ValueError(f"a half-width must be in (0, 0.5), got {half_width}")
    p = 1.0 / max(2, int(n_players))
    return max(1, math.ceil(z * z * (2 if change else 1) * p * (1 - p) / (half_width * half_width)))


def significant(p: float) -> bool:
    """Whether a p-value (Holm-adjusted where it belongs to a family) is below :data:`ALPHA`; NaN never is."""
    return bool(math.isfinite(p) and p < ALPHA)


def wilson(k: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n`` (``k`` may be fractional: a k-way
    shared win counts 1/k). ``n == 0`` gives ``(nan, nan)``."""
    if n <= 0:
        return (math.nan, math.nan)
    if k < 0 or k > n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def wilson_arrays(k: np.ndarray, n: np.ndarray, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`wilson` (nan where ``n == 0``)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        z2 = z * z
        denom = 1.0 + z2 / n
        center = (p + z2 / (2.0 * n)) / denom
        half = z * np.sqrt(np.clip(p * (1.0 - p), 0.0, None) / n + z2 / (4.0 * n * n)) / denom
        lo = np.where(n > 0, np.clip(center - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(center + half, 0.0, 1.0), np.nan)
    return lo, hi


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979); nan entries stay nan and do not count."""
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out[order] = adj
    return out


def bh(pvalues: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg's step-up adjusted p-values (Benjamini & Hochberg 1995; valid for independent or
    positively dependent tests); nan entries stay nan and do not count."""
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


#: the adjustments for a family of tests, by the name an option gives them
ADJUSTMENTS = {"holm": holm, "bh": bh}


def adjust(pvalues: Sequence[float], method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family of tests: ``holm`` (family-wise error) or ``bh`` (false discovery rate)."""
    try:
        return ADJUSTMENTS[method](pvalues)
    except KeyError:
        from meeplab.sim.core.errors import MeeplabError

        raise MeeplabError(f"unknown adjustment '{method}' (known: {', '.join(ADJUSTMENTS)})") from None
