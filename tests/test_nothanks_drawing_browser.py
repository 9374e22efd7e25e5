"""No Thanks!'s drawing in headless Chromium: ``meeplab view``'s page shows the board (the offer, the deck as a back,
each seat's chips and runs), lays the hidden cards out only in the everything view and hides them in a seat's view;
the play page draws the board for the person, who plays a whole game by clicking (the card on offer takes it, the own
chip stack pays a chip), and no secret element ever reaches it. With MEEPLAB_SCREENSHOTS set, the screenshots go to
that folder (nothanks-view.png, nothanks-play-mid.png, nothanks-play-end.png)."""

import os
import random
import shutil
from pathlib import Path

import pytest

pytest.importorskip("meeplab_nothanks", reason="the example plugin is not installed (pip install -e examples/nothanks)")

from play_setups import Server
from test_play_browser import READY, open_table
from viewer_helpers import page_data

from meeplab.cli import main
from meeplab.play.server import Session
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.registry import get_game


def keep(shot: Path) -> None:
    folder = os.environ.get("MEEPLAB_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(folder) / shot.name)


def test_the_viewer_draws_no_thanks_and_hides_the_deck_in_a_seat_view(browser, tmp_path):
    path = tmp_path / "nothanks.html"
    assert main(["view", "nothanks", "--players", "4", "--bots", "greedy,random", "--out", str(path)]) == 0
    steps = len(page_data(path)["steps"])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400 + 1
    k = int(steps * 0.6)
    page.evaluate(f"window.meeplabViewer.setView(0); window.meeplabViewer.show({k})")
    board = page.locator("#board")
    assert "No Thanks!: take the card or pay a chip" in board.text_content()
    for p in range(1, 5):
        assert f"Player {p}" in board.text_content()
    assert page.locator("#board #offer").count() == 1 and page.locator("#board #chips-3").count() == 1
    assert page.locator("#pieces .secret").count() == 1  # the cards to come, in order, and the cards set aside
    hidden = page.locator("#pieces .secret text").all_text_contents()[1:]
    assert len(hidden) >= 9 and all(x.isdigit() for x in hidden)
    assert page.locator("#pieces .back").count() == 2  # the deck and the cards set aside
    shot = tmp_path / "nothanks-view.png"
    page.screenshot(path=str(shot), full_page=True)
    for seat in range(1, 5):  # every seat's view: backs, no secret, none of the hidden cards' order
        page.evaluate(f"window.meeplabViewer.setView({seat})")
        assert page.locator("#pieces .secret").count() == 0
        assert page.locator("#pieces .back").count() == 2
        assert "in order" not in board.text_content()
    assert not errors, errors
    assert shot.stat().st_size > 20_000
    keep(shot)
    page.close()


def test_a_person_plays_no_thanks_by_clicking_on_the_board(browser, tmp_path):
    g = get_game("nothanks")
    table = Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [0], 3), 5, 0, ())
    session = Session(table, None, 0)
    with Server(session) as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_table(page, srv, session)
        rng = random.Random(4)
        clicks = board_clicks = 0
        while True:
            page.wait_for_function(READY, timeout=90000)
            st = page.evaluate("window.meeplabPlay.state")
            assert page.locator("#board svg").count() == 1
            assert page.locator("#board svg .secret").count() == 0 and "in order" not in page.inner_text("#board")
            if st["over"]:
                break
            targets = page.locator("#board svg .target")
            ids = sorted(targets.evaluate_all("els => els.map(e => e.id)"))
            assert ids == sorted({m["target"] for m in st["legal"]}) and "offer" in ids
            if clicks == 8:
                page.screenshot(path=str(tmp_path / "nothanks-play-mid.png"))
            before = len(table.history)
            renders = page.evaluate("window.meeplabPlay.renders")
            if clicks % 2 == 0:  # on the board: each place is one move (the offer takes, the own stack pays)
                pick = rng.choice(ids)
                page.locator(f"#board svg #{pick}").click(force=True)
                board_clicks += 1
                want = next(m["label"] for m in st["legal"] if m["target"] == pick)
            else:
                buttons = page.locator("#legal button.move")
                i = rng.randrange(buttons.count())
                want = st["legal"][i]["label"]
                buttons.nth(i).click()
            page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")
            clicks += 1
            assert len(table.history) > before and table.history[before]["label"] == want
            assert clicks < 500, "the game does not end"
        assert table.over and clicks >= 6 and board_clicks >= 3
        text = page.locator("#final").inner_text()
        assert "cards" in text and "chips" in text
        page.screenshot(path=str(tmp_path / "nothanks-play-end.png"))
        assert not errors, errors
        page.close()
    for name in ("nothanks-play-mid.png", "nothanks-play-end.png"):
        assert (tmp_path / name).stat().st_size > 20_000
        keep(tmp_path / name)
