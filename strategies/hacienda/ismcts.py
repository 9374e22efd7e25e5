"""Information-set MCTS (sim.core.ismcts) on Hacienda's placement decisions (where a card, hacienda or water tile
goes, which chain is harvested): one tree over this seat's placements and the opponents' (each opponent picks by its
own value), the land deck, the animal stacks and the other hands re-dealt per iteration, UCB1 with availability
counts, playouts by the tuned heuristic. Budget: as many playouts per decision as `rollout` (8 per root candidate, at
most 4). The action choice is left to the policy, as in `rollout`."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "tuned"
DESCRIPTION = (
    "search: information-set MCTS on placements (kinds 1-5), 8 tuned playouts per root candidate (at most 4), "
    "UCB1 c = 0.7, no widening"
)
# kinds: bit k = decision kind k searched (K_LAND 1, K_ANIMAL 2, K_HACIENDA 3, K_WATER 4, K_HARVEST 5; not K_ACTION 0)
WEIGHTS = {
    **ISMCTS_WEIGHTS,
    "per_candidate": 8.0,
    "max_candidates": 4.0,
    "margin": 0.002,
    "kinds": 62.0,
    "c": 0.7,
    "widen": 0.0,
}
