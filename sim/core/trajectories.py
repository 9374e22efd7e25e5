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
def win_shares(sc, tb, np_, lower, w):
    """Each seat's win share ``w[p]`` of a finished playout (``lower``: the lowest score wins, read negated)."""
    if lower:
        for p in range(np_):
            sc[p] = -sc[p]
    for p in range(np_):
        w[p] = seat_value(sc, tb, np_, p, 0.0, False)


@njit(cache=True, inline="always")
def _playout_win(st, sim, cx, fns, weights, g, rotate, base, k, sc, tb, brk, acc, acc2, lower, w):
    """Playout ``k`` (stream ``(base, k)``) from ``st`` in ``sim``: each seat's win share in ``w`` and added to
    ``acc``/``acc2``."""
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
    win_shares(sc, tb, np_, lower, w)
    for p in range(np_):
        acc[p] += w[p]
        acc2[p] += w[p] * w[p]


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
def win_probability(st, scratch, cx, fns, weights, g, rotate, base, k_play, acc, acc2, lower, se_target, k_cap,
                    wrec):  # fmt: skip
    """Each seat's mean win share over the playouts from ``st`` (at a decision, or over), played in ``scratch`` (a
    :class:`~meeplab.sim.core.scratch.SearchScratch`): ``acc[p]`` = the mean, ``acc2[p]`` = its standard error;
    returns the playouts played. ``k_play`` playouts first; then, while some seat's standard error is above
    ``se_target`` (0: never), 8 more at a time up to ``k_cap`` in all. The seat to move decides first by its own
    bot; playout ``k`` draws from the stream ``(base, k)``, so any number of them is reproducible. ``wrec[k, p]``:
    playout ``k``'s win share of seat ``p`` (``wrec`` holds at least ``max(k_play, k_cap)`` rows)."""
    sim, sc, tb, brk = scratch.sim, scratch.sc, scratch.tb, scratch.brk
    np_ = st.rec[0].ctl[C_NP]
    for p in range(np_):
        acc[p] = 0.0
        acc2[p] = 0.0
    for k in range(k_play):
        _playout_win(st, sim, cx, fns, weights, g, rotate, base, k, sc, tb, brk, acc, acc2, lower, wrec[k])
    k = k_play
    if st.rec[0].ctl[C_OVER] == 0:  # over: the result, exact
        while se_target > 0.0 and k < k_cap and _largest_se(acc, acc2, np_, k) > se_target:
            for _ in range(min(8, k_cap - k)):
                _playout_win(st, sim, cx, fns, weights, g, rotate, base, k, sc, tb, brk, acc, acc2, lower, wrec[k])
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


@njit(cache=True, inline="always")
def wilson_upper(k, n, z):
    """The upper end of the Wilson interval of ``k`` successes (a sum of win shares) in ``n`` trials at normal
    quantile ``z`` (``analysis.quality.wilson_upper`` computes the same, operation by operation)."""
    if n <= 0:
        return 1.0
    p = k / n
    z2 = z * z
    return (p + z2 / (2.0 * n) + z * np.sqrt(max(p * (1.0 - p) / n + z2 / (4.0 * n * n), 0.0))) / (1.0 + z2 / n)


@njit(cache=True, inline="always")
def lead_bound(dsum, dsq, n, np_, seat, fav, z, out, i):
    """Of the other seats ``x`` (not ``seat``, not ``fav``): the one whose paired difference ``w[fav] - w[x]`` over
    ``n`` playouts (sums ``dsum[x]``, ``dsq[x]``) has the lowest lower bound (mean - ``z`` x standard error); its mean
    in ``out[0, i]`` and standard error in ``out[1, i]``. Returns whether every bound is above 0."""
    best = 1e300
    ok = True
    for x in range(np_):
        if x == seat or x == fav:
            continue
        m = dsum[x] / n
        s = np.sqrt(max(dsq[x] / n - m * m, 0.0) / max(n - 1, 1))
        if m - z * s < best:
            best = m - z * s
            out[0, i] = m
            out[1, i] = s
        if not m - z * s > 0.0:
            ok = False
    return ok


