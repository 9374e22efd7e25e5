"""Flat Monte-Carlo search with determinisation (sim.core.search) on Hacienda's placement decisions: where a played
card goes, which group gets a hacienda, where a water tile goes, which chain is harvested. Each candidate (the
heuristic's own pick and the best 3 others by immediate value) is played out 8 times from re-dealt copies of the
state (the land deck, the animal stacks and the other hands shuffled again among what the seat has not seen) by the
heuristic in every seat; the best mean win share wins. The action choice (what to buy or play next) is left to
the heuristic: searched, it made the bot weaker than its policy (sim/hacienda/bots.md). It races (race = 1.5, from the
4th playout on): a candidate clearly behind the leader on the same re-deals gets no more playouts; it makes the full
search's choice in 0.962 of its decisions (the full search on other re-deals: 0.493) at 0.78 of its playouts, and
against `heuristic` wins 0.036 more [-0.002, +0.074] (600 paired games; docs/bots-and-search.md, `rollout-full` the
search without it)."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = (
    "search: placements (kinds 1-5), 8 heuristic playouts per candidate from re-dealt copies (4 candidates), racing"
)
# kinds: bit k = decision kind k searched (K_LAND 1, K_ANIMAL 2, K_HACIENDA 3, K_WATER 4, K_HARVEST 5; not K_ACTION 0)
WEIGHTS = {"playouts": 8.0, "margin": 0.002, "max_candidates": 4.0, "switch": 0.0, "kinds": 62.0, "race": 1.5}
