"""Take a card when its chips pay for enough of it, keep a chip reserve."""

from meeplab.sim.core.bots import bot_jit

DESCRIPTION = "takes when chips on the card cover a share of its cost or the card extends a run; keeps a reserve"
WEIGHTS = {"share": 0.35, "reserve": 2.0}


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    if n < 2:
        return 0
    gain = feats[0, 2] - feats[0, 0]  # what the card adds to the score (before its chips)
    if gain <= feats[0, 2] * 1.0 + 1e-9:  # chips pay for it (a run extension often costs nothing)
        return 0
    if feats[0, 3] <= weights[1]:  # few chips left: take cheap-ish cards
        return 0 if gain <= 2.0 * feats[0, 2] + 4.0 else 1
    return 0 if feats[0, 2] >= weights[0] * gain else 1
