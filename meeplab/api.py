"""The notebook API: play, compare and load runs from Python and look at them as pandas DataFrames.

Everything here is the command line's machinery (:mod:`lab.runs.runner`, :mod:`lab.studies.sprt`,
:mod:`reports`); every run is an ordinary run directory, so ``meeplab report`` and :func:`load` read it
again later. Aggregations run in polars over the rows on disk; only their (small) results become pandas.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import scipy.stats as sps

from meeplab.lab.runs.rundir import RUN_JSON, is_run
from meeplab.sim.core.errors import MeeplabError

#: compare(until_significant=True): games per player count after which the test stops undecided
SPRT_MAX_GAMES = 100_000

__all__ = ["Comparison", "Result", "Study", "compare", "load", "run"]


def _players(players, game) -> list[int]:
    if players is None:
        return [game.default_players]
    if isinstance(players, int):
        return [players]
    if isinstance(players, str):
        from meeplab.lab.studies.experiment import parse_players

        return parse_players(players)
    return [int(p) for p in players]


def _bots(bots) -> list[str]:
    names = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else [str(b) for b in bots]
    names = [b for b in names if b]
    if not names:
        raise MeeplabError("bots: give at least one bot name")
    return names


def _overrides(set: dict | None, params: str | Path | None) -> dict[str, Any]:
    from meeplab.sim.core.params import load_params_file

    over: dict[str, Any] = {}
    if params:
        over.update(load_params_file(params))
    over.update(dict(set or {}))
    return over


def _whole(name: str, value) -> int:
    """``value`` as a whole number, or one line naming ``name`` (NaN, infinity, fractions, text and booleans
    are refused, as on the command line)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise MeeplabError(f"{name}={value!r}: a whole number is needed")
    if isinstance(value, (float, np.floating)) and not (np.isfinite(value) and float(value).is_integer()):
        raise MeeplabError(f"{name}={value!r}: a finite whole number is needed")
    return int(value)


def _out(out, prefix: str) -> Path:
    return Path(out) if out is not None else Path(tempfile.mkdtemp(prefix=f"meeplab-{prefix}-"))


def _plan(game, games, players, bots, seed, set, params, bot_configs, rotate, threads, out, label, force, progress):
    """The checked plan of one run from an API call's arguments: the one place the call is validated."""
    from meeplab.lab.runs.plan import DEFAULT_SHARD, RunConfig, plan_run
    from meeplab.sim.core.registry import get_game

    g = get_game(game)
    if bots == "default":  # the game's default lineup: the strongest fast bot it declares (else tuned, else greedy)
        from meeplab.sim.core.bots import default_lineup

        bots = default_lineup(g.id)
    return plan_run(
        RunConfig(
            game=g,
            games=_whole("games", games),
            players=_players(players, g),
            bots=_bots(bots),
            seed=_whole("seed", seed),
            threads=threads,
            overrides=_overrides(set, params),
            out=Path(out),
            rotate=rotate,
            bot_configs=tuple(str(b) for b in bot_configs),
            shard=DEFAULT_SHARD,
            progress=progress,
            label=label,
            command="meeplab.run (Python)",
            force=force,
        )
    )


def _interval(df: pl.DataFrame, mean: str, sd: str, n: str, lo: str, hi: str) -> pl.DataFrame:
    """t interval of a mean from its sd and count (95%)."""
    nn = df[n].to_numpy().astype(float)
    t = np.where(nn > 1, sps.t.ppf(0.975, np.maximum(nn - 1, 1)), np.nan)
    half = t * df[sd].fill_null(np.nan).to_numpy() / np.sqrt(np.maximum(nn, 1))
    return df.with_columns(pl.Series(lo, df[mean].to_numpy() - half), pl.Series(hi, df[mean].to_numpy() + half))


