"""Sweeps: two-parameter grids with a heat map of the largest seat gap; Holm across the points."""

import json

import polars as pl
import pytest

from meeplab.analysis.compare import grid_params, seat_gap
from meeplab.analysis.load import load_run
from meeplab.analysis.stats import run_stats
from meeplab.cli import main

SW = ["sweep", "schweinebande", "--quiet", "--players", "3", "--bots", "greedy,random", "--games", "200"]


def test_two_parameter_grid_draws_the_seat_gap_heat_map(tmp_path, capsys):
    out = tmp_path / "g"
    code = main(
        SW
        + [
            "--param",
            "pig_bonus_farm",
            "--values",
            "0;2",
            "--param",
            "start_feed",
            "--values",
            "0;1",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    dirs = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert dirs == [
        "pig_bonus_farm=0,start_feed=0",
        "pig_bonus_farm=0,start_feed=1",
        "pig_bonus_farm=2,start_feed=0",
        "pig_bonus_farm=2,start_feed=1",
    ]
    runs = [load_run(out / d) for d in dirs]
    assert grid_params(runs) == ("pig_bonus_farm", "start_feed")
    assert grid_params(runs[:2]) is None  # one parameter differs: an ordinary sweep
    st = run_stats(runs[0])  # the gap among equally strong bots: the lineup-aware seat model's rates
    rates = st.by_seat.filter(pl.col("n_players") == 3)["adj_rate"]
    gap, _best, _worst, p = seat_gap(st, 3)
    assert gap == pytest.approx(rates.max() - rates.min()) and 0 <= p <= 1
    html = (out / "report.html").read_text()
    assert "Two-parameter sweep" in html and "largest seat gap" in html
    assert html.count('id="sweep2"') == 1 and "Holm" in html
    changed = json.loads((out / dirs[3] / "run.json").read_text())["params"]
    assert changed["pig_bonus_farm"] == 2 and changed["start_feed"] == 1


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--param", "pig_bonus_farm", "--values", "0;2", "--param", "start_feed"], "one --values for each"),
        (
            ["--param", "a", "--values", "0;2", "--param", "b", "--values", "1;2", "--param", "c", "--values", "1;2"],
            "one or two parameters",
        ),
        (["--param", "start_feed", "--values", "0;2", "--param", "start_feed", "--values", "1;2"], "must differ"),
        (["--param", "start_feed", "--values", "0"], "at least two values"),
    ],
)
def test_bad_sweeps_are_one_line_exit_2(extra, message, tmp_path, capsys):
    code = main(SW + extra + ["--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
