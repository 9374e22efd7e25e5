"""Sequential tests and strong-bot confirmation shared by the what-if commands (compare, sweep, experiment, fair):
the SPRT loop of ``--until-significant`` and ``--confirm BOT``'s replay of a fast question with a strong bot."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from meeplab.cli.common import executor
from meeplab.cli.output import echo_table
from meeplab.sim.core.errors import MeeplabError

#: a confirmation's sequential test: the change it tells from none, and the most games per player count and side
CONFIRM_DELTA, CONFIRM_MAX_GAMES = 0.03, 10_000


def confirm_limits(f):
    """``--confirm-delta`` and ``--confirm-games`` of a command with ``--confirm`` (sweep, fair, experiment; compare
    takes its --delta and --max-games): what the strong bot's sequential test tells apart and its game limit."""
    f = click.option(
        "--confirm-games",
        type=int,
        default=None,
        metavar="N",
        help=f"With --confirm: at most N games per player count and side for each question (default "
        f"{CONFIRM_MAX_GAMES:,}; the sequential test usually stops far sooner).",
    )(f)
    return click.option(
        "--confirm-delta",
        type=float,
        default=None,
        metavar="D",
        help=f"With --confirm: the change in the seat's win rate the strong bot's test tells from none (default "
        f"{CONFIRM_DELTA}).",
    )(f)


def confirm_settings(bot: str | None, delta: float | None, games: int | None) -> dict:
    """The confirmation's delta and game limit (one-line refusals: given without --confirm, or out of range)."""
    if bot is None:
        if delta is not None or games is not None:
            raise MeeplabError("--confirm-delta and --confirm-games go with --confirm BOT")
        return {}
    if delta is not None and not 0.0 < delta < 1.0:
        raise MeeplabError(f"--confirm-delta must be between 0 and 1 (0.03 = 3 points), got {delta}")
    if games is not None and games < 1:
        raise MeeplabError(f"--confirm-games must be a positive number of games, got {games}")
    return {
        "delta": CONFIRM_DELTA if delta is None else delta,
        "max_games": CONFIRM_MAX_GAMES if games is None else games,
    }


def confirm_plan_line(bot: str | None, settings: dict, questions: str) -> list[str]:
    """The plan's line for a confirmation (what the strong bot may play at most; its speed is not priced: a search
    bot would have to be compiled and timed to do so)."""
    if bot is None:
        return []
    return [
        f"then --confirm {bot}: {questions} replayed by a sequential test (a change of {settings['delta']:g} against "
        f"none), at most {settings['max_games']:,} games per player count for baseline and variant each"
    ]


def known_bot(game: str, bot: str | None, bot_configs) -> None:
    """``--confirm BOT``: refused in one line, before anything is played, when the game has no such bot."""
    if bot is None:
        return
    from meeplab.sim.core.bots import available

    if bot not in available(game, tuple(bot_configs)):
        raise MeeplabError(f"--confirm: unknown bot '{bot}' for {game}")


def capped(plan, games: int):
    """``plan`` playing at most ``games`` games per player count (what a sequential test's estimate prices)."""
    return plan.sized(games, plan.shard)


def run_sprt(base_cfg, variant_cfg, kw, out: Path, metric=None, **settings) -> dict:
    """compare --until-significant: the SPRT loop, its record in OUT/sprt.json and the variant's run.json."""
    from meeplab.lab.studies.sprt import SprtSettings, run_sequential, store

    st = SprtSettings(**settings)
    st.check()
    base_cfg, variant_cfg = base_cfg.on(progress=False), variant_cfg.on(progress=False)
    echo = None if kw["quiet"] else (lambda line: click.echo(line, err=True))
    with executor(kw["workers"], kw["scheduler"], kw["threads"], kw.get("timeout")) as ex:
        record = run_sequential(base_cfg, variant_cfg, st, metric, executor=ex, echo=echo)
    if record.get("status") != "complete":
        sys.exit(130)
    record["metric_arg"] = metric
    store(out, variant_cfg.out, record)
    return record


