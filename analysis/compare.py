"""Comparisons between runs: whether two runs can be paired game by game, paired and unpaired differences of
win rates and mean scores, Holm's marks across a report's comparisons, and which parameters a set of runs
sweeps over (methods: see :mod:`meeplab.analysis.stats`)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sps

from meeplab.lab.stats import ALPHA, holm, significant

from .load import Run
from .stats import RunStats, mean_diff_from_moments, newcombe_diff, newcombe_p, t_p, welch_diff, welch_p

# -- comparisons between runs ----------------------------------------------------------------


def canon(v: Any) -> str:
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
    diffs = [name for name, a, b in checks if canon(a) != canon(b)]
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
        out[bot] = np.array(
            [
                m.sum(),
                s[m, j].sum(),
                s_o[m, j].sum(),
                ds[m, j].sum(),
                (ds[m, j] ** 2).sum(),
                w[m, j].sum(),
                w_o[m, j].sum(),
                dw[m, j].sum(),
                (dw[m, j] ** 2).sum(),
                (ds[m, j] != 0).sum(),
            ],
            dtype=np.float64,
        )
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
        span = base.collect(
            base.lf.filter(pl.col("n_players") == p).select(
                pl.col("game_index").min().alias("lo"), pl.col("game_index").max().alias("hi")
            )
        )
        lo, hi = int(span["lo"][0]), int(span["hi"][0])
        block = max(1, PAIR_BLOCK_ROWS // p)
        for start in range(lo, hi + 1, block):

            def rows(run: Run, p: int = p, start: int = start, block: int = block) -> pl.DataFrame:
                return run.collect(
                    run.lf.filter(
                        (pl.col("n_players") == p)
                        & (pl.col("game_index") >= start)
                        & (pl.col("game_index") < start + block)
                    ).select(cols)
                )

            span_games = min(block, hi + 1 - start)  # the last (or only) block: no wider than its games
            for bot, v in _pair_block(rows(base), rows(other), p, start, span_games).items():
                key = (p, bot)
                acc[key] = acc.get(key, 0.0) + v
    rows_out = []
    for (p, bot), v in sorted(acc.items()):
        n, s, s_o, ds, ds2, w, w_o, dw, dw2, changed = v
        n_i = int(round(n))

        def sd(sm: float, sq: float, n: float = n, n_i: int = n_i) -> float:
            if n_i < 2:
                return math.nan
            return math.sqrt(max(0.0, (sq - sm * sm / n) / (n - 1)))

        ms = mean_diff_from_moments(n_i, ds / n, sd(ds, ds2), conf)
        mw = mean_diff_from_moments(n_i, dw / n, sd(dw, dw2), conf)
        rows_out.append(
            {
                "n_players": p,
                "bot": bot,
                "games": n_i,
                "score_base": s / n,
                "score_other": s_o / n,
                "d_score": ms.mean,
                "sd_score": ms.sd,
                "d_score_lo": ms.lo,
                "d_score_hi": ms.hi,
                "win_base": w / n,
                "win_other": w_o / n,
                "d_win": mw.mean,
                "sd_win": mw.sd,
                "d_win_lo": mw.lo,
                "d_win_hi": mw.hi,
                "changed": changed / n,
                "p_win": t_p(mw.mean, mw.sd, n_i),
                "p_score": t_p(ms.mean, ms.sd, n_i),
            }
        )
    schema = {
        "n_players": pl.Int64,
        "bot": pl.String,
        "games": pl.Int64,
        **dict.fromkeys(
            (
                "score_base",
                "score_other",
                "d_score",
                "sd_score",
                "d_score_lo",
                "d_score_hi",
                "win_base",
                "win_other",
                "d_win",
                "sd_win",
                "d_win_lo",
                "d_win_hi",
                "changed",
                "p_win",
                "p_score",
            ),
            pl.Float64,
        ),
    }
    return pl.DataFrame(rows_out, schema=schema)


def unpaired_compare(base: RunStats, other: RunStats, conf: float = 0.95) -> pl.DataFrame:
    """Per (player count, bot) present in both runs: win-rate difference (Newcombe, at each run's
    effective sample size, so a bot in several seats counts games, not seats) and mean score difference
    (Welch), ``other - base``, treating the runs as independent samples; with their p-values."""
    z = float(sps.norm.ppf(0.5 + conf / 2.0))
    a = base.by_bot
    b = other.by_bot
    j = a.join(b, on=["n_players", "bot"], how="inner", suffix="_o").sort("n_players", "bot")
    rows = []
    for r in j.iter_rows(named=True):
        k1, n1 = r["win_rate"] * r["n_eff"], r["n_eff"]
        k2, n2 = r["win_rate_o"] * r["n_eff_o"], r["n_eff_o"]
        d, lo, hi = newcombe_diff(k1, n1, k2, n2, z)
        md = welch_diff(
            r["mean_score"], r["sd_score"] or 0.0, r["n"], r["mean_score_o"], r["sd_score_o"] or 0.0, r["n_o"], conf
        )
        rows.append(
            {
                "n_players": r["n_players"],
                "bot": r["bot"],
                "n_base": r["n"],
                "n_other": r["n_o"],
                "win_base": r["win_rate"],
                "win_base_lo": r["lo"],
                "win_base_hi": r["hi"],
                "win_other": r["win_rate_o"],
                "win_other_lo": r["lo_o"],
                "win_other_hi": r["hi_o"],
                "d_win": d,
                "d_win_lo": lo,
                "d_win_hi": hi,
                "score_base": r["mean_score"],
                "score_other": r["mean_score_o"],
                "d_score": md.mean,
                "d_score_lo": md.lo,
                "d_score_hi": md.hi,
                "p_win": newcombe_p(k1, n1, k2, n2),
                "p_score": welch_p(
                    r["mean_score"], r["sd_score"] or 0.0, r["n"], r["mean_score_o"], r["sd_score_o"] or 0.0, r["n_o"]
                ),
            }
        )
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
        vals = {canon(r.params.get(k, "<absent>")) for r in runs}
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


def holm_marks(dfs: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """Holm's correction across every win-rate change in ``dfs`` (one family) and, separately, every mean
    score change: adds ``q_win``/``q_score`` (adjusted p) and ``sig_win``/``sig_score`` (marked, q < ALPHA)."""
    sizes = [d.height for d in dfs]
    q = {
        k: holm(np.concatenate([d[f"p_{k}"].to_numpy() for d in dfs])) if sum(sizes) else np.zeros(0)
        for k in ("win", "score")
    }
    out, i = [], 0
    for d, n in zip(dfs, sizes):
        cols = []
        for k in ("win", "score"):
            qk = q[k][i : i + n]
            cols += [pl.Series(f"q_{k}", qk), pl.Series(f"sig_{k}", np.nan_to_num(qk, nan=1.0) < ALPHA)]
        out.append(d.with_columns(cols))
        i += n
    return out


def family_size(dfs: list[pl.DataFrame], k: str) -> int:
    """How many of the comparisons in ``dfs`` have a p-value for ``k`` (``win`` or ``score``): Holm's family."""
    return int(sum(np.isfinite(d[f"p_{k}"].to_numpy()).sum() for d in dfs))


