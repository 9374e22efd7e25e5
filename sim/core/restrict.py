"""Restricted play (Jaffe et al., "Evaluating Competitive Game Balance with Restricted Play", AIIDE 2012).

Each game declares its **option classes** in one place (``sim/<game>/options.py``: the names in
``GameSpec.options`` and a numba ``option_mask(st, cx, i)`` registered with
``sim.core.forward.register_options``). A lineup entry may carry two masks over those classes
(``Lineup.search[entry, S_FORBID]`` and ``[entry, S_ONLY]``):

* **forbid**: at each of its decisions the bot chooses among the candidates of no forbidden class; if every
  candidate is forbidden, the rules force one of them and the bot chooses among all;
* **only**: whenever a candidate of these classes is offered, the bot must choose one of them ("only this class
  where there is a choice"); otherwise it chooses freely (after the forbid filter).

The bot itself is unchanged: it is asked with the allowed rows moved to the front of ``moves``/``feats`` and
``n`` = their number, and its answer is mapped back (the rows are restored before the move is applied, so
engines see the decision as they posted it). A search bot restricts its own candidates and, in its playouts,
the decisions of its own seat; the other seats play out unrestricted.
"""

from __future__ import annotations

from numba import njit

from .forward import C_DECISIONS, C_KIND, C_N, S_FORBID, S_ONLY, ask, fm_option_mask


@njit(cache=True, inline="always")
def is_restricted(cfg) -> bool:
    """True if the entry with search configuration row ``cfg`` plays under a restriction."""
    return cfg[S_FORBID] != 0.0 or cfg[S_ONLY] != 0.0


@njit(cache=True, _nrt=False)
def allowed_list(st, cx, cfg, pick):
    """The candidates of the pending decision the restricted entry may choose, in order, into ``pick``; returns
    how many (``ctl[C_N]`` when the restriction leaves every candidate, or none)."""
    r = st.rec[0]
    n = r.ctl[C_N]
    forbid = int(cfg[S_FORBID])
    only = int(cfg[S_ONLY])
    k = 0
    for i in range(n):  # the forbid filter
        if (fm_option_mask(st, cx, i) & forbid) == 0:
            pick[k] = i
            k += 1
    if k == 0:  # every candidate forbidden: the rules force one of them
        for i in range(n):
            pick[i] = i
        k = n
    if only != 0:  # within what is left, only the required classes where one is offered
        j = 0
        for t in range(k):
            if (fm_option_mask(st, cx, pick[t]) & only) != 0:
                pick[j] = pick[t]
                j += 1
        if j > 0:  # none offered: the forbid filter's list stands (the loop above wrote nothing)
            k = j
    return k


@njit(cache=True, inline="always")
def _swap_rows(r, a, b):
    if a == b:
        return
    for c in range(r.moves.shape[1]):
        t = r.moves[a, c]
        r.moves[a, c] = r.moves[b, c]
        r.moves[b, c] = t
    for c in range(r.feats.shape[1]):
        u = r.feats[a, c]
        r.feats[a, c] = r.feats[b, c]
        r.feats[b, c] = u


@njit(cache=True, _nrt=False)
def ask_among(st, fns, weights, entry, rng, pick, k):
    """Ask entry ``entry``'s bot to choose among the ``k`` candidates listed in ``pick`` (increasing indices):
    they are swapped to the front of ``moves``/``feats``, the bot sees ``n = k``, the rows are swapped back and
    the chosen candidate's original index is returned. ``rng`` is the stream the bot draws from."""
    r = st.rec[0]
    r.ctl[C_DECISIONS] += 1
    for j in range(k):  # pick is increasing, so row pick[j] has not been moved yet
        _swap_rows(r, j, pick[j])
    i = fns[entry](r.ctl[C_KIND], r.pub, r.moves, k, r.feats, weights[entry], rng)
    for j in range(k - 1, -1, -1):
        _swap_rows(r, j, pick[j])
    if i < 0 or i >= k:
        i = 0
    return pick[i]


@njit(cache=True, _nrt=False)
def ask_restricted(st, cx, fns, weights, entry, cfg, pick):
    """The restricted entry's choice for the pending decision of ``st`` (a plain bot, the game's stream)."""
    r = st.rec[0]
    n = r.ctl[C_N]
    if n <= 1:
        return 0
    k = allowed_list(st, cx, cfg, pick)
    if k >= n:
        return ask(st, fns, weights, entry)
    return ask_among(st, fns, weights, entry, r.rng, pick, k)
