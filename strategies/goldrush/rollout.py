"""Flat Monte-Carlo search with determinisation (sim.core.search) on Gold Rush's tile placements: the heuristic's own
pick and the two best other placements by immediate value are each played out 32 times from re-dealt copies of the
state (the draw pile's order and the token faces this seat has not seen are shuffled again) by the heuristic in
every seat; another placement replaces the heuristic's pick only when its mean win share (plus a small point-lead
term) is better by more than 0.1. The follower action after the placement is the heuristic's: searched too, it
made no gain (sim/goldrush/README.md)."""
SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: tile placements (kind 0), 32 heuristic playouts per candidate from re-dealt copies (3 candidates, switch 0.1)"
# kinds: bit k = decision kind k searched (1 = KIND_PLACE only; KIND_ACTION, bit 1, is left to the heuristic)
WEIGHTS = {"playouts": 32.0, "margin": 0.01, "max_candidates": 3.0, "switch": 0.1, "value": 0.0, "kinds": 1.0}
