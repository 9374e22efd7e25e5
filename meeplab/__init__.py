"""meeplab: a Monte-Carlo balance lab for tabletop games. ``import meeplab`` is all a user needs::

    import meeplab
    r = meeplab.run("schweinebande", games=20000, players=3, bots="heuristic,greedy")
    r.win_rates()                      # pandas: bot, win_rate, lo, hi, ...
    c = meeplab.compare("schweinebande", variant={"pig_bonus_farm": 3}, bots="heuristic,greedy",
                        players=3, until_significant=True, delta=0.02, max_games=50000)
    c.differences(); c.report("pigs.html")
    meeplab.load("runs/demo").seats()

The engines, bots and reports live in the packages ``sim``, ``strategies`` and ``reports``. An installed
meeplab keeps them inside its own folder (``meeplab/_lab/``, not at the top of site-packages, where such
generic names would clash with other distributions' files); importing ``meeplab`` puts that folder on
``sys.path`` (in a source checkout: the repository), so the engines' own imports and bot discovery work as
they do in the repository.
"""
from __future__ import annotations

import sys
from pathlib import Path

__version__ = "0.1.0"


def _lab_root() -> Path | None:
    here = Path(__file__).resolve().parent
    for root in (here / "_lab", here.parent):  # installed wheel, then a source checkout / editable install
        if (root / "sim" / "__init__.py").is_file() and (root / "strategies").is_dir():
            return root
    return None


def _put_lab_on_path() -> None:
    root = _lab_root()
    if root is None:
        return
    loaded = sys.modules.get("sim")
    if loaded is not None:
        origin = Path(getattr(loaded, "__file__", "") or ".").resolve().parent.parent
        if origin != root:
            raise ImportError(f"meeplab: a different package named 'sim' is already imported ({origin}); "
                              "import meeplab first")
        return
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


_put_lab_on_path()

_API = ("run", "compare", "load", "Result", "Comparison", "MeeplabError")


def __getattr__(name: str):  # the API loads pandas, polars and the reports: only when first used
    if name == "MeeplabError":
        from sim.core.errors import MeeplabError

        return MeeplabError
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'meeplab' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))


__all__ = ["__version__", *_API]
