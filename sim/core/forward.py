"""The forward model every engine offers, and the one game loop and batch that run on it.

A game's whole state is one numpy structured array of shape (1,), ``st.rec`` (its *state record*: named,
fixed-dtype fields, most of them arrays; ``print(st.rec.dtype)`` lists them), inside a ``NamedTuple`` that also
carries the event channel ``st.log``/``st.nlog``. Numba reads a record field as an array view, a copy is one
record assignment, and every function takes the state as three arrays rather than dozens (which matters for
compile time). Five fields are common to every game, so shared code (this loop, the search bots) can read
them without knowing the game (``r = st.rec[0]``):

* ``pub``   int64[:]     the bots' view (the game's documented view layout; public information only)
* ``ctl``   int64[:]     control words: the common ones below (``C_*``), then the game's own
* ``moves`` int64[M, W]  the candidates of the pending decision, one row each
* ``feats`` float64[M, F] their features (column 0 = immediate value)
* ``rng``   uint64[4]    the game's random stream (chance and the bots' own draws)

plus the game's own fields (hidden tiles, masks, caches). Outside the record, the output channel:
``st.log`` (int64[L, LOG_WIDTH], the replay's event records) and ``st.nlog`` (int64[2]: rows written, logging on).

A game registers its functions for its state class with :func:`register`; numba then resolves the ``fm_*``
names below to the game's implementation at compile time (``numba.extending.overload``), so one compiled and
cached copy of the shared loop and search exists per game, with no function-pointer calls:

===================================  ======================================================================
``fm_new(cx, np_, log)``             allocate a state for ``np_`` players (the only allocation; once per chunk)
``fm_reset(st, cx, seed, g)``        start game ``g``: seed ``r.rng`` from ``(seed, g)``, set up the table
``fm_advance(st, cx)``               run every forced step up to the next decision; returns the deciding seat
                                     (``ctl[C_KIND]``, ``ctl[C_N]``, ``moves``, ``feats``, ``view`` filled) or
                                     -1 when the game is over (``ctl[C_LENGTH]``, ``ctl[C_END]`` then final)
``fm_apply(st, cx, i)``              perform candidate ``i`` of the pending decision
``fm_copy(dst, src)``                copy a state into another (one record copy; shared, not per game)
``fm_determinise(st, cx, seat, r)``  re-deal everything ``seat`` has not seen, consistent with what it has
                                     seen (draws from ``r``); the identity for a game without hidden parts
``fm_result(st, cx, sc, tb, brk)``   the end: score, tie-break (higher wins a score tie) and breakdown per seat
``fm_redraw(st, cx, r)``             optional: draw all future chance afresh (the order of every face-down
                                     stock, pile or deck nobody has seen; draws from ``r``), keeping everything
                                     any seat holds or has seen and the pending decision's candidates valid
===================================  ======================================================================

``fm_redraw`` is what "play on from the TRUE state with fresh chance" needs (win-probability trajectories,
``sim.core.trajectories``): unlike ``fm_determinise`` it never re-deals another seat's hidden holdings. A game that
registers none gets ``fm_determinise`` for the seat to move in its place (which also re-deals the other seats'
hidden holdings; :func:`exact_redraw` tells the two apart, and ``meeplab quality`` records which one it used).

``fm_advance`` must never call a bot and ``fm_apply`` must accept any ``0 <= i < ctl[C_N]``; everything a
player chooses goes through a decision. See ``docs/adding-a-game.md``.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental import function_type as _typeof_pointers  # noqa: F401 (registers numba.typeof of a StepPointer)
from numba.extending import intrinsic, overload

# -- common control words (every game's ctl starts with these) --------------------------------------------
C_SEAT = 0  # seat deciding now (-1 none)
C_KIND = 1  # decision kind pending
C_N = 2  # candidates of the pending decision
C_PHASE = 3  # the game's own step counter (where advance resumes)
C_LENGTH = 4  # game length so far, in GameSpec.length_unit
C_END = 5  # how the game ended: index into GameSpec.end_codes (0 = the rule book's ending)
C_OVER = 6  # 1 once the game is over
C_NP = 7  # players
C_DECISIONS = 8  # bot decisions asked so far (n > 1)
C_COMMON = 9  # first free ctl word for the game's own fields

# -- search configuration rows (Lineup.search[entry, :]) ----------------------------------------------------
S_ALGO = 0  # the entry's search algorithm (Algo): none (a plain bot), rollout or ismcts
S_PLAYOUTS = 1  # playouts per candidate
S_MARGIN = 2  # weight of the score margin (points) added to the win share
S_MAXCAND = 3  # at most this many candidates searched (the policy's own pick and then the best by feature 0)
S_SWITCH = 4  # another candidate replaces the policy's pick only if its mean value is higher by more than this
S_VALUE = 5  # playout value (Value): the win share or the share of the other seats beaten
S_FORBID = 6  # restricted play: option classes (bit mask over the game's OPTIONS) this entry may not choose
S_ONLY = 7  # restricted play: option classes this entry must choose whenever one of them is a candidate
S_KINDS = 8  # decision kinds searched (bit k = kind k); 0 = every kind. Other kinds: the playout policy decides
S_LOWER = 9  # 1 for a game whose lowest score wins (GameSpec.lower_wins): the search negates playout scores
S_C = 10  # ismcts (sim.core.ismcts): UCB1 exploration constant
S_BIAS = 11  # ismcts: weight of the progressive bias (feature 0 scaled to [0, 1] among the candidates, / (visits + 1))
S_CUTOFF = 12  # ismcts: playouts stop after this many decisions (0 = at the end) and score the position as it stands
S_EPS = 13  # ismcts: probability that a playout decision is a uniformly random candidate instead of the policy's
S_PERCAND = 14  # ismcts: iterations per root candidate searched (0 = S_PLAYOUTS iterations per decision)
S_WIDEN = 15  # ismcts: progressive widening, a node visited v times offers at most 1 + S_WIDEN x sqrt(v) moves
S_ROOT = 16  # ismcts: the root's schedule (sim.core.ismcts.Root: UCB1, sequential halving, or it keeping the pick)
S_DEPTH = 17  # ismcts: the tree holds at most this many searched decisions from the root (0 = no cap)
# 1: search from the TRUE state, Dreef et al.'s fictive (clairvoyant) player of relative skill: each playout or
# iteration copy is re-dealt as usual (so whatever else a re-deal does is done alike) and then overwritten by the true
# record, its stream started again; the playouts so know the chance outcomes and the other seats' hidden holdings.
# In a game without chance or hidden information the search then makes exactly its plain choices.
S_TRUE = 18
# rollout (sim.core.search): racing. 0 = off (every candidate gets every playout); z > 0: once every candidate has
# S_RACE_FROM playouts (0: a quarter of its playouts, at least 4; at least 2), after each round a candidate whose paired
# playout values (common re-deals) fall short of the leader's by more than z standard errors gets no more playouts,
# and the search stops when one is left
S_RACE = 19
S_RACE_FROM = 20
S_WIDTH = 21


class Algo(IntEnum):
    """A lineup entry's search algorithm (``Lineup.search[entry, S_ALGO]``; ``sim.core.bots.SEARCH_ALGOS`` maps the
    names a bot module gives in ``SEARCH`` to these)."""

    NONE = 0  # a plain bot: fns[entry] is asked
    ROLLOUT = 1  # flat Monte-Carlo rollout search (sim.core.search)
    ISMCTS = 2  # information-set MCTS (sim.core.ismcts)


ALGO_NONE = Algo.NONE  # the name lab.studies.quality and sim.acbas import


def algo_name(code) -> str:
    """Search algorithm ``code``'s name for people (``Algo``'s member name; the code itself if it names none)."""
    try:
        return Algo(int(code)).name
    except ValueError:
        return str(code)


class Value(IntEnum):
    """What a finished playout is worth to the searching seat (``Lineup.search[entry, S_VALUE]``)."""

    WIN = 0  # its win share (a k-way shared first place: 1/k)
    RANK = 1  # its share of the other seats it finishes ahead of (a tie counts half)


def fm_new(cx, np_, log):
    raise NotImplementedError("fm_new: no game registered for this context type")


def fm_reset(st, cx, seed, g):
    raise NotImplementedError("fm_reset: no game registered for this state type")


def fm_advance(st, cx):
    raise NotImplementedError("fm_advance: no game registered for this state type")


def fm_apply(st, cx, i):
    raise NotImplementedError("fm_apply: no game registered for this state type")


def fm_determinise(st, cx, seat, r):
    raise NotImplementedError("fm_determinise: no game registered for this state type")


def fm_result(st, cx, sc, tb, brk):
    raise NotImplementedError("fm_result: no game registered for this state type")


def fm_redraw(st, cx, r):
    raise NotImplementedError("fm_redraw: no game registered for this state type")


def fm_option_mask(st, cx, i):
    raise NotImplementedError("fm_option_mask: no option classes registered for this state type")


def _is(numba_type, classes) -> bool:
    return getattr(numba_type, "instance_class", None) in classes


_EXACT_REDRAW: set = set()  # state and context classes whose game registered its own redraw
_PARTS: dict = {}  # context class -> (the game's new, its compile parts) (register's parts; warm_engine)
_WARMED: set = set()  # context classes whose parts this process has warmed
_MODULES: dict = {}  # context class -> the modules whose register / register_options bound its fm_* names


def engine_modules(cx) -> tuple[str, ...]:
    """The modules that bound the ``fm_*`` names for the game of context ``cx`` (:func:`register`,
    :func:`register_options`): what another process imports before it compiles shared code for that game."""
    return tuple(_MODULES.get(type(cx), ()))


def _note_module(ctx_cls) -> None:
    import sys

    name = sys._getframe(2).f_globals.get("__name__")
    if name and name not in _MODULES.setdefault(ctx_cls, []):
        _MODULES[ctx_cls].append(name)


def warm_engine(cx) -> None:
    """Before the first shared loop of a game compiles in this process: on a cold cache, compile the parts its
    engine registered (``register(..., parts=...)``) on every core (``sim.core.parcompile.warm_parts``), so that
    the loop, which compiles the engine inline, loads them instead of compiling them one after the other. Once
    per process and context type; nothing for a game that registered none."""
    entry = _PARTS.get(type(cx))
    if entry is None or type(cx) in _WARMED:
        return
    _WARMED.add(type(cx))
    import numba

    from .parcompile import warm_parts

    new, parts = entry
    st = new(cx, 2, np.zeros((0, 1), dtype=np.int64))  # an example state: its numba type is the loop's
    warm_parts(parts, (numba.typeof(st), numba.typeof(cx), types.int64, types.int64))


def exact_redraw(st_or_cx) -> bool:
    """Whether the game of a state or context (an instance or its class) registered its own ``redraw``; False: its
    ``fm_redraw`` is the fallback, ``fm_determinise`` for the seat to move."""
    cls = st_or_cx if isinstance(st_or_cx, type) else type(st_or_cx)
    return cls in _EXACT_REDRAW


def register(state_cls, ctx_cls, *, new, reset, advance, apply, determinise, result, redraw=None, parts=()) -> None:
    """Bind a game's forward-model functions (numba functions) to the shared ``fm_*`` names for its state
    and context classes (``NamedTuple`` types). Call once, at import of the game's engine. ``redraw`` (optional,
    ``redraw(st, cx, r)``): see ``fm_redraw``; without it ``fm_redraw`` re-deals for the seat to move with
    ``determinise`` (nothing when no decision is pending). ``parts`` (optional, for an engine the shared loop
    compiles inline rather than behind :func:`step_pointer`): groups of the engine's functions that take
    ``(st, cx)``, then at most two integers (``apply(st, cx, i)``), of about equal compile time; see
    :func:`warm_engine`."""
    ours = (state_cls, ctx_cls)
    _note_module(ctx_cls)
    if parts:
        _PARTS[ctx_cls] = (new, parts)
    if redraw is not None:
        _EXACT_REDRAW.update(ours)

        @overload(fm_redraw, inline="always")
        def _redraw(st, cx, r):
            if _is(st, ours):
                return lambda st, cx, r: redraw(st, cx, r)
    else:
        _EXACT_REDRAW.difference_update(ours)

        @overload(fm_redraw, inline="always")
        def _redraw_fallback(st, cx, r):
            if _is(st, ours):

                def fallback(st, cx, r):
                    seat = st.rec[0].ctl[C_SEAT]
                    if seat >= 0:
                        determinise(st, cx, seat, r)

                return fallback

    @overload(fm_new, inline="always")
    def _new(cx, np_, log):
        if _is(cx, ours):
            return lambda cx, np_, log: new(cx, np_, log)

    @overload(fm_reset, inline="always")
    def _reset(st, cx, seed, g):
        if _is(st, ours):
            return lambda st, cx, seed, g: reset(st, cx, seed, g)

    @overload(fm_advance, inline="always")
    def _advance(st, cx):
        if _is(st, ours):
            return lambda st, cx: advance(st, cx)

    @overload(fm_apply, inline="always")
    def _apply(st, cx, i):
        if _is(st, ours):
            return lambda st, cx, i: apply(st, cx, i)

    @overload(fm_determinise, inline="always")
    def _det(st, cx, seat, r):
        if _is(st, ours):
            return lambda st, cx, seat, r: determinise(st, cx, seat, r)

    @overload(fm_result, inline="always")
    def _result(st, cx, sc, tb, brk):
        if _is(st, ours):
            return lambda st, cx, sc, tb, brk: result(st, cx, sc, tb, brk)


def register_options(state_cls, ctx_cls, option_mask) -> None:
    """Bind a game's option classes (restricted play, ``sim/core/restrict.py``): ``option_mask(st, cx, i)`` is the
    bit mask of the classes (bits = positions in ``GameSpec.options``) candidate ``i`` of the pending decision
    belongs to; 0 for a candidate of no class (where to place a tile, which chain to harvest, ...)."""
    ours = (state_cls, ctx_cls)
    _note_module(ctx_cls)

    @overload(fm_option_mask, inline="always")
    def _mask(st, cx, i):
        if _is(st, ours):
            return lambda st, cx, i: option_mask(st, cx, i)


def copy_record(dst, src):
    """Copy record array ``src`` (shape (1,)) into ``dst`` of the same dtype, of the candidate rows only the pending
    decision's (see :func:`fm_copy`); compiled per record type by the overload below."""


