"""meeplab tournament: lineups, the Bradley-Terry fit with the seat effect removed, the command."""

import json
import math

import numpy as np
import polars as pl
import pytest

from meeplab.cli import main
from meeplab.lab.studies.tournament import ELO, Pairs, fit, lineups, matchups, pairs_of


def test_lineups_are_every_mix_of_at_least_two_bots():
    assert lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(lineups(["a", "b", "c"], 4)) == 15 - 3
    assert lineups(["a", "b", "a"], 3) == [("a", "a", "b"), ("a", "b", "b")]


def _simulate(rng, strength, seat_adv, games):
    """Two-seat games with known logits: bot strengths and a first-seat advantage."""
    k = len(strength)
    bi = rng.integers(0, k, games)
    bj = (bi + rng.integers(1, k, games)) % k
    eta = strength[bi] - strength[bj] + seat_adv
    y = (rng.random(games) < 1 / (1 + np.exp(-eta))).astype(float)
    n = games
    return Pairs(p=np.full(n, 2), bi=bi, bj=bj, si=np.zeros(n, int), sj=np.ones(n, int), y=y, game=np.arange(n))


def test_fit_recovers_ratings_and_removes_the_seat_effect():
    rng = np.random.default_rng(3)
    strength = np.array([0.8, 0.0, -0.8])
    hits = 0
    for _rep in range(20):
        r = fit(_simulate(rng, strength, 0.6, 6000), ["a", "b", "c"])
        truth = (strength - strength.mean()) * ELO
        hits += int(np.all((r.lo <= truth) & (truth <= r.hi)))
        assert r.converged and abs(r.rating.sum()) < 1e-6
        seats = r.seats.filter(pl.col("n_players") == 2)
        assert seats["seat"].to_list() == [1, 2] and seats["effect"][0] == 0.0  # seat 1, the start player: reference
        assert seats["effect"][1] == pytest.approx(-0.6 * ELO, abs=45)  # seat 2 pays the first seat's advantage
    assert hits >= 15  # joint coverage of three 95% intervals, about 0.9 expected


def test_pairs_and_matchups_from_result_rows():
    df = pl.DataFrame(
        {
            "n_players": [3] * 6,
            "game_index": [0, 0, 0, 1, 1, 1],
            "seat": [0, 1, 2] * 2,
            "bot": ["a", "b", "a", "b", "a", "a"],
            "rank": [1, 2, 3, 1, 1, 3],
        }
    )
    pr = pairs_of([df], ["a", "b"])
    assert pr.y.size == 4  # a-vs-a pairs dropped
    m = {(r["bot"], r["opponent"]): r for r in matchups(pr, ["a", "b"]).to_dicts()}
    # game 0: a(1) beats b, b beats a(3); game 1: b ties a(seat 1), b beats a(seat 2)
    assert m[("a", "b")]["share"] == pytest.approx((1 + 0 + 0.5 + 0) / 4)
    assert m[("b", "a")]["share"] == pytest.approx(1 - m[("a", "b")]["share"])


def test_tournament_command(tmp_path, capsys):
    out = tmp_path / "t"
    code = main(
        [
            "tournament",
            "schweinebande",
            "--bots",
            "heuristic,random",
            "--players",
            "2-3",
            "--games",
            "60",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr()
    assert code == 0, text.err
    rec = json.loads((out / "tournament.json").read_text())
    assert sorted({(s["n_players"], s["seat"]) for s in rec["seats"]}) == [(2, 1), (2, 2), (3, 1), (3, 2), (3, 3)]
    assert all(s["effect"] == 0.0 for s in rec["seats"] if s["seat"] == 1)  # seat 1 = the start player, reference
    assert [(lu["n_players"], lu["bots"]) for lu in rec["lineups"]] == [
        (2, ["heuristic", "random"]),
        (3, ["heuristic", "heuristic", "random"]),
        (3, ["heuristic", "random", "random"]),
    ]
    r = {x["bot"]: x for x in rec["ratings"]}
    assert r["heuristic"]["rating"] > r["random"]["rating"] and r["heuristic"]["lo"] <= r["heuristic"]["rating"]
    assert math.isclose(r["heuristic"]["rating"], -r["random"]["rating"], abs_tol=1e-6)
    html = (out / "report.html").read_text()
    assert "Match-up matrix" in html and "Bradley-Terry" in html
    ref = '<td class="n">{}</td><td class="n">{}</td><td class="n">+0</td><td class="n">reference</td>'
    assert ref.format(2, 1) in html and ref.format(3, 1) in html and ref.format(3, 2) not in html  # seat 1 = start
    lines = text.out.splitlines()  # title, header, then the bots strongest first
    assert "Bradley-Terry" in lines[0] and "rating" in lines[1] and "heuristic" in lines[2]


def test_tournament_needs_two_bots(tmp_path, capsys):
    code = main(["tournament", "schweinebande", "--bots", "greedy", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and "two different bots" in err and err.count("\n") == 1
