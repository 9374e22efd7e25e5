"""A 2-D view of a flat array without numba's generic reshape.

A state record keeps its board tables as flat fields sized for the largest board and views them at the board's
own size (``sim/hacienda/state.py``). ``a[:k].reshape((n, w))`` does that, but numba's reshape calls a C helper
(``numba_attempt_nocopy_reshape``) every time, which is worth avoiding on a path taken at every decision: a flat
C-contiguous array already *is* its row-major 2-D view. :func:`rows` builds that view directly (same type,
``array(dtype, 2, 'C')``, same data, no copy).
"""

from __future__ import annotations

from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def rows(typingctx, arr, n, w):
    """``arr[:n * w]`` as an ``(n, w)`` C-contiguous view (``arr``: a 1-D C-contiguous array with at least n * w
    items; not checked, as in the hot path it never fails: the caller sizes the fields)."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 1
        and arr.layout == "C"
        and isinstance(n, types.Integer)
        and isinstance(w, types.Integer)
    ):
        return None
    rett = types.Array(arr.dtype, 2, "C", readonly=not arr.mutable)
    sig = rett(arr, n, w)

    def codegen(context, builder, signature, args):
        src = make_array(signature.args[0])(context, builder, args[0])
        out = make_array(rett)(context, builder)
        nn = context.cast(builder, args[1], signature.args[1], types.intp)
        ww = context.cast(builder, args[2], signature.args[2], types.intp)
        itemsize = src.itemsize
        shape = cgutils.pack_array(builder, [nn, ww])
        strides = cgutils.pack_array(builder, [builder.mul(ww, itemsize), itemsize])
        populate_array(
            out, data=src.data, shape=shape, strides=strides, itemsize=itemsize, meminfo=src.meminfo, parent=src.parent
        )
        return impl_ret_borrowed(context, builder, rett, out._getvalue())

    return sig, codegen
