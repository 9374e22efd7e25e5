"""uint64 bit-mask helpers over the board spaces (masks are uint64[W], space i = bit i & 63 of word i >> 6)."""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from meeplab.sim.core.bits import popcount

ONE = np.uint64(1)
ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def ctz(x):
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def setbit(m, i):
    m[i >> 6] |= ONE << np.uint64(i & 63)


@njit(cache=True, inline="always")
def clrbit(m, i):
    m[i >> 6] &= ~(ONE << np.uint64(i & 63))


@njit(cache=True, inline="always")
def testbit(m, i):
    return (m[i >> 6] >> np.uint64(i & 63)) & ONE != ZERO


@njit(cache=True, _nrt=False)
def count(m):
    c = 0
    for w in range(m.shape[0]):
        c += popcount(m[w])
    return c


@njit(cache=True, _nrt=False)
def anyset(m):
    for w in range(m.shape[0]):
        if m[w] != ZERO:
            return True
    return False


@njit(cache=True, _nrt=False)
def lowest(m):
    """Index of the lowest set bit, -1 if none."""
    for w in range(m.shape[0]):
        if m[w] != ZERO:
            return w * 64 + np.int64(ctz(m[w]))
    return -1


@njit(cache=True, _nrt=False)
def dilate(src, nbmask, out):
    """out = union of the neighbour masks of every space in src (src itself not included)."""
    W = src.shape[0]
    for w in range(W):
        out[w] = ZERO
    for w in range(W):
        x = src[w]
        while x != ZERO:
            i = w * 64 + np.int64(ctz(x))
            x &= x - ONE
            for v in range(W):
                out[v] |= nbmask[i, v]


@njit(cache=True, _nrt=False)
def flood(seed, allowed, nbmask, out, fr, tmp):
    """Connected component of ``seed`` inside ``allowed`` by mask flood fill; returns its size."""
    W = allowed.shape[0]
    for w in range(W):
        out[w] = ZERO
        fr[w] = ZERO
    setbit(out, seed)
    setbit(fr, seed)
    size = 1
    while True:
        dilate(fr, nbmask, tmp)
        grew = False
        for w in range(W):
            t = tmp[w] & allowed[w] & ~out[w]
            fr[w] = t
            if t != ZERO:
                out[w] |= t
                size += popcount(t)
                grew = True
        if not grew:
            return size


# row versions on a 2-D mask table (no array views in hot loops: a view costs a reference-count round trip)
@njit(cache=True, inline="always")
def tb(M, r, i):
    return (M[r, i >> 6] >> np.uint64(i & 63)) & ONE != ZERO


@njit(cache=True, inline="always")
def sb(M, r, i):
    M[r, i >> 6] |= ONE << np.uint64(i & 63)


@njit(cache=True, inline="always")
def cb(M, r, i):
    M[r, i >> 6] &= ~(ONE << np.uint64(i & 63))


@njit(cache=True, _nrt=False)
def countrow(M, r):
    c = 0
    for w in range(M.shape[1]):
        c += popcount(M[r, w])
    return c


@njit(cache=True, _nrt=False)
def anyrow(M, r):
    for w in range(M.shape[1]):
        if M[r, w] != ZERO:
            return True
    return False
