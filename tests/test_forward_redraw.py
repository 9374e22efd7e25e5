"""fm_redraw (sim.core.forward): fresh future chance from the TRUE state, for every built-in game and the No Thanks!
example. After a redraw every field of the state record is bit-identical except the positions of chance nobody has
seen (those are a permutation of what they held, and do change in a game with chance): every seat's holdings (the
other seats' hidden cards and tokens included), everything seen, the board and the pending decision's candidates.
Reproducible from the stream. A game that registers no redraw gets determinise for the seat to move, and says so."""

from collections import namedtuple

import numpy as np
import pytest
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.registry import get_game
from meeplab.sim.core.rng import rng_init


def _hacienda(rec, cx):
    from meeplab.sim.hacienda.layout import S_A2, S_APTR, S_LEND, S_LPTR, SR
    from meeplab.sim.hacienda.scoring import P_REMOVED

    t = cx.tab[0]
    spw = max(int(t["n"]) + 2, 64)
    sp = rec["SPf"][SR * spw : (SR + 1) * spw]  # row SR of the SP table (state.tables)
    removed = int(t["pi"][P_REMOVED + int(rec["ctl"][forward.C_NP]) - 2])
    animals = np.concatenate([np.arange(removed), np.arange(int(sp[S_APTR]), int(sp[S_A2]))])
    return [[("ldeck", np.arange(int(sp[S_LPTR]), int(sp[S_LEND])))], [("adeck", animals)]], []


def _goldrush(rec, cx):
    from meeplab.sim.goldrush.const import G_TOKPTR
    from meeplab.sim.goldrush.state import C_DRAWN

    t = cx.tab[0]
    pile = np.arange(int(rec["ctl"][C_DRAWN]), int(t["ntiles"]) - 1)
    return [[("order", pile)], [("tokvals", np.arange(int(rec["gi"][G_TOKPTR]), int(t["ntok"])))]], []


def _schweinebande(rec, cx):
    from meeplab.sim.schweinebande.state import C_DRAWN, M_FACEDOWN, bag_size

    t = cx.tab[0]
    fd = int(rec["mk"][M_FACEDOWN])
    faces = np.array([s for s in range(int(t["ns"])) if fd >> s & 1], dtype=np.int64)
    drawn = int(rec["ctl"][C_DRAWN])
    # the face-down tiles and the undealt bag are one pool; bag[drawn - faces : drawn], the round's spent deal (never
    # read again), is where the redraw lays the face-down tiles out
    pool = [("hidden", faces), ("bag", np.arange(drawn, int(bag_size(t["pi"]))))]
    return [pool], [("bag", np.arange(drawn - len(faces), drawn))]


def _nothanks(rec, cx):
    from meeplab_nothanks.engine import C_NCARDS, C_POS

    return [[("deck", np.arange(int(rec["ctl"][C_POS]) + 1, int(rec["ctl"][C_NCARDS])))]], []


# game, engine module, players, decisions played first, positions of unseen chance (groups of (field, index) that
# hold one pool of cards, and scratch positions the redraw may write; None: no chance at all)
CASES = [
    ("hacienda", "meeplab.sim.hacienda.flow", 3, 40, _hacienda),
    ("goldrush", "meeplab.sim.goldrush.engine", 3, 60, _goldrush),
    ("schweinebande", "meeplab.sim.schweinebande.engine", 3, 12, _schweinebande),
    ("acbas", "meeplab.sim.acbas.engine", 2, 30, None),
    ("nothanks", "meeplab_nothanks.engine", 4, 25, _nothanks),
]


def _mid_game(game_id, module, np_, decisions):
    """A state of game 3 (seed 11) after ``decisions`` decisions, each the candidate best by feature 0, at a
    pending decision; with the engine module and context."""
    import importlib

    if game_id == "nothanks":
        pytest.importorskip("meeplab_nothanks", reason="the example plugin is not installed")
    eng = importlib.import_module(module)
    g = get_game(game_id)
    ctx = g.prepare(g.params.resolve({}, g.id))
    cx = g.engine_context(ctx, make_lineup(g.id, ["random"], np_, True))
    log = np.zeros((0, 8), dtype=np.int64)
    st = eng.new_state(cx, np_, log)
    eng.reset(st, cx, 11, 3)
    k = 0
    while True:
        seat = eng.advance(st, cx)
        assert seat >= 0, "the game ended before the decision asked for"
        if k == decisions:
            return eng, cx, st
        r = st.rec[0]
        n = int(r["ctl"][forward.C_N])
        eng.apply(st, cx, int(np.argmax(r["feats"][:n, 0])) if n > 1 else 0)
        k += 1


