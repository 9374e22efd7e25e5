"""The restricted-play report, "What is each option worth?" (``meeplab options``; lab/studies/options.py), rendered by
``templates/options.html.j2`` (:class:`reports.views.OptionsSection`). ``meeplab report DIR`` on an options directory
writes the same report again; the directory is read by :mod:`meeplab.analysis.options`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from meeplab.analysis.options import load_options

from . import charts
from .format import BR, ci, code, figure, muted, pct, sig_mark, spct, table, tag
from .template import now, output_path, render_page, write_page
from .views import Flag, OptionMode, OptionsSection

VERDICT_TEXT = {
    "dominant": "cannot win without it",
    "useless": "loses nothing without it",
    "unused": "never changed a game",
    "costly": "loses significantly without it",
    "helps": "wins more under the restriction (without it: the bot misplays it)",
    "-": "no clear effect",
}


def options_section(meta: dict[str, Any]) -> OptionsSection:
    """Findings, then per mode a table ranked by the change in win share, and a chart."""
    p = int(meta["players"])
    rows = meta["rows"]
    candidates = [
        Flag(
            r["option"],
            f" ({r['what']}): {VERDICT_TEXT[r['verdict']]} "
            f"(win share {pct(r['share'])} {ci(r['lo'], r['hi'])}, "
            f"change {spct(r['delta'])} {ci(r['delta_lo'], r['delta_hi'], spct)})",
        )
        for r in rows
        if r["mode"] == "forbid" and r["verdict"] in ("dominant", "useless", "unused", "helps")
    ]
    modes = []
    for mode, head in (("forbid", "Without the option"), ("only", "Only this option where there is a choice")):
        mr = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["delta"])
        if not mr:
            continue
        body = [
            [
                [code(r["option"]), BR, muted(r["what"])],
                f"{pct(r['share'])} {ci(r['lo'], r['hi'])}",
                [
                    f"{spct(r['delta'])} {ci(r['delta_lo'], r['delta_hi'], spct)}",
                    sig_mark(r["significant"]),
                ],
                f"{r['score_delta']:+.2f}",
                f"{r['changed']:,}",
                tag("span", r["verdict"], title=VERDICT_TEXT.get(r["verdict"], "")),
            ]
            for r in mr
        ]
        uri = option_chart(mr, head)
        modes.append(
            OptionMode(
                head=head,
                table=table(
                    ["option", "win share", "change", "score change", "games changed", "verdict"],
                    body,
                    [False, True, True, True, True, False],
                ),
                figure=figure(
                    uri,
                    head,
                    "Change in the restricted bot's win share against the unrestricted "
                    "baseline on the same games, with paired 95 % intervals.",
                )
                if uri
                else None,
            )
        )
    return OptionsSection(
        bot=meta["bot"],
        players=p,
        others=p - 1,
        plural="s" if p > 2 else "",
        games=f"{int(meta['games']):,}",
        seed=meta["seed"],
        base_share=pct(meta["base_share"]),
        fair=pct(1.0 / p),
        candidates=tuple(candidates),
        modes=tuple(modes),
    )


def option_chart(rows: list[dict[str, Any]], title: str) -> str:
    plt = charts.plt
    fig, ax = plt.subplots(figsize=(6.4, 0.32 * len(rows) + 1.4), layout="constrained")
    y = np.arange(len(rows))
    d = np.array([r["delta"] for r in rows])
    lo = np.array([r["delta_lo"] for r in rows])
    hi = np.array([r["delta_hi"] for r in rows])
    ax.barh(y, d, color=[charts.PALETTE[0] if v < 0 else charts.PALETTE[1] for v in d])
    ax.errorbar(d, y, xerr=[d - lo, hi - d], fmt="none", ecolor="black", capsize=2, lw=1)
    ax.axvline(0, color=charts.FAIR, lw=1, ls="--")
    ax.set_yticks(y, [r["option"] for r in rows])
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(charts.PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("change in win share")
    ax.set_title(title)
    return charts.to_uri(fig)


def build_options_report(path: str | Path, out: str | Path, title: str | None = None) -> Path:
    out = output_path(Path(out))
    meta = load_options(path)
    title = (
        title
        or f"{meta.get('title', meta['game'])}: what is each option worth? ({meta['bot']}, {meta['players']} players)"
    )
    doc = render_page(
        title,
        f"{1 + len(meta['rows'])} runs of {int(meta['games']):,} games · generated {now()}",
        [("options", "What is each option worth?")],
        [options_section(meta)],
        "meeplab restricted play · win shares count a k-way shared first place as 1/k · intervals are 95%",
    )
    return write_page(out, doc)
