"""Win-probability trajectories, decision counts and kingmaking probes on the forward model (``meeplab quality``).

For game ``g`` of a run (the very game the runner plays: same seed, same bots, search bots included) the game is
played twice. The first pass counts its decision points ``D`` (every ``fm_advance`` that returns a seat), each seat's
decisions with more than one candidate, its forced moves (one candidate) and the candidates per decision by kind.
The second pass replays it and, at ``points`` decision points spread evenly over the game (decision index
``j * D // points``), estimates each seat's probability of winning given the true state: ``playouts`` copies of the
state, each with its future chance drawn afresh (``fm_redraw``: the unseen order of every deck, pile and stock; every
seat keeps what it holds, the other seats' hidden cards included, and the pending candidates stay valid) and played to
the end by the run's own plain bots (a search seat by its playout policy), or by an evaluator the caller names (one
plain bot in every seat: ``trajectories(..., evaluator=lineup)``). A game that registers no ``redraw`` gets
its ``fm_determinise`` for the seat to move instead, which also re-deals the other seats' hidden holdings: the
estimate is then conditioned on what the seat to move knows, not on the true state (``forward.exact_redraw``;
``meeplab quality`` records which one ran). A seat's estimate is its mean win share (a k-way
shared first place counts 1/k) with the standard error of that mean. The last point is the game's result (exact:
standard error 0).

Kingmaking: at a sample point where the seat to move has a win probability below ``km_below`` (3+ players), each of
its candidates (at most ``km_cand``: the bot's own pick, then the best by feature 0) is applied and played out
``playouts`` times on common random numbers (each playout's chance redrawn the same way); the decision counts as
kingmaking when at least two candidates make different other seats the clear favourite (leading the next other seat
by at least ``km_lead``).

Reproducible: the playouts at a point draw only from streams seeded with ``(mix(seed, g, step), k)``; games run
side by side on Python threads (``sim.core.play.on_threads``; the compiled game releases the GIL), one state per
game, so the results are the same for any thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bots import entry_of_seat
from .forward import (
    C_KIND,
    C_LENGTH,
    C_N,
    C_NP,
    C_OVER,
    C_SEAT,
    S_LOWER,
    ask,
    fm_advance,
    fm_apply,
    fm_copy,
    fm_redraw,
    fm_reset,
    fm_result,
)
from .play import decide, new_player, on_threads, search_function
from .rng import rng_init, splitmix64
from .search import seat_value, select_candidates

KIND_MAX = 32  # decision kinds counted (a kind >= KIND_MAX counts as KIND_MAX - 1)
NMAX = 1024  # candidates counted exactly (more count as NMAX - 1; Hacienda's placements reach 300+)


@njit(cache=True)
def point_seed(seed, g, step):
    """The stream base of the playouts at decision ``step`` of game ``g`` (one splitmix64 chain of the three)."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(g)
    x, z = splitmix64(x)
    x, z = splitmix64(z ^ (np.uint64(step) * np.uint64(0xD1342543DE82EF95)))
    return z


@njit(cache=True, inline="always")
def playout_lineup(sim, cx, fns, weights, g, np_, rotate):
    """Play ``sim`` to its end, each seat by its own lineup entry's plain bot (a search entry's playout policy)."""
    while True:
        s = fm_advance(sim, cx)
        if s < 0:
            return
        fm_apply(sim, cx, ask(sim, fns, weights, entry_of_seat(s, g, np_, rotate)))


@njit(cache=True, inline="always")
def add_wins(sc, tb, np_, acc, acc2, lower):
    """Add each seat's win share of the finished playout (``lower``: the lowest score wins, read negated)."""
    if lower:
        for p in range(np_):
            sc[p] = -sc[p]
    for p in range(np_):
        w = seat_value(sc, tb, np_, p, 0.0, False)
        acc[p] += w
        acc2[p] += w * w


