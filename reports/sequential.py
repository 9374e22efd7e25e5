"""Report section of a sequential what-if test (``compare --until-significant``): the verdict per player
count and the log-likelihood ratio path against Wald's bounds. The record is the ``sprt`` entry of the
variant's run.json, written by :func:`sim.core.sprt.run_sequential`."""

from __future__ import annotations

import math
from typing import Any

from . import charts
from .html import esc, figure, num, pct, spct, table


def llr_chart(test: dict[str, Any]) -> str:
    """LLR after each batch (one line per one-sided test) with the accept-H0 and accept-H1 bounds."""
    plt = charts.plt
    fig, ax = plt.subplots(figsize=(6.4, 3.2), layout="constrained")
    path = test["path"]
    xs = [pt["games"] for pt in path]
    styles = {"rise": ("#3A9A5B", "0 vs +δ (rises)"), "fall": ("#C8454B", "0 vs −δ (falls)")}
    for key, (color, label) in styles.items():
        ys = [pt.get(f"llr_{key}") for pt in path]
        if ys and ys[0] is not None:
            ax.plot(xs, ys, marker="o", ms=3, lw=1.6, color=color, label=label)
    for y, text in ((test["upper"], "accept H1"), (test["lower"], "accept H0")):
        ax.axhline(y, color=charts.FAIR, ls="--", lw=1)
        ax.annotate(
            text,
            (1.0, y),
            xycoords=("axes fraction", "data"),
            xytext=(-4, 3),
            textcoords="offset points",
            ha="right",
            fontsize=8,
            color=charts.FAIR,
        )
    ax.axhline(0.0, color=charts.GRID, lw=1)
    ax.set_xlabel("games played (each in both runs)")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"{test['n_players']} players: {test['verdict']}")
    ax.legend(loc="upper left")
    return charts.to_uri(fig)


def sprt_section(record: dict[str, Any], base_label: str, var_label: str) -> str:
    st = record.get("settings", {})
    label = record.get("metric_label", "the measured rate")
    delta_text = (
        f"δ = {100 * st['delta']:.1f} win-share points"
        if st.get("delta") is not None
        else f"δ = {st.get('elo')} Elo at the fair share 1/P (converted per player count below)"
    )
    parts = [
        '<section class="block" id="sequential"><h2>Sequential test: stop when significant</h2>',
        f"<p>Measured: <b>{esc(label)}</b> in each game, <i>{esc(var_label)} − {esc(base_label)}</i>, on the "
        "same games (common random numbers). After each batch of "
        f"{st.get('batch', 0):,} games a sequential probability ratio test (Wald 1945, in the normal-"
        "approximation form of Fishtest's GSPRT) weighs <i>no change</i> (H0) against <i>a change of δ</i> "
        f"(H1); alternative {esc(st.get('alternative', ''))}, α = {st.get('alpha')}, β = {st.get('beta')}, "
        f"{esc(delta_text)}, at most {st.get('max_games', 0):,} games per player count. "
        "Each player count is tested on its own.</p>",
    ]
    rows, findings, figs = [], [], []
    for t in record.get("tests", []):
        sd = t.get("sd")
        half = (
            1.96 * sd / math.sqrt(t["games"]) if sd is not None and t["games"] > 1 and math.isfinite(sd) else math.nan
        )
        rows.append(
            (
                t["n_players"],
                f"{t['games']:,}",
                spct(t["delta"], 2),
                spct(t["mean"], 2),
                f"[{spct(t['mean'] - half, 2)}, {spct(t['mean'] + half, 2)}]",
                pct(t["changed"], 0),
                num(t["lower"]) + " / " + num(t["upper"]),
                " ".join(
                    f"{k} {num(v.get(f'llr_{k}'))}" for k in ("rise", "fall") for v in t["path"][-1:] if f"llr_{k}" in v
                ),
                f"<b>{esc(t['verdict'])}</b>",
            )
        )
        findings.append(
            f"<b>{t['n_players']} players</b> after {t['games']:,} games: {esc(t.get('text', t['verdict']))}."
        )
        figs.append(
            figure(
                llr_chart(t),
                f"LLR path, {t['n_players']} players",
                "the log-likelihood ratio after each batch; the test stops when a line leaves the band "
                "between the dashed bounds.",
            )
        )
    parts.append(
        "<div class='findings'><h4>Verdict</h4><ul>"
        + "".join(f"<li>{f}</li>" for f in findings)
        + "</ul><p class='muted'>The interval is the paired 95% interval of the mean difference at the "
        "stopping point; after an early stop it is only indicative (a sequential test's estimate is "
        "biased away from zero).</p></div>"
    )
    parts.append(
        table(
            [
                "players",
                "games",
                "δ",
                "mean difference",
                "95% CI",
                "games changed",
                "bounds (H0 / H1)",
                "final LLR",
                "verdict",
            ],
            rows,
            [True, True, True, True, True, True, True, True, False],
        )
    )
    parts += figs
    parts.append("</section>")
    return "\n".join(parts)
