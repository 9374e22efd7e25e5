"""Goofspiel (public domain), 2-5 players: every seat bids one card face down for the prize face up, all bids are
revealed together, the unique highest bid takes the prize. meeplab's example of a game with secret decisions
(``GameSpec.secret``): simultaneous face-down choices, withheld from the other seats until the reveal.

Installed, it registers the game through the entry point ``meeplab.games`` (``goofspiel = "meeplab_goofspiel:GAME"``)
and its bots through ``meeplab.bots`` (``goofspiel = "meeplab_goofspiel.bots"``): ``meeplab run goofspiel`` works.
"""

import numpy as np

from meeplab.sim.core.face import Face
from meeplab.sim.core.game import GameSpec, Hidden, Secret

from . import draw, engine
from .params import PARAMS
from .replay import format_game


def unseen_prizes(rec, seat, cx):
    """The prize cards nobody has seen: the deck after the prize face up."""
    ctl = rec["ctl"]
    return np.arange(min(ctl[engine.C_ROUND] + 1, ctl[engine.C_NCARDS]), ctl[engine.C_NCARDS])


def face_down(rec, s) -> bool:
    """Seat ``s``'s bid of this round lies face down (laid, not yet revealed)."""
    ctl = rec["ctl"]
    return s < ctl[engine.C_TURN] and s < ctl[engine.C_NP] and ctl[engine.C_ROUND] < ctl[engine.C_NCARDS]


def unseen_bid(s):
    """Seat ``s``'s face-down row of ``facedown`` (its bid in slot 0, its other cards after it), unseen by every other
    seat while the bid lies face down: the order of its public cards, the row its own pool."""

    def unseen(rec, seat, cx):
        if seat == s or not face_down(rec, s):
            return np.zeros(0, dtype=np.int64)
        left = rec["ctl"][engine.C_NCARDS] - rec["ctl"][engine.C_ROUND]
        return s * engine.MAXN + np.arange(left)

    return unseen


def reveals(rec, cx) -> int:
    """Rounds whose bids have been turned face up."""
    return int(rec["ctl"][engine.C_ROUND])


#: the feature columns the engine writes per decision kind (BOT_DOC below): the learned policy is named after them
FEATURES = {"bid": ("value", "card", "at_stake", "win_chance", "card_rank", "prize_rank")}

FACE = Face(
    forward_context=lambda ctx, lineup: ctx,
    n_categories=engine.NCAT,
    log_width=engine.LOGW,
    format_game=format_game,
    features=FEATURES,
)

BOT_DOC = """One decision kind: 0 = bid: lay one of your bid cards face down (moves[i, 0] = the card, lowest first).
view: 0 prize face up, 1 points at stake (prize and carried points), 2 rounds revealed, 3 cards per seat (N),
4 own seat, 5 players, 6 prize cards still face down (bit mask), 7 seats that have bid this round, 8.. bid cards
each seat has not revealed (bit masks, 5 slots; a face-down bid is still in it), 13.. prize points of each seat,
18.. the bids revealed last round. feats: 0 immediate value (points at stake x chance to win against random bids
of the other seats, less the card x prize points per bid point still to play), 1 the card, 2 points at stake,
3 chance to win if every other seat bids one of its cards at random, 4 the card's rank among own cards (0 lowest,
1 highest), 5 the prize's rank among the prizes still to take."""

GAME = GameSpec(
    id="goofspiel",
    title="Goofspiel",
    min_players=2,
    max_players=5,
    params=PARAMS,
    categories=["prizes"],
    length_unit="rounds",
    prepare=engine.make_ctx,
    **FACE.spec_fields(),
    rules="Bid a card face down for the prize face up; all bids are revealed together; the unique highest takes it",
    default_players=3,
    description="Bid a card face down for the prize; the unique highest bid takes it; most prize points win.",
    bot_doc=BOT_DOC,
    options=(
        ("lowest", "bid the lowest card held"),
        ("highest", "bid the highest card held"),
        ("match", "bid the card of the prize's value"),
    ),
    hidden=(Hidden("deck", unseen_prizes), *(Hidden("facedown", unseen_bid(s)) for s in range(engine.MAXP))),
    secret=Secret(kinds=(engine.KIND_BID,), reveals=reveals),
    chance_fields=("deck",),
    draw=draw,
)

__all__ = ["GAME"]
