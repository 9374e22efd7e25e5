"""--precision sizes a run by the interval it asks for: the games follow z^2 p (1 - p) / h^2 at the fair share
(twice that for a what-if's change), the largest over the player counts, once per command; bad input is one line."""

import json

import pytest

from meeplab.lab.stats import games_for_precision


def test_the_games_follow_the_half_width_asked_for():
    assert games_for_precision(0.02, 2) == 2401  # 1.96^2 x 0.25 / 0.0004
    assert games_for_precision(0.02, 3) == 2135
    assert games_for_precision(0.02, 3, change=True) == 4269
    assert games_for_precision(0.01, 3) == 4 * games_for_precision(0.02, 3) - 3  # a quarter of the variance
    with pytest.raises(ValueError):
        games_for_precision(0.6, 3)


def test_run_and_compare_are_sized_by_precision(tmp_path, capsys):
    from tests.cli_run import run_cli

    out = tmp_path / "r"
    code, _, se = run_cli(["run", "schweinebande", "-p", "2,3", "-b", "greedy", "--precision", "0.05", "-q",
                            "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    games = json.loads((out / "run.json").read_text())["games_completed"]
    assert games == {"2": 385, "3": 385}  # the larger of 2 and 3 players' (385 and 342)
    code, _, se = run_cli(["compare", "schweinebande", "-p", "3", "-b", "greedy", "--set", "pig_bonus_farm=3",
                            "--precision", "0.05", "--out", str(tmp_path / "c"), "--dry-run"], capsys)  # fmt: skip
    assert code == 0, se
    assert se.count("--precision 0.05: 683 games per player count") == 1 and "change in win rate" in se
    for bad, message in ((["--precision", "0"], "--precision must be"),
                         (["--precision", "0.02", "--until-significant"], "sizes itself")):  # fmt: skip
        code, _, se = run_cli(["compare", "schweinebande", "--set", "pig_bonus_farm=3", "--out", str(tmp_path / "x"),
                               *bad], capsys)  # fmt: skip
        assert code == 2 and message in se and "Traceback" not in se
