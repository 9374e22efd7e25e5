"""Defaults a designer can trust: the default lineup is the strongest fast bot (tuned where a game ships it), and every
report names its bots' rung on the skill ladder."""

from __future__ import annotations

import json

from meeplab.analysis.rungs import RUNGS, bot_rungs, rung_of, rung_text
from meeplab.cli import main
from meeplab.cli.common import DEFAULT_BOTS, default_bots
from meeplab.sim.core.bots import available
from meeplab.sim.core.registry import games


def test_default_lineup_is_tuned_where_shipped(monkeypatch):
    assert DEFAULT_BOTS == "tuned"
    for g in ("acbas", "goldrush", "hacienda", "schweinebande"):
        assert default_bots(g, DEFAULT_BOTS) == "tuned" and "tuned" in available(g)
    assert default_bots("hacienda", "greedy,random") == "greedy,random"  # a given lineup is kept
    import meeplab.sim.core.bots as bots_mod

    real = bots_mod.available
    monkeypatch.setattr(bots_mod, "available", lambda g, *a: {k: v for k, v in real(g, *a).items() if k != "tuned"})
    assert default_bots("schweinebande", DEFAULT_BOTS) == "greedy"  # a game without a tuned bot


def test_rungs_of_the_shipped_bots():
    for g in games():
        r = bot_rungs(g, list(available(g)))
        if "random" in r:
            assert r["random"][0] == 1
        if "greedy" in r:
            assert r["greedy"][0] == 2
        if "tuned" in r:
            assert r["tuned"] == (4, RUNGS[4])
    specs = available("hacienda")
    assert rung_of(specs["heuristic"]) == 3 and rung_of(specs["rollout"]) == 5
    assert rung_text("hacienda", ["greedy", "tuned"]).startswith("tuned: rung 4 of 5")
    assert bot_rungs("no-such-game", ["tuned"]) == {}


def test_run_defaults_to_tuned_and_the_report_names_the_rung(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["run", "schweinebande", "-q", "--players", "2", "--games", "40", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert json.loads((out / "run.json").read_text())["bots"] == ["tuned"]
    from meeplab.reports import build_report

    html = build_report([out], tmp_path / "r.html").read_text()
    assert "skill ladder: tuned: rung 4 of 5 (tuned heuristic, the strongest fast bot)" in html
