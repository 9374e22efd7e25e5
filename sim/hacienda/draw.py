"""Hacienda drawn as SVG (the contract: ``sim/core/draw.py``): the hex map (terrains, pampa, markets, water sources)
with each player's land tiles, animal tiles, haciendas and harvest chips, the water tiles, and beside it the face-up
cards, the piles and each player's pesos and hand. Hidden: the order of the decks and the cards in the other
players' hands (a seat's view shows their size and the cards it saw them buy face up)."""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace

import numpy as np

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK, esc
from meeplab.sim.core.forward import C_KIND, C_N, C_NP, C_SEAT

from . import layout as E
from .board import MARKET, PAMPA, SOURCE, TERRAINS
from .params import ANIMALS
from .replay import CARD, SHAPES, format_game
from .state import C_RND

LOG_WIDTH = E.LOGW
PRIVATE_MOVES = True  # "play mountain", "play pig": the candidates name the cards in the deciding seat's hand
R = 15.0  # hex radius (flat-topped)
MAP_X, MAP_Y = 14, 40
TERRAIN_FILL = ("#a68a6d", "#2f6b3a", "#a9d18e", "#9a9a9a", "#6f8f7a")  # mountain forest meadow rock swamp
TERRAIN_MARK = ("M", "F", "Me", "R", "Sw")
PAMPA_FILL = "#f1e4b3"
ANIMAL_MARK = ("C", "H", "P", "S")  # cattle horse pig sheep
CARD_FILL = list(TERRAIN_FILL) + [PAMPA_FILL, "#c9a27e", "#d9b38c", "#f3b6c4", "#eeeeee"]
CARD_SHORT = [*TERRAIN_MARK, "Pa", *ANIMAL_MARK]
KIND_NAMES = ("action", "land placement", "animal placement", "hacienda target", "water tile", "harvest")
ACTION_NAMES = (
    "buy a face-up land card",
    "buy a blind land card",
    "buy a face-up animal card",
    "buy a blind animal card",
    "play a card",
    "buy a hacienda",
    "buy a water tile",
    "harvest",
    "end the turn",
)


def _coords(ctx):
    """Every hex's centre, in hex order (see :func:`_geometry`)."""
    return _geometry(ctx)[0]


_GEOMETRY: dict[bytes, tuple[list[tuple[float, float]], str]] = {}  # a map's hex columns and rows -> its geometry


def _geometry(ctx):
    """(every hex's centre, the hex numbers' layer), made once per map: the viewer draws every step in every seat's
    view, and computing them per drawing (two array minima per hex, 240 labels) was most of a Hacienda page's time.
    Keyed by the map's columns and rows themselves, so that another map (or a changed one) never gets these."""
    b = ctx.board
    key = np.asarray(b.cols).tobytes() + b"|" + np.asarray(b.rows).tobytes()
    hit = _GEOMETRY.get(key)
    if hit is None:
        c0, r0 = int(b.cols.min()), int(b.rows.min())
        xy = [
            (
                MAP_X + R + (int(b.cols[i]) - c0) * 1.5 * R,
                MAP_Y + R * 0.87 + (int(b.rows[i]) - r0) * R * math.sqrt(3) / 2,
            )
            for i in range(b.n)
        ]
        if len(_GEOMETRY) >= 32:
            _GEOMETRY.clear()
        hit = _GEOMETRY[key] = (xy, _hex_numbers(ctx, xy))
    return hit


def _map_size(ctx):
    b = ctx.board
    w = (int(b.cols.max()) - int(b.cols.min())) * 1.5 * R + 2 * R
    h = (int(b.rows.max()) - int(b.rows.min())) * R * math.sqrt(3) / 2 + R * math.sqrt(3)
    return w, h


@functools.lru_cache(maxsize=8192)
def _hexpts(x, y, rad):
    """The SVG points of a hex of radius ``rad`` centred at (x, y) (remembered: every step of a viewer page draws
    the same spaces again)."""
    return " ".join(
        f"{x + rad * math.cos(math.radians(60 * k)):.1f},{y + rad * math.sin(math.radians(60 * k)):.1f}"
        for k in range(6)
    )


def _panel_x(ctx):
    return MAP_X + _map_size(ctx)[0] + 24


PANEL_W = 430
SEAT_H = 92


def size(ctx, n_players):
    mh = _map_size(ctx)[1]
    return _panel_x(ctx) + PANEL_W + 10, max(MAP_Y + mh, 170 + n_players * (SEAT_H + 8)) + 30