def category_means(st: RunStats, p: int, cats: Sequence[str]) -> dict[str, float]:
    """Mean points per player from each category at player count ``p`` (all seats)."""
    bb = st.by_bot.filter(pl.col("n_players") == p)
    n = float(bb["n"].sum())
    return {c: float((bb[f"cat_{c}"] * bb["n"]).sum() / n) for c in cats} if n else {}


# -- two-parameter sweeps --------------------------------------------------------------------


def grid_params(runs: Sequence[Run]) -> tuple[str, str] | None:
    """The two parameters a set of runs sweeps over on a grid (same game, exactly two differ), else None."""
    if len(runs) < 3 or len({r.game for r in runs}) != 1:
        return None
    diff = differing_params(runs)
    return (diff[0], diff[1]) if len(diff) == 2 else None


def grid_values(vals: list[Any]) -> list[Any]:
    """The distinct values of one grid axis, in numeric order when every value is a number."""
    uniq = list({canon(v): v for v in vals}.values())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in uniq):
        return sorted(uniq)
    return uniq


def seat_gap(st: RunStats, p: int) -> tuple[float, int, int, float]:
    """(largest gap between two seats' win rates among equally strong bots, best seat, worst seat (0-based
    indices), p-value of no seat effect). The rates are the lineup-aware seat model's (``adj_rate``), the same as
    :mod:`meeplab.analysis.seatgap`; the raw win rates where the model cannot be fitted."""
    s = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
    if s.height == 0:
        return math.nan, -1, -1, math.nan
    w = s["win_rate"].to_numpy()
    if "adj_rate" in s.columns:
        adj = s["adj_rate"].cast(pl.Float64).fill_null(math.nan).to_numpy()
        if np.isfinite(adj).all():
            w = adj
    return float(w.max() - w.min()), int(np.argmax(w)), int(np.argmin(w)), float(st.seat_p.get(p, math.nan))


