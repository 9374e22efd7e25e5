"""What-if commands: what changes when a rule parameter changes. ``compare`` (a variant against the baseline on
the same seeds, optionally until an SPRT decides), ``sweep`` (one run per value of one or two parameters),
``experiment`` (a whole study in one TOML file) and ``fair`` (the fairest value of a parameter)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from meeplab.cli.common import (
    apply_precision,
    cli,
    flag_values,
    lookup_game,
    play_runs,
    run_options,
    run_plan,
    write_report,
)
from meeplab.cli.confirming import (
    capped,
    confirm_limits,
    confirm_out,
    confirm_pair,
    confirm_plan_line,
    confirm_settings,
    known_bot,
    plan_extras,
    run_sprt,
)
from meeplab.cli.output import compare_rows, echo_plan, echo_table, output_options, runs_rows
from meeplab.cli.retuning import retune_option, retune_plan_args, retuned
from meeplab.lab.studies.experiment import parse_players
from meeplab.sim.core.errors import MeeplabError

#: compare --until-significant: games per player count after which the test stops undecided
SPRT_MAX_GAMES = 100_000


@cli.command("compare")
@click.argument("game")
@run_options
@click.option(
    "--base-set",
    "base_sets",
    multiple=True,
    metavar="NAME=VALUE",
    help="Parameter overrides of the baseline (default: the rule book).",
)
@click.option(
    "--base-params", "base_params_file", type=click.Path(), default=None, help="TOML overrides of the baseline."
)
@click.option(
    "--out", "-o", required=True, type=click.Path(), help="Directory: OUT/baseline, OUT/variant and OUT/report.html."
)
@click.option(
    "--until-significant",
    "sequential",
    is_flag=True,
    help="Play in batches and stop as soon as a sequential probability ratio test (SPRT) on the "
    "paired per-game difference decides, or at --max-games.",
)
@click.option(
    "--delta",
    type=float,
    default=None,
    help="SPRT: smallest difference worth detecting, in win-share points (0.02 = 2 points).",
)
@click.option(
    "--elo",
    type=float,
    default=None,
    help="SPRT: the smallest difference as Elo at the fair share 1/P (instead of --delta).",
)
@click.option(
    "--alpha", type=float, default=0.05, show_default=True, help="SPRT: chance of declaring a change that is not there."
)
@click.option(
    "--beta", type=float, default=0.05, show_default=True, help="SPRT: chance of missing a change of --delta."
)
@click.option(
    "--alternative",
    type=click.Choice(["two-sided", "greater", "less"]),
    default="two-sided",
    show_default=True,
    help="SPRT: which direction of change counts.",
)
@click.option(
    "--batch", type=int, default=1000, show_default=True, help="SPRT: games per player count between two looks."
)
@click.option(
    "--max-games",
    type=int,
    default=None,
    help="SPRT: stop undecided after this many games per player count (default 100,000; --games does not "
    "apply to a sequential test).",
)
@click.option(
    "--metric",
    default=None,
    metavar="bot:NAME|seat:K",
    help="SPRT: what is compared per game (default: the first bot's win share, or the start player's "
    "(seat 1's) win when one bot plays every seat).",
)
@click.option(
    "--confirm",
    "confirm_bot",
    default=None,
    metavar="BOT",
    help="After the compare, replay its question with BOT in every seat (a strong bot: learned, rollout, ismcts): "
    "per player count, the seat that changed most, by a sequential test (--delta, default 0.03; --max-games, default "
    "10,000); says confirmed, contradicted or undecided.",
)
@retune_option
@output_options
def compare_cmd(
    game,
    base_sets,
    base_params_file,
    out,
    confirm_bot,
    retune,
    sequential,
    delta,
    elo,
    alpha,
    beta,
    alternative,
    batch,
    max_games,
    metric,
    as_json,
    dry_run,
    **kw,
):
    """What-if: play the baseline and a variant (--set/--params) on the same seeds and compare.

    Both runs use the same (seed, game index) streams, so the comparison is paired game by game
    (common random numbers): differences are measured with far less noise than two independent runs.
    With --until-significant the games are played in batches until an SPRT (as Fishtest's for engine
    patches) accepts "no change" or "a change of --delta"; the report shows its LLR path and verdict:

    \b
      meeplab compare schweinebande --set pig_bonus_farm=3 --bots heuristic,greedy --players 3 \\
          --until-significant --delta 0.02 --max-games 50000 --out runs/pigs
    """
    flags = flag_values(kw)
    if sequential and kw.get("precision") is not None:
        raise MeeplabError("--precision sizes a run of fixed size; --until-significant sizes itself (--delta)")
    kw = apply_precision(kw, game, "change")
    variant_cfg = run_plan(game, flags=flags, out=Path(out) / "variant", label="variant", **kw)
    if not variant_cfg.overrides:
        raise MeeplabError("compare needs a variant: give --set NAME=VALUE or --params FILE")
    base_kw = dict(kw, sets=base_sets, params_file=base_params_file)
    base_cfg = run_plan(game, flags={}, out=Path(out) / "baseline", label="baseline", **base_kw)
    if confirm_bot is not None:
        if sequential:
            raise MeeplabError("--confirm follows a compare of fixed size, not --until-significant")
        if elo is not None or metric is not None:
            raise MeeplabError("--confirm picks its seat and takes --delta, not --elo or --metric")
        known_bot(lookup_game(game).id, confirm_bot, variant_cfg.bot_configs)
    if not sequential:
        if confirm_bot is None and any(v is not None for v in (delta, elo, max_games, metric)):
            raise MeeplabError("--delta/--elo/--max-games/--metric belong to --until-significant")
        rt = retune_plan_args([base_cfg, variant_cfg], retune, kw["quiet"])
        if echo_plan("baseline and variant on the same seeds", [base_cfg, variant_cfg], dry_run, kw["quiet"], **rt):
            return
        base_cfg, variant_cfg = retuned([base_cfg, variant_cfg], retune, Path(out), kw["quiet"])
        play_runs([base_cfg, variant_cfg], kw)  # both validated before anything is played
        record = None
    else:
        cap = max_games if max_games is not None else SPRT_MAX_GAMES
        plan = [capped(c, cap) for c in (base_cfg, variant_cfg)]
        rt = retune_plan_args([base_cfg, variant_cfg], retune, kw["quiet"])
        if echo_plan(f"sequential test, at most {cap:,} games per player count", plan, dry_run, kw["quiet"], **rt):
            return
        base_cfg, variant_cfg = retuned([base_cfg, variant_cfg], retune, Path(out), kw["quiet"])
        record = run_sprt(
            base_cfg,
            variant_cfg,
            kw,
            Path(out),
            delta=delta,
            elo=elo,
            alpha=alpha,
            beta=beta,
            alternative=alternative,
            batch=batch,
            max_games=max_games if max_games is not None else SPRT_MAX_GAMES,
            metric=metric,
        )
    write_report([base_cfg.out, variant_cfg.out], Path(out) / "report.html", f"{game}: what-if comparison")
    verdicts = [f"{t['n_players']} players: {t['text']}" for t in (record or {}).get("tests", [])]
    echo_table(
        f"{game}: variant vs baseline (variant - baseline; seats numbered from 1 = start player)",
        compare_rows(base_cfg.out, variant_cfg.out),
        as_json,
        {"sequential": verdicts} if verdicts else None,
    )
    if verdicts and not as_json:
        for v in verdicts:
            click.echo(f"sequential test, {v}")
    if confirm_bot is not None:
        _confirm(game, kw, Path(out), base_cfg, variant_cfg, confirm_bot, delta, alpha, beta, batch, max_games, as_json)


def _confirm(game, kw, out: Path, base_cfg, variant_cfg, bot, delta, alpha, beta, batch, max_games, as_json):
    """compare --confirm BOT: per player count, the seat that changed most replayed with BOT in every seat by a
    sequential test (``analysis.confirm``); OUT/confirm/pP holds its runs, OUT/confirm.json the table."""
    rows = confirm_pair(out / "confirm", base_cfg, variant_cfg, bot, kw, delta, alpha, beta, batch, max_games)
    report = ([base_cfg.out, variant_cfg.out], out / "report.html", f"{game}: what-if comparison")
    confirm_out(out, bot, rows, f"{game}: the compare confirmed with {bot} (the seat that changed most, per player "
                 "count)", as_json, report)  # fmt: skip


@cli.command("sweep")
@click.argument("game")
@run_options
@click.option(
    "--param",
    "sweep_params",
    required=True,
    multiple=True,
    help="Parameter to sweep; give --param/--values twice for a two-parameter grid. NAME:K sweeps seat K's own "
    "value of a per-seat parameter (e.g. start_money:4, the last seat's pesos; one player count).",
)
@click.option(
    "--values",
    "sweep_values",
    required=True,
    multiple=True,
    help="Values separated by ';' (tables keep their commas), e.g. '10;15;20' or '1,3,6;1,2,4'; "
    "one --values per --param.",
)
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per value (or pair) in OUT/NAME=VALUE[,NAME=VALUE] and OUT/report.html.",
)
@click.option(
    "--confirm",
    "confirm_bot",
    default=None,
    metavar="BOT",
    help="After the sweep, replay every value whose largest seat change against the first is significant with BOT "
    "in every seat (a strong bot), by a sequential test as compare --confirm; OUT/confirm.json.",
)
@confirm_limits
@retune_option
@output_options
def sweep_cmd(
    game, sweep_params, sweep_values, out, confirm_bot, confirm_delta, confirm_games, retune, as_json, dry_run, **kw
):
    """Run GAME once per value of one parameter, or per pair of values of two (same seeds), and chart it.

    Changes against the first run are marked with Holm's correction across all points (named in the
    report). Two parameters give a grid and a heat map of the largest seat gap:

    \b
      meeplab sweep schweinebande --param pig_bonus_farm --values "0;2;4" --param start_feed --values "0;1;2" \\
          --games 5000 --players 3 --bots heuristic,greedy --out runs/grid
    """
    import itertools

    flags = flag_values(kw)
    g = lookup_game(game)
    kw = apply_precision(kw, game, "change")
    if len(sweep_params) != len(sweep_values):
        raise MeeplabError("give one --values for each --param")
    if len(sweep_params) > 2:
        raise MeeplabError("sweep takes one or two parameters (--param twice at most)")
    if len(set(sweep_params)) != len(sweep_params):
        raise MeeplabError("sweep: the two --param names must differ")
    axes = []
    settings = {}  # NAME:K (one seat's value of a per-seat parameter) -> how to set it
    players = parse_players(kw["players"]) if kw["players"] else [g.default_players]
    for name, text in zip(sweep_params, sweep_values):
        base, _, seat_text = name.partition(":")
        prm = g.params.get(base, g.id)
        if seat_text:
            from meeplab.cli.fair import seat_setting

            settings[name] = seat_setting(g, prm, base, seat_text, players, kw, flags)
        values = [v.strip() for v in text.split(";") if v.strip()]
        if len(values) < 2:
            raise MeeplabError(f"--values for {name} needs at least two values separated by ';'")
        axes.append([(name, v) for v in values])
    known_bot(g.id, confirm_bot, kw["bot_configs"])
    confirm = confirm_settings(confirm_bot, confirm_delta, confirm_games)
    cfgs = []
    for point in itertools.product(*axes):
        sets = tuple(kw["sets"]) + tuple(settings[n].set_text(v) if n in settings else f"{n}={v}" for n, v in point)
        name = ",".join(
            f"{settings[n].dir_name if n in settings else n}="
            + "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in v)
            for n, v in point
        )
        cfg = run_plan(
            game, flags=flags, out=Path(out) / name, label=",".join(f"{n}={v}" for n, v in point), **dict(kw, sets=sets)
        )
        cfgs.append(cfg)
    rt = retune_plan_args(cfgs, retune, kw["quiet"])
    rt = plan_extras(
        rt, confirm_plan_line(confirm_bot, confirm, "every value whose largest seat change is significant")
    )
    if echo_plan(f"sweep of {' x '.join(sweep_params)}", cfgs, dry_run, kw["quiet"], **rt):
        return
    cfgs = retuned(cfgs, retune, Path(out), kw["quiet"])
    play_runs(cfgs, kw)
    from meeplab.sim.core.files import atomic_write

    sweep = {"params": list(sweep_params), "runs": [c.out.name for c in cfgs], "labels": [c.label for c in cfgs]}
    atomic_write(Path(out) / "sweep.json", json.dumps(sweep, indent=2))  # the order: the first value is the baseline
    write_report([c.out for c in cfgs], Path(out) / "report.html", f"{game}: sweep of {' x '.join(sweep_params)}")
    echo_table(
        f"{game}: sweep of {' x '.join(sweep_params)} (seat gap: best - worst seat among equal bots, seat 1 = start "
        "player; changes against the first value)",
        runs_rows([c.out for c in cfgs], [c.label for c in cfgs]),
        as_json,
    )
    if confirm_bot is not None:
        rows = []
        for cfg in cfgs[1:]:
            got = confirm_pair(Path(out) / "confirm" / cfg.out.name, cfgs[0], cfg, confirm_bot, kw,
                                confirm["delta"], max_games=confirm["max_games"], only_significant=True)  # fmt: skip
            rows += [{"value": cfg.label, **r} for r in got]
        title = f"{game}: the sweep's significant changes against {cfgs[0].label} confirmed with {confirm_bot}"
        report = ([c.out for c in cfgs], Path(out) / "report.html", f"{game}: sweep of {' x '.join(sweep_params)}")
        confirm_out(Path(out), confirm_bot, rows, title, as_json, report)


@cli.command("experiment")
@click.argument("file", type=click.Path())
@click.option(
    "--out",
    "-o",
    type=click.Path(),
    default=None,
    help="Directory for the runs and OUT/report.html (default: the file's 'out', else runs/<file name>).",
)
@click.option(
    "--games",
    "-n",
    "n_games",
    type=int,
    default=None,
    help="Play at most this many games per player count instead of the file's (a quick look).",
)
@click.option("--threads", "-t", type=int, default=None, help="Worker threads (default: all cores).")
@click.option(
    "--workers", "-w", type=int, default=None, metavar="N", help="Play on a local Dask cluster of N processes."
)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Play on a running Dask cluster.")
@click.option(
    "--force", is_flag=True, help="Play everything again (default: skip what is complete, finish what was interrupted)."
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
@click.option(
    "--confirm",
    "confirm_bot",
    default=None,
    metavar="BOT",
    help="After the experiment, replay each variant's largest seat change with BOT in every seat (a strong bot) by "
    "a sequential test, as compare --confirm; OUT/confirm.json.",
)
@confirm_limits
@output_options
def experiment_cmd(
    file,
    out,
    n_games,
    threads,
    workers,
    scheduler,
    force,
    quiet,
    confirm_bot,
    confirm_delta,
    confirm_games,
    as_json,
    dry_run,
):
    """Play a whole what-if experiment from one TOML file and write one report against its baseline.

    The file names the game, players, bots, games (or SPRT settings), the baseline parameters and named
    variants (parameters or parameter files); see scripts/experiments/ for one per game. Runs already
    complete are not played again, interrupted ones are finished; rerun after editing the file with
    --force.

      meeplab experiment scripts/experiments/schweinebande.toml --out runs/sb-exp
    """
    from meeplab.lab.studies import experiment as ex

    exp = ex.load(file)
    root = Path(out) if out else (exp.out or Path("runs") / Path(file).stem)
    if n_games is not None and n_games <= 0:
        raise MeeplabError(f"--games must be a positive number, got {n_games}")
    kw = {"workers": workers, "scheduler": scheduler, "threads": threads, "quiet": quiet, "shard": None, "chunk": None}
    title = exp.title or f"{exp.game}: experiment {Path(file).stem}"
    known_bot(exp.game, confirm_bot, exp.bot_configs)
    confirm = confirm_settings(confirm_bot, confirm_delta, confirm_games)
    more = plan_extras({}, confirm_plan_line(confirm_bot, confirm, "each variant's largest seat change"))
    if exp.sprt is None:
        pairs = ex.plan(exp, root, n_games, threads, force, progress=not quiet)
        cfgs = [pairs[0][1]] + [v for _, _, v in pairs]
        if echo_plan(f"experiment {Path(file).name}", cfgs, dry_run, quiet, **more):
            return
        play_runs(cfgs, kw)
        write_report([c.out for c in cfgs], root / "report.html", title)
        rows = runs_rows([c.out for c in cfgs], [c.label for c in cfgs])
        echo_table(f"{title} (seat 1 = start player)", rows, as_json)
        _confirm_variants(root, pairs, confirm_bot, kw, title, as_json, [c.out for c in cfgs], confirm)
        return
    settings, metric = ex.sprt_settings(exp, n_games)
    pairs = ex.plan(exp, root, n_games, threads, True, progress=False)
    plan = [capped(c, settings.max_games) for _, b, v in pairs for c in (b, v)]
    if echo_plan(f"experiment {Path(file).name}, sequential tests", plan, dry_run, quiet, **more):
        return
    verdicts = []
    for name, base, var in pairs:
        if not force and ex.sequential_done(root / name, settings, metric, base, var):
            click.echo(f"meeplab: {root / name} is already complete; nothing to play", err=True)
            continue
        run_sprt(base, var, kw, root / name, metric=metric, **settings.__dict__)
    bases = [b for _, b, _ in pairs]
    from meeplab.lab.runs.rundir import read_meta

    longest = max(bases, key=lambda b: read_meta(b.out)["games"])
    write_report([longest.out] + [v.out for _, _, v in pairs], root / "report.html", title)
    rows = []
    for name, base, var in pairs:
        rec = json.loads((root / name / "sprt.json").read_text(encoding="utf-8"))
        verdicts += [f"{name}, {t['n_players']} players: {t['text']}" for t in rec.get("tests", [])]
        rows += [dict(r, variant=name) for r in compare_rows(base.out, var.out)]
    echo_table(f"{title}: variants vs baseline (seat 1 = start player)", rows, as_json, {"sequential": verdicts})
    if not as_json:
        for v in verdicts:
            click.echo(f"sequential test, {v}")
    _confirm_variants(root, pairs, confirm_bot, kw, title, as_json, [longest.out] + [v.out for _, _, v in pairs],
                      confirm)  # fmt: skip


def _confirm_variants(root: Path, pairs, bot: str | None, kw, title: str, as_json: bool, dirs=(), confirm=None) -> None:
    """experiment --confirm BOT: every variant's largest seat change against its baseline replayed with BOT (and the
    report of ``dirs`` written again with it)."""
    if bot is None:
        return
    rows = []
    for name, base, var in pairs:
        got = confirm_pair(
            root / "confirm" / name, base, var, bot, kw, confirm["delta"], max_games=confirm["max_games"]
        )
        rows += [{"variant": name, **r} for r in got]
    confirm_out(root, bot, rows, f"{title}: each variant confirmed with {bot} (the seat that changed most)", as_json,
                (list(dirs), root / "report.html", title) if dirs else None)  # fmt: skip
