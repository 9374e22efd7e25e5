"""Goofspiel drawn as SVG (the contract: ``sim/core/draw.py`` in meeplab): the prize face up with the carried prizes
and the prize deck's back, and per seat its bid cards not yet revealed, its bid of this round and the prizes it won.

The only hidden things are the prize deck's order and the other seats' face-down bids: in a seat's view another
seat's bid of this round is a back (``class="back"``); only the everything view (``seat=None``) shows it face up
(``class="secret"``). A seat sees its own bid face up. The cards a seat has not revealed are public (its face-down
bid is still among them until the reveal), so they are drawn in every view."""

from __future__ import annotations

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK
from meeplab.sim.core.forward import C_KIND, C_N, C_NP, C_SEAT

from .engine import (
    C_CARRIED,
    C_NCARDS,
    C_ROUND,
    C_TURN,
    KIND_BID,
    LOGW,
    V_BIDS,
    V_DECK,
    V_HAND,
    V_LAST,
    V_NCARDS,
    V_POT,
    V_PRIZE,
    V_ROUND,
    V_WON,
)
from .replay import event_line, rounds_revealed

LOG_WIDTH = LOGW
CW, CH = 30, 42  # a card's width and height
GAP = 34  # card spacing in a row
TOP_H = 120  # the prize area
PANEL_X = 20
PANEL_H = 104
HAND_X = 130  # first bid card of a seat's row
PRIZE_FILL = "#f6e7a8"
BID_FILL = "#ffffff"
BACK_FILL = "#3b4f7a"


def _cards(ctx) -> int:
    return int(ctx.prm[0])


def _panel_y(p: int) -> int:
    return TOP_H + 10 + p * (PANEL_H + 8)


def _bid_x(ctx) -> int:
    return HAND_X + _cards(ctx) * GAP + 40


def size(ctx, n_players):
    return max(_bid_x(ctx) + 150, 560), _panel_y(n_players) + 10


def base(ctx, n_players):
    w, _ = size(ctx, n_players)
    out = [
        '<text x="20" y="24" class="title">Goofspiel: bid face down for the prize</text>',
        f'<rect id="prize" x="20" y="36" width="{w - 40}" height="{TOP_H - 40}" rx="8" fill="#f4efe2" '
        'stroke="#8a7a55" stroke-width="1.5"/>',
        '<text x="34" y="56" class="small">prize</text>',
        '<text x="150" y="56" class="small">carried</text>',
        f'<text x="{w - 150}" y="56" class="small">prizes face down</text>',
    ]
    for p in range(n_players):
        y0 = _panel_y(p)
        out.append(
            f'<rect id="seat-{p}" x="{PANEL_X}" y="{y0}" width="{w - 40}" height="{PANEL_H}" rx="8" '
            f'fill="#fbf7ee" stroke="{SEAT_COLOURS[p]}" stroke-width="3"/>'
            f'<circle cx="{PANEL_X + 18}" cy="{y0 + 18}" r="11" fill="{SEAT_COLOURS[p]}"/>'
            f'<text x="{PANEL_X + 18}" y="{y0 + 22}" text-anchor="middle" font-weight="bold" '
            f'fill="{SEAT_INK[p]}">{p + 1}</text>'
            f'<text x="{PANEL_X + 36}" y="{y0 + 23}" class="label">Player {p + 1}</text>'
            f'<text x="{PANEL_X + 10}" y="{y0 + 56}" class="small">cards</text>'
            f'<text x="{PANEL_X + 10}" y="{y0 + 92}" class="small">prizes won</text>'
            f'<text x="{_bid_x(ctx)}" y="{y0 + 23}" class="small">bid</text>'
        )
    return "\n".join(out)


def _card(x, y, value, fill, extra="", w=CW, h=CH):
    """A face-up card showing ``value``."""
    return (
        f'<g{extra}><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="{fill}" stroke="#333" '
        f'stroke-width="1.2"/><text x="{x + w / 2:g}" y="{y + h / 2 + 5:g}" text-anchor="middle" '
        f'font-weight="bold">{value}</text></g>'
    )


def _back(x, y, extra="", w=CW, h=CH):
    """A card face down."""
    return (
        f'<g class="back"{extra}><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="{BACK_FILL}" '
        f'stroke="#111" stroke-width="1.2"/><path d="M{x + 5} {y + 5} L{x + w - 5} {y + h - 5} M{x + w - 5} {y + 5} '
        f'L{x + 5} {y + h - 5}" stroke="#8ea3cf" stroke-width="1.5"/></g>'
    )


def _values(mask: int, n: int) -> list[int]:
    return [v for v in range(1, n + 1) if mask >> v & 1]


def _face_down(rec, s) -> bool:
    ctl = rec["ctl"]
    return s < int(ctl[C_TURN]) and int(ctl[C_ROUND]) < int(ctl[C_NCARDS])


