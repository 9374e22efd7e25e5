"""Hacienda's named numbers: card types, decision kinds and action codes, the bots' view, the event log, and the
rows of the engine's tables (the integer table ``SP``, the engine's rows of the mask table ``MS`` after the scoring
rows of ``scoring.py``, the float table ``FV``).

Numbers only (the decision kinds an ``IntEnum``): the state record (``state.py``) and every engine module
(``engine.py``, ``values.py``, ``water.py``, ``groups.py``, ``setup.py``, ``actions.py``, ``flow.py``) read their
layout from here.
"""

from enum import IntEnum

from .scoring import NROWS

MAXP = 5
NT = 10  # card types: 0..4 terrains, 5 pampa, 6..9 cattle, horse, pig, sheep
T_PAMPA = 5
T_ANIMAL = 6
K_MARKET = 6  # board kinds: 0..4 terrain, 5 pampa, 6 market, 7 water source
K_PAMPA = 5


class Kind(IntEnum):
    """Decision kinds (``ctl[C_KIND]``, the bots' ``kind``; ``moves`` rows: ``bots.md``)."""

    ACTION = 0  # buy, play, hacienda, water, harvest or end the turn
    LAND = 1  # where the land tile played goes
    ANIMAL = 2  # where the animal tile played goes
    HACIENDA = 3  # which group gets the hacienda bought
    WATER = 4  # where the water tile bought goes
    HARVEST = 5  # which chain is harvested (and whose chip)


K_ACTION, K_LAND, K_ANIMAL, K_HACIENDA, K_WATER, K_HARVEST = Kind

# action codes (moves[:, 0] of K_ACTION)
A_BUY_LAND_UP = 0
A_BUY_LAND_BLIND = 1
A_BUY_ANIMAL_UP = 2
A_BUY_ANIMAL_BLIND = 3
A_PLAY = 4
A_HACIENDA = 5
A_WATER = 6
A_HARVEST = 7
A_END = 8

NF = 8  # feature columns
MW = 4  # move row width

# what stands on a space
W_LAND = 0  # 1..4 = animal a + 1
W_WATER = 7

# view layout (int64); V_SPACE + i = content of space i: -1 empty, else what + 8 owner + 64 chip + 128 hacienda
V_SEAT = 0
V_NP = 1
V_PHASE = 2  # 0 before the mid-game scoring, 1 after it, 2 game over
V_ROUND = 3
V_ACTIONS_LEFT = 4
V_HAC_OK = 5
V_WATER_OK = 6
V_HARV_OK = 7
V_HAC_SUPPLY = 8
V_CHIPS_SUPPLY = 9
V_LAND_DECK = 10
V_STACK1 = 11
V_STACK2 = 12
V_NSPACES = 13
V_TURN = 14
V_CARD = 15  # card type being placed (K_LAND / K_ANIMAL), else -1
V_MONEY = 16  # 5
V_HAND = 21  # 10: the deciding player's own hand
V_HANDSIZE = 31  # 5: cards in each hand
V_DISP_LAND = 36  # 8: face-up land cards (type or -1)
V_DISP_ANIMAL = 44  # 8: face-up animal cards (type 6..9 or -1)
V_WSUPPLY = 52  # 4: water tiles left by shape
V_MARKETS = 56  # 5: markets reached per player
V_LAND_TILES = 61  # land tiles of the deciding player's colour left in the box (-1 unlimited)
V_DISCS = 62  # animal discs the deciding player has left (-1 unlimited)
V_HDR = 64
V_SPACE = 64

# scalar state: columns of the row SR of the integer table SP
S_LABEL = 0
S_STAMP = 1
S_NPC = 2
S_CHIPS = 3
S_HACS = 4
S_LPTR = 5
S_LEND = 6
S_APTR = 7
S_A1 = 8
S_A2 = 9
S_STACK2_IN = 10
S_WS = 12  # 4 water supply by shape
S_HH = 16  # 20 flags: p has a hacienda on a herd of animal a
S_PVER = 40  # 5: player p's own version (bumped by p's placements and haciendas)
S_WVER = 45  # water version (bumped by every water tile)
S_LVER = 46  # 5: player p's land version (p's land tiles and haciendas on land chains): land values depend only on it
S_CVER = 51  # chip version (bumped by every harvest)
S_LEN = 52  # columns used in the row SR (SP is at least 64 wide)

