"""The learned policy: a conditional logit over the candidates' features, the same for every game.

A decision of kind ``k`` with candidates ``i = 0..n-1`` and their engine features ``f_i`` (the row ``feats[i]`` the
engine wrote for the deciding seat; ``nf`` columns) scores each candidate ``w . phi(f_i, x)`` and plays the best
(ties drawn at random). ``phi`` widens the features the game declares with what a linear score cannot see:

* a constant, ``1`` (a move code's own preference, below);
* the columns themselves, ``f_i[a]`` (``nf`` terms);
* their pairwise products, ``f_i[a] * f_i[b]`` for ``a <= b`` (``nf (nf + 1) / 2`` terms: "a gain matters more
  when the herd is large");
* whether the candidate holds the decision's largest column 0 (the immediate value, by the forward model's
  contract), ``top`` (one term: what ``greedy`` plays);
* the game's progress ``x`` (declared by the game, below; 0 where it declares none) and its products with the
  constant, the columns and ``top`` (``nf + 2`` terms: "wood is worth more early than late").

Two declarations of the game (``Face(codes=..., progress=...)``) shape the weights:

* **codes**: a kind whose ``moves[i, 0]`` is a move code of ``c`` values (Hacienda's action: buy, play, harvest,
  ...) gets one block of weights per code; a candidate is scored by its code's block, so "play a card" and "buy a
  card" weigh the same columns differently, and each code has its own constant. Codes outside ``0..c-1`` are
  clamped to the nearest.
* **progress**: view indices ``(num, den)``: ``x = view[num] / view[den]`` (``den = -1``: ``x = view[num]``), what
  the seat sees of how far the game is (a round of the rounds, tiles left of all).

The weight vector starts with a header (:class:`Shape`: the kinds, the progress indices, each kind's first
weight and its codes) that :func:`policy_choose` reads, then one block of :func:`width` terms per code, kinds in
``ctl[C_KIND]`` order. A header that does not fit the vector, or a kind past it, scores every candidate 0 (a
uniform pick). ``lab.studies.learn`` fits the blocks to a search bot's choices by maximum likelihood (the softmax
of the same scores), and :func:`policy_choose` plays them in the compiled loop, allocating nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numba import njit

from .rng import rng_below, rng_float

__all__ = ["Shape", "phi", "phi_names", "policy_bot_choose", "policy_choose", "progress_of", "width"]

#: rows within this of the best score tie (and one of them is drawn)
TIE = 1e-9
#: the header's fixed slots: kinds, progress numerator, progress denominator; then (first weight, codes) per kind
H_KINDS, H_NUM, H_DEN, H_KIND0 = 0, 1, 2, 3
#: the weight after the kinds' blocks: the temperature the policy plays at (0: the best score; above 0: a draw from
#: the softmax of the scores divided by it, the fitted logit itself at 1; a stochastic playout policy for a search)
TEMPERATURE = "temperature"


def width(nf: int) -> int:
    """Terms of ``phi`` for ``nf`` feature columns (one block): the constant, the columns, their pairwise products,
    the top flag, and the progress times the constant, the columns and the top flag."""
    return 1 + nf + nf * (nf + 1) // 2 + 1 + 1 + nf + 1


def phi_names(columns: tuple[str, ...] | list[str]) -> list[str]:
    """The names of ``phi``'s terms for feature columns named ``columns``, in the weights' order."""
    cols = list(columns)
    out = ["1", *cols]
    for a in range(len(cols)):
        for b in range(a, len(cols)):
            out.append(f"{cols[a]}*{cols[b]}")
    top = f"top:{cols[0]}" if cols else "top"
    out.append(top)
    out += ["x", *(f"x*{c}" for c in cols), f"x*{top}"]
    return out


SHAPE_PREFIX = "shape."  # the header's names: the game's declaration (kinds, progress, blocks), not weights


def is_shape(name: str) -> bool:
    """Whether ``name`` is one of the header's names (``shape.*``): written by the lab from the game's features,
    never tuned, fitted or set in a bot config."""
    return name.startswith(SHAPE_PREFIX)


@dataclass(frozen=True)
class Shape:
    """The shape of a game's policy weights: its kinds' feature columns (``features``, kind name -> column names,
    every kind as wide as the engine's ``feats``), the kinds whose ``moves[i, 0]`` is a move code (``codes``, kind
    name -> number of codes) and the progress view indices (``progress``, ``(num, den)`` or None)."""

    features: Mapping[str, tuple[str, ...]]
    codes: Mapping[str, int] = field(default_factory=dict)
    progress: tuple[int, int] | None = None

    def __post_init__(self):
        unknown = set(self.codes) - set(self.features)
        if unknown:
            raise ValueError(f"codes name kinds the features do not: {', '.join(sorted(unknown))}")
        if any(int(c) < 1 for c in self.codes.values()):
            raise ValueError("a kind's codes must be at least 1")
        if self.progress is not None and (len(self.progress) != 2 or int(self.progress[0]) < 0):
            raise ValueError("progress must be (numerator view index >= 0, denominator view index or -1)")

    @property
    def kinds(self) -> list[str]:
        return list(self.features)

    @property
    def nf(self) -> int:
        return len(next(iter(self.features.values()))) if self.features else 0

    def n_codes(self, kind: str) -> int:
        return int(self.codes.get(kind, 1))

    def header_names(self) -> list[str]:
        out = [f"{SHAPE_PREFIX}kinds", f"{SHAPE_PREFIX}progress", f"{SHAPE_PREFIX}progress_of"]
        for k in self.kinds:
            out += [f"{SHAPE_PREFIX}{k}.at", f"{SHAPE_PREFIX}{k}.codes"]
        return out

    def header(self) -> np.ndarray:
        """The header :func:`policy_choose` reads: kinds, progress indices, then each kind's first weight (an index
        into the whole vector) and its number of codes."""
        num, den = self.progress if self.progress is not None else (-1, -1)
        out = [float(len(self.kinds)), float(num), float(den)]
        at = H_KIND0 + 2 * len(self.kinds)
        for k in self.kinds:
            out += [float(at), float(self.n_codes(k))]
            at += self.n_codes(k) * width(self.nf)
        return np.array(out)

    def at(self, kind: str) -> int:
        """Index of kind ``kind``'s first weight in the whole vector."""
        return int(self.header()[H_KIND0 + 2 * self.kinds.index(kind)])

    def block_names(self, kind: str) -> list[str]:
        """Kind ``kind``'s weight names: ``kind.term``, or ``kind[c].term`` per code for a kind with codes."""
        terms = phi_names(self.features[kind])
        if self.n_codes(kind) == 1:
            return [f"{kind}.{t}" for t in terms]
        return [f"{kind}[{c}].{t}" for c in range(self.n_codes(kind)) for t in terms]

    def weight_names(self) -> list[str]:
        """Every weight after the header, kind by kind (:meth:`block_names`)."""
        return [n for k in self.kinds for n in self.block_names(k)]

    @cached_property
    def _weight_set(self) -> frozenset[str]:
        return frozenset(self.weight_names())

    def names(self) -> list[str]:
        """The whole vector's names: the header's, the weights', then ``temperature`` (:func:`policy_choose`: 0
        plays the best score, above 0 draws from the softmax of the scores at that temperature)."""
        return self.header_names() + self.weight_names() + [TEMPERATURE]

    def vector(self, named: Mapping[str, float]) -> np.ndarray:
        """The whole vector of weights given by name (missing ones 0). In a kind with codes, a name without a code
        (``kind.term``) stands for the term in every code's block: a linear bot's ``kind.column`` weights are the
        policy that weighs every code alike."""
        names = self.names()
        out = np.zeros(len(names))
        out[: len(self.header())] = self.header()
        index = {n: i for i, n in enumerate(names)}
        for name, v in named.items():
            if name in index and not is_shape(name):
                out[index[name]] = float(v)
                continue
            kind, _, term = name.partition(".")
            if kind in self.features and self.n_codes(kind) > 1:
                for c in range(self.n_codes(kind)):
                    j = index.get(f"{kind}[{c}].{term}")
                    if j is not None:
                        out[j] = float(v)
        return out

    def accepts(self, name: str) -> bool:
        """Whether :meth:`vector` reads a weight named ``name``."""
        if is_shape(name):
            return False
        if name in self._weight_set or name == TEMPERATURE:
            return True
        kind, _, term = name.partition(".")
        return kind in self.features and self.n_codes(kind) > 1 and term in phi_names(self.features[kind])


