"""The Jinja2 environment of the reports and the one page every report is: ``templates/base.html.j2`` with the
stylesheet and script inlined, so the report stays one self-contained file.

Section builders return view models (:mod:`reports.views`, each section naming its template); :func:`render_page`
renders them into the page and :func:`write_page` writes it. Jinja2 escapes every value; the only HTML passed in
as such is the package's own stylesheet and script (:func:`assets`), and JSON goes into a page through the
``tojson`` filter (``<``, ``>``, ``&`` and ``'`` written as ``\u003c`` ..., still valid JSON).

Every page carries a Content-Security-Policy (:func:`content_policy`): nothing from the network, no script or
stylesheet but the page's own inlined ones (allowed by their SHA-256 hashes), images only from ``data:`` and
``blob:`` URIs (the charts are ``data:`` PNGs).
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import os
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write

from .views import Section, Tag, TocEntry


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("meeplab.reports", "templates"),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.tests["tag"] = lambda x: isinstance(x, Tag)  # a fragment's element (macros.html.j2)
    # ``tojson``: compact, and no NaN (not JSON; JSON.parse would refuse the page's data)
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "separators": (",", ":"), "allow_nan": False}
    return env


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_policy(scripts: Sequence[str], styles: Sequence[str]) -> str:
    """The Content-Security-Policy of a self-contained page whose inline ``<script>`` and ``<style>`` elements hold
    exactly ``scripts`` and ``styles`` (each element's whole text): those run, nothing else does; no request
    leaves the page (``default-src 'none'``, no ``connect-src``); images only from ``data:``/``blob:`` URIs. The
    pages set no ``style`` attributes (a script may still set ``element.style``, which CSP allows)."""
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(_sha256(t) for t in scripts),
            "style-src " + " ".join(_sha256(t) for t in styles),
            "img-src data: blob:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
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
    toc: Sequence[tuple[str, str]],
    sections: Sequence[Section],
    footer: str,
) -> str:
    """The whole report: ``toc`` is (anchor, text) pairs (no table of contents with fewer than two), ``sections``
    the builders' view models, each rendered by the template it names."""
    css, js = assets()
    return (
        environment()
        .get_template("base.html.j2")
        .render(
            title=title,
            subtitle=subtitle,
            toc=tuple(TocEntry(a, t) for a, t in toc),
            sections=tuple(sections),
            footer=footer,
            css=css,
            js=js,
            csp=content_policy([js], [css]),
        )
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
