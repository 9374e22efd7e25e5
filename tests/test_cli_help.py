"""The command line's surface stays put: every command, option and help text as recorded in tests/data/cli_help.json.

The record was taken from the CLI before it moved into the ``meeplab.cli`` package. A deliberate change of an
option or a help text rewrites it::

    python tests/test_cli_help.py --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

RECORD = Path(__file__).parent / "data" / "cli_help.json"


def _plain(value):
    """A parameter's default as JSON: plain values as they are, sequences as lists, anything else (click's
    ``UNSET`` sentinel, a callable) by its repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return repr(value)


def _param(p: click.Parameter) -> dict:
    return {
        "name": p.name,
        "kind": p.param_type_name,
        "opts": list(p.opts),
        "secondary_opts": list(p.secondary_opts),
        "type": p.type.name,
        "default": _plain(p.default),
        "required": p.required,
        "multiple": p.multiple,
        "is_flag": bool(getattr(p, "is_flag", False)),
        "nargs": p.nargs,
        "hidden": bool(getattr(p, "hidden", False)),
        "metavar": p.metavar,
        "show_default": _plain(getattr(p, "show_default", None)),
        "help": getattr(p, "help", None),
    }


def describe(cmd: click.Command, name: str | None = None) -> dict:
    """One command as a plain structure: name, help, params, and its sub-commands (for a group), recursively."""
    out = {
        "name": name or cmd.name,
        "help": cmd.help,
        "short_help": cmd.short_help,
        "hidden": cmd.hidden,
        "params": [_param(p) for p in cmd.params],
    }
    if isinstance(cmd, click.Group):
        out["commands"] = {n: describe(c, n) for n, c in sorted(cmd.commands.items())}
    return out


def test_cli_surface_unchanged():
    from meeplab.cli import cli

    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(describe(cli, "meeplab")))
    assert sorted(now["commands"]) == sorted(recorded["commands"])
    for name, rec in recorded["commands"].items():
        cur = now["commands"][name]
        assert [p["name"] for p in cur["params"]] == [p["name"] for p in rec["params"]], name
        for p_now, p_rec in zip(cur["params"], rec["params"]):
            assert p_now == p_rec, f"{name} {p_rec['name']}"
        assert cur == rec, name
    assert now == recorded


if __name__ == "__main__":  # python tests/test_cli_help.py --write: record the CLI as it is now
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_cli_help.py --write")
    from meeplab.cli import cli

    RECORD.write_text(json.dumps(describe(cli, "meeplab"), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RECORD}")
