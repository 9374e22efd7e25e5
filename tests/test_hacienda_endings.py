"""How a Hacienda game ends: the rule book's ending, and the "stalled" safety net (no player can ever act
again), recorded as such and scored once as it stands; results and reports show it."""

import numpy as np
import polars as pl
import pytest

from meeplab.analysis.load import load_run
from meeplab.cli import main
from meeplab.reports import build_report
from meeplab.sim.core import forward
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.forward import C_END, C_LENGTH, C_OVER
from meeplab.sim.core.registry import get_game
from meeplab.sim.hacienda import END_CODES, flow, state
from meeplab.sim.hacienda import engine as E
from meeplab.sim.hacienda.scoring import R_CHIPS


@pytest.fixture(scope="module")
def c():
    g = get_game("hacienda")
    return g.prepare(g.params.resolve({}))


def _chain_of_three(c):
    """Three pampa spaces in a row (h, a neighbour, a neighbour of that)."""
    kind, nb = c.kind, c.nb
    for h in range(len(kind)):
        if kind[h] != E.K_PAMPA:
            continue
        for j in nb[h]:
            if j < 0 or kind[j] != E.K_PAMPA:
                continue
            for k in nb[j]:
                if k >= 0 and k != h and kind[k] == E.K_PAMPA:
                    return [int(h), int(j), int(k)]
    raise AssertionError("no three pampa spaces in a row")


def stalled_position(c):
    """A 2-player game just dealt, then: nobody holds a card or more than 1 peso (no buy, no play, no hacienda,
    no water), and seat 0's only land chain (3 tiles) carries a harvest chip (no harvest)."""
    st = flow.new_state(c.cx, 2, np.zeros((4000, 6), dtype=np.int64))
    st.nlog[1] = 1
    flow.reset(st, c.cx, 1, 0)
    r = st.rec[0]
    r["hand"][:] = 0
    r["money"][:2] = 1
    MS, SP, _ = state.py_tables(st, c.cx)
    chain = _chain_of_three(c)
    for h in chain:
        E.place_land(MS, SP, 0, h, c.kind, c.nbmask, r["pub"])
    MS[R_CHIPS, chain[0] >> 6] |= np.uint64(1) << np.uint64(chain[0] & 63)
    SP[E.LB_CHIP, SP[E.SP_LAB, chain[0]]] += 1
    SP[E.SR, E.S_CHIPS] -= 1
    return st


def test_a_stalled_game_is_recorded_and_scored_once_as_it_stands(c):
    st = stalled_position(c)
    lu = make_lineup("hacienda", ["greedy"], 2, False)
    decisions = 0
    while (seat := flow.advance(st, c.cx)) >= 0:
        r = st.rec[0]
        assert r["ctl"][forward.C_N] == 1 and r["moves"][0, 0] == E.A_END  # only "end turn"
        flow.apply(st, c.cx, forward.ask(st, lu.fns, lu.weights, seat))
        decisions += 1
    r = st.rec[0]
    assert decisions == 2  # one round: each seat could only end the turn
    assert r["ctl"][C_OVER] == 1 and END_CODES[r["ctl"][C_END]] == "stalled" and r["ctl"][C_LENGTH] == 2
    sc, tb, brk = np.zeros(2), np.zeros(2), np.zeros((2, 10))
    flow.result(st, c.cx, sc, tb, brk)
    # one scoring (as a final scoring): seat 0's chain of 3 = 6 points; no mid-game scoring of the same board
    assert brk[0].tolist() == [0, 0, 0, 0, 0, 0, 6, 0, 0, 0] and sc[0] == 6
    assert sc[1] == 0 and tb.tolist() == [1, 1]
    log = st.log[: st.nlog[0]]
    assert [int(x) for x in log[log[:, 0] == E.E_CAP][0, 2:4]] == [1, 1]  # round 1, stalled
    phases = log[log[:, 0] == E.E_SCORE_A][:, 2].tolist()
    assert phases == [2, 2]  # one scoring per seat


def test_stalled_games_appear_in_results_and_reports_warn(tmp_path):
    # greedy alone with 2 players stalls in about a third of the games
    out = tmp_path / "greedy2"
    assert (
        main(["run", "hacienda", "--quiet", "--games", "120", "--players", "2", "--bots", "greedy", "--out", str(out)])
        == 0
    )
    df = pl.read_parquet(out / "results.parquet")
    ends = df.filter(pl.col("seat") == 0)["end"].cast(pl.String)
    stalled = (ends == "stalled").sum()
    assert 10 < stalled < 80 and set(ends.unique().to_list()) <= {"rules", "stalled"}
    assert df["tiebreak"].null_count() == 0
    run = load_run(out)
    html = build_report([out], tmp_path / "r.html").read_text()
    assert "ended by a safety net" in html and "stalled" in html and "⚠" in html
    del run
