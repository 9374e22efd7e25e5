"""Machine tuning (meeplab tune) and the skill ladder (meeplab ladder, reports/ladder.py)."""

import json

import pytest

from meeplab.analysis.ladder import findings
from meeplab.cli import main
from meeplab.lab.studies.tune import Evaluator, field_tables, tune, variant_toml
from meeplab.sim.core.bots import available
from meeplab.sim.core.registry import get_game


def _bad_config(tmp_path):
    """heuristic with its immediate-gain weights turned upside down: a deliberately bad weight vector."""
    ws = available("schweinebande")["heuristic"].weights_dict()
    lines = ["[bots.bad]", 'base = "heuristic"', "[bots.bad.weights]"]
    lines += [f'"{k}" = -1.0' for k in ws if k.endswith(".gain") or k == "farm.points"]
    path = tmp_path / "bad.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_tuning_on_a_tiny_budget_improves_a_bad_weight_vector(tmp_path):
    cfg = _bad_config(tmp_path)
    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    res = tune(
        g,
        ctx,
        "bad",
        ["heuristic"],
        [2],
        20000,
        seed=2,
        bot_configs=[cfg],
        games_per_eval=100,
        popsize=8,
        sigma=1.0,
        final_games=1000,
    )
    f = res.final
    assert f["base_share"] < 0.05 and f["share"] > f["base_share"] + 0.2
    lo, _hi = f["by_players"][2]["interval"]
    assert lo > f["base_share"]
    out = tmp_path / "tuned.toml"
    out.write_text(variant_toml(res, "better", "bad", "", ["heuristic"], [2], 20000))
    bots = available("schweinebande", [cfg, str(out)])
    assert bots["better"].weights == tuple(float(x) for x in res.best)


def test_tuning_only_some_weights_keeps_the_others(tmp_path):
    cfg = _bad_config(tmp_path)
    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    res = tune(
        g,
        ctx,
        "bad",
        ["heuristic"],
        [2],
        3000,
        seed=3,
        bot_configs=[cfg],
        games_per_eval=50,
        popsize=6,
        sigma=1.0,
        final_games=200,
        only=["collect.*", "farm.points"],
    )
    names = res.names
    moved = {n for n, a, b in zip(names, res.start, res.best) if a != b}
    assert moved and all(n.startswith("collect.") or n == "farm.points" for n in moved)
    assert "Weights searched: collect.gain" in variant_toml(res, "x", "bad", "", ["heuristic"], [2], 3000)
    with pytest.raises(Exception, match="matches none"):
        tune(g, ctx, "bad", ["heuristic"], [2], 3000, bot_configs=[cfg], only=["nothing.*"])


def test_a_field_larger_than_the_other_seats_is_met_whole():
    assert field_tables("t", ["heuristic", "greedy"], 2) == [["t", "heuristic"], ["t", "greedy"]]
    assert field_tables("t", ["heuristic", "greedy"], 3) == [["t", "heuristic", "greedy"], ["t", "greedy", "heuristic"]]
    assert field_tables("t", ["heuristic"], 3) == [["t", "heuristic", "heuristic"]]
    # 2 players against heuristic and greedy: half the games against each, the sum of both tables' wins
    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    w = list(available("schweinebande")["heuristic"].weights)
    both = Evaluator(g, ctx, "heuristic", ["heuristic", "greedy"], [2], 5).wins(w, 10, 300)[0]
    vs_h = Evaluator(g, ctx, "heuristic", ["heuristic"], [2], 5).wins(w, 10, 150)[0]
    vs_g = Evaluator(g, ctx, "heuristic", ["greedy"], [2], 5).wins(w, 160, 150)[0]
    assert both == vs_h + vs_g
    assert vs_g > vs_h  # greedy is the weaker table


