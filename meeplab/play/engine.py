"""The forward model, one step at a time, from Python: the core's compiled entry points (``sim.core.face``: reset,
advance, apply, determinise, result, cached and keyed by each game's sources) and :func:`decide`, a bot's decision
on a state exactly as the shared loop asks it, so the play server drives any game through its face without naming
one.
"""

from __future__ import annotations

from numba import njit

from meeplab.sim.core.bots import entry_of_seat
from meeplab.sim.core.face import advance, apply, determinise, new_state, reset, result
from meeplab.sim.core.forward import C_DECISIONS, C_KIND, C_N, C_NP, C_SEAT, ask, searches
from meeplab.sim.core.restrict import allowed_list, ask_among, is_restricted

__all__ = ["advance", "apply", "decide", "determinise", "new_state", "reset", "result"]


# Compiled per process (no on-disk cache: numba would key a cached copy by this file alone, outside the game-keyed
# cache of meeplab.sim); everything it calls is the core's own cached code.
@njit
def decide(st, sim, cx, fns, weights, search, rotate, g, acc, cand, used, sc, tb, brk, srch):
    """The bot's choice for the pending decision of game ``g``, as ``sim.core.play.play_game`` asks it: restricted
    play, search bots through ``srch`` (``sim.core.play.search_function``), plain bots; the same draws from the
    game's stream, so a game played here is the game a run plays."""
    r = st.rec[0]
    np_ = r.ctl[C_NP]
    m = r.moves.shape[0]
    pick = used[m : 2 * m]
    e = entry_of_seat(r.ctl[C_SEAT], g, np_, rotate)
    n = r.ctl[C_N]
    k = n
    if n > 1 and is_restricted(search[e]):
        k = allowed_list(st, cx, search[e], pick)
    if searches(search[e], n, r.ctl[C_KIND]):
        r.ctl[C_DECISIONS] += 1
        return srch(st, sim, cx, fns, weights, search, e, acc, cand, used, sc, tb, brk, k)
    if k < n:
        return ask_among(st, fns, weights, e, r.rng, pick, k)
    return ask(st, fns, weights, e)
