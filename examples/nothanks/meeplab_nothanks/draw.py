"""No Thanks! drawn as SVG (the contract: ``sim/core/draw.py`` in meeplab): the card on offer with the chips on it,
the deck (a back and how many cards are still to come) and the cards set aside, and per seat a panel with its chips
and its face-up cards, each run of consecutive cards grouped (only its lowest card counts: drawn bold, the others
pale).

What is hidden is what the game declares hidden (``GAME.hidden``: the field ``deck`` after the card face up): the
order of the cards still to come and which cards were set aside. A seat's view draws them as backs
(``class="back"``) with their counts only; the everything view (``seat=None``) also lays them out face up
(``class="secret"``). Chips are public in this implementation, as the engine declares them (every payment and every
take is seen, so a seat that counts knows every stack; the bots' view holds them): every seat's view shows every
seat's chips. The published rules keep chip stacks face down; a variant that hides them would declare ``chips``
hidden, keep them out of the bots' view and draw other seats' stacks as backs here."""

from __future__ import annotations

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK
from meeplab.sim.core.forward import C_KIND, C_N, C_NP, C_SEAT

from .engine import C_INPLAY, C_NCARDS, C_POS, C_POT, C_TURN, E_PASS, E_TAKE, E_TURN, K_CARD, LOGW, PASS, TAKE

LOG_WIDTH = LOGW
PRIVATE_MOVES = False  # take or pass: the candidates show nothing only the deciding seat knows

# seats 6 and 7 wear the colours of seats 1 and 2 again, as in the viewer's chart and panel; every seat carries its
# number, never colour alone
COLOURS = tuple(SEAT_COLOURS[p % len(SEAT_COLOURS)] for p in range(10))
INK = tuple(SEAT_INK[p % len(SEAT_INK)] for p in range(10))

W = 820  # the drawing's width
TOP_H = 150  # the card on offer, the deck, the cards set aside
PANEL_H = 66
CARDS_X = 200  # a seat's first card
CW, CH = 26, 40  # a card in a seat's panel
STEP, GAP = 20, 10  # a card's step within a run, the gap between runs
CARD_FILL = "#ffffff"
PALE_FILL = "#e9e6df"  # a card that does not count (not the lowest of its run)
BACK_FILL = "#3b4f7a"
CHIP_FILL = "#c0392b"
MINI_ROW = 18  # small cards per row in the everything view


def _panel_y(p: int) -> int:
    return TOP_H + 10 + p * (PANEL_H + 8)


def size(ctx, n_players):
    return W, _panel_y(n_players) + 10


def base(ctx, n_players):
    out = [
        '<text x="20" y="24" class="title">No Thanks!: take the card or pay a chip</text>',
        '<rect id="offer" x="20" y="36" width="200" height="104" rx="8" fill="#f4efe2" stroke="#8a7a55" '
        'stroke-width="1.5"/>',
        '<text x="30" y="52" class="small">on offer</text>',
        '<text x="240" y="52" class="small">deck, unseen</text>',
        '<text x="330" y="52" class="small">set aside, unseen</text>',
    ]
    for p in range(n_players):
        y0 = _panel_y(p)
        out.append(
            f'<g><rect id="seat-{p}" x="20" y="{y0}" width="{W - 40}" height="{PANEL_H}" rx="8" fill="#fbf7ee" '
            f'stroke="{COLOURS[p]}" stroke-width="3"/>'
            f'<circle cx="38" cy="{y0 + 18}" r="11" fill="{COLOURS[p]}"/>'
            f'<text x="38" y="{y0 + 22}" text-anchor="middle" font-weight="bold" fill="{INK[p]}">{p + 1}</text>'
            f'<text x="56" y="{y0 + 23}" class="label">Player {p + 1}</text>'
            f'<rect id="chips-{p}" x="30" y="{y0 + 34}" width="150" height="26" rx="6" fill="#ffffff" '
            'stroke="#c9c1ad"/></g>'
        )
    return "\n".join(out)


def values(mask: int) -> list[int]:
    """The cards of a bit mask, lowest first."""
    return [v for v in range(mask.bit_length()) if mask >> v & 1]


def runs(cards: list[int]) -> list[list[int]]:
    """Sorted cards grouped into runs of consecutive values: ``[3, 4, 5, 9]`` -> ``[[3, 4, 5], [9]]``."""
    out: list[list[int]] = []
    for v in cards:
        if out and out[-1][-1] == v - 1:
            out[-1].append(v)
        else:
            out.append([v])
    return out


