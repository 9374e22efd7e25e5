"""Restricted play (sim/core/restrict.py, lab/studies/options.py, `meeplab options`)."""

import json

import numpy as np
import pytest

from meeplab.cli import main
from meeplab.lab.studies.options import restricted_lineup, run_options
from meeplab.sim.core import forward, restrict
from meeplab.sim.core.bots import entry_of_seat
from meeplab.sim.core.forward import C_N, S_FORBID, S_ONLY
from meeplab.sim.core.registry import get_game
from meeplab.sim.schweinebande import engine, state
from meeplab.sim.schweinebande.layout import LOGW
from meeplab.sim.schweinebande.options import OPTIONS, option_mask

GAME = get_game("schweinebande")
BIT = {name: 1 << b for b, (name, _) in enumerate(OPTIONS)}


@pytest.fixture(scope="module")
def c():
    return GAME.prepare(GAME.params.resolve({}))


def play_by_hand(c, lu, seed, g, n_players, check):
    """Game ``g`` played decision by decision from Python, restricted entries through ``restrict.ask_restricted``
    (what the shared loop does); ``check(st, i, e)`` sees every decision with more than one candidate."""
    st = state.new_state(c.cx, n_players, np.zeros((0, LOGW), dtype=np.int64))
    engine.reset(st, c.cx, seed, g)
    pick = np.zeros(st.rec[0]["moves"].shape[0], dtype=np.int64)
    while (seat := engine.advance(st, c.cx)) >= 0:
        e = entry_of_seat(seat, g, n_players, lu.rotate)
        n = st.rec[0]["ctl"][C_N]
        if lu.search[e, S_FORBID] or lu.search[e, S_ONLY]:
            i = restrict.ask_restricted(st, c.cx, lu.fns, lu.weights, e, lu.search[e], pick)
        else:
            i = forward.ask(st, lu.fns, lu.weights, e)
        if n > 1:
            check(st, i, e)
        engine.apply(st, c.cx, i)
    sc = np.zeros(n_players)
    tb = np.zeros(n_players)
    brk = np.zeros((n_players, engine.NC))
    engine.result(st, c.cx, sc, tb, brk)
    return sc


@pytest.mark.parametrize("mode,option", [("forbid", "quartet"), ("forbid", "pig_bonus"), ("only", "mixed")])
def test_restricted_bot_never_plays_a_forbidden_class_when_another_candidate_exists(c, mode, option):
    n_players, seed, games = 3, 5, 40
    cls = [name for name, _ in OPTIONS].index(option)
    lu = restricted_lineup(GAME, "heuristic", n_players, mode, cls)
    bit = BIT[option]
    seen = {"bound": 0}

    def check(st, i, e):
        n = st.rec[0]["ctl"][C_N]
        masks = [option_mask(st, c.cx, j) for j in range(n)]
        if e != 0:
            return
        if mode == "forbid":
            if any(m & bit == 0 for m in masks) and any(m & bit for m in masks):
                seen["bound"] += 1
                assert masks[i] & bit == 0, "a forbidden candidate was played while another was legal"
        elif any(m & bit for m in masks) and any(m & bit == 0 for m in masks):
            seen["bound"] += 1
            assert masks[i] & bit, "a required class was offered but not played"

    by_hand = np.array([play_by_hand(c, lu, seed, g, n_players, check) for g in range(games)])
    assert seen["bound"] > 10  # the restriction really had something to forbid
    # the shared batch loop plays exactly these games
    b = GAME.play(c, lu, seed, 0, games, n_players)
    assert np.array_equal(b.score, by_hand)


def test_every_candidate_forbidden_falls_back_to_what_the_rules_force(c):
    # selling is forced when short of feed; forbid selling a pig: a hand of pigs only must still sell one
    lu = restricted_lineup(GAME, "heuristic", 2, "forbid", [n for n, _ in OPTIONS].index("sell_pig"))
    st = state.new_state(c.cx, 2, np.zeros((0, LOGW), dtype=np.int64))
    engine.reset(st, c.cx, 1, 0)
    engine.advance(st, c.cx)
    r = st.rec[0]
    pick = np.zeros(r["moves"].shape[0], dtype=np.int64)
    r["ctl"][C_N] = 2  # a hand-made decision: two candidates, both of the forbidden class
    r["ctl"][forward.C_KIND] = 5  # K_SELL
    r["moves"][0, 0] = 4
    r["moves"][1, 0] = 4
    assert restrict.allowed_list(st, c.cx, lu.search[0], pick) == 2
    r["moves"][1, 0] = 1  # one sheep: only it is left
    assert restrict.allowed_list(st, c.cx, lu.search[0], pick) == 1 and pick[0] == 1
    assert restrict.ask_restricted(st, c.cx, lu.fns, lu.weights, 0, lu.search[0], pick) == 1


def test_options_ranks_classes_with_paired_intervals(c):
    res = run_options(GAME, c, "heuristic", 3, 300, seed=2, modes=("forbid",))
    rows = {r["option"]: r for r in res.rows}
    assert set(rows) == set(BIT)
    for r in res.rows:
        assert r["delta_lo"] <= r["delta"] <= r["delta_hi"]
        assert 0 <= r["lo"] <= r["share"] <= r["hi"] <= 1
    # the pig bonus is worth a lot to the heuristic; never selling a pig where another animal could go, nothing
    assert rows["pig_bonus"]["delta_hi"] < -0.05 and rows["pig_bonus"]["verdict"] in ("costly", "dominant")
    assert rows["sell_pig"]["delta_lo"] > -0.05