# -- several runs in one report --------------------------------------------------------------


def unique_labels(runs: Sequence[Run]) -> list[str]:
    """The runs' labels, made unique by a counter: ``label``, ``label (2)``, ..."""
    out: list[str] = []
    for r in runs:
        lab = r.label
        base, k = lab, 2
        while lab in out:
            lab = f"{base} ({k})"
            k += 1
        out.append(lab)
    return out


def bot_order(runs: Sequence[Run], stats: Sequence[RunStats]) -> list[str]:
    """Every bot of the runs once, in lineup order (a report gives each the same colour throughout)."""
    names: list[str] = []
    for r, st in zip(runs, stats):
        for _, lineup in sorted(r.lineups.items(), key=lambda kv: int(kv[0])):
            for b in lineup:
                if b not in names:
                    names.append(b)
        for b in st.by_bot["bot"].to_list():
            if b not in names:
                names.append(b)
    return names


# -- sweeps: the numbers per player count ----------------------------------------------------


def sweep_frames(
    stats: Sequence[RunStats], order: Sequence[int], p: int, cats: Sequence[str]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """At ``p`` players, for the runs in sweep ``order`` (column ``i``: position in it): each bot's win rate,
    interval, mean score and seats per game; and the mean points per player from each category and in all."""
    win_rows, cat_rows = [], []
    for j, i in enumerate(order):
        bb = stats[i].by_bot.filter(pl.col("n_players") == p)
        win_rows.append(
            bb.select("bot", "win_rate", "lo", "hi", "mean_score", "seats_per_game").with_columns(pl.lit(j).alias("i"))
        )
        n = bb["n"].sum()
        cat_rows.append(
            {
                "i": j,
                **{f"cat_{c}": float((bb[f"cat_{c}"] * bb["n"]).sum() / n) for c in cats},
                "score": float((bb["mean_score"] * bb["n"]).sum() / n),
            }
        )
    return pl.concat(win_rows), pl.DataFrame(cat_rows)


@dataclass
class GridCells:
    """A two-parameter sweep at one player count: per run its cell, seat gap, best and worst seat and Holm-adjusted
    p of "no seat effect" (across the grid's cells); ``gap[row, col]`` over the values of the second and first
    parameter; ``fairest``: the (row, col) of the smallest gap, or None."""

    cells: list[tuple[int, int]]
    gaps: list[float]
    best: list[int]
    worst: list[int]
    q: np.ndarray
    gap: np.ndarray
    fairest: tuple[int, int] | None

    @property
    def significant(self) -> list[bool]:
        """Per run: its cell's seat effect is significant at ALPHA after Holm's correction across the grid."""
        return [significant(float(x)) for x in self.q]


def grid_cells(
    runs: Sequence[Run], stats: Sequence[RunStats], params: tuple[str, str], xa: list[Any], xb: list[Any], p: int
) -> GridCells:
    a, b = params
    ia = {canon(v): i for i, v in enumerate(xa)}
    ib = {canon(v): i for i, v in enumerate(xb)}
    gap = np.full((len(xb), len(xa)), math.nan)
    cells, gaps, best, worst, pvals = [], [], [], [], []
    for r, st in zip(runs, stats):
        g, hi, lo, pv = seat_gap(st, p)
        i, j = ib[canon(r.params.get(b))], ia[canon(r.params.get(a))]
        gap[i, j] = g
        cells.append((i, j))
        gaps.append(g)
        best.append(hi)
        worst.append(lo)
        pvals.append(pv)
    k = int(np.nanargmin(gap)) if np.isfinite(gap).any() else -1
    fairest = divmod(k, gap.shape[1]) if k >= 0 else None
    return GridCells(cells, gaps, best, worst, holm(pvals), gap, fairest)
