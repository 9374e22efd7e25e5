"""meeplab quality: planted cases for every metric (docs/quality.md).

Hand-written trajectories (lead changes, decisiveness, drama, comebacks), planted win shares (relative skill of a
game of pure skill and of pure chance), a finished Schweinebande game (its winner's probability is 1), trajectories
reproducible and equal to the run's own games, ACBAS (no chance, no hidden information: the clairvoyant player plays
exactly as the skilled one, RS = 1), and the command end to end."""

import json

import numpy as np
import pandas as pd
import pytest

from meeplab.analysis import quality as q
from meeplab.sim.core.game import rank_and_win
from meeplab.sim.core.registry import get_game

TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 2\nmax_candidates = 3\ngrow = 0\n'


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


# -- trajectory metrics on hand-written trajectories ---------------------------------------------------------------


def test_lead_changes_hand_written():
    p = np.array(
        [
            [0.4, 0.3, 0.3],  # seat 1 leads
            [0.4, 0.4, 0.2],  # a tie keeps seat 1
            [0.3, 0.5, 0.2],  # seat 2: change 1
            [0.2, 0.3, 0.5],  # seat 3: change 2
            [0.6, 0.2, 0.2],  # seat 1: change 3
            [1.0, 0.0, 0.0],  # result: seat 1 wins, no change
        ]
    )
    assert q.lead_changes(p) == 3
    assert q.lead_changes(np.array([[0.5, 0.5], [0.5, 0.5], [0.0, 1.0]])) == 1


def test_game_metrics_hand_written():
    prog = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    p = np.array([[0.5, 0.5], [0.2, 0.8], [0.95, 0.05], [0.92, 0.08], [1.0, 0.0]])
    m = q.game_metrics(prog, p)
    assert m["winner"] == 1
    assert m["lead_changes"] == 2  # seat 2 takes the lead, seat 1 takes it back
    assert m["decided_at"] == 0.5  # above 0.9 from the third point on
    assert m["drama"] == pytest.approx((0.0 + 0.6 + 0 + 0) / 4)  # the winner 0.6 behind at the second point
    assert m["comeback"] == 0.0  # the favourite at 2/3 (point 0.75) won
    assert m["half_leader_win"] == 1.0
    assert m["uncertainty"] > 0 and m["uncertainty"] < 1
    # a certain game: decided from the start, no drama, no uncertainty
    sure = q.game_metrics(prog, np.array([[1.0, 0.0]] * 5))
    assert (sure["decided_at"], sure["drama"], sure["uncertainty"], sure["lead_changes"]) == (0.0, 0.0, 0.0, 0)


def test_intervals_stay_inside_the_range_with_many_zeros():
    """Lead changes of 100 games, 97 of them without one: a normal interval would reach below 0 (-0.003); the
    bootstrap interval stays within the counts' range, holds the mean, and is the same on every call."""
    ch = np.r_[np.zeros(97), np.ones(3)]
    normal_lo = ch.mean() - 1.96 * ch.std(ddof=1) / 10
    assert normal_lo < 0
    ci = q.mean_ci(ch, count=True)
    assert 0.0 <= ci["lo"] <= ci["value"] == 0.03 <= ci["hi"] <= 1.0 and ci["hi"] > ci["lo"]
    assert q.mean_ci(ch, count=True) == ci and q.mean_ci(ch[::-1], count=True) == ci  # reproducible, order-free
    # a share of the game (decisiveness) decided at the start in most games, continuous values: inside [0, 1]
    rng = np.random.default_rng(3)
    dec = np.r_[np.zeros(90), rng.random(10)]
    ci = q.mean_ci(dec)
    assert 0.0 <= ci["lo"] < ci["value"] < ci["hi"] <= 1.0
    # no lead change in any game: not a zero-width interval but the Poisson bound 3.7 / n
    none = q.mean_ci(np.zeros(100), count=True)
    assert none["lo"] == none["value"] == 0.0 and none["hi"] == pytest.approx(-np.log(0.025) / 100)
    # the same through the metrics of hand-written trajectories: 20 games, one lead change in one of them
    rows = []
    for g in range(20):
        flip = g == 0
        for j, prog in enumerate((0.0, 0.5, 1.0)):
            p1 = (0.6, 0.4, 0.0)[j] if flip else (0.6, 0.8, 1.0)[j]
            for seat, pw in ((1, p1), (2, 1 - p1)):
                rows.append((2, g, j, j, j, prog, seat, pw, 0.0, j == 2))
    cols = ["n_players", "game", "point", "step", "round", "progress", "seat", "p_win", "se", "final"]
    m = q.trajectory_metrics(pd.DataFrame(rows, columns=cols))
    lc = m["lead_changes"]
    assert lc["value"] == pytest.approx(1 / 20) and 0.0 <= lc["lo"] <= lc["value"] <= lc["hi"] <= 2.0
    for key in ("decisiveness", "drama", "uncertainty"):
        assert 0.0 <= m[key]["lo"] <= m[key]["value"] <= m[key]["hi"] <= 1.0, key
    # the random effect of relative skill (a difference of win shares) stays within [-1, 1]
    f = np.r_[np.ones(2), np.zeros(98)]
    rs = q.relative_skill({"beginner": np.zeros(100), "skilled": np.zeros(100), "fictive": f}, reps=200)
    assert 0.0 <= rs["random_effect"]["lo"] <= 0.02 <= rs["random_effect"]["hi"] <= 1.0


