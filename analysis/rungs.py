"""Where a bot stands on meeplab's skill ladder, so that every report can say what its findings rest on.

The rungs, weakest first: 1 random (uniform legal moves), 2 greedy (best immediate gain), 3 heuristic (hand-set
feature weights), 4 tuned (the heuristic with weights tuned by CMA-ES), 5 learned (a policy over the candidates'
features that ``meeplab learn`` fitted to a teacher's choices and refined for wins: about as fast as the plain
bots), 6 search (rollouts or ISMCTS over the forward model: stronger, hundreds of times slower). A bot variant from
a ``--bot-config`` file takes its base's rung, a tuned variant of a plain bot rung 4.
"""

from __future__ import annotations

RUNGS = {
    1: "random baseline",
    2: "greedy, one step ahead",
    3: "hand-weighted heuristic",
    4: "tuned heuristic",
    5: "learned policy, fast",
    6: "search, strongest and slow",
}


def rung_of(spec) -> int:
    """The rung of a :class:`~meeplab.sim.core.bots.BotSpec`."""
    if getattr(spec, "search", ""):
        return 6
    base = getattr(spec, "base", "") or spec.name
    if base == "policy":  # a learned policy, or a variant of one (a tuned one included)
        return 5
    if base == "random":
        return 1
    if base == "greedy":
        return 2
    if spec.name == "tuned" or "tuned" in (getattr(spec, "description", "") or "").lower():
        return 4
    return 3


def bot_rungs(game: str, names) -> dict[str, tuple[int, str]]:
    """``{bot: (rung, what the rung is)}`` for the bots ``names`` of ``game``; a name the game does not know (a
    variant from a bot-config file no longer at hand) is left out."""
    try:
        from meeplab.sim.core.bots import available

        specs = available(game)
    except Exception:  # an unknown or unloadable game: no rungs to name
        return {}
    out = {}
    for n in dict.fromkeys(names):
        if n in specs:
            r = rung_of(specs[n])
            out[n] = (r, RUNGS[r])
    return out


def rung_text(game: str, names) -> str:
    """``tuned: rung 4 of 6 (tuned heuristic); greedy: rung 2 of 6 (...)``, strongest first."""
    r = bot_rungs(game, names)
    items = sorted(r.items(), key=lambda kv: -kv[1][0])
    return "; ".join(f"{n}: rung {k} of {len(RUNGS)} ({what})" for n, (k, what) in items)
