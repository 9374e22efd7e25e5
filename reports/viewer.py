"""The game viewer: one game as one self-contained HTML page (``meeplab view``), stepped decision by decision.

:func:`view_data` turns a traced game (:func:`meeplab.sim.core.draw.trace`) into the page's data through the
game's drawing module (``GameSpec.draw``, contract in ``sim/core/draw.py``; this module knows no game by name);
:func:`render` puts it into ``templates/viewer.html.j2`` with ``viewer.css`` and ``viewer.js`` inlined.

Size: a drawing is the game's fixed ``base`` plus its ``pieces``; every distinct piece string is stored once
(``pool``) and each step lists the indices of its pieces, per view (everything, then each seat's view, which is
stored only where it differs from everything); :func:`pack` then stores those lists as changes and pools the side
tables' rows and the candidates' labels. A whole 5-player Hacienda game (422 decisions) is 1.2 MB.

Win-probability chart: with ``trajectories`` (the rows of this game from ``DIR/trajectories.parquet`` of ``meeplab
quality``: columns game, step (the decision index, every decision counted, as in the trace), seat (from 1), p_win,
se) the chart under the board plots each seat's chance to win per step; without it, the score race (each seat's
points so far).

Search decisions: a rollout decision's alternatives carry the mean playout value of every candidate searched
(``step["search"]``: playouts per candidate); an ismcts decision's carry, for the root's most visited candidates,
the mean value and a fifth entry, the visits (``step["iters"]``: its iterations), as ``--explain`` logs them.

Saved human games (the play page, ``meeplab.play``): :func:`view_data` takes any sequence of state records and
chosen candidates, so a saved game replayed into a :class:`~meeplab.sim.core.draw.Trace` views the same way.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from meeplab.sim.core.draw import SEAT_COLOURS, Trace, checked_info
from meeplab.sim.core.forward import C_KIND, C_N, C_NP, C_SEAT
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS

from .template import content_policy, environment


class _Pool:
    """Distinct strings, each stored once; :meth:`ids` gives a list's indices into it."""

    def __init__(self):
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def id(self, s: str) -> int:
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.items)
            self.items.append(s)
        return i

    def ids(self, items) -> list[int]:
        return [self.id(s) for s in items]


def _search_values(tr: Trace, k: int) -> tuple[dict[int, float], dict[int, int], int, int]:
    """What the search of decision ``k`` found, from the trace: ``(means, visits, playouts, iterations)``.

    The rollout search: the mean playout value of every candidate it searched (``means``, by row in ``moves``) and the
    playouts per candidate; ``visits`` empty, ``iterations`` 0. ``ismcts``: the root's most visited candidates as
    ``--explain`` logs them (mean value and visits, the visits packed into the E_SEARCH_CAND rank field) and the
    iterations (the E_SEARCH row's ``-iterations``); ``playouts`` 0. No search: everything empty."""
    rows = tr.log[tr.logat[k] : tr.logat[k + 1]]
    for i, row in enumerate(rows):
        if int(row[0]) != E_SEARCH:
            continue
        nc, budget = int(row[3]), int(row[5])
        if budget < 0:  # ismcts
            means: dict[int, float] = {}
            visits: dict[int, int] = {}
            for cr in rows[i + 1 :]:
                if int(cr[0]) != E_SEARCH_CAND:
                    break
                v, _rank = divmod(int(cr[5]), EXPLAIN_VISITS)
                means[int(cr[1])] = int(cr[4]) / 1e6
                visits[int(cr[1])] = v
            return means, visits, 0, -budget
        if budget == 0:
            return {}, {}, 0, 0
        vals = {int(tr.search_cand[k, j]): float(tr.search_sum[k, j]) / budget for j in range(nc)}
        vals.pop(-1, None)  # a search that keeps no per-candidate means
        return vals, {}, (budget if vals else 0), 0
    return {}, {}, 0, 0


def _or_none(mine, every):
    """A seat's version of something, or None where it is the same as everything's (the page stores it once)."""
    return None if mine == every else mine


