"""A run's request, checked once into an immutable plan that everything below takes as it is.

A command or an API call gathers what the user asked for into a :class:`RunConfig` (mutable, unchecked: the
request) and calls :func:`plan_run` once. The :class:`RunPlan` it returns holds the request's values already
resolved and checked: the game, its rule parameters resolved against the rule book, the engine context prepared
for them, the lineup of every player count built once, the seeds, the games, the output folder (checked, not yet
claimed) and the shard size. The estimate (:mod:`meeplab.lab.runs.estimate`), the runner
(:mod:`meeplab.lab.runs.runner`), the sequential test and the executors read the plan and never validate again.
"""

from __future__ import annotations

import operator
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from meeplab.lab.runs.shards import Job
from meeplab.sim.core.bots import Lineup, available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.game import GameSpec
from meeplab.sim.core.registry import check_players

__all__ = ["DEFAULT_SHARD", "MAX_GAMES", "MIN_ROW_BYTES", "RunConfig", "RunPlan", "check_out", "plan_run"]

DEFAULT_SHARD = 50_000
#: the most games per player count: game indices and the disk stay far from their limits
MAX_GAMES = 10**12
#: the least one result row takes on disk (zstd Parquet; Schweinebande greedy measures about 7): a --games that
#: cannot fit on OUT's disk at this rate is refused before anything is played
MIN_ROW_BYTES = 1


@dataclass
class RunConfig:
    """What a command or API call asks for, before any check (:func:`plan_run` turns it into a :class:`RunPlan`)."""

    game: GameSpec
    games: int
    players: list[int]
    bots: list[str]
    seed: int = 1
    threads: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None
    rotate: bool = True
    bot_configs: tuple[str, ...] = ()
    shard: int = DEFAULT_SHARD  # games per shard (one Parquet part each)
    progress: bool = True
    label: str = ""
    command: str = ""
    resume: bool = False  # finish the run in ``out`` (only the shards its manifest lacks)
    force: bool = False  # replace whatever run ``out`` holds
    executor: Any = None  # None: this process, numba threads; else e.g. lab.distributed.cluster.DaskExecutor


