"""Information-set MCTS (sim.core.ismcts) on Gold Rush's tile placements: one tree over this seat's placements and the
opponents' (each opponent picks by its own value), the draw pile and the unseen token faces re-dealt per iteration,
UCB1 with availability counts, playouts by the tuned heuristic. Budget: as many playouts per decision as `rollout`
(32 per root candidate, the policy's pick and the two best others by immediate value); the follower action after a
placement is left to the policy, as in `rollout`. As `rollout`, it keeps the policy's placement unless another one's
mean value is better by more than 0.1 (`switch`): against `rollout` at 2 players, 0.397 of 300 games without it, 0.450
[0.411, 0.490] of 600 with it (docs/bots-and-search.md)."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "tuned"
DESCRIPTION = (
    "search: information-set MCTS on tile placements (kind 0), 32 tuned playouts per root candidate "
    "(3 candidates), UCB1 c = 0.7, no widening, switch 0.1"
)
# kinds: bit k = decision kind k searched (1 = KIND_PLACE only; KIND_ACTION, bit 1, is left to the policy)
WEIGHTS = {
    **ISMCTS_WEIGHTS,
    "per_candidate": 32.0,
    "max_candidates": 3.0,
    "margin": 0.01,
    "kinds": 1.0,
    "c": 0.7,
    "widen": 0.0,
    "switch": 0.1,
}
