"""Flat Monte-Carlo search (sim.core.search): every candidate is played out to the end of the game by the playout
policy for both seats; the best mean win share (plus a small weight on the score lead) wins. ACBAS has no hidden
information and no chance, so determinise is the identity: the playouts of a candidate differ only by the
policy's own random tie-breaks. It does not race (race = 0): at its 4 playouts per candidate a race would start
after the second, and from there it won 0.376 against `learned` where the full search won 0.393 (paired difference
-0.017 [-0.045, +0.010], 1,500 games; docs/bots-and-search.md)."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 4 heuristic playouts per candidate (at most 6 candidates), win share + 0.01 x score lead"
WEIGHTS = {"playouts": 4.0, "margin": 0.01, "max_candidates": 6.0}
