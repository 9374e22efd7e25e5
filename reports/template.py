"""The Jinja2 environment of the reports and the one page every report is: ``templates/base.html.j2`` with the
stylesheet and script inlined, so the report stays one self-contained file.

Section builders return plain data (dicts with a ``template`` key naming their section template); :func:`render_page`
renders them into the page and :func:`write_page` writes it. Jinja2 escapes every value; the only HTML passed in
as such is the package's own stylesheet and script (:func:`assets`).
"""

from __future__ import annotations

import datetime as _dt
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write


@cache
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("meeplab.reports", "templates"),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@cache
def assets() -> tuple[Markup, Markup]:
    """The stylesheet and the script, inlined as they are: the one place where HTML-safe text enters a page."""
    folder = resources.files("meeplab.reports") / "templates"
    css = (folder / "report.css").read_text(encoding="utf-8")
    js = (folder / "report.js").read_text(encoding="utf-8")
    return Markup(css), Markup(js)


def now() -> str:
    """The time a report is generated, as its subtitle shows it."""
    return _dt.datetime.now().strftime("%Y-%m-%d %H:%M")


def render_page(
    title: str,
    subtitle: str,
    toc: list[tuple[str, str]],
    sections: list[dict[str, Any]],
    footer: str,
) -> str:
    """The whole report: ``toc`` is (anchor, text) pairs (no table of contents with fewer than two), ``sections``
    the builders' data, each rendered by the template its ``template`` key names."""
    css, js = assets()
    return (
        environment()
        .get_template("base.html.j2")
        .render(title=title, subtitle=subtitle, toc=toc, sections=sections, footer=footer, css=css, js=js)
    )


def output_path(out: Path) -> Path:
    """Where the report goes (``OUT/report.html`` for an existing directory); checked before any work."""
    if out.is_dir():
        out = out / "report.html"
    anc = out.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if not anc.is_dir():
        raise MeeplabError(f"{out}: cannot write report ({anc} is not a directory)")
    if not os.access(anc, os.W_OK):
        raise MeeplabError(f"{out}: cannot write report ({anc} is not writable)")
    return out


def write_page(out: Path, doc: str) -> Path:
    try:
        atomic_write(out, doc)
    except OSError as exc:
        raise MeeplabError(f"{out}: cannot write report ({exc.strerror or exc})") from None
    return out
