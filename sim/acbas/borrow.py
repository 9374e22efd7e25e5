"""``borrow(a)``: the same array without its reference-counted owner (meminfo NULL).

numba updates an array's reference count (an atomic add/sub) whenever an array is passed to a function,
bound to a variable or viewed; in this engine that was about 40% of the CPU time. ``play_range`` allocates the
buffers once per chunk of games and keeps the owning arrays alive while ``play_game`` works on borrowed views:
their reference-count updates were a null check. Since ``play_game`` itself allocates nothing and is compiled with
``_nrt=False`` (no reference counting at all), the views are no longer needed for speed; they are kept as a
guard should a helper in the game loop ever be compiled with reference counting again. Only use a borrowed array
while its owner is alive."""
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
