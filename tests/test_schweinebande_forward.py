"""Schweinebande on the forward model (copy and the rest of the contract: tests/test_conformance.py): determinise,
hidden information, search reproducibility, and the fingerprint that proves the engine plays the same games as
before a refactor."""

import json
from pathlib import Path

import numba
import numpy as np
import pytest
from sb_helpers import ctx

from meeplab.sim.core import forward, search
from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.forward import C_N, C_SEAT
from meeplab.sim.core.scratch import RACE_CAND, RACE_K, SearchScratch
from meeplab.sim.schweinebande import engine, state

ROOT = Path(__file__).resolve().parents[1]
TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 2\nmax_candidates = 3\n'


@pytest.fixture(scope="module")
def c():
    return ctx()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


def fresh(c, np_=3):
    return state.new_state(c.cx, np_, np.zeros((0, 6), dtype=np.int64))


def at_decision(c, g, steps, np_=3, bots=("heuristic", "greedy", "random")):
    """Game g (seed 11) played by the given bots for ``steps`` decisions, stopped at the next one."""
    lu = make_lineup("schweinebande", list(bots), np_, False)
    st = fresh(c, np_)
    engine.reset(st, c.cx, 11, g)
    for _ in range(steps):
        seat = engine.advance(st, c.cx)
        assert seat >= 0
        engine.apply(st, c.cx, forward.ask(st, lu.fns, lu.weights, seat))
    assert engine.advance(st, c.cx) >= 0
    return st


def unseen(c, st):
    """The multiset of tiles nobody has seen: kinds under face-down spaces and the undealt bag."""
    rec = st.rec[0]
    fd = int(rec["mk"][state.M_FACEDOWN])
    under = [int(rec["hidden"][s]) for s in range(c.rays.shape[0]) if fd >> s & 1]
    total = int(state.bag_size(c.cx.tab[0]["pi"]))
    rest = [int(x) for x in rec["bag"][rec["ctl"][state.C_DRAWN] : total]]
    return sorted(under + rest), under


POINTS = [(0, 0), (3, 5), (5, 17), (8, 40), (2, 70), (4, 110)]


@pytest.mark.parametrize("g,steps", POINTS)
def test_determinise_redeals_only_what_nobody_has_seen(c, g, steps):
    st = at_decision(c, g, steps)
    seat = int(st.rec[0]["ctl"][C_SEAT])
    want, under = unseen(c, st)
    changed = 0
    for k in range(12):
        cp = fresh(c)
        forward.fm_copy(cp, st)
        r = np.zeros(4, dtype=np.uint64)
        r[0] = 1000 + k
        engine.determinise(cp, c.cx, seat, r)
        a, b = st.rec[0], cp.rec[0]
        n = int(a["ctl"][C_N])  # fm_copy copies the pending decision's candidate rows only
        for f in ("pub", "ctl", "rng", "mk", "order", "brk", "mgs", "lreach", "lgain"):
            assert np.array_equal(a[f], b[f]), f
        for f in ("moves", "feats"):
            assert np.array_equal(a[f][:n], b[f][:n]), f
        got, under2 = unseen(c, cp)
        assert got == want  # the same tiles, only their places change
        changed += under2 != under
    if len(set(under)) > 1:
        assert changed > 0


def _decisions(c, st, other, bots, tiny_cfg):
    """Each bot's choice (and the search bot's) on two states with the same random stream."""
    out = []
    for name in bots:
        lu = make_lineup("schweinebande", [name], 3, False, tiny_cfg)
        picks = []
        for s in (st, other):
            cp = fresh(c)
            forward.fm_copy(cp, s)
            cp.rec[0]["rng"][:] = [1, 2, 3, 4]
            if lu.search[0, forward.S_ALGO]:
                m = cp.rec[0]["moves"].shape[0]
                scratch = SearchScratch(
                    fresh(c), np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(3), np.zeros(3),
                    np.zeros((3, 4)), np.zeros(m), np.zeros((RACE_CAND, RACE_K)),
                )  # fmt: skip
                picks.append(search.rollout_choose(cp, scratch, c.cx, lu.fns, lu.weights, lu.search[0], 0))
            else:
                picks.append(forward.ask(cp, lu.fns, lu.weights, 0))
        out.append((name, picks[0], picks[1]))
    return out