@njit(cache=True, inline="always")
def _playout_win(st, sim, cx, fns, weights, g, rotate, base, k, sc, tb, brk, acc, acc2, lower):
    """Playout ``k`` (stream ``(base, k)``) from ``st`` in ``sim``: each seat's win share added to ``acc``/``acc2``."""
    r = st.rec[0]
    q = sim.rec[0]
    np_ = r.ctl[C_NP]
    fm_copy(sim, st)
    rng_init(q.rng, base, k)
    if r.ctl[C_OVER] == 0:  # a pending decision
        fm_redraw(sim, cx, q.rng)
        fm_apply(sim, cx, ask(sim, fns, weights, entry_of_seat(r.ctl[C_SEAT], g, np_, rotate)))
    playout_lineup(sim, cx, fns, weights, g, np_, rotate)
    fm_result(sim, cx, sc, tb, brk)
    add_wins(sc, tb, np_, acc, acc2, lower)


@njit(cache=True, inline="always")
def _largest_se(acc, acc2, np_, k):
    """The largest standard error of the seats' mean win shares after ``k`` playouts (sums ``acc``/``acc2``)."""
    worst = 0.0
    for p in range(np_):
        m = acc[p] / k
        v = max(acc2[p] / k - m * m, 0.0)
        worst = max(worst, np.sqrt(v / max(k - 1, 1)))
    return worst


@njit(cache=True, _nrt=False)
def win_probability(st, scratch, cx, fns, weights, g, rotate, base, k_play, acc, acc2, lower=False, se_target=0.0,
                    k_cap=0):  # fmt: skip
    """Each seat's mean win share over the playouts from ``st`` (at a decision, or over), played in ``scratch`` (a
    :class:`~meeplab.sim.core.scratch.SearchScratch`): ``acc[p]`` = the mean, ``acc2[p]`` = its standard error;
    returns the playouts played. ``k_play`` playouts first; then, while some seat's standard error is above
    ``se_target`` (0: never), 8 more at a time up to ``k_cap`` in all. The seat to move decides first by its own
    bot; playout ``k`` draws from the stream ``(base, k)``, so any number of them is reproducible."""
    sim, sc, tb, brk = scratch.sim, scratch.sc, scratch.tb, scratch.brk
    np_ = st.rec[0].ctl[C_NP]
    for p in range(np_):
        acc[p] = 0.0
        acc2[p] = 0.0
    for k in range(k_play):
        _playout_win(st, sim, cx, fns, weights, g, rotate, base, k, sc, tb, brk, acc, acc2, lower)
    k = k_play
    if st.rec[0].ctl[C_OVER] == 0:  # over: the result, exact
        while se_target > 0.0 and k < k_cap and _largest_se(acc, acc2, np_, k) > se_target:
            for _ in range(min(8, k_cap - k)):
                _playout_win(st, sim, cx, fns, weights, g, rotate, base, k, sc, tb, brk, acc, acc2, lower)
                k += 1
    for p in range(np_):
        m = acc[p] / k
        v = acc2[p] / k - m * m
        acc[p] = m
        acc2[p] = np.sqrt(max(v, 0.0) / max(k - 1, 1))
    return k


@njit(cache=True, _nrt=False)
def kingmaking(
    st, scratch, cx, fns, weights, efns, eweights, g, rotate, base, k_play, acc, acc2, maxc, lead, lower, fav, margin
):  # fmt: skip
    """1 if candidates of the seat to move make different other seats the clear favourite (see the module doc),
    else 0. The seat's own bot (``fns``/``weights``) names its pick; candidate ``c`` is played out ``k_play`` times
    by the evaluator (``efns``/``eweights``) on the streams ``(base, k)`` (common random numbers), in ``scratch``.
    Per candidate probed, in order: ``fav[c]`` the other seat with the most wins and ``margin[c]`` its lead over the
    next other seat (a share of the playouts); candidates not probed (the search stops at the second favourite)
    keep ``fav`` -1."""
    sim, sc, tb, brk, cand = scratch.sim, scratch.sc, scratch.tb, scratch.brk, scratch.cand
    r = st.rec[0]
    q = sim.rec[0]
    np_ = r.ctl[C_NP]
    seat = r.ctl[C_SEAT]
    n = r.ctl[C_N]
    e = entry_of_seat(seat, g, np_, rotate)
    rng_init(q.rng, base, k_play)
    first = fns[e](r.ctl[C_KIND], r.pub, r.moves, n, r.feats, weights[e], q.rng)
    if first < 0 or first >= n:
        first = 0
    nc = select_candidates(r.feats, n, first, maxc, cand, scratch.used)
    for ci in range(fav.shape[0]):
        fav[ci] = -1
        margin[ci] = 0.0
    seen = -1
    for ci in range(nc):
        for p in range(np_):
            acc[p] = 0.0
        for k in range(k_play):
            fm_copy(sim, st)
            rng_init(q.rng, base, k)
            fm_redraw(sim, cx, q.rng)
            fm_apply(sim, cx, cand[ci])
            playout_lineup(sim, cx, efns, eweights, g, np_, rotate)
            fm_result(sim, cx, sc, tb, brk)
            add_wins(sc, tb, np_, acc, acc2, lower)
        best = -1
        for p in range(np_):
            if p != seat and (best < 0 or acc[p] > acc[best]):
                best = p
        second = 0.0
        for p in range(np_):
            if p != seat and p != best and acc[p] > second:
                second = acc[p]
        if ci < fav.shape[0]:
            fav[ci] = best
            margin[ci] = (acc[best] - second) / k_play
        if (acc[best] - second) / k_play >= lead:
            if seen >= 0 and seen != best:
                return 1
            seen = best
    return 0