def base(ctx, n_players):
    b = ctx.board
    room = max(12, int((_panel_x(ctx) - MAP_X - 16) / 9.5) - 14)  # the title stays above the map (15 px bold)
    name = b.name if len(b.name) <= room else b.name[: room - 1] + "…"
    out = [f'<text x="{MAP_X}" y="24" class="title">Hacienda: map {esc(name)}</text>']
    xy = _coords(ctx)
    for i in range(b.n):
        x, y = xy[i]
        k = int(b.kind[i])
        if k < 5:
            fill, mark = TERRAIN_FILL[k], TERRAIN_MARK[k]
        elif k == PAMPA:
            fill, mark = PAMPA_FILL, ""
        elif k == MARKET:
            fill, mark = "#ffffff", "$"
        else:
            fill, mark = "#3d8fd1", "~"
        out.append(
            f'<polygon id="hx-{i}" points="{_hexpts(x, y, R)}" fill="{fill}" stroke="#5a4a30" stroke-width="0.6"/>'
        )
        if k == MARKET:
            out.append(
                f'<rect x="{x - 8:.1f}" y="{y - 7:.1f}" width="16" height="12" fill="#fff" stroke="#000"/>'
                f'<path d="M{x - 9:.1f} {y - 6:.1f} L{x:.1f} {y - 13:.1f} L{x + 9:.1f} {y - 6:.1f}" fill="#b5562e" '
                f'stroke="#000"/><text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" class="tiny">$</text>'
            )
        elif mark:
            ink = "#fff" if k in (1, 4) or k == SOURCE else "#222"
            out.append(
                f'<text x="{x:.1f}" y="{y + 3:.1f}" text-anchor="middle" class="tiny" fill="{ink}">{mark}</text>'
            )
    px = _panel_x(ctx)
    out.append(f'<text x="{px}" y="24" class="label">Face-up cards and piles</text>')
    out.append(f'<text x="{px}" y="52" class="small">land</text><text x="{px}" y="92" class="small">animals</text>')
    for p in range(n_players):
        y0 = 170 + p * (SEAT_H + 8)
        out.append(
            f'<rect id="seat-{p}" x="{px}" y="{y0}" width="{PANEL_W}" height="{SEAT_H}" rx="8" fill="#fbf7ee" '
            f'stroke="{SEAT_COLOURS[p]}" stroke-width="3"/>'
            f'<circle cx="{px + 16}" cy="{y0 + 17}" r="10" fill="{SEAT_COLOURS[p]}"/>'
            f'<text x="{px + 16}" y="{y0 + 21}" text-anchor="middle" font-weight="bold" fill="{SEAT_INK[p]}">{p + 1}'
            f'</text><text x="{px + 32}" y="{y0 + 22}" class="label">Player {p + 1}</text>'
            f'<text x="{px + 10}" y="{y0 + 58}" class="small">hand</text>'
        )
    legend = ", ".join(f"{m} {t}" for m, t in zip(TERRAIN_MARK, TERRAINS, strict=True))
    bottom = size(ctx, n_players)[1] - 12  # the legend under the map and the players' panels
    out.append(
        f'<text x="{MAP_X}" y="{bottom:.0f}" class="small">{legend}; $ market, ~ water; animals: '
        + ", ".join(f"{m} {a}" for m, a in zip(ANIMAL_MARK, ANIMALS, strict=True))
        + "</text>"
    )
    return "\n".join(out)


def _card(x, y, t, ident=""):
    idattr = f' id="{ident}"' if ident else ""
    if t < 0:
        return (
            f'<rect{idattr} x="{x}" y="{y}" width="30" height="38" rx="4" fill="none" stroke="#bbb" '
            'stroke-dasharray="3 3"/>'
        )
    ink = "#fff" if t in (1, 4) else "#222"
    return (
        f'<g{idattr}><rect x="{x}" y="{y}" width="30" height="38" rx="4" fill="{CARD_FILL[t]}" stroke="#333"/>'
        f'<text x="{x + 15}" y="{y + 24}" text-anchor="middle" class="tile" fill="{ink}">{CARD_SHORT[t]}</text></g>'
    )


def _pile(x, y, n, ident, label):
    return (
        f'<g id="{ident}" class="back"><rect x="{x}" y="{y}" width="30" height="38" rx="4" fill="#6b4a2b" '
        f'stroke="#333"/><rect x="{x + 3}" y="{y + 3}" width="24" height="32" rx="3" fill="none" stroke="#c9a27e"/>'
        f'<text x="{x + 15}" y="{y + 24}" text-anchor="middle" class="small" fill="#fff">{n}</text></g>'
        f'<text x="{x + 15}" y="{y + 50}" text-anchor="middle" class="tiny">{label}</text>'
    )


