"""Schweinebande's option classes for restricted play (``meeplab options``, ``sim/core/restrict.py``).

One place: the names below (bit ``b`` of a mask = ``OPTIONS[b]``) and ``option_mask``, which says which classes a
candidate of the pending decision belongs to. Selling is forced by the rules (a player short of feed must sell),
so its class is the one real choice in it: selling a pig rather than another animal.
"""

from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import C_KIND

from .layout import K_FARM, K_PLACE, K_SACK, K_SELL
from .params import PIG
from .state import SBCtx, SBState

OPTIONS = (
    ("pass", "let a revealed tile go by without placing a farmer on it"),
    ("quartet", "close four of a kind onto the farm"),
    ("mixed", "close a mixed group: one of each animal (the cow goes to the farm)"),
    ("pig_bonus", "round 4: four pigs put two on the farm"),
    ("sack", "feed with a feed sack instead of markers"),
    ("sell_pig", "when short of feed, sell a pig rather than another animal"),
)
PASS, QUARTET, MIXED, PIG_BONUS, SACK_USE, SELL_PIG = (1 << b for b in range(len(OPTIONS)))


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    """The option classes candidate ``i`` of the pending decision belongs to (0: none)."""
    r = st.rec[0]
    kind = r.ctl[C_KIND]
    m = r.moves[i, 0]
    if kind == K_PLACE:
        return PASS if m == 0 else 0
    if kind == K_FARM:
        if m == 1:
            return QUARTET
        if m == 2:
            return MIXED
        if m == 3:
            return PIG_BONUS
        return 0
    if kind == K_SACK:
        return SACK_USE if m == 1 else 0
    if kind == K_SELL:
        return SELL_PIG if m == PIG else 0
    return 0


forward.register_options(SBState, SBCtx, option_mask)
