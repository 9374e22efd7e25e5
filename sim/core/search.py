"""Search bots on the forward model (``sim.core.forward``): one implementation for every game.

**rollout** (flat Monte-Carlo with determinisation, the simplest member of the ISMCTS family; Cowling,
Powley & Whitehouse 2012): at a decision of seat ``s`` with candidates ``c_1..c_n``, for each playout
``k = 0..K-1`` the state is copied, re-dealt for ``s`` (everything ``s`` has not seen is shuffled again:
``fm_determinise``), candidate ``c`` applied and the game played to its end by the playout policy (a
registered bot, for every seat). The value of a playout is ``s``'s win share (1, 0 or 1/k for a k-way
shared first place, score tie-break included) plus ``margin`` times its score lead over the best other
seat (a tie-breaker between candidates that win equally often); with ``value = 1`` (``Value.RANK``) the win share
is replaced by the share of the other seats the searching seat finishes ahead of (a denser signal at many players). The
candidate with the best mean is played; equal means keep the earlier candidate, and the policy's own pick is
always first and is kept unless another candidate's mean beats it by more than ``switch``.

Common random numbers: playout ``k`` of every candidate uses the same re-deal and the same random draws
(its stream is seeded from ``(base, k)``), so candidates are compared on the same worlds. ``base`` is one
draw of the game's own stream, so a search is a reproducible part of game ``(seed, i)`` and independent of
thread and worker counts.

Budget: with more than ``maxcand`` candidates, only the policy's pick and the best others by feature 0
(the engine's immediate value) are searched.

Racing (``S_RACE = z > 0``; the racing bandits of Maron & Moore 1994 on common random numbers): the playouts go
round by round, and from round ``S_RACE_FROM`` on a candidate whose paired playout values fall short of the leader's
by more than ``z`` standard errors gets no more; the search ends when one is left. Playouts a clear decision does
not need are not played; the candidates still in the race are compared as without it.
"""

from __future__ import annotations

from numba import njit

from .events import log_event
from .forward import (
    C_DECISIONS,
    C_KIND,
    C_N,
    C_NP,
    C_SEAT,
    S_LOWER,
    S_MARGIN,
    S_MAXCAND,
    S_PLAYOUTS,
    S_RACE,
    S_RACE_FROM,
    S_SWITCH,
    S_TRUE,
    S_VALUE,
    Value,
    ask,
    fm_advance,
    fm_apply,
    fm_copy,
    fm_determinise,
    fm_result,
)
from .restrict import ask_among, ask_restricted
from .rng import rng_init, rng_next
from .scratch import RACE_CAND, RACE_K

# event codes the search writes into a game's log (games keep theirs below 90)
E_SEARCH = 90  # seat, kind, candidates searched, chosen candidate index, playouts per candidate
E_SEARCH_CAND = 91  # candidate index, moves[c, 0], moves[c, 1], mean value x 1e6, rank (0 = best)
EXPLAIN_TOP = 3  # candidates shown per search decision
EXPLAIN_VISITS = 1 << 20  # ismcts (sim.core.ismcts) packs a root candidate's visits into E_SEARCH_CAND's rank field


@njit(cache=True, inline="always")
def seat_value(sc, tb, np_, seat, margin, rank):
    """The value of a finished playout for ``seat``: its win share (ties on score broken by the tie-break, then
    shared), or with ``rank`` its share of the other seats it finishes ahead of (a tie counts half), plus
    ``margin`` x its lead over the best other seat."""
    better = 0
    equal = 1
    best_other = -1e300
    for p in range(np_):
        if p == seat:
            continue
        if sc[p] > best_other:
            best_other = sc[p]
        if sc[p] > sc[seat] or (sc[p] == sc[seat] and tb[p] > tb[seat]):
            better += 1
        elif sc[p] == sc[seat] and tb[p] == tb[seat]:
            equal += 1
    if rank:
        win = (np_ - 1 - better - 0.5 * (equal - 1)) / (np_ - 1)
    else:
        win = 0.0 if better > 0 else 1.0 / equal
    return win + margin * (sc[seat] - best_other)


