"""The engine's event log as readable text, with a drawing of each farm after every round."""

import numpy as np

from . import engine as E
from . import farm as F
from . import housing
from .params import BUILDING_NAMES, TYPES
from .scoring import CATEGORIES

SLOT_NAMES = (
    "Start player + wood",
    "3 wood",
    "1 stone",
    "2 stone",
    "Building materials",
    "Fences",
    "Walls",
    "Expand",
    "Troughs",
    "Stall",
    "Stables",
    "Special building",
    "Special building (2nd slot)",
    "Millpond",
    "Pigs and sheep",
    "Cows and pigs",
    "Horses and sheep",
)
GOODS = ("wood", "stone", "reed", "sheep", "pigs", "cows", "horses")
BLD_CHAR = ".CHsSOhW"  # none, cottage, Half-Timbered House, stall, stables, Open Stables, Shelter, Storage
TYPE_CHAR = "spch"


def space_name(s):
    return f"{'ABCDEF'[s // 3]}{s % 3 + 1}"


def spaces_text(mask):
    return " ".join(space_name(s) for s in range(18) if (int(mask) >> s) & 1)


def border_name(e, ncols):
    """Border position ``e`` (farm.py's edge numbering) in words, by the spaces beside it: "between A1 and B1", or on
    the farm's edge "left of A1", "above A1", "below A3", "right of B1" (the farm has ``ncols`` columns)."""
    b, j = divmod(int(e), 7)
    if j < 3:  # vertical, left of column b in row j
        if b == 0:
            return f"left of {space_name(j)}"
        if b >= ncols:
            return f"right of {space_name(3 * (b - 1) + j)}"
        return f"between {space_name(3 * (b - 1) + j)} and {space_name(3 * b + j)}"
    r = j - 3  # horizontal, above row r of column b (r = 3: below the farm)
    if r == 0:
        return f"above {space_name(3 * b)}"
    if r == 3:
        return f"below {space_name(3 * b + 2)}"
    return f"between {space_name(3 * b + r - 1)} and {space_name(3 * b + r)}"


def plan_text(edges, k, region, open_space, ncols):
    """An enclosure plan (a row of plans.gen_plans: edge mask, borders, region space mask, open space or -1) in words:
    the spaces it encloses and the space it stays open towards, or, for a single border, where it goes."""
    if k == 0:
        return "stop building borders"
    if region == 0:
        where = ", ".join(border_name(e, ncols) for e in range(F.NEDGE) if (int(edges) >> e) & 1)
        return f"a border {where}" if k == 1 else f"{k} borders: {where}"
    text = f"enclose {spaces_text(region)} ({k} border{'s' if k > 1 else ''}"
    return text + (f", open towards {space_name(open_space)})" if open_space >= 0 else ")")


def _goods(vals):
    parts = [f"{v} {GOODS[i]}" for i, v in enumerate(vals) if v]
    return ", ".join(parts) if parts else "nothing"


