"""Schweinebande value estimates behind the bots' features, kept up to date as the board changes.

``potential`` values a hand; phase B keeps per-line sums of each seat's marginal gains (``lines_*``) so a
reveal candidate costs one multiply-add per direction; collect lines are read off 64-bit masks.
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .layout import FACE_DOWN, MAXP, MAXS, NK, NT, SACK, V_HAND, V_TILE


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
def _ctlz(typingctx, x):
    """Leading zero bits of a nonzero uint64."""

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, True))

    return types.uint64(types.uint64), codegen
