"""A drawing's info() as the pages take it: numpy numbers converted, anything else refused in one line
(sim.core.draw.checked_info; issue 59)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeplab.sim.core.draw import checked_info
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.registry import get_game
from tests.cli_run import run_cli


def test_numpy_values_become_plain_json():
    got = checked_info({"columns": ("a", np.str_("b")), "rows": [["pesos", np.int64(3), np.float32(1.5), np.bool_(True),
                        float("nan"), np.array([1, 2])]]}, "toy")  # fmt: skip
    assert got == {"columns": ["a", "b"], "rows": [["pesos", 3, 1.5, True, None, [1, 2]]]}
    assert json.loads(json.dumps(got)) == got


@pytest.mark.parametrize("bad, says", [({"rows": [[object()]]}, "info()['rows'][0][0] is a object"),
                                       ({1: "x"}, "a key 1 that is not a string")])  # fmt: skip
def test_other_objects_are_refused_in_one_line(bad, says):
    with pytest.raises(MeeplabError) as e:
        checked_info(bad, "toy")
    assert says in str(e.value) and "toy's drawing" in str(e.value) and "\n" not in str(e.value)


def test_view_takes_a_drawing_that_hands_numpy_numbers(tmp_path, capsys, monkeypatch):
    draw = get_game("schweinebande").draw
    plain = draw.info

    def numpy_info(ctx, rec, seat):
        got = plain(ctx, rec, seat)
        return {**got, "rows": [[r[0], *(np.int64(len(str(v))) for v in r[1:])] for r in got["rows"]]}

    monkeypatch.setattr(draw, "info", numpy_info)
    code, _, err = run_cli(["view", "schweinebande", "--players", "2", "--out", str(tmp_path / "v.html")], capsys)
    assert code == 0, err
    monkeypatch.setattr(draw, "info", lambda ctx, rec, seat: {"columns": [], "rows": [[object()]]})
    code, _, err = run_cli(["view", "schweinebande", "--players", "2", "--out", str(tmp_path / "w.html")], capsys)
    assert code == 2 and "schweinebande's drawing: info()" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