# log events (LOGW = 6 columns: code, seat, a, b, c, d)
LOGW = 6
E_SETUP = 1  # seat, land hand packed, animal hand packed, money
E_TURN = 2  # seat, round, money
E_BUY = 3  # seat, card type, 1 face up / 0 blind, price
E_LAND = 4  # seat, card type, space, chain size, 1 if played as pampa
E_ANIMAL = 5  # seat, animal, space, herd size, pesos earned
E_HACIENDA = 6  # seat, space, group size, what (0 land, 1..4 herd)
E_WATER = 7  # seat, shape, packed spaces, n own tiles next to it
E_HARVEST = 8  # seat, space, chain size, pesos, (victim seat + 1) * 100000 + victim space + 1 or 0
E_END = 9  # seat, actions used
E_STACK2 = 10  # -1, round
E_SCORE_A = 11  # seat, phase (1 mid, 2 final), markets, chains, haciendas
E_SCORE_B = 12  # seat, phase, water, money points, pesos held
E_CAP = 13  # -1, round, 1 dead end (nobody can act) / 0 max_rounds cap
E_REFILL = 14  # -1, 0 land / 1 animal, slot, card type


# the integer state table SP (int64[SP_ROWS, max(n + 2, 64)]; one table, so that helpers take few arrays:
# every array argument of a call costs a reference-count round trip): per-space rows, per-label rows,
# the scalar state row SR (S_* columns), the unreached markets of the deciding player and the cached best space
# per player and card type (-2 recompute, -1 none legal)
SP_OWNER = 0
SP_WHAT = 1
SP_LAB = 2
SP_WPIECE = 3
SP_WCNT = 4  # different water tiles next to the space
SP_STAMP = 5  # scratch: a list of spaces (the groups of groups._open_groups)
# engine-only rows after the scoring rows of MS (not in the snapshots)
R_D = NROWS  # 5 MAXP dirty masks
R_VALID = R_D + 5 * 5  # 5 MAXP value-cache valid masks
R_WD = R_VALID + 5 * 5  # MAXP water dirty masks
R_TODO = R_WD + 5  # 5 scratch: spaces to evaluate for the land tile (0) and animal a (1 + a)
R_YT = R_TODO + 5  # NT scratch: candidate spaces per card type (best_values)
R_LM = R_YT + NT  # + L: the spaces of the group labelled L (rows for every label a game can give: n + 2)
NROWS_ALL = R_LM
# rows of the float table FV
F_VV = 0  # 5 MAXP: cached values per space
F_VS = 25  # 5 MAXP: cached group sizes per space
F_CBV = 50  # MAXP: best value per card type
F_CBS = 55  # MAXP: group size at that best value
F_ROWS = 60
LB_SIZE = 6  # per label
LB_HAC = 7
LB_CHIP = 8
LB_STAMP = 9
SR = 10  # scalar state, columns S_*
SR_UNR = 11  # unreached markets (indices into mkspace) of the player being evaluated
SR_CBH = 12  # + p: best space per card type
SP_NC = SR_CBH + 5  # + p: p's tiles (land and animals) next to each space
SP_NCALL = SP_NC + 5  # all players' tiles next to each space
SP_NFREE = SP_NCALL + 2  # free pampa spaces next to each space (after the SR_GC row)
SR_GC = SP_NCALL + 1  # best_group cache: key / size per player for haciendas (0 / 5 + p) and harvests (10, 15 / 20 + p)
GC_OLD = 30  # + t: scratch in row SR_GC, best_values' old best space per card type (-1: none / full pass 3)
SP_ROWS = SP_NFREE + 1