@njit(cache=True, inline="always")
def select_candidates(feats, n, first, maxc, cand, used):
    """cand[0] = first (the policy's pick), then the rows with the best feature 0 (earlier row on equal
    values) until ``maxc`` (all rows when maxc <= 0 or n <= maxc). Returns how many."""
    for i in range(n):
        used[i] = 0
    return select_from(feats, n, n, first, maxc, cand, used)


@njit(cache=True, inline="always")
def select_from(feats, n, n_free, first, maxc, cand, used):
    """As :func:`select_candidates` among the ``n_free`` rows with ``used[i] == 0`` (the others are not
    candidates: a restricted player's forbidden rows)."""
    used[first] = 1
    cand[0] = first
    k = 1
    if maxc <= 0 or n_free <= maxc:
        for i in range(n):
            if used[i] == 0:
                cand[k] = i
                k += 1
        return k
    while k < maxc:
        b = -1
        for i in range(n):
            if used[i] == 0 and (b < 0 or feats[i, 0] > feats[b, 0]):
                b = i
        used[b] = 1
        cand[k] = b
        k += 1
    return k


@njit(cache=True, inline="always")
def playout(sim, cx, fns, weights, entry):
    """Play ``sim`` to its end with lineup entry ``entry``'s bot for every seat."""
    while fm_advance(sim, cx) >= 0:
        fm_apply(sim, cx, ask(sim, fns, weights, entry))


@njit(cache=True, inline="always")
def playout_restricted(sim, cx, fns, weights, entry, cfg, seat, pick):
    """As :func:`playout`, with seat ``seat`` playing under its entry's restriction (``sim.core.restrict``)."""
    while True:
        s = fm_advance(sim, cx)
        if s < 0:
            return
        if s == seat:
            fm_apply(sim, cx, ask_restricted(sim, cx, fns, weights, entry, cfg, pick))
        else:
            fm_apply(sim, cx, ask(sim, fns, weights, entry))


@njit(cache=True, _nrt=False)
def rollout_choose(st, scratch, cx, fns, weights, cfg, entry):
    """The rollout search's choice for the pending decision of ``st`` (see the module doc), in ``scratch`` (a
    :class:`~meeplab.sim.core.scratch.SearchScratch` of the same game); ``fns[entry]``/``weights[entry]`` are the
    playout policy."""
    r = st.rec[0]
    q = scratch.sim.rec[0]
    n = r.ctl[C_N]
    k_play = max(1, int(cfg[S_PLAYOUTS]))
    base = rng_next(r.rng)  # the search's one draw from the game's stream
    # the policy's own pick, on a stream of the search's (never the game's)
    rng_init(q.rng, base, k_play)
    first = fns[entry](r.ctl[C_KIND], r.pub, r.moves, n, r.feats, weights[entry], q.rng)
    if first < 0 or first >= n:
        first = 0
    nc = select_candidates(r.feats, n, first, int(cfg[S_MAXCAND]), scratch.cand, scratch.used)
    evaluate(st, scratch, cx, fns, weights, cfg, entry, nc, base, k_play, scratch.used, False)
    return pick_best(st, cfg, nc, k_play, scratch)


@njit(cache=True, _nrt=False)
def rollout_among(st, scratch, cx, fns, weights, cfg, entry, pick, k, pick2):
    """:func:`rollout_choose` for a restricted player: only the ``k`` candidates in ``pick`` are searched, and in
    the playouts the searching seat keeps its restriction (``pick2``: scratch for its later decisions)."""
    r = st.rec[0]
    q = scratch.sim.rec[0]
    used = scratch.used
    n = r.ctl[C_N]
    k_play = max(1, int(cfg[S_PLAYOUTS]))
    base = rng_next(r.rng)
    rng_init(q.rng, base, k_play)
    first = ask_among(st, fns, weights, entry, q.rng, pick, k)
    r.ctl[C_DECISIONS] -= 1  # the search's decision is counted once, by the loop
    for i in range(n):
        used[i] = 1
    for j in range(k):
        used[pick[j]] = 0
    nc = select_from(r.feats, n, k, first, int(cfg[S_MAXCAND]), scratch.cand, used)
    evaluate(st, scratch, cx, fns, weights, cfg, entry, nc, base, k_play, pick2, True)
    return pick_best(st, cfg, nc, k_play, scratch)


