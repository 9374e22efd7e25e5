"""Gold Rush's ``fm_redraw`` (``sim.core.forward``): fresh future chance from the true state.

Gold Rush's chance is the order of the draw pile and of the face-down mining tokens, both shuffled at setup.
:func:`redraw_chance` shuffles the tiles not yet drawn and the tokens nobody has taken; the tokens the players took
(``tokvals[:gi[G_TOKPTR]]``, each seen by its owner) and their sums, the drawn tile being placed, the board and the
pending decision stay as they are (``determinise`` instead re-deals the other seats' tokens too).
"""

from numba import njit

from meeplab.sim.core.rng import shuffle

from .const import G_TOKPTR
from .state import redeal_pile


@njit(cache=True, _nrt=False)
def redraw_chance(st, cx, rnd):
    """Shuffle, drawing from ``rnd``, the tiles still in the pile and the token faces still face down."""
    r = st.rec[0]
    cxt = cx.tab[0]
    redeal_pile(r, cxt.ntiles, rnd)
    ptr = r.gi[G_TOKPTR]
    shuffle(r.tokvals[ptr : cxt.ntok], cxt.ntok - ptr, rnd)
