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

# numba's cache keyed to the sources each module reaches (sim/core/numba_cache.py): set before any engine loads
from .core import numba_cache as _numba_cache

_numba_cache.install()

# numba copies a scope per block at every inline="always" call: once per call (sim/core/numba_inline.py)
from .core import numba_inline as _numba_inline  # noqa: E402

_numba_inline.install()
