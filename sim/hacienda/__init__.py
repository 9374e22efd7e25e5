"""Hacienda (Wolfgang Kramer, Hans im Glück 2005), 2-5 players, on the printed sides (reconstructed) or any .haz map."""

from __future__ import annotations

import numpy as np

from meeplab.sim.core import play as core_play
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.face import Face
from meeplab.sim.core.game import GameSpec, Hidden
from meeplab.sim.core.params import seat_values

from . import draw, flow, options
from .board import BUILTIN, MARKET, balls, load_board, market_distances, markets_next, static_masks
from .features import CODES, FEATURES, PROGRESS
from .layout import LOGW, MAXP, NT, T_ANIMAL
from .params import PARAMS
from .scoring import (
    MAXPC,
    P_ACTIONS,
    P_ANIMAL_HAND,
    P_ANIMALS_PER,
    P_CHAIN_MIN,
    P_CHAIN_PTS,
    P_CHIPS,
    P_COMPULSORY,
    P_DISCS,
    P_DISPLAY,
    P_HAC_PRICE,
    P_HAC_PTS,
    P_HAC_TURN,
    P_HACS,
    P_HARV_RATE,
    P_HARV_TURN,
    P_LAND_HAND,
    P_LAND_PER,
    P_LAND_TILES,
    P_LEN,
    P_MAX_ROUNDS,
    P_MP,
    P_MPP,
    P_NMP,
    P_PAMPA_CARDS,
    P_PRICE_BLIND,
    P_PRICE_UP,
    P_REMOVED,
    P_SEAT_ANIMAL,
    P_SEAT_LAND,
    P_SEAT_MONEY,
    P_START_MONEY,
    P_WATER_PRICE,
    P_WATER_PTS,
    P_WATER_TURN,
    P_WTILES,
)
from .state import HCtx, make_ctx

CATEGORIES = [
    "mid_markets",
    "mid_chains",
    "mid_haciendas",
    "mid_water",
    "mid_money",
    "markets",
    "chains",
    "haciendas",
    "water",
    "money",
]


def pack_params(values) -> np.ndarray:
    pi = np.zeros(P_LEN, dtype=np.int64)
    money = seat_values(values["start_money"], MAXP)
    pi[P_START_MONEY] = money[0]
    pi[P_SEAT_MONEY : P_SEAT_MONEY + MAXP] = money
    land, animal = seat_values(values["land_hand"], MAXP), seat_values(values["animal_hand"], MAXP)
    pi[P_LAND_HAND] = land[0]
    pi[P_ANIMAL_HAND] = animal[0]
    pi[P_SEAT_LAND : P_SEAT_LAND + MAXP] = land
    pi[P_SEAT_ANIMAL : P_SEAT_ANIMAL + MAXP] = animal
    pi[P_DISPLAY] = values["display"]
    pi[P_PRICE_UP] = values["price_face_up"]
    pi[P_PRICE_BLIND] = values["price_blind"]
    pi[P_HAC_PRICE] = values["hacienda_price"]
    pi[P_WATER_PRICE] = values["water_price"]
    pi[P_HAC_TURN] = values["haciendas_per_turn"]
    pi[P_WATER_TURN] = values["water_per_turn"]
    pi[P_HARV_RATE] = values["harvest_rate"]
    pi[P_HARV_TURN] = values["harvests_per_turn"]
    pi[P_CHIPS] = values["harvest_chips"]
    pi[P_ACTIONS] = values["actions"]
    pi[P_CHAIN_MIN] = values["chain_min"]
    pi[P_CHAIN_PTS] = values["chain_points"]
    pi[P_HAC_PTS] = values["hacienda_points"]
    pi[P_WATER_PTS] = values["water_points"]
    pi[P_MPP] = values["money_per_point"]
    pi[P_ANIMALS_PER] = values["animals_per_kind"]
    pi[P_LAND_PER] = values["land_per_terrain"]
    pi[P_PAMPA_CARDS] = values["pampa_cards"]
    pi[P_REMOVED : P_REMOVED + 4] = values["animals_removed"]
    pi[P_HACS : P_HACS + 4] = values["haciendas"]
    pi[P_WTILES : P_WTILES + 4] = values["water_tiles"]
    pi[P_MAX_ROUNDS] = values["max_rounds"]
    pi[P_COMPULSORY] = 1 if values["compulsory_actions"] else 0
    pi[P_DISCS] = values["animal_discs"]
    pi[P_LAND_TILES] = values["land_tiles"]
    mp = values["market_points"]
    if len(mp) > P_COMPULSORY - P_MP:
        raise MeeplabError(f"parameter 'market_points' has {len(mp)} entries, at most {P_COMPULSORY - P_MP}")
    pi[P_NMP] = len(mp)
    pi[P_MP : P_MP + len(mp)] = mp
    return pi


