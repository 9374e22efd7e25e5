"""``meeplab quality``: is it a good game? Luck versus skill, win-probability trajectories (lead changes,
decisiveness, drama), closeness, kingmaking, decisions and what decides games (``meeplab.analysis.quality``)."""

from __future__ import annotations

import math

import click

from meeplab.cli.common import (
    cli,
    executor,
    flag_values,
    lookup_game,
    play_runs,
    run_options,
    run_plan,
    write_report,
)
from meeplab.cli.output import echo_plan, echo_table, output_options
from meeplab.lab.progress import make_bar
from meeplab.sim.core.errors import MeeplabError

#: the metrics the result table on stdout shows per player count (quality.json's names)
TABLE_METRICS = (
    "relative_skill",
    "calibration",
    "lead_changes",
    "decisiveness",
    "drama",
    "comeback_rate",
    "margin_share",
)


@cli.command("quality")
@click.argument("game")
@run_options
@click.option(
    "--out", "-o", required=True, type=click.Path(), help="Directory to write (a run directory plus quality data)."
)
@click.option(
    "--trajectory-games",
    type=int,
    default=100,
    show_default=True,
    help="Games whose win-probability trajectories are estimated (the run's first games).",
)
@click.option(
    "--playouts", type=int, default=32, show_default=True, help="Playouts per sample point of a trajectory (at least)."
)
@click.option(
    "--se-target",
    type=float,
    default=0.03,
    show_default=True,
    help="A point's playouts go on past --playouts until every seat's standard error is at most this (0 = never).",
)
@click.option("--max-playouts", type=int, default=None, help="Playouts per point at most (default: 8 x --playouts).")
@click.option(
    "--points", type=int, default=12, show_default=True, help="Sample points per game (evenly over its decisions)."
)
@click.option(
    "--skill-games",
    type=int,
    default=100,
    show_default=True,
    help="Games per player of the relative-skill measurement (0 = skip it).",
)
@click.option(
    "--evaluator",
    default=None,
    help="The plain bot that plays the trajectories' playouts in every seat (default: the run's own plain bots; a "
    "search seat's playout policy). The report's calibration says whether its estimates match the results.",
)
@click.option(
    "--recalibrate",
    type=click.Choice(["auto", "on", "off"]),
    default="auto",
    show_default=True,
    help="Whether the metrics read the playouts' win probabilities recalibrated against the games' results (Platt "
    "scaling, its slope and intercept drifting with the game's progress; each half of the trajectory games by a map "
    "fitted on the other half): auto where they are "
    "miscalibrated (e.g. search bots, whose playouts are played by their playout policy), on always, off never.",
)
@click.option("--beginner", default="random", show_default=True, help="Relative skill: the beginner.")
@click.option("--skilled", default=None, help="Relative skill: the skilled player, a search bot (default: rollout).")
@click.option(
    "--field", default=None, help="Relative skill: the opponents (default: the skilled bot's playout policy)."
)
@click.option(
    "--report", "report_path", type=click.Path(), default=None, help="Also write the HTML report to this file."
)
@output_options
def quality_cmd(
    game,
    out,
    trajectory_games,
    playouts,
    se_target,
    max_playouts,
    points,
    skill_games,
    evaluator,
    recalibrate,
    beginner,
    skilled,
    field,
    report_path,
    as_json,
    dry_run,
    **kw,
):
    """Is GAME a good game? Play a run of --games games into OUT (as 'meeplab run', with its default bots), then
    measure and write OUT/quality.json with its data files:

    \b
    - win-probability trajectories (OUT/trajectories.parquet): at --points points of the first
      --trajectory-games games, each seat's chance to win given the true state, by --playouts playouts of
      the run's bots (or of --evaluator) with fresh chance, more until every seat's standard error is
      at most --se-target (or --max-playouts), and their calibration against the games' results;
      miscalibrated estimates (a search bot's playouts are played by its playout policy) are
      recalibrated (--recalibrate) and the calibration measured again on games the map was not fitted
      on (still miscalibrated: a warning, and the metrics from them are marked); from them lead changes,
      decisiveness, drama, uncertainty, comeback rate, runaway leader;
    - relative skill (Dreef et al. 2004): beginner, skilled and clairvoyant skilled player, each in one
      seat against --field on the same --skill-games games;
    - closeness (margins, tie-breaks, shared wins), decisions and branching factor, kingmaking (3+
      players) and which score category decides games.

    'meeplab report OUT' shows them in the section "Is it a good game?". Everything is reproducible
    from --seed. With --workers N (or --scheduler) every stage plays on the Dask cluster: the run, the
    trajectories and the relative-skill games, in parts of consecutive games; the numbers are the same
    for any worker count, only the timings differ. See docs/quality.md for what each number means.
    """
    if skill_games < 0:
        raise MeeplabError(f"--skill-games must be 0 or more, got {skill_games}")
    flags = flag_values(kw)
    cfg = run_plan(game, flags=flags, out=out, label="", **kw)
    g = lookup_game(game)
    if not g.forward_model:
        raise MeeplabError(f"{game} does not run on the forward model: quality needs playouts from a game state")
    if trajectory_games > cfg.games:
        raise MeeplabError(f"--trajectory-games ({trajectory_games}) exceeds --games ({cfg.games})")
    if trajectory_games < 1 or playouts < 2 or points < 2:
        raise MeeplabError("--trajectory-games must be at least 1, --playouts and --points at least 2")
    if not 0.0 <= se_target < 0.5:
        raise MeeplabError(f"--se-target must be a standard error in 0..0.5 (0 = off), got {se_target}")
    max_playouts = 8 * playouts if max_playouts is None else max_playouts
    if max_playouts < playouts:
        raise MeeplabError(f"--max-playouts ({max_playouts}) is below --playouts ({playouts})")
    from meeplab.sim.core.bots import available

    known = available(g.id, cfg.bot_configs)
    if evaluator is not None:
        from meeplab.lab.studies.quality import evaluator_lineup

        evaluator_lineup(g, evaluator, cfg.players[0], cfg.bot_configs)  # refused here, before the run plays
    for opt, name in (("--beginner", beginner), ("--skilled", skilled), ("--field", field)):
        if name is not None and name not in known:
            raise MeeplabError(f"{opt}: unknown bot '{name}' for {g.id}; available: {', '.join(sorted(known))}")
    if skill_games and skilled is not None and not known[skilled].search:
        raise MeeplabError(
            f"--skilled {skilled} is no search bot: the clairvoyant player is a search bot (e.g. rollout)"
        )
    from meeplab.analysis.quality import measure

    what = (
        f"quality: the run, then trajectories of {trajectory_games} games x {points} points x {playouts}"
        + (f"-{max_playouts} playouts (standard error {se_target:g})" if se_target > 0 else " playouts")
        + f" and {skill_games} relative-skill games per player"
    )
    top = max_playouts if se_target > 0 else playouts
    skilled_name = skilled or "the default skilled search"
    # the trajectories' playouts are played by the evaluator, or by each seat's plain bot (a search seat's playout
    # policy): priced at that lineup's speed
    playout_bots = [evaluator] if evaluator is not None else [known[b].policy or b for b in cfg.bots]

    def stages(est):
        if playout_bots != list(cfg.bots):
            from meeplab.lab.runs.estimate import estimate

            est = estimate([cfg.replanned(bots=playout_bots)], compile=not dry_run)
        return _stage_lines(est, cfg, trajectory_games, points, playouts, top, skill_games, skilled_name,
                            ",".join(playout_bots))  # fmt: skip

    if echo_plan(what, [cfg], dry_run, kw["quiet"], extra=stages):
        return
    values = dict(cfg.values)
    play_runs([cfg], kw)
    say = None if kw["quiet"] else (lambda msg: click.echo(f"meeplab: {msg}", err=True))
    with executor(kw["workers"], kw["scheduler"], kw["threads"], kw.get("timeout")) as ex:
        rec = measure(
            g, values, cfg.out, cfg.players, cfg.bots, cfg.seed, rotate=cfg.rotate, bot_configs=cfg.bot_configs,
            traj_games=trajectory_games, playouts=playouts, points=points, skill_games=skill_games,
            beginner=beginner, skilled=skilled, field=field, progress=say, executor=ex, evaluator=evaluator,
            se_target=se_target, max_playouts=max_playouts, recalibrate_mode=recalibrate,
            bar=None if kw["quiet"] else make_bar,
        )  # fmt: skip
    if rec["settings"].get("redraw") != "exact":  # an approximation is never silent, --quiet or not
        click.echo(f"meeplab: warning: {g.id}: {rec['settings']['redraw_note']}", err=True)
    from meeplab.analysis.quality import THRESHOLDS, calibrated

    for p, m in sorted(rec["players"].items(), key=lambda x: int(x[0])):
        raw = (m.get("calibration") or {}).get("raw")
        if raw and raw.get("value") is not None:  # recalibrated: never silent either
            cal = m["calibration"]
            click.echo(
                f"meeplab: note: {g.id}, {p} players: the playouts' win probabilities were off by {raw['value']:.3f} "
                f"[{raw['lo']:.3f}, {raw['hi']:.3f}]; the metrics read them recalibrated (Platt scaling along the "
                f"game, each half of the games by a map fitted on the other half), off by {cal['value']:.3f} "
                f"[{cal['lo']:.3f}, {cal['hi']:.3f}] ({calibrated(m) or 'no estimate'}; kingmaking reads the playouts' "
                "own)",
                err=True,
            )
        if m.get("ceiling"):
            won = m["win_share"]["skilled"]["value"]
            click.echo(
                f"meeplab: warning: {g.id}, {p} players: the skilled player ({rec['settings']['skilled']}) wins "
                f"{won:.0%} of its games against the field ({rec['settings']['field']}): relative skill is at its "
                "ceiling and reads near 1 whatever the luck; a stronger --field tells (docs/quality.md)",
                err=True,
            )
        if calibrated(m) == "miscalibrated":  # never silent either
            cal = m["calibration"]
            click.echo(
                f"meeplab: warning: {g.id}, {p} players: the win probabilities are off by {cal['value']:.3f} on "
                f"average [{cal['lo']:.3f}, {cal['hi']:.3f}] (above {THRESHOLDS['calibration_error']:g}): lead "
                "changes, decisiveness, drama, comebacks and kingmaking rest on them (docs/quality.md, calibration)",
                err=True,
            )
    if not kw["quiet"]:
        click.echo(f"meeplab: quality data -> {cfg.out}/quality.json", err=True)
    if report_path:
        write_report([out], report_path, None)
    echo_table(f"{g.id}: is it a good game? (95% intervals; docs/quality.md)", quality_rows(rec), as_json)


