"""meeplab experiment FILE.toml: every shipped example runs on a tiny budget; complete parts are skipped;
bad files are one line and exit 2."""

import json
from pathlib import Path

import pytest

from meeplab.cli import main
from meeplab.lab.studies import experiment as ex

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts" / "experiments"
FILES = sorted(EXAMPLES.glob("*.toml"))


def test_there_is_an_example_per_built_in_game():
    """Every built-in game has an example experiment (a plugin game brings its own, if any)."""
    from meeplab.sim.core.registry import builtin_ids

    games = {ex.load(f).game for f in FILES}
    assert set(builtin_ids()) <= games


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_example_runs_on_a_tiny_budget(path, tmp_path, capsys):
    exp = ex.load(path)
    out = tmp_path / "e"
    code = main(["experiment", str(path), "--games", "12", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    html = (out / "report.html").read_text()
    assert "Comparison" in html
    for name in exp.variants:
        assert name in html
        if exp.sprt is None:
            meta = json.loads((out / name / "run.json").read_text())
        else:
            meta = json.loads((out / name / "variant" / "run.json").read_text())
            assert meta["sprt"]["tests"][0]["games"] <= 12
        assert meta["status"] == "complete" and meta["label"] == name


def test_complete_parts_are_skipped_and_changes_refused(tmp_path, capsys):
    f = tmp_path / "x.toml"
    f.write_text(
        'game = "schweinebande"\nplayers = 3\nbots = "greedy,random"\ngames = 60\n[variants.v]\npig_bonus_farm = 0\n'
    )
    out = tmp_path / "o"
    assert main(["experiment", str(f), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    stamp = (out / "v" / "results.parquet").stat().st_mtime_ns
    assert main(["experiment", str(f), "--out", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "already complete" in err and (out / "v" / "results.parquet").stat().st_mtime_ns == stamp
    f.write_text(f.read_text().replace("games = 60", "games = 80"))
    assert main(["experiment", str(f), "--out", str(out), "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["experiment", str(f), "--out", str(out), "--quiet", "--force"]) == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ('players = 3\nbots = "greedy"\ngames = 10\n[variants.v]\nrounds = 3\n', "missing 'game'"),
        ('game = "schweinebande"\nbots = "greedy"\ngames = 10\n', "at least one [variants.NAME]"),
        ('game = "schweinebande"\nbots = "greedy"\ngames = 10\ncolour = 1\n[variants.v]\nrounds = 3\n', "unknown key"),
        ('game = "schweinebande"\nbots = "greedy"\ngames = 10\n[variants.v]\nnot_a_param = 3\n', "not_a_param"),
        ('game = "schweinebande"\nbots = "greedy"\ngames = 10\n[variants.v]\nparams = "nope.toml"\n', "not found"),
        ('game = "schweinebande"\nbots = "greedy"\ngames = -1\n[variants.v]\nrounds = 3\n', "positive"),
        (
            'game = "schweinebande"\nbots = "greedy"\ngames = 10\n[variants.v]\nrounds = 3\n[sprt]\nalpha = 0.1\n',
            "--delta",
        ),
        ("game = = 1", "not valid TOML"),
    ],
)
def test_bad_files_are_one_line_exit_2(text, message, tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    code = main(["experiment", str(f), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
