"""The settled seat findings each game ships (analysis.settled): valid data for every built-in game, a run at the
default rules that contradicts them is told it is a bot artefact (report and stdout), a run away from them is told
to confirm with strong bots, and scripts/settled.py regenerates the file from ladder directories."""

import subprocess
import sys

import pytest

from meeplab.analysis import settled as sd
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.registry import get_game


@pytest.mark.parametrize(
    ("game", "counts"), [("schweinebande", [2, 3, 4, 5]), ("acbas", [2]), ("hacienda", [2, 3]), ("goldrush", [2, 3])]
)
def test_every_built_in_game_ships_its_settled_findings(game, counts):
    found = sd.load_settled(get_game(game))
    assert sorted(found) == counts
    for p, item in found.items():
        assert len(item.win) == p and item.verdict in sd.VERDICTS and item.games >= 400 and item.finding


def test_a_game_without_settled_findings_says_nothing():
    assert sd.load_settled(get_game("nothanks")) == {}


HALF = sd.Settled(2, "settled", "ismcts", 400, (0.5, 0.5), (0.45, 0.45), (0.55, 0.55), "fair seats")


def test_a_seat_outside_the_settled_interval_is_a_bot_artefact_and_other_rules_ask_for_strong_bots():
    far = sd.disagreements({2: HALF}, 2, ["tuned"], True, [(0.60, 0.64), (0.36, 0.40)])
    assert len(far) == 1 and "bot artefact of tuned" in far[0] and "seat 1 [0.600, 0.640]" in far[0]
    assert "fair seats" in far[0] and "seat 2 [0.360, 0.400]" in far[0]
    assert sd.disagreements({2: HALF}, 2, ["tuned"], True, [(0.52, 0.56), (0.44, 0.48)]) == []  # overlaps: agrees
    assert sd.disagreements({2: HALF}, 2, ["tuned", "greedy"], True, [(0.6, 0.64), (0.36, 0.4)]) == []  # mixed
    assert sd.disagreements({2: HALF}, 3, ["tuned"], True, [(0.6, 0.64)] * 3) == []  # no finding at 3 players
    other = sd.disagreements({2: HALF}, 2, ["tuned"], False, [(0.52, 0.56), (0.44, 0.48)])
    assert len(other) == 1 and "rules differ from the defaults" in other[0] and "strong bots" in other[0]


def test_a_strangers_settled_file_is_refused_in_one_line(tmp_path):
    good = {"verdict": "settled", "bot": "x", "games": 10, "win": [0.5, 0.5], "lo": [0.4, 0.4], "hi": [0.6, 0.6],
            "finding": "fair"}  # fmt: skip
    for bad in ({"verdict": "fine"}, {"win": [0.5]}, {"lo": [0.55, 0.4]}, {"games": 0}, {"hi": [0.6, 1.5]}):
        with pytest.raises(MeeplabError, match=r"\[players.2\]"):
            sd.write_settled(tmp_path / "s.toml", {2: {**good, **bad}}, [])
    with pytest.raises(MeeplabError, match="lacks or mistypes"):
        sd.write_settled(tmp_path / "s.toml", {2: {k: v for k, v in good.items() if k != "bot"}}, [])
    assert not (tmp_path / "s.toml").exists()


def test_run_says_on_stdout_and_in_its_report_when_it_contradicts_the_settled_finding(tmp_path, capsys):
    """greedy gives Schweinebande's start player far more than the settled 0.43 at 3 players."""
    from meeplab.analysis.load import load_run
    from meeplab.reports.runs import settled_notes
    from tests.cli_run import run_cli

    out = tmp_path / "r"
    code, so, se = run_cli(["run", "schweinebande", "-p", "3", "-n", "600", "-b", "greedy", "-q", "--out", str(out)],
                           capsys)  # fmt: skip
    assert code == 0, se
    assert "settled finding: 3 players: seat 1" in so and "bot artefact of greedy" in so
    notes = settled_notes(load_run(out), None)
    assert notes and "bot artefact" in notes[0][2]


