"""Write a game's settled seat findings (``sim/GAME/settled.toml``, ``meeplab.analysis.settled``) from ladder runs.

    meeplab ladder hacienda --players 2,3 --bots heuristic,ismcts --budgets 0.25,1 --games 400 --out runs/lad-hac
    python scripts/settled.py hacienda runs/lad-hac

Each ladder directory gives, per player count it played, its strongest rung's self-play seat win rates with their
95 % intervals, the verdict of its two strongest rungs and a finding in words; a later directory replaces an earlier
one's player counts. The file is written into the game's own folder (``--out`` elsewhere), its header naming the
ladder commands; the hand-written ``[players.N.disputed]`` notes of the file it replaces are kept for the counts it
writes again, and its ``[fast]`` check is kept (each named on stderr, to be checked: a fast check must agree with the
new findings too). Bad input (an unknown game, a folder that is no ladder) is one
line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("ladders", nargs="+", help="ladder directories (meeplab ladder --out)")
    ap.add_argument("--out", default=None, help="file to write (default: the game's settled.toml)")
    args = ap.parse_args(argv)
    from meeplab.analysis.ladder import load_ladder
    from meeplab.analysis.settled import from_ladder, settled_path, write_settled
    from meeplab.sim.core.errors import MeeplabError
    from meeplab.sim.core.registry import get_game

    try:
        spec = get_game(args.game)
        found, commands = {}, []
        for d in args.ladders:
            lad = load_ladder(d)
            if lad.meta.get("game") not in (None, spec.id):
                raise MeeplabError(f"{d}: a ladder of {lad.meta.get('game')}, not of {spec.id}")
            found.update(from_ladder(lad))
            commands.append(str(lad.meta.get("command") or f"(the ladder in {d})"))
        if not found:
            raise MeeplabError("the ladders hold no player count with a self-play run of their strongest rung")
        out = Path(args.out) if args.out else settled_path(spec)
        if out is None:
            raise MeeplabError(f"{spec.id}: its package folder cannot be found; give --out")
        for p, table in _disputes(out).items():  # hand-written: kept for the counts written again
            if p in found:
                found[p]["disputed"] = table
                print(f"settled.py: kept {out}'s disputed notes at {p} players ({', '.join(table)}): check that they "
                      "still hold", file=sys.stderr)  # fmt: skip
        fast = _fast(out)
        if fast:
            print(f"settled.py: kept {out}'s fast check ({fast['bot']}): check that its self-play agrees with the new "
                  "findings", file=sys.stderr)  # fmt: skip
        header = [
            f"The settled seat findings of {spec.title} (docs/findings.md): per player count, the strongest ladder "
            "rung's",
            "self-play seat win rates with 95 % Wilson intervals (seat 1 = the start player), the ladder's verdict and "
            "the finding.",
            "Made by python scripts/settled.py from the ladders of:",
            *[f"  {c}" for c in commands],
        ]
        write_settled(out, found, header, fast)
    except MeeplabError as exc:
        print(f"settled.py: error: {exc}", file=sys.stderr)
        return 2
    print(f"settled findings of {spec.id} at {', '.join(map(str, sorted(found)))} players -> {out}")
    return 0


def _fast(path: Path) -> dict[str, str] | None:
    """The ``[fast]`` table of the settled file at ``path`` (None when there is none or the file is not readable); a
    table the findings' reader would refuse is refused here, in one line."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    if "fast" not in data:
        return None
    from meeplab.analysis.settled import fast_check

    bot, note = fast_check(data["fast"], f"{path}: [fast]")
    return {"bot": bot, "note": note}


def _disputes(path: Path) -> dict[int, dict[str, str]]:
    """The ``[players.N.disputed]`` tables of the settled file at ``path`` ({} when there is none or it is not
    readable: the new file is written whole); a table the findings' reader would refuse is refused here, in one line."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    from meeplab.analysis.settled import disputed_notes

    out = {}
    for key, row in (data.get("players") or {}).items():
        if isinstance(row, dict) and "disputed" in row and str(key).isdigit():  # checked as the findings' reader does
            out[int(key)] = dict(disputed_notes(row["disputed"], f"{path}: [players.{key}.disputed]"))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