class Result:
    """One run directory. Tables are pandas DataFrames; ``lazy`` is the polars LazyFrame of every row."""

    def __init__(self, path: str | Path):
        from meeplab.analysis.load import load_run

        self.run = load_run(path)
        self._stats = None

    # -- what the run is -------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.run.path

    @property
    def meta(self) -> dict[str, Any]:
        """run.json: game, parameters, bots, seed, speed (and ``sprt`` for a sequential variant)."""
        return dict(self.run.meta)

    @property
    def game(self) -> str:
        return self.run.game

    @property
    def params(self) -> dict[str, Any]:
        return self.run.params

    @property
    def lazy(self) -> pl.LazyFrame:
        """Every row, lazily, for heavy lifting in polars (nothing is read until collected)."""
        return self.run.lf

    def __repr__(self) -> str:
        return (
            f"<meeplab.Result {self.game} {self.run.label!r}: {self.run.n_rows:,} rows, players "
            f"{self.run.players}, {self.path}>"
        )

    @property
    def stats(self):
        if self._stats is None:
            from meeplab.analysis.stats import run_stats

            self._stats = run_stats(self.run)
        return self._stats

    # -- tables ------------------------------------------------------------------------------
    @property
    def results(self) -> pd.DataFrame:
        """One row per game and seat: the columns of ``lab/runs/SCHEMA.md``, with ``seat`` numbered from 1 (the
        start player) as everywhere a person reads it, and the file's 0-based column kept as ``seat_index``."""
        lf = self.run.lf.with_columns(pl.col("seat").alias("seat_index"), (pl.col("seat") + 1).alias("seat"))
        return self.run.collect(lf).to_pandas()

    def win_rates(self) -> pd.DataFrame:
        """Per player count and bot: seats played, wins, win rate (per seat when it fills several) and its 95%
        interval (``lo``, ``hi``: Wilson; by game for a bot in several seats), mean score and rank."""
        cols = [
            "n_players",
            "bot",
            "n",
            "wins",
            "win_rate",
            "lo",
            "hi",
            "n_eff",
            "seats_per_game",
            "games_won",
            "mean_score",
            "sd_score",
            "mean_rank",
        ]
        return self.stats.by_bot.select(cols).sort("n_players", "bot").to_pandas()

    def seats(self) -> pd.DataFrame:
        """Per player count and seat (1 = the start player): raw win rate with its 95% interval (``lo``, ``hi``),
        and the seat effect with the lineup taken into account (``adv`` = win probability minus 1/P among equal
        bots, with ``adv_lo``, ``adv_hi``; ``sig``), plus ``p_seat``, the p-value of "no seat effect"."""
        df = self.stats.by_seat
        p = pl.DataFrame(
            {"n_players": list(self.stats.seat_p), "p_seat": list(self.stats.seat_p.values())},
            schema={"n_players": pl.Int64, "p_seat": pl.Float64},
        )
        keep = [
            c
            for c in (
                "n_players",
                "seat",
                "n",
                "wins",
                "win_rate",
                "lo",
                "hi",
                "mean_score",
                "adj_rate",
                "adv",
                "adv_lo",
                "adv_hi",
                "sig",
            )
            if c in df.columns
        ]
        out = df.select(keep).join(p, on="n_players", how="left").sort("n_players", "seat")
        return out.with_columns(pl.col("seat") + 1).to_pandas()  # seat 1 = the start player

    def breakdown(self) -> pd.DataFrame:
        """Per player count, bot and scoring category: mean points per seat with a 95% t interval over the
        seats played (``lo``, ``hi``), and the category's share of the bot's mean score."""
        cats = self.run.categories
        aggs = [pl.len().alias("n"), pl.col("score").mean().alias("_total")]
        for c in cats:
            aggs += [pl.col(c).mean().alias(f"{c}__mean"), pl.col(c).std().alias(f"{c}__sd")]
        wide = self.run.collect(self.run.lf.group_by("n_players", "bot").agg(aggs)).sort("n_players", "bot")
        parts = []
        for c in cats:
            d = wide.select(
                "n_players",
                "bot",
                "n",
                "_total",
                pl.lit(c).alias("category"),
                pl.col(f"{c}__mean").alias("mean"),
                pl.col(f"{c}__sd").alias("sd"),
            )
            parts.append(_interval(d, "mean", "sd", "n", "lo", "hi"))
        if not parts:
            return pd.DataFrame(columns=["n_players", "bot", "category", "n", "mean", "sd", "lo", "hi", "share"])
        df = pl.concat(parts).with_columns(
            pl.when(pl.col("_total") != 0).then(pl.col("mean") / pl.col("_total")).otherwise(None).alias("share")
        )
        return df.select("n_players", "bot", "category", "n", "mean", "sd", "lo", "hi", "share").to_pandas()

    def report(self, path: str | Path | None = None, title: str | None = None) -> Path:
        """Write the HTML report (default ``<run>/report.html``); returns its path."""
        from meeplab.reports import build_report

        return build_report([self.path], Path(path) if path else self.path / "report.html", title=title)