def pieces(ctx, rec, seat=None):
    pub = rec["pub"]
    n = int(pub[V_NCARDS]) or _cards(ctx)
    np_ = int(rec["ctl"][C_NP])
    w, _ = size(ctx, np_)
    out = []
    prize = int(pub[V_PRIZE])
    if prize:
        out.append(_card(34, 62, prize, PRIZE_FILL, ' id="prize-card"', w=40, h=52))
    carried = _values(int(rec["ctl"][C_CARRIED]), n)
    for k, v in enumerate(carried):
        out.append(_card(150 + k * GAP, 66, v, PRIZE_FILL))
    if carried:
        out.append(f'<text x="{150 + len(carried) * GAP + 6}" y="92" class="small">{int(pub[V_POT])} at stake</text>')
    ahead = bin(int(pub[V_DECK])).count("1")
    if ahead:
        out.append(_back(w - 150, 62, w=40, h=52))
    out.append(f'<text x="{w - 100}" y="92" class="label">x{ahead}</text>')
    for p in range(np_):
        y0 = _panel_y(p)
        hand = int(pub[V_HAND + p])
        for v in _values(hand, n):  # public: the cards not yet revealed, a face-down bid among them
            out.append(_card(HAND_X + (v - 1) * GAP, y0 + 32, v, BID_FILL, f' id="card-{p}-{v}"'))
        bx = _bid_x(ctx)
        if _face_down(rec, p):
            bid = int(rec["facedown"][p, 0])
            if seat is None:
                out.append(_card(bx, y0 + 32, bid, BID_FILL, ' class="secret"'))
            elif seat == p:
                out.append(_card(bx, y0 + 32, bid, BID_FILL, ' class="own"'))
            else:
                out.append(_back(bx, y0 + 32))
        last = int(pub[V_LAST + p])
        if last:
            out.append(f'<text x="{bx + 40}" y="{y0 + 58}" class="small">last bid {last}</text>')
        won = _values(int(rec["taken"][p]), n)
        parts = [_card(HAND_X + k * 24, y0 + 76, v, PRIZE_FILL, w=20, h=24) for k, v in enumerate(won)]
        parts.append(
            f'<text x="{HAND_X + len(won) * 24 + 8}" y="{y0 + 93}" class="small">{int(pub[V_WON + p])} points</text>'
        )
        out.append("<g>" + "".join(parts) + "</g>")
    return out


def score(ctx, rec):
    pub = rec["pub"]
    return [float(pub[V_WON + p]) for p in range(int(rec["ctl"][C_NP]))]


def info(ctx, rec, seat=None):
    pub = rec["pub"]
    np_ = int(rec["ctl"][C_NP])
    n = int(pub[V_NCARDS]) or _cards(ctx)

    def bid_now(p):
        if not _face_down(rec, p):
            return "-"
        return str(int(rec["facedown"][p, 0])) if seat is None or seat == p else "face down"

    rows = [
        ["prize points", *[str(int(pub[V_WON + p])) for p in range(np_)]],
        ["cards left", *[str(len(_values(int(pub[V_HAND + p]), n))) for p in range(np_)]],
        ["bid this round", *[bid_now(p) for p in range(np_)]],
        ["last bid", *[str(int(pub[V_LAST + p]) or "-") for p in range(np_)]],
    ]
    return {"columns": [f"P{p + 1}" for p in range(np_)], "rows": rows}


def round_of(ctx, rec):
    pub = rec["pub"]
    return min(int(pub[V_ROUND]) + 1, max(int(pub[V_NCARDS]), 1))


def status(ctx, rec):
    pub = rec["pub"]
    ctl = rec["ctl"]
    n = int(pub[V_NCARDS])
    if int(pub[V_ROUND]) >= n:
        return f"Game over after {n} rounds"
    parts = [f"Round {int(pub[V_ROUND]) + 1} of {n}", f"prize {int(pub[V_PRIZE])}"]
    if int(pub[V_POT]) != int(pub[V_PRIZE]):
        parts.append(f"{int(pub[V_POT])} points at stake")
    if int(ctl[C_SEAT]) >= 0 and int(ctl[C_N]) > 0:
        parts.append(f"P{int(ctl[C_SEAT]) + 1} bids")
    parts.append(f"{int(pub[V_BIDS])} bid(s) face down")
    return " · ".join(parts)


def kind_name(kind):
    return "bid" if kind == KIND_BID else f"kind {kind}"


def moves(ctx, rec):
    ctl = rec["ctl"]
    seat, n = int(ctl[C_SEAT]), int(ctl[C_N])
    if int(ctl[C_KIND]) != KIND_BID:
        return []
    return [(f"bid {int(rec['moves'][i, 0])}", f"card-{seat}-{int(rec['moves'][i, 0])}") for i in range(n)]


def events(ctx, log, lo, hi, names, seat=None):
    """Log rows lo..hi in words, as ``seat`` may read them: another seat's bid is "P2 bids face down" until the rows
    read so far (up to ``hi``) turn that round's bids up; search rows are left out."""
    revealed = rounds_revealed(log[:hi])
    lines = (event_line(row, seat, revealed) for row in log[lo:hi])
    return [text for text in lines if text is not None]
