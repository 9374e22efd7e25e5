"""Schweinebande engine (numba, nopython).

The phase functions and ``play_game`` are compiled with ``_nrt=False``: they allocate nothing (every
buffer comes from ``play_range``, once per chunk of games), so they need none of numba's atomic
reference counting on their array arguments, which otherwise costs more than a tenth of a game.

One game = ``play_game``; a batch = ``play_batch`` (``prange`` over games). The whole state is the
int64 ``view`` array (offsets in ``layout.py``); face-down tiles, empty spaces and farmers are also kept
as 64-bit masks over the (at most 25) spaces. Every player decision goes to the seat's bot through the
lineup of first-class functions; the engine computes the candidates and their features.
"""
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from sim.core.bots import entry_of_seat
from sim.core.events import log_event as _log
from sim.core.rng import rng_init, shuffle

from .scoring import C_FINAL, C_MIXED, C_PIGBONUS, C_QUARTETS, NC, farm_score, final_groups  # noqa: F401
from .layout import (
    E_COLLECT, E_DISCARD, E_FINAL, E_LEFTOVER, E_MIXED, E_ORDER, E_PASS, E_PAY, E_PIGBONUS, E_PLACE,
    E_QUARTET, E_REVEAL, E_ROUND, E_SACKUSE, E_SCORE, E_SELL, E_SITOUT, E_TURNUP, FACE_DOWN, K_COLLECT,
    K_FARM, K_PLACE, K_REVEAL, K_SACK, K_SELL, LOGW, MAXP, MAXS, NF, NK, NT, SACK, V_FACEDOWN, V_FARM,
    V_FARMER, V_FEED, V_FLEFT, V_HAND, V_LEN, V_NP, V_NROUNDS, V_NSPACES, V_ORDER, V_REVEALED, V_ROUND,
    V_SEAT, V_SUPPLY, V_TILE, V_TURNS,
)

PIG = 4

# packed integer parameters (see params.py / __init__.pack)
P_TILES = 0
P_SACKS = 1
P_ROUNDS = 2
P_FARMERS = 3  # 4 entries: players 2..5
P_QUART = 7
P_MIXED = 8
P_PIGG = 9
P_PIGF = 10
P_FINAL = 11
P_START_FEED = 12
P_SUPPLY = 13
P_FEEDPER = 14
P_VALUES = 15  # 6 entries
P_LEN = 21


MAX_MOVES = 64


@njit(cache=True, inline="always")
def _checked(i, n):
    """A bot's answer, with an out-of-range index falling back to the first candidate.

    The engine calls ``fns[entry](...)`` directly at each decision (skipping the call when only one
    candidate exists) instead of through ``sim.core.bots.ask_bot``: a helper taking the five arrays
    costs a reference-count round trip per array per decision, a fifth of the game's time here."""
    if i < 0 or i >= n:
        return 0
    return i


# ---------------------------------------------------------------------------------------------
# value estimates used as bot features
# ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def potential(h, pi, ptab):
    """Rough worth of a hand (counts of the 6 animals): closable groups now plus progress.

    ``ptab[k, c]`` holds kind k's part for c animals and ``ptab[NK, d]`` the part for d distinct
    kinds (see ``potential_table``), so no division runs in the hot loop."""
    pot = 0.0
    distinct = 0
    top = ptab.shape[1] - 1
    for k in range(NK):
        c = h[k]
        if c > 0:
            distinct += 1
        pot += ptab[k, c if c < top else top]
    return pot + ptab[NK, distinct]


