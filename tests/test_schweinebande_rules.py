"""Schweinebande rules on hand-built positions (rule book examples first)."""

import numpy as np
import pytest
from sb_helpers import blank_view, collect_run, ctx, farm_run, feed_run, placement_run, scratch, script_weights

from meeplab.sim.core.game import rank_and_win
from meeplab.sim.schweinebande import engine, lines, scoring
from meeplab.sim.schweinebande.layout import (
    E_PAY,
    E_SELL,
    E_SITOUT,
    FACE_DOWN,
    NK,
    NT,
    SACK,
    V_FARM,
    V_FARMER,
    V_FEED,
    V_FLEFT,
    V_HAND,
    V_ORDER,
    V_TILE,
)

ROOSTER, SHEEP, GOAT, DONKEY, PIG, COW = range(6)
E, NE, NW, W, SW, SE = range(6)


def sp(q, r):
    """Rhombus space index of axial (q, r)."""
    return r * 5 + q


def set_hand(view, seat, **counts):
    names = ["rooster", "sheep", "goat", "donkey", "pig", "cow", "sack"]
    for k, name in enumerate(names):
        view[V_HAND + seat * NT + k] = counts.get(name, 0)


def hand(view, seat):
    return [int(view[V_HAND + seat * NT + k]) for k in range(NT)]


def farm(view, seat):
    return [int(view[V_FARM + seat * NK + k]) for k in range(NK)]


# ---------------------------------------------------------------------------------------------- C
def test_collect_line_skips_gaps_and_stops_before_any_farmer():
    c = ctx()
    view = blank_view(c, 2)
    view[V_TILE + sp(0, 0)] = PIG
    # sp(1,0) empty: a gap does not end the line
    view[V_TILE + sp(2, 0)] = COW
    view[V_TILE + sp(3, 0)] = SHEEP
    view[V_TILE + sp(4, 0)] = GOAT
    view[V_TILE + sp(0, 1)] = ROOSTER
    view[V_FARMER + sp(0, 0)] = 0
    view[V_FARMER + sp(3, 0)] = 1  # the other player's farmer ends P1's line before it
    view[V_ORDER + 0] = 1
    view[V_ORDER + 1] = 2
    w = script_weights([])
    w[0, 1:3] = [sp(0, 0), E]
    w[1, 1:3] = [sp(3, 0), E]
    turns, _log = collect_run(view, c, w)
    assert turns == 2
    assert hand(view, 0) == [0, 0, 0, 0, 1, 1, 0]  # pig + cow, not the sheep under P2's farmer
    assert hand(view, 1) == [0, 1, 1, 0, 0, 0, 0]  # sheep under the farmer + goat to the edge
    # farmers went home; the rooster left on the board leaves the game
    assert (view[V_FARMER : V_FARMER + 25] == -1).all()
    assert (view[V_TILE : V_TILE + 25] == -1).all()


def test_collect_order_follows_order_tiles_and_own_farmers_block_too():
    c = ctx()
    view = blank_view(c, 2)
    for q in range(5):
        view[V_TILE + sp(q, 2)] = DONKEY
    view[V_FARMER + sp(0, 2)] = 1
    view[V_FARMER + sp(2, 2)] = 1
    view[V_FARMER + sp(4, 2)] = 0
    view[V_ORDER + 0] = 2
    view[V_ORDER + 1] = 1  # P2 holds order tile 1 and collects first
    w = script_weights([])
    w[1, 1:5] = [sp(0, 2), E, sp(2, 2), E]
    w[0, 1:3] = [sp(4, 2), W]
    _, log = collect_run(view, c, w)
    first = log[0]
    assert first[1] == 1 and first[2] == sp(0, 2)
    # P2's first line stops before its own farmer on (2,2): donkeys on (0,2),(1,2)
    assert first[4] == 2
    # P1 (order 2) then collects from (4,2) west: (4,2),(3,2) and (2,2) is still occupied -> 2 tiles
    assert log[1][1] == 0 and log[1][4] == 2
    # P2's second farmer takes (2,2) and nothing else is left eastwards
    assert log[2][1] == 1 and log[2][4] == 1
    assert hand(view, 1)[DONKEY] == 3 and hand(view, 0)[DONKEY] == 2


