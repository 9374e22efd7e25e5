"""Flat Monte-Carlo search with determinisation (sim.core.search): every candidate is played out from
re-dealt copies of the state by the playout policy; the best mean share of the other seats beaten wins.
The playouts grow with the table (grow = 1: 8 per opponent, so 8 / 16 / 32 at 2 / 3 / 5 players). It races (race
= 1.5, from a quarter of the playouts on, at least 4): a candidate clearly behind the leader on the same re-deals gets
no more playouts (docs/bots-and-search.md; `rollout-full` the search without it). At 2 players it makes the full
search's choice in 0.952 of its decisions (the full search on other re-deals: 0.560) at 0.79 of its playouts; against
`heuristic` it wins 0.003 less [-0.015, +0.020] (3,000 paired games)."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = (
    "search: 8 heuristic playouts per candidate and opponent from re-dealt copies (at most 8 candidates), "
    "value = share of the other seats beaten, racing"
)
WEIGHTS = {
    "playouts": 8.0,
    "margin": 0.01,
    "max_candidates": 8.0,
    "switch": 0.0,
    "value": 1.0,
    "grow": 1.0,
    "race": 1.5,
}
