"""Report section of a sequential what-if test (``compare --until-significant``): the verdict per player
count and the log-likelihood ratio path against Wald's bounds. The record is the ``sprt`` entry of the
variant's run.json, written by :func:`meeplab.lab.studies.sprt.run_sequential`; ``templates/sprt.html.j2``
renders its view model (:class:`reports.views.SequentialSection`)."""

from __future__ import annotations

import math
from typing import Any

from meeplab.lab.studies.sprt import verdict_sentence

from . import charts
from .format import b, figure, num, pct, spct, table
from .views import Figure, Fragment, SequentialSection


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


def verdict_finding(test: dict[str, Any], record: dict[str, Any], head: str) -> list[Fragment]:
    """One player count's verdict as a finding: the sentence of :func:`meeplab.lab.studies.sprt.verdict_sentence`,
    the same in the sequential section and in the key changes (``head`` names the run there)."""
    label = record.get("metric_label", "the measured rate")
    return [b(f"{head}{test['n_players']} players"), f" (sequential test): {verdict_sentence(test, label)}."]


def sprt_section(record: dict[str, Any], base_label: str, var_label: str) -> SequentialSection:
    st = record.get("settings", {})
    delta_text = (
        f"δ = {100 * st['delta']:.1f} win-share points"
        if st.get("delta") is not None
        else f"δ = {st.get('elo')} Elo at the fair share 1/P (converted per player count below)"
    )
    rows: list[tuple[Fragment, ...]] = []
    findings: list[Fragment] = []
    figs: list[Figure] = []
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
                b(t["verdict"]),
            )
        )
        findings.append(verdict_finding(t, record, ""))
        figs.append(
            figure(
                llr_chart(t),
                f"LLR path, {t['n_players']} players",
                "the log-likelihood ratio after each batch; the test stops when a line leaves the band "
                "between the dashed bounds.",
            )
        )
    head = [
        "players",
        "games",
        "δ",
        "mean difference",
        "95% CI",
        "games changed",
        "bounds (H0 / H1)",
        "final LLR",
        "verdict",
    ]
    return SequentialSection(
        label=record.get("metric_label", "the measured rate"),
        base=base_label,
        variant=var_label,
        batch=f"{st.get('batch', 0):,}",
        alternative=st.get("alternative", ""),
        alpha=st.get("alpha"),
        beta=st.get("beta"),
        delta=delta_text,
        max_games=f"{st.get('max_games', 0):,}",
        findings=tuple(findings),
        table=table(head, rows, [True, True, True, True, True, True, True, True, False]),
        figures=tuple(figs),
    )