def pieces(ctx, rec, seat=None):
    pub = rec["pub"]
    b = ctx.board
    out = []
    xy = _coords(ctx)
    for i in range(b.n):
        v = int(pub[E.V_SPACE + i])
        if v < 0:
            continue
        x, y = xy[i]
        what, owner = v & 7, (v >> 3) & 7
        parts = []
        if what == E.W_WATER:
            parts.append(
                f'<polygon points="{_hexpts(x, y, R - 1.5)}" fill="#5fa8e8" stroke="#1b5e9a" stroke-width="1.2"/>'
                f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" class="small" fill="#fff">~</text>'
            )
        elif what == E.W_LAND:
            parts.append(
                f'<polygon points="{_hexpts(x, y, R - 2.5)}" fill="{SEAT_COLOURS[owner]}" stroke="#000" '
                f'stroke-width="0.8"/><text x="{x:.1f}" y="{y + 3:.1f}" text-anchor="middle" class="tiny" '
                f'fill="{SEAT_INK[owner]}">{owner + 1}</text>'
            )
        else:
            a = what - 1
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{R * 0.62:.1f}" fill="{SEAT_COLOURS[owner]}" stroke="#000" '
                f'stroke-width="1.4"/><text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" class="small" '
                f'font-weight="bold" fill="{SEAT_INK[owner]}">{ANIMAL_MARK[a] if 0 <= a < 4 else "?"}</text>'
            )
        if v & 64:
            parts.append(
                f'<circle cx="{x + 9:.1f}" cy="{y + 3:.1f}" r="3.6" fill="#f2c14e" stroke="#000" stroke-width="0.8"/>'
            )
        if v & 128:
            parts.append(
                f'<path d="M{x - 6:.1f} {y + 9:.1f} v-6 l6 -5 l6 5 v6 z" fill="#fff" stroke="#000" stroke-width="1.2"/>'
            )
        out.append("<g>" + "".join(parts) + "</g>")
    out.append(_geometry(ctx)[1])
    px = _panel_x(ctx)
    for j in range(8):  # the face-up slots (4 in the rule book; empty ones beyond the fourth are not drawn)
        for row, field, prefix in ((32, "dland", "dl"), (72, "danim", "da")):
            t = int(rec[field][j])
            if j < 4 or t >= 0:
                out.append(_card(px + 50 + j * 36, row, t, f"{prefix}-{j}"))
    out.append(_pile(px + 50, 116, int(pub[E.V_LAND_DECK]), "deck-land", "land"))
    out.append(_pile(px + 90, 116, int(pub[E.V_STACK1]), "deck-animal", "stack 1"))
    out.append(_pile(px + 130, 116, int(pub[E.V_STACK2]), "deck-animal2", "stack 2"))
    ws = ", ".join(f"{int(pub[E.V_WSUPPLY + k])} {SHAPES[k]}" for k in range(4))
    out.append(
        f'<text x="{px + 176}" y="{128}" class="small">haciendas left {int(pub[E.V_HAC_SUPPLY])}, chips '
        f'{int(pub[E.V_CHIPS_SUPPLY])}</text><text x="{px + 176}" y="{146}" class="small">water: {ws}</text>'
    )
    np_ = int(rec["ctl"][C_NP])
    for p in range(np_):
        y0 = 170 + p * (SEAT_H + 8)
        out.append(
            f'<text x="{px + 120}" y="{y0 + 22}" class="small">{int(rec["money"][p])} pesos, markets '
            f"{int(pub[E.V_MARKETS + p])}, points {sum(float(x) for x in rec['brk'][p]):g}</text>"
        )
        out.append(_hand(px + 50, y0 + 40, rec, p, seat))
    return out


def _hex_numbers(ctx, xy):
    """Each hex's number as the move labels write it ("hex 0103": column x 100 + row), small at the top of the hex,
    on a light tab over the pieces (a tile must not hide where it lies, and the number stays legible on any colour)
    and never in the way of a click: one string, the same at every step."""
    b = ctx.board
    parts = ['<g class="places" pointer-events="none">']
    for i in range(b.n):
        x, y = xy[i]
        parts.append(
            f'<rect x="{x - 8:.1f}" y="{y - 12.2:.1f}" width="16" height="6.4" rx="1.5" fill="#fff" '
            'fill-opacity="0.7"/>'
            f'<text x="{x:.1f}" y="{y - 7:.1f}" text-anchor="middle" class="place">'
            f"{_hex_name(ctx, i).removeprefix('hex ')}</text>"
        )
    return "".join(parts) + "</g>"


