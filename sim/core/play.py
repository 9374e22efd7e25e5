"""The one game loop every engine runs on: reset, then ask and apply until the game is over.

``play_batch`` is what a game's ``GameSpec.play`` calls (through :func:`run_batch`): blocks of games side by side
on Python threads (the compiled loop releases the GIL), one state (and one search scratch, ``sim.core.scratch``) per
block, every game ``g`` seeded from ``(seed, g)`` alone. :func:`run_batch`, :func:`run_decisions` and
:func:`run_logged` are a game face's ``play``, ``decisions`` and event log in one call each, on the engine context
``cx`` of a run.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit, types

from .bots import entry_of_seat
from .errors import MeeplabError
from .forward import (
    C_DECISIONS,
    C_END,
    C_KIND,
    C_LENGTH,
    C_N,
    C_NP,
    C_SEAT,
    S_ALGO,
    Algo,
    algo_name,
    ask,
    fm_advance,
    fm_apply,
    fm_new,
    fm_reset,
    fm_result,
    searches,
)
from .restrict import allowed_list, ask_among, is_restricted
from .scratch import new_scratch
from .search import rollout_among, rollout_choose

CHUNK = 64  # a batch's blocks hold about this many games or more (fewer only to give every thread a block)
BLOCKS_PER_THREAD = 16  # at most this many blocks per thread in a batch (play_batch)


@njit(cache=True, _nrt=False, inline="always", nogil=True)
def decide(st, scratch, cx, fns, weights, search, rotate, g, srch):
    """The choice of the lineup entry whose seat is to move in game ``g`` (``st`` at a pending decision): a search
    bot searches (``srch``, see :func:`search_function`, in ``scratch``, a
    :class:`~meeplab.sim.core.scratch.SearchScratch`), a plain bot is asked, and an entry under a restriction
    (``sim.core.restrict``) is handed to ``srch`` with ``k = -1`` (the lineup's restricted step,
    :func:`restricted_turn`: the restricted player's code is compiled only for a lineup that has one). The one place
    a bot's decision is made: the batch (:func:`play_game`), the viewer's trace and the play server all go through
    it, so each plays the game a run plays. Called from Python (the play server) it releases the interpreter lock,
    so the server's other threads answer while a bot searches."""
    r = st.rec[0]
    e = entry_of_seat(r.ctl[C_SEAT], g, r.ctl[C_NP], rotate)
    n = r.ctl[C_N]
    if n > 1 and is_restricted(search[e]):
        return srch(st, scratch, cx, fns, weights, search, e, -1)
    if searches(search[e], n, r.ctl[C_KIND]):
        r.ctl[C_DECISIONS] += 1
        return srch(st, scratch, cx, fns, weights, search, e, n)
    return ask(st, fns, weights, e)


@njit(cache=True, _nrt=False, inline="always")
def restricted_turn(st, scratch, cx, fns, weights, search, e):
    """A restricted entry's decision (what :func:`decide` hands a restricted step with ``k = -1``): its allowed
    candidates into the middle row of ``scratch.used``; returns ``(k, choice)``: the choice among them of an entry
    that does not search here, or -1 for one that searches its ``k`` allowed candidates (the decision counted)."""
    r = st.rec[0]
    m = r.moves.shape[0]
    pick = scratch.used[m : 2 * m]
    n = r.ctl[C_N]
    k = allowed_list(st, cx, search[e], pick)
    if searches(search[e], n, r.ctl[C_KIND]):
        r.ctl[C_DECISIONS] += 1
        return k, -1
    if k < n:
        return k, ask_among(st, fns, weights, e, r.rng, pick, k)
    return k, ask(st, fns, weights, e)


@njit(cache=True, _nrt=False)
def play_game(st, scratch, cx, fns, weights, search, rotate, seed, g, srch):
    """Play game ``g`` on state ``st``, every decision made by :func:`decide` (search scratch ``scratch``)."""
    fm_reset(st, cx, seed, g)
    while True:
        if fm_advance(st, cx) < 0:
            return
        fm_apply(st, cx, decide(st, scratch, cx, fns, weights, search, rotate, g, srch))


def _search(st, scratch, cx, fns, weights, search, e, k):
    """Lineup entry ``e``'s search for the pending decision, in ``scratch`` (a lineup whose search entries play
    unrestricted: :func:`search_function` gives one with a restricted entry :func:`restricted_search_step`)."""
    return rollout_choose(st, scratch, cx, fns, weights, search[e], e)


def _search_restricted(st, scratch, cx, fns, weights, search, e, k):
    """As :func:`search_step` in a lineup with a restricted entry: with ``k = -1`` (from :func:`decide`) the restricted
    entry's turn (:func:`restricted_turn`); a restricted rollout entry searches its ``k`` allowed candidates (in the
    middle row of ``scratch.used``)."""
    if k < 0:
        k, c = restricted_turn(st, scratch, cx, fns, weights, search, e)
        if c >= 0:
            return c
    m = st.rec[0].moves.shape[0]
    if is_restricted(search[e]):
        used = scratch.used
        return rollout_among(st, scratch, cx, fns, weights, search[e], e, used[m : 2 * m], k, used[2 * m : 3 * m])
    return rollout_choose(st, scratch, cx, fns, weights, search[e], e)


def _no_search(st, scratch, cx, fns, weights, search, e, k):
    """Stands in for the search in a lineup without search bots or restricted entries (never called)."""
    return 0


def _restricted_plain(st, scratch, cx, fns, weights, search, e, k):
    """The step of a lineup without search bots but with a restricted entry: its turns (:func:`restricted_turn`)."""
    return restricted_turn(st, scratch, cx, fns, weights, search, e)[1]


# Compile time: the search is reached through a function pointer (as the engines are, docs/adding-a-game.md), so a run
# without search bots compiles only the stub, a run with them compiles the search once, not once per level of the
# loop above it, and the restricted player's search (sim.core.restrict: `meeplab options`) only where a lineup has one.
search_step = njit(cache=True, _nrt=False)(_search)
restricted_search_step = njit(cache=True, _nrt=False)(_search_restricted)
no_search = njit(cache=True, _nrt=False)(_no_search)
restricted_plain_step = njit(cache=True, _nrt=False)(_restricted_plain)


# Other search algorithms (sim.core.ismcts) register their steps here: Algo -> (step for a lineup whose search entries
# all use it, step for one that also has rollout entries, and the same two for a lineup with a restricted entry);
# the module registers itself when a bot of it loads.
SEARCH_STEPS: dict = {}


def register_search(algo: Algo, step, mixed, step_restricted, mixed_restricted) -> None:
    """Make search algorithm ``algo`` (``Lineup.search[:, S_ALGO]``) playable: four njit functions with
    :func:`search_step`'s signature, ``(st, scratch, cx, fns, weights, search, e, k) -> candidate``: ``step`` for a
    lineup whose search entries all use ``algo``, ``mixed`` for one that also has rollout entries (through
    :func:`search_step`), and ``step_restricted`` / ``mixed_restricted`` the same in a lineup with a restricted
    entry, searching or not (``sim.core.restrict``; through :func:`restricted_search_step`): they take ``k = -1`` from
    :func:`decide` for a restricted entry's turn (:func:`restricted_turn`)."""
    SEARCH_STEPS[int(algo)] = (step, mixed, step_restricted, mixed_restricted)


def lineup_restricted(lineup) -> bool:
    """Whether an entry of ``lineup`` plays under a restriction (its decisions then go through the restricted step)."""
    return any(is_restricted.py_func(row) for row in lineup.search)


def search_function(cx, lineup, np_, ncat, later=None):
    """The search as a function pointer for ``play_game`` (argument ``srch``): the rollout search if an entry of
    ``lineup`` is a search bot, another registered algorithm's step (:func:`register_search`) if one uses it, else
    a stub, so that a run without search bots never compiles the search.

    ``later(srch_type)`` (optional): the shared functions the caller compiles next, as ``(dispatcher, argument
    types)`` pairs given the search pointer's numba type; where this call compiles the game's engine cold (its first
    use of the engine, :func:`~meeplab.sim.core.parcompile.compile_later`), a helper process compiles them meanwhile."""
    from .forward import engine_modules, step_pointer, warm_engine
    from .parcompile import clear_later, compile_later

    jobs = lineup.pending_jobs()  # bots not compiled yet: a helper may take them while the engine compiles
    if jobs:
        compile_later(jobs, engine_modules(cx))  # the parts of an inline engine may take them (warm_engine)
    warm_engine(cx)  # every shared loop takes its search from here: its engine's parts first, on every core
    log = np.zeros((0, 1), dtype=np.int64)
    jobs = lineup.pending_jobs()  # those left
    if later is not None:
        st_t, scratch_t = player_types(cx, log)
        args = (st_t, scratch_t, numba.typeof(cx), lineup.fns_type(), numba.typeof(lineup.weights))
        sig = types.int64(*args, numba.typeof(lineup.search), types.int64, types.int64)
        jobs += later(types.FunctionType(sig))
    if jobs:
        compile_later(jobs, engine_modules(cx))
    try:
        st, scratch = new_player(cx, np_, ncat, log)  # the first call through the engine's step pointer compiles it
    finally:
        clear_later()
    algos = {int(a) for a in lineup.search[:, S_ALGO]} - {Algo.NONE}
    restricted = lineup_restricted(lineup)
    if algos:
        fn = restricted_search_step if restricted else search_step
    else:
        fn = restricted_plain_step if restricted else no_search
    others = algos - {Algo.ROLLOUT}
    if others:
        algo = max(others)
        if algo not in SEARCH_STEPS or len(others) > 1:
            names = ", ".join(algo_name(a) for a in sorted(others))
            raise MeeplabError(f"search algorithm(s) {names} of this lineup are not loaded or cannot be mixed")
        fn = SEARCH_STEPS[algo][(2 if restricted else 0) + (1 if Algo.ROLLOUT in algos else 0)]
    return step_pointer(fn, st, scratch, cx, lineup.fns, lineup.weights, lineup.search, 0, 0)


def player_types(cx, log) -> tuple:
    """The numba types of :func:`new_player`'s ``(state, scratch)`` for context ``cx``: compiled (or loaded) for its
    argument types, not called, so that nothing of the engine behind ``cx`` compiles yet."""
    argtypes = (numba.typeof(cx), types.int64, types.int64, numba.typeof(log))
    new_player.compile(argtypes)
    return tuple(new_player.overloads[argtypes].signature.return_type)


@njit(cache=True)
def new_player(cx, np_, ncat, log):
    """A state writing its events to ``log`` (logging off until ``nlog[1]`` is set) and the search scratch of its
    bots (:func:`~meeplab.sim.core.scratch.new_scratch`): ``(st, scratch)``, allocated once per block."""
    return fm_new(cx, np_, log), new_scratch(cx, np_, ncat, log)


@njit(cache=True, nogil=True)
def play_range(
    cx, fns, weights, search, np_, rotate, seed, start, lo, hi, score, tiebreak, brk, length, end, log, log_on, srch
):
    """Games ``start + lo .. start + hi - 1`` into rows lo..hi-1 of the outputs (one thread, one state; the GIL is
    released, so :func:`play_batch` runs blocks on Python threads side by side)."""
    st, scratch = new_player(cx, np_, brk.shape[2], log)
    st.nlog[1] = 1 if log_on else 0
    r = st.rec[0]
    for i in range(lo, hi):
        play_game(st, scratch, cx, fns, weights, search, rotate, seed, start + i, srch)
        fm_result(st, cx, score[i], tiebreak[i], brk[i])
        length[i] = r.ctl[C_LENGTH]
        end[i] = r.ctl[C_END]


def on_threads(task, items) -> None:
    """``task(item)`` for every item, on as many Python threads as numba's thread count of the calling thread
    (``numba.set_num_threads``) allows: the compiled tasks release the GIL, so they run side by side. Each task
    writes only its own rows, so the result is the same for any thread count. A failure cancels the tasks not yet
    started and is raised once the running ones end. (A thread pool, not numba's ``prange``: a parallel loop is
    compiled again for every game's state type, ~2.6 s each, and this costs nothing to compile.)"""
    items = list(items)
    threads = min(numba.get_num_threads(), len(items))
    if threads <= 1:
        for item in items:
            task(item)
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="meeplab-play")
    try:
        for future in [pool.submit(task, item) for item in items]:
            future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def block_size(n_games: int, threads: int | None = None) -> int:
    """Games per block of a batch of ``n_games`` (:func:`play_batch`): about one CHUNK or more, at most
    BLOCKS_PER_THREAD blocks per thread, and at least one block per thread while there are games for it, so that a
    short batch of slow (search) games still keeps every thread busy. ``threads``: numba's thread count of the
    calling thread unless given."""
    threads = threads or numba.get_num_threads()
    chunks = -(-n_games // CHUNK)
    blocks = max(1, min(threads, n_games), min(chunks, BLOCKS_PER_THREAD * threads))
    return max(1, -(-n_games // blocks))


def parallel_width(n_games: int, threads: int | None = None) -> int:
    """How many threads a batch of ``n_games`` keeps busy on ``threads`` (default: numba's thread count)."""
    threads = threads or numba.get_num_threads()
    if n_games <= 0:
        return 1
    return max(1, min(threads, -(-n_games // block_size(n_games, threads))))


def play_batch(
    cx, fns, weights, search, np_, rotate, seed, start, n_games, score, tiebreak, brk, length, end, log_width, srch
):
    """``n_games`` games from ``start``, side by side on numba's thread count (:func:`on_threads`) in blocks of
    about a CHUNK or more (:func:`block_size`), at most BLOCKS_PER_THREAD per thread: a call of the compiled loop
    from Python costs ~0.3 ms of argument checks (its records and function pointers), as much as ~10 fast games, so
    few large blocks; several per thread, so that a thread done early takes the next. Game ``g`` depends on
    ``(seed, g)`` alone, so the results are the same for any blocks."""
    dummy = np.zeros((0, log_width), dtype=np.int64)
    size = block_size(n_games)

    def block(lo):
        hi = min(n_games, lo + size)
        play_range(
            cx, fns, weights, search, np_, rotate, seed, start, lo, hi, score, tiebreak, brk, length, end, dummy,
            False, srch,
        )  # fmt: skip

    on_threads(block, range(0, n_games, size))


@njit(cache=True)
def play_logged(cx, fns, weights, search, np_, rotate, seed, g, log, ncat, srch):
    """Game ``g`` with its event log: returns (events written, score, tiebreak, brk, length, end)."""
    score = np.zeros((1, np_))
    tiebreak = np.zeros((1, np_))
    brk = np.zeros((1, np_, ncat))
    length = np.zeros(1, dtype=np.int64)
    end = np.zeros(1, dtype=np.int8)
    play_range(cx, fns, weights, search, np_, rotate, seed, g, 0, 1, score, tiebreak, brk, length, end, log, True, srch)
    n = 0
    for i in range(log.shape[0]):
        if log[i, 0] == 0:
            break
        n += 1
    return n, score[0], tiebreak[0], brk[0], length[0], end[0]


@njit(cache=True)
def count_decisions(cx, fns, weights, search, np_, rotate, seed, start, n_games, ncat, srch):
    """Bot decisions (more than one candidate) in games ``start .. start + n_games - 1``, on one thread: what
    the bench divides by to report decisions per second."""
    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 8), dtype=np.int64))
    total = 0
    for g in range(start, start + n_games):
        play_game(st, scratch, cx, fns, weights, search, rotate, seed, g, srch)
        total += st.rec[0].ctl[C_DECISIONS]
    return total


def loop_args(cx, lineup, np_):
    """The shared loop's leading arguments: the context, the seats' bots, weights and search settings, the player
    count and whether seats rotate."""
    return cx, lineup.fns, lineup.weights, lineup.search, np_, lineup.rotate


def loop_arg_types(cx, lineup, np_) -> tuple:
    """The numba types of :func:`loop_args`, without compiling the line-up's pending bots (``Lineup.fns_type``)."""
    args = (cx, lineup.weights, lineup.search, np_, lineup.rotate)
    tys = [numba.typeof(a) for a in args]
    return (tys[0], lineup.fns_type(), *tys[1:])


def run_batch(cx, lineup, np_, seed, start, n_games, ncat, log_width):
    """Games ``start .. start + n_games - 1`` of ``lineup`` at ``np_`` seats on all threads, as a
    :class:`~meeplab.sim.core.game.Batch` (``ncat`` score categories; ``log_width``: the game's event-log width)."""
    from .game import Batch

    score = np.zeros((n_games, np_))
    tiebreak = np.zeros((n_games, np_))
    brk = np.zeros((n_games, np_, ncat))
    length = np.zeros(n_games, dtype=np.int64)
    end = np.zeros(n_games, dtype=np.int8)
    dummy = np.zeros((0, log_width), dtype=np.int64)

    def loop(srch_type):  # play_batch's compiled loop, for a helper while the engine compiles (a first run)
        rest = (seed, start, 0, 0, score, tiebreak, brk, length, end, dummy, False)
        return [(play_range, (*loop_arg_types(cx, lineup, np_), *(numba.typeof(a) for a in rest), srch_type))]

    srch = search_function(cx, lineup, np_, ncat, later=loop)
    play_batch(*loop_args(cx, lineup, np_), seed, start, n_games, score, tiebreak, brk, length, end, log_width, srch)
    return Batch(score=score, tiebreak=tiebreak, breakdown=brk, length=length, end=end)


def run_decisions(cx, lineup, np_, seed, start, n_games, ncat) -> int:
    """Bot decisions (more than one candidate) in these games, on one thread (the bench's decisions per second)."""
    srch = search_function(cx, lineup, np_, ncat)
    return int(count_decisions(*loop_args(cx, lineup, np_), seed, start, n_games, ncat, srch))


class LogOverflow(MeeplabError):
    """A game wrote as many event rows as its log holds: rows may have been dropped (``sim.core.face.Face.events``
    retries with a larger log)."""


def run_logged(cx, lineup, np_, seed, g, log, ncat):
    """Game ``g`` with its event log in ``log``: (events written, score, tiebreak, brk, length, end). A log the game
    fills to its last row raises :class:`LogOverflow` (the engines stop writing at the end: rows would be lost)."""
    out = play_logged(*loop_args(cx, lineup, np_), seed, g, log, ncat, search_function(cx, lineup, np_, ncat))
    if log.shape[0] > 0 and out[0] >= log.shape[0]:
        raise LogOverflow(f"game {g}: the event log is full ({log.shape[0]} rows): events past it were dropped")
    return out
