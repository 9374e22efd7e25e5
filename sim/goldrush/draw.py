"""Carcassonne: Gold Rush drawn as SVG (the contract: ``sim/core/draw.py``): the tiles laid so far (prairie, railroads,
mountains with their gold nuggets, cities, locomotives, tipis and horses), the cowboys and tents in their owners'
colours, the face-down token stacks on the mountains, the open places where the drawn tile may go, and per player the
cowboys in supply and the gold tokens taken. Hidden: the draw pile and the faces of tokens (a seat sees the values of
its own tokens only; everyone sees how many each player holds)."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK
from meeplab.sim.core.forward import C_KIND, C_N, C_NP, C_SEAT

from .const import (
    A_COWBOY,
    A_MINE,
    A_PASS,
    A_REMOVE,
    A_TENT,
    CATEGORIES,
    EV_MINE,
    EV_TAKE,
    F_PAR,
    F_STACK,
    G_B,
    G_NFRONT,
    G_NPL,
    K_CITY,
    K_MTN,
    K_PRAIRIE,
    K_RAIL,
    KIND_ACTION,
    KIND_PLACE,
    LOGW,
    PI_SUPPLY,
    PI_TENT,
    PI_TOKN,
    PI_TOKSUM,
    S_HORSE,
    S_KIND,
    S_LOCO,
    S_NUG,
    S_TIPI,
    SLOTS,
    V_TILES_LEFT,
    V_TURN,
)
from .replay import GameText, header, seat_labels
from .state import C_INST

LOG_WIDTH = LOGW
HIDDEN_VALUE = -987654  # a token value the viewing seat has not seen (written as "?")
S = 60  # tile side in board units
AREA_X, AREA_Y, AREA_W, AREA_H = 10, 36, 600, 560
PANEL_X, PANEL_W = 630, 300
KIND_WORDS = ("railroad", "mountain", "city", "prairie")
ROLE = ("railroad worker", "miner", "city cowboy", "farmer")


def size(ctx, n_players):
    return PANEL_X + PANEL_W + 10, AREA_Y + AREA_H + 40


def base(ctx, n_players):
    out = ['<text x="10" y="24" class="title">Carcassonne: Gold Rush</text>']
    out.append(
        f'<rect x="{AREA_X}" y="{AREA_Y}" width="{AREA_W}" height="{AREA_H}" fill="#f4f1e8" stroke="#ddd" rx="6"/>'
    )
    for p in range(n_players):
        y0 = 160 + p * 88
        out.append(
            f'<rect id="seat-{p}" x="{PANEL_X}" y="{y0}" width="{PANEL_W}" height="80" rx="8" fill="#fbf7ee" '
            f'stroke="{SEAT_COLOURS[p]}" stroke-width="3"/><circle cx="{PANEL_X + 16}" cy="{y0 + 17}" r="10" '
            f'fill="{SEAT_COLOURS[p]}"/><text x="{PANEL_X + 16}" y="{y0 + 21}" text-anchor="middle" '
            f'font-weight="bold" fill="{SEAT_INK[p]}">{p + 1}</text><text x="{PANEL_X + 32}" y="{y0 + 22}" '
            f'class="label">Player {p + 1}</text>'
        )
    out.append(
        f'<text x="{AREA_X}" y="{AREA_Y + AREA_H + 16}" class="small">Brown wedges: mountains (gold dots: nuggets, '
        "black box: face-down tokens); black lines: railroads (L: locomotive); red roofs: city;</text>"
        f'<text x="{AREA_X}" y="{AREA_Y + AREA_H + 30}" class="small">tipi and H: prairie symbols; dashed squares: '
        "where the drawn tile fits; triangles with a digit: tents; figures with a digit: cowboys.</text>"
    )
    return "\n".join(out)


def _edge_pt(d, x, y, f):
    """A point a fraction ``f`` of the way from the tile's centre to the middle of edge ``d`` (0 N, 1 E, 2 S, 3 W)."""
    cx, cy = x + S / 2, y + S / 2
    dx, dy = ((0, -1), (1, 0), (0, 1), (-1, 0))[d]
    return cx + dx * f * S / 2, cy + dy * f * S / 2


