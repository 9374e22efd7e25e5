"""Every way to extend meeplab, in one place (as Datasette's ``hookspecs.py`` lists its hooks).

Each extension point is one name below, with the one call or declaration it needs and where it is documented; the
names are re-exported from the modules that own them, so ``from meeplab.sim.core.extending import ...`` reaches all
of them. docs/adding-a-game.md walks through them for a new game.

**Games**

* A built-in game is a folder ``sim/<id>/`` whose ``__init__`` exposes ``GAME = GameSpec(...)``; a plugin game is a
  package with the entry point ``[project.entry-points."meeplab.games"] <id> = "pkg:GAME"`` (:data:`GAMES_GROUP`,
  found by ``registry``).
* :class:`GameSpec`: the game's face (parameters, categories, play, replay, player range, ...); a game on the
  forward model hands its :class:`Face` to it.
* :class:`Hidden`: a state field holding what a seat has not seen; :class:`Secret`: decisions made face down.
* :func:`register_forward_model`: binds the engine's ``new``/``reset``/``advance``/``apply``/``determinise``/
  ``result`` (and optional ``redraw``) to the shared loop for its state and context classes (``forward.register``).
* :func:`register_options`: the option classes of restricted play (``meeplab options``) for those classes.
* ``GameSpec.draw``: the drawing module (the board as SVG per seat; the contract is in ``sim/core/draw.py``).

**Bots**

* A bot is a module with ``choose(...)`` compiled by :func:`bot_jit` (or ``njit`` with :data:`BOT_SIG`), in
  ``strategies/<game>/`` or a plugin package with the entry point ``[project.entry-points."meeplab.bots"]
  <game> = "pkg.bots"`` (a package of bot modules) or ``<game>.<bot> = "pkg.module"`` (read by
  ``bots.available``).
* A tuned variant is TOML, no code: ``[bots.NAME] base = "heuristic"`` with ``[bots.NAME.weights]``, beside the bots
  or given with ``--bot-config FILE`` (checked by ``schema.BotConfigFile``).
* A search bot names its algorithm with ``SEARCH = "rollout"`` or ``"ismcts"`` in its module.

**Searches**

* :func:`register_search_bot`: a search algorithm's name for ``SEARCH``, its weights and defaults, its engine search
  row and what ``tune`` may search.
* :func:`register_search`: the compiled step of a search algorithm (its ``forward.Algo``) for the shared loop.
"""

from __future__ import annotations

from .bots import BOT_SIG, bot_jit, register_search_bot
from .face import Face
from .forward import register as register_forward_model
from .forward import register_options
from .game import GameSpec, Hidden, Secret
from .play import register_search
from .registry import GROUP as GAMES_GROUP

__all__ = [
    "BOT_SIG",
    "GAMES_GROUP",
    "Face",
    "GameSpec",
    "Hidden",
    "Secret",
    "bot_jit",
    "register_forward_model",
    "register_options",
    "register_search",
    "register_search_bot",
]