class Comparison:
    """A baseline and a variant played on the same seeds (``compare``), or any two runs (``load``)."""

    def __init__(self, baseline: Result, variant: Result, path: Path | None = None):
        self.baseline, self.variant, self.path = baseline, variant, path

    def __repr__(self) -> str:
        return f"<meeplab.Comparison {self.baseline.run.label!r} vs {self.variant.run.label!r}>"

    @property
    def paired(self) -> bool:
        from meeplab.analysis.compare import pairing

        return pairing(self.baseline.run, self.variant.run)[0]

    @property
    def sprt(self) -> dict[str, Any] | None:
        """The sequential test's record (``compare(..., until_significant=True)``), else None."""
        rec = self.variant.run.meta.get("sprt")
        return rec if isinstance(rec, dict) else None

    def differences(self) -> pd.DataFrame:
        """Per player count and bot: win rate and mean score of both runs and ``variant - baseline`` with 95%
        intervals (``d_win_lo``, ``d_win_hi``, ``d_score_lo``, ``d_score_hi``) and p-values: paired game by game
        when the runs share seed, players and lineups (common random numbers), else unpaired."""
        from meeplab.analysis.compare import paired_compare, unpaired_compare

        if self.paired:
            df = paired_compare(self.baseline.run, self.variant.run)
        else:
            df = unpaired_compare(self.baseline.stats, self.variant.stats)
        return df.with_columns(pl.lit(self.paired).alias("paired")).to_pandas()

    def win_rates(self) -> pd.DataFrame:
        """Both runs' :meth:`Result.win_rates`, with a ``run`` column (baseline, variant)."""
        a, b = self.baseline.win_rates(), self.variant.win_rates()
        return pd.concat([a.assign(run="baseline"), b.assign(run="variant")], ignore_index=True)

    def seat_gaps(self) -> pd.DataFrame:
        """Per player count, the seat gap among equally strong bots in the baseline and in the variant (``run``),
        the variant's change against the baseline (``d``, ``d_lo``, ``d_hi``, ``p``; paired on common seeds)."""
        return seat_gap_table([("baseline", self.baseline), ("variant", self.variant)])

    def sprt_path(self) -> pd.DataFrame:
        """The sequential test's LLR after each batch (one row per player count and look)."""
        rec = self.sprt
        if rec is None:
            raise MeeplabError("this comparison was not played with until_significant=True")
        rows = [dict(pt, n_players=t["n_players"]) for t in rec["tests"] for pt in t["path"]]
        return pd.DataFrame(rows)

    def report(self, path: str | Path | None = None, title: str | None = None) -> Path:
        from meeplab.reports import build_report

        if path is None:
            if self.path is None:
                raise MeeplabError("report(path): give the HTML file to write")
            path = self.path / "report.html"
        return build_report([self.baseline.path, self.variant.path], Path(path), title=title)