def confirm_pair(where: Path, base_cfg, variant_cfg, bot, kw, delta=None, alpha=0.05, beta=0.05, batch=200,
                  max_games=None, only_significant=False, players=None) -> list[dict]:  # fmt: skip
    """The confirmation rows of one baseline/variant pair of fast runs (``analysis.confirm``): per player count the
    seat that changed most, replayed with ``bot`` in every seat by the sequential test into ``where/pP``
    (``only_significant``: only where the fast change is significant; ``players``: only these player counts). The
    strong runs are the fast plans restaffed (:meth:`~meeplab.lab.runs.plan.RunPlan.restaffed`): the same rules and
    seeds."""
    from meeplab.analysis import confirm as cf
    from meeplab.analysis.load import load_run

    rows = []
    for fast in cf.seat_to_confirm(load_run(base_cfg.out), load_run(variant_cfg.out)):
        if (only_significant and not fast.significant) or (players is not None and fast.n_players not in players):
            continue
        at = where / f"p{fast.n_players}"
        p = [fast.n_players]
        strong_v = variant_cfg.restaffed([bot], p, at / "variant", f"{variant_cfg.label}, {bot}")
        strong_b = base_cfg.restaffed([bot], p, at / "baseline", f"{base_cfg.label}, {bot}")
        if not kw["quiet"]:
            click.echo(
                f"meeplab: confirming {variant_cfg.label} with {bot} at {fast.n_players} players: seat "
                f"{fast.seat}'s change {fast.change:+.3f} [{fast.lo:+.3f}, {fast.hi:+.3f}]",
                err=True,
            )
        record = run_sprt(
            strong_b, strong_v, kw, at, metric=f"seat:{fast.seat}", delta=delta if delta is not None else CONFIRM_DELTA,
            elo=None, alpha=alpha, beta=beta, alternative="two-sided", batch=min(batch, 200),
            max_games=max_games if max_games is not None else CONFIRM_MAX_GAMES,
        )  # fmt: skip
        rows.append(dict(cf.row(fast, record["tests"][0], bot), **_strong_seats(at / "baseline", fast.n_players, bot)))
    return rows


def _strong_seats(where: Path, p: int, bot: str) -> dict:
    """The strong bot's own seat win rates in its baseline run (seat 1 first), and a caveat where that run, at the
    default rules, misses the game's settled seat finding: then the bot's verdict is not credible either."""
    import polars as pl

    from meeplab.analysis.load import load_run
    from meeplab.analysis.settled import run_disagreements
    from meeplab.analysis.stats import run_stats

    try:
        run = load_run(where)
        st = run_stats(run)
    except MeeplabError:
        return {}
    seats = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
    out = {f"{bot} seats (baseline)": ", ".join(f"{w:.2f}" for w in seats["win_rate"].to_list())}
    if any("bot artefact" in line for line in run_disagreements(run, st)):
        out["caveat"] = f"{bot} misses the settled seat finding at these rules: its verdict is not credible here"
    return out


def confirm_out(out: Path, bot: str, rows: list[dict], title: str, as_json: bool, report=None) -> None:
    """A confirmation's table: kept as OUT/confirm.json, shown on stdout (or as JSON) and, with ``report`` (the run
    directories, the report's path and title, and a fair search's record), set beside the fast results in
    OUT/report.html, written again."""
    from meeplab.cli.common import write_report
    from meeplab.sim.core.files import atomic_write

    record = {"bot": bot, "rows": rows}
    atomic_write(out / "confirm.json", json.dumps(record, indent=2))
    if report is not None:
        dirs, path, report_title, *answer = report
        write_report(dirs, path, report_title, confirm=record, answer=answer[0] if answer else None)
    echo_table(title, rows, as_json, key="confirm")


def plan_extras(args: dict, lines: list[str]) -> dict:
    """:func:`~meeplab.cli.output.echo_plan`'s keyword arguments ``args`` (``--retune``'s, say) with ``lines`` added
    to the plan."""
    if not lines:
        return args
    before = args.get("extra")
    return {**args, "extra": lambda est: [*(before(est) if before else []), *lines]}
