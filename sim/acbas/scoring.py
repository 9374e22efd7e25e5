"""numba score breakdown (columns in ``GAME.categories`` order) of a housed farm.

The functions live beside the farm masks they read (``farm.py``); this module is the contract's face.
"""

import numpy as np
from numba import njit

from .farm import pastures_mask, score_parts

CATEGORIES = [
    "animals",
    "bonus_sheep",
    "bonus_pigs",
    "bonus_cows",
    "bonus_horses",
    "buildings",
    "expansions",
    "storage",
]


@njit(cache=True)
def breakdown(ps, prm, prmf, out):
    """Fill out[8] for the farm row ps (animals already housed); returns the total."""
    return score_parts(ps, prm, prmf, pastures_mask(ps), out)


def breakdown_py(ps, prm, prmf):
    out = np.zeros(8)
    breakdown(np.asarray(ps, np.int64), prm, prmf, out)
    return dict(zip(CATEGORIES, out.tolist()))