def card_points(mask: int) -> int:
    """The lowest card of each run, summed: what a seat's cards count."""
    return sum(r[0] for r in runs(values(mask)))


def _card(x, y, value, fill="#ffffff", bold=True, w=CW, h=CH, big=False):
    """A card face up, its value in the top-left corner (readable where cards overlap), or big in the middle."""
    if big:
        text = f'<text x="{x + w / 2:g}" y="{y + h / 2 + 6:g}" text-anchor="middle" class="title">{value}</text>'
    else:
        text = f'<text x="{x + 3:g}" y="{y + 13}" font-weight="{"bold" if bold else "normal"}">{value}</text>'
    return (
        f'<g><rect x="{x:g}" y="{y}" width="{w}" height="{h}" rx="3" fill="{fill}" stroke="#333" stroke-width="1.1"/>'
        f"{text}</g>"
    )


def _mini(x, y, value, fill):
    """A small card face up (the everything view's cards nobody has seen)."""
    return (
        f'<g><rect x="{x}" y="{y}" width="17" height="22" rx="2" fill="{fill}" stroke="#555" stroke-width="0.8"/>'
        f'<text x="{x + 8.5:g}" y="{y + 15}" text-anchor="middle" class="small" font-weight="bold">{value}</text></g>'
    )


def _back(x, y, w, h, extra=""):
    """A card face down."""
    return (
        f'<g class="back"{extra}><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="{BACK_FILL}" '
        f'stroke="#111" stroke-width="1.2"/><path d="M{x + 5} {y + 5} L{x + w - 5} {y + h - 5} M{x + w - 5} {y + 5} '
        f'L{x + 5} {y + h - 5}" stroke="#8ea3cf" stroke-width="1.5"/></g>'
    )


def _chips(x, y, n, word=True):
    """A stack of ``n`` chips (up to five drawn) and the count."""
    discs = "".join(
        f'<circle cx="{x + 8}" cy="{y - 3 * k}" r="7" fill="{CHIP_FILL}" stroke="#5a1a12" stroke-width="1"/>'
        for k in range(min(n, 5))
    )
    label = f"{n} chip{'' if n == 1 else 's'}" if word else str(n)
    return f'<g>{discs}<text x="{x + 22}" y="{y + 4}" class="label">{label}</text></g>'


def _seat_cards(mask: int, y: int) -> str:
    """A seat's face-up cards, runs grouped: each run's cards overlap, the lowest (the one that counts) bold on
    white, the others pale; squeezed to fit the panel if a seat holds very many."""
    groups = runs(values(mask))
    xs, x = [], 0.0
    for g in groups:
        for k in range(len(g)):
            xs.append(x + k * STEP)
        x = xs[-1] + CW + GAP
    room = W - 30 - CARDS_X - CW
    scale = min(1.0, room / xs[-1]) if xs and xs[-1] > 0 else 1.0
    cards = [v for g in groups for v in g]
    lowest = {g[0] for g in groups}
    out = [
        _card(CARDS_X + dx * scale, y, v, CARD_FILL if v in lowest else PALE_FILL, v in lowest)
        for dx, v in zip(xs, cards)
    ]
    return "<g>" + "".join(out) + "</g>"