def quality_rows(rec: dict) -> list[dict]:
    """Per player count: the headline metrics of ``quality.json`` (:data:`TABLE_METRICS`) with their intervals."""
    rows = []
    for p, m in sorted(rec["players"].items(), key=lambda x: int(x[0])):
        row: dict = {"players": int(p)}
        for name in TABLE_METRICS:
            v = m.get(name)
            if isinstance(v, dict) and "value" in v:
                label = name.replace("_", " ")
                value = v["value"]
                row[label] = value if isinstance(value, (int, float)) and math.isfinite(value) else None
                lo, hi = v.get("lo"), v.get("hi")
                finite = all(isinstance(x, (int, float)) and math.isfinite(x) for x in (lo, hi))
                row[f"{label} 95% CI"] = f"[{lo:.3f}, {hi:.3f}]" if finite else "–"
        raw = (m.get("calibration") or {}).get("raw")
        if raw and raw.get("value") is not None:  # the metrics read recalibrated estimates: the playouts' own beside
            row["calibration before recalibration"] = raw["value"]
            row["calibration before recalibration 95% CI"] = f"[{raw['lo']:.3f}, {raw['hi']:.3f}]"
        for name, check in (m.get("two_budgets") or {}).items():
            if isinstance(check, dict) and "verdict" in check:
                settled = check["verdict"] == "settled"
                row[f"{name.replace('_', ' ')} at half the playouts"] = (
                    "settled" if settled else "not settled at this budget"
                )
        cats = {k: v for k, v in (m.get("what_decides") or {}).items() if isinstance(v, dict) and "value" in v}
        if cats:  # where the points come from, and what decides games (the winner's lead by category)
            most = max(cats, key=lambda k: cats[k].get("share_of_points") or 0.0)
            decides = max(cats, key=lambda k: cats[k]["value"])
            row["most points"] = f"{most} {100 * (cats[most].get('share_of_points') or 0.0):.0f} %"
            row["decides most"] = f"{decides} {100 * cats[decides]['value']:.0f} % of the winner's lead"
        km = m.get("kingmaking") or {}
        if "confirmed" in km:
            row["kingmaking decisions confirmed"] = f"{km['confirmed']} of {km['flagged']} flagged"
        rows.append(row)
    return rows


