"""Agricola: All Creatures Big and Small: the engine's layout (action slots, the shared board ``gs``, decision
kinds, feature columns, the view, event codes) and the workspace ``wk`` of the housing and plan caches.

Indices computed at run time are ``np.uint64`` (no negative-index wraparound code; see ``farm.py``).
"""

from enum import IntEnum

import numpy as np
from numba import njit

from .farm import FLAT_MASK, FLAT_SHIFT, FLAT_W, NSPACE, P_SIZE, RBND, REG, REG_END, RSIZE, WCOLS, WROWS
from .params import B_HTH, B_OPEN, B_SHELTER, B_STORAGE

# action slots
(
    S_SP,
    S_WOOD,
    S_STONE1,
    S_STONE2,
    S_BM,
    S_FENCES,
    S_WALLS,
    S_EXPAND,
    S_TROUGHS,
    S_STALL,
    S_STABLES,
    S_SPEC1,
    S_SPEC2,
    S_MILL,
    S_PIGSHEEP,
    S_COWPIG,
    S_HORSESHEEP,
) = range(17)
NSLOT = 17
# goods on a space / in a gain vector: wood, stone, reed, sheep, pigs, cows, horses, borders
NG = 8
G_WOOD, G_STONE, G_REED, G_SHEEP, G_PIG, G_COW, G_HORSE, G_BORD = range(8)

# shared state gs
GS_ROUND, GS_START, GS_NEXT, GS_TROUGHS, GS_STALLS, GS_EXPS, GS_POOL = range(7)
GS_SPEC = 7  # 4 flags: Half-Timbered House, Storage, Shelter, Open Stables (1 = still available)
GS_OCC = 11  # 17 slots: -1 free, else the seat
GS_ACC = GS_OCC + NSLOT  # 17 x 8 goods lying on the spaces
GS_SIZE = GS_ACC + NSLOT * NG
SPECIAL_CODES = np.array([B_HTH, B_STORAGE, B_SHELTER, B_OPEN], dtype=np.int64)


class Kind(IntEnum):
    """Decision kinds (``ctl[C_KIND]``, the bots' ``kind``; ``moves`` rows: ``bots.md``)."""

    ACTION = 0  # the action space for the next worker
    PLAN = 1  # an enclosure plan on Fences / Walls
    TROUGH = 2
    STALL = 3
    STABLES = 4
    SPECIAL = 5  # a special building
    EXPAND = 6  # the expansion's side
    SHELTER = 7  # the Shelter's free animal
    OPEN_STABLES = 8  # the Open Stables' free animal
    KEEP = 9  # keep or release: which animals stay


K_ACTION, K_PLAN, K_TROUGH, K_STALL, K_STABLES, K_SPECIAL, K_EXPAND, K_SHELTER, K_OPENST, K_KEEP = Kind


class Feature(IntEnum):
    """The feature columns, the same for every decision kind (``feats[i, Feature.SCORE]``; ``features.py``
    declares them, ``bots.md`` says what each holds)."""

    SCORE = 0  # score change now
    WOOD = 1  # change of the goods in hand
    STONE = 2
    REED = 3
    BORDERS = 4  # change of the borders in hand
    CAPACITY = 5  # change of the farm's total capacity
    KEPT = 6  # change of the animals on the farm
    LOST = 7  # animals offered by the move that run away
    PAIRS = 8  # change of the number of types with >= 2 animals
    BUILDING_POINTS = 9
    ON_SPACE = 10  # goods and animals lying on the action space (kind 0 only)
    RULE = 11  # kind 9 only: 1 for the set the fixed rule keeps


NF = len(Feature)  # feature columns
F_SCORE, F_WOOD, F_STONE, F_REED, F_BORD, F_CAP, F_KEPT, F_LOST, F_PAIRS, F_BPTS, F_ONSPACE, F_RULE = Feature
MAXM = 1024
# keep-or-release (K_KEEP): the maximal sets of animals that fit are found on a Pareto frontier of kept vectors
# (4 counts of 16 bits in one word), at most KF_MAX of them (children: 4 per frontier vector)
KF_MAX = MAXM - 1
KF_N = 4 * KF_MAX + 4
DEFAULT_PLAN_SPACES = 5  # largest region the action estimate considers as its default enclosure
MW = 4  # move row width

# view layout
V_ROUND, V_ROUNDS, V_SEAT, V_START, V_SLOT, V_MYLEFT, V_OPPLEFT = range(7)
V_ME = 7
V_OPP = V_ME + P_SIZE
V_GS = V_OPP + P_SIZE
V_LEN = V_GS + GS_SIZE

# event log records: code + 9 arguments
LOGW = 10
(
    E_ROUND,
    E_PLACE,
    E_GAIN,
    E_HOUSE,
    E_BORDERS,
    E_TROUGH,
    E_STALL,
    E_STABLES,
    E_SPECIAL,
    E_EXPAND,
    E_ANIMAL,
    E_BREED,
    E_FARM,
    E_SCORE,
    E_KEEP,
) = range(1, 16)

