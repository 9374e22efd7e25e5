"""Report section of ``meeplab fair``: the answer first (the fairest value per player count with its interval and
the seat gap there, or with ``--seats all`` one row per seat), from the command's ``OUT/fair.json`` record;
``templates/fair.html.j2`` renders the view model (:class:`reports.views.FairSection`)."""

from __future__ import annotations

from typing import Any

from .format import b, table
from .views import FairSection


def _iv(lo: Any, hi: Any) -> str:
    try:
        return f"[{float(lo):.3g}, {float(hi):.3g}]"
    except (TypeError, ValueError):
        return "–"


def _gap(r: dict[str, Any]) -> str:
    g = r.get("seat_gap") or {}
    try:
        return f"{float(g['gap']):.3f} [{float(g['lo']):.3f}, {float(g['hi']):.3f}]"
    except (KeyError, TypeError, ValueError):
        return "–"


def fair_section(record: dict[str, Any]) -> FairSection:
    """The answer of a fair search (``fair.json``): a table per the search's kind and one line saying what it is."""
    param = str(record.get("param", "?"))
    results = [r for r in record.get("results", []) if isinstance(r, dict)]
    if record.get("target") == "every seat":
        head = ["players", "seat", "default", param, "95% interval", "seat worth (units)", "win rate there"]
        rows = []
        for r in results:
            seats = {int(x["seat"]): x for x in r.get("seats", []) if isinstance(x, dict) and "seat" in x}
            for i, v in enumerate(r.get("values", [])):
                m = seats.get(i + 1, {})
                whole = (r.get("whole_range") or [False] * (i + 1))[i]
                rows.append(
                    [
                        r.get("n_players", ""),
                        i + 1,
                        f"{r['default'][i]:g}",
                        b(f"{v:g}"),
                        "kept"
                        if record.get("keep") == i + 1
                        else "no value in range decides it"
                        if whole
                        else _iv(r["lo"][i], r["hi"][i]),
                        f"{r['worth'][i]:+.2f} {_iv(r['worth_lo'][i], r['worth_hi'][i])}",
                        f"{m['win_rate']:.3f} {_iv(m['lo'], m['hi'])}" if "win_rate" in m else "–",
                    ]
                )
        keep = record.get("keep")
        how = (
            f"one value of {param} per seat from a fitted seat model ("
            + ("the seats' total kept" if keep is None else f"seat {keep}'s value kept")
            + "); the seat gap at the answer: "
            + "; ".join(f"{r.get('n_players')} players {_gap(r)}" for r in results)
        )
        notes = [str(n) for r in results for n in r.get("notes", [])]
        return FairSection(param=param, how=how, notes=tuple(notes), table=table(head, rows, [True, True, True, True,
                           False, False, False]))  # fmt: skip
    head = ["players", param, "95% interval", "seat gap there", "values played"]
    rows = []
    for r in results:
        rows.append(
            [
                r.get("n_players", ""),
                "no answer" if r.get("whole_range") else b(f"{float(r.get('value', float('nan'))):.4g}"),
                "the whole range" if r.get("whole_range") else _iv(r.get("lo"), r.get("hi")),
                _gap(r),
                len(r.get("points", [])),
            ]
        )
    how = f"the value of {param} that makes the game fairest ({record.get('imbalance', record.get('target', ''))})"
    notes = [str(r["note"]) for r in results if r.get("note")]
    return FairSection(
        param=param, how=how, notes=tuple(notes), table=table(head, rows, [True, True, False, False, True])
    )
