"""Matplotlib charts for the report, each returned as a ``data:image/png;base64,...`` URI so the
HTML stays one self-contained file. Inputs are the small DataFrames from :mod:`meeplab.analysis.stats`."""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.ticker import PercentFormatter

PALETTE = ["#3B6FB6", "#E07B39", "#3A9A5B", "#C8454B", "#7E62B0", "#8C6A4F", "#D46FB1", "#6F7378", "#B8A637", "#3AA7C4"]
CAT_PALETTE = [
    "#4E79A7",
    "#F28E2B",
    "#59A14F",
    "#E15759",
    "#76B7B2",
    "#EDC948",
    "#B07AA1",
    "#FF9DA7",
    "#9C755F",
    "#BAB0AC",
    "#86BCB6",
    "#D37295",
]
INK = "#2B2F36"
GRID = "#E3E6EA"
FAIR = "#8A9099"
DPI = 110

plt.rcParams.update(
    {
        "font.family": "DejaVu Sans",
        "font.size": 9.5,
        "axes.edgecolor": "#B9BEC5",
        "axes.labelcolor": INK,
        "axes.titlesize": 10.5,
        "axes.titleweight": "bold",
        "axes.titlecolor": INK,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "axes.axisbelow": True,
        "grid.color": GRID,
        "grid.linewidth": 0.8,
        "xtick.color": INK,
        "ytick.color": INK,
        "legend.frameon": False,
        "legend.fontsize": 9,
        # names from data (bots, runs, parameter values) are drawn as written: "$" starts no formula (a name
        # like "$\x$" would otherwise fail the whole report)
        "text.parse_math": False,
    }
)


def colors_for(names: Sequence[str], palette: Sequence[str] = PALETTE) -> dict[str, str]:
    """A stable name -> colour mapping (the same bot has the same colour in every chart)."""
    return {n: palette[i % len(palette)] for i, n in enumerate(names)}


def to_uri(fig) -> str:
    buf = io.BytesIO()
    # every figure uses the constrained layout engine (it makes room for outside legends), so no
    # second "tight bbox" drawing pass is needed
    fig.savefig(buf, format="png", dpi=DPI, facecolor="white")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


_TO_URI = to_uri


# Charts already drawn in this process, by what they were drawn from (see remembered): a run's charts recur in every
# report that holds the run (a comparison, a ladder's rungs, a report made again after a resume), and drawing one
# costs 0.05-0.5 s of matplotlib.
_DRAWN: OrderedDict = OrderedDict()
_DRAWN_MAX = 96
_DRAWN_LOCK = threading.Lock()


def _content_key(value, digest) -> bool:
    """Feed ``value``'s content into ``digest``; False for a value whose content this does not know how to read."""
    if isinstance(value, pl.DataFrame):
        try:
            data = value.serialize(format="binary")
        except Exception:  # a column polars cannot write (objects): drawn every time
            return False
        digest.update(repr(value.schema).encode())
        digest.update(data)
    elif isinstance(value, dict):
        digest.update(b"{")
        for k, v in value.items():
            if not (_content_key(k, digest) and _content_key(v, digest)):
                return False
        digest.update(b"}")
    elif isinstance(value, (list, tuple)):
        digest.update(b"[" if isinstance(value, list) else b"(")
        for v in value:
            if not _content_key(v, digest):
                return False
        digest.update(b"]")
    elif value is None or isinstance(value, (str, int, float, bool)):
        digest.update(f"{type(value).__name__}:{value!r};".encode())
    else:
        return False
    return True


def remembered(chart):
    """A chart function whose picture is kept for the life of the process, keyed by the content of its arguments
    (frames, names, colours) and matplotlib's settings (a notebook that changes a style gets new pictures): the same
    arguments draw the same picture, so a chart drawn once is not drawn again (the :data:`_DRAWN_MAX` most recent
    are kept). Arguments it cannot read the content of are drawn every time, and so is every chart while
    :func:`to_uri` is replaced (a test that looks at the figures themselves)."""

    @functools.wraps(chart)
    def draw(*args, **kwargs):
        digest = hashlib.sha256(chart.__qualname__.encode())
        digest.update(repr(sorted(matplotlib.rcParams.items(), key=lambda kv: kv[0])).encode())
        if to_uri is not _TO_URI or not _content_key((args, sorted(kwargs.items())), digest):
            return chart(*args, **kwargs)
        key = digest.hexdigest()
        with _DRAWN_LOCK:
            if key in _DRAWN:
                _DRAWN.move_to_end(key)
                return _DRAWN[key]
        uri = chart(*args, **kwargs)
        with _DRAWN_LOCK:
            _DRAWN[key] = uri
            while len(_DRAWN) > _DRAWN_MAX:
                _DRAWN.popitem(last=False)
        return uri

    return draw


