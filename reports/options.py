"""The restricted-play report, "What is each option worth?" (``meeplab options``; sim/core/options.py).

An options directory holds ``options.json`` (the run's settings and one row per option class and mode) and
``report.html``. ``meeplab report DIR`` on such a directory writes the same report again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from meeplab.sim.core.errors import MeeplabError

OPTIONS_FILE = "options.json"
VERDICT_TEXT = {
    "dominant": "cannot win without it",
    "useless": "loses nothing without it",
    "unused": "never changed a game",
    "costly": "loses significantly without it",
    "helps": "wins more under the restriction",
    "-": "no clear effect",
}


def is_options(path: str | Path) -> bool:
    return (Path(path) / OPTIONS_FILE).is_file()


def load_options(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        meta = json.loads((path / OPTIONS_FILE).read_text(encoding="utf-8"))
        meta["rows"] = list(meta["rows"])
        missing = [k for k in ("game", "bot", "players", "games", "seed", "base_share") if k not in meta]
        if missing:
            raise KeyError(", ".join(missing))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MeeplabError(f"{path / OPTIONS_FILE}: not a readable options run ({exc})") from None
    return meta


def options_section(meta: dict[str, Any]) -> str:
    """The HTML section: findings, then per mode a table ranked by the change in win share, and a chart."""
    from .html import ci, esc, figure, pct, sig_mark, spct, table

    p = int(meta["players"])
    fair = 1.0 / p
    bot = esc(meta["bot"])
    parts = [
        '<section class="block" id="options"><h2>What is each option worth?</h2>',
        f"<p>Restricted play (Jaffe et al. 2012): one <code>{bot}</code> that may not use an option plays "
        f"{p - 1} unrestricted <code>{bot}</code>{'s' if p > 2 else ''} on the same {int(meta['games']):,} "
        f"games (seed {meta['seed']}, seats rotated) as the unrestricted baseline, whose win share in that "
        f"entry is {pct(meta['base_share'])} (fair {pct(fair)}). Each change in win share is a paired "
        "difference per game with its 95 % interval; ● marks a change significant after Holm's correction "
        "over the classes of a table. Verdicts: <i>dominant</i> (it wins under half its fair share without it), "
        "<i>useless</i> (it loses under 2 points of win share without it), <i>unused</i> (the restriction changed "
        "no game), <i>costly</i> / <i>helps</i> (a significant loss / gain), – (no clear effect). If every candidate of a decision is forbidden, the rules force one and "
        "the bot chooses among them.</p>",
    ]
    rows = meta["rows"]
    forbid = [r for r in rows if r["mode"] == "forbid"]
    items = []
    for r in forbid:
        if r["verdict"] in ("dominant", "useless", "unused"):
            items.append(
                f"<li><b>{esc(r['option'])}</b> ({esc(r['what'])}): {VERDICT_TEXT[r['verdict']]} "
                f"(win share {pct(r['share'])} {ci(r['lo'], r['hi'])}, change {spct(r['delta'])} "
                f"{ci(r['delta_lo'], r['delta_hi'], spct)})</li>"
            )
    if items:
        parts.append(
            "<div class='warn'><b>Candidates for a designer's look</b> (dominant: wins under half its fair "
            "share without it; useless: loses under 2 points of win share without it; unused: the bot "
            "never made a different choice):<ul>" + "".join(items) + "</ul></div>"
        )
    for mode, head in (("forbid", "Without the option"), ("only", "Only this option where there is a choice")):
        mr = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["delta"])
        if not mr:
            continue
        body = [
            [
                f"<code>{esc(r['option'])}</code><br><span class='muted'>{esc(r['what'])}</span>",
                f"{pct(r['share'])} {ci(r['lo'], r['hi'])}",
                f"{spct(r['delta'])} {ci(r['delta_lo'], r['delta_hi'], spct)}"
                + sig_mark(r["p_holm"] < 0.05 and r["changed"] > 0),
                f"{r['score_delta']:+.2f}",
                f"{r['changed']:,}",
                f"<span title='{esc(VERDICT_TEXT.get(r['verdict'], ''))}'>{esc(r['verdict'])}</span>",
            ]
            for r in mr
        ]
        parts.append(f"<h3>{head}</h3>")
        parts.append(
            table(
                ["option", "win share", "change", "score change", "games changed", "verdict"],
                body,
                [False, True, True, True, True, False],
            )
        )
        uri = _chart(mr, head)
        if uri:
            parts.append(
                figure(
                    uri,
                    head,
                    "Change in the restricted bot's win share against the unrestricted "
                    "baseline on the same games, with paired 95 % intervals.",
                )
            )
    parts.append("</section>")
    return "\n".join(parts)


def _chart(rows: list[dict[str, Any]], title: str) -> str:
    from . import charts

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
    import datetime as _dt

    from .html import _output_path, esc
    from .template import page

    out = _output_path(Path(out))
    meta = load_options(path)
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    title = (
        title
        or f"{meta.get('title', meta['game'])}: what is each option worth? ({meta['bot']}, {meta['players']} players)"
    )
    n_runs = 1 + len(meta["rows"])
    subtitle = esc(f"{n_runs} runs of {int(meta['games']):,} games · generated {now}")
    toc = "<nav class='toc'><a href='#options'>What is each option worth?</a></nav>"
    doc = page(
        esc(title),
        subtitle,
        toc,
        options_section(meta),
        "meeplab restricted play · win shares count a k-way shared first place as 1/k · intervals are 95%",
    )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(doc, encoding="utf-8")
    except OSError as exc:
        raise MeeplabError(f"{out}: cannot write report ({exc.strerror or exc})") from None
    return out
