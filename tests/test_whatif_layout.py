"""Reports laid out for real screens: one report of each kind (a run, a sweep with its comparison, a two-parameter
grid, a sequential test, options, a tournament) opened in headless Chromium at 1300 px and 800 px: nothing wider than
the window, every wide table scrolls inside its own box, every chart fits its column; and a figure legend never
leaves its figure (ten long category names in one narrow panel used to lose both ends)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from meeplab.reports import build_report

CATS = [f"{w}_{k}" for w in ("mid", "final") for k in ("markets", "chains", "haciendas", "water", "railroads")]
BOTS = ["tuned", "heuristic", "greedy"]


def toy_run(path: Path, probs, params: dict, games=400, seed=1, label=None, sprt=None) -> Path:
    """Three bots rotated over len(probs) seats, ten long scoring categories (the widest tables and legends)."""
    P = len(probs)
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    winner = np.searchsorted(np.cumsum(probs) / np.sum(probs), rng.random(games))
    gi = np.repeat(np.arange(games), P)
    seat = np.tile(np.arange(P), games)
    entry = (seat + gi) % P
    win = (seat == np.repeat(winner, P)).astype(float)
    cols = {
        "n_players": np.full(gi.size, P, np.int8),
        "game_index": gi,
        "seat": seat.astype(np.int8),
        "entry": entry.astype(np.int8),
        "bot": [BOTS[e % 3] for e in entry],
        "score": win * 10 + rng.random(gi.size) * 5,
        "rank": np.where(win > 0, 1, 2).astype(np.int8),
        "win": win,
        "length": 8 + rng.integers(0, 4, gi.size).astype(np.int32),
    }
    for i, c in enumerate(CATS):
        cols[c] = rng.random(gi.size) * (i + 1)
    pl.DataFrame(cols).write_parquet(path / "results.parquet")
    defaults = {"water_price": 12, "start_money": 20}
    meta = {
        "game": "toygame",
        "title": "Toy",
        "status": "complete",
        "params": {**defaults, **params},
        "params_changed": {k: v for k, v in params.items() if defaults.get(k) != v},
        "bots": BOTS,
        "lineups": {str(P): BOTS[:P]},
        "players": [P],
        "rotate": True,
        "seed": seed,
        "games": games,
        "games_completed": {str(P): games},
        "categories": CATS,
        "length_unit": "rounds",
        "label": label or ",".join(f"{k}={v}" for k, v in params.items()) or "baseline",
    }
    if sprt:
        meta["sprt"] = sprt
    (path / "run.json").write_text(json.dumps(meta))
    return path


SPRT = {
    "metric": ["bot", "tuned"],
    "metric_label": "tuned's win share",
    "settings": {
        "delta": 0.02,
        "alpha": 0.05,
        "beta": 0.05,
        "batch": 100,
        "max_games": 100000,
        "alternative": "two-sided",
    },
    "tests": [
        {
            "n_players": 3,
            "games": 400,
            "delta": 0.02,
            "mean": -0.0135,
            "sd": 0.2,
            "changed": 0.2,
            "verdict": "falls",
            "lower": -2.9,
            "upper": 2.9,
            "path": [
                {"games": 200, "mean": -0.01, "llr_rise": -1.0, "llr_fall": 1.5},
                {"games": 400, "mean": -0.0135, "llr_rise": -3.0, "llr_fall": 3.0},
            ],
            "decisions": {"rise": "H0", "fall": "H1"},
        }
    ],
    "status": "complete",
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("layout")
    probs = {8: [0.5, 0.3, 0.2], 12: [0.45, 0.3, 0.25], 16: [0.4, 0.32, 0.28]}
    sweep = [toy_run(root / f"w{v}", probs[v], {"water_price": v}) for v in (8, 16)]
    grid = [  # three cells of a 2 x 2 grid: the fewest runs a grid report takes
        toy_run(root / f"g{a}-{m}", probs[a], {"water_price": a, "start_money": m}, games=200)
        for a, m in ((8, 20), (16, 20), (8, 24))
    ]
    base = toy_run(root / "base", probs[12], {}, label="baseline")
    var = toy_run(root / "var", probs[16], {"water_price": 16}, label="variant", sprt=SPRT)
    options = root / "options"
    options.mkdir()
    rows = [
        {
            "mode": mode,
            "option": name,
            "what": f"the long description of what {name} lets a player do on a turn",
            "share": 0.3 + 0.01 * i,
            "lo": 0.25,
            "hi": 0.35,
            "delta": 0.01 * i - 0.02,
            "delta_lo": 0.01 * i - 0.05,
            "delta_hi": 0.01 * i + 0.01,
            "p": 0.2,
            "changed": 10 * i,
            "score": 40.0 + i,
            "score_delta": 0.5 * i,
            "p_holm": 0.6,
            "verdict": "-",
        }
        for mode in ("forbid", "only")
        for i, name in enumerate(["buy_land_card_face_up", "buy_animal_card_blind", "place_hacienda", "harvest"])
    ]
    meta = {"game": "toygame", "title": "Toy", "bot": "tuned", "players": 3, "games": 400, "seed": 1}
    meta.update({"base_share": 0.33, "params": {}, "command": "meeplab options toygame", "rows": rows})
    (options / "options.json").write_text(json.dumps(meta))
    out = {
        "run": build_report([sweep[0]], root / "run.html"),
        "sweep": build_report(sweep, root / "sweep.html"),
        "grid": build_report(grid, root / "grid.html"),
        "sequential": build_report([base, var], root / "sequential.html"),
        "options": build_report([options], root / "options.html"),
    }
    from meeplab.reports import tournament as trep

    ratings = [
        {"bot": b, "rating": 100.0 - 60 * i, "lo": 80.0 - 60 * i, "hi": 120.0 - 60 * i, "se": 10.0}
        for i, b in enumerate(BOTS)
    ]
    rec = {
        "game": "toygame",
        "title": "Toy",
        "players": [3],
        "games_each": 400,
        "games": 1200,
        "pairs": 3600,
        "converged": True,
        "ratings": ratings,
        "seats": [
            {"n_players": 3, "seat": s, "effect": -20.0 * s, "lo": -20.0 * s - 5, "hi": -20.0 * s + 5} for s in range(3)
        ],
        "matchups": [
            {"bot": a, "opponent": b, "pairs": 400, "share": 0.55, "lo": 0.5, "hi": 0.6}
            for a in BOTS
            for b in BOTS
            if a != b
        ],
        "lineups": [{"n_players": 3, "bots": BOTS, "games": 400, "run": str(base)}],
    }
    out["tournament"] = trep.write(rec, root / "tournament.html")
    return out


@pytest.mark.parametrize("width", [1300, 800])
@pytest.mark.parametrize("kind", ["run", "sweep", "grid", "sequential", "options", "tournament"])
def test_report_fits_the_screen(browser, reports, kind, width, tmp_path):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(reports[kind].as_uri())
    page.wait_for_load_state("load")
    assert not errors, errors
    # nothing makes the page itself wider than the window
    assert page.evaluate("document.documentElement.scrollWidth") <= width, kind
    # every table box ends inside the window; a wider table scrolls inside its box (and says so: class "more")
    boxes = page.evaluate(
        "[...document.querySelectorAll('.tablewrap')].map(w => [w.getBoundingClientRect().right, w.scrollWidth,"
        " w.clientWidth, w.classList.contains('more'), getComputedStyle(w).overflowX])"
    )
    assert boxes, kind
    for right, sw, cw, more, overflow in boxes:
        assert right <= width and overflow == "auto"
        assert more == (sw - cw > 2)
    # every chart decodes and is drawn no wider than its column
    imgs = page.evaluate(
        "[...document.images].map(i => [i.complete && i.naturalWidth > 0, i.getBoundingClientRect().right,"
        " i.parentElement.getBoundingClientRect().right])"
    )
    assert all(ok and right <= parent + 1 and right <= width for ok, right, parent in imgs), imgs
    keep = os.environ.get("MEEPLAB_SCREENSHOTS")  # a folder to keep the screenshots in, for a person to look at
    if keep:
        shot = tmp_path / f"{kind}-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        shutil.copy(shot, Path(keep) / shot.name)
    page.close()


def test_figure_legend_stays_inside_the_figure(monkeypatch):
    from meeplab.reports import charts

    figs = []
    monkeypatch.setattr(charts, "to_uri", lambda fig: figs.append(fig) or "data:")
    by_bot = pl.DataFrame(
        {"n_players": [3, 3], "bot": ["tuned", "greedy"], **{f"cat_{c}": [1.0 + i, 2.0] for i, c in enumerate(CATS)}}
    )
    charts.score_breakdown(by_bot, CATS, {"tuned": "#000", "greedy": "#111"})
    fig = figs[0]
    fig.canvas.draw()
    leg = fig.legends[0].get_window_extent()
    box = fig.bbox
    assert leg.x0 >= box.x0 and leg.x1 <= box.x1 and leg.y0 >= box.y0
    assert len(fig.legends[0].get_texts()) == len(CATS)


def test_unordered_values_are_points_not_a_line(monkeypatch):
    """A sweep over files (token files, maps) has no order: the chart shows points, never a line across names."""
    from meeplab.analysis.seatgap import Gap
    from meeplab.reports import charts, gaps

    figs = []
    monkeypatch.setattr(charts, "to_uri", lambda fig: figs.append(fig) or "data:")
    g = [Gap(3, 0.1, 0.05, 0.15, 1, 3), Gap(3, 0.2, 0.1, 0.3, 1, 2)]
    gaps.gap_chart("tokens", ["a.csv", "b.csv"], ["a.csv", "b.csv"], g, 3)
    gaps.gap_chart("price", [8, 12], ["8", "12"], g, 3)
    styles = [fig.axes[0].lines[0].get_linestyle() for fig in figs]
    assert styles == ["None", "-"]