@njit(cache=True, nogil=True)
def trajectory_game(
    cx, fns, weights, search, efns, eweights, np_, rotate, seed, g, k_play, points, km_below, km_cand, km_lead, srch,
    ncat, steps, rounds, prob, se, dec, forced, hist, king, king_seat, king_kind, king_fav, king_lead, se_target,
    k_cap, nplay,
):  # fmt: skip
    """Game ``g`` (played by the lineup ``fns``/``weights``/``search``; its playouts by ``efns``/``eweights``): its
    decision counts (``dec``/``forced`` per seat, ``hist[kind, n]``) and, at ``points`` + 1
    points, the decision index ``steps[j]``, game length so far ``rounds[j]``, each seat's win probability
    ``prob[j, p]`` and standard error ``se[j, p]`` (point ``points`` = the result) and ``king[j]`` (-1 = not a
    kingmaking probe, else 0/1). Returns D, the game's decision points."""
    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 8), dtype=np.int64))
    sc, tb = scratch.sc, scratch.tb
    lower = search[0, S_LOWER] != 0.0  # the game's lowest score wins (every lineup row carries it)
    pa = np.zeros(np_, dtype=np.float64)
    pb = np.zeros(np_, dtype=np.float64)
    r = st.rec[0]
    # pass 1: count
    fm_reset(st, cx, seed, g)
    d = 0
    while True:
        seat = fm_advance(st, cx)
        if seat < 0:
            break
        n = r.ctl[C_N]
        if n > 1:
            dec[seat] += 1
        else:
            forced[seat] += 1
        hist[min(r.ctl[C_KIND], KIND_MAX - 1), min(n, NMAX - 1)] += 1
        d += 1
        fm_apply(st, cx, decide(st, scratch, cx, fns, weights, search, rotate, g, srch))
    # pass 2: replay and estimate at the sample points
    fm_reset(st, cx, seed, g)
    j = 0
    i = 0
    for jj in range(points + 1):
        king[jj] = -1
        steps[jj] = -1
    while True:
        seat = fm_advance(st, cx)
        if seat < 0:
            break
        while j < points and (j * d) // points < i:
            j += 1
        if j < points and (j * d) // points == i:
            base = point_seed(seed, g, i)
            nplay[j] = win_probability(
                st, scratch, cx, efns, eweights, g, rotate, base, k_play, pa, pb, lower, se_target, k_cap
            )
            steps[j] = i
            rounds[j] = r.ctl[C_LENGTH]
            for p in range(np_):
                prob[j, p] = pa[p]
                se[j, p] = pb[p]
            if np_ >= 3 and km_cand != 1 and r.ctl[C_N] > 1 and pa[seat] < km_below:
                king_seat[j] = seat
                king_kind[j] = r.ctl[C_KIND]
                king[j] = kingmaking(
                    st, scratch, cx, fns, weights, efns, eweights, g, rotate, base ^ np.uint64(0x5BD1E995), k_play,
                    pa, pb, km_cand, km_lead, lower, king_fav[j], king_lead[j],
                )  # fmt: skip
            j += 1
        i += 1
        fm_apply(st, cx, decide(st, scratch, cx, fns, weights, search, rotate, g, srch))
    fm_result(st, cx, sc, tb, scratch.brk)
    steps[points] = d
    # read through st, not r: a record view holds no reference, and numba frees st after its last use (r.ctl here
    # read freed memory: Hacienda's 1.1 MB record is unmapped at once under MALLOC_TRIM_THRESHOLD_, as in Dask workers)
    rounds[points] = st.rec[0].ctl[C_LENGTH]
    if lower:
        for p in range(np_):
            sc[p] = -sc[p]
    for p in range(np_):
        prob[points, p] = seat_value(sc, tb, np_, p, 0.0, False)
        se[points, p] = 0.0
    return d


