"""Readable text of one Gold Rush game from the engine's event log (the batch's own code path)."""

from __future__ import annotations

from meeplab.sim.core.explain import search_lines
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

from .const import (
    CATEGORIES,
    E_M,
    E_P,
    E_R,
    EV_COWBOY,
    EV_DISCARD,
    EV_END,
    EV_FINAL,
    EV_LOST,
    EV_MINE,
    EV_PASS,
    EV_PLACE,
    EV_REMOVE,
    EV_RETURN,
    EV_SCORE,
    EV_START,
    EV_TAKE,
    EV_TENT,
    EV_TENT_HOME,
    EV_TOKENS,
    K_CITY,
    K_MTN,
    K_PRAIRIE,
    K_RAIL,
    S_KIND,
    SLOTS,
)

DIRS = "NESW"
HALF = ["Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"]
KIND = {K_RAIL: "railroad", K_MTN: "mountain", K_CITY: "city", K_PRAIRIE: "prairie"}
COWBOY_ROLE = {K_RAIL: "railwayman", K_MTN: "gold miner", K_CITY: "merchant", K_PRAIRIE: "farmer"}


class Layout:
    """Placed tiles in placement order (index t), positions relative to the start tile."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.deck = ctx.deck
        self.B = 2 * self.deck.n + 3
        self.tiles: list[tuple[int, int, int, int]] = []  # inst, rot, x, y

    def add(self, inst, pos, rot):
        c = self.B // 2
        self.tiles.append((int(inst), int(rot), int(pos % self.B) - c, int(pos // self.B) - c))

    def pos_text(self, pos) -> str:
        c = self.B // 2
        return f"({int(pos % self.B) - c:+d},{int(pos // self.B) - c:+d})"

    def tile_name(self, inst) -> str:
        d = self.deck
        t = d.types[d.inst_type[inst]]
        return f"tile {t.name}.{d.inst_copy[inst]} [{t.edges}]"

    def seg_text(self, node) -> str:
        t, s = divmod(int(node), SLOTS)
        if t >= len(self.tiles):
            return f"node {node}"
        inst, rot, x, y = self.tiles[t]
        k = int(self.deck.seg[inst, s, S_KIND])
        m = int(self.deck.mask[inst, rot, s])
        if k == K_PRAIRIE:
            where = ",".join(HALF[h] for h in range(8) if m >> h & 1)
        elif k == K_CITY:
            where = "centre"
        else:
            where = "".join(DIRS[d] for d in range(4) if m >> d & 1)
        return f"{KIND[k]} {where} of ({x:+d},{y:+d})"

    def text_map(self, occ: dict[int, str]) -> list[str]:
        """3x3 characters per tile: edges ^ mountain, | or - railroad, . prairie; centre C city, J junction,
        ^ mountain, + railroad; an occupant letter (A-E cowboys, a-e tents) replaces the centre."""
        if not self.tiles:
            return []
        xs = [x for _, _, x, _ in self.tiles]
        ys = [y for _, _, _, y in self.tiles]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        W, H = (x1 - x0 + 1) * 3, (y1 - y0 + 1) * 3
        grid = [[" "] * W for _ in range(H)]
        where = {}
        for t, (inst, rot, x, y) in enumerate(self.tiles):
            code = int(self.deck.edges[inst, rot])
            e = [(code >> (2 * d)) & 3 for d in range(4)]
            gx, gy = (x - x0) * 3, (y - y0) * 3
            ch = {E_M: "^", E_P: "."}
            grid[gy][gx + 1] = ch.get(e[0], "|")
            grid[gy + 1][gx + 2] = ch.get(e[1], "-")
            grid[gy + 2][gx + 1] = ch.get(e[2], "|")
            grid[gy + 1][gx] = ch.get(e[3], "-")
            for cx, cy, d1, d2 in ((0, 0, 0, 3), (2, 0, 0, 1), (2, 2, 2, 1), (0, 2, 2, 3)):
                grid[gy + cy][gx + cx] = "^" if (e[d1] == E_M and e[d2] == E_M) else "."
            kinds = [int(self.deck.seg[inst, s, S_KIND]) for s in range(int(self.deck.nseg[inst]))]
            nrail = kinds.count(K_RAIL)
            rails_edges = sum(1 for v in e if v == E_R)
            if K_CITY in kinds:
                c = "C"
            elif nrail >= 2:
                c = "J"
            elif K_MTN in kinds and rails_edges == 0:
                c = "^"
            elif rails_edges:
                c = "+"
            else:
                c = "."
            grid[gy + 1][gx + 1] = c
            where[t] = (gx, gy)
        for node, letter in occ.items():
            t = node // SLOTS
            if t in where:
                gx, gy = where[t]
                grid[gy + 1][gx + 1] = letter
        return ["".join(r).rstrip() for r in grid]


ACTION_TEXT = {
    0: "pass",
    1: "cowboy on the {}",
    2: "tent to the {}",
    3: "mine at the {}",
    4: "take back the cowboy on the {}",
}


def _search_lines(rows, lay) -> list[str]:
    """The search bot's candidates of one decision (``meeplab replay --explain``)."""

    def describe(kind, m0, m1):
        if kind == 0:
            return f"place at {lay.pos_text(m0)} turned {90 * m1} deg"
        return ACTION_TEXT.get(int(m0), "action {}").format(lay.seg_text(m1) if m1 >= 0 else "")

    return search_lines(rows, describe)


