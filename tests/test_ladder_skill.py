"""Relative skill on the ladder (issue 58, point 5): each search rung's RS with greedy and random as beginners
(analysis.ladder.skill_rows), its verdict over the two strongest search rungs in the seat findings' words
(skill_verdicts), and `meeplab ladder --skill-games` end to end: rows, stdout, --json, report, --resume, --dry-run."""

import json

import numpy as np
import pytest

from meeplab.analysis import ladder as la
from meeplab.sim.core.registry import get_game

TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 2\nmax_candidates = 3\ngrow = 0\n'


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "tiny.toml"
    path.write_text(TINY)
    return str(path)


def _rs(p, rung, beginner, v, lo, hi, games=100):
    return {"n_players": p, "rung": rung, "beginner": beginner, "relative_skill": v, "lo": lo, "hi": hi,
            "games": games, "note": ""}  # fmt: skip


def _plain(p, rung, beginner):
    return {**_rs(p, rung, beginner, None, None, None, 0), "note": la.NO_TWIN}


RUNGS = ["greedy", "rollout", "ismcts"]


def test_overlapping_rs_intervals_have_settled_and_apart_ones_are_still_moving():
    agree = [_plain(3, "greedy", "random"), _rs(3, "rollout", "random", 0.55, 0.40, 0.70),
             _rs(3, "ismcts", "random", 0.62, 0.50, 0.74)]  # fmt: skip
    (v,) = la.skill_verdicts(agree, RUNGS)
    assert v["status"] == la.SETTLED == "settled" and (v["weaker"], v["stronger"]) == ("rollout", "ismcts")
    assert la.skill_verdict_text(v) == "settled"
    apart = [_rs(3, "rollout", "random", 0.40, 0.30, 0.50), _rs(3, "ismcts", "random", 0.70, 0.60, 0.80),
             _rs(3, "rollout", "greedy", 0.30, 0.20, 0.40), _rs(3, "ismcts", "greedy", 0.35, 0.25, 0.45)]  # fmt: skip
    (v,) = la.skill_verdicts(apart, RUNGS)
    assert v["status"] == la.MOVING == "still moving" and v["moved"] == ["vs random up"]
    assert la.skill_verdict_text(v) == "still moving (vs random up)"
    down = [_rs(2, "rollout", "random", 0.70, 0.60, 0.80), _rs(2, "ismcts", "random", 0.40, 0.30, 0.50)]
    assert la.skill_verdicts(down, RUNGS)[0]["moved"] == ["vs random down"]


def test_rs_verdict_uses_the_seat_findings_words_for_rungs_level_in_skill():
    rows = [_rs(2, "rollout", "random", 0.55, 0.40, 0.70), _rs(2, "ismcts", "random", 0.62, 0.50, 0.74)]
    level = {"n_players": 2, "weaker": "rollout", "stronger": "ismcts", "rate": 0.51, "lo": 0.47, "hi": 0.55,
             "fair": 0.5, "stronger_measured": False}  # fmt: skip
    assert la.skill_verdicts(rows, RUNGS, [level])[0]["status"] == la.LEVEL == "agrees, rungs level"
    stronger = {**level, "rate": 0.6, "lo": 0.56, "hi": 0.64, "stronger_measured": True}
    assert la.skill_verdicts(rows, RUNGS, [stronger])[0]["status"] == la.SETTLED


def test_no_rs_verdict_without_two_search_rungs_or_a_defined_rs():
    one = [_plain(2, "greedy", "random"), _rs(2, "rollout", "random", 0.5, 0.4, 0.6)]
    (v,) = la.skill_verdicts(one, RUNGS)
    assert v["status"] == la.NO_VERDICT and "two search rungs" in la.skill_verdict_text(v)
    undefined = [_rs(2, "rollout", "random", None, None, None), _rs(2, "ismcts", "random", 0.5, 0.4, 0.6),
                 _rs(2, "rollout", "greedy", 0.5, 0.4, 0.6), _rs(2, "ismcts", "greedy", 0.55, 0.45, 0.65)]  # fmt: skip
    (v,) = la.skill_verdicts(undefined, RUNGS)
    assert v["status"] == la.SETTLED and v["undefined"] == ["random"]
    assert la.skill_verdict_text(v) == "settled (vs random: RS undefined)"


def test_only_search_rungs_get_rs_and_the_field_is_the_top_search_rungs_policy():
    from meeplab.sim.core.bots import available

    known = available("schweinebande")
    setup = la.skill_setup(["random", "greedy", "heuristic", "rollout", "ismcts"], known)
    assert setup["search"] == ["rollout", "ismcts"] and setup["plain"] == ["random", "greedy", "heuristic"]
    assert setup["beginners"] == ["greedy", "random"] and setup["field"] == known["ismcts"].policy
    players = la.skill_players(setup)
    assert players == [("greedy", False), ("random", False), ("rollout", False), ("rollout", True),
                       ("ismcts", False), ("ismcts", True)]  # fmt: skip
    assert la.skill_players(la.skill_setup(["random", "greedy"], known)) == []  # no search rung: nothing to play
    assert la.skill_setup(["greedy", "rollout"], known, "greedy")["field"] == "greedy"


