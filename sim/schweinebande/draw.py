"""Schweinebande drawn as SVG (the contract: ``sim/core/draw.py``): the rhombus of 25 hexes with its tiles (face
down as tile backs), the farmers in their owners' colours, and per player the tiles in front of them, the farm,
feed markers and order tile. The only hidden things are the kinds under face-down tiles (and the bag)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK
from meeplab.sim.core.forward import C_KIND, C_N, C_NP, C_SEAT

from .layout import (
    FACE_DOWN,
    K_COLLECT,
    K_FARM,
    K_PLACE,
    K_REVEAL,
    K_SACK,
    KIND_NAMES,
    LOGW,
    NK,
    NT,
    V_FARM,
    V_FARMER,
    V_FEED,
    V_FLEFT,
    V_HAND,
    V_NROUNDS,
    V_ORDER,
    V_REVEALED,
    V_ROUND,
    V_SUPPLY,
    V_TILE,
    V_UNSEEN,
)
from .params import ANIMALS
from .replay import format_game
from .state import M_FACEDOWN

LOG_WIDTH = LOGW
R = 30  # hex radius
BOARD_X, BOARD_Y = 40, 44
PANEL_X = 470
PANEL_W = 420
PANEL_H = 118
# tile faces: fill and two-letter label per kind (animals, then the feed sack); labels carry the kind, not colour alone
FACES = ("#f3d9a4", "#f4f4f4", "#d9c7a8", "#b9b4ad", "#f6c1cf", "#e2d0b8", "#e9c46a")
SHORT = ("Ro", "Sh", "Go", "Do", "Pi", "Co", "Fe")
NAMES = ANIMALS + ("feed sack",)


def _cells(ctx):
    return ctx.cells


def _square(ctx) -> bool:
    return ctx.nd == 4


def _centre(ctx, s):
    q, r = ctx.cells[s]
    if _square(ctx):
        return BOARD_X + 10 + (q + 0.5) * 1.9 * R, BOARD_Y + 20 + (r + 0.5) * 1.9 * R
    qmin = min(c[0] + c[1] / 2 for c in ctx.cells)
    rmin = min(c[1] for c in ctx.cells)
    x = BOARD_X + R * math.sqrt(3) * (q + r / 2 - qmin) + R
    y = BOARD_Y + R * 1.5 * (r - rmin) + R
    return x, y


def _hex(x, y, rad):
    pts = []
    for i in range(6):
        a = math.radians(60 * i - 30)
        pts.append(f"{x + rad * math.cos(a):.1f},{y + rad * math.sin(a):.1f}")
    return " ".join(pts)


def _shape(ctx, x, y, rad, attrs):
    if _square(ctx):
        h = rad * 0.95
        return f'<rect x="{x - h:.1f}" y="{y - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" rx="4" {attrs}/>'
    return f'<polygon points="{_hex(x, y, rad)}" {attrs}/>'


def size(ctx, n_players):
    return PANEL_X + PANEL_W + 10, max(BOARD_Y + 11 * R, 40 + n_players * (PANEL_H + 8))


def base(ctx, n_players):
    out = [f'<text x="{BOARD_X}" y="24" class="title">Schweinebande: the farm field</text>']
    for s in range(len(ctx.cells)):
        x, y = _centre(ctx, s)
        out.append(
            _shape(ctx, x, y, R, f'id="sp-{s}" class="space" fill="#8fbf6a" stroke="#4d7a35" stroke-width="1.5"')
        )
    for p in range(n_players):
        y0 = 30 + p * (PANEL_H + 8)
        out.append(
            f'<rect id="farm-{p}" x="{PANEL_X}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" rx="8" '
            f'fill="#fbf7ee" stroke="{SEAT_COLOURS[p]}" stroke-width="3"/>'
        )
        out.append(
            f'<circle cx="{PANEL_X + 18}" cy="{y0 + 18}" r="11" fill="{SEAT_COLOURS[p]}"/>'
            f'<text x="{PANEL_X + 18}" y="{y0 + 22}" text-anchor="middle" font-weight="bold" '
            f'fill="{SEAT_INK[p]}">{p + 1}</text>'
            f'<text x="{PANEL_X + 36}" y="{y0 + 23}" class="label">Player {p + 1}</text>'
            f'<text x="{PANEL_X + 10}" y="{y0 + 58}" class="small">in front</text>'
            f'<text x="{PANEL_X + 10}" y="{y0 + 98}" class="small">farm</text>'
        )
    return "\n".join(out)


def _tile(x, y, kind, rad, extra=""):
    """A face-up tile (rounded square) of ``kind`` centred on x, y."""
    h = rad
    return (
        f'<g{extra}><rect x="{x - h:.1f}" y="{y - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" rx="5" '
        f'fill="{FACES[kind]}" stroke="#5b4a32" stroke-width="1.2"/>'
        f'<text x="{x:.1f}" y="{y + 5:.1f}" text-anchor="middle" class="tile">{SHORT[kind]}</text></g>'
    )


def _back(x, y, rad):
    h = rad
    return (
        f'<g class="back"><rect x="{x - h:.1f}" y="{y - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" rx="5" '
        f'fill="#7a4e2d" stroke="#3e2614" stroke-width="1.2"/>'
        f'<path d="M{x - h + 4:.1f} {y:.1f} h{2 * h - 8:.1f} M{x:.1f} {y - h + 4:.1f} v{2 * h - 8:.1f}" '
        f'stroke="#a8764c" stroke-width="2"/></g>'
    )


def _farmer(x, y, seat):
    return (
        f'<g class="farmer"><path d="M{x - 9:.1f} {y + 12:.1f} L{x:.1f} {y - 4:.1f} L{x + 9:.1f} {y + 12:.1f} Z" '
        f'fill="{SEAT_COLOURS[seat]}" stroke="#000" stroke-width="1"/>'
        f'<circle cx="{x:.1f}" cy="{y - 8:.1f}" r="6" fill="{SEAT_COLOURS[seat]}" stroke="#000" stroke-width="1"/>'
        f'<text x="{x:.1f}" y="{y + 10:.1f}" text-anchor="middle" class="tiny" fill="{SEAT_INK[seat]}">{seat + 1}'
        "</text></g>"
    )


def pieces(ctx, rec, seat=None):
    pub = rec["pub"]
    out = []
    fd = int(rec["mk"][M_FACEDOWN])
    revealed = int(pub[V_REVEALED])
    for s in range(len(ctx.cells)):
        x, y = _centre(ctx, s)
        t = int(pub[V_TILE + s])
        if t == FACE_DOWN:
            if seat is None and fd >> s & 1:
                out.append(_tile(x, y, int(rec["hidden"][s]), R * 0.62, ' class="secret" opacity="0.55"'))
            else:
                out.append(_back(x, y, R * 0.62))
        elif t >= 0:
            out.append(_tile(x, y, t, R * 0.62))
        f = int(pub[V_FARMER + s])
        if f >= 0:
            out.append(_farmer(x + R * 0.45, y + R * 0.2, f))
        if s == revealed:
            out.append(_shape(ctx, x, y, R - 2, 'fill="none" stroke="#000" stroke-width="3" stroke-dasharray="5 3"'))
    np_ = int(rec["ctl"][C_NP])
    for p in range(np_):
        y0 = 30 + p * (PANEL_H + 8)
        feed = int(pub[V_FEED + p])
        order = int(pub[V_ORDER + p])
        farmers = int(pub[V_FLEFT + p])
        head = f"feed {feed}   farmers to place {farmers}"
        out.append(f'<text x="{PANEL_X + 130}" y="{y0 + 23}" class="small">{head}</text>')
        if order:
            out.append(
                f'<g><circle cx="{PANEL_X + PANEL_W - 22}" cy="{y0 + 20}" r="13" fill="#fff" stroke="#000"/>'
                f'<text x="{PANEL_X + PANEL_W - 22}" y="{y0 + 25}" text-anchor="middle" font-weight="bold">'
                f"{order}</text></g>"
            )
        out.append(_row(PANEL_X + 70, y0 + 52, [int(pub[V_HAND + p * NT + k]) for k in range(NT)]))
        out.append(_row(PANEL_X + 70, y0 + 92, [int(pub[V_FARM + p * NK + k]) for k in range(NK)]))
    return out


def _row(x, y, counts):
    """Tiles by kind with their count, one group per row."""
    parts = ["<g>"]
    for k, c in enumerate(counts):
        if not c:
            continue
        parts.append(_tile(x, y, k, 14))
        parts.append(f'<text x="{x + 17}" y="{y + 5}" class="small">x{c}</text>')
        x += 50
    if len(parts) == 1:
        parts.append(f'<text x="{x}" y="{y + 4}" class="small">none</text>')
    parts.append("</g>")
    return "".join(parts)


def _values(ctx):
    return list(ctx.values["animal_values"])


def score(ctx, rec):
    pub = rec["pub"]
    v = _values(ctx)
    return [float(sum(int(pub[V_FARM + p * NK + k]) * v[k] for k in range(NK))) for p in range(int(rec["ctl"][C_NP]))]


def info(ctx, rec, seat=None):
    from . import CATEGORIES

    np_ = int(rec["ctl"][C_NP])
    pub = rec["pub"]
    rows = [["points on the farm", *[f"{x:g}" for x in score(ctx, rec)]]]
    for c, name in enumerate(CATEGORIES):
        rows.append([f"  from {name.replace('_', ' ')}", *[f"{rec['brk'][p, c]:g}" for p in range(np_)]])
    rows.append(["feed markers", *[str(int(pub[V_FEED + p])) for p in range(np_)]])
    rows.append(["tiles in front", *[str(sum(int(pub[V_HAND + p * NT + k]) for k in range(NT))) for p in range(np_)]])
    rows.append(["order tile", *[str(int(pub[V_ORDER + p]) or "-") for p in range(np_)]])
    return {"columns": [f"P{p + 1}" for p in range(np_)], "rows": rows}


def round_of(ctx, rec):
    return int(rec["pub"][V_ROUND]) + 1


def status(ctx, rec):
    pub = rec["pub"]
    ctl = rec["ctl"]
    supply = int(pub[V_SUPPLY])
    unseen = sum(int(pub[V_UNSEEN + k]) for k in range(NT))
    parts = [f"Round {int(pub[V_ROUND]) + 1} of {int(pub[V_NROUNDS])}"]
    if int(ctl[C_SEAT]) >= 0 and int(ctl[C_N]) > 0:
        parts.append(f"P{int(ctl[C_SEAT]) + 1} decides: {kind_name(int(ctl[C_KIND]))}")
    rv = int(pub[V_REVEALED])
    if rv >= 0 and int(pub[V_TILE + rv]) >= 0:
        parts.append(f"just revealed: {NAMES[int(pub[V_TILE + rv])]} on space {rv}")
    parts.append(f"{unseen} tiles unseen")
    if supply >= 0:
        parts.append(f"feed supply {supply}")
    return " · ".join(parts)


def kind_name(kind):
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind {kind}"


def _mask(mask):
    return "+".join(ANIMALS[k] for k in range(NK) if mask & (1 << k))


def move_words(kind, m0, m1, ctx):
    """A candidate of decision ``kind`` in words."""
    if kind == K_REVEAL:
        return f"reveal space {m0}"
    if kind == K_PLACE:
        return "place a farmer" if m0 else "pass"
    if kind == K_COLLECT:
        return f"collect from space {m0} towards {ctx.dir_names[m1]}"
    if kind == K_FARM:
        if m0 == 1:
            return f"close a group of {ANIMALS[m1]}s"
        if m0 == 2:
            return f"close a mixed group ({_mask(m1)})"
        return "pig bonus" if m0 == 3 else "stop farming"
    if kind == K_SACK:
        return "use a feed sack" if m0 else "pay with feed markers"
    return f"sell a {ANIMALS[m0]}"


def moves(ctx, rec):
    ctl = rec["ctl"]
    kind, n, seat = int(ctl[C_KIND]), int(ctl[C_N]), int(ctl[C_SEAT])
    out = []
    for i in range(n):
        m0, m1 = int(rec["moves"][i, 0]), int(rec["moves"][i, 1])
        label = move_words(kind, m0, m1, ctx)
        if kind in (K_REVEAL, K_COLLECT):
            target = f"sp-{m0}"
        elif kind == K_PLACE:
            target = f"sp-{int(rec['pub'][V_REVEALED])}" if m0 else None
        else:
            target = f"farm-{seat}"
        out.append((label, target))
    return out


def events(ctx, log, lo, hi, names, seat=None):
    """Log rows lo..hi in words: the replay's own lines, without its header and final table (every seat reads the
    same: nothing in the log is hidden)."""
    rows = log[lo:hi]
    if len(rows) == 0:
        return []
    n = len(names)
    lineup = SimpleNamespace(names=list(names), rotate=False)
    text = format_game(ctx, lineup, 0, 0, n, rows, 0, np.zeros(n), np.zeros((n, 4)), explain=False)
    lines = text.split("\n")[2:]
    cut = next((i for i, line in enumerate(lines) if line.startswith("== Final score")), len(lines))
    return [line.strip() for line in lines[:cut] if line.strip()]
