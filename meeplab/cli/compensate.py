"""``meeplab fair GAME --param NAME --seats all``: one value per seat of a per-seat parameter that evens every seat,
from a fitted seat model (:mod:`meeplab.analysis.compensate`). The runs, the fit and the answer's check; the
command's options live with ``fair`` (meeplab/cli/whatif.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from meeplab.cli.common import executor, run_plan, write_report
from meeplab.cli.confirming import confirm_out, confirm_pair, confirm_plan_line, plan_extras
from meeplab.cli.output import echo_plan, echo_table
from meeplab.cli.retuning import retune_plan_args, retuned
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write


def _key(vec, integer: bool) -> str:
    return "_".join(str(int(round(v))) if integer else f"{v:.4g}" for v in vec)


def _interval_text(comp, s: int, lo: float, hi: float) -> str:
    """A seat's interval in words where the numbers would mislead: the whole range, or wholly outside it."""
    a, b = comp.lo[s], comp.hi[s]
    if comp.whole_range[s]:
        return "no value in range decides it"
    if a > hi:
        return f"above the range (> {hi:g}; [{a:.3g}, {b:.3g}])"
    if b < lo:
        return f"below the range (< {lo:g}; [{a:.3g}, {b:.3g}])"
    if a < lo or b > hi:  # as fair.json has it, not cut at the range: how far past it the answer may lie
        return f"[{a:.3g}, {b:.3g}] (reaches past {lo:g}..{hi:g})"
    return f"[{a:.3g}, {b:.3g}]"


def parse_keep(keep_text: str | None, p: int) -> int | None:
    """``--keep K`` (a seat from 1) as a seat index from 0; None keeps the total."""
    if keep_text is None:
        return None
    try:
        k = int(keep_text)
    except ValueError:
        raise MeeplabError(f"--keep expects a seat number, got {keep_text!r}") from None
    if not 1 <= k <= p:
        raise MeeplabError(f"--keep {k}: seats are numbered 1 (start player) to {p}")
    return k - 1


