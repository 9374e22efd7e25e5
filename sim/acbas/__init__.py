"""Agricola: All Creatures Big and Small (Uwe Rosenberg, Lookout 2012), exactly 2 players."""

import numpy as np

from meeplab.sim.core import play as core_play
from meeplab.sim.core.bots import MAX_ENTRIES, READS_ALL
from meeplab.sim.core.face import Face
from meeplab.sim.core.forward import ALGO_NONE, S_ALGO
from meeplab.sim.core.game import GameSpec

from . import draw, engine, options
from .features import CODES, FEATURES, PROGRESS
from .layout import LOGW
from .params import PARAMS, pack
from .scoring import CATEGORIES
from .state import ctx_record

NCAT = len(CATEGORIES)


class Context:
    """Packed parameter arrays for the engine."""

    def __init__(self, values):
        self.values = values
        self.prm, self.prmf = pack(values)
        self.mono = bool(engine.bounds_hold(self.prm, self.prmf))


def prepare(values):
    return Context(values)


def engine_ctx(prm, prmf, lineup, mono=None):
    """The engine's context record for a run of ``lineup``: parameters, what each entry's bot reads of the
    features (every feature for all entries when a search bot plays: its playouts may ask any policy about any
    seat) and the seat rotation."""
    reads = np.zeros(MAX_ENTRIES, dtype=np.int64)
    if lineup.reads is not None:
        reads[:] = lineup.reads
    search = getattr(lineup, "search", None)
    if search is not None and (search[:, S_ALGO] != ALGO_NONE).any():
        reads[:] = READS_ALL
    if mono is None:
        mono = bool(engine.bounds_hold(prm, prmf))
    return engine.make_ctx(ctx_record(prm, prmf, reads, lineup.rotate, mono))


# play, decisions, GameSpec.events (the conformance kit's; grown until a game fits) and the feature columns: the
# core's face. The replay reads ACBAS's own event log below (the same rows, with tie-breaks)
FACE = Face(
    forward_context=lambda ctx, lineup: engine_ctx(ctx.prm, ctx.prmf, lineup, ctx.mono),
    n_categories=NCAT,
    log_width=LOGW,
    features=FEATURES,
    codes=CODES,
    progress=PROGRESS,
)


def events(ctx, lineup, seed, index, n_players=2):
    """The event log of one game (the batch's own code path with logging on) and its results."""
    cx = engine_ctx(ctx.prm, ctx.prmf, lineup, ctx.mono)
    log = np.zeros((8192, LOGW), dtype=np.int64)
    n, score, tiebreak, brk, _, _ = core_play.run_logged(cx, lineup, 2, seed, index, log, NCAT)
    return log[:n], score, tiebreak, brk


def end_states(ctx, lineup, seed, start, n_games):
    """For the reference-scorer tests: final farm rows farms[g, p, :] and the engine's breakdown brk[g, p, :]."""
    from .endstates import end_states_nb

    cx = engine_ctx(ctx.prm, ctx.prmf, lineup, ctx.mono)
    farms = np.zeros((n_games, 2, engine.P_SIZE), dtype=np.int64)
    brk = np.zeros((n_games, 2, NCAT))
    end_states_nb(
        cx,
        lineup.fns,
        lineup.weights,
        lineup.search,
        lineup.rotate,
        seed,
        start,
        n_games,
        farms,
        brk,
        np.zeros((0, LOGW), dtype=np.int64),
        core_play.search_function(cx, lineup, 2, NCAT),
    )
    return farms, brk


def replay(ctx, lineup, seed, index, n_players=2, explain=False):
    from .replay import format_game

    log, score, tiebreak, brk = events(ctx, lineup, seed, index, n_players)
    return format_game(ctx, lineup, seed, index, log, score, tiebreak, brk, explain=explain)


BOT_DOC = """Decision kinds (sim/acbas/bots.md): 0 action space, 1 enclosure plan (Fences/Walls, repeated; a
zero row = stop), 2 trough space (repeated; -1 = stop), 3 stall space, 4 stables (stall space, pay 0 wood/1 stone;
repeated), 5 special building (code, space, pay), 6 expansion side (1 left, 0 right), 7 Shelter animal type,
8 Open Stables animal (2 cow, 3 horse), 9 keep or release (which maximal set of animals stays when not all fit;
moves[:, 0] packs 16 bits per type, sheep lowest). Features: 0 score change now (after exact housing), \
1-3 wood/stone/reed
change, 4 borders in hand change, 5 capacity change, 6 animals kept change, 7 animals that run away, 8 breeding
pairs change, 9 building points change, 10 goods+animals lying on the space (action choice only), 11 rule \
(kind 9: the set the old fixed order keeps)."""

GAME = GameSpec(
    id="acbas",
    title="Agricola: All Creatures Big and Small",
    min_players=2,
    max_players=2,
    params=PARAMS,
    categories=CATEGORIES,
    length_unit="rounds",
    prepare=prepare,
    **FACE.spec_fields(replay=replay),
    rules="shared/rules/acbas.md",
    default_players=2,
    description="2-player worker placement: animals, pastures, buildings; exact housing solver",
    bot_doc=BOT_DOC,
    draw=draw,
    options=options.OPTIONS,
    chance=False,
)
