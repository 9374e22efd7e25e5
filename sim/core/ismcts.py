"""Information-set Monte Carlo tree search (single-observer ISMCTS; Cowling, Powley & Whitehouse 2012) on the forward
model (``sim.core.forward``): one implementation for every game, compiled per game through the same overloads as
the rollout search (``sim.core.search``).

**The tree.** The searching seat ``s`` owns one tree; a node is a sequence of decisions (whose seat, which kind,
which move) from the decision being searched, over every seat's decisions: the opponents' decisions are nodes of
their own, where the opponent picks by its own value (the single-observer variant: ``s`` sees the opponents' moves
in its determinisations; chance and hidden parts are folded into the determinisation). The root's children are the
candidates searched (the policy's own pick first, then the best others by feature 0, at most ``max_candidates``;
restricted play: only the allowed ones). Below the root a child is keyed by a hash of (seat, kind, move row): the
same move in another determinisation is the same child, and a move legal in only some determinisations has an
**availability count** (how often it could have been chosen) in place of its parent's visits in UCB1.

**An iteration.** The root's child is chosen first (every root candidate is legal in every determinisation): untried
candidates in order (the policy's pick first), then UCB1. Then the state is copied and re-dealt for ``s``
(``fm_determinise``: everything ``s`` has not seen is dealt again) from the stream seeded with ``(base, k)``, ``k``
being how often that candidate was played before: the root's candidates are compared on the same worlds (common random
numbers, as ``rollout``'s are), and ``base`` is the one draw of the game's own stream this search makes, so a search
game is as reproducible as any other, for any thread or worker count. Below the root it descends: at a node the child
with the best ``mean + c * sqrt(ln(availability) / visits) + bias * prior / (visits + 1)`` for the seat deciding there
(``prior``: the move's feature 0, the engine's immediate value, scaled to [0, 1] among the candidates: progressive bias,
Chaslot et al. 2008), unless the node may still grow: **progressive widening** lets a node visited ``v`` times offer at
most ``1 + widen * sqrt(v)`` of its moves, and a new child is the playout policy's own move when that is untried (so a
node's first visits follow the policy, as the opponents' moves in a ``rollout`` playout do), else the best by feature 0
when ``bias > 0``, else a random one; adding a child ends the descent. With ``widen = 0`` (the default) a node grows
only when none of its children is legal in this determinisation, by the policy's move there: the tree holds the moves
the policy makes in some determinisation, and each seat chooses among those legal here by its own value. Forced steps,
lone candidates and decision kinds the bot does not search (``kinds``) are played through (the policy decides the
latter). With ``depth = D > 0`` the descent stops at the ``D``-th searched decision from the root (the root's counted)
and the playout starts there: ``depth = 1`` is UCB1 over the root's candidates with policy playouts, a flat search.
The playout policy (a registered bot, every seat) then plays to the end, taking a uniformly random candidate
instead with probability ``epsilon``; with ``cutoff > 0`` it stops after that many decisions and the position is scored
as it stands (the game's scoring of the unfinished game). Every seat's value is computed as in ``rollout`` (win share or
share of the other seats beaten, plus ``margin`` x the score lead; lowest score wins where the game says so) and each
node on the path adds the value of the seat that chose it.

**Sequential halving** (``root = 1``, :class:`Root` ``HALVING``; Karnin, Koren & Somekh 2013, at the root as in
Pepels et al. 2014's H-MCTS) replaces UCB1 at the root: ``ceil(log2 n)`` rounds, each giving every candidate still in
an even share of the budget left, the worse half by mean value dropped after each round; the candidates still in have
equal visits, so each round plays them on the same worlds (common random numbers, as ``rollout``). The decision is the
last one standing (with ``switch``, compared with the policy's pick on the worlds both played). ``root = 2``
(``HALVING_PICK``): the same, but the policy's pick is never dropped before the last round. Below the root nothing
changes.

**The decision** (``root = 0``, ``UCB``) is the root child with the most visits (then the best mean, then the earlier
candidate); with ``switch > 0`` the policy's own pick stands unless that child's mean value beats the pick's by more
than ``switch`` (``rollout``'s switch margin, for games whose noisy playouts should not overturn a good policy on a
small difference).

**Memory.** The tree is allocated once per searched decision, sized from its budget: ``iterations + candidates + 1``
nodes of 5 int64 and 1 float64 (48 bytes), plus per-decision scratch of 4 int64 per candidate row and a hash table
of 2 int64 per slot (the power of two >= 2 x the game's most candidates); 1,000 iterations: about 48 kB. Nothing is
allocated per iteration, and there is no Python in the loop.

**Budget.** ``iterations`` per decision, or with ``per_candidate > 0`` that many per root candidate searched (the same
number of playouts as ``rollout`` with ``playouts = per_candidate`` and the same ``max_candidates``); both are scaled
with the table by ``grow`` as ``rollout``'s playouts are (``sim.core.bots.search_playouts``).

``meeplab replay --explain`` shows the root's candidates by visits with their mean values (events ``E_SEARCH`` /
``E_SEARCH_CAND`` of ``sim.core.search``, the visits packed into the rank field: :func:`sim.core.explain.search_lines`).
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit

from .bots import Tunable, register_search_bot, search_playouts
from .errors import MeeplabError
from .events import log_event
from .forward import (
    C_DECISIONS,
    C_KIND,
    C_N,
    C_NP,
    C_SEAT,
    S_ALGO,
    S_BIAS,
    S_C,
    S_CUTOFF,
    S_DEPTH,
    S_EPS,
    S_KINDS,
    S_LOWER,
    S_MARGIN,
    S_MAXCAND,
    S_PERCAND,
    S_PLAYOUTS,
    S_ROOT,
    S_SWITCH,
    S_TRUE,
    S_VALUE,
    S_WIDEN,
    S_WIDTH,
    Algo,
    Value,
    ask,
    fm_advance,
    fm_apply,
    fm_copy,
    fm_determinise,
    fm_result,
    searched_kind,
)
from .play import register_search, restricted_search_step, restricted_turn, search_step
from .restrict import allowed_list, ask_among, ask_restricted, is_restricted
from .rng import rng_below, rng_float, rng_init, rng_next
from .search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS, seat_value, select_candidates, select_from

EXPLAIN_ROOT = 10  # root candidates logged per decision for --explain (most visited first)
NODE_BYTES = 48  # one tree node: key, first child, next sibling, visits, availability (int64) and value sum (float64)
T_KEY, T_CHILD, T_SIB, T_VISITS, T_AVAIL = 0, 1, 2, 3, 4  # columns of the int64 node table
# the search's own weights (a search bot's WEIGHTS; a TOML variant may set any of them)
ISMCTS_WEIGHTS = {
    "iterations": 256.0,
    "per_candidate": 0.0,
    "c": 0.7,
    "bias": 0.0,
    "cutoff": 0.0,
    "epsilon": 0.0,
    "widen": 0.0,
    "switch": 0.0,
    "margin": 0.0,
    "value": 0.0,
    "max_candidates": 0.0,
    "kinds": 0.0,
    "grow": 0.0,
    "root": 0.0,
    "depth": 0.0,
}


class Root(IntEnum):
    """The root's schedule (weight ``root``, ``Lineup.search[entry, S_ROOT]``; see the module doc)."""

    UCB = 0  # UCB1
    HALVING = 1  # sequential halving on paired worlds
    HALVING_PICK = 2  # the same, the policy's pick kept to the last round (dropped only by the final comparison)