def _grid(n: int, panel_w: float = 4.2, panel_h: float = 3.0, max_cols: int = 3, sharey: bool = True):
    cols = min(n, max_cols)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(panel_w * cols, panel_h * rows), squeeze=False, sharey=sharey, layout="constrained"
    )
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _pct_axis(ax, top: float | None = None):
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_ylim(0, top if top is not None else ax.get_ylim()[1])


def _err(df: pl.DataFrame, val: str = "win_rate", lo: str = "lo", hi: str = "hi") -> np.ndarray:
    v = df[val].to_numpy()
    return np.vstack([np.clip(v - df[lo].to_numpy(), 0, None), np.clip(df[hi].to_numpy() - v, 0, None)])


@remembered
def win_rate_by_bot(by_bot: pl.DataFrame, colors: dict[str, str]) -> str:
    """Grouped bars: win rate per bot for each player count, error bars from the ``lo``/``hi`` columns, fair share
    line."""
    players = by_bot["n_players"].unique().sort().to_list()
    bots = [b for b in colors if b in set(by_bot["bot"].to_list())]
    fig, ax = plt.subplots(
        figsize=(max(5.0, 1.1 + 1.3 * len(players) * max(1, len(bots)) * 0.45), 3.4), layout="constrained"
    )
    width = 0.8 / max(1, len(bots))
    top = 0.0
    for j, bot in enumerate(bots):
        d = by_bot.filter(pl.col("bot") == bot).sort("n_players")
        xs = [players.index(p) + (j - (len(bots) - 1) / 2) * width for p in d["n_players"].to_list()]
        ax.bar(xs, d["win_rate"].to_numpy(), width * 0.92, color=colors[bot], label=bot, zorder=2)
        ax.errorbar(
            xs, d["win_rate"].to_numpy(), yerr=_err(d), fmt="none", ecolor=INK, elinewidth=1, capsize=3, zorder=3
        )
        top = max(top, float(np.nanmax(d["hi"].to_numpy())))
    for i, p in enumerate(players):
        ax.hlines(
            1.0 / p,
            i - 0.45,
            i + 0.45,
            colors=FAIR,
            linestyles="--",
            linewidth=1.2,
            zorder=4,
            label="fair share 1/P" if i == 0 else None,
        )
    ax.set_xticks(range(len(players)), [f"{p} players" for p in players])
    ax.set_ylabel("win rate")
    _pct_axis(ax, min(1.0, top * 1.15 + 0.02))
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_uri(fig)


@remembered
def win_rate_by_seat(by_seat: pl.DataFrame) -> str:
    """One panel per player count: win rate per seat (``win_rate``, ``lo``, ``hi``: the
    report passes the lineup-adjusted rates of the seat model), fair share line."""
    players = by_seat["n_players"].unique().sort().to_list()
    fig, axes = _grid(len(players), panel_w=3.4, panel_h=2.8, max_cols=4)
    his = by_seat["hi"].to_numpy().astype(float)
    his = his[np.isfinite(his)]  # a seat model without intervals (too few games) gives none: the axis ends at 100 %
    top = float(his.max()) if his.size else 1.0
    for ax, p in zip(axes, players):
        d = by_seat.filter(pl.col("n_players") == p).sort("seat")
        seats = d["seat"].to_list()
        ax.bar(seats, d["win_rate"].to_numpy(), 0.65, color=PALETTE[0], zorder=2)
        ax.errorbar(
            seats, d["win_rate"].to_numpy(), yerr=_err(d), fmt="none", ecolor=INK, capsize=3, elinewidth=1, zorder=3
        )
        ax.axhline(1.0 / p, color=FAIR, linestyle="--", linewidth=1.2, zorder=4)
        ax.set_xticks(seats, [f"{s + 1}" for s in seats])
        ax.set_xlabel("seat (1 = start player)")
        ax.set_title(f"{p} players")
        ax.grid(axis="x", visible=False)
        _pct_axis(ax, min(1.0, top * 1.15 + 0.02))
    axes[0].set_ylabel("win rate")
    return to_uri(fig)


