"""``meeplab play``: sit down at the table with the bots, in the browser (the app: :mod:`meeplab.play`)."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from meeplab.cli.common import (
    DEFAULT_BOTS,
    cli,
    default_bots,
    flag_values,
    lookup_game,
    param_overrides,
    parse_bots,
    with_game_flags,
)
from meeplab.sim.core.errors import MeeplabError

HOST = "127.0.0.1"  # only this machine reaches the game; the token keeps other users of it out


def free_port() -> int:
    """A port nothing listens on now (the system picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def listen(port: int | None) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (None: a free port): connections queue from now on, before the
    server accepts them."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, 0 if port is None else port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise MeeplabError(f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror or exc})") from None
    return sock


def _new_table(game, players, human, bots, sets, params_file, bot_configs, flags, seed, index):
    from meeplab.play.table import Table, seat_bots, seat_list
    from meeplab.sim.core.registry import check_players

    g = lookup_game(game)
    if not g.forward_model:
        raise MeeplabError(f"{g.id} does not run on the forward model: it cannot be played step by step")
    p = players or g.default_players
    check_players(g, p)
    humans = seat_list(human, p)
    seats = seat_bots(parse_bots(default_bots(g.id, bots)), humans, p)
    values = g.params.resolve(param_overrides(g, sets, params_file, flags), g.id)
    return Table(g, values, seats, seed, index, tuple(bot_configs))


@cli.command("play")
@click.argument("game", required=False)
@click.option("--players", "-p", type=int, default=None, help="Player count (default: the game's usual).")
@click.option(
    "--human", default="1", show_default=True, help="The people's seats, from 1 (P1 starts); several play hot-seat."
)
@click.option(
    "--bots",
    "-b",
    default=DEFAULT_BOTS,
    show_default=True,
    help="Bots of the other seats in order (one name: all); default: the game's default lineup.",
)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameter (the variant to try).")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of rule parameters.")
@click.option("--bot-config", "bot_configs", multiple=True, type=click.Path(), help="TOML file of bot variants.")
@click.option(
    "--seed",
    "-s",
    type=int,
    default=None,
    help="Seed of the deal (default: a random one; the saved game records it).",
)
@click.option("--index", "-i", type=int, default=0, show_default=True, help="Game index of the deal (as in a run).")
@click.option("--port", type=int, default=None, help="Port on 127.0.0.1 (default: a free one).")
@click.option(
    "--no-browser", is_flag=True, help="Print a launch link (one use, 2 minutes) only; do not open a browser."
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the session token here (mode 0600) for scripts: header Authorization: Bearer TOKEN.",
)
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
    token_file,
    resume,
    save_dir,
    delay,
    **kw,
):
    """Play GAME against the bots in the browser: any rules (--set), any bots, people on any seats.

    Starts a local web app on 127.0.0.1 and opens it in the browser with a one-time launch link (the browser
    trades it for a cookie holding the session's secret token; the token is on no command line and in no URL).
    A new game deals a random table unless --seed is given. Your legal moves are listed and clickable on the
    board; bots move after a short delay and show their alternatives and values one click away (never cards you
    cannot see); undo takes back your last decision unless it revealed something hidden. Every game is saved as
    a small JSON file (seed, rules, bots, decisions) after each decision: continue it with --resume, draw it with
    `meeplab view FILE`. Stop the server with Ctrl-C. Scripts: --no-browser prints a launch link, --token-file
    gives the token for Authorization: Bearer (docs/playtest.md).

      meeplab play hacienda --players 3 --human 1 --bots tuned,rollout --set water_price=2

      meeplab play schweinebande --human 1,3 --bots heuristic     (two people, hot-seat)

      meeplab play --resume playtests/hacienda-20261203-141500-g0.json
    """
    import secrets

    from meeplab.play import saved
    from meeplab.play.server import Session, create_app, default_name
    from meeplab.sim.core.files import atomic_write

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
        if seed is not None and not 0 <= seed < 2**63:
            raise MeeplabError(f"--seed must be 0..2**63-1, got {seed}")
        if seed is None:
            seed = secrets.randbits(63)  # a fresh table: nobody can look its hidden cards up in advance
        table = _new_table(game, players, human, bots, sets, params_file, bot_configs, flags, seed, index)
        save_path = Path(save_dir) / default_name(table)
    session = Session(table, save_path, delay)
    saved.save(table, save_path)
    sock = listen(port)
    try:
        use_port = int(sock.getsockname()[1])
        app = create_app(session, Path(save_dir), port=use_port)
        if token_file:
            atomic_write(token_file, session.token + "\n", private=True)
        url = f"http://{HOST}:{use_port}/launch/{session.new_launch_code()}"
        people = ", ".join(f"P{s + 1}" for s in table.humans)
        bots_at = ", ".join(f"P{s + 1} {b}" for s, b in enumerate(table.seats) if b is not None) or "none"
        click.echo(f"{table.spec.title}, {table.n_players} players: people at {people}; bots {bots_at}")
        click.echo(f"saving to {save_path}")
        if token_file:
            click.echo(f"token in {token_file} (for Authorization: Bearer)")
        opened = False
        if not no_browser:
            import webbrowser

            opened = webbrowser.open(url)
        if opened:
            click.echo(f"opened http://{HOST}:{use_port}/ in the browser")
        else:
            click.echo(f"open {url}")
            click.echo("(the link works once, within 2 minutes)")
        click.echo("(Ctrl-C stops the server)")
        serve(app, sock)
    finally:
        sock.close()
        if token_file:
            _remove_token_file(Path(token_file), session.token)


def _remove_token_file(path: Path, token: str) -> None:
    """Remove the token file once the server has stopped (if it still holds this session's token)."""
    try:
        if path.read_text(encoding="utf-8").strip() == token:
            path.unlink()
    except OSError:
        pass


def serve(app, sock: socket.socket) -> None:
    """Serve ``app`` on the listening socket ``sock`` until interrupted."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