def tree_nodes(iterations: int, candidates: int) -> int:
    """Nodes the tree of one search holds: one per iteration (each adds at most one), the root and its children."""
    return int(iterations) + int(candidates) + 1


def tree_bytes(iterations: int, candidates: int) -> int:
    """Bytes of the tree of one search (:data:`NODE_BYTES` per node)."""
    return NODE_BYTES * tree_nodes(iterations, candidates)


def ismcts_row(spec, n_players: int) -> np.ndarray:
    """The engine's search configuration (``sim.core.forward`` S_*) of an ``ismcts`` bot at ``n_players`` seats."""
    w = spec.weights_dict(n_players)
    name = spec.name
    row = np.zeros(S_WIDTH, dtype=np.float64)
    row[S_ALGO] = Algo.ISMCTS
    if w["grow"] < 0:
        raise MeeplabError(f"bot '{name}': grow must be at least 0, got {w['grow']:g}")
    row[S_PLAYOUTS] = search_playouts(w["iterations"], w["grow"], n_players)
    row[S_PERCAND] = search_playouts(w["per_candidate"], w["grow"], n_players) if w["per_candidate"] > 0 else 0.0
    if row[S_PERCAND] <= 0 and row[S_PLAYOUTS] < 1:
        raise MeeplabError(
            f"bot '{name}': iterations must be at least 1 (or per_candidate > 0), got {w['iterations']:g}"
        )
    if w["c"] < 0:
        raise MeeplabError(f"bot '{name}': c (UCB exploration) must be at least 0, got {w['c']:g}")
    if w["widen"] < 0:
        raise MeeplabError(f"bot '{name}': widen must be at least 0, got {w['widen']:g}")
    if w["bias"] < 0:
        raise MeeplabError(f"bot '{name}': bias must be at least 0, got {w['bias']:g}")
    if not 0.0 <= w["epsilon"] <= 1.0:
        raise MeeplabError(f"bot '{name}': epsilon must be between 0 and 1, got {w['epsilon']:g}")
    if w["cutoff"] < 0 or w["cutoff"] != int(w["cutoff"]) or w["cutoff"] >= 2**31:
        raise MeeplabError(f"bot '{name}': cutoff must be a whole number of decisions (0 = none), got {w['cutoff']:g}")
    if w["depth"] < 0 or w["depth"] != int(w["depth"]) or w["depth"] >= 2**31:
        raise MeeplabError(
            f"bot '{name}': depth must be a whole number of searched decisions (0 = no cap), got {w['depth']:g}"
        )
    if w["root"] not in list(Root):
        raise MeeplabError(
            f"bot '{name}': root must be {Root.UCB:d} = {Root.UCB.name} (UCB1), {Root.HALVING:d} = {Root.HALVING.name} "
            f"(sequential halving) or {Root.HALVING_PICK:d} = {Root.HALVING_PICK.name} (sequential halving keeping the "
            f"policy's pick), got {w['root']:g}"
        )
    if w["value"] not in list(Value):
        raise MeeplabError(
            f"bot '{name}': value must be {Value.WIN:d} = {Value.WIN.name} (win share) or {Value.RANK:d} = "
            f"{Value.RANK.name} (rank share), got {w['value']:g}"
        )
    kinds = w["kinds"]
    if kinds < 0 or kinds != int(kinds) or kinds >= 2**52:
        raise MeeplabError(f"bot '{name}': kinds must be a bit mask of decision kinds (0 = all), got {kinds:g}")
    if w["max_candidates"] < 0:
        raise MeeplabError(f"bot '{name}': max_candidates must be at least 0 (0 = all), got {w['max_candidates']:g}")
    row[S_C] = w["c"]
    row[S_BIAS] = w["bias"]
    row[S_CUTOFF] = w["cutoff"]
    row[S_ROOT] = w["root"]
    row[S_DEPTH] = w["depth"]
    row[S_EPS] = w["epsilon"]
    row[S_WIDEN] = w["widen"]
    if w["switch"] < 0:
        raise MeeplabError(f"bot '{name}': switch must be at least 0, got {w['switch']:g}")
    row[S_SWITCH] = w["switch"]
    row[S_MARGIN] = w["margin"]
    row[S_VALUE] = w["value"]
    row[S_MAXCAND] = w["max_candidates"]
    row[S_KINDS] = kinds
    return row