def pieces(ctx, rec, seat=None):
    ctl = rec["ctl"]
    np_ = int(ctl[C_NP])
    pos, inplay, ncards = int(ctl[C_POS]), int(ctl[C_INPLAY]), int(ctl[C_NCARDS])
    over = pos >= inplay
    out = []
    if not over:
        out.append(_card(34, 62, int(rec["deck"][pos]), CARD_FILL, w=52, h=70, big=True))
        out.append(_chips(104, 100, int(ctl[C_POT])))
    left = max(0, inplay - pos - 1)  # public: how many cards are still to be turned up
    if left:
        out.append(_back(240, 62, 44, 62))
    out.append(f'<text x="290" y="98" class="label">x{left}</text>')
    aside = ncards - inplay
    if aside:
        out.append(_back(330, 62, 44, 62))
    out.append(f'<text x="380" y="98" class="label">x{aside}</text>')
    if seat is None and not over:  # the everything view: the cards to come in order, then those set aside (pale)
        hidden = [(int(c), CARD_FILL) for c in rec["deck"][pos + 1 : inplay]]
        hidden += [(int(c), PALE_FILL) for c in rec["deck"][inplay:ncards]]
        out.append(
            '<g class="secret"><text x="450" y="52" class="small">in order: to come, then set aside (pale)</text>'
            + "".join(_mini(450 + k % MINI_ROW * 19, 58 + k // MINI_ROW * 24, c, f) for k, (c, f) in enumerate(hidden))
            + "</g>"
        )
    turn = -1 if over else int(ctl[C_TURN])
    for p in range(np_):
        y0 = _panel_y(p)
        mask = int(rec["held"][p])
        chips = int(rec["chips"][p])
        out.append(_chips(38, y0 + 51, chips))
        if mask:
            out.append(_seat_cards(mask, y0 + 14))
        pts = card_points(mask)
        out.append(
            f'<text x="{W - 30}" y="{y0 + 20}" text-anchor="end" class="small">cards {pts} - chips {chips} = '
            f"{pts - chips}</text>"
        )
        if p == turn:
            out.append(f'<text x="130" y="{y0 + 23}" class="label" fill="#d55e00">to act</text>')
    return out


def score(ctx, rec):
    """Points so far per seat (lowest wins): the runs' lowest cards less the chips."""
    ctl = rec["ctl"]
    return [float(card_points(int(rec["held"][p])) - int(rec["chips"][p])) for p in range(int(ctl[C_NP]))]


def info(ctx, rec, seat=None):
    np_ = int(rec["ctl"][C_NP])
    held = [int(rec["held"][p]) for p in range(np_)]
    chips = [int(rec["chips"][p]) for p in range(np_)]
    return {
        "columns": [f"P{p + 1}" for p in range(np_)],
        "rows": [
            ["chips", *chips],
            ["cards", *[len(values(m)) for m in held]],
            ["runs", *[len(runs(values(m))) for m in held]],
            ["card points", *[card_points(m) for m in held]],
            ["score (lowest wins)", *[card_points(m) - c for m, c in zip(held, chips)]],
        ],
    }


def round_of(ctx, rec):
    """The card being offered, from 1."""
    ctl = rec["ctl"]
    return max(1, min(int(ctl[C_POS]) + 1, int(ctl[C_INPLAY])))


def status(ctx, rec):
    ctl = rec["ctl"]
    pos, inplay = int(ctl[C_POS]), int(ctl[C_INPLAY])
    if pos >= inplay:
        return f"Game over: all {inplay} cards taken"
    pot = int(ctl[C_POT])
    parts = [
        f"Card {pos + 1} of {inplay}",
        f"{int(rec['deck'][pos])} on offer with {pot} chip{'' if pot == 1 else 's'}",
        f"{inplay - pos - 1} to come",
    ]
    if int(ctl[C_SEAT]) >= 0 and int(ctl[C_N]) > 0:
        parts.append(f"P{int(ctl[C_SEAT]) + 1} to decide")
    return " · ".join(parts)


def kind_name(kind):
    return "take or pass" if kind == K_CARD else f"kind {kind}"


def moves(ctx, rec):
    ctl = rec["ctl"]
    seat, n = int(ctl[C_SEAT]), int(ctl[C_N])
    if seat < 0 or int(ctl[C_KIND]) != K_CARD or int(ctl[C_POS]) >= int(ctl[C_INPLAY]):
        return []
    card, pot = int(rec["deck"][int(ctl[C_POS])]), int(ctl[C_POT])
    out = []
    for i in range(n):
        m = int(rec["moves"][i, 0])
        if m == TAKE:
            out.append((f"take {card}" + (f" and {pot} chip{'' if pot == 1 else 's'}" if pot else ""), "offer"))
        elif m == PASS:
            out.append(("no thanks: pay a chip", f"chips-{seat}"))
        else:
            out.append((f"move {m}", None))
    return out


def events(ctx, log, lo, hi, names, seat=None):
    """Log rows lo..hi in words (search rows left out). Everything logged is public: the card turned up, who takes
    it with how many chips, who pays (and the chips left), so every seat reads the same lines."""
    out = []
    for row in log[lo:hi]:
        code, who, a, b = (int(x) for x in row[:4])
        if code == E_TURN and b == 0:
            out.append(f"{a} turned up")
        elif code == E_TAKE:
            out.append(f"P{who + 1} takes {a}" + (f" and {b} chip{'' if b == 1 else 's'}" if b else ""))
        elif code == E_PASS:
            out.append(f"P{who + 1}: no thanks on {a} ({b} chip{'' if b == 1 else 's'} left)")
    return out
