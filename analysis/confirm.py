"""Confirm a what-if with a strong bot: ``meeplab compare ... --confirm BOT``.

The fast lineup's compare says, per player count, how much each seat's win rate changed between baseline and
variant. :func:`seat_to_confirm` picks the seat whose change is largest, with its interval (Newcombe's, at a level
Bonferroni-corrected for having picked the largest of P seats). The strong bot then plays the same question, every
seat the strong bot, baseline and variant on the same seeds, with a sequential test (the SPRT of ``compare
--until-significant`` on that seat's paired per-game win), so it plays only as many games as the question needs.
:func:`verdict` sets the two side by side: **confirmed** (the strong bot finds the fast change in the same direction,
or finds no change where the fast lineup found none), **contradicted** (it finds no change of ``delta`` where the fast
lineup found one, a change where it found none, or the opposite direction) or **undecided** (the test reached its
game limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

__all__ = ["FastChange", "seat_to_confirm", "verdict"]


@dataclass(frozen=True)
class FastChange:
    """The fast lineup's largest seat change at one player count: seat (from 1), change (variant - baseline) and
    its interval, and whether the interval excludes 0."""

    n_players: int
    seat: int
    change: float
    lo: float
    hi: float

    @property
    def significant(self) -> bool:
        return self.lo > 0 or self.hi < 0


def seat_to_confirm(base, variant) -> list[FastChange]:
    """Per player count both runs played (``analysis.load.Run``): the seat whose win rate changed most, its change
    and a 95 % interval corrected for the choice among P seats (Bonferroni: each seat's at 1 - 0.05 / P)."""
    from meeplab.analysis.stats import newcombe_diff, run_stats

    a, b = run_stats(base), run_stats(variant)
    out = []
    for p in sorted(set(base.players) & set(variant.players)):
        sa = a.by_seat.filter(a.by_seat["n_players"] == p).sort("seat")
        sb = b.by_seat.filter(b.by_seat["n_players"] == p).sort("seat")
        z = NormalDist().inv_cdf(1 - 0.025 / p)
        best = None
        for ra, rb in zip(sa.iter_rows(named=True), sb.iter_rows(named=True)):
            d, lo, hi = newcombe_diff(ra["wins"], ra["n"], rb["wins"], rb["n"], z)
            if best is None or abs(d) > abs(best.change):
                best = FastChange(p, int(ra["seat"]) + 1, d, lo, hi)
        if best is not None and math.isfinite(best.change):
            out.append(best)
    return out


def verdict(fast: FastChange, strong: str) -> str:
    """``confirmed``, ``contradicted`` or ``undecided``: the fast change against the strong bot's sequential verdict
    (``rises``, ``falls``, ``no change`` or ``undecided``, ``lab.studies.sprt``)."""
    if strong == "undecided":
        return "undecided"
    if strong == "no change":
        return "contradicted" if fast.significant else "confirmed"
    if not fast.significant:
        return "contradicted"
    return "confirmed" if (strong == "rises") == (fast.change > 0) else "contradicted"


def row(fast: FastChange, test: dict[str, Any], strong_bot: str) -> dict[str, Any]:
    """One player count's line of the confirmation table (stdout, ``--json``, ``OUT/confirm.json``)."""
    return {
        "players": fast.n_players,
        "seat": fast.seat,
        "fast change": fast.change,
        "fast 95% CI": f"[{fast.lo:+.3f}, {fast.hi:+.3f}]",
        f"{strong_bot} change": test["mean"],
        f"{strong_bot} games": test["games"],
        f"{strong_bot} test": test["verdict"],
        "verdict": verdict(fast, test["verdict"]),
    }
