"""Readable text log of one Schweinebande game from the engine's event records."""

from .layout import (
    E_COLLECT,
    E_DISCARD,
    E_FINAL,
    E_LEFTOVER,
    E_MIXED,
    E_ORDER,
    E_PASS,
    E_PAY,
    E_PIGBONUS,
    E_PLACE,
    E_QUARTET,
    E_REVEAL,
    E_ROUND,
    E_SACKUSE,
    E_SCORE,
    E_SELL,
    E_SITOUT,
    E_TURNUP,
    K_COLLECT,
    K_FARM,
    K_PLACE,
    K_REVEAL,
    K_SACK,
    NT,
)
from .params import ANIMALS

KIND_NAMES = ANIMALS + ("feed sack",)


def _kinds(packed: int) -> str:
    parts = []
    for k in range(NT):
        c = (packed >> (4 * k)) & 15
        if c:
            parts.append(f"{c} {KIND_NAMES[k]}")
    return ", ".join(parts) if parts else "nothing"


def _mask(mask: int) -> str:
    return "+".join(ANIMALS[k] for k in range(6) if mask & (1 << k))


def _move(kind, m0, m1, cells, dirs):
    """A candidate move of decision ``kind`` in words (for the search lines of --explain)."""
    if kind == K_REVEAL:
        return f"reveal space {m0} (q={cells[m0][0]}, r={cells[m0][1]})"
    if kind == K_PLACE:
        return "place a farmer" if m0 else "pass"
    if kind == K_COLLECT:
        return f"collect from space {m0} towards {dirs[m1]}"
    if kind == K_FARM:
        if m0 == 1:
            return f"group of {ANIMALS[m1]}"
        if m0 == 2:
            return f"mixed group ({_mask(m1)})"
        return "pig bonus" if m0 == 3 else "stop"
    if kind == K_SACK:
        return "use a feed sack" if m0 else "pay with markers"
    return f"sell a {ANIMALS[m0]}"


def format_game(ctx, lineup, seed, index, n_players, log, turns, score, brk, explain=False):
    from meeplab.sim.core.bots import entry_of_seat  # python call of the njit helper is fine here
    from meeplab.sim.core.explain import search_lines
    from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

    cells, dirs = ctx.cells, ctx.dir_names
    bot_of = [lineup.names[entry_of_seat(s, index, n_players, lineup.rotate)] for s in range(n_players)]

    def who(s):
        return f"P{s + 1} ({bot_of[s]})"

    def sp(s):
        q, r = cells[s]
        return f"space {s} (q={q}, r={r})"

    lines = [
        f"Schweinebande, {n_players} players, seed {seed}, game {index}",
        "Seats: " + ", ".join(who(s) for s in range(n_players)) + "  (P1 starts)",
    ]
    search = []  # a search decision's rows (--explain): printed whole, so its head can name the move chosen

    def describe(kind, m0, m1):
        return _move(kind, m0, m1, cells, dirs)

    for code, seat, a, b, c, d in log.tolist():
        if code in (E_SEARCH, E_SEARCH_CAND):
            if explain:
                search.append((code, seat, a, b, c, d))
            continue
        if search:
            lines.extend(search_lines(search, describe))
            search = []
        if code == E_ROUND:
            lines.append(f"\n== Round {a + 1} ==")
        elif code == E_REVEAL:
            lines.append(f"  {who(seat)} reveals {sp(a)}: {KIND_NAMES[b]}")
        elif code == E_PLACE:
            lines.append("    places a farmer there")
        elif code == E_PASS:
            lines.append("    passes")
        elif code == E_ORDER:
            lines.append(f"    {who(seat)} takes order tile {a}")
        elif code == E_SITOUT:
            lines.append(f"  {who(seat)}: {a} farmer(s) sit out this round (no face-down tile left)")
        elif code == E_TURNUP:
            lines.append(f"  turned up {sp(a)}: {KIND_NAMES[b]}")
        elif code == E_COLLECT:
            lines.append(f"  {who(seat)} collects from {sp(a)} towards {dirs[b]}: {c} tile(s): {_kinds(d)}")
        elif code == E_LEFTOVER:
            lines.append(f"  {a} tile(s) left on the board leave the game")
        elif code == E_QUARTET:
            lines.append(f"  {who(seat)} closes a group of {ANIMALS[a]}: 1 {ANIMALS[a]} to the farm")
        elif code == E_MIXED:
            lines.append(f"  {who(seat)} closes a mixed group ({_mask(a)}): 1 {ANIMALS[b]} to the farm")
        elif code == E_PIGBONUS:
            lines.append(f"  {who(seat)} pig bonus: {a} pigs to the farm")
        elif code == E_SACKUSE:
            lines.append(f"  {who(seat)} feeds {a} animal(s) with a feed sack")
        elif code == E_SELL:
            lines.append(f"  {who(seat)} sells a {ANIMALS[a]} for {b} feed")
        elif code == E_PAY:
            lines.append(f"  {who(seat)} pays {a} feed, {b} left")
        elif code == E_FINAL:
            lines.append(f"  {who(seat)} final group ({_kinds(b)}): 1 {ANIMALS[a]} to the farm")
        elif code == E_DISCARD:
            if a:
                lines.append(f"  {who(seat)} discards {a} remaining tile(s)")
        elif code == E_SCORE:
            pass
    lines.extend(search_lines(search, describe))
    lines.append(f"\n== Final score ({turns} turns) ==")
    from . import CATEGORIES

    header = f"  {'seat':<22}" + "".join(f"{c:>14}" for c in CATEGORIES) + f"{'total':>10}"
    lines.append(header)
    for s in range(n_players):
        row = f"  {who(s):<22}" + "".join(f"{brk[s, j]:>14g}" for j in range(len(CATEGORIES)))
        lines.append(row + f"{score[s]:>10g}")
    return "\n".join(lines) + "\n"
