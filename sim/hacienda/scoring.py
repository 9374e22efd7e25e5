"""Hacienda scoring (numba), straight from the board masks by flood fill.

One scoring, per player, in the rule book's order (columns): markets, chains, haciendas, water, money.
The game scores twice (mid-game and final); money is kept, so it counts in both.
"""

from numba import njit

from .bits import ZERO, anyset, count, dilate, flood, lowest

C_MARKETS, C_CHAINS, C_HACIENDAS, C_WATER, C_MONEY = 0, 1, 2, 3, 4
NCAT = 5

# packed parameter offsets shared with the engine
P_START_MONEY = 0
P_LAND_HAND = 1
P_ANIMAL_HAND = 2
P_DISPLAY = 3
P_PRICE_UP = 4
P_PRICE_BLIND = 5
P_HAC_PRICE = 6
P_WATER_PRICE = 7
P_HAC_TURN = 8
P_WATER_TURN = 9
P_HARV_RATE = 10
P_HARV_TURN = 11
P_CHIPS = 12
P_ACTIONS = 13
P_CHAIN_MIN = 14
P_CHAIN_PTS = 15
P_HAC_PTS = 16
P_WATER_PTS = 17
P_MPP = 18
P_ANIMALS_PER = 19
P_LAND_PER = 20
P_PAMPA_CARDS = 21
P_REMOVED = 22  # 4 entries (2..5 players)
P_HACS = 26  # 4 entries
P_WTILES = 30  # 4 entries
P_MAX_ROUNDS = 34
P_NMP = 35  # length of the market table
P_MP = 36  # market table, up to 63 entries
P_COMPULSORY = 99  # 1: no early end of the turn while a legal action exists
P_DISCS = 100  # animal discs per player (0 unlimited)
P_LAND_TILES = 101  # land tiles in the box, over the 10 colour pairs (0 unlimited)
P_SEAT_MONEY = 102  # 5 entries: start money per seat (index 0 = seat 1, the start player)
P_SEAT_LAND = 107  # 5 entries: land cards dealt per seat
P_SEAT_ANIMAL = 112  # 5 entries: animal cards dealt per seat
P_LEN = 117


@njit(cache=True, inline="always")
def market_points(pi, k):
    """Points for k different markets reached: the table, then n(n+1)/2 beyond it."""
    if k <= 0:
        return 0
    if k <= pi[P_NMP]:
        return pi[P_MP + k - 1]
    return k * (k + 1) // 2


@njit(cache=True, inline="always")
def chain_points(pi, size):
    """Points for a land chain of ``size`` tiles: chain_points per tile from chain_min tiles on."""
    if size >= pi[P_CHAIN_MIN]:
        return size * pi[P_CHAIN_PTS]
    return 0


# rows of the engine's uint64 mask table MS[NROWS, W]
R_LAND = 0  # + p
R_HERD = 5  # + 4 p + a
R_NBL = 25  # + p: spaces next to p's land
R_NBH = 30  # + 4 p + a: spaces next to p's herds of animal a
R_OCC = 50
R_FPAM = 51  # free pampa
R_FTERR = 52  # + t: free spaces of terrain t
R_WATER = 57
R_NBW = 58  # spaces next to water
R_CHIPS = 59
R_HAC = 60
R_REACH = 61  # + p: markets reached by p's herds
R_G = 66
R_FR = 67
R_TMP = 68
R_REM = 69
R_OWN = 70
R_X = 71
R_Y = 72
R_TERR = 73  # + t
R_PAMPA = 78
R_MARKET = 79
R_NBMK = 80  # spaces next to a market
R_SRC = 81
R_WP = 82  # + k: water tile k (sources first)
MAXPC = 64
NROWS = R_WP + MAXPC


@njit(cache=True, _nrt=False)
def score_player(p, MS, npc, money, nbmask, pi, out):
    """Fill out[0:5] with player p's scoring from the mask table (uses the scratch rows)."""
    W = MS.shape[1]
    g = MS[R_G]
    fr = MS[R_FR]
    tmp = MS[R_TMP]
    rem = MS[R_REM]
    own = MS[R_OWN]
    hac = MS[R_HAC]
    land = MS[R_LAND + p]
    # markets: different markets next to any of p's animal tiles
    for w in range(W):
        own[w] = (
            MS[R_HERD + 4 * p, w] | MS[R_HERD + 4 * p + 1, w] | MS[R_HERD + 4 * p + 2, w] | MS[R_HERD + 4 * p + 3, w]
        )
    dilate(own, nbmask, rem)
    for w in range(W):
        rem[w] &= MS[R_MARKET, w]
    out[C_MARKETS] = market_points(pi, count(rem))
    # land chains (and haciendas standing on them)
    chains = 0
    hacs = 0
    for w in range(W):
        rem[w] = land[w]
    while anyset(rem):
        s = lowest(rem)
        size = flood(s, land, nbmask, g, fr, tmp)
        has = False
        for w in range(W):
            rem[w] &= ~g[w]
            if g[w] & hac[w] != ZERO:
                has = True
        chains += chain_points(pi, size)
        if has:
            hacs += size * pi[P_HAC_PTS]
    # herds carrying a hacienda
    for a in range(4):
        herd = MS[R_HERD + 4 * p + a]
        for w in range(W):
            rem[w] = herd[w] & hac[w]
        while anyset(rem):
            s = lowest(rem)
            size = flood(s, herd, nbmask, g, fr, tmp)
            for w in range(W):
                rem[w] &= ~g[w]
            hacs += size * pi[P_HAC_PTS]
    out[C_CHAINS] = chains
    out[C_HACIENDAS] = hacs
    # water: per water tile, p's land and animal tiles next to it
    for w in range(W):
        own[w] |= land[w]
    wat = 0
    for k in range(npc):
        dilate(MS[R_WP + k], nbmask, g)
        for w in range(W):
            g[w] &= own[w]
        wat += count(g) * pi[P_WATER_PTS]
    out[C_WATER] = wat
    out[C_MONEY] = money // pi[P_MPP]