@pytest.mark.parametrize("g,steps", POINTS)
def test_no_bot_reads_what_its_seat_cannot_see(c, tiny, g, steps):
    """Two states that differ only in hidden parts (what lies under face-down tiles, the bag's order) give
    every bot, the search bot included, the same features and the same choice."""
    st = at_decision(c, g, steps)
    seat = int(st.rec[0]["ctl"][C_SEAT])
    other = fresh(c)
    forward.fm_copy(other, st)
    r = np.zeros(4, dtype=np.uint64)
    r[0] = 77
    engine.determinise(other, c.cx, seat, r)
    n = int(st.rec[0]["ctl"][C_N])
    assert np.array_equal(st.rec[0]["feats"][:n], other.rec[0]["feats"][:n])
    bots = ["random", "greedy", "heuristic", "tiny"]
    for name, a, b in _decisions(c, st, other, bots, [tiny]):
        assert a == b, name


def test_search_is_reproducible_for_any_thread_count(c, tiny):
    from meeplab.sim.core.registry import get_game

    g = get_game("schweinebande")
    lu = make_lineup("schweinebande", ["tiny", "heuristic", "greedy"], 3, True, [tiny])
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = g.play(c, lu, 5, 0, 130, 3)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = g.play(c, lu, 5, 0, 130, 3)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.score, two.score) and np.array_equal(one.length, two.length)
    # a run of 70 games is the first 70 of the run of 130
    part = g.play(c, lu, 5, 0, 70, 3)
    assert np.array_equal(part.score, one.score[:70])


def test_search_bot_beats_random(c, tiny):
    from meeplab.sim.core.game import rank_and_win
    from meeplab.sim.core.registry import get_game

    g = get_game("schweinebande")
    lu = make_lineup("schweinebande", ["tiny", "random"], 2, True, [tiny])
    b = g.play(c, lu, 3, 0, 64, 2)
    _, win = rank_and_win(b.score, b.tiebreak)
    entry = (np.arange(2)[None, :] + np.arange(64)[:, None]) % 2
    assert win[entry == 0].mean() > 0.8


def test_search_kinds_mask_leaves_other_decisions_to_the_policy(tmp_path):
    """``kinds`` = a bit mask of the decision kinds searched: a search bot whose mask matches no kind of the game
    plays exactly its policy's games (it draws nothing of its own); one that searches only placements (K_PLACE)
    plays other games, and so does one searching every kind (mask 0)."""
    from meeplab.sim.core.registry import get_game
    from meeplab.sim.schweinebande.layout import K_PLACE

    path = tmp_path / "kinds.toml"
    path.write_text(
        TINY + '[bots.none]\nbase = "tiny"\n[bots.none.weights]\nkinds = 1073741824\n'
        f'[bots.place]\nbase = "tiny"\n[bots.place.weights]\nkinds = {1 << K_PLACE}\n'
    )
    g = get_game("schweinebande")
    c = g.prepare(g.params.resolve({}))

    def play(first):
        lu = make_lineup("schweinebande", [first, "greedy"], 2, True, [str(path)])
        return g.play(c, lu, 9, 0, 40, 2)

    base, none, place, every = (play(b) for b in ("heuristic", "none", "place", "tiny"))
    assert np.array_equal(base.score, none.score) and np.array_equal(base.length, none.length)
    assert not np.array_equal(base.score, place.score)
    assert not np.array_equal(place.score, every.score)
    assert make_lineup("schweinebande", ["place"], 2, True, [str(path)]).search[0, forward.S_KINDS] == 1 << K_PLACE


def test_search_kinds_must_be_a_mask(tmp_path):
    from meeplab.sim.core.errors import MeeplabError

    path = tmp_path / "bad.toml"
    path.write_text('[bots.bad]\nbase = "rollout"\n[bots.bad.weights]\nkinds = -3\n')
    with pytest.raises(MeeplabError, match="kinds must be a bit mask"):
        make_lineup("schweinebande", ["bad"], 2, True, [str(path)])


def test_search_playouts_grow_with_the_player_count(tmp_path):
    """``grow`` = g: playouts x (1 + g x (P - 2)) per candidate at P players (g = 1: playouts per opponent);
    0 keeps the same budget at every count; a negative g is refused."""
    from meeplab.sim.core.errors import MeeplabError

    path = tmp_path / "grow.toml"
    path.write_text(
        '[bots.g1]\nbase = "rollout"\n[bots.g1.weights]\nplayouts = 8\ngrow = 1\n'
        '[bots.g0]\nbase = "rollout"\n[bots.g0.weights]\nplayouts = 8\ngrow = 0\n'
        '[bots.gh]\nbase = "rollout"\n[bots.gh.weights]\nplayouts = 6\ngrow = 0.5\n'
        '[bots.bad]\nbase = "rollout"\n[bots.bad.weights]\ngrow = -1\n'
    )
    for name, want in (("g1", (8, 16, 24, 32)), ("g0", (8, 8, 8, 8)), ("gh", (6, 9, 12, 15))):
        got = tuple(
            make_lineup("schweinebande", [name], p, True, [str(path)]).search[0, forward.S_PLAYOUTS]
            for p in (2, 3, 4, 5)
        )
        assert got == want, name
    with pytest.raises(MeeplabError, match="grow must be at least 0"):
        make_lineup("schweinebande", ["bad"], 3, True, [str(path)])