def phi(feats: np.ndarray, starts: np.ndarray | None = None, x: np.ndarray | float = 0.0) -> np.ndarray:
    """``phi`` of every row of ``feats`` (rows x nf) as a rows x width(nf) array (numpy; what the fit reads, term for
    term what :func:`policy_choose` computes in a code's block). The rows are one decision's candidates, or with
    ``starts`` several decisions' (decision ``d`` is rows ``starts[d]:starts[d + 1]``): the top flag compares a
    candidate with the others of its own decision; ``x`` is the progress, one value or one per decision."""
    feats = np.asarray(feats, dtype=np.float64)
    n, nf = feats.shape
    starts = np.array([0, n]) if starts is None else np.asarray(starts)
    xs = np.repeat(np.broadcast_to(np.asarray(x, dtype=np.float64), (len(starts) - 1,)), np.diff(starts))
    out = np.empty((n, width(nf)))
    out[:, 0] = 1.0
    out[:, 1 : 1 + nf] = feats
    k = 1 + nf
    for a in range(nf):
        out[:, k : k + nf - a] = feats[:, a : a + 1] * feats[:, a:]
        k += nf - a
    if n and nf:
        top = np.maximum.reduceat(feats[:, 0], starts[:-1])
        out[:, k] = feats[:, 0] >= np.repeat(top, np.diff(starts)) - TIE
    else:
        out[:, k] = 0.0
    out[:, k + 1] = xs
    out[:, k + 2 : k + 2 + nf] = xs[:, None] * feats
    out[:, k + 2 + nf] = xs * out[:, k]
    return out


