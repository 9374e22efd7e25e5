"""Agricola: All Creatures Big and Small rule parameters (defaults = the rule book, `shared/rules/acbas.md`)."""

import numpy as np

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import Param, ParamSet, seat_values

TYPES = ("sheep", "pigs", "cows", "horses")
# building codes on a farm space (0 = none)
B_NONE, B_COTTAGE, B_HTH, B_STALL, B_STABLES, B_OPEN, B_SHELTER, B_STORAGE = range(8)
BUILDING_NAMES = (
    "-",
    "cottage",
    "Half-Timbered House",
    "stall",
    "stables",
    "Open Stables",
    "Shelter",
    "Storage Building",
)


def _validate(v):
    for t in TYPES:
        b = v[f"bonus_{t}"]
        if list(b) != sorted(b):
            raise MeeplabError(f"bonus_{t} must be non-decreasing band starts, got {b}")
    if v["stall_cost"][0] < 0 or v["stables_cost"] < 0:
        raise MeeplabError("costs must be >= 0")


PARAMS = ParamSet(
    [
        Param("rounds", 8, "int", "Rounds per game", lo=1, hi=20),
        Param("workers", 3, "int", "Workers per player", lo=1, hi=8),
        Param(
            "start_borders",
            9,
            "int",
            "Borders each player starts with (one value, or one per seat: 9,10)",
            lo=0,
            hi=45,
            per_seat=True,
        ),
        Param(
            "start_goods",
            (0, 0, 0),
            "ints",
            "Wood, stone, reed each player starts with (one triple, or one per seat: 0,0,0/1,0,0)",
            lo=0,
            hi=99,
            length=3,
            per_seat=True,
        ),
        Param(
            "expand_pool", 8, "int", "Borders set beside the Expand space (refills stop when it is empty)", lo=0, hi=60
        ),
        Param("expand_refill", 1, "int", "Borders added to the Expand space each round", lo=0, hi=10),
        Param("start_player_wood", 1, "int", "Wood added each round to Start player + wood", lo=0, hi=10),
        Param("wood_refill", 3, "int", "Wood added each round to the 3-wood space", lo=0, hi=10),
        Param("stone1_refill", 1, "int", "Stone added each round to the 1-stone space", lo=0, hi=10),
        Param("stone2_refill", 2, "int", "Stone added each round to the 2-stone space", lo=0, hi=10),
        Param(
            "building_materials", (1, 1, 1), "ints", "Wood, stone, reed from Building materials", lo=0, hi=10, length=3
        ),
        Param(
            "millpond_refill",
            (1, 1),
            "ints",
            "Millpond X (Y): reed if empty (X), else sheep added (Y)",
            lo=0,
            hi=10,
            length=2,
        ),
        Param(
            "pigs_sheep_refill",
            (1, 1),
            "ints",
            "Pigs and sheep X (Y): pigs if empty, else sheep added",
            lo=0,
            hi=10,
            length=2,
        ),
        Param(
            "cows_pigs_refill",
            (1, 1),
            "ints",
            "Cows and pigs X (Y): cows if empty, else pigs added",
            lo=0,
            hi=10,
            length=2,
        ),
        Param(
            "horses_sheep_refill",
            (1, 1),
            "ints",
            "Horses and sheep X (Y): horses if empty, else sheep added",
            lo=0,
            hi=10,
            length=2,
        ),
        Param("fence_wood", 1, "int", "Wood per border on the Fences space", lo=0, hi=10),
        Param("walls_free", 2, "int", "Free borders per use of the Walls space", lo=0, hi=45),
        Param("wall_stone", 2, "int", "Stone per further border on the Walls space", lo=0, hi=10),
        Param("troughs_total", 10, "int", "Troughs in the shared supply", lo=0, hi=36),
        Param("trough_free", 1, "int", "Free troughs per use of the Troughs space", lo=0, hi=10),
        Param("trough_wood", 3, "int", "Wood per further trough", lo=0, hi=10),
        Param("stalls_total", 4, "int", "Stall tiles in the shared supply", lo=0, hi=18),
        Param("stall_cost", (3, 1), "ints", "Stone and reed per stall", lo=0, hi=10, length=2),
        Param("stables_cost", 5, "int", "Wood, or stone (not mixed), per stall turned into stables", lo=0, hi=20),
        Param("house_cost", (3, 2, 1), "ints", "Half-Timbered House: wood, stone, reed", lo=0, hi=20, length=3),
        Param("storage_cost", (2, 0, 1), "ints", "Storage Building: wood, stone, reed", lo=0, hi=20, length=3),
        Param("shelter_cost", (2, 1, 0), "ints", "Shelter: wood, stone, reed", lo=0, hi=20, length=3),
        Param("open_stables_cost", 3, "int", "Open Stables: wood, or stone (not mixed)", lo=0, hi=20),
        Param(
            "building_capacity",
            (1, 2, 3, 5, 5, 1, 0),
            "ints",
            "Animals held by cottage, Half-Timbered House, stall, stables, Open Stables, Shelter, Storage",
            lo=0,
            hi=50,
            length=7,
        ),
        Param(
            "building_points",
            (0, 5, 1, 4, 2, 0, 0),
            "ints",
            "Points of cottage, Half-Timbered House, stall, stables, Open Stables, Shelter, Storage",
            lo=-20,
            hi=50,
            length=7,
        ),
        Param("pasture_per_space", 2, "int", "Animals per pasture space", lo=0, hi=20),
        Param("trough_mult", 2, "int", "Capacity multiplier per trough in a pasture or building", lo=1, hi=4),
        Param("lone_trough", 1, "int", "Animals at a trough outside any pasture or building", lo=0, hi=10),
        Param(
            "bonus_sheep",
            (4, 8, 11, 13),
            "ints",
            "Sheep counts where bonus 0, +1, +2, +3 start (+1 per sheep beyond the last)",
            lo=0,
            hi=99,
            length=4,
        ),
        Param("bonus_pigs", (4, 7, 9, 11), "ints", "Pig counts where bonus 0, +1, +2, +3 start", lo=0, hi=99, length=4),
        Param("bonus_cows", (4, 6, 8, 10), "ints", "Cow counts where bonus 0, +1, +2, +3 start", lo=0, hi=99, length=4),
        Param(
            "bonus_horses", (4, 5, 7, 9), "ints", "Horse counts where bonus 0, +1, +2, +3 start", lo=0, hi=99, length=4
        ),
        Param("bonus_low", -3, "int", "Bonus for a type held below the first band", lo=-50, hi=50),
        Param("expansions_total", 4, "int", "Farm expansions in the shared supply", lo=0, hi=4),
        Param("expansion_points", 4, "int", "Points per expansion with all 3 spaces used", lo=0, hi=50),
        Param("storage_per_good", 0.5, "float", "Storage Building points per wood, stone and reed left", lo=0, hi=10),
        Param("breed_min", 2, "int", "Animals of a type needed for one newborn", lo=1, hi=20),
        Param(
            "partial_plan_max_spaces",
            3,
            "int",
            "Bot aid, not a rule: largest region also offered as a partial enclosure plan (open towards one "
            "free neighbour space); every border position alone and every region closed are always offered",
            lo=0,
            hi=18,
            group="engine",
        ),
    ],
    validate=_validate,
)

