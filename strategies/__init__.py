"""Bots, one package per game: ``strategies/<game>/<bot>.py``. See ``sim/CONTRACT.md``."""