@njit(cache=True, inline="always")
def evaluate(st, scratch, cx, fns, weights, cfg, entry, nc, base, k_play, pick, restricted):
    """``scratch.acc[ci]`` = the summed playout values of candidate ``scratch.cand[ci]`` and ``scratch.vis[ci]`` their
    count, 0 past ``nc`` (common random numbers: playout k of every candidate starts from the same re-deal and
    stream; ``cfg[S_TRUE]``: from the true state).

    Racing (``cfg[S_RACE]`` > 0 and the values fit ``scratch.vals``): the playouts go round by round (round ``k``:
    playout ``k`` of every candidate still in the race, all on the same re-deal); from round :func:`race_start` on,
    after each round the candidates that :func:`race_losers` finds behind the leader leave the race, and the search
    stops when one is left. A raced candidate's ``vis`` counts its playouts, negated once it is out of the race
    (:func:`race_best` takes the marks off). One loop serves both, so the playout is compiled once."""
    acc, vis, vals, cand = scratch.acc, scratch.vis, scratch.vals, scratch.cand
    racing = races(cfg, nc, k_play)
    for ci in range(nc):
        acc[ci] = 0.0
        vis[ci] = 0.0 if racing else k_play
    for ci in range(nc, vis.shape[0]):
        vis[ci] = 0.0
    start = race_start(k_play, int(cfg[S_RACE_FROM]))
    for k in range(k_play):
        for ci in range(nc):
            if vis[ci] < 0.0:  # out of the race
                continue
            v = playout_value(st, scratch, cx, fns, weights, cfg, entry, cand[ci], base, k, pick, restricted)
            acc[ci] += v
            if racing:
                vals[ci, k] = v
                vis[ci] += 1.0
        # racing: after round k + 1, those behind leave; the search ends when one is left
        if (
            racing
            and start <= k + 1 < k_play
            and race_losers(vals, acc, vis, nc, k + 1, cfg[S_SWITCH], cfg[S_RACE]) == 1
        ):
            break


@njit(cache=True, inline="always")
def playout_value(st, scratch, cx, fns, weights, cfg, entry, c, base, k, pick, restricted):
    """The value for the deciding seat of playout ``k`` after candidate ``c``: the state copied into
    ``scratch.sim``, re-dealt for the seat from stream ``(base, k)``, ``c`` applied, the game played to its end."""
    sim, sc, tb, brk = scratch.sim, scratch.sc, scratch.tb, scratch.brk
    r = st.rec[0]
    q = sim.rec[0]
    seat = r.ctl[C_SEAT]
    np_ = r.ctl[C_NP]
    fm_copy(sim, st)
    rng_init(q.rng, base, k)
    fm_determinise(sim, cx, seat, q.rng)
    if cfg[S_TRUE] != 0.0:  # the clairvoyant player: the true state again (the re-deal's other effects stay)
        fm_copy(sim, st)
        rng_init(q.rng, base, k)
    fm_apply(sim, cx, c)
    if restricted:
        playout_restricted(sim, cx, fns, weights, entry, cfg, seat, pick)
    else:
        playout(sim, cx, fns, weights, entry)
    fm_result(sim, cx, sc, tb, brk)
    if cfg[S_LOWER] != 0.0:  # lowest score wins: the value reads the negated scores (the tie-break stays higher-wins)
        for p in range(np_):
            sc[p] = -sc[p]
    return seat_value(sc, tb, np_, seat, cfg[S_MARGIN], int(cfg[S_VALUE]) == Value.RANK)


@njit(cache=True, inline="always")
def races(cfg, nc, k_play):
    """Whether a search of ``nc`` candidates and ``k_play`` playouts each races (``cfg[S_RACE]`` > 0 and its values
    fit ``scratch.vals``: at most RACE_CAND candidates and RACE_K playouts)."""
    return cfg[S_RACE] > 0.0 and 1 < nc <= RACE_CAND and k_play <= RACE_K


