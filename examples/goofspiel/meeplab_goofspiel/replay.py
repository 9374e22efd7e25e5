"""Goofspiel's event log as text: the replay (every bid as laid, face down or not: a replay is read after the game),
and the same lines as one seat may read them during the game (another seat's bid is face down until the reveal)."""

from meeplab.sim.core.explain import search_lines
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

from .engine import E_BID, E_PRIZE, E_REVEAL, E_TAKE


def event_line(row, seat=None, revealed=None) -> str | None:
    """One event row in words, as ``seat`` may read it (None: everything). ``revealed``: rounds whose bids have been
    turned up by the end of the rows read (another seat's bid of a later round is shown face down)."""
    code, who, a, b, c = int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])
    if code == E_PRIZE:
        extra = f" ({b} points at stake with the carried prizes)" if b != a else ""
        return f"round {c + 1}: prize {a} turned face up{extra}"
    if code == E_BID:
        if seat is None or who == seat or (revealed is not None and b < revealed):
            return f"P{who + 1} bids {a} face down"
        return f"P{who + 1} bids face down"
    if code == E_REVEAL:
        return f"P{who + 1} reveals {a}"
    if code == E_TAKE:
        if who >= 0:
            return f"P{who + 1} takes {a} point(s)"
        return f"a tie: nobody takes the prize ({a} point(s) {'carried on' if c else 'discarded'})"
    return None


def rounds_revealed(log) -> int:
    """Rounds whose bids the rows have turned up (one E_TAKE row closes a round)."""
    return sum(1 for row in log if int(row[0]) == E_TAKE)


def format_game(ctx, lineup, seed, index, n_players, log, length, score, brk, explain=False) -> str:
    lines = [f"Goofspiel game {index} (seed {seed}), {n_players} players: {', '.join(lineup.names)}"]
    search = []
    for row in log:
        code = int(row[0])
        if code in (E_SEARCH, E_SEARCH_CAND):
            search.append(tuple(int(x) for x in row))
            continue
        if search and explain:
            lines += search_lines(search, lambda kind, m0, m1: f"bid {m0}")
        search = []
        text = event_line(row)
        if text is not None:
            lines.append(("  " if code == E_PRIZE else "    ") + text)
    lines.append(f"{length} rounds. Score (highest wins): prize points")
    for s in range(n_players):
        lines.append(f"  seat {s + 1}: {score[s]:g}")
    return "\n".join(lines)