# -- the search ----------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def move_key(seat, kind, moves, i):
    """A 64-bit key of candidate row ``i`` of a decision of ``seat`` and ``kind``: the same move in another
    determinisation gets the same key (splitmix64 finaliser over the row)."""
    h = np.uint64(seat + 1) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(kind + 7) * np.uint64(0xBF58476D1CE4E5B9)
    for w in range(moves.shape[1]):
        h ^= np.uint64(moves[i, w]) + np.uint64(0x94D049BB133111EB) + (h << np.uint64(6)) + (h >> np.uint64(2))
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return np.int64(h >> np.uint64(1))


@njit(cache=True, inline="always")
def values_of(scratch, cx, cfg, out):
    """Every seat's value of the (finished or cut-off) playout ``scratch.sim`` into ``out``."""
    sc, tb = scratch.sc, scratch.tb
    np_ = scratch.sim.rec[0].ctl[C_NP]
    fm_result(scratch.sim, cx, sc, tb, scratch.brk)
    if cfg[S_LOWER] != 0.0:  # lowest score wins: the value reads the negated scores (the tie-break stays higher-wins)
        for p in range(np_):
            sc[p] = -sc[p]
    rank = int(cfg[S_VALUE]) == Value.RANK
    for p in range(np_):
        out[p] = seat_value(sc, tb, np_, p, cfg[S_MARGIN], rank)


