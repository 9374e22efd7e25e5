"""Field indices and codes shared by the Gold Rush engine, scorer, bots and replay."""

from enum import IntEnum

SLOTS = 10  # node slots per placed tile (node = tile_index * SLOTS + segment)
MAXP = 5
MAXC = 8  # cowboy slots per player (cowboys param <= 7, +1 house rule)

# segment table columns (deck.seg[i, s, :])
S_KIND, S_NEDGES, S_SPUR, S_CITY, S_NUG, S_LOCO, S_TIPI, S_HORSE = range(8)
K_RAIL, K_MTN, K_CITY, K_PRAIRIE = 0, 1, 2, 3
E_M, E_R, E_P = 1, 2, 3  # edge codes

# node fields (nd[node, :]); root fields are valid at the union-find root only
(
    F_PAR,
    F_KIND,
    F_OPEN,
    F_SEGS,
    F_NUG,
    F_LOCO,
    F_STACK,
    F_TIPI,
    F_HORSE,
    F_END0,
    F_END1,
    F_OCC,
    F_TILE,
    F_DONE,
    F_CITY,
    F_SEG,
    F_COW,
) = range(17)
NF = F_COW + MAXP

# per-game integers (gi[:])
G_NPL, G_SUPPLY, G_TOKPTR, G_NFRONT, G_B, G_CUR, G_DRAW, G_TURN, G_NTILES = range(9)
NG = 9

# player integers (pi[p, :])
PI_SUPPLY, PI_TENT, PI_TOKSUM, PI_TOKN = range(4)
NPI = 4

# rule parameters (pr[:], float64)
(
    P_COWBOYS,
    P_TENTS,
    P_RAIL_PTS,
    P_LOCO_MULT,
    P_LOCO_EXACT,
    P_NUG_PTS,
    P_CITY_PTS,
    P_TIPI_PTS,
    P_HORSE_PTS,
    P_END_RAIL,
    P_END_MTN,
    P_END_CITY,
    P_END_PRAIRIE,
    P_FARMERS,
    P_HOUSE_REMOVE,
) = range(15)
P_SEAT_COWBOYS = 15  # MAXP entries: cowboys per seat (index 0 = seat 1, the start player)
P_SEAT_TENTS = P_SEAT_COWBOYS + MAXP  # MAXP entries: tents per seat (0 or 1)
NPR = P_SEAT_TENTS + MAXP

# categories
C_RAIL, C_MTN, C_CITY, C_PRAIRIE, C_TOKENS = range(5)
CATEGORIES = ["railroads", "mountains", "cities", "prairies", "gold_tokens"]
NCAT = 5


class Kind(IntEnum):
    """Decision kinds (``ctl[C_KIND]``, the bots' ``kind``; ``moves`` rows: ``bots.md``)."""

    PLACE = 0  # where the drawn tile goes
    ACTION = 1  # the follower action after the placement


KIND_PLACE, KIND_ACTION = Kind
# action types (moves[:, 0] for KIND_ACTION)
A_PASS, A_COWBOY, A_TENT, A_MINE, A_REMOVE = range(5)

# log events (log[i, 0]); width LOGW
LOGW = 7
(
    EV_START,
    EV_DRAW,
    EV_DISCARD,
    EV_PLACE,
    EV_TOKENS,
    EV_COWBOY,
    EV_TENT,
    EV_MINE,
    EV_PASS,
    EV_REMOVE,
    EV_SCORE,
    EV_TAKE,
    EV_RETURN,
    EV_TENT_HOME,
    EV_LOST,
    EV_FINAL,
    EV_TOKVAL,
    EV_END,
) = range(1, 19)  # from 1: a zero row is an unwritten one (the shared loop counts a log's rows up to it)

# bot view (view[:])
(V_SEAT, V_NPLAYERS, V_TILES_LEFT, V_TILES_TOTAL, V_TURN, V_SUPPLY, V_TENT, V_TENT_STACK, V_SCORE0) = range(9)
NV = V_SCORE0 + MAXP

NFEAT = 22
