"""Skill-aware commands: ``tune`` (machine-tuned bot weights), ``ladder`` (does a finding hold for stronger
players?) and ``options`` (what is each option worth to a bot: restricted play)."""

from __future__ import annotations

import itertools
from pathlib import Path

import click

from meeplab.cli.common import (
    cli,
    command_line,
    flag_values,
    lookup_game,
    param_overrides,
    parse_bots,
    play_runs,
    run_plan,
    with_game_flags,
    write_report,
)
from meeplab.cli.output import echo_plan, echo_table, output_options
from meeplab.lab.progress import progress_bar
from meeplab.lab.studies.experiment import parse_players
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write


@cli.command("tune")
@click.argument("game")
@click.option(
    "--bot",
    default="heuristic",
    show_default=True,
    help="Bot whose weights are tuned; a search bot (rollout, ismcts): its search options, not its budget.",
)
@click.option(
    "--players",
    "-p",
    default=None,
    help="Player count(s) the objective averages over: 3, or 2,4, or 2-5 (default: the game's usual).",
)
@click.option(
    "--vs",
    "vs",
    default=None,
    help="The field, comma-separated, cycled over the other seats from each member in turn, each table on "
    "its share of the games (default: the untuned bot and greedy; at 2 players half the games each).",
)
@click.option(
    "--budget",
    type=int,
    default=200_000,
    show_default=True,
    help="Games to spend in all (generations and the final check).",
)
@click.option(
    "--games-per-eval",
    type=int,
    default=200,
    show_default=True,
    help="Games per weight vector, generation and player count (all on the same seeds).",
)
@click.option("--popsize", type=int, default=None, help="CMA-ES population (default: 4 + 3 ln(weights)).")
@click.option(
    "--sigma",
    type=float,
    default=0.3,
    show_default=True,
    help="CMA-ES initial step, in units of each weight's own size.",
)
@click.option(
    "--margin",
    type=float,
    default=0.001,
    show_default=True,
    help="Weight of the mean score lead (points) added to the win share in the objective (a tie-breaker).",
)
@click.option(
    "--final-games",
    type=int,
    default=None,
    help="Fresh games per player count for the final check (default: budget / 5).",
)
@click.option(
    "--weights",
    "only",
    default=None,
    help="Comma-separated glob patterns or exact names of the weights to tune, e.g. 'place.*,sack.*' or a "
    "policy's 'action[0].1' (default: all).",
)
@click.option(
    "--name",
    default=None,
    help="Name of the variant written (default: tuned; a search bot's: BOT-tuned, e.g. ismcts-tuned).",
)
@click.option(
    "--per-count",
    is_flag=True,
    help="The tuned weights are the variant's at the --players counts only ([bots.NAME.players.P]); at any other "
    "count it plays BOT's own (a bot tuned for 2 players keeps its 3-5).",
)
@click.option("--seed", "-s", type=int, default=1, show_default=True)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameter override (repeatable).")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of parameter overrides.")
@click.option(
    "--bot-config",
    "bot_configs",
    multiple=True,
    type=click.Path(),
    help="TOML file defining bot variants (repeatable).",
)
@click.option("--out", "-o", required=True, type=click.Path(), help="TOML file to write (refused if it exists).")
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@with_game_flags
def tune_cmd(
    game,
    bot,
    players,
    vs,
    budget,
    games_per_eval,
    popsize,
    sigma,
    margin,
    final_games,
    only,
    name,
    per_count,
    seed,
    sets,
    params_file,
    bot_configs,
    out,
    force,
    quiet,
    **kw,
):
    """Tune a bot's weights by CMA-ES on GAME itself and write them as a TOML variant.

    Each generation plays every candidate weight vector, and the best so far (the incumbent), on the same
    games against the field; the incumbent is replaced only by a candidate that beats it there. At the end
    the incumbent and the untuned bot play the same fresh games, and OUT's comment gives the win share
    with its 95 % interval. Ctrl-C writes the best weights so far. Use the result with --bot-config OUT,
    or put it in strategies/GAME/ to ship it. A search bot is tuned on its search options (ismcts: c, bias,
    epsilon, widen, switch, margin), each kept in its valid range; its budget and playout policy stay.

    \b
      meeplab tune schweinebande --bot heuristic --players 2,3 --budget 400000 --out tuned.toml
      meeplab run schweinebande --bot-config tuned.toml --bots tuned,heuristic --players 3 --out runs/t
      meeplab tune goldrush --bot ismcts --weights c,epsilon,bias --vs rollout --players 2 --budget 3000 \\
          --games-per-eval 40 --out ismcts-tuned.toml
      meeplab tune hacienda --bot learned --vs tuned,learned --players 2 --per-count --out learned-2p.toml

    A bot with weights of its own at a player count ([bots.NAME.players.P] in its TOML) is tuned at one count
    at a time, from its weights there.
    """
    import numba

    from meeplab.lab.studies.tune import tune, variant_toml, write_variant
    from meeplab.sim.core.bots import available
    from meeplab.sim.core.registry import check_players

    g = lookup_game(game)
    counts = parse_players(players) if players else [g.default_players]
    for p in counts:
        check_players(g, p)
    field = parse_bots(vs) if vs else [bot, "greedy"]
    known = available(g.id, bot_configs)
    for b in [bot, *field]:
        if b not in known:
            raise MeeplabError(f"unknown bot '{b}' for {g.id}; available: {', '.join(sorted(known))}")
    if budget <= 0 or games_per_eval <= 0:
        raise MeeplabError("--budget and --games-per-eval must be positive")
    spec = known[bot]
    name = name or (f"{bot}-tuned" if spec.search else "tuned")
    if spec.search and name == spec.policy:  # the variant would replace the policy its own playouts use
        raise MeeplabError(
            f"--name {name} would replace {bot}'s playout policy '{spec.policy}' wherever the variant is loaded; "
            f"choose another --name (default: {bot}-tuned)"
        )
    if not name.replace("-", "").replace("_", "").isalnum():
        raise MeeplabError(f"--name must be letters, digits, '-' or '_', got {name!r}")
    out_path = Path(out)
    if out_path.exists() and not force:
        raise MeeplabError(f"{out_path} exists; give --force to replace it or another --out")
    flags = flag_values(kw)
    values = g.params.resolve(param_overrides(g, sets, params_file, flags), g.id)
    ctx = g.prepare(values)
    with progress_bar(budget, f"tuning {bot}", quiet) as tick:
        res = tune(
            g,
            ctx,
            bot,
            field,
            counts,
            budget,
            seed=seed,
            bot_configs=bot_configs,
            games_per_eval=games_per_eval,
            popsize=popsize,
            sigma=sigma,
            margin=margin,
            final_games=final_games,
            progress=tick,
            only=parse_bots(only) if only else None,
        )
    text = variant_toml(
        res, name, bot, command_line(), field, counts, budget, g.params.changed(values), per_count=per_count
    )
    write_variant(out_path, text, force=True)
    if res.final:
        f = res.final
        for p, d in f["by_players"].items():
            lo, hi = d["interval"]
            click.echo(
                f"{name}, {p} players: win share {d['share']:.3f} [{lo:.3f}, {hi:.3f}] on {d['games']:,} fresh "
                f"games (untuned {d['base_share']:.3f}, fair {d['fair']:.3f})",
                err=True,
            )
        click.echo(f"{res.games_played:,} games on {numba.get_num_threads()} threads -> {out_path}", err=True)
    else:
        click.echo(f"interrupted after {res.generations} generation(s): best weights so far -> {out_path}", err=True)
        raise SystemExit(130)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)


