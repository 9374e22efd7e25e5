"""The search scratch travels as one named structure (``sim.core.scratch``), and the kernel's modes are IntEnums."""

from __future__ import annotations

import re

import numpy as np
import pytest

from meeplab.sim.core.bots import READS, Reads, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import Algo, Step, Value, algo_name
from meeplab.sim.core.play import new_player, search_function
from meeplab.sim.core.registry import get_game
from meeplab.sim.core.scratch import SearchScratch


@pytest.fixture(scope="module")
def sb():
    g = get_game("schweinebande")
    return g, g.prepare(g.params.resolve({}))


def test_new_player_gives_the_state_and_one_named_scratch(sb):
    g, ctx = sb
    ncat = len(g.categories)
    st, scratch = new_player(ctx.cx, 3, ncat, np.zeros((0, 8), dtype=np.int64))
    assert isinstance(scratch, SearchScratch)
    m = st.rec[0]["moves"].shape[0]
    assert scratch.sim.rec.dtype == st.rec.dtype and scratch.sim.log.shape[0] == 0
    assert (scratch.acc.dtype, scratch.acc.shape) == (np.float64, (m,))
    assert (scratch.cand.dtype, scratch.cand.shape) == (np.int64, (m,))
    assert (scratch.used.dtype, scratch.used.shape) == (np.int64, (3 * m,))
    assert scratch.sc.shape == scratch.tb.shape == (3,)
    assert scratch.brk.shape == (3, ncat)
    assert (scratch.vis.dtype, scratch.vis.shape) == (np.float64, (m,))


def test_the_search_pointer_takes_the_scratch_as_one_argument(sb):
    g, ctx = sb
    lineup = make_lineup(g.id, ["rollout", "heuristic"], 2, False)
    args = search_function(ctx.cx, lineup, 2, len(g.categories)).signature().args
    # (st, scratch, cx, fns, weights, search, entry, allowed candidates)
    assert len(args) == 8
    assert args[1].instance_class is SearchScratch


def test_modes_are_int_enums():
    assert [int(a) for a in Algo] == [0, 1, 2] and Algo.ISMCTS.name == "ISMCTS"
    assert (Value.WIN, Value.RANK) == (0, 1)
    assert (Step.ADVANCE, Step.RESET) == (-1, -2)
    assert READS == {"all": Reads.ALL, "max0": Reads.MAX0, "none": Reads.NONE}
    assert algo_name(2.0) == "ISMCTS" and algo_name(9) == "9"


def test_a_bad_mode_is_refused_by_name(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[bots.bad]\nbase = "rollout"\n[bots.bad.weights]\nvalue = 2\n')
    with pytest.raises(MeeplabError, match=re.escape("value must be 0 = WIN (win share) or 1 = RANK (rank share)")):
        make_lineup("schweinebande", ["bad"], 2, False, [str(path)])
