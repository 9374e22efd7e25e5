"""Flat Monte-Carlo search with determinisation: each choice played out from re-dealt decks by the heuristic."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 16 heuristic playouts per candidate from re-dealt decks"
WEIGHTS = {"playouts": 16.0, "margin": 0.01}
