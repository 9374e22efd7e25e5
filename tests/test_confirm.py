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


def test_experiment_confirm_replays_each_variant(tmp_path, capsys):
    from tests.cli_run import run_cli

    exp = tmp_path / "e.toml"
    exp.write_text('game = "schweinebande"\nplayers = "3"\nbots = "greedy"\ngames = 600\n[baseline]\n'
                   'pig_bonus_farm = 2\n[variants.more]\npig_bonus_farm = 4\n')  # fmt: skip
    out = tmp_path / "x"
    code, so, se = run_cli(["experiment", str(exp), "--confirm", "heuristic", "-q", "--out", str(out)], capsys)
    assert code == 0, se
    rows = json.loads((out / "confirm.json").read_text())["rows"]
    assert [r["variant"] for r in rows] == ["more"] and rows[0]["verdict"] in ("confirmed", "contradicted", "undecided")
    meta = json.loads((out / "confirm" / "more" / "p3" / "variant" / "run.json").read_text())
    assert meta["bots"] == ["heuristic"] and meta["params_changed"] == {"pig_bonus_farm": 4}
    assert "each variant confirmed with heuristic" in so
    code, _, se = run_cli(["experiment", str(exp), "--confirm", "nosuch", "--out", str(tmp_path / "y")], capsys)
    assert code == 2 and "unknown bot 'nosuch'" in se and not (tmp_path / "y").exists()


def test_fair_confirm_replays_the_change_to_the_fair_value(tmp_path, capsys):
    from tests.cli_run import run_cli

    out = tmp_path / "f"
    code, _, se = run_cli(["fair", "schweinebande", "--param", "pig_bonus_farm", "--range", "3:6", "--target", "gap",
                            "-p", "3", "-b", "greedy", "-n", "600", "--steps", "2", "--confirm", "heuristic", "-q",
                            "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    fair = json.loads((out / "fair.json").read_text())["results"][0]["value"]
    rows = json.loads((out / "confirm.json").read_text())["rows"]
    # the default (2) lies outside the searched range: played fast as the baseline, then both replayed by heuristic
    assert (out / "pig_bonus_farm=2" / "run.json").is_file() and len(rows) == 1
    assert rows[0]["from"] == "pig_bonus_farm=2" and rows[0]["to"] == f"pig_bonus_farm={int(fair)}"
    meta = json.loads((out / "confirm" / f"pig_bonus_farm={int(fair)}" / "p3" / "variant" / "run.json").read_text())
    assert meta["bots"] == ["heuristic"] and meta["params_changed"] == {"pig_bonus_farm": int(fair)}
    code, _, se = run_cli(["fair", "schweinebande", "--param", "pig_bonus_farm", "--range", "3:6", "--target", "bots",
                           "-b", "greedy,heuristic", "--confirm", "heuristic", "--out", str(tmp_path / "g")],
                          capsys)  # fmt: skip
    assert code == 2 and "--target bots compares two bots" in se


def test_fair_every_seat_confirm(tmp_path, capsys):
    from tests.cli_run import run_cli

    out = tmp_path / "a"
    code, _, se = run_cli(["fair", "schweinebande", "--param", "start_feed", "--seats", "all", "--keep", "1",
                           "--range", "0:5", "-p", "3", "-b", "greedy", "-n", "400", "--steps", "1", "--confirm",
                           "heuristic", "-q", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    res = json.loads((out / "fair.json").read_text())["results"][0]
    rows = json.loads((out / "confirm.json").read_text())["rows"]
    if res["values"] == res["default"]:
        assert rows == []  # nothing changed: nothing to confirm
    else:
        assert len(rows) == 1 and rows[0]["from"] == "start_feed=0,0,0" and rows[0]["players"] == 3


def test_confirmation_json_is_one_document_and_its_limits_hold(tmp_path, capsys):
    from tests.cli_run import run_cli

    out = tmp_path / "s"
    code, so, se = run_cli(["sweep", "schweinebande", "-p", "3", "-b", "greedy", "--param", "pig_bonus_farm",
                            "--values", "2;4", "-n", "600", "--confirm", "heuristic", "--confirm-games", "200",
                            "--confirm-delta", "0.05", "-q", "--json", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    doc = json.loads(so)  # the sweep's table and its confirmation in one JSON document
    assert [r["run"] for r in doc["rows"]] == ["pig_bonus_farm=2", "pig_bonus_farm=4"]
    assert doc["confirm"]["rows"][0]["heuristic games"] <= 200
    rec = json.loads((out / "confirm" / "pig_bonus_farm=4" / "p3" / "sprt.json").read_text())
    assert rec["settings"]["delta"] == 0.05 and rec["settings"]["max_games"] == 200
    code, _, se = run_cli(["sweep", "schweinebande", "--param", "pig_bonus_farm", "--values", "2;4",
                           "--confirm-games", "200", "--out", str(tmp_path / "x")], capsys)  # fmt: skip
    assert code == 2 and "go with --confirm BOT" in se


def test_a_strong_bot_that_misses_the_settled_finding_is_called_not_credible(tmp_path, capsys):
    """Schweinebande's learned plays the start player's edge as tuned does (0.85 at 3 players, the settled finding
    0.43-0.47): its confirmation carries its own seats and a caveat, in confirm.json and the report."""
    from tests.cli_run import run_cli

    out = tmp_path / "c"
    code, _, se = run_cli(["compare", "schweinebande", "-p", "3", "-n", "400", "-b", "greedy", "--set",
                           "pig_bonus_farm=4", "--confirm", "learned", "--max-games", "200", "-q", "--out", str(out)],
                          capsys)  # fmt: skip
    assert code == 0, se
    row = json.loads((out / "confirm.json").read_text())["rows"][0]
    first = float(row["learned seats (baseline)"].split(",")[0])
    assert first > 0.6 and "not credible" in row["caveat"]
    page = (out / "report.html").read_text()
    assert "(not credible)" in page and "confirm with the bot behind the finding" in page


def test_a_hostile_strong_bot_name_reaches_the_confirm_section_as_text(tmp_path, capsys):
    """A strong bot's name from a stranger's bot config goes into the report's confirmation section as text (the fair
    section shows only the game's own parameter names and numbers)."""
    from tests.cli_run import run_cli

    evil = '<img src=x onerror="window.__pwned=1">'
    cfg = tmp_path / "bots.toml"
    cfg.write_text(f'[bots.{json.dumps(evil)}]\nbase = "heuristic"\n', encoding="utf-8")
    out = tmp_path / "c"
    code, _, se = run_cli(["compare", "schweinebande", "-p", "3", "-n", "300", "-b", "greedy", "--set",
                           "pig_bonus_farm=4", "--bot-config", str(cfg), "--confirm", evil, "--max-games", "200",
                           "-q", "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, se
    page = (out / "report.html").read_text()
    assert 'id="confirm"' in page and evil not in page and "&lt;img src=x onerror=" in page
