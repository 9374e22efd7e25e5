"""The search scratch: what a search bot works in, one named structure allocated once per block of games.

The shared loop (``sim.core.play``) hands a :class:`SearchScratch` down as one argument, through the search's
function pointer too, to the searches (``sim.core.search``, ``sim.core.ismcts``) and to the
win-probability playouts (``sim.core.trajectories``). Numba takes it as a heterogeneous named tuple: passing it costs
what passing its nine fields one by one costs, and nothing in it is allocated during a game.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .forward import fm_new

# a racing rollout (sim.core.search, S_RACE) keeps every playout value of at most RACE_CAND candidates and RACE_K
# playouts each; a search past either bound plays every playout of every candidate (no racing)
RACE_CAND = 32
RACE_K = 256


class SearchScratch(NamedTuple):
    """The buffers of a search, for a game of at most ``M`` candidates per decision (``moves.shape[0]`` of its state
    record), ``P`` players and ``C`` score categories. A search overwrites all of them; after one, ``acc`` and ``cand``
    hold its candidates and their summed playout values (the viewer's trace and the play page read them) and ``vis``
    how many playouts each sum holds (``rollout``: its playouts per candidate; ``ismcts``: the root candidate's visits),
    0 past the last candidate searched (``meeplab learn`` records them as the teacher's value and visit targets)."""

    sim: Any  # a state of the same game (fm_new, no event log): the playouts run in it
    acc: np.ndarray  # float64[M]: per candidate searched, the sum of its playout values
    cand: np.ndarray  # int64[M]: the candidates searched, as rows of moves (the playout policy's pick first)
    # int64[3M], three rows of M: the search's marks (which rows are taken or forbidden), then a restricted entry's
    # allowed candidates (sim.core.restrict, filled by the loop) and its scratch for its own later decisions in playouts
    used: np.ndarray
    sc: np.ndarray  # float64[P]: a finished playout's score per seat
    tb: np.ndarray  # float64[P]: its tie-break per seat
    brk: np.ndarray  # float64[P, C]: its score breakdown per seat
    vis: np.ndarray  # float64[M]: per candidate searched, the playouts (or root visits) its sum in acc holds
    # float64[RACE_CAND, RACE_K]: a racing rollout's playout values, per candidate searched and playout (S_RACE)
    vals: np.ndarray


@njit(cache=True)
def new_scratch(cx, np_, ncat, log):
    """A :class:`SearchScratch` for ``np_`` players and ``ncat`` score categories on engine context ``cx``; ``log``: the
    event log of the state it serves (its playout state gets an empty one of the same type)."""
    sim = fm_new(cx, np_, log[:0])
    m = sim.rec[0].moves.shape[0]
    return SearchScratch(
        sim,
        np.zeros(m, dtype=np.float64),
        np.zeros(m, dtype=np.int64),
        np.zeros(3 * m, dtype=np.int64),
        np.zeros(np_, dtype=np.float64),
        np.zeros(np_, dtype=np.float64),
        np.zeros((np_, ncat), dtype=np.float64),
        np.zeros(m, dtype=np.float64),
        np.zeros((RACE_CAND, RACE_K), dtype=np.float64),
    )
