"""Hacienda rule parameters (defaults = the rule book, `../shared/rules/hacienda.md` and the Czech original)."""

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import Param, ParamSet

ANIMALS = ("cattle", "horse", "pig", "sheep")
LAND = ("mountain", "forest", "meadow", "rock", "swamp", "pampa")
WATER_SHAPES = ("1 hex", "2 hexes", "3-hex triangle", "3-hex line")


def _dealt(value, p: int) -> int | None:
    """Cards dealt to ``p`` players by a hand-size parameter (one value, or one per seat); None when per-seat
    values were given for another player count (those games are refused by their count anyway)."""
    if isinstance(value, tuple):
        return sum(value) if len(value) == p else None
    return p * value


def _validate(v):
    removed = v["animals_removed"]
    for i, r in enumerate(removed):
        p = i + 2
        animals, lands = _dealt(v["animal_hand"], p), _dealt(v["land_hand"], p)
        if animals is not None:
            left = 4 * v["animals_per_kind"] - r - animals - v["display"]
            if left < 2:
                raise MeeplabError(
                    f"animals_removed: with {p} players, {r} removed cards leave {left} animal cards for the two "
                    f"stacks (need at least 2; {4 * v['animals_per_kind']} cards, {animals} in the hands, "
                    f"{v['display']} face up)"
                )
        if lands is not None:
            land = 5 * v["land_per_terrain"] + v["pampa_cards"] - lands - v["display"]
            if land < 0:
                raise MeeplabError(
                    f"land cards: {p} players' {lands} in hand + {v['display']} face up exceed the "
                    f"{5 * v['land_per_terrain'] + v['pampa_cards']} land cards"
                )


PARAMS = ParamSet(
    [
        Param(
            "map",
            "A",
            "str",
            "Board: A (symmetric side, reconstructed), B (asymmetric side, reconstructed) or a path to a .haz map",
            group="map",
        ),
        Param(
            "start_money",
            20,
            "int",
            "Pesos each player starts with (one value, or one per seat: 20,20,21)",
            lo=0,
            hi=1000,
            per_seat=True,
        ),
        Param(
            "land_hand",
            8,
            "int",
            "Land cards dealt to each player (one value, or one per seat: 8,8,9)",
            lo=0,
            hi=30,
            per_seat=True,
        ),
        Param(
            "animal_hand",
            4,
            "int",
            "Animal cards dealt to each player (one value, or one per seat: 4,4,5)",
            lo=0,
            hi=30,
            per_seat=True,
        ),
        Param("display", 4, "int", "Face-up land cards and face-up animal cards (each)", lo=0, hi=8),
        Param("price_face_up", 3, "int", "Price of a face-up card", lo=0, hi=100),
        Param("price_blind", 2, "int", "Price of a card from a face-down pile", lo=0, hi=100),
        Param("hacienda_price", 12, "int", "Price of a hacienda", lo=0, hi=1000),
        Param("water_price", 12, "int", "Price of a water tile (any shape)", lo=0, hi=1000),
        Param("haciendas_per_turn", 1, "int", "Haciendas a player may buy per turn", lo=0, hi=3),
        Param("water_per_turn", 1, "int", "Water tiles a player may buy per turn", lo=0, hi=3),
        Param("harvest_rate", 3, "int", "Pesos per tile of the harvested land chain", lo=0, hi=100),
        Param("harvests_per_turn", 1, "int", "Harvests a player may do per turn", lo=0, hi=3),
        Param("harvest_chips", 8, "int", "Harvest chips in the game", lo=0, hi=100),
        Param("actions", 3, "int", "Actions per turn", lo=1, hi=10),
        Param(
            "compulsory_actions",
            True,
            "bool",
            "The player must use all actions while any legal action exists (the book); false: may end the turn "
            "early at any time",
        ),
        Param(
            "market_points",
            (1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66),
            "ints",
            "Points for 1, 2, ... markets reached (beyond the table: n(n+1)/2)",
            lo=0,
            hi=10000,
            min_length=1,
        ),
        Param("chain_min", 3, "int", "Shortest land chain that scores", lo=1, hi=50),
        Param("chain_points", 2, "int", "Points per tile of a scoring land chain", lo=0, hi=100),
        Param("hacienda_points", 1, "int", "Points per tile of the chain or herd carrying a hacienda", lo=0, hi=100),
        Param("water_points", 1, "int", "Points per own tile next to a water tile (per water tile)", lo=0, hi=100),
        Param("money_per_point", 10, "int", "Pesos per point in a scoring", lo=1, hi=1000),
        Param("animals_per_kind", 18, "int", "Animal cards of each kind (cattle, horse, pig, sheep)", lo=1, hi=100),
        Param("land_per_terrain", 14, "int", "Land cards of each of the five terrains", lo=0, hi=100),
        Param("pampa_cards", 10, "int", "Pampa land cards", lo=0, hi=100),
        Param(
            "animals_removed",
            (30, 20, 10, 0),
            "ints",
            "Animal cards removed unseen with 2, 3, 4, 5 players",
            lo=0,
            hi=400,
            length=4,
        ),
        Param(
            "haciendas",
            (5, 7, 8, 9),
            "ints",
            "Neutral haciendas available with 2, 3, 4, 5 players",
            lo=0,
            hi=100,
            length=4,
        ),
        Param(
            "water_tiles",
            (9, 4, 3, 2),
            "ints",
            "Water tiles: 1-hex, 2-hex, 3-hex triangle, 3-hex line (one 1-hex tile starts on each water source)",
            lo=0,
            hi=100,
            length=4,
        ),
        Param(
            "animal_discs",
            30,
            "int",
            "Animal discs per player (double-sided: any animal can be shown, the book's swap when a kind runs "
            "out); with all of them on the board the player cannot play animal cards; 0 = unlimited",
            lo=0,
            hi=1000,
        ),
        Param(
            "land_tiles",
            80,
            "int",
            "Land tiles in the box, double-sided in two of the five player colours, spread evenly over the 10 "
            "colour pairs (our reading: 8 of each pair); a player with no tile of its colour left cannot play "
            "land cards; 0 = unlimited",
            lo=0,
            hi=10000,
        ),
        Param(
            "max_rounds",
            200,
            "int",
            "Safety cap, not a rule: after this many rounds the outstanding scorings happen",
            lo=1,
            hi=10000,
            group="engine",
        ),
    ],
    validate=_validate,
)
