"""The Schweinebande feature columns, per decision kind: what ``feats[i, col]`` holds for candidate ``i``.

One ``IntEnum`` per decision kind names its columns; the engine writes ``feats[n, Place.IS_PASS]`` and the bots
read the same names (meaning of each column: ``bots.md``). :data:`FEATURES` is the table the game declares
(``Face.features``): per kind name (``layout.KIND_NAMES``), its ``NF`` column names in order. A column a kind does
not use is named ``unused_N``; the engine leaves it 0. Column 0 is every kind's immediate value and the last
column a constant 1 (``bias``).
"""

from enum import IntEnum

from meeplab.sim.core.face import column_names

from .layout import KIND_NAMES, NF, NK, V_NROUNDS, V_ROUND, Kind


class Reveal(IntEnum):
    """``Kind.REVEAL``: which face-down tile to reveal."""

    GAIN = 0  # gain of the best line from the space (face-down tiles at the expected gain of an unseen tile)
    KNOWN_TILES = 1  # face-up tiles on that line
    UNKNOWN_TILES = 2  # face-down tiles on that line
    BIAS = 7


class Place(IntEnum):
    """``Kind.PLACE``: pass, or place a farmer on the revealed tile."""

    GAIN = 0  # place: the best line's gain; pass: the expected gain of a later placement
    KNOWN_TILES = 1
    UNKNOWN_TILES = 2
    IS_PASS = 3
    FARMERS_LEFT = 4  # the seat's farmers still to place
    FACEDOWN_LEFT = 5  # face-down tiles on the board
    PLAYERS_PLACING = 6  # players still placing this round
    BIAS = 7


class Collect(IntEnum):
    """``Kind.COLLECT``: a farmer and a direction."""

    GAIN = 0  # potential gain of the line
    VALUE = 1  # value of its animals
    ANIMALS = 2
    PIGS = 3
    SACKS = 4
    FEED_BURDEN = 5  # animals x rounds left
    BIAS = 7


class Farm(IntEnum):
    """``Kind.FARM``: close a group (same kind, mixed, pig bonus) or stop."""

    POINTS = 0  # points to the farm
    DISCARDED_VALUE = 1  # value of the tiles discarded with the group
    EARLY_PIG_GROUP = 2  # pigs closed before the last round
    IS_STOP = 3
    IS_MIXED = 4
    TILES_LEFT = 5  # tiles in front of the seat after the move
    LAST_ROUND = 6
    BIAS = 7


class Sack(IntEnum):
    """``Kind.SACK``: pay the feed, or use a feed sack."""

    FEED_SAVED = 0  # use: feed value saved
    FEED_NEEDED = 1  # use: feed needed; pay: feed markers held
    ROUNDS_LEFT = 2
    BIAS = 7


class Sell(IntEnum):
    """``Kind.SELL``: which animal to sell while short of feed."""

    MINUS_VALUE = 0  # minus the animal's value
    VALUE = 1
    COUNT = 2  # animals of that kind in front of the seat
    IS_PIG = 3
    PARTIAL_GROUP = 4  # that count modulo the quartet size
    COVERS_GAP = 5  # one sale covers the feed missing
    FULL_GROUP = 6  # the kind has a full group
    BIAS = 7


COLUMNS = {
    Kind.REVEAL: Reveal,
    Kind.PLACE: Place,
    Kind.COLLECT: Collect,
    Kind.FARM: Farm,
    Kind.SACK: Sack,
    Kind.SELL: Sell,
}
FEATURES = {KIND_NAMES[k]: column_names(cols, NF) for k, cols in COLUMNS.items()}
# what shapes the learned policy's weights (sim.core.policy): the kinds whose moves[i, 0] is a move code (place:
# pass / place; farm: stop / group / mixed group / pig bonus; sack: markers / sack; sell: the animal kind), and the
# progress the seat sees, the round of the rounds
CODES = {"place": 2, "farm": 4, "sack": 2, "sell": NK}
PROGRESS = (V_ROUND, V_NROUNDS)
