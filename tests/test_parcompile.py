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


def _refuse(monkeypatch, jobs):
    """This process claims none of ``jobs`` (job indices on the board): as if a helper had taken them first, so that
    which process compiles what does not depend on who is faster."""
    claim = parcompile.Board.claim
    monkeypatch.setattr(parcompile.Board, "claim", lambda self, i: i not in jobs and claim(self, i))


def test_helper_compiles_the_parts_it_claims_into_the_cache(tmp_path, monkeypatch):
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_two")
    monkeypatch.setenv(parcompile.ENV_PROCS, "2")
    st = _state(m)
    sig = _sig(m, st)
    assert not parcompile.is_cached(m.step, sig)
    _refuse(monkeypatch, {1, 2})  # the jobs: first (0) and third (1) in this process's group, second (2)
    parcompile.compile_split(m.step, sig, ((m.first, m.third), (m.second,)))
    assert parcompile.is_cached(m.step, sig)
    # the helper's functions were loaded from the cache (so this process waited for them), the first compiled here
    assert sum(m.second.stats.cache_hits.values()) == 1 and sum(m.third.stats.cache_hits.values()) == 1
    assert sum(m.first.stats.cache_hits.values()) == 0
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def test_this_process_takes_every_part_nobody_else_claimed(tmp_path, monkeypatch):
    """A helper that starts too late to claim anything (here: none starts) leaves the whole queue to this process,
    which compiles every part exactly once and the dispatcher after them."""
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_alone")
    monkeypatch.setenv(parcompile.ENV_PROCS, "2")
    monkeypatch.setattr(parcompile, "_start_helper", lambda payload: None)
    st = _state(m)
    sig = _sig(m, st)
    parcompile.compile_split(m.step, sig, ((m.first,), (m.second, m.third)))
    for fn in (m.first, m.second, m.third):
        assert len(fn.signatures) == 1 and sum(fn.stats.cache_misses.values()) == 1
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def test_the_board_gives_each_job_to_one_claimant(tmp_path):
    board = parcompile.Board(str(tmp_path))
    assert board.claim(3) and not board.claim(3) and board.claim(4)
    assert not board.is_done(3)
    board.done(3)
    assert board.is_done(3) and not board.is_done(4)


def test_each_process_takes_its_own_group_first_then_the_others_from_their_ends():
    # groups of 3, 1 and 2 jobs: 0 1 2 | 3 | 4 5, then 2 jobs for later (6, 7)
    assert parcompile.claim_order([3, 1, 2], 0, 2) == [0, 1, 2, 3, 5, 4, 6, 7]
    assert parcompile.claim_order([3, 1, 2], 1, 2) == [3, 2, 1, 0, 5, 4, 6, 7]
    assert parcompile.claim_order([3, 1, 2], 2) == [4, 5, 2, 1, 0, 3]
    assert parcompile.claim_order([3, 1, 2], 3) == [2, 1, 0, 3, 5, 4]  # a helper without a group of its own


def test_one_process_compiles_everything_here(tmp_path, monkeypatch):
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_one")
    monkeypatch.setenv(parcompile.ENV_PROCS, "1")
    st = _state(m)
    sig = _sig(m, st)
    parcompile.compile_split(m.step, sig, ((m.first,), (m.second, m.third)))
    assert sum(m.second.stats.cache_hits.values()) == 0
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def _split_with_a_job_for_later(tmp_path, monkeypatch, name, imports, refuse=frozenset({1, 2, 3})):
    """A cold split compile of ``step`` on two processes, ``loop`` named for later (:func:`parcompile.compile_later`)
    with ``imports`` for its helper, this process claiming none of ``refuse`` (the queue: first, second, third, then
    ``loop``): (the module, a state, loop's argument types)."""
    m = _fresh_module(tmp_path, monkeypatch, name)
    monkeypatch.setenv(parcompile.ENV_PROCS, "2")
    st = _state(m)
    loop_sig = (numba.typeof(st), numba.int64)
    parcompile.compile_later([(m.loop, loop_sig)], imports=imports)
    _refuse(monkeypatch, refuse)
    parcompile.compile_split(m.step, _sig(m, st), ((m.first,), (m.second, m.third)))
    return m, st, loop_sig


def test_a_helper_compiles_what_comes_next_while_the_split_compiles_its_dispatcher(tmp_path, monkeypatch):
    m, st, loop_sig = _split_with_a_job_for_later(tmp_path, monkeypatch, "pc_mod_later", ("pc_mod_later",))
    assert parcompile.clear_later() == []  # the cold compile took the jobs
    assert parcompile.is_cached(m.loop, loop_sig)
    assert m.loop(st, 6) == 0 * 10 + 1 * 11 + 2 * 12 + 3 * 13 + 0 * 10 + 1 * 11
    assert sum(m.loop.stats.cache_hits.values()) == 1  # loaded: the helper compiled it