def view_data(
    spec,
    ctx,
    tr: Trace,
    *,
    seat_names: list[str],
    title: str,
    subtitle: str,
    trajectories: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The page's data for the traced game ``tr`` of game ``spec`` (``seat_names``: who plays each seat, seat 0
    first)."""
    dr = spec.draw
    n_players = len(seat_names)
    w, h = dr.size(ctx, n_players)
    pool = _Pool()
    infos = _Pool()
    steps = []
    n_states = len(tr.states)
    for k in range(n_states):
        rec = tr.states[k]
        ctl = rec["ctl"]
        last = k == n_states - 1
        views = []
        every = pool.ids(dr.pieces(ctx, rec, None))
        views.append(every)
        info_every = infos.id(json.dumps(checked_info(dr.info(ctx, rec, None), spec.id)))
        info_ids = [info_every]
        for s in range(n_players):
            mine = pool.ids(dr.pieces(ctx, rec, s))
            views.append(None if mine == every else mine)
            i = infos.id(json.dumps(checked_info(dr.info(ctx, rec, s), spec.id)))
            info_ids.append(None if i == info_every else i)
        lo = int(tr.logat[k - 1]) if k > 0 else 0
        hi = int(tr.logat[k + 1] if last else tr.logat[k])  # the end: everything up to the final scoring
        ev_all = dr.events(ctx, tr.log, lo, hi, seat_names, None)
        events = [ev_all] + [_or_none(dr.events(ctx, tr.log, lo, hi, seat_names, s), ev_all) for s in range(n_players)]
        step: dict[str, Any] = {
            "p": views,
            "i": info_ids,
            "status": dr.status(ctx, rec),
            "round": int(dr.round_of(ctx, rec)),
            "score": [round(float(x), 3) for x in dr.score(ctx, rec)],
            "ev": events,
        }
        if not last:
            n = int(ctl[C_N])
            seat = int(ctl[C_SEAT])
            vals, visits, k_play, iters = _search_values(tr, k)
            feats = rec["feats"]
            moves = dr.moves(ctx, rec)
            alts = []
            for i, (label, target) in enumerate(moves[:n]):
                alt = [label, target, round(float(feats[i, 0]), 3), vals.get(i)]
                if iters:
                    alt.append(visits.get(i))
                alts.append(alt)
            step.update(
                seat=seat,
                kind=dr.kind_name(int(ctl[C_KIND])),
                alts=alts,
                pick=int(tr.picks[k]),
                search=k_play,
            )
            if iters:
                step["iters"] = iters
            # a face-down choice (GameSpec.secret): another seat's view shows neither its label nor the alternatives
            secret = getattr(spec, "secret", None)
            if secret is not None and int(ctl[C_KIND]) in secret.kinds:
                step["secret"] = True
        steps.append(step)
    final = {
        "score": [float(x) for x in tr.score],
        "breakdown": [[float(x) for x in row] for row in tr.breakdown],
        "categories": list(spec.categories),
    }
    return {
        "game": spec.id,
        "title": title,
        "subtitle": subtitle,
        "seats": [
            {"name": f"P{s + 1}", "bot": seat_names[s], "colour": SEAT_COLOURS[s % len(SEAT_COLOURS)]}
            for s in range(n_players)
        ],
        "size": [w, h],
        "base": dr.base(ctx, n_players),
        "pool": pool.items,
        "info": [json.loads(x) for x in infos.items],
        "steps": steps,
        "final": final,
        "truncated": bool(tr.truncated),
        "traj": _trajectory_series(trajectories, n_players) if trajectories else None,
        "np": int(tr.states[0]["ctl"][C_NP]),
        # the candidates name what only the deciding seat knows: other seats' views show only the one chosen
        "private_moves": bool(getattr(dr, "PRIVATE_MOVES", False)),
    }


def _trajectory_series(rows: list[dict[str, Any]], n_players: int) -> dict[str, Any]:
    """Win chances per seat by step: {"step": [...], "p": [[seat 0 per step], ...], "se": [...]}."""
    by_step: dict[int, dict[int, tuple[float, float]]] = {}
    for r in rows:
        # seats are numbered from 1 in the file (analysis/quality.py); steps count every decision, as the trace does
        by_step.setdefault(int(r["step"]), {})[int(r["seat"]) - 1] = (float(r["p_win"]), float(r.get("se") or 0.0))
    order = sorted(by_step)

    def pick(t, s, j):
        v = by_step[t].get(s)
        return None if v is None or v[j] != v[j] else round(v[j], 4)

    return {
        "step": order,
        "p": [[pick(t, s, 0) for t in order] for s in range(n_players)],
        "se": [[pick(t, s, 1) for t in order] for s in range(n_players)],
    }


def _delta(base: list[int] | None, new: list[int]) -> dict[str, Any]:
    """``new`` as the positions where it differs from ``base`` (flat pairs position, value) and its length; the
    whole list where there is no base."""
    if base is None:
        return {"f": new}
    d: list[int] = []
    for i, x in enumerate(new):
        if i >= len(base) or base[i] != x:
            d += [i, x]
    return {"n": len(new), "d": d}


def _undelta(base: list[int] | None, e: dict[str, Any]) -> list[int]:
    if "f" in e:
        return list(e["f"])
    out = list(base[: e["n"]]) + [0] * max(0, e["n"] - len(base))
    for i in range(0, len(e["d"]), 2):
        out[e["d"][i]] = e["d"][i + 1]
    return out


def pack(data: dict[str, Any]) -> dict[str, Any]:
    """The page's data as the page stores it: each step's pieces as changes against the step before (everything's
    view) or against everything (a seat's view), the side table's rows and the candidates' labels and places
    pooled. A 5-player Hacienda game of 420 decisions shrinks from 3.0 MB to well under half; :func:`unpack` is the
    inverse (the page's script does the same)."""
    labels, rows = _Pool(), _Pool()
    cols = data["info"][0]["columns"] if data["info"] else []
    if any(x["columns"] != cols for x in data["info"]):
        raise ValueError("the side table's columns must stay the same for the whole game")
    steps = []
    prev = None
    for st in data["steps"]:
        s = dict(st)
        v0 = st["p"][0]
        s["p"] = [_delta(prev, v0)] + [None if v is None else _delta(v0, v) for v in st["p"][1:]]
        prev = v0
        s["i"] = [None if x is None else rows.ids(json.dumps(r) for r in data["info"][x]["rows"]) for x in st["i"]]
        if "alts" in st:
            s["alts"] = [[labels.id(a[0]), -1 if a[1] is None else labels.id(a[1]), *a[2:]] for a in st["alts"]]
        steps.append(s)
    out = {k: v for k, v in data.items() if k not in ("steps", "info")}
    out.update(steps=steps, packed=1, info_cols=cols, rows=[json.loads(r) for r in rows.items], labels=labels.items)
    return out


def unpack(packed: dict[str, Any]) -> dict[str, Any]:
    """:func:`pack`'s inverse: the data :func:`view_data` made."""
    infos = _Pool()
    steps = []
    prev = None
    for st in packed["steps"]:
        s = dict(st)
        v0 = _undelta(prev, st["p"][0])
        s["p"] = [v0] + [None if e is None else _undelta(v0, e) for e in st["p"][1:]]
        prev = v0
        s["i"] = [
            None
            if ids is None
            else infos.id(json.dumps({"columns": packed["info_cols"], "rows": [packed["rows"][r] for r in ids]}))
            for ids in st["i"]
        ]
        if "alts" in st:
            lab = packed["labels"]
            s["alts"] = [[lab[a[0]], None if a[1] < 0 else lab[a[1]], *a[2:]] for a in st["alts"]]
        steps.append(s)
    out = {k: v for k, v in packed.items() if k not in ("steps", "packed", "info_cols", "rows", "labels")}
    out.update(steps=steps, info=[json.loads(x) for x in infos.items])
    return out


def render(data: dict[str, Any]) -> str:
    """The viewer page: one HTML file, styles, script and data inlined (no network). The data goes in through
    ``tojson`` (valid JSON, nothing in it closes the element); the page's Content-Security-Policy lets only the
    inlined script and stylesheet run (:func:`~meeplab.reports.template.content_policy`)."""
    from importlib import resources

    folder = resources.files("meeplab.reports") / "templates"
    css = (folder / "viewer.css").read_text(encoding="utf-8")
    js = (folder / "viewer.js").read_text(encoding="utf-8")
    return (
        environment()
        .get_template("viewer.html.j2")
        .render(
            title=data["title"],
            subtitle=data["subtitle"],
            css=Markup(css),
            js=Markup(js),
            data=pack(data),
            csp=content_policy([js], [css]),
        )
    )
