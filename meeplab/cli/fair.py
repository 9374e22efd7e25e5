"""``meeplab fair``: the value of a rule parameter that makes a game fairest (a root search, a gap minimisation, or
with ``--seats all`` one value per seat from a fitted seat model, meeplab/cli/compensate.py), its interval, and the
confirmation by a strong bot. :class:`SeatSetting` (a per-seat parameter's one seat, ``NAME:K``) serves ``sweep``
too."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from meeplab.cli.common import (
    apply_precision,
    cli,
    default_bots,
    executor,
    flag_values,
    lookup_game,
    parse_bots,
    resume_unless_force,
    run_options,
    run_plan,
    write_report,
)
from meeplab.cli.confirming import (
    confirm_limits,
    confirm_out,
    confirm_pair,
    confirm_plan_line,
    confirm_settings,
    known_bot,
    plan_extras,
)
from meeplab.cli.output import echo_plan, echo_table, output_options
from meeplab.cli.retuning import retune_option, retune_plan_args, retuned
from meeplab.lab.studies.experiment import parse_players
from meeplab.sim.core.errors import MeeplabError


@cli.command("fair")
@click.argument("game")
@run_options
@click.option(
    "--param",
    "fair_param",
    required=True,
    metavar="NAME[:SEAT]",
    help="The numeric rule parameter to tune; NAME:K tunes seat K's own value of a per-seat parameter "
    "(e.g. start_money:4, the other seats keep theirs).",
)
@click.option("--range", "fair_range", required=True, metavar="LO:HI", help="Values to search, e.g. 8:16.")
@click.option(
    "--target",
    type=click.Choice(["seats", "bots", "gap"]),
    default="seats",
    show_default=True,
    help="seats: seat --seat wins 1/P; bots: the first two bots in --bots win equally often; gap: the "
    "smallest seat gap (best minus worst seat among equal bots).",
)
@click.option(
    "--seat",
    type=int,
    default=1,
    show_default=True,
    help="With --target seats: the seat whose win rate should be the fair share (1 = start player).",
)
@click.option(
    "--steps",
    type=int,
    default=8,
    show_default=True,
    help="Most values played after the two ends (with --seats all: most answers played after the design runs).",
)
@click.option(
    "--seats",
    "all_seats",
    type=click.Choice(["all"]),
    default=None,
    help="all: one value per seat of a per-seat --param (e.g. start_money) that evens every seat at once, from a "
    "fitted seat model (design runs, then the answer played and refitted until it stays), an interval per seat.",
)
@click.option(
    "--keep",
    "keep_seat",
    default=None,
    metavar="SEAT",
    help="With --seats all: keep this seat's value and compensate the others against it (default: keep the total).",
)
@retune_option
@click.option(
    "--confirm",
    "confirm_bot",
    default=None,
    metavar="BOT",
    help="After the search, replay the change from the default rules to the fair value with BOT in every seat (a "
    "strong bot) by a sequential test on the seat that changed most, as compare --confirm; OUT/confirm.json.",
)
@confirm_limits
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per value tried (OUT/NAME=VALUE), OUT/fair.json and OUT/report.html.",
)
@output_options
def fair_cmd(
    game,
    fair_param,
    fair_range,
    target,
    seat,
    steps,
    all_seats,
    keep_seat,
    retune,
    confirm_bot,
    confirm_delta,
    confirm_games,
    out,
    as_json,
    dry_run,
    **kw,
):
    """Find the value of a rule parameter that makes GAME fairest, with an interval.

    --target seats/bots: a noisy root search (regula falsi, Illinois step) on the signed imbalance: seat
    --seat's win rate minus 1/P, or the first bot's win share minus the second's. --target gap: a
    golden-section search for the smallest seat gap. Every value is played on the same seeds (common
    random numbers). Reports the value, its 95% interval and the win rates and seat gap there:

    \b
      meeplab fair schweinebande --param pig_bonus_farm --range 0:8 --target gap --players 3 \\
          --bots tuned --games 4000 --out runs/fair-pigs

    A compensation for a late seat: --param start_money:4 --range 20:30 --players 4 (seat 4's pesos).
    Compensation for every seat at once (one value per seat, the seats' total kept unless --keep SEAT):

    \b
      meeplab fair hacienda --param start_money --seats all --range 10:30 --players 3 --games 4000 --out runs/money
    """
    from meeplab.lab.studies import fair as fr

    flags = flag_values(kw)
    g = lookup_game(game)
    name, _, seat_text = fair_param.partition(":")
    prm = g.params.get(name, g.id)
    if prm.kind not in ("int", "float"):
        raise MeeplabError(f"fair: {name} is {prm.describe_type()}; only a number can be searched")
    lo, hi = fr.parse_range(fair_range, prm.kind, prm.lo, prm.hi)
    if steps < 0:
        raise MeeplabError(f"--steps must be >= 0, got {steps}")
    players = parse_players(kw["players"]) if kw["players"] else [g.default_players]
    if keep_seat is not None and all_seats is None:
        raise MeeplabError("--keep goes with --seats all")
    if confirm_bot is not None and target == "bots":
        raise MeeplabError("--confirm replays the seats' change with one strong bot; --target bots compares two bots")
    known_bot(g.id, confirm_bot, kw["bot_configs"])
    confirm = confirm_settings(confirm_bot, confirm_delta, confirm_games)
    if all_seats is not None:
        from meeplab.cli.compensate import fair_all_seats

        if seat_text:
            raise MeeplabError(f"--seats all sets every seat's value; give --param {name}, not {fair_param}")
        kw = resume_unless_force(apply_precision(kw, game))
        fair_all_seats(game, g, prm, name, lo, hi, players, steps, keep_seat, confirm_bot, out, as_json, dry_run, kw,
                       flags, retune, confirm)  # fmt: skip
        return
    bots = parse_bots(default_bots(g.id, kw["bots"]))
    pair = None
    if target == "bots":
        distinct = list(dict.fromkeys(bots))
        if len(distinct) < 2:
            raise MeeplabError("--target bots needs two different bots in --bots, e.g. heuristic,greedy")
        pair = (distinct[0], distinct[1])
    elif target == "seats" and not 1 <= seat <= min(players):
        raise MeeplabError(
            f"--seat {seat}: seats are numbered 1 (start player) to {min(players)} at {min(players)} players"
        )
    setting = seat_setting(g, prm, name, seat_text, players, kw, flags)
    kw = resume_unless_force(apply_precision(kw, game))
    cache: dict = {}  # value -> (run directory, its rows)

    plans: dict = {}  # value -> its run's plan, checked once

    def config(x: float):
        key = fr.fmt(x, prm.kind)
        if key not in plans:
            plans[key] = run_plan(
                game,
                flags=flags,
                out=Path(out) / f"{setting.dir_name}={key}",
                label=f"{fair_param}={key}",
                **dict(kw, sets=tuple(kw["sets"]) + (setting.set_text(key),)),
            )
        return key, plans[key]

    for x in (lo, hi):  # both ends checked before anything is played
        config(x)
    what_plan = f"fair search over {fair_param} in {fair_range}, at most {steps + 2} values"
    rt = retune_plan_args([config(lo)[1]] * (steps + 2), retune, kw["quiet"])
    rt = plan_extras(rt, confirm_plan_line(confirm_bot, confirm, "the change from the default to the fair value"))
    if echo_plan(what_plan, [config(lo)[1]] * (steps + 2), dry_run, kw["quiet"], **rt):
        return
    refit = (lambda cfg: retuned([cfg], retune, Path(out), kw["quiet"])[0]) if retune is not None else None
    searches = []
    with executor(kw["workers"], kw["scheduler"], kw["threads"], kw.get("timeout")) as ex:
        play = _fair_player(config, cache, ex, refit)
        for p in players:

            def evaluate(x: float, p=p):
                where, df = play(x)
                if target == "gap":
                    gp = _gap_at(where, p)
                    se = (gp.hi - gp.lo) / 3.92 if gp.hi == gp.hi and gp.lo == gp.lo else float("nan")
                    return fr.Point(float(x), gp.gap, se, str(where))
                m, se = fr.imbalance(df, p, target, seat - 1, pair)
                return fr.Point(float(x), m, se, str(where))

            find = fr.minimise if target == "gap" else fr.search
            s = find(evaluate, lo, hi, prm.kind, steps, p)
            play(s.value)  # the win rates at the answer
            searches.append(s)
    what = {
        "seats": f"seat {seat}'s win rate - 1/P",
        "bots": f"{pair[0]} - {pair[1]} win share" if pair else "",
        "gap": "seat gap (best - worst seat among equal bots)",
    }[target]
    record = {"game": g.id, "param": fair_param, "range": [lo, hi], "target": target, "imbalance": what, "results": []}
    if target == "seats":
        record["seat"] = seat
    for s in searches:
        where = cache[fr.fmt(s.value, prm.kind)][0]
        record["results"].append(_fair_result(s, where, prm.kind, fair_param, what, (lo, hi), not kw["quiet"]))
    fr.save(Path(out), record)
    dirs = sorted({v[0] for v in cache.values()}, key=lambda d: float(str(d.name).split("=", 1)[1]))
    if len(dirs) > 1:
        write_report(dirs, Path(out) / "report.html", f"{game}: fairest {fair_param}", answer=record)
    rows = [
        {
            "players": r["n_players"],
            fair_param: "no answer" if r["whole_range"] else r["value"],
            "95% interval": "the whole range" if r["whole_range"] else f"[{r['lo']:.3g}, {r['hi']:.3g}]",
            "seat gap": r["seat_gap"]["gap"],
            "seat gap 95% CI": f"[{r['seat_gap']['lo']:.3f}, {r['seat_gap']['hi']:.3f}]",
            "values played": len(r["points"]),
        }
        for r in record["results"]
    ]
    echo_table(f"{game}: fairest {fair_param} ({what})", rows, as_json, {"record": record} if as_json else None)
    if confirm_bot is not None:
        default = fr.fmt(float(setting.default(g, kw, flags)), prm.kind)
        with executor(kw["workers"], kw["scheduler"], kw["threads"], kw.get("timeout")) as ex:
            _fair_player(config, cache, ex, refit)(
                float(default)
            )  # the default rules, fast, if the search did not play them
        rows = []
        for s in searches:
            answer = fr.fmt(s.value, prm.kind)
            if answer == default:
                continue  # the fair value is the default: no change to confirm
            got = confirm_pair(Path(out) / "confirm" / f"{setting.dir_name}={answer}", plans[default], plans[answer],
                               confirm_bot, kw, confirm["delta"], max_games=confirm["max_games"],
                               players={s.n_players})  # fmt: skip
            rows += [{"from": f"{fair_param}={default}", "to": f"{fair_param}={answer}", **r} for r in got]
        title = f"{game}: the change from the default {fair_param} to the fairest, confirmed with {confirm_bot}"
        dirs = sorted({v[0] for v in cache.values()}, key=lambda d: float(str(d.name).split("=", 1)[1]))
        report = (dirs, Path(out) / "report.html", f"{game}: fairest {fair_param}", record) if len(dirs) > 1 else None
        confirm_out(Path(out), confirm_bot, rows, title, as_json, report)


class SeatSetting:
    """How fair sets its parameter: NAME=VALUE, or for NAME:K one seat's entry of a per-seat value."""

    def __init__(self, name: str, seat: int | None = None, values: list | None = None):
        self.name, self.seat, self.values = name, seat, values
        self.dir_name = name if seat is None else f"{name}.seat{seat}"

    def default(self, g, kw, flags):
        """The value the run's rules give this parameter (this seat's, for NAME:K): what --confirm compares with."""
        if self.seat is not None:
            return self.values[self.seat - 1]
        from meeplab.cli.common import param_overrides

        return g.params.resolve(param_overrides(g, kw["sets"], kw["params_file"], flags), g.id)[self.name]

    def set_text(self, key: str) -> str:
        if self.seat is None:
            return f"{self.name}={key}"
        vals = [str(v) for v in self.values]
        vals[self.seat - 1] = key
        return f"{self.name}=" + ",".join(vals)


def seat_setting(g, prm, name, seat_text, players, kw, flags) -> SeatSetting:
    if not seat_text:
        return SeatSetting(name)
    from meeplab.cli.common import param_overrides
    from meeplab.sim.core.params import seat_values

    if not prm.per_seat:
        raise MeeplabError(f"fair: {name} is one value for every seat; NAME:SEAT needs a per-seat parameter")
    try:
        k = int(seat_text)
    except ValueError:
        raise MeeplabError(f"fair: --param {name}:{seat_text} needs a seat number") from None
    if len(players) != 1:
        raise MeeplabError(f"fair: --param {name}:{k} sets one seat's value, so give one player count (--players)")
    if not 1 <= k <= players[0]:
        raise MeeplabError(f"fair: seat {k}: seats are numbered 1 (start player) to {players[0]}")
    base = g.params.resolve(param_overrides(g, kw["sets"], kw["params_file"], flags), g.id)[name]
    return SeatSetting(name, k, seat_values(base, players[0]))


def _fair_player(config, cache, ex, refit=None):
    """play(x): the run at value x (played once, then from the cache) and its rows; ``refit`` turns a plan into the
    one played (``--retune``: its bots tuned again at its rules)."""
    import polars as pl

    from meeplab.lab.runs.runner import run as run_batch

    def play(x: float):
        key, cfg = config(x)
        if key not in cache:
            cfg = refit(cfg) if refit is not None else cfg
            if run_batch(cfg.on(ex)).status != "complete":
                sys.exit(130)
            cols = ["n_players", "game_index", "seat", "bot", "win"]
            cache[key] = (cfg.out, pl.read_parquet(cfg.out / "results.parquet", columns=cols, glob=False))
        return cache[key]

    return play


def _gap_at(where, p: int):
    from meeplab.analysis.load import load_run
    from meeplab.analysis.seatgap import seat_gaps

    return seat_gaps([load_run(where)], p)[0]


def _fair_result(s, where, kind: str, fair_param: str, what: str, searched, echo: bool = True) -> dict:
    """One player count's answer as fair.json records it (seats numbered from 1), its details on stderr (the
    command's result table on stdout is the answer). ``whole_range``: the 95 % interval covers all of ``searched``
    (lowest, highest value), so the search gave no answer."""
    import polars as pl

    from meeplab.analysis.load import load_run
    from meeplab.analysis.stats import run_stats
    from meeplab.lab.studies import fair as fr

    st = run_stats(load_run(where))
    bb = st.by_bot.filter(pl.col("n_players") == s.n_players)
    bs = st.by_seat.filter(pl.col("n_players") == s.n_players)
    gp = _gap_at(where, s.n_players)
    rec = {
        "n_players": s.n_players,
        "value": s.value,
        "lo": s.lo,
        "hi": s.hi,
        "crossing": s.crossing,
        "whole_range": bool(s.crossing and s.lo <= searched[0] and s.hi >= searched[1]),
        "note": s.note,
        "run": str(where),
        "points": [{"x": q.x, "imbalance": q.f, "se": q.se} for q in s.points],
        "bots": bb.select("bot", "win_rate", "lo", "hi").to_dicts(),
        "seats": bs.select(pl.col("seat") + 1, "win_rate", "lo", "hi").to_dicts(),  # seat 1 = start player
        "seat_gap": {"gap": gp.gap, "lo": gp.lo, "hi": gp.hi, "best": gp.best, "worst": gp.worst},
    }
    val = fr.fmt(s.value, kind)
    if not echo:
        return rec
    if rec["whole_range"]:
        click.echo(
            f"{s.n_players} players: no value of {fair_param} in {searched[0]:g} .. {searched[1]:g} is measurably "
            f"fairer than another (the 95% interval covers the whole range; {what}); play more games per value",
            err=True,
        )
    elif s.crossing:
        click.echo(
            f"{s.n_players} players: fairest {fair_param} = {val} (95% interval {s.lo:.3g} .. {s.hi:.3g}; "
            f"{what}, {len(s.points)} values played)",
            err=True,
        )
        if s.note:
            click.echo(f"  note: {s.note}", err=True)
    else:
        click.echo(f"{s.n_players} players, {fair_param}: {s.note}", err=True)
    click.echo(
        "  at "
        + val
        + ": "
        + ", ".join(f"{r['bot']} {r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]" for r in rec["bots"])
        + "; seats "
        + ", ".join(f"{r['seat']}: {r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]" for r in rec["seats"])
        + f" (fair {1 / s.n_players:.3f}); seat gap {gp.gap:.3f} [{gp.lo:.3f}, {gp.hi:.3f}]",
        err=True,
    )
    return rec