# ---------------------------------------------------------------------------------------------- D
def test_quartet_puts_one_on_the_farm_and_discards_three():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, donkey=5)
    brk, _, _ = farm_run(view, c, 0, False, [(1, DONKEY), (0, -1)])
    assert farm(view, 0)[DONKEY] == 1
    assert hand(view, 0)[DONKEY] == 1
    assert brk[scoring.C_QUARTETS] == 5


def test_sextet_puts_the_cow_on_the_farm():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, rooster=1, sheep=1, goat=2, donkey=1, pig=1, cow=1)
    brk, _, _ = farm_run(view, c, 0, False, [(2, 63), (0, -1)])
    assert farm(view, 0) == [0, 0, 0, 0, 0, 1]
    assert hand(view, 0)[:NK] == [0, 0, 1, 0, 0, 0]
    assert brk[scoring.C_MIXED] == 7


def test_one_tile_cannot_serve_two_groups():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, rooster=1, sheep=1, goat=1, donkey=1, pig=4, cow=1)
    # close the pig quartet; the sextet is then no longer offered, so the script's stop is the only way
    brk, _moves, _ = farm_run(view, c, 0, False, [(1, PIG), (2, 63)])
    assert farm(view, 0) == [0, 0, 0, 0, 1, 0]
    assert hand(view, 0)[:NK] == [1, 1, 1, 1, 0, 1]
    assert brk[scoring.C_MIXED] == 0


def test_groups_may_stay_open():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, pig=4)
    farm_run(view, c, 0, False, [(0, -1)])
    assert hand(view, 0)[PIG] == 4 and farm(view, 0)[PIG] == 0


def test_pig_bonus_only_in_the_last_round_two_per_four():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, pig=9)
    brk, _, _ = farm_run(view, c, 0, False, [(3, -1)])
    # not the last round: no pig bonus is offered, so the script falls back to its last candidate,
    # the ordinary pig quartet, twice (9 pigs): 2 pigs on the farm at 1 per 4
    assert farm(view, 0)[PIG] == 2 and hand(view, 0)[PIG] == 1
    assert brk[scoring.C_PIGBONUS] == 0 and brk[scoring.C_QUARTETS] == 12
    view = blank_view(c, 2)
    set_hand(view, 0, pig=9)
    brk, _, _ = farm_run(view, c, 0, True, [(3, -1), (3, -1), (0, -1)])
    assert farm(view, 0)[PIG] == 4  # 8 pigs -> 4 on the farm
    assert hand(view, 0)[PIG] == 1
    assert brk[scoring.C_PIGBONUS] == 24


def test_pig_bonus_twelve_pigs_give_six():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, pig=12)
    brk, _, _ = farm_run(view, c, 0, True, [(3, -1)] * 3 + [(0, -1)])
    assert farm(view, 0)[PIG] == 6 and brk[scoring.C_PIGBONUS] == 36


# ---------------------------------------------------------------------------------------------- E
def test_rule_book_feeding_example():
    """Blue has 1 rooster, 3 goats, 1 donkey, 2 pigs and no feed: sells donkey and rooster for 7 feed,
    pays 5 for the other five animals, keeps 2 feed for the next round."""
    c = ctx()
    view = blank_view(c, 4)
    set_hand(view, 0, rooster=1, goat=3, donkey=1, pig=2)
    log = feed_run(view, c, 0, [(DONKEY, -1), (ROOSTER, -1)])
    sells = [tuple(r[2:4]) for r in log if r[0] == E_SELL]
    assert sells == [(DONKEY, 5), (ROOSTER, 2)]
    assert hand(view, 0)[:NK] == [0, 0, 3, 0, 2, 0]
    assert view[V_FEED + 0] == 2
    assert [r[2] for r in log if r[0] == E_PAY] == [5]


def test_selling_stops_once_feed_suffices():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, cow=1, rooster=3)
    log = feed_run(view, c, 0, [(COW, -1), (ROOSTER, -1)])
    # selling the cow (7 feed) covers the 3 roosters: no second sale
    assert [r[2] for r in log if r[0] == E_SELL] == [COW]
    assert view[V_FEED] == 4


def test_feed_sack_feeds_everything_once_or_can_be_kept():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, goat=5, sack=1)
    feed_run(view, c, 0, [(1, -1)])
    assert hand(view, 0)[SACK] == 0 and hand(view, 0)[GOAT] == 5 and view[V_FEED] == 0
    view = blank_view(c, 2)
    set_hand(view, 0, goat=2, sack=1)
    view[V_FEED] = 3
    feed_run(view, c, 0, [(0, -1)])
    assert hand(view, 0)[SACK] == 1 and view[V_FEED] == 1


