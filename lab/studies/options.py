"""Restricted play (``meeplab options``): what each option is worth to a bot, by the win share of a copy of it that
may not use the option against copies that may (Jaffe et al., "Evaluating Competitive Game Balance with Restricted
Play", AIIDE 2012).

For every option class the game declares (``GameSpec.options``, ``sim/<game>/options.py``), one run: entry 0 of a
rotated lineup of the same bot plays with the class forbidden (``sim/core/restrict.py``), the other seats are
unrestricted. The baseline is the same lineup unrestricted, **on the same games** (same seed and game indices, so
the same deals and the same random streams until the restriction first changes a choice): the change in win share
is a paired difference per game, with a normal 95 % interval and Holm-adjusted p-values over the classes. The
converse ("only this class where there is a choice": whenever a candidate of the class is offered the bot must
take one) runs the same way.

Verdicts (per class and mode):

* ``unused``: the restriction changed no game (the bot never chooses the class, or never has it offered);
* ``useless``: forbidding it costs at most ``SMALL`` (0.02) of win share (the paired interval's lower end) while it
  changed games: a candidate for an option nobody needs;
* ``dominant``: without it the bot wins less than half its fair share (the Wilson interval of its win share lies
  below ``fair / 2``): a candidate for an option the game cannot be won without;
* ``costly`` / ``helps``: a significant loss (gain) after Holm's correction; ``-`` otherwise. A bot that wins
  significantly more without an option (``helps`` when forbidding) misplays it: the verdict is about the bot's use
  of the option, not the option (a designer's Sushi Go: forbidding maki raised tuned's win share by 0.38, which the
  old order of the tests called ``useless``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeplab.lab.stats import ALPHA
from meeplab.sim.core.bots import READS_ALL, available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import S_FORBID, S_ONLY
from meeplab.sim.core.game import GameSpec, rank_and_win

SMALL = 0.02  # a loss of win share this small counts as "loses nothing"
MODES = ("forbid", "only")


@dataclass
class OptionsResult:
    game: str
    bot: str
    players: int
    games: int
    seed: int
    base_share: float  # entry 0's win share unrestricted (the seat rotation makes it about 1 / players)
    rows: list[dict[str, Any]] = field(default_factory=list)


def restricted_lineup(game: GameSpec, bot: str, n_players: int, mode: str, cls: int, bot_configs=()):
    """The bot in every seat, entry 0 under the restriction (``mode`` "forbid" or "only" of class bit ``cls``;
    ``cls < 0``: none). The restricted entry computes every feature (a bot's READS shortcut would hide the rows
    it is left with)."""
    lu = make_lineup(game.id, [bot], n_players, True, bot_configs)
    if cls >= 0:
        lu.search[0, S_FORBID if mode == "forbid" else S_ONLY] = float(1 << cls)
        lu.reads[0] = READS_ALL
    return lu


def entry0(b, start: int, n_players: int, lower_wins: bool = False):
    """Per game: entry 0's win share and score, and its lead over the best other seat."""
    _, win = rank_and_win(b.score, b.tiebreak, lower_wins)
    n = b.score.shape[0]
    g = start + np.arange(n)[:, None]
    mine = ((np.arange(n_players)[None, :] + g) % n_players) == 0
    w = win[mine]
    s = b.score[mine]
    return w, s


def _paired(d: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, its normal 95 % interval and two-sided p-value."""
    n = d.size
    m = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    se = sd / math.sqrt(n) if n > 0 else math.nan
    if se == 0.0:
        return m, m, m, (1.0 if m == 0.0 else 0.0)
    p = math.erfc(abs(m) / se / math.sqrt(2.0))
    return m, m - 1.96 * se, m + 1.96 * se, p


def verdict(row: dict[str, Any], fair: float) -> str:
    if row["changed"] == 0:
        return "unused"
    if row["mode"] == "forbid" and row["hi"] < fair / 2:
        return "dominant"
    if row["mode"] == "forbid" and row["p_holm"] < ALPHA and row["delta"] > 0:
        return "helps"  # the bot wins significantly more without it: it misplays the option, the option is not useless
    if row["mode"] == "forbid" and row["delta_lo"] > -SMALL:
        return "useless" if row["p_holm"] >= ALPHA else "costly"
    if row["p_holm"] < ALPHA:
        return "costly" if row["delta"] < 0 else "helps"
    return "-"


def run_options(
    game: GameSpec,
    ctx,
    bot: str,
    n_players: int,
    n_games: int,
    *,
    seed: int = 1,
    bot_configs=(),
    modes: tuple[str, ...] = MODES,
    classes: list[int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> OptionsResult:
    """The baseline and one run per (mode, class) on games ``0 .. n_games - 1`` of ``seed``."""
    from meeplab.lab.stats import holm, wilson

    if not game.options:
        raise MeeplabError(f"{game.id} declares no option classes (sim/{game.id}/options.py)")
    spec = available(game.id, bot_configs).get(bot)
    if spec is None:
        raise MeeplabError(
            f"unknown bot '{bot}' for {game.id}; available: {', '.join(sorted(available(game.id, bot_configs)))}"
        )
    classes = list(range(len(game.options))) if classes is None else classes
    base = game.play(
        ctx, restricted_lineup(game, bot, n_players, "forbid", -1, bot_configs), seed, 0, n_games, n_players
    )
    w0, s0 = entry0(base, 0, n_players, game.lower_wins)
    if progress:
        progress(n_games)
    res = OptionsResult(game=game.id, bot=bot, players=n_players, games=n_games, seed=seed, base_share=float(w0.mean()))
    fair = 1.0 / n_players
    for mode in modes:
        rows = []
        for c in classes:
            b = game.play(
                ctx, restricted_lineup(game, bot, n_players, mode, c, bot_configs), seed, 0, n_games, n_players
            )
            w, s = entry0(b, 0, n_players, game.lower_wins)
            changed = int(
                np.count_nonzero(
                    np.any(b.score != base.score, axis=1) | np.any(b.length[:, None] != base.length[:, None], axis=1)
                )
            )
            d, lo_d, hi_d, p = _paired(w - w0)
            lo, hi = wilson(float(w.sum()), n_games)
            name, what = game.options[c]
            rows.append(
                {
                    "mode": mode,
                    "option": name,
                    "what": what,
                    "share": float(w.mean()),
                    "lo": lo,
                    "hi": hi,
                    "delta": d,
                    "delta_lo": lo_d,
                    "delta_hi": hi_d,
                    "p": p,
                    "changed": changed,
                    "score": float(s.mean()),
                    "score_delta": float((s - s0).mean()),
                }
            )
            if progress:
                progress(n_games)
        for r, q in zip(rows, holm([r["p"] for r in rows])):
            r["p_holm"] = float(q) if np.isfinite(q) else 1.0
            r["verdict"] = verdict(r, fair)
        res.rows += rows
    return res
