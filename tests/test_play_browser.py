"""The play page in headless Chromium against a real server (uvicorn on a free port, in a thread): a complete game of
each game played by clicking (moves on the board where they have a place, else in the list; the bots' turns
included), the end screen with the scores by category, a hot-seat handover, and a click on the text inside a place."""

import contextlib
import os
import random
from pathlib import Path

import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser fixture skips (or fails under CI) without playwright
    PlaywrightTimeout = TimeoutError

from play_setups import Server, small_params

from meeplab.play.server import Session
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.forward import C_KIND
from meeplab.sim.core.registry import get_game

# screenshots for a person to look at: MEEPLAB_PLAY_SHOTS=DIR pytest tests/test_play_browser.py
SHOTS = Path(os.environ["MEEPLAB_PLAY_SHOTS"]) if os.environ.get("MEEPLAB_PLAY_SHOTS") else None

# small games (tests/play_setups.py), cheap bots: (players, bots)
GAMES = {
    "schweinebande": (2, ["greedy"]),
    "hacienda": (2, ["greedy"]),
    "goldrush": (2, ["greedy"]),
    "acbas": (2, ["greedy"]),
}


READY = (
    "() => { const p = window.meeplabPlay; return p && p.state && !p.busy && (p.state.over || p.state.pass_to ||"
    " p.state.legal.length > 0); }"
)


def session_for(game, humans=(0,), seed=2):
    p, bots = GAMES[game]
    g = get_game(game)
    over = small_params(game)
    table = Table(g, g.params.resolve(over, g.id), seat_bots(bots, list(humans), p), seed, 0)
    return Session(table, None, 0)


def click_a_move(page, rng):
    """Click one legal move: on the board where one has a place (half the time), else in the list."""
    renders = page.evaluate("window.meeplabPlay.renders")
    targets = page.locator("#board svg .target")
    n = targets.count()
    if n and rng.random() < 0.5:
        targets.nth(rng.randrange(n)).click(force=True)
        # one move there: it is played; several (or the click landed on a neighbour's edge): the list narrows
        # (if the click landed on a neighbour drawn over the place's edge, nothing happens: choose in the list below)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                f"() => window.meeplabPlay.renders > {renders} || document.querySelector('#legal.filtered') !== null",
                timeout=3000,
            )
        if page.evaluate("window.meeplabPlay.renders") == renders:
            # several moves on that place (or the click landed on a neighbour): the list offers the choice
            shown = page.locator("#legal li.match button.move")
            if shown.count():
                shown.nth(rng.randrange(shown.count())).click()
            else:
                buttons = page.locator("#legal button.move")
                buttons.nth(rng.randrange(buttons.count())).click()
    else:
        buttons = page.locator("#legal button.move")
        buttons.nth(rng.randrange(buttons.count())).click()
    page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")


def open_table(page, srv, session) -> None:
    """Open the play page of ``session`` served by ``srv`` by a launch link, as ``meeplab play`` does (the session's
    bots move at once: ``Session(..., bot_delay_ms=0)``)."""
    page.set_default_timeout(60000)  # a bot's first move compiles its decision code (slow on a busy machine)
    page.goto(srv.launch_url())
    assert page.url == f"http://127.0.0.1:{srv.port}/"


@pytest.mark.parametrize("game", list(GAMES))
def test_a_complete_game_by_clicking(browser, game):
    session = session_for(game)
    table = session.table
    with Server(session) as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_table(page, srv, session)
        rng = random.Random(7)
        clicks = 0
        board_clicks = 0
        while True:
            page.wait_for_function(READY, timeout=90000)
            st = page.evaluate("window.meeplabPlay.state")
            if st["over"]:
                break
            assert page.locator("#legal button.move").count() == len(st["legal"])
            if clicks == 6 and SHOTS:
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / f"{game}-mid.png"))
            before = len(table.history)
            n_targets = page.locator("#board svg .target").count()
            click_a_move(page, rng)
            clicks += 1
            board_clicks += n_targets > 0
            assert len(table.history) > before
            assert clicks < 1500, "the game does not end"
        assert table.over and clicks >= 3
        assert any(not e["human"] for e in table.history), "the bots played too"
        # the end screen: the scores by category, play again and save
        end = page.locator("#end")
        assert end.is_visible()
        text = page.locator("#final").inner_text()
        for cat in get_game(game).categories:
            assert cat in text
        for s in range(table.n_players):
            assert f"{table.final['score'][s]:g}" in text
        if SHOTS:
            page.screenshot(path=str(SHOTS / f"{game}-end.png"))
        assert page.locator("#again").is_visible() and page.locator("#save").is_visible()
        assert not errors, errors
        if table.draw is not None:
            assert board_clicks > 0, "no move had a place on the board"
        page.close()


