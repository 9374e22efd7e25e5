"""Counter-seeded random streams for numba engines.

Every game gets its own xoshiro256** stream seeded from ``(seed, game_index)`` alone through
splitmix64, so a game plays identically whatever the thread count, chunk size or worker count.
The state is a ``uint64[4]`` array owned by the game; bots draw from the same array, so a bot's
random choices are part of the reproducible stream too.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def splitmix64(x):
    """One splitmix64 step: returns (new_state, output)."""
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return x, z


@njit(cache=True)
def rng_init(rng, seed, index):
    """Seed ``rng`` (uint64[4]) from (seed, game index) alone."""
    x = np.uint64(seed) * np.uint64(0xD1342543DE82EF95) + np.uint64(index)
    x, _ = splitmix64(x ^ np.uint64(0x6A09E667F3BCC909))
    for i in range(4):
        x, z = splitmix64(x)
        rng[i] = z
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:
        rng[0] = np.uint64(1)


@njit(cache=True)
def rng_next(rng):
    """Next 64-bit output of xoshiro256**."""
    result = _rotl(rng[1] * np.uint64(5), 7) * np.uint64(9)
    t = rng[1] << np.uint64(17)
    rng[2] ^= rng[0]
    rng[3] ^= rng[1]
    rng[1] ^= rng[2]
    rng[0] ^= rng[3]
    rng[2] ^= t
    rng[3] = _rotl(rng[3], 45)
    return result


@njit(cache=True)
def rng_float(rng):
    """Uniform float in [0, 1)."""
    return np.float64(rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rng_below(rng, n):
    """Uniform integer in [0, n) for n >= 1 (Lemire's multiply-shift on 32 random bits)."""
    r = rng_next(rng) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def shuffle(arr, n, rng):
    """Fisher-Yates shuffle of arr[:n] in place."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
