"""Machine-tuned bots: CMA-ES over a bot's weights, played on the simulator itself (``meeplab tune``).

The objective of a weight vector is its win share against a field (``--vs``): the tuned bot sits in one entry of a
rotated lineup whose other entries cycle through the field (from each field member in turn, each such table on its
share of the games, so that at 2 players a field of two bots is met half and half), at every player count asked for,
and its win share (a k-way tie for first counts 1/k) is averaged over the player counts. Everything is played by
the game's batch engine (``GameSpec.play``, all cores), never game by game in Python.

Noise is handled three ways:

* **A tie-breaker.** The objective is the win share plus ``margin`` (default 0.001) times the mean score lead over
  the best other seat, so that a field of candidates that all lose still shows which loses by less.
* **Common random numbers.** All candidates of a generation, and the incumbent, play the same games (the same
  ``(seed, game index)`` block, a new block per generation), so their differences are not luck of the deal.
* **The incumbent is re-evaluated** every generation on that generation's games; a candidate replaces it only by
  beating it there. The incumbent starts as the untuned weights, so the result is never worse than the start on
  the games seen.
* **A final check on fresh seeds** (game indices no generation used) measures the incumbent and the untuned bot on the
  same games; its Wilson 95 % interval is written into the TOML's comment.

CMA-ES (Hansen's ``cma`` package) searches in a scaled space: weight ``i`` is ``w0_i + z_i * s_i`` with
``s_i = max(|w0_i|, 0.1 * mean |w0|, 0.01)``, so a step of 1 changes each weight by about its own size.

A search bot (``rollout``, ``ismcts``) is tuned on its search options, those its algorithm declares tunable
(:func:`~meeplab.sim.core.bots.tunable_weights`: ``ismcts``'s c, bias, epsilon, widen, switch and margin), each kept
within its valid range and stepped by ``max(|w0_i|, its declared step)``; its budget is not searched (more playouts
always help) and its playout policy keeps its weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from meeplab.sim.core.bots import Lineup, available, make_lineup, search_row, tunable_weights
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write
from meeplab.sim.core.game import GameSpec, rank_and_win
from meeplab.sim.core.policy import is_shape


def wilson(k: float, n: int) -> tuple[float, float]:
    """Wilson 95 % interval of a win share (the reports' own)."""
    from meeplab.lab.stats import wilson as _wilson

    return _wilson(k, n)


FRESH_START = 1 << 40  # game index of the final check: far beyond any generation's games


@dataclass
class TuneResult:
    bot: str
    names: tuple[str, ...]
    start: np.ndarray  # the untuned weights
    best: np.ndarray  # the incumbent at the end
    generations: int
    games_played: int
    interrupted: bool
    history: list[dict[str, Any]] = field(default_factory=list)  # per generation: best, incumbent, mean share
    final: dict[str, Any] | None = None  # the fresh-seed check: n, share, lo, hi, base_share, base_lo, base_hi
    tuned: tuple[str, ...] = ()  # the weights searched (all when empty); the others kept their values


def field_names(bot: str, vs: list[str], n_players: int, shift: int = 0) -> list[str]:
    """Lineup entries: the tuned bot, then the field cycled over the other seats (from field member ``shift``)."""
    return [bot] + [vs[(i + shift) % len(vs)] for i in range(n_players - 1)]


def field_tables(bot: str, vs: list[str], n_players: int) -> list[list[str]]:
    """The distinct tables the tuned bot meets at ``n_players``: the field cycled over the other seats from each
    of its members in turn, so that a field larger than the other seats (2 players against heuristic and greedy)
    is met whole, each table on its share of the games."""
    out: list[list[str]] = []
    for shift in range(len(vs)):
        names = field_names(bot, vs, n_players, shift)
        if names not in out:
            out.append(names)
    return out


def _blocks(n: int, k: int) -> list[tuple[int, int]]:
    """``n`` games cut into ``k`` consecutive blocks (offset, count), as even as possible."""
    out, off = [], 0
    for j in range(k):
        c = n // k + (1 if j < n % k else 0)
        out.append((off, c))
        off += c
    return out


class Evaluator:
    """Win share of entry 0 with given weights, on games ``start .. start + n - 1`` at each player count; the
    objective adds ``margin`` x its mean score lead over the best other seat (a tie-breaker that still points
    the way when every candidate loses every game)."""

    def __init__(
        self,
        game: GameSpec,
        ctx,
        bot: str,
        vs: list[str],
        players: list[int],
        seed: int,
        bot_configs=(),
        margin: float = 0.0,
        relative: bool = False,
    ):
        self.game, self.ctx, self.seed, self.players, self.margin = game, ctx, seed, players, margin
        self.relative = relative  # each count's win share over its fair share (1/P) before the mean
        self.lineups = {
            p: [make_lineup(game.id, names, p, True, bot_configs) for names in field_tables(bot, vs, p)]
            for p in players
        }
        self.spec = available(game.id, bot_configs)[bot]
        self.width = len(self.spec.weights)

    def lineup(self, lu: Lineup, w: np.ndarray, n_players: int) -> Lineup:
        """``lu`` with entry 0's weights ``w``: a plain bot's weight row, or a search bot's search row (its options;
        its playout policy keeps its own weights)."""
        weights, search = lu.weights, lu.search
        if self.spec.search:
            search = search.copy()
            search[0] = search_row(replace(self.spec, weights=tuple(float(x) for x in w)), n_players)
        else:
            weights = weights.copy()
            weights[0, : self.width] = w
        return type(lu)(names=lu.names, fns=lu.fns, weights=weights, rotate=True, reads=lu.reads, search=search)

    def wins(self, w: np.ndarray, start: int, n: int, lead: list | None = None) -> list[float]:
        """Sum of entry 0's win shares at each player count (``n`` games each, cut into one block per table of
        the field); appends the sums of its score lead over the best other seat to ``lead``."""
        out = []
        for p, tables in self.lineups.items():
            won = led = 0.0
            for lu, (off, cnt) in zip(tables, _blocks(n, len(tables))):
                if cnt == 0:
                    continue
                b = self.game.play(self.ctx, self.lineup(lu, w, p), self.seed, start + off, cnt, p)
                _, win = rank_and_win(b.score, b.tiebreak, self.game.lower_wins)
                g = start + off + np.arange(cnt)[:, None]
                entry = (np.arange(p)[None, :] + g) % p
                won += float(win[entry == 0].sum())
                sc = -b.score if self.game.lower_wins else b.score  # the lead in the winning direction
                mine = sc[entry == 0]
                others = np.where(entry == 0, -np.inf, sc).max(axis=1)
                led += float((mine - others).sum())
            out.append(won)
            if lead is not None:
                lead.append(led)
        return out

    def share(self, w: np.ndarray, start: int, n: int) -> float:
        """The objective: mean win share over the player counts (+ margin x mean score lead); ``relative``: each
        count's share times its player count (its share of the fair share), so that a point won at 5 players
        does not buy a point lost at 2."""
        lead: list[float] = []
        wins = self.wins(w, start, n, lead)
        if self.relative:
            wins = [k * p for k, p in zip(wins, self.players)]
        return (float(np.mean(wins)) + self.margin * float(np.mean(lead))) / n


def generation_games(dim: int, games_per_eval: int, counts: int, popsize: int | None = None) -> int:
    """Games of one CMA-ES generation over ``dim`` weights: every candidate of the population (default
    ``4 + 3 ln dim``) and the incumbent, ``games_per_eval`` games each at each of ``counts`` player counts."""
    lam = popsize or (4 + int(3 * math.log(max(dim, 1))))
    return games_per_eval * counts * (lam + 1)


def tune(
    game: GameSpec,
    ctx,
    bot: str,
    vs: list[str],
    players: list[int],
    budget: int,
    *,
    seed: int = 1,
    bot_configs=(),
    games_per_eval: int | None = None,
    popsize: int | None = None,
    sigma: float = 0.3,
    margin: float = 0.001,
    final_games: int | None = None,
    progress: Callable[[int], None] | None = None,
    only: list[str] | None = None,
    relative: bool = False,
) -> TuneResult:
    """CMA-ES on ``bot``'s weights within ``budget`` games (final check included); Ctrl-C ends it early with
    the incumbent (``interrupted``; no final check then). ``only``: glob patterns of the weight names to tune
    (``place.*``) or exact names (a policy's ``action[0].1``, which as a pattern would read ``[0]`` as a class);
    the others keep their values. ``relative``: the objective weighs each player count's win share by its
    player count (:class:`Evaluator`)."""
    import fnmatch

    import cma

    spec = available(game.id, bot_configs).get(bot)
    if spec is None:
        raise MeeplabError(f"unknown bot '{bot}' for {game.id}")
    bounds = tunable_weights(spec)
    if not spec.weights or not bounds:
        raise MeeplabError(
            f"bot '{bot}' has no weights to tune (tune works on a bot with weights, e.g. heuristic, or on a search "
            f"bot's options, e.g. ismcts)"
        )
    own = [p for p in players if spec.own_weights_at(p)]
    if own and len(players) > 1:
        raise MeeplabError(
            f"bot '{bot}' has weights of its own at {', '.join(map(str, own))} players: tune it at one player count "
            f"at a time (--players {own[0]})"
        )
    w0 = np.array(spec.weights_at(players[0]), dtype=np.float64)  # its own there, else its weights (none of its own)
    names = [n for n in spec.weight_names if n in bounds]
    if only:
        names = [n for n in names if any(n == pat or fnmatch.fnmatch(n, pat) for pat in only)]
        if not names:
            raise MeeplabError(
                f"--weights {','.join(only)} matches none of {bot}'s {'options' if spec.search else 'weights'} "
                f"that tune may search ({', '.join(bounds)})"
            )
    idx = np.array([spec.weight_names.index(n) for n in names], dtype=np.int64)
    lo = np.array([bounds[n].lo for n in names])
    hi = np.array([bounds[n].hi for n in names])
    ev = Evaluator(game, ctx, bot, vs, players, seed, bot_configs, margin, relative)
    dim = len(idx)
    lam = popsize or (4 + int(3 * math.log(dim)))
    per_gen = games_per_eval or 200
    final_n = final_games if final_games is not None else max(200, budget // 5)
    per_round = generation_games(dim, per_gen, len(players), lam)
    gens = (budget - 2 * final_n * len(players)) // per_round
    if gens < 1:
        raise MeeplabError(
            f"--budget {budget:,} is too small: one generation costs {per_round:,} games ({lam + 1} weight vectors x "
            f"{per_gen} games x {len(players)} player count(s)) and the final check {2 * final_n * len(players):,}"
        )
    if spec.search:  # a search option's step is its own size, or its declared step when smaller (e.g. 0)
        scale = np.maximum(np.abs(w0[idx]), np.array([bounds[n].step for n in names]))
    else:
        size = np.abs(w0[[i for i, n in enumerate(spec.weight_names) if n in bounds]])  # a policy's header left out
        scale = np.maximum(np.abs(w0), max(0.1 * float(np.mean(size)), 0.01))[idx]

    def at(z) -> np.ndarray:  # CMA-ES samples z within the bounds it was given, so w stays in each weight's range
        w = w0.copy()
        w[idx] = w[idx] + np.asarray(z) * scale
        return w

    opts = {"popsize": lam, "seed": seed % (2**31 - 1) + 1, "verbose": -9}
    with np.errstate(divide="ignore", invalid="ignore"):  # each weight's valid range in the search's units
        zlo, zhi = (lo - w0[idx]) / scale, (hi - w0[idx]) / scale
    if np.isfinite(zlo).any() or np.isfinite(zhi).any():  # a search option's range (a plain bot's are unbounded)
        opts["bounds"] = [[float(x) if np.isfinite(x) else None for x in b] for b in (zlo, zhi)]
    es = cma.CMAEvolutionStrategy(np.zeros(dim), sigma, opts)
    incumbent = w0.copy()
    res = TuneResult(
        bot=bot,
        names=spec.weight_names,
        start=w0,
        best=incumbent,
        generations=0,
        games_played=0,
        interrupted=False,
        tuned=tuple(names) if only or spec.search else (),
    )
    try:
        for gen in range(gens):
            start = gen * per_gen
            zs = es.ask()
            shares = [ev.share(at(z), start, per_gen) for z in zs]
            inc = ev.share(incumbent, start, per_gen)
            es.tell(zs, [-s for s in shares])
            b = int(np.argmax(shares))
            if shares[b] > inc:
                incumbent, inc = at(zs[b]), shares[b]
            res.best, res.generations = incumbent, gen + 1
            res.games_played += per_round
            res.history.append(
                {"generation": gen + 1, "best": max(shares), "mean": float(np.mean(shares)), "incumbent": inc}
            )
            if progress:
                progress(per_round)
    except KeyboardInterrupt:
        res.interrupted = True
        return res
    n = final_n
    k_new = ev.wins(incumbent, FRESH_START, n)
    k_old = ev.wins(w0, FRESH_START, n)
    res.games_played += 2 * n * len(players)
    if progress:
        progress(2 * n * len(players))
    total = n * len(players)
    lo, hi = wilson(sum(k_new), total)
    blo, bhi = wilson(sum(k_old), total)
    res.final = {
        "games": total,
        "share": sum(k_new) / total,
        "lo": lo,
        "hi": hi,
        "base_share": sum(k_old) / total,
        "base_lo": blo,
        "base_hi": bhi,
        "fair": float(np.mean([1 / p for p in players])),
        "by_players": {
            p: {
                "games": n,
                "share": a / n,
                "interval": wilson(a, n),
                "base_share": b / n,
                "base_interval": wilson(b, n),
                "fair": 1 / p,
            }
            for p, a, b in zip(players, k_new, k_old)
        },
    }
    return res


def variant_toml(
    res: TuneResult, name: str, base: str, command: str, vs: list[str], players: list[int], budget: int,
    fitted_at: dict[str, Any] | None = None, per_count: bool = False,
) -> str:  # fmt: skip
    """The TOML variant (``[bots.NAME]``) with a comment that says how it was made and how good it is, and the
    rules it was tuned at (``fitted_at``: the parameters changed from the defaults; None: {}, the defaults).
    ``per_count``: the tuned weights are the variant's at the tuned player counts only (``[bots.NAME.players.P]``);
    at any other count it plays ``base``'s own."""
    lines = [
        f"# Made by: {command}" if command else "# Made by meeplab tune",
        f"# Tuned: {base}'s weights by CMA-ES, {res.generations} generation(s), {res.games_played:,} games "
        f"(budget {budget:,}); field: {', '.join(vs)}; player counts: {', '.join(map(str, players))}.",
    ]
    if res.tuned:
        lines.append(f"# Weights searched: {', '.join(res.tuned)} (the others are {base}'s).")
    if res.interrupted:
        lines.append("# Interrupted (Ctrl-C): the best weights so far, without the final check on fresh seeds.")
    if res.final:
        f = res.final
        lines.append(
            f"# Final check on {f['games']:,} fresh games (95 % Wilson intervals), tuned vs untuned {base} "
            f"in the same seat on the same games:"
        )
        for p, d in f["by_players"].items():
            (lo, hi), (blo, bhi) = d["interval"], d["base_interval"]
            lines.append(
                f"#   {p} players, {d['games']:,} games: win share {d['share']:.3f} [{lo:.3f}, {hi:.3f}], "
                f"untuned {d['base_share']:.3f} [{blo:.3f}, {bhi:.3f}], fair share {d['fair']:.3f}"
            )
    counts = ", ".join(map(str, players))
    desc = f"{base} with weights tuned by CMA-ES against {', '.join(vs)} ({counts} players)"
    if per_count:
        lines.append(f"# The tuned weights play at {counts} players only; at any other count {base}'s own.")
        desc = f"{base}, with weights tuned by CMA-ES against {', '.join(vs)} at {counts} players"
    weights = {str(k): float(v) for k, v in zip(res.names, res.best) if not is_shape(str(k))}
    from meeplab.sim.core.params import set_text

    at = {str(k): set_text(v) for k, v in (fitted_at or {}).items()}
    bot: dict[str, Any] = {"base": base, "description": desc, "fitted_at": at}
    if per_count:
        bot["players"] = {str(p): weights for p in players}
    else:
        bot["weights"] = weights
    table = {"bots": {name: bot}}
    comments = "".join(line.replace("\n", " ") + "\n" for line in lines)  # a name never breaks out of a comment
    return comments + tomli_w.dumps(table)


def write_variant(path: Path, text: str, force: bool) -> None:
    if path.exists() and not force:
        raise MeeplabError(f"{path} exists; give --force to replace it or another --out")
    atomic_write(path, text)