@cli.command("ladder")
@click.argument("game")
@click.option(
    "--bots",
    "-b",
    "rungs",
    default="random,greedy,heuristic,rollout,ismcts",
    show_default=True,
    help="The rungs, weakest first, comma-separated (at least two).",
)
@click.option(
    "--budgets",
    default=None,
    metavar="F1,F2,...",
    help="Budget rungs: play the top rung (the last of --bots, a search bot) at these multiples of its search "
    "budget, e.g. 1,4,16 (rungs ismcts, ismcts-x4, ismcts-x16); findings settle when the two strongest agree.",
)
@click.option("--players", "-p", default=None, help="Player count(s): 3, or 2,3,4, or 2-5 (default: the game's usual).")
@click.option(
    "--games",
    "-n",
    "n_games",
    type=int,
    default=2000,
    show_default=True,
    help="Games per run and player count (every rung's self-play and every neighbouring pair).",
)
@click.option("--seed", "-s", type=int, default=1, show_default=True)
@click.option("--threads", "-t", type=int, default=None, help="Worker threads (default: all cores).")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameter override (repeatable).")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of parameter overrides.")
@click.option(
    "--bot-config",
    "bot_configs",
    multiple=True,
    type=click.Path(),
    help="TOML file defining bot variants (repeatable), e.g. a file written by 'meeplab tune'.",
)
@click.option("--workers", "-w", type=int, default=None, metavar="N", help="Play on a local Dask cluster of N workers.")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Play on a running Dask cluster.")
@click.option(
    "--skill-games",
    type=int,
    default=None,
    help="Relative skill (Dreef et al.) of each search rung, with greedy and random as beginners: games per player "
    "and player count (default: 100, or --games if fewer; 0 = skip it).",
)
@click.option(
    "--skill-field",
    default=None,
    metavar="BOT",
    help="Relative skill: the opponents of every rung and beginner (default: the strongest search rung's playout "
    "policy).",
)
@click.option("--resume", is_flag=True, help="Finish the ladder already in OUT (only what it lacks).")
@click.option("--force", is_flag=True, help="Replace the ladder already in OUT.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars or summaries.")
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="Directory: one run per rung and per neighbouring pair, ladder.json, skill.json and report.html.",
)
@output_options
@with_game_flags
def ladder_cmd(
    game,
    rungs,
    budgets,
    players,
    n_games,
    seed,
    threads,
    sets,
    params_file,
    bot_configs,
    workers,
    scheduler,
    skill_games,
    skill_field,
    resume,
    force,
    quiet,
    out,
    as_json,
    dry_run,
    **kw,
):
    """Play GAME at several skill levels and say which findings hold for stronger players.

    Each rung (a bot, weakest first) plays a self-play run, every seat the same bot: the seat effect at that
    skill. Each pair of neighbouring rungs plays a cross-play run (seats alternating, rotated): how often the
    stronger one wins. The report's section "Does it hold for stronger players?" shows, per player count and
    rung, seat win rates, the leading score category, shared wins and game length, and flags every finding
    that changes sign, or whose intervals at the lowest and highest rung do not overlap. A finding has settled when
    the two strongest rungs agree on it within their intervals and the strongest beats the other measurably (if it
    does not: "agrees, rungs level"), else it is still moving (with its direction); the table on stdout ends with
    the seats' verdict per player count. --budgets makes the strongest rungs the top bot at growing search
    budgets.

    Each search rung also measures the game's relative skill RS = LE / (LE + RE) (Dreef et al., as 'meeplab
    quality'): the rung, its clairvoyant twin and each beginner (greedy, random) in one seat against
    --skill-field on the same --skill-games games; a plain rung has no clairvoyant twin and no RS. Its verdict
    over the two strongest search rungs uses the seats' words: settled if their RS intervals overlap, else
    still moving.

    \b
      meeplab ladder schweinebande --players 2-5 --bots random,greedy,heuristic,rollout --games 2000 --out runs/ladder
      meeplab ladder schweinebande --players 3 --bots heuristic,ismcts --budgets 1,4,16 --games 1000 --out runs/settle
      meeplab report runs/ladder --out ladder.html
    """
    import json

    names = parse_bots(rungs)
    root = Path(out)
    if budgets:  # the top rung at several budgets: variants in OUT/budgets.toml (a dry run: a temporary file)
        import tempfile

        from meeplab.analysis.ladder import budget_variants, parse_budgets
        from meeplab.sim.core.bots import available

        known = available(game, bot_configs)
        if names and names[-1] not in known:
            raise MeeplabError(f"unknown bot '{names[-1]}' for {game}; available: {', '.join(sorted(known))}")
        extra, toml = budget_variants(known[names[-1]], parse_budgets(budgets))
        names = names[:-1] + extra
        where = Path(tempfile.mkdtemp()) if dry_run else root
        atomic_write(where / "budgets.toml", toml)
        bot_configs = (*bot_configs, str(where / "budgets.toml"))
    if len(names) < 2:
        raise MeeplabError("--bots needs at least two rungs, weakest first, e.g. random,greedy,heuristic")
    if len(set(names)) != len(names):
        raise MeeplabError(f"--bots lists a rung twice: {rungs}")
    if (root / "ladder.json").exists() and not (resume or force):
        raise MeeplabError(f"{root} already holds a ladder; give --resume to finish it or --force to replace it")
    kw2 = {
        "n_games": n_games,
        "players": players,
        "seed": seed,
        "threads": threads,
        "sets": sets,
        "params_file": params_file,
        "bot_configs": bot_configs,
        "fixed_seats": False,
        "shard": None,
        "chunk": None,
        "workers": workers,
        "scheduler": scheduler,
        "resume": resume,
        "force": force,
        "quiet": quiet,
    }
    flags = flag_values(kw)
    meta = {"game": game, "rungs": names, "self": {}, "cross": [], "command": command_line()}
    cfgs = []
    for r in names:
        d = f"self-{_slug(r)}"
        meta["self"][r] = d
        cfgs.append(run_plan(game, flags=flags, out=root / d, label=f"{r} (self-play)", **dict(kw2, bots=r)))
    for a, b in itertools.pairwise(names):
        d = f"cross-{_slug(a)}-{_slug(b)}"
        meta["cross"].append([a, b, d])
        cfgs.append(run_plan(game, flags=flags, out=root / d, label=f"{b} vs {a}", **dict(kw2, bots=f"{a},{b}")))
    skill = _skill_plan(cfgs, names, bot_configs, n_games, skill_games, skill_field, seed, root, resume and not force)
    what = f"ladder of {len(names)} rungs (self-play and neighbouring pairs)"
    if echo_plan(what, cfgs, dry_run, quiet, extra=lambda est: _skill_lines(skill, cfgs, est)):
        return
    atomic_write(root / "ladder.json", json.dumps(meta, indent=2))
    play_runs(cfgs, kw2)
    _play_skill(skill, cfgs, root, bot_configs, threads, quiet)
    write_report([root], root / "report.html", None)
    _echo_ladder(root, as_json)