class Context:
    """Packed parameters and board arrays for the engine."""

    def __init__(self, values):
        self.values = values
        self.board = b = load_board(values["map"])
        n_pieces = b.n_sources + sum(values["water_tiles"])
        if n_pieces > MAXPC:
            raise MeeplabError(
                f"map {b.path}: {b.n_sources} water sources + {sum(values['water_tiles'])} water tiles exceed "
                f"{MAXPC} water tiles in play"
            )
        self.pi = pack_params(values)
        self.kind = b.kind.astype(np.int64)
        self.nb = b.nb.astype(np.int64)
        self.nbmask = b.nbmask
        self.mkcnt = markets_next(b)
        self.static = static_masks(b, self.mkcnt)
        self.mkspace = np.flatnonzero(b.kind == MARKET).astype(np.int64)
        self.mdist = market_distances(b)  # board distance from every space to every market
        self.ball3 = balls(b, 3)  # the spaces at most 3 steps from each space (the engine's water estimate)
        # the engine's records: the run's context and a state record of this board's shape for new_state, then the
        # engine itself as one function pointer (flow.step_function)
        eng = make_ctx(
            self.pi, self.kind, self.nb, self.nbmask, self.static, self.mkcnt, self.mdist, self.mkspace, self.ball3
        )
        self.cx = HCtx(eng.tab, eng.proto, flow.step_function(eng))


def prepare(values):
    return Context(values)


END_CODES = ("rules", "cap", "stalled")


# play, decisions, GameSpec.events (the conformance kit's; grown until a game fits) and the feature columns: the
# core's face. The replay reads Hacienda's own event log below (the same rows, with tie-breaks and the board at
# both scorings)
FACE = Face(
    forward_context=lambda ctx, lineup: ctx.cx,
    n_categories=len(CATEGORIES),
    log_width=LOGW,
    features=FEATURES,
    codes=CODES,
    progress=PROGRESS,
)


def play_with_endings(ctx, lineup, seed, start, n_games, n_players):
    """The batch plus how each game ended (index into END_CODES: 0 by the rules, 1 max_rounds cap, 2 stalled)."""
    b = FACE.play(ctx, lineup, seed, start, n_games, n_players)
    return b, b.end.astype(np.int64)


def events(ctx, lineup, seed, index, n_players, snapshots=False):
    """The event log of one game (the same game as the batch) plus its results (and, with ``snapshots``, the
    board at both scorings: rows of scoring.NROWS x W masks, then pesos per seat and water tiles in play)."""
    log = np.zeros((40000, LOGW), dtype=np.int64)
    srch = core_play.search_function(ctx.cx, lineup, n_players, len(CATEGORIES))
    n, score, tiebreak, brk, turns, snap = flow.play_logged(
        *core_play.loop_args(ctx.cx, lineup, n_players), seed, index, log, len(CATEGORIES), srch
    )
    if n >= log.shape[0]:  # the engine stops writing at the end: rows would be lost (as core_play.run_logged says)
        raise core_play.LogOverflow(f"game {index}: the event log is full ({log.shape[0]} rows): events were dropped")
    return log[:n], turns, score, tiebreak, brk, snap


def replay(ctx, lineup, seed, index, n_players, explain=False):
    from .replay import format_game

    log, turns, score, tiebreak, brk, _ = events(ctx, lineup, seed, index, n_players)
    return format_game(ctx, lineup, seed, index, n_players, log, turns, score, tiebreak, brk, explain=explain)


