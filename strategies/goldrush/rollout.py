"""Flat Monte-Carlo search with determinisation (sim.core.search): every candidate is played out from re-dealt
copies of the state (the draw pile's order and the token faces this seat has not seen are shuffled again) by the
playout policy; the best mean win share wins."""
SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 8 heuristic playouts per candidate from re-dealt copies (at most 8 candidates)"
WEIGHTS = {"playouts": 8.0, "margin": 0.002, "max_candidates": 8.0}
