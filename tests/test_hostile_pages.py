"""Hostile strings in the pages people open: ``meeplab view`` and the HTML reports (issue 54).

Every way data reaches these pages gets strings made to break out of their place (markup, script, a comment, a
CDATA end, a ``javascript:`` link, a template expression, a chart formula, unicode): bot and variant names through a
``--bot-config`` TOML, a run's label, the text fields of a run.json, a Hacienda map's ``MapName`` and its file and
folder names, a Gold Rush deck file's tile names and its path (string parameters), the title and seat names handed
to the viewer, and a plugin game (the example ``nothanks``) whose drawing module puts them into its SVG unescaped.
A saved game of the play page (its file name, seats and map) is viewed too. Each page is opened in headless
Chromium: no injected script runs (``window.__pwned`` stays undefined, no dialog), the page's Content-Security-Policy
blocks nothing the page needs (no violation at all; the viewer still steps), no request leaves the page, and the
hostile text is shown as text.
"""

import csv
import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from markupsafe import escape
from viewer_helpers import page_data

from meeplab.cli import main
from meeplab.reports.viewer import render, view_data
from meeplab.sim.core.bots import make_lineup
from meeplab.sim.core.draw import trace, trace_spec
from meeplab.sim.core.forward import C_N, C_NP
from meeplab.sim.core.registry import get_game
from meeplab.sim.goldrush import deck as deck_mod
from meeplab.sim.hacienda.board import BUILTIN

HOSTILE = [
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=1</script>",
    '"><svg onload=window.__pwned=1>',
    "</script><script>window.__pwned=1</script>",
    "<!--",
    "]]>",
    "javascript:window.__pwned=1",
    "{{7*7}}",
    "$\\notacommand$ costs $5",
    "Ünïcødé ☃ \u202ertl é",
]
# markup characters: these must never stand in a page's source as they are
RAW = [h for h in HOSTILE if "<" in h or ">" in h]
# a string that is also a safe file and folder name (no "/", no glob characters)
FILE_NAME = '<img src=x onerror="window.__pwned=1">'

# (players, seed) of each game's small run; the bots are hostile names cycled over all games
GAMES = {"hacienda": 3, "goldrush": 3, "schweinebande": 3, "acbas": 2, "nothanks": 3}


def _bots(game: str) -> list[str]:
    """The game's hostile bot names: every hostile string is some game's bot."""
    start = sum(GAMES[g] for g in sorted(GAMES) if g < game)
    return [HOSTILE[(start + i) % len(HOSTILE)] for i in range(GAMES[game])]


