"""``learn``: distil a search bot into a fast policy (expert iteration's imitation step, ``lab.studies.learn``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click
import numpy as np

from meeplab.cli.common import cli, command_line, executor, flag_values, lookup_game, run_plan, with_game_flags
from meeplab.cli.output import echo_plan, echo_table, output_options
from meeplab.lab.progress import progress_bar
from meeplab.sim.core.errors import MeeplabError

#: the files ``learn`` writes into OUT (a folder holding any of them is refused without --force)
OWNED = ("learn.json", "weights.npz")
#: what a recorded decisions file holds (2: move codes and progress too); another is played again, not read
RECORD_FORMAT = 2


def _decisions_file(out: Path, p: int) -> Path:
    return out / f"decisions-p{p}.npz"


@cli.command("learn")
@click.argument("game")
@click.option("--players", "-p", default=None, help="Player count(s) to learn from: 3, or 2,3 (default: the usual).")
@click.option("--teacher", default="rollout", show_default=True, help="The search bot to learn from (any bot).")
@click.option("--games", "-n", "n_games", type=int, default=400, show_default=True, help="Teacher games per count.")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Game i plays from (seed, i) alone.")
@click.option("--threads", "-t", type=int, default=None, help="Teacher games played side by side (default: all).")
@click.option("--workers", type=int, default=None, help="Record the teacher's games on a local Dask cluster of N.")
@click.option("--scheduler", default=None, help="Record the teacher's games on the Dask cluster at this address.")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Rule parameters the games play under.")
@click.option("--params", "params_file", type=click.Path(), default=None, help="TOML file of rule parameters.")
@click.option("--bot-config", "bot_configs", multiple=True, type=click.Path(), help="TOML bot variants to add.")
@click.option("--out", "-o", required=True, type=click.Path(), help="Folder for the bot, its weights and data.")
@click.option("--name", default="learned", show_default=True, help="Name of the bot written to OUT/NAME.toml.")
@click.option("--max-candidates", type=int, default=32, show_default=True, help="Candidates kept per decision.")
@click.option("--holdout", type=float, default=0.2, show_default=True, help="Share of games kept to measure.")
@click.option("--l2", type=float, default=1e-3, show_default=True, help="L2 penalty of the fit (towards --prior).")
@click.option(
    "--target",
    type=click.Choice(["pick", "values", "visits"]),
    default="pick",
    show_default=True,
    help="Fit the teacher's pick, or its search's value or visit distribution over the candidates it searched.",
)
@click.option(
    "--temperature",
    type=float,
    default=0.1,
    show_default=True,
    help="--target values: the softmax temperature over the searched candidates' mean values (win share).",
)
@click.option(
    "--prior",
    default=None,
    help="A policy bot (a learned bot) the fit starts from and is pulled towards; later rounds: the last round's.",
)
@click.option(
    "--iterations",
    type=int,
    default=1,
    show_default=True,
    help="Expert iteration: rounds of search with the last policy's playouts, until a round gains nothing.",
)
@click.option(
    "--check-games", type=int, default=2000, show_default=True, help="Games per count of each round's head-to-head."
)
@click.option(
    "--refine",
    type=int,
    default=0,
    show_default=True,
    help="Games for a last stage: CMA-ES on the policy's linear weights for wins against --refine-vs (0: none).",
)
@click.option(
    "--refine-vs",
    default=None,
    help="The field --refine plays against, comma-separated (default: the teacher, when it is no search bot).",
)
@click.option(
    "--refine-games-per-eval", type=int, default=300, show_default=True, help="--refine: games per weight vector."
)
@click.option(
    "--refine-objective",
    type=click.Choice(["relative", "share"]),
    default="relative",
    show_default=True,
    help="--refine: the mean over the player counts of each count's win share over its fair share, or of the win "
    "shares themselves (the larger counts then weigh less).",
)
@click.option(
    "--refine-rounds",
    type=int,
    default=1,
    show_default=True,
    help="--refine rounds, each of --refine games; a round's field is --refine-vs and every earlier round's policy.",
)
@click.option("--resume", is_flag=True, help="Fit again on the teacher's games OUT holds, playing only what it lacks.")
@click.option("--force", is_flag=True, help="Replace what an earlier learn wrote into OUT, its games included.")
@click.option("--quiet", "-q", is_flag=True, help="No plan, estimate or progress on stderr.")
@with_game_flags
@output_options
def learn_cmd(game, players, teacher, n_games, seed, threads, workers, scheduler, sets, params_file, bot_configs, out,
              name, max_candidates, holdout, l2, target, temperature, prior, iterations, check_games, refine,
              refine_vs, refine_games_per_eval, refine_objective, refine_rounds, resume, force, quiet, as_json,
              dry_run, **kw):  # fmt: skip
    """Learn a fast bot from a search bot: record the TEACHER's decisions in games against itself, fit a policy
    over the candidates' features by maximum likelihood, and write it as a bot.

    At each teacher decision with more than one candidate the candidates' features are kept as the deciding seat
    sees them (the engine's feature columns, never hidden information) with the candidate the teacher played. The
    policy scores a candidate with weights per decision kind (and per move code, where the game declares codes)
    on those features, their pairwise products, whether it holds the best immediate value and their products with
    the game's progress (a conditional logit; docs/bots-and-search.md). It is fitted on the
    first games and measured on the last --holdout of them: the result table gives, per decision kind, the share
    of held-out decisions where it plays the teacher's candidate. OUT/NAME.toml is the bot (base "policy"):

    \b
      meeplab learn schweinebande --players 3 --teacher rollout --games 400 --out runs/learn-sb
      meeplab run schweinebande --players 3 --bots learned,tuned --bot-config runs/learn-sb/learned.toml --out runs/x

    With --target values (or visits) and a search teacher, the fit follows the search's whole verdict instead of
    its one pick: the softmax of the mean playout values of the candidates it searched (or their shares of its
    playouts), 0 for those it left out (AlphaZero's policy target; less noisy than the pick).

    With --refine N the fitted policy is then improved for wins: CMA-ES (as meeplab tune) searches its linear
    weights (per kind and code: the constant, each column, the best-column-0 flag and the progress's constant)
    in N games against --refine-vs at the same player counts, and OUT/NAME.toml is the result; its header and
    learn.json give the refined policy's win share against the field beside the fitted one's on fresh games.
    With --refine-rounds K it is refined K times, each round against --refine-vs and the policies of the rounds
    before it (a league: a policy that only exploits the field's bots loses to its own earlier rounds).

    \b
      meeplab learn hacienda --players 2-5 --teacher tuned --games 1000 --refine 1200000 --out runs/learn-hac

    The teacher's games are kept in OUT (decisions-pP.npz): with --resume a second learn into OUT (same teacher,
    seed, games and rules) fits again without playing them, with other --holdout, --l2, --temperature or --name;
    --force plays them again.
    """
    from meeplab.lab.studies import learn as ln

    g = lookup_game(game)
    shape = ln.features_of(g)
    for opt, v, lo, hi in (("--holdout", holdout, 0.0, 0.9), ("--l2", l2, 0.0, 1e6), ("--temperature", temperature,
                                                                                      1e-4, 1e3)):  # fmt: skip
        if not lo <= v <= hi or v != v:
            raise MeeplabError(f"{opt} must be in {lo:g}..{hi:g}, got {v}")
    if max_candidates < 2:
        raise MeeplabError(f"--max-candidates must be at least 2, got {max_candidates}")
    if not name or any(c in name for c in "/\\\n\r\t\"'[].") or name != name.strip():
        raise MeeplabError(f"--name {name!r}: a bot name of letters, digits, '-' and '_'")
    if not 1 <= iterations <= 20:
        raise MeeplabError(f"--iterations must be in 1..20, got {iterations}")
    if check_games < 10:
        raise MeeplabError(f"--check-games must be at least 10, got {check_games}")
    if refine < 0 or refine_games_per_eval < 1 or not 1 <= refine_rounds <= 20:
        raise MeeplabError(
            "--refine must be 0 or more games, --refine-games-per-eval at least 1 and --refine-rounds in 1..20"
        )
    if workers is not None and scheduler:
        raise MeeplabError("give --workers N or --scheduler ADDRESS, not both")
    if workers is not None and workers < 1:
        raise MeeplabError(f"--workers must be at least 1, got {workers}")
    plan_args = {
        "game": game, "n_games": n_games, "players": players, "bots": teacher, "seed": seed, "threads": threads,
        "sets": sets, "params_file": params_file, "bot_configs": bot_configs, "fixed_seats": False, "shard": None,
        "chunk": None, "workers": None, "scheduler": None, "resume": False, "force": False, "quiet": quiet,
        "flags": flag_values(kw), "out": None,
    }  # fmt: skip
    plan = run_plan(**plan_args)
    root = Path(out)
    if root.exists() and not root.is_dir():
        raise MeeplabError(f"--out {root} is a file, not a folder")
    bot_file = root / f"{name}.toml"
    held = [f for f in [*(root / o for o in OWNED), bot_file] if f.exists()]
    if resume and force:
        raise MeeplabError("give --resume (fit again on the games OUT holds) or --force (play them again), not both")
    if held and not (force or resume):
        raise MeeplabError(
            f"{root} already holds a learned bot ({held[0].name}); give --resume to fit it again on the games it "
            "holds or --force to replace it"
        )
    from meeplab.sim.core.bots import available

    bots = available(g.id, bot_configs)
    prior_w = (prior, _prior_weights(bots, prior, shape)) if prior else None
    teacher_spec = bots[teacher]
    if iterations > 1 and not teacher_spec.search:
        raise MeeplabError(f"--iterations: {teacher} is no search bot; expert iteration gives a search its playouts")
    if target != "pick" and not teacher_spec.search:
        raise MeeplabError(f"--target {target}: {teacher} is no search bot; only a search has values and visits")
    fitting = {"target": target, "temperature": temperature}
    field = _refine_field(bots, teacher_spec, teacher, refine_vs) if refine else []
    if refine:
        _check_refine_budget(ln, shape, refine, refine_games_per_eval, len(plan.players))
    what = (
        f"learn from {teacher}: teacher games against itself"
        + (f", up to {iterations} rounds of expert iteration" if iterations > 1 else "")
        + (f", then --refine: {refine:,} games of CMA-ES against {', '.join(field)}" if refine else "")
        + (f" and the earlier rounds, {refine_rounds} rounds" if refine and refine_rounds > 1 else "")
    )
    extra = _refine_estimate(plan_args, plan, field, refine * refine_rounds, dry_run) if refine else None
    if echo_plan(what, [plan], dry_run, quiet, extra=extra):
        return
    root.mkdir(parents=True, exist_ok=True)
    rounds, configs, best = [], tuple(bot_configs), None
    with executor(workers, scheduler, threads) as ex:  # --workers/--scheduler: the teacher's games there
        for r in range(iterations):
            where = root if r == 0 else root / f"round-{r}"
            bot_name = name if r == 0 else f"{name}-r{r}"
            teach = teacher
            if r > 0:  # the search plays its playouts with the last round's policy
                teach = f"{teacher}-r{r}"
                where.mkdir(exist_ok=True)
                _write_teacher(where / "teacher.toml", teach, teacher, rounds[-1]["bot"])
                configs = configs + (str(rounds[-1]["bot_file"]), str(where / "teacher.toml"))
                plan = run_plan(**dict(plan_args, bots=teach, bot_configs=configs))
            if r > 0:  # each round's fit is pulled towards the last round's policy
                prior_w = (rounds[-1]["bot"], rounds[-1]["fit"].weights)
            got = _learn_round(
                ln, g, plan, shape, where, bot_name, teach, max_candidates, holdout, l2, force, quiet, prior_w, ex,
                fitting,
            )  # fmt: skip
            got["bot_file"] = where / f"{bot_name}.toml"
            rounds.append(got)
            if r > 0:
                configs = configs + (str(got["bot_file"]),)
                gain = _head_to_head(plan_args, plan.players, configs, bot_name, rounds[-2]["bot"], check_games, quiet)
                got["head_to_head"] = gain
                if not gain["gained"]:
                    break
            best = got
    fit, record = best["fit"], best["record"]
    if iterations > 1:
        record["rounds"] = [
            {k: v for k, v in x["record"].items() if k in ("bot", "teacher", "agreement", "decisions")}
            | ({"head_to_head": x["head_to_head"]} if "head_to_head" in x else {})
            for x in rounds
        ]
        record["kept"] = best["bot"]
    _write_outputs(ln, root, name, fit, record)
    league: list[str] = []  # the earlier refining rounds' policies, each in OUT/league/
    for k in range(refine_rounds if refine else 0):
        fit = _refine(ln, g, plan, shape, root, name, fit, record, field + league, refine, refine_games_per_eval,
                      configs, quiet, k + 1, refine_objective == "relative")  # fmt: skip
        _write_outputs(ln, root, name, fit, record)
        if k + 1 < refine_rounds:
            was = f"{name}-league{k + 1}"
            (root / "league").mkdir(exist_ok=True)
            ln.write_bot(root / "league" / f"{was}.toml", was, fit, _header(record, fit), _description(record),
                         record["params_changed"])  # fmt: skip
            league.append(was)
            configs = tuple(configs) + (str(root / "league" / f"{was}.toml"),)
    agree = record["agreement"]
    bot_file = root / f"{name}.toml"
    if not quiet:
        click.echo(f"meeplab: bot '{name}' -> {bot_file} (use it with --bot-config {bot_file})", err=True)
        if record.get("linear_bots_agreement"):
            others = ", ".join(f"{b} {a:.3f}" for b, a in record["linear_bots_agreement"].items())
            click.echo(
                f"meeplab: the game's linear bots agree with {teacher} on the same decisions: {others}", err=True
            )
    echo_table(
        f"{g.id}: {name} against its teacher {best['teacher']}, per decision kind (held-out agreement {agree:.3f})",
        ln.summary(fit),
        as_json,
        {
            "agreement": agree,
            "bot_config": str(bot_file),
            **({"rounds": record["rounds"]} if "rounds" in record else {}),
            **({"refine": record["refine"]} if "refine" in record else {}),
        },
    )


def _refine_estimate(plan_args: dict, plan, field: list[str], games: int, dry_run: bool):
    """The plan's line for --refine: its games priced at the field's own speed (the learned seat plays at about a
    plain bot's speed; a dry run reads the speeds this machine measured before)."""

    def line(_est):
        from meeplab.lab.runs.estimate import duration, estimate

        per_count = max(1, games // len(plan.players))
        field_plan = run_plan(**dict(plan_args, n_games=per_count, bots=",".join(field), quiet=True))
        fe = estimate([field_plan], compile=not dry_run)
        how = f"about {duration(fe.seconds)}" if math.isfinite(fe.seconds) else "unknown (the field not measured here)"
        return [
            f"then --refine: {games:,} games against {', '.join(field)}: {how} or more, priced at the field's own "
            "speed (a learned seat is often slower)"
        ]

    return line


def _check_refine_budget(ln, shape, budget: int, per_eval: int, counts: int) -> None:
    """Refuse, before any game is played, a --refine budget below one CMA-ES generation and the final check."""
    from meeplab.lab.studies.tune import generation_games

    dim = len(ln.linear_names(shape))
    per_round = generation_games(dim, per_eval, counts)
    need = per_round + 2 * refine_final_games(budget) * counts
    if budget < need:
        raise MeeplabError(
            f"--refine {budget:,} is too small: one generation of {dim} weights costs {per_round:,} games at "
            f"--refine-games-per-eval {per_eval} and the final check {need - per_round:,}; give at least {need:,}"
        )


def refine_final_games(budget: int) -> int:
    """Fresh games per player count of --refine's final check: a twentieth of its budget, 200 to 20,000 (a 95 %
    interval of +-0.007 at the most)."""
    return max(200, min(20_000, budget // 20))


def _refine_field(bots: dict, teacher_spec, teacher: str, refine_vs: str | None) -> list[str]:
    """The bots --refine plays against: --refine-vs, or the teacher where it is no search bot (a search as the
    field would take hours per generation)."""
    if refine_vs:
        field = [b.strip() for b in refine_vs.split(",") if b.strip()]
        for b in field:
            if b not in bots:
                raise MeeplabError(f"--refine-vs: unknown bot '{b}'; available: {', '.join(sorted(bots))}")
        if field:
            return field
    if teacher_spec.search:
        raise MeeplabError(f"--refine: give --refine-vs (the teacher {teacher} is a search bot, too slow as a field)")
    return [teacher]


def _refine(ln, g, plan, shape, root, name, fit, record, field, budget, per_eval, configs, quiet, round_no=1,
            relative=True):  # fmt: skip
    """--refine: CMA-ES on the fitted policy's linear weights (:func:`~meeplab.lab.studies.learn.linear_names`) for
    wins against ``field`` at the learn's player counts (meeplab tune's search: common random numbers, an incumbent
    replaced only by a candidate that beats it, a final check on fresh games); the fit with the refined weights,
    and ``record["refine"]``."""
    from dataclasses import replace

    from meeplab.lab.studies.tune import tune

    only = ln.linear_names(shape)
    with progress_bar(budget, f"refining {name}", quiet) as tick:
        res = tune(
            g, plan.ctx, name, field, list(plan.players), budget, seed=plan.seed,
            bot_configs=tuple(configs) + (str(root / f"{name}.toml"),), games_per_eval=per_eval,
            final_games=refine_final_games(budget), progress=tick, only=only, relative=relative,
        )  # fmt: skip
    if res.interrupted or not res.final:
        raise MeeplabError(f"--refine interrupted after {res.generations} generation(s); {name}.toml is the fit")
    if list(res.names) != list(fit.names):
        raise MeeplabError(f"--refine: {name}'s weights are not the fit's ({len(res.names)} vs {len(fit.names)})")
    rows = [
        {"players": p, "games": d["games"], "share": d["share"], "lo": d["interval"][0], "hi": d["interval"][1],
         "before_share": d["base_share"], "fair": d["fair"]}
        for p, d in res.final["by_players"].items()
    ]  # fmt: skip
    info = {
        "round": round_no, "vs": field, "games": res.games_played, "budget": budget, "generations": res.generations,
        "games_per_eval": per_eval, "weights": len(only), "objective": "relative" if relative else "share",
        "final": rows,
    }  # fmt: skip
    record["refine"] = info | {"rounds": [*record.get("refine", {}).get("rounds", []), info]}
    if not quiet:
        for r in rows:
            click.echo(
                f"meeplab: {name} refined (round {round_no}), {r['players']} players: win share {r['share']:.3f} "
                f"[{r['lo']:.3f}, {r['hi']:.3f}] against {', '.join(field)} on {r['games']:,} fresh games (before "
                f"{r['before_share']:.3f}, fair {r['fair']:.3f})",
                err=True,
            )
    return replace(fit, weights=np.asarray(res.best, dtype=np.float64))


def _prior_weights(bots: dict, name: str, shape):
    """The whole weight vector of policy bot ``name`` (``--prior``), or a one-line refusal."""
    spec = bots.get(name)
    if spec is None:
        raise MeeplabError(f"--prior {name}: no such bot ({', '.join(sorted(bots))}); give its --bot-config")
    if spec.base != "policy":
        raise MeeplabError(f"--prior {name}: a policy bot (one that meeplab learn wrote), not a {spec.base} bot")
    return shape.vector(spec.weights_dict())


def _learn_round(
    ln, g, plan, shape, where, bot_name, teacher, max_candidates, holdout, l2, force, quiet, prior=None, ex=None,
    fitting=None,
) -> dict:  # fmt: skip
    """One round: the teacher's decisions (recorded or read back; played on the cluster of ``ex`` where given), the
    fit (pulled towards ``prior``, a policy's (name, whole weight vector), where given; ``fitting``: its ``target``
    and ``temperature``) and its record."""
    fitting = fitting or {"target": "pick", "temperature": ln.TEMPERATURE}
    values = fitting["target"] != "pick"
    data = [_recorded(ln, g, plan, p, where, max_candidates, force, quiet, ex, values) for p in plan.players]
    merged = ln.Decisions.concat(data)
    fit = ln.fit(merged, shape, holdout=holdout, l2=l2, prior=prior[1] if prior else None, **fitting)
    agree, held_out = fit.agreement()
    others = _linear_bots_agreement(ln, g, plan, shape, merged, holdout)
    record = {
        "game": g.id,
        "teacher": teacher,
        "players": list(plan.players),
        "games": plan.games,
        "seed": plan.seed,
        "params_changed": dict(g.params.changed(dict(plan.values))),
        "bot": bot_name,
        "decisions": len(merged),
        "held_out_decisions": held_out,
        "agreement": agree,
        "best_column_0_agreement": fit.greedy_agreement(),
        "linear_bots_agreement": others,
        "max_candidates": max_candidates,
        "holdout": holdout,
        "l2": l2,
        "target": fitting["target"],
        **({"temperature": fitting["temperature"]} if fitting["target"] == "values" else {}),
        "prior": prior[0] if prior else None,
        "kinds": ln.summary(fit),
        "command": command_line(),
    }
    ln.write_bot(
        where / f"{bot_name}.toml", bot_name, fit, _header(record, fit), _description(record), record["params_changed"]
    )
    return {"fit": fit, "record": record, "bot": bot_name, "teacher": teacher}


def _header(record: dict, fit) -> list[str]:
    """The comment lines of a learned bot's TOML: the command, the fit and its agreement beside the game's linear
    bots (and, after expert iteration, the rounds)."""
    teacher = record["teacher"]
    agree, held_out = fit.agreement()
    fitted = {
        "pick": f"{teacher}'s choices",
        "values": f"the softmax of {teacher}'s searched values (temperature {record.get('temperature', 0):g})",
        "visits": f"{teacher}'s visit shares",
    }[record.get("target", "pick")]
    header = [
        f"Made by: {record['command']}",
        f"Learned by meeplab learn: a conditional logit fitted to {fitted} in {record['games']:,} games "
        f"per player count ({', '.join(map(str, record['players']))} players), {record['decisions']:,} decisions.",
        f"Held-out agreement with {teacher}: {agree:.3f} of {held_out:,} decisions (playing the best immediate "
        f"value agrees {fit.greedy_agreement():.3f}).",
    ]
    if record.get("linear_bots_agreement"):
        header.append(
            "The game's linear bots agree on the same decisions: "
            + ", ".join(f"{b} {a:.3f}" for b, a in record["linear_bots_agreement"].items())
            + "."
        )
    if record.get("prior"):
        header.append(f"Fitted from, and pulled towards (L2 {record['l2']:g}), the policy {record['prior']}.")
    if "rounds" in record:
        header.append(f"Expert iteration: {len(record['rounds'])} round(s), kept {record['kept']} (see learn.json).")
    for r in record.get("refine", {}).get("rounds", []):
        header.append(
            f"Refined for wins, round {r['round']}: CMA-ES on its {r['weights']} linear weights, {r['generations']} "
            f"generation(s), {r['games']:,} games against {', '.join(r['vs'])}. On fresh games, one seat against "
            "that field, seats rotated (95 % Wilson), beside the policy the round started from:"
        )
        header += [
            f"  {x['players']} players, {x['games']:,} games: win share {x['share']:.3f} [{x['lo']:.3f}, "
            f"{x['hi']:.3f}], before {x['before_share']:.3f}, fair {x['fair']:.3f}"
            for x in r["final"]
        ]
    if "refine" in record:
        header.append("The agreement above is the fitted policy's, before refining.")
    return header


def _description(record: dict) -> str:
    """A learned bot's one-line description (``meeplab bots``)."""
    out = f"policy learned from {record['teacher']} ({record['agreement']:.2f} agreement held out)"
    if "refine" in record:
        r = record["refine"]
        out += f", refined for wins against {', '.join(r['rounds'][0]['vs'])}" + (
            f" and its own earlier rounds ({len(r['rounds'])} rounds)" if len(r["rounds"]) > 1 else ""
        )
    return out


def _linear_bots_agreement(ln, g, plan, shape, data, holdout) -> dict[str, float]:
    """The held-out agreement with the teacher of each plain bot of the game whose weights are per decision kind
    on the feature columns (``kind.column``: the policy with only its linear terms), on the fit's decisions."""
    from meeplab.sim.core.bots import available

    out = {}
    for name, spec in sorted(available(g.id, plan.bot_configs).items()):
        w = spec.weights_dict()
        if spec.search or name == "policy" or spec.base == "policy" or not w or not all(map(shape.accepts, w)):
            continue
        out[name] = ln.agreement_of(data, shape, w, holdout)
    return out


def _write_outputs(ln, root: Path, name: str, fit, record: dict) -> None:
    """OUT/NAME.toml (the kept round's policy under the name asked for), OUT/weights.npz and OUT/learn.json."""
    import io

    import numpy as np

    from meeplab.sim.core.files import atomic_write

    ln.write_bot(root / f"{name}.toml", name, fit, _header(record, fit), _description(record), record["params_changed"])
    buf = io.BytesIO()
    np.savez(buf, weights=fit.weights, names=np.array(fit.names))
    atomic_write(root / "weights.npz", buf.getvalue())
    atomic_write(root / "learn.json", json.dumps(record, indent=2, default=str))


def _write_teacher(path: Path, name: str, teacher: str, policy: str) -> None:
    """A bot config: the teacher's search playing its playouts with ``policy`` (the last round's learned bot)."""
    import tomli_w

    from meeplab.sim.core.files import atomic_write

    body = {"bots": {name: {"base": teacher, "policy": policy, "description": f"{teacher} with {policy} playouts"}}}
    atomic_write(path, tomli_w.dumps(body))


def _head_to_head(plan_args, players, configs, new: str, old: str, games: int, quiet: bool) -> dict:
    """``new`` in one seat against ``old`` in the others, seats rotated, at each player count: its win share, the
    95 % Wilson interval and whether the interval lies above the fair share at every count (a gain)."""
    from meeplab.lab.runs.runner import run
    from meeplab.lab.stats import wilson

    rows, gained = [], True
    for p in players:
        plan = run_plan(**dict(plan_args, n_games=games, players=str(p), bots=",".join([new] + [old] * (p - 1)),
                               bot_configs=configs, quiet=True))  # fmt: skip
        table = run(plan).table
        bot = np.asarray(table.column("bot").to_pylist())
        win = np.asarray(table.column("win").to_numpy(zero_copy_only=False), dtype=float)
        w = float(win[bot == new].sum())
        lo, hi = wilson(w, games)
        rows.append({"players": p, "games": games, "share": w / games, "lo": lo, "hi": hi, "fair": 1 / p})
        gained = gained and lo > 1 / p
        if not quiet:
            click.echo(f"meeplab: {new} vs {old} at {p} players: {w / games:.3f} [{lo:.3f}, {hi:.3f}]", err=True)
    return {"new": new, "old": old, "rows": rows, "gained": gained}


def _recorded(ln, g, plan, p: int, root: Path, max_candidates: int, force: bool, quiet: bool, ex=None, values=False):
    """The teacher's decisions at ``p`` players: read from OUT when an earlier learn recorded exactly these games,
    else played (with a progress bar; on the cluster of ``ex`` where given, the same decisions) and kept there;
    ``values``: with the search's values (:class:`~meeplab.lab.studies.learn.Decisions`)."""
    path = _decisions_file(root, p)
    key = {"game": g.id, "bots": list(plan.bots), "seed": plan.seed, "games": plan.games, "players": p,
           "params": {k: str(v) for k, v in plan.values.items()}, "max_candidates": max_candidates,
           "record": RECORD_FORMAT}  # fmt: skip
    if values:  # kept searched candidates first: another record than one without values
        key["values"] = True
    meta = path.with_suffix(".json")
    if path.exists() and meta.exists() and not force:
        try:
            same = json.loads(meta.read_text(encoding="utf-8")) == key
            got = ln.Decisions.load(path) if same else None
        except (OSError, ValueError, MeeplabError) as exc:
            click.echo(f"meeplab: {path.name}: {exc}; playing the teacher's games again", err=True)
            got = None
        if got is not None:
            if not quiet:
                click.echo(f"meeplab: {path.name}: the teacher's games at {p} players, recorded before", err=True)
            return got
    from meeplab.lab.runs.runner import play_threads

    with progress_bar(plan.games, f"{plan.bots[0]} at {p} players", quiet) as tick:
        if ex is not None:
            from meeplab.lab.distributed.learn_cluster import record_on

            data = record_on(
                ex, plan.game, dict(plan.values), plan.bots[0], p, plan.seed, plan.games, max_candidates,
                plan.bot_configs, progress=tick, with_values=values,
            )  # fmt: skip
        else:
            data = ln.record(
                plan.game, plan.ctx, ln.reading_all(plan.lineups[p]), p, plan.seed, range(plan.games),
                max_candidates, threads=play_threads(plan), progress=tick, shape=ln.features_of(plan.game),
                values=values,
            )  # fmt: skip
    from meeplab.sim.core.files import atomic_write

    data.save(path)
    atomic_write(meta, json.dumps(key))
    return data