def run(
    game: str,
    games: int = 1000,
    players: int | str | Iterable[int] | None = None,
    bots: str | Iterable[str] = "default",
    seed: int = 1,
    set: dict[str, Any] | None = None,
    params: str | Path | None = None,
    bot_configs: Iterable[str] = (),
    rotate: bool = True,
    threads: int | None = None,
    out: str | Path | None = None,
    label: str = "",
    force: bool = False,
    progress: bool = False,
) -> Result:
    """Play ``games`` games per player count and return the run (written to ``out``, default a new temporary
    directory). ``set`` overrides rule parameters (``{"pig_bonus_farm": 3}``), ``params`` is a TOML file of
    them; ``bots`` one name per seat (fewer repeat; default ``"default"``, the game's default lineup: the strongest
    fast bot its strategies package declares, else ``tuned``, else ``greedy``), rotated
    over the seats unless ``rotate=False``."""
    from meeplab.lab.runs.runner import run as run_batch

    cfg = _plan(
        game,
        games,
        players,
        bots,
        seed,
        set,
        params,
        bot_configs,
        rotate,
        threads,
        _out(out, "run"),
        label,
        force,
        progress,
    )
    if run_batch(cfg).status != "complete":
        raise KeyboardInterrupt(f"run interrupted; the finished shards are in {cfg.out}")
    return Result(cfg.out)


def compare(
    game: str,
    variant: dict[str, Any] | None = None,
    baseline: dict[str, Any] | None = None,
    games: int = 1000,
    players: int | str | Iterable[int] | None = None,
    bots: str | Iterable[str] = "default",
    seed: int = 1,
    variant_params: str | Path | None = None,
    baseline_params: str | Path | None = None,
    bot_configs: Iterable[str] = (),
    rotate: bool = True,
    threads: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
    until_significant: bool = False,
    delta: float | None = None,
    elo: float | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    alternative: str = "two-sided",
    batch: int = 1000,
    max_games: int | None = None,
    metric: str | None = None,
    progress: bool = False,
) -> Comparison:
    """Play the baseline (rule book, or ``baseline`` overrides) and the variant on the same seeds; with
    ``until_significant=True`` in batches until the SPRT decides (``delta`` or ``elo``) or ``max_games`` per player
    count (default 100,000; ``games`` does not apply to a sequential test). Writes ``out/baseline``,
    ``out/variant`` (and ``out/sprt.json``)."""
    from meeplab.lab.runs.runner import run as run_batch

    root = _out(out, "compare")
    common = {
        "games": games,
        "players": players,
        "bots": bots,
        "seed": seed,
        "bot_configs": bot_configs,
        "rotate": rotate,
        "threads": threads,
        "force": force,
        "progress": progress,
    }
    var_cfg = _plan(game, set=variant, params=variant_params, out=root / "variant", label="variant", **common)
    if not var_cfg.overrides:
        raise MeeplabError("compare needs a variant: variant={'name': value} or variant_params=FILE")
    base_cfg = _plan(game, set=baseline, params=baseline_params, out=root / "baseline", label="baseline", **common)
    if until_significant:
        from meeplab.lab.studies.sprt import SprtSettings, run_sequential, store

        st = SprtSettings(
            alpha=alpha,
            beta=beta,
            delta=delta,
            elo=elo,
            alternative=alternative,
            batch=batch,
            max_games=_whole("max_games", max_games if max_games is not None else SPRT_MAX_GAMES),
        )
        rec = run_sequential(base_cfg, var_cfg, st, metric)
        if rec.get("status") != "complete":
            raise KeyboardInterrupt("comparison interrupted")
        store(root, var_cfg.out, rec)
    else:
        for cfg in (base_cfg, var_cfg):
            if run_batch(cfg).status != "complete":
                raise KeyboardInterrupt(f"comparison interrupted; the finished shards are in {cfg.out}")
    return Comparison(Result(base_cfg.out), Result(var_cfg.out), root)


