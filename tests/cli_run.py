"""The tests' one way to run a ``meeplab`` command in-process: its exit code and what it printed."""

from meeplab.cli import main


def run_cli(args, capsys):
    """Run ``meeplab ARGS`` in this process; returns ``(exit code, stdout, stderr)`` (read through pytest's
    ``capsys``, which the caller passes)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err
