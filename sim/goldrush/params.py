"""Carcassonne: Gold Rush rule parameters (defaults = the rule book, `shared/rules/goldrush.md`)."""

import numpy as np

from meeplab.sim.core.params import Param, ParamSet, seat_values

from .const import (
    MAXP,
    NPR,
    P_CITY_PTS,
    P_COWBOYS,
    P_END_CITY,
    P_END_MTN,
    P_END_PRAIRIE,
    P_END_RAIL,
    P_FARMERS,
    P_HORSE_PTS,
    P_HOUSE_REMOVE,
    P_LOCO_EXACT,
    P_LOCO_MULT,
    P_NUG_PTS,
    P_RAIL_PTS,
    P_SEAT_COWBOYS,
    P_SEAT_TENTS,
    P_TENTS,
    P_TIPI_PTS,
)

PARAMS = ParamSet(
    [
        Param(
            "deck",
            "builtin",
            "str",
            "Tile deck: 'builtin' (reconstructed, sim/goldrush/data/deck.csv) or a CSV path in the same format",
            group="data",
        ),
        Param(
            "tokens",
            "builtin",
            "str",
            "Mining-token mix: 'builtin' (reconstructed, data/tokens.csv) or a CSV path (value,count)",
            group="data",
        ),
        Param(
            "cowboys",
            4,
            "int",
            "Cowboys each player has in play (the 5th marks the score; one value, or one per seat: 4,4,5)",
            lo=1,
            hi=7,
            per_seat=True,
        ),
        Param(
            "tents",
            1,
            "int",
            "Tents per player (0 = no tents and no mining; one value, or one per seat: 1,1,0)",
            lo=0,
            hi=1,
            per_seat=True,
        ),
        Param(
            "farmers",
            True,
            "bool",
            "Cowboys may be placed on prairies as farmers (rule book: 'first game without farmers' = false)",
        ),
        Param("rail_tile_points", 1.0, "float", "Points per railroad tile", lo=0, hi=100),
        Param("loco_multiplier", 2.0, "float", "Multiplier of a completed railroad with locomotive(s)", lo=0, hi=100),
        Param("loco_exactly_one", True, "bool", "Only exactly one locomotive multiplies (false: one or more)"),
        Param("nugget_points", 1.0, "float", "Points per nugget symbol of a scored mountain", lo=0, hi=100),
        Param(
            "city_rail_points", 3.0, "float", "Points per completed railroad connected to a scored city", lo=0, hi=100
        ),
        Param("tipi_points", 2.0, "float", "Prairie points per tipi camp", lo=0, hi=100),
        Param("horse_points", 4.0, "float", "Prairie points per wild-horse herd", lo=0, hi=100),
        Param("end_railroads", True, "bool", "Incomplete railroads score at the end (1 per tile)"),
        Param("end_mountains", True, "bool", "Incomplete mountains score at the end (tents, tokens removed)"),
        Param("end_cities", True, "bool", "Incomplete cities score at the end (per completed railroad)"),
        Param("end_prairies", True, "bool", "Prairies score for farmers at the end"),
        Param(
            "house_remove_cowboy",
            False,
            "bool",
            "House rule: instead of placing, remove one of your own cowboys from the board without scoring",
        ),
        Param("house_fifth_cowboy", False, "bool", "House rule: the 5th cowboy plays too (cowboys + 1)"),
    ]
)


def param_vector(v) -> np.ndarray:
    pr = np.zeros(NPR, np.float64)
    extra = 1 if v["house_fifth_cowboy"] else 0
    cowboys = seat_values(v["cowboys"], MAXP)
    pr[P_COWBOYS] = cowboys[0] + extra
    pr[P_SEAT_COWBOYS : P_SEAT_COWBOYS + MAXP] = [c + extra for c in cowboys]
    tents = seat_values(v["tents"], MAXP)
    pr[P_TENTS] = max(tents)  # some seat has a tent
    pr[P_SEAT_TENTS : P_SEAT_TENTS + MAXP] = tents
    pr[P_RAIL_PTS] = v["rail_tile_points"]
    pr[P_LOCO_MULT] = v["loco_multiplier"]
    pr[P_LOCO_EXACT] = 1.0 if v["loco_exactly_one"] else 0.0
    pr[P_NUG_PTS] = v["nugget_points"]
    pr[P_CITY_PTS] = v["city_rail_points"]
    pr[P_TIPI_PTS] = v["tipi_points"]
    pr[P_HORSE_PTS] = v["horse_points"]
    pr[P_END_RAIL] = 1.0 if v["end_railroads"] else 0.0
    pr[P_END_MTN] = 1.0 if v["end_mountains"] else 0.0
    pr[P_END_CITY] = 1.0 if v["end_cities"] else 0.0
    pr[P_END_PRAIRIE] = 1.0 if v["end_prairies"] else 0.0
    pr[P_FARMERS] = 1.0 if v["farmers"] else 0.0
    pr[P_HOUSE_REMOVE] = 1.0 if v["house_remove_cowboy"] else 0.0
    return pr