#: games per player and player count of a ladder's relative skill unless --skill-games says otherwise
SKILL_GAMES = 100


def _skill_plan(cfgs, names, bot_configs, n_games, skill_games, skill_field, seed, root, resume) -> dict:
    """The ladder's relative-skill plan: games per player, who plays (``analysis.ladder.skill_setup``), the
    settings its games depend on and what is left to play (with ``resume``: what ``skill.parquet`` lacks)."""
    import json

    from meeplab.analysis.ladder import skill_setup, skill_todo
    from meeplab.sim.core.bots import available

    games = min(SKILL_GAMES, n_games) if skill_games is None else skill_games
    if games < 0 or games == 1:
        raise MeeplabError(f"--skill-games must be 0 (skip it) or at least 2, got {games}")
    c = cfgs[0]
    known = available(c.game.id, bot_configs)
    if skill_field is not None and skill_field not in known:
        raise MeeplabError(f"--skill-field: unknown bot '{skill_field}' for {c.game.id}; available: "
                           f"{', '.join(sorted(known))}")  # fmt: skip
    plan: dict = {"games": games, "players": list(c.players), "todo": [], "setup": None, "resume": resume}
    if not games:
        return plan
    setup = skill_setup(names, known, skill_field)
    params = {k: v for k, v in dict(c.values).items() if isinstance(v, (bool, int, float, str, list, tuple))}
    settings = {"field": setup["field"], "seed": seed, "params": json.loads(json.dumps(params, sort_keys=True)),
                **setup}  # fmt: skip
    todo = skill_todo(root, plan["players"], setup, games, settings, resume) if setup["search"] else []
    return {
        **plan,
        "setup": setup,
        "settings": settings,
        "todo": todo,
        "field_search": bool(setup["field"] and known[setup["field"]].search),
    }