def draw_farm(prm, ncols, home, borders, troughs, packed, animals):
    """Text drawing: '===' / '|' borders, building letter, 't' trough, animals per container."""
    ps = np.zeros(F.P_SIZE, np.int64)
    ps[F.P_NCOLS] = ncols
    ps[F.P_HOME] = home
    ps[F.P_E] = borders
    ps[F.P_T] = troughs
    for s in range(18):
        ps[F.P_BLD + s] = (packed >> (3 * s)) & 7
    caps = np.zeros(F.MAXC, np.int64)
    sm = np.zeros(F.MAXC, np.int64)
    kd = np.zeros(F.MAXC, np.int64)
    K, _ = F.containers(ps, prm, caps, sm, kd)
    assign = np.zeros(F.MAXC, np.int64)
    kept = np.zeros(4, np.int64)
    housing.house(caps, K, np.array(animals, np.int64), prm, assign, kept, np.zeros(housing.SCRATCH, np.int64))
    left = list(animals)
    label = {}
    for k in range(K):
        t = assign[k]
        if t < 0:
            continue
        n = min(left[t], caps[k])
        left[t] -= n
        cells = [s for s in range(18) if (int(sm[k]) >> s) & 1]
        label[cells[0]] = f"{n}{TYPE_CHAR[t]}" if n else ""
        for s in cells[1:]:
            label[s] = f"~{TYPE_CHAR[t]}" if n else ""
    e = int(borders)
    lines = []
    for r in range(4):
        row = ""
        for c in range(ncols):
            row += "+" + ("=====" if (e >> (7 * c + 3 + r)) & 1 else "     ")
        lines.append(row + "+")
        if r == 3:
            break
        row = ""
        for c in range(ncols + 1):
            row += "|" if (e >> (7 * c + r)) & 1 else " "
            if c == ncols:
                break
            s = 3 * c + r
            b = BLD_CHAR[(packed >> (3 * s)) & 7]
            t = "t" if (int(troughs) >> s) & 1 else " "
            row += f"{b if b != '.' else ' '}{t}{label.get(s, ''):>3}"
        lines.append(row)
    lines.append(
        " "
        + "".join(f"  {'ABCDEF'[c]}{'*' if c in (home, home + 1) else ' '}  " for c in range(ncols))
        + "   (* home board)"
    )
    return lines


def kept_text(packed):
    """A kept vector of the keep-or-release decision (16 bits per type, sheep lowest) in words."""
    parts = [f"{(packed >> (16 * t)) & 0xFFFF} {TYPES[t]}" for t in range(4) if (packed >> (16 * t)) & 0xFFFF]
    return ", ".join(parts) if parts else "no animals"


def _move(kind, m0, m1):
    """A candidate of decision ``kind`` in words (for the search lines of --explain)."""
    if kind == E.K_ACTION:
        return SLOT_NAMES[m0]
    if kind == E.K_PLAN:
        return "stop" if m1 == 0 else f"{m1} border(s)"
    if kind in (E.K_TROUGH, E.K_STALL):
        return "stop" if m0 < 0 else space_name(m0)
    if kind == E.K_STABLES:
        return "stop" if m0 < 0 else f"{space_name(m0)} ({'wood' if m1 == 0 else 'stone'})"
    if kind == E.K_SPECIAL:
        return f"{BUILDING_NAMES[m0]} on {space_name(m1)}"
    if kind == E.K_EXPAND:
        return "left" if m0 == 1 else "right"
    if kind in (E.K_SHELTER, E.K_OPENST):
        return TYPES[m0]
    if kind == E.K_KEEP:
        return "keep " + kept_text(m0) + (f", release {m1}" if m1 else "")
    return f"{m0} {m1}"