def _stage_lines(
    est, cfg, games: int, points: int, low: int, high: int, skill_games: int, skilled: str, playout_bots: str
) -> list[str]:
    """The plan's lines for quality's later stages, priced from measured speeds where that is sound: a trajectory
    point's playout plays the rest of a game (about half of one on average) by ``playout_bots`` (the run's plain bots,
    a search seat's playout policy, or the evaluator; ``est`` is that lineup's estimate), so ``games x points x
    playouts / 2`` games' worth, between the first batch and the cap; the relative-skill games put a search bot in one
    seat, whose speed the run's calibration does not know."""
    from meeplab.lab.runs.estimate import duration

    lines = []
    for p in cfg.players:
        sp = est.speeds.get(p)
        rate = sp.games_per_s if sp is not None else math.nan
        work = games * points / 2.0
        if math.isfinite(rate) and rate > 0:
            lines.append(
                f"then trajectories at {p} players: at least {duration(work * low / rate)} to "
                f"{duration(work * high / rate)} on one thread ({low}-{high} playouts a point, each about half a game "
                f"of {playout_bots})"
            )
        else:
            lines.append(f"then trajectories at {p} players: not priced (the run's speed is not known yet)")
    if skill_games:
        lines.append(
            f"then relative skill: {3 * skill_games} games per player count with {skilled} (and its clairvoyant twin) "
            "in one seat: not priced, a search bot's speed is known once it has played (meeplab run GAME -b "
            "SEARCH,FIELD -n 20 measures it)"
        )
    return lines
