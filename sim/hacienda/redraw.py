"""Hacienda's ``fm_redraw`` (``sim.core.forward``): fresh future chance from the true state.

Hacienda's chance is the order of its two decks, dealt at setup: the land deck still to draw, the animal cards
still in the two stacks and the animal cards removed at the start (never seen by anyone). :func:`redraw_decks`
shuffles each of these in place; every hand (the other seats' included: that is what sets it apart from
``determinise``), the face-up cards, the board and the pending decision stay as they are.
"""

from numba import njit

from meeplab.sim.core.forward import C_NP
from meeplab.sim.core.rng import rng_below

from .layout import S_A2, S_APTR, S_LEND, S_LPTR, SR
from .scoring import P_REMOVED
from .state import tables


@njit(cache=True, _nrt=False)
def shuffle_two_ranges(a, lo1, hi1, lo2, hi2, rnd):
    """Fisher-Yates shuffle of the cards in ``a[lo1:hi1]`` and ``a[lo2:hi2]`` together, in place (a card may
    change range: both hold cards nobody has seen)."""
    n1 = hi1 - lo1
    n = n1 + hi2 - lo2
    for i in range(n - 1, 0, -1):
        x = rng_below(rnd, i + 1)
        ia = lo1 + i if i < n1 else lo2 + i - n1
        ix = lo1 + x if x < n1 else lo2 + x - n1
        t = a[ia]
        a[ia] = a[ix]
        a[ix] = t


@njit(cache=True, _nrt=False)
def redraw_decks(st, eng, rnd):
    """Shuffle, drawing from ``rnd``, the land deck still to draw and, together, the animal stacks and the removed
    animal cards (``eng``: the engine context, ``HEng``)."""
    r = st.rec[0]
    SP = tables(st, eng)[1]
    removed = eng.tab[0].pi[P_REMOVED + r.ctl[C_NP] - 2]
    lp = SP[SR, S_LPTR]
    shuffle_two_ranges(r.ldeck, lp, lp, lp, SP[SR, S_LEND], rnd)
    shuffle_two_ranges(r.adeck, 0, removed, SP[SR, S_APTR], SP[SR, S_A2], rnd)
