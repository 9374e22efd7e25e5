"""``meeplab play``: sit down at the table with the bots, in the browser (the app: :mod:`meeplab.play`)."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from meeplab.cli.common import cli, flag_values, lookup_game, param_overrides, parse_bots, with_game_flags
from meeplab.sim.core.errors import MeeplabError

HOST = "127.0.0.1"  # only this machine reaches the game; the token keeps other users of it out


def free_port() -> int:
    """A port nothing listens on now (the system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _new_table(game, players, human, bots, sets, params_file, bot_configs, flags, seed, index):
    from meeplab.play.table import Table, seat_bots, seat_list
    from meeplab.sim.core.registry import check_players

    g = lookup_game(game)
    if not g.forward_model:
        raise MeeplabError(f"{g.id} does not run on the forward model: it cannot be played step by step")
    p = players or g.default_players
    check_players(g, p)
    humans = seat_list(human, p)
    seats = seat_bots(parse_bots(bots), humans, p)
    values = g.params.resolve(param_overrides(g, sets, params_file, flags), g.id)
    return Table(g, values, seats, seed, index, tuple(bot_configs))


@cli.command("play")
@click.argument("game", required=False)
@click.option("--players", "-p", type=int, default=None, help="Player count (default: the game's usual).")
@click.option(
    "--human", default="1", show_default=True, help="The people's seats, from 1 (P1 starts); several play hot-seat."
)
@click.option(
    "--bots", "-b", default="tuned", show_default=True, help="Bots of the other seats in order (one name: all)."
)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameter (the variant to try).")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of rule parameters.")
@click.option("--bot-config", "bot_configs", multiple=True, type=click.Path(), help="TOML file of bot variants.")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed of the deal.")
@click.option("--index", "-i", type=int, default=0, show_default=True, help="Game index of the deal (as in a run).")
@click.option("--port", type=int, default=None, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL only; do not open a browser.")
@click.option(
    "--resume", type=click.Path(), default=None, help="Continue a saved game (its file; GAME and rules come from it)."
)
@click.option(
    "--save-dir",
    type=click.Path(file_okay=False),
    default="playtests",
    show_default=True,
    help="Folder of the saved games (each game is written after every decision).",
)
@click.option(
    "--delay", type=int, default=700, show_default=True, help="Milliseconds the page waits before each bot move."
)
@with_game_flags
def play_cmd(
    game,
    players,
    human,
    bots,
    sets,
    params_file,
    bot_configs,
    seed,
    index,
    port,
    no_browser,
    resume,
    save_dir,
    delay,
    **kw,
):
    """Play GAME against the bots in the browser: any rules (--set), any bots, people on any seats.

    Starts a local web app on 127.0.0.1 with a secret token in its URL, prints the URL and opens it. Your legal
    moves are listed and clickable on the board; bots move after a short delay and show their alternatives
    and values one click away (never cards you cannot see); undo takes back your last decision. Every game is
    saved as a small JSON file (seed, rules, bots, decisions) after each decision: continue it with --resume,
    draw it with `meeplab view FILE`. Stop the server with Ctrl-C.

      meeplab play hacienda --players 3 --human 1 --bots tuned,rollout --set water_price=2

      meeplab play schweinebande --human 1,3 --bots heuristic     (two people, hot-seat)

      meeplab play --resume playtests/hacienda-20261203-141500-g0.json
    """
    from meeplab.play import saved
    from meeplab.play.server import Session, create_app, default_name

    flags = flag_values(kw)
    if delay < 0:
        raise MeeplabError(f"--delay must be >= 0 ms, got {delay}")
    if port is not None and not 1 <= port <= 65535:
        raise MeeplabError(f"--port must be 1..65535, got {port}")
    if resume:
        table = saved.load(resume)
        save_path = Path(resume)
    else:
        if not game:
            raise MeeplabError("name the GAME to play (or --resume FILE)")
        if index < 0:
            raise MeeplabError(f"--index must be >= 0, got {index}")
        table = _new_table(game, players, human, bots, sets, params_file, bot_configs, flags, seed, index)
        save_path = Path(save_dir) / default_name(table)
    session = Session(table, save_path, delay)
    saved.save(table, save_path)
    app = create_app(session, Path(save_dir))
    use_port = port if port is not None else free_port()
    if port is not None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((HOST, port))
            except OSError as exc:
                raise MeeplabError(f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror or exc})") from None
    url = f"http://{HOST}:{use_port}/?token={session.token}"
    people = ", ".join(f"P{s + 1}" for s in table.humans)
    bots_at = ", ".join(f"P{s + 1} {b}" for s, b in enumerate(table.seats) if b is not None) or "none"
    click.echo(f"{table.spec.title}, {table.n_players} players: people at {people}; bots {bots_at}")
    click.echo(f"saving to {save_path}")
    click.echo(f"open {url}")
    click.echo("(Ctrl-C stops the server)")
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    serve(app, use_port)


def serve(app, port: int) -> None:
    """Run ``app`` on 127.0.0.1:``port`` until interrupted."""
    import uvicorn

    uvicorn.run(app, host=HOST, port=port, log_level="warning")
