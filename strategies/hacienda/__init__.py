"""Hacienda bots.

``learned`` is the default lineup (what every command plays where ``--bots`` is left out): it is stronger than
``tuned`` at every player count and, at 2 players, than ``ismcts`` at its default budget (issue 56, point 3;
docs/bots-and-search.md, "Tuned for one player count")."""

DEFAULT_LINEUP = "learned"
