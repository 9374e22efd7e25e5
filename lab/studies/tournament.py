"""Tournaments: every lineup of the given bots at every player count, a match-up matrix and ratings.

Each game is read as the pairwise results of its seats (seat i beats seat j when it ranks better; a shared
place counts a half for each). The ratings are a Bradley-Terry fit (Bradley & Terry 1952; the logistic
model behind Elo) with the seat effect removed::

    P(seat i beats seat j) = logistic(r[bot i] + s[P, seat i] - r[bot j] - s[P, seat j])

with one seat term per player count and seat (the start player's seat the reference), fitted by Newton's method
on the counts of each (player count, bot, seat, bot, seat) cell. The pairs of one game are not independent, so the
covariance is the cluster-robust sandwich with the game as the cluster (Liang & Zeger 1986); intervals are
95%. Ratings are on the Elo scale (400 / ln 10 per logit) and centred on their mean. A weak prior (``RIDGE``)
keeps the fit finite when one bot never beats another.

The pairs count seats from 0 as the results files do; the fit's seat effects (:attr:`Ratings.seats`, and so
``tournament.json``) number them as a person reads them, seat 1 = the start player.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from meeplab.sim.core.errors import MeeplabError

ELO = 400.0 / math.log(10.0)
#: a weak normal prior on every logit (sd 10, about 4,000 Elo): keeps a bot that never wins finite
RIDGE = 0.01


def lineups(bots: list[str], p: int) -> list[tuple[str, ...]]:
    """Every multiset of ``p`` of the bots with at least two different bots (self-play rates nobody)."""
    distinct = list(dict.fromkeys(bots))
    return [c for c in itertools.combinations_with_replacement(distinct, p) if len(set(c)) > 1]


@dataclass
class Pairs:
    """One row per (game, seat i < seat j): player count, bots, seats, the result for i, the game's cluster."""

    p: np.ndarray
    bi: np.ndarray
    bj: np.ndarray
    si: np.ndarray
    sj: np.ndarray
    y: np.ndarray
    game: np.ndarray


def pairs_of(frames: list[pl.DataFrame], names: list[str]) -> Pairs:
    """Pairwise results from result rows (columns n_players, game_index, seat, bot, rank); each frame one run."""
    code = {b: k for k, b in enumerate(names)}
    cols = {k: [] for k in ("p", "bi", "bj", "si", "sj", "y", "game")}
    offset = 0
    for df in frames:
        for p in sorted(set(df["n_players"].to_list())):
            d = df.filter(pl.col("n_players") == p).sort("game_index", "seat")
            n = d.height // p
            rank = d["rank"].to_numpy().reshape(n, p)
            bot = np.array([code[b] for b in d["bot"].to_list()]).reshape(n, p)
            games = np.arange(n) + offset
            offset += n
            for i, j in itertools.combinations(range(p), 2):
                y = np.where(rank[:, i] < rank[:, j], 1.0, np.where(rank[:, i] > rank[:, j], 0.0, 0.5))
                keep = bot[:, i] != bot[:, j]  # a bot against itself says nothing about ratings
                for key, v in (
                    ("p", np.full(n, p)),
                    ("bi", bot[:, i]),
                    ("bj", bot[:, j]),
                    ("si", np.full(n, i)),
                    ("sj", np.full(n, j)),
                    ("y", y),
                    ("game", games),
                ):
                    cols[key].append(v[keep])
    if not cols["y"]:
        raise MeeplabError("tournament: no games between different bots")
    return Pairs(**{k: np.concatenate(v) for k, v in cols.items()})


def matchups(pr: Pairs, names: list[str]) -> pl.DataFrame:
    """Per ordered pair of bots, with the game as the unit: the games in which they met, the mean over those games
    of the first bot's share of their seat pairs (ties a half), its Wilson interval over the games, and the seat
    pairs behind it. Two seats of one bot meet the other bot twice in one game, and the pairs of a game are not
    independent; an interval per meeting would be too narrow (coverage about 0.935 instead of 0.95)."""
    from meeplab.lab.stats import wilson

    rows = []
    for a, b in itertools.permutations(range(len(names)), 2):
        m1 = (pr.bi == a) & (pr.bj == b)
        m2 = (pr.bi == b) & (pr.bj == a)
        n_pairs = int(m1.sum() + m2.sum())
        if n_pairs == 0:
            continue
        games, inv = np.unique(np.concatenate([pr.game[m1], pr.game[m2]]), return_inverse=True)
        won = np.concatenate([pr.y[m1], 1.0 - pr.y[m2]])
        per_game = np.bincount(inv, weights=won) / np.bincount(inv)  # a's share of the game's a-b pairs
        n, w = int(games.size), float(per_game.sum())
        lo, hi = wilson(w, n)
        rows.append(
            {"bot": names[a], "opponent": names[b], "games": n, "pairs": n_pairs, "share": w / n, "lo": lo, "hi": hi}
        )
    return pl.DataFrame(rows)


