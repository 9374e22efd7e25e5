"""meeplab maps / decks: each file played on the same seeds, ranked by seat fairness, spread and length."""

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from shared_data import COMMUNITY_MAPS as COMMUNITY
from shared_data import needs_shared

from meeplab.cli import main

ROOT = Path(__file__).resolve().parents[1]
THREE = ["123.haz", "Ararat.haz", "Bait.haz"]


@needs_shared
def test_three_community_maps_are_ranked(tmp_path, capsys):
    out = tmp_path / "m"
    code = main(
        [
            "maps",
            "hacienda",
            *[str(COMMUNITY / m) for m in THREE],
            "--players",
            "3",
            "--bots",
            "heuristic,greedy",
            "--games",
            "40",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr()
    assert code == 0, text.err
    rec = json.loads((out / "maps.json").read_text())
    ranking = rec["ranking"]
    assert sorted(r["name"] for r in ranking) == ["123", "Ararat", "Bait"]
    gaps = [r["seat_gap"] for r in ranking]
    assert gaps == sorted(gaps)
    for r in ranking:  # the measures are those of the run's rows
        df = pl.read_parquet(Path(r["run"]) / "results.parquet")
        rates = df.group_by("seat").agg(pl.col("win").mean()).sort("seat")["win"]
        assert r["seat_gap"] == pytest.approx(rates.max() - rates.min())
        spread = df.group_by("game_index").agg(pl.col("score").max() - pl.col("score").min())["score"].mean()
        assert r["spread"] == pytest.approx(spread)
        meta = json.loads((Path(r["run"]) / "run.json").read_text())
        assert meta["params"]["map"] == str((COMMUNITY / f"{r['name']}.haz").resolve())
        assert meta["seed"] == 1  # common seeds
    assert "Ararat" in text.out and (out / "report.html").read_text().count("<tr") >= 4


def test_identical_decks_give_identical_games(tmp_path, capsys):
    deck = ROOT / "sim" / "goldrush" / "data" / "deck.csv"
    d = tmp_path / "decks"
    d.mkdir()
    for name in ("a", "b"):
        shutil.copy(deck, d / f"{name}.csv")
    out = tmp_path / "o"
    code = main(
        [
            "decks",
            "goldrush",
            str(d),
            "--players",
            "2",
            "--bots",
            "heuristic,greedy",
            "--games",
            "20",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    a = pl.read_parquet(out / "a" / "results.parquet")
    b = pl.read_parquet(out / "b" / "results.parquet")
    assert a.equals(b)
    rec = json.loads((out / "decks.json").read_text())
    assert rec["ranking"][0]["seat_gap"] == rec["ranking"][1]["seat_gap"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["maps", "schweinebande", "a.haz", "b.haz"], "no 'map' parameter"),
        (["maps", "hacienda", "/nonexistent/x.haz", "/nonexistent/y.haz"], "no such file"),
        pytest.param(["maps", "hacienda", str(COMMUNITY / "123.haz")], "at least two files", marks=needs_shared),
        (
            ["maps", "hacienda", str(COMMUNITY / "123.haz"), str(COMMUNITY / "Bait.haz"), "--set", "map=A"],
            "do not also set",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2(args, message, tmp_path, capsys):
    code = main(args + ["--games", "5", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
