"""Carcassonne: Gold Rush (Hans im Glück 2014), 2-5 players: tile laying with railroads, mountains, cities,
prairies and mining tokens. The deck and the token mix are data files (reconstructed; replaceable)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.face import Face
from meeplab.sim.core.game import GameSpec, Hidden

from . import draw
from .const import CATEGORIES, K_CITY, K_RAIL, LOGW, S_KIND, S_SPUR
from .deck import Deck, Tokens, load_deck, load_tokens
from .features import CODES, FEATURES, PROGRESS
from .options import OPTIONS
from .params import PARAMS, param_vector

BOT_DOC = """\
Decision kinds (details: sim/goldrush/bots.md)
  0 PLACE  : where and how to turn the drawn tile. moves[i] = (board cell, rotation, tile instance).
  1 ACTION : after placing: moves[i] = (type, node, arg); type 0 pass, 1 cowboy on the new tile
             (arg = feature kind 0 railroad 1 mountain 2 city 3 prairie), 2 tent to a mountain node,
             3 mine a token from your tent's mountain, 4 remove own cowboy (house rule, arg = slot).
view: 0 seat, 1 players, 2 tiles left, 3 tiles total, 4 turn, 5 my cowboys in supply, 6 my tent node (-1),
      7 tokens on my tent's mountain, 8.. score so far per seat (without tokens).
PLACE feats: 0 my immediate points (completions; tokens at their expected value), 1 best opponent's,
  2 best points of a new cowboy on a feature this tile completes, 3 growth of my open features,
  4 best opponent growth, 5 best free open feature on the tile (value x completion odds),
  6 its open edges, 7 change of open edges of my features, 8 expected value of tokens added under my tent,
  9 kind+1 of that free feature, 10 tiles left, 11 best free prairie value, 12 best free token stack value.
ACTION feats: 0 immediate points, 1 feature value (tent/mine: stack x token mean), 2 open edges,
  3-6 kind one-hot (rail, mountain, city, prairie), 7 tent, 8 mine, 9 fraction of tiles left,
  10 my cowboys in supply, 11 completion odds, 12 tent already placed, 13 remove, 14 locos / stack /
  completed city railroads, 15 nuggets of the mountain, 16 (tent/mine) my miners minus the best opponent's,
  17 the best opponent's miners there, 18 other tents there."""


@dataclass
class Ctx:
    values: dict[str, Any]
    deck: Deck
    tokens: Tokens
    pr: np.ndarray
    through: np.ndarray
    cityseg: np.ndarray
    cx: Any = None  # the engine's read-only record (state.GRCtx)


def prepare(values: dict[str, Any]) -> Ctx:
    from .engine import make_ctx
    from .state import MAXT, MAXTOK, ctx_record

    deck = load_deck(values["deck"])
    tokens = load_tokens(values["tokens"])
    if deck.n > MAXT:
        raise MeeplabError(f"deck file {deck.path}: {deck.n} tiles, the engine holds at most {MAXT}")
    if len(tokens.values) > MAXTOK:
        raise MeeplabError(f"token file {tokens.path}: {len(tokens.values)} tokens, the engine holds at most {MAXTOK}")
    n = deck.n
    through = -np.ones(n, np.int64)
    cityseg = -np.ones(n, np.int64)
    for i in range(n):
        for s in range(deck.nseg[i]):
            k = deck.seg[i, s, S_KIND]
            if k == K_RAIL and deck.seg[i, s, S_SPUR] == 0:
                through[i] = s
            if k == K_CITY:
                cityseg[i] = s
    pr = param_vector(values)
    return Ctx(
        values=values,
        deck=deck,
        tokens=tokens,
        pr=pr,
        through=through,
        cityseg=cityseg,
        cx=make_ctx(ctx_record(deck, tokens, pr, through, cityseg)),
    )


# play, decisions, the event log (GameSpec.events, grown until a game fits) and the feature columns: the core's face
FACE = Face(
    forward_context=lambda ctx, lineup: ctx.cx,
    n_categories=len(CATEGORIES),
    log_width=LOGW,
    features=FEATURES,
    codes=CODES,
    progress=PROGRESS,
)


