"""Rule-book tips as weights: chains of 3+, many markets, water next to own tiles, harvest long chains,
haciendas on the longest chain; keeps buying cards (animal cards first) so the hand never runs dry.

Future actions: with compulsory actions every turn spends pesos or cards, and a player with neither (and no
chain to harvest) can never act again. The bot keeps a reserve of future actions, counted in pesos as
``pesos + price_blind x cards in hand`` (a card in hand is an action that costs nothing; a blind buy keeps the
count, a play lowers it by one card, a hacienda or water tile by its price, a harvest or market income raises
it): every peso an action takes from it below ``reserve`` costs ``reserve_pen`` points, every peso it brings
back below ``reserve`` earns as much. So a poor player harvests, buys a card blind rather than face up, and
leaves haciendas and water tiles for when it can afford them without running dry."""

from numba import njit

from meeplab.sim.core.bots import bot_jit, load_weights_toml
from meeplab.sim.hacienda.features import Action, Harvest, Placement
from meeplab.sim.hacienda.layout import Kind

DESCRIPTION = "rule-book tips: chains of 3+, many markets, water by own tiles, harvest long chains, TOML weights"

WEIGHTS = load_weights_toml(__file__, "heuristic.toml")

# weight indices (order of heuristic.toml)
W_VALUE = 0
W_PLAY = 1
W_BUY_ANIMAL = 2
W_BUY_LAND = 3
W_BLIND = 4
W_HAND_TARGET = 5
W_HARVEST_MIN = 6
W_HARVEST = 7
W_HACIENDA_MIN = 8
W_HACIENDA = 9
W_WATER_MIN = 10
W_WATER = 11
W_END = 12
W_CHAIN_GROW = 13
W_MERGE = 14
W_ROOM = 15
W_MARKET_DIST = 16
W_HERD = 17
W_KEEP_MONEY = 18
W_RESERVE = 19
W_RESERVE_PEN = 20

A_BUY_LAND_UP = 0
A_BUY_LAND_BLIND = 1
A_BUY_ANIMAL_UP = 2
A_BUY_ANIMAL_BLIND = 3
A_PLAY = 4
A_HACIENDA = 5
A_WATER = 6
A_HARVEST = 7
A_END = 8

V_MONEY = 16
V_SEAT = 0
PRICE_BLIND = 2.0  # pesos per future action (the book's blind price; a card in hand is worth one)


@njit(cache=True, inline="always")
def _score_action(code, t, f0, f1, f2, handsize, money, w):
    """Score of an action row (scalars in: an array-taking helper per candidate would cost reference counting)."""
    v = f0 * w[W_VALUE]
    if code == A_PLAY:
        v += w[W_PLAY]
        if t < 6:
            v += w[W_CHAIN_GROW] * min(f2, 4.0)
        return v
    if code == A_BUY_ANIMAL_UP or code == A_BUY_ANIMAL_BLIND:
        v += w[W_BUY_ANIMAL]
        if handsize < w[W_HAND_TARGET]:
            v += 0.5 * w[W_BUY_ANIMAL]
        if code == A_BUY_ANIMAL_BLIND:
            v += w[W_BLIND]
        if money + f1 < w[W_KEEP_MONEY]:
            v -= 1.0
        return v
    if code == A_BUY_LAND_UP or code == A_BUY_LAND_BLIND:
        v += w[W_BUY_LAND]
        if handsize < w[W_HAND_TARGET]:
            v += 0.5 * w[W_BUY_LAND]
        if code == A_BUY_LAND_BLIND:
            v += w[W_BLIND]
        if money + f1 < w[W_KEEP_MONEY]:
            v -= 1.0
        return v
    if code == A_HARVEST:
        if f2 >= w[W_HARVEST_MIN]:
            v += w[W_HARVEST]
        return v
    if code == A_HACIENDA:
        if f2 >= w[W_HACIENDA_MIN]:
            v += w[W_HACIENDA]
        else:
            v -= 5.0
        return v
    if code == A_WATER:
        if f2 >= w[W_WATER_MIN]:
            v += w[W_WATER]
        else:
            v -= 5.0
        return v
    return v + w[W_END]


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    best = -1e18
    bi = 0
    reserve = weights[W_RESERVE]
    have = 0.0
    short = 0.0
    if kind == Kind.ACTION and n > 0:
        # the reserve of future actions, in pesos: pesos + a blind buy's price per card in hand
        have = feats[0, Action.MONEY] + PRICE_BLIND * feats[0, Action.HAND_SIZE]
        short = max(0.0, reserve - have)
    for i in range(n):
        if kind == Kind.ACTION:
            s = _score_action(
                moves[i, 0],
                moves[i, 1],
                feats[i, Action.VALUE],
                feats[i, Action.PESOS],
                feats[i, Action.SIZE],
                feats[i, Action.HAND_SIZE],
                feats[i, Action.MONEY],
                weights,
            )
            code = moves[i, 0]
            d = feats[i, Action.PESOS]
            if code == A_PLAY:
                d -= PRICE_BLIND
            elif code <= A_BUY_ANIMAL_BLIND:
                d += PRICE_BLIND
            s -= weights[W_RESERVE_PEN] * (max(0.0, reserve - have - d) - short)
        elif kind == Kind.LAND:  # grow chains towards 3+, merge, stay near unreached markets
            s = (
                feats[i, Placement.VALUE] * weights[W_VALUE]
                + weights[W_CHAIN_GROW] * min(feats[i, Placement.SIZE], 5.0)
                + weights[W_MERGE] * feats[i, Placement.GROUPS_JOINED]
                + weights[W_ROOM] * feats[i, Placement.FREE_PAMPA]
                - weights[W_MARKET_DIST] * min(feats[i, Placement.MARKET_DISTANCE], 8.0)
            )
        elif kind == Kind.ANIMAL:  # markets, herd size, room, head for unreached markets
            s = (
                feats[i, Placement.VALUE] * weights[W_VALUE]
                + weights[W_HERD] * feats[i, Placement.SIZE]
                + weights[W_ROOM] * feats[i, Placement.FREE_PAMPA]
                - weights[W_MARKET_DIST] * min(feats[i, Placement.MARKET_DISTANCE], 8.0)
            )
        elif kind == Kind.HARVEST:  # longest chain; steal from the smallest chain
            s = feats[i, Harvest.VALUE] - 0.01 * feats[i, Harvest.VICTIM_SIZE]
        else:  # hacienda (longest group), water (most own tiles): the immediate value
            s = feats[i, 0]
        s += 1e-6 * (i % 7)
        if s > best:
            best = s
            bi = i
    return bi
