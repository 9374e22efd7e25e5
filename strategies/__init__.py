"""Bots, one package per game: ``strategies/<game>/<bot>.py``. See ``sim/CONTRACT.md``."""

import sim  # noqa: E402,F401  (installs the numba cache keying before any bot compiles)
