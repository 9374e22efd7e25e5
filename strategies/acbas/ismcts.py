"""Information-set MCTS (sim.core.ismcts) on ACBAS: a game without hidden information or chance, so every iteration
plays the same position and the tree is plain UCT over both seats' decisions (each seat picks by its own value),
playouts by the tuned heuristic. Budget: as many playouts per decision as `rollout` (4 per root candidate, at most
6), value = win share + 0.01 x score lead."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "tuned"
DESCRIPTION = (
    "search: MCTS over both seats' decisions, 4 tuned playouts per root candidate (at most 6), UCB1 c = 0.7, "
    "no widening"
)
WEIGHTS = {**ISMCTS_WEIGHTS, "per_candidate": 4.0, "max_candidates": 6.0, "margin": 0.01, "c": 0.7, "widen": 0.0}
