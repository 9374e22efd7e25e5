"""Bots, one package per game: ``strategies/<game>/<bot>.py``. See ``docs/adding-a-game.md``."""

import meeplab.sim  # noqa: F401  (installs the numba cache keying before any bot compiles)
