"""``--retune GAMES`` for the what-if commands (compare, sweep, fair): each rule set's fitted bots tuned again at its
rules before it is played (:mod:`meeplab.lab.studies.retune`)."""

from __future__ import annotations

from pathlib import Path

import click

from meeplab.lab.progress import progress_bar
from meeplab.sim.core.errors import MeeplabError

retune_option = click.option(
    "--retune",
    "retune",
    type=int,
    default=None,
    metavar="GAMES",
    help="Tune the lineup's fitted bots (tuned; not learned or search bots) again at each rule set's rules, by "
    "CMA-ES within GAMES games each, the baseline too, before playing: a rule's effect, not a bot's mis-fit "
    "(OUT/retuned/RUN/BOT.toml, reused on a rerun).",
)


def retune_plan_args(plans, budget: int | None, quiet: bool) -> dict:
    """What ``--retune`` adds to :func:`~meeplab.cli.output.echo_plan`: the bots it refits (their mis-fit warning
    does not apply) and a plan line pricing the tuning from the runs' measured speed; the bots it leaves are named on
    stderr, a bad budget refused in one line. Without ``--retune``: nothing."""
    if budget is None:
        return {}
    from meeplab.lab.studies.retune import not_retuned, retunable, smallest_budget

    if budget <= 0:
        raise MeeplabError(f"--retune needs a positive number of games, got {budget}")
    bots = retunable(plans[0])
    need = max(smallest_budget(p) for p in plans)
    if budget < need:
        raise MeeplabError(
            f"--retune {budget:,} is too small for {', '.join(bots)}: at least {need:,} games (one CMA-ES generation "
            "and the final check)"
        )
    if not quiet:
        for line in dict.fromkeys(line for p in plans for line in not_retuned(p)):
            click.echo(f"meeplab: --retune: {line}", err=True)

    def lines(est) -> list[str]:
        if not bots:
            return ["retune: no bot of this lineup can be retuned; the runs play the bots as they are"]
        from meeplab.lab.runs.estimate import duration

        speeds = [s.games_per_s for s in est.speeds.values() if s.games_per_s > 0]
        per_s = sum(speeds) / len(speeds) if speeds else 0.0
        when = f", about {duration(len(plans) * len(bots) * budget / per_s)} on one thread" if per_s else ""
        return [
            f"retune: {', '.join(bots)} tuned again at each of {len(plans)} rule sets by CMA-ES, {budget:,} games each "
            f"(other deals than the runs; a rerun reuses them){when}"
        ]

    return {"extra": lines, "refitted": bots}


def retuned(plans, budget: int | None, root: Path, quiet: bool) -> list:
    """``plans`` with their fitted bots retuned (``root/retuned/RUN``); unchanged without ``--retune``."""
    if budget is None:
        return list(plans)
    from meeplab.cli.common import command_line
    from meeplab.lab.studies.retune import retune_plan

    out = []
    for plan in plans:
        try:
            with progress_bar(budget, f"retuning at {plan.label}", quiet) as tick:
                new, records = retune_plan(plan, budget, Path(root) / "retuned" / plan.out.name, tick, command_line())
        except KeyboardInterrupt:
            raise SystemExit(130) from None
        if not quiet:
            for r in records:
                how = "reused" if r["reused"] else f"{r['games']:,} games"
                share = (f"; win share against {', '.join(r['field'])} {r['share']:.3f}, as it was "
                         f"{r['base_share']:.3f}") if r.get("share") is not None else ""  # fmt: skip
                click.echo(f"meeplab: {r['bot']} retuned at {plan.label} ({how}{share}) -> {r['toml']}", err=True)
        out.append(new)
    return out
