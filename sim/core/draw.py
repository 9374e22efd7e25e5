"""Seeing a game: one game traced decision by decision, and the contract of a game's drawing module.

**The trace.** :func:`trace` plays game ``g`` of a run exactly as the batch does (the same calls as
``sim.core.play.play_game``: restricted play, search bots, plain bots, in the same order, on the same random
stream) and keeps a copy of the state record at every decision (before the move is applied), the candidate
chosen, and the event log (search bots log their candidates' mean playout values, what ``meeplab replay
--explain`` prints). The viewer (``meeplab view``) and the play page draw these records.

**A game's drawing module** (``sim/<id>/draw.py``, reached through ``GameSpec.draw``; the viewer and the play
page know no game by name). It reads a state record ``rec`` (``trace(...).states[k]``, one ``np.void``
record; fields by name, ``rec["pub"]``, ``rec["ctl"]``, ...) and draws it as SVG. Every function that shows
the table takes ``seat``: ``None`` draws everything (hidden tiles face up, every hand), ``0 .. P-1`` draws
what that seat can see (seat 0 = the start player; people read seat ``k + 1``) and must never put into its
output anything that seat cannot see: the play page sends it to a browser as is.

=============================================  ===================================================================
``size(ctx, n_players) -> (w, h)``             the drawing's size in SVG user units (the viewBox ``0 0 w h``)
``base(ctx, n_players) -> str``                SVG elements that never change during a game (the printed board,
                                               grid, legend), drawn once under the pieces
``pieces(ctx, rec, seat) -> list[str]``        SVG elements of everything that changes (tiles, animals, markers,
                                               face-down backs), each a self-contained element or ``<g>``. The
                                               viewer keeps one copy of each distinct string for the whole game,
                                               so a piece that does not change costs nothing per step: draw each
                                               piece as its own string, the same bytes whenever it looks the
                                               same. A hidden thing drawn as its back (``seat`` given) carries
                                               ``class="back"``; one drawn face up only in the ``None`` view
                                               carries ``class="secret"`` (the viewer's tests look for them)
``info(ctx, rec, seat) -> dict``               beside the board: ``{"columns": [...], "rows": [[label, v1, ..
                                               vP], ...]}`` one column per seat (scores by category, money,
                                               hand: a hand ``seat`` cannot see is given as a count only);
                                               numpy numbers are converted (:func:`checked_info`), other
                                               objects refused in one line
``score(ctx, rec) -> list[float]``             points per seat so far (the score race chart)
``round_of(ctx, rec) -> int``                  the round (or turn) the game is in, from 1 ("jump to round")
``status(ctx, rec) -> str``                    one line: round, phase, the die or card just drawn
``moves(ctx, rec) -> list[(str, str|None)]``   the pending decision's candidates (``rec["moves"][:ctl[C_N]]``)
                                               in order: a label in words and the id of the SVG element of the
                                               board where it would happen (``None`` where it has no place);
                                               the element must exist in ``base`` or ``pieces``
``kind_name(kind) -> str``                     a decision kind in words
``events(ctx, log, lo, hi, names, seat)``     rows ``lo:hi`` of the game's event log in words (the lines of
                                               ``meeplab replay`` for them, search rows left out; the rows before
                                               ``lo`` are context), ``names`` the bot of each seat; as ``seat``
                                               may read them (a card bought blind by another seat is "?")
``PRIVATE_MOVES``                              optional, True where a decision's candidates show what only the
                                               deciding seat knows (cards in hand): other seats' views then show
                                               only the candidate chosen
``LOG_WIDTH``                                  the game's event-log width (columns of ``st.log``)
=============================================  ===================================================================

The engine context a game is traced on is ``GameSpec.forward_context(ctx, lineup)`` (default ``ctx.cx``):
:func:`trace_spec` does it all from a game's face.

Seats wear :data:`SEAT_COLOURS` (Okabe-Ito, readable with every common colour-vision deficiency) and always
carry their number too (a digit on the piece), never colour alone.

**Markup.** ``base`` and ``pieces`` return SVG markup, well-formed XML (the viewer parses it as
``image/svg+xml``): every string in it that comes from data rather than from the module itself (a map's name, a
file name, a parameter's value, a tile type's name from a deck file, a bot's name) goes through :func:`esc`. The
pages parse the markup and keep only drawing elements (no ``script``, no ``foreignObject``), no event attributes
and no links other than ``#id`` (a second line of defence, not a licence to skip :func:`esc`). The other
functions return plain text, which the pages insert as text.

Element ids: ``base`` names the places a move can point at (``id="cell-12"``, ``id="hex-40"``, ...); the viewer
outlines the chosen move's element and the play page makes candidates' elements clickable. Only those elements take
clicks there (the page turns pointer events off for the rest of the board): a letter, a piece or a name drawn over
a place belongs to the place.

Place names: where the labels name places ("hex 0103", "B2"), the board writes those names on them, as
``<text class="place">`` (small and light in both pages' CSS; ``class="place big"`` a size up), over the pieces
(one string of ``pieces``, the same at every step, in a ``<g class="places" pointer-events="none">``) so that no
piece hides where it lies.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
from numba import njit

from .bots import entry_of_seat
from .forward import (
    C_KIND,
    C_N,
    C_NP,
    S_ALGO,
    S_PLAYOUTS,
    Algo,
    fm_advance,
    fm_apply,
    fm_reset,
    fm_result,
    searches,
)
from .play import decide, new_player, search_function

# seat k's colour (seat 0 = the start player): Okabe & Ito's colour-blind-safe palette, all eight of its colours
# (a plugin may seat up to 8: the scaffold's MAXP); the first five are the built-in games' seats, as before
SEAT_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
# a dark or light text colour readable on each seat colour
SEAT_INK = ("#ffffff", "#000000", "#ffffff", "#000000", "#000000", "#ffffff", "#000000", "#ffffff")


def checked_info(value, game: str = "the game"):
    """A drawing's ``info`` as plain JSON data: numpy numbers and booleans become Python ones (``np.int64(3)`` -> 3,
    a non-finite float -> None), tuples and numpy arrays lists; anything else that is not a string, number, bool,
    None, list or dict with string keys is refused in one line naming the drawing (a ``MeeplabError``, not a
    TypeError from deep inside the JSON encoder). The viewer and the play page pass every ``info`` through it."""
    import math

    from .errors import MeeplabError

    def clean(x, where: str):
        if x is None or isinstance(x, (str, bool)):
            return x
        if isinstance(x, np.bool_):
            return bool(x)
        if isinstance(x, (int, np.integer)):
            return int(x)
        if isinstance(x, (float, np.floating)):
            f = float(x)
            return f if math.isfinite(f) else None
        if isinstance(x, (list, tuple, np.ndarray)):
            return [clean(v, f"{where}[{i}]") for i, v in enumerate(x.tolist() if isinstance(x, np.ndarray) else x)]
        if isinstance(x, dict):
            out = {}
            for k, v in x.items():
                if not isinstance(k, str):
                    raise MeeplabError(f"{game}'s drawing: info(){where} has a key {k!r} that is not a string")
                out[k] = clean(v, f"{where}[{k!r}]")
            return out
        raise MeeplabError(
            f"{game}'s drawing: info(){where} is a {type(x).__name__}; give strings, numbers, lists or dicts"
        )

    return clean(value, "")


def esc(text) -> str:
    """``text`` escaped for SVG/HTML text and attribute values (``& < > " '``): every string from data (a map's
    name, a file name, a parameter's value, a label) goes through it before it enters a drawing."""
    return html.escape(str(text), quote=True)


@njit(cache=True)
def trace_game(
    cx, fns, weights, search, rotate, seed, g, log, ncat, srch, states, picks, logat, sacc, scand, score, tb, brk
):
    """Game ``g`` as ``play_game`` plays it, keeping the state before each decision in ``states[k]`` (a record
    array), the candidate applied in ``picks[k]``, the log rows written before it in ``logat[k]`` and, for a
    search decision, the search's sums of playout values ``sacc[k]`` of candidates ``scand[k]`` (the count
    searched and the playouts per candidate are in its E_SEARCH log row). Returns (decisions, log rows)."""
    st, scratch = new_player(cx, score.shape[0], ncat, log)
    st.nlog[1] = 1
    r = st.rec[0]
    fm_reset(st, cx, seed, g)
    np_ = r.ctl[C_NP]
    m = r.moves.shape[0]
    k = 0
    while True:
        seat = fm_advance(st, cx)
        if seat < 0:
            break
        if k < states.shape[0]:
            states[k] = st.rec[0]
            logat[k] = st.nlog[0]
        e = entry_of_seat(seat, g, np_, rotate)
        searched = searches(search[e], r.ctl[C_N], r.ctl[C_KIND])
        i = decide(st, scratch, cx, fns, weights, search, rotate, g, srch)
        if searched and k < states.shape[0]:
            rollout = int(search[e, S_ALGO]) == Algo.ROLLOUT  # other algorithms keep no per-candidate means here
            k_play = search[e, S_PLAYOUTS]
            for j in range(m):
                v = scratch.vis[j]
                a = scratch.acc[j]
                if 0.0 < v < k_play:  # a candidate out of a raced search early: its mean x the budget
                    a = a / v * k_play
                sacc[k, j] = a if rollout else 0.0
                scand[k, j] = scratch.cand[j] if rollout else -1
        if k < states.shape[0]:
            picks[k] = i
        k += 1
        fm_apply(st, cx, i)
    if k < states.shape[0]:
        states[k] = st.rec[0]
        logat[k] = st.nlog[0]
    fm_result(st, cx, score, tb, brk)
    return k, st.nlog[0]


@dataclass
class Trace:
    """One game decision by decision: ``states[k]`` the record before decision ``k`` (``states[-1]``: the
    end), ``picks[k]`` the candidate chosen, ``log[logat[k]:logat[k + 1]]`` the events between decision ``k``
    and ``k + 1`` (the search's E_SEARCH rows first), for search decisions ``search_sum[k, j]`` the summed
    playout value of candidate ``search_cand[k, j]`` (``j`` below the E_SEARCH row's count), and the final
    score, tie-break and breakdown per seat."""

    states: np.ndarray
    picks: np.ndarray
    logat: np.ndarray
    log: np.ndarray
    search_sum: np.ndarray
    search_cand: np.ndarray
    score: np.ndarray
    tiebreak: np.ndarray
    breakdown: np.ndarray
    truncated: bool


def trace(cx, lineup, n_players, seed, g, ncat, log_width, max_steps=4000, log_rows=60000) -> Trace:
    """Trace game ``g`` of ``lineup`` at ``n_players`` seats on engine context ``cx`` (``ncat`` score
    categories; ``log_width`` the game's event-log width; at most ``max_steps`` decisions are kept)."""
    proto = new_player(cx, n_players, ncat, np.zeros((0, log_width), dtype=np.int64))[0]
    states = np.zeros(max_steps + 1, dtype=proto.rec.dtype)
    picks = np.zeros(max_steps + 1, dtype=np.int64)
    logat = np.zeros(max_steps + 1, dtype=np.int64)
    log = np.zeros((log_rows, log_width), dtype=np.int64)
    m = proto.rec[0]["moves"].shape[0]
    sacc = np.zeros((max_steps + 1, m))
    scand = np.zeros((max_steps + 1, m), dtype=np.int64)
    score = np.zeros(n_players)
    tb = np.zeros(n_players)
    brk = np.zeros((n_players, ncat))
    srch = search_function(cx, lineup, n_players, ncat)
    k, nlog = trace_game(
        cx,
        lineup.fns,
        lineup.weights,
        lineup.search,
        lineup.rotate,
        seed,
        g,
        log,
        ncat,
        srch,
        states,
        picks,
        logat,
        sacc,
        scand,
        score,
        tb,
        brk,
    )
    k, nlog = int(k), min(int(nlog), log_rows)
    kept = min(k, max_steps)
    return Trace(
        states=states[: kept + 1].copy(),
        picks=picks[:kept].copy(),
        logat=np.append(logat[: kept + 1], nlog),
        log=log[:nlog].copy(),
        search_sum=sacc[:kept].copy(),
        search_cand=scand[:kept].copy(),
        score=score,
        tiebreak=tb,
        breakdown=brk,
        truncated=k > max_steps,
    )


def trace_spec(spec, ctx, lineup, n_players, seed, g, **kw) -> Trace:
    """:func:`trace` from a game's face (``spec``: its ``GameSpec``; ``ctx``: ``spec.prepare(values)``)."""
    cx = spec.forward_context(ctx, lineup) if spec.forward_context is not None else ctx.cx
    return trace(cx, lineup, n_players, seed, g, len(spec.categories), spec.draw.LOG_WIDTH, **kw)