def _skill_lines(skill: dict, cfgs, est) -> list[str]:
    """The plan's line for the relative skill: who plays how many games, and about how long (a game with one
    searching seat costs 1/P of its rung's self-play game, measured in the runs' calibration)."""
    from meeplab.lab.runs.estimate import duration
    from meeplab.lab.runs.runner import play_threads
    from meeplab.sim.core.play import parallel_width

    setup = skill.get("setup")
    if not skill["games"]:
        return ["relative skill: skipped (--skill-games 0)"]
    if not setup["search"]:
        return [f"relative skill: none (no search rung: {', '.join(setup['plain'])} have no clairvoyant twin)"]
    if not skill["todo"]:
        return ["relative skill: nothing left to play (skill.parquet holds every game)"]
    seconds, total = 0.0, 0
    threads = play_threads(cfgs[0])
    for p, bot, _clair, first in skill["todo"]:
        n = skill["games"] - first
        total += n
        per_game = 0.0
        for who, share in ((bot, 1 / p), (setup["field"], (p - 1) / p)):
            sp = est.lineups.get(who, {}).get(p)
            if sp is not None and sp.games_per_s > 0:
                per_game += share / sp.games_per_s
        seconds += n * per_game / parallel_width(n, threads)
    field_priced = setup["field"] in est.lineups or not skill["field_search"]  # a plain bot's seats cost ~nothing
    plain = f"; no RS for {', '.join(setup['plain'])} (no search bot: no clairvoyant twin)" if setup["plain"] else ""
    return [
        f"relative skill: {total:,} games (up to {skill['games']} per player and player count: "
        f"{', '.join(setup['beginners'])} as beginners, {', '.join(setup['search'])} and their clairvoyant twins, "
        f"each in one seat against {setup['field']}){plain}",
        f"estimate: about {duration(seconds)} more for them (a searching seat at 1/P of its rung's self-play game"
        + ("" if field_priced else f"; the search field {setup['field']}'s seats not priced: not a rung")
        + ")",
    ]