def record_spans(rec) -> tuple[tuple[tuple[int, int], ...], tuple[int, int, int], tuple[int, int, int]]:
    """Byte spans of a numba record type for :func:`copy_record`: the runs copied whole (the record but its
    ``moves`` and ``feats`` fields) and, for ``moves`` and ``feats``, (offset, bytes per row, rows); ``(0, 0, 0)``
    where the record has no such field (or it is not an array of rows)."""
    fields = rec.fields
    rows = []
    for name in ("moves", "feats"):
        typ, off = (fields[name][0], fields[name][1]) if name in fields else (None, 0)
        shape = tuple(getattr(typ, "shape", ()) or ())
        if not shape:
            rows.append((0, 0, 0))
            continue
        rows.append((off, int(np.prod(shape[1:], dtype=np.int64)) * (typ.dtype.bitwidth // 8), shape[0]))
    whole, at = [], 0
    for a, b in sorted((o, o + r * n) for o, r, n in rows if n):
        if a > at:
            whole.append((at, a))
        at = max(at, b)
    if at < rec.size:
        whole.append((at, rec.size))
    return tuple(whole), rows[0], rows[1]


@overload(copy_record, inline="always")
def _copy_record(dst, src):
    whole, (mo, mr, mn), (fo, fr, fn) = record_spans(dst.dtype)
    if not (mn and fn and mr and fr) or len(whole) > 3:
        return lambda dst, src: _copy_whole(dst, src)
    (a0, b0), (a1, b1), (a2, b2) = whole + ((0, 0),) * (3 - len(whole))  # three runs, empty ones copy nothing

    def impl(dst, src):
        copy_bytes(dst, src, a0, b0 - a0)
        copy_bytes(dst, src, a1, b1 - a1)
        copy_bytes(dst, src, a2, b2 - a2)
        n = min(max(src[0].ctl[C_N], 0), mn)
        copy_bytes(dst, src, mo, n * mr)
        copy_bytes(dst, src, fo, min(n, fn) * fr)

    return impl


@intrinsic
def copy_bytes(typingctx, dst, src, start, nbytes):
    """``nbytes`` bytes of array ``src``'s data from byte ``start`` into ``dst``'s at the same place (a memcpy: no
    array views, so no reference counting, which the engines' compiled code does without)."""
    sig = types.void(dst, src, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        d, s, start_, nbytes_ = args
        byte = ir.IntType(8).as_pointer()
        da = context.make_array(signature.args[0])(context, builder, d)
        sa = context.make_array(signature.args[1])(context, builder, s)
        dp = builder.gep(builder.bitcast(da.data, byte), [start_])
        sp = builder.gep(builder.bitcast(sa.data, byte), [start_])
        cgutils.raw_memcpy(builder, dp, sp, nbytes_, 1)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def _copy_whole(dst, src):
    dst[0] = src[0]


@njit(cache=True, inline="always")
def fm_copy(dst, src):
    """Copy a state into another of the same game (``log`` and ``nlog``, the event channel, stay): the record
    byte for byte, but of the candidate rows ``moves`` and ``feats`` only the pending decision's ``ctl[C_N]`` (the
    rows past them are left over from earlier decisions and never read: every decision writes whole rows for its
    candidates, which the conformance kit's stepping check asks; a playout's copy of a Hacienda state moved 444 KB,
    half of it those rows)."""
    copy_record(dst.rec, src.rec)


@njit(cache=True, inline="always")
def searched_kind(cfg, kind):
    """Whether a search entry (``cfg`` = its ``Lineup.search`` row) searches decisions of ``kind``."""
    m = np.int64(cfg[S_KINDS])
    return m == 0 or ((m >> np.int64(kind)) & 1) == 1


@njit(cache=True, inline="always")
def searches(cfg, n, kind):
    """Whether a lineup entry (``cfg`` = its ``Lineup.search`` row) searches a decision of ``n`` candidates and
    ``kind`` (a search bot, more than one candidate, a kind it searches); otherwise its bot (or policy) is asked."""
    return int(cfg[S_ALGO]) != Algo.NONE and n > 1 and searched_kind(cfg, kind)


@njit(cache=True, inline="always")
def ask(st, fns, weights, entry):
    """Ask lineup entry ``entry`` for the pending decision; a lone candidate needs no bot and an
    out-of-range answer falls back to the first candidate."""
    r = st.rec[0]
    n = r.ctl[C_N]
    if n <= 1:
        return 0
    r.ctl[C_DECISIONS] += 1
    i = fns[entry](r.ctl[C_KIND], r.pub, r.moves, n, r.feats, weights[entry], r.rng)
    if i < 0 or i >= n:
        return 0
    return i


# -- compile time: an engine behind one function pointer --------------------------------------------------------
# numba links the machine code of every function a function calls into the caller's own and optimises it all again
# there, so an engine called directly from the shared loop is optimised once per level above it (the loop, the
# batch, the search and each of their entry points). A game can instead compile its engine once, as one function
# ``step(st, eng, i)`` (``eng``: the game's engine context, without the pointer itself), and keep it in its context
# as a function pointer: ``fm_advance``/``fm_apply`` then call through the pointer, as the loop calls bots.
class Step(IntEnum):
    """What ``step(st, eng, i)`` does for an ``i`` below 0 (``i >= 0``: perform candidate ``i``)."""

    ADVANCE = -1  # advance to the next decision; returns its seat or -1
    RESET = -2  # set up the table (the stream already seeded); games that use it


STEP_ADVANCE, STEP_RESET = Step.ADVANCE, Step.RESET  # the names the games' engines import


class StepPointer(WrapperAddressProtocol):
    """A numba dispatcher compiled for one signature, as numba's first-class function (the wrapper address
    protocol of ``numba.core.types.function_type``): numba types it as a function pointer and calls it without
    linking its code into the caller."""

    def __init__(self, dispatcher, sig, parts=()):
        import threading

        self.dispatcher = dispatcher
        self.sig = sig
        self.parts = parts
        self.compiled = False
        self._lock = threading.Lock()
        self._address = 0  # the compiled function's address, once looked up

    def compile(self) -> None:
        """Compile (or load from numba's cache) the step function, once: on the first call through the pointer,
        not when the context holding it is made, so that planning a run (``--dry-run``) never waits for a
        compile it does not use."""
        if self.compiled:
            return
        with self._lock:
            if not self.compiled:
                from .parcompile import compile_split

                compile_split(self.dispatcher, self.sig, self.parts)
                self.compiled = True

    def __wrapper_address__(self):
        """The compiled function's address: numba asks for it each time it passes the pointer from Python into
        compiled code (every batch, every step of the play server); looked up in the compiled library once (a
        lookup costs about 0.1 ms), then remembered (the code stays where it is for the life of the process)."""
        if not self._address:
            from numba.experimental.function_type import _get_wrapper_address

            self.compile()
            self._address = _get_wrapper_address(self.dispatcher, self.sig)
        return self._address

    def signature(self):
        return self.sig


_POINTERS: dict = {}


def step_pointer(dispatcher, *args_for_types, parts=()):
    """``dispatcher`` (an ``njit`` function returning int64) as a function pointer for the numba types of
    ``args_for_types`` (example values: a state, the engine context, an int): compiled once per process and
    signature (loaded from numba's cache after the first run). ``parts``: groups of functions of ``dispatcher``'s
    tree that take a prefix of its arguments; on a cold cache the groups after the first compile in
    helper processes on the spare cores (``sim.core.parcompile``; the same machine code, a shorter wait)."""
    import numba
    from numba import types

    sig = types.int64(*(numba.typeof(a) for a in args_for_types))
    key = (id(dispatcher), sig)
    if key not in _POINTERS:
        _POINTERS[key] = StepPointer(dispatcher, sig, parts)
    return _POINTERS[key]
