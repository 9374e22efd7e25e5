"""The ``meeplab`` command line: batch runs, reports, what-if comparisons, sweeps and replays.

Every user error (unknown game/bot/parameter, wrong type, impossible player count, bad file) is
reported as one line on stderr with exit code 2.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from pathlib import Path

import click

from meeplab.sim.core.errors import MeeplabError


def _games():
    from meeplab.sim.core.registry import games

    return games()


def _game(game_id):
    from meeplab.sim.core.registry import get_game

    return get_game(game_id)


def _flag_params() -> list[str]:
    """Parameters that some game exposes as their own option (e.g. --map, --deck)."""
    names: list[str] = []
    try:
        for g in _games().values():
            for f in g.flags:
                if f not in names:
                    names.append(f)
    except Exception:  # discovery problems surface later with a clear message
        pass
    return names


def _with_game_flags(fn):
    for name in reversed(_flag_params()):
        fn = click.option(
            f"--{name.replace('_', '-')}",
            f"flag_{name}",
            default=None,
            metavar="VALUE",
            help=f"Shortcut for --set {name}=VALUE (games that have a '{name}' parameter).",
        )(fn)
    return fn


def _players(text: str) -> list[int]:
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


def _overrides(game, sets, params_file, flags) -> dict:
    from meeplab.sim.core.params import load_params_file, parse_set_options

    over: dict = {}
    if params_file:
        over.update(load_params_file(params_file))
    over.update(parse_set_options(sets))
    for name, value in flags.items():
        if value is None:
            continue
        if name not in game.params:
            raise MeeplabError(f"option --{name.replace('_', '-')} does not apply to {game.id}")
        over[name] = value
    return over


def _flag_values(kwargs) -> dict:
    return {k[len("flag_") :]: kwargs.pop(k) for k in list(kwargs) if k.startswith("flag_")}


def _bots(text: str) -> list[str]:
    names = [b.strip() for b in text.split(",") if b.strip()]
    if not names:
        raise MeeplabError("--bots needs at least one bot name")
    return names


def _command_line() -> str:
    return "meeplab " + " ".join(shlex.quote(a) for a in sys.argv[1:])


# ------------------------------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="meeplab", prog_name="meeplab")
def cli():
    """meeplab: a Monte-Carlo balance lab for tabletop games.

    Plays many complete games between heuristic bots and answers: is the game fair by seat and
    player count, which strategies dominate, where do the points come from, and what changes when a
    cost, a table or a rule changes.

    \b
    Typical session:
      meeplab games                                  # what can be simulated
      meeplab run schweinebande --games 100000 --players 2-5 --bots heuristic,greedy,random --out runs/sb
      meeplab report runs/sb --out runs/sb/report.html
      meeplab compare schweinebande --set pig_bonus_farm=1 --games 50000 --out runs/pigs
      meeplab replay schweinebande --seed 1 --index 7 --players 3 --bots heuristic,greedy,random
    """


@cli.command("games")
def games_cmd():
    """List the games, their player counts and score categories."""
    for g in _games().values():
        players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"
        click.echo(f"{g.id:<15} {g.title:<45} players {players:<5} categories: {', '.join(g.categories)}")


@cli.command("bots")
@click.argument("game")
@click.option(
    "--bot-config",
    "bot_configs",
    multiple=True,
    type=click.Path(),
    help="TOML file defining tuned variants ([bots.NAME] base=..., [bots.NAME.weights]).",
)
@click.option("--weights", "show_weights", is_flag=True, help="Also print each bot's weights.")
def bots_cmd(game, bot_configs, show_weights):
    """List the bots of GAME (modules in strategies/GAME/ and TOML variants)."""
    from meeplab.sim.core.bots import available

    g = _game(game)
    bots = available(g.id, bot_configs)
    for name, spec in sorted(bots.items()):
        click.echo(f"{name:<20} {spec.description}")
        if show_weights and spec.weights:
            for k, v in spec.weights_dict().items():
                click.echo(f"    {k} = {v:g}")
    if g.bot_doc:
        click.echo("")
        click.echo(g.bot_doc)


@cli.command("params")
@click.argument("game")
def params_cmd(game):
    """Print GAME's rule parameters: name, default, type and meaning."""
    g = _game(game)
    rows = [(p.name, p.format(p.default), p.describe_type(), p.doc) for p in g.params]
    w0 = max(len(r[0]) for r in rows)
    w1 = min(24, max(len(r[1]) for r in rows))
    w2 = min(28, max(len(r[2]) for r in rows))
    click.echo(f"{'name':<{w0}}  {'default':<{w1}}  {'type':<{w2}}  meaning")
    for name, default, typ, doc in rows:
        click.echo(f"{name:<{w0}}  {default:<{w1}}  {typ:<{w2}}  {doc}")


