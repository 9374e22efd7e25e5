"""Turn the engine's event log into readable text (the same game the batch played)."""

from __future__ import annotations

from . import layout as E
from .board import TERRAINS
from .params import ANIMALS

CARD = list(TERRAINS) + ["pampa"] + list(ANIMALS)
SHAPES = ("1-hex", "2-hex", "triangle", "line")
CATS = ("markets", "chains", "haciendas", "water", "money")


def _hex(ctx, i):
    b = ctx.board
    if i < 0:
        return "-"
    return f"hex {int(b.cols[i]) * 100 + int(b.rows[i]):04d}"


def _unpack(x, k):
    out = []
    for _ in range(k):
        out.append(x % 32)
        x //= 32
    return out[::-1]


def _move(ctx, kind, m0, m1):
    """A candidate move of decision ``kind`` in words (for the search lines of --explain)."""
    if kind == E.K_ACTION:
        names = (
            "buy face-up land",
            "buy blind land",
            "buy face-up animal",
            "buy blind animal",
            "play",
            "buy a hacienda",
            "buy a water tile",
            "harvest",
            "end the turn",
        )
        if m0 == E.A_PLAY:
            return f"play {CARD[m1]}"
        if m0 in (E.A_BUY_LAND_UP, E.A_BUY_ANIMAL_UP):
            return f"{names[m0]} (slot {m1})"
        return names[m0] if 0 <= m0 < len(names) else f"action {m0}"
    if kind in (E.K_LAND, E.K_ANIMAL):
        return f"place {CARD[m1]} on {_hex(ctx, m0)}"
    if kind == E.K_HACIENDA:
        return f"hacienda on the {'land chain' if m1 == 0 else ANIMALS[m1 - 1] + ' herd'} at {_hex(ctx, m0)}"
    if kind == E.K_WATER:
        return f"{SHAPES[m0]} water tile at {_hex(ctx, m1)}"
    return f"harvest the chain at {_hex(ctx, m0)}" + (f" (chip from {_hex(ctx, m1)})" if m1 >= 0 else "")


def format_game(ctx, lineup, seed, index, n_players, log, turns, score, tiebreak, brk, explain=False):
    from meeplab.sim.core.explain import search_lines
    from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

    lines = [f"Hacienda, game {index} (seed {seed}), {n_players} players, map {ctx.board.name} ({ctx.board.path})"]
    for s in range(n_players):
        lines.append(f"  seat {s + 1}: {lineup.names[(s + index) % n_players if lineup.rotate else s]}")
    search = []  # a search decision's rows (--explain): printed whole, so its head can name the move chosen

    def describe(kind, m0, m1):
        return _move(ctx, kind, m0, m1)

    for rec in log:
        code, seat, a, b, c, d = (int(x) for x in rec)
        who = f"seat {seat + 1}"  # seat 1 = the start player, as everywhere a person reads a seat
        if code in (E_SEARCH, E_SEARCH_CAND):
            if explain:
                search.append((code, seat, a, b, c, d))
            continue
        if search:
            lines.extend(search_lines(search, describe))
            search = []
        if code == E.E_SETUP:
            lh = _unpack(a, 6)
            ah = _unpack(b, 4)
            hand = ", ".join(f"{n} {CARD[t]}" for t, n in enumerate(lh + ah) if n)
            lines.append(f"{who} starts with {c} pesos and {hand}")
        elif code == E.E_TURN:
            lines.append(f"-- round {a + 1}, {who} ({b} pesos)")
        elif code == E.E_BUY:
            lines.append(f"  {who} buys {CARD[a] if a >= 0 else '?'} ({'face up' if b else 'blind'}) for {c} pesos")
        elif code == E.E_REFILL:
            lines.append(f"    face-up {'animal' if a else 'land'} slot {b} refilled: {CARD[c] if c >= 0 else 'empty'}")
        elif code == E.E_LAND:
            how = " as pampa (no free space of its terrain)" if d else ""
            lines.append(f"  {who} plays {CARD[a]}{how} on {_hex(ctx, b)}: land chain of {c}")
        elif code == E.E_ANIMAL:
            earn = f", market income {d} pesos" if d else ""
            lines.append(f"  {who} plays {ANIMALS[a]} on {_hex(ctx, b)}: herd of {c}{earn}")
        elif code == E.E_HACIENDA:
            what = "land chain" if c == 0 else f"{ANIMALS[c - 1]} herd"
            lines.append(f"  {who} buys a hacienda for {ctx.pi[6]} pesos, on the {what} of {b} at {_hex(ctx, a)}")
        elif code == E.E_WATER:
            cells = [b % 1024, (b // 1024) % 1024, (b // 1048576) % 1024]
            cells = [x for x in cells if x != 1023]
            where = ", ".join(_hex(ctx, x) for x in cells)
            lines.append(
                f"  {who} buys a {SHAPES[a]} water tile for {ctx.pi[7]} pesos on {where} ({c} own tiles next to it)"
            )
        elif code == E.E_HARVEST:
            src = "from the supply"
            if d:
                src = f"taking the chip from seat {d // 100000} at {_hex(ctx, d % 100000 - 1)}"
            lines.append(f"  {who} harvests the chain of {b} at {_hex(ctx, a)}: +{c} pesos ({src})")
        elif code == E.E_END:
            lines.append(f"  {who} ends the turn after {a} actions with {b} pesos")
        elif code == E.E_STACK2:
            lines.append(
                f"** animal stack 1 is used up: stack 2 comes in; mid-game scoring at the end of round {a + 1}"
            )
        elif code == E.E_CAP:
            if b:
                lines.append(
                    "** STALLED: in a whole round no player could do anything but end the turn, so nobody "
                    "ever can again (an ending the rule book does not have): the board is scored once "
                    "as it stands"
                )
            else:
                lines.append(f"** safety cap of {a} rounds reached: outstanding scorings now")
        elif code == E.E_SCORE_A:
            name = "MID-GAME" if a == 1 else "FINAL"
            lines.append(f"== {name} scoring {who}: markets {b}, chains {c}, haciendas {d}")
        elif code == E.E_SCORE_B:
            lines.append(f"== {'MID-GAME' if a == 1 else 'FINAL'} scoring {who}: water {b}, money {c} ({d} pesos)")
    lines.extend(search_lines(search, describe))
    lines.append(f"Game over after {turns} turns.")
    header = "seat  " + "  ".join(f"mid_{c}" for c in CATS) + "  " + "  ".join(CATS) + "  total  pesos"
    lines.append(header)
    for s in range(n_players):
        vals = "  ".join(f"{int(brk[s, j]):>{len(('mid_' + CATS[j]) if j < 5 else CATS[j - 5])}}" for j in range(10))
        lines.append(f"{s + 1:>4}  {vals}  {int(score[s]):>5}  {int(tiebreak[s]):>5}")
    return "\n".join(lines)
