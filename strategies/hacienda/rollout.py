"""Flat Monte-Carlo search with determinisation (sim.core.search) on Hacienda's placement decisions: where a played
card goes, which group gets a hacienda, where a water tile goes, which chain is harvested. Each candidate (the
heuristic's own pick and the best 3 others by immediate value) is played out 8 times from re-dealt copies of the
state (the land deck, the animal stacks and the other hands shuffled again among what the seat has not seen) by the
heuristic in every seat; the best mean win share wins. The action choice (what to buy or play next) is left to
the heuristic: searched, it made the bot weaker than its policy (sim/hacienda/bots.md)."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: placements (kinds 1-5), 8 heuristic playouts per candidate from re-dealt copies (4 candidates)"
# kinds: bit k = decision kind k searched (K_LAND 1, K_ANIMAL 2, K_HACIENDA 3, K_WATER 4, K_HARVEST 5; not K_ACTION 0)
WEIGHTS = {"playouts": 8.0, "margin": 0.002, "max_candidates": 4.0, "switch": 0.0, "kinds": 62.0}