def test_limited_feed_supply_caps_what_selling_returns():
    c = ctx(feed_supply=3)
    view = blank_view(c, 2)
    view[engine.V_SUPPLY] = 3
    set_hand(view, 0, cow=1, goat=4)
    log = feed_run(view, c, 0, [(COW, -1), (GOAT, -1), (GOAT, -1)])
    # the cow returns only the 3 markers left in the supply, the next goat none; 3 goats eat the 3
    assert [tuple(r[2:4]) for r in log if r[0] == E_SELL] == [(COW, 3), (GOAT, 0)]
    assert view[V_FEED] == 0 and hand(view, 0)[GOAT] == 3
    assert view[engine.V_SUPPLY] == 3


# ---------------------------------------------------------------------------------------------- end
def test_final_mixed_quartet_lowest_goes_to_farm():
    """The rule book: 2 goats and 2 cows make a quartet; one goat goes to the farm."""
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, goat=2, cow=2, sack=3)
    brk = np.zeros(engine.NC)
    log, nlog = scratch()
    scoring.final_groups(view, c.pi, 0, brk, log, nlog, True)
    assert farm(view, 0) == [0, 0, 1, 0, 0, 0]
    assert brk[scoring.C_FINAL] == 4
    assert hand(view, 0)[:NK] == [0] * NK  # sacks never count


def test_final_groups_take_the_best_grouping():
    c = ctx()
    view = blank_view(c, 2)
    # 9 animals: cow cow cow pig | pig donkey goat sheep | rooster (discarded) -> pig + sheep = 9
    set_hand(view, 0, cow=3, pig=2, donkey=1, goat=1, sheep=1, rooster=1)
    brk = np.zeros(engine.NC)
    log, nlog = scratch()
    scoring.final_groups(view, c.pi, 0, brk, log, nlog, True)
    assert brk[scoring.C_FINAL] == 6 + 3
    assert sum(farm(view, 0)) == 2


def test_fewer_than_four_tiles_score_nothing_at_the_end():
    c = ctx()
    view = blank_view(c, 2)
    set_hand(view, 0, cow=3, sack=1)
    brk = np.zeros(engine.NC)
    log, nlog = scratch()
    scoring.final_groups(view, c.pi, 0, brk, log, nlog, True)
    assert brk[scoring.C_FINAL] == 0


def test_tie_break_more_pigs_on_the_farm_then_shared():
    score = np.array([[30.0, 30.0, 12.0], [30.0, 30.0, 12.0]])
    pigs = np.array([[1.0, 2.0, 5.0], [2.0, 2.0, 0.0]])
    rank, win = rank_and_win(score, pigs)
    assert rank[0].tolist() == [2, 1, 3] and win[0].tolist() == [0, 1, 0]
    assert rank[1].tolist() == [1, 1, 3] and win[1].tolist() == [0.5, 0.5, 0]


# ---------------------------------------------------------------------------------------------- B
def test_placement_last_farmer_takes_order_tile_and_lone_player_must_place_on_last_tile():
    c = ctx()
    view = blank_view(c, 2)
    hidden = np.arange(25) % 6
    view[V_TILE : V_TILE + 25] = FACE_DOWN
    p0 = [(0, -1), (1, -1), (2, -1), (1, -1), (4, -1), (1, -1)]
    p1 = [(1, -1), (0, -1), (3, -1), (0, -1)] + [x for s in range(5, 25) for x in ((s, -1), (0, -1))]
    w = np.full((5, 1 + 2 * len(p1)), -9.0)
    w[:, 0] = 0
    for e, steps in ((0, p0), (1, p1)):
        for j, (a, b) in enumerate(steps):
            w[e, 1 + 2 * j] = a
            w[e, 2 + 2 * j] = b
    turns, log, _ = placement_run(view, c, hidden, 0, w)
    assert turns == 25
    farmers = view[V_FARMER : V_FARMER + 25]
    assert [i for i in range(25) if farmers[i] == 0] == [0, 2, 4]
    # P2 passed on everything it was asked about; its last farmer went on the last face-down tile
    assert [i for i in range(25) if farmers[i] == 1] == [24]
    assert view[V_ORDER + 0] == 1 and view[V_ORDER + 1] == 2
    sitout = [r for r in log if r[0] == E_SITOUT]
    assert len(sitout) == 1 and sitout[0][1] == 1 and sitout[0][2] == 2
    assert (view[V_TILE : V_TILE + 25] == hidden).all()
    assert view[V_FLEFT] == 0 and view[V_FLEFT + 1] == 0


