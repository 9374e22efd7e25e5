"""Schweinebande scoring: the score breakdown columns, end-of-game groups and the farm total."""

from numba import njit

from meeplab.sim.core.events import log_event as _log

from .layout import E_FINAL, NK, NT, V_FARM, V_HAND

# packed-parameter slots used here (see engine.P_*)
P_FINAL = 11
P_VALUES = 15

# score breakdown columns (GAME.categories order)
C_QUARTETS = 0
C_MIXED = 1
C_PIGBONUS = 2
C_FINAL = 3
NC = 4


@njit(cache=True)
def farm_score(view, pi, seat):
    """Points on a player's farm: the sum of the animals' values."""
    tot = 0.0
    for k in range(NK):
        tot += view[V_FARM + seat * NK + k] * pi[P_VALUES + k]
    return tot


@njit(cache=True)
def final_groups(view, pi, seat, brk, log, nlog, log_on):
    """End of game: mixed groups of ``final_group`` tiles, lowest-valued to the farm.

    Grouping the remaining animals sorted by value, best first, in consecutive runs maximises the sum
    of the groups' minimum values, so no bot decision is needed: every player takes this best grouping.
    Feed sacks do not count as animals.
    """
    size = pi[P_FINAL]
    h0 = V_HAND + seat * NT
    if size <= 0:
        return
    # kinds sorted by value, descending: order[i] = (order >> 4i) & 15 (no array: the engine runs
    # without numba's reference counting, so nothing here may allocate)
    order = 0
    for k in range(NK):
        order |= k << (4 * k)
    for a in range(NK):
        for b in range(a + 1, NK):
            oa = (order >> (4 * a)) & 15
            ob = (order >> (4 * b)) & 15
            if pi[P_VALUES + ob] > pi[P_VALUES + oa]:
                order = (order & ~((15 << (4 * a)) | (15 << (4 * b)))) | (ob << (4 * a)) | (oa << (4 * b))
    in_group = 0
    packed = 0
    for oi in range(NK):
        k = (order >> (4 * oi)) & 15
        while view[h0 + k] > 0:
            total = 0
            for j in range(NK):
                total += view[h0 + j]
            if in_group == 0 and total < size:
                break
            view[h0 + k] -= 1
            in_group += 1
            packed += 1 << (4 * k)
            if in_group == size:
                view[V_FARM + seat * NK + k] += 1
                brk[C_FINAL] += pi[P_VALUES + k]
                _log(log, nlog, log_on, E_FINAL, seat, k, packed, 0, 0)
                in_group = 0
                packed = 0