@remembered
def score_histogram(hist: pl.DataFrame, colors: dict[str, str]) -> str:
    """One panel per player count: share of games per score bin, one outline per bot."""
    players = hist["n_players"].unique().sort().to_list()
    fig, axes = _grid(len(players), panel_w=4.3, panel_h=2.9, sharey=False)
    for ax, p in zip(axes, players):
        d = hist.filter(pl.col("n_players") == p)
        width = float(d["width"][0])
        lo, hi = float(d["left"].min()), float(d["left"].max()) + width
        edges = np.arange(lo, hi + width * 0.5, width)
        for bot in [b for b in colors if b in set(d["bot"].to_list())]:
            db = d.filter(pl.col("bot") == bot)
            counts = np.zeros(len(edges) - 1)
            idx = np.rint((db["left"].to_numpy() - lo) / width).astype(int)
            np.add.at(counts, np.clip(idx, 0, len(counts) - 1), db["count"].to_numpy())
            share = counts / counts.sum()
            ax.stairs(share, edges, color=colors[bot], linewidth=1.6, label=bot)
            ax.stairs(share, edges, color=colors[bot], alpha=0.12, fill=True)
        ax.set_title(f"{p} players")
        ax.set_xlabel("final score")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("share of games")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper")
    return to_uri(fig)


@remembered
def score_breakdown(by_bot: pl.DataFrame, categories: Sequence[str], colors: dict[str, str]) -> str:
    """One panel per player count: horizontal stacked bars of mean points per category per bot
    (negative categories stack to the left of zero)."""
    players = by_bot["n_players"].unique().sort().to_list()
    cat_col = colors_for(categories, CAT_PALETTE)
    bots = [b for b in colors if b in set(by_bot["bot"].to_list())]
    fig, axes = _grid(len(players), panel_w=4.6, panel_h=0.55 * len(bots) + 1.3, max_cols=2, sharey=True)
    for ax, p in zip(axes, players):
        d = by_bot.filter(pl.col("n_players") == p)
        y = np.arange(len(bots))
        pos = np.zeros(len(bots))
        neg = np.zeros(len(bots))
        for c in categories:
            vals = np.array(
                [float(d.filter(pl.col("bot") == b)[f"cat_{c}"][0]) if b in d["bot"].to_list() else 0.0 for b in bots]
            )
            left = np.where(vals >= 0, pos, neg + vals)
            ax.barh(
                y,
                np.abs(vals),
                left=left,
                height=0.62,
                color=cat_col[c],
                label=c,
                zorder=2,
                edgecolor="white",
                linewidth=0.6,
            )
            pos += np.where(vals >= 0, vals, 0)
            neg += np.where(vals < 0, vals, 0)
        ax.set_yticks(y, bots)
        if not ax.yaxis_inverted():  # shared y axes: invert once
            ax.invert_yaxis()
        if neg.min() < 0:
            ax.axvline(0, color=INK, linewidth=0.8)
        ax.set_xlabel("mean points per game")
        ax.set_title(f"{p} players")
        ax.grid(axis="y", visible=False)
    handles, labels = axes[0].get_legend_handles_labels()
    fit_legend(fig, handles, labels, min(6, len(categories)))
    return to_uri(fig)


def fit_legend(fig, handles, labels, ncol: int, loc: str = "outside lower center"):
    """A figure legend in as many columns (at most ``ncol``) as fit the figure's width: a centred legend wider than
    the figure would be cut at both edges (ten long category names in one narrow panel)."""
    renderer = fig.canvas.get_renderer()
    for n in range(max(1, ncol), 0, -1):
        leg = fig.legend(handles, labels, loc=loc, ncol=n)
        if n == 1 or leg.get_window_extent(renderer).width <= fig.bbox.width * 0.98:
            return leg
        leg.remove()
    return None


