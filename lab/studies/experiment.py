"""Experiment files: one TOML file holds a whole what-if study, rerunnable with ``meeplab experiment FILE``.

::

    game = "schweinebande"
    players = "2-3"                 # or [2, 3] or 3
    bots = "heuristic,greedy"       # or a list; one entry per seat, rotated unless rotate = false
    games = 20000                   # per player count (with [sprt]: the most games per player count)
    seed = 1
    bot_configs = []                # tuned-variant TOML files (paths relative to this file)
    out = "runs/pig-bonus"          # default: runs/<file name>; --out overrides

    [baseline]                      # parameter overrides of the baseline (none: the rule book)
    params = "base.toml"            # optional: a parameter file, relative to this file, then the pairs below
    pig_bonus_farm = 2

    [variants.more-pigs]            # one table per named variant: parameters and/or a parameter file
    pig_bonus_farm = 3
    [variants.feed]
    params = "feed.toml"

    [sprt]                          # optional: stop each comparison when significant
    delta = 0.02                    # or elo = 10; alpha, beta, alternative, batch, metric as the CLI

Without ``[sprt]`` the baseline and every variant are played on the same seeds into ``OUT/baseline`` and
``OUT/<variant>``; with it every variant is a ``compare --until-significant`` into ``OUT/<variant>/``. A run
already complete with the same settings is not played again, an interrupted one is finished (its shards
are kept), on this machine or a Dask cluster; one report, ``OUT/report.html``, compares every variant
with the baseline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meeplab.sim.core import schema
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.params import load_params_file, load_toml

TOP_KEYS = set(schema.ExperimentFile.model_fields)
SPRT_KEYS = set(schema.SprtTable.model_fields)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class Experiment:
    path: Path
    game: str
    players: list[int]
    bots: list[str]
    games: int
    seed: int = 1
    rotate: bool = True
    bot_configs: tuple[str, ...] = ()
    out: Path | None = None
    title: str = ""
    baseline: dict[str, Any] = field(default_factory=dict)
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    sprt: dict[str, Any] | None = None


def _where(path: Path, key: str) -> str:
    return f"experiment {path}: {key}"


def _param_table(path: Path, key: str, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise MeeplabError(f"{_where(path, key)} must be a table of parameters")
    over: dict[str, Any] = {}
    if "params" in table:
        f = table["params"]
        if not isinstance(f, str):
            raise MeeplabError(f"{_where(path, key)}.params must be a file name")
        over.update(load_params_file(path.parent / f))
    for k, v in table.items():
        if k == "params":
            continue
        if isinstance(v, dict):
            raise MeeplabError(f"{_where(path, key)}: unexpected table [{key}.{k}]")
        over[k] = v
    return over


def parse_players(text: str) -> list[int]:
    """Player counts from a text as ``--players`` takes it: ``3``, ``2,3,4``, ``2-5`` or a mix (``2,4-5``).

    The command line, the notebook API and experiment files all read player counts with this. Whether the game
    is played at those counts is checked later (:func:`meeplab.sim.core.registry.check_players`).
    """
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part[1:]:
            a, b = part.split("-", 1)
            try:
                lo, hi = int(a), int(b)
            except ValueError:
                raise MeeplabError(f"--players expects numbers like 3 or 2,3,4 or 2-5, got {text!r}") from None
            out.extend(range(lo, hi + 1))
        else:
            try:
                out.append(int(part))
            except ValueError:
                raise MeeplabError(f"--players expects numbers like 3 or 2,3,4 or 2-5, got {text!r}") from None
    if not out:
        raise MeeplabError(f"--players expects at least one player count, got {text!r}")
    return out


def _players(v: Any) -> list[int]:
    if isinstance(v, int):
        return [v]
    if isinstance(v, str):
        return parse_players(v)
    return list(v)


def load(path: str | Path) -> Experiment:
    """Read and check an experiment file whole (:class:`~meeplab.sim.core.schema.ExperimentFile`: names, strict
    types, ranges; the parameter files it names); the parameters themselves are checked when played."""
    path = Path(path)
    data = load_toml(path, "experiment file")
    f = schema.validate(schema.ExperimentFile, data, f"experiment {path}")
    if not f.variants:
        raise MeeplabError(f"experiment {path}: needs at least one [variants.NAME] table")
    variants = {}
    for name, table in f.variants.items():
        if not _NAME.match(name) or name == "baseline":
            raise MeeplabError(
                f"experiment {path}: variant name '{name}' must be letters, digits, '.', '_', '-' and not 'baseline'"
            )
        variants[name] = _param_table(path, f"variants.{name}", table)
    return Experiment(
        path=path,
        game=f.game,
        players=_players(f.players) if f.players is not None else [],
        bots=list(f.bots),
        games=f.games,
        seed=f.seed,
        rotate=f.rotate,
        bot_configs=tuple(str(path.parent / c) for c in f.bot_configs),
        out=(path.parent / f.out) if f.out is not None else None,
        title=f.title,
        baseline=_param_table(path, "baseline", f.baseline),
        variants=variants,
        sprt=f.sprt.model_dump(exclude_unset=True) if f.sprt is not None else None,
    )


def plan(
    exp: Experiment,
    out: Path,
    games: int | None = None,
    threads: int | None = None,
    force: bool = False,
    progress: bool = True,
):
    """The runs' plans: ``[(name, baseline, variant)]`` (:class:`~meeplab.lab.runs.plan.RunPlan`), every one
    checked here, once."""
    from meeplab.lab.runs.plan import RunConfig, plan_run
    from meeplab.sim.core.registry import get_game

    g = get_game(exp.game)
    players = exp.players or [g.default_players]
    n = int(games or exp.games)

    def cfg(over: dict[str, Any], where: Path, label: str) -> RunConfig:
        return RunConfig(
            game=g,
            games=n,
            players=list(players),
            bots=list(exp.bots),
            seed=exp.seed,
            threads=threads,
            overrides=dict(over),
            out=where,
            rotate=exp.rotate,
            bot_configs=exp.bot_configs,
            progress=progress,
            label=label,
            command=f"meeplab experiment {exp.path}",
            resume=not force,
            force=force,
        )

    def checked(c: RunConfig):
        try:
            return plan_run(c)
        except MeeplabError as exc:
            raise MeeplabError(f"experiment {exp.path} ({c.label}): {exc}") from None

    pairs = []
    baseline = None
    for name, over in exp.variants.items():
        if exp.sprt is None:
            if baseline is None:
                baseline = checked(cfg(exp.baseline, out / "baseline", "baseline"))
            base, var = baseline, checked(cfg(over, out / name, name))
        else:
            base = checked(cfg(exp.baseline, out / name / "baseline", "baseline"))
            var = checked(cfg(over, out / name / "variant", name))
        pairs.append((name, base, var))
    return pairs


def sprt_settings(exp: Experiment, games: int | None):
    from meeplab.lab.studies.sprt import SprtSettings

    s = dict(exp.sprt or {})
    metric = s.pop("metric", None)
    max_games = int(s.pop("max_games", games or exp.games))
    if games:
        max_games = min(max_games, int(games))
    st = SprtSettings(max_games=max_games, **s)
    if games:  # a smaller budget (tests, a quick look): batches no larger than it
        st = SprtSettings(**{**st.__dict__, "batch": min(st.batch, max_games)})
    st.check()
    return st, metric


def sequential_done(where: Path, settings, metric, base_cfg, var_cfg) -> bool:
    """Whether ``where`` holds a finished sequential comparison of exactly these settings and runs."""
    from meeplab.lab.runs.rundir import read_meta

    try:
        rec = schema.read_json(where / "sprt.json", "sprt.json")
        metas = [read_meta(c.out) for c in (base_cfg, var_cfg)]
    except MeeplabError:
        return False
    if not isinstance(rec, dict):
        return False
    from dataclasses import asdict

    if rec.get("settings") != json.loads(json.dumps(asdict(settings))) or rec.get("metric_arg") != metric:
        return False
    for meta, c in zip(metas, (base_cfg, var_cfg)):
        if meta.get("status") != "complete" or meta.get("seed") != c.seed or meta.get("bots") != list(c.bots):
            return False
        if meta.get("players") != list(c.players) or meta.get("rotate") != c.rotate:
            return False
        want = {k: (list(v) if isinstance(v, tuple) else v) for k, v in c.values.items()}
        if meta.get("params") != json.loads(json.dumps(want)):
            return False
    return True