def _cli(args: list[str]) -> None:
    assert main(args) == 0, args


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The hostile inputs: a bot config, a Hacienda map and a Gold Rush deck (hostile names, paths and contents)."""
    root = tmp_path_factory.mktemp("hostile")
    cfg = root / "bots.toml"
    cfg.write_text(
        "".join(
            f'[bots.{json.dumps(h, ensure_ascii=False)}]\nbase = "greedy"\n'
            f"description = {json.dumps(HOSTILE[-1 - i], ensure_ascii=False)}\n"
            for i, h in enumerate(HOSTILE)
        ),
        encoding="utf-8",
    )
    # a Hacienda map: its MapName, its file name and its folder's name are hostile
    src = Path(BUILTIN["A"])
    text = src.read_text(encoding="utf-8").replace("MapName=A-symmetric-reconstructed", "MapName=" + " ".join(HOSTILE))
    folder = root / FILE_NAME
    folder.mkdir()
    haz = folder / f"{FILE_NAME} {{{{7*7}}}} ]]> <!--.haz"
    haz.write_text(text, encoding="utf-8")
    # a Gold Rush deck: its tile types' names (the viewer's status line names the tile drawn) and its path
    deck_src = deck_mod.DATA / "deck.csv"
    lines = deck_src.read_text(encoding="utf-8").splitlines()
    comments = [ln for ln in lines if ln.startswith("#")]
    rows = list(csv.reader([ln for ln in lines if not ln.startswith("#")]))
    head, body = rows[0], rows[1:]
    t = head.index("type")
    for i, r in enumerate(body):
        r[t] = f"{HOSTILE[i % len(HOSTILE)]} #{i}"  # names stay distinct
    deck = folder / f"{FILE_NAME}.csv"
    with deck.open("w", encoding="utf-8", newline="") as f:
        f.write("\n".join(comments) + "\n")
        csv.writer(f, lineterminator="\n").writerows([head, *body])
    sets = {"hacienda": ["--set", f"map={haz}"], "goldrush": ["--set", f"deck={deck}"]}
    # for `meeplab maps` / `decks`, whose runs are named after the files: a name without glob characters
    haz2 = folder / f"{FILE_NAME}.haz"
    haz2.write_text(text, encoding="utf-8")
    return SimpleNamespace(root=root, cfg=cfg, haz=haz, haz2=haz2, deck=deck, sets=sets)


def _tamper(run_dir: Path) -> None:
    """The run.json's text fields made hostile (a run folder someone sent)."""
    path = run_dir / "run.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta.update(
        label=" ".join(HOSTILE),
        title=" ".join(HOSTILE),
        notes=list(HOSTILE),
        command=" ".join(HOSTILE),
        version=" ".join(HOSTILE),
        started=" ".join(HOSTILE),
    )
    path.write_text(json.dumps(meta), encoding="utf-8")


@pytest.fixture(scope="module")
def pages(files):
    """Every hostile page: (kind, game, path)."""
    out = []
    for game, players in GAMES.items():
        run_dir = files.root / f"run-{game}"
        if game == "hacienda":
            run_dir = files.root / f"{FILE_NAME} run"  # the run folder's name shows in the report
        common = ["--players", str(players), "--bots", ",".join(_bots(game)), "--bot-config", str(files.cfg)]
        sets = files.sets.get(game, [])
        _cli(["run", game, "--games", "20", *common, *sets, "--label", HOSTILE[0], "--quiet", "--out", str(run_dir)])
        report = files.root / f"report-{game}.html"
        _cli(["report", str(run_dir), "--out", str(report)])
        out.append(("report", game, report))
        # the same run, its run.json tampered with, compared with the first: the comparison's sections too
        other = files.root / f"other-{game}"
        shutil.copytree(run_dir, other)
        _tamper(other)
        both = files.root / f"compare-{game}.html"
        _cli(["report", str(run_dir), str(other), "--title", " ".join(HOSTILE), "--out", str(both)])
        out.append(("report", game, both))
        if game == "nothanks":
            continue  # no drawing module: its viewer page is the plugin page below
        view = files.root / f"view-run-{game}.html"
        _cli(["view", str(other), "--bot-config", str(files.cfg), "--out", str(view)])
        out.append(("viewer", game, view))
        if sets:  # a fresh game with the hostile string parameter (its value shows in the subtitle)
            fresh = files.root / f"view-fresh-{game}.html"
            _cli(["view", game, *common, *sets, "--out", str(fresh)])
            out.append(("viewer", game, fresh))
        # the viewer's own inputs: title, subtitle and seat names
        g = get_game(game)
        ctx = g.prepare(g.params.resolve({}, g.id))
        lineup = make_lineup(g.id, ["greedy"], players, True)
        tr = trace_spec(g, ctx, lineup, players, 1, 0, max_steps=60)
        names = [" ".join(HOSTILE)] + HOSTILE[: players - 1]
        api = files.root / f"view-api-{game}.html"
        data = view_data(g, ctx, tr, seat_names=names, title=" ".join(HOSTILE), subtitle=" ".join(HOSTILE))
        api.write_text(render(data), encoding="utf-8")
        out.append(("viewer", game, api))
    # the ranking reports of map and deck files (their names and MapNames in tables and charts)
    for game, cmd, hostile, plain in (
        ("hacienda", "maps", files.haz2, Path(BUILTIN["B"])),
        ("goldrush", "decks", files.deck, deck_mod.DATA / "deck.csv"),
    ):
        common = ["--players", "3", "--bots", ",".join(_bots(game)), "--bot-config", str(files.cfg), "--games", "10"]
        _cli([cmd, game, str(hostile), str(plain), *common, "--quiet", "--out", str(files.root / cmd)])
        out.append(("report", game, files.root / cmd / "report.html"))
    out.append(("viewer", "nothanks", _plugin_page(files.root)))
    out.append(("viewer", "hacienda", _saved_page(files)))
    return out