@njit(cache=True, inline="always")
def progress_of(view, num, den):
    """The game's progress as the seat sees it: ``view[num] / view[den]`` (``den < 0``: ``view[num]``); 0 when
    ``num`` is negative or past the view, and when the denominator is not positive."""
    if num < 0 or num >= view.shape[0]:
        return 0.0
    v = float(view[num])
    if den < 0:
        return v
    if den >= view.shape[0] or view[den] <= 0:
        return 0.0
    return v / view[den]


@njit(cache=True, inline="always")
def _score(feats, i, weights, off, nf, top0, x):
    v = weights[off]
    for a in range(nf):
        v += feats[i, a] * weights[off + 1 + a]
    k = off + 1 + nf
    for a in range(nf):
        fa = feats[i, a]
        for b in range(a, nf):
            v += fa * feats[i, b] * weights[k]
            k += 1
    top = 1.0 if nf > 0 and feats[i, 0] >= top0 - TIE else 0.0
    v += top * weights[k]
    if x != 0.0:
        u = weights[k + 1] + top * weights[k + 2 + nf]
        for a in range(nf):
            u += feats[i, a] * weights[k + 2 + a]
        v += x * u
    return v


@njit(cache=True, inline="always")
def _score4(feats, i, weights, o0, o1, o2, o3, nf, top0, x):
    """:func:`_score` of rows ``i`` to ``i + 3`` (weights blocks ``o0`` to ``o3``), each summed in the same order.
    The terms of the columns past the last one that any of the four rows fills (``nz``: a kind's trailing columns,
    which the engine leaves 0) are left out: each is a product with a 0, and adding a 0 changes no sum (at most the
    sign of a sum that is 0), so every score compares and draws as ``_score``'s (where the features are finite: an
    infinite one times such a 0 made the whole score NaN)."""
    nz = 0
    for a in range(nf):
        if feats[i, a] != 0.0 or feats[i + 1, a] != 0.0 or feats[i + 2, a] != 0.0 or feats[i + 3, a] != 0.0:
            nz = a + 1
    v0 = weights[o0]
    v1 = weights[o1]
    v2 = weights[o2]
    v3 = weights[o3]
    for a in range(nz):
        t = 1 + a
        v0 += feats[i, a] * weights[o0 + t]
        v1 += feats[i + 1, a] * weights[o1 + t]
        v2 += feats[i + 2, a] * weights[o2 + t]
        v3 += feats[i + 3, a] * weights[o3 + t]
    # one weights block (rows of one move code): one load a term. The loop is written twice on purpose: the same
    # loop as an inlined helper called with four equal offsets played 1.014-1.026 of the time (A/B, 2026-12-07)
    if o0 == o1 and o1 == o2 and o2 == o3:
        for a in range(nz):
            t = 1 + nf + a * nf - a * (a - 1) // 2  # the term of the pair (a, a)
            f0 = feats[i, a]
            f1 = feats[i + 1, a]
            f2 = feats[i + 2, a]
            f3 = feats[i + 3, a]
            for b in range(a, nz):
                w = weights[o0 + t]
                v0 += f0 * feats[i, b] * w
                v1 += f1 * feats[i + 1, b] * w
                v2 += f2 * feats[i + 2, b] * w
                v3 += f3 * feats[i + 3, b] * w
                t += 1
    else:
        for a in range(nz):
            t = 1 + nf + a * nf - a * (a - 1) // 2
            f0 = feats[i, a]
            f1 = feats[i + 1, a]
            f2 = feats[i + 2, a]
            f3 = feats[i + 3, a]
            for b in range(a, nz):
                v0 += f0 * feats[i, b] * weights[o0 + t]
                v1 += f1 * feats[i + 1, b] * weights[o1 + t]
                v2 += f2 * feats[i + 2, b] * weights[o2 + t]
                v3 += f3 * feats[i + 3, b] * weights[o3 + t]
                t += 1
    t = 1 + nf + nf * (nf + 1) // 2
    p0 = 1.0 if nf > 0 and feats[i, 0] >= top0 - TIE else 0.0
    p1 = 1.0 if nf > 0 and feats[i + 1, 0] >= top0 - TIE else 0.0
    p2 = 1.0 if nf > 0 and feats[i + 2, 0] >= top0 - TIE else 0.0
    p3 = 1.0 if nf > 0 and feats[i + 3, 0] >= top0 - TIE else 0.0
    v0 += p0 * weights[o0 + t]
    v1 += p1 * weights[o1 + t]
    v2 += p2 * weights[o2 + t]
    v3 += p3 * weights[o3 + t]
    if x != 0.0:
        u0 = weights[o0 + t + 1] + p0 * weights[o0 + t + 2 + nf]
        u1 = weights[o1 + t + 1] + p1 * weights[o1 + t + 2 + nf]
        u2 = weights[o2 + t + 1] + p2 * weights[o2 + t + 2 + nf]
        u3 = weights[o3 + t + 1] + p3 * weights[o3 + t + 2 + nf]
        for a in range(nz):
            u0 += feats[i, a] * weights[o0 + t + 2 + a]
            u1 += feats[i + 1, a] * weights[o1 + t + 2 + a]
            u2 += feats[i + 2, a] * weights[o2 + t + 2 + a]
            u3 += feats[i + 3, a] * weights[o3 + t + 2 + a]
        v0 += x * u0
        v1 += x * u1
        v2 += x * u2
        v3 += x * u3
    return v0, v1, v2, v3