@njit(cache=True, _nrt=False)
def confirm_kingmaking(
    st, scratch, cx, efns, eweights, g, rotate, base_pt, n_pt, wsum_pt, base_km, k_play, k_cap, below, z, lower, moves,
    favs, wrow, dsum, dsq, ncand, stats, seatinfo,
):  # fmt: skip
    """Confirm a flagged kingmaking decision by sequential playouts (``meeplab quality``, docs/quality.md): returns 1
    when both claims are significant, else 0 (unconfirmed at the cap ``k_cap``).

    (i) The seat to move is below ``below`` to win: the upper end of the Wilson interval (``z``) of its win shares over
    the point's own playouts (``n_pt`` played, summing ``wsum_pt``; more on the same streams ``(base_pt, k)``) is
    below ``below``. (ii) Its choice changes the favourite: for each of the two candidates ``moves[i]`` (the first that
    made ``favs[0]`` the clear favourite, and the one that made ``favs[1]`` it), played out on the probe's streams
    ``(base_km, k)`` (its first ``k_play`` playouts again, then more), the favourite's paired lead over every other
    seat but the one to move has a lower bound (mean - ``z`` x standard error) above 0. Each claim is looked at after
    ``k_play``, ``2 k_play``, ``4 k_play``, ... playouts, the last look at ``k_cap``, and stops once it holds (``z`` is
    the caller's: one-sided 5 % over the number of looks). Out: ``ncand[i]`` the playouts of candidate ``i``,
    ``stats[0, i]``/``stats[1, i]`` the mean and standard error of its binding lead, ``seatinfo[0]``/``seatinfo[1]``
    the point's playouts and the seat's win sum. ``dsum``/``dsq``: float[3, P] scratch (row 2: the point's
    playouts)."""
    sim, sc, tb, brk = scratch.sim, scratch.sc, scratch.tb, scratch.brk
    r = st.rec[0]
    q = sim.rec[0]
    np_ = r.ctl[C_NP]
    seat = r.ctl[C_SEAT]
    n_s = n_pt
    w_s = wsum_pt
    ok_s = wilson_upper(w_s, n_s, z) < below
    ok0 = False
    ok1 = False
    for i in range(2):
        ncand[i] = 0
        for p in range(np_):
            dsum[i, p] = 0.0
            dsq[i, p] = 0.0
    look = k_play
    while True:
        look = min(look, k_cap)
        while not ok_s and n_s < look:
            _playout_win(st, sim, cx, efns, eweights, g, rotate, base_pt, n_s, sc, tb, brk, dsum[2], dsq[2], lower,
                         wrow)  # fmt: skip
            w_s += wrow[seat]
            n_s += 1
        if not ok_s:
            ok_s = wilson_upper(w_s, n_s, z) < below
        for i in range(2):
            if (i == 0 and ok0) or (i == 1 and ok1):
                continue
            while ncand[i] < look:
                fm_copy(sim, st)
                rng_init(q.rng, base_km, ncand[i])
                fm_redraw(sim, cx, q.rng)
                fm_apply(sim, cx, moves[i])
                playout_lineup(sim, cx, efns, eweights, g, np_, rotate)
                fm_result(sim, cx, sc, tb, brk)
                win_shares(sc, tb, np_, lower, wrow)
                for x in range(np_):
                    d = wrow[favs[i]] - wrow[x]
                    dsum[i, x] += d
                    dsq[i, x] += d * d
                ncand[i] += 1
            ok = lead_bound(dsum[i], dsq[i], ncand[i], np_, seat, favs[i], z, stats, i)
            if i == 0:
                ok0 = ok
            else:
                ok1 = ok
        if (ok_s and ok0 and ok1) or look >= k_cap:
            break
        look *= 2
    seatinfo[0] = n_s
    seatinfo[1] = w_s
    return 1 if ok_s and ok0 and ok1 else 0


