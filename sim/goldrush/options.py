"""Gold Rush's option classes for restricted play (``meeplab options``, ``sim/core/restrict.py``).

One place: the names below (bit ``b`` of a mask = ``OPTIONS[b]``) and ``option_mask``. The classes are the
action after the placement (kind 1): a cowboy on each kind of feature, the tent, mining, and taking a cowboy
back (a house rule, offered only when it is on). Where the tile goes (kind 0) carries no class.
"""

from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import C_KIND

from .const import A_COWBOY, A_MINE, A_REMOVE, A_TENT, KIND_ACTION
from .state import GRCtx, GRState

OPTIONS = (
    ("cowboy_railroad", "put a cowboy on a railroad"),
    ("cowboy_mountain", "put a cowboy on a mountain"),
    ("cowboy_city", "put a cowboy in a city (merchant)"),
    ("cowboy_prairie", "put a cowboy on a prairie (farmer)"),
    ("tent", "put or move the tent onto a mountain"),
    ("mine", "mine a token from the stack under the own tent"),
    ("take_back", "take an own cowboy back (house rule)"),
)
TENT, MINE, TAKE_BACK = (1 << b for b in range(4, 7))


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    """The option classes candidate ``i`` of the pending decision belongs to (0: none)."""
    r = st.rec[0]
    if r.ctl[C_KIND] != KIND_ACTION:
        return 0
    t = r.moves[i, 0]
    if t == A_COWBOY:
        return 1 << r.moves[i, 2]
    if t == A_TENT:
        return TENT
    if t == A_MINE:
        return MINE
    if t == A_REMOVE:
        return TAKE_BACK
    return 0


forward.register_options(GRState, GRCtx, option_mask)
