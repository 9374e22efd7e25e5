"""Schweinebande (Stefan Dorra, Hans im Glück 2010), 2-5 players."""

import numpy as np

from meeplab.sim.core.face import Face
from meeplab.sim.core.game import GameSpec, Hidden
from meeplab.sim.core.params import seat_values

from . import draw, engine, layout, options
from .board import build
from .features import CODES, FEATURES, PROGRESS
from .layout import LOGW
from .params import ANIMALS, PARAMS
from .replay import format_game
from .state import make_ctx


class Context:
    """Packed parameters and board arrays for the engine."""

    def __init__(self, values):
        self.values = values
        pi = np.zeros(layout.P_LEN, dtype=np.int64)
        pi[layout.P_TILES] = values["tiles_per_animal"]
        pi[layout.P_SACKS] = values["feed_sacks"]
        pi[layout.P_ROUNDS] = values["rounds"]
        pi[layout.P_FARMERS : layout.P_FARMERS + 4] = values["farmers_per_player"]
        pi[layout.P_QUART] = values["quartet_size"]
        pi[layout.P_MIXED] = values["mixed_size"]
        pi[layout.P_PIGG] = values["pig_bonus_group"]
        pi[layout.P_PIGF] = values["pig_bonus_farm"]
        pi[layout.P_FINAL] = values["final_group"]
        feed = seat_values(values["start_feed"], layout.MAXP)
        pi[layout.P_START_FEED] = feed[0]
        pi[layout.P_SEAT_FEED : layout.P_SEAT_FEED + layout.MAXP] = feed
        pi[layout.P_SUPPLY] = values["feed_supply"]
        pi[layout.P_FEEDPER] = values["feed_per_animal"]
        pi[layout.P_VALUES : layout.P_VALUES + 6] = values["animal_values"]
        self.pi = pi
        self.ptab = engine.potential_table(values["animal_values"], values["quartet_size"], values["mixed_size"])
        self.rays, self.cells, self.dir_names = build(values["board"])
        self.nd = len(self.dir_names)
        self.cx = make_ctx(self.pi, self.ptab, self.rays, self.nd)  # the engine's record


def prepare(values):
    return Context(values)


# play, decisions, the event log (grown until a game fits, never cut short), the replay and the feature columns:
# the core's face
FACE = Face(
    forward_context=lambda ctx, lineup: ctx.cx,
    n_categories=engine.NC,
    log_width=LOGW,
    format_game=format_game,
    features=FEATURES,
    codes=CODES,
    progress=PROGRESS,
)
events = FACE.events  # one game's event log and results (scripts/feed_supply.py, tests)


CATEGORIES = ["quartets", "mixed_groups", "pig_bonus", "final_groups"]

BOT_DOC = """Decision kinds (see sim/schweinebande/bots.md): 0 reveal (which face-down tile), 1 place (pass/place a
farmer on the revealed tile), 2 collect (farmer and direction), 3 farm (close a group or stop), 4 sack (use a feed
sack), 5 sell (which animal to sell when short of feed). feats[:, 0] is the immediate value of each candidate."""


def _unseen_faces(rec, seat, cx):
    """The kinds under the face-down spaces of this round's board (nobody has seen them)."""
    from .state import M_FACEDOWN

    fd = int(rec["mk"][M_FACEDOWN])
    return np.array([s for s in range(int(cx.tab[0]["ns"])) if fd >> s & 1], dtype=np.int64)


def _bag_parts(rec, cx):
    """(first tile of this round's deal still face down, first undealt tile, tiles in the bag): ``bag[drawn:total]``
    is not dealt yet, ``bag[lo:drawn]`` held the deal of the spaces still face down (determinise's scratch)."""
    from .state import C_DRAWN, M_FACEDOWN

    pi = cx.tab[0]["pi"]
    total = layout.NK * int(pi[layout.P_TILES]) + int(pi[layout.P_SACKS])
    drawn = int(rec["ctl"][C_DRAWN])
    return drawn - bin(int(rec["mk"][M_FACEDOWN])).count("1"), drawn, total


def _unseen_bag(rec, seat, cx):
    """The tiles not dealt yet."""
    _, drawn, total = _bag_parts(rec, cx)
    return np.arange(drawn, total)


def _bag_scratch(rec, seat, cx):
    lo, drawn, _ = _bag_parts(rec, cx)
    return np.arange(lo, drawn)


# hidden information (GameSpec.hidden): the tiles under the face-down spaces and the undealt bag are one pool of
# unseen tiles (their counts are public, pub[V_UNSEEN]); the conformance kit deals it otherwise among those places
HIDDEN = (
    Hidden("hidden", _unseen_faces, pool="tiles"),
    Hidden("bag", _unseen_bag, pool="tiles", scratch=_bag_scratch),
)


GAME = GameSpec(
    id="schweinebande",
    title="Schweinebande",
    min_players=2,
    max_players=5,
    params=PARAMS,
    categories=CATEGORIES,
    length_unit="turns",
    prepare=prepare,
    **FACE.spec_fields(),
    notes=lambda values: [] if values["board"] == "rhombus" else [f"variant board: {values['board']}"],
    rules="shared/rules/schweinebande.md",
    default_players=3,
    description="Collect animal tiles in lines with your farmers, close groups onto your farm, feed the rest.",
    bot_doc=BOT_DOC,
    options=options.OPTIONS,
    hidden=HIDDEN,
    chance_fields=("bag",),
    draw=draw,
)

__all__ = ["ANIMALS", "GAME"]
