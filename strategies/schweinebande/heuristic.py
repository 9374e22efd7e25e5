"""Linear heuristic per decision kind with TOML weights, following the rule book's tips: chase pairs
towards groups, keep pigs for the last-round bonus, value feed sacks, and sell one valuable animal
rather than two cheap ones."""

import tomllib
from pathlib import Path

from meeplab.sim.core.bots import bot_jit
from meeplab.sim.schweinebande.features import FEATURES
from meeplab.sim.schweinebande.layout import NF
from meeplab.strategies.common import argmax_kind_linear, kind_weights

DESCRIPTION = "weighted features per decision (weights in heuristic.toml); keeps pigs for the bonus"

with (Path(__file__).with_name("heuristic.toml")).open("rb") as _fh:
    WEIGHTS = kind_weights(list(FEATURES), FEATURES, tomllib.load(_fh)["weights"])


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_kind_linear(kind, feats, n, weights, NF, rng)
