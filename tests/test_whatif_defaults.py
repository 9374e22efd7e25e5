"""Defaults a designer can trust: the default lineup is the strongest fast bot (learned where it beats tuned at every
player count, else tuned), and every report names its bots' rung on the skill ladder."""

from __future__ import annotations

import json

from meeplab.analysis.rungs import RUNGS, bot_rungs, rung_of, rung_text
from meeplab.cli import main
from meeplab.cli.common import DEFAULT_BOTS, default_bots
from meeplab.sim.core.bots import available, default_lineup
from meeplab.sim.core.registry import games

#: the games whose learned bot beats tuned at every player count (docs/bots-and-search.md): their default lineup
LEARNED_DEFAULT: tuple[str, ...] = ("acbas", "hacienda")


def test_default_lineup_is_the_strongest_fast_bot_each_game_declares(monkeypatch):
    assert DEFAULT_BOTS == "default"
    for g in ("acbas", "goldrush", "hacienda", "schweinebande"):
        want = "learned" if g in LEARNED_DEFAULT else "tuned"
        assert default_lineup(g) == want and default_bots(g, DEFAULT_BOTS) == want and want in available(g)
    assert default_bots("hacienda", "greedy,random") == "greedy,random"  # a given lineup is kept
    assert default_bots("hacienda", "tuned") == "tuned"
    import meeplab.sim.core.bots as bots_mod
    import meeplab.strategies.schweinebande as pkg

    # a strategies package declares its game's default in __init__.py; discover reads it
    def fresh():  # discover afresh (the caches restored after the test)
        monkeypatch.setattr(bots_mod, "_CACHE", {})
        monkeypatch.setattr(bots_mod, "_DEFAULT_LINEUPS", {})

    monkeypatch.setattr(pkg, "DEFAULT_LINEUP", "heuristic,greedy", raising=False)
    fresh()
    assert default_lineup("schweinebande") == "heuristic,greedy"
    monkeypatch.delattr(pkg, "DEFAULT_LINEUP")
    fresh()
    assert default_lineup("schweinebande") == "tuned"
    # a declared lineup whose bot is missing falls back to tuned, then to greedy
    monkeypatch.setattr(pkg, "DEFAULT_LINEUP", "nosuchbot", raising=False)
    fresh()
    assert default_lineup("schweinebande") == "tuned"
    real = bots_mod.discover
    monkeypatch.setattr(bots_mod, "discover", lambda g: {k: v for k, v in real(g).items() if k != "tuned"})
    assert default_lineup("schweinebande") == "greedy"  # a game without a tuned bot


def test_rungs_of_the_shipped_bots():
    for g in games():
        r = bot_rungs(g, list(available(g)))
        if "random" in r:
            assert r["random"][0] == 1
        if "greedy" in r:
            assert r["greedy"][0] == 2
        if "tuned" in r:
            assert r["tuned"] == (4, RUNGS[4])
        if "learned" in r:
            assert r["learned"] == (5, RUNGS[5])  # between tuned and the searches
    specs = available("hacienda")
    assert rung_of(specs["heuristic"]) == 3 and rung_of(specs["rollout"]) == 6
    assert rung_text("hacienda", ["greedy", "tuned"]).startswith("tuned: rung 4 of 6")
    assert bot_rungs("no-such-game", ["tuned"]) == {}


def test_run_defaults_to_the_game_s_lineup_and_the_report_names_the_rung(tmp_path, capsys):
    cases = [("schweinebande", "tuned", "rung 4 of 6 (tuned heuristic)")]
    cases += [(g, "learned", "rung 5 of 6 (learned policy, fast)") for g in LEARNED_DEFAULT[:1]]
    for game, bot, rung in cases:
        out = tmp_path / game
        code = main(["run", game, "-q", "--players", "2", "--games", "40", "--out", str(out)])
        assert code == 0, capsys.readouterr().err
        assert json.loads((out / "run.json").read_text())["bots"] == [bot]
        from meeplab.reports import build_report

        html = build_report([out], tmp_path / f"{game}.html").read_text()
        assert f"skill ladder: {bot}: {rung}" in html
