"""Agricola: All Creatures Big and Small (Uwe Rosenberg, Lookout 2012), exactly 2 players."""
import numpy as np

from sim.core.game import Batch, GameSpec

from . import engine
from .params import PARAMS, pack
from .scoring import CATEGORIES


class Context:
    """Packed parameter arrays for the engine."""

    def __init__(self, values):
        self.values = values
        self.prm, self.prmf = pack(values)


def prepare(values):
    return Context(values)


def play(ctx, lineup, seed, start, n_games, n_players):
    score = np.zeros((n_games, 2))
    tiebreak = np.zeros((n_games, 2))
    brk = np.zeros((n_games, 2, len(CATEGORIES)))
    length = np.zeros(n_games, dtype=np.int64)
    engine.play_batch(ctx.prm, ctx.prmf, lineup.fns, lineup.weights, lineup.rotate, seed, start, n_games,
                      score, tiebreak, brk, length, lineup.reads)
    return Batch(score=score, tiebreak=tiebreak, breakdown=brk, length=length)


def events(ctx, lineup, seed, index, n_players=2):
    """The event log of one game (the batch's own code path with logging on) and its results."""
    log = np.zeros((8192, engine.LOGW), dtype=np.int64)
    n, score, tiebreak, brk = engine.play_logged(ctx.prm, ctx.prmf, lineup.fns, lineup.weights, lineup.rotate,
                                                 index, seed, log, lineup.reads)
    return log[:n], score, tiebreak, brk


def replay(ctx, lineup, seed, index, n_players=2):
    from .replay import format_game

    log, score, tiebreak, brk = events(ctx, lineup, seed, index, n_players)
    return format_game(ctx, lineup, seed, index, log, score, tiebreak, brk)


BOT_DOC = """Decision kinds (sim/acbas/bots.md): 0 action space, 1 enclosure plan (Fences/Walls, repeated; a
zero row = stop), 2 trough space (repeated; -1 = stop), 3 stall space, 4 stables (stall space, pay 0 wood/1 stone;
repeated), 5 special building (code, space, pay), 6 expansion side (1 left, 0 right), 7 Shelter animal type,
8 Open Stables animal (2 cow, 3 horse). Features: 0 score change now (after exact housing), 1-3 wood/stone/reed
change, 4 borders in hand change, 5 capacity change, 6 animals kept change, 7 animals that run away, 8 breeding
pairs change, 9 building points change, 10 goods+animals lying on the space (action choice only)."""

GAME = GameSpec(
    id="acbas",
    title="Agricola: All Creatures Big and Small",
    min_players=2,
    max_players=2,
    params=PARAMS,
    categories=CATEGORIES,
    length_unit="rounds",
    prepare=prepare,
    play=play,
    replay=replay,
    rules="shared/rules/acbas.md",
    default_players=2,
    description="2-player worker placement: animals, pastures, buildings; exact housing solver",
    bot_doc=BOT_DOC,
)
