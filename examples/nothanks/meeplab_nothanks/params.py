"""No Thanks! rule parameters (defaults: the published rules, Thorsten Gimmler, Amigo 2004)."""

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import Param, ParamSet

MAX_CARD = 63  # cards are bits of one int64 mask per seat


def _validate(v):
    n = v["high_card"] - v["low_card"] + 1
    if n < 1:
        raise MeeplabError(f"high_card {v['high_card']} is below low_card {v['low_card']}")
    if v["removed"] >= n:
        raise MeeplabError(f"removing {v['removed']} of {n} cards leaves none to play: lower removed")


PARAMS = ParamSet(
    [
        Param("low_card", 3, "int", "Lowest card of the deck", lo=0, hi=MAX_CARD),
        Param(
            "high_card",
            35,
            "int",
            "Highest card of the deck (one card of every value from low to high)",
            lo=0,
            hi=MAX_CARD,
        ),
        Param("removed", 9, "int", "Cards removed face down before the game (nobody sees them)", lo=0, hi=60),
        Param("chips", 11, "int", "Chips each player starts with", lo=0, hi=100),
    ],
    validate=_validate,
)
