"""Bots that follow the rules they play: ``--retune GAMES`` on ``compare``, ``sweep`` and ``fair``.

A tuned bot's weights were fitted at some rules (its ``fitted_at``; the shipped ones at the defaults). Played at other
rules it may be mis-fitted, and a what-if would then measure the bot's mis-fit as well as the rules' effect. With
``--retune GAMES`` every rule set of the what-if gets its own copy of each fitted bot, tuned again at those rules by
the same CMA-ES as ``meeplab tune`` (:func:`meeplab.lab.studies.tune.tune`) within GAMES games, starting from the
bot's own weights, against the lineup's other bots (the bot and ``greedy`` when it plays alone), at the run's player
counts. Every rule set is retuned the same way, the baseline included, so both sides of a comparison carry the same
tuning effort and the difference is the rules'. The tuning plays other deals than the run (seed + :data:`SEED_OFFSET`),
so the run does not measure the bot on the games it was tuned on.

What is retuned: plain bots whose file says what rules they were fitted at (``tuned`` and its kind) and that have at
most :data:`MAX_WEIGHTS` weights. A ``learned`` bot (hundreds of weights, made by ``meeplab learn``) and the search
bots are not: they are named in :func:`not_retuned`, and ``meeplab learn --set ...`` makes a learned bot for other
rules. Each retuned bot is written as ``DIR/BOT.toml`` (same name, so the lineup does not change; its ``fitted_at``
names the rules) beside ``DIR/retune.json``, and reused when the rules, budget, seed and starting weights are the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from meeplab.sim.core.bots import available, tunable_weights
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write

#: the most weights a bot may have to be retuned (CMA-ES within a what-if's budget; ``tuned`` has 5-30)
MAX_WEIGHTS = 64
#: the tuning plays seed + SEED_OFFSET: other deals than the run itself
SEED_OFFSET = 1000


def _fitted(plan) -> dict[str, Any]:
    known = available(plan.game.id, plan.bot_configs)
    return {n: known[n] for n in dict.fromkeys(plan.bots) if known[n].fitted_at is not None}


def retunable(plan) -> list[str]:
    """The bots of ``plan`` that ``--retune`` tunes again at its rules."""
    return [
        n
        for n, spec in _fitted(plan).items()
        if not spec.search and 0 < len(spec.weights) <= MAX_WEIGHTS and tunable_weights(spec)
    ]


def not_retuned(plan) -> list[str]:
    """The fitted bots of ``plan`` that ``--retune`` leaves as they are (a learned bot, a search bot), one line each."""
    keep = set(retunable(plan))
    return [
        f"bot '{n}' is not retuned ({'a search bot' if spec.search else f'{len(spec.weights)} weights'}): "
        + ("make it for these rules with meeplab learn --set ..." if not spec.search else "its search adapts")
        for n, spec in _fitted(plan).items()
        if n not in keep
    ]


#: games per candidate and generation, as ``meeplab tune``'s default
GAMES_PER_EVAL = 200


def _final_games(budget: int, counts: int) -> int:
    """The final check's games per player count: a tenth of the budget per side, at least 100."""
    return max(100, budget // (10 * counts))


def smallest_budget(plan) -> int:
    """The fewest games ``--retune`` needs for ``plan``'s bots: one CMA-ES generation (its population and the
    incumbent, :data:`GAMES_PER_EVAL` games each at every player count) and the final check."""
    from meeplab.lab.studies.tune import generation_games

    known = available(plan.game.id, plan.bot_configs)
    n = len(plan.players)
    need = 0
    for bot in retunable(plan):
        dim = len(tunable_weights(known[bot]))
        per_round = generation_games(dim, GAMES_PER_EVAL, n)
        b = per_round + 2 * 100 * n
        while b - 2 * _final_games(b, n) * n < per_round:
            b += 100
        need = max(need, b)
    return need


def _key(plan, bot: str, budget: int) -> str:
    spec = available(plan.game.id, plan.bot_configs)[bot]
    text = json.dumps(
        [
            plan.game.id,
            sorted((k, str(v)) for k, v in plan.values.items()),
            bot,
            list(spec.weights),
            budget,
            plan.seed,
            list(plan.players),
            list(plan.bots),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def retune_plan(
    plan, budget: int, where: Path, progress: Callable[[int], None] | None = None, command: str = ""
) -> tuple[Any, list[dict[str, Any]]]:
    """``plan`` with each of its :func:`retunable` bots tuned again at its rules within ``budget`` games (written to
    ``where``; reused when already there), and one record per bot: its name, the TOML, whether it was reused, and the
    final check (win share of the retuned against the bot as it was, on fresh games)."""
    from meeplab.lab.studies.tune import tune, variant_toml

    if budget <= 0:
        raise MeeplabError(f"--retune needs a positive number of games, got {budget}")
    bots = retunable(plan)
    if not bots:
        return plan, []
    where = Path(where)
    where.mkdir(parents=True, exist_ok=True)
    index_path = where / "retune.json"
    try:
        index = json.loads(index_path.read_text(encoding="utf-8")) if index_path.exists() else {}
        if not isinstance(index, dict):
            index = {}
    except (OSError, ValueError):
        index = {}
    records, configs = [], []
    distinct = list(dict.fromkeys(plan.bots))
    for bot in bots:
        toml = where / f"{bot}.toml"
        key = _key(plan, bot, budget)
        old = index.get(bot)
        if isinstance(old, dict) and old.get("key") == key and toml.is_file():
            records.append(dict(old, reused=True))
            configs.append(str(toml))
            continue
        field = [b for b in distinct if b != bot] or [bot, "greedy"]
        res = tune(plan.game, plan.ctx, bot, field, list(plan.players), budget, seed=plan.seed + SEED_OFFSET,
                   bot_configs=plan.bot_configs, progress=progress, games_per_eval=GAMES_PER_EVAL,
                   final_games=_final_games(budget, len(plan.players)))  # fmt: skip
        if res.interrupted:
            raise KeyboardInterrupt
        spec = available(plan.game.id, plan.bot_configs)[bot]
        text = variant_toml(res, bot, spec.base, command, field, list(plan.players), budget,
                            plan.game.params.changed(dict(plan.values)))  # fmt: skip
        atomic_write(toml, text)
        final = res.final or {}
        rec = {"bot": bot, "key": key, "toml": str(toml), "field": field, "games": res.games_played}
        rec.update({k: final.get(k) for k in ("share", "base_share", "fair")})
        index[bot] = rec
        atomic_write(index_path, json.dumps(index, indent=2))
        records.append(dict(rec, reused=False))
        configs.append(str(toml))
    return plan.replanned(bot_configs=tuple(plan.bot_configs) + tuple(configs)), records