def seat_gap_table(ordered: list[tuple[str, Result]]) -> pd.DataFrame:
    """The seat gaps of ``(label, run)`` pairs per player count they share, each against the first
    (:meth:`Study.seat_gaps`, :meth:`Comparison.seat_gaps`)."""
    from meeplab.analysis.compare import pairing
    from meeplab.analysis.seatgap import gap_frame, seat_gaps

    runs = [r.run for _, r in ordered]
    if not runs:
        return pd.DataFrame()
    players = sorted(set.intersection(*[set(r.players) for r in runs]))
    paired = [True] + [pairing(runs[0], r)[0] for r in runs[1:]]
    labels = [lab for lab, _ in ordered]
    frames = []
    for p in players:
        df = gap_frame(seat_gaps(runs, p, paired))
        frames.append(df.with_columns(pl.Series("run", [labels[i] for i in df["i"].to_list()])).drop("i"))
    return pl.concat(frames).to_pandas() if frames else pd.DataFrame()


#: the record file of each kind of directory meeplab writes besides runs and comparisons
RECORDS = {
    "sweep": "sweep.json",
    "ladder": "ladder.json",
    "options": "options.json",
    "tournament": "tournament.json",
    "fair": "fair.json",
    "maps": "maps.json",
    "decks": "decks.json",
}


