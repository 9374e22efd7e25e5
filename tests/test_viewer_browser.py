"""meeplab view in a real browser (headless Chromium): for each game the page loads without a script error, opens
quickly, steps forward 20 decisions and back with the keyboard, redraws the board, lists the alternatives, jumps
with Home/End/Page Down and the slider, hides a seat's hidden parts in that seat's view, and fits a laptop's width.
With MEEPLAB_SCREENSHOTS set, the screenshots go to that folder (reports/examples/viewer-<game>.png)."""

import os
import shutil
import time
from pathlib import Path

import pytest
from viewer_helpers import GAMES, HIDDEN, page_args, page_data

from meeplab.cli import main


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer")
    out = {}
    for game_id in sorted(GAMES):
        path = folder / f"{game_id}.html"
        assert main(page_args(game_id, path)) == 0
        out[game_id] = path
    return out


def _pieces(page):
    return page.evaluate("document.getElementById('pieces').innerHTML")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_viewer_steps_through_the_game(browser, pages, game_id, tmp_path):
    path = pages[game_id]
    data = page_data(path)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    t0 = time.perf_counter()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert time.perf_counter() - t0 < 2.0
    assert not errors, errors
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400 + 1
    assert "decision 1 of" in page.inner_text("#counter")

    first = _pieces(page)
    page.locator("body").focus()
    for _ in range(20):
        page.keyboard.press("ArrowRight")
    assert page.evaluate("window.meeplabViewer.current()") == 20
    assert _pieces(page) != first  # the board changed
    step = data["steps"][20]
    rows = page.locator("#alts tbody tr")
    assert rows.count() == len(step["alts"]) >= 1
    chosen = page.locator("#alts tbody tr.chosen")
    assert chosen.count() == 1 and step["alts"][step["pick"]][0] in chosen.inner_text()
    if step["alts"][step["pick"]][1]:
        assert page.locator("#marks .mark-chosen").count() == 1  # the chosen move outlined on the board
    assert step["status"] in page.inner_text("#status")
    for _ in range(20):
        page.keyboard.press("ArrowLeft")
    assert page.evaluate("window.meeplabViewer.current()") == 0 and _pieces(page) == first

    page.keyboard.press("End")
    last = len(data["steps"]) - 1
    assert page.evaluate("window.meeplabViewer.current()") == last
    assert "Final score" in page.inner_text("#final") or data["truncated"]
    page.keyboard.press("Home")
    page.keyboard.press("PageDown")
    k = page.evaluate("window.meeplabViewer.current()")
    assert k > 0 and data["steps"][k]["round"] != data["steps"][0]["round"]
    page.locator("#slider").fill(str(last // 2))
    assert page.evaluate("window.meeplabViewer.current()") == last // 2

    # the seat view: what seat 1 cannot see disappears (its backs appear instead)
    page.evaluate("window.meeplabViewer.show(20)")
    page.select_option("#view", "0")
    secrets_all = page.locator("#pieces .secret").count()
    page.select_option("#view", "1")
    assert page.locator("#pieces .secret").count() == 0
    if game_id in HIDDEN:
        assert secrets_all > 0 or page.locator("#pieces .back").count() > 0
        found = False
        for k in range(0, last, max(1, last // 20)):  # somewhere the full view shows a secret that seat 1's hides
            page.evaluate(f"window.meeplabViewer.setView(0); window.meeplabViewer.show({k})")
            if page.locator("#pieces .secret").count():
                page.evaluate("window.meeplabViewer.setView(1)")
                assert page.locator("#pieces .secret").count() == 0 and page.locator("#pieces .back").count() > 0
                found = True
                break
        assert found
    else:
        page.select_option("#view", "0")
        everything = _pieces(page)
        page.select_option("#view", "1")
        assert _pieces(page) == everything  # nothing hidden in this game
    assert not errors, errors

    page.select_option("#view", "0")
    page.evaluate(f"window.meeplabViewer.show({int(last * 0.6)})")  # the screenshot: a table well into the game
    shot = tmp_path / f"viewer-{game_id}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    keep = os.environ.get("MEEPLAB_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / f"viewer-{game_id}.png")
    page.close()


def test_viewer_prints(browser, pages):
    page = browser.new_page()
    page.goto(pages["schweinebande"].as_uri())
    page.emulate_media(media="print")
    assert page.locator(".controls").evaluate("e => getComputedStyle(e).display") == "none"
    assert page.locator("#board").is_visible()
    pdf = page.pdf()
    assert len(pdf) > 10_000
    page.close()