HALF = ((0.25, 0.12), (0.75, 0.12), (0.88, 0.25), (0.88, 0.75), (0.75, 0.88), (0.25, 0.88), (0.12, 0.75), (0.12, 0.25))


def _anchor(ctx, inst, rot, s, x, y):
    """Where to stand a figure on segment ``s`` of a tile drawn at (x, y)."""
    d = ctx.deck
    k = int(d.seg[inst, s, S_KIND])
    if k == K_CITY:
        return x + S / 2, y + S / 2
    pts = []
    if k == K_PRAIRIE:
        pts = [(x + HALF[h][0] * S, y + HALF[h][1] * S) for h in range(8) if int(d.half_seg[inst, rot, h]) == s]
    else:
        pts = [_edge_pt(e, x, y, 0.55) for e in range(4) if int(d.edge_seg[inst, rot, e]) == s]
    if not pts:
        return x + S / 2, y + S / 2
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def _tile(ctx, inst, rot, x, y, ident=""):
    d = ctx.deck
    code = int(d.edges[inst, rot])
    idattr = f' id="{ident}"' if ident else ""
    parts = [f'<g{idattr}><rect x="{x}" y="{y}" width="{S}" height="{S}" fill="#bcd98f" stroke="#6b7d4a"/>']
    cx, cy = x + S / 2, y + S / 2
    corners = ((x, y), (x + S, y), (x + S, y + S), (x, y + S))
    for e in range(4):
        if (code >> (2 * e)) & 3 == 1:  # mountain edge
            a, b = corners[e], corners[(e + 1) % 4]
            tip = _edge_pt(e, x, y, 0.25)
            parts.append(
                f'<polygon points="{a[0]},{a[1]} {b[0]},{b[1]} {tip[0]:.1f},{tip[1]:.1f}" fill="#8d6e63" '
                'stroke="#4e342e" stroke-width="0.8"/>'
            )
    for s in range(int(d.nseg[inst])):
        k = int(d.seg[inst, s, S_KIND])
        if k == K_RAIL:
            ends = [e for e in range(4) if int(d.edge_seg[inst, rot, e]) == s]
            path = "".join(
                f'<path d="M{_edge_pt(e, x, y, 1)[0]:.1f} {_edge_pt(e, x, y, 1)[1]:.1f} L{cx} {cy}" stroke="#222" '
                'stroke-width="4"/>'
                for e in ends
            )
            parts.append(path)
            if int(d.seg[inst, s, S_LOCO]):
                ax, ay = _anchor(ctx, inst, rot, s, x, y)
                parts.append(
                    f'<rect x="{ax - 6:.1f}" y="{ay - 6:.1f}" width="12" height="12" fill="#fff" stroke="#000"/>'
                    f'<text x="{ax:.1f}" y="{ay + 4:.1f}" text-anchor="middle" class="tiny">L</text>'
                )
        elif k == K_MTN:
            n = int(d.seg[inst, s, S_NUG])
            if n:
                ax, ay = _anchor(ctx, inst, rot, s, x, y)
                for j in range(n):
                    parts.append(
                        f'<circle cx="{ax - 4 * (n - 1) + 8 * j:.1f}" cy="{ay:.1f}" r="3.2" fill="#f2c14e" '
                        'stroke="#6d4c00" stroke-width="0.7"/>'
                    )
        elif k == K_CITY:
            parts.append(
                f'<rect x="{cx - 9}" y="{cy - 5}" width="18" height="13" fill="#f5f0e0" stroke="#000"/>'
                f'<path d="M{cx - 11} {cy - 4} L{cx} {cy - 13} L{cx + 11} {cy - 4} Z" fill="#c0392b" stroke="#000"/>'
            )
        else:
            ax, ay = _anchor(ctx, inst, rot, s, x, y)
            if int(d.seg[inst, s, S_TIPI]):
                parts.append(
                    f'<path d="M{ax - 6:.1f} {ay + 6:.1f} L{ax:.1f} {ay - 7:.1f} L{ax + 6:.1f} {ay + 6:.1f} Z" '
                    'fill="#f5deb3" stroke="#000" stroke-width="0.8"/>'
                )
            if int(d.seg[inst, s, S_HORSE]):
                parts.append(f'<text x="{ax + 9:.1f}" y="{ay + 4:.1f}" class="tiny">H</text>')
    parts.append("</g>")
    return "".join(parts)