@dataclass(frozen=True)
class RunPlan:
    """One run, checked: what the runner plays and stores. Built only by :func:`plan_run`; a caller that needs
    another executor or shard size for the same run takes :meth:`on`, which checks nothing again."""

    game: GameSpec
    values: Mapping[str, Any]  # every rule parameter, resolved (read-only)
    overrides: Mapping[str, Any]  # what the request changed (``--set``, ``--params``), as given
    ctx: Any  # the engine context of these rules (``game.prepare(values)``)
    players: tuple[int, ...]
    bots: tuple[str, ...]
    lineups: Mapping[int, Lineup]  # per player count, built once
    bot_weights: Mapping[str, dict[str, float]]  # each bot's weights, as run.json records them
    # the bots' own weights at a player count of the run (a bot config's [bots.NAME.players.P]): bot -> count -> weights
    bot_weights_by_players: Mapping[str, dict[str, dict[str, float]]]
    rotate: bool
    bot_configs: tuple[str, ...]
    seed: int
    games: int  # per player count
    out: Path | None  # checked (a folder, or a place to make one; --resume/--force agree with what it holds)
    shard: int
    threads: int | None
    progress: bool
    label: str
    command: str
    resume: bool
    force: bool
    executor: Any = None

    @property
    def job(self) -> Job:
        """What a worker needs to play this run's shards (small, picklable, no engine state)."""
        return Job(
            game=self.game.id,
            values=tuple(self.values.items()),
            bots=self.bots,
            rotate=self.rotate,
            bot_configs=self.bot_configs,
            seed=self.seed,
        )

    def on(self, executor: Any = None, shard: int | None = None, progress: bool | None = None) -> RunPlan:
        """The same run played by ``executor`` (None: this process), in shards of ``shard`` games (None: as
        planned) and with or without its progress bar."""
        if shard is not None and shard <= 0:
            raise MeeplabError(f"--shard must be a positive number of games, got {shard}")
        return replace(
            self,
            executor=executor,
            shard=self.shard if shard is None else int(shard),
            progress=self.progress if progress is None else bool(progress),
        )

    def sized(self, games: int, shard: int) -> RunPlan:
        """The same run with ``games`` games per player count in shards of ``shard`` (the sequential test writes
        the games its batches played)."""
        if not 0 < games <= MAX_GAMES or shard <= 0:
            raise MeeplabError(f"a run cannot be resized to {games:,} games in shards of {shard}")
        return replace(self, games=int(games), shard=int(shard))

    def replanned(self, **changes: Any) -> RunPlan:
        """This run's request with ``changes`` (fields of :class:`RunConfig`: other bots, player counts, bot configs,
        folder, label, ...), checked again as any plan."""
        cfg = RunConfig(
            game=self.game,
            games=self.games,
            players=list(self.players),
            bots=list(self.bots),
            seed=self.seed,
            threads=self.threads,
            overrides=dict(self.overrides),
            out=self.out,
            rotate=self.rotate,
            bot_configs=self.bot_configs,
            shard=self.shard,
            progress=self.progress,
            label=self.label,
            command=self.command,
            resume=self.resume,
            force=self.force,
            executor=self.executor,
        )
        return plan_run(replace(cfg, **changes))

    def restaffed(self, bots: list[str], players: list[int], out: Path, label: str) -> RunPlan:
        """The same rules, seed and seat rotation played by other ``bots`` at ``players`` into ``out`` (replacing
        what it holds): how a fast question is asked again of a strong bot (``--confirm``)."""
        return self.replanned(bots=list(bots), players=list(players), out=Path(out), label=label, resume=False,
                              force=True, executor=None)  # fmt: skip

    def misfits(self) -> list[str]:
        """The bots of this run whose weights were fitted (``meeplab tune`` / ``learn``; a bot config's
        ``fitted_at``) at other rules than these, one line each: what they show here may be the bot's mis-fit to
        these rules rather than the rules' effect."""
        from meeplab.sim.core.bots import available

        known = available(self.game.id, self.bot_configs)
        out = []
        for name in dict.fromkeys(self.bots):
            spec = known.get(name)
            fitted = getattr(spec, "fitted_at", None)
            if fitted is None:
                continue
            try:
                there = self.game.params.resolve(dict(fitted), self.game.id)
            except MeeplabError:
                there = {}  # rules this version no longer knows: every parameter counts as changed
            changed = [k for k, v in self.values.items() if str(there.get(k)) != str(v)]
            if not changed:
                continue
            at = ", ".join(f"{k}={v}" for k, v in fitted) if fitted else "the default rules"
            shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
            out.append(
                f"bot '{name}' was fitted at {at}; these rules change {shown}: what it shows here may be the bot's "
                "mis-fit to them, not the rules' effect (fit it again at these rules: meeplab tune / learn --set ...)"
            )
        return out

    def adopt(self) -> None:
        """Let this process play the plan's shards with its own prepared context and lineups
        (:func:`meeplab.lab.runs.shards.adopt`) rather than preparing them again from :attr:`job`."""
        from meeplab.lab.runs.shards import adopt

        job = self.job
        for p in self.players:
            adopt(job, p, self.game, self.ctx, self.lineups[p])


