"""Index constants shared by the Schweinebande engine, its bots and its replay.

The engine's whole game state lives in one int64 array, the ``view`` handed to bots:
offsets below. Spaces are board indices (see ``board.py``); kinds 0..5 are the animals of
``params.ANIMALS``, kind 6 is a feed sack.
"""

from enum import IntEnum

NK = 6  # animal kinds
SACK = 6  # tile kind of a feed sack
NT = 7  # tile kinds
FACE_DOWN = 9  # view value of a face-down tile
MAXS = 25  # max spaces on any board shape
MAXP = 5

# scalar slots
V_SEAT = 0  # seat deciding now
V_NP = 1  # players
V_ROUND = 2  # 0-based round
V_NROUNDS = 3
V_NSPACES = 4
V_FACEDOWN = 5  # face-down tiles left on the board
V_REVEALED = 6  # space revealed this turn (PLACE decision), else -1
V_TURNS = 7
V_TILE = 8  # [MAXS] tile on each space: -1 empty, 0..6 face up, 9 face down
V_FARMER = V_TILE + MAXS  # [MAXS] seat of the farmer on each space, -1 none
V_HAND = V_FARMER + MAXS  # [MAXP, NT] tiles in front of each player (kinds 0..5 animals, 6 sacks)
V_FARM = V_HAND + MAXP * NT  # [MAXP, NK] animals on each player's farm
V_FEED = V_FARM + MAXP * NK  # [MAXP] feed markers
V_FLEFT = V_FEED + MAXP  # [MAXP] farmers still to place this round
V_ORDER = V_FLEFT + MAXP  # [MAXP] order tile (1..P) held, 0 none
V_SUPPLY = V_ORDER + MAXP  # feed markers left in a limited supply (-1 unlimited)
V_UNSEEN = V_SUPPLY + 1  # [NT] tiles of each kind nobody has seen yet (face down or still in the bag): public
V_LEN = V_UNSEEN + NT


class Kind(IntEnum):
    """Decision kinds (``ctl[C_KIND]``, the bots' ``kind``); what a ``moves`` row holds for each."""

    REVEAL = 0  # moves[i, 0] = face-down space to reveal
    PLACE = 1  # moves[i, 0] = 0 pass, 1 place a farmer on the revealed tile
    COLLECT = 2  # moves[i, 0] = farmer's space, moves[i, 1] = direction
    FARM = 3  # moves[i, 0] = 0 stop, 1 group of kind moves[i, 1], 2 mixed group of kinds mask moves[i, 1], 3 pig bonus
    SACK = 4  # moves[i, 0] = 0 pay with markers, 1 use a feed sack
    SELL = 5  # moves[i, 0] = kind to sell


K_REVEAL, K_PLACE, K_COLLECT, K_FARM, K_SACK, K_SELL = Kind
KIND_NAMES = tuple(k.name.lower() for k in Kind)  # "reveal", "place", ...: the names of the features table

NF = 8  # feature columns (meaning per kind in bots.md)

# log events: [code, seat, a, b, c, d]
LOGW = 6
E_ROUND = 1  # a = round
E_REVEAL = 2  # a = space, b = tile kind
E_PLACE = 3  # a = space
E_PASS = 4  # a = space
E_ORDER = 5  # a = order tile taken
E_SITOUT = 6  # a = farmers that sit out
E_TURNUP = 7  # a = space, b = tile
E_COLLECT = 8  # a = space, b = direction, c = tiles taken, d = packed kinds (4 bits per kind count, 7 kinds)
E_QUARTET = 9  # a = kind
E_MIXED = 10  # a = kinds mask, b = kind to farm
E_PIGBONUS = 11  # a = pigs to the farm
E_SACKUSE = 12  # a = animals fed
E_SELL = 13  # a = kind, b = feed gained
E_PAY = 14  # a = markers paid, b = feed left
E_FINAL = 15  # a = kind to farm, b = packed kinds of the group
E_DISCARD = 16  # a = tiles discarded at the end
E_LEFTOVER = 17  # a = tiles left on the board after collecting
E_SCORE = 18  # a = score, b = pigs on farm

# packed integer parameters (``pi``; see params.py and __init__.Context)
P_TILES = 0
P_SACKS = 1
P_ROUNDS = 2
P_FARMERS = 3  # 4 entries: players 2..5
P_QUART = 7
P_MIXED = 8
P_PIGG = 9
P_PIGF = 10
P_FINAL = 11
P_START_FEED = 12
P_SUPPLY = 13
P_FEEDPER = 14
P_VALUES = 15  # 6 entries
P_SEAT_FEED = 21  # MAXP entries: feed markers each seat starts with (seat 0 = start player)
P_LEN = 26
