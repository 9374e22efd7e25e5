"""sim/core/numba_inline.py: numba's inline="always" copies a callee's scope once per call, and inlining still works."""

import copy

import numpy as np
from numba import njit
from numba.core import ir
from numba.core.inline_closurecall import InlineWorker

import meeplab.sim  # noqa: F401  (installs the patch)
from meeplab.sim.core import numba_inline


@njit(inline="always")
def _clamp_sum(a, lo, hi):
    s = 0
    for x in a:
        if x < lo:
            s += lo
        elif x > hi:
            s += hi
        else:
            s += x
    return s


@njit
def _three_calls(a):
    return _clamp_sum(a, 0, 5) + 10 * _clamp_sum(a, 2, 3) + 100 * _clamp_sum(a[1:], -1, 9)


def test_inlined_helpers_compute_what_python_does():
    a = np.array([-3, 1, 4, 7, 2], dtype=np.int64)
    want = _clamp_sum.py_func(a, 0, 5) + 10 * _clamp_sum.py_func(a, 2, 3) + 100 * _clamp_sum.py_func(a[1:], -1, 9)
    assert _three_calls(a) == want


def test_patch_is_installed_and_idempotent():
    assert numba_inline._INSTALLED
    wrapper = InlineWorker.inline_ir
    numba_inline.install()
    assert InlineWorker.inline_ir is wrapper and "__deepcopy__" in vars(ir.Scope)


def test_scope_copied_once_inside_an_inline_and_per_block_outside():
    scope = ir.Scope(None, ir.Loc("f", 1))
    v = scope.define("x", ir.Loc("f", 1))
    blocks = [ir.Block(scope, ir.Loc("f", 1)) for _ in range(3)]
    for b in blocks:
        b.append(ir.Assign(ir.Const(1, ir.Loc("f", 1)), v, ir.Loc("f", 1)))
    # outside an inline: numba's own behaviour, one scope copy per deep copy
    outside = [copy.deepcopy(b) for b in blocks]
    assert len({id(b.scope) for b in outside}) == 3
    # inside an inline_ir call: the same copy for every block, distinct from the original, equal to it by value
    seen = []

    def fake_inline_ir(self, blocks_):
        seen.extend(copy.deepcopy(b) for b in blocks_)

    original = numba_inline._ORIGINAL_INLINE_IR
    numba_inline._ORIGINAL_INLINE_IR = fake_inline_ir
    try:
        InlineWorker.inline_ir(None, blocks)
    finally:
        numba_inline._ORIGINAL_INLINE_IR = original
    assert len({id(b.scope) for b in seen}) == 1
    assert seen[0].scope is not scope and "x" in seen[0].scope.localvars._con
    assert seen[0].body[0].target.scope is seen[0].scope


def test_a_numba_without_the_patched_internals_is_refused_in_one_line(tmp_path):
    """numba offers no public hook for what meeplab patches, so a numba that lacks one (a version newer than the
    tested one) stops meeplab with one line and exit 2, instead of running with a silently unpatched cache."""
    import subprocess
    import sys

    from meeplab.sim.core.numba_cache import NumbaHookMissing, require_hook

    with __import__("pytest").raises(NumbaHookMissing, match="tested with numba"):
        require_hook(object(), "inline_ir", "InlineWorker.inline_ir")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "from numba.core.inline_closurecall import InlineWorker\ndel InlineWorker.inline_ir\n"
    )
    env = {**__import__("os").environ, "PYTHONPATH": str(site)}
    got = subprocess.run(
        [sys.executable, "-m", "meeplab.cli", "games"], capture_output=True, text=True, env=env, timeout=120
    )
    assert got.returncode == 2, got.stderr
    assert got.stderr.startswith("meeplab: error: numba ") and got.stderr.count("\n") == 1, got.stderr
    assert "InlineWorker.inline_ir" in got.stderr and "Traceback" not in got.stderr