def test_acbas_rung_has_relative_skill_one(tiny, tmp_path):
    """ACBAS has no chance and no hidden information: each search rung's clairvoyant twin plays its very games,
    RE = 0, and its RS is 1 (interval [1, 1]) wherever it beats the beginner at all; a plain rung has none."""
    from meeplab.sim.core.bots import available

    g = get_game("acbas")
    ctx = g.prepare(g.params.resolve({}, g.id))
    setup = la.skill_setup(["greedy", "tiny"], available("acbas", (tiny,)), "heuristic")
    settings = {"seed": 3, "params": {}, **setup}
    todo = la.skill_todo(tmp_path, [2], setup, 6, settings, resume=False)
    assert [(b, c) for _, b, c, _ in todo] == la.skill_players(setup)
    la.measure_skill(tmp_path, g, ctx, todo, setup, 6, settings, (tiny,))
    rows = la.skill_rows(la.read_skill_wins(tmp_path), [2], ["greedy", "tiny"], setup, 6)
    assert [(r["rung"], r["beginner"]) for r in rows] == [("greedy", "greedy"), ("greedy", "random"),
                                                          ("tiny", "greedy"), ("tiny", "random")]  # fmt: skip
    assert rows[0]["note"] == la.NO_TWIN and rows[0]["relative_skill"] is None
    for r in rows[2:]:
        assert r["games"] == 6 and r["random_effect"] == 0.0
        if r["learning_effect"] > 0:
            assert r["relative_skill"] == 1.0 and r["lo"] == 1.0 and r["hi"] == 1.0


def test_ladder_skill_games_rows_table_report_and_resume(tiny, tmp_path, capsys):
    from meeplab.cli import main
    from meeplab.lab.studies.quality import skill_wins

    out = tmp_path / "lad"
    base = ["ladder", "schweinebande", "-p", "2", "-b", "greedy,tiny", "--budgets", "1,2", "-n", "6",
            "--threads", "1", "--bot-config", tiny, "--out", str(out)]  # fmt: skip
    assert main([*base, "--skill-games", "4", "-q", "--json"]) in (0, None)
    table = json.loads(capsys.readouterr().out)
    got = {r["rung"] for r in table["rows"]}
    for rung in ("tiny", "tiny-x2"):
        assert {f"{rung}: relative skill vs greedy", f"{rung}: relative skill vs random"} <= got
    (verdict,) = [r for r in table["rows"] if r["rung"] == "relative skill: tiny -> tiny-x2"]
    assert verdict["verdict"].split(" (")[0] in (la.SETTLED, la.LEVEL, la.MOVING)
    rec = json.loads((out / "skill.json").read_text())
    assert rec["settings"]["field"] == "heuristic" and rec["settings"]["plain"] == ["greedy"]
    pairs = {(r["rung"], r["beginner"]): r for r in rec["rows"]}
    assert set(pairs) == {(a, b) for a in ("greedy", "tiny", "tiny-x2") for b in ("greedy", "random")}
    assert pairs["greedy", "random"]["note"] == la.NO_TWIN and pairs["tiny-x2", "random"]["games"] == 4
    html = (out / "report.html").read_text()
    assert "Has relative skill settled?" in html and "Relative skill by rung." in html

    # --resume plays only the games it lacks: 4 and 5; they equal games played in one go from (seed, game)
    assert main([*base, "--skill-games", "6", "--resume", "--dry-run"]) in (0, None)
    assert "relative skill: 12 games" in capsys.readouterr().out  # 6 players x 2 games
    before = la.read_skill_wins(out)
    assert main([*base, "--skill-games", "6", "--resume", "-q"]) in (0, None)
    after = la.read_skill_wins(out)
    assert len(after) == 6 * 6 and sorted(set(after["game"])) == list(range(6))
    keep = after[after["game"] < 4].sort_values(["bot", "clairvoyant", "game"])["win"].to_numpy()
    assert np.array_equal(keep, before.sort_values(["bot", "clairvoyant", "game"])["win"].to_numpy())
    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    fresh = skill_wins(g, ctx, 2, 1, 0, 6, "fictive", "tiny", "heuristic", (tiny,))
    mine = after[(after["bot"] == "tiny") & after["clairvoyant"]].sort_values("game")["win"].to_numpy()
    assert np.array_equal(mine, fresh)
    capsys.readouterr()
    assert main([*base, "--skill-games", "6", "--resume", "--dry-run"]) in (0, None)
    assert "relative skill: nothing left to play" in capsys.readouterr().out
    assert main([*base, "--skill-games", "6", "--skill-field", "greedy", "--resume", "-q"]) == 2  # other games

    # the report writes what skill.json holds as text, never as markup
    rec = json.loads((out / "skill.json").read_text())
    rec["rows"][0]["note"] = "<b>hostile</b>"
    (out / "skill.json").write_text(json.dumps(rec))
    assert main(["report", str(out), "--out", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "&lt;b&gt;hostile&lt;/b&gt;" in page and "<b>hostile</b>" not in page


def test_a_rung_at_the_ceiling_is_flagged():
    """A rung that wins every game against the field leaves its clairvoyant twin no room: its row says so."""
    import pandas as pd

    n = 20
    frame = pd.DataFrame(
        [(2, "random", False, g, 0.0) for g in range(n)]
        + [(2, "tiny", False, g, 1.0) for g in range(n)]
        + [(2, "tiny", True, g, 1.0) for g in range(n)],
        columns=["n_players", "bot", "clairvoyant", "game", "win"],
    )
    setup = {"beginners": ["random"], "search": ["tiny"], "field": "heuristic"}
    (row,) = la.skill_rows(frame, [2], ["tiny"], setup, n)
    assert row["relative_skill"] == 1.0 and row["ceiling"] and "at the ceiling" in row["note"]
