"""Flat Monte-Carlo search with determinisation (sim.core.search): the heuristic's own pick and the two best other
candidates by immediate value are each played out from re-dealt copies of the state (the draw pile's order and the
token faces this seat has not seen are shuffled again) by the heuristic in every seat; another candidate replaces
the heuristic's pick only when its mean win share (plus a small point-lead term) is better by more than 0.1."""
SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 16 heuristic playouts per candidate from re-dealt copies (3 candidates, switch 0.1)"
WEIGHTS = {"playouts": 16.0, "margin": 0.01, "max_candidates": 3.0, "switch": 0.1, "value": 0.0}
