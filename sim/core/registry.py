"""Game discovery: every package ``sim/<id>/`` exposing ``GAME`` is a built-in game, and every entry point of the
group ``meeplab.games`` (``<id> = "package.module:GAME"``, in an installed distribution's metadata) is a plugin game.
The core names none.

A plugin that fails to load (an import error, no ``GameSpec``, an id that is taken) is one line in
:data:`meeplab.sim.core.bots.PLUGIN_PROBLEMS` (``meeplab games`` prints them) and is left out; every other game
works as before. ``get_game(id)`` imports only the game asked for.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib import metadata

from meeplab import sim

from .bots import entry_point_origin, plugin_problem, set_game_lookup
from .errors import MeeplabError
from .game import GameSpec

GROUP = "meeplab.games"  # the entry-point group of plugin games

_GAMES: dict[str, GameSpec] | None = None
_ORIGINS: dict[str, str] = {}  # game id -> "built-in" or "plugin <distribution> <version>"
_LOADED: dict[str, GameSpec] = {}  # the games get_game has loaded, by the id asked for


def builtin_ids() -> list[str]:
    """Game folders under sim/ (without importing them)."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules(sim.__path__)
        if info.ispkg and info.name != "core" and not info.name.startswith("_")
    )


def _entry_points() -> dict:
    """The plugin games' entry points by id (the first of a name wins; a built-in id is never replaced)."""
    out = {}
    builtin = set(builtin_ids())
    for ep in metadata.entry_points(group=GROUP):
        if ep.name in builtin:
            plugin_problem(f"{entry_point_origin(ep)}: game '{ep.name}' is a built-in game's id: left out")
        elif ep.name not in out:
            out[ep.name] = ep
    return out


def game_ids() -> list[str]:
    """Every game's id: the built-in folders and the plugins' entry points (without importing them)."""
    return sorted({*builtin_ids(), *_entry_points()})


def origin(game_id: str) -> str:
    """Where game ``game_id`` comes from: ``built-in`` or ``plugin <distribution> <version>``."""
    if game_id not in _ORIGINS:
        get_game(game_id)
    return _ORIGINS[game_id]


def _load_builtin(game_id: str) -> GameSpec:
    spec = getattr(importlib.import_module(f"meeplab.sim.{game_id}"), "GAME", None)
    if not isinstance(spec, GameSpec):
        raise MeeplabError(f"sim/{game_id} does not define GAME")
    _ORIGINS[spec.id] = "built-in"
    return spec


def _load_plugin(ep) -> GameSpec:
    """The GameSpec behind entry point ``ep``; a broken one raises MeeplabError with the one line that says why."""
    where = entry_point_origin(ep)
    try:
        spec = ep.load()
    except Exception as e:  # whatever the plugin's import raises: one line, never a traceback
        raise MeeplabError(f"{where}: game {ep.name} = {ep.value}: {type(e).__name__}: {e}") from None
    if not isinstance(spec, GameSpec):
        raise MeeplabError(f"{where}: game {ep.name} = {ep.value} is a {type(spec).__name__}, not a GameSpec")
    if spec.id != ep.name:
        raise MeeplabError(f"{where}: entry point '{ep.name}' names a game whose id is '{spec.id}'")
    _ORIGINS[spec.id] = where
    return spec


def games() -> dict[str, GameSpec]:
    """Every game that loads, built-in first, then plugins, by id."""
    global _GAMES
    if _GAMES is None:
        found: dict[str, GameSpec] = {}
        for gid in builtin_ids():
            spec = getattr(importlib.import_module(f"meeplab.sim.{gid}"), "GAME", None)
            if isinstance(spec, GameSpec):
                found[spec.id] = spec
                _ORIGINS[spec.id] = "built-in"
        for ep in _entry_points().values():
            try:
                found[ep.name] = _load_plugin(ep)
            except MeeplabError as e:  # a broken plugin must not break the other games
                plugin_problem(str(e))
        _GAMES = found
    return _GAMES


def get_game(game_id: str) -> GameSpec:
    """Import only the requested game (a broken game folder or plugin does not break the others)."""
    if _GAMES is not None and game_id in _GAMES:
        return _GAMES[game_id]
    spec = _LOADED.get(game_id)
    if spec is not None:  # asked again (the play server, a saved game, a lineup): no new look at sim/ or plugins
        return spec
    if game_id in builtin_ids():
        spec = _load_builtin(game_id)
    else:
        ep = _entry_points().get(game_id)
        if ep is None:
            raise MeeplabError(f"unknown game '{game_id}'; available: {', '.join(game_ids())}")
        spec = _load_plugin(ep)
    _LOADED[game_id] = spec
    return spec


def check_players(game: GameSpec, n_players: int) -> None:
    if not game.min_players <= n_players <= game.max_players:
        if game.min_players == game.max_players:
            allowed = f"exactly {game.min_players}"
        else:
            allowed = f"{game.min_players} to {game.max_players}"
        raise MeeplabError(f"{game.id} is played by {allowed} players, not {n_players}")


set_game_lookup(get_game)  # the bot layer makes a game it is asked about through this registry

# The kernel's second search algorithm registers itself (with the loop and as SEARCH = "ismcts") when imported: a
# plugin's bot module may then name it without importing it first.
from . import ismcts as _ismcts  # noqa: E402, F401