# indices into the packed int64 parameter array
(
    I_ROUNDS,
    I_WORKERS,
    I_START_BORDERS,
    I_START_WOOD,
    I_START_STONE,
    I_START_REED,
    I_EXP_POOL,
    I_EXP_REFILL,
    I_SP_WOOD,
    I_WOOD3,
    I_STONE1,
    I_STONE2,
    I_BM_WOOD,
    I_BM_STONE,
    I_BM_REED,
    I_MILL_X,
    I_MILL_Y,
    I_PS_X,
    I_PS_Y,
    I_CP_X,
    I_CP_Y,
    I_HS_X,
    I_HS_Y,
    I_FENCE_WOOD,
    I_WALLS_FREE,
    I_WALL_STONE,
    I_TROUGHS,
    I_TROUGH_FREE,
    I_TROUGH_WOOD,
    I_STALLS,
    I_STALL_STONE,
    I_STALL_REED,
    I_STABLES_COST,
    I_HTH_W,
    I_HTH_S,
    I_HTH_R,
    I_STO_W,
    I_STO_S,
    I_STO_R,
    I_SHE_W,
    I_SHE_S,
    I_SHE_R,
    I_OPEN_COST,
    I_PASTURE,
    I_TMULT,
    I_LONE,
    I_BONUS_LOW,
    I_EXPANSIONS,
    I_EXP_POINTS,
    I_BREED_MIN,
    I_PLAN_MAX,
    I_CAPB,
) = range(52)
I_PTSB = I_CAPB + 8  # 8 entries indexed by building code (code 0 = none)
I_BONUS = I_PTSB + 8  # 4 types x 4 band starts
I_SEAT_START = I_BONUS + 16  # per seat (0 = start player, 1): borders, wood, stone, reed it starts with
N_PRM = I_SEAT_START + 8