def _saved_page(files) -> Path:
    """``meeplab view`` of a saved game: hostile file name, bots and map; the person sits last, so the bots have
    played a few decisions when it is saved."""
    from meeplab.play.saved import save
    from meeplab.play.table import Table

    g = get_game("hacienda")
    values = g.params.resolve({"map": str(files.haz)}, g.id)
    table = Table(g, values, [*_bots("hacienda")[:2], None], seed=1, index=0, bot_configs=[files.cfg])
    while table.bot_turn():
        table.play_bot()
    if table.human_turn():
        table.play(0)
    saved = save(table, files.root / FILE_NAME / f"{FILE_NAME}.json")
    page = files.root / "view-saved-hacienda.html"
    _cli(["view", str(saved), "--out", str(page)])
    return page


class CarelessDraw:
    """A plugin's drawing module that escapes nothing: its SVG holds the hostile strings as markup (well-formed,
    so that the page's parser keeps it and its sanitiser must act) and every label is hostile."""

    EVIL = (
        "<script>window.__pwned=1</script>"
        '<foreignObject width="50" height="50"><div xmlns="http://www.w3.org/1999/xhtml">'
        '<img src="x" onerror="window.__pwned=1"/></div></foreignObject>'
        '<a href="javascript:window.__pwned=1"><text x="5" y="90">link</text></a>'
        '<circle cx="20" cy="20" r="5" onload="window.__pwned=1" onclick="window.__pwned=1"/>'
        '<image href="http://127.0.0.1:9/x.png" width="5" height="5"/>'
        '<use href="http://127.0.0.1:9/x.svg#a"/>'
        '<g><animate attributeName="href" to="javascript:window.__pwned=1"/>'
        '<set attributeName="onmouseover" to="window.__pwned=1"/></g>'
        '<rect x="0" y="0" width="5" height="5" style="fill: url(http://127.0.0.1:9/x)"/>'
    )

    def __init__(self, log_width):
        self.LOG_WIDTH = log_width

    def size(self, ctx, n):
        return 400, 200

    def base(self, ctx, n):
        return '<rect id="cell-0" x="100" y="100" width="40" height="40" fill="#ddd"/>' + self.EVIL

    def pieces(self, ctx, rec, seat):
        return [
            f'<text x="10" y="{20 + 16 * i}" class="small">{h}</text>' for i, h in enumerate(HOSTILE) if i % 2 == 0
        ] + [self.EVIL, '<img src=x onerror="window.__pwned=1">']  # the last is no XML: left out

    def info(self, ctx, rec, seat):
        return {"columns": HOSTILE[:3], "rows": [[h, h, h, h] for h in HOSTILE]}

    def score(self, ctx, rec):
        return [0.0] * int(rec["ctl"][C_NP])

    def round_of(self, ctx, rec):
        return 1

    def status(self, ctx, rec):
        return " ".join(HOSTILE)

    def moves(self, ctx, rec):
        return [(HOSTILE[i % len(HOSTILE)], "cell-0" if i == 0 else HOSTILE[1]) for i in range(int(rec["ctl"][C_N]))]

    def kind_name(self, kind):
        return HOSTILE[0]

    def events(self, ctx, log, lo, hi, names, seat):
        return list(HOSTILE)


