"""The notebook API (``import meeplab``): run, compare, load, pandas tables with intervals, reports;
and the install layout that makes ``meeplab`` the one top-level import name."""

from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import meeplab

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("api") / "r"
    return meeplab.run("schweinebande", games=300, players="2-3", bots="heuristic,greedy", seed=3, out=out)


def test_run_gives_pandas_tables_with_intervals(result):
    assert isinstance(result, meeplab.Result)
    rows = result.results
    assert isinstance(rows, pd.DataFrame) and len(rows) == 300 * 2 + 300 * 3
    w = result.win_rates()
    assert {"n_players", "bot", "win_rate", "lo", "hi", "n"} <= set(w.columns)
    assert ((w["lo"] <= w["win_rate"]) & (w["win_rate"] <= w["hi"])).all()
    raw = pl.from_pandas(rows).group_by("n_players", "bot").agg(pl.col("win").mean()).sort("n_players", "bot")
    assert raw["win"].to_list() == pytest.approx(w.sort_values(["n_players", "bot"])["win_rate"].tolist())
    s = result.seats()
    assert {"seat", "win_rate", "lo", "hi", "adv", "adv_lo", "adv_hi", "p_seat"} <= set(s.columns)
    assert len(s) == 2 + 3
    b = result.breakdown()
    assert {"category", "mean", "lo", "hi", "share"} <= set(b.columns)
    assert ((b["lo"] <= b["mean"]) & (b["mean"] <= b["hi"])).all()
    # the categories add up to the mean score of each bot
    total = b.groupby(["n_players", "bot"])["mean"].sum().sort_index()
    mean_score = w.set_index(["n_players", "bot"])["mean_score"].sort_index()
    assert total.tolist() == pytest.approx(mean_score.tolist())
    assert isinstance(result.lazy, pl.LazyFrame)


def test_report_and_load(result, tmp_path):
    path = result.report(tmp_path / "r.html")
    assert path.is_file() and "Schweinebande" in path.read_text()
    again = meeplab.load(result.path)
    assert isinstance(again, meeplab.Result)
    pd.testing.assert_frame_equal(again.win_rates(), result.win_rates(), rtol=1e-9)  # sums in any order


def test_compare_paired_and_sequential(tmp_path):
    c = meeplab.compare(
        "schweinebande", variant={"pig_bonus_farm": 0}, bots="greedy,random", players=3, games=300, out=tmp_path / "c"
    )
    assert c.paired
    d = c.differences()
    assert {"bot", "d_win", "d_win_lo", "d_win_hi", "p_win", "paired"} <= set(d.columns)
    assert ((d["d_win_lo"] <= d["d_win"]) & (d["d_win"] <= d["d_win_hi"])).all()
    assert c.sprt is None
    loaded = meeplab.load(tmp_path / "c")
    assert isinstance(loaded, meeplab.Comparison)
    pd.testing.assert_frame_equal(loaded.differences(), d, rtol=1e-9)
    assert c.report().is_file()
    s = meeplab.compare(
        "schweinebande",
        variant={"pig_bonus_farm": 0},
        bots="greedy,random",
        players=3,
        until_significant=True,
        delta=0.05,
        batch=100,
        max_games=300,
        out=tmp_path / "s",
    )
    path = s.sprt_path()
    assert list(path["games"]) == list(range(100, 100 * len(path) + 1, 100))
    assert s.sprt["tests"][0]["games"] == len(s.baseline.results) // 3


def test_bad_input_raises_one_clear_error(tmp_path):
    with pytest.raises(meeplab.MeeplabError, match="unknown game"):
        meeplab.run("chess", games=10, out=tmp_path / "x")
    with pytest.raises(meeplab.MeeplabError, match="needs a variant"):
        meeplab.compare("schweinebande", games=10, out=tmp_path / "y")
