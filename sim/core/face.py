"""What every game on the forward model shares: its face's ``play``/``decisions``/``events``/``replay``, the state
record's text, and the forward model called from Python.

A game hands :class:`Face` the function that makes its engine context for a run and its score categories, and
hands the face to ``GameSpec`` in one line (:meth:`Face.spec_fields`; a game with a replay of its own passes it)::

    FACE = Face(forward_context=lambda ctx, lineup: ctx.cx, n_categories=len(CATEGORIES), log_width=LOGW,
                format_game=replay.format_game)
    GAME = GameSpec(id=..., title=..., ..., **FACE.spec_fields())

A game also hands the face the feature columns it declares (``features``): per decision kind name, the names of
the columns its engine writes in ``feats``, in order; :meth:`Face.spec_fields` hands them to the game's spec, where
generic code reads them (``get_game(id).features``); a game names its columns with one ``IntEnum`` per kind
(the engine writes ``feats[i, Place.GAIN]``, its bots read the same names) and :func:`column_names` turns one into
the declared tuple.

The ``fm_*`` functions below call a game's registered forward model (``sim.core.forward.register``) from Python:
``new_state(cx, np_, log)``, ``reset(st, cx, seed, g)``, ``advance(st, cx)``, ``apply(st, cx, i)``,
``determinise(st, cx, seat, r)``, ``result(st, cx, score, tiebreak, brk)``, ``option_mask(st, cx, i)``. They are
compiled once per game in one function (:func:`forward_op`; keyed by the game's sources like the shared loop), and
are what tests, the conformance kit (``meeplab.testing``) and tools step a game with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import IntEnum
from typing import Any

import numpy as np
from numba import njit

from . import forward
from .errors import MeeplabError
from .events import LOG_WIDTH
from .forward import fm_advance, fm_apply, fm_determinise, fm_new, fm_option_mask, fm_reset, fm_result
from .play import LogOverflow, run_batch, run_decisions, run_logged


def _memoise_record_types() -> None:
    """Make numba's typing of a structured dtype (``numpy_support.from_struct_dtype``) remember its answer.

    Every call of a compiled function from Python types its arguments first; a state is a ``NamedTuple`` of
    structured arrays, and numba derives a record type from the dtype's fields anew on every call (~2.5 ms for
    Hacienda's record, most of the time a Python-stepped move took: the play page, the viewer, the kit). The
    answer depends only on the dtype (and its alignment), so it is kept per dtype; the types are the ones numba
    would build, so what compiles and what runs does not change."""
    from numba.np import numpy_support as ns

    if getattr(ns.from_struct_dtype, "meeplab_memo", False):
        return
    build, aligned = ns.from_struct_dtype, ns._is_aligned_struct
    memo: dict = {}

    def from_struct_dtype(dtype):
        key = (dtype, aligned(dtype))
        ty = memo.get(key)
        if ty is None:
            ty = memo[key] = build(dtype)
        return ty

    from_struct_dtype.meeplab_memo = True
    ns.from_struct_dtype = from_struct_dtype


_memoise_record_types()

LOG_ROWS = 4096  # the event log's first size; it doubles while a game's log overflows it
LOG_ROWS_MAX = 1 << 22  # ... up to this many rows; a game that writes more is reported, never cut short


@njit(cache=True)
def new_state(cx, np_, log):
    """A fresh state of the game whose context is ``cx``, for ``np_`` players, writing events into ``log``."""
    return fm_new(cx, np_, log)


OP_RESET, OP_ADVANCE, OP_APPLY, OP_DETERMINISE, OP_RESULT = range(5)


@njit(cache=True)
def forward_op(st, cx, op, x, y, r, score, tiebreak, brk):
    """Every forward-model call in one compiled function per game (one compile instead of five): ``op`` picks it,
    ``x``/``y`` are its integers (seed and game, a candidate, a seat), ``r`` a stream, the rest result buffers."""
    if op == OP_RESET:
        fm_reset(st, cx, x, y)
    elif op == OP_ADVANCE:
        return fm_advance(st, cx)
    elif op == OP_APPLY:
        fm_apply(st, cx, x)
    elif op == OP_DETERMINISE:
        fm_determinise(st, cx, x, r)
    elif op == OP_RESULT:
        fm_result(st, cx, score, tiebreak, brk)
    return 0


@njit(cache=True)
def option_mask_of(st, cx, i):
    """The option classes of candidate ``i`` (compiled apart: only a game that registers option classes has it)."""
    return fm_option_mask(st, cx, i)


_NO_R = np.zeros(4, dtype=np.uint64)
_NO_1 = np.zeros(1)
_NO_2 = np.zeros((1, 1))


def _op(st, cx, op, x=0, y=0, r=_NO_R, score=_NO_1, tiebreak=_NO_1, brk=_NO_2):
    forward.warm_engine(cx)  # before forward_op first compiles the engine inline (once per process and game)
    return int(forward_op(st, cx, op, np.int64(x), np.int64(y), r, score, tiebreak, brk))


def reset(st, cx, seed, g) -> None:
    """Start game ``g`` of ``seed`` on ``st``."""
    _op(st, cx, OP_RESET, seed, g)


def advance(st, cx) -> int:
    """Run the forced steps up to the next decision: its seat, or -1 once the game is over."""
    return _op(st, cx, OP_ADVANCE)


def apply(st, cx, i) -> None:
    """Perform candidate ``i`` of the pending decision."""
    _op(st, cx, OP_APPLY, i)


def determinise(st, cx, seat, r) -> None:
    """Re-deal everything ``seat`` has not seen, drawing from the stream ``r`` (uint64[4])."""
    _op(st, cx, OP_DETERMINISE, seat, 0, r)


def result(st, cx, score, tiebreak, brk) -> None:
    """The final score, tie-break and breakdown of every seat (into the float64 arrays given)."""
    _op(st, cx, OP_RESULT, score=score, tiebreak=tiebreak, brk=brk)


def option_mask(st, cx, i) -> int:
    """The option classes (bit mask) of candidate ``i`` of the pending decision."""
    return int(option_mask_of(st, cx, np.int64(i)))


def copy(dst, src) -> None:
    """Copy state ``src`` into ``dst`` (one record assignment, as the shared ``fm_copy``)."""
    dst.rec[0] = src.rec[0]


def describe(st, names: dict[str, dict[int, str]] | None = None) -> str:
    """The state record as text, one field a line; ``ctl`` by the shared control words' names (``C_*`` of
    ``sim.core.forward``) and any the game adds in ``names["ctl"]`` (word index -> name), ``names["pub"]`` likewise
    for view slots."""
    names = names or {}
    rec = st.rec[0]
    shared = vars(forward).items()
    ctl_names = {v: k for k, v in shared if k.startswith("C_") and isinstance(v, int) and k != "C_COMMON"}
    ctl_names.update(names.get("ctl", {}))
    lines = ["ctl: " + ", ".join(f"{ctl_names.get(i, i)}={int(x)}" for i, x in enumerate(rec["ctl"]))]
    pub = names.get("pub", {})
    if pub:
        lines.append("pub: " + ", ".join(f"{pub.get(i, i)}={int(x)}" for i, x in enumerate(rec["pub"])))
    for f in rec.dtype.names:
        if f != "ctl" and not (f == "pub" and pub):
            lines.append(f"{f}: {np.array2string(rec[f], threshold=60, max_line_width=200)}")
    return "\n".join(lines)


def column_names(columns: type[IntEnum], width: int) -> tuple[str, ...]:
    """The ``width`` feature column names of one decision kind, in column order, from the ``IntEnum`` that names
    them (member ``GAIN = 0`` gives ``"gain"`` at column 0); a column no member names is ``"unused_N"``."""
    names = [f"unused_{i}" for i in range(width)]
    for c in columns:
        if not 0 <= c < width:
            raise ValueError(f"{columns.__name__}.{c.name} = {int(c)} is not a column below {width}")
        names[c] = c.name.lower()
    return tuple(names)


class Face:
    """A forward-model game's ``play``, ``decisions``, ``events`` and ``replay`` in one object.

    ``forward_context(ctx, lineup)``: the engine context of a run (most games: ``ctx.cx``; a game whose context depends
    on the line-up builds it here). ``format_game(ctx, lineup, seed, index, n_players, log, length, score, brk,
    explain=False) -> str``: the replay text from the event log (``None``: :meth:`replay` lists the raw rows).
    ``features``: the feature columns the game declares, ``{kind name: (column name, ...)}`` with the kinds in
    ``ctl[C_KIND]`` order and each tuple in column order (``feats[i, j]`` of a decision of kind ``k`` is column
    ``features[list(features)[k]][j]``); empty for a game that declares none. ``codes`` (kind name -> number of
    codes: the kinds whose ``moves[i, 0]`` is a move code) and ``progress`` (view indices ``(num, den)``) shape the
    learned policy's weights (``sim.core.policy``)."""

    def __init__(
        self,
        forward_context: Callable[[Any, Any], Any],
        n_categories: int,
        log_width: int = LOG_WIDTH,
        format_game: Callable[..., str] | None = None,
        log_rows: int = LOG_ROWS,
        features: Mapping[str, tuple[str, ...]] | None = None,
        codes: Mapping[str, int] | None = None,
        progress: tuple[int, int] | None = None,
    ):
        self.forward_context = forward_context
        self.n_categories = int(n_categories)
        self.log_width = int(log_width)
        self.format_game = format_game
        self.log_rows = int(log_rows)
        self.features = {str(k): tuple(str(c) for c in v) for k, v in (features or {}).items()}
        self.codes = {str(k): int(v) for k, v in (codes or {}).items()}
        self.progress = None if progress is None else (int(progress[0]), int(progress[1]))

    @staticmethod
    def of(spec) -> Face | None:
        """The face a game's ``GameSpec`` was made from (the one whose ``play`` it holds), or ``None`` for a game
        that makes its own ``play``."""
        face = getattr(spec.play, "__self__", None)
        return face if isinstance(face, Face) else None

    def spec_fields(self, **own) -> dict[str, Any]:
        """The ``GameSpec`` fields the face provides (``play``, ``decisions``, ``events``, ``replay``,
        ``forward_context``, ``forward_model``, ``features``, ``feature_codes``, ``feature_progress``), with ``own``
        in place of any the game makes itself."""
        fields = {
            "play": self.play,
            "decisions": self.decisions,
            "events": self.events,
            "replay": self.replay,
            "forward_context": self.forward_context,
            "forward_model": True,
            "features": dict(self.features),
            "feature_codes": dict(self.codes),
            "feature_progress": self.progress,
        }
        unknown = set(own) - set(fields)
        if unknown:
            raise TypeError(f"Face.spec_fields: {', '.join(sorted(unknown))} is not a field the face provides")
        return {**fields, **own}

    def play(self, ctx, lineup, seed, start, n_games, n_players):
        """Games ``start .. start + n_games - 1`` on all threads, as a ``Batch``."""
        cx = self.forward_context(ctx, lineup)
        return run_batch(cx, lineup, n_players, seed, start, n_games, self.n_categories, self.log_width)

    def decisions(self, ctx, lineup, seed, start, n_games, n_players) -> int:
        """Bot decisions with more than one candidate in these games (the bench's decisions per second)."""
        cx = self.forward_context(ctx, lineup)
        return run_decisions(cx, lineup, n_players, seed, start, n_games, self.n_categories)

    def events(self, ctx, lineup, seed, index, n_players):
        """Game ``index``'s event log (the batch's own code path, logging on) and results: (log rows, length,
        score, breakdown). The log grows until the game fits; past :data:`LOG_ROWS_MAX` rows, MeeplabError."""
        cx = self.forward_context(ctx, lineup)
        rows = self.log_rows
        while True:
            log = np.zeros((rows, self.log_width), dtype=np.int64)
            try:
                n, score, _, brk, length, _ = run_logged(cx, lineup, n_players, seed, index, log, self.n_categories)
            except LogOverflow:
                if rows >= LOG_ROWS_MAX:
                    raise MeeplabError(
                        f"game {index} writes more than {rows} event rows: its log is not replayed"
                    ) from None
                rows *= 2
                continue
            return log[:n], int(length), score, brk

    def replay(self, ctx, lineup, seed, index, n_players, explain=False) -> str:
        """Game ``index`` as readable text (``explain``: search bots' candidates and values)."""
        log, length, score, brk = self.events(ctx, lineup, seed, index, n_players)
        if self.format_game is not None:
            return self.format_game(ctx, lineup, seed, index, n_players, log, length, score, brk, explain=explain)
        lines = [f"game {index} (seed {seed}), {n_players} players: {len(log)} events"]
        lines += ["  " + " ".join(str(int(x)) for x in row) for row in log]
        lines += [f"seat {s + 1}: {score[s]:g}" for s in range(n_players)]
        return "\n".join(lines)