# where each integer parameter goes in the packed array: one index per number of the parameter, in its order
SLOTS = {
    "rounds": (I_ROUNDS,),
    "workers": (I_WORKERS,),
    "start_borders": (I_START_BORDERS,),
    "start_goods": (I_START_WOOD, I_START_STONE, I_START_REED),
    "expand_pool": (I_EXP_POOL,),
    "expand_refill": (I_EXP_REFILL,),
    "start_player_wood": (I_SP_WOOD,),
    "wood_refill": (I_WOOD3,),
    "stone1_refill": (I_STONE1,),
    "stone2_refill": (I_STONE2,),
    "building_materials": (I_BM_WOOD, I_BM_STONE, I_BM_REED),
    "millpond_refill": (I_MILL_X, I_MILL_Y),
    "pigs_sheep_refill": (I_PS_X, I_PS_Y),
    "cows_pigs_refill": (I_CP_X, I_CP_Y),
    "horses_sheep_refill": (I_HS_X, I_HS_Y),
    "fence_wood": (I_FENCE_WOOD,),
    "walls_free": (I_WALLS_FREE,),
    "wall_stone": (I_WALL_STONE,),
    "troughs_total": (I_TROUGHS,),
    "trough_free": (I_TROUGH_FREE,),
    "trough_wood": (I_TROUGH_WOOD,),
    "stalls_total": (I_STALLS,),
    "stall_cost": (I_STALL_STONE, I_STALL_REED),
    "stables_cost": (I_STABLES_COST,),
    "house_cost": (I_HTH_W, I_HTH_S, I_HTH_R),
    "storage_cost": (I_STO_W, I_STO_S, I_STO_R),
    "shelter_cost": (I_SHE_W, I_SHE_S, I_SHE_R),
    "open_stables_cost": (I_OPEN_COST,),
    "pasture_per_space": (I_PASTURE,),
    "trough_mult": (I_TMULT,),
    "lone_trough": (I_LONE,),
    "bonus_low": (I_BONUS_LOW,),
    "expansions_total": (I_EXPANSIONS,),
    "expansion_points": (I_EXP_POINTS,),
    "breed_min": (I_BREED_MIN,),
    "partial_plan_max_spaces": (I_PLAN_MAX,),
    # buildings by code 1..7 (code 0, no building, holds and scores nothing)
    "building_capacity": tuple(range(I_CAPB + 1, I_CAPB + 8)),
    "building_points": tuple(range(I_PTSB + 1, I_PTSB + 8)),
    **{f"bonus_{name}": tuple(range(I_BONUS + 4 * t, I_BONUS + 4 * t + 4)) for t, name in enumerate(TYPES)},
}


def pack(values):
    """Resolved parameter values -> (int64 array, float64 array) for the engine."""
    v = values
    p = np.zeros(N_PRM, dtype=np.int64)
    for name, slots in SLOTS.items():
        if name in ("start_borders", "start_goods"):  # per seat, below
            continue
        numbers = v[name] if len(slots) > 1 else (v[name],)
        if len(numbers) != len(slots):
            raise MeeplabError(f"{name} needs {len(slots)} numbers, got {numbers}")
        for i, x in zip(slots, numbers):
            p[i] = x
    borders = seat_values(v["start_borders"], 2)
    goods = seat_values(v["start_goods"], 2, table=True)
    for s in range(2):
        for i, x in zip(range(4), (borders[s], *goods[s])):
            p[I_SEAT_START + 4 * s + i] = x
        if s == 0:
            p[I_START_BORDERS] = borders[0]
            p[I_START_WOOD], p[I_START_STONE], p[I_START_REED] = goods[0]
    f = np.array([float(v["storage_per_good"])], dtype=np.float64)
    return p, f