def _run_options(fn):
    opts = [
        click.option(
            "--games", "-n", "n_games", type=int, default=10000, show_default=True, help="Games per player count."
        ),
        click.option(
            "--players",
            "-p",
            default=None,
            help="Player count(s): 3, or 2,3,4, or 2-5 (default: the game's usual count).",
        ),
        click.option(
            "--bots",
            "-b",
            default="greedy",
            show_default=True,
            help="Bot per seat, comma-separated; fewer names than seats repeat cyclically.",
        ),
        click.option(
            "--seed",
            "-s",
            type=int,
            default=1,
            show_default=True,
            help="Base seed: game i always plays from the stream (seed, i).",
        ),
        click.option(
            "--threads",
            "-t",
            type=int,
            default=None,
            help="Worker threads (default: all cores); with --workers/--scheduler, numba threads per "
            "shard (default: 1, or the Dask worker's --nthreads).",
        ),
        click.option(
            "--set",
            "sets",
            multiple=True,
            metavar="NAME=VALUE",
            help="Override a rule parameter (repeatable); see 'meeplab params GAME'.",
        ),
        click.option(
            "--params",
            "params_file",
            type=click.Path(),
            default=None,
            help="TOML file of parameter overrides (name = value, or a [params] table).",
        ),
        click.option(
            "--bot-config",
            "bot_configs",
            multiple=True,
            type=click.Path(),
            help="TOML file defining tuned bot variants (repeatable).",
        ),
        click.option(
            "--fixed-seats",
            is_flag=True,
            help="Keep the listed bot order on every game (default: rotate bots over seats).",
        ),
        click.option(
            "--shard",
            type=int,
            default=None,
            help="Games per shard, the unit of work and of results on disk (default 50,000; on a "
            "cluster fewer, so that every worker gets several).",
        ),
        click.option("--chunk", type=int, default=None, hidden=True),  # the old name of --shard
        click.option(
            "--workers",
            "-w",
            type=int,
            default=None,
            metavar="N",
            help="Play on a local Dask cluster of N worker processes (default: this process, numba threads).",
        ),
        click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="Play on a running Dask cluster, e.g. tcp://10.0.0.5:8786 (its workers need this "
            "meeplab installed). See the README, 'Clusters, resume, compiled code'.",
        ),
        click.option(
            "--resume",
            is_flag=True,
            help="Finish the run already in OUT (interrupted or killed): play only the shards it "
            "lacks. The arguments must be the same.",
        ),
        click.option("--force", is_flag=True, help="Replace the run already in OUT."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return _with_game_flags(fn)


def _config(
    game,
    n_games,
    players,
    bots,
    seed,
    threads,
    sets,
    params_file,
    bot_configs,
    fixed_seats,
    shard,
    chunk,
    workers,
    scheduler,
    resume,
    force,
    quiet,
    flags,
    out,
    label="",
):
    from meeplab.sim.core.runner import DEFAULT_CHUNK, RunConfig

    g = _game(game)
    return RunConfig(
        game=g,
        games=n_games,
        players=_players(players) if players else [g.default_players],
        bots=_bots(bots),
        seed=seed,
        threads=threads,
        overrides=_overrides(g, sets, params_file, flags),
        out=Path(out) if out else None,
        rotate=not fixed_seats,
        bot_configs=tuple(bot_configs),
        chunk=shard or chunk or DEFAULT_CHUNK,
        progress=not quiet,
        label=label,
        command=_command_line(),
        resume=resume,
        force=force,
    )


@contextlib.contextmanager
def _executor(workers, scheduler, threads):
    """None (this process) or a Dask executor, closed when the command ends."""
    if workers is None and not scheduler:
        yield None
        return
    if workers is not None and scheduler:
        raise MeeplabError("give --workers N or --scheduler ADDRESS, not both")
    from meeplab.sim.core.cluster import DaskExecutor

    ex = DaskExecutor(workers, scheduler, threads)
    try:
        yield ex
    finally:
        ex.close()


def _play(cfgs, kw) -> list[dict]:
    """Check every run first, then play them in turn (on the cluster, if one is asked for)."""
    from meeplab.sim.core.runner import check_config, run

    for cfg in cfgs:
        check_config(cfg)
    metas = []
    with _executor(kw["workers"], kw["scheduler"], kw["threads"]) as ex:
        for cfg in cfgs:
            cfg.executor = ex
            if ex is not None and not (kw["shard"] or kw["chunk"]):
                cfg.chunk = max(1, min(cfg.chunk, -(-cfg.games // (4 * max(1, ex.workers)))))
            meta = run(cfg)
            if meta.get("_already_complete"):
                click.echo(f"meeplab: {cfg.out} is already complete; nothing to play", err=True)
            elif not kw["quiet"]:
                _summary(meta, cfg.out)
            if meta["status"] != "complete":
                sys.exit(130)
            metas.append(meta)
    return metas


def _where(meta: dict) -> str:
    return f"{meta['workers']} workers" if meta.get("workers") else f"{meta['threads']} threads"


def _summary(meta: dict, out) -> None:
    click.echo(
        f"{meta['title']}: {meta['games_played']:,} games in {meta['wall_time_s']:.1f} s "
        f"({meta['games_per_second']:,.0f} games/s on {_where(meta)}, "
        f"compile/load {meta['compile_time_s']:.1f} s) -> {out}",
        err=True,
    )


@cli.command("run")
@click.argument("game")
@_run_options
@click.option("--out", "-o", required=True, type=click.Path(), help="Run directory to write.")
@click.option("--label", default="", help="Name of this run in reports (default: the directory name).")
@click.option(
    "--report", "report_path", type=click.Path(), default=None, help="Also write the HTML report to this file."
)
def run_cmd(game, out, label, report_path, **kw):
    """Play a batch of GAME and write OUT/results.parquet and OUT/run.json.

    Every game is reproducible from (seed, game index) alone: the numbers do not depend on the
    thread count, the workers or the shard size, and N games are the first N games of a bigger run
    with the same seed. A directory that already holds a run is refused unless --resume (play only
    what it lacks, e.g. after Ctrl-C or kill -9) or --force (replace it).
    """
    flags = _flag_values(kw)
    _play([_config(game, flags=flags, out=out, label=label, **kw)], kw)
    if report_path:
        _report([out], report_path, None)


def _report(dirs, out, title):
    from meeplab.reports.html import build_report

    path = build_report([Path(d) for d in dirs], Path(out), title=title)
    click.echo(f"report written to {path}", err=True)
    return path


@cli.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path())
@click.option(
    "--out",
    "-o",
    default="report.html",
    show_default=True,
    type=click.Path(),
    help="HTML file to write (self-contained: charts embedded, no network).",
)
@click.option("--title", default=None, help="Report title.")
def report_cmd(run_dirs, out, title):
    """Turn one or more run directories into one self-contained HTML report.

    With several runs (a what-if variant and its baseline, or a sweep) the report adds a comparison;
    runs with the same seed, player counts and bots are compared game by game (paired).
    """
    _report(run_dirs, out, title)


@cli.command("replay")
@click.argument("game")
@click.option("--seed", "-s", type=int, default=1, show_default=True)
@click.option("--index", "-i", type=int, default=0, show_default=True, help="Game index within the run.")
@click.option("--players", "-p", type=int, default=None, help="Player count (default: the game's usual).")
@click.option("--bots", "-b", default="greedy", show_default=True)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE")
@click.option("--params", "params_file", type=click.Path(), default=None)
@click.option("--bot-config", "bot_configs", multiple=True, type=click.Path())
@click.option("--fixed-seats", is_flag=True)
@click.option(
    "--explain",
    is_flag=True,
    help="Under each search-bot decision, show its best candidates and their mean playout values.",
)
@_with_game_flags
def replay_cmd(game, seed, index, players, bots, sets, params_file, bot_configs, fixed_seats, explain, **kw):
    """Print one game as a readable log, move by move, ending with the score breakdown.

    Use the same seed, players, bots and parameters as the batch: game INDEX is then exactly the
    game recorded in that batch's results. Any bot may play, search bots included:

      meeplab replay schweinebande --index 7 --players 3 --bots rollout,heuristic --explain
    """
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.registry import check_players

    g = _game(game)
    p = players or g.default_players
    check_players(g, p)
    if index < 0:
        raise MeeplabError(f"--index must be >= 0, got {index}")
    values = g.params.resolve(_overrides(g, sets, params_file, _flag_values(kw)), g.id)
    lineup = make_lineup(g.id, _bots(bots), p, not fixed_seats, bot_configs)
    if explain and not g.forward_model:
        raise MeeplabError(f"--explain shows search decisions; {g.id} has no search bots yet")
    ctx = g.prepare(values)
    text = g.replay(ctx, lineup, seed, index, p, explain=True) if explain else g.replay(ctx, lineup, seed, index, p)
    click.echo(text, nl=False)


@cli.command("compare")
@click.argument("game")
@_run_options
@click.option(
    "--base-set",
    "base_sets",
    multiple=True,
    metavar="NAME=VALUE",
    help="Parameter overrides of the baseline (default: the rule book).",
)
@click.option(
    "--base-params", "base_params_file", type=click.Path(), default=None, help="TOML overrides of the baseline."
)
@click.option(
    "--out", "-o", required=True, type=click.Path(), help="Directory: OUT/baseline, OUT/variant and OUT/report.html."
)
@click.option(
    "--until-significant",
    "sequential",
    is_flag=True,
    help="Play in batches and stop as soon as a sequential probability ratio test (SPRT) on the "
    "paired per-game difference decides, or at --max-games.",
)
@click.option(
    "--delta",
    type=float,
    default=None,
    help="SPRT: smallest difference worth detecting, in win-share points (0.02 = 2 points).",
)
@click.option(
    "--elo",
    type=float,
    default=None,
    help="SPRT: the smallest difference as Elo at the fair share 1/P (instead of --delta).",
)
@click.option(
    "--alpha", type=float, default=0.05, show_default=True, help="SPRT: chance of declaring a change that is not there."
)
@click.option(
    "--beta", type=float, default=0.05, show_default=True, help="SPRT: chance of missing a change of --delta."
)
@click.option(
    "--alternative",
    type=click.Choice(["two-sided", "greater", "less"]),
    default="two-sided",
    show_default=True,
    help="SPRT: which direction of change counts.",
)
@click.option(
    "--batch", type=int, default=1000, show_default=True, help="SPRT: games per player count between two looks."
)
@click.option(
    "--max-games",
    type=int,
    default=None,
    help="SPRT: stop undecided after this many games per player count (default: --games).",
)
@click.option(
    "--metric",
    default=None,
    metavar="bot:NAME|seat:K",
    help="SPRT: what is compared per game (default: the first bot's win share, or seat 0's win "
    "when one bot plays every seat).",
)
def compare_cmd(
    game,
    base_sets,
    base_params_file,
    out,
    sequential,
    delta,
    elo,
    alpha,
    beta,
    alternative,
    batch,
    max_games,
    metric,
    **kw,
):
    """What-if: play the baseline and a variant (--set/--params) on the same seeds and compare.

    Both runs use the same (seed, game index) streams, so the comparison is paired game by game
    (common random numbers): differences are measured with far less noise than two independent runs.
    With --until-significant the games are played in batches until an SPRT (as Fishtest's for engine
    patches) accepts "no change" or "a change of --delta"; the report shows its LLR path and verdict:

      meeplab compare schweinebande --set pig_bonus_farm=3 --bots heuristic,greedy --players 3 \
          --until-significant --delta 0.02 --max-games 50000 --out runs/pigs
    """
    flags = _flag_values(kw)
    variant_cfg = _config(game, flags=flags, out=Path(out) / "variant", label="variant", **kw)
    if not variant_cfg.overrides:
        raise MeeplabError("compare needs a variant: give --set NAME=VALUE or --params FILE")
    base_kw = dict(kw, sets=base_sets, params_file=base_params_file)
    base_cfg = _config(game, flags={}, out=Path(out) / "baseline", label="baseline", **base_kw)
    if not sequential:
        if any(v is not None for v in (delta, elo, max_games, metric)):
            raise MeeplabError("--delta/--elo/--max-games/--metric belong to --until-significant")
        _play([base_cfg, variant_cfg], kw)  # both validated before anything is played
    else:
        _sequential(
            base_cfg,
            variant_cfg,
            kw,
            Path(out),
            delta=delta,
            elo=elo,
            alpha=alpha,
            beta=beta,
            alternative=alternative,
            batch=batch,
            max_games=max_games or kw["n_games"],
            metric=metric,
        )
    _report([base_cfg.out, variant_cfg.out], Path(out) / "report.html", f"{game}: what-if comparison")


def _sequential(base_cfg, variant_cfg, kw, out: Path, metric=None, **settings) -> dict:
    """compare --until-significant: the SPRT loop, its record in OUT/sprt.json and the variant's run.json."""
    from meeplab.sim.core.sprt import SprtSettings, run_sequential, store

    st = SprtSettings(**settings)
    st.check()
    for cfg in (base_cfg, variant_cfg):
        cfg.progress = False
    echo = None if kw["quiet"] else (lambda line: click.echo(line, err=True))
    with _executor(kw["workers"], kw["scheduler"], kw["threads"]) as ex:
        record = run_sequential(base_cfg, variant_cfg, st, metric, executor=ex, echo=echo)
    if record.get("status") != "complete":
        sys.exit(130)
    record["metric_arg"] = metric
    store(out, variant_cfg.out, record)
    if not kw["quiet"]:
        for t in record["tests"]:
            click.echo(f"{t['n_players']} players, {t['games']:,} games: {t['verdict']}: {t['text']}", err=True)
    return record


@cli.command("sweep")
@click.argument("game")
@_run_options
@click.option(
    "--param",
    "sweep_params",
    required=True,
    multiple=True,
    help="Parameter to sweep; give --param/--values twice for a two-parameter grid.",
)
@click.option(
    "--values",
    "sweep_values",
    required=True,
    multiple=True,
    help="Values separated by ';' (tables keep their commas), e.g. '10;15;20' or '1,3,6;1,2,4'; "
    "one --values per --param.",
)
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per value (or pair) in OUT/NAME=VALUE[,NAME=VALUE] and OUT/report.html.",
)
def sweep_cmd(game, sweep_params, sweep_values, out, **kw):
    """Run GAME once per value of one parameter, or per pair of values of two (same seeds), and chart it.

    Changes against the first run are marked with Holm's correction across all points (named in the
    report). Two parameters give a grid and a heat map of the largest seat gap:

      meeplab sweep schweinebande --param pig_bonus_farm --values "0;2;4" --param start_feed --values "0;1;2" \
          --games 5000 --players 3 --bots heuristic,greedy --out runs/grid
    """
    import itertools

    flags = _flag_values(kw)
    g = _game(game)
    if len(sweep_params) != len(sweep_values):
        raise MeeplabError("give one --values for each --param")
    if len(sweep_params) > 2:
        raise MeeplabError("sweep takes one or two parameters (--param twice at most)")
    if len(set(sweep_params)) != len(sweep_params):
        raise MeeplabError("sweep: the two --param names must differ")
    axes = []
    for name, text in zip(sweep_params, sweep_values):
        g.params.get(name, g.id)
        values = [v.strip() for v in text.split(";") if v.strip()]
        if len(values) < 2:
            raise MeeplabError(f"--values for {name} needs at least two values separated by ';'")
        axes.append([(name, v) for v in values])
    cfgs = []
    for point in itertools.product(*axes):
        sets = tuple(kw["sets"]) + tuple(f"{n}={v}" for n, v in point)
        name = ",".join(f"{n}=" + "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in v) for n, v in point)
        cfg = _config(
            game, flags=flags, out=Path(out) / name, label=",".join(f"{n}={v}" for n, v in point), **dict(kw, sets=sets)
        )
        cfgs.append(cfg)
    _play(cfgs, kw)
    _report([c.out for c in cfgs], Path(out) / "report.html", f"{game}: sweep of {' x '.join(sweep_params)}")


from meeplab.cli import skill as _cli_skill  # noqa: E402,F401  (tune, ladder: they register on cli)
from meeplab.cli import whatif as _cli_whatif  # noqa: E402,F401  (experiment, fair, tournament, maps, decks)


def main(argv=None) -> int:
    """Entry point: user errors become one line on stderr and exit code 2."""
    try:
        rv = cli.main(args=argv, prog_name="meeplab", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except MeeplabError as e:
        click.echo(f"meeplab: error: {e}", err=True)
        return 2
    except click.exceptions.UsageError as e:
        msg = e.format_message().replace("\n", " ")
        click.echo(f"meeplab: error: {msg}", err=True)
        return 2
    except click.exceptions.Exit as e:
        return e.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("meeplab: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
