"""No Thanks! (Thorsten Gimmler, Amigo 2004), 3-7 players, lowest score wins: a meeplab plugin game.

Installed, it registers the game through the entry point ``meeplab.games`` (``nothanks = "meeplab_nothanks:GAME"``)
and its bots through ``meeplab.bots`` (``nothanks = "meeplab_nothanks.bots"``): ``meeplab run nothanks`` works.
"""

import numpy as np

from meeplab.sim.core.face import Face
from meeplab.sim.core.game import GameSpec, Hidden

from . import draw, engine
from .params import PARAMS
from .replay import format_game


def _unseen_deck(rec, seat, cx):
    """The deck's cards nobody has seen: everything after the card face up (the removed cards included)."""
    return np.arange(rec["ctl"][engine.C_POS] + 1, rec["ctl"][engine.C_NCARDS])


#: the feature columns the engine writes per decision kind (BOT_DOC below): the learned policy is named after them
FEATURES = {"card": ("value", "card", "chips_on_it", "own_chips")}

FACE = Face(
    forward_context=lambda ctx, lineup: ctx,
    n_categories=engine.NCAT,
    log_width=engine.LOGW,
    format_game=format_game,
    features=FEATURES,
)

BOT_DOC = """One decision kind: 0 = the card face up: move 0 takes it (with its chips), move 1 pays a chip ("no thanks",
offered only with a chip left). view: 0 card, 1 chips on it, 2 cards still to come, 3 own seat, 4 players, 5.. chips
of each seat (10 slots), 15.. cards of each seat as bit masks (10 slots). feats: 0 immediate value (minus the change
of the own score: higher is better), 1 card, 2 chips on it, 3 own chips."""

GAME = GameSpec(
    id="nothanks",
    title="No Thanks!",
    min_players=3,
    max_players=7,
    params=PARAMS,
    categories=["cards", "chips"],
    length_unit="turns",
    prepare=engine.make_ctx,
    **FACE.spec_fields(),
    rules="Take the card face up with its chips or pay a chip; runs count their lowest card, chips count -1",
    default_players=5,
    description="Take the card or pay a chip; runs score their lowest card, chips count minus one; lowest wins.",
    bot_doc=BOT_DOC,
    options=(("take", "take the card and its chips"), ("pass", "pay a chip: no thanks")),
    lower_wins=True,
    hidden=(Hidden("deck", _unseen_deck),),
    chance_fields=("deck",),
    draw=draw,  # the board as SVG: meeplab view and the play page (draw.py)
)

__all__ = ["GAME"]