# workspace (int64, 2-D): rows 0..WROWS-1 for containers_w / house_w, then per player PCR rows holding the
# cache of enclosure plans (flat index f -> row WROWS + p*PCR + f >> FLAT_SHIFT, column f & FLAT_MASK)
PC_ROW = 6
PC_BEST = 8 + MAXM * PC_ROW  # then the best plan per (walls, most borders affordable): 2 x PC_KC entries
PC_KC = 64
PC_LAZY = -(1 << 62)  # a cached plan's farm effect not computed yet
# then the estimate's default trough and stall spaces for the farm (E, T, buildings, columns): they depend on
# the farm alone (costs and Storage points are the same for every candidate space); -2 = not known yet
PC_EST = PC_BEST + 2 * PC_KC
PC_STRIDE = PC_EST + 8  # PC_EST + 6, + 7: the capacity and expansion points the default trough adds
PCR = (PC_STRIDE + FLAT_W - 1) // FLAT_W
# then the hash set that dedupes enclosure plans: keys at flat 0..HS-1, stamps at HS..2HS-1, call counter
HS_BITS = 12
HS = 1 << HS_BITS
H_ROW = WROWS + 2 * PCR
S_ROW = H_ROW + (2 * HS + 1 + FLAT_W - 1) // FLAT_W  # then one row: the deciding player's container capacities
S2_ROW = S_ROW + 1  # then one row: the container capacities of best_free_animal's farm
# wk[S_ROW, MONO_COL] = 1 when bounds_hold for the parameters (set per chunk): a farm that can still house all its
# animals keeps them all (the housing search's first best set is then all of them), so the shortcuts that skip
# the housing (keeps_all, then eval_known with the farm's animals as they are) are exact; 0 turns them off
MONO_COL = WCOLS - 4
# then the evaluation memo (evaluate_m): EM entries of EM_W words, 16 per row: [borders, troughs | columns << 20 |
# home << 24, buildings, animals in (16 bits each), animals kept, capacity, closed pastures, score parts packed
# (_pack_parts)]; an empty entry (all 0) matches no farm (columns >= 2)
EM_BITS = 11
EM = 1 << EM_BITS
EM_W = 8
EM_ROW = S2_ROW + 1
W_ROWS_ALL = EM_ROW + EM // 16
# the regions the action estimate closes (up to DEFAULT_PLAN_SPACES spaces), in REG order
_small = np.nonzero(RSIZE <= DEFAULT_PLAN_SPACES)[0]
SREG = REG[_small].copy()
SRBND = RBND[_small].copy()
SRSIZE = RSIZE[_small].copy()
SREG_END = np.array([int(np.sum(_small < REG_END[c])) for c in range(len(REG_END))], dtype=np.int64)


# REG_WITH[s, w] bit j: region 64*w + j contains space s (plan generation skips the regions holding a building
# without looking at them)
def _with_bits(regs):
    return np.stack(
        [
            np.packbits(
                np.concatenate([((regs >> s_) & 1).astype(np.uint8), np.zeros((-len(regs)) % 64, np.uint8)]),
                bitorder="little",
            ).view(np.uint64)
            for s_ in range(NSPACE)
        ]
    )


REG_WITH = _with_bits(REG)
SREG_WITH = _with_bits(SREG)  # the same for the estimate's small regions
BK_LOW = np.int64(sum(1 << (3 * s_) for s_ in range(18)))  # the low bit of each 3-bit field of bld_key
assert B_STORAGE == 7  # has_storage_key below relies on the code being 0b111


@njit(cache=True, inline="always")
def has_storage_key(bkey):
    """Is the Storage Building among the buildings of bld_key ``bkey``? (a 3-bit field of it is all ones)"""
    return bkey & (bkey >> 1) & (bkey >> 2) & BK_LOW != 0


assert B_STORAGE == 7
ROW0 = np.uint64(sum(1 << (3 * c) for c in range(6)))
ROW2 = np.uint64(sum(1 << (3 * c + 2) for c in range(6)))


def new_wk():
    return np.zeros((W_ROWS_ALL, WCOLS), dtype=np.int64)


@njit(cache=True, inline="always")
def log_row(log, nlog, on, code, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    if on and nlog[0] < log.shape[0]:
        i = nlog[0]
        log[i, 0] = code
        log[i, 1] = a0
        log[i, 2] = a1
        log[i, 3] = a2
        log[i, 4] = a3
        log[i, 5] = a4
        log[i, 6] = a5
        log[i, 7] = a6
        log[i, 8] = a7
        log[i, 9] = a8
        nlog[0] = i + 1


@njit(cache=True)
def plan_cache_get(wk, p, f):
    return wk[np.uint64(WROWS + p * PCR + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)]


@njit(cache=True)
def plan_cache_set(wk, p, f, v):
    wk[np.uint64(WROWS + p * PCR + (f >> FLAT_SHIFT)), np.uint64(f & FLAT_MASK)] = v
