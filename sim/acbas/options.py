"""ACBAS's option classes for restricted play (``meeplab options``, ``sim/core/restrict.py``).

One place: the names below (bit ``b`` of a mask = ``OPTIONS[b]``) and ``option_mask``. Each action space is a
class (the two Special-building slots are one space), and each of the four special buildings is a class of the
building choice (kind 5), so "never build the Storage Building" forbids it there while the Special-building
space stays open for the others.
"""

from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.forward import C_KIND

from .layout import K_ACTION, K_SPECIAL
from .params import B_HTH, B_OPEN, B_SHELTER, B_STORAGE
from .state import AcCtx, AcState

SPACES = (
    "start_player",
    "wood_3",
    "stone_1",
    "stone_2",
    "building_materials",
    "fences",
    "walls",
    "expand",
    "troughs",
    "stall",
    "stables",
    "special_building",
    "millpond",
    "pigs_and_sheep",
    "cows_and_pigs",
    "horses_and_sheep",
)
SPECIAL_SLOT_2 = 12  # action slot of the second Special-building space (same class as slot 11)
BUILDINGS = (
    (B_HTH, "half_timbered_house", "Half-Timbered House"),
    (B_STORAGE, "storage_building", "Storage Building"),
    (B_SHELTER, "shelter", "Shelter"),
    (B_OPEN, "open_stables", "Open Stables"),
)
OPTIONS = tuple((s, f"the action space {s.replace('_', ' ')}") for s in SPACES) + tuple(
    (name, f"build the {title}") for _, name, title in BUILDINGS
)


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    """The option classes candidate ``i`` of the pending decision belongs to (0: none)."""
    r = st.rec[0]
    kind = r.ctl[C_KIND]
    if kind == K_ACTION:
        slot = r.moves[i, 0]
        if slot >= SPECIAL_SLOT_2:
            slot -= 1
        return 1 << slot
    if kind == K_SPECIAL:
        code = r.moves[i, 0]
        if code == B_HTH:
            return 1 << 16
        if code == B_STORAGE:
            return 1 << 17
        if code == B_SHELTER:
            return 1 << 18
        if code == B_OPEN:
            return 1 << 19
    return 0


forward.register_options(AcState, AcCtx, option_mask)