def _cowboy(x, y, seat):
    return (
        f'<g class="cowboy"><circle cx="{x:.1f}" cy="{y - 6:.1f}" r="4.5" fill="{SEAT_COLOURS[seat]}" stroke="#000"/>'
        f'<path d="M{x - 6:.1f} {y + 7:.1f} L{x:.1f} {y - 3:.1f} L{x + 6:.1f} {y + 7:.1f} Z" '
        f'fill="{SEAT_COLOURS[seat]}" stroke="#000"/><text x="{x:.1f}" y="{y + 6:.1f}" text-anchor="middle" '
        f'class="tiny" fill="{SEAT_INK[seat]}">{seat + 1}</text></g>'
    )


def _tent(x, y, seat):
    return (
        f'<g class="tent"><path d="M{x - 9:.1f} {y + 7:.1f} L{x:.1f} {y - 9:.1f} L{x + 9:.1f} {y + 7:.1f} Z" '
        f'fill="{SEAT_COLOURS[seat]}" stroke="#000" stroke-width="1.5"/><text x="{x:.1f}" y="{y + 5:.1f}" '
        f'text-anchor="middle" class="tiny" fill="{SEAT_INK[seat]}">{seat + 1}</text></g>'
    )


def _place(rec, t):
    return int(rec["pl"][t, 0]), int(rec["pl"][t, 1]), int(rec["pl"][t, 2])


