"""Flat Monte-Carlo search with determinisation (sim.core.search) on Gold Rush's tile placements: the playout policy's
own pick and the two best other placements by immediate value are each played out 32 times from re-dealt copies of
the state (the draw pile's order and the token faces this seat has not seen are shuffled again) by the policy in
every seat; another placement replaces the policy's pick only when its mean win share (plus a small point-lead
term) is better by more than 0.1. The policy is `tuned` (the heuristic with machine-tuned weights, tuned.toml; it
also takes the follower action after the placement, which searched made no gain: sim/goldrush/README.md); with
`heuristic` playouts (the variant `rollout-heuristic`) the search was weaker at 4 players. It races (race = 1.5, from
the 8th playout on): a placement clearly behind the leader on the same re-deals gets no more playouts; it makes the
full search's choice in 0.958 of its decisions (the full search on other re-deals: 0.474) at 0.53 of its playouts,
and against `heuristic` wins 0.034 more [-0.017, +0.085] (400 paired games; docs/bots-and-search.md, `rollout-full`
the search without it)."""

SEARCH = "rollout"
POLICY = "tuned"
DESCRIPTION = (
    "search: tile placements (kind 0), 32 playouts per candidate by the tuned heuristic from re-dealt copies "
    "(3 candidates, switch 0.1), racing"
)
# kinds: bit k = decision kind k searched (1 = KIND_PLACE only; KIND_ACTION, bit 1, is left to the policy)
WEIGHTS = {
    "playouts": 32.0,
    "margin": 0.01,
    "max_candidates": 3.0,
    "switch": 0.1,
    "value": 0.0,
    "kinds": 1.0,
    "race": 1.5,
}
