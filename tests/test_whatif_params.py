"""Per-seat rule parameters (a player's starting resources, one value per seat: compensation what-ifs) in every
game, bit-identical play by default, and NaN/inf refused with the parameter's name."""

from __future__ import annotations

import pytest

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import Param, ParamSet, seat_values


def test_per_seat_values_parse_format_and_check():
    p = Param("start_money", 20, "int", "pesos", lo=0, hi=1000, per_seat=True)
    assert p.parse("20") == 20 and p.parse("20,21,22,23") == (20, 21, 22, 23) and p.parse([3, 4]) == (3, 4)
    assert p.format(p.parse("20,21,22")) == "20,21,22" and "per seat" in p.describe_type()
    with pytest.raises(MeeplabError, match="out of range"):
        p.parse("20,2000")
    t = Param("start_goods", (0, 0, 0), "ints", "goods", lo=0, hi=99, length=3, per_seat=True)
    assert t.parse("1,0,0") == (1, 0, 0) and not t.is_seat_list(t.parse("1,0,0"))
    assert t.parse("0,0,0/1,0,0") == ((0, 0, 0), (1, 0, 0)) and t.is_seat_list(t.parse("0,0,0/1,0,0"))
    assert t.parse([[0, 0, 0], [2, 1, 0]]) == ((0, 0, 0), (2, 1, 0))
    with pytest.raises(MeeplabError, match="exactly 3"):
        t.parse("0,0/1,0,0")
    assert seat_values(20, 3) == [20, 20, 20] and seat_values((1, 2), 4) == [1, 2, 2, 2]
    assert seat_values((0, 0, 0), 2, table=True) == [(0, 0, 0)] * 2
    ps = ParamSet([p])
    ps.check_seats({"start_money": (1, 2, 3)}, 3)
    ps.check_seats({"start_money": 5}, 4)
    with pytest.raises(MeeplabError, match=r"3 values .* 4 players"):
        ps.check_seats({"start_money": (1, 2, 3)}, 4)


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "NaN", float("nan"), float("inf"), "1,nan"])
def test_nan_and_infinity_are_refused_with_the_name(raw):
    f = Param("rail_tile_points", 1.0, "float", "points", lo=0, hi=100)
    fs = Param("weights", (1.0,), "floats", "w")
    i = Param("n", 1, "int", "n")
    for prm in (f, fs, i):
        if prm is f and isinstance(raw, str) and "," in raw:
            continue
        with pytest.raises(MeeplabError, match=f"'{prm.name}'"):
            prm.parse(raw)


def test_every_game_has_per_seat_starting_resources(capsys):
    from meeplab.cli import main
    from meeplab.sim.core.registry import games

    per_seat = {g: [p.name for p in spec.params if p.per_seat] for g, spec in games().items()}
    for g, names in {
        "hacienda": ["start_money"],
        "schweinebande": ["start_feed"],
        "acbas": ["start_borders", "start_goods"],
        "goldrush": ["cowboys"],
    }.items():
        assert set(names) <= set(per_seat.get(g, [])), g
    assert main(["params", "hacienda"]) == 0
    assert "per seat" in capsys.readouterr().out


def test_per_seat_value_of_the_wrong_length_is_one_line(tmp_path, capsys):
    from meeplab.cli import main

    code = main(
        [
            "run",
            "schweinebande",
            "-q",
            "--players",
            "3",
            "--games",
            "10",
            "--set",
            "start_feed=0,1",
            "--out",
            str(tmp_path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "start_feed" in err and "3 players" in err and "Traceback" not in err


def test_a_compensation_measurably_reduces_a_planted_seat_gap():
    """Plant a seat gap (the start player alone gets 10 feed markers), then compensate the later seats with the same:
    on the same deals the seat gap among equal bots falls, and the paired bootstrap says so."""
    import meeplab
    from meeplab.analysis.seatgap import seat_gaps

    runs = [
        meeplab.run("schweinebande", games=400, players=3, bots="greedy", set={"start_feed": v}).run
        for v in ("0", "10,0,0", "10,10,10")
    ]
    plain, planted, compensated = seat_gaps(runs, 3, [True, True, True])
    assert planted.best == 1 and planted.d > 0 and planted.d_lo > 0  # the plant widens the start player's lead
    back = seat_gaps([runs[1], runs[2]], 3, [True, True])[1]
    assert back.d < 0 and back.d_hi < 0 and back.p < 0.01  # the compensation narrows it again
    assert abs(compensated.gap - plain.gap) < planted.gap - compensated.gap
