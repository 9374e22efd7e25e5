"""Read a run directory (``run.json`` + ``results.parquet`` or ``chunks/part-*.parquet``).

Only verified data is read (:mod:`meeplab.lab.runs.rundir`): a complete run's ``results.parquet`` must match the
rows and SHA-256 that ``run.json`` records, and an unfinished run (even one being written now) is read through its
manifest, part by part, each matching its rows and checksum, so a report taken during a run is consistent. A
missing or damaged file is named in one line.

The rows stay on disk: :class:`Run` holds a polars ``LazyFrame`` and every statistic is an
aggregation collected with the streaming engine, so a 40-million-row run fits in memory.
Every problem with the inputs raises :class:`~sim.core.errors.MeeplabError` with one line that
names the offending path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from meeplab.lab.runs import rundir
from meeplab.sim.core.errors import MeeplabError

#: columns every results file has (besides one float column per score category)
BASE_COLUMNS = ("n_players", "game_index", "seat", "entry", "bot", "score", "rank", "win", "length")
_NUMERIC = {"n_players", "game_index", "seat", "entry", "score", "rank", "win", "length"}
#: columns added later (SCHEMA.md): runs written before them still load, with these fill values
#: (``tiebreak`` unknown = null; ``end`` = "rules", the only ending older engines recorded).
#: A run whose parts disagree (some have the column, some not) gets the fill value on every row.
OPTIONAL_COLUMNS = {"tiebreak": (pl.Float64, None), "end": (pl.String, "rules")}

#: the engine used for every aggregation over the rows (out-of-core, bounded memory)
ENGINE = "streaming"


@dataclass
class Run:
    """One run directory: its metadata and a lazy view of its rows."""

    path: Path
    meta: dict[str, Any]
    lf: pl.LazyFrame
    source: str  # "results.parquet" or "chunks/part-*.parquet (N files)"
    n_rows: int
    categories: list[str] = field(default_factory=list)
    _players: list[int] = field(default_factory=list, repr=False)

    # -- metadata conveniences -------------------------------------------------------------
    @property
    def label(self) -> str:
        lab = self.meta.get("label")
        if isinstance(lab, str) and lab.strip():
            return lab.strip()
        return self.path.name or str(self.path)

    @property
    def game(self) -> str:
        return str(self.meta.get("game", "?"))

    @property
    def lower_wins(self) -> bool:
        """Whether the lowest score wins this game (``GameSpec.lower_wins``; runs made before it: False)."""
        return bool(self.meta.get("lower_wins", False))

    @property
    def title(self) -> str:
        return str(self.meta.get("title") or self.game)

    @property
    def status(self) -> str:
        return str(self.meta.get("status", "unknown"))

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def seed(self) -> Any:
        return self.meta.get("seed")

    @property
    def rotate(self) -> bool:
        return bool(self.meta.get("rotate", False))

    @property
    def params(self) -> dict[str, Any]:
        p = self.meta.get("params")
        return dict(p) if isinstance(p, dict) else {}

    @property
    def params_changed(self) -> dict[str, Any]:
        p = self.meta.get("params_changed")
        return dict(p) if isinstance(p, dict) else {}

    @property
    def lineups(self) -> dict[str, list[str]]:
        lu = self.meta.get("lineups")
        return {str(k): list(v) for k, v in lu.items()} if isinstance(lu, dict) else {}

    @property
    def length_unit(self) -> str:
        return str(self.meta.get("length_unit") or "turns")

    @property
    def players(self) -> list[int]:
        """Player counts actually present in the rows (sorted)."""
        return self._players

    def collect(self, q: pl.LazyFrame) -> pl.DataFrame:
        """Collect an aggregation over this run's rows; a broken file becomes a MeeplabError."""
        try:
            return q.collect(engine=ENGINE)
        except MeeplabError:
            raise
        except Exception as exc:  # polars raises ComputeError/OSError/... for damaged data pages
            raise MeeplabError(f"{self.path}: cannot read results ({_first_line(exc)})") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _read_meta(path: Path) -> dict[str, Any]:
    """``path``'s run.json, checked whole (:func:`meeplab.lab.runs.rundir.read_meta`)."""
    return rundir.read_meta(path)


