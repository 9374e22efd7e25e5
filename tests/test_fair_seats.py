"""fair --seats all: one value per seat from the fitted seat model (analysis/compensate.py), recovered from games
with a known seat effect and value effect, and the command on a tiny budget with its one-line refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeplab.analysis.compensate import design_vectors, fit_compensation
from meeplab.analysis.load import load_run
from tests.cli_run import run_cli
from tests.test_whatif_seats import seat_run

#: the truth of the toy game: seat advantages (log-odds) and what one unit of the value buys
A = np.array([0.6, 0.1, -0.2])
B = 0.05


def _probs(vec):
    eta = A + B * np.asarray(vec, dtype=float)
    e = np.exp(eta - eta.max())
    return e / e.sum()


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The design's runs of the toy game, every run on the same draws (common random numbers)."""
    root = tmp_path_factory.mktemp("comp")
    vecs = design_vectors([20, 20, 20], 10, 30) + [(12.0, 21.0, 27.0)]
    runs = [load_run(seat_run(root / f"r{i}", _probs(v), games=12000, seed=5)) for i, v in enumerate(vecs)]
    return runs, vecs


def test_design_moves_each_seat_to_the_far_end():
    assert design_vectors([20, 20, 20], 10, 30) == [(20.0, 20.0, 20.0), (10.0, 20.0, 20.0), (20.0, 10.0, 20.0),
                                                     (20.0, 20.0, 10.0)]  # fmt: skip
    assert design_vectors([0, 0], 0, 4) == [(0.0, 0.0), (4.0, 0.0), (0.0, 4.0)]


def test_the_fair_vector_of_a_known_game_is_recovered(toy):
    runs, vecs = toy
    worth = (A - A.mean()) / B  # what each seat is worth in units: [8.67, -1.33, -7.33]
    truth = 20 - worth  # the total kept
    c = fit_compensation(runs, vecs, 3, 10, 30, [20, 20, 20], integer=False)
    assert np.allclose(c.values, truth, atol=1.5), c.values
    assert ((c.lo <= truth) & (truth <= c.hi)).all(), (c.lo, c.hi)
    assert c.values.sum() == pytest.approx(60.0, abs=1e-6)  # the seats' total is kept
    assert c.unit == pytest.approx(B, rel=0.25) and c.unit_lo < B < c.unit_hi
    assert np.allclose(c.worth, worth, atol=1.5)
    assert np.allclose(c.predicted, 1 / 3, atol=1e-9)  # unrounded inside the range: even by construction
    assert c.games == 12000 and c.runs == len(vecs) and not c.notes


def test_keeping_a_seat_and_whole_numbers(toy):
    runs, vecs = toy
    truth = 20 + (A[1] - A) / B  # seat 2 keeps 20: [10, 20, 26]
    c = fit_compensation(runs, vecs, 3, 10, 30, [20, 20, 20], integer=True, keep=1)
    assert c.values[1] == 20 and np.allclose(c.values, truth, atol=1.5) and (c.values == np.round(c.values)).all()


def test_an_answer_outside_the_range_is_clipped_and_said(toy):
    runs, vecs = toy
    c = fit_compensation(runs, vecs, 3, 10, 30, [20, 20, 20], integer=False, keep=0)  # seat 3 needs 36
    assert c.values[2] == 30 and c.raw[2] > 30 and c.lo[2] > 30
    assert any("outside 10..30" in n for n in c.notes)


def test_a_value_without_effect_decides_nothing(tmp_path):
    vecs = design_vectors([20, 20, 20], 10, 30)
    runs = [load_run(seat_run(tmp_path / f"r{i}", [1, 1, 1], games=600, seed=9)) for i, v in enumerate(vecs)]
    c = fit_compensation(runs, vecs, 3, 10, 30, [20, 20, 20], integer=True)
    assert c.whole_range.any() or c.notes  # no effect: the interval spans the range (or the fit says so)


def _fair(tmp_path, *extra):
    return [
        "fair", "schweinebande", "--param", "start_feed", "--range", "0:5", "--players", "3", "--bots", "greedy",
        "--games", "300", "--quiet", "--out", str(tmp_path / "f"), *extra,
    ]  # fmt: skip


def test_the_command_on_a_tiny_budget(tmp_path, capsys):
    code, out, err = run_cli(_fair(tmp_path, "--seats", "all", "--keep", "1", "--steps", "2", "--json"), capsys)
    assert code == 0, err
    table = json.loads(out)
    rec = json.loads((tmp_path / "f" / "fair.json").read_text())
    r = rec["results"][0]
    assert rec["target"] == "every seat" and rec["keep"] == 1 and r["values"][0] == 0
    assert len(r["values"]) == 3 and all(0 <= v <= 5 and v == int(v) for v in r["values"])
    assert [s["seat"] for s in r["seats"]] == [1, 2, 3] and sum(r["predicted"]) == pytest.approx(1.0)
    assert 4 <= len(r["runs"]) <= 4 + 3 and r["run"] in r["runs"]  # the design, then at most steps + 1 answers
    assert [row["seat"] for row in table["rows"]] == [1, 2, 3] and (tmp_path / "f" / "report.html").exists()
    page = (tmp_path / "f" / "report.html").read_text()  # the answer is the report's first section
    assert page.index('id="fair"') < page.index("Runs in this report") and "seat worth (units)" in page
    again = run_cli(_fair(tmp_path, "--seats", "all", "--keep", "1", "--steps", "2", "--json"), capsys)
    assert again[0] == 0 and json.loads(again[1])["rows"] == table["rows"]  # resumed: the same answer, nothing new


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--keep", "1"], "--keep goes with --seats all"),
        (["--seats", "all", "--keep", "4"], "seats are numbered 1"),
        (["--seats", "all", "--players", "2-3"], "one player count"),
        (["--seats", "all", "--range", "2:5"], "must hold the default values"),
    ],
)
def test_refusals_are_one_line(tmp_path, capsys, extra, says):
    args = _fair(tmp_path, *extra)
    if "--range" in extra:
        args[args.index("--range") + 1] = extra[extra.index("--range") + 1]
        args = args[: len(args) - 2]
    if "--players" in extra:
        args[args.index("--players") + 1] = extra[extra.index("--players") + 1]
        args = args[: len(args) - 2]
    code, _, err = run_cli(args, capsys)
    assert code == 2 and says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_a_parameter_that_is_not_per_seat_is_refused(tmp_path, capsys):
    args = _fair(tmp_path, "--seats", "all")
    args[args.index("start_feed")] = "quartet_size"
    args[args.index("0:5")] = "2:8"
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "per-seat parameter" in err


def test_the_api_reads_an_every_seat_answer(tmp_path, capsys):
    import meeplab

    code, _, err = run_cli(_fair(tmp_path, "--seats", "all", "--keep", "1", "--steps", "1"), capsys)
    assert code == 0, err
    got = meeplab.load(tmp_path / "f")
    ans, tried = got.answers(), got.search()
    rec = json.loads((tmp_path / "f" / "fair.json").read_text())["results"][0]
    assert list(ans["seat"]) == [1, 2, 3] and list(ans["value"]) == rec["values"] and ans["win_rate"].notna().all()
    assert len(tried) == len(rec["runs"]) and list(tried.columns[-3:]) == ["seat1", "seat2", "seat3"]
    assert tried.iloc[0][["seat1", "seat2", "seat3"]].tolist() == [0.0, 0.0, 0.0]  # the defaults first