class Study:
    """A directory of several runs that one command wrote: ``sweep``, ``fair``, ``experiment``, ``tournament``,
    ``ladder``, ``options``, ``maps``, ``decks`` (or plain ``runs``). ``kind`` says which; ``record`` is its JSON
    record (``fair.json``, ``tournament.json``, ...; empty for a sweep or an experiment); ``runs`` maps each run's
    label to its :class:`Result`. The frames that apply to the kind are methods; seats are numbered from 1, the
    start player."""

    def __init__(self, path: Path, kind: str, record: dict[str, Any], runs: dict[str, Result]):
        self.path, self.kind, self.record, self.runs = path, kind, record, runs

    def __repr__(self) -> str:
        return f"<meeplab.Study {self.kind} {self.path}: {len(self.runs)} runs>"

    def _need(self, *kinds: str) -> None:
        if self.kind not in kinds:
            raise MeeplabError(f"{self.path} is a {self.kind} directory; this table belongs to {' or '.join(kinds)}")

    def _ordered(self) -> list[tuple[str, Result]]:
        """Runs in the order their comparison uses: the baseline first; a sweep's values in the order given (its
        ``sweep.json``; a sweep written without one: by value)."""
        from meeplab.analysis.compare import sweep_order, sweep_param

        items = list(self.runs.items())
        if "baseline" in self.runs:
            return [("baseline", self.runs["baseline"])] + [(k, r) for k, r in items if k != "baseline"]
        given = self.record.get("runs") if self.kind == "sweep" else None
        if isinstance(given, list):  # a sweep's values in the order given: the first is the baseline, as in its report
            at = {r.path.name: (k, r) for k, r in items}
            if sorted(at) == sorted(str(g) for g in given):
                return [at[str(g)] for g in given]
        name = sweep_param([r.run for _, r in items]) if len(items) > 1 else None
        if name:
            return [items[i] for i in sweep_order([r.run for _, r in items], name)]
        return items

    # -- sweeps, fair searches, experiments: their runs ----------------------------------------------
    def values(self) -> pd.DataFrame:
        """One row per run: its label, directory and the value of every parameter that differs between the runs."""
        from meeplab.analysis.compare import differing_params

        ordered = self._ordered()
        names = differing_params([r.run for _, r in ordered])
        rows = []
        for lab, r in ordered:
            row = {"run": lab, "path": str(r.path)}
            for n in names:
                v = r.params.get(n)
                row[n] = list(v) if isinstance(v, tuple) else v
            rows.append(row)
        return pd.DataFrame(rows)

    def win_rates(self) -> pd.DataFrame:
        """Every run's :meth:`Result.win_rates`, with a ``run`` column, in the comparison's order."""
        frames = [r.win_rates().assign(run=lab) for lab, r in self._ordered()]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def seat_gaps(self) -> pd.DataFrame:
        """Per run and player count: the seat gap among equally strong bots (``gap``, ``lo``, ``hi``), the best and
        worst seat, and the change against the first run (``d``, ``d_lo``, ``d_hi``, ``p``; paired where the runs
        share their deals); :mod:`meeplab.analysis.seatgap`. A ladder's are its self-play rungs, weakest first
        (its cross-play runs seat different bots: no seat gap among equals to compare)."""
        ordered = self._ordered()
        if self.kind == "ladder":
            selfplay = self.record.get("self") or {}
            by_dir = {r.path.name: (lab, r) for lab, r in ordered}
            ordered = [by_dir[str(d)] for d in selfplay.values() if str(d) in by_dir]
        return seat_gap_table(ordered)

    def comparisons(self) -> dict[str, Comparison]:
        """An experiment's variants (or a sweep's values) against its baseline (the first run), by label."""
        ordered = self._ordered()
        if len(ordered) < 2:
            return {}
        base = ordered[0][1]
        return {lab: Comparison(base, r, self.path) for lab, r in ordered[1:]}

    # -- the commands' own records ------------------------------------------------------------------
    def _every_seat(self) -> bool:
        return self.record.get("target") == "every seat"  # fair --seats all

    def search(self) -> pd.DataFrame:
        """fair: every value tried per player count (``x``, ``imbalance`` or seat gap, its ``se``); for ``--seats
        all`` every value vector played (``run``, then one column per seat, ``seat1`` = the start player)."""
        self._need("fair")
        if self._every_seat():
            rows = [
                {
                    "n_players": r["n_players"],
                    "run": pt["run"],
                    **{f"seat{i + 1}": v for i, v in enumerate(pt["values"])},
                }
                for r in self.record.get("results", [])
                for pt in r.get("points", [])
            ]
            return pd.DataFrame(rows)
        rows = [dict(pt, n_players=r["n_players"]) for r in self.record.get("results", []) for pt in r["points"]]
        return pd.DataFrame(rows)

    def answers(self) -> pd.DataFrame:
        """fair: the fairest value per player count with its interval, and the seat gap there; for ``--seats all``
        one row per seat (``seat`` from 1): its default, fair value and interval, what its position is worth in units
        of the parameter, and its win rate measured at the answer."""
        self._need("fair")
        rows = []
        if self._every_seat():
            for r in self.record.get("results", []):
                gap = r.get("seat_gap") or {}
                measured = {int(x["seat"]): x for x in r.get("seats", [])}
                for i, v in enumerate(r["values"]):
                    m = measured.get(i + 1, {})
                    rows.append(
                        {
                            "n_players": r["n_players"],
                            "seat": i + 1,
                            "default": r["default"][i],
                            "value": v,
                            "lo": r["lo"][i],
                            "hi": r["hi"][i],
                            "whole_range": r["whole_range"][i],
                            "worth": r["worth"][i],
                            "worth_lo": r["worth_lo"][i],
                            "worth_hi": r["worth_hi"][i],
                            "win_rate": m.get("win_rate"),
                            "win_lo": m.get("lo"),
                            "win_hi": m.get("hi"),
                            "seat_gap": gap.get("gap"),
                            "seat_gap_lo": gap.get("lo"),
                            "seat_gap_hi": gap.get("hi"),
                        }
                    )
            return pd.DataFrame(rows)
        for r in self.record.get("results", []):
            gap = r.get("seat_gap") or {}
            rows.append(
                {
                    "n_players": r["n_players"],
                    "value": r["value"],
                    "lo": r["lo"],
                    "hi": r["hi"],
                    "crossing": r["crossing"],
                    "note": r["note"],
                    "seat_gap": gap.get("gap"),
                    "seat_gap_lo": gap.get("lo"),
                    "seat_gap_hi": gap.get("hi"),
                }
            )
        return pd.DataFrame(rows)

    def ratings(self) -> pd.DataFrame:
        """tournament: each bot's rating (Elo-like) with its 95% interval."""
        self._need("tournament")
        return pd.DataFrame(self.record.get("ratings", []))

    def seats(self) -> pd.DataFrame:
        """tournament: the seat effect per player count (seat 1 = the start player, the reference)."""
        self._need("tournament")
        df = pd.DataFrame(self.record.get("seats", []))
        if "seat" in df and len(df) and int(df["seat"].min()) == 0:  # a tournament.json from before 2026-12-03
            df["seat"] = df["seat"] + 1
        return df

    def matchups(self) -> pd.DataFrame:
        """tournament: head-to-head results of each pair of bots."""
        self._need("tournament")
        return pd.DataFrame(self.record.get("matchups", []))

    def rungs(self) -> pd.DataFrame:
        """ladder: one row per player count and rung (seat rates and intervals, ties, length, leading category)."""
        self._need("ladder")
        from meeplab.analysis.ladder import load_ladder, rung_rows

        return pd.DataFrame(rung_rows(load_ladder(self.path)))

    def options(self) -> pd.DataFrame:
        """options: one row per option (its value in win share with its interval), as options.json holds them."""
        self._need("options")
        return pd.DataFrame(self.record.get("rows", []))

    def ranking(self) -> pd.DataFrame:
        """maps / decks: the files ranked fairest first per player count."""
        self._need("maps", "decks")
        return pd.DataFrame(self.record.get("ranking", []))


