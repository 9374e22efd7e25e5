"""The HTML report in a real browser (headless Chromium): a what-if comparison of real engine runs renders with
no script error, every chart loads, the page fits its width, and the sections a reader navigates by are there."""

import os
import shutil
from pathlib import Path

import pytest

from meeplab.cli import main


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "pigs"
    code = main(
        ["compare", "schweinebande", "--set", "pig_bonus_farm=3", "--games", "300", "--players", "2-3"]
        + ["--bots", "heuristic,greedy", "--confirm", "heuristic", "--max-games", "200", "--quiet", "--out", str(out)]
    )
    assert code == 0
    return out / "report.html"


def test_report_renders_in_chromium(browser, report, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert not errors, errors

    assert page.title()
    assert page.locator("h1").count() >= 1
    headings = [t.strip() for t in page.locator("h2").all_inner_texts()]
    assert len(headings) >= 3, headings
    # the strong bot's confirmation sits beside the fast result, one row per player count, with its verdict
    assert any(h.startswith("Confirmed with a strong bot: heuristic") for h in headings), headings
    rows = page.locator("#confirm tbody tr").all_inner_texts()
    assert len(rows) == 2 and all(any(v in r for v in ("confirmed", "contradicted", "undecided")) for r in rows), rows
    # every chart is embedded and decodes (no broken image, no network)
    images = page.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, i.src.slice(0, 5)])")
    assert images and all(ok and width > 0 and src == "data:" for ok, width, src in images), images
    # the page fits the window: no horizontal scroll bar at a laptop's width
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280 + 1
    # numbers with their intervals are on the page, and nothing unrendered leaks through
    text = page.inner_text("body")
    assert " … " in text and "%" in text  # intervals print as "lo … hi"
    assert "{{" not in text and "{%" not in text and "None" not in text.split()

    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("MEEPLAB_SCREENSHOTS")  # a folder to keep the screenshot in, for a person to look at
    if keep:
        shutil.copy(shot, Path(keep) / "report.png")
    page.close()