@remembered
def length_distribution(lengths: pl.DataFrame, unit: str) -> str:
    """One panel per player count: share of games per game length."""
    players = lengths["n_players"].unique().sort().to_list()
    fig, axes = _grid(len(players), panel_w=3.6, panel_h=2.6, max_cols=4, sharey=False)
    for ax, p in zip(axes, players):
        d = lengths.filter(pl.col("n_players") == p).sort("length")
        x = d["length"].to_numpy().astype(float)
        share = d["games"].to_numpy() / d["games"].sum()
        span = x.max() - x.min()
        if len(x) > 80:  # too many distinct lengths for bars: bin them
            width = max(1.0, math.ceil(span / 50))
            edges = np.arange(x.min(), x.max() + width + 1e-9, width)
            counts, _ = np.histogram(x, bins=edges, weights=share)
            ax.stairs(counts, edges, fill=True, color=PALETTE[2], alpha=0.85)
        else:
            ax.bar(x, share, width=0.8, color=PALETTE[2], zorder=2)
        mean = float((x * share).sum())
        ax.axvline(mean, color=INK, linestyle=":", linewidth=1.2)
        ax.set_title(f"{p} players (mean {mean:.1f})")
        ax.set_xlabel(unit)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.grid(axis="x", visible=False)
    axes[0].set_ylabel("share of games")
    return to_uri(fig)


def _text_color(rgba) -> str:
    r, g, b = rgba[:3]
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.55 else INK


@remembered
def rank_distribution(ranks: pl.DataFrame, colors: dict[str, str]) -> str:
    """One panel per player count: 100% stacked bars of finishing rank per bot (green = first,
    red = last, scaled to the panel's player count)."""
    players = ranks["n_players"].unique().sort().to_list()
    bots = [b for b in colors if b in set(ranks["bot"].to_list())]
    cmap = LinearSegmentedColormap.from_list("rank", ["#1B7837", "#7FBC41", "#F2B134", "#E8743B", "#C0392B"])
    fig, axes = _grid(len(players), panel_w=4.2, panel_h=0.5 * len(bots) + 1.5, max_cols=2)
    for ax, p in zip(axes, players):
        d = ranks.filter(pl.col("n_players") == p)
        y = np.arange(len(bots))
        left = np.zeros(len(bots))
        for r in range(1, p + 1):
            col = cmap((r - 1) / max(1, p - 1))
            vals = np.array(
                [float(d.filter((pl.col("bot") == b) & (pl.col("rank") == r))["share"].sum()) for b in bots]
            )
            ax.barh(
                y,
                vals,
                left=left,
                height=0.62,
                color=col,
                label=f"{_ordinal(r)}",
                edgecolor="white",
                linewidth=0.6,
                zorder=2,
            )
            for yi, (l, v) in enumerate(zip(left, vals)):
                if v >= 0.07:
                    ax.text(l + v / 2, yi, f"{v:.0%}", ha="center", va="center", fontsize=8, color=_text_color(col))
            left += vals
        ax.set_yticks(y, bots)
        if not ax.yaxis_inverted():
            ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_title(f"{p} players")
        ax.grid(False)
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=p, fontsize=8, handlelength=1.2, columnspacing=1.0
        )
    return to_uri(fig)


def _ordinal(r: int) -> str:
    return f"{r}{'st' if r == 1 else 'nd' if r == 2 else 'rd' if r == 3 else 'th'}"


def forest_pair(rows: list[dict], panels: Sequence[tuple[str, str, str, str, bool]], colors: dict[str, str]) -> str:
    """Difference plot, one panel per ``(value, lo, hi, xlabel, is_rate)``: a point with its 95% CI per
    (player count, bot) row and a zero line. Rates are drawn in percentage points."""
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(5.0 * len(panels), 0.42 * len(rows) + 1.1),
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    y = np.arange(len(rows))
    for ax, (value, lo, hi, xlabel, rate) in zip(axes[0], panels):
        k = 100.0 if rate else 1.0
        for i, r in enumerate(rows):
            c = colors.get(r["bot"], PALETTE[0])
            v, a, b = r[value], r[lo], r[hi]
            if a is not None and b is not None and np.isfinite(a) and np.isfinite(b):
                ax.hlines(i, a * k, b * k, color=c, linewidth=2.4)
            ax.plot([v * k], [i], "o", color=c, markersize=6.5, zorder=3)
        ax.axvline(0, color=INK, linewidth=0.9)
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)
        ax.margins(x=0.12)
        ax.ticklabel_format(axis="x", useOffset=False, style="plain")
        vals = [abs(r[c]) * k for r in rows for c in (value, lo, hi) if r[c] is not None and np.isfinite(r[c])]
        if not vals or max(vals) < 1e-9:  # nothing moved: a readable symmetric axis around zero
            ax.set_xlim(-1.0, 1.0)
    axes[0][0].set_yticks(y, [f"{r['bot']} · {r['n_players']}P" for r in rows])
    if not axes[0][0].yaxis_inverted():
        axes[0][0].invert_yaxis()
    return to_uri(fig)


