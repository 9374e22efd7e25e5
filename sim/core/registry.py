"""Game discovery: every package ``sim/<id>/`` exposing ``GAME`` is a game; the core names none."""

from __future__ import annotations

import importlib
import pkgutil

from meeplab import sim

from .errors import MeeplabError
from .game import GameSpec

_GAMES: dict[str, GameSpec] | None = None


def games() -> dict[str, GameSpec]:
    global _GAMES
    if _GAMES is None:
        found: dict[str, GameSpec] = {}
        for info in sorted(pkgutil.iter_modules(sim.__path__), key=lambda i: i.name):
            if not info.ispkg or info.name == "core" or info.name.startswith("_"):
                continue
            module = importlib.import_module(f"meeplab.sim.{info.name}")
            spec = getattr(module, "GAME", None)
            if isinstance(spec, GameSpec):
                found[spec.id] = spec
        _GAMES = found
    return _GAMES


def game_ids() -> list[str]:
    """Game folders under sim/ (without importing them)."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules(sim.__path__)
        if info.ispkg and info.name != "core" and not info.name.startswith("_")
    )


def get_game(game_id: str) -> GameSpec:
    """Import only the requested game (a broken game folder does not break the others)."""
    if _GAMES is not None and game_id in _GAMES:
        return _GAMES[game_id]
    if game_id not in game_ids():
        raise MeeplabError(f"unknown game '{game_id}'; available: {', '.join(game_ids())}")
    spec = getattr(importlib.import_module(f"meeplab.sim.{game_id}"), "GAME", None)
    if not isinstance(spec, GameSpec):
        raise MeeplabError(f"sim/{game_id} does not define GAME")
    return spec


def check_players(game: GameSpec, n_players: int) -> None:
    if not game.min_players <= n_players <= game.max_players:
        if game.min_players == game.max_players:
            allowed = f"exactly {game.min_players}"
        else:
            allowed = f"{game.min_players} to {game.max_players}"
        raise MeeplabError(f"{game.id} is played by {allowed} players, not {n_players}")
