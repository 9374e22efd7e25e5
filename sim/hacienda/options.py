"""Hacienda's option classes for restricted play (``meeplab options``, ``sim/core/restrict.py``).

One place: the names below (bit ``b`` of a mask = ``OPTIONS[b]``) and ``option_mask``. Only the action choice
(kind 0) carries classes: where a bought tile goes, which group gets the hacienda or which chain is harvested
are follow-ups of an action the class already covers. A card type's class covers playing such a card and
buying one face up (a blind buy is of no type the buyer knows).
"""

from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import C_KIND

from .layout import (
    A_BUY_ANIMAL_BLIND,
    A_BUY_ANIMAL_UP,
    A_BUY_LAND_BLIND,
    A_BUY_LAND_UP,
    A_HACIENDA,
    A_HARVEST,
    A_PLAY,
    A_WATER,
    K_ACTION,
)
from .state import HCtx, HState

CARD_TYPES = ("mountain", "forest", "meadow", "rock", "swamp", "pampa", "cattle", "horse", "pig", "sheep")
OPTIONS = (
    ("buy_face_up", "buy a face-up land or animal card"),
    ("buy_blind", "buy a card blind from a deck"),
    ("hacienda", "build a hacienda"),
    ("water", "place a water tile"),
    ("harvest", "harvest a land chain for pesos"),
) + tuple((t, f"play or buy face up a {t} card") for t in CARD_TYPES)
BUY_UP, BUY_BLIND, HACIENDA, WATER, HARVEST = (1 << b for b in range(5))
FIRST_TYPE = 5  # bit of card type 0


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    """The option classes candidate ``i`` of the pending decision belongs to (0: none)."""
    r = st.rec[0]
    if r.ctl[C_KIND] != K_ACTION:
        return 0
    code = r.moves[i, 0]
    if code == A_BUY_LAND_UP or code == A_BUY_ANIMAL_UP:
        return BUY_UP | (1 << (FIRST_TYPE + r.moves[i, 2]))
    if code == A_BUY_LAND_BLIND or code == A_BUY_ANIMAL_BLIND:
        return BUY_BLIND
    if code == A_PLAY:
        return 1 << (FIRST_TYPE + r.moves[i, 1])
    if code == A_HACIENDA:
        return HACIENDA
    if code == A_WATER:
        return WATER
    if code == A_HARVEST:
        return HARVEST
    return 0


forward.register_options(HState, HCtx, option_mask)
