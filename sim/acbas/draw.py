"""Agricola: All Creatures Big and Small drawn as SVG (the contract: ``sim/core/draw.py``): the action board with the
goods lying on each space and the workers on it, and both farm boards (3 rows, 2 to 6 columns) with their borders,
troughs, buildings, pastures and the animals housed in each container. Nothing is hidden in this game: every seat
sees everything, so a seat's view is the same drawing."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK
from meeplab.sim.core.forward import C_KIND, C_N, C_SEAT

from . import farm as F
from . import housing
from . import layout as L
from .params import BUILDING_NAMES, TYPES
from .replay import SLOT_NAMES, format_game, kept_text, plan_text, space_name
from .scoring import CATEGORIES, breakdown
from .state import C_RND

LOG_WIDTH = L.LOGW
KIND_NAMES = (
    "action space",
    "enclosure (borders)",
    "trough",
    "stall",
    "stables",
    "special building",
    "expansion side",
    "Shelter animal",
    "Open Stables animal",
    "keep or release animals",
)
SLOT_W, SLOT_H = 142, 58
CELL = 58
FARM_Y = 290
FARM_X = (20, 470)
GOODS_SHORT = ("wood", "stone", "reed", "sheep", "pig", "cow", "horse", "border")
GOOD_FILL = ("#a0522d", "#9e9e9e", "#e6c35c", "#f4f4f4", "#f3b6c4", "#6d4c41", "#c58b4e", "#5d4037")
ANIMAL_SHORT = ("sheep", "pig", "cow", "horse")
BLD_SHORT = ("", "Cottage", "H-T House", "Stall", "Stables", "Open St.", "Shelter", "Storage")


def size(ctx, n_players):
    return 920, FARM_Y + 3 * CELL + 110


def _slot_xy(i):
    return 20 + (i % 6) * (SLOT_W + 3), 40 + (i // 6) * (SLOT_H + 6)


def _farm_xy(p, s):
    c, r = divmod(s, 3)
    return FARM_X[p] + c * CELL, FARM_Y + 24 + r * CELL


def base(ctx, n_players):
    out = ['<text x="20" y="26" class="title">Agricola: All Creatures Big and Small: action spaces</text>']
    for i in range(L.NSLOT):
        x, y = _slot_xy(i)
        out.append(
            f'<rect id="slot-{i}" x="{x}" y="{y}" width="{SLOT_W}" height="{SLOT_H}" rx="6" fill="#f6efe0" '
            f'stroke="#8a7350"/><text x="{x + 6}" y="{y + 14}" class="small" font-weight="bold">{SLOT_NAMES[i]}'
            "</text>"
        )
    for p in range(2):
        out.append(
            f'<circle cx="{FARM_X[p] + 10}" cy="{FARM_Y - 4}" r="10" fill="{SEAT_COLOURS[p]}"/>'
            f'<text x="{FARM_X[p] + 10}" y="{FARM_Y}" text-anchor="middle" font-weight="bold" '
            f'fill="{SEAT_INK[p]}">{p + 1}</text><text x="{FARM_X[p] + 26}" y="{FARM_Y + 1}" class="label">'
            f"Player {p + 1}: farm</text>"
        )
        for s in range(F.NSPACE):
            x, y = _farm_xy(p, s)
            out.append(
                f'<rect id="f{p}-s{s}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="#eef3e6" '
                f'stroke="#d5dccb" stroke-dasharray="3 3"/>'
            )
    out.append(
        f'<text x="20" y="{FARM_Y + 3 * CELL + 100}" class="small">Thick dark lines: borders (fences and walls); '
        "T: trough; shaded: a closed pasture; a dashed column is not built yet (expansion).</text>"
    )
    return "\n".join(out)


def _worker(x, y, seat):
    return (
        f'<g><circle cx="{x}" cy="{y}" r="10" fill="{SEAT_COLOURS[seat]}" stroke="#000"/>'
        f'<text x="{x}" y="{y + 4}" text-anchor="middle" class="small" font-weight="bold" '
        f'fill="{SEAT_INK[seat]}">{seat + 1}</text></g>'
    )


def _housing(ctx, ps):
    """Which animals each container holds: [(space mask, animal type, count)] (the engine's own housing)."""
    caps = np.zeros(F.MAXC, np.int64)
    sm = np.zeros(F.MAXC, np.int64)
    kd = np.zeros(F.MAXC, np.int64)
    K, past = F.containers(ps, ctx.prm, caps, sm, kd)
    animals = np.array([int(ps[F.P_AN + t]) for t in range(4)], np.int64)
    assign = np.zeros(F.MAXC, np.int64)
    kept = np.zeros(4, np.int64)
    housing.house(caps, K, animals, ctx.prm, assign, kept, np.zeros(housing.SCRATCH, np.int64))
    left = [int(x) for x in animals]
    out = []
    for k in range(int(K)):
        t = int(assign[k])
        if t < 0:
            continue
        n = min(left[t], int(caps[k]))
        left[t] -= n
        if n:
            out.append((int(sm[k]), t, n))
    return out, int(past)


def _farm(ctx, rec, p):
    ps = rec["ps"][p].copy()
    ncols = int(ps[F.P_NCOLS])
    home = int(ps[F.P_HOME])
    e = int(ps[F.P_E])
    troughs = int(ps[F.P_T])
    parts = []
    held, past = _housing(ctx, ps)
    for s in range(3 * ncols):
        x, y = _farm_xy(p, s)
        fill = "#cfe3b4" if (past >> s) & 1 else "#e3efd3"
        col = s // 3
        edge = "#9c8" if col in (home, home + 1) else "#bcd"
        parts.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="{edge}"/>')
        b = int(ps[F.P_BLD + s])
        if b:
            parts.append(
                f'<rect x="{x + 4}" y="{y + 4}" width="{CELL - 8}" height="18" rx="3" fill="#b5562e" stroke="#000"/>'
                f'<text x="{x + CELL / 2}" y="{y + 17}" text-anchor="middle" class="tiny" fill="#fff">{BLD_SHORT[b]}'
                "</text>"
            )
        if (troughs >> s) & 1:
            parts.append(
                f'<rect x="{x + 5}" y="{y + CELL - 16}" width="20" height="11" rx="2" fill="#8d6e63" stroke="#000"/>'
                f'<text x="{x + 15}" y="{y + CELL - 7}" text-anchor="middle" class="tiny" fill="#fff">T</text>'
            )
    for mask, t, n in held:
        s = (mask & -mask).bit_length() - 1
        x, y = _farm_xy(p, s)
        parts.append(
            f'<circle cx="{x + CELL - 17}" cy="{y + CELL / 2 + 6}" r="12" fill="{GOOD_FILL[3 + t]}" stroke="#000"/>'
            f'<text x="{x + CELL - 17}" y="{y + CELL / 2 + 10}" text-anchor="middle" class="small" font-weight="bold" '
            f'fill="{"#fff" if t == 2 else "#000"}">{n}</text>'
            f'<text x="{x + CELL - 17}" y="{y + CELL / 2 + 27}" text-anchor="middle" class="tiny">{ANIMAL_SHORT[t]}'
            "</text>"
        )
    # borders: vertical edge left of column b in row r = 7b + r; horizontal above row r of column c = 7c + 3 + r
    for b_ in range(ncols + 1):
        for r in range(3):
            if (e >> (7 * b_ + r)) & 1:
                x, y = _farm_xy(p, 3 * b_ + r) if b_ < F.NCOLS_MAX else (FARM_X[p] + b_ * CELL, FARM_Y + 24 + r * CELL)
                parts.append(f'<path d="M{x} {y} v{CELL}" stroke="#3e2723" stroke-width="5" stroke-linecap="round"/>')
    for c in range(ncols):
        for r in range(4):
            if (e >> (7 * c + 3 + r)) & 1:
                x, y = FARM_X[p] + c * CELL, FARM_Y + 24 + r * CELL
                parts.append(f'<path d="M{x} {y} h{CELL}" stroke="#3e2723" stroke-width="5" stroke-linecap="round"/>')
    return "<g>" + "".join(parts) + "</g>"


def _space_names():
    """Each farm space's name as the move labels write it (A1 .. F3: column from the farm's left edge, row from the
    top), small at the left of the space, over the farm and never in the way of a click: one string for every step."""
    parts = ['<g class="places" pointer-events="none">']
    for p in range(2):
        for s in range(F.NSPACE):
            x, y = _farm_xy(p, s)
            parts.append(f'<text x="{x + 3}" y="{y + CELL / 2 + 2:g}" class="place big">{space_name(s)}</text>')
    return "".join(parts) + "</g>"


_SPACE_NAMES = _space_names()


def pieces(ctx, rec, seat=None):
    gs = rec["gs"]
    out = []
    for i in range(L.NSLOT):
        x, y = _slot_xy(i)
        goods = [int(gs[L.GS_ACC + i * L.NG + g]) for g in range(L.NG)]
        text = ", ".join(f"{n} {GOODS_SHORT[g]}" for g, n in enumerate(goods) if n)
        if text:
            out.append(f'<text x="{x + 6}" y="{y + 32}" class="small">{text}</text>')
        occ = int(gs[L.GS_OCC + i])
        if occ >= 0:
            out.append(_worker(x + SLOT_W - 16, y + SLOT_H - 16, occ))
    for p in range(2):
        out.append(_farm(ctx, rec, p))
        ps = rec["ps"][p]
        res = (
            f"{int(ps[F.P_WOOD])} wood, {int(ps[F.P_STONE])} stone, {int(ps[F.P_REED])} reed, "
            f"{int(ps[F.P_BORD])} borders in hand, {int(rec['left'][p])} workers to place"
        )
        out.append(f'<text x="{FARM_X[p]}" y="{FARM_Y + 3 * CELL + 44}" class="small">{res}</text>')
        an = ", ".join(f"{int(ps[F.P_AN + t])} {TYPES[t]}" for t in range(4))
        out.append(f'<text x="{FARM_X[p]}" y="{FARM_Y + 3 * CELL + 62}" class="small">animals: {an}</text>')
    out.append(_SPACE_NAMES)
    start = int(gs[L.GS_START])
    out.append(
        f'<text x="20" y="{40 + 3 * (SLOT_H + 6) + 14}" class="small">round {int(gs[L.GS_ROUND]) + 1}; start player '
        f"P{start + 1}; troughs left {int(gs[L.GS_TROUGHS])}, stalls left {int(gs[L.GS_STALLS])}, expansions left "
        f"{int(gs[L.GS_EXPS])}; special buildings available: "
        + (", ".join(BUILDING_NAMES[int(L.SPECIAL_CODES[j])] for j in range(4) if int(gs[L.GS_SPEC + j])) or "none")
        + "</text>"
    )
    return out


def score(ctx, rec):
    """Points so far: the final scoring of each farm as it stands (the engine's own scoring parts)."""
    out = []
    for p in range(2):
        out.append(float(_parts(ctx, rec, p).sum()))
    return out


def _parts(ctx, rec, p):
    out = np.zeros(len(CATEGORIES))
    breakdown(np.asarray(rec["ps"][p], np.int64).copy(), ctx.prm, ctx.prmf, out)
    return out


def info(ctx, rec, seat=None):
    rows = []
    parts = [_parts(ctx, rec, p) for p in range(2)]
    rows.append(["points (scored now)", *[f"{x.sum():g}" for x in parts]])
    for j, c in enumerate(CATEGORIES):
        rows.append([f"  {c.replace('_', ' ')}", *[f"{x[j]:g}" for x in parts]])
    for name, k in (("wood", F.P_WOOD), ("stone", F.P_STONE), ("reed", F.P_REED), ("borders in hand", F.P_BORD)):
        rows.append([name, *[str(int(rec["ps"][p][k])) for p in range(2)]])
    rows.append(["workers to place", *[str(int(rec["left"][p])) for p in range(2)]])
    return {"columns": ["P1", "P2"], "rows": rows}


def round_of(ctx, rec):
    return int(rec["ctl"][C_RND]) + 1


def status(ctx, rec):
    ctl = rec["ctl"]
    parts = [f"Round {round_of(ctx, rec)}"]
    if int(ctl[C_SEAT]) >= 0 and int(ctl[C_N]) > 0:
        parts.append(f"P{int(ctl[C_SEAT]) + 1} decides: {kind_name(int(ctl[C_KIND]))}")
    return " · ".join(parts)


def kind_name(kind):
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind {kind}"


def moves(ctx, rec):
    ctl = rec["ctl"]
    kind, n, seat = int(ctl[C_KIND]), int(ctl[C_N]), int(ctl[C_SEAT])
    out = []
    for i in range(n):
        m0, m1 = int(rec["moves"][i, 0]), int(rec["moves"][i, 1])
        farm = f"f{seat}-s0"
        if kind == L.K_ACTION:
            out.append((SLOT_NAMES[m0], f"slot-{m0}"))
        elif kind == L.K_PLAN:
            mv = rec["moves"][i]
            ncols = int(rec["ps"][seat][F.P_NCOLS])
            out.append((plan_text(m0, m1, int(mv[2]), int(mv[3]), ncols), farm))
        elif kind in (L.K_TROUGH, L.K_STALL):
            what = "trough" if kind == L.K_TROUGH else "stall"
            out.append(("stop" if m0 < 0 else f"{what} on {space_name(m0)}", None if m0 < 0 else f"f{seat}-s{m0}"))
        elif kind == L.K_STABLES:
            pay = "wood" if m1 == 0 else "stone"
            out.append(
                ("stop" if m0 < 0 else f"stables on {space_name(m0)} ({pay})", None if m0 < 0 else f"f{seat}-s{m0}")
            )
        elif kind == L.K_SPECIAL:
            out.append((f"{BUILDING_NAMES[m0]} on {space_name(m1)}", f"f{seat}-s{m1}"))
        elif kind == L.K_EXPAND:
            out.append(("expand on the left" if m0 == 1 else "expand on the right", farm))
        elif kind in (L.K_SHELTER, L.K_OPENST):
            out.append((f"take {TYPES[m0]}", farm))
        elif kind == L.K_KEEP:
            out.append(("keep " + kept_text(m0) + (f", release {m1}" if m1 else ""), farm))
        else:
            out.append((f"{m0} {m1}", None))
    return out


def events(ctx, log, lo, hi, names, seat=None):
    """Log rows lo..hi in words: the replay's own lines, without its header, farm drawings and final table (every
    seat reads the same: nothing in the log is hidden)."""
    rows = log[lo:hi]
    rows = rows[rows[:, 0] != L.E_FARM] if len(rows) else rows
    if len(rows) == 0:
        return []
    lineup = SimpleNamespace(names=list(names), rotate=False)
    z = np.zeros(2)
    text = format_game(ctx, lineup, 0, 0, rows, z, z, np.zeros((2, len(CATEGORIES))))
    lines = text.split("\n")[4:]
    cut = next((i for i, line in enumerate(lines) if line.startswith("=== Final score")), len(lines))
    return [ln.strip() for ln in lines[:cut] if ln.strip()]  # the replay numbers players from P1, the start player
