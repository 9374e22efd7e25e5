"""The fixed-width event log the engines share with their replays: rows [code, seat, a, b, c, d]."""

from numba import njit

LOG_WIDTH = 6


@njit(cache=True, inline="always")
def log_event(log, nlog, on, code, seat, a, b, c, d):
    """Append one event row when logging is on (the batch passes on=False and an empty log)."""
    if on and nlog[0] < log.shape[0]:
        i = nlog[0]
        log[i, 0] = code
        log[i, 1] = seat
        log[i, 2] = a
        log[i, 3] = b
        log[i, 4] = c
        log[i, 5] = d
        nlog[0] = i + 1
