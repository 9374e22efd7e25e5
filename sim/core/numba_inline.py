"""Compile time: numba copies a function's whole scope once per basic block at every ``inline="always"`` call.

numba (0.5x-0.6x) inlines an ``@njit(inline="always")`` function at the numba-IR level. For every call site,
``InlineWorker.inline_ir`` copies the callee's IR block by block (``copy.deepcopy(block)``, twice: the copy it
mutates and an unmutated one it returns), and each variable's ``__deepcopy__`` deep-copies its ``Scope``: the
table of *all* the callee's variables. With one memo per block, a callee of B blocks and V variables costs
B x V copies per call site, and a callee that has inlined helpers of its own has hundreds of both. A cold compile
of the ACBAS engine spent about half of its time in these copies (cProfile: ``copy_ir`` 153 of 303 s).

:func:`install` makes each ``inline_ir`` call copy a scope once: while it runs, the first deep copy of a
``Scope`` is remembered and reused for that scope's variables in every other block. Nothing else changes: the
per-block copies were equal to each other, ``inline_ir`` uses the first one to rename the callee's variables
(renaming by name, into the caller's scope) and then points every inlined block at the caller's scope, so the
inlined IR, and the machine code compiled from it, are the same (the fingerprint tests of every engine check
the games). A numba without these internals is refused with one line (``numba_cache.NumbaHookMissing``).
"""

from __future__ import annotations

import copy

_INSTALLED = False
_ORIGINAL_INLINE_IR = None  # numba's InlineWorker.inline_ir, which the installed wrapper calls


def install() -> None:
    """Share scope copies within each of numba's inline operations (idempotent)."""
    global _INSTALLED, _ORIGINAL_INLINE_IR
    if _INSTALLED:
        return
    from numba.core import inline_closurecall, ir

    from .numba_cache import require_hook

    require_hook(inline_closurecall, "InlineWorker", "numba.core.inline_closurecall.InlineWorker")
    require_hook(ir, "Scope", "numba.core.ir.Scope")
    InlineWorker = inline_closurecall.InlineWorker
    require_hook(InlineWorker, "inline_ir", "InlineWorker.inline_ir")
    if "__deepcopy__" in vars(ir.Scope):
        require_hook(None, "", "numba.core.ir.Scope without a __deepcopy__ of its own")
    _INSTALLED = True
    original = InlineWorker.inline_ir
    _ORIGINAL_INLINE_IR = original
    session: list = []  # stack of {id(scope): (scope, its copy)}, one per inline_ir call in progress

    def scope_deepcopy(self, memo):
        shared = session[-1] if session else None
        if shared is not None:
            hit = shared.get(id(self))
            if hit is not None:
                memo[id(self)] = hit[1]
                return hit[1]
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        if shared is not None:
            shared[id(self)] = (self, new)  # self kept alive: its id stays its own
        for k, v in self.__dict__.items():
            setattr(new, k, copy.deepcopy(v, memo))
        return new

    def inline_ir(self, *args, **kwargs):
        session.append({})
        try:
            return _ORIGINAL_INLINE_IR(self, *args, **kwargs)
        finally:
            session.pop()

    inline_ir.__doc__ = original.__doc__
    ir.Scope.__deepcopy__ = scope_deepcopy
    InlineWorker.inline_ir = inline_ir