@njit(cache=True, nogil=True)
def trajectory_game(
    cx, fns, weights, search, efns, eweights, np_, rotate, seed, g, k_play, points, km_below, km_cand, km_lead, srch,
    ncat, steps, rounds, prob, se, dec, forced, hist, king, king_seat, king_kind, king_fav, king_lead, se_target,
    k_cap, nplay, prob_half, se_half, nhalf, km_z, king_conf, king_cn, king_cm, king_cse, king_sn, king_sw,
):  # fmt: skip
    """Game ``g`` (played by the lineup ``fns``/``weights``/``search``; its playouts by ``efns``/``eweights``): its
    decision counts (``dec``/``forced`` per seat, ``hist[kind, n]``) and, at ``points`` + 1
    points, the decision index ``steps[j]``, game length so far ``rounds[j]``, each seat's win probability
    ``prob[j, p]`` and standard error ``se[j, p]`` (point ``points`` = the result) and ``king[j]`` (-1 = not a
    kingmaking probe, else 0/1). Per point also the estimate from the first half of its playouts (``prob_half``,
    ``se_half``, ``nhalf`` playouts: the second budget of the two-budget check) and, at a flagged kingmaking decision,
    its confirmation (:func:`confirm_kingmaking` at quantile ``km_z``): ``king_conf[j]`` 1/0 (-1: not flagged),
    ``king_sn[j]``/``king_sw[j]`` the point's playouts and the seat's win sum, and per candidate tested
    ``king_cn``/``king_cm``/``king_cse`` [j, c] (playouts, mean and standard error of its favourite's lead).
    Returns D, the game's decision points."""
    st, scratch = new_player(cx, np_, ncat, np.zeros((0, 8), dtype=np.int64))
    sc, tb = scratch.sc, scratch.tb
    lower = search[0, S_LOWER] != 0.0  # the game's lowest score wins (every lineup row carries it)
    pa = np.zeros(np_, dtype=np.float64)
    pb = np.zeros(np_, dtype=np.float64)
    wrec = np.zeros((max(k_cap, k_play), np_), dtype=np.float64)  # each playout's win shares at the point
    wrow = np.zeros(np_, dtype=np.float64)
    dsum = np.zeros((3, np_), dtype=np.float64)
    dsq = np.zeros((3, np_), dtype=np.float64)
    moves = np.zeros(2, dtype=np.int64)
    favs = np.zeros(2, dtype=np.int64)
    ncand = np.zeros(2, dtype=np.int64)
    stats = np.zeros((2, 2), dtype=np.float64)
    seatinfo = np.zeros(2, dtype=np.float64)
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
            n_pt = win_probability(
                st, scratch, cx, efns, eweights, g, rotate, base, k_play, pa, pb, lower, se_target, k_cap, wrec
            )
            nplay[j] = n_pt
            steps[j] = i
            rounds[j] = r.ctl[C_LENGTH]
            for p in range(np_):
                prob[j, p] = pa[p]
                se[j, p] = pb[p]
            h = n_pt // 2  # the second budget: the point's first half of its playouts (same streams)
            nhalf[j] = h
            for p in range(np_):
                s1 = 0.0
                s2 = 0.0
                for k in range(h):
                    s1 += wrec[k, p]
                    s2 += wrec[k, p] * wrec[k, p]
                m = s1 / max(h, 1)
                prob_half[j, p] = m
                se_half[j, p] = np.sqrt(max(s2 / max(h, 1) - m * m, 0.0) / max(h - 1, 1))
            if np_ >= 3 and km_cand != 1 and r.ctl[C_N] > 1 and pa[seat] < km_below:
                king_seat[j] = seat
                king_kind[j] = r.ctl[C_KIND]
                wsum = 0.0
                for k in range(n_pt):
                    wsum += wrec[k, seat]
                king_sn[j] = n_pt
                king_sw[j] = wsum
                bkm = base ^ np.uint64(0x5BD1E995)
                king[j] = kingmaking(
                    st, scratch, cx, fns, weights, efns, eweights, g, rotate, bkm, k_play, pa, pb, km_cand, km_lead,
                    lower, king_fav[j], king_lead[j],
                )  # fmt: skip
                if king[j] == 1:  # flagged: the first clear favourite's candidate and the one that changed it
                    c1 = -1
                    c2 = -1
                    for c in range(king_fav.shape[1]):
                        if king_fav[j, c] >= 0 and king_lead[j, c] >= km_lead:
                            if c1 < 0:
                                c1 = c
                            elif king_fav[j, c] != king_fav[j, c1]:
                                c2 = c
                                break
                    king_conf[j] = 0
                    if c1 >= 0 and c2 >= 0:  # (both always are: the probe stops at the second favourite)
                        moves[0] = scratch.cand[c1]
                        moves[1] = scratch.cand[c2]
                        favs[0] = king_fav[j, c1]
                        favs[1] = king_fav[j, c2]
                        king_conf[j] = confirm_kingmaking(
                            st, scratch, cx, efns, eweights, g, rotate, base, n_pt, wsum, bkm, k_play,
                            max(k_cap, k_play), km_below, km_z, lower, moves, favs, wrow, dsum, dsq, ncand, stats,
                            seatinfo,
                        )  # fmt: skip
                        king_sn[j] = int(seatinfo[0])
                        king_sw[j] = seatinfo[1]
                        king_cn[j, c1] = ncand[0]
                        king_cm[j, c1] = stats[0, 0]
                        king_cse[j, c1] = stats[1, 0]
                        king_cn[j, c2] = ncand[1]
                        king_cm[j, c2] = stats[0, 1]
                        king_cse[j, c2] = stats[1, 1]
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