def _run_dirs(p: Path) -> list[Path]:
    return sorted(d for d in p.iterdir() if d.is_dir() and is_run(d))


def _study(p: Path) -> Study | None:
    import json

    for kind, name in RECORDS.items():
        f = p / name
        if f.is_file():
            try:
                rec = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise MeeplabError(f"{f}: not readable JSON ({exc})") from None
            dirs = [d for d in p.rglob(RUN_JSON) if d.is_file()]
            runs = {}
            for f2 in sorted(dirs):
                r = Result(f2.parent)
                lab = r.run.label
                while lab in runs:
                    lab += "'"
                runs[lab] = r
            return Study(p, kind, rec if isinstance(rec, dict) else {}, runs)
    dirs = _run_dirs(p)
    nested = [d for d in sorted(p.iterdir()) if d.is_dir() and is_run(d / "baseline")]
    if is_run(p / "baseline") and len(dirs) > 2:
        return Study(p, "experiment", {}, {d.name: Result(d) for d in dirs})
    if nested and not dirs:  # an experiment with [sprt]: one compare directory per variant
        runs = {"baseline": Result(nested[0] / "baseline")}
        runs.update({d.name: Result(d / "variant") for d in nested if is_run(d / "variant")})
        return Study(p, "experiment", {}, runs)
    if len(dirs) >= 2:
        kind = "sweep" if all("=" in d.name for d in dirs) else "runs"
        return Study(p, kind, {}, {Result(d).run.label: Result(d) for d in dirs})
    return None


def load(path: str | Path) -> Result | Comparison | Study:
    """Open any directory meeplab writes: a run directory gives a :class:`Result`; a ``compare`` directory
    (``baseline/`` and ``variant/`` inside) a :class:`Comparison`; a sweep, fair search, experiment, tournament,
    ladder, options, maps or decks directory a :class:`Study` with that experiment's frames."""
    p = Path(path)
    if not p.is_dir():
        raise MeeplabError(f"{p}: no such directory")
    if is_run(p):
        return Result(p)
    if is_run(p / "baseline") and is_run(p / "variant") and len(_run_dirs(p)) == 2:
        return Comparison(Result(p / "baseline"), Result(p / "variant"), p)
    st = _study(p)
    if st is not None:
        return st
    raise MeeplabError(
        f"{p}: not a directory meeplab wrote (no run.json, no baseline/variant, no sweep runs, no "
        f"{', '.join(RECORDS.values())})"
    )
