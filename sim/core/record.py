"""Record a bot's decisions as the deciding seat saw them: what a learned policy is fitted on.

:func:`record_games` plays games exactly as a run plays them (every decision through ``play.decide``) and, at each
decision with more than one candidate, keeps the decision kind, the deciding seat, the candidate count, the
candidate played, the candidates' feature rows (``feats``, which the engine fills from the deciding seat's view
only) and move codes (``moves[i, 0]``), and the game's progress as the seat sees it (``policy.progress_of``). A
decision with more candidates than ``keep`` keeps the one played and ``keep - 1`` others drawn from a stream of
``(seed, g)`` of its own, so the games play the same with or without recording.

With ``values`` on, a decision a search made also keeps what the search found: each kept candidate's mean playout
value and its playouts (``rollout``) or root visits (``ismcts``), 0 for a candidate the search left out
(``SearchScratch.acc``/``vis``); the candidates searched are then kept first, before the others drawn, so that a
decision of many candidates loses none of its targets.
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
    cx, fns, weights, search, rotate, seed, lo, hi, ncat, np_, srch, keep, num, den, dec, xs, rows, codes, counts,
    values, qv, qn,
):  # fmt: skip
    """Games ``lo..hi-1``: decision ``d`` into ``dec[d] = (game, kind, seat, n, pick row, first row)`` and its
    progress into ``xs[d]``, its kept feature rows into ``rows`` and their move codes into ``codes``; with
    ``values``, each kept row's mean playout value into ``qv`` and its playouts into ``qn`` (0: not searched);
    ``counts`` = (decisions, rows, 1 if a buffer ran out)."""
    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 1), dtype=np.int64))
    r = st.rec[0]
    m = r.moves.shape[0]
    idx = np.zeros(m, dtype=np.int64)
    sval = np.zeros(m)  # with values: per candidate, the search's mean value and its playouts (0: not searched)
    svis = np.zeros(m)
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
            if values:
                scratch.vis[:] = 0.0
            i = decide(st, scratch, cx, fns, weights, search, rotate, g, srch)
            ns = 0  # candidates searched (other than the one played), kept first
            if values and n > 1:
                ns = searched_values(scratch, n, i, sval, svis)
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
                        lead = searched_first(idx, n, keep - 1, svis) if ns > 0 else 0
                        for j in range(lead, keep - 1):
                            t = j + rng_below(draw, n - 1 - j)
                            idx[j], idx[t] = idx[t], idx[j]
                        idx[keep - 1] = i
                        at = keep - 1
                    for j in range(k):
                        for c in range(rows.shape[1]):
                            rows[nr + j, c] = r.feats[idx[j], c]
                        codes[nr + j] = r.moves[idx[j], 0]
                        if values:
                            qv[nr + j] = sval[idx[j]]
                            qn[nr + j] = svis[idx[j]]
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


@njit(cache=True, nogil=True)
def searched_values(scratch, n, pick, sval, svis):
    """Per candidate of the decision just searched, its mean playout value and playouts into ``sval``/``svis`` (0:
    not searched; a decision no search made leaves ``scratch.vis`` at 0); the candidates searched other than
    ``pick``."""
    for c in range(n):
        sval[c] = 0.0
        svis[c] = 0.0
    acc, vis, cand = scratch.acc, scratch.vis, scratch.cand
    for ci in range(vis.shape[0]):
        if vis[ci] > 0.0:
            c = cand[ci]
            svis[c] = vis[ci]
            sval[c] = acc[ci] / vis[ci]
    ns = 0
    for c in range(n):
        if svis[c] > 0.0 and c != pick:
            ns += 1
    return ns


@njit(cache=True, nogil=True)
def searched_first(idx, n, room, svis):
    """Move the searched candidates among ``idx[:n - 1]`` (the one played is at ``n - 1``) to its front, at most
    ``room``; how many were moved."""
    lead = 0
    for j in range(n - 1):
        if lead >= room:
            break
        if svis[idx[j]] > 0.0:
            idx[j], idx[lead] = idx[lead], idx[j]
            lead += 1
    return lead


class Recorded:
    """What :func:`record_games` kept: ``decisions`` int64[D, 6] (game, kind, seat, candidates, row of the one
    played among the kept, first kept row), ``progress`` float64[D], ``rows`` float64[R, F] (the kept candidates'
    features), ``codes`` int64[R] (their ``moves[i, 0]``) and, recorded with values, ``value`` and ``visits``
    float64[R] (the search's mean playout value of each kept candidate and its playouts; 0: not searched)."""

    def __init__(self, decisions, progress, rows, codes, value=None, visits=None):
        self.decisions, self.progress, self.rows, self.codes = decisions, progress, rows, codes
        r = rows.shape[0]
        self.value = np.zeros(r) if value is None else value
        self.visits = np.zeros(r) if visits is None else visits


def record_games(
    cx, lineup, n_players, seed, lo, hi, ncat, keep=32, decisions=4096, progress=None, values=False
) -> Recorded:
    """Play games ``lo..hi-1`` of ``lineup`` on engine context ``cx`` (``ncat`` score categories) and keep each
    decision with more than one candidate (see the module doc); ``progress`` is the game's ``(num, den)`` view
    indices (``policy.Shape.progress``; None: 0); ``values``: keep the search's values too. The buffers start at
    ``decisions`` decisions and double until the games fit (the games are played again from their seeds: the same
    decisions)."""
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
        qv = np.zeros(rows.shape[0])
        qn = np.zeros(rows.shape[0])
        _record(
            cx, lineup.fns, lineup.weights, lineup.search, lineup.rotate, seed, lo, hi, ncat, n_players, srch, keep,
            num, den, dec, xs, rows, codes, counts, bool(values), qv, qn,
        )  # fmt: skip
        if not counts[2]:
            nd, nr = int(counts[0]), int(counts[1])
            return Recorded(
                dec[:nd].copy(), xs[:nd].copy(), rows[:nr].copy(), codes[:nr].copy(), qv[:nr].copy(), qn[:nr].copy()
            )
        size *= 2
