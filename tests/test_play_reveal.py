"""The play page's decision log after a reveal, in headless Chromium against a real server: another seat's secret
decision (Goofspiel's face-down bid, the example plugin) reads "chose face down" in the live page until the game
reveals it, and then, without a reload, what ``GET /api/log`` names (the page once fetched only the decisions made
since its last look, and an entry it had shown face down stayed face down until the page was reloaded)."""

import importlib.util
import os
from pathlib import Path

import pytest
from play_setups import Server

from meeplab.play.server import Session
from meeplab.play.table import Table, seat_bots
from meeplab.sim.core.registry import get_game

# screenshots for a person to look at: MEEPLAB_PLAY_SHOTS=DIR pytest tests/test_play_reveal.py
SHOTS = Path(os.environ["MEEPLAB_PLAY_SHOTS"]) if os.environ.get("MEEPLAB_PLAY_SHOTS") else None

needs_goofspiel = pytest.mark.skipif(
    importlib.util.find_spec("meeplab_goofspiel") is None,
    reason="the example plugin goofspiel is not installed (pip install -e examples/goofspiel)",
)

READY = (
    "() => { const p = window.meeplabPlay; return p && p.state && !p.busy && (p.state.over || p.state.pass_to ||"
    " p.state.legal.length > 0); }"
)
FACE_DOWN = "chose face down"  # the server's wording (meeplab.play.hidden.FACE_DOWN)
PERSON = 1  # 0-based: P2, who bids after the bot (P1) in every round


def goofspiel_session(seed=5):
    g = get_game("goofspiel")
    table = Table(g, g.params.resolve({}, g.id), seat_bots(["greedy"], [PERSON], 2), seed, 0)
    return Session(table, None, 0)  # the bot moves at once


def api_log(page) -> list[dict]:
    """``GET /api/log`` as the page's own session (its cookie) reads it."""
    return page.evaluate("async () => (await (await fetch('/api/log')).json()).decisions")


def page_log(page) -> dict[int, str]:
    """The page's decision log: decision number -> the entry's text (the "why?" table folded away)."""
    got = page.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll("#log > li")).map((li) => {
            const parts = Array.from(li.childNodes).filter((n) => n.nodeName !== "DETAILS");
            return [li.value, parts.map((n) => n.textContent).join("")];
        }))"""
    )
    return {int(k): v for k, v in got.items()}


def at_the_persons_turn(page) -> None:
    page.wait_for_function(READY, timeout=90000)
    assert page.evaluate("window.meeplabPlay.state.legal.length") > 0


@needs_goofspiel
def test_a_revealed_bid_is_named_in_the_live_log(browser):
    session = goofspiel_session()
    table = session.table
    with Server(session) as srv:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(60000)  # the bot's first move compiles its decision code
        page.goto(srv.launch_url())
        rounds = 0
        for _ in range(3):  # three rounds: each reveal turns the bot's bid of that round face up
            at_the_persons_turn(page)
            bot = table.history[-1]
            assert bot["seat"] != PERSON and not bot["human"]
            n = bot["n"]
            # before the reveal: face down on the page and in /api/log; the bid itself nowhere in the log
            served = {d["n"]: d for d in api_log(page)}
            assert served[n]["label"] == FACE_DOWN and served[n]["face_down"]
            shown = page_log(page)
            assert FACE_DOWN in shown[n]
            assert bot["label"] not in shown[n]
            if rounds == 0:  # nothing else in the log yet
                assert bot["label"] not in page.locator("#log").inner_text()
            # the person bids (the round's last bid): the bids are revealed
            renders = page.evaluate("window.meeplabPlay.renders")
            page.locator("#legal button.move").first.click()
            page.wait_for_function(f"() => window.meeplabPlay.renders > {renders}")
            page.wait_for_function(READY, timeout=90000)
            rounds += 1
            served = {d["n"]: d for d in api_log(page)}
            assert served[n]["label"] == bot["label"] and not served[n].get("face_down")
            shown = page_log(page)  # no reload
            assert FACE_DOWN not in shown[n], f"decision {n} is revealed (/api/log: {served[n]['label']!r})"
            assert served[n]["label"] in shown[n]
            # every entry the page shows reads as /api/log gives it (the next round's bid face down again)
            assert set(shown) == set(served)
            for k, d in served.items():
                assert d["label"] in shown[k], (k, d["label"], shown[k])
                assert (FACE_DOWN in shown[k]) == bool(d.get("face_down")), (k, shown[k])
            if not table.over:
                assert served[len(served)]["face_down"]  # the bot's bid of the next round: face down
            if rounds == 1:
                # the revealed bot decision now carries its alternatives ("why?"), as /api/log gives them
                assert page.locator(f'#log > li[value="{n}"] details summary').count() == (
                    1 if served[n].get("alternatives") else 0
                )
                if SHOTS:
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SHOTS / "goofspiel-revealed.png"))
        assert rounds == 3 and not errors, errors
        page.close()
