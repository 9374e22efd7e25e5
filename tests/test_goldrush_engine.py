"""Gold Rush engine invariants, reproducibility, replay = batch, the CLI replay and the bot-strength order."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from meeplab.cli import cli, main
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.game import rank_and_win
from meeplab.sim.goldrush import GAME, play_logged
from meeplab.sim.goldrush.const import EV_DISCARD, EV_MINE, EV_PLACE, EV_TAKE

CTX = GAME.prepare(GAME.params.resolve({}))


def test_reproducible_and_chunk_independent():
    lu = make_lineup("goldrush", ["greedy", "random", "heuristic"], 3, True)
    a = GAME.play(CTX, lu, 9, 0, 12, 3)
    b = GAME.play(CTX, lu, 9, 5, 4, 3)
    c = GAME.play(CTX, lu, 9, 0, 12, 3)
    assert np.array_equal(a.score, c.score) and np.array_equal(a.breakdown, c.breakdown)
    assert np.array_equal(a.score[5:9], b.score) and np.array_equal(a.length[5:9], b.length)
    assert not np.array_equal(a.score, GAME.play(CTX, lu, 10, 0, 12, 3).score)


@pytest.mark.parametrize("n_players", [2, 5])
def test_replay_is_the_batch_game(n_players):
    lu = make_lineup("goldrush", ["heuristic", "greedy"], n_players, True)
    batch = GAME.play(CTX, lu, 4, 0, 6, n_players)
    for i in range(6):
        _log, score, bd, turns = play_logged(CTX, lu, 4, i, n_players)
        assert np.array_equal(score, batch.score[i]) and np.array_equal(bd, batch.breakdown[i])
        assert turns == batch.length[i]


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_invariants(n_players):
    lu = make_lineup("goldrush", ["random", "greedy"], n_players, True)
    for i in range(40):
        log, score, bd, turns = play_logged(CTX, lu, 2, i, n_players)
        placed = int((log[:, 0] == EV_PLACE).sum())
        discarded = int((log[:, 0] == EV_DISCARD).sum())
        assert placed == turns and placed + discarded == 71  # every tile but the start tile drawn once
        assert np.allclose(score, bd.sum(axis=1)) and (bd >= 0).all()
        # tokens revealed never exceed the 63 tokens, and gold-token points are what was revealed
        rev = log[(log[:, 0] == EV_TAKE) | (log[:, 0] == EV_MINE)]
        assert len(rev) <= 63
        assert bd[:, 4].sum() == rev[:, 3].sum()


def test_param_effects():
    lu = make_lineup("goldrush", ["greedy"], 3, True)
    base = GAME.play(CTX, lu, 1, 0, 100, 3)
    no_tents = GAME.play(GAME.prepare(GAME.params.resolve({"tents": 0})), lu, 1, 0, 100, 3)
    assert no_tents.breakdown[:, :, 4].sum() < base.breakdown[:, :, 4].sum() * 0.5
    no_farm = GAME.play(GAME.prepare(GAME.params.resolve({"farmers": False})), lu, 1, 0, 100, 3)
    assert no_farm.breakdown[:, :, 3].sum() == 0
    house = GAME.play(
        GAME.prepare(GAME.params.resolve({"house_fifth_cowboy": True, "house_remove_cowboy": True})), lu, 1, 0, 100, 3
    )
    assert not np.array_equal(house.score, base.score)


def test_tents_per_seat():
    """tents=1,1,0: the third seat plays without a tent (a seat-compensation what-if, issue 36): it mines nothing of
    its own, so its gold-token points fall far below the others' and below a game without any tents; the two seats
    with tents keep theirs. One value still means every seat."""
    lu = make_lineup("goldrush", ["greedy"], 3, True)
    assert GAME.params.resolve({"tents": "1,1,0"})["tents"] == (1, 1, 0)
    gold = {}
    for tents in ("1", "1,1,0", "0"):
        b = GAME.play(GAME.prepare(GAME.params.resolve({"tents": tents})), lu, 1, 0, 150, 3)
        gold[tents] = b.breakdown[:, :, 4].mean(axis=0)
    assert gold["1,1,0"][2] < 0.5 * gold["1,1,0"][:2].min()
    assert gold["1,1,0"][2] < gold["0"][2]
    assert gold["1,1,0"][:2].min() > 0.9 * gold["1"][:2].min()


def test_cli_replay_prints_placements_scoring_and_map():
    r = CliRunner().invoke(
        cli, ["replay", "goldrush", "--seed", "3", "--index", "2", "--players", "2", "--bots", "heuristic,greedy"]
    )
    assert r.exit_code == 0, r.output
    out = r.output
    assert "places tile" in out and "turned" in out and "score:" in out
    assert "reconstructed deck" in out and "final layout" in out and "gold_tokens" in out


def test_cli_bad_deck_file(tmp_path, capsys):
    p = tmp_path / "d.csv"
    p.write_text("type,count,edges,rails,mountains,nuggets,locomotives,tipis,horses,start\n1,2,MMZM,,,,,,,1\n")
    assert main(["replay", "goldrush", "--deck", str(p)]) == 2
    err = capsys.readouterr().err
    assert str(p) in err and "tile 1" in err and "M/R/P" in err


def _share(a, b, n_players, n, seed):
    lu = make_lineup("goldrush", [a, b], n_players, True)
    bt = GAME.play(CTX, lu, seed, 0, n, n_players)
    _, win = rank_and_win(bt.score, bt.tiebreak)
    g = np.arange(n)[:, None]
    s = np.arange(n_players)[None, :]
    is_a = ((s + g) % n_players) % 2 == 0  # entries 0, 2 play a
    share = (win * is_a).sum() / n
    fair = is_a.sum() / is_a.size
    return share, fair, 1.96 * math.sqrt(share * (1 - share) / n)


@pytest.mark.parametrize(
    "a, b, n_players, n, margin",
    [
        ("heuristic", "greedy", 2, 2000, 0.04),
        ("heuristic", "greedy", 4, 800, 0.15),
        ("greedy", "random", 2, 300, 0.40),
        ("greedy", "random", 4, 300, 0.40),
    ],
)
def test_bot_strength_order(a, b, n_players, n, margin):
    share, fair, half = _share(a, b, n_players, n, 77)
    # the lower end of the 95% interval must clear the fair share by the margin
    assert share - half > fair + margin, f"{a} vs {b} {n_players}p: win share {share:.3f} (fair {fair:.2f})"


def test_replacement_files_play(tmp_path):
    """A smaller deck and a token mix with fewer tokens than nuggets (stacks get what is left)."""
    src = Path(CTX.deck.path).read_text()
    rows = [ln for ln in src.splitlines() if ln and not ln.startswith("#")]
    small = [rows[0]]
    for ln in rows[1:]:
        cells = ln.split(",")
        if cells[0] in ("10", "14", "15", "9", "18", "16"):
            small.append(ln)
    d = tmp_path / "deck.csv"
    d.write_text("\n".join(small) + "\n")
    t = tmp_path / "tokens.csv"
    t.write_text("value,count\n1,5\n4,3\n")
    values = GAME.params.resolve({"deck": str(d), "tokens": str(t)})
    ctx = GAME.prepare(values)
    assert ctx.deck.n == 4 + 8 + 9 + 5 + 4 + 4
    lu = make_lineup("goldrush", ["greedy", "random"], 3, True)
    bt = GAME.play(ctx, lu, 1, 0, 50, 3)
    assert (bt.length <= ctx.deck.n - 1).all() and (bt.length > 10).all()
    assert bt.breakdown[:, :, 4].sum(axis=1).max() <= 5 + 12
    _log, score, _bd, _turns = play_logged(ctx, lu, 1, 3, 3)
    assert np.array_equal(score, bt.score[3])
    n = GAME.notes(values)
    assert not any("reconstructed deck" in x for x in n) and any(str(d) in x for x in n)