def _result_files(path: Path, meta: dict[str, Any]) -> tuple[list[Path], str]:
    """The verified data files of a run directory and how they are named in messages."""
    res = path / rundir.RESULTS
    game = meta.get("game") if isinstance(meta.get("game"), str) else None
    if meta.get("status") == "complete" or (res.is_file() and not (path / rundir.MANIFEST).exists()):
        if not res.is_file():
            raise MeeplabError(f"{res}: missing results (run.json says the run is complete); --resume plays it again")
        bad = rundir.verify_results(path, meta)
        if bad:
            raise MeeplabError(f"{bad}; 'meeplab run ... --resume' with the run's arguments plays it again")
        return [res], rundir.RESULTS
    v = rundir.verify_chunks(path, game)
    if v.problems:
        more = f" (and {len(v.problems) - 1} more)" if len(v.problems) > 1 else ""
        raise MeeplabError(f"{v.problems[0]}{more}; 'meeplab run ... --resume' plays these games again")
    if v.files:
        n = len(v.files)
        what = "no manifest: not checksummed" if rundir.is_legacy(path) else "verified"
        return v.files, f"chunks/part-*.parquet ({n} file{'s' if n != 1 else ''}, {what})"
    raise MeeplabError(f"{res}: missing results (neither results.parquet nor verified chunks/part-*.parquet)")


def same_game(paths: list[Path]) -> str | None:
    """The one game of the run directories ``paths`` (read from their run.json); runs of two different games
    cannot be compared, which is a MeeplabError naming both. Directories without a readable run.json are left
    to :func:`load_run` to name."""
    seen: dict[str, Path] = {}
    for p in paths:
        try:
            g = rundir.read_meta(Path(p)).get("game")
        except MeeplabError:
            continue
        if isinstance(g, str):
            seen.setdefault(g, Path(p))
    if len(seen) > 1:
        (a, pa_), (b, pb) = list(seen.items())[:2]
        raise MeeplabError(f"runs of different games cannot be compared: {pa_} is {a}, {pb} is {b}")
    return next(iter(seen), None)


def load_run(path: str | Path) -> Run:
    """Open a run directory written by ``meeplab run``; raise MeeplabError on any bad input."""
    path = Path(path)
    if not path.exists():
        raise MeeplabError(f"{path}: run directory does not exist")
    if not path.is_dir():
        raise MeeplabError(f"{path}: not a directory (give the run directory, not a file)")
    meta = _read_meta(path)
    files, source = _result_files(path, meta)
    cats = list(meta.get("categories", []))

    # Read every footer now: a truncated or non-parquet file fails here, naming the file.
    n_rows = 0
    schema: dict[str, pl.DataType] | None = None
    optional = set(OPTIONAL_COLUMNS)
    for f in files:
        try:
            sch = pl.scan_parquet(f, glob=False).collect_schema()  # glob=False: a path may hold [ * ?
            n = pl.scan_parquet(f, glob=False).select(pl.len()).collect().item()
        except Exception as exc:
            raise MeeplabError(f"{f}: corrupt parquet file ({_first_line(exc)})") from None
        if schema is None:
            schema = dict(sch)
        missing = [c for c in (*BASE_COLUMNS, *cats) if c not in sch]
        if missing:
            raise MeeplabError(f"{f}: results lack column(s) {', '.join(missing)}")
        optional &= set(sch)
        n_rows += int(n)
    assert schema is not None
    for c in (*_NUMERIC, *cats):
        if not schema[c].is_numeric():
            raise MeeplabError(f"{files[0]}: column '{c}' is {schema[c]}, expected a number")
    if n_rows == 0:
        where = files[0] if len(files) == 1 else path / "chunks"
        raise MeeplabError(f"{where}: results are empty (0 rows)")

    try:
        lf = pl.scan_parquet([str(f) for f in files], glob=False, extra_columns="ignore", missing_columns="insert")
    except Exception as exc:
        raise MeeplabError(f"{path}: cannot open results ({_first_line(exc)})") from None
    # Uniform dtypes whatever the writer chose (int8 vs int64 etc.).
    lf = lf.select(
        pl.col("n_players").cast(pl.Int64),
        pl.col("game_index").cast(pl.Int64),
        pl.col("seat").cast(pl.Int64),
        pl.col("entry").cast(pl.Int64),
        pl.col("bot").cast(pl.String),
        pl.col("score").cast(pl.Float64),
        pl.col("rank").cast(pl.Int64),
        pl.col("win").cast(pl.Float64),
        pl.col("length").cast(pl.Int64),
        *[pl.col(c).cast(pl.Float64) for c in cats],
        *[
            pl.col(c).cast(dtype) if c in optional else pl.lit(fill, dtype=dtype).alias(c)
            for c, (dtype, fill) in OPTIONAL_COLUMNS.items()
        ],
    )
    run = Run(path=path, meta=meta, lf=lf, source=source, n_rows=n_rows, categories=cats)
    players = run.collect(lf.select(pl.col("n_players").unique().sort()))
    run._players = [int(p) for p in players["n_players"].to_list()]
    return run
