"""What there is to play: ``games`` (the games), ``bots`` (a game's bots) and ``params`` (its rule parameters)."""

from __future__ import annotations

import click

from meeplab.cli.common import all_games, cli, lookup_game


@cli.command("games")
def games_cmd():
    """List the games, their player counts, score categories and origin (built-in, or the plugin package that
    registers it through the entry point group meeplab.games); a plugin that fails to load is one line at the end."""
    from meeplab.sim.core.bots import PLUGIN_PROBLEMS
    from meeplab.sim.core.registry import origin

    for g in all_games().values():
        players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"
        low = ", lowest score wins" if g.lower_wins else ""
        click.echo(
            f"{g.id:<15} {g.title:<45} players {players:<5} categories: {', '.join(g.categories)}{low} [{origin(g.id)}]"
        )
    for line in PLUGIN_PROBLEMS:
        click.echo(f"broken plugin: {line}")


@cli.command("bots")
@click.argument("game")
@click.option(
    "--bot-config",
    "bot_configs",
    multiple=True,
    type=click.Path(),
    help="TOML file defining tuned variants ([bots.NAME] base=..., [bots.NAME.weights], [bots.NAME.players.P]).",
)
@click.option("--weights", "show_weights", is_flag=True, help="Also print each bot's weights.")
def bots_cmd(game, bot_configs, show_weights):
    """List the bots of GAME and where each comes from (built-in strategies/GAME/, a plugin package's meeplab.bots
    entry point, a --bot-config file), and the default lineup: what a command plays where --bots is left out."""
    from meeplab.sim.core.bots import PLUGIN_PROBLEMS, available

    g = lookup_game(game)
    bots = available(g.id, bot_configs)
    for name, spec in sorted(bots.items()):
        where = "" if spec.origin == "built-in" else f" [{spec.origin}]"
        click.echo(f"{name:<20} {spec.description}{where}")
        if show_weights and spec.weights:
            for k, v in spec.weights_dict().items():
                click.echo(f"    {k} = {v:g}")
            for p, _ in spec.by_players:  # its own weights at a player count: those that differ
                at, every = spec.weights_dict(p), spec.weights_dict()
                click.echo(f"  at {p} players ([bots.{name}.players.{p}]):")
                for k, v in at.items():
                    if v != every[k]:
                        click.echo(f"    {k} = {v:g}")
    for line in PLUGIN_PROBLEMS:
        click.echo(f"broken plugin: {line}")
    from meeplab.analysis.rungs import rung_text
    from meeplab.sim.core.bots import default_lineup

    lineup = default_lineup(g.id)
    click.echo(f"default lineup (--bots left out): {lineup}; skill ladder: {rung_text(g.id, lineup.split(','))}")
    if g.bot_doc:
        click.echo("")
        click.echo(g.bot_doc)


@cli.command("params")
@click.argument("game")
def params_cmd(game):
    """Print GAME's rule parameters: name, default, type and meaning."""
    g = lookup_game(game)
    rows = [(p.name, p.format(p.default), p.describe_type(), p.doc) for p in g.params]
    w0 = max(len(r[0]) for r in rows)
    w1 = min(24, max(len(r[1]) for r in rows))
    w2 = min(28, max(len(r[2]) for r in rows))
    click.echo(f"{'name':<{w0}}  {'default':<{w1}}  {'type':<{w2}}  meaning")
    for name, default, typ, doc in rows:
        click.echo(f"{name:<{w0}}  {default:<{w1}}  {typ:<{w2}}  {doc}")
