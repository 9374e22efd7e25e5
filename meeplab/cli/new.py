"""``meeplab new GAME_ID --out DIR``: a pip-installable plugin package for a new game, ready to play and test."""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

import click

from meeplab.cli.common import cli
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write

ID_RE = re.compile(r"^[a-z][a-z0-9_]{1,30}$")


def write_plugin(game_id: str, out: Path, title: str | None = None) -> list[Path]:
    """Write the plugin package of ``game_id`` into ``out`` (which must not hold files yet); returns the files."""
    from meeplab.cli.new_templates import FILES
    from meeplab.sim.core.registry import game_ids

    if not ID_RE.match(game_id):
        raise MeeplabError(
            f"game id '{game_id}': use 2-31 lowercase letters, digits and underscores, starting with a letter"
        )
    if game_id in game_ids():
        raise MeeplabError(f"a game '{game_id}' is already registered: choose another id")
    if out.exists() and any(out.iterdir()):
        raise MeeplabError(f"{out} is not empty: meeplab new writes into a new or empty folder")
    values = {"id": game_id, "pkg": f"meeplab_{game_id}", "title": title or game_id.replace("_", " ").title()}
    written = []
    for rel, text in FILES.items():
        path = out / Template(rel).substitute(values)
        atomic_write(path, Template(text).substitute(values))
        written.append(path)
    return written


@cli.command("new")
@click.argument("game_id")
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="Folder for the new package.")
@click.option("--title", default=None, help="The game's name in reports (default: from GAME_ID).")
def new_cmd(game_id, out, title):
    """Write a plugin package for a new game GAME_ID into --out: a pyproject with the entry points, a tiny complete
    game (Pig, the dice game, to replace with your rules) with its drawing, the bots random, greedy, heuristic, tuned,
    rollout and ismcts, tests that run the conformance kit, and a README. Install it with one command, then every
    meeplab command plays it:

      meeplab new mygame --out mygame && pip install -e mygame && meeplab run mygame --games 1000

    The tutorial is docs/adding-a-game.md."""
    files = write_plugin(game_id, out, title)
    click.echo(f"wrote {len(files)} files to {out}: pip install -e {out}; then meeplab run {game_id}")
