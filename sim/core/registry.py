"""Game discovery: every package ``sim/<id>/`` exposing ``GAME`` is a game; the core names none."""
from __future__ import annotations

import importlib
import pkgutil

import sim

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
            module = importlib.import_module(f"sim.{info.name}")
            spec = getattr(module, "GAME", None)
            if isinstance(spec, GameSpec):
                found[spec.id] = spec
        _GAMES = found
    return _GAMES


def get_game(game_id: str) -> GameSpec:
    g = games()
    if game_id not in g:
        raise MeeplabError(f"unknown game '{game_id}'; available: {', '.join(sorted(g))}")
    return g[game_id]


def check_players(game: GameSpec, n_players: int) -> None:
    if not game.min_players <= n_players <= game.max_players:
        if game.min_players == game.max_players:
            allowed = f"exactly {game.min_players}"
        else:
            allowed = f"{game.min_players} to {game.max_players}"
        raise MeeplabError(
            f"{game.id} is played by {allowed} players, not {n_players}"
        )