def compare_win_rates(rows: list[dict], labels: Sequence[str], colors: dict[str, str]) -> str:
    """Side-by-side win rates with their interval bars: for every (player count, bot), one bar per run."""
    run_cols = colors_for(labels, ["#3B6FB6", "#E07B39", "#3A9A5B", "#7E62B0", "#C8454B", "#6F7378"])
    keys = sorted({(r["n_players"], r["bot"]) for r in rows})
    fig, ax = plt.subplots(figsize=(max(5.5, 1.2 + 0.55 * len(keys) * len(labels)), 3.4), layout="constrained")
    width = 0.8 / len(labels)
    top = 0.0
    for j, lab in enumerate(labels):
        xs, v, lo, hi = [], [], [], []
        for i, k in enumerate(keys):
            for r in rows:
                if r["label"] == lab and (r["n_players"], r["bot"]) == k:
                    xs.append(i + (j - (len(labels) - 1) / 2) * width)
                    v.append(r["win_rate"])
                    lo.append(r["lo"])
                    hi.append(r["hi"])
        v, lo, hi = np.array(v), np.array(lo), np.array(hi)
        ax.bar(xs, v, width * 0.92, color=run_cols[lab], label=lab, zorder=2)
        ax.errorbar(xs, v, yerr=np.vstack([v - lo, hi - v]), fmt="none", ecolor=INK, capsize=3, elinewidth=1, zorder=3)
        if len(hi):
            top = max(top, float(np.nanmax(hi)))
    ax.set_xticks(range(len(keys)), [f"{b}\n{p} players" for p, b in keys])
    ax.set_ylabel("win rate")
    _pct_axis(ax, min(1.0, top * 1.15 + 0.02))
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_uri(fig)


def sweep_chart(
    param: str,
    xs: list,
    xlabels: list[str],
    win: pl.DataFrame,
    cats: pl.DataFrame,
    categories: Sequence[str],
    colors: dict[str, str],
    n_players: int,
) -> str:
    """Two panels for one player count: win rate per bot against the swept value (interval bars), and
    mean points per category (all players) against it."""
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    pos = list(xs) if numeric else list(range(len(xs)))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10.5, 3.4), layout="constrained")
    for bot in [b for b in colors if b in set(win["bot"].to_list())]:
        d = win.filter(pl.col("bot") == bot).sort("i")
        x = [pos[i] for i in d["i"].to_list()]
        a1.errorbar(
            x,
            d["win_rate"].to_numpy(),
            yerr=_err(d),
            color=colors[bot],
            marker="o",
            capsize=3,
            linewidth=1.6,
            linestyle="-" if numeric else "none",  # values without an order (files, names): points, no line
            label=bot,
        )
    a1.axhline(1.0 / n_players, color=FAIR, linestyle="--", linewidth=1.1, label="fair share")
    a1.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    a1.set_ylim(0, min(1.0, max(float(np.nanmax(win["hi"].to_numpy())), 1.0 / n_players) * 1.12 + 0.01))
    a1.set_ylabel("win rate")
    a1.set_title(f"Win rate vs {param} ({n_players} players)")
    a1.legend(fontsize=8)
    cat_col = colors_for(categories, CAT_PALETTE)
    d = cats.sort("i")
    x = [pos[i] for i in d["i"].to_list()]
    for c in categories:
        ls = "-" if numeric else "none"
        a2.plot(x, d[f"cat_{c}"].to_numpy(), marker="o", color=cat_col[c], linewidth=1.6, ls=ls, label=c)
    a2.set_ylabel("mean points per player")
    a2.set_title(f"Points by category vs {param}")
    a2.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    for ax in (a1, a2):
        ax.set_xlabel(param)
        if not numeric or len(pos) <= 12:
            ax.set_xticks(pos, xlabels)
    return to_uri(fig)
