"""The Hacienda feature columns, per decision kind: what ``feats[i, col]`` holds for candidate ``i``.

One ``IntEnum`` per decision kind names its columns (the land and animal placements share ``Placement``); the
engine writes ``feats[m, Action.PESOS]`` and the bots read the same names (meaning of each column: ``bots.md``).
:data:`FEATURES` is the table the game declares (``Face.features``): per kind name, its ``NF`` column names in
order; a column a kind does not use is named ``unused_N`` and the engine leaves it 0. Column 0 is every kind's
immediate value in points (pesos count ``1 / money_per_point`` each).
"""

from enum import IntEnum

from meeplab.sim.core.face import column_names

from .layout import NF, V_ROUND, Kind


class Action(IntEnum):
    """``Kind.ACTION``: buy, play, hacienda, water, harvest or end the turn."""

    VALUE = 0
    PESOS = 1  # pesos change: -price, or the harvest's income
    SIZE = 2  # size of the chain or herd at the best spot (hacienda, harvest: the group's size)
    IN_HAND = 3  # cards of this type in hand
    HAND_SIZE = 4
    MONEY = 5  # pesos
    ACTIONS_USED = 6  # actions used this turn
    CARD_TYPE = 7  # the card type (-1 none)


class Placement(IntEnum):
    """``Kind.LAND`` and ``Kind.ANIMAL``: the space a land or animal tile goes on."""

    VALUE = 0  # chain points, hacienda points and water points gained; animals: market points and pesos too
    MARKET_PESOS = 1  # market pesos earned
    SIZE = 2  # size of the resulting chain or herd
    NEW_MARKETS = 3  # markets newly reached
    WATER_POINTS = 4
    GROUPS_JOINED = 5  # the seat's own groups joined
    FREE_PAMPA = 6  # free pampa neighbours
    MARKET_DISTANCE = 7  # board distance to the nearest market the seat's herds have not reached (99 if none)


class Hacienda(IntEnum):
    """``Kind.HACIENDA``: which group gets the hacienda bought."""

    VALUE = 0  # group size - price / money_per_point
    MINUS_PRICE = 1
    SIZE = 2
    HERD = 3  # 0 a land chain, 1..4 a herd of that animal
    CHIPS = 4  # chips on the chain


class Water(IntEnum):
    """``Kind.WATER``: where the water tile goes."""

    VALUE = 0  # own tiles next to it - price / money_per_point
    MINUS_PRICE = 1
    OWN_TILES = 2  # the seat's tiles next to it
    OTHER_TILES = 3  # the other players' tiles next to it
    HEXES = 4
    SHAPE_LEFT = 5  # water tiles of this shape left


class Harvest(IntEnum):
    """``Kind.HARVEST``: which own chain is harvested, and whose chip it takes."""

    VALUE = 0  # pesos / money_per_point
    PESOS = 1
    SIZE = 2  # the chain's size
    VICTIM_SIZE = 3  # size of the chain the chip is taken from (0: from the supply)


COLUMNS = {
    Kind.ACTION: Action,
    Kind.LAND: Placement,
    Kind.ANIMAL: Placement,
    Kind.HACIENDA: Hacienda,
    Kind.WATER: Water,
    Kind.HARVEST: Harvest,
}
FEATURES = {k.name.lower(): column_names(cols, NF) for k, cols in COLUMNS.items()}
# what shapes the learned policy's weights (sim.core.policy): the action's moves[i, 0] is its code (buy land face
# up / blind, buy an animal face up / blind, play, hacienda, water, harvest, end the turn), and the progress the
# seat sees is the round (the game has no fixed length: its stacks run out)
CODES = {"action": 9}
PROGRESS = (V_ROUND, -1)
