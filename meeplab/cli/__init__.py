"""The ``meeplab`` command line: batch runs, reports, what-if comparisons, sweeps and replays.

The group and the helpers every command shares are in :mod:`meeplab.cli.common`; each command module registers
its commands on that group when imported here:

- :mod:`meeplab.cli.info`: ``games``, ``bots``, ``params``
- :mod:`meeplab.cli.new`: ``new`` (a plugin package for a new game)
- :mod:`meeplab.cli.runs`: ``run``, ``report``, ``replay``
- :mod:`meeplab.cli.check`: ``check`` (verify run directories)
- :mod:`meeplab.cli.whatif`: ``compare``, ``sweep``, ``experiment``, ``fair``
- :mod:`meeplab.cli.rankings`: ``tournament``, ``maps``, ``decks``
- :mod:`meeplab.cli.skill`: ``tune``, ``ladder``, ``options``
- :mod:`meeplab.cli.play`: ``play`` (play against the bots in the browser)

Every user error (unknown game/bot/parameter, wrong type, impossible player count, bad file) is
reported as one line on stderr with exit code 2.
"""

from __future__ import annotations

import click

try:
    from meeplab.cli import check, fair, info, learn, new, play, quality, rankings, runs, skill, view, whatif  # noqa: F401  (each registers its commands on cli)
    from meeplab.cli.common import cli
    from meeplab.sim.core.errors import MeeplabError
except ImportError as _exc:  # e.g. a numba without the internals meeplab patches: one line, exit 2
    if type(_exc).__name__ != "NumbaHookMissing":
        raise
    import sys

    sys.stderr.write(f"meeplab: error: {_exc}\n")
    raise SystemExit(2) from None

__all__ = ["cli", "main"]


def main(argv=None) -> int:
    """Entry point: user errors become one line on stderr and exit code 2."""
    from meeplab.cli.output import json_document

    try:
        with json_document():  # --json: one document on stdout, whatever tables the command prints
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
    except OSError as e:  # a file or folder the user named that the system refuses (too long a name, no access)
        where = f": {e.filename}" if getattr(e, "filename", None) else ""
        click.echo(f"meeplab: error: {e.strerror or e}{where}"[:2000], err=True)
        return 2