def _play_skill(skill: dict, cfgs, root: Path, bot_configs, threads, quiet) -> None:
    """Play what the relative-skill plan lacks into ``root`` and write ``skill.json`` (nothing without a search
    rung; with --skill-games 0 a fresh or replaced ladder drops a stale relative skill)."""
    from meeplab.analysis.ladder import SKILL_FILE, SKILL_WINS, measure_skill, write_skill

    setup = skill.get("setup")
    if not setup or not setup["search"]:
        if not skill.get("resume"):
            for name in (SKILL_FILE, SKILL_WINS):
                (root / name).unlink(missing_ok=True)
        return
    if threads:
        import numba

        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    say = None if quiet else (lambda msg: click.echo(f"meeplab: {msg}", err=True))
    c = cfgs[0]
    measure_skill(root, c.game, c.ctx, skill["todo"], setup, skill["games"], skill["settings"], bot_configs,
                  resume=skill["resume"], progress=say)  # fmt: skip
    write_skill(root, skill["players"], skill["games"])


def _echo_ladder(root: Path, as_json: bool) -> None:
    """The ladder's rungs on stdout: per player count and rung, the seat win rates (seat 1 = start player) and the
    seat gap among equal bots with its interval, each search rung's relative skill per beginner, then the verdicts
    of the seats and of the relative skill."""
    from meeplab.analysis.ladder import (
        gap_rows,
        load_ladder,
        rung_rows,
        seat_verdicts,
        settled,
        skill_verdict_label,
        skill_verdict_text,
    )
    from meeplab.analysis.seatgap import seat_gaps

    lad = load_ladder(root)
    rows = []
    for r in lad.rungs:
        run = lad.selfplay[r]
        for p in run.players:
            g = seat_gaps([run], p)[0]
            rows.append(
                {
                    "players": p,
                    "rung": r,
                    "seat gap": g.gap,
                    "95% CI": f"[{g.lo:.3f}, {g.hi:.3f}]",
                    "best/worst seat": f"{g.best}/{g.worst}" if g.best > 0 else "–",
                }
            )
    gaps = gap_rows(lad)  # the cross-play runs' stronger-rung win rates, read once for the table and the verdicts
    for g in gaps:
        rows.append(
            {
                "players": g["n_players"],
                "rung": f"{g['stronger']} vs {g['weaker']}",
                "win share": g["rate"],
                "95% CI": f"[{g['lo']:.3f}, {g['hi']:.3f}]",
            }
        )
    skill = lad.skill or {"rows": [], "verdicts": []}
    for r in skill["rows"]:
        if r["games"] >= 2:  # a search rung (a plain one has no clairvoyant twin: docs/quality.md)
            lo, hi = r["lo"], r["hi"]
            rows.append(
                {
                    "players": r["n_players"],
                    "rung": f"{r['rung']}: relative skill vs {r['beginner']}",
                    "relative skill": r["relative_skill"],
                    "95% CI": f"[{lo:.3f}, {hi:.3f}]" if lo is not None and hi is not None else "–",
                    "games": r["games"],
                    **({"note": "at the ceiling: wins 95 % or more against the field"} if r.get("ceiling") else {}),
                }
            )
    judged = settled(rung_rows(lad), lad.rungs, gaps)
    for p, v in sorted(seat_verdicts(judged).items()):
        moved = f" ({', '.join(v['moved'])})" if v["moved"] else ""
        rows.append({"players": p, "rung": f"seats: {v['weaker']} -> {v['stronger']}", "verdict": v["status"] + moved})
    for v in skill["verdicts"]:
        rows.append({"players": v["n_players"], "rung": skill_verdict_label(v), "verdict": skill_verdict_text(v)})
    echo_table(f"{lad.meta.get('game', '')} ladder, weakest rung first (seat 1 = start player)", rows, as_json)