def _plugin_page(root: Path) -> Path:
    import meeplab_nothanks.engine as nt_engine

    g = get_game("nothanks")
    ctx = g.prepare(g.params.resolve({}, g.id))
    lineup = make_lineup(g.id, ["greedy"], 3, True)
    cx = g.forward_context(ctx, lineup)
    tr = trace(cx, lineup, 3, 1, 0, len(g.categories), nt_engine.LOGW, max_steps=40)
    spec = SimpleNamespace(id=g.id, draw=CarelessDraw(nt_engine.LOGW), categories=HOSTILE[:2])
    data = view_data(spec, ctx, tr, seat_names=HOSTILE[:3], title=HOSTILE[3], subtitle=" ".join(HOSTILE))
    path = root / "view-plugin-nothanks.html"
    path.write_text(render(data), encoding="utf-8")
    return path


def test_hostile_text_is_escaped_in_the_source(pages):
    for kind, _game, path in pages:
        html = path.read_text(encoding="utf-8")
        for h in RAW:
            assert h not in html, (path.name, h)
        assert 'http-equiv="Content-Security-Policy"' in html
        if kind == "report":
            assert str(escape(HOSTILE[0])) in html, path.name
        else:  # the page's data is valid JSON (tojson) and gives back the strings as they were
            data = page_data(path)
            if "api" in path.name:
                assert data["title"] == " ".join(HOSTILE) and data["seats"][0]["bot"] == " ".join(HOSTILE)


WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def _open(browser, path: Path):
    """The page opened with every request, dialog, script error and CSP violation recorded; requests other than
    the page itself are refused."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    seen = SimpleNamespace(requests=[], dialogs=[], errors=[])
    url = path.as_uri()

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            seen.requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("request", lambda r: None if r.url in (url,) or r.url.startswith("data:") else seen.requests.append(r.url))
    page.on("dialog", lambda d: (seen.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    page.on("console", lambda m: seen.errors.append(m.text) if m.type in ("error", "warning") else None)
    page.add_init_script(WATCH)
    page.goto(url)
    page.wait_for_load_state("load")
    return page, seen


# The careless plugin's SVG holds on* and style attributes, and pieces that are no XML: parsing it (DOMParser, before
# the sanitiser drops them; Chromium's parse-error note carries inline style) runs under the page's policy, which
# reports each as blocked. Blocked is what the policy is for; any other violation still fails, and every page
# checks that its own script ran and its own stylesheet applied.
CARELESS_BLOCKED = {"script-src-attr inline", "style-src-attr inline", "style-src-elem inline"}


def _check(page, seen, name, careless=False):
    assert page.evaluate("typeof window.__pwned") == "undefined", name
    assert not seen.dialogs, (name, seen.dialogs)
    # the page's stylesheet applied (its hash is in the policy): the header's white text
    assert page.evaluate("getComputedStyle(document.querySelector('header.top')).color") == "rgb(255, 255, 255)"
    violations = page.evaluate("window.__csp")
    errors = seen.errors
    if careless:
        violations = [v for v in violations if v not in CARELESS_BLOCKED]
        errors = [e for e in errors if "violates the following Content Security Policy" not in e]
    assert violations == [], (name, violations)
    assert not errors, (name, errors)
    assert not set(seen.requests), (name, seen.requests)


def _shown(page, name):
    text = page.inner_text("body")
    for h in HOSTILE:
        assert h.replace("\u202e", "") in text.replace("\u202e", ""), (name, h)


def test_viewer_pages_run_nothing_injected(browser, pages):
    for kind, _game, path in pages:
        if kind != "viewer":
            continue
        page, seen = _open(browser, path)
        name = path.name
        assert "decision 1 of" in page.inner_text("#counter"), name
        page.click("#next")
        page.click("#next")
        assert page.evaluate("window.meeplabViewer.current()") == 2, name  # the page's script runs
        assert page.locator("#board #pieces > *").count() > 0, name  # the board is drawn
        rows = page.locator("#alts tbody tr")
        for i in range(min(rows.count(), 3)):
            rows.nth(i).hover()
        n_views = page.locator("#view option").count()
        for v in range(n_views):
            page.select_option("#view", str(v))
        page.click("#last")
        page.locator("#chart").click()
        page.keyboard.press("End")
        if "api" in name or "plugin" in name or "run" in name:
            _shown(page, name)
        if "saved" in name:  # its file's name and its bots
            text = page.inner_text("body")
            for h in [FILE_NAME, *_bots("hacienda")[:2]]:
                assert h in text, (name, h)
        # nothing executable survived the drawing's parser
        bad = page.evaluate(
            """() => [...document.querySelectorAll('#board *')].filter(e =>
                 ['script', 'foreignObject', 'a', 'image', 'animate', 'set', 'img', 'div'].includes(e.localName) ||
                 [...e.attributes].some(a => a.name.startsWith('on') ||
                   ((a.localName === 'href') && !a.value.startsWith('#')) || a.value.includes('url(http')))
               .map(e => e.outerHTML.slice(0, 80))"""
        )
        assert bad == [], (name, bad)
        if "plugin" in name:  # what parsed is drawn, without what was dropped
            assert page.locator("#pieces circle").count() >= 1 and page.locator("#base #cell-0").count() == 1
        _check(page, seen, name, careless="plugin" in name)
        page.close()


def test_reports_run_nothing_injected(browser, pages):
    for kind, game, path in pages:
        if kind != "report":
            continue
        page, seen = _open(browser, path)
        name = path.name
        for s in page.locator("summary").all():
            s.click()
        page.mouse.wheel(0, 5000)
        images = page.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, i.src.slice(0, 5)])")
        assert images and all(ok and w > 0 and src == "data:" for ok, w, src in images), name
        text = page.inner_text("body")
        for h in [HOSTILE[0], *_bots(game)]:  # the run's label and its bots
            assert h in text, (name, h)
        if "compare" in name:
            _shown(page, name)
        _check(page, seen, name)
        page.close()


def test_screenshots(browser, pages, tmp_path):
    """One hostile viewer page and one report, drawn as they look; with MEEPLAB_SCREENSHOTS set, kept in that
    folder (h1-viewer.png, h1-report.png) for a person to look at."""
    pick = {
        "viewer": next(p for k, g, p in pages if k == "viewer" and g == "hacienda" and "fresh" in p.name),
        "report": next(p for k, g, p in pages if k == "report" and g == "hacienda" and "compare" in p.name),
    }
    for kind, path in pick.items():
        page, seen = _open(browser, path)
        if kind == "viewer":
            for _ in range(12):
                page.click("#next")
        shot = tmp_path / f"h1-{kind}.png"
        page.screenshot(path=str(shot), full_page=kind == "viewer")
        assert shot.stat().st_size > 10_000
        keep = os.environ.get("MEEPLAB_SCREENSHOTS")
        if keep:
            shutil.copy(shot, Path(keep) / shot.name)
        _check(page, seen, path.name)
        page.close()


@pytest.mark.parametrize("game_id", ["acbas", "goldrush", "hacienda", "schweinebande"])
def test_drawings_are_well_formed_svg(game_id):
    """The viewer parses a drawing as SVG (XML) and shows nothing of a step that does not parse: every game's base
    and every step's pieces, in every view, are well-formed."""
    import xml.etree.ElementTree as ET

    from viewer_helpers import traced

    g, ctx, _lineup, tr = traced(game_id)
    n = int(tr.states[0]["ctl"][C_NP])

    def parse(markup):
        ET.fromstring('<svg xmlns="http://www.w3.org/2000/svg">' + markup + "</svg>")

    parse(g.draw.base(ctx, n))
    for rec in tr.states[:: max(1, len(tr.states) // 40)]:
        for seat in [None, *range(n)]:
            parse("".join(g.draw.pieces(ctx, rec, seat)))