def test_search_variants_are_toml_only():
    bots = available("schweinebande")
    assert bots["rollout"].search == "rollout" and bots["rollout"].policy == "heuristic"
    assert bots["rollout-64"].weights_dict()["playouts"] == 64
    assert bots["rollout-greedy"].policy == "greedy"
    lu = make_lineup("schweinebande", ["rollout-greedy", "heuristic"], 2, True)
    assert lu.search[0, forward.S_PLAYOUTS] == 8 and lu.search[1, forward.S_ALGO] == 0
    assert lu.fns[0] is bots["greedy"].choose


def test_fingerprint_of_every_result_column_is_unchanged():
    """The engine plays exactly the games recorded in tests/data (regenerate only for a deliberate rule or
    bot change: python scripts/fingerprint.py schweinebande --games 1000 > tests/data/...)."""
    from meeplab.lab.studies.fingerprint import fingerprint

    want = json.loads((ROOT / "tests" / "data" / "schweinebande_fingerprint.json").read_text())
    assert fingerprint("schweinebande", 1000) == want


def test_replay_explains_search_decisions(capsys, tiny):
    from meeplab.cli import main

    args = [
        "replay",
        "schweinebande",
        "--index",
        "2",
        "--players",
        "2",
        "--bots",
        "tiny,heuristic",
        "--bot-config",
        tiny,
    ]
    assert main(args + ["--explain"]) in (0, None)
    text = capsys.readouterr().out
    assert "search: " in text and "#1 " in text and "mean value" in text
    assert main(args) in (0, None)
    plain = capsys.readouterr().out
    assert "search: " not in plain
    # the explained game is the same game
    assert [ln for ln in text.splitlines() if "search: " not in ln and "mean value" not in ln] == plain.splitlines()


def test_state_record_prints_by_name(c):
    st = at_decision(c, 1, 9)
    text = state.describe(st)
    assert "C_PHASE=" in text and "C_DRAWN=" in text and "pub.V_UNSEEN:" in text and "\nhidden: " in text
    assert set(state.STATE_DTYPE.names) >= {"pub", "ctl", "moves", "feats", "rng", "hidden", "bag"}


def test_playout_value_win_share_or_rank_share():
    sc, tb = np.array([3.0, 5.0, 3.0, 1.0]), np.zeros(4)
    assert search.seat_value(sc, tb, 4, 0, 0.0, False) == 0.0  # seat 1 scored more
    assert search.seat_value(sc, tb, 4, 1, 0.0, False) == 1.0
    # rank share: seat 0 beats seat 3, ties seat 2 (half), loses to seat 1: 1.5 of 3 others
    assert search.seat_value(sc, tb, 4, 0, 0.0, True) == 0.5
    assert search.seat_value(sc, tb, 4, 3, 0.0, True) == 0.0
    assert search.seat_value(sc, tb, 4, 1, 0.1, True) == 1.0 + 0.1 * 2.0


def test_switch_margin_keeps_the_policy_pick(c, tmp_path):
    """With a huge ``switch`` the search plays its policy's own pick (what it plays when searching that pick
    alone), and without it the search departs from that pick somewhere."""
    cfg = tmp_path / "sw.toml"
    cfg.write_text(
        "".join(
            f'[bots.{n}]\nbase = "rollout"\n[bots.{n}.weights]\nplayouts = 4\nmax_candidates = {k}\nswitch = {s}\n'
            for n, k, s in (("free", 4, 0.0), ("stay", 4, 1e9), ("alone", 1, 0.0))
        )
    )
    departed = 0
    for g in range(3):
        for steps in (0, 3, 9, 17, 30):
            st = at_decision(c, g, steps)
            if st.rec[0]["ctl"][C_N] < 2:
                continue
            picks = {name: a for name, a, _ in _decisions(c, st, st, ["free", "stay", "alone"], [str(cfg)])}
            assert picks["stay"] == picks["alone"]
            departed += picks["free"] != picks["alone"]
    assert departed > 0
