"""Formatting for the reports: numbers and intervals as text, and the building blocks of the view models.

Everything here returns plain data, never HTML: numbers become strings (``pct``, ``ci``, ...), and rich text is a
*fragment* (:data:`reports.views.Fragment`): a string, a list of fragments, or a :class:`~reports.views.Tag` made by
:func:`tag` (``b``, ``code``, ``muted``, ``sig_mark``, ...). The templates' ``frag`` macro
(``templates/macros.html.j2``) writes fragments out and Jinja2's autoescape escapes every string in them, so no
builder escapes by hand. :func:`table` and :func:`figure` build a :class:`~reports.views.Table` and a
:class:`~reports.views.Figure`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from .views import Cell, Figure, Fragment, Row, Table, Tag

# -- numbers ---------------------------------------------------------------------------------


def bad(x: Any) -> bool:
    """No number to show: None, NaN or infinite."""
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def pct(x: Any, d: int = 1) -> str:
    return "–" if bad(x) else f"{100 * x:.{d}f}%"


def spct(x: Any, d: int = 1) -> str:
    """Signed percentage points (more decimals, up to 3, where the value would read as ±0.0)."""
    if bad(x):
        return "–"
    v = 100 * x
    if abs(v) < 1e-9:  # floating-point noise of an unchanged value
        v = 0.0
    while v != 0 and abs(v) < 0.5 * 10**-d and d < 3:
        d += 1
    return f"{v:+.{d}f} pp"


def num(x: Any, d: int = 2) -> str:
    if bad(x):
        return "–"
    if isinstance(x, int) or (isinstance(x, float) and d == 0):
        return f"{x:,.0f}"
    return f"{x:,.{d}f}"


def snum(x: Any, d: int = 2) -> str:
    if bad(x):
        return "–"
    return f"{(0.0 if abs(x) < 1e-12 else x):+,.{d}f}"


def ci(lo: Any, hi: Any, f=pct) -> str:
    """``lo … hi``; with more decimals (up to 2 extra) where the two ends would print the same."""
    if bad(lo) or bad(hi):
        return "–"
    a, b = f(lo), f(hi)
    if a == b and lo != hi and f in (snum, num, spct, pct):
        base = 1 if f in (spct, pct) else 2
        for d in (base + 1, base + 2):
            a, b = f(lo, d), f(hi, d)
            if a != b:
                break
    return f"{a} … {b}"


def pval(p: Any) -> str:
    """``p = 0.071`` / ``p < 0.001``."""
    if bad(p):
        return "p = –"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ",".join(fmt_value(x) for x in v)
    return str(v)


def fmt_duration(s: Any) -> str:
    if bad(s) or not isinstance(s, (int, float)):
        return "–"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {s % 60:02.0f} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


def seats_text(seats: float) -> str:
    """Seats per game: a whole number as such, else two decimals."""
    return num(seats, 2) if abs(seats - round(seats)) > 1e-9 else f"{seats:.0f}"


def slug(text: str) -> str:
    s = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower()
    return s or "run"


# -- fragments: rich text as data -------------------------------------------------------------

BR = Tag("br")


def tag(name: str, content: Any, cls: str | None = None, title: str | None = None, href: str | None = None) -> Tag:
    """One element of rich text: ``<name class=cls title=title href=href>content</name>`` (``href``: an anchor of
    the page, ``#...``; the page writes no other link)."""
    return Tag(name, content, cls, title, href)


def b(x: Any) -> Tag:
    return tag("b", x)


def code(x: Any) -> Tag:
    return tag("code", x)


def muted(x: Any) -> Tag:
    return tag("span", x, "muted")


def badge(text: str, kind: str) -> Tag:
    """``kind``: ok, warn or info."""
    return tag("span", text, f"badge {kind}")


def sig_mark(flag: Any, title: str = "significant after Holm's correction for the comparisons marked") -> Any:
    """● where ``flag`` is true; every mark in a report comes from a test named next to it."""
    return [" ", tag("span", "●", "sig", title=title)] if flag else ""


def bot_label(name: str, seats: Any, several: Any) -> Fragment:
    """A bot's name, labelled "per seat" with its ``seats`` per game when it fills ``several`` seats of each game
    (the analysis's ``by_game``: its rates are per seat)."""
    if not several or bad(seats):
        return name
    k = f"{seats:.0f}" if abs(seats - round(seats)) < 1e-9 else num(seats, 2)
    return [name, " ", muted(f"(per seat, {k} seats)")]


def diff_ci(lo: Any, hi: Any, base: Any, other: Any, f=spct) -> str:
    """Interval of a win-rate difference; a bot that never won in either run has nothing to compare."""
    if not bad(base) and not bad(other) and base == 0 and other == 0:
        return "no wins in either run"
    if not bad(lo) and lo == hi:
        return "same in every game"
    return ci(lo, hi, f)


# -- tables and figures ----------------------------------------------------------------------


def table(
    head: Sequence[Any],
    rows: Sequence[Sequence[Any]],
    numeric: Sequence[bool] | None = None,
    group_col: int | None = None,
) -> Table:
    """A table for the ``table`` macro: header and cells are fragments; ``numeric[i]`` right-aligns column i;
    ``group_col``: draw a separator line where that column's value changes."""
    numeric = list(numeric or [False] * len(head))
    out_rows: list[Row] = []
    prev: Any = object()
    for r in rows:
        group = False
        if group_col is not None:
            group = r[group_col] != prev and bool(out_rows)
            prev = r[group_col]
        out_rows.append(Row(tuple(Cell(c, n) for c, n in zip(r, numeric)), group))
    return Table(tuple(Cell(h, n) for h, n in zip(head, numeric)), tuple(out_rows))


def figure(uri: str, alt: str, how: Any) -> Figure:
    """A chart (a ``data:`` URI from :mod:`reports.charts`) with its alt text and its "How to read" caption."""
    return Figure(uri, alt, how)