def test_placement_turns_remaining_tiles_up_after_last_farmer():
    c = ctx()
    view = blank_view(c, 2)
    hidden = (np.arange(25) * 5) % 7
    view[V_TILE : V_TILE + 25] = FACE_DOWN
    # both place on every reveal: 6 farmers on spaces 0..5, then everything else is turned up
    steps = [x for s in range(25) for x in ((s, -1), (1, -1))]
    w = script_weights(steps)
    turns, _log, tiles_left = placement_run(view, c, hidden, 1, w)
    assert turns == 6
    # P2 started (first = 1), so P2 placed its third farmer first and holds order tile 1
    assert view[V_ORDER + 1] == 1 and view[V_ORDER + 0] == 2
    assert (view[V_TILE : V_TILE + 25] == hidden).all()
    assert tiles_left.sum() == 0


@pytest.mark.parametrize("board", ["rhombus", "hexagon", "square"])
def test_kept_line_estimates_match_a_fresh_walk_after_every_reveal_and_farmer(board):
    """Phase B keeps each line's counts and gains up to date incrementally; after any sequence of
    reveals and farmers they must equal a walk along the ray from scratch."""
    c = ctx(board=board)
    ns, nd = c.rays.shape[0], c.rays.shape[1]
    n_players = 3
    mgs, raylen, lreach, lgain, rev = lines.line_scratch(c.rays, ns, nd)
    gen = np.random.default_rng(5)
    mgs[:n_players] = gen.normal(size=(n_players, NT))
    for _ in range(20):
        view = blank_view(c, n_players)
        view[V_TILE : V_TILE + ns] = FACE_DOWN
        facedown = (1 << ns) - 1
        lines.lines_reset(ns, nd, n_players, raylen, lreach, lgain)
        for space in gen.permutation(ns)[: gen.integers(1, ns)]:
            space = int(space)
            t = int(gen.integers(0, NT))
            view[V_TILE + space] = t
            facedown &= ~(1 << space)
            lines.lines_revealed(lreach, lgain, rev, space, t, np.uint64(facedown), n_players, mgs)
            if gen.random() < 0.4:
                view[V_FARMER + space] = 0
                lines.lines_blocked(view, c.rays, lreach, lgain, rev, space, np.uint64(facedown), n_players, mgs)
            for s in range(ns):
                if not facedown >> s & 1:
                    continue
                for d in range(nd):
                    line = []
                    for x in c.rays[s, d]:
                        if x < 0 or view[V_FARMER + x] >= 0:
                            break
                        line.append(int(view[V_TILE + x]))
                    known = [k for k in line if k != FACE_DOWN]
                    x = s * lines.MAXD + d
                    assert lreach[x] == len(line)
                    assert lgain[x, lines.L_UNKF] == 1 + len(line) - len(known)
                    for p in range(n_players):
                        assert lgain[x, p] == pytest.approx(sum(mgs[p, k] for k in known), abs=1e-9)


@pytest.mark.parametrize("board", ["rhombus", "hexagon", "square"])
def test_collect_line_masks_match_the_ray_walk(board):
    """Phase C reads a farmer's line off bit masks; it must be the space and the ray up to the first farmer."""
    c = ctx(board=board)
    ns, nd = c.rays.shape[0], c.rays.shape[1]
    rmask = lines.ray_masks(c.rays, ns, nd)
    gen = np.random.default_rng(9)
    for _ in range(200):
        farmers = [int(x) for x in gen.choice(ns, size=gen.integers(1, 10), replace=False)]
        fmask = np.uint64(sum(1 << x for x in farmers))
        for s in farmers:
            for d in range(nd):
                want = {s}
                for x in c.rays[s, d]:
                    if x < 0 or x in farmers:
                        break
                    want.add(int(x))
                got = int(lines.line_mask(rmask[s * lines.MAXD + d], s, fmask))
                assert {i for i in range(ns) if got >> i & 1} == want