def potential_table(pi_values, quartet, mixed, size=128):
    """The lookup table behind :func:`potential` (built once per run in Python)."""
    tab = np.zeros((NK + 1, size))
    c = np.arange(size)
    for k in range(NK):
        v = pi_values[k]
        tab[k] = v * (c // quartet) + 0.5 * v * (c % quartet) / quartet
    d = np.arange(size)
    tab[NK] = 0.25 * pi_values[NK - 1] * np.minimum(d, mixed) / mixed
    return tab


@njit(cache=True, inline="always")
def hand_potential(view, seat, pi, ptab, tmp):
    for k in range(NK):
        tmp[k] = view[V_HAND + seat * NT + k]
    return potential(tmp, pi, ptab)


@njit(cache=True, inline="always")
def line_counts(view, rays, space, d, counts):
    """Tiles a farmer on ``space`` collects looking in direction ``d`` (face-down ones in counts[7])."""
    for k in range(NT + 1):
        counts[k] = 0
    t = view[V_TILE + space]
    if t >= 0:
        if t == FACE_DOWN:
            counts[NT] += 1
        else:
            counts[t] += 1
    for j in range(rays.shape[2]):
        s = rays[space, d, j]
        if s < 0:
            break
        if view[V_FARMER + s] >= 0:
            break
        t = view[V_TILE + s]
        if t < 0:
            continue
        if t == FACE_DOWN:
            counts[NT] += 1
        else:
            counts[t] += 1


@njit(cache=True, inline="always")
def gain_of(view, seat, pi, ptab, counts, base, tmp, unknown_gain):
    """Potential gain of adding ``counts`` (7 kinds + face-down count) to the seat's hand."""
    for k in range(NK):
        tmp[k] = view[V_HAND + seat * NT + k] + counts[k]
    g = potential(tmp, pi, ptab) - base
    g += counts[SACK] * 1.0 + counts[NT] * unknown_gain
    return g


@njit(cache=True, inline="always")
def seat_marginals(view, np_, pi, ptab, tmp, mgs):
    """mgs[p, k] = potential gain for seat p of one more tile of kind k (a sack counts 1).

    A hand does not change while farmers are placed, so phase B computes this once per round."""
    for p in range(np_):
        for j in range(NK):
            tmp[j] = view[V_HAND + p * NT + j]
        base = potential(tmp, pi, ptab)
        for k in range(NK):
            tmp[k] += 1
            mgs[p, k] = potential(tmp, pi, ptab) - base
            tmp[k] -= 1
        mgs[p, SACK] = 1.0


@njit(cache=True, inline="always")
def unknown_gain(mgs, seat, tiles_left):
    """Expected gain for ``seat`` of one unseen tile, weighted by the kinds still face down."""
    tot = 0
    e = 0.0
    for k in range(NT):
        tot += tiles_left[k]
        e += tiles_left[k] * mgs[seat, k]
    if tot <= 0:
        return 0.0
    return e / tot


# Two directions whose line estimates differ by less than this count as equal (the first one wins),
# so float rounding in how a sum was accumulated never picks the direction.
LINE_TIE = 1e-9

# Phase B keeps, for every line (space s, direction d) = s and its ray up to the first farmer, in row
# x = s * MAXD + d: lreach[x], the ray positions it reaches, and lgain[x, p], each seat p's summed
# marginal gain of its known tiles, with lgain[x, L_UNKF] its count of face-down tiles (its known
# tiles are the rest: every space holds a tile while farmers are placed). rev[y] lists the lines
# through space y (rev[y, 0] = count, then s << 6 | d << 3 | position). A reveal or a farmer only
# touches the lines through its space, so a reveal candidate costs one multiply-add per direction.
MAXD = 8
L_UNKF = MAXP  # lgain column of the face-down count
MAXREV = 1 + MAXD * 8
RAY_DOWN = 63  # flag bit of ray_masks


@njit(cache=True, inline="always")
def lines_index(rays, ns, nd, raylen, rev):
    """raylen[s, d] and the reverse index rev (see above) of a board's rays."""
    for x in range(MAXS):
        rev[x, 0] = 0
    for s in range(ns):
        for d in range(nd):
            n = 0
            for j in range(rays.shape[2]):
                x = rays[s, d, j]
                if x < 0:
                    break
                n += 1
                c = rev[x, 0] + 1
                rev[x, c] = (s << 6) | (d << 3) | j
                rev[x, 0] = c
            raylen[s, d] = n


@njit(cache=True)
def line_scratch(rays, ns, nd):
    """Phase B's scratch: (mgs, raylen, lreach, lgain, rev) for a board's rays."""
    mgs = np.zeros((MAXP, NT), dtype=np.float64)
    raylen = np.zeros((MAXS, MAXD), dtype=np.int64)
    rev = np.zeros((MAXS, MAXREV), dtype=np.int64)
    lreach = np.zeros(MAXS * MAXD, dtype=np.int64)
    lgain = np.zeros((MAXS * MAXD, MAXP + 1), dtype=np.float64)
    lines_index(rays, ns, nd, raylen, rev)
    return mgs, raylen, lreach, lgain, rev


@njit(cache=True)
def ray_masks(rays, ns, nd):
    """rmask[s * MAXD + d]: the spaces of ray (s, d) as bits, plus bit RAY_DOWN when the ray runs to
    lower space indices (every board numbers its spaces so that a ray's indices are monotonic)."""
    rmask = np.zeros(MAXS * MAXD, dtype=np.uint64)
    one = np.uint64(1)
    for s in range(ns):
        for d in range(nd):
            m = np.uint64(0)
            for j in range(rays.shape[2]):
                x = rays[s, d, j]
                if x < 0:
                    break
                m |= one << np.uint64(x)
            if rays[s, d, 0] >= 0 and rays[s, d, 0] < s:
                m |= one << np.uint64(RAY_DOWN)
            rmask[s * MAXD + d] = m
    return rmask


@njit(cache=True, inline="always")
def line_mask(rm, s, farmers):
    """The spaces a farmer on ``s`` collects along the ray ``rm`` (see ray_masks): ``s`` and the ray
    up to the first other farmer."""
    one = np.uint64(1)
    down = rm >> np.uint64(RAY_DOWN)
    rm &= (one << np.uint64(RAY_DOWN)) - one
    bl = rm & farmers
    if bl:
        if down:
            hb = np.uint64(63) - _ctlz(bl)
            rm &= ~((one << (hb + one)) - one)
        else:
            rm &= (bl & (~bl + one)) - one
    return rm | (one << np.uint64(s))


@njit(cache=True, inline="always")
def lines_reset(ns, nd, np_, raylen, lreach, lgain):
    """Phase B starts with every tile face down and no farmer: each line from a space holds the
    space itself and its whole ray, all unknown."""
    for s in range(ns):
        for d in range(nd):
            x = s * MAXD + d
            lreach[x] = raylen[s, d]
            lgain[x, L_UNKF] = 1 + raylen[s, d]
            for p in range(np_):
                lgain[x, p] = 0.0


@njit(cache=True, inline="always")
def lines_revealed(lreach, lgain, rev, space, t, facedown, np_, mgs):
    """Tile ``t`` was turned up on ``space``: every line from a face-down space that reaches it
    has one unknown tile less and one known more."""
    one = np.uint64(1)
    for e in range(1, rev[space, 0] + 1):
        code = rev[space, e]
        x = code >> 3
        if facedown & (one << np.uint64(code >> 6)) and (code & 7) < lreach[x]:
            lgain[x, L_UNKF] -= 1.0
            for p in range(np_):
                lgain[x, p] += mgs[p, t]


@njit(cache=True, inline="always")
def lines_blocked(view, rays, lreach, lgain, rev, space, facedown, np_, mgs):
    """A farmer now stands on ``space``: lines from face-down spaces that reached it end before it
    (recounted from the start of the ray)."""
    one = np.uint64(1)
    for e in range(1, rev[space, 0] + 1):
        code = rev[space, e]
        x = code >> 3
        pos = code & 7
        if facedown & (one << np.uint64(code >> 6)) and pos < lreach[x]:
            s = code >> 6
            d = (code >> 3) & 7
            lreach[x] = pos
            unknown = 1
            for p in range(np_):
                lgain[x, p] = 0.0
            for j in range(pos):
                t = view[V_TILE + rays[s, d, j]]
                if t == FACE_DOWN:
                    unknown += 1
                elif t >= 0:
                    for p in range(np_):
                        lgain[x, p] += mgs[p, t]
            lgain[x, L_UNKF] = unknown


# ---------------------------------------------------------------------------------------------
# phases
# ---------------------------------------------------------------------------------------------
@intrinsic
def _ctpop(typingctx, x):
    """Set bits of a uint64 (one popcnt instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@intrinsic
def _ctlz(typingctx, x):
    """Leading zero bits of a nonzero uint64."""
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, True))
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def _popcount(x):
    return np.int64(_ctpop(np.uint64(x)))


@njit(cache=True, _nrt=False)
def placement_phase(view, hidden, pi, ptab, rays, ns, nd, np_, rnd, first, fns, weights, g, rotate, rng,
                    moves, feats, tmp, tiles_left, facedown, mgs, raylen, lreach, lgain, rev, log, nlog, log_on):
    """Phase B. Returns the turns taken."""
    one = np.uint64(1)
    for s in range(np_):
        view[V_FLEFT + s] = pi[P_FARMERS + np_ - 2]
    next_order = 1
    cur = first
    turns = 0
    clear_orders = rnd > 0
    seat_marginals(view, np_, pi, ptab, tmp, mgs)
    lines_reset(ns, nd, np_, raylen, lreach, lgain)
    while True:
        # players who still have farmers
        active = 0
        for s in range(np_):
            if view[V_FLEFT + s] > 0:
                active += 1
        if active == 0 or facedown == 0:
            break
        if view[V_FLEFT + cur] == 0:
            cur = (cur + 1) % np_
            continue
        turns += 1
        entry = entry_of_seat(cur, g, np_, rotate)
        view[V_SEAT] = cur
        view[V_REVEALED] = -1
        # -- reveal: which face-down tile (the best line from it, by the kept line estimates)
        ug = unknown_gain(mgs, cur, tiles_left)
        n = 0
        for s in range(ns):
            if facedown & (one << np.uint64(s)):
                x0 = s * MAXD
                bd = 0
                best = lgain[x0, cur] + lgain[x0, L_UNKF] * ug
                for d in range(1, nd):
                    gd = lgain[x0 + d, cur] + lgain[x0 + d, L_UNKF] * ug
                    better = gd > best + LINE_TIE
                    best = gd if better else best
                    bd = d if better else bd
                moves[n, 0] = s
                feats[n, 0] = best
                unknown = lgain[x0 + bd, L_UNKF]
                feats[n, 1] = lreach[x0 + bd] + 1 - unknown
                feats[n, 2] = unknown
                feats[n, 3] = 0.0
                feats[n, 4] = 0.0
                feats[n, 5] = 0.0
                feats[n, 6] = 0.0
                feats[n, 7] = 1.0
                n += 1
        i = _checked(fns[entry](K_REVEAL, view, moves, n, feats, weights[entry], rng), n) if n > 1 else 0
        space = moves[i, 0]
        facedown &= ~(one << np.uint64(space))
        t = hidden[space]
        view[V_TILE + space] = t
        tiles_left[t] -= 1
        view[V_FACEDOWN] = _popcount(facedown)
        lines_revealed(lreach, lgain, rev, space, t, facedown, np_, mgs)
        _log(log, nlog, log_on, E_REVEAL, cur, space, t, 0, 0)
        # -- place a farmer on it?
        view[V_REVEALED] = space
        ug = unknown_gain(mgs, cur, tiles_left)
        forced = active == 1 and facedown == 0
        if forced:
            place = True
        else:
            # the best line from the revealed space: its kept line sums (still those of a face-down
            # start) with its own tile now known
            x0 = space * MAXD
            own = mgs[cur, t]
            bd = 0
            best = own + lgain[x0, cur] + (lgain[x0, L_UNKF] - 1.0) * ug
            for d in range(1, nd):
                gd = own + lgain[x0 + d, cur] + (lgain[x0 + d, L_UNKF] - 1.0) * ug
                if gd > best + LINE_TIE:
                    best = gd
                    bd = d
            moves[0, 0] = 0
            moves[1, 0] = 1
            for f in range(NF):
                feats[0, f] = 0.0
                feats[1, f] = 0.0
            # pass: what a typical face-down space is expected to bring later
            feats[0, 0] = ug * 3.0
            feats[0, 3] = 1.0
            feats[1, 0] = best
            unknown = lgain[x0 + bd, L_UNKF] - 1.0
            feats[1, 1] = lreach[x0 + bd] + 1 - unknown
            feats[1, 2] = unknown
            feats[1, 4] = view[V_FLEFT + cur]
            feats[1, 5] = view[V_FACEDOWN]
            feats[1, 6] = active
            feats[1, 7] = 1.0
            place = _checked(fns[entry](K_PLACE, view, moves, 2, feats, weights[entry], rng), 2) == 1
        if place:
            view[V_FARMER + space] = cur
            view[V_FLEFT + cur] -= 1
            lines_blocked(view, rays, lreach, lgain, rev, space, facedown, np_, mgs)
            _log(log, nlog, log_on, E_PLACE, cur, space, 0, 0, 0)
            if view[V_FLEFT + cur] == 0:
                if clear_orders:
                    for s in range(np_):
                        view[V_ORDER + s] = 0
                    clear_orders = False
                view[V_ORDER + cur] = next_order
                _log(log, nlog, log_on, E_ORDER, cur, next_order, 0, 0, 0)
                next_order += 1
        else:
            _log(log, nlog, log_on, E_PASS, cur, space, 0, 0, 0)
        if clear_orders:
            # after the first player's first reveal (and optional placement) the order tiles go back
            for s in range(np_):
                view[V_ORDER + s] = 0
            clear_orders = False
        view[V_REVEALED] = -1
        cur = (cur + 1) % np_
    # farmers that could not be placed sit out; their owners take the next order tiles in turn order
    for k in range(np_):
        s = (cur + k) % np_
        if view[V_FLEFT + s] > 0:
            _log(log, nlog, log_on, E_SITOUT, s, view[V_FLEFT + s], 0, 0, 0)
            view[V_FLEFT + s] = 0
            view[V_ORDER + s] = next_order
            _log(log, nlog, log_on, E_ORDER, s, next_order, 0, 0, 0)
            next_order += 1
    # remaining face-down tiles are turned up
    for s in range(ns):
        if facedown & (one << np.uint64(s)):
            t = hidden[s]
            view[V_TILE + s] = t
            tiles_left[t] -= 1
            _log(log, nlog, log_on, E_TURNUP, -1, s, t, 0, 0)
    view[V_FACEDOWN] = 0
    return turns


@njit(cache=True, _nrt=False)
def collect_phase(view, pi, ptab, rays, rmask, ns, nd, np_, fns, weights, g, rotate, rng, moves, feats, tmp, counts,
                  order, kinds, log, nlog, log_on):
    """Phase C (scratch: order int64[MAXP], kinds uint64[NT + MAXP]). Returns the number of collect turns."""
    one = np.uint64(1)
    # order of play by order tile
    no = 0
    for t in range(1, np_ + 1):
        for s in range(np_):
            if view[V_ORDER + s] == t:
                order[no] = s
                no += 1
    # the board as bit masks: tiles of each kind (kinds[k]), farmers of anyone, farmers of each seat
    # (kinds[NT + seat])
    for k in range(NT + MAXP):
        kinds[k] = 0
    farmers = np.uint64(0)
    for s in range(ns):
        t = view[V_TILE + s]
        if t >= 0:
            kinds[t] |= one << np.uint64(s)
        f = view[V_FARMER + s]
        if f >= 0:
            farmers |= one << np.uint64(s)
            kinds[NT + f] |= one << np.uint64(s)
    rounds_left = np.float64(view[V_NROUNDS] - view[V_ROUND])
    turns = 0
    while True:
        any_left = False
        for oi in range(no):
            seat = order[oi]
            n = 0
            base = hand_potential(view, seat, pi, ptab, tmp)
            mine = kinds[NT + seat]
            while mine:
                s = np.int64(_ctpop((mine & (~mine + one)) - one))
                mine &= mine - one
                for d in range(nd):
                    lm = line_mask(rmask[s * MAXD + d], s, farmers)
                    for k in range(NT):
                        counts[k] = _popcount(lm & kinds[k])
                    counts[NT] = 0
                    moves[n, 0] = s
                    moves[n, 1] = d
                    feats[n, 0] = gain_of(view, seat, pi, ptab, counts, base, tmp, 0.0)
                    val = 0.0
                    nan = 0
                    for k in range(NK):
                        val += counts[k] * pi[P_VALUES + k]
                        nan += counts[k]
                    feats[n, 1] = val
                    feats[n, 2] = nan
                    feats[n, 3] = counts[PIG]
                    feats[n, 4] = counts[SACK]
                    feats[n, 5] = nan * rounds_left
                    feats[n, 6] = 0.0
                    feats[n, 7] = 1.0
                    n += 1
            if n == 0:
                continue
            any_left = True
            turns += 1
            view[V_SEAT] = seat
            e = entry_of_seat(seat, g, np_, rotate)
            i = _checked(fns[e](K_COLLECT, view, moves, n, feats, weights[e], rng), n) if n > 1 else 0
            s0 = moves[i, 0]
            d = moves[i, 1]
            lm = line_mask(rmask[s0 * MAXD + d], s0, farmers)
            for k in range(NT):
                kinds[k] &= ~lm
            farmers &= ~(one << np.uint64(s0))
            kinds[NT + seat] &= ~(one << np.uint64(s0))
            # take the tile under the farmer and the line
            for k in range(NT + 1):
                counts[k] = 0
            view[V_FARMER + s0] = -1
            taken = 0
            t = view[V_TILE + s0]
            if t >= 0:
                counts[t] += 1
                view[V_TILE + s0] = -1
                taken += 1
            for j in range(rays.shape[2]):
                s = rays[s0, d, j]
                if s < 0 or view[V_FARMER + s] >= 0:
                    break
                t = view[V_TILE + s]
                if t >= 0:
                    counts[t] += 1
                    view[V_TILE + s] = -1
                    taken += 1
            packed = 0
            for k in range(NT):
                view[V_HAND + seat * NT + k] += counts[k]
                packed |= min(counts[k], 15) << (4 * k)
            _log(log, nlog, log_on, E_COLLECT, seat, s0, d, taken, packed)
        if not any_left:
            break
    left = 0
    for s in range(ns):
        if view[V_TILE + s] >= 0:
            left += 1
            view[V_TILE + s] = -1
    _log(log, nlog, log_on, E_LEFTOVER, -1, left, 0, 0, 0)
    return turns


@njit(cache=True, inline="always")
def _mixed_farm_kind(mask, pi):
    """Most valuable kind in a mixed group (ties: the higher kind index)."""
    best = -1
    bv = -1
    for k in range(NK):
        if mask & (1 << k):
            v = pi[P_VALUES + k]
            if v >= bv:
                bv = v
                best = k
    return best


@njit(cache=True, _nrt=False)
def farm_phase(view, pi, seat, last_round, entry, fns, weights, rng, moves, feats, brk, log, nlog, log_on):
    """Phase D for one player: close groups until the bot stops (or nothing can be closed)."""
    q = pi[P_QUART]
    m = pi[P_MIXED]
    h0 = V_HAND + seat * NT
    view[V_SEAT] = seat
    while True:
        n = 0
        tiles = 0
        for k in range(NT):
            tiles += view[h0 + k]
        moves[0, 0] = 0
        moves[0, 1] = 0
        for f in range(NF):
            feats[0, f] = 0.0
        feats[0, 3] = 1.0
        feats[0, 5] = tiles
        feats[0, 6] = 1.0 if last_round else 0.0
        n = 1
        for k in range(NK):
            if view[h0 + k] >= q:
                moves[n, 0] = 1
                moves[n, 1] = k
                for f in range(NF):
                    feats[n, f] = 0.0
                v = pi[P_VALUES + k]
                feats[n, 0] = v
                feats[n, 1] = v * (q - 1)
                feats[n, 2] = 1.0 if (k == PIG and not last_round and pi[P_PIGF] > 0) else 0.0
                feats[n, 5] = tiles - q
                feats[n, 6] = 1.0 if last_round else 0.0
                feats[n, 7] = 1.0
                n += 1
        # mixed groups: every set of m different kinds all present
        present = 0
        npresent = 0
        for k in range(NK):
            if view[h0 + k] > 0:
                present |= 1 << k
                npresent += 1
        for mask in range(1, (1 << NK) if npresent >= m else 1):
            if (mask & present) != mask:
                continue
            c = 0
            for k in range(NK):
                if mask & (1 << k):
                    c += 1
            if c != m:
                continue
            kf = _mixed_farm_kind(mask, pi)
            moves[n, 0] = 2
            moves[n, 1] = mask
            for f in range(NF):
                feats[n, f] = 0.0
            feats[n, 0] = pi[P_VALUES + kf]
            lost = 0.0
            pigs = 0
            for k in range(NK):
                if mask & (1 << k) and k != kf:
                    lost += pi[P_VALUES + k]
                if mask & (1 << k) and k == PIG:
                    pigs = 1
            feats[n, 1] = lost
            feats[n, 2] = 1.0 if (pigs and not last_round and pi[P_PIGF] > 0) else 0.0
            feats[n, 4] = 1.0
            feats[n, 5] = tiles - m
            feats[n, 6] = 1.0 if last_round else 0.0
            feats[n, 7] = 1.0
            n += 1
        if last_round and pi[P_PIGF] > 0 and view[h0 + PIG] >= pi[P_PIGG]:
            moves[n, 0] = 3
            moves[n, 1] = PIG
            for f in range(NF):
                feats[n, f] = 0.0
            feats[n, 0] = pi[P_VALUES + PIG] * pi[P_PIGF]
            feats[n, 1] = pi[P_VALUES + PIG] * (pi[P_PIGG] - pi[P_PIGF])
            feats[n, 5] = tiles - pi[P_PIGG]
            feats[n, 6] = 1.0
            feats[n, 7] = 1.0
            n += 1
        if n == 1:
            return
        i = _checked(fns[entry](K_FARM, view, moves, n, feats, weights[entry], rng), n)
        act = moves[i, 0]
        if act == 0:
            return
        if act == 1:
            k = moves[i, 1]
            view[h0 + k] -= q
            view[V_FARM + seat * NK + k] += 1
            brk[C_QUARTETS] += pi[P_VALUES + k]
            _log(log, nlog, log_on, E_QUARTET, seat, k, 0, 0, 0)
        elif act == 2:
            mask = moves[i, 1]
            kf = _mixed_farm_kind(mask, pi)
            for k in range(NK):
                if mask & (1 << k):
                    view[h0 + k] -= 1
            view[V_FARM + seat * NK + kf] += 1
            brk[C_MIXED] += pi[P_VALUES + kf]
            _log(log, nlog, log_on, E_MIXED, seat, mask, kf, 0, 0)
        else:
            view[h0 + PIG] -= pi[P_PIGG]
            view[V_FARM + seat * NK + PIG] += pi[P_PIGF]
            brk[C_PIGBONUS] += pi[P_VALUES + PIG] * pi[P_PIGF]
            _log(log, nlog, log_on, E_PIGBONUS, seat, pi[P_PIGF], 0, 0, 0)


@njit(cache=True, _nrt=False)
def feed_phase(view, pi, seat, entry, fns, weights, rng, moves, feats, log, nlog, log_on):
    """Phase E for one player: feed sack or markers, selling animals while short of feed."""
    h0 = V_HAND + seat * NT
    per = pi[P_FEEDPER]
    view[V_SEAT] = seat
    animals = 0
    for k in range(NK):
        animals += view[h0 + k]
    if animals == 0 or per == 0:
        return
    rounds_left = view[V_NROUNDS] - view[V_ROUND] - 1
    if view[h0 + SACK] > 0:
        moves[0, 0] = 0
        moves[1, 0] = 1
        for f in range(NF):
            feats[0, f] = 0.0
            feats[1, f] = 0.0
        need = animals * per
        feats[1, 0] = min(need, view[V_FEED + seat]) + max(0, need - view[V_FEED + seat]) * 2.0
        feats[1, 1] = need
        feats[1, 2] = rounds_left
        feats[1, 7] = 1.0
        feats[0, 1] = view[V_FEED + seat]
        if _checked(fns[entry](K_SACK, view, moves, 2, feats, weights[entry], rng), 2) == 1:
            view[h0 + SACK] -= 1
            _log(log, nlog, log_on, E_SACKUSE, seat, animals, 0, 0, 0)
            return
    # sell while short
    while view[V_FEED + seat] < animals * per and animals > 0:
        n = 0
        for k in range(NK):
            c = view[h0 + k]
            if c == 0:
                continue
            moves[n, 0] = k
            v = pi[P_VALUES + k]
            for f in range(NF):
                feats[n, f] = 0.0
            feats[n, 0] = -float(v)
            feats[n, 1] = v
            feats[n, 2] = c
            feats[n, 3] = 1.0 if k == PIG else 0.0
            feats[n, 4] = c % pi[P_QUART]
            short = animals * per - view[V_FEED + seat]
            feats[n, 5] = 1.0 if v + per >= short else 0.0  # one sale covers the gap
            feats[n, 6] = 1.0 if c >= pi[P_QUART] else 0.0
            feats[n, 7] = 1.0
            n += 1
        i = _checked(fns[entry](K_SELL, view, moves, n, feats, weights[entry], rng), n) if n > 1 else 0
        k = moves[i, 0]
        v = pi[P_VALUES + k]
        got = v
        if view[V_SUPPLY] >= 0:
            got = min(v, view[V_SUPPLY])
            view[V_SUPPLY] -= got
        view[h0 + k] -= 1
        view[V_FEED + seat] += got
        animals -= 1
        _log(log, nlog, log_on, E_SELL, seat, k, got, 0, 0)
    pay = animals * per
    view[V_FEED + seat] -= pay
    if view[V_SUPPLY] >= 0:
        view[V_SUPPLY] += pay
    _log(log, nlog, log_on, E_PAY, seat, pay, view[V_FEED + seat], 0, 0)


@njit(cache=True)
def play_range(pi_in, ptab_in, rays_in, nd, fns, weights_in, np_, rotate, seed, lo, hi, start, score, tiebreak, brk,
               length, log, log_on):
    """Play games ``start + lo .. start + hi - 1``; their results go to rows lo..hi-1 of score (float[n, P]),
    tiebreak, brk (float[n, P, NC]) and length.

    One call per chunk of a batch (one thread): the read-only inputs are copied and every scratch
    buffer allocated once per chunk, not per game - numba reference-counts arrays with atomic
    operations, and counters shared by both cores would make them fight over one cache line."""
    pi = pi_in.copy()
    ptab = ptab_in.copy()
    rays = rays_in.copy()
    weights = weights_in.copy()
    ns = rays.shape[0]
    gbrk = np.zeros((np_, NC), dtype=np.float64)
    rng = np.zeros(4, dtype=np.uint64)
    nlog = np.zeros(1, dtype=np.int64)
    view = np.zeros(V_LEN, dtype=np.int64)
    hidden = np.zeros(MAXS, dtype=np.int64)  # true kinds of face-down tiles (not in the bots' view)
    moves = np.zeros((MAX_MOVES, 2), dtype=np.int64)
    feats = np.zeros((MAX_MOVES, NF), dtype=np.float64)
    tmp = np.zeros(NK, dtype=np.int64)
    counts = np.zeros(NT + 1, dtype=np.int64)
    tiles_left = np.zeros(NT, dtype=np.int64)
    order = np.zeros(MAXP, dtype=np.int64)
    kinds = np.zeros(NT + MAXP, dtype=np.uint64)
    mgs, raylen, lreach, lgain, rev = line_scratch(rays, ns, nd)
    rmask = ray_masks(rays, ns, nd)
    bag = np.empty(NK * pi[P_TILES] + pi[P_SACKS], dtype=np.int64)
    for i in range(lo, hi):
        length[i] = play_game(pi, ptab, rays, rmask, nd, fns, weights, np_, rotate, start + i, seed, gbrk, rng, nlog,
                              view, hidden, moves, feats, tmp, counts, order, kinds, tiles_left, mgs, raylen, lreach, lgain, rev, bag,
                              log, log_on)
        for s in range(np_):
            score[i, s] = farm_score(view, pi, s)
            tiebreak[i, s] = view[V_FARM + s * NK + PIG]
            for c in range(NC):
                brk[i, s, c] = gbrk[s, c]


@njit(cache=True, _nrt=False)
def play_game(pi, ptab, rays, rmask, nd, fns, weights, np_, rotate, g, seed, brk, rng, nlog, view, hidden, moves,
              feats, tmp, counts, order, kinds, tiles_left, mgs, raylen, lreach, lgain, rev, bag, log, log_on):
    """Play game ``g`` with ``np_`` players on the given scratch buffers; leaves the final state in
    ``view`` and the score breakdown in ``brk``; returns the number of turns."""
    ns = rays.shape[0]
    rng_init(rng, seed, g)
    for s in range(np_):
        for c in range(NC):
            brk[s, c] = 0.0
    for j in range(V_LEN):
        view[j] = 0
    for s in range(MAXS):
        view[V_TILE + s] = -1
        view[V_FARMER + s] = -1
    view[V_NP] = np_
    view[V_NROUNDS] = pi[P_ROUNDS]
    view[V_NSPACES] = ns
    view[V_SUPPLY] = pi[P_SUPPLY] if pi[P_SUPPLY] > 0 else -1
    for s in range(np_):
        view[V_FEED + s] = pi[P_START_FEED]
        if view[V_SUPPLY] >= 0:
            view[V_SUPPLY] = max(0, view[V_SUPPLY] - pi[P_START_FEED])
    # the bag
    ntiles = NK * pi[P_TILES] + pi[P_SACKS]
    i = 0
    for k in range(NK):
        for _ in range(pi[P_TILES]):
            bag[i] = k
            i += 1
    for _ in range(pi[P_SACKS]):
        bag[i] = SACK
        i += 1
    shuffle(bag, ntiles, rng)
    drawn = 0
    first = 0
    turns = 0
    rounds = pi[P_ROUNDS]
    for rnd in range(rounds):
        view[V_ROUND] = rnd
        _log(log, nlog, log_on, E_ROUND, -1, rnd, 0, 0, 0)
        # A. lay out the tiles face down
        facedown = np.uint64(0)
        for k in range(NT):
            tiles_left[k] = 0
        for s in range(ns):
            hidden[s] = bag[drawn]
            tiles_left[bag[drawn]] += 1
            drawn += 1
            view[V_TILE + s] = FACE_DOWN
            facedown |= np.uint64(1) << np.uint64(s)
        view[V_FACEDOWN] = ns
        # B. placing farmers: round 1 the start player, later the holder of order tile 1
        if rnd > 0:
            for s in range(np_):
                if view[V_ORDER + s] == 1:
                    first = s
        turns += placement_phase(view, hidden, pi, ptab, rays, ns, nd, np_, rnd, first, fns, weights, g, rotate, rng,
                                 moves, feats, tmp, tiles_left, facedown, mgs, raylen, lreach, lgain, rev,
                                 log, nlog, log_on)
        # C. collecting
        turns += collect_phase(view, pi, ptab, rays, rmask, ns, nd, np_, fns, weights, g, rotate, rng, moves, feats, tmp,
                               counts, order, kinds, log, nlog, log_on)
        last = rnd == rounds - 1
        # D. farm, then E. feeding, player by player in order-tile order (independent decisions)
        for t in range(1, np_ + 1):
            for s in range(np_):
                if view[V_ORDER + s] == t:
                    e = entry_of_seat(s, g, np_, rotate)
                    farm_phase(view, pi, s, last, e, fns, weights, rng, moves, feats, brk[s], log, nlog, log_on)
        for t in range(1, np_ + 1):
            for s in range(np_):
                if view[V_ORDER + s] == t:
                    e = entry_of_seat(s, g, np_, rotate)
                    feed_phase(view, pi, s, e, fns, weights, rng, moves, feats, log, nlog, log_on)
    # end of game: mixed final groups, then score
    for s in range(np_):
        final_groups(view, pi, s, brk[s], log, nlog, log_on)
        left = 0
        for k in range(NT):
            left += view[V_HAND + s * NT + k]
        _log(log, nlog, log_on, E_DISCARD, s, left, 0, 0, 0)
    for s in range(np_):
        _log(log, nlog, log_on, E_SCORE, s, np.int64(farm_score(view, pi, s)), view[V_FARM + s * NK + PIG], 0, 0)
    view[V_TURNS] = turns
    return turns


CHUNK = 64  # games per play_range call in a batch


@njit(cache=True, parallel=True)
def play_batch(pi, ptab, rays, nd, fns, weights, np_, rotate, seed, start, n_games, score, tiebreak, brk, length):
    dummy = np.zeros((0, LOGW), dtype=np.int64)
    for c in prange((n_games + CHUNK - 1) // CHUNK):
        play_range(pi, ptab, rays, nd, fns, weights, np_, rotate, seed, c * CHUNK, min(n_games, (c + 1) * CHUNK),
                   start, score, tiebreak, brk, length, dummy, False)


@njit(cache=True)
def play_logged(pi, ptab, rays, nd, fns, weights, np_, rotate, g, seed, log):
    """The same game as the batch, with its event log (returns (n events, turns, score, brk))."""
    score = np.zeros((1, np_))
    tiebreak = np.zeros((1, np_))
    brk = np.zeros((1, np_, NC))
    length = np.zeros(1, dtype=np.int64)
    play_range(pi, ptab, rays, nd, fns, weights, np_, rotate, seed, 0, 1, g, score, tiebreak, brk, length, log, True)
    turns = length[0]
    n = 0
    for i in range(log.shape[0]):
        if log[i, 0] == 0:
            break
        n += 1
    return n, turns, score[0], brk[0]
