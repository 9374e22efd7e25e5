"""compare --until-significant: the SPRT's bounds and error rates, and the sequential CLI run."""

import json
import math

import numpy as np
import polars as pl
import pytest
from cli_run import run_cli

from meeplab.cli import main
from meeplab.lab.studies.sprt import Sequential, SprtSettings, bounds, llr, parse_metric


def test_wald_bounds_and_llr():
    lo, hi = bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(math.log(0.95 / 0.05))
    x = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    n, s, s2 = x.size, x.sum(), (x * x).sum()
    var = x.var(ddof=1)
    # normal log-likelihood ratio of mean d1 against d0 with the sample variance
    direct = (((x - 0.2) ** 2).sum() - ((x - 0.6) ** 2).sum()) / (2 * var)
    assert llr(n, s, s2, 0.2, 0.6) == pytest.approx(direct)
    assert llr(1, 1.0, 1.0, 0.0, 0.1) == 0.0  # no variance yet: no evidence
    # no game changed: at most (1 - delta)^n under H1
    assert llr(50, 0.0, 0.0, 0.0, 0.1) == pytest.approx(50 * math.log(0.9))
    assert llr(5, 5.0, 5.0, 0.0, 0.1) == 0.0  # every game changed by the same amount: no variance, no bound


def test_elo_delta_is_the_fair_share_shift():
    st = SprtSettings(elo=400.0)
    assert st.delta_for(2) == pytest.approx(10 / 11 - 0.5)
    assert st.delta_for(4) == pytest.approx(10 / 13 - 0.25)


def _decide(mean, rng, st, sd=0.5):
    t = Sequential(st, 2)
    while t.n < st.max_games and not t.done:
        t.update(rng.normal(mean, sd, st.batch))
    return t.verdict()


def test_error_rates_hold_on_synthetic_differences():
    """Under no change the test rarely claims one; under a change of delta it rarely misses it."""
    rng = np.random.default_rng(5)
    st = SprtSettings(delta=0.05, alpha=0.05, beta=0.05, batch=50, max_games=20000)
    null = [_decide(0.0, rng, st) for _ in range(300)]
    alt = [_decide(0.05, rng, st) for _ in range(300)]
    false_alarm = sum(v in ("rises", "falls") for v in null) / len(null)
    miss = sum(v != "rises" for v in alt) / len(alt)
    assert false_alarm <= 0.08, false_alarm
    assert miss <= 0.08, miss
    assert sum(v == "no change" for v in null) / len(null) >= 0.9
    # one-sided: a fall is never reported by a "greater" test
    st1 = SprtSettings(delta=0.05, alternative="greater", batch=50, max_games=5000)
    assert {_decide(-0.05, rng, st1) for _ in range(20)} <= {"no change", "undecided"}


def test_metric_parsing():
    assert parse_metric(None, ["heuristic", "greedy"]) == ("bot", "heuristic")
    assert parse_metric(None, ["greedy"]) == ("seat", 0)
    assert parse_metric("seat:1", ["greedy"]) == ("seat", 0)  # seat 1 = the start player = results' seat index 0
    assert parse_metric("seat:3", ["greedy"]) == ("seat", 2)
    with pytest.raises(Exception, match="seat 1 = start player"):
        parse_metric("seat:0", ["greedy"])
    with pytest.raises(Exception, match="not in --bots"):
        parse_metric("bot:rollout", ["greedy"])


SB = ["compare", "schweinebande", "--quiet", "--players", "3", "--bots", "greedy,random"]


def test_until_significant_stops_and_writes_paired_runs(tmp_path, capsys):
    out = tmp_path / "c"
    code, _, err = run_cli(
        SB
        + [
            "--set",
            "pig_bonus_farm=0",
            "--until-significant",
            "--delta",
            "0.03",
            "--batch",
            "200",
            "--max-games",
            "1000",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    rec = json.loads((out / "sprt.json").read_text())
    t = rec["tests"][0]
    assert t["verdict"] in ("rises", "falls", "no change", "undecided")
    assert t["games"] % 200 == 0 and 200 <= t["games"] <= 1000
    assert [p["games"] for p in t["path"]] == list(range(200, t["games"] + 1, 200))
    if t["games"] < 1000:  # stopped early: decided
        assert t["verdict"] != "undecided"
    meta = json.loads((out / "variant" / "run.json").read_text())
    assert meta["sprt"]["tests"][0]["games"] == t["games"] and meta["status"] == "complete"
    # the runs hold exactly the games the test saw, the same rows an ordinary run plays
    ref = tmp_path / "ref"
    assert (
        main(
            [
                "run",
                "schweinebande",
                "--quiet",
                "--players",
                "3",
                "--bots",
                "greedy,random",
                "--set",
                "pig_bonus_farm=0",
                "--games",
                str(t["games"]),
                "--out",
                str(ref),
            ]
        )
        == 0
    )
    a = pl.read_parquet(out / "variant" / "results.parquet").sort("game_index", "seat")
    b = pl.read_parquet(ref / "results.parquet").sort("game_index", "seat")
    assert a.equals(b)
    # the test's mean is the paired per-game difference of the default metric, the first bot's win share
    base = pl.read_parquet(out / "baseline" / "results.parquet")
    wb = base.filter(pl.col("bot") == "greedy").group_by("game_index").agg(pl.col("win").mean())
    wv = a.filter(pl.col("bot") == "greedy").group_by("game_index").agg(pl.col("win").mean())
    d = wv.join(wb, on="game_index", suffix="_b").select(pl.col("win") - pl.col("win_b"))["win"]
    assert d.mean() == pytest.approx(t["mean"])
    html = (out / "report.html").read_text()
    assert "Sequential test" in html and "log-likelihood ratio" in html


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--until-significant"], "--delta"),
        (["--until-significant", "--delta", "0.02", "--elo", "10"], "not both"),
        (["--until-significant", "--delta", "0.02", "--alpha", "0.7"], "--alpha"),
        (["--until-significant", "--delta", "0.02", "--metric", "seat:4"], "seat:4: there are only 3 seats"),
        (["--until-significant", "--delta", "0.02", "--batch", "500", "--max-games", "100"], "--max-games"),
        (["--delta", "0.02"], "--until-significant"),
    ],
)
def test_bad_sequential_options_are_one_line_exit_2(extra, message, tmp_path, capsys):
    code, _out, err = run_cli(SB + ["--set", "pig_bonus_farm=0", "--out", str(tmp_path / "x")] + extra, capsys)
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "x" / "variant" / "results.parquet").exists()
