"""A per-seat value that gives every seat the rule book's value is the rule book's value: no run, report or table
lists it as a changed parameter (a sweep's or fair's baseline 'start_feed=0,0,0' was listed as changed)."""

from meeplab.sim.core.registry import get_game


def test_every_seat_at_the_default_is_the_default():
    params = get_game("schweinebande").params
    resolved = params.resolve({"start_feed": "0,0,0"}, "schweinebande")
    assert params.changed(resolved) == {}
    assert params.changed(params.resolve({"start_feed": "0,1,0"}, "schweinebande")) == {"start_feed": (0, 1, 0)}
    assert params.changed(params.resolve({"start_feed": "1"}, "schweinebande")) == {"start_feed": 1}
    money = get_game("hacienda").params
    assert money.changed(money.resolve({"start_money": "20,20,20"}, "hacienda")) == {}
