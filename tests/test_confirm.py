"""compare --confirm BOT: the fast compare's largest seat change replayed with a strong bot by a sequential test, and
the verdict that sets the two side by side."""

import json

from meeplab.analysis.confirm import FastChange, verdict


def test_the_verdict_sets_the_fast_change_beside_the_strong_test():
    up = FastChange(3, 1, 0.05, 0.02, 0.08)
    flat = FastChange(3, 1, 0.01, -0.02, 0.04)
    assert verdict(up, "rises") == "confirmed" and verdict(up, "falls") == "contradicted"
    assert verdict(up, "no change") == "contradicted" and verdict(up, "undecided") == "undecided"
    assert verdict(flat, "no change") == "confirmed" and verdict(flat, "rises") == "contradicted"


def test_compare_confirm_replays_the_question_with_the_strong_bot(tmp_path, capsys):
    from tests.cli_run import run_cli

    out = tmp_path / "c"
    code, so, se = run_cli(["compare", "schweinebande", "-p", "3", "-n", "600", "-b", "greedy", "--set",
                            "pig_bonus_farm=4", "--confirm", "heuristic", "--max-games", "400", "-q",
                            "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    rows = json.loads((out / "confirm.json").read_text())["rows"]
    assert len(rows) == 1 and rows[0]["seat"] == 1 and rows[0]["verdict"] in ("confirmed", "contradicted", "undecided")
    assert 0 < rows[0]["heuristic games"] <= 400 and "the compare confirmed with heuristic" in so
    assert (out / "confirm" / "p3" / "baseline" / "run.json").is_file()
    meta = json.loads((out / "confirm" / "p3" / "variant" / "run.json").read_text())
    assert meta["bots"] == ["heuristic"] and meta["params_changed"] == {"pig_bonus_farm": 4}
    code, _, se = run_cli(["compare", "schweinebande", "--set", "pig_bonus_farm=4", "--confirm", "nosuch",
                           "--out", str(tmp_path / "x")], capsys)  # fmt: skip
    assert code == 2 and "unknown bot 'nosuch'" in se


def test_sweep_confirm_replays_every_significant_change(tmp_path, capsys):
    from tests.cli_run import run_cli

    out = tmp_path / "s"
    code, _, se = run_cli(["sweep", "schweinebande", "-p", "3", "-b", "greedy", "--param", "pig_bonus_farm",
                            "--values", "2;3;4", "-n", "600", "--confirm", "heuristic", "-q", "--out", str(out)],
                           capsys)  # fmt: skip
    assert code == 0, se
    rows = json.loads((out / "confirm.json").read_text())["rows"]
    # greedy's start player loses measurably at 3 and 4: both replayed, every verdict one of the three words
    assert [r["value"] for r in rows] == ["pig_bonus_farm=3", "pig_bonus_farm=4"]
    assert all(r["verdict"] in ("confirmed", "contradicted", "undecided") for r in rows)
    assert (out / "confirm" / "pig_bonus_farm=4" / "p3" / "variant" / "run.json").is_file()