def fair_all_seats(
    game,
    g,
    prm,
    name,
    lo,
    hi,
    players,
    steps,
    keep_text,
    confirm_bot,
    out,
    as_json,
    dry_run,
    kw,
    flags,
    retune=None,
    confirm=None,
) -> None:
    """Play the design, fit, play the answer and refit until it stays put (at most ``steps`` answers), then write
    OUT/fair.json and OUT/report.html and print one row per seat."""
    import polars as pl

    from meeplab.analysis.compensate import design_vectors, fit_compensation
    from meeplab.analysis.load import load_run
    from meeplab.analysis.seatgap import seat_gaps
    from meeplab.analysis.stats import run_stats
    from meeplab.cli.common import param_overrides
    from meeplab.lab.runs.runner import run as run_batch
    from meeplab.sim.core.params import seat_values

    if not prm.per_seat:
        raise MeeplabError(f"fair --seats all: {name} is one value for every seat; it needs a per-seat parameter")
    if len(players) != 1:
        raise MeeplabError("fair --seats all finds one value per seat, so give one player count (--players)")
    p = players[0]
    keep = parse_keep(keep_text, p)
    integer = prm.kind == "int"
    base = [
        float(v)
        for v in seat_values(g.params.resolve(param_overrides(g, kw["sets"], kw["params_file"], flags), g.id)[name], p)
    ]
    if any(not lo <= v <= hi for v in base):
        raise MeeplabError(
            f"fair --seats all: the range {lo:g}:{hi:g} must hold the default values {_key(base, integer)}"
        )
    plans: dict = {}

    def config(vec):
        key = _key(vec, integer)
        if key not in plans:
            text = ",".join(key.split("_"))
            plans[key] = run_plan(game, flags=flags, out=Path(out) / f"{name}={key}", label=f"{name}={text}",
                                  **dict(kw, players=str(p), sets=tuple(kw["sets"]) + (f"{name}={text}",)))  # fmt: skip
        return key, plans[key]

    design = design_vectors(base, lo, hi)
    for vec in design:
        config(vec)
    what = f"fair values of {name} for every seat at {p} players: {len(design)} design runs, at most {steps} answers"
    rt = retune_plan_args([config(design[0])[1]] * (len(design) + steps), retune, kw["quiet"])
    rt = plan_extras(
        rt, confirm_plan_line(confirm_bot, confirm or {}, "the change from the defaults to the fair values")
    )
    if echo_plan(what, [config(design[0])[1]] * (len(design) + steps), dry_run, kw["quiet"], **rt):
        return
    played: dict[str, tuple] = {}

    def play(vec, ex):
        key, cfg = config(vec)
        if key not in played:
            cfg = retuned([cfg], retune, Path(out), kw["quiet"])[0]
            if run_batch(cfg.on(ex)).status != "complete":
                sys.exit(130)
            played[key] = tuple(vec)
        return key

    with executor(kw["workers"], kw["scheduler"], kw["threads"], kw.get("timeout")) as ex:
        for vec in design:
            play(vec, ex)

        def fit():
            keys = list(played)
            runs = [load_run(plans[k].out) for k in keys]
            return fit_compensation(runs, [played[k] for k in keys], p, lo, hi, base, integer, keep)

        comp, rounds, answer = fit(), 0, None
        while rounds < max(1, steps):
            answer = _key(comp.values, integer)
            if answer in played:
                break
            play(tuple(comp.values), ex)
            rounds += 1
            comp = fit()
        answer = _key(comp.values, integer)
        if answer not in played:  # the last refit moved it: play it, the measured check is at the answer
            play(tuple(comp.values), ex)
    where = plans[answer].out
    st = run_stats(load_run(where))
    seats = st.by_seat.filter(pl.col("n_players") == p).sort("seat")
    gp = seat_gaps([load_run(where)], p)[0]
    res = {
        "n_players": p,
        "default": base,
        "values": comp.values.tolist(),
        "lo": comp.lo.tolist(),
        "hi": comp.hi.tolist(),
        "whole_range": comp.whole_range.tolist(),
        "worth": comp.worth.tolist(),
        "worth_lo": comp.worth_lo.tolist(),
        "worth_hi": comp.worth_hi.tolist(),
        "unit_log_odds": [comp.unit, comp.unit_lo, comp.unit_hi],
        "predicted": comp.predicted.tolist(),
        "notes": comp.notes,
        "run": str(where),
        "runs": [str(plans[k].out) for k in played],
        "points": [{"values": list(played[k]), "run": str(plans[k].out)} for k in played],
        "seats": seats.select(pl.col("seat") + 1, "win_rate", "lo", "hi").to_dicts(),
        "seat_gap": {"gap": gp.gap, "lo": gp.lo, "hi": gp.hi, "best": gp.best, "worst": gp.worst},
    }
    record = {"game": g.id, "param": name, "range": [lo, hi], "target": "every seat", "games": comp.games,
              "keep": None if keep is None else keep + 1, "results": [res]}  # fmt: skip
    atomic_write(Path(out) / "fair.json", json.dumps(record, indent=2))
    write_report([plans[k].out for k in played], Path(out) / "report.html", f"{game}: fair {name} for every seat",
                 answer=record)  # fmt: skip
    kept = "the seats' total kept" if keep is None else f"seat {keep + 1}'s value kept"
    if not kw["quiet"]:
        for n in comp.notes:
            click.echo(f"note: {n}", err=True)
        click.echo(
            f"at the answer ({len(played)} runs of {comp.games} games each): seat gap {gp.gap:.3f} [{gp.lo:.3f}, "
            f"{gp.hi:.3f}]; one unit of {name} is worth {comp.unit:+.3f} log-odds of winning "
            f"[{comp.unit_lo:+.3f}, {comp.unit_hi:+.3f}]",
            err=True,
        )
    rows = []
    for s in range(p):
        r = (
            res["seats"][s]
            if s < len(res["seats"])
            else {"win_rate": float("nan"), "lo": float("nan"), "hi": float("nan")}
        )
        fmt = (lambda v: str(int(round(v)))) if integer else (lambda v: f"{v:.3g}")
        rows.append(
            {
                "seat": s + 1,
                "default": fmt(base[s]),
                name: fmt(comp.values[s]),
                "95% interval": _interval_text(comp, s, lo, hi),
                "seat worth (units)": f"{comp.worth[s]:+.2f} [{comp.worth_lo[s]:+.2f}, {comp.worth_hi[s]:+.2f}]",
                "win rate there": f"{r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]",
            }
        )  # fmt: skip
    echo_table(
        f"{game}: fair {name} for every seat at {p} players ({kept}; fair share {1 / p:.3f}; seat 1 = start player)",
        rows,
        as_json,
        {"record": record} if as_json else None,
    )
    if confirm_bot is not None:
        base_key = _key(base, integer)
        rows = []
        if answer != base_key:
            got = confirm_pair(Path(out) / "confirm", plans[base_key], plans[answer], confirm_bot, kw, confirm["delta"],
                               max_games=confirm["max_games"], players={p})  # fmt: skip
            rows = [{"from": plans[base_key].label, "to": plans[answer].label, **r} for r in got]
        title = f"{game}: the change from the default {name} to the fair values, confirmed with {confirm_bot}"
        report = ([plans[k].out for k in played], Path(out) / "report.html", f"{game}: fair {name} for every seat",
                  record)  # fmt: skip
        confirm_out(Path(out), confirm_bot, rows, title, as_json, report)
