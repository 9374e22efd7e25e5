"""Shared, game-agnostic machinery: RNG, parameters, bots, batch runner, results."""
