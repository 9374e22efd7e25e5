"""meeplab simulators: one folder per game plus the shared core (``sim.core``).

Each game folder exposes ``GAME``, a :class:`sim.core.game.GameSpec`; the batch runner,
results schema and reports only ever talk to that object.
"""
import warnings

try:  # first-class function types (our bot plug-in mechanism) are flagged experimental by numba
    from numba.core.errors import NumbaExperimentalFeatureWarning

    warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
except Exception:  # pragma: no cover - older numba
    pass

__version__ = "0.1.0"
