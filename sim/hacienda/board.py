"""Hacienda boards: the ``.haz`` map format, validation, and the packed arrays the engine uses.

``.haz`` (the publisher's map generator format, INI-like)::

    [Control]
    Version=GRHIG0101
    ColCount=13          # columns of hexes
    RowCount=37          # doubled rows: hex (col, row) exists where (col + row) is odd
    MapName=...
    [Hex]
    100=6                # key col*100 + row, value the space code

Neighbours of (c, r): (c, r-2), (c+1, r-1), (c+1, r+1), (c, r+2), (c-1, r+1), (c-1, r-1) (flat-topped
hexes in columns). Codes: 1 not part of the board, 2 pampa, 3..7 the five terrains (we name them
mountain, forest, meadow, rock, swamp in that order), 9 market, 10 water source. A hex missing from
``[Hex]`` is not part of the board.

Spaces are numbered 0..n-1 in key order over the board hexes (code != 1); masks are ``uint64[W]``
words with ``W = ceil(n / 64)`` (the printed 240-space boards need four).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write

MAPS_DIR = Path(__file__).resolve().parent / "maps"
BUILTIN = {"A": MAPS_DIR / "A.haz", "B": MAPS_DIR / "B.haz"}
TERRAINS = ("mountain", "forest", "meadow", "rock", "swamp")
# our internal space kinds
PAMPA, MARKET, SOURCE = 5, 6, 7  # 0..4 = terrains
CODE_KIND = {2: PAMPA, 3: 0, 4: 1, 5: 2, 6: 3, 7: 4, 9: MARKET, 10: SOURCE}
KIND_CODE = {v: k for k, v in CODE_KIND.items()}
# direction d: (dc, dr); opposite direction = (d + 3) % 6
DIRS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))
MAX_SPACES = 1024


@dataclass
class Board:
    name: str
    path: str
    n: int
    W: int
    cols: np.ndarray  # int32[n]
    rows: np.ndarray  # int32[n]
    kind: np.ndarray  # int8[n]: 0..4 terrain, 5 pampa, 6 market, 7 water source
    nb: np.ndarray  # int32[n, 6], -1 where off the board
    nbmask: np.ndarray  # uint64[n, W]
    market_id: np.ndarray  # int32[n], -1 if not a market
    n_markets: int
    n_sources: int

    def counts(self) -> dict[str, int]:
        c = {t: int((self.kind == i).sum()) for i, t in enumerate(TERRAINS)}
        c["pampa"] = int((self.kind == PAMPA).sum())
        c["market"] = self.n_markets
        c["source"] = self.n_sources
        return c


def read_haz(path: str | Path) -> tuple[dict[str, str], dict[tuple[int, int], int]]:
    """Parse a .haz file into ([Control] entries, {(col, row): code}); MeeplabError names the problem."""
    p = Path(path)
    try:
        if not p.is_file():
            raise MeeplabError(f"map file not found: {p}")
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise MeeplabError(f"cannot read map file {p}: {e}") from None
    section = None
    control: dict[str, str] = {}
    hexes: dict[tuple[int, int], int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith(";") or line.startswith("#"):
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise MeeplabError(f"map file {p}, line {lineno}: bad section header {line!r}")
            section = line[1:-1].strip()
            continue
        if "=" not in line:
            raise MeeplabError(f"map file {p}, line {lineno}: expected key=value, got {line!r}")
        k, v = (x.strip() for x in line.split("=", 1))
        if section == "Control":
            control[k] = v
        elif section == "Hex":
            try:
                key, code = int(k), int(v)
            except ValueError:
                raise MeeplabError(f"map file {p}, line {lineno}: hex entry {line!r} is not integer=integer") from None
            if key < 0:
                raise MeeplabError(f"map file {p}, line {lineno}: negative hex key {key}")
            c, r = divmod(key, 100)
            if (c + r) % 2 != 1:
                raise MeeplabError(
                    f"map file {p}: hex {key} (col {c}, row {r}) is not on the grid (col+row must be odd)"
                )
            if code not in CODE_KIND and code != 1:
                raise MeeplabError(f"map file {p}: hex {key} has unknown code {code} (known: 1, 2, 3-7, 9, 10)")
            if (c, r) in hexes:
                raise MeeplabError(f"map file {p}: hex {key} is given twice")
            hexes[(c, r)] = code
        # other sections are ignored
    if not hexes:
        raise MeeplabError(f"map file {p}: no [Hex] entries")
    return control, hexes


def build_board(hexes: dict[tuple[int, int], int], name: str, path: str) -> Board:
    cells = sorted(((c, r) for (c, r), code in hexes.items() if code != 1), key=lambda t: t[0] * 100 + t[1])
    n = len(cells)
    where = f"map file {path}" if path else f"map {name}"
    if n > MAX_SPACES:
        raise MeeplabError(f"{where}: {n} board spaces, at most {MAX_SPACES} supported")
    W = max(1, (n + 63) // 64)
    index = {cr: i for i, cr in enumerate(cells)}
    kind = np.array([CODE_KIND[hexes[cr]] for cr in cells], dtype=np.int8)
    nb = np.full((n, 6), -1, dtype=np.int32)
    nbmask = np.zeros((n, W), dtype=np.uint64)
    for i, (c, r) in enumerate(cells):
        for d, (dc, dr) in enumerate(DIRS):
            j = index.get((c + dc, r + dr), -1)
            nb[i, d] = j
            if j >= 0:
                nbmask[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    market_id = np.full(n, -1, dtype=np.int32)
    mk = np.flatnonzero(kind == MARKET)
    market_id[mk] = np.arange(len(mk), dtype=np.int32)
    counts = {t: int((kind == i).sum()) for i, t in enumerate(TERRAINS)}
    if int((kind == PAMPA).sum()) == 0:
        raise MeeplabError(f"{where}: no pampa spaces (code 2)")
    empty = [t for t, v in counts.items() if v == 0]
    if len(empty) == len(TERRAINS):
        raise MeeplabError(f"{where}: no terrain spaces (codes 3-7)")
    return Board(
        name=name,
        path=path,
        n=n,
        W=W,
        cols=np.array([c for c, _ in cells], dtype=np.int32),
        rows=np.array([r for _, r in cells], dtype=np.int32),
        kind=kind,
        nb=nb,
        nbmask=nbmask,
        market_id=market_id,
        n_markets=len(mk),
        n_sources=int((kind == SOURCE).sum()),
    )


def bit_rows(rows: np.ndarray, W: int) -> np.ndarray:
    """Rows of booleans over the spaces, ``[k, n]``, as the engine's masks ``uint64[k, W]`` (space ``i`` is bit
    ``i & 63`` of word ``i >> 6``)."""
    full = np.zeros((rows.shape[0], W * 64), dtype=bool)
    full[:, : rows.shape[1]] = rows
    return np.packbits(full, axis=1, bitorder="little").view("<u8").astype(np.uint64)


def static_masks(b: Board, market_next: np.ndarray) -> np.ndarray:
    """The board's fixed masks, ``uint64[9, W]``: rows 0-4 the five terrains, 5 pampa, 6 markets, 7 the spaces next to
    a market (``market_next[i] > 0``), 8 water sources."""
    rows = np.zeros((9, b.n), dtype=bool)
    for t in range(5):
        rows[t] = b.kind == t
    rows[5], rows[6], rows[7], rows[8] = b.kind == PAMPA, b.kind == MARKET, market_next > 0, b.kind == SOURCE
    return bit_rows(rows, b.W)


def markets_next(b: Board) -> np.ndarray:
    """``int64[n]``: how many of each space's neighbours are markets."""
    on = b.nb >= 0
    return (on & (b.kind[np.where(on, b.nb, 0)] == MARKET)).sum(axis=1).astype(np.int64)