@njit(cache=True, inline="always")
def policy_move(sim, cx, fns, weights, entry, cfg, seat, restricted, pick, eps):
    """The playout policy's move at the pending decision of ``sim`` (a uniformly random candidate with probability
    ``eps``; the searching seat keeps its restriction)."""
    q = sim.rec[0]
    n = q.ctl[C_N]
    if n <= 1:
        return 0
    s = q.ctl[C_SEAT]
    if eps > 0.0 and rng_float(q.rng) < eps:
        if restricted and s == seat:
            k = allowed_list(sim, cx, cfg, pick)
            return pick[rng_below(q.rng, k)]
        return rng_below(q.rng, n)
    if restricted and s == seat:
        return ask_restricted(sim, cx, fns, weights, entry, cfg, pick)
    return ask(sim, fns, weights, entry)


@njit(cache=True, inline="always")
def playout_from(sim, cx, fns, weights, entry, cfg, seat, restricted, pick):
    """Play ``sim`` to its end (or ``cutoff`` decisions with more than one candidate) with the policy."""
    q = sim.rec[0]
    eps = cfg[S_EPS]
    cutoff = int(cfg[S_CUTOFF])
    d = 0
    while fm_advance(sim, cx) >= 0:
        if q.ctl[C_N] > 1:
            if cutoff > 0 and d >= cutoff:
                return
            d += 1
        fm_apply(sim, cx, policy_move(sim, cx, fns, weights, entry, cfg, seat, restricted, pick, eps))