@cli.command("options")
@click.argument("game")
@click.option(
    "--bot", default="heuristic", show_default=True, help="The bot: restricted in one seat, free in the others."
)
@click.option("--players", "-p", type=int, default=None, help="Player count (default: the game's usual).")
@click.option(
    "--games",
    "-n",
    "n_games",
    type=int,
    default=2000,
    show_default=True,
    help="Games per option class and mode (and for the unrestricted baseline), all on the same seeds.",
)
@click.option(
    "--classes", default=None, help="Comma-separated option classes to test (default: every class the game declares)."
)
@click.option(
    "--converse/--no-converse",
    default=True,
    show_default=True,
    help="Also play 'only this class where there is a choice' for each class.",
)
@click.option("--seed", "-s", type=int, default=1, show_default=True)
@click.option("--threads", "-t", type=int, default=None, help="Worker threads (default: all cores).")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameter override (repeatable).")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of parameter overrides.")
@click.option(
    "--bot-config",
    "bot_configs",
    multiple=True,
    type=click.Path(),
    help="TOML file defining bot variants (repeatable).",
)
@click.option("--force", is_flag=True, help="Replace the options run already in OUT.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
@click.option("--list", "list_only", is_flag=True, help="List the game's option classes and exit.")
@click.option("--out", "-o", type=click.Path(), default=None, help="Directory: options.json and report.html.")
@output_options
@with_game_flags
def options_cmd(
    game,
    bot,
    players,
    n_games,
    classes,
    converse,
    seed,
    threads,
    sets,
    params_file,
    bot_configs,
    force,
    quiet,
    list_only,
    out,
    as_json,
    dry_run,
    **kw,
):
    """What is each option worth? Restricted play on GAME (Jaffe et al. 2012).

    For each option class the game declares (`meeplab options GAME --list`; GameSpec.options), one copy of BOT that may not use it plays unrestricted copies on the same games as an
    unrestricted baseline; the report ranks the classes by the change in win share (paired 95 % intervals, Holm
    across classes) and names the options the bot cannot win without (dominant), those it loses nothing
    without (useless) and those it wins more without (helps: the bot misplays them). With --converse (the
    default) also "only this class where there is a choice".

    \b
      meeplab options hacienda --bot heuristic --players 3 --games 2000 --out runs/options
      meeplab report runs/options --out options.html
    """  # noqa: E501  (the help text as it always was; click rewraps it)
    import json

    import numba

    from meeplab.lab.studies.options import MODES, run_options
    from meeplab.sim.core.bots import available
    from meeplab.sim.core.registry import check_players

    g = lookup_game(game)
    p = players or g.default_players
    check_players(g, p)
    if n_games < 2:
        raise MeeplabError("--games must be at least 2")
    if not g.options:
        raise MeeplabError(f"{g.id} declares no option classes")
    names = [n for n, _ in g.options]
    if list_only:
        for n, what in g.options:
            click.echo(f"{n:<22} {what}")
        return
    if not out:
        raise MeeplabError("--out DIR is required (where options.json and report.html go)")
    if classes:
        wanted = parse_bots(classes)
        bad = [c for c in wanted if c not in names]
        if bad:
            raise MeeplabError(f"unknown option class '{bad[0]}' for {g.id}; available: {', '.join(names)}")
        idx = [names.index(c) for c in wanted]
    else:
        idx = list(range(len(names)))
    known = available(g.id, bot_configs)
    if bot not in known:
        raise MeeplabError(f"unknown bot '{bot}' for {g.id}; available: {', '.join(sorted(known))}")
    root = Path(out)
    if (root / "options.json").exists() and not force:
        raise MeeplabError(f"{root} already holds an options run; give --force to replace it or another --out")
    if root.exists() and not root.is_dir():
        raise MeeplabError(f"{root} is a file, not a directory")
    if threads:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    flags = flag_values(kw)
    modes = MODES if converse else ("forbid",)
    total = n_games * (1 + len(idx) * len(modes))
    plan_cfg = run_plan(
        game,
        n_games=n_games,
        players=str(p),
        bots=bot,
        seed=seed,
        threads=threads,
        sets=sets,
        params_file=params_file,
        bot_configs=bot_configs,
        fixed_seats=False,
        shard=None,
        chunk=None,
        workers=None,
        scheduler=None,
        resume=False,
        force=False,
        quiet=True,
        flags=flags,
        out=None,
    )
    values, ctx = dict(plan_cfg.values), plan_cfg.ctx
    plan = [plan_cfg] * (1 + len(idx) * len(modes))
    if echo_plan(f"options of {bot}: {len(idx)} classes x {len(modes)} modes + baseline", plan, dry_run, quiet):
        return
    with progress_bar(total, f"options {g.id}", quiet) as tick:
        res = run_options(
            g,
            ctx,
            bot,
            p,
            n_games,
            seed=seed,
            bot_configs=bot_configs,
            modes=modes,
            classes=idx,
            progress=tick,
        )
    meta = {
        "game": g.id,
        "title": g.title,
        "bot": bot,
        "players": p,
        "games": n_games,
        "seed": seed,
        "base_share": res.base_share,
        "params": {k: v for k, v in values.items() if isinstance(v, (int, float, str, list, tuple))},
        "command": command_line(),
        "rows": res.rows,
    }
    atomic_write(root / "options.json", json.dumps(meta, indent=2))
    from meeplab.reports.options import build_options_report

    path = build_options_report(root, root / "report.html")
    rows = [
        {
            "mode": r["mode"],
            "option": r["option"],
            "win share": r["share"],
            "change": r["delta"],
            "95% CI": f"[{r['delta_lo']:+.3f}, {r['delta_hi']:+.3f}]",
            "verdict": r["verdict"],
        }
        for r in sorted(res.rows, key=lambda r: (r["mode"] != "forbid", r["delta"]))
    ]
    title = f"{g.id}: what each option is worth to {bot} at {p} players (baseline win share {res.base_share:.3f})"
    echo_table(title, rows, as_json)
    if not quiet:
        click.echo(f"{total:,} games -> {path}", err=True)