def test_tune_command_writes_a_variant_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "t.toml"
    args = [
        "tune",
        "schweinebande",
        "--players",
        "2",
        "--vs",
        "greedy",
        "--budget",
        "4000",
        "--games-per-eval",
        "50",
        "--final-games",
        "200",
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    text = out.read_text()
    assert "[bots.tuned]" in text and "Final check on 200 fresh games" in text
    assert main(args) == 2 and "exists" in capsys.readouterr().err
    # a search bot's variant may not take its playout policy's name (it would replace the policy it plays with)
    bad = ["tune", "schweinebande", "--bot", "ismcts", "--name", "tuned", "--out", str(tmp_path / "x")]
    assert main(bad) == 2 and "would replace ismcts's playout policy 'tuned'" in capsys.readouterr().err
    # a search bot's budget is not searched: one clear line and exit 2
    bad = ["tune", "schweinebande", "--bot", "rollout", "--weights", "playouts", "--out", str(tmp_path / "x")]
    assert main(bad) == 2 and "matches none of rollout's options that tune may search (margin, switch)" in (
        capsys.readouterr().err
    )


def test_tune_on_a_policy_bot_takes_exact_names_and_writes_a_variant_the_lab_loads(tmp_path, capsys):
    """A learned (policy) bot: its weights named ``kind[code].term`` are given as they are (``[0]`` is no glob
    class), its ``shape.*`` header is neither searched nor written (a bot config may not set it), and the variant
    plays."""
    import tomllib

    out = tmp_path / "lt.toml"
    args = ["tune", "schweinebande", "--bot", "learned", "--players", "2", "--vs", "tuned", "--budget", "3000",
            "--games-per-eval", "40", "--final-games", "200", "--weights", "place[1].1,collect.1", "--name", "lt",
            "--quiet", "--out", str(out)]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    text = out.read_text()
    assert "Weights searched: place[1].1, collect.1 (the others are learned's)" in text
    weights = tomllib.loads(text)["bots"]["lt"]["weights"]
    assert weights and not any(n.startswith("shape.") for n in weights)
    run = ["run", "schweinebande", "-n", "20", "-p", "2", "-b", "lt,tuned", "--bot-config", str(out), "--threads", "1",
           "-q", "--out", str(tmp_path / "r")]  # fmt: skip
    assert main(run) == 0, capsys.readouterr().err


def _row(p, rung, rates, lo, hi, cat="a"):
    return {
        "n_players": p,
        "rung": rung,
        "games": 1000,
        "seat_rate": rates,
        "seat_lo": lo,
        "seat_hi": hi,
        "tie": 0.01,
        "tie_lo": 0.005,
        "tie_hi": 0.02,
        "length": 10.0,
        "length_lo": 9.9,
        "length_hi": 10.1,
        "category": cat,
        "category_share": 0.5,
    }


def test_ladder_flags_a_planted_sign_change():
    low = _row(2, "weak", [0.60, 0.40], [0.57, 0.37], [0.63, 0.43])
    high = _row(2, "strong", [0.44, 0.56], [0.41, 0.53], [0.47, 0.59], cat="b")
    flags = findings([low, high], ["weak", "strong"])
    whys = {(f["finding"], f["why"]) for f in flags}
    assert ("seat 1's win rate (fair 50.0%)", "changes sign") in whys
    assert ("leading score category", "changes") in whys
    same = _row(2, "strong", [0.59, 0.41], [0.56, 0.38], [0.62, 0.44])
    assert findings([low, same], ["weak", "strong"]) == []


def test_ladder_command_and_report(tmp_path):
    out = tmp_path / "lad"
    assert (
        main(
            [
                "ladder",
                "schweinebande",
                "--players",
                "2",
                "--bots",
                "random,greedy",
                "--games",
                "300",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    meta = json.loads((out / "ladder.json").read_text())
    assert meta["rungs"] == ["random", "greedy"] and meta["cross"] == [["random", "greedy", "cross-random-greedy"]]
    html = (out / "report.html").read_text()
    assert "Does it hold for stronger players?" in html and "skill gap" in html
    assert 'alt="skill spread: each rung against the rung below"' in html  # the ladder's skill spread chart
    assert main(["ladder", "schweinebande", "--bots", "random,greedy", "--out", str(out)]) == 2
    assert main(["report", str(out), "--out", str(tmp_path / "r.html")]) == 0
    assert "Does it hold for stronger players?" in (tmp_path / "r.html").read_text()
    assert main(["ladder", "schweinebande", "--bots", "greedy", "--out", str(tmp_path / "one")]) == 2


def test_skill_spread_chart_draws_every_pair_and_player_count():
    """The chart of the ladder's skill spread (issue 35, 1b): one point per neighbouring pair and player count,
    an interval that may sit beside a rate of 1 (greedy beats random in every game) drawn without error."""
    from meeplab.reports.ladder import spread_chart

    gaps = [
        {"n_players": 2, "weaker": "random", "stronger": "greedy", "rate": 1.0, "lo": 0.987, "hi": 0.99999999},
        {"n_players": 3, "weaker": "random", "stronger": "greedy", "rate": 0.9, "lo": 0.85, "hi": 0.94},
        {"n_players": 2, "weaker": "greedy", "stronger": "heuristic", "rate": 0.745, "lo": 0.69, "hi": 0.79},
    ]
    uri = spread_chart(gaps)
    assert uri.startswith("data:image/png;base64,") and len(uri) > 5000
    assert spread_chart([]) == ""


def test_the_tuned_variant_and_budget_rungs_are_toml_whatever_the_names():
    """A name with a quote, a bracket or a newline makes valid TOML that reads back to the same names and weights
    (the files are written with a TOML writer, not by hand)."""
    import tomllib
    from types import SimpleNamespace

    from meeplab.analysis.ladder import budget_variants

    res = SimpleNamespace(
        generations=1,
        games_played=10,
        tuned=["a"],
        interrupted=False,
        final=None,
        names=['we"ird]', "b"],
        best=[1, 2.5],
    )
    name = 'tu"ned [x]\\n'
    got = tomllib.loads(variant_toml(res, name, 'ba"se', 'meeplab tune "x"\nrm -rf', ['he"ur'], [2], 10))
    assert got["bots"][name]["base"] == 'ba"se' and got["bots"][name]["weights"] == {'we"ird]': 1.0, "b": 2.5}
    top = SimpleNamespace(search="rollout", name='roll"out', weights_dict=lambda: {"playouts": 8.0})
    names, text = budget_variants(top, [1.0, 4.0])
    assert tomllib.loads(text)["bots"][names[1]]["weights"] == {"playouts": 32.0}


def test_the_relative_objective_weighs_each_count_by_its_fair_share():
    """tune(relative=True), what learn --refine uses: a count's win share over its fair share, so a point at 5
    players weighs what 2.5 points at 2 players do."""
    from meeplab.lab.studies.tune import Evaluator

    ev = Evaluator.__new__(Evaluator)
    ev.players, ev.margin = [2, 5], 0.0

    def wins(shares):
        def played(w, start, n, lead=None):
            lead.extend([0.0] * len(shares))
            return list(shares)

        return played

    ev.wins = wins([50.0, 20.0])  # 0.50 at 2 players, 0.20 at 5, in 100 games each
    ev.relative = False
    assert ev.share(None, 0, 100) == pytest.approx(0.35)
    ev.relative = True
    assert ev.share(None, 0, 100) == pytest.approx(1.0)  # both fair
    ev.wins = wins([47.0, 22.0])  # -0.03 at 2 players, +0.02 at 5
    assert ev.share(None, 0, 100) == pytest.approx((0.94 + 1.10) / 2)
