"""Information-set MCTS (sim.core.ismcts): one tree over this seat's bids and the others', a new re-deal of the prize
deck and the face-down bids per iteration, playouts by the heuristic."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "heuristic"
DESCRIPTION = "search: information-set MCTS, 256 iterations, heuristic playouts, UCB1 c = 0.7"
WEIGHTS = {**ISMCTS_WEIGHTS, "margin": 0.01}
