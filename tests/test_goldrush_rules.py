"""Gold Rush rules on hand-built layouts, played through the engine's own placement/action/scoring code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.goldrush import GAME, notes
from meeplab.sim.goldrush.board import find
from meeplab.sim.goldrush.const import (
    A_COWBOY,
    A_MINE,
    A_PASS,
    A_TENT,
    C_CITY,
    C_MTN,
    C_PRAIRIE,
    C_RAIL,
    C_TOKENS,
    F_STACK,
    G_NPL,
    LOGW,
    NFEAT,
    PI_SUPPLY,
    PI_TENT,
    PI_TOKSUM,
)
from meeplab.sim.goldrush.deck import load_deck, load_tokens
from meeplab.sim.goldrush.engine import action_features, run_script, token_mean

CTX = GAME.prepare(GAME.params.resolve({}))
D = CTX.deck


def inst(name, copy):
    i = 0
    for t in D.types:
        if t.name == str(name):
            assert 1 <= copy <= t.count
            return i + copy - 1
        i += t.count
    raise KeyError(name)


def play(rows, P=2, tokvals=(5, 3, 2, 1, 0, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), values=None, final=False):
    """rows: ("place", (type, copy), x, y, rot, player) / ("pass"|"cowboy"|"tent"|"mine", player, seg, tile)."""
    ctx = CTX if values is None else GAME.prepare(GAME.params.resolve(values))
    script = []
    for r in rows:
        if r[0] == "place":
            script.append((0, inst(*r[1]), r[2], r[3], r[4], r[5]))
        else:
            a = {"pass": A_PASS, "cowboy": A_COWBOY, "tent": A_TENT, "mine": A_MINE}[r[0]]
            seg = r[2] if len(r) > 2 else 0
            tile = r[3] if len(r) > 3 else 0
            script.append((1, a, seg, tile, 0, r[1]))
    if final:
        script.append((2, 0, 0, 0, 0, 0))
    script = np.array(script, np.int64)
    bd = np.zeros((P, 5))
    log = np.zeros((10, LOGW), np.int64)
    d = ctx.deck
    out = run_script(
        script,
        np.int64(P),
        d.seg,
        d.nseg,
        d.edges,
        d.edge_seg,
        d.half_seg,
        ctx.through,
        ctx.cityseg,
        np.array(tokvals, np.int64),
        ctx.pr,
        bd,
        log,
        False,
    )
    nd, _gi, _pl, _board, _fidx, _cons, _front, _mtn, pi, _cow, bad = out
    assert bad == -1, f"script row {bad} is illegal: {rows[bad]}"
    return bd, nd, pi


# -- data -----------------------------------------------------------------------------------------------


def test_builtin_deck_totals():
    t = D.totals
    assert t == {"tiles": 72, "mountain_segments": 49, "nuggets": 63, "locomotives": 9, "tipis": 12, "horses": 7}
    assert D.builtin and D.types[D.inst_type[D.start]].name == "10"
    tok = load_tokens()
    assert len(tok.values) == 63
    assert sorted(np.unique(tok.values, return_counts=True)[1].tolist()) == sorted([13, 22, 14, 9, 5])
    assert {int(v): int(c) for v, c in zip(*np.unique(tok.values, return_counts=True))} == {
        0: 13,
        1: 22,
        2: 14,
        3: 9,
        5: 5,
    }


def test_derived_segments():
    by = {t.name: t for t in D.types}
    # prairie regions: straight rail splits in two, junction of three in three, two caps leave one prairie
    assert by["14"].kinds.count(3) == 2
    assert by["16"].kinds.count(3) == 3
    assert by["7"].kinds.count(3) == 1 and by["7"].kinds.count(1) == 2
    assert by["6"].kinds.count(3) == 2  # a mountain across the tile divides the prairie
    assert by["3"].kinds.count(3) == 2  # railroad into the mountain divides the south prairie
    assert by["10"].kinds.count(3) == 2
    assert by["19"].kinds == [0, 0, 0, 0, 2, 3, 3, 3, 3]


def test_notes_and_flags():
    assert GAME.flags == ("deck", "tokens")
    n = " ".join(notes(GAME.params.defaults()))
    assert "reconstructed deck" in n and "reconstructed token mix" in n
    assert GAME.categories == ["railroads", "mountains", "cities", "prairies", "gold_tokens"]


@pytest.mark.parametrize(
    "edit, needle",
    [
        (lambda s: s.replace("5,P/O,5,MRRM,E-S,NW", "5,P/O,5,MRRM,E-N,NW"), "tile 5"),
        (lambda s: s.replace("2;2;1;1;1,1;0;0;0;0", "2;2;1;1,1;0;0;0;0"), "tile 5"),
        (lambda s: s.replace("13,L,3,MRRR,E>J S>J W>J", "13,L,3,MRRR,E>J S>Q W>J"), "tile 13"),
        (lambda s: s.replace("1,C,1,MMMM", "1,C,1,MMXM"), "tile 1"),
        (lambda s: s.replace("10,D,4,MRPR,E-W,N,1,0;1;0;0,,,1", "10,D,4,MRPR,E-W,N,1,0;1;0;0,,,"), "start"),
        (lambda s: s.replace("9,E,5,MPPP,,N,", "9,E,5,MPPP,,,"), "tile 9"),
    ],
)
def test_broken_deck_names_tile_and_problem(tmp_path, edit, needle):
    src = D.path and Path(D.path).read_text()
    p = tmp_path / "deck.csv"
    p.write_text(edit(src))
    with pytest.raises(MeeplabError) as e:
        load_deck(str(p))
    assert str(p) in str(e.value) and needle in str(e.value)


def test_broken_tokens(tmp_path):
    p = tmp_path / "tok.csv"
    p.write_text("value,count\n1,3\nx,2\n")
    with pytest.raises(MeeplabError, match=r"tok\.csv.*value x"):
        load_tokens(str(p))
    with pytest.raises(MeeplabError, match="not found"):
        GAME.prepare(GAME.params.resolve({"deck": str(p) + ".missing"}))


def test_replacement_deck_loads(tmp_path):
    src = Path(D.path).read_text().replace("19,A/B city,2,", "19,A/B city,3,").replace(",,,,1;0,", ",,,,1;0;0,")
    p = tmp_path / "deck.csv"
    p.write_text(src)
    d = load_deck(str(p))
    assert d.n == 73 and not d.builtin
    assert any(str(p) in x for x in notes({"deck": str(p), "tokens": "builtin"}))


# -- railroads ------------------------------------------------------------------------------------------


def _rail5(copies, last_cowboy=False):
    """Junction - 3 straight railroads - junction: a completed 5-tile railroad."""
    rows = [("place", (16, 1), 0, 0, 0, 0), ("pass", 0)]
    for i, c in enumerate(copies):
        rows += [("place", (14, c), 1 + i, 0, 1, 0), ("cowboy", 0, 0) if i == 0 else ("pass", 0)]
    rows += [("place", (16, 2), 4, 0, 0, 1), ("cowboy", 1, 1) if last_cowboy else ("pass", 1)]
    return rows


@pytest.mark.parametrize("copies, pts", [((4, 5, 6), 5), ((4, 1, 5), 10), ((1, 2, 4), 5)])
def test_railroad_five_tiles_locomotives(copies, pts):
    bd, _nd, pi = play(_rail5(copies))
    assert bd[0, C_RAIL] == pts and bd[1].sum() == 0
    assert pi[0, PI_SUPPLY] == 4  # the railwayman came home


def test_cowboy_scores_and_returns_same_turn():
    # player 1 completes player 0's railroad and puts a cowboy on the last junction's open south spur
    bd, _nd, pi = play(_rail5((4, 5, 6), last_cowboy=True))
    assert bd[0, C_RAIL] == 5
    assert bd[1, C_RAIL] == 0 and pi[1, PI_SUPPLY] == 3  # spur S of the last junction is open: stays
    # 16 turned 180: its original east spur (segment 0) now points west, onto the first tile's east spur
    rows = [("place", (16, 1), 0, 0, 0, 0), ("pass", 0), ("place", (16, 2), 1, 0, 2, 1), ("cowboy", 1, 0)]
    bd, _nd, pi = play(rows)
    assert bd[1, C_RAIL] == 2 and pi[1, PI_SUPPLY] == 4


def test_loco_any_variant():
    bd, _nd, _pi = play(_rail5((1, 2, 4)), values={"loco_exactly_one": False})
    assert bd[0, C_RAIL] == 10


# -- mountains ------------------------------------------------------------------------------------------


def _mountain7(extra_mining=True):
    # centre tile 2.1 (mountain N-E-W, 3 nuggets) and caps N (9.1: 2), E (9.2: 1), W (9.3: 1) = 7 nuggets
    rows = [
        ("place", (2, 1), 0, 0, 0, 0),
        ("cowboy", 1, 0),  # player 1's gold miner on the centre
        ("place", (9, 1), 0, -1, 2, 0),
        ("tent", 0, 0, 1),
    ]  # player 0's tent on the north cap
    if extra_mining:
        rows += [("place", (9, 2), 1, 0, 3, 0), ("mine", 0), ("place", (9, 3), -1, 0, 1, 0), ("mine", 0)]
    else:
        rows += [("place", (9, 2), 1, 0, 3, 0), ("pass", 0), ("place", (9, 3), -1, 0, 1, 0), ("pass", 0)]
    return rows


def test_mountain_seven_nuggets_with_tokens_left():
    tok = (5, 3, 2, 1, 0, 2, 3, 1)
    bd, _nd, pi = play(_mountain7(True), tokvals=tok)
    # 7 tokens; player 0 mined two (5, 3; the second in the completing turn, before scoring); 5 remain
    assert pi[0, PI_TOKSUM] == 8
    assert pi[1, PI_TOKSUM] == 2 + 1 + 0 + 2 + 3
    assert bd[1, C_MTN] == 7 and bd[0, C_MTN] == 0
    assert pi[0, PI_TENT] == -1 and pi[1, PI_SUPPLY] == 4  # tent and miner home


def test_mountain_without_miners_loses_tokens():
    rows = [("place", (9, 1), 0, 0, 0, 0), ("pass", 0), ("place", (9, 2), 0, -1, 2, 1), ("pass", 1)]
    bd, _nd, pi = play(rows, final=True)
    assert bd.sum() == 0 and pi[:, PI_TOKSUM].sum() == 0


def test_mountain_tie_shares_tokens_clockwise():
    rows = [
        ("place", (9, 1), 0, 0, 1, 0),
        ("cowboy", 0, 0),  # P0 miner, cap facing east (2 nuggets)
        ("place", (9, 4), 0, -1, 0, 1),
        ("pass", 1),
        ("place", (9, 5), 1, -1, 0, 2),
        ("pass", 2),
        ("place", (4, 5), 2, -1, 1, 0),
        ("pass", 0),
        ("place", (9, 2), 2, 0, 3, 2),
        ("cowboy", 2, 0),  # P2 miner, cap facing west (1 nugget)
        ("place", (6, 2), 1, 0, 0, 1),
        ("pass", 1),
    ]  # P1 joins them: 2 + 2 + 1 = 5 nuggets
    bd, _nd, pi = play(rows, P=3, tokvals=(5, 3, 2, 1, 0, 9, 9))
    # current player P1 is not tied: P2 takes first, then P0, P2, P0, P2
    assert pi[2, PI_TOKSUM] == 5 + 2 + 0 and pi[0, PI_TOKSUM] == 3 + 1
    assert bd[0, C_MTN] == 5 and bd[2, C_MTN] == 5 and bd[1, C_MTN] == 0


def test_mountain_tie_current_player_first():
    rows = [
        ("place", (9, 1), 0, 0, 1, 0),
        ("cowboy", 0, 0),
        ("place", (9, 4), 0, -1, 0, 1),
        ("pass", 1),
        ("place", (9, 5), 1, -1, 0, 2),
        ("pass", 2),
        ("place", (4, 5), 2, -1, 1, 0),
        ("pass", 0),
        ("place", (9, 2), 2, 0, 3, 2),
        ("cowboy", 2, 0),
        ("place", (6, 2), 1, 0, 0, 0),
        ("pass", 0),
    ]  # P0 completes: P0 first
    _bd, _nd, pi = play(rows, P=3, tokvals=(5, 3, 2, 1, 0, 9, 9))
    assert pi[0, PI_TOKSUM] == 5 + 2 + 0 and pi[2, PI_TOKSUM] == 3 + 1


def test_tokens_stack_merges():
    rows = [("place", (9, 1), 0, 0, 1, 0), ("pass", 0), ("place", (6, 2), 1, 0, 0, 1), ("pass", 1)]
    _bd, nd, _pi = play(rows)
    assert nd[find(nd, 0), F_STACK] == 4  # 2 + 2 tokens on one stack


# -- cities ---------------------------------------------------------------------------------------------


def test_city_four_railroads_12():
    rows = [
        ("place", (19, 1), 0, 0, 0, 0),
        ("cowboy", 0, 4),
        ("place", (16, 1), 0, -1, 0, 1),
        ("pass", 1),
        ("place", (16, 2), 1, 0, 0, 1),
        ("pass", 1),
        ("place", (16, 3), 0, 1, 2, 1),
        ("pass", 1),
    ]
    bd, _nd, pi = play(rows, final=True)
    assert bd[0, C_CITY] == 9  # incomplete at the end: 3 per completed railroad (three of four)
    bd, _nd, pi = play(rows + [("place", (16, 4), -1, 0, 0, 1), ("pass", 1)])
    assert bd[0, C_CITY] == 12 and pi[0, PI_SUPPLY] == 4


def test_city_loop_counts_once():
    rows = [
        ("place", (19, 1), 0, 0, 0, 0),
        ("cowboy", 0, 4),
        ("place", (15, 3), 1, 0, 0, 1),
        ("cowboy", 1, 0),  # railwayman on the loop
        ("place", (15, 4), 1, 1, 1, 1),
        ("pass", 1),
        ("place", (15, 5), 0, 1, 2, 1),
        ("pass", 1),  # loop city-E ... city-S closed
        ("place", (16, 1), 0, -1, 0, 1),
        ("pass", 1),
        ("place", (16, 2), -1, 0, 0, 1),
        ("pass", 1),
    ]
    bd, _nd, _pi = play(rows)
    assert bd[0, C_CITY] == 12 - 3
    assert bd[1, C_RAIL] == 4  # city tile + 3 curves, the city tile counted once


# -- prairies and the end of the game ---------------------------------------------------------------------


def test_prairie_tipis_and_horses():
    rows = [
        ("place", (9, 1), 0, 0, 0, 0),
        ("cowboy", 0, 1),  # tipi
        ("place", (9, 3), 1, 0, 0, 1),
        ("pass", 1),  # horses
        ("place", (9, 2), 2, 0, 0, 1),
        ("pass", 1),
    ]  # tipi
    bd, _nd, pi = play(rows, final=True)
    assert bd[0, C_PRAIRIE] == 2 + 4 + 2 and bd[1, C_PRAIRIE] == 0
    assert pi[0, PI_SUPPLY] == 3  # farmers stay on the board
    bd, _nd, pi = play(rows, final=True, values={"tipi_points": 3, "horse_points": 5})
    assert bd[0, C_PRAIRIE] == 3 + 5 + 3


def test_prairie_split_by_mountain_and_majority():
    rows = [
        ("place", (9, 1), 0, 0, 0, 0),
        ("cowboy", 0, 1),  # prairie A: tipi
        ("place", (6, 2), 1, 0, 1, 1),
        ("cowboy", 1, 1),  # mountain N-S: farmer on the east part
        ("place", (9, 3), 2, 0, 0, 1),
        ("pass", 1),
    ]  # horses join the east part
    bd, _nd, _pi = play(rows, final=True)
    assert bd[0, C_PRAIRIE] == 2 and bd[1, C_PRAIRIE] == 4


def test_end_of_game_incomplete_features():
    rows = [
        ("place", (14, 1), 0, 0, 1, 0),
        ("cowboy", 0, 0),  # railroad with a locomotive (ignored)
        ("place", (14, 4), 1, 0, 1, 1),
        ("pass", 1),
        ("place", (19, 1), 2, 0, 0, 1),
        ("cowboy", 1, 4),  # merchant
        ("place", (16, 1), 3, 0, 0, 1),
        ("pass", 1),  # completes the city's east railroad
        ("place", (2, 1), 0, -1, 0, 1),
        ("cowboy", 1, 0),  # 3-nugget mountain, open
        ("place", (9, 4), 1, -1, 3, 0),
        ("tent", 0, 0, 5),  # a cap joins it; player 0's tent there
        ("place", (9, 5), 3, -1, 0, 0),
        ("mine", 0),
    ]
    bd, _nd, pi = play(rows, final=True, tokvals=(5, 3, 2, 1))
    assert bd[0, C_RAIL] == 3  # tiles 14, 14 and the city tile; no locomotive doubling at the end
    assert bd[1, C_CITY] == 3
    assert bd[1, C_MTN] == 3 + 1 and bd[0, C_MTN] == 0  # tents never count for the majority
    assert bd[0, C_TOKENS] == 5 and bd[1, C_TOKENS] == 0  # the rest of the stack left the game
    assert pi[0, PI_TENT] == -1


def test_end_scoring_switches():
    rows = [("place", (14, 1), 0, 0, 1, 0), ("cowboy", 0, 0), ("place", (14, 4), 1, 0, 1, 1), ("pass", 1)]
    bd, _nd, _pi = play(rows, final=True, values={"end_railroads": False})
    assert bd[0, C_RAIL] == 0


# -- hidden tokens: what a bot may know ---------------------------------------------------------------------


def _mined_position(tokvals):
    """Player 1 pitches a tent on a 6-token mountain and mines its top token (tokvals[0]); player 0 decides."""
    rows = [
        ("place", (2, 1), 0, 0, 0, 0),
        ("pass", 0),
        ("place", (9, 1), 0, -1, 2, 1),
        ("tent", 1, 0, 1),
        ("place", (9, 2), 1, 0, 3, 1),
        ("mine", 1),
    ]  # the west edge stays open
    script = [
        (0, inst(*r[1]), r[2], r[3], r[4], r[5])
        if r[0] == "place"
        else (
            1,
            {"pass": A_PASS, "tent": A_TENT, "mine": A_MINE}[r[0]],
            r[2] if len(r) > 2 else 0,
            r[3] if len(r) > 3 else 0,
            0,
            r[1],
        )
        for r in rows
    ]
    tok = np.array(tokvals, np.int64)
    out = run_script(
        np.array(script, np.int64),
        np.int64(2),
        D.seg,
        D.nseg,
        D.edges,
        D.edge_seg,
        D.half_seg,
        CTX.through,
        CTX.cityseg,
        tok,
        CTX.pr,
        np.zeros((2, 5)),
        np.zeros((1, LOGW), np.int64),
        False,
    )
    nd, gi, pl, _board, _fidx, _cons, _front, mtn, pi, cow, bad = out
    assert bad == -1
    return nd, gi, pl, mtn, pi, cow, float(tok.sum()), len(tok)


def _bot_facing(nd, gi, pl, mtn, pi, cow, tot, n, me):
    emean = token_mean(tot, np.int64(n), pi, np.int64(me))
    moves = np.zeros((400, 3), np.int64)
    feats = np.zeros((400, NFEAT))
    t = gi[G_NPL] - 1
    k = action_features(
        nd,
        gi,
        pl,
        np.int64(t),
        np.int64(me),
        np.int64(2),
        D.seg,
        D.nseg,
        CTX.through,
        CTX.pr,
        emean,
        pi,
        cow,
        np.full(4, 10, np.int64),
        mtn,
        moves,
        feats,
        np.zeros(5, np.int64),
    )
    return emean, moves[:k].copy(), feats[:k].copy()


def test_opponents_tokens_stay_hidden():
    high = (5, 0, 1, 1, 1, 2, 2, 3)  # same printed mix, player 1 draws the 5 ...
    low = (0, 5, 1, 1, 1, 2, 2, 3)  # ... or the 0
    a = _mined_position(high)
    b = _mined_position(low)
    assert a[4][1, PI_TOKSUM] == 5 and b[4][1, PI_TOKSUM] == 0  # the scoring knows the faces
    ea, ma, fa = _bot_facing(*a, me=0)
    eb, mb, fb = _bot_facing(*b, me=0)
    assert ea == eb == pytest.approx(15 / 8)  # player 0 knows the mix and that one token is gone, not which
    assert np.array_equal(ma, mb) and np.array_equal(fa, fb) and (ma[:, 0] == A_TENT).any()
    # player 1 saw their own token: their estimate moves
    assert _bot_facing(*a, me=1)[0] == pytest.approx(10 / 7) and _bot_facing(*b, me=1)[0] == pytest.approx(15 / 7)