def test_relative_skill_planted():
    rng = np.random.default_rng(1)
    n = 400
    chance = rng.integers(0, 2, n).astype(float)
    # pure chance: beginner and skilled win the same games, only the clairvoyant player does better
    rs = q.relative_skill({"beginner": chance, "skilled": chance, "fictive": np.ones(n)})
    assert rs["relative_skill"]["value"] == 0.0 and rs["relative_skill"]["hi"] == 0.0
    # pure skill: the clairvoyant player wins exactly the skilled player's games
    skilled = np.maximum(chance, rng.integers(0, 2, n))
    rs = q.relative_skill({"beginner": chance * 0, "skilled": skilled, "fictive": skilled})
    assert rs["relative_skill"]["value"] == 1.0 and rs["relative_skill"]["lo"] == 1.0
    assert rs["random_effect"]["value"] == 0.0
    assert not rs["ceiling"]


def test_relative_skill_at_the_ceiling_is_flagged():
    """A skilled player that wins (almost) every game against a weak field leaves the clairvoyant one no room: RS reads
    1 whatever the luck (a designer's Sushi Go: 30 of 30); the record says so and the report's verdict is undecided."""
    from meeplab.reports.quality import findings

    n = 30
    rs = q.relative_skill({"beginner": np.zeros(n), "skilled": np.ones(n), "fictive": np.ones(n)})
    assert rs["relative_skill"]["value"] == 1.0 and rs["ceiling"]
    traj = _planted_trajectories(1.0, games=50)
    rec = {**q.trajectory_metrics(traj, noise=False), **rs, "calibration": {}, "margin_share": {"median": 0.2},
           "margin": {"median": 3.0}, "tiebreak_decided": {"value": 0.0}, "shared_wins": {"value": 0.0},
           "decisions_per_seat": {"value": 4.0}, "branching": {"mean": 2.0},
           "forced_share": {"value": 0.0}}  # fmt: skip
    lines = [" ".join(x if isinstance(x, str) else str(x) for x in f) for f in findings({"players": {"2": rec}}, 2)]
    (line,) = [x for x in lines if "luck vs skill" in x]
    assert "undecided: the field is too weak, relative skill" in line and "At the ceiling" in line


def test_closeness_and_what_decides():
    # two games of two seats, categories a and b: seat 1 wins 10-6 (a decides), seat 2 wins 5-5 on the tie-break
    res = pd.DataFrame(
        {
            "game_index": [0, 0, 1, 1],
            "seat": [0, 1, 0, 1],
            "score": [10.0, 6.0, 5.0, 5.0],
            "tiebreak": [0.0, 0.0, 0.0, 1.0],
            "win": [1.0, 0.0, 0.0, 1.0],
            "a": [8.0, 2.0, 1.0, 3.0],
            "b": [2.0, 4.0, 4.0, 2.0],
        }
    )
    t = q.game_table(res, ["a", "b"])
    c = q.closeness(t)
    assert c["margin"]["value"] == 2.0  # (4 + 0) / 2
    assert c["tiebreak_decided"]["value"] == 0.5
    assert c["shared_wins"]["value"] == 0.0
    w = q.what_decides(t, ["a", "b"], reps=50)
    # differences: game 0 a +6, b -2; game 1 a +2, b -2 -> a 8 / 4, b -4 / 4
    assert w["a"]["value"] == pytest.approx(2.0) and w["b"]["value"] == pytest.approx(-1.0)
    assert w["a"]["share_of_points"] == pytest.approx(14 / 26)