def market_distances(b: Board, far: int = 99) -> np.ndarray:
    """``int64[n, max(1, markets)]``: the board distance (steps through any board space) from every space to each
    market, in market order, at most ``far`` (also where none leads there). Breadth first from every market at once."""
    mk = np.flatnonzero(b.kind == MARKET)
    md = np.full((b.n, max(1, len(mk))), far, dtype=np.int64)
    if not len(mk):
        return md
    src, d = np.nonzero(b.nb >= 0)
    step = np.zeros((b.n, b.n), dtype=np.float32)
    step[b.nb[src, d], src] = 1.0  # step[y, x]: one step leads from x to y
    reached = np.zeros((b.n, len(mk)), dtype=bool)
    reached[mk, np.arange(len(mk))] = True
    md[reached] = 0
    front, k = reached.copy(), 0
    while front.any() and k < far:
        k += 1
        front = ((step @ front.astype(np.float32)) > 0) & ~reached
        reached |= front
        md[front] = k
    return md


def balls(b: Board, steps: int = 3) -> np.ndarray:
    """``uint64[n, W]``: the spaces at most ``steps`` steps from each space, itself included."""
    near = np.unpackbits(b.nbmask.astype("<u8").view(np.uint8), axis=1, bitorder="little")[:, : b.n].astype(bool)
    reach = near | np.eye(b.n, dtype=bool)
    step = near.astype(np.float32)
    for _ in range(steps - 1):
        reach |= (reach.astype(np.float32) @ step) > 0
    return bit_rows(reach, b.W)


def load_board(spec: str) -> Board:
    """``A``/``B`` (the shipped reconstructed sides) or a path to any .haz file."""
    if spec in BUILTIN:
        path = BUILTIN[spec]
        _, hexes = read_haz(path)
        return build_board(hexes, spec, str(path))
    p = Path(spec).expanduser()
    try:
        there = p.exists()
    except OSError as e:
        raise MeeplabError(f"map {spec[:200]!r}: {e.strerror or e}") from None
    if not there and not spec.lower().endswith(".haz"):
        raise MeeplabError(f"map {spec!r} is neither A, B nor an existing .haz file")
    control, hexes = read_haz(p)
    return build_board(hexes, control.get("MapName", p.stem), str(p))


def write_haz(
    path: str | Path, name: str, hexes: dict[tuple[int, int], int], cols: int, rows: int, author: str
) -> None:
    lines = [
        "[Control]",
        "Version=GRHIG0101",
        f"ColCount={cols}",
        f"RowCount={rows}",
        f"Author={author}",
        f"MapName={name}",
        "MapVersion=1",
        "[Hex]",
    ]
    for c, r in sorted(hexes, key=lambda t: (t[1], t[0])):
        lines.append(f"{c * 100 + r}={hexes[(c, r)]}")
    atomic_write(path, "\n".join(lines) + "\n")


def render(board: Board, marks: dict[int, str] | None = None) -> str:
    """ASCII picture (one text line per doubled row): '.' pampa, M market, ~ source, 0-4 terrain."""
    sym = {0: "1", 1: "2", 2: "3", 3: "4", 4: "5", PAMPA: ".", MARKET: "M", SOURCE: "~"}
    C = int(board.cols.max()) + 1
    R = int(board.rows.max()) + 1
    grid = [[" "] * (2 * C) for _ in range(R)]
    for i in range(board.n):
        ch = sym[int(board.kind[i])]
        if marks and i in marks:
            ch = marks[i]
        grid[board.rows[i]][2 * board.cols[i]] = ch
    return "\n".join("".join(row).rstrip() for row in grid)