def play_logged(ctx: Ctx, lineup, seed: int, index: int, n_players: int):
    """One game with the event log on (the batch's own code path): (log rows, score, breakdown, turns)."""
    from . import engine, options  # noqa: F401

    log, turns, score, bd = FACE.events(ctx, lineup, seed, index, n_players)
    return log, score, bd, int(turns)


def replay(ctx: Ctx, lineup, seed: int, index: int, n_players: int, explain: bool = False) -> str:
    from .replay import format_game

    log, score, bd, turns = play_logged(ctx, lineup, seed, index, n_players)
    return format_game(ctx, lineup, log, score, bd, turns, n_players, seed, index, explain=explain)


def notes(values: dict[str, Any]) -> list[str]:
    out = []
    if values.get("deck", "builtin") in ("", "builtin"):
        out.append("Gold Rush: reconstructed deck (the printed tile list is not public; replace with --deck PATH)")
    else:
        out.append(f"Gold Rush: deck from {values['deck']}")
    if values.get("tokens", "builtin") in ("", "builtin"):
        out.append("Gold Rush: reconstructed token mix (63 tokens 0/1/2/3/5; replace with --tokens PATH)")
    else:
        out.append(f"Gold Rush: token mix from {values['tokens']}")
    return out


def _unseen_pile(rec, seat, cx):
    """The draw pile's order from the next tile on (which tiles are left is public, their order is not)."""
    from .state import C_DRAWN

    return np.arange(int(rec["ctl"][C_DRAWN]), int(cx.tab[0]["ntiles"]) - 1)


def _unseen_tokens(rec, seat, cx):
    """Token faces ``seat`` has not seen: still face down, or taken by another seat."""
    from .const import G_TOKPTR

    ptr = int(rec["gi"][G_TOKPTR])
    i = np.arange(int(cx.tab[0]["ntok"]))
    return i[(i >= ptr) | (rec["tokown"][: i.size] != seat)]


def _unseen_toksums(rec, seat, cx):
    """The token sums of the other seats in play (``pl_int[p, PI_TOKSUM]``; their token counts are public)."""
    from meeplab.sim.core.forward import C_NP

    from .const import PI_TOKSUM

    width = rec["pl_int"].shape[1]
    return np.array([p * width + PI_TOKSUM for p in range(int(rec["ctl"][C_NP])) if p != seat], dtype=np.int64)


def _derive_toksums(rec, cx):
    """Each seat's token sum: the faces of the tokens it took (``tokown`` of ``tokvals[:gi[G_TOKPTR]]``)."""
    from meeplab.sim.core.forward import C_NP

    from .const import G_TOKPTR, PI_TOKSUM

    ptr = int(rec["gi"][G_TOKPTR])
    sums = np.bincount(rec["tokown"][:ptr], weights=rec["tokvals"][:ptr], minlength=rec["pl_int"].shape[0])
    rec["pl_int"][: int(rec["ctl"][C_NP]), PI_TOKSUM] = sums[: int(rec["ctl"][C_NP])].astype(np.int64)


# hidden information (GameSpec.hidden): the pile's order and the token faces a seat did not see (the conformance kit
# deals them otherwise); the other seats' token sums follow from the faces (derive); ``pool`` is determinise's scratch
HIDDEN = (
    Hidden("order", _unseen_pile),
    Hidden("tokvals", _unseen_tokens),
    Hidden("pl_int", _unseen_toksums, derive=_derive_toksums),
    Hidden("pool", lambda rec, seat, cx: (), scratch=lambda rec, seat, cx: np.arange(rec["pool"].size)),
)


GAME = GameSpec(
    id="goldrush",
    title="Carcassonne: Gold Rush",
    min_players=2,
    max_players=5,
    params=PARAMS,
    categories=list(CATEGORIES),
    length_unit="turns",
    prepare=prepare,
    **FACE.spec_fields(replay=replay),
    notes=notes,
    rules="shared/rules/goldrush.md",
    default_players=3,
    description="Tile laying in the Wild West: railroads, mountains with mining tokens, cities, prairies.",
    flags=("deck", "tokens"),
    bot_doc=BOT_DOC,
    options=OPTIONS,
    hidden=HIDDEN,
    chance_fields=("order", "tokvals"),
    draw=draw,
)
