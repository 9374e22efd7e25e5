"""Statistics for balance reports: Wilson intervals, paired (common random numbers) and unpaired
comparisons, and the lazy per-run aggregations the report draws from.

Every aggregation runs on the run's polars ``LazyFrame`` with the streaming engine and returns a
small ``polars.DataFrame`` (one row per player count / bot / seat / bin), so the size of the run only
costs time, not memory.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import polars as pl
from scipy import stats as sps

from .load import Run

Z95 = 1.959963984540054


# -- intervals -------------------------------------------------------------------------------

def wilson(k: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n`` (``k`` may be fractional: a k-way
    shared win counts 1/k). ``n == 0`` gives ``(nan, nan)``."""
    if n <= 0:
        return (math.nan, math.nan)
    if k < 0 or k > n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def wilson_arrays(k: np.ndarray, n: np.ndarray, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`wilson` (nan where ``n == 0``)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        z2 = z * z
        denom = 1.0 + z2 / n
        center = (p + z2 / (2.0 * n)) / denom
        half = z * np.sqrt(np.clip(p * (1.0 - p), 0.0, None) / n + z2 / (4.0 * n * n)) / denom
        lo = np.where(n > 0, np.clip(center - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(center + half, 0.0, 1.0), np.nan)
    return lo, hi


def newcombe_diff(k1: float, n1: float, k2: float, n2: float, z: float = 1.96) -> tuple[float, float, float]:
    """Difference of two independent proportions ``p2 - p1`` with Newcombe's hybrid score interval
    (method 10, built from the two Wilson intervals). Returns ``(diff, lo, hi)``."""
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p2 - p1
    lo = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    hi = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return (d, lo, hi)


@dataclass(frozen=True)
class MeanDiff:
    """A mean difference with its confidence interval."""

    n: int
    mean: float
    lo: float
    hi: float
    sd: float  # sd of the paired differences (paired) or nan (unpaired)


def _t(n_df: float, conf: float) -> float:
    if not np.isfinite(n_df) or n_df <= 0:
        return math.nan
    return float(sps.t.ppf(0.5 + conf / 2.0, n_df))


def paired_mean_diff(base: Sequence[float], other: Sequence[float], conf: float = 0.95) -> MeanDiff:
    """Paired difference ``mean(other - base)`` with a t interval on the per-pair differences.

    ``base[i]`` and ``other[i]`` must come from the same game (same seed and game index: common
    random numbers), which removes the game-to-game noise both runs share."""
    a = np.asarray(base, dtype=np.float64)
    b = np.asarray(other, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("paired_mean_diff: both samples need the same length")
    d = b - a
    n = int(d.size)
    if n == 0:
        return MeanDiff(0, math.nan, math.nan, math.nan, math.nan)
    m = float(d.mean())
    if n == 1:
        return MeanDiff(1, m, math.nan, math.nan, math.nan)
    sd = float(d.std(ddof=1))
    return mean_diff_from_moments(n, m, sd, conf)


def mean_diff_from_moments(n: int, mean: float, sd: float, conf: float = 0.95) -> MeanDiff:
    """Paired-difference interval from the count, mean and sd of the differences."""
    if n < 2 or not np.isfinite(sd):
        return MeanDiff(int(n), float(mean), math.nan, math.nan, float(sd))
    half = _t(n - 1, conf) * sd / math.sqrt(n)
    return MeanDiff(int(n), float(mean), float(mean - half), float(mean + half), float(sd))


def welch_diff(m1: float, sd1: float, n1: int, m2: float, sd2: float, n2: int,
               conf: float = 0.95) -> MeanDiff:
    """Unpaired difference ``m2 - m1`` with Welch's t interval."""
    if n1 < 2 or n2 < 2:
        return MeanDiff(min(n1, n2), m2 - m1, math.nan, math.nan, math.nan)
    v1, v2 = sd1 * sd1 / n1, sd2 * sd2 / n2
    se = math.sqrt(v1 + v2)
    if se == 0.0:
        return MeanDiff(min(n1, n2), m2 - m1, m2 - m1, m2 - m1, math.nan)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1)) if (v1 > 0 or v2 > 0) else n1 + n2 - 2
    half = _t(df, conf) * se
    d = m2 - m1
    return MeanDiff(min(n1, n2), d, d - half, d + half, math.nan)


def seat_uniformity_p(wins: Sequence[float]) -> float:
    """Chi-square goodness-of-fit p-value that wins are spread evenly over the seats
    (``wins[s]`` = total win share of seat ``s``; shared wins make these fractional)."""
    w = np.asarray(wins, dtype=np.float64)
    total = w.sum()
    if w.size < 2 or total <= 0:
        return math.nan
    exp = total / w.size
    chi2 = float(((w - exp) ** 2 / exp).sum())
    return float(sps.chi2.sf(chi2, w.size - 1))


# -- per-run aggregations --------------------------------------------------------------------

@dataclass
class RunStats:
    """Everything the report shows about one run, as small DataFrames."""

    games: pl.DataFrame       # n_players, games, tie_games, tie_share, mean_length, sd_length
    ties: pl.DataFrame        # n_players, k (winners sharing first place), games
    by_bot: pl.DataFrame      # n_players, bot, n, wins, win_rate (per seat), lo, hi, games_won, seats_per_game,
    #   mean_score, sd_score, min/max, mean_rank, cat_*
    by_seat: pl.DataFrame     # n_players, seat, n, wins, win_rate, lo, hi, mean_score
    seat_bot: pl.DataFrame    # n_players, seat, bot, n, win_rate
    ranks: pl.DataFrame       # n_players, bot, rank, count, share
    lengths: pl.DataFrame     # n_players, length, games
    score_hist: pl.DataFrame  # n_players, bot, left, width, count
    seat_p: dict[int, float]  # n_players -> chi-square p-value for "wins spread evenly over seats"


def _with_wilson(df: pl.DataFrame, k: str = "wins", n: str = "n") -> pl.DataFrame:
    lo, hi = wilson_arrays(df[k].to_numpy(), df[n].to_numpy())
    return df.with_columns(
        (pl.col(k) / pl.col(n)).alias("win_rate"),
        pl.Series("lo", lo),
        pl.Series("hi", hi),
    )


def _nice_width(span: float, target_bins: int = 40) -> float:
    if span <= 0:
        return 1.0
    raw = span / target_bins
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def run_stats(run: Run) -> RunStats:
    lf = run.lf
    cats = run.categories
    c = run.collect

    games = c(
        lf.group_by("n_players").agg(
            (pl.col("seat") == 0).sum().alias("games"),
            # a k-way shared first place has k rows with rank 1 and win 1/k: their win sum is 1 game
            pl.col("win").filter((pl.col("rank") == 1) & (pl.col("win") < 1.0)).sum().alias("tie_games"),
            pl.col("length").filter(pl.col("seat") == 0).mean().alias("mean_length"),
            pl.col("length").filter(pl.col("seat") == 0).std().alias("sd_length"),
            pl.col("length").filter(pl.col("seat") == 0).min().alias("min_length"),
            pl.col("length").filter(pl.col("seat") == 0).max().alias("max_length"),
        ).sort("n_players")
    ).with_columns(
        pl.col("games").cast(pl.Int64),
        (pl.col("tie_games") / pl.col("games")).alias("tie_share"),
    )

    ties = c(
        lf.filter(pl.col("rank") == 1)
        .group_by("n_players", "win")
        .agg(pl.len().alias("rows"))
    ).with_columns(
        (1.0 / pl.col("win")).round(0).cast(pl.Int64).alias("k"),
    ).with_columns(
        (pl.col("rows") // pl.col("k")).alias("games")
    ).select("n_players", "k", "games").sort("n_players", "k")

    by_bot = c(
        lf.group_by("n_players", "bot").agg(
            pl.len().alias("n"),
            pl.col("win").sum().alias("wins"),
            pl.col("score").mean().alias("mean_score"),
            pl.col("score").std().alias("sd_score"),
            pl.col("score").min().alias("min_score"),
            pl.col("score").max().alias("max_score"),
            pl.col("rank").mean().alias("mean_rank"),
            *[pl.col(k).mean().alias(f"cat_{k}") for k in cats],
        ).sort("n_players", "bot")
    )
    by_bot = _with_wilson(by_bot).join(games.select("n_players", pl.col("games").alias("_g")), on="n_players",
                                       how="left").with_columns(
        (pl.col("wins") / pl.col("_g")).alias("games_won"),  # share of all games won by any seat of this bot
        (pl.col("n") / pl.col("_g")).alias("seats_per_game"),
    ).drop("_g")

    by_seat = c(
        lf.group_by("n_players", "seat").agg(
            pl.len().alias("n"),
            pl.col("win").sum().alias("wins"),
            pl.col("score").mean().alias("mean_score"),
        ).sort("n_players", "seat")
    )
    by_seat = _with_wilson(by_seat)

    seat_bot = c(
        lf.group_by("n_players", "seat", "bot").agg(
            pl.len().alias("n"),
            pl.col("win").mean().alias("win_rate"),
        ).sort("n_players", "seat", "bot")
    )

    ranks = c(
        lf.group_by("n_players", "bot", "rank").agg(pl.len().alias("count"))
    ).with_columns(
        (pl.col("count") / pl.col("count").sum().over("n_players", "bot")).alias("share")
    ).sort("n_players", "bot", "rank")

    lengths = c(
        lf.filter(pl.col("seat") == 0).group_by("n_players", "length").agg(pl.len().alias("games"))
    ).sort("n_players", "length")

    # exact binned score histogram per (player count, bot), computed lazily
    rng_df = c(lf.group_by("n_players").agg(
        pl.col("score").min().alias("lo"), pl.col("score").max().alias("hi"),
        (pl.col("score") == pl.col("score").round(0)).all().alias("integer"),
    )).sort("n_players")
    hists = []
    for row in rng_df.iter_rows(named=True):
        lo, hi = float(row["lo"]), float(row["hi"])
        span = hi - lo
        if row["integer"] and span <= 60:
            width, start = 1.0, lo - 0.5
        else:
            width = _nice_width(span)
            start = math.floor(lo / width) * width
        start, width = float(start), float(width)
        h = c(
            lf.filter(pl.col("n_players") == row["n_players"])
            .with_columns(((pl.col("score") - start) / width).floor().cast(pl.Int64).alias("b"))
            .group_by("n_players", "bot", "b").agg(pl.len().alias("count"))
        ).with_columns(
            (pl.lit(start) + pl.col("b") * width).alias("left"),
            pl.lit(width).alias("width"),
        ).select("n_players", "bot", "left", "width", "count")
        hists.append(h)
    score_hist = pl.concat(hists).sort("n_players", "bot", "left") if hists else pl.DataFrame()

    seat_p = {}
    for p in by_seat["n_players"].unique().sort().to_list():
        seat_p[int(p)] = seat_uniformity_p(by_seat.filter(pl.col("n_players") == p)["wins"].to_numpy())

    return RunStats(games=games, ties=ties, by_bot=by_bot, by_seat=by_seat, seat_bot=seat_bot,
                    ranks=ranks, lengths=lengths, score_hist=score_hist, seat_p=seat_p)


# -- comparisons between runs ----------------------------------------------------------------

def _canon(v: Any) -> str:
    return json.dumps(v, sort_keys=True, default=str)


def pairing(base: Run, other: Run) -> tuple[bool, str]:
    """Whether ``other`` can be compared game by game with ``base`` (common random numbers):
    same game, seed, player counts, lineups and rotation. Returns ``(paired, reason)``."""
    checks = [
        ("game", base.game, other.game),
        ("seed", base.seed, other.seed),
        ("player counts", sorted(base.players), sorted(other.players)),
        ("lineups", base.lineups, other.lineups),
        ("rotation", base.rotate, other.rotate),
    ]
    diffs = [name for name, a, b in checks if _canon(a) != _canon(b)]
    if base.seed is None:
        diffs.append("seed (not recorded)")
    if diffs:
        return False, "different " + ", ".join(diffs)
    return True, "same game, seed, player counts, lineups and rotation: games are paired by game index"


#: games per block in :func:`paired_compare` (bounds memory: both runs' rows of one block are in memory)
PAIR_BLOCK_ROWS = 4_000_000


def _sorted_by_key(df: pl.DataFrame, p: int) -> tuple[np.ndarray, pl.DataFrame]:
    key = df["game_index"].to_numpy() * p + df["seat"].to_numpy()
    if key.size > 1 and not bool(np.all(key[1:] > key[:-1])):
        order = np.argsort(key, kind="stable")
        return key[order], df[order]
    return key, df


def _pair_block(a: pl.DataFrame, b: pl.DataFrame, p: int, start: int, block: int) -> dict[str, np.ndarray]:
    """Running sums for one block of games: rows matched on (game index, seat), each bot's seats
    averaged within a game, then summed over games (numpy bincounts: linear time and memory)."""
    if a.height == 0 or b.height == 0:
        return {}
    ka, a = _sorted_by_key(a, p)
    kb, b = _sorted_by_key(b, p)
    if ka.shape != kb.shape or not np.array_equal(ka, kb):
        _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
        ka, a, b = ka[ia], a[ia], b[ib]
    if ka.size == 0:
        return {}
    names = a["bot"].unique().sort()
    nb = names.len()
    code = a["bot"].replace_strict(names, pl.int_range(nb, eager=True), return_dtype=pl.Int64).to_numpy()
    g = a["game_index"].to_numpy() - start
    cell = g * nb + code
    size = block * nb
    cnt = np.bincount(cell, minlength=size).reshape(block, nb)
    valid = cnt > 0
    safe = np.where(valid, cnt, 1)

    def mean(x: np.ndarray) -> np.ndarray:
        return np.bincount(cell, weights=x, minlength=size).reshape(block, nb) / safe

    s, s_o = mean(a["score"].to_numpy()), mean(b["score"].to_numpy())
    w, w_o = mean(a["win"].to_numpy()), mean(b["win"].to_numpy())
    ds, dw = s_o - s, w_o - w
    out = {}
    for j, bot in enumerate(names.to_list()):
        m = valid[:, j]
        out[bot] = np.array([
            m.sum(), s[m, j].sum(), s_o[m, j].sum(), ds[m, j].sum(), (ds[m, j] ** 2).sum(),
            w[m, j].sum(), w_o[m, j].sum(), dw[m, j].sum(), (dw[m, j] ** 2).sum(), (ds[m, j] != 0).sum(),
        ], dtype=np.float64)
    return out


def paired_compare(base: Run, other: Run, conf: float = 0.95) -> pl.DataFrame:
    """Per (player count, bot): mean score and win-rate differences ``other - base`` over the games
    both runs played (rows matched on player count, game index and seat), with paired t intervals.

    A bot that fills several lineup entries is averaged over its seats within each game first, so
    every game contributes one difference. The runs are read in blocks of game indices (the row
    groups of a results file are in game order, so each block reads only its own part of the file)
    and only running sums are kept: memory stays bounded whatever the number of games."""
    cols = ["game_index", "seat", "bot", "score", "win"]
    acc: dict[tuple[int, str], np.ndarray] = {}
    # running sums per (P, bot): games, s, s_o, ds, ds^2, w, w_o, dw, dw^2, changed
    common = sorted(set(base.players) & set(other.players))
    for p in common:
        span = base.collect(base.lf.filter(pl.col("n_players") == p)
                            .select(pl.col("game_index").min().alias("lo"), pl.col("game_index").max().alias("hi")))
        lo, hi = int(span["lo"][0]), int(span["hi"][0])
        block = max(1, PAIR_BLOCK_ROWS // p)
        for start in range(lo, hi + 1, block):
            def rows(run: Run) -> pl.DataFrame:
                return run.collect(run.lf.filter(
                    (pl.col("n_players") == p) & (pl.col("game_index") >= start)
                    & (pl.col("game_index") < start + block)).select(cols))
            for bot, v in _pair_block(rows(base), rows(other), p, start, block).items():
                key = (p, bot)
                acc[key] = acc.get(key, 0.0) + v
    rows_out = []
    for (p, bot), v in sorted(acc.items()):
        n, s, s_o, ds, ds2, w, w_o, dw, dw2, changed = v
        n_i = int(round(n))

        def sd(sm: float, sq: float) -> float:
            if n_i < 2:
                return math.nan
            return math.sqrt(max(0.0, (sq - sm * sm / n) / (n - 1)))

        ms = mean_diff_from_moments(n_i, ds / n, sd(ds, ds2), conf)
        mw = mean_diff_from_moments(n_i, dw / n, sd(dw, dw2), conf)
        rows_out.append({
            "n_players": p, "bot": bot, "games": n_i,
            "score_base": s / n, "score_other": s_o / n, "d_score": ms.mean, "sd_score": ms.sd,
            "d_score_lo": ms.lo, "d_score_hi": ms.hi,
            "win_base": w / n, "win_other": w_o / n, "d_win": mw.mean, "sd_win": mw.sd,
            "d_win_lo": mw.lo, "d_win_hi": mw.hi, "changed": changed / n,
        })
    schema = {"n_players": pl.Int64, "bot": pl.String, "games": pl.Int64, **{k: pl.Float64 for k in (
        "score_base", "score_other", "d_score", "sd_score", "d_score_lo", "d_score_hi", "win_base", "win_other",
        "d_win", "sd_win", "d_win_lo", "d_win_hi", "changed")}}
    return pl.DataFrame(rows_out, schema=schema)


def unpaired_compare(base: RunStats, other: RunStats, conf: float = 0.95) -> pl.DataFrame:
    """Per (player count, bot) present in both runs: win-rate difference (Newcombe) and mean score
    difference (Welch), ``other - base``, treating the runs as independent samples."""
    z = float(sps.norm.ppf(0.5 + conf / 2.0))
    a = base.by_bot
    b = other.by_bot
    j = a.join(b, on=["n_players", "bot"], how="inner", suffix="_o").sort("n_players", "bot")
    rows = []
    for r in j.iter_rows(named=True):
        d, lo, hi = newcombe_diff(r["wins"], r["n"], r["wins_o"], r["n_o"], z)
        md = welch_diff(r["mean_score"], r["sd_score"] or 0.0, r["n"],
                        r["mean_score_o"], r["sd_score_o"] or 0.0, r["n_o"], conf)
        rows.append({
            "n_players": r["n_players"], "bot": r["bot"],
            "n_base": r["n"], "n_other": r["n_o"],
            "win_base": r["win_rate"], "win_base_lo": r["lo"], "win_base_hi": r["hi"],
            "win_other": r["win_rate_o"], "win_other_lo": r["lo_o"], "win_other_hi": r["hi_o"],
            "d_win": d, "d_win_lo": lo, "d_win_hi": hi,
            "score_base": r["mean_score"], "score_other": r["mean_score_o"],
            "d_score": md.mean, "d_score_lo": md.lo, "d_score_hi": md.hi,
        })
    return pl.DataFrame(rows)


def differing_params(runs: Sequence[Run]) -> list[str]:
    """Names of the parameters whose values are not the same in every run (union of names)."""
    names: list[str] = []
    for r in runs:
        for k in r.params:
            if k not in names:
                names.append(k)
    out = []
    for k in names:
        vals = {_canon(r.params.get(k, "<absent>")) for r in runs}
        if len(vals) > 1:
            out.append(k)
    return out


def sweep_param(runs: Sequence[Run]) -> str | None:
    """The one parameter a set of runs sweeps over (same game, exactly one parameter differs), else None."""
    if len(runs) < 2 or len({r.game for r in runs}) != 1:
        return None
    diff = differing_params(runs)
    return diff[0] if len(diff) == 1 else None


def sweep_order(runs: Sequence[Run], name: str) -> list[int]:
    """Run indices ordered by the swept value (numeric order when every value is a number)."""
    vals = [r.params.get(name) for r in runs]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return sorted(range(len(runs)), key=lambda i: vals[i])
    return list(range(len(runs)))