def test_jobs_for_later_nobody_claimed_are_compiled_here_after_the_dispatcher(tmp_path, monkeypatch):
    m, st, loop_sig = _split_with_a_job_for_later(
        tmp_path, monkeypatch, "pc_mod_later_here", ("pc_mod_later_here",), refuse={1, 2}
    )
    # the helper, busy with second and third, may or may not have claimed loop: either way it is compiled once
    assert parcompile.is_cached(m.loop, loop_sig)
    assert m.loop(st, 2) == 0 * 10 + 1 * 11
    assert len(m.loop.signatures) == 1


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
    # the helper ended at its first import holding no part: this process compiled second and third inside step
    assert sum(m.second.stats.cache_hits.values()) == 0 and sum(m.third.stats.cache_hits.values()) == 0
    assert not parcompile.is_cached(m.loop, loop_sig)  # refused here, never compiled by the helper
    assert m.loop(st, 2) == 0 * 10 + 1 * 11  # compiled where it is called, the same function
    assert m.step(st, 3, 2) == 6 * 3 + (12 + 3) + (0 - 10)


def test_a_job_named_with_a_signature_string_keeps_it(tmp_path, monkeypatch):
    """A bot compiles for the signature string ``BOT_SIG`` (numba keys its cache by the signature as given), so a
    job naming one reaches the helper as that string, not as a tuple of its characters."""
    m = _fresh_module(tmp_path, monkeypatch, "pc_mod_str")
    ((module, name, sig),) = parcompile._addressed([(m.third, "int64(int64)")])
    assert (module, name, sig) == ("pc_mod_str", "third", "int64(int64)")
    parcompile.compile_later([(m.third, "int64(int64)")])
    assert parcompile.clear_later() == [(m.third, "int64(int64)")]


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
    (types,) = [t for f, t in asked["jobs"] if f is play.play_range]
    assert tuple(types) in play.play_range.signatures
    assert "meeplab.sim.schweinebande.engine" in asked["imports"]


def test_the_bots_a_lineup_has_not_compiled_go_to_the_helper_first(monkeypatch):
    """``search_function`` hands the lineup's pending bots (``Lineup.pending_jobs``) to the cold compile's helpers,
    ahead of the loop, so that this process compiles the engine meanwhile instead of the bots first."""
    from meeplab.sim.core import bots, play
    from meeplab.sim.core.registry import get_game

    asked = {}

    def spy(jobs, imports=()):
        asked["jobs"] = list(jobs)

    monkeypatch.setattr(parcompile, "compile_later", spy)
    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}))
    lu = bots.make_lineup(g.id, ["greedy"], 2, True)
    sentinel = (lu.fns[0], bots.BOT_SIG)
    monkeypatch.setattr(bots.Lineup, "pending_jobs", lambda self: [sentinel])
    g.play(ctx, lu, 1, 0, 2, 2)
    assert asked["jobs"][0] == sentinel and asked["jobs"][1][0] is play.play_range


BOTS = textwrap.dedent("""
    from numba import njit


    @njit(cache=True, _nrt=False)
    def last(kind, view, moves, n, feats, weights, rng):
        return n - 1


    @njit(cache=True, _nrt=False)
    def broken(kind, view, moves, n, feats, weights, rng):
        return view.no_such_attribute
""")


def _pending_lineup(tmp_path, monkeypatch, fn_name):
    from meeplab.sim.core import bots

    src = tmp_path / "src"
    src.mkdir()
    (src / "pc_bots.py").write_text(BOTS)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("pc_bots", src / "pc_bots.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "pc_bots", module)
    spec.loader.exec_module(module)
    fn = getattr(module, fn_name)
    weights = np.zeros((2, 1))
    return fn, bots.Lineup(names=["a", "a"], fns=(fn, fn), weights=weights, rotate=True, pending=((fn, "g.a"),))


def test_a_pending_bot_compiles_when_the_lineup_first_hands_it_out(tmp_path, monkeypatch):
    """``make_lineup`` leaves a bot numba's cache lacks uncompiled (``Lineup.pending``): its type is known without
    compiling it (``fns_type``), a cold engine compile may give it to a helper (``pending_jobs``), and the first
    read of ``fns`` makes it ready here."""
    from meeplab.sim.core import bots

    fn, lu = _pending_lineup(tmp_path, monkeypatch, "last")
    assert lu.pending_jobs() == [(fn, bots.BOT_SIG)]  # once, though two entries play it
    want = lu.fns_type()
    assert want == numba.types.UniTuple(bots.bot_type(), 2) and not fn.signatures  # nothing compiled yet
    fns = lu.fns
    assert fns == (fn, fn) and lu.pending == () and lu.pending_jobs() == []
    assert numba.typeof(fns) == want  # the type the helper's loop was compiled for
    moves = np.zeros((3, 1), dtype=np.int64)
    assert fns[0](0, np.zeros(1, np.int64), moves, 3, np.zeros((3, 1)), np.zeros(1), np.zeros(4, np.uint64)) == 2


def test_a_pending_bot_that_does_not_compile_is_one_line_when_handed_out(tmp_path, monkeypatch):
    from meeplab.sim.core.errors import MeeplabError

    _, lu = _pending_lineup(tmp_path, monkeypatch, "broken")
    with pytest.raises(MeeplabError) as e:
        lu.fns  # noqa: B018 (reading it compiles the bot)
    assert str(e.value).startswith("bot g.a: its choose does not compile for the bots' signature: ")
    assert "\n" not in str(e.value)
