"""Record a bot's decisions as the deciding seat saw them: what a learned policy is fitted on.

:func:`record_games` plays games exactly as a run plays them (every decision through ``play.decide``) and, at each
decision with more than one candidate, keeps the decision kind, the deciding seat, the candidate count, the
candidate played, the candidates' feature rows (``feats``, which the engine fills from the deciding seat's view
only) and move codes (``moves[i, 0]``), and the game's progress as the seat sees it (``policy.progress_of``). A
decision with more candidates than ``keep`` keeps the one played and ``keep - 1`` others drawn from a stream of
``(seed, g)`` of its own, so the games play the same with or without recording.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .forward import C_KIND, C_N, C_SEAT, fm_advance, fm_apply, fm_reset
from .play import decide, new_player, search_function
from .policy import progress_of
from .rng import rng_below, rng_init

__all__ = ["Recorded", "record_games"]

#: the stream the candidate sampling draws from: (seed, game) mixed with this, never a game's own stream
SAMPLE_SALT = 0x5EC0_4D5A_11E5


@njit(cache=True, nogil=True)
def _record(
    cx, fns, weights, search, rotate, seed, lo, hi, ncat, np_, srch, keep, num, den, dec, xs, rows, codes, counts
):
    """Games ``lo..hi-1``: decision ``d`` into ``dec[d] = (game, kind, seat, n, pick row, first row)`` and its
    progress into ``xs[d]``, its kept feature rows into ``rows`` and their move codes into ``codes``; ``counts`` =
    (decisions, rows, 1 if a buffer ran out)."""
    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 1), dtype=np.int64))
    r = st.rec[0]
    m = r.moves.shape[0]
    idx = np.zeros(m, dtype=np.int64)
    draw = np.zeros(4, dtype=np.uint64)
    nd, nr = 0, 0
    for g in range(lo, hi):
        fm_reset(st, cx, seed, g)
        rng_init(draw, seed ^ SAMPLE_SALT, g)
        while True:
            if fm_advance(st, cx) < 0:
                break
            n = r.ctl[C_N]
            kind, seat = r.ctl[C_KIND], r.ctl[C_SEAT]
            i = decide(st, scratch, cx, fns, weights, search, rotate, g, srch)
            if n > 1:
                k = n if n <= keep else keep
                if nd >= dec.shape[0] or nr + k > rows.shape[0]:
                    counts[2] = 1
                else:
                    if n <= keep:
                        for j in range(n):
                            idx[j] = j
                        at = i
                    else:  # the one played, then keep - 1 others by a partial Fisher-Yates shuffle
                        for j in range(n):
                            idx[j] = j
                        idx[i] = n - 1
                        idx[n - 1] = i
                        for j in range(keep - 1):
                            t = j + rng_below(draw, n - 1 - j)
                            idx[j], idx[t] = idx[t], idx[j]
                        idx[keep - 1] = i
                        at = keep - 1
                    for j in range(k):
                        for c in range(rows.shape[1]):
                            rows[nr + j, c] = r.feats[idx[j], c]
                        codes[nr + j] = r.moves[idx[j], 0]
                    xs[nd] = progress_of(r.pub, num, den)
                    dec[nd, 0] = g
                    dec[nd, 1] = kind
                    dec[nd, 2] = seat
                    dec[nd, 3] = n
                    dec[nd, 4] = at
                    dec[nd, 5] = nr
                    nd += 1
                    nr += k
            fm_apply(st, cx, i)
    counts[0] = nd
    counts[1] = nr
    return nd


class Recorded:
    """What :func:`record_games` kept: ``decisions`` int64[D, 6] (game, kind, seat, candidates, row of the one
    played among the kept, first kept row), ``progress`` float64[D], ``rows`` float64[R, F] (the kept candidates'
    features) and ``codes`` int64[R] (their ``moves[i, 0]``)."""

    def __init__(self, decisions: np.ndarray, progress: np.ndarray, rows: np.ndarray, codes: np.ndarray):
        self.decisions, self.progress, self.rows, self.codes = decisions, progress, rows, codes


def record_games(cx, lineup, n_players, seed, lo, hi, ncat, keep=32, decisions=4096, progress=None) -> Recorded:
    """Play games ``lo..hi-1`` of ``lineup`` on engine context ``cx`` (``ncat`` score categories) and keep each
    decision with more than one candidate (see the module doc); ``progress`` is the game's ``(num, den)`` view
    indices (``policy.Shape.progress``; None: 0). The buffers start at ``decisions`` decisions and double until the
    games fit (the games are played again from their seeds: the same decisions)."""
    st = new_player(cx, n_players, ncat, np.zeros((0, 1), dtype=np.int64))[0]
    nf = st.rec[0]["feats"].shape[1]
    srch = search_function(cx, lineup, n_players, ncat)
    num, den = progress if progress is not None else (-1, -1)
    size = max(1, int(decisions))
    while True:
        dec = np.zeros((size, 6), dtype=np.int64)
        xs = np.zeros(size)
        rows = np.zeros((size * min(keep, 8), nf))
        codes = np.zeros(rows.shape[0], dtype=np.int64)
        counts = np.zeros(3, dtype=np.int64)
        _record(
            cx, lineup.fns, lineup.weights, lineup.search, lineup.rotate, seed, lo, hi, ncat, n_players, srch, keep,
            num, den, dec, xs, rows, codes, counts,
        )  # fmt: skip
        if not counts[2]:
            nd, nr = int(counts[0]), int(counts[1])
            return Recorded(dec[:nd].copy(), xs[:nd].copy(), rows[:nr].copy(), codes[:nr].copy())
        size *= 2
