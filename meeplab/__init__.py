"""meeplab: a Monte-Carlo balance lab for tabletop games. ``import meeplab`` is all a user needs::

    import meeplab
    r = meeplab.run("schweinebande", games=20000, players=3, bots="heuristic,greedy")
    r.win_rates()                      # pandas: bot, win_rate, lo, hi, ...
    c = meeplab.compare("schweinebande", variant={"pig_bonus_farm": 3}, bots="heuristic,greedy",
                        players=3, until_significant=True, delta=0.02, max_games=50000)
    c.differences(); c.report("pigs.html")
    meeplab.load("runs/demo").seats()

The layers are subpackages (see ``docs/architecture.md``): ``meeplab.sim`` (the shared core and one
folder per game), ``meeplab.strategies`` (bots), ``meeplab.analysis`` (statistics over result frames),
``meeplab.reports`` (HTML and charts), and on top ``meeplab.cli`` and the notebook API (:mod:`meeplab.api`).
"""

from __future__ import annotations

__version__ = "0.1.0"

_API = ("run", "compare", "load", "Result", "Comparison", "Study", "MeeplabError")


def __getattr__(name: str):  # the API loads pandas, polars and the reports: only when first used
    if name == "MeeplabError":
        from meeplab.sim.core.errors import MeeplabError

        return MeeplabError
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'meeplab' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))


__all__ = ["__version__", *_API]