def seat_labels(names) -> list[str]:
    """How the replay names each seat: ``P1(bot)``, ``P2(bot)``, ..."""
    return [f"P{s + 1}({names[s]})" for s in range(len(names))]


class GameText:
    """The replay's lines of a game, fed its event log a row at a time (:func:`format_game`, and the viewer's
    event list, which keeps one for the rows it has already worded). A row's lines depend on the rows before it
    only (they name tiles and features as the layout stands)."""

    def __init__(self, ctx, seats: list[str], explain: bool = False):
        self.lay = Layout(ctx)
        self.P = seats
        self.explain = explain
        self.occ: dict[int, str] = {}
        self.turn = 0
        self.search: list[tuple[int, ...]] = []

    def flush(self) -> list[str]:
        """The search lines still held (``explain``: a decision's candidates, written before the next event)."""
        out = _search_lines(self.search, self.lay)
        self.search = []
        return out

    def feed(self, row) -> list[str]:
        """The lines of the next event row."""
        ev, a, b, c, d, e, _f = (int(v) for v in row)
        if ev in (E_SEARCH, E_SEARCH_CAND):
            if self.explain:
                self.search.append((ev, a, b, c, d, e))
            return []
        out = self.flush() if self.search else []
        lay, occ, P = self.lay, self.occ, self.P
        if ev == EV_START:
            lay.add(a, b, 0)
            out.append(f"start: {lay.tile_name(a)} at (+0,+0)")
        elif ev == EV_DISCARD:
            out.append(f"  {P[a]} draws {lay.tile_name(b)}: fits nowhere, removed")
        elif ev == EV_PLACE:
            self.turn += 1
            lay.add(b, c, d)
            out.append(f"{self.turn:2d}. {P[a]} places {lay.tile_name(b)} at {lay.pos_text(c)} turned {90 * d} deg")
        elif ev == EV_TOKENS:
            out.append(f"      {b} token(s) onto the {lay.seg_text(a)} (stack {c})")
        elif ev == EV_COWBOY:
            occ[b] = "ABCDE"[a]
            out.append(f"      {P[a]} puts a {COWBOY_ROLE[c]} on the {lay.seg_text(b)}")
        elif ev == EV_TENT:
            if c >= 0:
                occ.pop(c, None)
            occ[b] = "abcde"[a]
            out.append(f"      {P[a]} {'moves' if c >= 0 else 'pitches'} the tent to the {lay.seg_text(b)}")
        elif ev == EV_MINE:
            out.append(f"      {P[a]} mines a token at the {lay.seg_text(b)} (worth {c}; {d} left)")
        elif ev == EV_PASS:
            out.append(f"      {P[a]} places no cowboy or tent")
        elif ev == EV_REMOVE:
            occ.pop(b, None)
            out.append(f"      {P[a]} takes back the cowboy on the {lay.seg_text(b)} (house rule)")
        elif ev == EV_SCORE:
            when = "" if e else " (end of game)"
            out.append(f"      score{when}: {P[c]} +{d} for the {lay.seg_text(b)}")
        elif ev == EV_TAKE:
            out.append(f"      {P[a]} takes a token from the {lay.seg_text(b)} (worth {c})")
        elif ev == EV_RETURN:
            occ.pop(b, None)
        elif ev == EV_TENT_HOME:
            occ.pop(b, None)
            out.append(f"      {P[a]}'s tent goes home")
        elif ev == EV_LOST:
            out.append(
                f"      {b} token(s) leave the game from the {lay.seg_text(a)}"
                f"{' (end of game)' if c else ' (no miners)'}"
            )
        elif ev == EV_FINAL:
            out.append(f"  {P[a]} reveals {c} token(s) worth {b}")
        elif ev == EV_END:
            out.append(f"game over after {a} turns")
        return out


def header(ctx, n_players, seed, index) -> list[str]:
    """The replay's first two lines: the game, and its deck and tokens."""
    return [
        f"Carcassonne: Gold Rush, {n_players} players, seed {seed}, game {index}",
        f"  deck: {'reconstructed deck (built-in)' if ctx.deck.builtin else ctx.deck.path}; tokens: "
        f"{'reconstructed token mix (built-in)' if ctx.tokens.builtin else ctx.tokens.path}",
    ]


def format_game(ctx, lineup, log, score, bd, turns, n_players, seed, index, explain=False) -> str:
    names = [lineup.names[(s + index) % n_players] if lineup.rotate else lineup.names[s] for s in range(n_players)]
    P = seat_labels(names)
    out = header(ctx, n_players, seed, index)
    text = GameText(ctx, P, explain)
    lay, occ = text.lay, text.occ
    for row in log:
        out += text.feed(row)
    out += text.flush()
    out.append("")
    out.append("final layout (A-E cowboys still standing, a-e tents):")
    out += ["  " + r for r in lay.text_map(occ)]
    out.append("")
    w = max(len(x) for x in P)
    out.append(" " * (w + 2) + "".join(f"{c:>12s}" for c in CATEGORIES) + f"{'total':>8s}")
    for s in range(n_players):
        out.append(f"{P[s]:<{w + 2}s}" + "".join(f"{bd[s, c]:12g}" for c in range(len(CATEGORIES))) + f"{score[s]:8g}")
    return "\n".join(out) + "\n"