def confirm_looks(k_play: int, k_cap: int) -> list[int]:
    """The playout counts at which a kingmaking confirmation looks at its claims: ``k_play``, doubling, the last at
    ``k_cap`` (:func:`confirm_kingmaking`)."""
    k_cap = max(k_cap, k_play)
    looks = [k_play]
    while looks[-1] < k_cap:
        looks.append(min(2 * looks[-1], k_cap))
    return looks


def confirm_z(k_play: int, k_cap: int, alpha: float = 0.05) -> float:
    """The normal quantile of a kingmaking confirmation's one-sided bounds: level ``alpha`` split over its looks
    (Bonferroni: a claim that holds at any look holds at ``alpha`` overall)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(1.0 - alpha / len(confirm_looks(k_play, k_cap)))


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
    (decision points per game); the estimate from each point's first half of its playouts ``prob_half``/``se_half``
    [G, points+1, P] over ``nhalf`` [G, points+1]; the confirmation of each flagged kingmaking decision
    ``king_conf`` [G, points+1] (-1: not flagged, else 0/1), ``king_sn``/``king_sw`` (the point's playouts and the
    seat's win sum), ``king_cn``/``king_cm``/``king_cse`` [G, points+1, km_cand] (per candidate tested: playouts,
    mean and standard error of its favourite's lead; 0 and NaN for the others) and ``km_z`` (the bounds' quantile,
    :func:`confirm_z`)."""
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
        "prob_half": np.zeros((ng, points + 1, np_)),
        "se_half": np.zeros((ng, points + 1, np_)),
        "nhalf": np.zeros((ng, points + 1), dtype=np.int64),
        "king_conf": np.full((ng, points + 1), -1, dtype=np.int64),
        "king_sn": np.zeros((ng, points + 1), dtype=np.int64),
        "king_sw": np.zeros((ng, points + 1)),
        "king_cn": np.zeros((ng, points + 1, max(1, int(km_cand))), dtype=np.int64),
        "king_cm": np.full((ng, points + 1, max(1, int(km_cand))), np.nan),
        "king_cse": np.full((ng, points + 1, max(1, int(km_cand))), np.nan),
    }
    k_cap = int(max(max_playouts, playouts))
    km_z = confirm_z(int(playouts), k_cap)
    out["km_z"] = km_z
    srch = search_function(cx, lineup, np_, ncat)
    ev = lineup if evaluator is None else evaluator

    def game(i):
        out["length"][i] = trajectory_game(
            cx, lineup.fns, lineup.weights, lineup.search, ev.fns, ev.weights, np_, lineup.rotate, seed, games[i],
            int(playouts),
            int(points), float(km_below), int(km_cand), float(km_lead), srch, int(ncat), out["steps"][i],
            out["rounds"][i], out["prob"][i], out["se"][i], out["dec"][i], out["forced"][i], out["hist"][i],
            out["king"][i], out["king_seat"][i], out["king_kind"][i], out["king_fav"][i], out["king_lead"][i],
            float(se_target), k_cap, out["nplay"][i], out["prob_half"][i], out["se_half"][i], out["nhalf"][i],
            km_z, out["king_conf"][i], out["king_cn"][i], out["king_cm"][i], out["king_cse"][i], out["king_sn"][i],
            out["king_sw"][i],
        )  # fmt: skip

    on_threads(game, range(ng))
    out["prob_half"][:, -1] = out["prob"][:, -1]  # the result: exact at any budget
    return out
