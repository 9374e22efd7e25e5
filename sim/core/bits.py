"""Bit counting on 64-bit masks, for engines that keep sets as bits (one popcnt instruction)."""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def popcnt(typingctx, x):
    """Set bits of a uint64, as a uint64 (LLVM's ctpop: one popcnt instruction)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Set bits of a 64-bit mask (int64 or uint64; an int64 is read as its two's-complement bits), as an int64."""
    return np.int64(popcnt(np.uint64(x)))