def notes(values):
    m = values.get("map", "A")
    if m in BUILTIN:
        side = "symmetric side A" if m == "A" else "asymmetric side B"
        return [
            f"map {m}: RECONSTRUCTED {side} of the printed board (no public source gives the printed maps; "
            f"see sim/hacienda/README.md)"
        ]
    return [f"map: {m} (a .haz map file)"]


BOT_DOC = """Decision kinds (see sim/hacienda/bots.md): 0 action (buy a face-up/blind land or animal card, play a card
type from hand, buy a hacienda, buy a water tile, harvest, end the turn), 1 land placement, 2 animal placement,
3 hacienda target group, 4 water tile (shape, anchor, orientation), 5 harvest (chain, chip source).
feats[:, 0] is the immediate value in points (pesos count 1/money_per_point); moves[:, 0] is the action code / space."""


def _sp(rec, cx):
    """The state's scalar table SP (as ``state.tables``), read from Python."""
    from .layout import SP_ROWS

    spw = max(int(cx.tab[0]["n"]) + 2, 64)
    return rec["SPf"][: SP_ROWS * spw].reshape(SP_ROWS, spw)


def _unseen_land(rec, seat, cx):
    """The land deck still to draw."""
    from .layout import S_LEND, S_LPTR, SR

    sp = _sp(rec, cx)
    return np.arange(int(sp[SR, S_LPTR]), int(sp[SR, S_LEND]))


def _unseen_animals(rec, seat, cx):
    """The animal cards removed at the start and those still in the stacks."""
    from .layout import S_A2, S_APTR, SR
    from .scoring import P_REMOVED

    sp = _sp(rec, cx)
    removed = int(cx.tab[0]["pi"][P_REMOVED + int(rec["ctl"][7]) - 2])  # C_NP
    return np.concatenate([np.arange(removed), np.arange(int(sp[SR, S_APTR]), int(sp[SR, S_A2]))])


def _other_hands(rec, seat, lo, hi):
    """Mask of the hand elements (seat, card type) of the other seats in play, types lo..hi-1."""
    from meeplab.sim.core.forward import C_NP

    m = np.zeros(rec["hand"].shape, dtype=bool)
    m[: int(rec["ctl"][C_NP]), lo:hi] = True
    m[seat] = False
    return m


def _hand_part(lo, hi):
    """The declaration of the other seats' hands, card types lo..hi-1: where their unseen cards lie (``unseen``) and
    how many of each type (``counts``: the cards held less those the seat saw bought face up, ``known``)."""
    return {
        "unseen": lambda rec, seat, cx: np.flatnonzero(_other_hands(rec, seat, lo, hi)),
        "counts": lambda rec, seat, cx: np.where(_other_hands(rec, seat, lo, hi), rec["hand"] - rec["known"], 0),
    }


# hidden information (GameSpec.hidden): the land deck still to draw and the other seats' land cards a seat did not see
# bought are one pool of unseen land cards; the animal stacks, the removed animal cards and the other seats' unseen
# animal cards another (the conformance kit deals each pool otherwise among its places, every hand keeping its size);
# ``pool`` is determinise's scratch
HIDDEN = (
    Hidden("ldeck", _unseen_land, pool="land"),
    Hidden("hand", **_hand_part(0, T_ANIMAL), pool="land"),
    Hidden("adeck", _unseen_animals, pool="animals"),
    Hidden("hand", **_hand_part(T_ANIMAL, NT), pool="animals"),
    Hidden("pool", lambda rec, seat, cx: (), scratch=lambda rec, seat, cx: np.arange(rec["pool"].size)),
)


GAME = GameSpec(
    id="hacienda",
    title="Hacienda",
    min_players=2,
    max_players=5,
    params=PARAMS,
    categories=CATEGORIES,
    length_unit="turns",
    prepare=prepare,
    **FACE.spec_fields(replay=replay),
    notes=notes,
    rules="../shared/rules/hacienda.md",
    default_players=3,
    description="Buy land and animal cards, build land chains and herds, reach markets and water; scored mid-game "
    "(when animal stack 1 runs out) and at the end (mid + final totals). Tie-break: pesos.",
    flags=("map",),
    bot_doc=BOT_DOC,
    end_codes=END_CODES,
    options=options.OPTIONS,
    hidden=HIDDEN,
    draw=draw,
)
