"""Final farms of whole games through the shared loop, for the reference-scorer tests."""

from numba import njit

from meeplab.sim.core.play import new_player, play_game

from . import engine


@njit(cache=True)
def end_states_nb(cx, fns, weights, search, rotate, seed, start, n_games, farms, brk, log, srch):
    st, scratch = new_player(cx, 2, brk.shape[2], log)
    r = st.rec[0]
    for i in range(n_games):
        play_game(st, scratch, cx, fns, weights, search, rotate, seed, start + i, srch)
        engine.result(st, cx, scratch.sc, scratch.tb, brk[i])
        for p in range(2):
            for j in range(farms.shape[2]):
                farms[i, p, j] = r.ps[p, j]
