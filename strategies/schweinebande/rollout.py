"""Flat Monte-Carlo search with determinisation (sim.core.search): every candidate is played out from
re-dealt copies of the state by the playout policy; the best mean share of the other seats beaten wins.
The playouts grow with the table (grow = 1: 8 per opponent, so 8 / 16 / 32 at 2 / 3 / 5 players)."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = (
    "search: 8 heuristic playouts per candidate and opponent from re-dealt copies (at most 8 candidates), "
    "value = share of the other seats beaten"
)
WEIGHTS = {"playouts": 8.0, "margin": 0.01, "max_candidates": 8.0, "switch": 0.0, "value": 1.0, "grow": 1.0}
