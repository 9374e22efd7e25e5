"""Batch runs and what is read from them: ``run`` (play a batch into a run directory), ``report`` (run
directories to one HTML report) and ``replay`` (one game of a batch as a readable log)."""

from __future__ import annotations

import click

from meeplab.cli.common import (
    DEFAULT_BOTS,
    cli,
    default_bots,
    flag_values,
    lookup_game,
    param_overrides,
    parse_bots,
    play_runs,
    run_options,
    run_plan,
    with_game_flags,
    write_report,
)
from meeplab.cli.output import echo_plan, echo_table, output_options, runs_rows
from meeplab.sim.core.errors import MeeplabError


@cli.command("run")
@click.argument("game")
@run_options
@click.option("--out", "-o", required=True, type=click.Path(), help="Run directory to write.")
@click.option("--label", default="", help="Name of this run in reports (default: the directory name).")
@click.option(
    "--report", "report_path", type=click.Path(), default=None, help="Also write the HTML report to this file."
)
@output_options
def run_cmd(game, out, label, report_path, as_json, dry_run, **kw):
    """Play a batch of GAME and write OUT/results.parquet and OUT/run.json.

    Every game is reproducible from (seed, game index) alone: the numbers do not depend on the
    thread count, the workers or the shard size, and N games are the first N games of a bigger run
    with the same seed. A directory that already holds a run is refused unless --resume (play only
    what it lacks, e.g. after Ctrl-C or kill -9) or --force (replace it).

    One process writes OUT at a time (a second is refused, naming the first). Every finished shard
    is recorded with its rows and checksum; --resume verifies them and plays a damaged or missing
    one again from its seeds. 'meeplab check OUT' verifies a run without changing it.

    Under the table, a run checks its seats against the game's settled findings (docs/findings.md): at the
    default rules with one bot in every seat, a seat outside the settled interval is named as a bot artefact;
    away from the default rules it says to confirm the seat findings with strong bots.
    """
    flags = flag_values(kw)
    cfg = run_plan(game, flags=flags, out=out, label=label, **kw)
    if echo_plan("run", [cfg], dry_run, kw["quiet"]):
        return
    play_runs([cfg], kw)
    if report_path:
        write_report([out], report_path, None)
    from meeplab.analysis.load import load_run
    from meeplab.analysis.settled import run_disagreements

    notes = run_disagreements(load_run(out))
    title = f"{game}: win rates and seat gap (seat 1 = start player)"
    echo_table(title, runs_rows([out]), as_json, {"settled": notes} if notes else None)
    if not as_json:
        for note in notes:
            click.echo(f"  settled finding: {note}")


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
    write_report(run_dirs, out, title)


@cli.command("replay")
@click.argument("game")
@click.option("--seed", "-s", type=int, default=1, show_default=True)
@click.option("--index", "-i", type=int, default=0, show_default=True, help="Game index within the run.")
@click.option("--players", "-p", type=int, default=None, help="Player count (default: the game's usual).")
@click.option("--bots", "-b", default=DEFAULT_BOTS, show_default=True, help="As the batch's --bots.")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE")
@click.option("--params", "params_file", type=click.Path(), default=None)
@click.option("--bot-config", "bot_configs", multiple=True, type=click.Path())
@click.option("--fixed-seats", is_flag=True)
@click.option(
    "--explain",
    is_flag=True,
    help="Under each search-bot decision, show its best candidates and their mean playout values.",
)
@with_game_flags
def replay_cmd(game, seed, index, players, bots, sets, params_file, bot_configs, fixed_seats, explain, **kw):
    """Print one game as a readable log, move by move, ending with the score breakdown.

    Use the same seed, players, bots and parameters as the batch: game INDEX is then exactly the
    game recorded in that batch's results. Any bot may play, search bots included:

      meeplab replay schweinebande --index 7 --players 3 --bots rollout,heuristic --explain
    """
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.registry import check_players

    g = lookup_game(game)
    p = players or g.default_players
    check_players(g, p)
    if not 0 <= index < 2**63:
        raise MeeplabError(f"--index must be in 0..2**63-1, got {index}")
    if not 0 <= seed < 2**63:
        raise MeeplabError(f"--seed must be in 0..2**63-1, got {seed}")
    values = g.params.resolve(param_overrides(g, sets, params_file, flag_values(kw)), g.id)
    lineup = make_lineup(g.id, parse_bots(default_bots(g.id, bots)), p, not fixed_seats, bot_configs)
    if explain and not g.forward_model:
        raise MeeplabError(f"--explain shows search decisions; {g.id} has no search bots yet")
    ctx = g.prepare(values)
    text = g.replay(ctx, lineup, seed, index, p, explain=True) if explain else g.replay(ctx, lineup, seed, index, p)
    click.echo(text, nl=False)