def trajectories(
    cx, lineup, np_: int, ncat: int, seed: int, games, playouts: int, points: int, km_below=0.02, km_cand=6,
    km_lead=0.1, evaluator=None, se_target=0.0, max_playouts=0,
) -> dict:  # fmt: skip
    """Trajectories of the given game indices (see the module doc; ``evaluator``: a lineup of plain bots whose entries
    play the playouts, None: ``lineup``'s own; ``se_target``/``max_playouts``: more playouts at a point until every
    seat's standard error is at most the target, :func:`win_probability`) as numpy arrays: ``steps``/``rounds``
    [G, points+1], ``prob``/``se`` [G, points+1, P], ``dec``/``forced`` [G, P], ``hist`` [G, KIND_MAX, NMAX],
    ``king`` [G, points+1] (-1: no probe, else 0/1) with each probe's ``king_seat``, ``king_kind`` [G, points+1] and
    per candidate probed ``king_fav`` (the favourite other seat, -1: not probed) and ``king_lead`` (its lead)
    [G, points+1, km_cand], ``nplay`` [G, points+1] (the playouts each point took; 0 at the result), ``length`` [G]
    (decision points per game)."""
    games = np.ascontiguousarray(games, dtype=np.int64)  # one compiled signature (a reversed view would be another)
    ng = len(games)
    out = {
        "steps": np.zeros((ng, points + 1), dtype=np.int64),
        "rounds": np.zeros((ng, points + 1), dtype=np.int64),
        "prob": np.zeros((ng, points + 1, np_)),
        "se": np.zeros((ng, points + 1, np_)),
        "dec": np.zeros((ng, np_), dtype=np.int64),
        "forced": np.zeros((ng, np_), dtype=np.int64),
        "hist": np.zeros((ng, KIND_MAX, NMAX), dtype=np.int32),
        "king": np.zeros((ng, points + 1), dtype=np.int64),
        "nplay": np.zeros((ng, points + 1), dtype=np.int64),
        "king_seat": np.full((ng, points + 1), -1, dtype=np.int64),
        "king_kind": np.full((ng, points + 1), -1, dtype=np.int64),
        "king_fav": np.full((ng, points + 1, max(1, int(km_cand))), -1, dtype=np.int64),
        "king_lead": np.zeros((ng, points + 1, max(1, int(km_cand)))),
        "length": np.zeros(ng, dtype=np.int64),
    }
    srch = search_function(cx, lineup, np_, ncat)
    ev = lineup if evaluator is None else evaluator

    def game(i):
        out["length"][i] = trajectory_game(
            cx, lineup.fns, lineup.weights, lineup.search, ev.fns, ev.weights, np_, lineup.rotate, seed, games[i],
            int(playouts),
            int(points), float(km_below), int(km_cand), float(km_lead), srch, int(ncat), out["steps"][i],
            out["rounds"][i], out["prob"][i], out["se"][i], out["dec"][i], out["forced"][i], out["hist"][i],
            out["king"][i], out["king_seat"][i], out["king_kind"][i], out["king_fav"][i], out["king_lead"][i],
            float(se_target), int(max(max_playouts, playouts)), out["nplay"][i],
        )  # fmt: skip

    on_threads(game, range(ng))
    return out
