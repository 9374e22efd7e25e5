"""The forward model, one step at a time, from Python: the core's compiled entry points (``sim.core.face``: reset,
advance, apply, determinise, result, cached and keyed by each game's sources) and :func:`decide`, a bot's decision
on a state exactly as the shared loop asks it, so the play server drives any game through its face without naming
one.
"""

from __future__ import annotations

from meeplab.sim.core.face import advance, apply, determinise, new_state, reset, result
from meeplab.sim.core.play import decide

__all__ = ["advance", "apply", "decide", "determinise", "new_state", "reset", "result"]
