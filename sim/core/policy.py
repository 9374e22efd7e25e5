"""The learned policy: a conditional logit over the candidates' features, the same for every game.

A decision of kind ``k`` with candidates ``i = 0..n-1`` and their engine features ``f_i`` (the row ``feats[i]`` the
engine wrote for the deciding seat; ``nf`` columns) scores each candidate ``w_k . phi(f_i)`` and plays the best
(ties drawn at random). ``phi`` widens the features the game declares with what a linear score cannot see:

* the columns themselves, ``f_i[a]`` (``nf`` terms);
* their pairwise products, ``f_i[a] * f_i[b]`` for ``a <= b`` (``nf (nf + 1) / 2`` terms: "a gain matters more late");
* whether the candidate holds the decision's largest column 0 (the immediate value, by the forward model's
  contract), ``top`` (one term: "the best immediate gain", relative to the other candidates; what ``greedy``
  plays).

The weights are one block of :func:`width` per decision kind, kinds in ``ctl[C_KIND]`` order; a block missing from
a shorter weight vector scores every candidate 0 (a uniform pick). ``lab.studies.learn`` fits them to a search
bot's choices by maximum likelihood (the softmax of the same scores), and :func:`policy_choose` plays them in
the compiled loop, allocating nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rng import rng_below

__all__ = ["phi", "phi_names", "policy_choose", "policy_weight_names", "width"]

#: rows within this of the best score tie (and one of them is drawn)
TIE = 1e-9


def width(nf: int) -> int:
    """Terms of ``phi`` for ``nf`` feature columns: the columns, their pairwise products and the top flag."""
    return nf + nf * (nf + 1) // 2 + 1


def phi_names(columns: tuple[str, ...] | list[str]) -> list[str]:
    """The names of ``phi``'s terms for feature columns named ``columns``, in the weights' order."""
    cols = list(columns)
    out = list(cols)
    for a in range(len(cols)):
        for b in range(a, len(cols)):
            out.append(f"{cols[a]}*{cols[b]}")
    out.append(f"top:{cols[0]}" if cols else "top")
    return out


def policy_weight_names(features: dict[str, tuple[str, ...]]) -> list[str]:
    """Every weight of the policy of a game declaring ``features`` (kind name -> column names):
    ``"<kind>.<term>"``, kind by kind in their order."""
    return [f"{kind}.{term}" for kind, cols in features.items() for term in phi_names(cols)]


def phi(feats: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """``phi`` of every row of ``feats`` (rows x nf) as a rows x width(nf) array (numpy; what the fit reads, term for
    term what :func:`policy_choose` computes). The rows are one decision's candidates, or with ``starts`` several
    decisions' (decision ``d`` is rows ``starts[d]:starts[d + 1]``): the top flag compares a candidate with the
    others of its own decision."""
    feats = np.asarray(feats, dtype=np.float64)
    n, nf = feats.shape
    out = np.empty((n, width(nf)))
    out[:, :nf] = feats
    k = nf
    for a in range(nf):
        out[:, k : k + nf - a] = feats[:, a : a + 1] * feats[:, a:]
        k += nf - a
    if n == 0 or nf == 0:
        out[:, k:] = 0.0
        return out
    starts = np.array([0, n]) if starts is None else np.asarray(starts)
    top = np.maximum.reduceat(feats[:, 0], starts[:-1])
    out[:, k] = feats[:, 0] >= np.repeat(top, np.diff(starts)) - TIE
    return out


@njit(cache=True, inline="always")
def _score(feats, i, weights, off, nf, top0):
    v = 0.0
    for a in range(nf):
        v += feats[i, a] * weights[off + a]
    k = off + nf
    for a in range(nf):
        fa = feats[i, a]
        for b in range(a, nf):
            v += fa * feats[i, b] * weights[k]
            k += 1
    if nf > 0 and feats[i, 0] >= top0 - TIE:
        v += weights[k]
    return v


@njit(cache=True, _nrt=False, nogil=True)
def policy_choose(kind, view, moves, n, feats, weights, rng):
    """The candidate with the best ``w_kind . phi(feats[i])`` among the first ``n`` rows (ties drawn uniformly); the
    bot contract's ``choose`` (``sim.core.bots``). Reads only ``feats``, which the engine fills with what the
    deciding seat sees."""
    if n <= 1:
        return 0
    nf = feats.shape[1]
    d = nf + nf * (nf + 1) // 2 + 1
    off = kind * d
    if kind < 0 or off + d > weights.shape[0]:
        return rng_below(rng, n)
    top0 = -np.inf
    if nf > 0:
        for i in range(n):
            if feats[i, 0] > top0:
                top0 = feats[i, 0]
    # one pass finds the best score and counts the rows within TIE of it (as strategies.common.argmax_column); a
    # second pass, only when several tie, finds the drawn one
    best = -np.inf
    ties = 0
    first = 0
    for i in range(n):
        v = _score(feats, i, weights, off, nf, top0)
        if v > best:
            if best < v - TIE:  # every earlier row is below the new one's tie band
                best, ties, first = v, 1, i
            else:  # a little higher, within the band: count the band again
                best, ties = v, 0
                for j in range(i + 1):
                    if _score(feats, j, weights, off, nf, top0) >= best - TIE:
                        if ties == 0:
                            first = j
                        ties += 1
        elif v >= best - TIE:
            if ties == 0:
                first = i
            ties += 1
    if ties <= 1:
        return first
    pick = rng_below(rng, ties)
    for i in range(first, n):
        if _score(feats, i, weights, off, nf, top0) >= best - TIE:
            if pick == 0:
                return i
            pick -= 1
    return first