@dataclass
class Ratings:
    names: list[str]
    rating: np.ndarray  # Elo scale, mean 0
    lo: np.ndarray
    hi: np.ndarray
    se: np.ndarray
    seats: pl.DataFrame  # n_players, seat (1 = start player, the reference: effect 0), effect (Elo), lo, hi
    converged: bool
    pairs: int
    games: int


def fit(pr: Pairs, names: list[str], iters: int = 50) -> Ratings:
    k = len(names)
    both = np.unique(np.concatenate([np.stack([pr.p, pr.si], 1), np.stack([pr.p, pr.sj], 1)]), axis=0)
    seat_keys = [(int(p), int(s)) for p, s in both if s > 0]
    sidx = {key: k - 1 + n for n, key in enumerate(seat_keys)}
    npar = k - 1 + len(seat_keys)  # bot 0 is the reference while fitting

    def design(p, b, s) -> list[tuple[np.ndarray, np.ndarray]]:
        out = []
        m = b > 0
        out.append((np.where(m, b - 1, -1), m))
        col = np.array([sidx.get((int(pp), int(ss)), -1) for pp, ss in zip(p, s)])
        out.append((col, col >= 0))
        return out

    # aggregate to cells
    key = np.stack([pr.p, pr.bi, pr.si, pr.bj, pr.sj], axis=1)
    cells, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    n_c = np.bincount(inv).astype(float)
    y_c = np.bincount(inv, weights=pr.y)
    cp, cbi, csi, cbj, csj = cells.T
    X = np.zeros((cells.shape[0], npar))
    for sign, (b, s) in ((1.0, (cbi, csi)), (-1.0, (cbj, csj))):
        for col, m in design(cp, b, s):
            X[np.nonzero(m)[0], col[m]] += sign
    theta = np.zeros(npar)
    converged = False
    for _ in range(iters):
        eta = X @ theta
        mu = 1.0 / (1.0 + np.exp(-eta))
        g = X.T @ (y_c - n_c * mu) - RIDGE * theta
        H = (X * (n_c * mu * (1 - mu))[:, None]).T @ X + RIDGE * np.eye(npar)
        step = np.linalg.solve(H, g)
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            converged = True
            break
    # cluster-robust covariance: score contributions summed per game
    eta = X @ theta
    mu = 1.0 / (1.0 + np.exp(-eta))
    resid = pr.y - mu[inv]
    games, ginv = np.unique(pr.game, return_inverse=True)
    G = np.zeros((games.size, npar))
    for j in range(npar):
        xj = X[inv, j]
        nz = xj != 0
        if nz.any():
            G[:, j] = np.bincount(ginv[nz], weights=(resid * xj)[nz], minlength=games.size)
    Hinv = np.linalg.pinv((X * (n_c * mu * (1 - mu))[:, None]).T @ X)
    ng = games.size
    cov = Hinv @ (G.T @ G) @ Hinv * (ng / max(ng - 1, 1))
    # ratings of all k bots, centred: r = C [0, theta_bots]
    A = np.zeros((k, npar))
    for b in range(1, k):
        A[b, b - 1] = 1.0
    C = np.eye(k) - 1.0 / k
    T = C @ A
    r = T @ theta * ELO
    se = np.sqrt(np.maximum(np.diag(T @ cov @ T.T), 0.0)) * ELO
    seat_rows = []
    for (p, s), j in sidx.items():
        e, sd = theta[j] * ELO, math.sqrt(max(cov[j, j], 0.0)) * ELO
        seat_rows.append({"n_players": p, "seat": s + 1, "effect": e, "lo": e - 1.96 * sd, "hi": e + 1.96 * sd})
    for p in sorted({p for p, _ in sidx} | {int(x) for x in np.unique(pr.p)}):
        seat_rows.append({"n_players": p, "seat": 1, "effect": 0.0, "lo": 0.0, "hi": 0.0})
    seats = pl.DataFrame(
        seat_rows,
        schema={"n_players": pl.Int64, "seat": pl.Int64, "effect": pl.Float64, "lo": pl.Float64, "hi": pl.Float64},
    ).sort("n_players", "seat")
    return Ratings(
        names=list(names),
        rating=r,
        lo=r - 1.96 * se,
        hi=r + 1.96 * se,
        se=se,
        seats=seats,
        converged=converged,
        pairs=int(pr.y.size),
        games=int(ng),
    )
