"""The kit's check of ``redraw`` (``sim.core.forward.fm_redraw``, optional): fresh future chance from the TRUE state,
what ``meeplab quality``'s win probabilities start from.

From the declarations of ``GameSpec.hidden`` alone (no knowledge of the game): an element a redraw may change is one
that NO seat has seen (in every seat's ``unseen``; for a ``counts`` field, a count that every seat's unseen counts
cover) or one a declaration names as scratch; every other element of every field (the other seats' hands and
tokens, the board, the pending decision's candidates and features) must come out bit-identical, the cards nobody
has seen must stay the same cards (each declaration's, or each pool's, in a fresh order), and the same stream must
give the same state. A game that registers no redraw is reported as such (``quality`` then re-deals for the seat
to move, and says so)."""

from __future__ import annotations

import numpy as np
from numba import njit

from meeplab.sim.core import face, forward
from meeplab.sim.core.rng import rng_init

from .hidden import scratch_indices, unseen_counts, unseen_indices


@njit(cache=False)
def _call_redraw(st, cx, seed, stream):
    """``fm_redraw`` from Python, drawing from the stream ``(seed, stream)`` (compiled per game)."""
    r = np.zeros(4, dtype=np.uint64)
    rng_init(r, seed, stream)
    forward.fm_redraw(st, cx, r)


def _redrawn(kit, st, cx, stream: int):
    cp = kit.new(cx, int(st.rec[0]["ctl"][forward.C_NP]))
    face.copy(cp, st)
    _call_redraw(cp, cx, np.uint64(kit.seed), stream)
    return cp


def _free(game, rec, cx, p: int) -> dict[str, np.ndarray]:
    """Per hidden field, the flat elements a redraw may change: unseen by every seat, or scratch."""
    out: dict[str, np.ndarray] = {}
    for h in game.hidden:
        size = np.asarray(rec[h.field]).size
        free = out.setdefault(h.field, np.zeros(size, dtype=bool))
        for s in range(p):
            free[scratch_indices(h, rec, s, cx)] = True
        if h.derive is not None:
            continue  # follows from the cards held: unchanged when the holdings are
        if h.counts is not None:
            common = np.min([unseen_counts(h, rec, s, cx).reshape(-1) for s in range(p)], axis=0)
            free |= common > 0
            continue
        every = np.ones(size, dtype=bool)
        for s in range(p):
            mine = np.zeros(size, dtype=bool)
            idx = unseen_indices(h, rec, s, cx)
            if idx is not None:
                mine[idx] = True
            every &= mine
        free |= every
    return out


def check_redraw(kit) -> str:
    """``redraw`` keeps everything any seat holds or has seen and re-deals only what no seat has seen, from its
    stream alone (the declarations of ``GameSpec.hidden`` say which elements those are)."""
    g = kit.game
    if not g.forward_model:
        return "skipped: no forward model"
    from .coverage import coverage_table

    if not forward.exact_redraw(kit.cx(kit.lineup(g.default_players, rotate=False))):
        return (
            "skipped: the game registers no redraw (meeplab quality re-deals for the seat to move with determinise, "
            "which also re-deals the other seats' hidden holdings, and says so)"
        )
    covered: dict = {}
    points = []  # as the hidden check: every player count, decision kind and phase of the game (Kit.breadth)
    for p in kit.players:
        for game_index in range(kit.sample_games):
            pts, _lu, cx = kit.decision_sample(p, game_index, covered)
            points += [(p, cx, st) for st, *_ in pts]
    moved = movable = 0
    for p, cx, st in points:
        a = st.rec[0]
        free = _free(g, a, cx, p)
        for name, f in free.items():  # unseen elements that a fresh deal could put otherwise (two values at least)
            if f.any() and np.unique(np.asarray(a[name]).reshape(-1)[f]).size > 1:
                movable += 1
        for stream in range(2):
            b = _redrawn(kit, st, cx, stream)
            assert b.rec.tobytes() == _redrawn(kit, st, cx, stream).rec.tobytes(), (
                "redraw gave two different states from the same stream (it must draw only from the stream it is given)"
            )
            rb = b.rec[0]
            for name in a.dtype.names:
                if name == "rng":
                    continue  # the game's own stream: a redraw may leave it as it likes
                x = np.asarray(a[name]).reshape(-1)
                y = np.asarray(rb[name]).reshape(-1)
                keep = ~free.get(name, np.zeros(x.size, dtype=bool))
                diff = np.nonzero(keep & (x != y))[0]
                assert diff.size == 0, (
                    f"redraw changed '{name}' at flat index {int(diff[0])} ({x[diff[0]]} -> {y[diff[0]]}; {p} "
                    "players), which some seat holds or has seen (or is not declared hidden): a redraw keeps "
                    "everything but unseen chance"
                )
                if name in free and free[name].any():
                    fx, fy = x[free[name]], y[free[name]]
                    moved += int(np.count_nonzero(fx != fy))
                    if not any(h.counts is not None or h.pool for h in g.hidden if h.field == name):
                        assert np.array_equal(np.sort(fx), np.sort(fy)), (
                            f"redraw changed which unseen cards '{name}' holds ({p} players; not the same cards in a "
                            "fresh order)"
                        )
    assert moved > 0 or movable == 0, (
        f"redraw re-dealt nothing at {len(points)} states x 2 streams, where the declared unseen chance "
        f"({', '.join(sorted(h.field for h in g.hidden))}) could come out otherwise: meeplab quality would play "
        "its playouts with no fresh chance"
    )
    table = coverage_table(covered, kit.players, list(g.features) if g.features else [])
    return (
        f"{len(points)} states x 2 streams: everything held or seen kept, {moved} unseen elements re-dealt; states "
        f"by player count, decision kind and phase:\n{table}"
    )
