"""Deck and mining-token files: loading, validation and the tile segment model.

The deck is one CSV row per tile type (format in ``README.md``). Every tile copy becomes an *instance*
with its own segments (railroads, mountains, city, prairie regions derived from the edges), nuggets,
locomotives and prairie symbols, and the engine tables for each of its four rotations.

Geometry: edges ``d`` = 0 N, 1 E, 2 S, 3 W; each edge has two halves, numbered clockwise around the tile:
``2d`` is the first half met going clockwise, ``2d + 1`` the second (N: west then east half, E: north then
south, S: east then west, W: south then north). Turning a tile a quarter clockwise maps edge ``d`` to
``d + 1`` and half ``h`` to ``h + 2`` (mod 4 / mod 8). Half ``2d + j`` of one tile touches half
``2((d + 2) % 4) + 1 - j`` of its neighbour across edge ``d``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from meeplab.sim.core.errors import MeeplabError

DATA = Path(__file__).with_name("data")
BUILTIN_DECK = DATA / "deck.csv"
BUILTIN_TOKENS = DATA / "tokens.csv"

DIRS = "NESW"
EDGE_CODE = {"M": 1, "R": 2, "P": 3}
K_RAIL, K_MTN, K_CITY, K_PRAIRIE = 0, 1, 2, 3
KIND_NAMES = ("railroad", "mountain", "city", "prairie")
SLOTS = 10  # segment slots per placed tile (max segments of one tile)
COLUMNS = ("type", "like", "count", "edges", "rails", "mountains", "nuggets", "locomotives", "tipis", "horses", "start")


@dataclass
class TileType:
    name: str
    like: str
    count: int
    edges: str
    # segments in engine order: rails, mountains, city, prairies
    kinds: list[int] = field(default_factory=list)
    edge_mask: list[int] = field(default_factory=list)  # rails/mountains: bit d per edge
    half_mask: list[int] = field(default_factory=list)  # prairies: bit h per half
    spur: list[int] = field(default_factory=list)  # rail: 1 = one end closed on this tile (J, C or M)
    city_link: list[int] = field(default_factory=list)  # rail spur into the city: segment index of the city
    end_kind: list[str] = field(default_factory=list)  # rail: "", "J", "C", "M"
    n_rails: int = 0
    n_mtns: int = 0
    symbol_region: int = -1  # segment index of the prairie region holding tipis/horses
    # per copy
    nuggets: list[list[int]] = field(default_factory=list)
    locos: list[list[int]] = field(default_factory=list)
    tipis: list[int] = field(default_factory=list)
    horses: list[int] = field(default_factory=list)
    start_copy: int = 0  # 1-based copy that is the start tile, 0 = none


@dataclass
class Deck:
    path: str
    builtin: bool
    types: list[TileType]
    # instance tables (one row per tile copy)
    n: int
    start: int  # instance index of the start tile
    inst_type: np.ndarray  # int64[n]
    inst_copy: np.ndarray  # int64[n] (1-based copy number)
    nseg: np.ndarray  # int64[n]
    seg: np.ndarray  # int64[n, SLOTS, 8]: kind, n_edges, spur, city_link, nuggets, locos, tipis, horses
    edges: np.ndarray  # int64[n, 4]: edge code per rotation (2 bits per edge, N lowest)
    edge_seg: np.ndarray  # int64[n, 4, 4]: segment owning rotated edge d (-1 for prairie edges)
    half_seg: np.ndarray  # int64[n, 4, 8]: prairie segment owning rotated half h (-1 none)
    mask: np.ndarray  # int64[n, 4, SLOTS]: rotated edge mask (rail/mountain) or half mask (prairie)
    rots: np.ndarray  # int64[n, 4]: distinct rotations
    nrots: np.ndarray  # int64[n]

    @property
    def totals(self) -> dict[str, int]:
        s = self.seg
        valid = np.arange(SLOTS)[None, :] < self.nseg[:, None]
        mt = (s[:, :, 0] == K_MTN) & valid
        return {
            "tiles": int(self.n),
            "mountain_segments": int(mt.sum()),
            "nuggets": int((s[:, :, 4] * valid).sum()),
            "locomotives": int((s[:, :, 5] * valid).sum()),
            "tipis": int((s[:, :, 6] * valid).sum()),
            "horses": int((s[:, :, 7] * valid).sum()),
        }


@dataclass
class Tokens:
    path: str
    builtin: bool
    values: np.ndarray  # int64[n_tokens], one entry per token

    @property
    def mean(self) -> float:
        return float(self.values.mean()) if len(self.values) else 0.0


def _rows(path: Path, what: str) -> list[tuple[int, dict[str, str]]]:
    try:
        if not path.is_file():
            raise MeeplabError(f"{what} file not found: {path}")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise MeeplabError(f"cannot read {what} file {path}: {e}") from None
    lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise MeeplabError(f"{what} file {path}: no header row")
    reader = csv.reader([ln for _, ln in lines])
    rows = list(reader)
    header = [h.strip().lower() for h in rows[0]]
    out = []
    for (lineno, _), row in zip(lines[1:], rows[1:]):
        if len(row) != len(header):
            raise MeeplabError(f"{what} file {path}, line {lineno}: {len(row)} cells, the header has {len(header)}")
        out.append((lineno, {h: c.strip() for h, c in zip(header, row)}))
    return header, out


def _int(cell: str, err, what: str, lo: int = 0, hi: int = 1000) -> int:
    try:
        v = int(cell)
    except ValueError:
        raise err(f"{what} must be an integer, got {cell!r}") from None
    if not lo <= v <= hi:
        raise err(f"{what} = {v} is out of range {lo}..{hi}")
    return v


def _per_copy(cell: str, count: int, parts: int, err, what: str) -> list[list[int]]:
    """'' -> zeros; 'a' -> same for every copy; 'a;b;c' -> one per copy; '+' separates segments."""
    if cell == "":
        return [[0] * parts for _ in range(count)]
    items = cell.split(";")
    if len(items) == 1:
        items = items * count
    if len(items) != count:
        raise err(f"{what} has {len(items)} values for {count} copies (give one value or one per copy)")
    out = []
    for k, it in enumerate(items):
        segs = it.split("+")
        if len(segs) != parts:
            raise err(f"{what} of copy {k + 1} has {len(segs)} values for {parts} segment(s)")
        out.append([_int(x.strip(), err, f"{what} of copy {k + 1}", 0, 50) for x in segs])
    return out


def _derive(t: TileType, rails: str, mtns: str, err) -> None:
    """Segments of a tile type from its edges and the rails/mountains columns."""
    edges = t.edges
    if len(edges) != 4 or any(c not in EDGE_CODE for c in edges):
        raise err(f"edges must be 4 letters of M/R/P (N E S W), got {edges!r}")
    rail_tokens = rails.split()
    mtn_tokens = mtns.split()
    covered: dict[int, str] = {}
    mtn_edges: list[list[int]] = []
    for tok in mtn_tokens:
        ds = []
        for ch in tok:
            if ch not in DIRS:
                raise err(f"mountain segment {tok!r}: {ch!r} is not one of N E S W")
            d = DIRS.index(ch)
            if edges[d] != "M":
                raise err(f"mountain segment {tok!r} uses edge {ch}, which is {edges[d]}, not M")
            if d in covered:
                raise err(f"edge {ch} is in two segments")
            covered[d] = tok
            ds.append(d)
        mtn_edges.append(ds)
    rail_defs = []  # (edges, end kind, mountain index)
    through = 0
    for tok in rail_tokens:
        if "-" in tok:
            a, _, b = tok.partition("-")
            if len(a) != 1 or len(b) != 1 or a not in DIRS or b not in DIRS or a == b:
                raise err(f"railroad {tok!r}: write two different edges like E-S")
            ds = [DIRS.index(a), DIRS.index(b)]
            end, mi = "", -1
            through += 1
        elif ">" in tok:
            a, _, e = tok.partition(">")
            if len(a) != 1 or a not in DIRS:
                raise err(f"railroad {tok!r}: write an edge and its end like S>J, S>C or S>M")
            ds = [DIRS.index(a)]
            if e == "J" or e == "C":
                end, mi = e, -1
            elif e.startswith("M"):
                end = "M"
                mi = int(e[1:]) - 1 if e[1:].isdigit() else 0
                if e[1:] and not e[1:].isdigit():
                    raise err(f"railroad {tok!r}: mountain reference must be M, M1, M2...")
                if not 0 <= mi < len(mtn_edges):
                    raise err(f"railroad {tok!r} ends at a mountain segment the tile does not have")
            else:
                raise err(f"railroad {tok!r}: the end must be J (junction), C (city) or M (mountain)")
        else:
            raise err(f"railroad {tok!r}: write E-S (through) or S>J / S>C / S>M (ending on the tile)")
        for d in ds:
            if edges[d] != "R":
                raise err(f"railroad {tok!r} uses edge {DIRS[d]}, which is {edges[d]}, not R")
            if d in covered:
                raise err(f"edge {DIRS[d]} is in two segments")
            covered[d] = tok
        rail_defs.append((ds, end, mi))
    if through > 1:
        raise err("at most one through railroad (like E-S) per tile is supported")
    for d, c in enumerate(edges):
        if c in "MR" and d not in covered:
            raise err(f"edge {DIRS[d]} ({c}) belongs to no {'mountain' if c == 'M' else 'railroad'} segment")
    has_city = any(e == "C" for _, e, _ in rail_defs)
    # barrier components for the prairie regions: union-find over rails/mountains/junction/city
    nb = len(rail_defs) + len(mtn_edges) + 2  # + junction + city
    par = list(range(nb))

    def f(x):
        while par[x] != x:
            x = par[x]
        return x

    def u(a, b):
        par[f(a)] = f(b)

    J, C = nb - 2, nb - 1
    R0, M0 = 0, len(rail_defs)
    for i, (_ds, e, mi) in enumerate(rail_defs):
        if e == "J":
            u(R0 + i, J)
        elif e == "C":
            u(R0 + i, C)
        elif e == "M":
            u(R0 + i, M0 + mi)
    touch: dict[int, set[int]] = {}
    for i, (ds, _e, _mi) in enumerate(rail_defs):
        touch.setdefault(f(R0 + i), set()).update(ds)
    for i, ds in enumerate(mtn_edges):
        touch.setdefault(f(M0 + i), set()).update(ds)
    cuts = [sorted(3 * d + 1 for d in s) for s in touch.values() if len(s) >= 2]
    halves = [h for h in range(8) if edges[h // 2] in "RP"]
    sig: dict[tuple, list[int]] = {}
    for h in halves:
        q = 3 * (h // 2) + (0 if h % 2 == 0 else 2)
        key = tuple(sum(1 for p in c if p < q) % len(c) for c in cuts)
        sig.setdefault(key, []).append(h)
    regions = sorted(sig.values(), key=lambda hs: min(hs))
    # segments: rails, mountains, city, prairies
    for ds, e, _mi in rail_defs:
        t.kinds.append(K_RAIL)
        t.edge_mask.append(sum(1 << d for d in ds))
        t.half_mask.append(0)
        t.spur.append(1 if e else 0)
        t.end_kind.append(e)
    for ds in mtn_edges:
        t.kinds.append(K_MTN)
        t.edge_mask.append(sum(1 << d for d in ds))
        t.half_mask.append(0)
        t.spur.append(0)
        t.end_kind.append("")
    city_idx = -1
    if has_city:
        city_idx = len(t.kinds)
        t.kinds.append(K_CITY)
        t.edge_mask.append(0)
        t.half_mask.append(0)
        t.spur.append(0)
        t.end_kind.append("")
    t.city_link = [city_idx if (i < len(rail_defs) and rail_defs[i][1] == "C") else -1 for i in range(len(t.kinds))]
    first_prairie = len(t.kinds)
    for hs in regions:
        t.kinds.append(K_PRAIRIE)
        t.edge_mask.append(0)
        t.half_mask.append(sum(1 << h for h in hs))
        t.spur.append(0)
        t.end_kind.append("")
        t.city_link.append(-1)
    if len(t.kinds) > SLOTS:
        raise err(f"{len(t.kinds)} segments on one tile (at most {SLOTS})")
    t.n_rails = len(rail_defs)
    t.n_mtns = len(mtn_edges)
    if regions:
        best = max(range(len(regions)), key=lambda i: (len(regions[i]), -min(regions[i])))
        t.symbol_region = first_prairie + best


def _rot_mask4(m: int, r: int) -> int:
    return ((m << r) | (m >> (4 - r))) & 0xF if r else m


def _rot_mask8(m: int, r: int) -> int:
    s = 2 * r
    return ((m << s) | (m >> (8 - s))) & 0xFF if r else m


def load_deck(spec: str = "builtin") -> Deck:
    builtin = spec in ("", "builtin")
    path = BUILTIN_DECK if builtin else Path(spec)
    header, rows = _rows(path, "deck")
    missing = [c for c in COLUMNS if c not in header and c != "like"]
    if missing:
        raise MeeplabError(f"deck file {path}: missing column(s) {', '.join(missing)}")
    types: list[TileType] = []
    names = set()
    for lineno, row in rows:
        name = row.get("type", "") or f"line {lineno}"

        def err(msg, _name=name, _ln=lineno):
            return MeeplabError(f"deck file {path}, tile {_name} (line {_ln}): {msg}")

        if name in names:
            raise err("duplicate tile type name")
        names.add(name)
        count = _int(row["count"], err, "count", 1, 200)
        t = TileType(name=name, like=row.get("like", ""), count=count, edges=row["edges"].upper())
        _derive(t, row["rails"], row["mountains"].upper(), err)
        t.nuggets = _per_copy(row["nuggets"], count, t.n_mtns, err, "nuggets") if t.n_mtns else [[]] * count
        if row["nuggets"] and not t.n_mtns:
            raise err("nuggets given but the tile has no mountain")
        if row["locomotives"] and not t.n_rails:
            raise err("locomotives given but the tile has no railroad")
        t.locos = _per_copy(row["locomotives"], count, t.n_rails, err, "locomotives") if t.n_rails else [[]] * count
        t.tipis = [x[0] for x in _per_copy(row["tipis"], count, 1, err, "tipis")]
        t.horses = [x[0] for x in _per_copy(row["horses"], count, 1, err, "horses")]
        if (any(t.tipis) or any(t.horses)) and t.symbol_region < 0:
            raise err("tipis/horses given but the tile has no prairie")
        t.start_copy = _int(row["start"], err, "start", 0, count) if row["start"] else 0
        types.append(t)
    if not types:
        raise MeeplabError(f"deck file {path}: no tiles")
    starts = [(t.name, t.start_copy) for t in types if t.start_copy]
    if len(starts) != 1:
        raise MeeplabError(
            f"deck file {path}: exactly one tile type must name its start copy in 'start' (found {len(starts)})"
        )
    return _build(path, builtin, types)


def _build(path: Path, builtin: bool, types: list[TileType]) -> Deck:
    n = sum(t.count for t in types)
    inst_type = np.zeros(n, np.int64)
    inst_copy = np.zeros(n, np.int64)
    nseg = np.zeros(n, np.int64)
    seg = np.zeros((n, SLOTS, 8), np.int64)
    edges = np.zeros((n, 4), np.int64)
    edge_seg = -np.ones((n, 4, 4), np.int64)
    half_seg = -np.ones((n, 4, 8), np.int64)
    mask = np.zeros((n, 4, SLOTS), np.int64)
    rots = np.zeros((n, 4), np.int64)
    nrots = np.zeros(n, np.int64)
    start = -1
    i = 0
    for ti, t in enumerate(types):
        for c in range(t.count):
            inst_type[i] = ti
            inst_copy[i] = c + 1
            if t.start_copy == c + 1:
                start = i
            ns = len(t.kinds)
            nseg[i] = ns
            for s in range(ns):
                k = t.kinds[s]
                seg[i, s, 0] = k
                seg[i, s, 1] = bin(t.edge_mask[s]).count("1")
                seg[i, s, 2] = t.spur[s]
                seg[i, s, 3] = t.city_link[s]
                if k == K_MTN:
                    seg[i, s, 4] = t.nuggets[c][s - t.n_rails]
                if k == K_RAIL:
                    seg[i, s, 5] = t.locos[c][s]
                if s == t.symbol_region:
                    seg[i, s, 6] = t.tipis[c]
                    seg[i, s, 7] = t.horses[c]
            forms = []
            for r in range(4):
                code = 0
                for d in range(4):
                    code |= EDGE_CODE[t.edges[d]] << (2 * ((d + r) % 4))
                edges[i, r] = code
                form = [code]
                for s in range(ns):
                    if t.kinds[s] == K_PRAIRIE:
                        m = _rot_mask8(t.half_mask[s], r)
                        for h in range(8):
                            if m >> h & 1:
                                half_seg[i, r, h] = s
                    else:
                        m = _rot_mask4(t.edge_mask[s], r)
                        for d in range(4):
                            if m >> d & 1:
                                edge_seg[i, r, d] = s
                    mask[i, r, s] = m
                    form.append((t.kinds[s], m, tuple(seg[i, s])))
                key = tuple(sorted(form[1:], key=repr)) + (code,)
                if key not in forms:
                    forms.append(key)
                    rots[i, nrots[i]] = r
                    nrots[i] += 1
            i += 1
    return Deck(
        path=str(path),
        builtin=builtin,
        types=types,
        n=n,
        start=start,
        inst_type=inst_type,
        inst_copy=inst_copy,
        nseg=nseg,
        seg=seg,
        edges=edges,
        edge_seg=edge_seg,
        half_seg=half_seg,
        mask=mask,
        rots=rots,
        nrots=nrots,
    )


def load_tokens(spec: str = "builtin") -> Tokens:
    builtin = spec in ("", "builtin")
    path = BUILTIN_TOKENS if builtin else Path(spec)
    header, rows = _rows(path, "token")
    for c in ("value", "count"):
        if c not in header:
            raise MeeplabError(f"token file {path}: missing column '{c}'")
    vals = []
    seen = set()
    for lineno, row in rows:

        def err(msg, _ln=lineno, _v=row["value"]):
            return MeeplabError(f"token file {path}, token value {_v} (line {_ln}): {msg}")

        v = _int(row["value"], err, "value", 0, 100)
        if v in seen:
            raise err("duplicate value row")
        seen.add(v)
        k = _int(row["count"], err, "count", 0, 1000)
        vals += [v] * k
    if not vals:
        raise MeeplabError(f"token file {path}: no tokens")
    return Tokens(path=str(path), builtin=builtin, values=np.array(vals, np.int64))
