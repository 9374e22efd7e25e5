"""Helpers every engine uses on its state (``st.rec``, ``st.log``, ``st.nlog``; ``sim/core/forward.py``): post the
pending decision in the common control words and append a row to the kernel's event log."""

from numba import njit

from .events import log_event
from .forward import C_KIND, C_N, C_SEAT


@njit(cache=True, inline="always")
def post_decision(st, seat, kind, n):
    """Post a decision: ``seat`` chooses among ``n`` candidates of ``kind`` (``moves``/``feats`` already filled).
    Returns ``seat``, what ``advance`` returns."""
    r = st.rec[0]
    r.ctl[C_SEAT] = seat
    r.ctl[C_KIND] = kind
    r.ctl[C_N] = n
    return seat


@njit(cache=True, inline="always")
def log_st(st, code, seat, a, b, c, d):
    """Append event row ``[code, seat, a, b, c, d]`` to the state's event log (``events.log_event``), when it keeps
    one (``st.nlog[1]``)."""
    log_event(st.log, st.nlog, st.nlog[1] != 0, code, seat, a, b, c, d)