def _hand(x, y, rec, p, seat):
    """Player ``p``'s hand as ``seat`` sees it: all of it for the owner (and the None view), else its size and the
    cards seen bought face up."""
    hand = rec["hand"][p]
    parts = ["<g>"]
    if seat is None or seat == p:
        cls = ' class="secret"' if seat is None else ""
        parts[0] = f"<g{cls}>"
        for t in range(E.NT):
            c = int(hand[t])
            if c:
                parts.append(_mini(x, y, t, c))
                x += 38
        if len(parts) == 1:
            parts.append(f'<text x="{x}" y="{y + 18}" class="small">empty</text>')
    else:
        n = int(rec["pub"][E.V_HANDSIZE + p])
        parts.append(
            f'<g class="back"><rect x="{x}" y="{y}" width="26" height="34" rx="3" fill="#6b4a2b" stroke="#333"/>'
            f'<text x="{x + 13}" y="{y + 22}" text-anchor="middle" class="small" fill="#fff">{n}</text></g>'
        )
        x += 34
        known = rec["known"][p]
        seen = [(t, int(known[t])) for t in range(E.NT) if int(known[t]) > 0]
        if seen:
            parts.append(f'<text x="{x}" y="{y + 14}" class="tiny">seen:</text>')
            x += 30
            for t, c in seen:
                parts.append(_mini(x, y, t, c))
                x += 38
    parts.append("</g>")
    return "".join(parts)


def _mini(x, y, t, c):
    ink = "#fff" if t in (1, 4) else "#222"
    return (
        f'<rect x="{x}" y="{y}" width="24" height="32" rx="3" fill="{CARD_FILL[t]}" stroke="#333"/>'
        f'<text x="{x + 12}" y="{y + 15}" text-anchor="middle" class="tiny" fill="{ink}">{CARD_SHORT[t]}</text>'
        f'<text x="{x + 12}" y="{y + 28}" text-anchor="middle" class="tiny" fill="{ink}">x{c}</text>'
    )


def score(ctx, rec):
    return [float(rec["brk"][p].sum()) for p in range(int(rec["ctl"][C_NP]))]


CATS = ("markets", "chains", "haciendas", "water", "money")


def info(ctx, rec, seat=None):
    np_ = int(rec["ctl"][C_NP])
    pub = rec["pub"]
    brk = rec["brk"]
    rows = [["points", *[f"{x:g}" for x in score(ctx, rec)]]]
    for j, c in enumerate(CATS):
        rows.append([f"  {c} (mid + final)", *[f"{brk[p, j]:g} + {brk[p, j + 5]:g}" for p in range(np_)]])
    rows.append(["pesos", *[str(int(rec["money"][p])) for p in range(np_)]])
    rows.append(["markets reached", *[str(int(pub[E.V_MARKETS + p])) for p in range(np_)]])
    hand = []
    for p in range(np_):
        if seat is None or seat == p:
            hand.append(", ".join(f"{int(c)} {CARD[t]}" for t, c in enumerate(rec["hand"][p]) if c) or "empty")
        else:
            hand.append(f"{int(pub[E.V_HANDSIZE + p])} cards")
    rows.append(["hand", *hand])
    return {"columns": [f"P{p + 1}" for p in range(np_)], "rows": rows}


def round_of(ctx, rec):
    return int(rec["ctl"][C_RND]) + 1


def status(ctx, rec):
    pub = rec["pub"]
    ctl = rec["ctl"]
    phase = ("before the mid-game scoring", "after the mid-game scoring", "game over")[min(int(pub[E.V_PHASE]), 2)]
    parts = [f"Round {round_of(ctx, rec)}", phase]
    if int(ctl[C_SEAT]) >= 0 and int(ctl[C_N]) > 0:
        parts.append(f"P{int(ctl[C_SEAT]) + 1} decides: {kind_name(int(ctl[C_KIND]))}")
        parts.append(f"{int(pub[E.V_ACTIONS_LEFT])} actions left")
    card = int(pub[E.V_CARD])
    if card >= 0 and int(ctl[C_KIND]) in (E.K_LAND, E.K_ANIMAL):
        parts.append(f"placing {CARD[card]}")
    return " · ".join(parts)


