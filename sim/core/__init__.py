"""The kernel: what a game and a bot need and what numba compiles: RNG, parameters, the game's face and forward
model, the shared play loop, search and ismcts, trajectories, bot loading, game discovery, the numba cache. It imports
nothing of the lab (``meeplab.lab``), which runs it."""
