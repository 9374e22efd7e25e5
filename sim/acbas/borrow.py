"""``borrow(a)``: the same array without its reference-counted owner (meminfo NULL).

numba updates an array's reference count (an atomic add/sub) whenever an array is passed to a function,
bound to a variable or viewed; in this engine that was about 40% of the CPU time. A game allocates all its
buffers once, keeps the owning arrays alive until it ends, and works on borrowed views: their reference
count updates are then a null check. Only use a borrowed array while its owner is alive (here: within
``play_game``, whose owners are used again at its end)."""
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, arr):
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, args[0])
        dst = context.make_array(arr)(context, builder)
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        dst.nitems = src.nitems
        dst.itemsize = src.itemsize
        dst.data = src.data
        dst.shape = src.shape
        dst.strides = src.strides
        return dst._getvalue()

    return arr(arr), codegen
