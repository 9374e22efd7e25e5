"""``meeplab check``: verify run directories against their records without changing anything."""

from __future__ import annotations

from pathlib import Path

import click

from meeplab.cli.common import cli
from meeplab.lab.runs.rundir import RUN_JSON, is_run
from meeplab.sim.core.errors import MeeplabError


def _run_dirs(root: Path) -> list[Path]:
    """``root`` when it is a run directory, else every run directory below it (a comparison, a tournament)."""
    if not root.exists():
        raise MeeplabError(f"{root}: no such directory")
    if not root.is_dir():
        raise MeeplabError(f"{root}: not a directory (give the run directory)")
    if is_run(root):
        return [root]
    found = sorted(p.parent for p in root.rglob(RUN_JSON))
    if not found:
        raise MeeplabError(f"{root}: no run.json here or below (not a meeplab run directory)")
    return found


@cli.command("check")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path())
def check_cmd(run_dirs):
    """Verify run directories without changing anything (a directory holding several runs, such as a comparison
    or a tournament, is checked run by run).

    A complete run's results.parquet must have the rows and SHA-256 recorded in its run.json; an unfinished run's
    parts (chunks/) the rows and SHA-256 recorded in its manifest, and the game recorded in the data must be the
    run's. Says whether another process is writing the run now. Prints one line per run ('ok' or what is
    damaged or missing) and exits 1 when anything is; 'meeplab run ... --resume' with the run's arguments plays
    the damaged or missing games again from their seeds.
    """
    from meeplab.lab.runs.rundir import check

    bad = 0
    for raw in run_dirs:
        for d in _run_dirs(Path(raw)):
            _meta, facts, problems = check(d)
            if problems:
                bad += 1
                for p in problems:
                    click.echo(f"{d}: DAMAGED: {p}")
            else:
                click.echo(f"{d}: ok: {'; '.join(facts)}")
    return 1 if bad else 0