def test_options_command_writes_a_report_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "opt"
    args = [
        "options",
        "schweinebande",
        "--bot",
        "heuristic",
        "--players",
        "2",
        "--games",
        "120",
        "--classes",
        "pass,pig_bonus",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(args) == 0
    meta = json.loads((out / "options.json").read_text())
    assert [row["option"] for row in meta["rows"]] == ["pass", "pig_bonus", "pass", "pig_bonus"]
    html = (out / "report.html").read_text()
    assert "What is each option worth?" in html and "pig_bonus" in html
    capsys.readouterr()
    assert main(args) == 2 and "already holds" in capsys.readouterr().err
    assert main(["options", "schweinebande", "--classes", "nope", "--out", str(tmp_path / "x")]) == 2
    assert "unknown option class 'nope'" in capsys.readouterr().err
    assert main(["report", str(out), "--out", str(tmp_path / "again.html")]) == 0
    assert "What is each option worth?" in (tmp_path / "again.html").read_text()
    assert main(["options", "schweinebande", "--list"]) == 0
    assert "pig_bonus" in capsys.readouterr().out


def test_a_bot_that_wins_more_without_an_option_misplays_it():
    """Verdicts of the forbid mode: a significant gain without the class is ``helps`` (the bot misplays it; a
    designer's Sushi Go: +0.38 was called useless), a small insignificant change ``useless``, a significant small loss
    ``costly``, a collapse below half the fair share ``dominant``, no changed game ``unused``."""
    from meeplab.lab.studies.options import verdict

    row = {"mode": "forbid", "changed": 500, "hi": 0.9, "delta": 0.38, "delta_lo": 0.33, "p_holm": 1e-9}
    assert verdict(row, 1 / 3) == "helps"
    assert verdict({**row, "delta": 0.004, "delta_lo": -0.01, "p_holm": 0.6}, 1 / 3) == "useless"
    assert verdict({**row, "delta": -0.012, "delta_lo": -0.018, "p_holm": 0.01}, 1 / 3) == "costly"
    assert verdict({**row, "hi": 0.1, "delta": -0.25, "delta_lo": -0.3}, 1 / 3) == "dominant"
    assert verdict({**row, "changed": 0}, 1 / 3) == "unused"


SEARCHES = """[bots.tiny-rollout]
base = "rollout"
[bots.tiny-rollout.weights]
playouts = 2
max_candidates = 3

[bots.tiny-ismcts]
base = "ismcts"
[bots.tiny-ismcts.weights]
iterations = 6
per_candidate = 0
max_candidates = 3
"""


@pytest.mark.parametrize(
    "bots",
    [["tiny-rollout"], ["tiny-rollout", "tiny-ismcts"], ["tiny-ismcts"], ["tiny-ismcts", "tiny-rollout"]],
    ids=["rollout", "rollout-mixed", "ismcts", "ismcts-mixed"],
)
def test_a_restricted_search_keeps_its_restriction_and_the_batch_plays_its_games(c, tmp_path, bots):
    """A restricted search entry (``rollout`` or ``ismcts``, alone or beside the other: the search steps for lineups
    with a restricted search entry, sim.core.play.restricted_search_step and ismcts's) searches only its allowed
    candidates; the batch plays exactly the games stepped here through the shared ``decide``."""
    from meeplab.sim.core.bots import READS_ALL, make_lineup
    from meeplab.sim.core.play import decide, new_player, search_function

    cfg = tmp_path / "bots.toml"
    cfg.write_text(SEARCHES)
    n_players, seed, games, option = 2, 3, 6, "quartet"
    bit = BIT[option]
    lu = make_lineup(GAME.id, bots, n_players, True, (str(cfg),))
    lu.search[0, S_FORBID] = float(bit)
    lu.reads[0] = READS_ALL
    srch = search_function(c.cx, lu, n_players, engine.NC)
    bound = 0
    by_hand = []
    for g in range(games):
        st, scratch = new_player(c.cx, n_players, engine.NC, np.zeros((0, LOGW), dtype=np.int64))
        engine.reset(st, c.cx, seed, g)
        while (seat := engine.advance(st, c.cx)) >= 0:
            n = st.rec[0]["ctl"][C_N]
            masks = [option_mask(st, c.cx, j) for j in range(n)]
            i = decide(st, scratch, c.cx, lu.fns, lu.weights, lu.search, lu.rotate, g, srch)
            mine = entry_of_seat(seat, g, n_players, lu.rotate) == 0
            if mine and any(m & bit for m in masks) and any(m & bit == 0 for m in masks):
                bound += 1
                assert masks[i] & bit == 0, "the restricted search played a forbidden candidate"
            engine.apply(st, c.cx, i)
        sc, tb, brk = np.zeros(n_players), np.zeros(n_players), np.zeros((n_players, engine.NC))
        engine.result(st, c.cx, sc, tb, brk)
        by_hand.append(sc)
    assert bound > 5  # the restriction had something to forbid
    b = GAME.play(c, lu, seed, 0, games, n_players)
    assert np.array_equal(b.score, np.array(by_hand))
