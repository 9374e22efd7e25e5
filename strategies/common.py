"""numba helpers shared by bots of every game (uniform pick, argmax with random ties, linear scores)."""

import numpy as np
from numba import njit

from meeplab.sim.core.rng import rng_below, rng_float


@njit(cache=True, inline="always")
def pick_uniform(n, rng):
    """A uniformly random index in [0, n)."""
    if n <= 1:
        return 0
    return rng_below(rng, n)


@njit(cache=True, inline="always")
def argmax_column(feats, n, col, rng):
    """Index of the best ``feats[:, col]`` among the first n rows; ties (rows within 1e-9 of the best) broken
    uniformly at random. One pass finds the best and counts its ties (the count restarts when a row beats the
    best by more than 1e-9, and is redone when one beats it by less); a second pass, only when there are ties,
    finds the drawn one."""
    if n <= 1:
        return 0
    best = -np.inf
    ties = 0
    first = 0
    for i in range(n):
        v = feats[i, col]
        if v > best:
            if best < v - 1e-9:
                # every earlier row is at most the old best: below the new one's tie band
                ties = 1
                first = i
                best = v
            else:
                best = v
                ties = 0
                for j in range(i + 1):
                    if feats[j, col] >= best - 1e-9:
                        if ties == 0:
                            first = j
                        ties += 1
        elif v >= best - 1e-9:
            if ties == 0:
                first = i
            ties += 1
    if ties <= 1:
        return first
    k = rng_below(rng, ties)
    for i in range(first, n):
        if feats[i, col] >= best - 1e-9:
            if k == 0:
                return i
            k -= 1
    return first


@njit(cache=True, inline="always")
def _dot(feats, i, weights, off, k):
    v = 0.0
    for j in range(k):
        v += feats[i, j] * weights[off + j]
    return v


@njit(cache=True, inline="always")
def _argmax_dot(feats, n, weights, off, k, rng):
    """Index maximising ``feats[i, :k] . weights[off:off + k]``; rows within 1e-9 of the best tie and
    one is drawn uniformly. Allocates nothing (the scores are recomputed, in the same order, rather
    than stored), so a bot built on it can be compiled without reference counting (see bot_jit)."""
    if n <= 1:
        return 0
    best = -np.inf
    for i in range(n):
        v = _dot(feats, i, weights, off, k)
        if v > best:
            best = v
    ties = 0
    first = 0
    for i in range(n):
        if _dot(feats, i, weights, off, k) >= best - 1e-9:
            if ties == 0:
                first = i
            ties += 1
    if ties <= 1:
        return first
    pick = rng_below(rng, ties)
    for i in range(n):
        if _dot(feats, i, weights, off, k) >= best - 1e-9:
            if pick == 0:
                return i
            pick -= 1
    return first


@njit(cache=True, inline="always")
def argmax_linear(feats, n, weights, rng):
    """Index maximising ``feats[i, :k] . weights[:k]`` (k = min of widths); random tie-break."""
    return _argmax_dot(feats, n, weights, 0, min(feats.shape[1], weights.shape[0]), rng)


@njit(cache=True)
def softmax_linear(feats, n, weights, temperature, rng):
    """Sample an index with probability proportional to exp(score / temperature)."""
    k = min(feats.shape[1], weights.shape[0])
    scores = np.empty(n)
    top = -np.inf
    for i in range(n):
        v = 0.0
        for j in range(k):
            v += feats[i, j] * weights[j]
        scores[i] = v
        if v > top:
            top = v
    total = 0.0
    for i in range(n):
        scores[i] = np.exp((scores[i] - top) / temperature)
        total += scores[i]
    r = rng_float(rng) * total
    acc = 0.0
    for i in range(n):
        acc += scores[i]
        if r < acc:
            return i
    return n - 1


@njit(cache=True, inline="always")
def argmax_kind_linear(kind, feats, n, weights, nf, rng):
    """Linear scoring with one block of ``nf`` weights per decision kind: weights[kind*nf:(kind+1)*nf]."""
    return _argmax_dot(feats, n, weights, kind * nf, min(nf, feats.shape[1]), rng)


def kind_weights(kinds, features, table):
    """Flatten a TOML ``{kind: {feature: weight}}`` table into the ordered WEIGHTS mapping
    ``{"kind.feature": value}`` (missing entries are 0) used with :func:`argmax_kind_linear`."""
    out = {}
    for kind in kinds:
        block = table.get(kind, {})
        unknown = set(block) - set(features[kind])
        if unknown:
            raise ValueError(f"unknown feature(s) {sorted(unknown)} for decision '{kind}'")
        for f in features[kind]:
            out[f"{kind}.{f}"] = float(block.get(f, 0.0))
    return out