@njit(cache=True, inline="always")
def ismcts_choose(st, scratch, cx, fns, weights, cfg, entry, pick, k, restricted):
    """The ISMCTS choice for the pending decision of ``st`` (see the module doc), in ``scratch`` (a
    :class:`~meeplab.sim.core.scratch.SearchScratch` of the same game; the tree is the search's own);
    ``fns[entry]``/``weights[entry]``: the playout policy; with ``restricted``, the ``k`` allowed candidates are in
    ``pick`` (the entry plays under a restriction, ``sim.core.restrict``)."""
    sim, cand, used = scratch.sim, scratch.cand, scratch.used
    r = st.rec[0]
    q = sim.rec[0]
    n = r.ctl[C_N]
    seat = r.ctl[C_SEAT]
    kind = r.ctl[C_KIND]
    np_ = r.ctl[C_NP]
    m = r.moves.shape[0]
    base = rng_next(r.rng)  # the search's one draw from the game's stream
    rng_init(q.rng, base, np.int64(1) << np.int64(40))  # the policy's own pick, on a stream of the search's
    maxc = int(cfg[S_MAXCAND])
    if restricted:
        first = ask_among(st, fns, weights, entry, q.rng, pick, k)
        r.ctl[C_DECISIONS] -= 1  # the search's decision is counted once, by the loop
        for i in range(n):
            used[i] = 1
        for j in range(k):
            used[pick[j]] = 0
        nc = select_from(r.feats, n, k, first, maxc, cand, used)
    else:
        first = fns[entry](kind, r.pub, r.moves, n, r.feats, weights[entry], q.rng)
        if first < 0 or first >= n:
            first = 0
        nc = select_candidates(r.feats, n, first, maxc, cand, used)
    if nc <= 1:
        return cand[0]
    if cfg[S_PERCAND] > 0:
        iters = int(cfg[S_PERCAND]) * nc
    else:
        iters = max(1, int(cfg[S_PLAYOUTS]))
    root_mode = int(cfg[S_ROOT])
    halving = root_mode >= Root.HALVING
    pin = root_mode == Root.HALVING_PICK
    # sequential halving: round r gives each of its alive[r] candidates per[r] visits (the rounds' visits sum to
    # cum[r]); the scratch is tiny (a few int64 per candidate and round)
    nr = 0
    while (1 << nr) < nc:
        nr += 1
    per = np.zeros(nr, dtype=np.int64)
    cum = np.zeros(nr, dtype=np.int64)
    alive = np.zeros(nc, dtype=np.int64)
    rsum = np.zeros((nc, nr), dtype=np.float64)  # each candidate's value sum at the end of each round it was in
    last = np.zeros(nc, dtype=np.int64)  # the last round each candidate was in
    if halving:
        iters = halving_schedule(iters, nc, per, cum)
    cap = iters + nc + 1
    # the tree (allocated once per search, sized from its budget) and the scratch of one descent step
    ti = np.empty((cap, 5), dtype=np.int64)
    tw = np.zeros(cap, dtype=np.float64)
    path = np.empty(cap, dtype=np.int64)
    pseat = np.empty(cap, dtype=np.int64)  # the seat that chose path[d]'s move
    keys = np.empty(m, dtype=np.int64)
    lst = np.empty(m, dtype=np.int64)
    child_of = np.empty(m, dtype=np.int64)
    pick2 = np.empty(m, dtype=np.int64)
    hsize = 1
    while hsize < 2 * m:
        hsize *= 2
    hslot = np.zeros(hsize, dtype=np.int64)
    hstamp = np.zeros(hsize, dtype=np.int64)
    val = np.zeros(np_, dtype=np.float64)
    for t in range(nc + 1):  # the root (node 0) and its children (node 1 + ci = candidate cand[ci])
        ti[t, T_KEY] = t - 1
        ti[t, T_CHILD] = -1
        ti[t, T_SIB] = -1
        ti[t, T_VISITS] = 0
        ti[t, T_AVAIL] = 0
    nn = nc + 1
    c_ucb = cfg[S_C]
    bias = cfg[S_BIAS]
    widen = cfg[S_WIDEN]
    depth = int(cfg[S_DEPTH])
    gen = 0
    na = nc  # sequential halving: the candidates still in (alive[:na]), the round, the position in it
    for j in range(nc):
        alive[j] = j
    rnd = 0
    pos = 0
    for it in range(iters):
        # the root: every candidate is legal in every determinisation (same moves, same features), so its child is
        # chosen first; its k-th visit plays world k (stream (base, k)): the root's candidates are compared on common
        # random numbers, as rollout's are
        ci = -1
        if halving:  # round by round, every candidate still in visited equally often (so on the same worlds)
            if pos == na * per[rnd]:
                na = halve(ti, tw, alive, na, rsum, last, rnd, pin)
                rnd += 1
                pos = 0
            ci = alive[pos % na]
            pos += 1
        elif it < nc:
            ci = it  # untried candidates in order: the policy's pick first, then by feature 0
        else:
            lt = math.log(ti[0, T_VISITS])
            best = -1e300
            for j in range(nc):
                v = ti[1 + j, T_VISITS]
                u = tw[1 + j] / v + c_ucb * math.sqrt(lt / v)
                if u > best + 1e-12:
                    best = u
                    ci = j
        fm_copy(sim, st)
        rng_init(q.rng, base, ti[1 + ci, T_VISITS])
        fm_determinise(sim, cx, seat, q.rng)
        if cfg[S_TRUE] != 0.0:  # the clairvoyant player: the true state again (the re-deal's other effects stay)
            fm_copy(sim, st)
            rng_init(q.rng, base, ti[1 + ci, T_VISITS])
        node = 1 + ci
        plen = 0
        path[plen] = node
        pseat[plen] = seat
        plen += 1
        fm_apply(sim, cx, cand[ci])
        # below the root: descend while every legal move of the node is a child, add one child, then play out
        while True:
            s = fm_advance(sim, cx)
            if s < 0:
                break
            nq = q.ctl[C_N]
            if nq <= 1:
                fm_apply(sim, cx, 0)
                continue
            kq = q.ctl[C_KIND]
            if not searched_kind(cfg, kq):
                fm_apply(sim, cx, policy_move(sim, cx, fns, weights, entry, cfg, seat, restricted, pick2, 0.0))
                continue
            if depth > 0 and plen >= depth:  # the depth cap: the tree ends here, the playout goes on
                break
            if restricted and s == seat:
                kk = allowed_list(sim, cx, cfg, lst)
            else:
                kk = nq
                for j in range(nq):
                    lst[j] = j
            gen += 1
            for j in range(kk):
                key = move_key(s, kq, q.moves, lst[j])
                keys[j] = key
                child_of[j] = -1
                h = key & (hsize - 1)
                while hstamp[h] == gen:
                    h = (h + 1) & (hsize - 1)
                hstamp[h] = gen
                hslot[h] = j
            found = 0
            ch = ti[node, T_CHILD]
            while ch >= 0:
                key = ti[ch, T_KEY]
                h = key & (hsize - 1)
                while hstamp[h] == gen:
                    j = hslot[h]
                    if keys[j] == key:
                        if child_of[j] < 0:
                            child_of[j] = ch
                            ti[ch, T_AVAIL] += 1
                            found += 1
                        break
                    h = (h + 1) & (hsize - 1)
                ch = ti[ch, T_SIB]
            # progressive widening: a node visited v times offers at most 1 + widen x sqrt(v) of its moves
            room = found < kk and found < 1 + widen * math.sqrt(ti[node, T_VISITS])
            if room and nn < cap:  # expand one untried move: the policy's own if untried, else by bias or at random
                jn = -1
                ip = policy_move(sim, cx, fns, weights, entry, cfg, seat, restricted, pick2, 0.0)
                for j in range(kk):
                    if lst[j] == ip and child_of[j] < 0:
                        jn = j
                if jn < 0 and bias > 0.0:
                    for j in range(kk):
                        if child_of[j] < 0 and (jn < 0 or q.feats[lst[j], 0] > q.feats[lst[jn], 0]):
                            jn = j
                elif jn < 0:
                    u = rng_below(q.rng, kk - found)
                    for j in range(kk):
                        if child_of[j] < 0:
                            if u == 0:
                                jn = j
                                break
                            u -= 1
                ti[nn, T_KEY] = keys[jn]
                ti[nn, T_CHILD] = -1
                ti[nn, T_SIB] = ti[node, T_CHILD]
                ti[nn, T_VISITS] = 0
                ti[nn, T_AVAIL] = 1
                tw[nn] = 0.0
                ti[node, T_CHILD] = nn
                path[plen] = nn
                pseat[plen] = s
                plen += 1
                nn += 1
                fm_apply(sim, cx, lst[jn])
                break
            if found == 0:  # the tree is full and none of these moves is in it: play out from here
                break
            fmin = 1e300
            fmax = -1e300
            if bias > 0.0:
                for j in range(kk):
                    f = q.feats[lst[j], 0]
                    fmin = min(fmin, f)
                    fmax = max(fmax, f)
            jb = -1
            best = -1e300
            for j in range(kk):
                ch = child_of[j]
                if ch < 0:
                    continue
                v = ti[ch, T_VISITS]
                u = tw[ch] / v + c_ucb * math.sqrt(math.log(ti[ch, T_AVAIL]) / v)
                if bias > 0.0 and fmax > fmin:
                    u += bias * (q.feats[lst[j], 0] - fmin) / (fmax - fmin) / (v + 1)
                if u > best + 1e-12:
                    best = u
                    jb = j
            node = child_of[jb]
            path[plen] = node
            pseat[plen] = s
            plen += 1
            fm_apply(sim, cx, lst[jb])
        playout_from(sim, cx, fns, weights, entry, cfg, seat, restricted, pick2)
        values_of(scratch, cx, cfg, val)
        ti[0, T_VISITS] += 1
        for d in range(plen):  # each node adds the value of the seat that chose its move
            nd = path[d]
            ti[nd, T_VISITS] += 1
            tw[nd] += val[pseat[d]]
    if halving:
        na = halve(ti, tw, alive, na, rsum, last, rnd, False)  # the last round's best
        best = halving_pick(rsum, cum, last, alive[0], cfg[S_SWITCH])
    else:
        best = most_visited(ti, tw, nc)
        best = keep_policy_pick(ti, tw, best, cfg[S_SWITCH])
    root_values(scratch, ti, tw, nc)
    if st.nlog[1]:
        explain(st, nc, best, iters, ti, tw, cand)
    return cand[best]


