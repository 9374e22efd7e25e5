"""Flat Monte-Carlo search with determinisation (sim.core.search): every candidate is played out from
re-dealt copies of the state (the land deck, the animal stacks and the other hands shuffled again among what
the seat has not seen) by the playout policy; the best mean win share wins."""
SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 4 heuristic playouts per candidate from re-dealt copies (at most 6 candidates)"
WEIGHTS = {"playouts": 4.0, "margin": 0.002, "max_candidates": 6.0, "switch": 0.0}
