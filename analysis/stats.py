"""Statistics for balance reports, and the lazy per-run aggregations the report draws from.

Every aggregation runs on the run's polars ``LazyFrame`` with the streaming engine and returns a
small ``polars.DataFrame`` (one row per player count / bot / seat / rotation offset / bin), so the
size of the run only costs time, not memory. The game is the unit of every interval: seats of one
game are never treated as independent.

Methods (one line each, with a reference):

- win rate of a bot in one seat per game: Wilson score interval (Wilson 1927; Newcombe 1998).
- win rate of a bot in several seats per game: Wilson at the effective sample size p(1-p)/Var, Var the
  cluster-robust variance of its per-game win share, stratified by rotation offset (Kish 1965 design
  effect; Korn & Graubard 1998; Cochran 1977 ch. 5).
- win rate of a seat: the same stratified by-game variance (the rotation fixes how many games each seat
  order gets), plain Wilson without rotation.
- seat effect: conditional logit of the winner on seat and bot, one choice among the P seats per game
  (McFadden 1974); advantage of seat s = its win probability among equally strong bots minus 1/P,
  delta-method Wald interval; one p-value for "no seat effect" from the score test (Rao 1948), which
  for self-play tables is exactly Pearson's chi-squared test against 1/P.
- paired comparison (same seed, common random numbers): t interval and t test on per-game differences,
  a bot's seats averaged within each game (Student 1908).
- unpaired comparison: Newcombe's hybrid score interval for win rates (method 10, Newcombe 1998; p-value
  by inverting it) at the effective sample sizes above, Welch's t for mean scores (Welch 1947).
- several comparisons marked in one report: Holm's step-down adjustment of their p-values (Holm 1979).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as sps

from meeplab.lab.stats import ALPHA, Z95, holm, significant, wilson, wilson_arrays  # noqa: F401  (re-exported)

from .load import Run

# -- intervals -------------------------------------------------------------------------------


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


def welch_diff(m1: float, sd1: float, n1: int, m2: float, sd2: float, n2: int, conf: float = 0.95) -> MeanDiff:
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


#: the margin a finding of fair seats is stated to: every seat within this of its fair share (95 %)
FAIR_MARGIN = 0.02


def fair_within(lo: Sequence[float], hi: Sequence[float], margin: float = FAIR_MARGIN) -> tuple[bool, float]:
    """Equivalence, not "no effect found": given each seat's 95 % interval of its advantage over its fair share
    (``lo``, ``hi``), whether every interval lies inside ``±margin`` (fair within the margin: the interval-inclusion
    form of two one-sided tests), and the margin the intervals do rule out (the largest distance of any interval's
    end from 0; nan without intervals)."""
    ends = [abs(float(x)) for x in (*lo, *hi) if x is not None and math.isfinite(float(x))]
    if not ends or len(ends) < 2 * len(lo):
        return False, math.nan
    ruled = max(ends)
    return ruled <= margin, ruled


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


# -- intervals with the game as the unit -----------------------------------------------------


def effective_n(p: np.ndarray, var: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Kish's effective sample size ``p(1-p)/var`` of a proportion whose variance ``var`` was estimated
    with the game as the unit; ``n`` where that is undefined (``p`` at 0 or 1, or ``var`` zero)."""
    p, var, n = (np.asarray(x, dtype=np.float64) for x in (p, var, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        ne = p * (1.0 - p) / var
    return np.where(np.isfinite(ne) & (ne > 0) & (var > 0), ne, n)


def stratified_cluster_var(strata: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Variance of a per-seat win rate with the game as the unit, stratified by rotation offset.

    ``strata`` has one row per ``keys`` + stratum with ``G`` (games in the stratum), ``m`` (seats per
    game of the unit: 1 for a seat, k for a bot in k seats), ``y`` and ``y2`` (sum over games of the
    unit's win share Y_g and of Y_g^2). Returns per ``keys``: ``games``, ``m``, ``rate`` = sum Y / (m G)
    and ``var`` = sum_c G_c s_c^2 / (m G)^2, s_c^2 the within-stratum sample variance of Y_g."""
    return (
        strata.with_columns(
            ((pl.col("y2") - pl.col("y") ** 2 / pl.col("G")) / pl.max_horizontal(pl.col("G") - 1, 1))
            .clip(lower_bound=0.0)
            .alias("_s2"),
        )
        .group_by(*keys)
        .agg(
            pl.col("G").sum().alias("games"),
            pl.col("m").first().alias("m"),
            pl.col("y").sum().alias("_y"),
            (pl.col("G") * pl.col("_s2")).sum().alias("_v"),
        )
        .with_columns(
            (pl.col("_y") / (pl.col("m") * pl.col("games"))).alias("rate"),
            (pl.col("_v") / (pl.col("m") * pl.col("games")) ** 2).alias("var"),
        )
        .drop("_y", "_v")
        .sort(*keys)
    )


# -- seat effect: conditional logit of the winner on seat and bot ----------------------------


@dataclass
class SeatModel:
    """Seat effect at one player count with the lineup taken into account (see :func:`seat_effect`)."""

    n_players: int
    estimable: bool
    reason: str  # why not, when not estimable
    stat: float  # score-test statistic, chi-squared with ``df`` degrees of freedom
    df: int
    p: float  # p-value for "no seat effect"
    rate: np.ndarray  # per seat: win probability among equally strong bots
    adv: np.ndarray  # rate - 1/P
    lo: np.ndarray  # 95% interval of adv
    hi: np.ndarray
    strata: int  # seat orders (rotation offsets) seen
    sig: np.ndarray = None  # seat marked: overall test significant and its interval excludes 0
    # bots of the lineup that never won at this player count: they leave every choice set, so they add nothing to
    # the fit (the seat effect comes from the games' other seats)
    never_won: tuple[str, ...] = ()

    def __post_init__(self):
        if self.sig is None:
            ok = np.isfinite(self.lo) & np.isfinite(self.hi)
            self.sig = ok & ((self.lo > 0) | (self.hi < 0)) & self.significant

    @property
    def significant(self) -> bool:
        """The test of "no seat effect" rejects it at :data:`ALPHA`."""
        return significant(self.p)


SEAT_METHOD = (
    "conditional logit of the winner on seat and bot (McFadden 1974), score test for “no seat effect” (Rao 1948)"
)


def _clogit(theta: np.ndarray, X: np.ndarray, W: np.ndarray, mask: np.ndarray):
    """Log-likelihood, score and information of the conditional logit, batched over replicates.

    ``theta`` (R, K); ``X`` (C, P, K) design per seat order and seat; ``W`` (R, C, P) win shares summed
    over the games of each order (fractional ties kept: a quasi-likelihood); ``mask`` (C, P) seats in
    the choice set."""
    R, K = theta.shape
    C, P = mask.shape
    Xf = X.reshape(C * P, K)
    eta = (theta @ Xf.T).reshape(R, C, P)
    eta = np.where(mask, eta, -np.inf)
    mx = eta.max(axis=2, keepdims=True)
    e = np.exp(eta - mx)
    s = e.sum(axis=2, keepdims=True)
    pi = e / s
    n = W.sum(axis=2)
    ll = (W * np.where(mask, eta, 0.0)).sum(axis=(1, 2)) - (n * (mx[..., 0] + np.log(s[..., 0]))).sum(axis=1)
    # matrix products rather than einsum (the same sums, ~5x faster on bootstrap replicates)
    npi = n[..., None] * pi
    U = (W - npi).reshape(R, C * P) @ Xf
    xbar = np.matmul(pi[:, :, None, :], X[None])[:, :, 0, :]  # (R, C, K): each order's expected design row
    XX = (X[:, :, :, None] * X[:, :, None, :]).reshape(C * P, K * K)
    info = (npi.reshape(R, C * P) @ XX).reshape(R, K, K) - np.matmul((n[..., None] * xbar).transpose(0, 2, 1), xbar)
    return ll, U, info


def _solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.einsum("rkl,rl->rk", np.linalg.pinv(A), b)


def fit_clogit(X: np.ndarray, W: np.ndarray, mask: np.ndarray, iters: int = 60) -> tuple[np.ndarray, bool]:
    """Newton-Raphson with step halving; returns ``(theta (R, K), converged)``."""
    R, K = W.shape[0], X.shape[2]
    theta = np.zeros((R, K))
    if K == 0:
        return theta, True
    ll, U, info = _clogit(theta, X, W, mask)
    for _ in range(iters):
        step = _solve(info, U)
        t = 1.0
        for _h in range(30):
            cand = theta + t * step
            ll2, U2, info2 = _clogit(cand, X, W, mask)
            worse = ll2 < ll - 1e-9 * np.abs(ll)
            if not worse.any():
                break
            t *= 0.5
        theta, ll, U, info = cand, ll2, U2, info2
        if float(np.abs(t * step).max()) < 1e-10:
            return theta, True
    return theta, float(np.abs(theta).max()) < 30.0


def seat_design(bots: np.ndarray, wins: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """Design of the seat model: ``X`` (C, P, K) with P-1 seat columns (seat 0 the reference) and a column
    per bot that ever wins but the first; ``mask`` (C, P) leaves out bots that never win (probability 0:
    they leave the choice set). ``reason`` is non-empty when seat and bot cannot be told apart."""
    C, P = bots.shape
    wins_of = {int(b): float(wins[bots == b].sum()) for b in np.unique(bots)}
    keep = [b for b in sorted(wins_of) if wins_of[b] > 0]
    mask = np.isin(bots, keep)
    K = (P - 1) + max(0, len(keep) - 1)
    X = np.zeros((C, P, K))
    for s in range(1, P):
        X[:, s, s - 1] = 1.0
    for j, b in enumerate(keep[1:]):
        X[:, :, P - 1 + j] = bots == b
    X = X * mask[..., None]
    _, _, info = _clogit(np.zeros((1, K)), X, np.where(mask, 1.0, 0.0)[None], mask)
    reason = ""
    if K and np.linalg.matrix_rank(info[0], tol=1e-8 * max(1.0, float(np.abs(info[0]).max()))) < K:
        reason = (
            "seats were not rotated, so each bot kept its seat and seat and bot are confounded"
            if C == 1
            else "the lineup and rotation do not separate seat from bot"
        )
    return X, mask, reason


def seat_score_test(X: np.ndarray, W: np.ndarray, mask: np.ndarray, P: int) -> tuple[np.ndarray, np.ndarray]:
    """Score test of "all seat effects zero" (bot effects refitted under the null), batched over the
    replicates of ``W`` (R, C, P). Returns ``(statistic, p)`` arrays of length R."""
    R = W.shape[0]
    theta0 = np.zeros((R, X.shape[2]))
    if X.shape[2] > P - 1:
        theta0[:, P - 1 :], _ = fit_clogit(X[..., P - 1 :], W, mask)
    _, U, info = _clogit(theta0, X, W, mask)
    stat = np.einsum("rk,rk->r", U, _solve(info, U))
    return stat, sps.chi2.sf(stat, P - 1)


def seat_effect(bots: np.ndarray, wins: np.ndarray, n_players: int | None = None, z: float = Z95) -> SeatModel:
    """Seat effect from the win shares ``wins`` (C, P) summed over the games of each seat order, with
    ``bots`` (C, P) the bot code in each seat of that order (under rotation, order c = game index mod P).

    The winner of each game is one choice among its seats with probability proportional to
    exp(seat effect + bot strength) (conditional logit). Each seat's advantage is its win probability
    among equally strong bots minus 1/P, with a delta-method Wald interval; the p-value is the score test
    of "no seat effect", which with a single bot is Pearson's chi-squared test against 1/P."""
    bots = np.asarray(bots)
    wins = np.asarray(wins, dtype=np.float64)
    C, P = bots.shape
    nan = np.full(P, math.nan)
    X, mask, reason = seat_design(bots, wins)
    if reason or wins.sum() <= 0:
        return SeatModel(n_players or P, False, reason or "no games", math.nan, P - 1, math.nan, nan, nan, nan, nan, C)
    stat, p = seat_score_test(X, wins[None], mask, P)
    theta, ok = fit_clogit(X, wins[None], mask)
    alpha = np.concatenate([[0.0], theta[0, : P - 1]])
    rate = np.exp(alpha - alpha.max())
    rate /= rate.sum()
    adv = rate - 1.0 / P
    lo = hi = nan
    if ok:
        _, _, info = _clogit(theta, X, wins[None], mask)
        try:
            V = np.linalg.inv(info[0])[: P - 1, : P - 1]
            J = (np.diag(rate) - np.outer(rate, rate))[:, 1:]
            se = np.sqrt(np.clip(np.diag(J @ V @ J.T), 0.0, None))
            lo, hi = adv - z * se, adv + z * se
        except np.linalg.LinAlgError:
            pass
    return SeatModel(n_players or P, True, "", float(stat[0]), P - 1, float(p[0]), rate, adv, lo, hi, C)


def fit_seat_rates(bots: np.ndarray, wins: np.ndarray, W: np.ndarray) -> np.ndarray | None:
    """Each seat's win probability among equally strong bots (the rates of :func:`seat_effect`) for every replicate
    ``W`` (R, C, P) of the win shares, with the design of ``bots`` (C, P) and the total ``wins`` (C, P). Returns
    (R, P), NaN in a replicate whose fit breaks down; None when seat and bot cannot be told apart. A seat that never
    wins gets a rate near 0 (the fit's limit), not NaN."""
    bots = np.asarray(bots)
    wins = np.asarray(wins, dtype=np.float64)
    P = bots.shape[1]
    if (bots < 0).any() or wins.sum() <= 0:
        return None
    X, mask, reason = seat_design(bots, wins)
    if reason:
        return None
    theta, _ = fit_clogit(X, np.asarray(W, dtype=np.float64), mask)
    alpha = np.concatenate([np.zeros((theta.shape[0], 1)), theta[:, : P - 1]], axis=1)
    rate = np.exp(alpha - alpha.max(axis=1, keepdims=True))
    rate /= rate.sum(axis=1, keepdims=True)
    # a seat (or bot) that never wins drives its effect towards -inf: its rate tends to 0, which is the estimate
    rate[~np.isfinite(rate).all(axis=1)] = math.nan
    return rate


# -- several comparisons ---------------------------------------------------------------------


def t_p(mean: float, sd: float, n: int) -> float:
    """Two-sided one-sample t-test p-value of ``mean == 0`` from the moments of the differences."""
    if n < 2 or not np.isfinite(sd) or not np.isfinite(mean):
        return math.nan
    if sd == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    return float(2.0 * sps.t.sf(abs(mean) / (sd / math.sqrt(n)), n - 1))


def newcombe_p(k1: float, n1: float, k2: float, n2: float) -> float:
    """Two-sided p-value matching :func:`newcombe_diff`: one minus the largest confidence level whose
    interval excludes zero (so p < 0.05 exactly when the 95% interval excludes 0)."""
    if n1 <= 0 or n2 <= 0:
        return math.nan
    d = k2 / n2 - k1 / n1
    if d == 0.0:
        return 1.0

    def edge(z: float) -> float:  # the interval end nearer zero; decreasing in z
        _, lo, hi = newcombe_diff(k1, n1, k2, n2, z)
        return lo if d > 0 else -hi

    if edge(1e-9) <= 0.0:
        return 1.0
    if edge(38.0) > 0.0:
        return 0.0
    from scipy.optimize import brentq

    zs = brentq(edge, 1e-9, 38.0, xtol=1e-10)
    return float(2.0 * sps.norm.sf(zs))


def welch_p(m1: float, sd1: float, n1: int, m2: float, sd2: float, n2: int) -> float:
    """Two-sided Welch t-test p-value of ``m2 == m1``."""
    if n1 < 2 or n2 < 2:
        return math.nan
    v1, v2 = sd1 * sd1 / n1, sd2 * sd2 / n2
    if v1 + v2 == 0.0:
        return 1.0 if m1 == m2 else 0.0
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    return float(2.0 * sps.t.sf(abs(m2 - m1) / math.sqrt(v1 + v2), df))


# -- per-run aggregations --------------------------------------------------------------------


@dataclass
class RunStats:
    """Everything the report shows about one run, as small DataFrames."""

    games: pl.DataFrame  # n_players, games, tie_games, tie_share, mean_length, sd_length, safety_games,
    #   safety_share (games ended by a safety net, not the rule book: end != "rules")
    ties: pl.DataFrame  # n_players, k (winners sharing first place), games
    by_bot: pl.DataFrame  # n_players, bot, n, wins, win_rate (per seat), lo, hi, n_eff, by_game, games_won,
    #   seats_per_game, mean_score, sd_score, min/max, mean_rank, cat_*, clear_lead (see clear_lead)
    by_seat: pl.DataFrame  # n_players, seat, n, wins, win_rate, lo, hi, n_eff, mean_score,
    #   adj_rate, adv, adv_lo, adv_hi, sig (lineup-adjusted seat effect, see seat_model)
    seat_bot: pl.DataFrame  # n_players, seat, bot, n, win_rate
    ranks: pl.DataFrame  # n_players, bot, rank, count, share
    lengths: pl.DataFrame  # n_players, length, games
    score_hist: pl.DataFrame  # n_players, bot, left, width, count
    seat_p: dict[int, float]  # n_players -> p-value for "no seat effect" (score test of seat_model)
    seat_model: dict[int, SeatModel]  # n_players -> seat effect with the lineup taken into account
    endings: pl.DataFrame = None  # n_players, end (GameSpec.end_codes value), games


def _with_wilson(df: pl.DataFrame, k: str = "wins", n: str = "n") -> pl.DataFrame:
    lo, hi = wilson_arrays(df[k].to_numpy(), df[n].to_numpy())
    return df.with_columns(
        (pl.col(k) / pl.col(n)).alias("win_rate"),
        pl.Series("lo", lo),
        pl.Series("hi", hi),
    )


#: rotation offset of a row: under rotation entry = (seat + game index) mod P, so one offset is one seat order
OFFSET = ((pl.col("entry") - pl.col("seat") + pl.col("n_players")) % pl.col("n_players")).alias("offset")


def _game_cells(run: Run) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per (player count, rotation offset, seat, bot): rows ``n``, ``wins`` and ``wins2`` (sum of win^2);
    and per (player count, offset, bot) the ``cross`` sum over games of 2 x the products of the win shares
    of two seats of that bot (non-zero only when they share first place): with them the sum over games of
    a bot's squared per-game win share is ``wins2 + cross``, without a pass over the games."""
    lf = run.lf.with_columns(OFFSET)
    cells = run.collect(
        lf.group_by("n_players", "offset", "seat", "bot").agg(
            pl.len().alias("n"),
            pl.col("win").sum().alias("wins"),
            (pl.col("win") ** 2).sum().alias("wins2"),
        )
    ).sort("n_players", "offset", "seat")
    cross = run.collect(
        lf.filter((pl.col("win") > 0) & (pl.col("win") < 1))
        .group_by("n_players", "game_index", "offset", "bot")
        .agg(pl.col("win").sum().alias("s"), (pl.col("win") ** 2).sum().alias("s2"))
        .group_by("n_players", "offset", "bot")
        .agg((pl.col("s") ** 2 - pl.col("s2")).sum().alias("cross"))
    )
    return cells, cross


def clear_lead(by_bot: pl.DataFrame) -> pl.DataFrame:
    """``by_bot`` with ``clear_lead``: True for the bot with the highest win rate at a player count when its 95 %
    interval lies wholly above the next bot's (the lead is clear), False for every other row."""
    flags = []
    for p, w, lo in zip(by_bot["n_players"], by_bot["win_rate"], by_bot["lo"]):
        others = by_bot.filter(pl.col("n_players") == p)
        ranked = others.sort("win_rate", descending=True)
        top = ranked.row(0, named=True)
        is_top = top["win_rate"] == w and top["lo"] == lo
        flags.append(bool(is_top and ranked.height > 1 and top["lo"] > ranked.row(1, named=True)["hi"]))
    return by_bot.with_columns(pl.Series("clear_lead", flags, dtype=pl.Boolean))


def _bot_intervals(by_bot: pl.DataFrame, cells: pl.DataFrame, cross: pl.DataFrame) -> pl.DataFrame:
    """Win-rate intervals per (player count, bot): Wilson for a bot in one seat per game; for a bot in
    several seats Wilson at the effective sample size of its by-game variance stratified by offset."""
    games = cells.group_by("n_players", "offset").agg(pl.col("n").max().alias("G"))
    strata = (
        cells.group_by("n_players", "offset", "bot")
        .agg(
            pl.len().alias("m"),
            pl.col("wins").sum().alias("y"),
            pl.col("wins2").sum().alias("y2"),
        )
        .join(games, on=["n_players", "offset"])
        .join(cross, on=["n_players", "offset", "bot"], how="left")
        .with_columns(
            (pl.col("y2") + pl.col("cross").fill_null(0.0)).alias("y2"),
            pl.col("m").cast(pl.Float64),
        )
    )
    v = stratified_cluster_var(strata, ["n_players", "bot"]).select("n_players", "bot", "var")
    df = by_bot.join(v, on=["n_players", "bot"], how="left")
    p, n = df["win_rate"].to_numpy(), df["n"].to_numpy().astype(np.float64)
    multi = df["seats_per_game"].to_numpy() > 1.0001
    ne = np.where(multi, effective_n(p, df["var"].fill_null(math.nan).to_numpy(), n), n)
    lo, hi = wilson_arrays(p * ne, ne)
    return df.drop("var", "lo", "hi").with_columns(
        pl.Series("lo", lo), pl.Series("hi", hi), pl.Series("n_eff", ne), pl.Series("by_game", multi)
    )


def _seat_intervals(by_seat: pl.DataFrame, cells: pl.DataFrame) -> tuple[pl.DataFrame, dict[int, SeatModel]]:
    """Seat win-rate intervals (Wilson; by game, stratified by offset, under rotation) and the seat model."""
    strata = (
        cells.group_by("n_players", "offset", "seat")
        .agg(
            pl.col("n").sum().alias("G"),
            pl.col("wins").sum().alias("y"),
            pl.col("wins2").sum().alias("y2"),
        )
        .with_columns(pl.lit(1.0).alias("m"))
    )
    v = stratified_cluster_var(strata, ["n_players", "seat"]).select("n_players", "seat", "var")
    orders = cells.group_by("n_players").agg(pl.col("offset").n_unique().alias("_k"))
    df = by_seat.join(v, on=["n_players", "seat"], how="left").join(orders, on="n_players", how="left")
    p, n = df["win_rate"].to_numpy(), df["n"].to_numpy().astype(np.float64)
    rotated = df["_k"].to_numpy() > 1
    ne = np.where(rotated, effective_n(p, df["var"].fill_null(math.nan).to_numpy(), n), n)
    lo, hi = wilson_arrays(p * ne, ne)
    models: dict[int, SeatModel] = {}
    adj = []
    for P in sorted(set(df["n_players"].to_list())):
        cp = cells.filter(pl.col("n_players") == P)
        offs = sorted(set(cp["offset"].to_list()))
        names = sorted(set(cp["bot"].to_list()))
        bots = np.full((len(offs), P), -1)
        wins = np.zeros((len(offs), P))
        for r in cp.iter_rows(named=True):
            c = offs.index(r["offset"])
            if bots[c, r["seat"]] not in (-1, names.index(r["bot"])):
                bots[c, r["seat"]] = -2  # two bots in one seat of one order: not the runner's rotation
            else:
                bots[c, r["seat"]] = names.index(r["bot"])
            wins[c, r["seat"]] += r["wins"]
        if (bots < 0).any():
            nan = np.full(P, math.nan)
            m = SeatModel(
                P,
                False,
                "seat orders are not the runner's rotation",
                math.nan,
                P - 1,
                math.nan,
                nan,
                nan,
                nan,
                nan,
                len(offs),
            )
        else:
            m = seat_effect(bots, wins, P)
            won = {names[int(k)] for k in np.unique(bots[wins > 0])}
            m.never_won = tuple(n for n in names if n not in won)
        models[P] = m
        adj.append(
            pl.DataFrame(
                {
                    "n_players": [P] * P,
                    "seat": list(range(P)),
                    "adj_rate": m.rate,
                    "adv": m.adv,
                    "adv_lo": m.lo,
                    "adv_hi": m.hi,
                    "sig": m.sig,
                },
                schema_overrides={"n_players": pl.Int64, "seat": pl.Int64},
            )
        )
    out = df.drop("var", "lo", "hi", "_k").with_columns(
        pl.Series("lo", lo), pl.Series("hi", hi), pl.Series("n_eff", ne)
    )
    if adj:
        out = out.join(pl.concat(adj), on=["n_players", "seat"], how="left")
    return out, models


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
        lf.group_by("n_players")
        .agg(
            (pl.col("seat") == 0).sum().alias("games"),
            # a k-way shared first place has k rows with rank 1 and win 1/k: their win sum is 1 game
            pl.col("win").filter((pl.col("rank") == 1) & (pl.col("win") < 1.0)).sum().alias("tie_games"),
            pl.col("length").filter(pl.col("seat") == 0).mean().alias("mean_length"),
            pl.col("length").filter(pl.col("seat") == 0).std().alias("sd_length"),
            pl.col("length").filter(pl.col("seat") == 0).min().alias("min_length"),
            pl.col("length").filter(pl.col("seat") == 0).max().alias("max_length"),
            # games a safety net ended (any end code but the rule book's "rules": GameSpec.end_codes)
            (pl.col("end") != "rules").filter(pl.col("seat") == 0).sum().alias("safety_games"),
        )
        .sort("n_players")
    ).with_columns(
        pl.col("games").cast(pl.Int64),
        (pl.col("tie_games") / pl.col("games")).alias("tie_share"),
        (pl.col("safety_games") / pl.col("games")).alias("safety_share"),
    )
    endings = c(lf.filter(pl.col("seat") == 0).group_by("n_players", "end").agg(pl.len().alias("games"))).sort(
        "n_players", "end"
    )

    ties = (
        c(lf.filter(pl.col("rank") == 1).group_by("n_players", "win").agg(pl.len().alias("rows")))
        .with_columns(
            (1.0 / pl.col("win")).round(0).cast(pl.Int64).alias("k"),
        )
        .with_columns((pl.col("rows") // pl.col("k")).alias("games"))
        .select("n_players", "k", "games")
        .sort("n_players", "k")
    )

    by_bot = c(
        lf.group_by("n_players", "bot")
        .agg(
            pl.len().alias("n"),
            pl.col("win").sum().alias("wins"),
            pl.col("score").mean().alias("mean_score"),
            pl.col("score").std().alias("sd_score"),
            pl.col("score").min().alias("min_score"),
            pl.col("score").max().alias("max_score"),
            pl.col("rank").mean().alias("mean_rank"),
            *[pl.col(k).mean().alias(f"cat_{k}") for k in cats],
        )
        .sort("n_players", "bot")
    )
    by_bot = (
        _with_wilson(by_bot)
        .join(games.select("n_players", pl.col("games").alias("_g")), on="n_players", how="left")
        .with_columns(
            (pl.col("wins") / pl.col("_g")).alias("games_won"),  # share of all games won by any seat of this bot
            (pl.col("n") / pl.col("_g")).alias("seats_per_game"),
        )
        .drop("_g")
    )

    by_seat = c(
        lf.group_by("n_players", "seat")
        .agg(
            pl.len().alias("n"),
            pl.col("win").sum().alias("wins"),
            pl.col("score").mean().alias("mean_score"),
        )
        .sort("n_players", "seat")
    )
    by_seat = _with_wilson(by_seat)
    cells, cross = _game_cells(run)
    by_bot = clear_lead(_bot_intervals(by_bot, cells, cross))
    by_seat, seat_model = _seat_intervals(by_seat, cells)

    seat_bot = c(
        lf.group_by("n_players", "seat", "bot")
        .agg(
            pl.len().alias("n"),
            pl.col("win").mean().alias("win_rate"),
        )
        .sort("n_players", "seat", "bot")
    )

    ranks = (
        c(lf.group_by("n_players", "bot", "rank").agg(pl.len().alias("count")))
        .with_columns((pl.col("count") / pl.col("count").sum().over("n_players", "bot")).alias("share"))
        .sort("n_players", "bot", "rank")
    )

    lengths = c(lf.filter(pl.col("seat") == 0).group_by("n_players", "length").agg(pl.len().alias("games"))).sort(
        "n_players", "length"
    )

    # exact binned score histogram per (player count, bot), computed lazily
    rng_df = c(
        lf.group_by("n_players").agg(
            pl.col("score").min().alias("lo"),
            pl.col("score").max().alias("hi"),
            (pl.col("score") == pl.col("score").round(0)).all().alias("integer"),
        )
    ).sort("n_players")
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
        h = (
            c(
                lf.filter(pl.col("n_players") == row["n_players"])
                .with_columns(((pl.col("score") - start) / width).floor().cast(pl.Int64).alias("b"))
                .group_by("n_players", "bot", "b")
                .agg(pl.len().alias("count"))
            )
            .with_columns(
                (pl.lit(start) + pl.col("b") * width).alias("left"),
                pl.lit(width).alias("width"),
            )
            .select("n_players", "bot", "left", "width", "count")
        )
        hists.append(h)
    score_hist = pl.concat(hists).sort("n_players", "bot", "left") if hists else pl.DataFrame()

    seat_p = {p: m.p for p, m in seat_model.items()}

    return RunStats(
        games=games,
        ties=ties,
        by_bot=by_bot,
        by_seat=by_seat,
        seat_bot=seat_bot,
        ranks=ranks,
        lengths=lengths,
        score_hist=score_hist,
        seat_p=seat_p,
        seat_model=seat_model,
        endings=endings,
    )


def run_has_chance(run: Run) -> bool:
    """``run.json``'s ``chance``; for a run written before that field, the game's ``GameSpec.chance``."""
    if "chance" in run.meta:
        return bool(run.meta["chance"])
    try:
        from meeplab.sim.core.registry import get_game

        return bool(get_game(run.game).chance)
    except Exception:  # an unknown or unloadable game: assume chance (nothing to count)
        return True


def distinct_games(run: Run) -> pl.DataFrame:
    """Per player count: games, and distinct games (equal when every seat has the same bot, score, tie-break,
    score breakdown, and the game the same length and ending). For a game without chance this is how many lines
    of play a run's rates rest on."""
    cols = ["bot", "score", "tiebreak", *run.categories]
    have = set(run.lf.collect_schema().names())
    cols = [c for c in cols if c in have]
    per_game = (
        run.lf.sort(["n_players", "game_index", "seat"])
        .group_by(["n_players", "game_index"], maintain_order=True)
        .agg(
            [pl.col(c) for c in cols]
            + [pl.col("length").first()]
            + ([pl.col("end").first().cast(pl.String)] if "end" in have else [])
        )
    )
    key = pl.concat_str(
        [pl.col(c).cast(pl.List(pl.String)).list.join(",") for c in cols]
        + [pl.col("length").cast(pl.String)]
        + ([pl.col("end")] if "end" in have else []),
        separator="|",
    )
    return (
        per_game.with_columns(key.alias("key"))
        .group_by("n_players")
        .agg(pl.len().alias("games"), pl.col("key").n_unique().alias("distinct"))
        .sort("n_players")
        .collect()
    )