@njit(cache=True, inline="always")
def _rows4(feats, moves, i, weights, at, codes, d, nf, top0, x):
    """The scores of rows ``i`` to ``i + 3``, each in its own move code's block (``_score4``)."""
    return _score4(
        feats, i, weights, _block(moves, i, at, codes, d), _block(moves, i + 1, at, codes, d),
        _block(moves, i + 2, at, codes, d), _block(moves, i + 3, at, codes, d), nf, top0, x,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _take(v, i, best, ties, first, feats, moves, weights, at, codes, d, nf, top0, x):
    """Row ``i``'s score ``v`` into the pass that finds the best score and counts the rows within TIE of it (as
    strategies.common.argmax_column): the new ``(best, ties, first)``."""
    if v > best:
        if best < v - TIE:  # every earlier row is below the new one's tie band
            return v, 1, i
        # a little higher, within the band: count the band again
        ties, first = _band(i, v, feats, moves, weights, at, codes, d, nf, top0, x)
        return v, ties, first
    if v >= best - TIE:
        if ties == 0:
            first = i
        ties += 1
    return best, ties, first


@njit(cache=True, _nrt=False)
def _band(i, best, feats, moves, weights, at, codes, d, nf, top0, x):
    """The rows up to ``i`` within TIE of ``best``: how many, and the first (rare: a score a little above a tie)."""
    ties = 0
    first = 0
    for j in range(i + 1):
        if _score(feats, j, weights, _block(moves, j, at, codes, d), nf, top0, x) >= best - TIE:
            if ties == 0:
                first = j
            ties += 1
    return ties, first


@njit(cache=True, inline="always")
def _block(moves, i, at, codes, d):
    """The first weight of candidate ``i``'s block: its move code's (clamped), or the kind's only one."""
    if codes <= 1:
        return at
    c = moves[i, 0]
    if c < 0:
        c = 0
    elif c >= codes:
        c = codes - 1
    return at + c * d


@njit(cache=True, _nrt=False, nogil=True)
def policy_choose(kind, view, moves, n, feats, weights, rng):
    """The candidate with the best score among the first ``n`` rows (ties drawn uniformly); the bot contract's
    ``choose`` (``sim.core.bots``). Reads ``feats`` (filled with what the deciding seat sees), its own ``view``
    (the progress) and ``moves[i, 0]`` (the move code)."""
    if n <= 1:
        return 0
    nw = weights.shape[0]
    if nw < H_KIND0 or kind < 0 or kind >= weights[H_KINDS] or H_KIND0 + 2 * kind + 1 >= nw:
        return rng_below(rng, n)
    nf = feats.shape[1]
    d = 1 + nf + nf * (nf + 1) // 2 + 1 + 1 + nf + 1
    at = int(weights[H_KIND0 + 2 * kind])
    codes = int(weights[H_KIND0 + 2 * kind + 1])
    if at < H_KIND0 or codes < 1 or at + codes * d > nw:
        return rng_below(rng, n)
    x = progress_of(view, int(weights[H_NUM]), int(weights[H_DEN]))
    top0 = -np.inf
    if nf > 0:
        for i in range(n):
            if feats[i, 0] > top0:
                top0 = feats[i, 0]
    temp = temperature_of(weights, d)
    if temp > 0.0:
        return softmax_draw(feats, moves, n, weights, at, codes, d, nf, top0, x, temp, rng)
    # one pass finds the best score and counts the rows within TIE of it (as strategies.common.argmax_column); a
    # second pass, only when several tie, finds the drawn one
    # (four rows at a time: their scores are four independent sums, each added up in the order of _score, so the
    # processor overlaps them and every score is the one _score gives)
    best = -np.inf
    ties = 0
    first = 0
    i = 0
    while i + 4 <= n:
        v0, v1, v2, v3 = _rows4(feats, moves, i, weights, at, codes, d, nf, top0, x)
        best, ties, first = _take(v0, i, best, ties, first, feats, moves, weights, at, codes, d, nf, top0, x)
        best, ties, first = _take(v1, i + 1, best, ties, first, feats, moves, weights, at, codes, d, nf, top0, x)
        best, ties, first = _take(v2, i + 2, best, ties, first, feats, moves, weights, at, codes, d, nf, top0, x)
        best, ties, first = _take(v3, i + 3, best, ties, first, feats, moves, weights, at, codes, d, nf, top0, x)
        i += 4
    while i < n:
        v = _score(feats, i, weights, _block(moves, i, at, codes, d), nf, top0, x)
        best, ties, first = _take(v, i, best, ties, first, feats, moves, weights, at, codes, d, nf, top0, x)
        i += 1
    if ties <= 1:
        return first
    pick = rng_below(rng, ties)
    for i in range(first, n):
        if _score(feats, i, weights, _block(moves, i, at, codes, d), nf, top0, x) >= best - TIE:
            if pick == 0:
                return i
            pick -= 1
    return first


# The policy as a bot's ``choose`` (``sim.core.bots.policy_bot``): a dispatcher of its own, because a line-up closes
# its bots to the bot signature (``bots.ready_bot``) while tests and tools call :func:`policy_choose` with others.
# Made here, while this module is imported, so that numba fixes its cache in this module's keyed directory
# (``sim.core.numba_cache``); one made later, outside an import, cached in ``__pycache__`` beside the sources,
# where an empty ``MEEPLAB_CACHE_DIR`` did not reach it. Same function, same options: the same machine code.
policy_bot_choose = njit(cache=True, _nrt=False, nogil=True)(policy_choose.py_func)


@njit(cache=True, inline="always")
def temperature_of(weights, d):
    """The temperature slot after the last kind's blocks (0 where the vector has none)."""
    k = int(weights[H_KINDS])
    last = H_KIND0 + 2 * (k - 1)
    if k < 1 or last + 1 >= weights.shape[0]:
        return 0.0
    slot = int(weights[last]) + int(weights[last + 1]) * d
    if slot < 0 or slot >= weights.shape[0]:
        return 0.0
    return weights[slot]


@njit(cache=True, _nrt=False, nogil=True)
def softmax_draw(feats, moves, n, weights, at, codes, d, nf, top0, x, temp, rng):
    """A candidate drawn with probability proportional to ``exp(score / temp)`` (one draw of ``rng``). Three passes
    over the scores (0: the best; 1: the sum of the exponentials; 2: the draw), each scoring four rows at a time
    (``_score4``: each score is ``_score``'s, up to the sign of a score that is 0) and taking them in row order, so
    every sum is added up in the order of a pass row by row. (One loop serves the three passes, so the scorer is
    compiled into it once.)"""
    best = -np.inf
    tot = 0.0
    u = 0.0
    for ps in range(3):
        if ps == 2:
            u = rng_float(rng) * tot
        i = 0
        while i < n:
            k = 1
            if i + 4 <= n:
                v0, v1, v2, v3 = _rows4(feats, moves, i, weights, at, codes, d, nf, top0, x)
                k = 4
            else:
                v0 = _score(feats, i, weights, _block(moves, i, at, codes, d), nf, top0, x)
                v1 = v2 = v3 = v0
            for j in range(k):
                v = v0 if j == 0 else (v1 if j == 1 else (v2 if j == 2 else v3))
                if ps == 0:
                    if v > best:
                        best = v
                elif ps == 1:
                    tot += np.exp((v - best) / temp)
                else:
                    u -= np.exp((v - best) / temp)
                    if u < 0.0:
                        return i + j
            i += k
    return n - 1
