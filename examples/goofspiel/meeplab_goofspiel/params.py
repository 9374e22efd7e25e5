"""Goofspiel rule parameters (the public-domain game; defaults: 8 cards a seat, ties discard the prize)."""

from meeplab.sim.core.params import Param, ParamSet

from .engine import MAXN

PARAMS = ParamSet(
    [
        Param(
            "cards",
            8,
            "int",
            "Bid cards per seat (1..cards), prize cards (1..cards) and rounds",
            lo=2,
            hi=MAXN,
        ),
        Param(
            "ties",
            "discard",
            "str",
            "A tie for the highest bid: the prize is discarded, or carried into the next round's prize",
            choices=("discard", "carry"),
        ),
    ]
)