def format_game(ctx, lineup, seed, index, log, score, tiebreak, brk, explain=False):
    from meeplab.sim.core.explain import search_lines
    from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

    prm = ctx.prm
    out = [f"Agricola: All Creatures Big and Small - seed {seed}, game {index}"]
    for s in range(2):
        from meeplab.sim.core.bots import entry_of_seat

        e = entry_of_seat(s, index, 2, lineup.rotate)
        out.append(f"P{s + 1}: {lineup.names[e]}" + ("  (start player in round 1)" if s == 0 else ""))
    out.append(
        "Farm drawing: '=====' and '|' are borders, C cottage, H Half-Timbered House, s stall, S stables, "
        "O Open Stables, h Shelter, W Storage, t trough; 3s = 3 sheep (p pigs, c cows, h horses), "
        "~s = same pasture"
    )
    search = []  # a search decision's rows (--explain): printed whole, so its head can name the move chosen
    for rec in log:
        code = int(rec[0])
        a = [int(x) for x in rec[1:]]
        p = a[0]
        if code in (E_SEARCH, E_SEARCH_CAND):
            if explain:
                search.append((code, *a[:5]))
            continue
        if search:
            out.extend(search_lines(search, _move))
            search = []
        if code == E.E_ROUND:
            out.append("")
            out.append(f"=== Round {a[0] + 1} (start player P{a[1] + 1}) ===")
        elif code == E.E_PLACE:
            out.append(f"P{p + 1} -> {SLOT_NAMES[a[1]]}")
        elif code == E.E_GAIN:
            out.append(f"     takes {_goods(a[2:9])}")
        elif code == E.E_HOUSE:
            kept = ", ".join(f"{a[1 + t]} {TYPES[t]}" for t in range(4) if a[1 + t])
            if a[5] < 0:
                out.append(f"     has {kept} on hand: not all fit, the player chooses which to keep")
            else:
                out.append(f"     houses {kept or 'no animals'}" + (f"; {a[5]} run away" if a[5] else ""))
        elif code == E.E_BORDERS:
            msg = f"     places {a[2]} border(s) at cost {a[3]} wood, {a[4]} stone around {spaces_text(a[5])}"
            if a[6] >= 0:
                msg += f" (open towards {space_name(a[6])})"
            out.append(msg)
        elif code == E.E_TROUGH:
            out.append(f"     builds a trough on {space_name(a[1])}" + (f" for {a[2]} wood" if a[2] else " (free)"))
        elif code == E.E_STALL:
            out.append(f"     builds a stall on {space_name(a[1])}")
        elif code == E.E_STABLES:
            out.append(
                f"     turns the stall on {space_name(a[1])} into stables (pays {'wood' if a[2] == 0 else 'stone'})"
            )
        elif code == E.E_SPECIAL:
            pay = "" if a[1] != 5 else f" (pays {'wood' if a[3] == 0 else 'stone'})"
            out.append(f"     builds the {BUILDING_NAMES[a[1]]} on {space_name(a[2])}{pay}")
        elif code == E.E_EXPAND:
            side = {-1: "no expansion left", 0: "expansion on the right", 1: "expansion on the left"}[a[1]]
            out.append(f"     takes {a[2]} border(s); {side}")
        elif code == E.E_ANIMAL:
            out.append(f"     takes 1 {TYPES[a[1]][:-1] if a[1] != 0 else 'sheep'} for free (now {a[2]})")
        elif code == E.E_BREED:
            born = ", ".join(f"1 {TYPES[t]}" for t in range(4) if a[1 + t])
            if born:
                if a[5] < 0:
                    out.append(f"P{p + 1} breeding: {born}; not all fit, the player chooses which to keep")
                else:
                    out.append(f"P{p + 1} breeding: {born}" + (f"; {a[5]} run away" if a[5] else ""))
        elif code == E.E_KEEP:
            kept = kept_text(a[1] | (a[2] << 16) | (a[3] << 32) | (a[4] << 48))
            which = "the fixed rule's set" if a[7] else "not the fixed rule's set"
            out.append(f"     P{p + 1} keeps {kept}; {a[5]} run away (chosen among {a[6]} sets that fit, {which})")
        elif code == E.E_FARM:
            ncols, home, bord, tr, packed, an, gd = a[1:8]
            animals = [(an >> (16 * t)) & 0xFFFF for t in range(4)]
            goods = [(gd >> (16 * t)) & 0xFFFF for t in range(4)]
            out.append(
                f"P{p + 1} farm: {animals[0]} sheep, {animals[1]} pigs, {animals[2]} cows, {animals[3]} horses; "
                f"{goods[0]} wood, {goods[1]} stone, {goods[2]} reed, {goods[3]} borders in hand"
            )
            out.extend("   " + ln for ln in draw_farm(prm, ncols, home, bord, tr, packed, animals))
    out.extend(search_lines(search, _move))
    out.append("")
    out.append("=== Final score ===")
    out.append("     " + " ".join(f"{c:>12}" for c in CATEGORIES) + f" {'total':>8}")
    for s in range(2):
        out.append(f"P{s + 1}:  " + " ".join(f"{brk[s, j]:>12g}" for j in range(len(CATEGORIES))) + f" {score[s]:>8g}")
    if score[0] > score[1] or (score[0] == score[1] and tiebreak[0] > tiebreak[1]):
        w = 0
    else:
        w = 1
    tie = " (tie: the player who did not start round 1 wins)" if score[0] == score[1] else ""
    out.append(f"Winner: P{w + 1}{tie}")
    return "\n".join(out)
