"""Information-set MCTS (sim.core.ismcts): one tree over this seat's decisions and the opponents' (each opponent picks
by its own value), a new re-deal of the face-down tiles and the bag per iteration, UCB1 with availability counts,
playouts by the tuned heuristic. Budget: as many playouts per decision as `rollout` (8 per searched candidate and
opponent, at most 8 candidates at the root), value = share of the other seats beaten + 0.01 x score lead."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "tuned"
DESCRIPTION = (
    "search: information-set MCTS, 8 tuned playouts per root candidate and opponent (at most 8 candidates), "
    "UCB1 c = 0.7, no widening, value = share of the other seats beaten"
)
WEIGHTS = {
    **ISMCTS_WEIGHTS,
    "per_candidate": 8.0,
    "max_candidates": 8.0,
    "grow": 1.0,
    "margin": 0.01,
    "value": 1.0,
    "c": 0.7,
    "widen": 0.0,
}