@njit(cache=False)
def call_redraw(st, cx, r):
    """The shared name, as the trajectories call it (each game's registered function)."""
    forward.fm_redraw(st, cx, r)


def _redrawn(eng, cx, st, stream):
    copy = eng.new_state(cx, int(st.rec[0]["ctl"][forward.C_NP]), st.log[:0])
    copy.rec[0] = st.rec[0]
    rnd = np.zeros(4, dtype=np.uint64)
    rng_init(rnd, np.uint64(99), stream)
    call_redraw(copy, cx, rnd)
    return copy.rec[0]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_redraw_keeps_what_anyone_holds_or_saw(case):
    game_id, module, np_, decisions, unseen = case
    eng, cx, st = _mid_game(game_id, module, np_, decisions)
    assert forward.exact_redraw(st) and forward.exact_redraw(cx)
    before = st.rec[0].copy()
    groups, scratch = unseen(before, cx) if unseen else ([], [])
    changed = False
    for stream in range(4):
        after = _redrawn(eng, cx, st, stream)
        assert after.tobytes() == _redrawn(eng, cx, st, stream).tobytes()  # reproducible from the stream
        a = {n: np.asarray(before[n]).ravel().copy() for n in before.dtype.names if n != "rng"}
        b = {n: np.asarray(after[n]).ravel().copy() for n in a}  # rng: redraw draws from the stream it is given
        for group in groups:
            old = np.concatenate([a[name][idx] for name, idx in group])
            new = np.concatenate([b[name][idx] for name, idx in group])
            assert sorted(old) == sorted(new), group[0][0]  # the same cards, in a fresh order
            changed |= not np.array_equal(old, new)
        for name, idx in [x for group in groups for x in group] + scratch:
            a[name][idx] = b[name][idx] = 0
        for name in a:
            assert np.array_equal(a[name], b[name]), f"{game_id}: redraw moved {name}"
    assert changed == bool(groups), f"{game_id}: future chance {'did not change' if groups else 'changed'}"
    if game_id == "acbas":
        assert st.rec[0].tobytes() == _redrawn(eng, cx, st, 0).tobytes()  # no chance: the identity


def test_goldrush_redraw_keeps_the_other_seats_tokens():
    """The case that matters: tokens other seats took stay theirs (determinise for a seat re-deals them)."""
    from meeplab.sim.goldrush.const import G_TOKPTR

    eng, cx, st = _mid_game("goldrush", "meeplab.sim.goldrush.engine", 3, 60)
    r = st.rec[0]
    ptr = int(r["gi"][G_TOKPTR])
    assert ptr > 0 and len(set(r["tokown"][:ptr])) > 1  # several seats hold tokens at this point
    after = _redrawn(eng, cx, st, 1)
    assert np.array_equal(after["tokvals"][:ptr], r["tokvals"][:ptr])


# -- a game that registers no redraw -------------------------------------------------------------------------------

FState = namedtuple("FState", ["rec", "log", "nlog"])
FCtx = namedtuple("FCtx", ["tab"])
F_DTYPE = np.dtype([("ctl", np.int64, 12), ("marks", np.int64, 2)])


@njit(cache=False)
def _f_determinise(st, cx, seat, r):
    st.rec[0].marks[0] = 100 + seat  # which seat it re-dealt for


@njit(cache=False)
def _f_none(*args):
    return 0


forward.register(
    FState, FCtx, new=_f_none, reset=_f_none, advance=_f_none, apply=_f_none, determinise=_f_determinise,
    result=_f_none,
)  # fmt: skip


def test_without_redraw_determinise_for_the_seat_to_move():
    st = FState(np.zeros(1, dtype=F_DTYPE), np.zeros((0, 8), np.int64), np.zeros(2, np.int64))
    cx = FCtx(np.zeros(1))
    assert not forward.exact_redraw(st) and not forward.exact_redraw(FCtx)
    st.rec[0]["ctl"][forward.C_SEAT] = 2
    call_redraw(st, cx, np.zeros(4, np.uint64))
    assert st.rec[0]["marks"][0] == 102
    st.rec[0]["marks"][0] = 0
    st.rec[0]["ctl"][forward.C_SEAT] = -1  # no decision pending: nothing to re-deal for
    call_redraw(st, cx, np.zeros(4, np.uint64))
    assert st.rec[0]["marks"][0] == 0
