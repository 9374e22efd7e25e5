"""Feature columns per decision kind of the Schweinebande engine (see sim/schweinebande/bots.md).

A column that a kind does not use is named ``unused_N``; the engine leaves it 0.
"""

from meeplab.sim.schweinebande.layout import KIND_NAMES, NF

FEATURES = {
    "reveal": ["gain", "known_tiles", "unknown_tiles", "unused_3", "unused_4", "unused_5", "unused_6", "bias"],
    "place": [
        "gain",
        "known_tiles",
        "unknown_tiles",
        "is_pass",
        "farmers_left",
        "facedown_left",
        "players_placing",
        "bias",
    ],
    "collect": ["gain", "value", "animals", "pigs", "sacks", "feed_burden", "unused_6", "bias"],
    "farm": ["points", "discarded_value", "early_pig_group", "is_stop", "is_mixed", "tiles_left", "last_round", "bias"],
    "sack": ["feed_saved", "feed_needed", "rounds_left", "unused_3", "unused_4", "unused_5", "unused_6", "bias"],
    "sell": ["minus_value", "value", "count", "is_pig", "partial_group", "covers_gap", "full_group", "bias"],
}
assert tuple(FEATURES) == KIND_NAMES and all(len(v) == NF for v in FEATURES.values())