def test_play_again_save_and_hot_seat(browser, tmp_path):
    session = session_for("schweinebande", humans=(0, 1))
    with Server(session, tmp_path) as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        open_table(page, srv, session)
        rng = random.Random(3)
        handovers = 0
        while True:
            page.wait_for_function(READY, timeout=90000)
            st = page.evaluate("window.meeplabPlay.state")
            if st["over"]:
                break
            if st["pass_to"]:
                handovers += 1
                assert page.locator("#handover").is_visible()
                assert page.locator("#board svg").count() == 0  # nothing of the last person's view stays
                renders = page.evaluate("window.meeplabPlay.renders")
                page.click("#take")
                page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")
                continue
            click_a_move(page, rng)
        assert handovers >= 2
        page.click("#save")
        page.wait_for_selector("#saved-note code")
        saved_to = page.locator("#saved-note code").inner_text()
        assert Path(saved_to).is_file() and Path(saved_to).parent == tmp_path
        renders = page.evaluate("window.meeplabPlay.renders")
        page.click("#again")
        page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")
        assert page.evaluate("window.meeplabPlay.state.over") is False
        assert not page.locator("#end").is_visible()
        page.close()


def _to_a_placement(table):
    """Play the table on (the person's seat plays a land card when it can) to the person's first decision with a
    terrain hex, its letter drawn inside it, as the only move there; returns (candidate, hex index)."""
    from meeplab.sim.hacienda import layout as E
    from meeplab.sim.hacienda.board import TERRAINS

    kind = table.ctx.board.kind
    for _ in range(400):
        if table.bot_turn():
            table.play_bot()
            continue
        lab = table.labels()
        targets = [t for _, t in lab]
        if int(table.rec["ctl"][C_KIND]) == E.K_LAND:
            for i, (_, t) in enumerate(lab):
                if t and t.startswith("hx-") and targets.count(t) == 1 and int(kind[int(t[3:])]) < len(TERRAINS):
                    return i, int(t[3:])
        plays = [i for i, (label, _) in enumerate(lab) if label.removeprefix("play ") in TERRAINS]
        table.play(plays[0] if plays else 0)
    raise AssertionError("no land placement of the person's")


def test_a_click_anywhere_in_a_hex_plays_it(browser):
    """Hacienda's hexes carry their numbers (the labels' "hex 0203"), and a click on the letter or the number drawn
    inside a candidate hex plays that hex (the text once took the click, and nothing happened)."""
    session = session_for("hacienda")
    table = session.table
    pick, cell = _to_a_placement(table)
    label = table.labels()[pick][0]
    with Server(session) as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        open_table(page, srv, session)
        page.wait_for_function(READY)
        b = table.ctx.board
        numbers = page.locator("#board svg text.place").all_text_contents()
        assert sorted(numbers) == sorted(f"{int(b.cols[i]) * 100 + int(b.rows[i]):04d}" for i in range(b.n))
        assert label.endswith(f"hex {numbers[cell]}")  # the label's number is the one drawn in that hex
        # the centres of the terrain letter and the number drawn in the hex: both belong to the hex
        points = page.evaluate(
            """(cell) => {
                const hex = document.getElementById("hx-" + cell);
                const letter = hex.nextElementSibling;
                const number = document.querySelectorAll("#board svg text.place")[cell];
                return [letter, number].map((t) => {
                    const r = t.getBoundingClientRect();
                    const x = r.x + r.width / 2, y = r.y + r.height / 2;
                    return [t.textContent, x, y, document.elementFromPoint(x, y) === hex];
                });
            }""",
            cell,
        )
        assert points[0][0] in ("M", "F", "Me", "R", "Sw") and all(hit for *_, hit in points), points
        renders = page.evaluate("window.meeplabPlay.renders")
        before = len(table.history)
        page.mouse.click(points[0][1], points[0][2])  # on the letter
        page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")
        assert table.history[before]["label"] == label
        if SHOTS:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "hacienda-numbers.png"))
        page.close()
