"""No Thanks! event log as text."""

from meeplab.sim.core.explain import search_lines
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

from .engine import E_PASS, E_TAKE, E_TURN


def format_game(ctx, lineup, seed, index, n_players, log, length, score, brk, explain=False) -> str:
    lines = [f"No Thanks! game {index} (seed {seed}), {n_players} players: {', '.join(lineup.names)}"]
    search = []
    for row in log:
        code, seat, a, b = int(row[0]), int(row[1]), int(row[2]), int(row[3])
        if code in (E_SEARCH, E_SEARCH_CAND):
            search.append(tuple(int(x) for x in row))
            continue
        if search and explain:
            lines += search_lines(search, lambda kind, m0, m1: "take" if m0 == 0 else "no thanks")
        search = []
        if code == E_TURN:
            lines.append(f"  seat {seat + 1} sees card {a} with {b} chip(s)")
        elif code == E_TAKE:
            lines.append(f"    seat {seat + 1} takes {a} and {b} chip(s)")
        elif code == E_PASS:
            lines.append(f"    seat {seat + 1}: no thanks ({b} chip(s) left)")
    lines.append(f"{length} turns. Score (lowest wins): cards + chips (negative)")
    for s in range(n_players):
        lines.append(f"  seat {s + 1}: {score[s]:g} = cards {brk[s, 0]:g} + chips {brk[s, 1]:g}")
    return "\n".join(lines)
