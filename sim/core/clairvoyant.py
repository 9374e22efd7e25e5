"""The clairvoyant rollout search: Dreef et al.'s *fictive player* (``meeplab quality``, relative skill).

It is the rollout search of ``sim.core.search`` with one change: its playouts start from the TRUE state (the real
order of every deck, bag and pile and the other seats' real hidden cards) instead of a copy re-dealt for the
searching seat. It therefore knows the chance outcomes in advance, as far as the engine holds them in its state
(every engine here deals its decks, bags and token faces at setup), while the other seats' future choices stay
unknown (its playouts still play them by the playout policy with fresh random draws).

Everything else is the rollout search's: the same candidates, budget, value, switch and streams (``base`` is one draw
of the game's stream, playout ``k`` of every candidate uses ``(base, k)``). Each playout copy is first re-dealt as the
plain search re-deals it (so whatever the engine does besides the re-deal, e.g. invalidating per-copy caches, is
done alike) and then overwritten by the true record, so in a game without chance or hidden information the
clairvoyant search makes exactly the plain search's choices: the check that relative skill comes out 1 there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .forward import (
    C_KIND,
    C_N,
    C_NP,
    C_SEAT,
    S_LOWER,
    S_MARGIN,
    S_MAXCAND,
    S_PLAYOUTS,
    S_VALUE,
    Value,
    fm_apply,
    fm_copy,
    fm_determinise,
    fm_result,
)
from .play import new_player
from .rng import rng_init, rng_next
from .search import pick_best, playout, seat_value, select_candidates


@njit(cache=True, _nrt=False)
def clairvoyant_choose(st, scratch, cx, fns, weights, cfg, entry):
    """The clairvoyant search's choice for the pending decision of ``st`` (see the module doc), in ``scratch`` (a
    :class:`~meeplab.sim.core.scratch.SearchScratch` of the same game)."""
    sim, acc, cand, sc, tb, brk = scratch.sim, scratch.acc, scratch.cand, scratch.sc, scratch.tb, scratch.brk
    r = st.rec[0]
    q = sim.rec[0]
    n = r.ctl[C_N]
    seat = r.ctl[C_SEAT]
    np_ = r.ctl[C_NP]
    k_play = max(1, int(cfg[S_PLAYOUTS]))
    base = rng_next(r.rng)
    rng_init(q.rng, base, k_play)
    first = fns[entry](r.ctl[C_KIND], r.pub, r.moves, n, r.feats, weights[entry], q.rng)
    if first < 0 or first >= n:
        first = 0
    nc = select_candidates(r.feats, n, first, int(cfg[S_MAXCAND]), cand, scratch.used)
    margin = cfg[S_MARGIN]
    rank = int(cfg[S_VALUE]) == Value.RANK
    for ci in range(nc):
        acc[ci] = 0.0
    for k in range(k_play):
        for ci in range(nc):
            fm_copy(sim, st)
            rng_init(q.rng, base, k)
            fm_determinise(sim, cx, seat, q.rng)
            fm_copy(sim, st)  # the true state again (the re-deal's other effects stay)
            rng_init(q.rng, base, k)
            fm_apply(sim, cx, cand[ci])
            playout(sim, cx, fns, weights, entry)
            fm_result(sim, cx, sc, tb, brk)
            if cfg[S_LOWER] != 0.0:  # lowest score wins: the value reads the negated scores (as sim.core.search)
                for p in range(np_):
                    sc[p] = -sc[p]
            acc[ci] += seat_value(sc, tb, np_, seat, margin, rank)
    return pick_best(st, cfg, nc, k_play, scratch)


def _clairvoyant(st, scratch, cx, fns, weights, search, e, k):
    """Lineup entry ``e``'s clairvoyant search (the shared loop's ``srch`` argument; restrictions are not supported)."""
    return clairvoyant_choose(st, scratch, cx, fns, weights, search[e], e)


clairvoyant_step = njit(cache=True, _nrt=False)(_clairvoyant)


def clairvoyant_function(cx, lineup, np_, ncat):
    """The clairvoyant search as the shared loop's search function pointer (``sim.core.play.play_game``'s
    ``srch``): every search entry of ``lineup`` then searches from the true state."""
    from .forward import step_pointer

    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 1), dtype=np.int64))
    return step_pointer(clairvoyant_step, st, scratch, cx, lineup.fns, lineup.weights, lineup.search, 0, 0)


def run_batch_with(cx, lineup, np_, seed, start, n_games, ncat, srch):
    """As ``sim.core.play.run_batch`` with the search function pointer ``srch`` (e.g. :func:`clairvoyant_function`'s)
    in place of the rollout search: game ``g`` is still seeded from ``(seed, g)`` alone (common random numbers)."""
    from .game import Batch
    from .play import loop_args, play_batch

    score = np.zeros((n_games, np_))
    tiebreak = np.zeros((n_games, np_))
    brk = np.zeros((n_games, np_, ncat))
    length = np.zeros(n_games, dtype=np.int64)
    end = np.zeros(n_games, dtype=np.int8)
    play_batch(*loop_args(cx, lineup, np_), seed, start, n_games, score, tiebreak, brk, length, end, 8, srch)
    return Batch(score=score, tiebreak=tiebreak, breakdown=brk, length=length, end=end)