def _extent(rec):
    B = int(rec["gi"][G_B])
    n = int(rec["gi"][G_NPL])
    cells = [_place(rec, t)[2] for t in range(n)]
    cells += [int(rec["front"][i]) for i in range(int(rec["gi"][G_NFRONT]))]
    if not cells or B <= 0:
        return B, 0, 0, 1, 1
    cols = [c % B for c in cells]
    rows = [c // B for c in cells]
    return B, min(cols), min(rows), max(cols) - min(cols) + 1, max(rows) - min(rows) + 1


def _root(nd, node):
    while int(nd[node, F_PAR]) != node:
        node = int(nd[node, F_PAR])
    return node


def pieces(ctx, rec, seat=None):
    out = []
    B, c0, r0, w, h = _extent(rec)
    scale = min(1.0, (AREA_W - 20) / (w * S), (AREA_H - 20) / (h * S))
    ox = AREA_X + (AREA_W - w * S * scale) / 2 - c0 * S * scale
    oy = AREA_Y + (AREA_H - h * S * scale) / 2 - r0 * S * scale
    # one group places the board in the drawing area; the tiles inside it keep their own coordinates (and their
    # strings stay the same from step to step)
    out.append(f'<g transform="translate({ox:.1f} {oy:.1f}) scale({scale:.4f})">')
    n = int(rec["gi"][G_NPL])
    where = {}
    for t in range(n):
        inst, rot, cell = _place(rec, t)
        x, y = (cell % B) * S, (cell // B) * S
        where[t] = (inst, rot, x, y)
        out.append(_tile(ctx, inst, rot, x, y, f"tile-{t}"))
    for i in range(int(rec["gi"][G_NFRONT])):
        cell = int(rec["front"][i])
        x, y = (cell % B) * S, (cell // B) * S
        out.append(
            f'<rect id="cell-{cell}" x="{x + 3}" y="{y + 3}" width="{S - 6}" height="{S - 6}" fill="none" '
            'stroke="#7a7a7a" stroke-dasharray="4 3"/>'
        )
    nd = rec["nd"]
    shown = set()
    for t, (inst, rot, x, y) in where.items():
        for s in range(int(ctx.deck.nseg[inst])):
            if int(ctx.deck.seg[inst, s, S_KIND]) != K_MTN:
                continue
            root = _root(nd, t * SLOTS + s)
            stack = int(nd[root, F_STACK])
            if stack > 0 and root not in shown:
                shown.add(root)
                ax, ay = _anchor(ctx, inst, rot, s, x, y)
                out.append(
                    f'<g class="back"><rect x="{ax - 8:.1f}" y="{ay + 4:.1f}" width="16" height="12" fill="#333"/>'
                    f'<text x="{ax:.1f}" y="{ay + 14:.1f}" text-anchor="middle" class="tiny" fill="#fff">{stack}'
                    "</text></g>"
                )
    np_ = int(rec["ctl"][C_NP])
    for p in range(np_):
        for c in range(rec["cow"].shape[1]):
            node = int(rec["cow"][p, c])
            if node >= 0 and node // SLOTS in where:
                inst, rot, x, y = where[node // SLOTS]
                ax, ay = _anchor(ctx, inst, rot, node % SLOTS, x, y)
                out.append(_cowboy(ax + 7 * (p - 1) * 0.3, ay, p))
        tent = int(rec["pl_int"][p, PI_TENT])
        if tent >= 0 and tent // SLOTS in where:
            inst, rot, x, y = where[tent // SLOTS]
            ax, ay = _anchor(ctx, inst, rot, tent % SLOTS, x, y)
            out.append(_tent(ax - 10, ay - 10, p))
    out.append("</g>")
    # beside the board: the drawn tile, the pile, the players
    pub = rec["pub"]
    out.append(
        f'<text x="{PANEL_X}" y="{52}" class="small">tiles left in the pile: {int(pub[V_TILES_LEFT])}, turn '
        f"{int(pub[V_TURN])}</text>"
    )
    if int(rec["ctl"][C_KIND]) == KIND_PLACE and int(rec["ctl"][C_N]) > 0:
        inst = int(rec["ctl"][C_INST])
        out.append(f'<text x="{PANEL_X}" y="{80}" class="small">drawn tile:</text>')
        out.append(_tile(ctx, inst, 0, PANEL_X + 80, 66))
    for p in range(np_):
        y0 = 160 + p * 88
        pi = rec["pl_int"][p]
        ntok = int(pi[PI_TOKN])
        line = f"{int(pi[PI_SUPPLY])} cowboys in supply, tent {'pitched' if int(pi[PI_TENT]) >= 0 else 'at home'}"
        out.append(f'<text x="{PANEL_X + 10}" y="{y0 + 46}" class="small">{line}</text>')
        if seat is None or seat == p:
            cls = "small secret" if seat is None and ntok else "small"
            out.append(
                f'<text x="{PANEL_X + 10}" y="{y0 + 66}" class="{cls}">{ntok} gold tokens worth '
                f"{int(pi[PI_TOKSUM])}</text>"
            )
        else:
            out.append(
                f'<g class="back"><rect x="{PANEL_X + 10}" y="{y0 + 54}" width="14" height="14" fill="#333"/></g>'
                f'<text x="{PANEL_X + 30}" y="{y0 + 66}" class="small">{ntok} gold tokens (face down)</text>'
            )
    return out


def score(ctx, rec):
    return [float(rec["brk"][p].sum()) for p in range(int(rec["ctl"][C_NP]))]


def info(ctx, rec, seat=None):
    np_ = int(rec["ctl"][C_NP])
    brk = rec["brk"]
    rows = [["points so far", *[f"{x:g}" for x in score(ctx, rec)]]]
    for j, c in enumerate(CATEGORIES):
        if c == "gold_tokens":
            continue
        rows.append([f"  {c}", *[f"{brk[p, j]:g}" for p in range(np_)]])
    toks = []
    for p in range(np_):
        pi = rec["pl_int"][p]
        if seat is None or seat == p:
            toks.append(f"{int(pi[PI_TOKN])} worth {int(pi[PI_TOKSUM])}")
        else:
            toks.append(f"{int(pi[PI_TOKN])} (face down)")
    rows.append(["gold tokens (scored at the end)", *toks])
    rows.append(["cowboys in supply", *[str(int(rec["pl_int"][p][PI_SUPPLY])) for p in range(np_)]])
    return {"columns": [f"P{p + 1}" for p in range(np_)], "rows": rows}


def round_of(ctx, rec):
    """Gold Rush has turns, no rounds: a "round" is one turn of every player."""
    np_ = max(1, int(rec["ctl"][C_NP]))
    return int(rec["pub"][V_TURN]) // np_ + 1


def status(ctx, rec):
    ctl = rec["ctl"]
    parts = [f"Turn {int(rec['pub'][V_TURN]) + 1}", f"{int(rec['pub'][V_TILES_LEFT])} tiles left"]
    if int(ctl[C_SEAT]) >= 0 and int(ctl[C_N]) > 0:
        parts.append(f"P{int(ctl[C_SEAT]) + 1} decides: {kind_name(int(ctl[C_KIND]))}")
    if int(ctl[C_KIND]) == KIND_PLACE and int(ctl[C_N]) > 0:
        inst = int(ctl[C_INST])
        t = ctx.deck.types[ctx.deck.inst_type[inst]]
        parts.append(f"drew tile {t.name} [{t.edges}]")
    return " · ".join(parts)


def kind_name(kind):
    return ("where to place the tile", "cowboy, tent or mining")[kind] if kind in (0, 1) else f"kind {kind}"


#: the halves of the tile's edges, in the deck's order (sim/goldrush/deck.py: 2d the first met going clockwise)
HALVES = ("N-west", "N-east", "E-north", "E-south", "S-east", "S-west", "W-south", "W-north")


def _sides(ctx, inst, rot, s) -> str:
    """The sides of the placed tile segment ``s`` touches, as the board shows them: whole edges (N, E, S, W) and,
    for a prairie, the halves of edges it shares with another ("N-west")."""
    deck = ctx.deck
    out = []
    for d in range(4):
        if int(deck.edge_seg[inst, rot, d]) == s:
            out.append("NESW"[d])
            continue
        halves = [h for h in (2 * d, 2 * d + 1) if int(deck.half_seg[inst, rot, h]) == s]
        if len(halves) == 2:
            out.append("NESW"[d])
        elif halves:
            out.append(HALVES[halves[0]])
    return ", ".join(out) if out else "inside"


def _seg_words(ctx, rec, node):
    t, s = divmod(int(node), SLOTS)
    if t >= int(rec["gi"][G_NPL]):
        return f"node {node}"
    inst, rot, _cell = _place(rec, t)
    return f"{KIND_WORDS[int(ctx.deck.seg[inst, s, S_KIND])]} of tile {t + 1} ({_sides(ctx, inst, rot, s)})"


def moves(ctx, rec):
    ctl = rec["ctl"]
    kind, n = int(ctl[C_KIND]), int(ctl[C_N])
    B = int(rec["gi"][G_B])
    out = []
    for i in range(n):
        m0, m1, m2 = (int(x) for x in rec["moves"][i, :3])
        if kind == KIND_PLACE:
            c = B // 2
            out.append((f"place at ({m0 % B - c:+d},{m0 // B - c:+d}) turned {90 * m1} deg", f"cell-{m0}"))
        elif kind == KIND_ACTION:
            if m0 == A_PASS:
                out.append(("no cowboy or tent", None))
            elif m0 == A_COWBOY:
                out.append((f"{ROLE[m2] if 0 <= m2 < 4 else 'cowboy'} on the {_seg_words(ctx, rec, m1)}", _tile_id(m1)))
            elif m0 == A_TENT:
                out.append((f"tent to the {_seg_words(ctx, rec, m1)}", _tile_id(m1)))
            elif m0 == A_MINE:
                out.append((f"mine a token at the {_seg_words(ctx, rec, m1)}", _tile_id(m1)))
            elif m0 == A_REMOVE:
                out.append((f"take back the cowboy on the {_seg_words(ctx, rec, m1)}", _tile_id(m1)))
            else:
                out.append((f"action {m0}", None))
        else:
            out.append((f"{m0} {m1} {m2}", None))
    return out


def _tile_id(node):
    return f"tile-{int(node) // SLOTS}" if node >= 0 else None


def events(ctx, log, lo, hi, names, seat=None):
    """Log rows lo..hi in words: the replay's lines of those rows (the replay needs the earlier rows to name the
    tiles); for ``seat``, the value of a token another seat takes is not named."""
    if hi <= lo:
        return []
    if seat is not None:
        log = log[:hi].copy()
        hide = np.isin(log[:, 0], (EV_MINE, EV_TAKE)) & (log[:, 1] != seat)
        log[hide, 3] = HIDDEN_VALUE
    return [ln.replace(f"worth {HIDDEN_VALUE}", "worth ?") for ln in _row_lines(ctx, log, lo, hi, tuple(names), seat)]


class _Worded:
    """A log's rows worded so far for one view (the rows themselves, each row's lines, and the replay's state after
    them): a viewer page asks for each step's rows in turn, so each row is worded once, not once per later step."""

    def __init__(self, ctx, names):
        self.ctx = ctx  # held: the entry is only ever used for this very context
        self.rows = np.zeros((0, LOGW), dtype=np.int64)
        self.lines: list[list[str]] = []
        self.text = GameText(ctx, seat_labels(names))
        # the replay's text is read line by line up to its "final layout" (the words of a row are lines of it: a
        # name holding a line break makes two, one starting "final layout" ends the list, as in the whole text)
        self.ended = any(
            ln.startswith("final layout") for ln in "\n".join(header(ctx, len(names), 0, 0)).split("\n")[2:]
        )

    def word(self, row) -> list[str]:
        """The lines of the next row, stripped, the empty ones left out."""
        out = []
        for part in "\n".join(self.text.feed(row)).split("\n") if not self.ended else ():
            if part.startswith("final layout"):
                self.ended = True
                break
            if part.strip():
                out.append(part.strip())
        return out


_WORDED: OrderedDict = OrderedDict()  # (seat, names) -> _Worded; the most recent few
_WORDED_LOCK = threading.Lock()


def _row_lines(ctx, log, lo, upto, names, seat):
    """The lines of rows lo..upto-1, stripped (a row of the log's shape with the same rows before it always reads
    the same; an entry whose rows differ from ``log``'s, or of another context, is worded anew)."""
    key = (seat, names)
    with _WORDED_LOCK:
        got = _WORDED.get(key)
        m = min(len(got.rows), upto) if got is not None else 0
        if got is None or got.ctx is not ctx or not np.array_equal(got.rows[:m], log[:m]):
            got = _Worded(ctx, names)
        _WORDED[key] = got
        _WORDED.move_to_end(key)
        while len(_WORDED) > 16:
            _WORDED.popitem(last=False)
        if len(got.rows) < upto:
            for r in range(len(got.rows), upto):
                got.lines.append(got.word(log[r]))
            got.rows = np.array(log[:upto], dtype=np.int64)
        return [ln for r in range(lo, upto) for ln in got.lines[r]]
