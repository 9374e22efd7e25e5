"""Flat Monte-Carlo search with determinisation: each card played out by the heuristic from re-dealt prize decks and
re-dealt face-down bids of the seats that bid before."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 16 heuristic playouts per card from re-dealt prizes and face-down bids"
WEIGHTS = {"playouts": 16.0, "margin": 0.01}