@njit(cache=True, inline="always")
def race_start(k_play, first):
    """The round after which racing starts: ``first`` (at least 2: a spread needs two), or with ``first = 0`` a
    quarter of the playouts, at least 4 (from the second, two equal differences have no spread and end a race at
    once: Schweinebande's and Hacienda's searches lost 2-5 points so, docs/bots-and-search.md)."""
    if first > 0:
        return max(2, first)
    return max(4, (k_play + 3) // 4)


@njit(cache=True, inline="always")
def race_bonus(ci, switch):
    """What a candidate's mean counts with in the race and the pick: the policy's pick (``ci = 0``) keeps its place
    unless beaten by more than ``switch``."""
    return switch if ci == 0 else 0.0


@njit(cache=True, inline="always")
def race_leader(acc, vis, nc, switch):
    """The candidate still in the race (``vis > 0``) with the best mean value (the pick's plus ``switch``); the
    earlier candidate on equal means, as :func:`pick_best` keeps it."""
    lead = -1
    best = 0.0
    for ci in range(nc):
        if vis[ci] <= 0.0:
            continue
        a = acc[ci] / vis[ci] + race_bonus(ci, switch)
        if lead < 0 or a > best + 1e-12:
            lead = ci
            best = a
    return lead


@njit(cache=True, inline="always")
def race_losers(vals, acc, vis, nc, m, switch, z):
    """After ``m`` rounds: every candidate in the race whose paired differences from the leader's playouts (the same
    re-deals) have a mean more than ``z`` standard errors below 0 leaves it (``vis`` negated); how many are left."""
    lead = race_leader(acc, vis, nc, switch)
    left = 0
    for ci in range(nc):
        if vis[ci] <= 0.0:
            continue
        if ci == lead:
            left += 1
            continue
        s1 = 0.0
        s2 = 0.0
        for j in range(m):
            d = vals[lead, j] - vals[ci, j]
            s1 += d
            s2 += d * d
        d_mean = s1 / m + race_bonus(lead, switch) - race_bonus(ci, switch)
        var = max(0.0, (s2 - s1 * s1 / m) / (m - 1))
        if d_mean > 1e-12 and d_mean * d_mean * m > z * z * var:
            vis[ci] = -vis[ci]
        else:
            left += 1
    return left


@njit(cache=True, inline="always")
def pick_best(st, cfg, nc, k_play, scratch):
    """The policy's pick (``scratch.cand[0]``) unless another candidate's mean is better by more than the switch
    margin (racing: the best mean among the candidates still in the race at its end, the pick's plus the switch)."""
    acc, cand = scratch.acc, scratch.cand
    if races(cfg, nc, k_play):
        best = race_best(acc, scratch.vis, nc, cfg[S_SWITCH])
    else:
        best = 0
        need = acc[0] + cfg[S_SWITCH] * k_play + 1e-12
        for ci in range(1, nc):
            if acc[ci] > need and acc[ci] > acc[best] + 1e-12:
                best = ci
    if st.nlog[1]:
        explain(st, nc, best, k_play, acc, cand, scratch.used, scratch.vis)
    return cand[best]


@njit(cache=True, inline="always")
def race_best(acc, vis, nc, switch):
    """A raced search's choice: the leader among the candidates still in the race at its end (:func:`race_leader`);
    then the marks of those out of it are taken off (``vis``: the playouts each got)."""
    best = race_leader(acc, vis, nc, switch)
    for ci in range(nc):
        if vis[ci] < 0.0:
            vis[ci] = -vis[ci]
    return best


@njit(cache=True, _nrt=False)
def explain(st, nc, best, k_play, acc, cand, used, vis):
    """Log the search decision and its best candidates (mean value x 1e6) for ``meeplab replay --explain``."""
    r = st.rec[0]
    on = True
    log_event(st.log, st.nlog, on, E_SEARCH, r.ctl[C_SEAT], r.ctl[C_KIND], nc, cand[best], k_play)
    for i in range(nc):
        used[i] = 0
    for rank in range(min(EXPLAIN_TOP, nc)):
        b = -1
        for i in range(nc):
            if used[i] == 0 and (b < 0 or acc[i] > acc[b] + 1e-12):
                b = i
        used[b] = 1
        c = cand[b]
        mw = r.moves.shape[1]
        m1 = r.moves[c, 1] if mw > 1 else 0
        log_event(st.log, st.nlog, on, E_SEARCH_CAND, c, r.moves[c, 0], m1, int(round(acc[b] / vis[b] * 1e6)), rank)