def kind_name(kind):
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind {kind}"


def _hex_name(ctx, i):
    b = ctx.board
    return f"hex {int(b.cols[i]) * 100 + int(b.rows[i]):04d}" if i >= 0 else "-"


def water_cells(code: int) -> list[int]:
    """The hexes a water candidate covers, from its ``moves[i, 3]`` (anchor + 1024 x second + 1048576 x third; 1023:
    none)."""
    cells = [code % 1024, (code // 1024) % 1024, code // 1048576]
    return [c for c in cells if c != 1023]


def moves(ctx, rec):
    ctl = rec["ctl"]
    kind, n, seat = int(ctl[C_KIND]), int(ctl[C_N]), int(ctl[C_SEAT])
    out = []
    for i in range(n):
        m0, m1 = int(rec["moves"][i, 0]), int(rec["moves"][i, 1])
        if kind == E.K_ACTION:
            if m0 == E.A_PLAY:
                out.append((f"play {CARD[m1]}", f"seat-{seat}"))
            elif m0 == E.A_BUY_LAND_UP:
                out.append((f"buy face-up {CARD[int(rec['dland'][m1])]} (land slot {m1 + 1})", f"dl-{m1}"))
            elif m0 == E.A_BUY_ANIMAL_UP:
                out.append((f"buy face-up {CARD[int(rec['danim'][m1])]} (animal slot {m1 + 1})", f"da-{m1}"))
            elif m0 == E.A_BUY_LAND_BLIND:
                out.append((ACTION_NAMES[m0], "deck-land"))
            elif m0 == E.A_BUY_ANIMAL_BLIND:
                out.append((ACTION_NAMES[m0], "deck-animal"))
            else:
                out.append((ACTION_NAMES[m0] if 0 <= m0 < len(ACTION_NAMES) else f"action {m0}", f"seat-{seat}"))
        elif kind in (E.K_LAND, E.K_ANIMAL):
            out.append((f"place {CARD[m1]} on {_hex_name(ctx, m0)}", f"hx-{m0}"))
        elif kind == E.K_HACIENDA:
            what = "land chain" if m1 == 0 else f"{ANIMALS[m1 - 1]} herd"
            out.append((f"hacienda on the {what} at {_hex_name(ctx, m0)}", f"hx-{m0}"))
        elif kind == E.K_WATER:  # named by the hexes it covers: an anchor alone repeats over orientations
            cells = water_cells(int(rec["moves"][i, 3]))
            where = ", ".join(_hex_name(ctx, c).removeprefix("hex ") for c in cells)
            out.append((f"{SHAPES[m0]} water tile on hex{'es' if len(cells) > 1 else ''} {where}", f"hx-{m1}"))
        else:
            chip = f" (chip from {_hex_name(ctx, m1)})" if m1 >= 0 else ""
            out.append((f"harvest the chain at {_hex_name(ctx, m0)}{chip}", f"hx-{m0}"))
    return out


def events(ctx, log, lo, hi, names, seat=None):
    """The log rows in words: the replay's own lines for log rows lo..hi, without its header and final table; for
    ``seat``, other seats' starting hands and the cards they bought blind are not named."""
    rows = log[lo:hi]
    if len(rows) == 0:
        return []
    if seat is not None:
        rows = rows.copy()
        other = rows[:, 1] != seat
        setup = (rows[:, 0] == E.E_SETUP) & other
        rows[setup, 2] = 0  # no cards named: the line says how many the hand holds (below)
        rows[setup, 3] = 0
        blind = (rows[:, 0] == E.E_BUY) & (rows[:, 3] == 0) & other
        rows[blind, 2] = -1  # the replay writes "?" for an unknown card
    n = len(names)
    lineup = SimpleNamespace(names=list(names), rotate=False)
    text = format_game(ctx, lineup, 0, 0, n, rows, 0, np.zeros(n), np.zeros(n), np.zeros((n, 10)))
    lines = text.split("\n")[1 + n :]
    cut = next((i for i, line in enumerate(lines) if line.startswith("Game over after")), len(lines))
    out = []
    for line in lines[:cut]:
        line = _seat_names(line.strip())
        if line.endswith("pesos and"):  # another seat's starting hand, not named
            line += " a hand of cards"
        if line:
            out.append(line)
    return out


def _seat_names(line):
    """The replay's "seat 1" (numbered from 1, the start player) as the viewer writes it, "P1"."""
    import re

    return re.sub(r"\bseat (\d)\b", lambda m: f"P{m.group(1)}", line)
