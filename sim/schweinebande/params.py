"""Schweinebande rule parameters (defaults = the rule book, `../shared/rules/schweinebande.md`)."""

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import Param, ParamSet

ANIMALS = ("rooster", "sheep", "goat", "donkey", "pig", "cow")
PIG = 4  # index of the pig in ANIMALS (pig bonus, tie-break)
BOARDS = ("rhombus", "hexagon", "square")


def _validate(v):
    from .board import board_spaces

    spaces = board_spaces(v["board"])
    tiles = v["tiles_per_animal"] * len(ANIMALS) + v["feed_sacks"]
    need = spaces * v["rounds"]
    if tiles < need:
        raise MeeplabError(
            f"{tiles} tiles are too few for {v['rounds']} rounds on the {v['board']} board "
            f"({spaces} spaces each, {need} needed): raise tiles_per_animal/feed_sacks or lower rounds"
        )
    fpp = v["farmers_per_player"]
    for i, f in enumerate(fpp):
        if f * (i + 2) > spaces:
            raise MeeplabError(
                f"farmers_per_player: {f} farmers x {i + 2} players exceed the {spaces} spaces of the board"
            )


PARAMS = ParamSet(
    [
        Param(
            "animal_values",
            (2, 3, 4, 5, 6, 7),
            "ints",
            "Points (and feed when sold) of rooster, sheep, goat, donkey, pig, cow",
            lo=0,
            hi=100,
            length=6,
        ),
        Param("tiles_per_animal", 16, "int", "Tiles of each animal kind in the bag", lo=0, hi=100),
        Param("feed_sacks", 4, "int", "Feed-sack tiles in the bag", lo=0, hi=100),
        Param("rounds", 4, "int", "Rounds per game (each lays out a fresh board of tiles)", lo=1, hi=10),
        Param(
            "farmers_per_player",
            (3, 3, 2, 2),
            "ints",
            "Farmers per player with 2, 3, 4, 5 players",
            lo=1,
            hi=12,
            length=4,
        ),
        Param(
            "quartet_size",
            4,
            "int",
            "Animals of one kind that close a same-kind group (1 goes to the farm)",
            lo=2,
            hi=16,
        ),
        Param(
            "mixed_size",
            6,
            "int",
            "Different kinds that close a mixed group (the most valuable, the cow when 6, goes to the farm)",
            lo=2,
            hi=6,
        ),
        Param("pig_bonus_group", 4, "int", "Pigs per pig-bonus group in the last round", lo=1, hi=16),
        Param(
            "pig_bonus_farm", 2, "int", "Pigs of each pig-bonus group that go to the farm (0 = no bonus)", lo=0, hi=16
        ),
        Param(
            "final_group",
            4,
            "int",
            "Tiles per end-of-game mixed group (the lowest-valued goes to the farm; 0 = no final groups)",
            lo=0,
            hi=16,
        ),
        Param(
            "start_feed",
            0,
            "int",
            "Feed markers each player starts with (one value, or one per seat: 0,0,1)",
            lo=0,
            hi=100,
            per_seat=True,
        ),
        Param(
            "feed_supply", 0, "int", "Feed markers in the supply (0 = unlimited, as the digest advises)", lo=0, hi=1000
        ),
        Param("feed_per_animal", 1, "int", "Feed markers each animal off the farm eats per round", lo=0, hi=10),
        Param(
            "board",
            "rhombus",
            "str",
            "Board shape: rhombus (5x5 hex, rule book), hexagon (19 hexes), square (5x5, orthogonal lines)",
            choices=BOARDS,
        ),
    ],
    validate=_validate,
)
