"""sim.core.views.rows: the row-major 2-D view of a flat array that the Hacienda state uses instead of reshape."""

import numpy as np
from numba import njit

from meeplab.sim.core.views import rows


@njit(cache=False)
def _view_and_write(a, n, w):
    v = rows(a, n, w)
    v[n - 1, w - 1] = -7
    return v.copy(), v.shape[0], v.shape[1]


def test_rows_is_the_reshaped_prefix_and_shares_its_data():
    for n, w in ((1, 1), (3, 5), (9, 4)):
        a = np.arange(50, dtype=np.int64)
        want = a[: n * w].reshape(n, w).copy()
        want[n - 1, w - 1] = -7
        got, gn, gw = _view_and_write(a, n, w)
        assert (gn, gw) == (n, w)
        assert np.array_equal(got, want)
        assert a[n * w - 1] == -7 and a[n * w] == n * w  # written through, nothing beyond the view touched
