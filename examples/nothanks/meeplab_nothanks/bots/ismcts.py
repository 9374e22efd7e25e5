"""Information-set MCTS (meeplab's kernel, sim/core/ismcts.py): one tree over every seat's take/pass decisions, a
new re-deal of the undrawn deck per iteration, playouts by the heuristic."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "heuristic"
DESCRIPTION = "search: information-set MCTS, 256 iterations, heuristic playouts, UCB1 c = 0.7"
WEIGHTS = {**ISMCTS_WEIGHTS, "margin": 0.01}