def test_closeness_of_a_lower_wins_game():
    """Lowest score wins: seat 2 wins 6 against 10 (margin 4, 4 / 10 of the runner-up's score); a 5-5 tie for the
    LOWEST score settled by the tie-break counts as tie-break decided, whereas the top score 9 of that game is no tie
    at all. A negative category (chips) takes its share of the points' absolute sum."""
    res = pd.DataFrame(
        {
            "game_index": [0, 0, 0, 1, 1, 1],
            "seat": [0, 1, 2, 0, 1, 2],
            "score": [10.0, 6.0, 12.0, 5.0, 5.0, 9.0],
            "tiebreak": [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            "win": [0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
            "cards": [12.0, 6.0, 12.0, 6.0, 6.0, 9.0],
            "chips": [-2.0, 0.0, 0.0, -1.0, -1.0, 0.0],
        }
    )
    t = q.game_table(res, ["cards", "chips"])
    c = q.closeness(t, lower_wins=True)
    assert c["margin"]["value"] == 2.0 and c["margin"]["p90"] <= 4.0  # (4 + 0) / 2
    assert c["margin_share"]["value"] == pytest.approx((4 / 10 + 0 / 5) / 2)
    assert c["tiebreak_decided"]["value"] == 0.5 and c["shared_wins"]["value"] == 0.0
    upside_down = q.closeness(t)  # read as highest-wins: other margins, no tie for first
    assert upside_down["margin"]["value"] == 3.0 and upside_down["tiebreak_decided"]["value"] == 0.0
    w = q.what_decides(t, ["cards", "chips"], reps=50)
    assert w["cards"]["share_of_points"] == pytest.approx(51 / 55) and w["chips"]["share_of_points"] == pytest.approx(
        -4 / 55
    )


# -- on an engine --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sb():
    g = get_game("schweinebande")
    return g, g.prepare(g.params.resolve({}, g.id))


def test_trajectories_are_the_runs_games_and_certain_at_the_end(sb):
    from meeplab.sim.core import trajectories as tr
    from meeplab.sim.core.bots import make_lineup

    g, ctx = sb
    lu = make_lineup(g.id, ["heuristic", "greedy", "random"], 3, True)
    a = tr.trajectories(ctx.cx, lu, 3, len(g.categories), 5, np.arange(4), 4, 5)
    batch = g.play(ctx, lu, 5, 0, 4, 3)
    _, win = rank_and_win(batch.score, batch.tiebreak)
    assert np.array_equal(a["prob"][:, -1], win)  # the last point is the game's own result
    assert (a["se"][:, -1] == 0).all()
    assert np.allclose(a["prob"][:, :-1].sum(axis=2), 1.0)  # win shares add up to 1 at every point
    assert (a["steps"][:, 0] == 0).all() and (np.diff(a["steps"], axis=1) > 0).all()
    assert (a["dec"].sum(axis=1) + a["forced"].sum(axis=1) == a["length"]).all()
    assert (a["hist"].sum(axis=(1, 2)) == a["length"]).all()
    b = tr.trajectories(ctx.cx, lu, 3, len(g.categories), 5, np.arange(4)[::-1], 4, 5)  # other order, same games
    assert np.array_equal(a["prob"], b["prob"][::-1]) and np.array_equal(a["king"], b["king"][::-1])


def test_lowest_score_wins_in_trajectories():
    """A plugin game whose lowest score wins (No Thanks!): the last point of each trajectory is the game's own
    winner in that direction, and the win shares along the way add up to 1."""
    pytest.importorskip(
        "meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)"
    )
    from meeplab.sim.core import trajectories as tr
    from meeplab.sim.core.bots import make_lineup

    g = get_game("nothanks")
    ctx = g.prepare(g.params.resolve({}, g.id))
    lu = make_lineup(g.id, ["greedy", "random"], 4, True)
    cx = g.engine_context(ctx, lu)
    a = tr.trajectories(cx, lu, 4, len(g.categories), 3, np.arange(6), 4, 3)
    batch = g.play(ctx, lu, 3, 0, 6, 4)
    _, win = g.rank_and_win(batch.score, batch.tiebreak)
    assert g.lower_wins and np.array_equal(a["prob"][:, -1], win)
    _, upside_down = rank_and_win(batch.score, batch.tiebreak)
    assert not np.array_equal(win, upside_down)  # the direction matters in these games
    assert np.allclose(a["prob"][:, :-1].sum(axis=2), 1.0)


def test_certain_winner_has_probability_one(sb):
    """A finished game is a state whose winner is certain: every playout from it ends there, so the winner's
    probability is 1 with standard error 0 (and a state mid-game is not certain)."""
    from meeplab.sim.core import trajectories as tr
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.forward import ask
    from meeplab.sim.core.play import new_player
    from meeplab.sim.schweinebande import engine

    g, ctx = sb
    lu = make_lineup(g.id, ["heuristic", "greedy", "heuristic"], 3, False)
    st, scratch = new_player(ctx.cx, 3, len(g.categories), np.zeros((0, 8), np.int64))
    sc, tb, brk = scratch.sc, scratch.tb, scratch.brk
    pa, pb = np.zeros(3), np.zeros(3)
    no_more = (False, 0.0, 0, np.zeros((16, 3)))  # highest score wins, no standard-error target, each playout's shares
    engine.reset(st, ctx.cx, 9, 2)
    steps = 0
    while (seat := engine.advance(st, ctx.cx)) >= 0:
        if steps == 10:
            tr.win_probability(st, scratch, ctx.cx, lu.fns, lu.weights, 2, False, np.uint64(7), 16, pa, pb, *no_more)
            assert pa.sum() == pytest.approx(1.0) and pb.max() > 0  # mid-game: uncertain
        engine.apply(st, ctx.cx, ask(st, lu.fns, lu.weights, seat))
        steps += 1
    engine.result(st, ctx.cx, sc, tb, brk)
    _, win = rank_and_win(sc[None].copy(), tb[None].copy())
    assert win.max() == 1.0  # one winner
    tr.win_probability(st, scratch, ctx.cx, lu.fns, lu.weights, 2, False, np.uint64(7), 16, pa, pb, *no_more)
    assert np.array_equal(pa, win[0]) and (pb == 0).all()


def test_acbas_clairvoyant_is_the_skilled_player(tiny):
    """ACBAS has no chance and no hidden information: the fictive player plays the skilled player's very games, so
    the random effect is 0 and relative skill 1."""
    from meeplab.lab.studies import quality as core

    g = get_game("acbas")
    ctx = g.prepare(g.params.resolve({}, g.id))
    sk = core.play_skill(g, ctx, 2, 3, 6, "random", "tiny", "heuristic", bot_configs=(tiny,))
    assert np.array_equal(sk["wins"]["fictive"], sk["wins"]["skilled"])
    rs = q.relative_skill(sk["wins"], reps=200)
    assert rs["random_effect"]["value"] == 0.0
    if rs["learning_effect"]["value"] > 0:
        assert rs["relative_skill"]["value"] == 1.0 and rs["relative_skill"]["lo"] == 1.0


TINY_ISMCTS = '[bots.tiny-ismcts]\nbase = "ismcts"\n[bots.tiny-ismcts.weights]\nper_candidate = 2\nmax_candidates = 3\n'


@pytest.mark.parametrize("search", ["tiny", "tiny-ismcts"])
def test_the_clairvoyant_twin_is_the_same_search_on_the_true_state(tiny, tmp_path, search):
    """The fictive player is the skilled search bot itself with S_TRUE on: for rollout and ismcts alike it plays
    ACBAS (no chance, no hidden information) exactly as the skilled player, game for game, so RS = 1 exactly; in
    Schweinebande (chance) knowing the true state changes its games."""
    from meeplab.lab.studies import quality as core
    from meeplab.sim.core.forward import S_TRUE

    cfg = tmp_path / "ismcts.toml"
    cfg.write_text(TINY_ISMCTS)
    configs = (tiny, str(cfg))
    for game, p, field, same in (("acbas", 2, "heuristic", True), ("schweinebande", 3, "heuristic", False)):
        g = get_game(game)
        ctx = g.prepare(g.params.resolve({}, g.id))
        plain = core.skill_lineup(g.id, p, "skilled", search, field, configs)
        twin = core.skill_lineup(g.id, p, "fictive", search, field, configs)
        assert twin.search[0, S_TRUE] == 1.0 and plain.search[0, S_TRUE] == 0.0 and not twin.search[1:, S_TRUE].any()
        a = g.play(ctx, plain, 3, 0, 6, p)
        b = g.play(ctx, twin, 3, 0, 6, p)
        assert np.array_equal(a.score, b.score) == same, game
    g = get_game("acbas")
    ctx = g.prepare(g.params.resolve({}, g.id))
    sk = core.play_skill(g, ctx, 2, 3, 6, "random", search, "heuristic", bot_configs=configs)
    rs = q.relative_skill(sk["wins"], reps=200)
    assert rs["random_effect"]["value"] == 0.0 and np.array_equal(sk["wins"]["fictive"], sk["wins"]["skilled"])


def test_no_learnable_skill_gives_rs_zero(sb, tiny):
    """Chance only: when the skilled player is the beginner (no skill to learn between them), the two win exactly the
    same games (common random numbers), LE = 0, and the clairvoyant player's gain is all chance: RS = 0."""
    from meeplab.lab.studies import quality as core

    g, ctx = sb
    sk = core.play_skill(g, ctx, 3, 4, 8, "tiny", "tiny", "heuristic", bot_configs=(tiny,))
    assert np.array_equal(sk["wins"]["beginner"], sk["wins"]["skilled"])
    rs = q.relative_skill(sk["wins"], reps=200)
    assert rs["learning_effect"]["value"] == 0.0
    if rs["random_effect"]["value"] > 0:
        assert rs["relative_skill"]["value"] == 0.0


def _quality_args(tiny, out):
    args = ["quality", "schweinebande", "-p", "3", "-n", "40", "--trajectory-games", "6", "--playouts", "4",
            "--se-target", "0"]  # fmt: skip
    return args + ["--points", "4", "--skill-games", "4", "--skilled", "tiny", "--bot-config", tiny, "-q", "--out", out]


@pytest.fixture(scope="module")
def qdir(tmp_path_factory, tiny):
    from meeplab.cli import main

    out = tmp_path_factory.mktemp("quality") / "q"
    assert main(_quality_args(tiny, str(out))) == 0
    return out


def test_quality_command(qdir):
    out = qdir
    data = json.loads((out / "quality.json").read_text())
    rec = data["players"]["3"]
    for key in ("relative_skill", "lead_changes", "decisiveness", "drama", "uncertainty", "comeback_rate"):
        assert key in rec and "value" in rec[key]
    for key in ("runaway_leader", "margin", "tiebreak_decided", "shared_wins", "kingmaking", "what_decides"):
        assert key in rec
    traj = pd.read_parquet(out / "trajectories.parquet")
    assert {"game", "step", "round", "seat", "p_win", "se"} <= set(traj.columns)
    assert sorted(traj["seat"].unique()) == [1, 2, 3]
    again = q.trajectory_metrics(traj[traj["n_players"] == 3])  # recomputed from the file = the JSON
    assert again["lead_changes"]["value"] == pytest.approx(rec["lead_changes"]["value"])
    loaded = q.load_quality(out)
    assert set(loaded["frames"]) >= {"trajectories", "skill", "decisions"}
    assert data["settings"]["redraw"] == "exact"  # Schweinebande registers its redraw: p_win given the true state


def test_quality_on_workers_is_the_same(qdir, tiny, tmp_path, capsys):
    """--workers 2: the run, the trajectories and the relative-skill games all play on the cluster, in parts; every
    number and data file equals the single-process run's (only the timings differ)."""
    from meeplab.cli import main

    out = tmp_path / "w"
    assert main([*_quality_args(tiny, str(out)), "--workers", "2"]) == 0
    one, two = (json.loads((d / "quality.json").read_text()) for d in (qdir, out))
    assert two["timing"]["3"]["workers"] == 2 and "workers" not in one["timing"]["3"]
    one.pop("timing"), two.pop("timing")
    assert one == two
    for name in q.FILES:
        pd.testing.assert_frame_equal(pd.read_parquet(qdir / name), pd.read_parquet(out / name))
    assert "warning" not in capsys.readouterr().err


def test_quality_says_when_its_redraw_is_the_approximation(tmp_path, capsys, monkeypatch):
    """A game that registers no redraw (its playouts re-deal for the seat to move): quality.json and stderr say so,
    --quiet or not. Planted by answering exact_redraw False for Schweinebande."""
    from meeplab.cli import main
    from meeplab.sim.core import forward

    monkeypatch.setattr(forward, "exact_redraw", lambda st_or_cx: False)
    out = tmp_path / "a"
    args = ["quality", "schweinebande", "-p", "3", "-n", "4", "--trajectory-games", "2", "--playouts", "2"]
    assert main([*args, "--points", "2", "--skill-games", "0", "-q", "--out", str(out)]) == 0
    settings = json.loads((out / "quality.json").read_text())["settings"]
    assert settings["redraw"] == "determinise" and "not the true state" in settings["redraw_note"]
    assert "warning: schweinebande: the game registers no redraw" in capsys.readouterr().err
    from meeplab.reports import build_report

    html = build_report([out], tmp_path / "r.html").read_text()
    assert "re-dealt for the seat to move</strong> (the game registers no redraw" in html


def test_quality_bad_input(tmp_path, capsys):
    from meeplab.cli import main

    assert main(["quality", "schweinebande", "--skilled", "nosuchbot", "--out", str(tmp_path / "x")]) == 2
    assert "unknown bot 'nosuchbot'" in capsys.readouterr().err
    assert main(["quality", "schweinebande", "--skilled", "greedy", "--out", str(tmp_path / "y")]) == 2


def test_quality_section_in_chromium(browser, qdir, tmp_path):
    """The report of a quality directory shows "Is it a good game?" with its findings and charts; a run of one-step
    bots says so, with the ladder command."""
    from meeplab.reports import build_report

    html = build_report([qdir], tmp_path / "r.html")
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(html.as_uri())
    sec = page.locator("section", has_text="Is it a good game?").last
    text = sec.inner_text()
    for words in ("luck vs skill", "calibration", "lead changes", "decisiveness", "drama", "kingmaking",
                  "What decides games"):  # fmt: skip
        assert words in text
    assert "from the true state: every holding kept" in text  # Schweinebande registers its redraw
    imgs = sec.locator("img")
    assert imgs.count() == 4  # fan chart, calibration, histograms, luck-skill bar
    assert all(imgs.nth(i).evaluate("e => e.naturalWidth > 100") for i in range(4))
    assert "meeplab ladder schweinebande" in page.locator(".findings").first.inner_text()
    sec.screenshot(path=str(tmp_path / "quality.png"))


def test_quality_of_a_lower_wins_game(tmp_path):
    """No Thanks! (the example plugin, lowest score wins): the margins are the runner-up's score minus the winner's,
    and the findings say so."""
    pytest.importorskip(
        "meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)"
    )
    from meeplab.cli import main
    from meeplab.reports.quality import findings

    out = tmp_path / "nt"
    args = ["quality", "nothanks", "-p", "3", "-n", "60", "--bots", "greedy,random", "--trajectory-games", "4"]
    assert main([*args, "--playouts", "2", "--points", "3", "--skill-games", "0", "-q", "--out", str(out)]) == 0
    data = json.loads((out / "quality.json").read_text())
    assert data["lower_wins"] is True
    res = pd.read_parquet(out / "results.parquet")
    sc = np.sort(res.sort_values(["game_index", "seat"])["score"].to_numpy().reshape(-1, 3), axis=1)
    assert data["players"]["3"]["margin"]["value"] == pytest.approx(np.mean(sc[:, 1] - sc[:, 0]))
    text = " ".join(str(x) for f in findings(data, 3) for x in f)
    assert "of the runner-up's score (lowest score wins)" in text


def test_relative_skill_counts_wins_in_the_games_direction():
    """No Thanks! (lowest score wins): a relative-skill player's win in a game is its win with the lowest score, on
    any part of the games (here games 3..8, seat rotated as in the whole run)."""
    pytest.importorskip(
        "meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)"
    )
    from meeplab.lab.studies import quality as core
    from meeplab.sim.core.bots import make_lineup

    g = get_game("nothanks")
    ctx = g.prepare(g.params.resolve({}, g.id))
    wins = core.skill_wins(g, ctx, 3, 5, 3, 6, "beginner", "greedy", "random")
    batch = g.play(ctx, make_lineup(g.id, ["greedy", "random", "random"], 3, True), 5, 3, 6, 3)
    _, win = g.rank_and_win(batch.score, batch.tiebreak)
    seats = (-np.arange(3, 9)) % 3  # the greedy entry's seat in games 3..8
    assert np.array_equal(wins, win[np.arange(6), seats])
    assert not np.array_equal(wins, rank_and_win(batch.score, batch.tiebreak)[1][np.arange(6), seats])


def test_the_reports_command_plays_the_same_numbers_again(qdir):
    """The command the report prints names every setting quality.json records and the run's games: read back as
    arguments, it is the command that made the directory (but for its OUT and bot files)."""
    import shlex

    from meeplab.reports.quality import reproduce_command

    data = json.loads((qdir / "quality.json").read_text())
    words = shlex.split(reproduce_command(qdir, data, [3]))
    given = dict(zip(words[3::2], words[4::2]))
    assert words[:3] == ["meeplab", "quality", "schweinebande"]
    assert given["--games"] == "40" and given["--trajectory-games"] == "6" and given["--playouts"] == "4"
    assert given["--points"] == "4" and given["--skill-games"] == "4" and given["--skilled"] == "tiny"


def test_decision_kinds_are_named_in_the_report(qdir, tmp_path):
    from meeplab.reports import build_report

    html = build_report([qdir], tmp_path / "k.html").read_text()
    assert "place (1)" in html and "collect (2)" in html  # Schweinebande's kinds, by name and number


def test_quality_has_a_dry_run_and_a_result_table(tiny, tmp_path, capsys):
    from meeplab.cli import main

    out = tmp_path / "dry"
    assert main(_quality_args(tiny, str(out))[:-3] + ["--out", str(out), "--dry-run"]) == 0
    so = capsys.readouterr().out
    assert so.startswith("plan: quality: the run, then trajectories") and "estimate:" in so and not out.exists()
    assert "then trajectories at 3 players: at least " in so and "then relative skill: " in so  # every stage planned
    out = tmp_path / "q2"
    assert main(_quality_args(tiny, str(out)) + ["--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    (row,) = table["rows"]
    assert row["players"] == 3 and "lead changes" in row and "relative skill 95% CI" in row
    assert row["most points"].split()[0] in get_game("schweinebande").categories
    assert "winner's lead" in row["decides most"]


def test_a_verdict_needs_its_whole_interval_on_one_side():
    """Verdict words follow the interval, not the point estimate: one that straddles a threshold is undecided."""
    assert q.band({"value": 1.0, "lo": 0.7, "hi": 1.3}, "lead_changes") == "between"
    assert q.band({"value": 0.6, "lo": 0.4, "hi": 0.8}, "lead_changes") == "undecided"
    assert q.band({"value": 2.5, "lo": 2.1, "hi": 2.9}, "lead_changes") == "above"
    assert q.band({"value": 0.12, "lo": 0.08, "hi": 0.16}, "drama") == "undecided"
    assert q.band({"value": 0.04, "lo": 0.02, "hi": 0.06}, "drama") == "below"
    assert q.band({"value": 0.2}, "drama") == "above"  # no interval: the value decides


def _planted_trajectories(sharp: float, games: int = 400, seed: int = 0) -> pd.DataFrame:
    """Two seats, four points per game: seat 1's true chance p is drawn per game, the game is won by it with
    probability p, and the estimates say 0.5 + sharp (p - 0.5) (seat 2: the rest): calibrated at ``sharp`` 1,
    overconfident above it (the failure of playouts by a weaker policy than the seats': 0.86 said, 0.45 won)."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        p = rng.uniform(0.05, 0.95)
        won = float(rng.random() < p)
        est = min(max(0.5 + sharp * (p - 0.5), 0.0), 1.0)
        for j in range(4):
            final = j == 3
            for seat, e, w in ((1, est, won), (2, 1 - est, 1 - won)):
                rows.append((2, g, j, j, j, j / 3, seat, w if final else e, 0.0, final))
    cols = ["n_players", "game", "point", "step", "round", "progress", "seat", "p_win", "se", "final"]
    return pd.DataFrame(rows, columns=cols)


def test_calibration_tells_estimates_that_match_the_results_from_ones_that_do_not():
    """Planted: estimates that are the true chances are calibrated (their error's interval below the threshold);
    estimates 0.25 too high for seat 1 (and so too low for seat 2) are not, bin by bin and in the verdict, and the
    report marks the metrics that rest on them."""
    from meeplab.reports.quality import findings

    good = q.calibration(_planted_trajectories(1.0, games=2000), reps=300)
    assert good["hi"] < q.THRESHOLDS["calibration_error"] and q.calibrated({"calibration": good}) == "calibrated"
    assert sum(b["n"] for b in good["bins"]) == good["n"] == 2000 * 3 * 2
    assert good["value"] < good["ece"]  # the plain error reads its finite games' noise; the debiased one does not
    few = q.calibration(_planted_trajectories(1.0, games=100), reps=300)
    assert q.calibrated({"calibration": few}) == "undecided"  # 100 games cannot tell
    bad = q.calibration(_planted_trajectories(2.0), reps=300)
    assert bad["lo"] > q.THRESHOLDS["calibration_error"] and q.calibrated({"calibration": bad}) == "miscalibrated"
    top = bad["bins"][-1]
    assert top["predicted"] > 0.9 and top["observed_hi"] < top["predicted"]
    traj = _planted_trajectories(2.0)
    rec = {**q.trajectory_metrics(traj), "calibration": bad, "relative_skill": None,
           "margin_share": {"median": 0.2}, "margin": {"median": 3.0}, "tiebreak_decided": {"value": 0.0},
           "shared_wins": {"value": 0.0}, "decisions_per_seat": {"value": 4.0}, "branching": {"mean": 2.0},
           "forced_share": {"value": 0.0}}  # fmt: skip
    lines = [" ".join(x if isinstance(x, str) else str(x) for x in f) for f in findings({"players": {"2": rec}}, 2)]
    marked = [line for line in lines if "uncalibrated" in line]
    assert any("lead changes" in line for line in marked) and any("drama" in line for line in marked)
    assert not any("closeness" in line for line in marked) and any("calibration" in line for line in lines)


def test_ludiis_definitions_on_a_hand_written_trajectory():
    """Ludii's Lead Change, Decisiveness Threshold, Decisiveness and Drama, as its metrics package defines them, on
    a trajectory worked by hand: seat 2 wins; the leaders are {1, 2}, {1}, {2}, {2} (three changes in four points,
    the first counting); seat 1 reached 0.6 at best, seat 2 first passes it at the third point; seat 2 trailed
    only at the second point, by 0.2."""
    p = [[0.5, 0.5], [0.6, 0.4], [0.3, 0.7], [0.2, 0.8], [0.0, 1.0]]
    got = q.ludii_metrics(np.array(p))
    assert got["ludii_lead_change"] == pytest.approx(0.75)
    assert got["ludii_decisiveness_threshold"] == pytest.approx(0.6)
    assert got["ludii_decisiveness"] == pytest.approx(0.5)
    assert got["ludii_drama"] == pytest.approx(0.05)
    assert q.game_metrics(np.linspace(0, 1, 5), np.array(p))["drama"] == pytest.approx(got["ludii_drama"])
    never = q.ludii_metrics(np.array([[0.9, 0.1], [0.9, 0.1], [0.0, 1.0]]))  # the winner never passes 0.9
    assert never["ludii_decisiveness"] == 1.0 and never["ludii_lead_change"] == 0.5


def test_kingmaking_probes_are_exported_so_that_every_verdict_can_be_recounted():
    """kingmaking.parquet holds, per probe and candidate probed, the seat, the decision kind, the seat's win
    probability and standard error, the favourite the candidate makes and its lead over the playouts: the verdicts
    recounted from those rows are the ones the engine gave (a lenient 20 % threshold probes many decisions)."""
    from meeplab.lab.studies import quality as core

    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    arr = core.play_trajectories(g, ctx, ["heuristic"], 3, 1, 12, 8, 12, km_below=0.2)
    rows = q.kingmaking_rows(arr, 3, np.arange(12), 8)
    assert list(rows.columns) == q.KINGMAKING_COLUMNS and len(rows) > 10
    assert rows["seat"].between(1, 3).all() and rows["favourite"].between(1, 3).all()
    assert (rows["seat"] != rows["favourite"]).all() and (rows["p_win"] < 0.2).all() and (rows["playouts"] == 8).all()
    stored = rows.drop_duplicates(["game", "step"]).set_index(["game", "step"])["kingmaking"].sort_index()
    assert q.kingmaking_recount(rows, 0.1).sort_index().tolist() == stored.tolist()
    assert q.kingmaking_metrics(rows, 12)["decisions"]["n"] == len(stored)
    # the confirmation: two candidates of every flagged probe tested, and its verdicts recounted from the rows
    probes = rows.drop_duplicates(["game", "step"]).set_index(["game", "step"]).sort_index()
    again = q.kingmaking_recount(rows, 0.1, below=0.2).sort_index()
    assert again["kingmaking"].tolist() == probes["kingmaking"].tolist()
    assert again["confirmed"].tolist() == probes["confirmed"].tolist()
    flagged = rows[rows["kingmaking"] == 1]
    assert (flagged.groupby(["game", "step"])["confirm_playouts"].apply(lambda c: (c > 0).sum()) == 2).all()
    assert (rows.loc[rows["kingmaking"] == 0, "confirm_playouts"] == 0).all() and (rows["seat_playouts"] >= 8).all()


def _probe_rows(seat_wins, seat_playouts, lead_se, game, flagged=True):
    """One hand-made probe of seat 3: its own pick makes seat 1 the clear favourite (lead 0.3), its second candidate
    seat 2 (0.25) when ``flagged``, else seat 1 again; both leads confirmed at mean 0.3 with standard error
    ``lead_se`` over 256 playouts; the seat won ``seat_wins`` of ``seat_playouts``."""
    z = 2.2414027276049464  # one-sided 5 % over four looks (32, 64, 128, 256): sim.core.trajectories.confirm_z
    rows = []
    tested = (256, 0.3, lead_se) if flagged else (0, np.nan, np.nan)
    for c, fav, lead in ((0, 1, 0.3), (1, 2 if flagged else 1, 0.25)):
        rows.append((3, game, 4, 40, 3, 1, 0.0, 0.0, c, fav, lead, 32, int(flagged), seat_playouts, seat_wins,
                     *tested, z, 0))  # fmt: skip
    return rows


def test_a_flagged_kingmaking_decision_counts_once_both_claims_are_significant():
    """Constructed probes: both claims significant (0 wins in 256 playouts: Wilson upper bound 1.9 % < 2 %; leads
    0.3 +- 0.05) is confirmed; 0 wins in 32 playouts (upper bound 13.6 %) is not, nor a lead of 0.3 +- 0.2; a probe
    whose candidates make the same seat the favourite is no kingmaking. The shares count the confirmed only and
    name the unconfirmed."""
    from meeplab.sim.core import trajectories as tr

    rows = _probe_rows(0.0, 256, 0.05, 0) + _probe_rows(0.0, 32, 0.05, 1) + _probe_rows(0.0, 256, 0.2, 2)
    rows += _probe_rows(0.0, 32, 0.05, 3, flagged=False)
    frame = pd.DataFrame(rows, columns=q.KINGMAKING_COLUMNS)
    got = q.kingmaking_recount(frame, 0.1, below=0.02)
    assert got["kingmaking"].tolist() == [1, 1, 1, 0] and got["confirmed"].tolist() == [1, 0, 0, 0]
    frame["confirmed"] = frame["game"].map(got["confirmed"].droplevel("step"))
    km = q.kingmaking_metrics(frame, 10)
    assert (km["flagged"], km["confirmed"], km["unconfirmed"]) == (3, 1, 2)
    assert km["games"]["value"] == 0.1 and km["flagged_games"]["value"] == 0.3 and km["decisions"]["value"] == 0.25
    assert [u["game"] for u in km["unconfirmed_list"]] == [1, 2]
    for k, n in ((0.0, 256), (0.0, 32), (3.5, 100), (1 / 3, 7)):  # the engine's bound is the file's, bit for bit
        assert tr.wilson_upper(k, n, 2.24) == q.wilson_upper(k, n, 2.24)
    assert tr.confirm_looks(32, 256) == [32, 64, 128, 256] and tr.confirm_z(32, 256) == pytest.approx(2.2414, 1e-4)


def _noisy_trajectories(games: int = 40, playouts: int = 4, half=None) -> pd.DataFrame:
    """Two seats, five points and the result per game: seat 1's estimate wanders around 0.5 (a close game), seat 1
    wins the even games; ``playouts`` per point. ``half``: the estimates at half the playouts (a function of the game
    and point giving seat 1's), else the same as the run's."""
    rows = []
    for g in range(games):
        won = float(g % 2 == 0)
        for j in range(6):
            final = j == 5
            e = won if final else 0.5 + 0.15 * np.sin(g + 2 * j)
            h = e if final or half is None else half(g, j)
            for seat, pw, ph in ((1, e, h), (2, 1 - e, 1 - h)):
                rows.append((2, g, j, j, j, j / 5, seat, pw, 0.0, 0 if final else playouts, final, ph, 0.0,
                             0 if final else playouts // 2))  # fmt: skip
    cols = ["n_players", "game", "point", "step", "round", "progress", "seat", "p_win", "se", "playouts", "final",
            "p_half", "se_half", "playouts_half"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def test_intervals_include_the_playout_noise():
    """Close games estimated with 4 playouts a point: the intervals that resample each point's playouts as well as the
    games are wider than the games-only ones (kept as games_lo/games_hi), the values unchanged; without playouts
    (playouts 0) nothing is added."""
    traj = _noisy_trajectories()
    noisy = q.trajectory_metrics(traj)
    plain = q.trajectory_metrics(traj.assign(playouts=0))
    assert noisy["noise_aware"] and "noise_aware" not in plain
    for key in ("lead_changes", "drama", "uncertainty", "comeback_rate"):
        a, b = noisy[key], plain[key]
        assert a["value"] == b["value"] and (a["games_lo"], a["games_hi"]) == (b["lo"], b["hi"]), key
        assert a["lo"] <= b["lo"] and a["hi"] >= b["hi"] and a["hi"] - a["lo"] > b["hi"] - b["lo"], key
    assert q.trajectory_metrics(traj) == noisy  # reproducible
    # many playouts: the noise adds almost nothing
    many = q.trajectory_metrics(traj.assign(playouts=np.where(traj["final"], 0, 100_000)))
    assert many["drama"]["hi"] - many["drama"]["lo"] == pytest.approx(plain["drama"]["hi"] - plain["drama"]["lo"],
                                                                      rel=0.05)  # fmt: skip


def test_ludiis_metrics_get_the_playout_noise_too():
    """Ludii's four metrics of each noisy copy are :func:`ludii_metrics` of that copy (vectorised over the copies),
    and their intervals widen with the playout noise exactly as ours do (games-only ones kept)."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        t_, s_ = int(rng.integers(2, 9)), int(rng.integers(2, 5))
        pp = rng.dirichlet(np.ones(s_), size=(7, t_))
        pp[:, -1] = np.eye(s_)[int(rng.integers(s_))] if rng.random() < 0.8 else np.full(s_, 1 / s_)
        pp[:, :, :] = np.round(pp, 1)  # ties among the leaders happen
        got = q.ludii_copies(pp)
        for r in range(7):
            want = q.ludii_metrics(pp[r])
            for key, v in want.items():
                assert got[key][r] == pytest.approx(v), (key, pp[r])
    traj = _noisy_trajectories()
    noisy = q.trajectory_metrics(traj)["ludii"]
    plain = q.trajectory_metrics(traj.assign(playouts=0))["ludii"]
    for key in ("lead_change", "decisiveness", "drama"):
        a, b = noisy[key], plain[key]
        assert a["value"] == b["value"] and (a["games_lo"], a["games_hi"]) == (b["lo"], b["hi"]), key
        assert a["lo"] <= b["lo"] and a["hi"] >= b["hi"] and a["hi"] - a["lo"] > b["hi"] - b["lo"], key
    assert "games_lo" not in plain["drama"]


def test_two_budgets_agree_or_the_metric_has_not_settled():
    """The same estimates at half the playouts: every metric settled. At half the playouts seat 2 leads at the second
    point of every game (noise that a larger budget removes): lead changes and drama differ game by game, so they
    have not settled (the paired difference's interval excludes 0, though the two intervals overlap); the comebacks
    (read at two thirds of the game) are the same."""
    same = q.trajectory_metrics(_noisy_trajectories())["two_budgets"]
    assert same["playouts"] == 4 and same["playouts_half"] == 2
    for key in ("lead_changes", "drama", "comeback_rate"):
        assert same[key]["verdict"] == "settled" and same[key]["difference"]["value"] == 0.0, key

    def wobble(g, j):
        return 0.2 if j == 1 else 0.5 + 0.15 * np.sin(g + 2 * j)

    moved = q.trajectory_metrics(_noisy_trajectories(half=wobble))["two_budgets"]
    assert moved["lead_changes"]["verdict"] == moved["drama"]["verdict"] == "not settled"
    d = moved["lead_changes"]["difference"]
    assert d["lo"] > 0 and d["value"] == pytest.approx(
        moved["lead_changes"]["value"] - moved["lead_changes"]["half"]["value"]
    )
    assert moved["drama"]["difference"]["hi"] < 0 and moved["comeback_rate"]["verdict"] == "settled"
    # the paired difference tells what the two intervals alone would not: they overlap
    assert moved["lead_changes"]["overlap"] and moved["drama"]["overlap"]


def test_a_points_playouts_go_on_until_its_standard_error_is_small_enough():
    """--se-target: a point keeps its first playouts (the same streams) and adds more, 8 at a time, until every
    seat's standard error is at most the target or the cap is reached; the count is in trajectories.parquet."""
    from meeplab.lab.studies import quality as core

    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    fixed = core.play_trajectories(g, ctx, ["heuristic"], 3, 1, 4, 8, 6)
    grown = core.play_trajectories(g, ctx, ["heuristic"], 3, 1, 4, 8, 6, se_target=0.06, max_playouts=64)
    live = grown["steps"][:, :6] >= 0
    n = grown["nplay"][:, :6][live]
    assert (fixed["nplay"][:, :6][live] == 8).all() and n.min() >= 8 and n.max() <= 64 and n.max() > 8
    se = grown["se"][:, :6].max(axis=2)[live]
    assert ((se <= 0.06) | (n == 64)).all()
    assert (n[(fixed["se"][:, :6].max(axis=2)[live] <= 0.06)] == 8).all()  # already small enough: nothing added
    frame = q.trajectory_frame(grown, 3, np.arange(4))
    assert "playouts" in frame.columns and (frame.loc[frame["final"], "playouts"] == 0).all()


def test_a_significant_but_immaterial_budget_shift_leaves_the_metric_settled():
    """A shift the paired difference finds significant but smaller than half the metric's own interval half-width
    (MATERIAL) does not change what the metric says: settled, with the threshold recorded."""

    def nudge(g, j):  # the winner's estimate a little higher at half the playouts, in every game
        return 0.5 + 0.15 * np.sin(g + 2 * j) + (0.004 if g % 2 == 0 else -0.004)

    got = q.trajectory_metrics(_noisy_trajectories(half=nudge))["two_budgets"]["drama"]
    d = got["difference"]
    assert not (d["lo"] <= 0.0 <= d["hi"]), d  # significant
    assert got["material"] == pytest.approx(q.MATERIAL * (got["hi"] - got["lo"]) / 2)
    assert -got["material"] <= d["lo"] and d["hi"] <= got["material"] and got["verdict"] == "settled"


def test_the_calibration_check_leads_the_findings_only_when_it_fails(qdir):
    """A designer reads the answers first (luck vs skill, lead changes, ...); the check of the win probabilities
    closes the list, unless it fails: then it leads and the metrics resting on it are marked."""
    import copy

    from meeplab.reports.quality import findings

    rec = q.load_quality(qdir)["json"]

    def heads(data):
        return [str(item[2].content if hasattr(item[2], "content") else item[2]) for item in findings(data, 3)]

    ok = copy.deepcopy(rec)
    ok["players"]["3"]["calibration"].update(value=0.01, lo=0.0, hi=0.02)
    assert heads(ok)[-1] == "calibration: " and heads(ok)[0] != "calibration: "
    bad = copy.deepcopy(rec)
    bad["players"]["3"]["calibration"].update(value=0.2, lo=0.15, hi=0.25, games=1000)
    assert heads(bad)[0] == "calibration: "