def test_scripts_settled_writes_the_file_from_a_ladder(tmp_path, capsys):
    from tests.cli_run import run_cli

    lad = tmp_path / "lad"
    code, _, se = run_cli(["ladder", "schweinebande", "--players", "2", "--bots", "greedy,heuristic", "--games", "80",
                           "--threads", "1", "-q", "--out", str(lad)], capsys)  # fmt: skip
    assert code == 0, se
    out = tmp_path / "settled.toml"  # the file it replaces has a hand-written dispute at 2 players: kept, and said
    out.write_text(
        '[fast]\nbot = "rollout-tuned-2"\nnote = "agrees"\n[players.2]\nverdict = "settled"\n'
        '[players.2.disputed]\nlearned = "finds seat 2 short"\n'
    )  # and its fast check: kept, and said
    got = subprocess.run(
        [sys.executable, "scripts/settled.py", "schweinebande", str(lad), "--out", str(out)], capture_output=True,
        text=True,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "kept" in got.stderr and "disputed notes at 2 players (learned): check that they still hold" in got.stderr
    import tomllib

    found = sd.parse_settled(tomllib.loads(out.read_text()), "t")
    assert list(found) == [2] and found[2].bot == "heuristic" and found[2].games == 80
    assert found[2].disputed == (("learned", "finds seat 2 short"),)
    assert found[2].fast == ("rollout-tuned-2", "agrees") and "fast check (rollout-tuned-2)" in got.stderr
    assert "Made by python scripts/settled.py from the ladders of:\n#   meeplab " in out.read_text()
    bad = subprocess.run([sys.executable, "scripts/settled.py", "schweinebande", str(tmp_path)], capture_output=True,
                         text=True)  # fmt: skip
    assert bad.returncode == 2 and "not a readable ladder" in bad.stderr and "Traceback" not in bad.stderr


def test_a_hostile_settled_finding_reaches_the_report_escaped(tmp_path, capsys, monkeypatch):
    """The finding's words come from a file a plugin ships: in the report they are text, never markup."""
    from meeplab.reports import build_report
    from tests.cli_run import run_cli

    out = tmp_path / "r"
    code, _, se = run_cli(["run", "schweinebande", "-p", "2", "-n", "200", "-b", "greedy", "-q", "--threads", "1",
                           "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    evil = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    hostile = sd.Settled(2, "settled", evil, 400, (0.5, 0.5), (0.49, 0.49), (0.51, 0.51), evil)
    monkeypatch.setattr(sd, "load_settled", lambda spec: {2: hostile})
    html = build_report([out], tmp_path / "r.html").read_text()
    assert "Settled finding:" in html and "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # a hand-written dispute note reaches the page the same way: text, never markup
    disputed = sd.Settled(2, "settled", "ismcts", 400, (0.5, 0.5), (0.49, 0.49), (0.51, 0.51), "fair",
                          disputed=(("greedy", evil),))  # fmt: skip
    monkeypatch.setattr(sd, "load_settled", lambda spec: {2: disputed})
    html = build_report([out], tmp_path / "d.html").read_text()
    assert "greedy disputes it: &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)" not in html and "<img src=x" not in html


def test_a_finding_without_seat_effect_says_what_it_rules_out():
    def item(lo, hi, p=2):
        return sd.Settled(p, "settled", "ismcts", 400, tuple((a + b) / 2 for a, b in zip(lo, hi)), lo, hi, "x")

    assert item((0.49, 0.485), (0.515, 0.51)).margin_text() == "fair within ±2.0 points"
    assert item((0.474, 0.419), (0.581, 0.526)).margin_text() == "no seat effect found; cannot rule out ±8.1 points"
    assert item((0.52, 0.40), (0.60, 0.48)).margin_text() == ""  # a seat effect: nothing to rule out
    # Hacienda's 3-player finding of 2026-12-06 (ismcts, 400 games): no seat effect, ±7.4 points not ruled out
    old = {3: sd.Settled(3, "settled", "ismcts", 400, (0.359, 0.307, 0.334), (0.313, 0.264, 0.289),
                         (0.407, 0.355, 0.381), "fair seats (p = 0.45)")}  # fmt: skip
    assert old[3].margin_text() == "no seat effect found; cannot rule out ±7.4 points"
    said = sd.disagreements(old, 3, ["tuned"], True, [(0.41, 0.43), (0.30, 0.32), (0.25, 0.28)])
    assert len(said) == 1 and "(no seat effect found; cannot rule out ±7.4 points)" in said[0]
    hac = sd.load_settled(get_game("hacienda"))  # since 2026-12-07 (learned over ismcts): the third seat short
    assert hac[3].margin_text() == "" and hac[2].margin_text() == "" and hac[3].bot == "learned"


def test_a_bot_the_file_names_as_disputing_the_finding_is_told_the_question_is_open(tmp_path):
    """As Hacienda's learned did at 3 players before its ladder settled the question: a bot that beats the settling
    one and finds otherwise is not told that its finding is a bot artefact, other bots' runs still are; a stranger's
    disputed table is one line."""
    text = "it beats ismcts here and finds the third seat short"
    found = {3: sd.Settled(3, "settled", "ismcts", 400, (0.359, 0.307, 0.334), (0.313, 0.264, 0.289),
                           (0.407, 0.355, 0.381), "fair seats (p = 0.45)", disputed=(("learned", text),))}  # fmt: skip
    assert sd.parse_settled(
        {"players": {"3": {"verdict": "settled", "bot": "ismcts", "games": 400, "win": [0.359, 0.307, 0.334],
                           "lo": [0.313, 0.264, 0.289], "hi": [0.407, 0.355, 0.381], "finding": "fair seats (p = 0.45)",
                           "disputed": {"learned": text}}}}, "f")[3] == found[3]  # fmt: skip
    seats = [(0.361, 0.374), (0.366, 0.379), (0.254, 0.266)]
    mine = sd.disagreements(found, 3, ["learned"], True, seats)
    assert len(mine) == 1 and "bot artefact" not in mine[0] and "learned disputes it: it beats ismcts here" in mine[0]
    assert "seat 3 [0.254, 0.266]" in mine[0] and "Which holds is open" in mine[0] and "--bots ismcts" in mine[0]
    other = sd.disagreements(found, 3, ["tuned"], True, seats)
    assert "bot artefact of tuned" in other[0]
    good = {"verdict": "settled", "bot": "x", "games": 10, "win": [0.5, 0.5], "lo": [0.4, 0.4], "hi": [0.6, 0.6],
            "finding": "fair"}  # fmt: skip
    for bad in ({"learned": 3}, {"learned": ""}, {"": "text"}, "learned", {"learned": "x" * 601}):
        with pytest.raises(MeeplabError, match=r"\[players.2.disputed\]: must map bot names to one line of text"):
            sd.parse_settled({"players": {"2": {**good, "disputed": bad}}}, "f")


def test_a_fast_check_the_file_names_is_offered_beside_the_settling_bot(tmp_path):
    """A settled file's [fast] table names a cheaper bot whose self-play agrees with its findings (Schweinebande's
    rollout-tuned-2): a bot-artefact run and a run away from the default rules are offered it; its own runs are not
    offered themselves; a stranger's [fast] table is one line; scripts/settled.py keeps it."""
    note = "its self-play agrees with every finding here"
    good = {"verdict": "settled", "bot": "ismcts", "games": 400, "win": [0.5, 0.5], "lo": [0.45, 0.45],
            "hi": [0.55, 0.55], "finding": "fair seats"}  # fmt: skip
    found = sd.parse_settled({"fast": {"bot": "quick", "note": note}, "players": {"2": good}}, "f")
    assert found[2].fast == ("quick", note)
    far = sd.disagreements(found, 2, ["tuned"], True, [(0.60, 0.64), (0.36, 0.40)])
    assert "bot artefact of tuned" in far[0] and far[0].endswith(f"; a faster check: --bots quick ({note})")
    other = sd.disagreements(found, 2, ["tuned"], False, [(0.52, 0.56), (0.44, 0.48)])
    assert "rules differ from the defaults" in other[0] and other[0].endswith(
        f"; a faster check: --bots quick ({note})"
    )
    own = sd.disagreements(found, 2, ["quick"], True, [(0.60, 0.64), (0.36, 0.40)])
    assert "bot artefact of quick" in own[0] and "faster check" not in own[0]
    for bad in ({"bot": "quick"}, {"bot": "", "note": "x"}, {"bot": "q", "note": 3}, "quick",
                {"bot": "q", "note": "x" * 601}, {"bot": "q", "note": "x", "extra": "y"}):  # fmt: skip
        with pytest.raises(MeeplabError, match=r"f: \[fast\]: must hold a bot name"):
            sd.parse_settled({"fast": bad, "players": {"2": good}}, "f")
    sd.write_settled(tmp_path / "s.toml", {2: good}, ["a header"], {"bot": "quick", "note": note})
    import tomllib

    again = sd.parse_settled(tomllib.loads((tmp_path / "s.toml").read_text()), "s")
    assert again[2].fast == ("quick", note) and (tmp_path / "s.toml").read_text().startswith("# a header\n[fast]")
    sb = sd.load_settled(get_game("schweinebande"))  # the shipped fast check: a bot the game has
    from meeplab.sim.core.bots import available

    assert all(item.fast and item.fast[0] in available("schweinebande") for item in sb.values())
