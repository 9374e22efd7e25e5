"""Reading a restricted-play run (``meeplab options``; lab/studies/options.py): ``options.json`` holds the run's
settings and one row per option class and mode, already measured (win share, paired change, Holm p, verdict)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from meeplab.lab.stats import significant
from meeplab.sim.core.errors import MeeplabError

OPTIONS_FILE = "options.json"


def is_options(path: str | Path) -> bool:
    return (Path(path) / OPTIONS_FILE).is_file()


def load_options(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        meta = json.loads((path / OPTIONS_FILE).read_text(encoding="utf-8"))
        meta["rows"] = list(meta["rows"])
        missing = [k for k in ("game", "bot", "players", "games", "seed", "base_share") if k not in meta]
        if missing:
            raise KeyError(", ".join(missing))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MeeplabError(f"{path / OPTIONS_FILE}: not a readable options run ({exc})") from None
    for r in meta["rows"]:  # the change is marked where it is significant after Holm and the option changed games
        if isinstance(r, dict):
            r["significant"] = significant(float(r.get("p_holm", math.nan))) and r.get("changed", 0) > 0
    return meta
