"""The options every command shares: the ``meeplab`` group itself and the helpers its command modules use.

Game lookup (:func:`lookup_game`), the comma lists of ``--bots`` (:func:`parse_bots`; ``--players`` is read by
:func:`meeplab.lab.studies.experiment.parse_players`), the rule parameters of ``--set``/``--params`` and of the
games' own flags such as ``--map`` (:func:`with_game_flags`, :func:`flag_values`, :func:`param_overrides`), the
options of every batch run (:func:`run_options`) and the run they describe (:func:`run_plan`), playing runs on
this machine or a Dask cluster (:func:`executor`, :func:`play_runs`, :func:`echo_summary`), the HTML report
(:func:`write_report`) and the command line recorded with a run (:func:`command_line`).

The command modules (``info``, ``runs``, ``whatif``, ``rankings``, ``skill``) register their commands on
:data:`cli`; this module imports none of them. Heavy modules (the runner, numba, the reports) are imported
inside the functions, when a command needs them, so that ``meeplab --help`` stays quick.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from pathlib import Path

import click

from meeplab.lab.studies.experiment import parse_players
from meeplab.sim.core.errors import MeeplabError

__all__ = [
    "DEFAULT_BOTS",
    "all_games",
    "cli",
    "command_line",
    "default_bots",
    "echo_summary",
    "executor",
    "flag_values",
    "lookup_game",
    "param_overrides",
    "parse_bots",
    "play_runs",
    "run_options",
    "run_plan",
    "with_game_flags",
    "write_report",
]


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


def all_games():
    """Every game the registry knows, by id (:func:`meeplab.sim.core.registry.games`)."""
    from meeplab.sim.core.registry import games

    return games()


def lookup_game(game_id):
    """The game named ``game_id``; an unknown name is a :class:`MeeplabError` that lists the known ones."""
    from meeplab.sim.core.registry import get_game

    return get_game(game_id)


def _flag_params() -> list[str]:
    """Parameters that some game exposes as their own option (e.g. --map, --deck)."""
    names: list[str] = []
    try:
        for g in all_games().values():
            for f in g.flags:
                if f not in names:
                    names.append(f)
    except Exception:  # discovery problems surface later with a clear message
        pass
    return names


def with_game_flags(fn):
    """Decorator: one option per parameter that some game exposes as a flag of its own (``--map``, ``--deck``, ...).

    Each is a shortcut for ``--set NAME=VALUE`` and arrives in the command's keyword arguments as ``flag_NAME``;
    :func:`flag_values` takes them out again.
    """
    for name in reversed(_flag_params()):
        fn = click.option(
            f"--{name.replace('_', '-')}",
            f"flag_{name}",
            default=None,
            metavar="VALUE",
            help=f"Shortcut for --set {name}=VALUE (games that have a '{name}' parameter).",
        )(fn)
    return fn


def flag_values(kwargs) -> dict:
    """Remove the game flags (``flag_NAME``, see :func:`with_game_flags`) from a command's ``kwargs`` and return
    them as ``{NAME: value}`` (``None`` where not given)."""
    return {k[len("flag_") :]: kwargs.pop(k) for k in list(kwargs) if k.startswith("flag_")}


def param_overrides(game, sets, params_file, flags) -> dict:
    """The rule parameter overrides of one run, in the order they apply: the ``--params`` TOML file, then every
    ``--set NAME=VALUE``, then the game flags given (:func:`flag_values`); a flag the game lacks is an error."""
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


def parse_bots(text: str) -> list[str]:
    """A comma-separated list of names (``--bots``, and other lists of names); blanks are dropped, and an empty
    list is an error."""
    names = [b.strip() for b in text.split(",") if b.strip()]
    if not names:
        raise MeeplabError("--bots needs at least one bot name")
    return names


#: ``--bots``'s default: the game's default lineup, the strongest bot that stays fast (no search)
DEFAULT_BOTS = "default"


def default_bots(game_id: str, bots: str) -> str:
    """``bots`` as given; the default (:data:`DEFAULT_BOTS`) becomes the game's default lineup
    (:func:`~meeplab.sim.core.bots.default_lineup`: the one its strategies package declares, else ``tuned``, else
    ``greedy``)."""
    if bots.strip() != DEFAULT_BOTS:
        return bots
    from meeplab.sim.core.bots import default_lineup

    return default_lineup(game_id)


def command_line() -> str:
    """The command as typed (``meeplab ...``, shell-quoted), recorded with runs, ladders and tuned bots."""
    return "meeplab " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def run_options(fn):
    """Decorator: the options of every batch run (``run``, ``compare``, ``sweep``, ``fair``, ``tournament``,
    ``maps``, ``decks``): ``--games``, ``--players``, ``--bots``, ``--seed``, ``--threads``, ``--set``, ``--params``,
    ``--bot-config``, ``--fixed-seats``, ``--shard``, ``--workers``, ``--scheduler``, ``--resume``, ``--force``,
    ``--timeout``, ``--quiet`` and the game flags. The command gets them as keyword arguments for
    :func:`run_plan` and :func:`play_runs`.
    """
    opts = [
        click.option(
            "--games", "-n", "n_games", type=int, default=10000, show_default=True, help="Games per player count."
        ),
        click.option(
            "--precision",
            type=float,
            default=None,
            help="Instead of --games: size the run so that a seat's win rate (compare and sweep: its change between "
            "two rule sets) has a 95 % interval of at most ±H, e.g. 0.02; the plan says how many games.",
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
            default=DEFAULT_BOTS,
            show_default=True,
            help="Bot per seat, comma-separated; fewer names than seats repeat cyclically. Default: the game's "
            "default lineup, the strongest fast bot it declares (`meeplab bots GAME` names it; a game that declares "
            "none: tuned where shipped, else greedy).",
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
        click.option("--chunk", type=int, default=None, hidden=True),  # an alias of --shard
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
            "meeplab installed). See docs/clusters.md.",
        ),
        click.option(
            "--resume",
            is_flag=True,
            help="Finish the run already in OUT (interrupted or killed): play only the shards it "
            "lacks. The arguments must be the same.",
        ),
        click.option(
            "--force",
            is_flag=True,
            help="Replace the run already in OUT (deletes only the files meeplab wrote there).",
        ),
        click.option(
            "--timeout",
            type=float,
            default=10.0,
            show_default=True,
            metavar="SECONDS",
            help="How long to try reaching --scheduler before giving up.",
        ),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return with_game_flags(fn)


def run_plan(
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
    timeout=None,
    precision=None,
    precision_of="rate",
):
    """The checked :class:`~meeplab.lab.runs.plan.RunPlan` of one run from the options of :func:`run_options`
    (``flags`` from :func:`flag_values`, ``out`` the run directory, ``label`` its name in reports): the one place a
    command's run is validated; what plays it takes the plan as it is. ``precision`` (``--precision``) sizes the
    run instead of ``n_games`` (:func:`~meeplab.lab.stats.games_for_precision`, for a seat's win rate, or with
    ``precision_of="change"`` for its change between two runs)."""
    from meeplab.lab.runs.plan import DEFAULT_SHARD, RunConfig, plan_run

    if out is not None and not str(out).strip():
        raise MeeplabError("--out needs a directory name (got an empty one)")
    g = lookup_game(game)
    counts = parse_players(players) if players else [g.default_players]
    if precision is not None:
        n_games = sized_games(precision, counts, precision_of, quiet)
    return plan_run(
        RunConfig(
            game=g,
            games=n_games,
            players=counts,
            bots=parse_bots(default_bots(g.id, bots)),
            seed=seed,
            threads=threads,
            overrides=param_overrides(g, sets, params_file, flags),
            out=Path(out) if out else None,
            rotate=not fixed_seats,
            bot_configs=tuple(bot_configs),
            shard=shard if shard is not None else chunk if chunk is not None else DEFAULT_SHARD,
            progress=not quiet,
            label=label,
            command=command_line(),
            resume=resume,
            force=force,
        )
    )


def sized_games(precision: float, counts: list[int], of: str, quiet: bool) -> int:
    """``--precision H``: the games per player count that give every count's win rate (``of="change"``: its change
    between two runs) a 95 % half-width of at most H, said on stderr; one line for a bad H."""
    from meeplab.lab.stats import games_for_precision

    if not (0.0 < precision < 0.5):
        raise MeeplabError(f"--precision must be a half-width between 0 and 0.5 (0.02 = ±2 points), got {precision}")
    games = max(games_for_precision(precision, p, change=of == "change") for p in counts)
    if not quiet:
        what = "a seat's win rate" if of == "rate" else "a seat's change in win rate between the two rule sets"
        click.echo(
            f"meeplab: --precision {precision:g}: {games:,} games per player count (95 % interval of {what} at "
            f"most ±{precision:g} near its fair share; instead of --games)",
            err=True,
        )
    return games


def apply_precision(kw: dict, game: str, of: str = "rate") -> dict:
    """The keyword arguments of a command that plans several runs, with ``--precision`` turned into ``--games`` once
    (:func:`sized_games`; ``of="change"`` for a what-if's change between rule sets), so that each plan is not sized
    and said again."""
    if kw.get("precision") is None:
        return kw
    g = lookup_game(game)
    counts = parse_players(kw["players"]) if kw.get("players") else [g.default_players]
    return dict(kw, n_games=sized_games(kw["precision"], counts, of, kw.get("quiet", False)), precision=None)


def resume_unless_force(kw) -> dict:
    """The options of a command that finishes what OUT holds unless ``--force`` (tournament, maps, decks, fair):
    ``resume`` becomes ``not force``; ``--resume`` and ``--force`` together are a contradiction, refused."""
    if kw.get("resume") and kw.get("force"):
        raise MeeplabError("give --resume (finish the runs in OUT) or --force (replace them), not both")
    return dict(kw, resume=not kw["force"])


@contextlib.contextmanager
def executor(workers, scheduler, threads, timeout=None):
    """Context manager: None (play in this process, numba threads) or a Dask executor for ``--workers N`` or
    ``--scheduler ADDRESS`` (reached within ``timeout`` seconds), closed when the command ends; both at once is an
    error."""
    if workers is None and not scheduler:
        yield None
        return
    if workers is not None and scheduler:
        raise MeeplabError("give --workers N or --scheduler ADDRESS, not both")
    from meeplab.lab.distributed.cluster import DaskExecutor

    ex = DaskExecutor(workers, scheduler, threads, **({"timeout": timeout} if timeout is not None else {}))
    try:
        yield ex
    finally:
        ex.close()


def play_runs(plans, kw) -> list[dict]:
    """Play the runs' plans (:func:`run_plan`) in turn (on the cluster, if one is asked for).

    ``kw`` holds the command's :func:`run_options` (``workers``, ``scheduler``, ``threads``, ``shard``, ``chunk``,
    ``quiet`` are read). Each finished run prints :func:`echo_summary` unless quiet; an interrupted run ends the
    command with exit code 130. Returns the runs' ``run.json`` records.
    """
    from meeplab.lab.runs.runner import run

    metas = []
    with executor(kw["workers"], kw["scheduler"], kw["threads"], kw.get("timeout")) as ex:
        for plan in plans:
            shard = None
            if ex is not None and kw["shard"] is None and kw["chunk"] is None:
                shard = max(1, min(plan.shard, -(-plan.games // (4 * max(1, ex.workers)))))
            got = run(plan.on(ex, shard))
            if got.already_complete:
                click.echo(f"meeplab: {plan.out} is already complete; nothing to play", err=True)
            elif not kw["quiet"]:
                echo_summary(got.meta, plan.out)
            if got.status != "complete":
                sys.exit(130)
            metas.append(got.meta)
    return metas


def _where(meta: dict) -> str:
    return f"{meta['workers']} workers" if meta.get("workers") else f"{meta['threads']} threads"


def echo_summary(meta: dict, out) -> None:
    """The one-line summary of a finished run on stderr: games, time, speed, where it played, OUT. The compile/load
    time includes what the plan's calibration spent compiling the engine just before (and says how much)."""
    cal = meta.get("calibration_compile_s") or 0.0
    where = f", {cal:.1f} s of it in the calibration before play" if cal >= 0.05 else ""
    click.echo(
        f"{meta['title']}: {meta['games_played']:,} games in {meta['wall_time_s']:.1f} s "
        f"({meta['games_per_second']:,.0f} games/s on {_where(meta)}, "
        f"compile/load {meta['compile_time_s']:.1f} s{where}) -> {out}",
        err=True,
    )


def write_report(dirs, out, title, confirm=None, answer=None):
    """Build one HTML report from the run directories ``dirs`` into ``out``, say so on stderr, return its path;
    ``confirm``: a strong-bot confirmation to show beside the fast results (``OUT/confirm.json``'s record);
    ``answer``: ``meeplab fair``'s record, shown first."""
    from meeplab.analysis.load import same_game
    from meeplab.reports import build_report

    same_game([Path(d) for d in dirs])
    try:
        path = build_report([Path(d) for d in dirs], Path(out), title=title, confirm=confirm, answer=answer)
    except OSError as exc:  # a full disk, a read-only folder: say which file and what to do
        raise MeeplabError(
            f"cannot write the report {exc.filename or out}: {exc.strerror or exc}; free some space or choose "
            "another --out"
        ) from None
    click.echo(f"report written to {path}", err=True)
    return path
