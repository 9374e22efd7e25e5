"""Racing in the rollout search (``race``, ``race_from``; sim.core.search): who leaves the race, when it starts, what
the choice and the playout counts are afterwards, and a raced search in a real game."""

from __future__ import annotations

import re

import numpy as np
import pytest

from meeplab.sim.core import search
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.face import advance, apply, reset
from meeplab.sim.core.forward import C_N, S_PLAYOUTS, S_RACE, S_RACE_FROM
from meeplab.sim.core.play import new_player
from meeplab.sim.core.registry import get_game
from meeplab.sim.core.scratch import RACE_CAND, RACE_K


def race(rows, switch=0.0, z=2.0):
    """race_losers on the playout values ``rows`` (one row per candidate, every candidate in the race, all rounds
    played): the playouts per candidate after it (negative: out) and how many are left."""
    m = len(rows[0])
    vals = np.zeros((RACE_CAND, RACE_K))
    vals[: len(rows), :m] = rows
    acc = np.array([sum(r) for r in rows], dtype=np.float64)
    vis = np.full(len(rows), float(m))
    left = search.race_losers(vals, acc, vis, len(rows), m, switch, z)
    return vis, left


def test_a_candidate_clearly_behind_the_leader_leaves_the_race():
    leader = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    behind = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]  # paired differences 1, 1, 0, 1, 0, 1: mean 0.67, se 0.21
    level = [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]  # differences 0, 1, -1, 0, 0, 0: mean 0
    vis, left = race([behind, leader, level])
    assert list(vis) == [-6.0, 6.0, 6.0] and left == 2


def test_a_small_difference_is_kept_until_it_is_clear():
    leader = [1.0, 0.0, 1.0, 0.0]
    behind = [0.0, 1.0, 0.0, 0.0]  # differences 1, -1, 1, 0: mean 0.25, se 0.48
    assert race([leader, behind], z=1.5) == (pytest.approx([4.0, 4.0]), 2)
    # the same difference with no spread (every re-deal alike) is clear at once
    vis, left = race([[1.0, 1.0, 1.0, 1.0], [0.75, 0.75, 0.75, 0.75]], z=10.0)
    assert list(vis) == [4.0, -4.0] and left == 1


def test_the_policy_pick_counts_with_the_switch():
    pick = [0.5, 0.5, 0.5, 0.5, 0.5]
    better = [0.6, 0.58, 0.62, 0.6, 0.6]  # better than the pick by 0.1, not by the switch 0.3
    vis, left = race([pick, better], switch=0.3)
    assert list(vis) == [5.0, -5.0] and left == 1
    vis, left = race([pick, better], switch=0.0)  # without a switch the pick is the one behind
    assert list(vis) == [-5.0, 5.0] and left == 1


def test_equal_means_keep_the_earlier_candidate_as_leader():
    a = [1.0, 0.0, 1.0, 0.0]
    b = [0.0, 1.0, 0.0, 1.0]
    assert search.race_leader(np.array([2.0, 2.0]), np.array([4.0, 4.0]), 2, 0.0) == 0
    assert race([a, b]) == (pytest.approx([4.0, 4.0]), 2)


def test_race_best_chooses_among_those_left_and_takes_the_marks_off():
    acc = np.array([3.0, 2.0, 3.9])
    vis = np.array([4.0, 8.0, -4.0])  # the third ran 4 playouts with a better mean, but is out of the race
    assert search.race_best(acc, vis, 3, 0.0) == 0
    assert list(vis) == [4.0, 8.0, 4.0]


def test_race_start():
    assert [search.race_start(k, 0) for k in (4, 8, 16, 32, 64)] == [4, 4, 4, 8, 16]
    assert [search.race_start(8, f) for f in (1, 2, 3)] == [2, 2, 3]


@pytest.fixture(scope="module")
def sb():
    g = get_game("schweinebande")
    return g, g.prepare(g.params.resolve({}))


def searched_decisions(sb, race_cfg, n_decisions=40):
    """The rollout search's choices and playouts per candidate at the first searched decisions of a 2-player game
    (every decision searched, the game played on by the search's choices)."""
    g, ctx = sb
    lu = make_lineup(g.id, ["rollout", "heuristic"], 2, False)
    cfg = lu.search[0].copy()
    cfg[S_PLAYOUTS] = 16
    cfg[S_RACE], cfg[S_RACE_FROM] = race_cfg
    st, scratch = new_player(ctx.cx, 2, len(g.categories), np.zeros((0, 8), dtype=np.int64))
    reset(st, ctx.cx, 11, 0)
    out = []
    while len(out) < n_decisions and advance(st, ctx.cx) >= 0:
        n = int(st.rec[0]["ctl"][C_N])
        if n > 1:
            pick = search.rollout_choose(st, scratch, ctx.cx, lu.fns, lu.weights, cfg, 0)
            nc = int((scratch.vis > 0).sum())
            out.append((pick, scratch.vis[:nc].copy(), scratch.cand[:nc].copy()))
        else:
            pick = 0
        apply(st, ctx.cx, pick)
    return out


def test_a_raced_search_plays_fewer_playouts_and_reports_them(sb):
    full = searched_decisions(sb, (0.0, 0.0))
    raced = searched_decisions(sb, (1.5, 2.0))
    assert all((v == 16).all() for _, v, _ in full)
    assert all(((v >= 2) & (v <= 16)).all() for _, v, _ in raced)  # every candidate at least race_from playouts
    assert sum(v.sum() for _, v, _ in raced) < 0.8 * sum(v.sum() for _, v, _ in full[: len(raced)])
    # the choice is a candidate still in the race at its end: one of those with the most playouts
    assert all(v[list(c).index(p)] == v.max() for p, v, c in raced)


def test_a_raced_search_is_reproducible(sb):
    a = searched_decisions(sb, (1.5, 2.0), 20)
    b = searched_decisions(sb, (1.5, 2.0), 20)
    assert [p for p, _, _ in a] == [p for p, _, _ in b]
    assert all((x == y).all() for (_, x, _), (_, y, _) in zip(a, b))


@pytest.mark.parametrize("weights, msg", [("race = -1", "race must be at least 0"), ("race_from = 2.5", "race_from")])
def test_bad_race_weights_are_one_line(tmp_path, weights, msg):
    path = tmp_path / "bad.toml"
    path.write_text(f'[bots.bad]\nbase = "rollout"\n[bots.bad.weights]\n{weights}\n')
    with pytest.raises(MeeplabError, match=re.escape(msg)):
        make_lineup("schweinebande", ["bad"], 2, False, [str(path)])
