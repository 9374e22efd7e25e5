"""meeplab fair: the noisy root search, its interval, and the command on a tiny budget."""

import json
import math

import pytest

from meeplab.cli import main
from meeplab.lab.studies.fair import Point, search


def _line(root, slope=-0.05, se=0.01):
    calls = []

    def evaluate(x):
        calls.append(x)
        return Point(x, slope * (x - root), se, "")

    return evaluate, calls


def test_search_finds_the_root_of_a_number_parameter():
    ev, calls = _line(6.3)
    s = search(ev, 0.0, 10.0, "float", 8, 3)
    assert s.crossing and s.value == pytest.approx(6.3, abs=1e-6)
    assert s.lo < 6.3 < s.hi and s.hi - s.lo == pytest.approx(2 * 1.96 * 0.01 / 0.05, rel=1e-6)
    assert len(calls) <= 4  # a straight line: the secant lands on it at once


def test_search_over_integers_brackets_to_neighbours():
    ev, calls = _line(6.3, slope=-0.05)
    s = search(ev, 0.0, 20.0, "int", 12, 2)
    assert s.value == 6.0 and all(float(x).is_integer() for x in calls)
    assert len(set(calls)) == len(calls)  # no value played twice


def test_no_crossing_reports_the_fairer_end():
    ev, _ = _line(30.0)
    s = search(ev, 0.0, 10.0, "float", 8, 2)
    assert not s.crossing and s.value == 10.0 and "no crossing" in s.note


def test_fair_command_on_a_tiny_budget(tmp_path, capsys):
    out = tmp_path / "f"
    code = main(
        [
            "fair",
            "schweinebande",
            "--param",
            "quartet_size",
            "--range",
            "2:12",
            "--target",
            "bots",
            "--players",
            "2",
            "--bots",
            "heuristic,greedy",
            "--games",
            "300",
            "--steps",
            "4",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr()
    assert code == 0, text.err
    rec = json.loads((out / "fair.json").read_text())
    r = rec["results"][0]
    assert rec["target"] == "bots" and 2 <= r["value"] <= 12 and len(r["points"]) <= 2 + 4
    xs = [p["x"] for p in r["points"]]
    assert xs[:2] == [2.0, 12.0] and all(x.is_integer() for x in xs)
    assert {b["bot"] for b in r["bots"]} == {"heuristic", "greedy"} and [s["seat"] for s in r["seats"]] == [1, 2]
    assert r["seat_gap"]["best"] in (1, 2) and 0 <= r["seat_gap"]["gap"] <= 1
    assert "quartet_size" in text.out
    assert text.out.count("fairest quartet_size") == 1  # the answer once, as the result table; details on stderr
    page = (out / "report.html").read_text()
    assert page.index('id="fair"') < page.index("Runs in this report") and "Fairest quartet_size" in page
    assert r["whole_range"] == (r["crossing"] and r["lo"] <= 2 and r["hi"] >= 12)
    if r["whole_range"]:  # an interval over the whole searched range is no answer, and says so
        assert "no answer" in text.out and "the whole range" in text.out
    if r["crossing"]:
        assert r["lo"] <= r["value"] + 1 and r["hi"] >= r["value"] - 1 and not math.isnan(r["lo"])
    assert (out / "report.html").is_file()
    # a second call plays nothing new (every value tried is complete) and gives the same answer
    assert (
        main(
            [
                "fair",
                "schweinebande",
                "--param",
                "quartet_size",
                "--range",
                "2:12",
                "--target",
                "bots",
                "--players",
                "2",
                "--bots",
                "heuristic,greedy",
                "--games",
                "300",
                "--steps",
                "4",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads((out / "fair.json").read_text())["results"][0]["value"] == r["value"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--param", "board", "--range", "0:2"], "only a number"),
        (["--param", "quartet_size", "--range", "5"], "LO:HI"),
        (["--param", "quartet_size", "--range", "6:3"], "LO < HI"),
        (["--param", "quartet_size", "--range", "2.5:6"], "whole numbers"),
        (["--param", "quartet_size", "--range", "1:6"], "bounds"),
        (["--param", "quartet_size", "--range", "2:6", "--target", "bots", "--bots", "greedy"], "two different bots"),
        (["--param", "quartet_size", "--range", "2:6", "--seat", "4", "--players", "3"], "numbered 1 (start player)"),
        (["--param", "quartet_size", "--range", "2:6", "--seat", "0", "--players", "3"], "numbered 1 (start player)"),
        (["--param", "quartet_size:2", "--range", "2:6", "--players", "3"], "needs a per-seat parameter"),
        (["--param", "start_feed:4", "--range", "0:3", "--players", "3"], "seat 4: seats are numbered"),
        (["--param", "nope", "--range", "2:6"], "nope"),
    ],
)
def test_bad_fair_input_is_one_line_exit_2(extra, message, tmp_path, capsys):
    code = main(["fair", "schweinebande", "--quiet", "--games", "10", "--out", str(tmp_path / "x")] + extra)
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
