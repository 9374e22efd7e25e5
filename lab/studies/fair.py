"""Fairest value: the value of one numeric rule parameter that brings seats (or two bots) closest to even.

``meeplab fair GAME --param NAME --range LO:HI --target seats|bots|gap`` measures a signed imbalance ``f(x)``:

* ``seats``: seat K's win rate minus the fair share 1/P (``--seat K``, seats numbered from 1 = the start player,
  default 1);
* ``bots``: the first listed bot's win share minus the second's (each averaged over its seats in a game);

and looks for its root by regula falsi with the Illinois step (bisection's safety, the secant's speed) on
values played with the same seeds, so ``f`` is measured on the same deals at every value (common random
numbers) and its steps are smooth enough to search. An integer parameter is searched over integers.

The answer is the value whose ``f`` is nearest zero (integers), or the secant root of the final bracket
(numbers), with a 95% interval from the delta method: ``x* +- 1.96 se(f) / |slope|``, ``se(f)`` the
standard error of ``f`` at the bracket's ends (per-game values) and ``slope`` the bracket's secant. A range
whose ends do not straddle zero has no crossing: the end nearer to fair is reported, and said so.

``--target gap`` minimises the seat gap instead (the best minus the worst seat among equally strong bots, which the
caller measures with the lineup-aware seat model): a golden-section search (Kiefer 1953) over the range, every value
on the same seeds. The answer is the value with the smallest measured gap; its interval spans the values played whose
gap cannot be told apart from the smallest (their 95% intervals overlap).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write

TARGETS = ("seats", "bots", "gap")


@dataclass
class Point:
    x: float
    f: float
    se: float
    path: str


@dataclass
class Search:
    n_players: int
    points: list[Point] = field(default_factory=list)
    value: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    crossing: bool = True
    note: str = ""


def parse_range(text: str, kind: str, plo: float | None, phi: float | None) -> tuple[float, float]:
    try:
        a, b = (float(t) for t in str(text).split(":"))
    except ValueError:
        raise MeeplabError(f"--range expects LO:HI, e.g. 8:16, got {text!r}") from None
    if not a < b:
        raise MeeplabError(f"--range needs LO < HI, got {text!r}")
    if kind == "int" and not (a.is_integer() and b.is_integer()):
        raise MeeplabError(f"--range of an integer parameter needs whole numbers, got {text!r}")
    if (plo is not None and a < plo) or (phi is not None and b > phi):
        raise MeeplabError(f"--range {text} leaves the parameter's bounds {plo:g}..{phi:g}")
    return a, b


def imbalance(df: pl.DataFrame, p: int, target: str, seat: int, bots: tuple[str, str] | None) -> tuple[float, float]:
    """(mean, standard error) over games of the signed imbalance at ``p`` players."""
    d = df.filter(pl.col("n_players") == p)
    if target == "seats":
        v = d.filter(pl.col("seat") == seat).sort("game_index")["win"].to_numpy() - 1.0 / p
    else:
        a, b = bots
        g = d.group_by("game_index").agg(
            pl.col("win").filter(pl.col("bot") == a).mean().alias("a"),
            pl.col("win").filter(pl.col("bot") == b).mean().alias("b"),
        )
        v = (g["a"] - g["b"]).to_numpy()
    n = v.size
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan


def fmt(x: float, kind: str) -> str:
    return str(int(round(x))) if kind == "int" else f"{x:.4g}"


def search(evaluate: Callable[[float], Point], lo: float, hi: float, kind: str, steps: int, p: int) -> Search:
    """Illinois regula falsi for a root of the noisy, CRN-smoothed ``f`` on [lo, hi]."""
    s = Search(p)
    a, b = evaluate(lo), evaluate(hi)
    s.points += [a, b]
    if (a.f > 0) == (b.f > 0) and a.f != 0 and b.f != 0:
        best = min((a, b), key=lambda q: abs(q.f))
        s.crossing, s.value = False, best.x
        s.note = (
            f"no crossing in {fmt(lo, kind)}..{fmt(hi, kind)}: the imbalance keeps its sign "
            f"({a.f:+.3f} .. {b.f:+.3f}); the fairer end is {fmt(best.x, kind)}"
        )
        return s
    fa, fb = a.f, b.f  # Illinois-scaled copies
    side = 0
    exact = None
    for _ in range(steps):
        if kind == "int" and b.x - a.x <= 1:
            break
        if kind != "int" and b.x - a.x <= (hi - lo) * 1e-3:
            break
        x = a.x - fa * (b.x - a.x) / (fb - fa) if fb != fa else (a.x + b.x) / 2.0
        if kind == "int":
            x = float(min(max(round(x), a.x + 1), b.x - 1))
        c = evaluate(x)
        s.points.append(c)
        if c.f == 0:  # exactly even on these seeds: the answer; the bracket gives the slope
            exact = c
            break
        if (c.f > 0) == (a.f > 0):
            a, fa = c, c.f
            if side == -1:
                fb /= 2.0
            side = -1
        else:
            b, fb = c, c.f
            if side == 1:
                fa /= 2.0
            side = 1
    slope = (b.f - a.f) / (b.x - a.x) if b.x != a.x else math.nan
    if exact is not None:
        s.value = exact.x
    elif kind == "int" or a.x == b.x:
        best = min((a, b), key=lambda q: abs(q.f))
        s.value = best.x
    else:
        s.value = a.x - a.f / slope if slope else (a.x + b.x) / 2.0
    se = float(np.nanmean([a.se, b.se]))
    half = 1.96 * se / abs(slope) if slope and math.isfinite(slope) else math.inf
    root = exact.x if exact is not None else a.x - a.f / slope if slope and math.isfinite(slope) else s.value
    s.lo, s.hi = max(lo, root - half), min(hi, root + half)
    at = min(s.points, key=lambda q: abs(q.x - s.value))
    nearer = [q for q in s.points if abs(q.f) < abs(at.f) and q.x != at.x]
    if nearer:
        q = min(nearer, key=lambda q: abs(q.f))
        s.note = (
            f"the imbalance is not monotone over the range: {fmt(q.x, kind)} is also near fair "
            f"({q.f:+.3f} against {at.f:+.3f} here)"
        )
    return s


GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def minimise(evaluate: Callable[[float], Point], lo: float, hi: float, kind: str, steps: int, p: int) -> Search:
    """Golden-section search for the smallest ``f`` (>= 0, e.g. the seat gap) on [lo, hi], at most ``steps`` values
    after the two ends; integers are searched over integers (every value of a short final bracket is played)."""
    s = Search(p)
    seen: dict[float, Point] = {}

    def at(x: float) -> Point:
        x = float(round(x)) if kind == "int" else float(x)
        if x not in seen:
            seen[x] = evaluate(x)
            s.points.append(seen[x])
        return seen[x]

    a, b = lo, hi
    at(a), at(b)
    budget = steps
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    while budget > 0:
        if kind == "int" and b - a <= 3:
            for x in range(int(a) + 1, int(b)):
                if budget <= 0:
                    break
                if float(x) not in seen:
                    budget -= 1
                at(x)
            break
        if kind != "int" and b - a <= (hi - lo) * 1e-3:
            break
        new = sum(1 for x in (c, d) if (float(round(x)) if kind == "int" else x) not in seen)
        if new > budget:
            break
        budget -= new
        fc, fd = at(c), at(d)
        if fc.f <= fd.f:
            b, d = d, c
            c = b - GOLDEN * (b - a)
        else:
            a, c = c, d
            d = a + GOLDEN * (b - a)
    best = min(s.points, key=lambda q: (q.f, q.x))
    s.value = best.x
    top = best.f + 1.96 * (best.se if math.isfinite(best.se) else 0.0)
    near = [q.x for q in s.points if q.f - 1.96 * (q.se if math.isfinite(q.se) else 0.0) <= top]
    s.lo, s.hi = min(near), max(near)
    s.crossing = True
    ends = {min(q.x for q in s.points), max(q.x for q in s.points)}
    if best.x in ends and best.x in (lo, hi):
        s.note = f"the smallest gap is at the end of the range ({fmt(best.x, kind)}): a wider range may do better"
    return s


def save(out: Path, record: dict[str, Any]) -> None:
    atomic_write(out / "fair.json", json.dumps(record, indent=2))
