"""The Gold Rush feature columns, per decision kind: what ``feats[i, col]`` holds for candidate ``i``.

``Place`` names the columns of a tile placement (``Kind.PLACE``, written by ``evaluate.py``), ``Action`` those of
a follower action (``Kind.ACTION``, written by ``follower.py``); the bots read the same names (meaning of each
column: ``bots.md``). :data:`FEATURES` is the table the game declares (``Face.features``): per kind name, its
``NFEAT`` column names in order; a column a kind does not use is named ``unused_N`` and the engine leaves it 0.
Column 0 is every kind's immediate value.
"""

from enum import IntEnum

from meeplab.sim.core.face import column_names

from .const import NFEAT, V_TILES_LEFT, V_TILES_TOTAL, Kind


class Place(IntEnum):
    """``Kind.PLACE``: a read-only look-ahead of the features the drawn tile joins or completes."""

    GAIN = 0  # my points from the features this tile completes
    OPP_GAIN = 1  # the best opponent's points from them
    FOLLOW = 2  # best points of a new cowboy of mine on a free feature this tile completes
    GROW = 3  # growth in value of the open features where I hold a majority
    OPP_GROW = 4  # the best opponent's growth of their open features
    OPEN = 5  # best free open feature on the tile: value x completion odds
    OPEN_EDGES = 6  # its open edges
    EDGES_DELTA = 7  # change of the open edges of my majority features
    TENT_TOK = 8  # E x tokens this tile adds to the mountain under my tent
    OPEN_KIND = 9  # kind + 1 of the feature in OPEN (0: none)
    TILES_LEFT = 10
    PRAIRIE = 11  # best free prairie value on the tile
    STACK = 12  # E x tokens of the best free mountain on the tile


class Action(IntEnum):
    """``Kind.ACTION``: pass, a cowboy on the new tile, a tent, mining, or taking a cowboy back."""

    POINTS = 0  # immediate points (a cowboy on a feature completed this turn; mining: E)
    VALUE = 1  # the feature's value (cowboy), stack x E (tent, mine), minus the feature's value (take back)
    OPEN_EDGES = 2  # open edges of the feature (city: of its railroads)
    RAILROAD = 3  # one-hot kind of a cowboy's feature: RAILROAD + kind (railroad, mountain, city, prairie)
    MOUNTAIN = 4
    CITY = 5
    PRAIRIE = 6
    TENT = 7  # a tent row
    MINE = 8  # a mine row
    TILES_FRAC = 9  # fraction of tiles left
    SUPPLY = 10  # my cowboys in supply
    ODDS = 11  # completion odds
    TENT_PLACED = 12  # tent row: my tent is already on the board
    REMOVE = 13  # a take-back row (a row with none of RAILROAD..MINE, REMOVE is "pass")
    SIZE = 14  # railroad: locomotives; mountain, tent, mine: tokens on the stack; city: completed railroads
    NUGGETS = 15  # mountain, tent, mine: the mountain's nuggets
    MINER_LEAD = 16  # tent, mine: my miners minus an opponent's most there
    OPP_MINERS = 17  # tent, mine: most miners of one opponent there
    OTHER_TENTS = 18  # tent, mine: other players' tents on that mountain
    IF_DONE = 19  # cowboy: the feature's value if completed
    IF_OPEN = 20  # cowboy: its value if it stays open to the end
    SAME_MOUNTAIN = 21  # tent row onto another area of the mountain my tent stands on (nothing changes)


COLUMNS = {Kind.PLACE: Place, Kind.ACTION: Action}
FEATURES = {k.name.lower(): column_names(cols, NFEAT) for k, cols in COLUMNS.items()}
# what shapes the learned policy's weights (sim.core.policy): the action's moves[i, 0] is its type (pass, cowboy,
# tent, mine, remove), and the progress the seat sees is the share of the tiles still to draw
CODES = {"action": 5}
PROGRESS = (V_TILES_LEFT, V_TILES_TOTAL)
