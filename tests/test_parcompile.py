"""sim.core.parcompile: on a cold cache, the parts after the first compile in a helper process and are loaded
from the cache; the result is the same as a one-process compile."""

import importlib.util
import sys
import textwrap

import numba
import numpy as np
import pytest

from meeplab.sim.core import parcompile

MODULE = textwrap.dedent("""
    from typing import NamedTuple

    import numpy as np
    from numba import njit


    class Pair(NamedTuple):
        a: np.ndarray
        b: np.ndarray


    @njit(cache=True)
    def first(st, scale):
        return st.a.sum() * scale


    @njit(cache=True)
    def second(st, scale, i):
        return st.b[i] + scale


    @njit(cache=True)
    def third(st):
        return st.a[0] - st.b[0]


    @njit(cache=True)
    def step(st, scale, i):
        return first(st, scale) + second(st, scale, i) + third(st)


    @njit(cache=True)
    def loop(st, n):  # not in step's tree: what a caller compiles next (compile_later)
        total = 0
        for k in range(n):
            total += st.a[k % 4] * st.b[k % 4]
        return total
""")


def _fresh_module(tmp_path, monkeypatch, name):
    src = tmp_path / "src"
    src.mkdir()
    (src / f"{name}.py").write_text(MODULE)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))  # the helper's numba reads it at import
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(cache))
    monkeypatch.setenv("PYTHONPATH", str(src))  # the helper process imports the module by its name
    spec = importlib.util.spec_from_file_location(name, src / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def _state(m):
    return m.Pair(np.arange(4, dtype=np.int64), np.arange(10, 14, dtype=np.int64))


def _sig(m, st):
    return (numba.typeof(st), numba.int64, numba.int64)


def test_helper_compiles_the_later_parts_into_the_cache(tmp_path, monkeypatch):
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_two")
    monkeypatch.setenv(parcompile.ENV_PROCS, "2")
    st = _state(m)
    sig = _sig(m, st)
    assert not parcompile.is_cached(m.step, sig)
    parcompile.compile_split(m.step, sig, ((m.first,), (m.second, m.third)))
    assert parcompile.is_cached(m.step, sig)
    # the helper's functions were loaded from the cache, the first part was compiled here
    assert sum(m.second.stats.cache_hits.values()) == 1 and sum(m.third.stats.cache_hits.values()) == 1
    assert sum(m.first.stats.cache_hits.values()) == 0
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def test_one_process_compiles_everything_here(tmp_path, monkeypatch):
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_one")
    monkeypatch.setenv(parcompile.ENV_PROCS, "1")
    st = _state(m)
    sig = _sig(m, st)
    parcompile.compile_split(m.step, sig, ((m.first,), (m.second, m.third)))
    assert sum(m.second.stats.cache_hits.values()) == 0
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def _split_with_a_job_for_later(tmp_path, monkeypatch, name, imports):
    """A cold split compile of ``step`` on two processes, ``loop`` named for later (:func:`parcompile.compile_later`)
    with ``imports`` for its helper: (the module, a state, loop's argument types)."""
    m = _fresh_module(tmp_path, monkeypatch, name)
    monkeypatch.setenv(parcompile.ENV_PROCS, "2")
    st = _state(m)
    loop_sig = (numba.typeof(st), numba.int64)
    parcompile.compile_later([(m.loop, loop_sig)], imports=imports)
    parcompile.compile_split(m.step, _sig(m, st), ((m.first,), (m.second, m.third)))
    return m, st, loop_sig


def test_a_helper_compiles_what_comes_next_while_the_split_compiles_its_dispatcher(tmp_path, monkeypatch):
    m, st, loop_sig = _split_with_a_job_for_later(tmp_path, monkeypatch, "pc_mod_later", ("pc_mod_later",))
    assert parcompile.clear_later() == []  # the cold compile took the jobs
    assert parcompile.is_cached(m.loop, loop_sig)
    assert m.loop(st, 6) == 0 * 10 + 1 * 11 + 2 * 12 + 3 * 13 + 0 * 10 + 1 * 11
    assert sum(m.loop.stats.cache_hits.values()) == 1  # loaded: the helper compiled it


def test_jobs_for_later_wait_where_the_split_compile_is_a_load(tmp_path, monkeypatch):
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_warm")
    monkeypatch.setenv(parcompile.ENV_PROCS, "2")
    st = _state(m)
    sig = _sig(m, st)
    m.step.compile(sig)  # cached now: the next split compile only loads
    loop_sig = (numba.typeof(st), numba.int64)
    parcompile.compile_later([(m.loop, loop_sig)])
    parcompile.compile_split(m.step, sig, ((m.first,), (m.second, m.third)))
    assert parcompile.clear_later() == [(m.loop, loop_sig)]  # left for the caller, which compiles it itself
    assert not parcompile.is_cached(m.loop, loop_sig)


def test_a_helper_that_cannot_import_leaves_the_compile_to_the_caller(tmp_path, monkeypatch):
    m, st, loop_sig = _split_with_a_job_for_later(tmp_path, monkeypatch, "pc_mod_noimport", ("no_such_module_here",))
    assert not parcompile.is_cached(m.loop, loop_sig)
    assert m.loop(st, 2) == 0 * 10 + 1 * 11  # compiled here, the same function
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


@pytest.mark.parametrize("value, expect", [("1", 1), ("3", 3), ("0", 1), ("x", 1)])
def test_process_count_from_the_environment(monkeypatch, value, expect):
    monkeypatch.setenv(parcompile.ENV_PROCS, value)
    assert parcompile.processes() == expect


def test_a_cold_compile_waits_while_another_process_compiles_the_same(tmp_path, monkeypatch):
    import subprocess
    import time

    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_lock")
    monkeypatch.setenv("MEEPLAB_CACHE_DIR", str(tmp_path / "base"))
    monkeypatch.setenv(parcompile.ENV_PROCS, "1")
    st = _state(m)
    sig = _sig(m, st)
    lock = tmp_path / "base" / parcompile.lock_name(m.step, sig)
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; fh = open(sys.argv[1], 'a'); fcntl.flock(fh, fcntl.LOCK_EX); "
            "print('held', flush=True); time.sleep(1.5)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        t = time.perf_counter()
        parcompile.compile_split(m.step, sig, ())
        waited = time.perf_counter() - t
    finally:
        holder.wait()
    assert waited >= 1.0
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def test_the_loop_handed_to_a_helper_is_the_loop_the_batch_calls(monkeypatch):
    """``run_batch`` names ``play_range`` with the argument types of its real call (a helper compiling another
    signature would help nothing) and ``search_function`` the search pointer's own type."""
    from meeplab.sim.core import play
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.registry import get_game

    asked = {}

    def spy(jobs, imports=()):
        asked["jobs"], asked["imports"] = list(jobs), tuple(imports)

    monkeypatch.setattr(parcompile, "compile_later", spy)
    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}))
    lu = make_lineup(g.id, ["greedy", "rollout"], 2, True)
    b = g.play(ctx, lu, 1, 0, 2, 2)
    assert b.score.shape == (2, 2)
    ((fn, types),) = asked["jobs"]
    assert fn is play.play_range and tuple(types) in play.play_range.signatures
    assert "meeplab.sim.schweinebande.engine" in asked["imports"]
