"""What ``meeplab quality`` plays, through any game's face (``GameSpec``): win-probability trajectories of a run's
games (``sim.core.trajectories``) and the three players of Dreef et al.'s relative skill (beginner, skilled and
the clairvoyant fictive player: the skilled search bot searching from the true state, ``S_TRUE``), each against the
same field on common random numbers.

Raw numbers only (numpy arrays); ``meeplab.analysis.quality`` turns them into the metrics and files.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import ALGO_NONE, S_ALGO, S_TRUE
from meeplab.sim.core.game import GameSpec
from meeplab.sim.core.restrict import is_restricted


def engine_context(game: GameSpec, ctx: Any, lineup) -> Any:
    """The engine context the forward model runs on for ``lineup`` (``GameSpec.forward_context``, else ``ctx.cx``)."""
    if not game.forward_model:
        raise MeeplabError(f"{game.id} does not run on the forward model: quality needs playouts from a game state")
    if game.forward_context is not None:
        return game.forward_context(ctx, lineup)
    cx = getattr(ctx, "cx", None)
    if cx is None:
        raise MeeplabError(f"{game.id}: its GameSpec names no forward_context and its context has no 'cx'")
    return cx


def evaluator_lineup(game: GameSpec, name: str, n_players: int, bot_configs=()):
    """The lineup that plays the trajectories' playouts for ``--evaluator NAME``: that plain bot in every seat, or a
    one-line refusal (an unknown bot, or a search bot: a search inside every playout would take hours)."""
    known = available(game.id, bot_configs)
    if name not in known:
        raise MeeplabError(f"--evaluator: unknown bot '{name}' for {game.id}; available: {', '.join(sorted(known))}")
    if known[name].search:
        raise MeeplabError(
            f"--evaluator {name} is a search bot: the playouts need a plain bot (learned, tuned, heuristic, ...)"
        )
    return make_lineup(game.id, [name], n_players, True, bot_configs)


def check_trajectory_budget(games: int, playouts: int, points: int) -> None:
    """Refuse a trajectory budget that cannot give the metrics (one clear line)."""
    if playouts < 2:
        raise MeeplabError(f"--playouts must be at least 2 (a standard error needs two), got {playouts}")
    if points < 2:
        raise MeeplabError(f"--points must be at least 2, got {points}")
    if games < 1:
        raise MeeplabError(f"--trajectory-games must be positive, got {games}")


#: the arrays of :func:`sim.core.trajectories.trajectories` with a row per game (parts of games are concatenated)
TRAJECTORY_KEYS = (
    "steps", "rounds", "prob", "se", "dec", "forced", "hist", "king", "king_seat", "king_kind", "king_fav",
    "king_lead", "nplay", "length", "prob_half", "se_half", "nhalf", "king_conf", "king_sn", "king_sw", "king_cn",
    "king_cm", "king_cse",
)  # fmt: skip
PROGRESS_PARTS = 10  # with a progress bar, a stage plays in about this many parts of consecutive games


def progress_parts(games: int) -> list[tuple[int, int]]:
    """``(start, count)`` parts of games ``0 .. games-1`` for a stage shown with a progress bar: about
    :data:`PROGRESS_PARTS`, none smaller than four games per numba thread (so that the threads keep busy)."""
    import numba

    size = max(4 * numba.get_num_threads(), -(-games // PROGRESS_PARTS))
    return [(s, min(size, games - s)) for s in range(0, games, size)]


def play_trajectories(
    game: GameSpec, ctx: Any, bots: list[str], n_players: int, seed: int, games: int, playouts: int, points: int,
    rotate: bool = True, bot_configs=(), km_below: float = 0.02, km_cand: int = 6, km_lead: float = 0.1,
    evaluator: str | None = None, se_target: float = 0.0, max_playouts: int = 0, tick=None,
) -> dict[str, Any]:  # fmt: skip
    """Trajectories of games ``0 .. games-1`` of the run (``bots`` at ``n_players`` seats, seed ``seed``; playouts by
    ``evaluator`` in every seat, None: the run's own plain bots; ``playouts`` at each point, more up to
    ``max_playouts`` until every seat's standard error is at most ``se_target``): the arrays of
    :func:`sim.core.trajectories.trajectories` plus ``seconds`` and ``playouts_per_second``. ``tick``: called with the
    number of games done after each part (:func:`progress_parts`; the same numbers as one call: game ``g`` depends
    on ``(seed, g)`` alone), None: all games in one call."""
    check_trajectory_budget(games, playouts, points)
    trajectory_part(game, ctx, bots, n_players, seed, [0], 2, 2, rotate, bot_configs, evaluator=evaluator)  # compile
    t0, c0 = time.perf_counter(), time.process_time()
    split = [(0, games)] if tick is None else progress_parts(games)
    got = []
    for start, n in split:
        got.append(trajectory_part(
            game, ctx, bots, n_players, seed, np.arange(start, start + n), playouts, points, rotate, bot_configs,
            km_below, km_cand, km_lead, evaluator, se_target, max_playouts,
        ))  # fmt: skip
        if tick is not None:
            tick(n)
    out = got[0] if len(got) == 1 else {**got[0], **{k: np.concatenate([g[k] for g in got]) for k in TRAJECTORY_KEYS}}
    return trajectory_timing(out, time.perf_counter() - t0, time.process_time() - c0, playouts, points, km_cand)


def trajectory_part(
    game: GameSpec, ctx: Any, bots: list[str], n_players: int, seed: int, games, playouts: int, points: int,
    rotate: bool = True, bot_configs=(), km_below: float = 0.02, km_cand: int = 6, km_lead: float = 0.1,
    evaluator: str | None = None, se_target: float = 0.0, max_playouts: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """The trajectories of the run's games with the indices ``games`` (any subset, any order: game ``g`` depends on
    ``(seed, g)`` alone), as :func:`sim.core.trajectories.trajectories` returns them, plus ``exact_redraw`` (whether
    the game registered its own ``redraw``; else the playouts re-deal for the seat to move: ``forward.exact_redraw``).
    """
    from meeplab.sim.core.forward import exact_redraw
    from meeplab.sim.core.trajectories import trajectories

    lineup = make_lineup(game.id, bots, n_players, rotate, bot_configs)
    if any(is_restricted(lineup.search[e]) for e in range(n_players)):
        raise MeeplabError("quality plays unrestricted bots only")
    ev = None if evaluator is None else evaluator_lineup(game, evaluator, n_players, bot_configs)
    cx = engine_context(game, ctx, lineup)
    ncat = max(1, len(game.categories))
    out = trajectories(
        cx,
        lineup,
        n_players,
        ncat,
        seed,
        games,
        playouts,
        points,
        km_below,
        km_cand,
        km_lead,
        evaluator=ev,
        se_target=se_target,
        max_playouts=max_playouts,
    )
    out["exact_redraw"] = exact_redraw(cx)
    return out


def trajectory_timing(out: dict, seconds: float, cpu_seconds: float, playouts: int, points: int, km_cand: int):
    """Add ``seconds``, ``cpu_seconds`` (all threads: on a quiet machine wall = this / threads), the playouts played
    and ``playouts_per_second`` to trajectories ``out``; returns it."""
    out["seconds"] = seconds
    out["cpu_seconds"] = cpu_seconds
    n_po = int(out["nplay"].sum()) if "nplay" in out else int((out["steps"][:, :points] >= 0).sum()) * playouts
    n_po += int((out["king"] >= 0).sum()) * playouts * km_cand
    if "king_cn" in out:  # the confirmations: their candidates' playouts past the probe's, the points' past theirs
        flagged = out["king_conf"] >= 0
        n_po += int(np.maximum(out["king_cn"] - playouts, 0).sum())
        n_po += int((out["king_sn"] - out["nplay"])[flagged].sum())
    out["playouts"] = n_po
    out["playouts_per_second"] = n_po / max(seconds, 1e-9)
    return out


SKILL_ROLES = ("beginner", "skilled", "fictive")


def strongest_bot(game_id: str, bot_configs=()) -> str:
    """The skilled player by default: the shipped search bot ``rollout`` if the game has one, else ``heuristic``."""
    bots = available(game_id, bot_configs)
    for name in ("rollout", "heuristic", "greedy"):
        if name in bots:
            return name
    return sorted(bots)[0]


def play_skill(
    game: GameSpec, ctx: Any, n_players: int, seed: int, games: int, beginner: str, skilled: str, field: str,
    bot_configs=(), tick=None,
) -> dict[str, Any]:  # fmt: skip
    """Dreef et al.'s three players, each in one seat against ``n_players - 1`` seats of ``field``, rotated over the
    seats game by game, on the same games ``0 .. games-1`` (common random numbers: game ``g`` is dealt from
    ``(seed, g)`` for all three). The fictive player is ``skilled`` itself, searching from the true state (its
    search row's ``S_TRUE``, for rollout and ismcts alike; ``skilled`` must be a search bot). Returns per role the
    tested seat's win share per game (``wins[role]``: float[games]) and its seconds. ``tick``: called with the number
    of games done after each part of a role (:func:`progress_parts`; the same numbers), None: each role at once."""
    if games < 2:
        raise MeeplabError(f"--skill-games must be at least 2, got {games}")
    out: dict[str, Any] = {"wins": {}, "seconds": {}, "cpu_seconds": {}, "bots": {}}
    split = [(0, games)] if tick is None else progress_parts(games)
    for role, name in zip(SKILL_ROLES, (beginner, skilled, skilled)):
        t0, c0 = time.perf_counter(), time.process_time()
        wins = []
        for start, n in split:
            wins.append(skill_wins(game, ctx, n_players, seed, start, n, role, name, field, bot_configs))
            if tick is not None:
                tick(n)
        out["wins"][role] = np.concatenate(wins)
        out["seconds"][role] = time.perf_counter() - t0  # compile or cache load included
        out["cpu_seconds"][role] = time.process_time() - c0
        out["bots"][role] = name
    out["field"] = field
    return out


def skill_lineup(game_id: str, n_players: int, role: str, name: str, field: str, bot_configs=()):
    """The lineup of one relative-skill player: ``name`` in entry 0, ``field`` in the others, rotated; the fictive
    player is ``name`` searching from the true state (``S_TRUE`` on entry 0), so ``name`` must be a search bot."""
    lineup = make_lineup(game_id, [name] + [field] * (n_players - 1), n_players, True, bot_configs)
    if role == "fictive":
        if lineup.search[0, S_ALGO] == ALGO_NONE:
            raise MeeplabError(
                f"the skilled player '{name}' is no search bot: the fictive (clairvoyant) player is a search bot "
                "playing out the true state (e.g. --skilled rollout)"
            )
        lineup.search[0, S_TRUE] = 1.0  # a lineup is made afresh for each call: nothing else sees the flag
    return lineup


def skill_wins(
    game: GameSpec, ctx: Any, n_players: int, seed: int, start: int, games: int, role: str, name: str, field: str,
    bot_configs=(),
) -> np.ndarray:  # fmt: skip
    """One role of :func:`play_skill` on games ``start .. start+games-1``: the tested seat's win share per game, in the
    game's score direction (any split of the games gives the same numbers: game ``g`` depends on ``(seed, g)``
    alone)."""
    lineup = skill_lineup(game.id, n_players, role, name, field, bot_configs)
    batch = game.play(ctx, lineup, seed, start, games, n_players)
    _, win = game.rank_and_win(batch.score, batch.tiebreak)  # in the game's direction (lowest score wins: No Thanks!)
    seats = (-np.arange(start, start + games)) % n_players  # entry 0 sits here in game g (entry = (seat + g) % P)
    return win[np.arange(games), seats]