@njit(cache=True)
def root_values(scratch, ti, tw, nc):
    """The root candidates' value sums and visits into ``scratch.acc``/``scratch.vis`` (0 past ``nc``), as the
    rollout search leaves its own: what ``meeplab learn`` records as the teacher's value and visit targets."""
    acc, vis = scratch.acc, scratch.vis
    for ci in range(vis.shape[0]):
        if ci < nc:
            acc[ci] = tw[1 + ci]
            vis[ci] = ti[1 + ci, T_VISITS]
        else:
            vis[ci] = 0.0


@njit(cache=True)
def halving_schedule(iters, nc, per, cum):
    """Sequential halving's rounds (Karnin, Koren & Somekh 2013; at the root as in Pepels et al. 2014's H-MCTS) for
    ``nc >= 2`` candidates and a budget of ``iters``: ``ceil(log2 nc)`` rounds, round ``r`` with ``a_r`` candidates
    (``a_0 = nc``, then ``ceil(a_r / 2)``) gives each of them ``per[r] = max(1, left // (a_r x rounds left))`` visits
    (``left``: the budget not yet spent, so what a round's division leaves over goes to the later rounds, and the last
    round spends the rest evenly). ``cum[r]``: the visits of a candidate that is in rounds ``0..r``. Returns the
    iterations spent (the budget, less what an uneven last division leaves; at least one visit per candidate and
    round where the budget is smaller than that)."""
    nr = per.shape[0]
    left = iters
    a = nc
    spent = 0
    for r in range(nr):
        per[r] = max(1, left // (a * (nr - r)))
        left -= per[r] * a
        spent += per[r] * a
        cum[r] = per[r] + (cum[r - 1] if r > 0 else 0)
        a = (a + 1) // 2
    return spent


@njit(cache=True)
def halve(ti, tw, alive, na, rsum, last, rnd, pin):
    """End round ``rnd`` of sequential halving: note each candidate's value sum, keep the better half (``ceil(na /
    2)``; equal visits, so by value sum; equal sums keep the earlier candidate; with ``pin`` the policy's pick,
    candidate 0, is kept whatever its value) in ``alive`` in candidate order, and return how many are kept."""
    for j in range(na):
        c = alive[j]
        rsum[c, rnd] = tw[1 + c]
        last[c] = rnd
    keep = (na + 1) // 2
    start = 1 if pin and alive[0] == 0 else 0  # alive is in candidate order: the pick, if in, is first
    for i in range(start, keep):  # selection sort of the best keep to the front
        b = i
        for j in range(i + 1, na):
            vj = tw[1 + alive[j]]
            vb = tw[1 + alive[b]]
            if vj > vb + 1e-12 or (vj > vb - 1e-12 and alive[j] < alive[b]):
                b = j
        t = alive[i]
        alive[i] = alive[b]
        alive[b] = t
    for i in range(1, keep):  # candidate order (the policy's pick first)
        j = i
        while j > 0 and alive[j - 1] > alive[j]:
            t = alive[j]
            alive[j] = alive[j - 1]
            alive[j - 1] = t
            j -= 1
    return keep


@njit(cache=True)
def halving_pick(rsum, cum, last, best, switch):
    """Sequential halving's decision: the last candidate standing, ``best``; with ``switch > 0`` the policy's pick
    (candidate 0) stands unless ``best``'s mean beats it by more than ``switch`` on the worlds both played (the
    rounds up to the one the pick left in: common random numbers, as ``rollout``'s switch compares)."""
    if switch <= 0.0 or best == 0:
        return best
    r = last[0]
    if rsum[best, r] > rsum[0, r] + switch * cum[r] + 1e-12:
        return best
    return 0


@njit(cache=True)
def most_visited(ti, tw, nc):
    """The root child with the most visits (ties: the higher value sum, then the earlier candidate)."""
    best = 0
    for j in range(1, nc):
        vb = ti[1 + best, T_VISITS]
        vj = ti[1 + j, T_VISITS]
        if vj > vb or (vj == vb and tw[1 + j] > tw[1 + best] + 1e-12):
            best = j
    return best


@njit(cache=True)
def keep_policy_pick(ti, tw, best, switch):
    """With ``switch > 0`` the policy's own pick (root candidate 0) stands unless the chosen candidate's mean value
    beats it by more than ``switch`` (rollout's switch margin: noisy playouts should not overturn a good policy on a
    small difference); ``switch = 0``: the most visited candidate, as plain ISMCTS."""
    if switch <= 0.0 or best == 0 or ti[1, T_VISITS] == 0 or ti[1 + best, T_VISITS] == 0:
        return best
    if tw[1 + best] / ti[1 + best, T_VISITS] > tw[1] / ti[1, T_VISITS] + switch:
        return best
    return 0


@njit(cache=True)
def explain(st, nc, best, iters, ti, tw, cand):
    """Log the decision and the root's most visited candidates (visits, mean value x 1e6) for ``--explain``: the
    rollout search's events, with ``-iterations`` in place of the playouts and the visits packed into the rank field
    (``rank + EXPLAIN_VISITS x visits``)."""
    r = st.rec[0]
    on = True
    log_event(st.log, st.nlog, on, E_SEARCH, r.ctl[C_SEAT], r.ctl[C_KIND], nc, cand[best], -iters)
    mw = r.moves.shape[1]
    shown = np.zeros(nc, dtype=np.bool_)
    for rank in range(min(EXPLAIN_ROOT, nc)):
        b = -1
        for j in range(nc):
            if not shown[j] and (
                b < 0
                or ti[1 + j, T_VISITS] > ti[1 + b, T_VISITS]
                or (ti[1 + j, T_VISITS] == ti[1 + b, T_VISITS] and tw[1 + j] > tw[1 + b] + 1e-12)
            ):
                b = j
        shown[b] = True
        c = cand[b]
        v = ti[1 + b, T_VISITS]
        mean = tw[1 + b] / v if v > 0 else 0.0
        m1 = r.moves[c, 1] if mw > 1 else 0
        log_event(
            st.log, st.nlog, on, E_SEARCH_CAND, c, r.moves[c, 0], m1, int(round(mean * 1e6)), rank + EXPLAIN_VISITS * v
        )


def _step(st, scratch, cx, fns, weights, search, e, k):
    """Lineup entry ``e``'s ISMCTS search for the pending decision, in ``scratch`` (the ``srch`` pointer of
    ``sim.core.play``), in a lineup whose search entries play unrestricted: ``ismcts_choose`` is inlined with
    ``restricted`` a constant False, so the restricted player's code is left out of the compile."""
    m = st.rec[0].moves.shape[0]
    return ismcts_choose(st, scratch, cx, fns, weights, search[e], e, scratch.used[m : 2 * m], k, False)


def _step_restricted(st, scratch, cx, fns, weights, search, e, k):
    """As :func:`_step` in a lineup with a restricted entry: with ``k = -1`` (from ``sim.core.play.decide``) the
    restricted entry's turn (``play.restricted_turn``); a restricted ``ismcts`` entry searches its ``k`` allowed
    candidates (in the middle row of ``scratch.used``)."""
    if k < 0:
        k, c = restricted_turn(st, scratch, cx, fns, weights, search, e)
        if c >= 0:
            return c
    m = st.rec[0].moves.shape[0]
    restricted = is_restricted(search[e])
    return ismcts_choose(st, scratch, cx, fns, weights, search[e], e, scratch.used[m : 2 * m], k, restricted)


def _mixed(st, scratch, cx, fns, weights, search, e, k):
    """As :func:`_step` in a lineup that also has ``rollout`` entries (searching with ``sim.core.play.search_step``)."""
    if int(search[e, S_ALGO]) == Algo.ISMCTS:
        return ismcts_step(st, scratch, cx, fns, weights, search, e, k)
    return search_step(st, scratch, cx, fns, weights, search, e, k)


def _mixed_restricted(st, scratch, cx, fns, weights, search, e, k):
    """As :func:`_mixed` in a lineup with a restricted entry (``sim.core.play.restricted_search_step``; each of the two
    steps takes a restricted entry's turn, ``k = -1``, itself)."""
    if int(search[e, S_ALGO]) == Algo.ISMCTS:
        return ismcts_restricted_step(st, scratch, cx, fns, weights, search, e, k)
    return restricted_search_step(st, scratch, cx, fns, weights, search, e, k)


# Compiled per game's state through the forward model's overloads, as sim.core.play and sim.core.search are: reached
# through the function pointer play_game takes (srch), so a run without ismcts bots never compiles it, and a run with
# only ismcts bots compiles no rollout search; the restricted player's search only for a lineup that has one.
ismcts_step = njit(cache=True)(_step)
ismcts_restricted_step = njit(cache=True)(_step_restricted)
mixed_step = njit(cache=True)(_mixed)
mixed_restricted_step = njit(cache=True)(_mixed_restricted)


def _key_by_game() -> None:
    """Key this module's cached signatures by the game folders whose types they take (``sim.core.numba_cache``
    does this for its GENERIC modules; this one is loaded only by the ``ismcts`` bots, so it does it itself)."""
    from numba.core.registry import CPUDispatcher

    from .numba_cache import game_keyed

    for obj in list(globals().values()):
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == __name__:
            game_keyed(obj)


_key_by_game()
register_search(Algo.ISMCTS, ismcts_step, mixed_step, ismcts_restricted_step, mixed_restricted_step)
# the options `meeplab tune` may search: range and step (bias and epsilon start at 0, so their step sets the scale)
ISMCTS_TUNABLE = {
    "c": Tunable(0.0, math.inf, 0.5),
    "bias": Tunable(0.0, math.inf, 0.5),
    "epsilon": Tunable(0.0, 1.0, 0.1),
    "widen": Tunable(0.0, math.inf, 0.5),
    "switch": Tunable(0.0, 1.0, 0.05),
    "margin": Tunable(0.0, 1.0, 0.01),
}
register_search_bot("ismcts", Algo.ISMCTS, ISMCTS_WEIGHTS, ismcts_row, ISMCTS_TUNABLE)