def _whole(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MeeplabError(f"{name} must be a whole number, got {value!r}")
    return value


def plan_run(cfg: RunConfig) -> RunPlan:
    """Check everything about ``cfg`` before any game is played and return its :class:`RunPlan`: the games, the
    player counts against the game's range, the seed, the threads, the rule parameters (resolved, and one value
    per seat where a parameter is per seat), every player count's lineup, the engine context, the shard size and
    the output folder (what it holds against ``--resume``/``--force``, and room on its disk). Raises
    :class:`MeeplabError` with one line saying what to change."""
    if cfg.resume and cfg.force:
        raise MeeplabError("give --resume (finish the run in OUT) or --force (replace it), not both")
    games = _whole("--games", cfg.games)
    if games <= 0:
        raise MeeplabError(f"--games must be a positive number, got {games}")
    if games > MAX_GAMES:
        raise MeeplabError(f"--games must be at most {MAX_GAMES:,} per player count, got {games:,}")
    if not cfg.players:
        raise MeeplabError("--players needs at least one player count")
    game = cfg.game
    for p in cfg.players:
        check_players(game, p)
    if cfg.threads is not None and cfg.threads <= 0:
        raise MeeplabError(f"--threads must be positive, got {cfg.threads}")
    if not isinstance(cfg.seed, int) or isinstance(cfg.seed, bool) or cfg.seed < 0 or cfg.seed >= 2**63:
        raise MeeplabError(f"--seed must be in 0..2**63-1, got {cfg.seed}")
    values = game.params.resolve(cfg.overrides, game.id)
    bots, bot_configs = tuple(cfg.bots), tuple(str(c) for c in cfg.bot_configs)
    lineups = {}
    for p in cfg.players:
        game.params.check_seats(values, p)  # per-seat values: one per seat
        lineups[p] = make_lineup(game.id, list(bots), p, cfg.rotate, bot_configs)
    ctx = game.prepare(values)
    shard = operator.index(cfg.shard) if not isinstance(cfg.shard, bool) else 0
    if shard <= 0:
        raise MeeplabError(f"--shard must be a positive number of games, got {shard}")
    known = available(game.id, bot_configs)
    plan = RunPlan(
        game=game,
        values=MappingProxyType(dict(values)),
        overrides=MappingProxyType(dict(cfg.overrides)),
        ctx=ctx,
        players=tuple(int(p) for p in cfg.players),
        bots=bots,
        lineups=MappingProxyType(lineups),
        bot_weights=MappingProxyType({b: known[b].weights_dict() for b in dict.fromkeys(bots)}),
        bot_weights_by_players=MappingProxyType(
            {
                b: {str(p): known[b].weights_dict(p) for p in sorted(cfg.players) if known[b].own_weights_at(p)}
                for b in dict.fromkeys(bots)
                if any(known[b].own_weights_at(p) for p in cfg.players)
            }
        ),
        rotate=bool(cfg.rotate),
        bot_configs=bot_configs,
        seed=cfg.seed,
        games=games,
        out=None if cfg.out is None else Path(cfg.out),
        shard=shard,
        threads=cfg.threads,
        progress=bool(cfg.progress),
        label=cfg.label,
        command=cfg.command,
        resume=bool(cfg.resume),
        force=bool(cfg.force),
        executor=cfg.executor,
    )
    if plan.out is not None:
        check_out(plan)
        _check_disk(plan)
    return plan


def check_out(plan: RunPlan) -> bool:
    """Whether ``plan.out`` holds a run; refuses one that ``--resume``/``--force`` do not allow to touch. The
    runner asks again once it holds the folder's lock (another process may have written there meanwhile)."""
    from meeplab.lab.runs import rundir

    out = Path(plan.out)
    if out.exists() and not out.is_dir():
        raise MeeplabError(f"--out {out} exists and is not a directory")
    chunks = out / rundir.CHUNKS
    if chunks.is_symlink() or (chunks.exists() and not chunks.is_dir()):
        raise MeeplabError(f"{chunks} is a link or not a folder; meeplab writes its parts only into a plain folder")
    owned = (out / rundir.RUN_JSON, out / rundir.RESULTS, out / rundir.MANIFEST)
    held = any(p.exists() for p in owned) or (
        chunks.is_dir() and any(rundir.PART_RE.fullmatch(f.name) for f in chunks.iterdir())
    )
    if held and not (plan.resume or plan.force):
        raise MeeplabError(f"{out} already holds a run; add --resume to finish it or --force to replace it")
    return held


def _check_disk(plan: RunPlan) -> None:
    """Refuse a run that cannot fit on OUT's disk even at :data:`MIN_ROW_BYTES` a row."""
    where = Path(plan.out).absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        usage = shutil.disk_usage(where)
    except OSError:
        return  # nothing to measure: the write itself will say what is wrong
    if usage.total == 0:
        return  # a pseudo file system (/proc): the write itself will say what is wrong
    free = usage.free
    need = plan.games * sum(plan.players) * MIN_ROW_BYTES
    if need > free:
        raise MeeplabError(
            f"--games {plan.games:,} needs at least {need / 1e9:,.1f} GB on disk, {where} has {free / 1e9:,.1f} GB "
            "free; play fewer games or choose another --out"
        )
